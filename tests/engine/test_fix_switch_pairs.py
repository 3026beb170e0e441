"""Behind a StrictFIFO head, the switch to BestEffortFIFO with a raise of one number of the workload's own
blame is searched after every single change and raise (`proposals._after_switch`); once one of those
admits it, a quota outside its own ClusterQueue is not searched with the switch, and a note says so."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.engine.explain import proposals


def _text(lender_cpu: int = 4) -> str:
    # q (StrictFIFO) and r share cohort c; r's own workload holds all of r's quota. In q, `big` (8 cpu,
    # high priority) is the head and can't be admitted; `small` (6 cpu) waits behind it: the switch alone
    # leaves it short (4 cpu in the pool), q's quota raised for both admits it.
    return f"""\
priority mid = 100 default
priority high = 1000
flavor f {{ node_labels = {{ model = "f" }} }}
namespace ns {{ }}
cohort c {{ }}
cluster_queue q {{
  cohort = c
  queueing = strict_fifo
  resources cpu {{
    flavor f {{ cpu = 4 }}
  }}
}}
local_queue ns/q -> q
cluster_queue r {{
  cohort = c
  resources cpu {{
    flavor f {{ cpu = {lender_cpu} }}
  }}
}}
local_queue ns/r -> r
workload ns/held {{
  queue = r
  created = "2026-11-20T08:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = {lender_cpu} }}
  }}
  admitted {{
    cluster_queue = r
    pod_group main {{
      count = 1
      flavor = f
    }}
  }}
}}
workload ns/big {{
  queue = q
  priority = high
  created = "2026-11-20T09:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 8 }}
  }}
}}
workload ns/small {{
  queue = q
  created = "2026-11-20T09:01:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 6 }}
  }}
}}
"""


def _why(tmp_path: Path, name: str):
    d = tmp_path / name
    d.mkdir()
    (d / "c.kad").write_text(_text())
    out = api.why("ns/small", [str(d)])
    assert out.result is not None and not out.result.admitted and out.result.decision.waiting_behind == "ns/big"
    return out.result


def _shown(result) -> list:
    return [(sorted((c.knob.subject, c.knob.field, str(c.new)) for c in p.changes), p.outcome,
             [(e.workload, e.kind) for e in p.effects]) for p in result.fixes]


def test_the_switch_is_not_searched_with_a_quota_outside_the_queue_once_a_fix_is_found(tmp_path, monkeypatch):
    tried: list[list[str]] = []
    real = proposals.Prover.replay

    def replay(self, changes):
        tried.append(sorted(f"{c.knob.subject}.{c.knob.field}" for c in changes))
        return real(self, changes)
    monkeypatch.setattr(proposals.Prover, "replay", replay)
    got = _why(tmp_path, "after")
    assert got.fixes, "q's quota raised admits it"
    note = ("the switch of ClusterQueue `q` to BestEffortFIFO was not tried with a raise of a quota outside it "
            "(one of the blame): fixes were found without it")
    assert note in got.fixes_notes
    with_switch = [t for t in tried if len(t) == 2 and any("queueing" in x for x in t)]
    assert with_switch and all(not any("`r`" in x for x in t) for t in with_switch), with_switch
    assert any(any("`q`" in x for x in t) for t in with_switch)  # its own queue's quota is searched with the switch

    # searched with every quota of the blame (as before the rule), the same fixes are shown
    orig = proposals._after_switch
    monkeypatch.setattr(proposals, "_after_switch", lambda *a: orig(*a[:-1], False))
    tried.clear()
    full = _why(tmp_path, "all")
    assert note not in full.fixes_notes
    assert _shown(full) == _shown(got) and full.fixes_found == got.fixes_found
