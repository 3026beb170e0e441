"""Topology-aware placement inside admission, through `admit(model)` in `ordered` mode.

Every case is a small cluster built from Node and Pod objects: a topology `dc` (block -> rack ->
host), a flavor `tas` naming it, and a cluster queue with quota to spare, so that whatever stops a
workload is node capacity and topology, never quota. Expected placements follow Kueue's TAS
algorithm (pkg/cache/scheduler/tas_flavor_snapshot.go) with the Mixed profile: BestFit for
`required` and `preferred`, LeastFreeCapacity for `unconstrained` and implicit requests.
"""

from __future__ import annotations

import pytest

from kadmit.engine.decide import admit
from kadmit.model import PodSetAssignment
from kadmit.render.decisions import admit_dict
from placement.builders import BLOCK, DC, HOST, RACK, node, pod, taint
from reference.builders import (admitted, build, cluster_queue, flavor, fq, group, pod_set, tolerate,
                                workload)

TAS = flavor("tas", topology="dc")
QUEUE = cluster_queue("cq", group(fq("tas", gpu=256, cpu=4096)))
GPU_TAINT = taint("nvidia.com/gpu", "present")


def run(*objects, queue=QUEUE, flavors=(TAS,)):
    """admit() on the cluster; returns the JSON decisions by workload key."""
    result = admit(build(DC, *flavors, queue, *objects))
    return {d["workload"]: d for d in admit_dict(result)["decisions"]}


def placed(decision) -> dict[str, dict[str, int]]:
    """pod set -> node -> pods of an admitted decision."""
    assert decision["admitted"], decision["reasons"]
    return {ps["name"]: ps["placement"] for ps in decision["pod_sets"]}


def reasons(decision) -> list[tuple[str, str]]:
    assert not decision["admitted"]
    return [(r["code"], r["message"]) for r in decision["reasons"]]


def rack(name: str, *free_gpus: int, block: str = "b1"):
    """Nodes of 8 GPUs in one rack, each with a bound pod leaving `free` GPUs; returns (nodes, pods)."""
    nodes, pods = [], []
    for i, free in enumerate(free_gpus):
        host = f"{name}-{i}"
        nodes.append(node(host, block=block, rack=name, gpu=8, cpu=96))
        if free < 8:
            pods.append(pod(f"busy-{host}", host, gpu=8 - free))
    return nodes, pods


def job(name: str, count: int = 1, gpu: int = 8, topology=("required", "rack"), minute: int = 0,
        queue: str = "cq", **kw):
    return workload(name, pod_set(count=count, gpu=gpu, topology=topology, **kw), queue=queue, minute=minute)


def admitted_with_placement(wl, cq: str, flavors: dict[str, str], placement: dict[str, dict[str, int]]):
    """`wl` admitted to `cq`, its pod sets placed on nodes (Kueue's topology assignment)."""
    wl = admitted(wl, cq, flavors)
    psas = tuple(PodSetAssignment(name=p.name, flavors=p.flavors, count=p.count, placement=placement.get(p.name, {}))
                 for p in wl.admission.pod_sets)
    return wl.model_copy(update={"admission": wl.admission.model_copy(update={"pod_sets": psas})})


# --- the headline -------------------------------------------------------------------------

HEADLINE = 'couldn\'t assign flavors to pod set main: topology "dc" doesn\'t allow to fit any of 1 pod(s)'


def short(nodes: int, gpu: int) -> str:
    """Kueue's exclusion counts ending a topology message (`placement.exclusions`): `gpu` of the flavor's
    `nodes` leaves hold no GPU the pod asks for."""
    return f'. Total nodes: {nodes}; excluded: resource "nvidia.com/gpu": {gpu}'


@pytest.mark.parametrize("topology", [("required", "rack"), ("preferred", "rack"), ("unconstrained", None), None],
                         ids=["required", "preferred", "unconstrained", "implicit"])
def test_headline_24_free_gpus_and_no_room_for_one_8_gpu_pod(topology):
    nodes, pods = rack("r1", 6, 6, 6, 6)  # four 8-GPU nodes, each with a bound pod on 2 GPUs
    got = run(*nodes, *pods, job("big", gpu=8, topology=topology))
    # quota would admit it (the only reason is the topology), Kueue's text verbatim
    assert reasons(got["default/big"]) == [("KAD530", HEADLINE + short(4, 4))]


def test_headline_control_quota_alone_admits_it_and_six_gpu_pods_fit():
    nodes, pods = rack("r1", 6, 6, 6, 6)
    plain = run(*nodes, *pods, job("big", gpu=8, topology=None), flavors=(flavor("tas"),))
    assert plain["default/big"]["admitted"] and placed(plain["default/big"]) == {"main": {}}
    got = run(*nodes, *pods, job("six", count=4, gpu=6))
    assert placed(got["default/six"]) == {"main": {"r1-0": 1, "r1-1": 1, "r1-2": 1, "r1-3": 1}}


# --- required -------------------------------------------------------------------------------------

def test_required_rack_lands_in_the_only_rack_with_room():
    n1, p1 = rack("r1", 4, 4)  # room for 2 pods of 4 GPUs
    n2, p2 = rack("r2", 8, 8)  # room for 4
    got = run(*n1, *p1, *n2, *p2, job("w", count=3, gpu=4))
    assert placed(got["default/w"]) == {"main": {"r2-0": 2, "r2-1": 1}}
    ps = got["default/w"]["pod_sets"][0]
    assert ps["topology"] == {"name": "dc", "request": "required rack", "level": RACK, "domains": ["b1/r2"]}


def test_required_rack_takes_the_tightest_rack_that_fits():
    """BestFit: of the racks that hold every pod, the one with the fewest free slots."""
    n1, p1 = rack("r1", 8, 8)  # 4 pods of 4 GPUs
    n2, p2 = rack("r2", 4, 4)  # 2
    n3, p3 = rack("r3", 8, 4)  # 3
    got = run(*n1, *p1, *n2, *p2, *n3, *p3, job("w", count=3, gpu=4))
    assert placed(got["default/w"]) == {"main": {"r3-0": 2, "r3-1": 1}}


def test_required_rack_fails_when_only_the_cluster_has_room():
    n1, p1 = rack("r1", 8, 8)
    n2, p2 = rack("r2", 8, 4)
    got = run(*n1, *p1, *n2, *p2, job("w", count=5, gpu=4))  # 7 fit in all, 4 in the best rack
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 4 out of 5 pod(s)')]
    assert run(*n1, *p1, *n2, *p2, job("w", count=5, gpu=4, topology=("required", "block")))["default/w"]["admitted"]


def test_kep_2724_best_fit_example():
    """KEP-2724's BestFit example: a rack whose nodes fit 3, 3, 2 and 1 pods; 7 pods take the
    nodes with 3, 3 and 1 (the last domain is optimized to the tightest that still fits)."""
    ns = [node(f"x{i}", block="b1", rack="r1", gpu=g) for i, g in enumerate((3, 3, 2, 1), start=1)]
    got = run(*ns, job("w", count=7, gpu=1))
    assert placed(got["default/w"]) == {"main": {"x1": 3, "x2": 3, "x4": 1}}


# --- preferred ------------------------------------------------------------------------------------

def preferred_cluster():
    """Block b1: racks r1 (4 pods of 4 GPUs) and r2 (2); block b2: racks r3 and r4 (4 each)."""
    objs = []
    for name, block, free in (("r1", "b1", (8, 8)), ("r2", "b1", (8,)), ("r3", "b2", (8, 8)), ("r4", "b2", (8, 8))):
        ns, ps = rack(name, *free, block=block)
        objs += ns + ps
    return objs


def test_preferred_rack_falls_back_to_the_tightest_block():
    got = run(*preferred_cluster(), job("w", count=6, gpu=4, topology=("preferred", "rack")))
    assert placed(got["default/w"]) == {"main": {"r1-0": 2, "r1-1": 2, "r2-0": 2}}
    topo = got["default/w"]["pod_sets"][0]["topology"]
    assert (topo["level"], topo["domains"]) == (BLOCK, ["b1"])


def test_preferred_rack_fits_in_one_rack_when_one_has_room():
    got = run(*preferred_cluster(), job("w", count=4, gpu=4, topology=("preferred", "rack")))
    topo = got["default/w"]["pod_sets"][0]["topology"]
    assert (topo["level"], topo["domains"]) == (RACK, ["b1/r1"])  # BestFit: first of the racks with exactly 4


def test_preferred_rack_spreads_over_blocks_when_no_block_fits():
    got = run(*preferred_cluster(), job("w", count=10, gpu=4, topology=("preferred", "rack")))
    # Kueue at the top level: blocks greedily, most free first (b2: 8), best-fitting the last (b1).
    # Below, the chosen blocks' racks are pooled and taken greedily again, most free first and ties
    # by name (r1, r3), best-fitting the last 2 pods (r2); the per-block split isn't kept.
    assert placed(got["default/w"]) == {"main": {"r1-0": 2, "r1-1": 2, "r2-0": 2, "r3-0": 2, "r3-1": 2}}
    topo = got["default/w"]["pod_sets"][0]["topology"]
    assert (topo["level"], topo["domains"]) == (BLOCK, ["b2", "b1"])


def test_required_rack_waits_where_preferred_is_placed():
    got = run(*preferred_cluster(), job("w", count=6, gpu=4, topology=("required", "rack")))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 4 out of 6 pod(s)')]
    got = run(*preferred_cluster(), job("w", count=15, gpu=4, topology=("preferred", "rack")))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 14 out of 15 pod(s)')]


# --- implicit and unconstrained -------------------------------------------------------------------

def test_implicit_tas_in_a_tas_only_queue_places_the_pod_set_unconstrained():
    nodes, pods = rack("r1", 8, 3)
    got = run(*nodes, *pods, job("w", count=2, gpu=1, topology=None))
    # LeastFreeCapacity (Mixed profile for unconstrained): the node with the least room that fits both
    assert placed(got["default/w"]) == {"main": {"r1-1": 2}}
    topo = got["default/w"]["pod_sets"][0]["topology"]
    assert topo["request"] == "implicit unconstrained" and topo["level"] == HOST


def test_explicit_unconstrained_spreads_from_the_least_free_node_when_no_node_fits_all():
    nodes, pods = rack("r1", 3, 2, 1)
    got = run(*nodes, *pods, job("w", count=5, gpu=1, topology=("unconstrained", None)))
    assert placed(got["default/w"]) == {"main": {"r1-0": 2, "r1-1": 2, "r1-2": 1}}
    assert got["default/w"]["pod_sets"][0]["topology"]["request"] == "unconstrained"


# Regressions of Kueue's LeastFreeCapacity bugs, which kadmit's first version copied: a full node
# sorts first least-free and must be skipped, not end the walk (kubernetes-sigs/kueue#8157, fixed
# by #8168); and the least-free node that holds every pod is taken whole (#5803).
def test_unconstrained_is_not_blocked_by_a_full_node():
    nodes, pods = rack("r1", 0, 8)
    got = run(*nodes, *pods, job("w", count=1, gpu=1, topology=None))
    assert placed(got["default/w"]) == {"main": {"r1-1": 1}}
    got = run(*nodes, *pods, job("w", count=9, gpu=1, topology=None))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 8 out of 9 pod(s)' + short(2, 1))]


def test_unconstrained_takes_the_least_free_node_that_fits_whole():
    nodes, pods = rack("r1", 1, 5)
    got = run(*nodes, *pods, job("w", count=2, gpu=1, topology=("unconstrained", None)))
    assert placed(got["default/w"]) == {"main": {"r1-1": 2}}


# --- queues that mix TAS and non-TAS flavors -------------------------------------------------------

MIXED = cluster_queue("cq", group(fq("plain", gpu=64), fq("tas", gpu=64)))


def test_mixed_queue_pod_set_without_request_on_the_plain_flavor_is_not_placed():
    nodes, pods = rack("r1", 8, 8)
    got = run(*nodes, *pods, job("w", count=2, gpu=1, topology=None), queue=MIXED)
    d = got["default/w"]
    assert placed(d) == {"main": {}}
    assert d["pod_sets"][0]["flavors"] == {"nvidia.com/gpu": "plain"} and "topology" not in d["pod_sets"][0]


def test_mixed_queue_pod_set_with_request_skips_the_plain_flavor_and_is_placed():
    nodes, pods = rack("r1", 8, 8)
    got = run(*nodes, *pods, job("w", count=2, gpu=4), queue=MIXED)
    d = got["default/w"]
    assert d["pod_sets"][0]["flavors"] == {"nvidia.com/gpu": "tas"}
    assert sum(placed(d)["main"].values()) == 2


# In a queue whose flavors are not all TAS, Kueue skips a TAS flavor for a pod set without a
# topology request ("Flavor "tas" supports only TopologyAwareScheduling", tas_flavorassigner.go).
def test_mixed_queue_pod_set_without_request_skips_the_tas_flavor():
    nodes, pods = rack("r1", 8, 8)
    queue = cluster_queue("cq", group(fq("tas", gpu=64), fq("plain", gpu=64)))
    got = run(*nodes, *pods, job("w", count=2, gpu=1, topology=None), queue=queue)
    assert got["default/w"]["pod_sets"][0]["flavors"] == {"nvidia.com/gpu": "plain"}


# Kueue treats `unconstrained` as a TAS request and skips flavors without a topology
# ("Flavor "plain" does not support TopologyAwareScheduling").
def test_mixed_queue_explicit_unconstrained_skips_the_plain_flavor():
    nodes, pods = rack("r1", 8, 8)
    got = run(*nodes, *pods, job("w", count=2, gpu=1, topology=("unconstrained", None)), queue=MIXED)
    d = got["default/w"]
    assert d["pod_sets"][0]["flavors"] == {"nvidia.com/gpu": "tas"} and sum(placed(d)["main"].values()) == 2


# --- several workloads in one run -----------------------------------------------------------------

def test_two_workloads_in_one_queue_never_double_book():
    n1, _ = rack("r1", 8)
    n2, _ = rack("r2", 8)
    got = run(*n1, *n2, job("a", minute=0), job("b", minute=1), job("c", minute=2))
    assert placed(got["default/a"]) == {"main": {"r1-0": 1}}
    assert placed(got["default/b"]) == {"main": {"r2-0": 1}}  # sees a's pod: the other rack
    assert reasons(got["default/c"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" doesn\'t allow to fit any of 1 pod(s)'
         + short(2, 2))]


def test_two_queues_in_one_cycle_keep_the_placement_made_at_the_cycle_start():
    """Both heads are placed against the nodes as the cycle began; the second no longer fits where
    it was placed once the first took that node, so it is skipped and placed anew in the next cycle
    (Kueue v0.17's fits() on the nominated topology assignment; v0.19's
    TASRecomputeAssignmentWithinSchedulingCycle would place it again in the same cycle)."""
    qa = cluster_queue("qa", group(fq("tas", gpu=64)))
    qb = cluster_queue("qb", group(fq("tas", gpu=64)))
    n1, _ = rack("r1", 8, 8)
    objs = [qb, *n1, job("a", count=1, gpu=6, queue="qa", minute=0), job("b", count=1, gpu=6, queue="qb", minute=1)]
    got = run(*objs, queue=qa)
    assert got["default/a"]["cycle"] == 1 and got["default/b"]["cycle"] == 2
    assert placed(got["default/a"]) == {"main": {"r1-0": 1}}
    assert placed(got["default/b"]) == {"main": {"r1-1": 1}}
    # room left where it was placed: admitted in the same cycle, on the node chosen at its start
    n1, _ = rack("r1", 8, 4)
    objs = [qb, *n1, job("a", count=1, gpu=2, queue="qa", minute=0), job("b", count=1, gpu=2, queue="qb", minute=1)]
    got = run(*objs, queue=qa)
    assert got["default/a"]["cycle"] == got["default/b"]["cycle"] == 1
    assert placed(got["default/a"]) == placed(got["default/b"]) == {"main": {"r1-0": 1}}
    # one node only: the second waits (and is not admitted in a later cycle either)
    n1, _ = rack("r1", 8)
    got = run(qb, *n1, job("a", count=1, gpu=6, queue="qa"), job("b", count=1, gpu=6, queue="qb", minute=1), queue=qa)
    assert got["default/a"]["admitted"]
    assert reasons(got["default/b"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" doesn\'t allow to fit any of 1 pod(s)'
         + short(1, 1))]


def test_admitted_workloads_with_a_placement_hold_their_nodes():
    n1, _ = rack("r1", 8, 8)
    old = admitted_with_placement(job("old", gpu=8), "cq", {"gpu": "tas"}, {"main": {"r1-0": 1}})
    got = run(*n1, old, job("new", gpu=8))
    assert placed(got["default/new"]) == {"main": {"r1-1": 1}}
    n1, _ = rack("r1", 8)
    got = run(*n1, old, job("new", gpu=8))
    assert reasons(got["default/new"]) == [("KAD530", HEADLINE + short(1, 1))]


# --- partial admission and several pod sets -------------------------------------------------------

def test_partial_admission_shrinks_the_count_until_the_pods_fit_in_a_rack():
    n1, p1 = rack("r1", 8, 4)  # 3 pods of 4 GPUs
    n2, p2 = rack("r2", 8)  # 2
    got = run(*n1, *p1, *n2, *p2, job("w", count=4, gpu=4, min_count=1))
    d = got["default/w"]
    assert d["pod_sets"][0]["count"] == 3
    assert placed(d) == {"main": {"r1-0": 2, "r1-1": 1}}


def test_partial_admission_reports_the_full_count_when_even_min_count_doesnt_fit():
    n1, p1 = rack("r1", 8)
    got = run(*n1, *p1, job("w", count=4, gpu=4, min_count=3))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 2 out of 4 pod(s)')]


def two_pod_sets(name: str, leader_gpu: int, workers: int, worker_gpu: int):
    return workload(name, pod_set("leader", count=1, gpu=leader_gpu, topology=("required", "rack")),
                    pod_set("workers", count=workers, gpu=worker_gpu, topology=("required", "rack")), queue="cq")


def test_pod_sets_are_placed_in_order_each_seeing_the_earlier_ones():
    n1, _ = rack("r1", 8, 8)
    got = run(*n1, two_pod_sets("w", 6, 2, 4))
    # leader: BestFit takes r1-0; workers then see 2 GPUs left there and go to r1-1
    assert placed(got["default/w"]) == {"leader": {"r1-0": 1}, "workers": {"r1-1": 2}}


def test_a_later_pod_set_that_no_longer_fits_names_itself():
    n1, _ = rack("r1", 8, 8)
    got = run(*n1, two_pod_sets("w", 6, 2, 8))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set workers: topology "dc" allows to fit only 1 out of 2 pod(s)' + short(2, 1))]


# --- nodes that can't be used ---------------------------------------------------------------------

@pytest.mark.parametrize("state", [{"ready": False}, {"unschedulable": True}], ids=["not-ready", "unschedulable"])
def test_not_ready_and_unschedulable_nodes_are_never_used(state):
    bad = node("r1-bad", block="b1", rack="r1", gpu=8, **state)
    good = node("r1-good", block="b1", rack="r1", gpu=8)
    got = run(bad, good, pod("busy", "r1-good", gpu=8), job("w", gpu=8, topology=("preferred", "rack")))
    assert reasons(got["default/w"]) == [("KAD530", HEADLINE + short(1, 1))]
    got = run(bad, good, job("w", count=2, gpu=4))
    assert placed(got["default/w"]) == {"main": {"r1-good": 2}}


def test_tolerating_the_unschedulable_taint_doesnt_make_a_cordoned_node_usable():
    bad = node("r1-bad", block="b1", rack="r1", gpu=8, unschedulable=True)
    full = node("r1-full", block="b1", rack="r1", gpu=8)
    tol = (tolerate("node.kubernetes.io/unschedulable"),)
    got = run(bad, full, pod("busy", "r1-full", gpu=8), job("w", gpu=8, tolerations=tol))
    assert reasons(got["default/w"]) == [("KAD530", HEADLINE + short(1, 1))]


def test_node_taints_need_the_flavors_or_the_pod_sets_toleration():
    tainted = [node(f"r1-{i}", block="b1", rack="r1", gpu=8, taints=[GPU_TAINT]) for i in range(2)]
    got = run(*tainted, job("w", count=2, gpu=8))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" doesn\'t allow to fit any of 2 pod(s). Total nodes: 2; '
         'excluded: taint "nvidia.com/gpu=present:NoSchedule": 2')]
    tolerant = flavor("tas", topology="dc", tolerations=(tolerate("nvidia.com/gpu"),))
    got = run(*tainted, job("w", count=2, gpu=8), flavors=(tolerant,))
    assert placed(got["default/w"]) == {"main": {"r1-0": 1, "r1-1": 1}}
    got = run(*tainted, job("w", count=2, gpu=8, tolerations=(tolerate("nvidia.com/gpu", "present"),)))
    assert placed(got["default/w"]) == {"main": {"r1-0": 1, "r1-1": 1}}


def test_an_untolerated_node_is_skipped_in_favour_of_a_busier_one():
    free = node("r1-a", block="b1", rack="r1", gpu=8, taints=[GPU_TAINT])
    busy = node("r1-b", block="b1", rack="r1", gpu=8)
    got = run(free, busy, pod("half", "r1-b", gpu=4), job("w", count=2, gpu=2))
    assert placed(got["default/w"]) == {"main": {"r1-b": 2}}


def test_flavor_node_labels_restrict_the_nodes():
    h100 = [node(f"h-{i}", block="b1", rack="r1", gpu=8, labels={"model": "h100"}) for i in range(2)]
    a100 = [node(f"a-{i}", block="b1", rack="r1", gpu=8, labels={"model": "a100"}) for i in range(2)]
    only_h100 = flavor("tas", labels={"model": "h100"}, topology="dc")
    got = run(*h100, *a100, job("w", count=2, gpu=8), flavors=(only_h100,))
    assert placed(got["default/w"]) == {"main": {"h-0": 1, "h-1": 1}}
    got = run(*h100, *a100, job("w", count=3, gpu=8), flavors=(only_h100,))
    assert reasons(got["default/w"]) == [
        ("KAD530", 'couldn\'t assign flavors to pod set main: topology "dc" allows to fit only 2 out of 3 pod(s)')]


# --- JSON -----------------------------------------------------------------------------------------

def test_json_placement_per_pod_set_sums_to_the_count():
    n1, p1 = rack("r1", 8, 8, 8)
    n2, p2 = rack("r2", 8, 6)
    wl = workload("w", pod_set("leader", count=1, gpu=2, topology=("required", "host")),
                  pod_set("workers", count=5, gpu=4, topology=("preferred", "rack")), queue="cq")
    got = run(*n1, *p1, *n2, *p2, wl)
    d = got["default/w"]
    assert d["admitted"] and [ps["name"] for ps in d["pod_sets"]] == ["leader", "workers"]
    for ps in d["pod_sets"]:
        assert sum(ps["placement"].values()) == ps["count"]
        assert list(ps["placement"]) == sorted(ps["placement"])
        assert all(v > 0 for v in ps["placement"].values())
    leader, workers = d["pod_sets"]
    assert leader["topology"] == {"name": "dc", "request": "required host", "level": HOST,
                                  "domains": [f"b1/r2/{next(iter(leader['placement']))}"]}
    assert workers["topology"]["request"] == "preferred rack" and workers["topology"]["level"] == RACK
    assert d["usage"] == {"tas/nvidia.com/gpu": "22"}


def test_no_eviction_for_a_gang_whose_nodes_still_would_not_hold_it():
    # quota: the low-priority workload's 8 GPUs are what the preemptor lacks; nodes: even with them
    # released, no rack has two free 8-GPU nodes, so nothing is evicted and the gang waits
    from reference.builders import admitted
    from reference.test_preemption import cqp
    nodes = [node(f"r{r}-{i}", gpu=8, cpu=96, rack=f"r{r}", block="b1") for r in (1, 2) for i in range(2)]
    busy = [pod("p1", "r1-0", gpu=8), pod("p2", "r2-0", gpu=8)]
    low = admitted(workload("low", pod_set("w", count=1, gpu=8), queue="cq", priority=0), "cq", {"gpu": "tas"})
    low = low.model_copy(update={"admission": low.admission.model_copy(update={"pod_sets": (
        low.admission.pod_sets[0].model_copy(update={"placement": {"r1-1": 1}}),)})})
    queue = cqp("cq", group(fq("tas", gpu=16, cpu=1000)), within="LowerPriority")
    gang = workload("gang", pod_set("w", count=2, gpu=8, topology=("required", "rack")), queue="cq", priority=9)
    m = build(queue, flavor("tas", topology="dc"), DC, *nodes, *busy, low, gang)
    out = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    assert not out["default/gang"]["admitted"] and out["default/gang"]["preempted"] == []
    assert "default/low" not in out
    codes = [r["code"] for r in out["default/gang"]["reasons"]]
    # quota, in Kueue's words: Kueue v0.17 finds the gang doesn't fit even with every topology-aware
    # workload gone, so the assignment is NoFit (updateMode(NoFit), no reason added) and no victims
    # are looked for
    assert codes == ["KAD510"]


def test_preemption_takes_more_victims_when_topology_needs_them():
    # quota alone needs one victim (8 of 16 GPUs short by 8), but the gang needs both nodes of the
    # rack: as Kueue's workloadFits asks topology-aware scheduling too, both are evicted
    from reference.builders import admitted
    from reference.test_preemption import cqp

    def holder(name, node_name, minute):
        wl = admitted(workload(name, pod_set("w", count=1, gpu=8), queue="cq", priority=0, minute=minute), "cq",
                      {"gpu": "tas"})
        psa = wl.admission.pod_sets[0].model_copy(update={"placement": {node_name: 1}})
        return wl.model_copy(update={"admission": wl.admission.model_copy(update={"pod_sets": (psa,)})})

    nodes = [node(f"r1-{i}", gpu=8, cpu=96, rack="r1", block="b1") for i in range(2)]
    queue = cqp("cq", group(fq("tas", gpu=24, cpu=1000)), within="LowerPriority")
    gang = workload("gang", pod_set("w", count=2, gpu=8, topology=("required", "rack")), queue="cq", priority=9)
    m = build(queue, flavor("tas", topology="dc"), DC, *nodes, holder("low-a", "r1-0", 0), holder("low-b", "r1-1", 1),
              gang)
    out = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    assert out["default/gang"]["admitted"]
    assert sorted(v["workload"] for v in out["default/gang"]["preempted"]) == ["default/low-a", "default/low-b"]
    assert sum(out["default/gang"]["pod_sets"][0]["placement"].values()) == 2
