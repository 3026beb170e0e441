"""What `ordered` mode decides for one workload (`Decision`): its own module so that the scheduling
loop's helpers (`asides`) build decisions without importing the loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.admission.loops import PreemptionLoop
from kadmit.engine.admission.session import Assignment
from kadmit.engine.afs import Stall
from kadmit.engine.preemption.candidates import Victim
from kadmit.model import Workload

# Kueue's messages for a head its cycle nominated and then skipped (scheduler.go setSkipped)
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
OVERLAPPING = "Workload has overlapping preemption targets with another workload"


def refused_write(wl: Workload, a: Assignment) -> str:
    """The API server's answer to Kueue's admission status write where a pod set's topology assignment has no
    slices (a negative podSetSliceSize, a pod-set group Kueue assigns no domains: `slices` is `omitempty` in Kueue's
    TopologyAssignment and the Workload CRD requires it), or a domain of fewer than 1 pod (a node of negative room
    taken by the greedy pass, or a slice's delta merged to 0 with its old pods: podCounts' Minimum=1; Kueue writes
    one slice, its podCounts `universal` where every domain has the same count, else `individual`): the write is
    refused; Kueue's scheduler logs "Could not admit Workload and assign flavors in apiserver", forgets the quota it
    assumed and requeues the workload (FailedAfterNomination), writing no condition. "" where the write is valid."""
    placed = {p.request.pod_set: p for p in (a.placement.pod_sets if a.placement is not None else [])}
    errors, required = [], False
    for i, ps in enumerate(wl.pod_sets):
        p = placed.get(ps.name)
        if p is None:
            continue
        field_ = f"admission.podSetAssignments[{i}].topologyAssignment.slices"
        if not p.assignment:
            errors.append(f"status.{field_}: Required value")
            required = True
            continue
        counts = p.written or tuple(p.assignment.values())
        universal = len(set(counts)) == 1
        for j, n in enumerate(counts[:1] if universal else counts):
            if n < 1:
                name = f"{field_}[0].podCounts." + ("universal" if universal else f"individual[{j}]")
                errors.append(f"status.{name}: Invalid value: {n}: {name} in body should be greater than or equal to 1")
    if not errors:
        return ""
    if required:  # (the API server's note where a required field is missing)
        errors.append("<nil>: Invalid value: null: some validation rules were not checked because the object was "
                      "invalid; correct the existing errors to complete validation")
    return f'Workload.kueue.x-k8s.io "{wl.name}" is invalid: ' + (errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")


@dataclass
class Decision:
    workload: Workload
    admitted: bool
    cluster_queue: str | None
    assignment: Assignment | None = None
    waiting_behind: str | None = None  # StrictFIFO: the head this workload is queued behind
    unknown: bool = False
    cycle: int = 0
    notes: list[str] = field(default_factory=list)
    preempted: list[Victim] = field(default_factory=list)  # whom it evicted to be admitted
    preempted_by: str | None = None  # a workload admitted at the start and evicted in the run: by whom
    preemption_reason: str | None = None  # and under which of Kueue's reasons (preempt.IN_*)
    # evicted and then nominated again in a later cycle (requeued: Kueue's scheduler tried it), where its
    # QuotaReserved=False message is that try's, not the eviction's (a victim behind a StrictFIFO head is not tried)
    tried_again: bool = False
    loop: PreemptionLoop | None = None  # undecided: in a preemption loop (or a run that did not settle)
    # quota reserved in a queue with admission checks: each that applies, with its state; Kueue's
    # Admitted waits until all are Ready (`admitted` above means holding quota, as in the engine)
    checks: tuple[tuple[str, str], ...] = ()
    # its last cycle nominated it and then skipped it (Kueue's setSkipped), with Kueue's message: "Workload no
    # longer fits after processing another workload" or "... has overlapping preemption targets ..."
    skipped: str = ""
    # behind a StrictFIFO head now, tried before it came to wait there: its decision then (Kueue's message is that try's)
    tried: Decision | None = None
    # nominated and fitting, but Kueue's admission write is refused by the API server (`refused_write`, its
    # message): requeued at once, no condition written, tried again every cycle and never admitted
    refused: str = ""
    # waiting behind a head whose admission write the API server refuses (`refused_write`): not tried since
    head_refused: bool = False
    # never tried: moved to its BestEffortFIFO queue's inadmissible list with this workload, found inadmissible
    # with the same scheduling hash (the SchedulingEquivalenceHashing gate: `equivalence`)
    equivalent_to: str | None = None
    # quota reserved with a pod set's topology assignment delayed for its checks and not yet made (Kueue's
    # HasTopologyAssignmentsPending: a second pass still to come or failed): not Admitted (`checks.mark_one`)
    topology_pending: bool = False
    # admitted as the replacement of its job's admitted slice (ElasticJobsViaWorkloadSlices: `slices.replaced` when
    # admitted), the slice Kueue finished on this admission; None for others, and for a slice admitted afresh after
    # its old slice was finished a cycle earlier (its write refused: `refused_write`)
    replaced: str | None = None
    # never tried: Kueue's snapshot fails every cycle, as a Workload holding quota under admission fair sharing names
    # a LocalQueue that doesn't exist (`afs.stalled_by`): why (KAD542); None where Kueue schedules
    stalled: Stall | None = None

    @property
    def preempting(self) -> bool:
        """Pending the preemptions its last try issued (it holds that try's assignment): Kueue's "Pending the
        preemption of N workload(s)". A preemptor evicted or tried again since lists its victims too."""
        return bool(self.preempted) and not self.admitted and self.assignment is not None

    @property
    def waiting_checks(self) -> tuple[str, ...]:
        return tuple(name for name, state in self.checks if state != "Ready")

    @property
    def kueue_admitted(self) -> bool:
        """Kueue's Admitted condition (workload.SyncAdmittedCondition): quota reserved, every admission check
        Ready and no topology assignment pending."""
        return self.admitted and not self.waiting_checks and not self.topology_pending

    @property
    def key(self) -> str:
        return self.workload.key


def still_queued(decisions: dict[str, Decision], queues: dict[str, list[Workload]], cycle: int) -> None:
    """The workloads still queued when nothing changes any more and not decided yet: a head, and the ones behind
    it waiting behind it (`head_refused` where Kueue's admission write of the head is refused)."""
    for name, queue in sorted(queues.items()):
        head = decisions.get(queue[0].key) if queue else None
        for wl in queue:
            if wl.key not in decisions:
                decisions[wl.key] = Decision(wl, False, name, waiting_behind=queue[0].key if wl is not queue[0]
                                             else None, cycle=cycle, head_refused=bool(head and head.refused))
