"""kadmit against Kueue's own code on generated clusters across the feature space
(tests/oracle/strategies.py): each example is a batch of clusters, each written as its own
manifest file, decided by kadmit in this process and by the oracle in one `admit --each` call.
Any difference fails with both answers and the path of the shrunk cluster's manifest file
(tests/oracle/.failures/ or $KADMIT_ORACLE_FAILURES), which `kadmit admit FILE` and
`tools/kueue-oracle/kueue-oracle admit FILE` reproduce.

Bounded for CI (the `ci` profile draws the same examples every run); bench/oracle_soak.py runs
thousands with every switch on and prints agreement per feature.

Switches kept off here because kadmit is known to differ are KNOWN_DIVERGENT (a row of the divergence list each,
a strict xfail in test_admit.py's DIVERGENCES; the soak keeps them on).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle.differential import decide
from oracle.strategies import ALL, clusters

# switch -> the divergence (tests/oracle/features/ file) that keeps it off in CI
KNOWN_DIVERGENT = {
    "fair_sharing_no_cohort": "tests/oracle/features/kueue-panics-fair-sharing-without-cohort.yaml: Kueue v0.17.0 "
                              "itself panics (fair sharing, a queue in no cohort preempting)",
}
CI_SWITCHES = ALL - set(KNOWN_DIVERGENT)
BATCH = 8


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(clusters(CI_SWITCHES), min_size=1, max_size=BATCH))
def test_kadmit_decides_generated_clusters_as_kueue(kueue_oracle, tmp_path_factory, batch):
    verdicts = decide(kueue_oracle, batch, tmp_path_factory.mktemp("clusters"))
    differ = [v for v in verdicts if not v.agree]
    assert not differ, "\n\n".join(
        f"kadmit and Kueue differ on {v.path} (features: {' '.join(sorted(v.features))}):\n{v.report}" for v in differ)


def test_a_difference_is_kept_as_a_manifest_file(kueue_oracle, tmp_path, monkeypatch):
    """The failure names a file that reproduces it: a cluster kadmit refuses to decide (a
    namespace named by a number) and Kueue decides is kept where failures go, with the reason."""
    from oracle.strategies import Cluster

    monkeypatch.setenv("KADMIT_ORACLE_FAILURES", str(tmp_path / "kept"))
    bad = Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": 5}}], {"broken"})
    [v] = decide(kueue_oracle, [bad], tmp_path / "in")
    assert not v.agree and "kadmit refused it (exit 2)" in v.report
    assert v.path is not None and v.path.parent == tmp_path / "kept" and v.path.read_text() == bad.text()
