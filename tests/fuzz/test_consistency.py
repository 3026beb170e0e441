"""kadmit against itself (tests/fuzz/consistency.py): admit's JSON stable, `why` agreeing with admit and
exiting as documented, a fix's patch admitting the workload with the side effects it lists — on the
bundled example, and on a few clusters drawn as the oracle soak draws them (bench/fuzz_consistency.py
draws many more)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
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


def test_a_fix_that_also_waits_says_so_beside_its_patch(tmp_path: Path, monkeypatch) -> None:
    """bench/fuzz_consistency.py --seed 3, cluster 17: ns-cq0/w06's fix 1 is cq0's queueing strategy and
    ns-cq0/w04 finishing; the patch holds the first alone, and applied it admits nothing (found applying
    it). The wait is said on stderr, where a patch's reader sees it."""
    from click.testing import CliRunner

    from kadmit.cli import cli

    (tmp_path / "cluster.yaml").write_text((Path(__file__).parent / "data" / "fix-that-also-waits.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(cli, ["why", "ns-cq0/w06", "cluster.yaml", "--apply-fix", "1"])
    assert got.exit_code == 0 and got.stdout.startswith("--- a/cluster.yaml") and "BestEffortFIFO" in got.stdout
    assert got.stderr == ("fix 1 also needs what no edit of the input says: cluster.yaml:424: wait for workload "
                          "`ns-cq0/w04` to finish (no edit of the input says so: proven by deciding again without it)\n")


def test_a_fix_behind_an_admission_check_says_it_waits_for_it(tmp_path: Path) -> None:
    """bench/fuzz_consistency.py --seed 5 on a snapshot, clusters 16 and 17: ns-cq0/w05's fix 1 raises cq0's
    quota; with the patch, admit reserves its quota and waits for admission check ac-prov (Pending):
    admitted false, quota_reserved true. The fix said "it is admitted" (re-decisions marked no checks);
    now it says it is given quota and waits for the check, and its JSON outcome has admit's fields."""
    text = (Path(__file__).parent / "data" / "fix-reserves-quota-behind-a-check.yaml").read_text()
    stats: Counter = Counter()
    found = check_cluster(tmp_path, {"cluster.yaml": text}, random.Random(0), whys=0, fixes=0, stats=stats)
    assert found == []
    found = _one_fix(tmp_path, "ns-cq0/w05")
    assert found == []
    from .runner import call
    text = call("why", ["why", "ns-cq0/w05", "case"], tmp_path, 60).stdout
    assert "then given quota in ClusterQueue `cq0` with 2 pods of `main` on f1, and waits for admission check " \
           "`ac-prov` (admitted once it is Ready)" in " ".join(text.split()), text


def _one_fix(work: Path, name: str) -> list[str]:
    from .consistency import _fix_holds
    from .runner import call

    w = call("why", ["why", name, "case", "--format", "json"], work, 60)
    answer = json.loads(w.stdout)
    a = call("admit", ["admit", "case", "--format", "json"], work, 60)
    decisions = {d["workload"]: d for d in json.loads(a.stdout)["decisions"]}
    return _fix_holds(work, name, 1, answer["fixes"][0], decisions, lambda args, cwd=work: call(args[0], args, cwd, 60),
                      Counter())


def test_the_kueue_example_round_trips_through_kad(tmp_path: Path) -> None:
    """import, fmt, export and import again (`round_trip`) on the bundled Kueue example: the import is fmt's fixed
    point and decides as the manifests do, its export decides as it does, and imports back to it."""
    root = Path(__file__).resolve().parents[2] / "examples" / "ml-platform-kueue"
    files = {f.name: f.read_text() for f in sorted(root.glob("*.yaml")) if not f.name.endswith(".kadtest.yaml")}
    stats: Counter = Counter()
    found = check_cluster(tmp_path, files, random.Random(0), whys=0, fixes=0, round_trip=True, stats=stats)
    assert found == []
    assert stats["imports decided again"] == 1 and stats["exports decided again"] == 1, stats
    assert stats["imported files formatted"] >= 5, stats


def test_a_side_effect_on_a_reservation_behind_a_check_says_so(tmp_path: Path) -> None:
    """bench/fuzz_consistency.py --n 100 --seed 31 --whys 2 --fixes 2 --hashseed, cluster 24: ns-cq1/w03's fix 1
    raises cq1's cpu quota, and ns-cq1/w07, whose quota is reserved behind admission check ac-ready, gets more
    pods. The side effect said w07 was "admitted to cq1" before: why's own run did not mark the checks (admit's
    does), so its baseline took the reservation for an admission; now both sides say the quota is reserved."""
    text = (Path(__file__).parent / "data" / "side-effect-behind-a-check.yaml").read_text()
    found = check_cluster(tmp_path, {"cluster.yaml": text}, random.Random(0), whys=0, fixes=0)
    assert found == []
    from .runner import call
    w = call("why", ["why", "ns-cq1/w03", "case", "--format", "json"], tmp_path, 60)
    effects = json.loads(w.stdout)["fixes"][0]["effects"]
    assert effects == [{"workload": "ns-cq1/w07", "kind": "with more pods",
                        "before": "quota reserved in cq1 (main: 1 pod on f0), waiting for admission check `ac-ready`",
                        "after": "quota reserved in cq1 (main: 2 pods on f0), waiting for admission check `ac-ready`"}]
    assert _one_fix(tmp_path, "ns-cq1/w03") == []
