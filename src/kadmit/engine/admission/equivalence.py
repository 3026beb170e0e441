"""Kueue's SchedulingEquivalenceHashing gate (off by default in v0.17.0) in `ordered` mode: workloads of one
scheduling hash share the fate of the first found inadmissible in a BestEffortFIFO ClusterQueue.

Kueue computes each queued Workload's hash when its queue manager takes it in or updates it
(workload.go computeSchedulingHash, from `Info.UpdateSchedulingHash`): sha256 of the JSON of its
effective priority and, per pod set, the name, `utilpod.SpecShape` of the pod template (containers' and
init containers' requests and ports, nodeSelector, affinity, tolerations, runtimeClassName, priority,
topologySpreadConstraints, overhead, resourceClaims, on the spec AdjustResources filled in: LimitRange
defaults, limits as missing requests, the RuntimeClass's overhead), the count (after reclaimable pods),
minCount and topologyRequest. Namespace, queue, names, labels and annotations are not in it.

When a head goes back to its BestEffortFIFO queue not at once (cluster_queue.go requeueIfNotPresent with
immediate false: no assignment, a preemption without victims, a closed preemption gate, a namespace its
ClusterQueue does not select), handleInadmissibleHash records its hash in the queue's
noFitSchedulingHashes and moves every workload of that hash still in the queue's heap to its inadmissible
list, untried; a workload pushed later with such a hash goes there too (PushOrUpdate). The set is
cleared each time the queue's inadmissible workloads are queued again (queueInadmissibleWorkloads: a
workload releasing quota in the cohort tree, an eviction completing), not by an admission, and the
workloads moved come back with the others set aside. StrictFIFO queues keep no set. An `ordered` run
never reads the set: every pending workload is there from the start, a head requeued at once is pushed
without the check (PushIfNotPresent), and an evicted one is queued again after its tree's sets are
cleared. `simulate`'s arrivals between instants read it: it keeps the sets (`recorded`, passed to each
run) in `simulate.queues.Queues.hashes`, cleared when quota is released in a tree, and parks an arrival
of a recorded hash untried.

kadmit compares the hash's fields (`key`): the containers' and init containers' requests after Kueue's
adjustment, the overhead and RuntimeClass, the node selector, the required node-affinity terms, the
tolerations, the ResourceClaims named, and a digest of the rest of SpecShape as written (ports, the whole
affinity, topologySpreadConstraints, the template's `priority`, resourceClaims: `PodResources.shape`,
manifests/specshape.py); the count after reclaimable pods, the spec's minCount (`Workload.shapes`, not the
one reclaim lowers) and the topology request, its index labels included (`PodSet.index`: the podIndexLabel,
subGroupIndexLabel and subGroupCount a job's integration sets with TopologyAwareScheduling on, which tell a
Job's Workload from a Pod's or a hand-written one alike in all else, and a JobSet's replicated job of 2 x 2
pods from one of 4 x 1; an AppWrapper's from its pod sets' annotations, `manifests.jobs.appwrapper`). `.kad` pod
sets: their requests, and none of the fields the language cannot say, alike on both sides."""

from __future__ import annotations

from kadmit.featuregates import enabled
from kadmit.model import LimitRange, PodSet, RuntimeClass, Workload
from kadmit.podresources import adjust

GATE = "SchedulingEquivalenceHashing"


class Equivalence:
    """The scheduling hash of each workload (`key`), and the workloads a head found inadmissible takes with it."""

    def __init__(self, session, recorded: dict[str, dict[tuple, str]] | None = None) -> None:
        """`recorded`: the queues' sets kept from before (`simulate`'s between instants), updated in place."""
        self.session = session
        self.on = enabled(session.model.config, GATE)
        self.tas = enabled(session.model.config, "TopologyAwareScheduling")
        # per ClusterQueue its noFitSchedulingHashes: each key recorded, and the head that recorded it first
        self.recorded: dict[str, dict[tuple, str]] = {} if recorded is None else recorded
        self._keys: dict[int, tuple[Workload, tuple]] = {}  # id(workload) -> (it, its key)
        self._ranges: dict[str, list[LimitRange]] | None = None
        self._classes: dict[str, RuntimeClass] = {}

    def key(self, wl: Workload) -> tuple:
        """What of `wl` Kueue's scheduling hash takes, as kadmit's model holds it."""
        got = self._keys.get(id(wl))
        if got is None or got[0] is not wl:
            # a job's integration gives its pod sets a topologyRequest only with TopologyAwareScheduling on
            made = wl.origin is not None and wl.origin.kind != "Workload" and not self.tas
            key = (self.session.index.priority(wl),) + tuple(
                self._pod_set(wl.namespace, ps, min_count, () if made else ps.index)
                for ps, min_count in zip(wl.pod_sets, wl.spec_min_counts))
            got = self._keys[id(wl)] = (wl, key)
        return got[1]

    def _pod_set(self, namespace: str, ps: PodSet, min_count: int | None, index) -> tuple:
        """`min_count`: the spec's minCount, which Kueue hashes (reclaimable pods may lower the model's); `index`:
        the topologyRequest's index labels (`PodSet.index`, None where kadmit does not know them)."""
        if self._ranges is None:
            model = self.session.model
            self._ranges = {}
            for lr in model.limit_ranges:
                self._ranges.setdefault(lr.namespace, []).append(lr)
            for rc in model.runtime_classes:
                self._classes.setdefault(rc.name, rc)
        if ps.resources is not None:
            pod = adjust(ps.resources, self._ranges.get(namespace, []), self._classes)
            spec: tuple = (tuple(frozenset(c.requests.items()) for c in pod.containers),
                           tuple(frozenset(c.requests.items()) for c in pod.init_containers),
                           frozenset(pod.overhead.items()), pod.runtime_class, pod.shape)
        else:
            spec = (frozenset(ps.requests.items()),)
        return (ps.name, spec, frozenset(ps.node_selector.items()), ps.node_affinity, ps.tolerations,
                ps.claim_templates, ps.claims, ps.count, min_count, ps.topology, None if index is None else tuple(index))

    def inadmissible(self, name: str, head: Workload, queue: list[Workload]) -> list[Workload]:
        """`head` went to queue `name`'s inadmissible list (not at once): with the gate on and the queue
        BestEffortFIFO, the workloads of `queue` (the heap) that share its hash are taken out of it and
        returned, in queue order (handleInadmissibleHash)."""
        if not self.on or self.session.index.cluster_queues[name].queueing_strategy != "BestEffortFIFO":
            return []
        key = self.key(head)
        self.recorded.setdefault(name, {}).setdefault(key, head.key)
        moved = [w for w in queue if w is not head and self.key(w) == key]
        if moved:
            gone = {id(w) for w in moved}
            queue[:] = [w for w in queue if id(w) not in gone]
        return moved

    def released(self, names) -> None:
        """Quota was released in the cohort tree of ClusterQueues `names`: their sets are cleared
        (queueInadmissibleWorkloads)."""
        for name in names:
            self.recorded.pop(name, None)
