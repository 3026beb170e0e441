"""Behind a StrictFIFO head, the head's own fixes are searched after every single change and raise of
the workload's own (`proposals._head_fixes`); once one of those admits it, a quota number the
workload's own search already raised alone is not searched again from the head's values where that
run shows the head was no obstacle any more (the head admitted, the workload still pending, no value
of the number letting it fit where the run ends), and a note says so."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.engine.explain import proposals


def _text(lender_cpu: int = 10) -> str:
    # q (StrictFIFO) holds gpu 1 and cpu 12; r lends nothing (its own workload holds its cpu). In q, `big`
    # (high priority, gpu 2) is the head and can't be admitted: q's gpu is its obstacle. `small` (gpu 2, cpu
    # 12) waits behind it; q's gpu raised alone lets `big` in and leaves `small` short of cpu (big took 2),
    # whatever the gpu: q's cpu and gpu raised together admit it. Queue s is a part of its own (`why` decides
    # q's cohort alone: `PartProver`).
    return f"""\
priority mid = 100 default
priority high = 1000
flavor f {{ node_labels = {{ model = "f" }} }}
namespace ns {{ }}
cohort c {{ }}
cluster_queue q {{
  cohort = c
  queueing = strict_fifo
  resources cpu, gpu {{
    flavor f {{ cpu = 12  gpu = 1 }}
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
cluster_queue s {{
  resources cpu {{
    flavor f {{ cpu = 1 }}
  }}
}}
local_queue ns/s -> s
workload ns/elsewhere {{
  queue = s
  created = "2026-11-20T08:30:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 1 }}
  }}
}}
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
    requests = {{ cpu = 2, gpu = 2 }}
  }}
}}
workload ns/small {{
  queue = q
  created = "2026-11-20T09:01:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 12, gpu = 2 }}
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


NOTE = ("the head `ns/big`'s own fixes were not searched in one quota raised alone for this workload (the head "
        "admitted then, it still pending with no value fitting it): fixes were found without them")


def test_the_heads_search_of_a_number_the_workload_settled_is_left_once_a_fix_is_found(tmp_path, monkeypatch):
    tried: list[tuple] = []
    real = proposals.Prover.replay

    def replay(self, changes):
        tried.append(tuple(sorted((f"{c.knob.subject}.{c.knob.field}", str(c.new)) for c in changes)))
        return real(self, changes)
    monkeypatch.setattr(proposals.Prover, "replay", replay)
    got = _why(tmp_path, "settled")
    assert got.fixes, "q's cpu and gpu raised together admit it"
    assert NOTE in got.fixes_notes
    gpu_alone = {t for t in tried if len(t) == 1 and "gpu" in t[0][0] and "`q`" in t[0][0]}
    assert gpu_alone, "the workload's own search raised q's gpu alone"

    # searched from the head's values too (as before the rule): the same fixes, more re-decisions
    orig = proposals._head_fixes
    monkeypatch.setattr(proposals, "_head_fixes", lambda *a: orig(*a[:-1], False))
    tried.clear()
    full = _why(tmp_path, "all")
    assert NOTE not in full.fixes_notes
    assert _shown(full) == _shown(got) and full.fixes_found == got.fixes_found
    full_gpu_alone = {t for t in tried if len(t) == 1 and "gpu" in t[0][0] and "`q`" in t[0][0]}
    assert full_gpu_alone > gpu_alone, "the head's values of q's gpu were decided again without the rule"
    assert full.fixes_checked > got.fixes_checked


def test_nothing_is_left_while_no_fix_is_found(tmp_path, monkeypatch):
    # no fix known when the head's turn comes: every number of its blame is searched
    monkeypatch.setattr(proposals, "group_raises", lambda *a: [])  # no fix from raising q's numbers together
    got = _why(tmp_path, "none")
    assert not got.fixes
    assert not any("head" in n for n in got.fixes_notes), got.fixes_notes
