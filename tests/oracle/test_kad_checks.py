"""Admission checks written in `.kad`, judged by Kueue: each admission-check feature cluster is imported
(`kadmit import`: its checks, their controllers' objects, the queues' `admission_checks`, the
workloads' `checks`), kadmit decides the `.kad`, and Kueue's own scheduler (tools/kueue-oracle) decides
the `kadmit export` of that `.kad` — the objects a cluster deployed from it would hold; every workload's
outcome compared as tests/oracle/test_admit.py compares the manifests themselves."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from oracle.differential import oracle_each
from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, variants

# (admission-checks-delay-topology-assignment.yaml holds a flavor naming a missing topology: input
# with errors, which `import` refuses)
FEATURES = sorted(p for p in (ROOT / "tests" / "oracle" / "features").glob("admission-check*.yaml")
                  if p.name != "admission-checks-delay-topology-assignment.yaml")


def _import_export(path, folder):
    """`kadmit import` of the feature cluster into folder/kad, `kadmit export` of that into folder/yaml."""
    from kadmit import api

    kad, yaml = folder / "kad", folder / "yaml"
    imported = api.import_([str(path)], str(kad), workloads=True)
    exported = api.export([str(kad)], str(yaml), workloads=True, nodes=True) if imported.exit_code == 0 else None
    return kad, yaml, imported, exported


@pytest.fixture(scope="module")
def exports(kueue_oracle, request, scratch_root) -> dict:
    """Each selected case's import and export, and Kueue's answer (three runs) for every export, decided
    in one oracle process (`--each` over the export folders, each a cluster of its own) rather than a
    process per case; written in `scratch_root`, for the imports' and exports' atomic writes)."""
    paths = [item.callspec.params["path"] for item in request.session.items
             if getattr(item, "originalname", None) == "test_a_kad_with_checks_decides_as_kueue_on_its_export"
             and item.module is request.module]
    done = {path: _import_export(path, Path(tempfile.mkdtemp(prefix=path.stem, dir=scratch_root))) for path in paths}
    folders = [yaml for _, yaml, _, exported in done.values() if exported is not None and exported.exit_code == 0]
    kueue = oracle_each(kueue_oracle, folders, runs=3) if folders else {}
    return {path: (kad, yaml, imported, exported, kueue.get(str(yaml))) for path, (kad, yaml, imported, exported)
            in done.items()}


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.stem)
def test_a_kad_with_checks_decides_as_kueue_on_its_export(exports, path) -> None:
    kad, yaml, got, exported, kueue = exports[path]
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    assert (kad / "checks.kad").is_file()
    assert exported.exit_code == 0, [f"{d.code} {d.message}" for d in exported.diagnostics]
    code, kadmit = run_kadmit([str(kad)])
    assert kadmit is not None and code in (0, 1), f"kadmit admit refused {kad} (exit {code})"
    assert kueue is not None and "error" not in kueue, f"the oracle on {yaml}: {kueue}"
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert result.agree, f"kadmit on the .kad of {path.name} and Kueue on its export differ:\n" + result.report(k, q)
