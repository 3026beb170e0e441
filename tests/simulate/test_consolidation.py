"""Karpenter consolidation: empty nodes a NodePool provisioned leave after `consolidateAfter`."""

from pathlib import Path

import pytest

from kadmit import api

DATA = Path(__file__).parent / "data"
HEADER = "time,namespace,name,queue,priority,pods,duration,cpu,nvidia.com/gpu\n"


def _pool(tmp_path, disruption: str) -> str:
    text = (DATA / "karpenter-pool.yaml").read_text().replace("  disruption: {consolidateAfter: Never}\n", "")
    p = tmp_path / "pool.yaml"
    p.write_text(text + disruption)
    return str(p)


def _run(tmp_path, rows, disruption):
    trace = tmp_path / "trace.csv"
    trace.write_text(HEADER + "\n".join(rows) + "\n")
    out = api.simulate([str(DATA / "karpenter-policy.kad")], trace=str(trace),
                       nodepools=[_pool(tmp_path, disruption)])
    assert out.exit_code == 0, out.diagnostics
    return out.result


def test_when_empty_after_consolidate_after(tmp_path):
    # j1 (2 x 8 GPUs, 600 s) gets two g.8x at 60 (the pool's delay), runs 60-660; they are empty
    # from 660 and leave at 690. j2 at 700 needs a new node (g.4x) at 760, runs 760-820, and that
    # node leaves at 850.
    r = _run(tmp_path, ["0,a,j1,lq,,2,600,8,8", "700,a,j2,lq,,1,60,4,4"],
             "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 30s\n")
    assert [(c["at"], c["nodes"]) for c in r["capacity"]] == [(60.0, ["gpu-g-8x-1", "gpu-g-8x-2"]),
                                                              (760.0, ["gpu-g-4x-3"])]
    assert [(c["at"], c["nodes"]) for c in r["consolidated"]] == [(690.0, ["gpu-g-8x-1", "gpu-g-8x-2"]),
                                                                  (850.0, ["gpu-g-4x-3"])]
    assert "WhenEmpty" in r["consolidated"][0]["source"]
    w = {x["workload"]: x for x in r["workloads"]}
    assert (w["a/j2"]["started_at"], w["a/j2"]["finished_at"]) == (760.0, 820.0)


def test_a_node_used_again_in_time_stays(tmp_path):
    # j2 arrives at 670, within j1's nodes' 30 s: it binds on one of them at once (so it stays);
    # the other leaves at 690; the one j2 used leaves 30 s after j2 ends at 730.
    r = _run(tmp_path, ["0,a,j1,lq,,2,600,8,8", "670,a,j2,lq,,1,60,4,4"],
             "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 30s\n")
    w = {x["workload"]: x for x in r["workloads"]}
    assert w["a/j2"]["started_at"] == 670.0
    used = next(iter(w["a/j2"]["pod_sets"][0]["placement"]))
    other = ({"gpu-g-8x-1", "gpu-g-8x-2"} - {used}).pop()
    assert [(c["at"], c["nodes"]) for c in r["consolidated"]] == [(690.0, [other]), (760.0, [used])]
    assert len(r["capacity"]) == 1


@pytest.mark.parametrize("disruption, expected", [
    ("", [660.0]),  # Karpenter v1's defaults: WhenEmptyOrUnderutilized after 0s (the empty half)
    ("  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}\n", [720.0]),
    ("  disruption: {consolidateAfter: Never}\n", []),
])
def test_defaults_and_never(tmp_path, disruption, expected):
    r = _run(tmp_path, ["0,a,j1,lq,,2,600,8,8"], disruption)
    assert [c["at"] for c in r["consolidated"]] == expected
    # nodes that left no longer count as whole free nodes: none at the end, or j1's two
    assert r["series"]["whole_free_nodes"]["*"][-1] == (0 if expected else 2)


def test_bad_disruption_is_refused(tmp_path):
    for bad in ("  disruption: {consolidationPolicy: Sometimes}\n", "  disruption: {consolidateAfter: soon}\n"):
        trace = tmp_path / "trace.csv"
        trace.write_text(HEADER + "0,a,j1,lq,,1,60,8,8\n")
        out = api.simulate([str(DATA / "karpenter-policy.kad")], trace=str(trace), nodepools=[_pool(tmp_path, bad)])
        found = [d for d in out.diagnostics if d.code == "KAD710"]
        assert out.exit_code == 2 and len(found) == 1, bad
        assert found[0].span.line == 17 and "spec.disruption.consolidat" in found[0].message  # at the value
