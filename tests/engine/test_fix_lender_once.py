"""Once a fix is found, a lender's raise is an alternative (`raises.lender_raises`, `found`): decided
at one size (what the workload and the pending workloads ahead of it in its cohort tree need), kept as
it is if it admits, not halved; a note names it. While no fix is found it is halved as before."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.engine.explain import proposals

# q's cpu is the blame (with r's and t's lending); raised alone, x (older, in r) takes the cpu first and
# leaves w no memory: q's cpu and memory raised together admit w (a fix, found before the lenders);
# so does r's cpu and memory raised together (what r lends), at 12 cpu + 5 memory (w's and x's, and y's
# that nothing admits: it asks for a gpu no queue has), and at half of that; at a quarter it does not.
TEXT = """\
flavor f { node_labels = { model = "f" } }
namespace ns { }
cohort c { }
cluster_queue q {
  cohort = c
  resources cpu, memory {
    flavor f { cpu = 2  memory = 2 }
  }
}
local_queue ns/q -> q
cluster_queue r {
  cohort = c
  resources cpu, memory {
    flavor f { cpu = 1  memory = 1 }
  }
}
local_queue ns/r -> r
cluster_queue t {
  cohort = c
  resources cpu, memory {
    flavor f { cpu = 0  memory = 0 }
  }
}
local_queue ns/t -> t
workload ns/y {
  queue = t
  created = "2026-11-20T08:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4, memory = 1, gpu = 1 }
  }
}
workload ns/x {
  queue = r
  created = "2026-11-20T08:30:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4, memory = 3 }
  }
}
workload ns/w {
  queue = q
  created = "2026-11-20T09:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4, memory = 1 }
  }
}
"""

NOTE = ("a lender's raise was decided at one size, what this workload and the pending workloads ahead of it in "
        "its cohort tree need, and not searched smaller (fixes were found without it): what `r` in `f` lends")


def _why(tmp_path: Path, name: str, monkeypatch, tried: list):
    real = proposals.Prover.replay

    def replay(self, changes):
        before = self.tried
        got = real(self, changes)
        if self.tried > before:
            tried.append(tuple(sorted((c.knob.subject, c.knob.field, str(c.new)) for c in changes)))
        return got
    monkeypatch.setattr(proposals.Prover, "replay", replay)
    d = tmp_path / name
    d.mkdir()
    (d / "c.kad").write_text(TEXT)
    r = api.why("ns/w", [str(d)], fixes=5).result
    assert r is not None and not r.admitted
    return r


def _fixes(r) -> dict[str, list]:
    """Per queue changed, its fix's changes (the number as the input writes it) and side effects."""
    out = {}
    for p in r.fixes:
        queues = {c.knob.subject for c in p.changes}
        assert len(queues) == 1, queues
        out[queues.pop()] = ([(c.knob.field, c.edit.new) for c in p.changes], [(e.workload, e.kind) for e in p.effects])
    return out


def _lenders(tried: list) -> list:
    return [t for t in tried if all(s == "cluster_queue `r`" for s, _, _ in t) and len(t) == 2]


def test_a_lenders_raise_is_decided_once_when_a_fix_was_found_before_it(tmp_path, monkeypatch):
    tried: list = []
    got = _why(tmp_path, "once", monkeypatch, tried)
    fixes = _fixes(got)
    assert set(fixes) == {"cluster_queue `q`", "cluster_queue `r`"}, "q's raise found first, then r's"
    assert fixes["cluster_queue `r`"] == ([("`cpu` in flavor `f`", "13"), ("`memory` in flavor `f`", "6")],
                                           [("ns/x", "pending → admitted")])
    assert len(_lenders(tried)) == 1
    assert NOTE in got.fixes_notes

    # the rule off: the lender's raise halved while it admits (one more that admits, one that does not)
    orig = proposals.lender_raises
    monkeypatch.setattr(proposals, "lender_raises", lambda *a, **k: orig(*a, **{**k, "found": False}))
    tried_all: list = []
    full = _why(tmp_path, "halved", monkeypatch, tried_all)
    halved = _fixes(full)
    assert halved["cluster_queue `q`"] == fixes["cluster_queue `q`"]
    assert halved["cluster_queue `r`"][0] == [("`cpu` in flavor `f`", "7"), ("`memory` in flavor `f`", "4")]
    assert len(_lenders(tried_all)) == 3
    assert full.fixes_checked == got.fixes_checked + 2
    assert NOTE not in full.fixes_notes


def test_with_no_fix_found_before_it_a_lenders_raise_is_halved(tmp_path, monkeypatch):
    monkeypatch.setattr(proposals, "group_raises", lambda *a: [])  # no fix from raising q's numbers together
    tried: list = []
    got = _why(tmp_path, "alone", monkeypatch, tried)
    assert _fixes(got)["cluster_queue `r`"][0] == [("`cpu` in flavor `f`", "7"), ("`memory` in flavor `f`", "4")]
    assert len(_lenders(tried)) == 3
    assert not any("lender" in n for n in got.fixes_notes), got.fixes_notes
