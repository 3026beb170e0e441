"""Table tests: the engine's `ordered` decisions per rule of Kueue's admission."""

import pytest

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import Binary, InSet, LabelSelector, Literal_, Ref, Rule
from reference.builders import (admitted, build, cluster_queue, cohort, fq, flavor, group, pod_set, q,
                                tolerate, workload)


def decide(model):
    """key -> (cluster queue, {pod set: (count, sorted flavors)}) or None when not admitted."""
    out = {}
    for d in decide_ordered(Session(model)):
        if d.admitted:
            a = d.assignment
            out[d.key] = (d.cluster_queue, {ps: (a.counts[ps], tuple(sorted(set(f.values()))))
                                            for ps, f in a.flavors.items()})
        else:
            out[d.key] = None
    return out


def wl(name, queue, count=1, minute=0, **kw):
    reqs = {k: v for k, v in kw.items() if k in ("cpu", "gpu", "memory")}
    rest = {k: v for k, v in kw.items() if k not in reqs}
    ps_kw = {k: rest.pop(k) for k in ("min_count", "tolerations", "node_selector") if k in rest}
    return workload(name, pod_set(count=count, **ps_kw, **reqs), queue=queue, minute=minute, **rest)


CASES = {
    "nominal quota admits up to the quota": (
        [cluster_queue("a", group(fq("f", cpu=4))), wl("w1", "a", cpu=3), wl("w2", "a", cpu=2, minute=1)],
        {"default/w1": ("a", {"main": (1, ("f",))}), "default/w2": None}),
    "borrowing within the borrowing limit": (
        [cohort("c"), cluster_queue("a", group(fq("f", cpu=q(4, borrow=2))), cohort="c"),
         cluster_queue("b", group(fq("f", cpu=4)), cohort="c"), wl("w1", "a", cpu=6), wl("w2", "a", cpu=1, minute=1)],
        {"default/w1": ("a", {"main": (1, ("f",))}), "default/w2": None}),
    "lending limit keeps the rest for the lender": (
        [cohort("c"), cluster_queue("a", group(fq("f", cpu=4)), cohort="c"),
         cluster_queue("b", group(fq("f", cpu=q(4, lend=1))), cohort="c"), wl("w1", "a", cpu=6)],
        {"default/w1": None}),
    "lending limit lends what it says": (
        [cohort("c"), cluster_queue("a", group(fq("f", cpu=4)), cohort="c"),
         cluster_queue("b", group(fq("f", cpu=q(4, lend=2))), cohort="c"), wl("w1", "a", cpu=6)],
        {"default/w1": ("a", {"main": (1, ("f",))})}),
    "cohort quota is shared by its members": (
        [cohort("c", group(fq("f", gpu=8))), cluster_queue("a", group(fq("f", gpu=0)), cohort="c"),
         wl("w1", "a", gpu=8)],
        {"default/w1": ("a", {"main": (1, ("f",))})}),
    "hierarchical cohorts lend through the tree": (
        [cohort("root", group(fq("f", cpu=4))), cohort("mid", parent="root"),
         cluster_queue("a", group(fq("f", cpu=2)), cohort="mid"), wl("w1", "a", cpu=6)],
        {"default/w1": ("a", {"main": (1, ("f",))})}),
    "flavors are tried in order": (
        [cluster_queue("a", group(fq("f", cpu=2), fq("g", cpu=8))), wl("w1", "a", cpu=4)],
        {"default/w1": ("a", {"main": (1, ("g",))})}),
    "untolerated taint skips the flavor": (
        [flavor("f", taints=("gpu=yes:NoSchedule",)), cluster_queue("a", group(fq("f", cpu=8), fq("g", cpu=8))),
         wl("w1", "a", cpu=1)],
        {"default/w1": ("a", {"main": (1, ("g",))})}),
    "tolerated taint keeps the flavor": (
        [flavor("f", taints=("gpu=yes:NoSchedule",)), cluster_queue("a", group(fq("f", cpu=8), fq("g", cpu=8))),
         wl("w1", "a", cpu=1, tolerations=(tolerate("gpu"),))],
        {"default/w1": ("a", {"main": (1, ("f",))})}),
    "node selector on the flavor's own label keys": (
        [flavor("f", labels={"model": "a"}), flavor("g", labels={"model": "b"}),
         cluster_queue("a", group(fq("f", cpu=8), fq("g", cpu=8))),
         wl("w1", "a", cpu=1, node_selector={"model": "b", "zone": "x"})],
        {"default/w1": ("a", {"main": (1, ("g",))})}),
    "partial admission takes the largest count down to min_count": (
        [cluster_queue("a", group(fq("f", cpu=5))), wl("w1", "a", count=8, cpu=1, min_count=2)],
        {"default/w1": ("a", {"main": (5, ("f",))})}),
    "a gang without min_count is all or nothing": (
        [cluster_queue("a", group(fq("f", cpu=5))), wl("w1", "a", count=8, cpu=1)],
        {"default/w1": None}),
    "strict FIFO: an old head that doesn't fit blocks the queue": (
        [cluster_queue("a", group(fq("f", cpu=4)), strategy="StrictFIFO"),
         wl("w1", "a", cpu=6), wl("w2", "a", cpu=1, minute=1)],
        {"default/w1": None, "default/w2": None}),
    "best-effort FIFO: it is set aside": (
        [cluster_queue("a", group(fq("f", cpu=4))), wl("w1", "a", cpu=6), wl("w2", "a", cpu=1, minute=1)],
        {"default/w1": None, "default/w2": ("a", {"main": (1, ("f",))})}),
    "higher priority goes first": (
        [cluster_queue("a", group(fq("f", cpu=4))), wl("old", "a", cpu=3, priority=1),
         wl("urgent", "a", cpu=3, minute=5, priority=10)],
        {"default/old": None, "default/urgent": ("a", {"main": (1, ("f",))})}),
    "admitted usage counts": (
        [cluster_queue("a", group(fq("f", cpu=4))),
         admitted(wl("held", "a", cpu=3), "a", {"cpu": "f"}), wl("w1", "a", cpu=2, minute=1)],
        {"default/w1": None}),
    "stopped queue admits nothing": (
        [cluster_queue("a", group(fq("f", cpu=4)), stop="Hold"), wl("w1", "a", cpu=1)],
        {"default/w1": None}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule(name):
    objects, want = CASES[name]
    assert decide(build(*objects)) == want


def test_namespace_selector():
    model = build(cluster_queue("a", group(fq("f", cpu=4)), selector=LabelSelector(match_labels={"team": "x"})),
                  workload("in", pod_set(cpu=1), queue="a", ns="ns-x"),
                  workload("out", pod_set(cpu=1), queue="a", ns="ns-y"),
                  namespaces={"ns-x": {"team": "x"}, "ns-y": {"team": "y"}})
    got = decide(model)
    assert got["ns-x/in"] is not None and got["ns-y/out"] is None


def test_require_rule_steers_the_flavor():
    rule = Rule(name="only-g", kind="require",
                expr=Binary(op="==", left=Ref(path=("flavor",)), right=Literal_(kind="name", value="g")))
    model = build(cluster_queue("a", group(fq("f", cpu=8), fq("g", cpu=8))), wl("w1", "a", cpu=1))
    model = model.model_copy(update={"rules": (rule,)})
    assert decide(model) == {"default/w1": ("a", {"main": (1, ("g",))})}


def test_forbid_rule_excludes_the_workload():
    rule = Rule(name="no-big", kind="forbid",
                expr=Binary(op=">", left=Ref(path=("pod_group", "count")), right=Literal_(kind="int", value=2)))
    model = build(cluster_queue("a", group(fq("f", cpu=8))), wl("w1", "a", count=4, cpu=1),
                  wl("w2", "a", count=2, cpu=1, minute=1))
    model = model.model_copy(update={"rules": (rule,)})
    assert decide(model) == {"default/w1": None, "default/w2": ("a", {"main": (2, ("f",))})}


def test_rule_over_namespace_labels_in_set():
    rule = Rule(name="teams", kind="require",
                expr=InSet(elem=Ref(path=("namespace", "labels", "team")),
                           items=(Literal_(kind="string", value="x"),)))
    model = build(cluster_queue("a", group(fq("f", cpu=8))),
                  workload("w1", pod_set(cpu=1), queue="a", ns="ns-x"),
                  workload("w2", pod_set(cpu=1), queue="a", ns="ns-y"),
                  namespaces={"ns-x": {"team": "x"}, "ns-y": {"team": "y"}})
    model = model.model_copy(update={"rules": (rule,)})
    got = decide(model)
    assert got["ns-x/w1"] is not None and got["ns-y/w2"] is None


def test_decisions_are_deterministic():
    objects, _ = CASES["borrowing within the borrowing limit"]
    model = build(*objects)
    assert decide(model) == decide(model)


def test_cycle_timing_non_borrowing_head_goes_first_then_displaced_head_retries():
    """Documented timing choice: every queue's head is nominated against one snapshot; heads that
    need no borrowing are admitted first, whatever their priority; a head that no longer fits
    after them is retried next cycle (and may then fit partially)."""
    model = build(
        cohort("c"),
        cluster_queue("a", group(fq("f", cpu=4)), cohort="c"),
        cluster_queue("b", group(fq("f", cpu=4)), cohort="c"),
        workload("big", pod_set(count=6, min_count=1, cpu=1), queue="a", priority=100),
        workload("small", pod_set(count=4, cpu=1), queue="b", priority=1),
    )
    got = decide(model)
    # `big` (priority 100) borrows to take 6 of 8; `small` (priority 1) needs no borrowing and
    # goes first; `big` then no longer fits whole and gets the 4 left, one cycle later
    assert got["default/small"] == ("b", {"main": (4, ("f",))})
    assert got["default/big"] == ("a", {"main": (4, ("f",))})
    cycles = {d.key: d.cycle for d in decide_ordered(Session(model))}
    assert cycles["default/small"] == 1 and cycles["default/big"] == 2
