"""Where a waiting workload stands (`explain.standing`): what its queue can reach and through whom, from
the quota tree; its place in line as Kueue's visibility API counts it; who held its quota."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit import workspace
from kadmit.engine.decide import why
from kadmit.engine.explain.standing import Reach
from kadmit.model import LocalQueue
from reference.builders import build, cluster_queue, cohort, fq, group, pod_set, q, workload


def test_the_example_pretraining_gang_is_out_of_reach_and_says_through_whom():
    model = workspace.load(["examples/ml-platform/"]).model
    r = why(model, "team-vision/llm-pretrain")
    s = r.standing
    assert s is not None and s.quota and s.short and s.resource == "nvidia.com/gpu"
    assert s.needs["nvidia.com/gpu"] == 256_000 and s.shape["nvidia.com/gpu"] == [("workers", 32, 8000)]
    # h100: 24 own + 8 borrowed, its borrowing limit, of the 12 the cohort's pool holds (research's 8,
    # team-nlp's lending limit of 4); a100: 8 own + team-nlp's 16 (no lending limit)
    assert s.reach == [
        Reach("h100", "nvidia.com/gpu", 32_000, 24_000, 8_000, (("cohort research", 8_000), ("team-nlp", 4_000)),
              8_000, s.reach[0].free),
        Reach("a100", "nvidia.com/gpu", 24_000, 8_000, 16_000, (("team-nlp", 16_000),), None, s.reach[1].free)]
    assert (s.position, s.pending, s.position_in_local_queue) == (0, 4, 0)


def test_reach_through_nested_cohorts_counts_each_level():
    model = build(
        cohort("root", group(fq("f", cpu=5))),
        cohort("mid", parent="root"),
        cluster_queue("a", group(fq("f", cpu=10)), cohort="mid"),
        cluster_queue("b", group(fq("f", cpu=q(20, lend=6))), cohort="mid"),
        cluster_queue("c", group(fq("f", cpu=7)), cohort="root"),
        workload("w", pod_set(cpu=100), queue="a"),
    )
    s = why(model, "default/w").standing
    assert s is not None and s.short
    [got] = s.reach
    assert got.lenders == (("b", 6_000), ("cohort root", 5_000), ("c", 7_000))
    assert got.most == 10_000 + 6_000 + 5_000 + 7_000 and got.own == 10_000 and got.limit is None


def _kueue_positions(pending: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """pkg/visibility/storage/pending_workloads_cq.go, as written: the ClusterQueue's pending workloads
    in queue order (`pending`: key and LocalQueue name), and per LocalQueue *name* a running count."""
    by_name: dict[str, int] = {}
    out = {}
    for index, (key, lq) in enumerate(pending):
        out[key] = (index, by_name.get(lq, 0))
        by_name[lq] = by_name.get(lq, 0) + 1
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([("n1", "lq"), ("n2", "lq"), ("n1", "other")]),
                          st.sampled_from([100, 200]), st.integers(0, 5)), min_size=2, max_size=7))
def test_place_in_line_is_kueues_visibility_count(rows):
    """Nothing fits (quota 1 cpu, each asks 2): every workload is pending in `a`, in Kueue's order —
    priority, then creation — and its LocalQueue position counts workloads ahead in any namespace's
    LocalQueue of the same name, as Kueue keys it."""
    wls = [workload(f"w{i}", pod_set(cpu=2), queue=lq, ns=ns, priority=prio, minute=minute)
           for i, ((ns, lq), prio, minute) in enumerate(rows)]
    lqs = [LocalQueue(namespace=ns, name=name, cluster_queue="a") for ns, name in
           (("n1", "lq"), ("n2", "lq"), ("n1", "other"))]
    model = build(cluster_queue("a", group(fq("f", cpu=1))), *lqs, *wls, auto_queues=False)
    order = sorted(wls, key=lambda w: (-w.priority, w.created, w.key))
    want = _kueue_positions([(w.key, w.queue) for w in order])
    for w in wls:
        s = why(model, w.key).standing
        assert s is not None and s.pending == len(wls)
        assert (s.position, s.position_in_local_queue) == want[w.key]
        ahead = order[:want[w.key][0]]
        assert s.ahead.get("cpu", 0) == 2000 * len(ahead)
