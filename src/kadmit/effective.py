"""The state Kueue acts on: queues drained by their stopPolicy, requests as its `resources` configuration counts them."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from fractions import Fraction

from kadmit.featuregates import enabled
from kadmit.model import ClaimTemplate, Model, PodSet, ResourceTransformation, SchedulerConfig, TopologyRequest, Workload
from kadmit.modelchecks import CheckState, checks_for
from kadmit.modeldra import extended_quota
from kadmit.podresources import adjust, aggregate
from kadmit.quantity import parse_exact

MILLI = 1000


_DONE: dict[int, Model] = {}  # recent results (kept alive, so ids are not reused): never applied twice


def effective(model: Model) -> Model:
    """`gated`, `synced`, `held`, `drained`, `checked`, `expired`, `ordered_by_eviction`, then `counted`: what the engine
    and the reference decide on. A model this returned is returned as it is (transformations must not apply twice)."""
    if _DONE.get(id(model)) is model:
        return model
    out = counted(ordered_by_eviction(expired(checked(drained(held(synced(gated(model))))))))
    if len(_DONE) >= 16:
        _DONE.pop(next(iter(_DONE)))
    _DONE[id(out)] = out
    return out


def without_layer_annotation(t: TopologyRequest) -> TopologyRequest | None:
    """A job's topology request as Kueue's jobframework builds it with TASMultiLayerTopology off, from one
    that carries the slice layers annotation (podSetTopologyRequestBuilder.Build reads the annotation with the
    gate on only): its mode and a stored job's plain slice annotations (`plain_slices`, Build's `else`
    branch); none where the annotation alone made it."""
    if t.layers_annotation == "alone" and t.plain_slices is None:
        return None
    level, size = t.plain_slices or (None, None)
    return t.model_copy(update={"layers": (), "layers_annotation": "", "plain_slices": None,
                                "slice_level": level, "slice_size": size})


def gated(model: Model) -> Model:
    """The workloads as Kueue's feature gates leave them. PartialAdmission off: no pod set keeps a `minCount`
    (Kueue's Workload webhook Default drops them on create, and the job reconciler's
    clearMinCountsIfFeatureDisabled from the Workloads it builds), so none is admitted partially.
    TopologyAwareScheduling off: no flavor is topology-aware (the cache's isTASFlavor needs the gate), no pod
    set asks for a topology (the job reconcilers build no TopologyRequest; the flavor assigner and the
    scheduler read none) and no admission's topology assignment is read (totalRequestsFromAdmission).
    AdmissionGatedBy on: a pending workload whose `kueue.x-k8s.io/admission-gated-by` is set (its job's, which
    the reconciler copies) is not admissible (workload.IsAdmissible): in no queue, it blocks no StrictFIFO
    head (`held`), and its condition says "Admission is gated by: ..." (mayUpdateConditionForAdmissionGatedBy).
    TASMultiLayerTopology off: a pod set's slices keep only their first layer (buildSliceSizeAtLevel reads the
    others with the gate on only), and the layers of a job's annotation are not read (podSetTopologyRequestBuilder):
    its request keeps its mode and a stored job's plain slice annotations (Build's `else` branch), or is none
    where the annotation alone made it."""
    cfg = model.config
    partial, tas = enabled(cfg, "PartialAdmission"), enabled(cfg, "TopologyAwareScheduling")
    admission_gates, layered = enabled(cfg, "AdmissionGatedBy"), enabled(cfg, "TASMultiLayerTopology")
    if partial and tas and not admission_gates and layered:
        return model
    drop = ({} if partial else {"min_count": None}) | ({} if tas else {"topology": None})

    def pod_set(ps: PodSet) -> PodSet:
        t = ps.topology
        if not layered and t is not None and t.layers and "topology" not in drop:
            ps = ps.model_copy(update={"topology": without_layer_annotation(t) if t.layers_annotation
                                       else t.model_copy(update={"layers": t.layers[:1]})})
        return ps if all(getattr(ps, k) is None for k in drop) else ps.model_copy(update=drop)

    def admission(a):
        if tas or a is None or not any(p.placement or p.placement_levels or p.delayed for p in a.pod_sets):
            return a
        return a.model_copy(update={"pod_sets": tuple(p.model_copy(update={"placement": {}, "placement_levels": (),
                                                                           "delayed": False}) for p in a.pod_sets)})
    out = []
    for wl in model.workloads:
        update: dict = {}
        pod_sets, held = tuple(pod_set(ps) for ps in wl.pod_sets), admission(wl.admission)
        if not all(a is b for a, b in zip(pod_sets, wl.pod_sets)):
            update["pod_sets"] = pod_sets
        if held is not wl.admission:
            update["admission"] = held
        if admission_gates and wl.admission_gated_by and wl.admission is None and not wl.finished \
                and not wl.inadmissible:
            update |= {"inadmissible": f"Admission is gated by: {wl.admission_gated_by}", "held": True}
        out.append(wl.model_copy(update=update) if update else wl)
    changed: dict = {"workloads": tuple(out)}
    if not tas:
        changed["flavors"] = tuple(f.model_copy(update={"topology": None}) if f.topology else f for f in model.flavors)
    return model.model_copy(update=changed)


def _queues_of(model: Model):
    """A function giving a workload's local queue and that queue's target cluster queue (None where
    missing; the first object of a name, as the reader keeps it). Kueue's queue manager gives a
    workload the cluster queue only while its local queue is not stopped (`_managed`)."""
    lqs = {q.key: q for q in reversed(model.local_queues)}
    cqs = {q.name: q for q in reversed(model.cluster_queues)}

    def of(wl):
        lq = lqs.get(f"{wl.namespace}/{wl.queue}")
        return lq, (cqs.get(lq.cluster_queue) if lq is not None else None)
    return of


def _managed(lq, cq):
    """The cluster queue Kueue's queue manager gives a workload (ClusterQueueForWorkload): its local
    queue's target, none when that local queue is stopped (the manager holds only local queues whose
    stopPolicy is None)."""
    return cq if lq is not None and lq.stop_policy == "None" else None


def synced(model: Model) -> Model:
    """The check states of workloads holding quota once Kueue's workload controller has synced them
    with their ClusterQueue (reconcileSyncAdmissionChecks, done when the queue manager gives the
    workload a ClusterQueue: its local queue is not stopped): the states of the checks the queue
    requires for its flavors are kept, the others dropped, a missing one Pending. The model itself
    when no workload holding quota has or needs a check state."""
    if not any(wl.check_states for wl in model.workloads) and not any(cq.admission_checks for cq in model.cluster_queues):
        return model
    queues_of = _queues_of(model)
    out, changed = [], False
    for wl in model.workloads:
        cq = _managed(*queues_of(wl))
        if wl.admitted and cq is not None:
            flavors = {fq.flavor for rg in cq.resource_groups for fq in rg.flavors}
            assigned = {f for ps in wl.admission.pod_sets for f in ps.flavors.values()}
            have = {s.name: s for s in wl.check_states}
            states = tuple(have.get(n) or CheckState(name=n, state="Pending")
                           for n in checks_for(cq.admission_checks, flavors, assigned))
            if states != wl.check_states:
                wl = wl.model_copy(update={"check_states": states})
                changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def drained(model: Model) -> Model:
    """The state once Kueue has acted on `stopPolicy: HoldAndDrain`: an admitted workload of a
    local queue or cluster queue that drains is evicted ("The LocalQueue is stopped" / "The
    ClusterQueue is stopped"), gives its quota back and waits in its (stopped) queue. The model
    itself when nothing drains. The cluster queue is the one Kueue's queue manager gives for the
    workload (ClusterQueueForWorkload): its local queue's target, and none when that local queue
    is stopped (the manager holds only local queues whose stopPolicy is None), so a workload of a
    Hold local queue keeps its quota in a HoldAndDrain cluster queue.

    A workload that reserves quota but is not admitted (no Admitted condition, a check not Ready)
    loses its reservation to any stopPolicy, and when its queues are missing or its LocalQueue or
    ClusterQueue is being deleted
    (reconcileOnLocalQueueActiveState and reconcileOnClusterQueueActiveState: "LocalQueue X is
    stopped", "LocalQueue X is terminating or missing"...), and waits in its queue, not evicted.
    One with a Retry or Rejected check is left to `checked` (reconcileCheckBasedEviction acts first), and so
    is one drained whose Retry checks' retry time is to come ("Waiting for backoff to finish" comes before both).
    A LocalQueue being deleted stays in Kueue's queue manager, so such a workload is queued and given
    quota again, and taken back again, over and over (never Admitted): the engine decides it as a
    pending workload, holding its reservation as the other workloads meet it."""
    queues_of = _queues_of(model)
    out, changed = [], False
    for wl in model.workloads:
        lq, cq = queues_of(wl)
        cq = _managed(lq, cq)
        if wl.admitted and not _admitted(wl) and not any(s.state in ("Retry", "Rejected") for s in wl.check_states):
            if cq is None or cq.stop_policy != "None" or cq.terminating or lq.deleting:
                wl = requeued(wl, {"admission": None})
                changed = True
        elif wl.admitted and ((lq is not None and lq.stop_policy == "HoldAndDrain")
                              or (cq is not None and cq.stop_policy == "HoldAndDrain")) \
                and retry_ends(wl, run_start(model)) <= 0:  # (a retry time to come: kept until then, `checked`)
            wl = requeued(wl, {"admission": None, "evicted": True})
            changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def requeued(wl, update: dict):
    """`wl`, holding quota, changed by `update` as it gives its quota back and Kueue queues it again:
    with the requests its workload controller adjusts before queueing it (AdjustResources: LimitRange
    defaults, RuntimeClass overhead; `Workload.requeue_pod_sets`) and, when they break a LimitRange or
    exceed their limits, the reason the scheduler finds it inadmissible."""
    update = dict(update)
    if wl.requeue_pod_sets is not None:
        update["pod_sets"] = wl.requeue_pod_sets
    if wl.requeue_inadmissible and not wl.inadmissible and not update.get("inadmissible"):
        update["inadmissible"] = wl.requeue_inadmissible
    update.setdefault("requeue_pod_sets", None)
    update.setdefault("requeue_inadmissible", "")
    return wl.model_copy(update=update)


def _admitted(wl) -> bool:
    """Whether Kueue's workload controller finds a workload holding quota admitted: its Admitted
    condition is True (kept as it is: the controller syncs it only for one not admitted), or
    SyncAdmittedCondition sets it: every check state it has (after `synced`) Ready."""
    return wl.admitted_condition or all(s.state == "Ready" for s in wl.check_states)


# The reasons of a False `Requeued` condition Kueue's workload controller sets True again (its
# Reconcile): a reactivated workload's, a backoff's once its requeueAt has passed, a stopped queue's
# once the queue runs (a pending workload of a queue still stopped is not admitted either way).
REQUEUED_AGAIN = frozenset({"Deactivated", "PodsReadyTimeout", "AdmissionCheck", "ClusterQueueStopped",
                            "LocalQueueStopped"})


def run_start(model: Model) -> datetime:
    """"Now" for the input's timers: a second after the latest creationTimestamp of the input's objects read (its
    workloads' and `Model.creation_times`: a Job with no Workload, a LocalQueue), where the oracle's clock
    starts (kueue-oracle admit.go `startOf`: every object it holds and every job)."""
    return max((*(wl.created for wl in model.workloads), *model.creation_times)) + timedelta(seconds=1)


def held(model: Model) -> Model:
    """Pending workloads Kueue's queues hold back, made inadmissible: one whose `Requeued` condition
    is False for a reason the workload controller never sets True again (REQUEUED_AGAIN: Kueue's
    ClusterQueue keeps it among its inadmissible workloads, backoffWaitingTimeExpired), and one whose
    `status.requeueState.requeueAt` is still to come (now: a second after the input's latest workload
    was created, as `checked` takes it), which the controller waits for before it queues the workload
    (or sets its condition True). Either is in no queue's heap (cluster_queue.go PushOrUpdate keeps it
    among the inadmissible ones, backoffWaitingTimeExpired being false), so it blocks no StrictFIFO
    head (`held`). One whose condition is False for a reason of REQUEUED_AGAIN beside its requeueAt to come gets
    `backoff_ends`: Kueue's workload controller reconciles it again then (its RequeueAfter), clears the requeueAt
    and sets the condition True, and its queue takes it into its heap (the condition changed), so the run queues
    it from that second on, should it go on so long; one with no such condition stays among the inadmissible
    ones (PushOrUpdate updates it in place: only the requeueState changed). The model itself when none is."""
    if not any(wl.requeued_false or wl.requeue_at for wl in model.workloads):
        return model
    now = run_start(model)
    out, changed = [], False
    for wl in model.workloads:
        if wl.admission is None and wl.active and not wl.finished and not wl.inadmissible:
            why = ""
            if wl.requeue_at is not None and wl.requeue_at > now:
                why = (f"Kueue requeues it at its status.requeueState.requeueAt, "
                       f"{wl.requeue_at.strftime('%Y-%m-%dT%H:%M:%SZ')} (backoff), after now")
            elif wl.requeued_false and wl.requeued_false not in REQUEUED_AGAIN:
                why = (f"its Requeued condition is False (reason `{wl.requeued_false}`), which Kueue's workload "
                       "controller sets True again only for " + ", ".join(sorted(REQUEUED_AGAIN)))
            if why:
                ends = math.ceil((wl.requeue_at - now).total_seconds()) \
                    if wl.requeue_at is not None and wl.requeued_false in REQUEUED_AGAIN else 0
                wl = wl.model_copy(update={"inadmissible": why, "held": True, "backoff_ends": ends})
                changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def ordered_by_eviction(model: Model) -> Model:
    """Kueue's queue order timestamp (workload.Ordering.GetQueueOrderTimestamp), which its queues,
    its scheduler's iterators and its preemption rules all compare: a workload evicted by an admission
    check, or by its pods' readiness timeout under the Eviction requeuing timestamp (the default), is
    ordered by its Evicted condition's time rather than its creation. kadmit orders by `created`, so
    that becomes the eviction's time (after `held` and `checked`, which take "now" from the creation
    times, as the oracle's clock starts). The model itself when no workload is so evicted."""
    stamp = model.config.pods_ready_requeuing_timestamp if model.config is not None else "Eviction"
    reasons = {"AdmissionCheck", "PodsReadyTimeout"} if stamp == "Eviction" else {"AdmissionCheck"}
    # PrioritySortingWithinCohort off: one preempted to reclaim what its queue borrowed, by that time + 1ms
    by_reclaim = not enabled(model.config, "PrioritySortingWithinCohort")

    def stamped(wl: Workload):
        if wl.evicted and wl.evicted_at is not None and wl.evicted_reason in reasons:
            return wl.evicted_at
        if by_reclaim and wl.reclaimed_while_borrowing_at is not None and wl.admission is None:
            return wl.reclaimed_while_borrowing_at + timedelta(milliseconds=1)
        return None
    if not any(stamped(wl) is not None for wl in model.workloads):
        return model
    return model.model_copy(update={"workloads": tuple(
        wl.model_copy(update={"created": at}) if (at := stamped(wl)) is not None else wl for wl in model.workloads)})


DEACTIVATED = "The workload is deactivated due to Admission check(s): "  # Kueue's message, a rejected check's names follow
FAILED_CHECKS = "The workload has failed admission checks"  # the scheduler's nominate, for a Retry or Rejected check


def checked(model: Model) -> Model:
    """The state once Kueue's workload controller has acted on the admission checks of workloads
    holding quota (reconcileCheckBasedEviction): one with a Rejected check is deactivated (its quota
    given back, `spec.active` false: queued nowhere, never admitted again); else one with a Retry check is evicted (once the
    latest retry time of its Retry checks has passed: until then it keeps its quota, `retry_ends`, and so does one with
    a Rejected check too: "Waiting for backoff to finish" comes first), gives its quota back
    and is queued again with its checks Pending, ordered by its eviction (workload.GetQueueOrderTimestamp: Kueue evicts it
    now, after every workload of the input was created; kadmit orders by `created`). The model
    itself when no check failed. A pending workload with a failed check its queue keeps is never
    tried ("The workload has failed admission checks")."""
    if not any(wl.check_states for wl in model.workloads):
        return model
    now = run_start(model)
    queues_of = _queues_of(model)
    out, changed = [], False
    for wl in model.workloads:
        if wl.admission is None and wl.check_states and not wl.inadmissible:
            # a pending workload keeps the states of the checks its queue applies to every flavor
            # (syncAdmissionCheckConditions); a Retry or Rejected one among them keeps it out of
            # every scheduling cycle (the scheduler's nominate)
            _, cq = queues_of(wl)
            if cq is not None and failed_checks(wl, cq):
                wl = wl.model_copy(update={"inadmissible": FAILED_CHECKS})
                changed = True
        if wl.admitted and not wl.evicted and wl.check_states:
            rejected = [s.name for s in wl.check_states if s.state == "Rejected"]
            if (ends := retry_ends(wl, now)) > 0:  # Rejected or Retry: acted on during the run (controller_timers)
                wl = wl.model_copy(update={"retry_ends": math.ceil(ends)})
                changed = True
            elif rejected:
                # deactivated (spec.active false): queued nowhere, so it blocks no StrictFIFO queue
                wl = wl.model_copy(update={"admission": None, "active": False, "inadmissible": (
                    DEACTIVATED + ", ".join(rejected) + ", were rejected")})
                changed = True
            elif any(s.state == "Retry" for s in wl.check_states):
                wl = requeued(wl, {"evicted": True, "created": now, "check_states": tuple(
                    s.model_copy(update={"state": "Pending"}) for s in wl.check_states)})  # resetChecksOnEviction
                changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def retry_ends(wl, now: datetime) -> float:
    """The seconds from `now` until the latest retry time of a workload's Retry checks (workload.GetMaxRetryTime):
    Kueue's workload controller sets its requeueAt then (NeedsRequeueAtUpdate) and, "Waiting for backoff to
    finish", keeps it holding quota until that passes before reconcileCheckBasedEviction evicts it (controller_timers
    evicts it then, should the run go on so long); 0 or less: none to come, evicted at once."""
    times = [s.retry_at for s in wl.check_states if s.retry_at is not None]
    return (max(times) - now).total_seconds() if times else 0


EXPIRED = "The workload is deactivated due to exceeding the maximum execution time"  # Kueue's Evict message


def expired(model: Model) -> Model:
    """Admitted workloads and their maximum execution time (reconcileMaxExecutionTime): Kueue's workload controller
    deactivates one that has run `maximumExecutionTimeSeconds` (less its accumulatedPastExecutionTimeSeconds) since
    its Admitted condition (a DeactivationTarget, then spec.active false and the eviction: its quota given back, queued
    nowhere, never admitted again); one whose time runs out later gets `exec_ends`, the seconds from now until the
    controller's timer (its RequeueAfter) comes, which the run meets if it goes on so long (engine/admission/controller_timers.py).
    The model itself when no workload holding quota has a maximum execution time."""
    if not any(wl.max_exec and wl.admitted_since for wl in model.workloads):
        return model
    now = run_start(model)
    out, changed = [], False
    for wl in model.workloads:
        if wl.max_exec and wl.admitted_since and wl.admission is not None and wl.active:
            left = wl.max_exec - wl.past_exec - (now - wl.admitted_since).total_seconds()
            if left <= 0:
                wl = wl.model_copy(update={"admission": None, "active": False, "inadmissible": EXPIRED})
            else:
                wl = wl.model_copy(update={"exec_ends": math.ceil(left)})
            changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def failed_checks(wl, cq) -> bool:
    """Whether a pending workload keeps a Retry or Rejected state of a check its ClusterQueue applies to every
    flavor (the states syncAdmissionCheckConditions keeps): its scheduler's nominate tries it no further, "The
    workload has failed admission checks", the first of its reasons (before the namespace and the resources'
    validation). One whose resources are invalid keeps that reason as `inadmissible`: gate_reasons puts this first."""
    kept = checks_for(cq.admission_checks, {fq.flavor for rg in cq.resource_groups for fq in rg.flavors}, None)
    return any(st.name in kept and st.state in ("Retry", "Rejected") for st in wl.check_states)


def counted(model: Model) -> Model:
    """Each pod set's requests as Kueue's `totalRequestsFromPodSets` counts them under the
    Configuration's `resources`: resources with an excluded prefix dropped, then the
    transformations applied (Kueue v0.17 has no quotaCheckStrategy: a resource the cluster queue
    does not cover blocks the pod set); DRA devices of resourceClaims only with the
    DynamicResourceAllocation gate on (Kueue v0.17.0's default: off), and with DRAExtendedResources on too, a
    pending workload's extended resources some DeviceClass names (`_with_extended`). The model itself when
    nothing changes."""
    cfg = model.config
    claims = (cfg is not None and cfg.dynamic_resource_allocation
              and any(ps.claim_templates or ps.claims for wl in model.workloads for ps in wl.pod_sets))
    extended = extended_classes(model)
    if not claims and not extended and (cfg is None or not (cfg.exclude_resource_prefixes or cfg.transformations)) \
            and not any(_fractional(ps.requests) for wl in model.workloads for ps in wl.pod_sets):
        return model
    cfg = cfg or SchedulerConfig()
    templates: dict[str, ClaimTemplate] = {}
    for t in model.claim_templates:
        templates.setdefault(f"{t.namespace}/{t.name}", t)
    mapping = {cls: m.name for m in reversed(cfg.device_class_mappings) for cls in m.device_class_names}
    out, changed = [], False
    for wl in model.workloads:
        pod_sets = tuple(_pod_set(ps, cfg) for ps in wl.pod_sets)
        update: dict = {}
        if cfg.dynamic_resource_allocation and any(ps.claims for ps in pod_sets):
            # workload_controller.go: a pending workload naming a ResourceClaim directly is held
            # Inadmissible before its templates are read
            update["inadmissible"] = "DynamicResourceAllocation feature does not support use of resource claims"
        elif cfg.dynamic_resource_allocation and any(ps.claim_templates for ps in pod_sets):
            pod_sets, why = _with_devices(wl.namespace, pod_sets, templates, mapping)
            if why:
                update["inadmissible"] = why
        if extended and wl.admission is None and not update.get("inadmissible"):
            pod_sets, why = _with_extended(wl, pod_sets, extended, mapping, model)
            if why:
                update["inadmissible"] = why
        if update.get("inadmissible") and wl.admission is None:
            # the workload controller returns before AddOrUpdateWorkload: in no queue's heap, it blocks no
            # StrictFIFO head (`held`)
            update["held"] = True
        if pod_sets != wl.pod_sets:
            update["pod_sets"] = pod_sets
        if update:
            wl = wl.model_copy(update=update)
            changed = True
        out.append(wl)
    return model.model_copy(update={"workloads": tuple(out)}) if changed else model


def requests_after(requests: dict[str, int], cfg: SchedulerConfig) -> dict[str, int]:
    """One pod's requests (milli-units) after excluded prefixes and transformations."""
    kept = {r: q for r, q in requests.items()
            if not any(r.startswith(p) for p in cfg.exclude_resource_prefixes)}
    return transform(kept, {t.input: t for t in cfg.transformations})


def transform(requests: dict[str, int], by_input: dict[str, ResourceTransformation]) -> dict[str, int]:
    """Kueue's `applyResourceTransformations` on one pod's requests, then `resources.NewRequests`:
    a transformed input is first multiplied by the whole units (`Value()`, rounded up) of its
    `multiplyBy` resource where the pod requests it, and that product is what `Retain` keeps; each
    output is its factor times the input's whole units (`Value()`, rounded up: 500m cpu counts as
    1); outputs are summed apart from what was asked for, and every resource but cpu is counted in
    whole units (NewRequests' `Value()`, see `_units`), cpu in milli-units (`MilliValue()`, the same
    rounding a thousand times finer: a factor of `100u` times 15 units counts 2m). A negative factor
    gives a negative request, which Kueue counts as it is (its Configuration checks no sign)."""
    if not any(r in by_input for r in requests):
        return {r: q if r == "cpu" else _units(q) * MILLI for r, q in requests.items()} if _fractional(requests) \
            else requests
    retained: dict[str, int] = {}
    generated: dict[str, Fraction] = {}  # milli-units, exact
    for name, milli in requests.items():
        t = by_input.get(name)
        if t is None:
            retained[name] = milli
            continue
        if t.multiply_by and t.multiply_by in requests:
            milli *= _units(requests[t.multiply_by])
        for out, factor in t.outputs.items():
            exact = parse_exact(t.fine_outputs[out]) * MILLI if out in t.fine_outputs else factor
            generated[out] = generated.get(out, 0) + exact * _units(milli)
        if t.strategy == "Retain":
            retained[name] = milli
    out: dict[str, Fraction | int] = dict(retained)
    for name, amount in generated.items():
        out[name] = out.get(name, 0) + amount
    return {r: _go_round(Fraction(q)) if r == "cpu" else _units(_go_round(Fraction(q))) * MILLI
            for r, q in sorted(out.items())}


def _fractional(requests: dict[str, int]) -> bool:
    """Whether one pod's requests hold a fraction of a unit of a resource other than cpu, which NewRequests counts
    in whole units (`Value()`, rounded up: 500m of `example.com/gpu` in a Workload's template counts 1)."""
    return any(q % MILLI for r, q in requests.items() if r != "cpu")


def _go_round(milli: Fraction) -> int:
    """An exact amount of milli-units as Go's `MilliValue()` gives it: truncated, then 1 more for any
    fraction (below 0 too)."""
    whole = int(milli)  # toward 0
    return whole + 1 if milli != whole else whole


def _units(milli: int) -> int:
    """A quantity's `Value()`: its whole units, rounded up; below 0, as Go's `scaledValue` does,
    truncated and then 1 more for any fraction (-1500m counts 0, -500m counts 1, -2500m counts -1)."""
    whole = -((-milli) // MILLI)
    return whole + 1 if milli < 0 and milli % MILLI else whole


def _pod_set(ps: PodSet, cfg: SchedulerConfig) -> PodSet:
    """The pod set with the requests quota counts; the pod spec's own kept for placement."""
    reqs = requests_after(ps.requests, cfg)
    return ps if reqs == ps.requests else ps.model_copy(update={"requests": reqs, "pod_requests": ps.placed_requests})


def _with_devices(namespace: str, pod_sets: tuple[PodSet, ...], templates: dict[str, ClaimTemplate],
                  mapping: dict[str, str]) -> tuple[tuple[PodSet, ...], str]:
    """Kueue's `GetResourceRequestsForResourceClaimTemplates` (run with the DynamicResourceAllocation
    gate on): each pod's claims from templates add their devices, per device class, as the resource
    its `deviceClassMappings` entry names. A template not in the input adds nothing (the validator
    warns); a class no mapping names, or a request Kueue can't count, makes the workload inadmissible:
    the reason, Kueue's field error (the claim's index counts the pod's template claims: a pod that
    names a claim directly is one Kueue v0.17.0 holds back before this), else ""."""
    out = []
    for i, ps in enumerate(pod_sets):
        extra: dict[str, int] = {}
        for j, name in enumerate(ps.claim_templates):
            t = templates.get(f"{namespace}/{name}")
            if t is None:
                continue
            claim = f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"
            if t.unsupported:
                return pod_sets, f"{claim}.{t.unsupported_at}: {t.unsupported_value}: ResourceClaimTemplate {name}: {t.unsupported}"
            for cls, n in t.devices.items():
                if cls not in mapping:
                    return pod_sets, (f'{claim}.resourceClaimTemplateName: Not found: "DeviceClass {cls} is not '
                                      f'mapped in DRA configuration for podset {ps.name}"')
                extra[mapping[cls]] = extra.get(mapping[cls], 0) + n * MILLI
        if extra:
            reqs = dict(ps.requests)
            for res, q in extra.items():
                reqs[res] = reqs.get(res, 0) + q
            ps = ps.model_copy(update={"requests": dict(sorted(reqs.items())), "pod_requests": ps.placed_requests})
        out.append(ps)
    return tuple(out), ""



def extended_classes(model: Model) -> dict[str, list[str]]:
    """Under Kueue's DRAExtendedResources gate (with DynamicResourceAllocation, without which Kueue's
    workload controller does no DRA processing: NeedsDRAReconcile): extended resource -> the names of
    the DeviceClasses naming it (`spec.extendedResourceName`, in name order as the index lists them)."""
    cfg = model.config
    gated = enabled(cfg, "DynamicResourceAllocation") and enabled(cfg, "DRAExtendedResources")
    if not (model.device_classes and gated):
        return {}
    out: dict[str, list[str]] = {}
    for dc in sorted(model.device_classes, key=lambda d: d.name):
        if dc.extended_resource_name:
            out.setdefault(dc.extended_resource_name, []).append(dc.name)
    return out


def _with_extended(wl: Workload, pod_sets: tuple[PodSet, ...], by_name: dict[str, list[str]],
                   mapping: dict[str, str], model: Model) -> tuple[tuple[PodSet, ...], str]:
    """The workload controller's DRA extended resources path (workload_controller.go, then
    totalRequestsFromPodSets): each pod set's replaced extended resources dropped from its requests (after
    the `resources` configuration) and the quota they resolve to (modeldra.extended_quota) added; a
    quantity that is not whole makes the workload inadmissible (the reason, Kueue's field errors), else ""."""
    ranges = [lr for lr in model.limit_ranges if lr.namespace == wl.namespace]
    classes = {rc.name: rc for rc in reversed(model.runtime_classes)}
    out, errors = [], []
    for i, ps in enumerate(pod_sets):
        if ps.resources is None:
            out.append(ps)
            continue
        pod = adjust(ps.resources, ranges, classes)
        quota, replaced, errs = extended_quota(pod, f"spec.podSets[{i}].template.spec", by_name, mapping)
        errors += errs
        if replaced or quota:
            reqs = {r: q for r, q in ps.requests.items() if r not in replaced}
            for r, q in quota.items():
                reqs[r] = reqs.get(r, 0) + q
            ps = ps.model_copy(update={"requests": dict(sorted(reqs.items())), "pod_requests": ps.placed_requests})
        out.append(ps)
    return (pod_sets, aggregate(errors)) if errors else (tuple(out), "")
