"""TASBalancedPlacement where Kueue's own answer depends on Go's map order (docs/KUEUE-DIFFERENCES.md §1):
findBestDomainsForBalancedPlacement takes the domains above the preferred level from a map and keeps the
first of equal threshold and domain count. The oracle's runs show both placements; kadmit's (level-value
order: r1's hosts) is one of them."""

from __future__ import annotations

from oracle.harness import compare, from_kadmit, from_oracle, run_kadmit, run_oracle, variants


def test_tied_parents_of_the_preferred_level_go_either_way(kueue_oracle) -> None:
    path = "tests/oracle/features/tie-tas-balanced-placement-parents.yaml"
    kueue = run_oracle(kueue_oracle, [path], "--runs", "16")
    placements = sorted(tuple(sorted(o["decision"]["pod_sets"][0]["placement"].items()))
                        for w in kueue["variance"]["workloads"] for o in w["outcomes"])
    assert placements == [(("h1", 2), ("h2", 2)), (("h3", 2), ("h4", 2))]  # 16 runs: both, each about half
    code, kadmit = run_kadmit([path])
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert code == 0 and result.agree, result.report(k, q)
    (w,) = kadmit["decisions"]
    assert w["pod_sets"][0]["placement"] == {"h1": 2, "h2": 2}
