"""TASBalancedPlacement where Kueue's own answer depends on Go's map order (docs/KUEUE-DIFFERENCES.md §1):
findBestDomainsForBalancedPlacement takes the domains above the preferred level from a map and keeps the
first of equal threshold and domain count. The oracle's runs show both placements; kadmit's (level-value
order: r1's hosts) is one of them. And where Kueue has no answer: its scheduler panics (KAD263)."""

from __future__ import annotations

import subprocess

from kadmit import api
from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle, run_oracle_until, variants


def test_tied_parents_of_the_preferred_level_go_either_way(kueue_oracle) -> None:
    path = "tests/oracle/features/tie-tas-balanced-placement-parents.yaml"
    def placements(kueue: dict) -> list[tuple]:
        return sorted(tuple(sorted(o["decision"]["pod_sets"][0]["placement"].items()))
                      for w in kueue["variance"]["workloads"] for o in w["outcomes"])
    both = [(("h1", 2), ("h2", 2)), (("h3", 2), ("h4", 2))]
    # until both show, at most 16 runs: each about half (33/31 of 64 on 2026-12-06), all 16 alike about once in 30,000
    kueue = run_oracle_until(kueue_oracle, [path], lambda d: placements(d) == both, runs=16)
    assert placements(kueue) == both
    code, kadmit = run_kadmit([path])
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert code == 0 and result.agree, result.report(k, q)
    (w,) = kadmit["decisions"]
    assert w["pod_sets"][0]["placement"] == {"h1": 2, "h2": 2}


def test_a_preferred_pod_set_of_no_whole_slice_panics_kueue_where_kadmit_warns(kueue_oracle, tmp_path) -> None:
    """KAD263's claim, checked on Kueue's code: 2 pods in slices of 3, `preferred: rack`, the gate on: Kueue's
    balanceThresholdValue divides 0 slices by 0 domains and its scheduler panics (the oracle exits 2); kadmit
    warns. The gate off, Kueue decides, and agrees with kadmit."""
    text = (ROOT / "tests/oracle/features/tie-tas-balanced-placement-parents.yaml").read_text(encoding="utf-8")
    short = text.replace("    count: 4\n", "    count: 2\n").replace(
        "{preferred: kubernetes.io/hostname}",
        "{preferred: rack, podSetSliceRequiredTopology: kubernetes.io/hostname, podSetSliceSize: 3}")
    assert short.count("podSetSliceSize: 3") == 1 and "count: 2\n" in short
    path = tmp_path / "no-whole-slice.yaml"
    path.write_text(short, encoding="utf-8")
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2 and "integer divide by zero" in proc.stderr and "balanceThresholdValue" in proc.stderr
    assert [d.code for d in api.check([str(path)]).diagnostics if d.code == "KAD263"] == ["KAD263"]
    off = tmp_path / "gate-off.yaml"
    off.write_text(short.replace("TASBalancedPlacement: true", "TASBalancedPlacement: false"), encoding="utf-8")
    assert not [d for d in api.check([str(off)]).diagnostics if d.code == "KAD263"]
    kueue = run_oracle(kueue_oracle, [str(off)], "--runs", "3")
    code, kadmit = run_kadmit([str(off)])
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    assert compare(k, q).agree, compare(k, q).report(k, q)
