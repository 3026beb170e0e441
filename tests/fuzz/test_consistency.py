"""kadmit against itself (tests/fuzz/consistency.py): admit's JSON stable, `why` agreeing with admit and
exiting as documented, a fix's patch admitting the workload with the side effects it lists — on the
bundled example, and on a few clusters drawn as the oracle soak draws them (bench/fuzz_consistency.py
draws many more)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from oracle.strategies import allowed_switches, clusters

from .consistency import check_cluster
from .mutate import seeds

EXAMPLE = next(s for s in seeds() if s.name == "examples/ml-platform")


def test_the_example_agrees_with_itself_and_its_fixes_hold(tmp_path: Path) -> None:
    stats: Counter = Counter()
    files = {k: v for k, v in EXAMPLE.files.items() if k.endswith(".kad")}
    found = check_cluster(tmp_path, files, random.Random(1), whys=2, fixes=1, stats=stats)
    assert found == []
    assert stats["why, not admitted"] == 2 and stats["fixes applied"] == 1, stats


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(cluster=clusters(allowed_switches([], [])))
def test_generated_clusters_agree_with_themselves(cluster, tmp_path_factory) -> None:
    found = check_cluster(tmp_path_factory.mktemp("c"), {"cluster.yaml": cluster.text()}, random.Random(0),
                          whys=1, fixes=1)
    assert found == [], (sorted(cluster.features), found)
