"""Admission checks written in `.kad`, judged by Kueue: each admission-check feature cluster is imported
(`kadmit import`: its checks, their controllers' objects, the queues' `admission_checks`, the
workloads' `checks`), kadmit decides the `.kad`, and Kueue's own scheduler (tools/kueue-oracle) decides
the `kadmit export` of that `.kad` — the objects a cluster deployed from it would hold; every workload's
outcome compared as tests/oracle/test_admit.py compares the manifests themselves."""

from __future__ import annotations

import pytest

from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle, variants

# (admission-checks-delay-topology-assignment.yaml holds a flavor naming a missing topology: input
# with errors, which `import` refuses)
FEATURES = sorted(p for p in (ROOT / "tests" / "oracle" / "features").glob("admission-check*.yaml")
                  if p.name != "admission-checks-delay-topology-assignment.yaml")


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.stem)
def test_a_kad_with_checks_decides_as_kueue_on_its_export(kueue_oracle, tmp_path, path) -> None:
    from kadmit import api

    kad, yaml = tmp_path / "kad", tmp_path / "yaml"
    got = api.import_([str(path)], str(kad), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    assert (kad / "checks.kad").is_file()
    got = api.export([str(kad)], str(yaml), workloads=True, nodes=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    code, kadmit = run_kadmit([str(kad)])
    assert kadmit is not None and code in (0, 1), f"kadmit admit refused {kad} (exit {code})"
    kueue = run_oracle(kueue_oracle, [str(yaml)], "--runs", "3")
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert result.agree, f"kadmit on the .kad of {path.name} and Kueue on its export differ:\n" + result.report(k, q)
