"""Fixes a person would choose (issue 19, item 4): every quota number of the blame is a candidate (a
lending limit too), fixes are grouped by who acts and ranked by side effects then the size of the
change, and shrinking a workload by more than half never comes before a policy change that does as
well. Every fix here is applied to the input and decided again (`check_fixes`)."""

from __future__ import annotations

import sys
from pathlib import Path

from kadmit import api
from kadmit.render.why import why_dict, why_human

sys.path.insert(0, str(Path(__file__).parent))
from test_fixes_proven import check_fixes  # noqa: E402

HEAD = """\
flavor f { node_labels = { model = "f" } }
namespace ns {
  labels = { team = "a" }
}
"""


def _why(tmp_path: Path, text: str, key: str, fixes: int = 5):
    (tmp_path / "in").mkdir(exist_ok=True)
    (tmp_path / "in" / "c.kad").write_text(HEAD + text)
    out = api.why(key, [str(tmp_path / "in")], fixes=fixes)
    assert out.result is not None and not out.result.admitted
    assert check_fixes(tmp_path, HEAD + text, key) >= min(len(out.result.fixes), 1)
    return out


def _gang(name: str, queue: str, pods: int, minute: int = 0, finished: bool = False, admitted: str = "") -> str:
    adm = (f"  admitted {{\n    cluster_queue = {admitted}\n    pod_group main {{\n      count = {pods}\n"
           "      flavor = f\n    }\n  }\n") if admitted else ""
    return (f"workload ns/{name} {{\n  queue = {queue}\n  created = \"2026-11-20T09:{minute:02d}:00Z\"\n"
            f"  pod_group main {{\n    count = {pods}\n    requests = {{ cpu = 1 }}\n  }}\n{adm}}}\n")


def _queue(name: str, cpu: str, cohort: str = "") -> str:
    co = f"  cohort = {cohort}\n" if cohort else ""
    return (f"cluster_queue {name} {{\n{co}  resources cpu {{\n    flavor f {{ cpu = {cpu} }}\n  }}\n}}\n"
            f"local_queue ns/{name} -> {name}\n")


def test_a_lending_limit_in_the_blame_is_a_fix_the_platform_team_can_choose(tmp_path):
    text = (_queue("team-a", "16", "c") + _queue("team-b", "16 lend 4", "c") + "cohort c {}\n"
            + _gang("big", "team-a", 22))
    out = _why(tmp_path, text, "ns/big")
    r = out.result
    assert any(o.kind == "lending_limit" for o in r.blame)
    lend = [f for f in r.fixes if any("lend" in c.knob.field for c in f.changes)]
    assert lend and lend[0].actor == "platform"
    assert [(c.edit.old, c.edit.new) for c in lend[0].changes] == [("4", "6")]  # 16 own + 6 lent: its 22
    assert {f.actor for f in r.fixes} == {"platform", "owner"}


def test_shrinking_by_more_than_half_comes_after_a_policy_change_that_does_as_well(tmp_path):
    text = _queue("solo", "2") + _gang("wide", "solo", 10)
    r = _why(tmp_path, text, "ns/wide").result
    assert [f.actor for f in r.fixes][:2] == ["platform", "owner"]
    assert r.fixes[1].kept < 0.5 and not r.fixes[0].effects and not r.fixes[1].effects
    human = why_human(r, out_sources(tmp_path), None).splitlines()
    heads = [line for line in human if line.startswith(("  by ", "fixes "))]  # the first group in the title
    assert heads == ["fixes by the platform team (each proven by deciding the changed input again, ordered mode):",
                     "  by the workload's owner (its spec):"]


def test_fixes_are_grouped_by_who_acts_and_waiting_is_nobodys(tmp_path):
    text = _queue("q", "4") + _gang("holder", "q", 4, admitted="q") + _gang("late", "q", 4, minute=5)
    out = _why(tmp_path, text, "ns/late")
    r = out.result
    actors = [f.actor for f in r.fixes]
    assert "nobody" in actors and actors == sorted(actors, key=actors.index)  # each group together
    d = why_dict(r)
    assert [f["by"] for f in d["fixes"]] == actors
    wait = next(f for f in r.fixes if f.actor == "nobody")
    assert "finished" in wait.changes[0].describe()


def out_sources(tmp_path: Path):
    from kadmit.source import SourceMap
    return SourceMap()
