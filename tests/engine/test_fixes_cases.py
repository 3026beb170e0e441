"""Proven fixes, case by case: StrictFIFO, rules, namespace selectors, inactive queues, topology,
preemption; and the bundled example's fixes applied by hand (as a patch) and decided by `admit`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kadmit import api
from kadmit.edits import apply
from kadmit.engine.explain.rank import preference
from kadmit.cli import cli
from kadmit.render.why import why_patch

sys.path.insert(0, str(Path(__file__).parent))
from test_fixes_proven import _states, check_fixes  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

HEAD = """\
priority low = 10
priority mid = 100 default
priority high = 1000
flavor f { node_labels = { model = "f" } }
namespace ns {
  labels = { team = "a" }
}
"""


def queue(name: str, cpu: int, *, strict: bool = False, selector: str | None = None, extra: str = "") -> str:
    sel = f'  namespaces = {{ team = "{selector}" }}\n' if selector else ""
    return (f"cluster_queue {name} {{\n{sel}  queueing = {'strict_fifo' if strict else 'best_effort_fifo'}\n{extra}"
            f"  resources cpu {{\n    flavor f {{ cpu = {cpu} }}\n  }}\n}}\nlocal_queue ns/{name} -> {name}\n")


def workload(name: str, q: str, cpu: int, *, count: int = 1, minute: int = 0, prio: str = "mid",
             admitted: bool = False) -> str:
    adm = (f"  admitted {{\n    cluster_queue = {q}\n    pod_group main {{\n      count = {count}\n"
           "      flavor = f\n    }\n  }\n") if admitted else ""
    return (f"workload ns/{name} {{\n  queue = {q}\n  priority = {prio}\n"
            f'  created = "2026-11-20T09:{minute:02d}:00Z"\n'
            f"  pod_group main {{\n    count = {count}\n    requests = {{ cpu = {cpu} }}\n  }}\n{adm}}}\n")


def fixes_of(tmp_path: Path, text: str, key: str):
    (tmp_path / "in").mkdir(exist_ok=True)
    (tmp_path / "in" / "c.kad").write_text(text)
    out = api.why(key, [str(tmp_path / "in")])
    assert out.result is not None and not out.result.admitted
    assert check_fixes(tmp_path, text, key) == len(out.result.fixes)  # each applied and decided again
    return out.result.fixes


def edits(fix) -> list[tuple[str, str]]:
    return [(c.edit.old, c.edit.new) for c in fix.changes]


def test_strict_fifo_behind_a_blocked_head_switches_to_best_effort(tmp_path):
    text = HEAD + queue("q", 4, strict=True) + workload("big", "q", 8) + workload("small", "q", 2, minute=1)
    fixes = fixes_of(tmp_path, text, "ns/small")
    assert [("strict_fifo", "best_effort_fifo")] in [edits(f) for f in fixes]
    switch = next(f for f in fixes if edits(f) == [("strict_fifo", "best_effort_fifo")])
    assert switch.effects == [] and switch.outcome.pod_sets == (("main", 1, (("cpu", "f"),)),)
    assert "`queueing` of cluster_queue `q`: strict_fifo → best_effort_fifo" in switch.message


def test_strict_fifo_switch_not_offered_when_the_workloads_own_quota_is_too_small(tmp_path):
    text = HEAD + queue("q", 4, strict=True) + workload("big", "q", 8) + workload("small", "q", 6, minute=1)
    fixes = fixes_of(tmp_path, text, "ns/small")
    assert fixes, "a bigger quota admits it"
    assert [("strict_fifo", "best_effort_fifo")] not in [edits(f) for f in fixes]
    for f in fixes:  # every fix raises the quota: the real obstacle
        assert any(c.knob.kind == "quota" for c in f.changes)


def test_a_rule_alone_is_disabled_by_name_and_line(tmp_path):
    text = HEAD + queue("q", 8) + workload("w", "q", 1, count=3) + "forbid no-threes:\n  pod_group.count == 3\n"
    fixes = fixes_of(tmp_path, text, "ns/w")
    rule = [f for f in fixes if f.changes[0].knob.kind == "rule"]
    assert rule and edits(rule[0]) == [("pod_group.count == 3", "false")]
    assert rule[0].changes[0].edit.line == text.splitlines().index("  pod_group.count == 3") + 1
    assert "disable rule `no-threes`" in rule[0].message


def test_namespace_selector_label_or_local_queue_target(tmp_path):
    text = HEAD + queue("q", 8, selector="b") + queue("open", 8) + workload("w", "q", 2)
    fixes = fixes_of(tmp_path, text, "ns/w")
    changes = [edits(f) for f in fixes]
    assert [("a", "b")] in changes  # the namespace's label
    assert [("q", "open")] in changes  # the local queue's target
    label = next(f for f in fixes if edits(f) == [("a", "b")])
    assert "label `team` of namespace `ns`" in label.message


def test_preemption_policy_lets_a_higher_priority_workload_in(tmp_path):
    extra = "  preemption {\n    within_cluster_queue = never\n  }\n"
    text = (HEAD + queue("q", 4, extra=extra) + workload("old", "q", 4, prio="low", admitted=True)
            + workload("urgent", "q", 4, prio="high", minute=1))
    fixes = fixes_of(tmp_path, text, "ns/urgent")
    policy = next(f for f in fixes if edits(f) == [("never", "lower_priority")])
    assert [(e.workload, e.kind) for e in policy.effects] == [("ns/old", "admitted → evicted")]
    finish = next(f for f in fixes if f.changes[0].knob.kind == "finish")
    assert finish.effects == [] and preference(finish, "q") < preference(policy, "q")  # no side effect ranks first


def test_topology_blocked_gang_waits_for_the_holder(tmp_path, monkeypatch):
    policy = (REPO / "tests/cli/test_why_placement_cli.py").read_text().split('POLICY = """\\\n', 1)[1].split('"""', 1)[0]
    fixes = fixes_of(tmp_path, policy, "team/big")
    assert fixes and fixes[0].changes[0].knob.kind == "finish"
    assert fixes[0].outcome.nodes and fixes[0].effects == []
    monkeypatch.chdir(tmp_path / "in")
    got = CliRunner().invoke(cli, ["why", "team/big", "c.kad", "--apply-fix", "1"])
    assert got.exit_code == 0
    line = policy.splitlines().index("workload team/small {") + 1
    assert got.stdout.splitlines()[:3] == ["--- a/c.kad", "+++ b/c.kad", f"@@ -{line - 3},7 +{line - 3},7 @@"]
    assert "-workload team/small {" in got.stdout.splitlines() and \
        "+workload team/small { finished = true" in got.stdout.splitlines()
    assert CliRunner().invoke(cli, ["why", "team/big", "c.kad", "--apply-fix", "9"]).exit_code == 2


def test_inactive_queue_naming_a_missing_flavor(tmp_path):
    text = HEAD + "flavor g { }\n" + queue("q", 4).replace("flavor f {", "flavor x {") + workload("w", "q", 2)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.kad").write_text(text)
    out = api.why("ns/w", [str(tmp_path / "in")])
    if out.result is None:
        pytest.skip("why refuses input with errors (a ClusterQueue naming a missing flavor)")
    assert [(c.edit.old, c.edit.new) for f in out.result.fixes for c in f.changes] == [("x", "f"), ("x", "g")]
    for i, fix in enumerate(out.result.fixes):  # `admit` refuses the input; the fixed one it decides
        d = tmp_path / f"fix{i}"
        d.mkdir()
        (d / "c.kad").write_text(apply(text, [c.edit for c in fix.changes]))
        after = api.admit([str(d)])
        assert after.exit_code == 0
        assert _states(after)["ns/w"] == fix.outcome


@pytest.mark.parametrize("example, key", [("examples/ml-platform", "team-vision/llm-pretrain"),
                                          ("examples/ml-platform-kueue", "team-nlp/shared-vision")])
def test_example_fixes_hold_when_applied_as_a_patch(tmp_path, monkeypatch, example, key):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / example, tmp_path / example)
    out = api.why(key, [example])
    assert out.result.fixes
    before = _states(api.admit([example]))
    for n, fix in enumerate(out.result.fixes, 1):
        diff = why_patch(fix, out.loaded.sources)  # what `why --apply-fix N` prints
        assert diff.startswith(f"--- a/{example}/")
        copy = tmp_path / f"fix{n}"
        shutil.copytree(tmp_path / example, copy / example)
        subprocess.run(["patch", "-p1", "-s", "-d", str(copy)], input=diff, text=True, check=True)
        after = _states(api.admit([str(copy / example)]))
        assert after[key] == fix.outcome
        assert {k for k in after if k != key and after[k] != before.get(k)} == {e.workload for e in fix.effects}


def test_optimal_mode_proves_its_fixes_in_optimal_mode(tmp_path):
    text = HEAD + queue("q", 4) + workload("held", "q", 2, prio="low", admitted=True) + workload("w", "q", 3, count=2)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.kad").write_text(text)
    out = api.why("ns/w", [str(tmp_path / "in")], mode="optimal", time_budget=2.0)
    assert out.result.fixes_mode == "optimal" and out.result.fixes
    before = _states(api.admit([str(tmp_path / "in")], mode="optimal", time_budget=2.0))
    for i, fix in enumerate(out.result.fixes):
        d = tmp_path / f"o{i}"
        d.mkdir()
        (d / "c.kad").write_text(apply(text, [c.edit for c in fix.changes]))
        after = _states(api.admit([str(d)], mode="optimal", time_budget=2.0))
        assert after["ns/w"] == fix.outcome
        assert {k for k in after if k != "ns/w" and after[k] != before.get(k)} == {e.workload for e in fix.effects}


def test_a_selector_on_the_namespace_name_is_met_by_retargeting_not_by_a_label(tmp_path):
    # The API server sets kubernetes.io/metadata.name to the namespace's name whatever a manifest says:
    # a selector on it is met by the queue that selects the name, and no label edit can meet another's.
    def named(name: str, ns: str) -> str:
        return (f"cluster_queue {name} {{\n  namespaces = {{ \"kubernetes.io/metadata.name\" = \"{ns}\" }}\n"
                f"  resources cpu {{\n    flavor f {{ cpu = 8 }}\n  }}\n}}\n")
    text = HEAD + named("elsewhere", "other") + named("mine", "ns") + "local_queue ns/q -> elsewhere\n" + workload(
        "w", "q", 2)
    fixes = fixes_of(tmp_path, text, "ns/w")
    changes = [edits(f) for f in fixes]
    assert [("elsewhere", "mine")] in changes
    assert not any(f.changes[0].knob.kind == "label" for f in fixes)
