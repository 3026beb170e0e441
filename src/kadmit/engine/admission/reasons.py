"""Kueue's vocabulary for why a workload waits: per pod set and flavor, with Kueue's numbers."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.engine.admission.codes import (  # noqa: F401 (importable from here)
    KAD501, KAD502, KAD503, KAD504, KAD510, KAD511, KAD512, KAD513, KAD514, KAD515, KAD516, KAD517, KAD518,
    KAD519, KAD520, KAD521, KAD522, KAD523, KAD528, KAD530, KAD531, KAD532, KAD533, KAD534)
from kadmit.engine.compile.problem import (flavor_error, group_label_keys, selector_conflicts, tas_only,
                                           topology_mismatch, untolerated_taints)
from kadmit.engine.quota import Usage, node_id
from kadmit.engine.admission import slices
from kadmit.engine.admission.flavor_assignment import pod_set_units
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.effective import DEACTIVATED, FAILED_CHECKS, failed_checks
from kadmit.model import Workload
from kadmit.placement.slices import refused_topology
from kadmit.podresources import INVALID_RESOURCES, OUTSIDE_LIMIT_RANGES
from kadmit.quantity import format_quantity


@dataclass(frozen=True)
class Reason:
    code: str
    message: str
    pod_set: str | None = None
    flavor: str | None = None

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


def gate_reasons(session: Session, wl: Workload) -> list[Reason]:
    """Reasons that don't depend on flavors: inactive, missing queues, stop policy, namespace; Kueue's message
    first. Kueue writes one: its workload controller's for a missing or stopped LocalQueue, a missing or inactive
    ClusterQueue, in that order (workload_controller.go: a deactivated workload too, once evicted), else "The
    workload is deactivated", else its scheduler's nominate's: failed admission checks, then the namespace, then
    the resources' and the LimitRange's validation (scheduler.go `nominate`). kadmit's others follow."""
    ix = session.index
    own: list[Reason] = []
    deactivated = wl.inadmissible.startswith(DEACTIVATED)  # by Kueue, for a rejected check: that is why
    if not wl.active and not deactivated:
        own.append(Reason(KAD521, "The workload is deactivated (spec.active is false)"))
    if wl.inadmissible:
        own.append(Reason(KAD521, wl.inadmissible))
    lq = ix.local_queues.get(f"{wl.namespace}/{wl.queue}")
    if lq is None:
        return [Reason(KAD516, f"LocalQueue {wl.queue} doesn't exist")] + own
    queue: list[Reason] = []
    if lq.stop_policy != "None":
        queue.append(Reason(KAD518, f"LocalQueue {wl.queue} is inactive (stopPolicy {lq.stop_policy})"))
    cq = ix.cluster_queues.get(lq.cluster_queue)
    if cq is None:
        return queue + [Reason(KAD517, f"ClusterQueue {lq.cluster_queue} doesn't exist")] + own
    if cq.stop_policy != "None":
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive (stopPolicy {cq.stop_policy})"))
    if cq.terminating:
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: it is terminating (being deleted)"))
    missing = session.compiler.missing_flavors(cq)
    if missing:
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: references missing ResourceFlavor(s): "
                            + ", ".join(missing)))
    for fname, topo in session.compiler.missing_topologies(cq):
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: there is no Topology \"{topo}\" for TAS "
                            f"flavor \"{fname}\""))
    if cq.cohort and cq.cohort in session.compiler.tree.cycles:
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: cohort {cq.cohort} is in a cycle of parents"))
    for problem in ix.check_problems(cq):
        queue.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: {problem}"))
    if wl.inadmissible.startswith((INVALID_RESOURCES, OUTSIDE_LIMIT_RANGES)) and failed_checks(wl, cq):
        own.insert(len(own) - 1, Reason(KAD521, FAILED_CHECKS))  # nominate checks them first
    sel = cq.namespace_selector
    if sel is None or not sel.matches(ix.namespace_labels(wl.namespace)):
        # the scheduler checks the namespace after failed admission checks, before the resources' validation
        at = next((i for i, r in enumerate(own) if r.message != FAILED_CHECKS and not r.message.startswith(
            "The workload is deactivated")), len(own))
        own.insert(at, Reason(KAD515, "Workload namespace doesn't match ClusterQueue selector"))
    return queue + own


def taint_text(t) -> str:
    """A taint as Kueue prints it (Go's `%v` of a corev1.Taint)."""
    return f"{{{t.key} {t.value} {t.effect} <nil>}}"


def flavor_reasons(session: Session, wl: Workload, usage: Usage | None = None,
                   stop_at: dict[str, dict[str, str]] | None = None,
                   start: dict[str, dict[int, int]] | None = None) -> list[Reason]:
    """Why flavors don't fit, in Kueue's words and order (flavorassigner.go `assignFlavors`,
    `findFlavorForPodSets`): pod sets in order at full counts, each seeing what the earlier ones took;
    resources by name (Kueue ranges over a map: by name is one of its orders), the first of a resource
    group choosing the group's flavor. A flavor's check stops at its first resource over the maximum
    capacity. A group with a flavor that fits says nothing; one whose flavors only fit by preempting
    gives every flavor's reasons and takes the first such flavor's usage, and the pod set goes on (its
    next pod sets are searched too); one whose flavors all fail (over capacity, taint, affinity) gives
    its own reasons only, replacing the pod set's others, and ends the search. A pod set's reasons are
    sorted, as Kueue's Status.Message sorts them.

    With `stop_at` (pod set -> resource -> chosen flavor), only the flavors tried before the
    chosen one are explained (why an admitted workload didn't get an earlier flavor). With `start`
    (pod set -> resource group -> flavor index, Kueue's NextFlavorToTryForPodSetResource), each search
    starts there, as the nomination whose message it is did (`Session.tried_from`)."""
    ix = session.index
    cq = ix.cluster_queue_of(wl)
    if cq is None:
        return []
    usage = usage or session.usage
    tree = session.compiler.tree
    cq_nid = node_id(cq.name, False)
    covered = {r: gi for gi, g in reversed(list(enumerate(cq.resource_groups))) for r in g.covered_resources}
    out: list[Reason] = []
    assumed: dict[tuple[str, str], int] = {}
    pins, old = slices.pins(session, wl), slices.old_requests(session, wl)  # a replacement slice's old slice's
    for unit in pod_set_units(wl, [ps.name for ps in wl.pod_sets]):
        # one pod set, or the pod sets of one group (podSetGroupName): Kueue searches a flavor for their summed
        # requests and gives each of them the group's status (assignFlavors, groupedRequests.InOrder)
        members = [wl.pod_sets[i] for i in unit]
        ps = members[0]  # the group's first pod set: its last try and its chosen flavors (`start`, `stop_at`)
        requests: dict[str, int] = {}
        for m in members:
            for r, q in session.compiler.requests(m, covered).items():
                requests[r] = requests.get(r, 0) + q * m.count
        # a replacement slice asks, and adds to what later pod sets see, only its request beyond the old slice's
        # (findFlavorForPodSets' val, Assignment.append)
        beyond = {r: q - sum(old.get(m.name, {}).get(r, 0) for m in members) for r, q in requests.items()} if old else {}
        done: set[str] = set()
        said: list[tuple[str, str]] = []  # the pod set's reasons: (code, Kueue's words)
        failed = False
        for res in sorted(requests):
            if res in done:
                continue
            gi = covered.get(res)
            if gi is None:
                if requests[res] == 0:
                    continue
                said, failed = [(KAD514, f"resource {res} unavailable in ClusterQueue")], True
                break
            group = [r for r in sorted(requests) if covered.get(r) == gi]
            done.update(group)
            chosen_now = (stop_at or {}).get(ps.name, {}).get(res)
            picked, preempting, reasons = None, None, []
            keys = group_label_keys(session.index, cq.resource_groups[gi])
            for fq in cq.resource_groups[gi].flavors[(start or {}).get(ps.name, {}).get(gi, 0):]:
                fname = fq.flavor
                if chosen_now is not None and fname == chosen_now:
                    picked = fname
                    break
                err = flavor_error(members, ix.flavors.get(fname), keys, ix, tas_only(cq, ix),
                                   cq.resource_groups[gi].covered_resources)
                if err is not None:  # Kueue's message is this error alone (Assignment.Message)
                    return [Reason(KAD513, f"failed to assign flavors to pod set {ps.name}: {err}", ps.name, fname)]
                why = next((w for m in members if (w := _mismatch(session, m, fname, keys, wl,
                                                                   cq.resource_groups[gi].covered_resources))), None)
                if why is not None:
                    reasons.append(why)
                    continue
                if pins is not None and (why := slices.mismatch(pins, [m.name for m in members], group, fname)):
                    reasons.append((KAD528, why))
                    continue
                mode = "fit"
                for r in group:
                    fr = (fname, r)
                    before, own = assumed.get(fr, 0), beyond.get(r, requests[r])
                    val = before + own
                    cap = tree.available(cq_nid, fr, None) if tree.entry(cq_nid, fr).declared else 0
                    if val > cap:
                        reasons.append((KAD511, f"insufficient quota for {r} in flavor {fname}, previously "
                                        f"considered podsets requests ({format_quantity(before, r)}) + current "
                                        f"podset request ({format_quantity(own, r)}) > maximum capacity "
                                        f"({format_quantity(max(cap, 0), r)})"))
                        mode = "no fit"
                        break  # Kueue checks none of the flavor's other resources
                    avail = max(0, tree.available(cq_nid, fr, usage))
                    if val > avail:
                        reasons.append((KAD510, f"insufficient unused quota for {r} in flavor {fname}, "
                                        f"{format_quantity(val - avail, r)} more needed"))
                        mode = "preempt"
                if mode == "preempt" and preempting is None:
                    preempting = fname
                if mode == "fit" and chosen_now is None:
                    picked = fname
                    break
            if chosen_now is not None:  # an admitted workload: the flavors it didn't get, and why
                said += [(KAD522, m) for _, m in reasons]
            elif picked is None and preempting is None:  # no flavor: the pod set's message is this group's
                said, failed = reasons, True
                break
            elif picked is None:  # only by preempting: Kueue goes on with the flavor
                said += reasons
            taken = picked or preempting
            for r in group if taken is not None else ():
                assumed[(taken, r)] = assumed.get((taken, r), 0) + beyond.get(r, requests[r])
        out += [Reason(code, f"couldn't assign flavors to pod set {m.name}: {text}", m.name)
                for m in members for code, text in sorted(said, key=lambda cm: cm[1])]
        if failed:
            return out
    # past the flavor search Kueue's topology requests err on a required or preferred topology with
    # ElasticJobsViaWorkloadSlicesWithTAS on, and the first such error is its whole message (Assignment.Message)
    refused = next(((ps, err) for ps in wl.pod_sets if stop_at is None and session._tas
                    and (err := refused_topology(session.pool.elastic, ps)) is not None), None)
    if refused is not None:
        return [Reason(KAD530, f"failed to assign flavors to pod set {refused[0].name}: {refused[1]}", refused[0].name)]
    return out


def _mismatch(session: Session, ps, fname: str, keys: frozenset[str], wl: Workload | None = None,
              covered: tuple[str, ...] | None = None) -> tuple[str, str] | None:
    """Why a flavor of the resource group covering `covered` (whose flavors' label keys are `keys`)
    can't serve the pod set whatever the quota (Kueue's first reason), or None."""
    fl = session.index.flavors.get(fname)
    if fl is None:
        return (KAD517, f"flavor {fname} not found")
    cq = session.index.cluster_queue_of(wl) if wl is not None else None
    topo = topology_mismatch(ps, fl, session.index, cq is not None and tas_only(cq, session.index), covered)
    if topo is not None:
        return (KAD513, topo)
    taints = untolerated_taints(ps, fl)
    if taints:
        return (KAD512, f"untolerated taint {taint_text(taints[0])} in flavor {fname}")
    if selector_conflicts(ps, fl, keys):
        return (KAD513, f"flavor {fname} doesn't match node affinity")
    return None


def placement_reasons(session: Session, wl: Workload) -> list[Reason]:
    """The topology-aware placement failure of the workload's last try at full counts, in Kueue's words."""
    f = session.placement_failures.get(wl.key)
    if f is None:
        return []
    return [Reason(KAD530, f"couldn't assign flavors to pod set {f.pod_set}: {f.message}{f.excluded}", f.pod_set,
                   f.request.flavor)]


def preemption_path(session: Session, cq: str) -> str:
    """Kueue's queue path in preemption messages: `/root-cohort/…/cohort/cq`."""
    cohort = session.index.cluster_queues[cq].cohort if cq in session.index.cluster_queues else None
    return "/" + "/".join(list(reversed(session.index.cohort_path(cohort) if cohort else [])) + [cq])


def preempted_reason(session: Session, victim_cq: str, by: str, reason: str) -> Reason:
    """Kueue's Preempted condition message for a victim, which its eviction writes to QuotaReserved=False
    too (jobframework's reconciler: UnsetQuotaReservationWithCondition), the preemptor's name after it."""
    from kadmit.engine.preemption.candidates import HUMAN_REASONS
    preemptor = session.index.workloads.get(by)
    pcq = session.index.cluster_queue_of(preemptor) if preemptor is not None else None
    uid = preemptor.uid if preemptor is not None and preemptor.uid else "UNKNOWN"
    job_uid = preemptor.job_uid if preemptor is not None and preemptor.job_uid else "UNKNOWN"
    text = (f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{HUMAN_REASONS.get(reason, 'UNKNOWN')}; preemptor path: "
            f"{preemption_path(session, pcq.name) if pcq is not None else 'UNKNOWN'}; "
            f"preemptee path: {preemption_path(session, victim_cq)} (preempted by {by})")
    return Reason(KAD531, text)


def no_preemption_reasons(session: Session, wl: Workload) -> list[Reason]:
    """When the workload's flavors need preemption at the run's final state but Kueue finds no
    victims: what the preemption policies let it evict, against what it needs, per flavor-resource
    (e.g. "needs 24 more nvidia.com/gpu in flavor h100; evicting every candidate frees 16")."""
    from kadmit.engine.preemption.candidates import Preemptor, buffer, candidates_by_queue, satisfies_policy
    saved = dict(session.placement_failures)
    try:
        got, _ = session.nominate(wl)
    except SolverUnknown:  # no answer within the limits: say nothing rather than guess
        return []
    finally:  # asking leaves the session as it was
        session.placement_failures.clear()
        session.placement_failures.update(saved)
    if got is None or got.mode != "Preempt" or got.targets:
        return []
    cq = session.index.cluster_queues[got.cluster_queue]
    tree = session.compiler.tree
    by_queue = candidates_by_queue(session)
    in_tree = [c for q in session.situations.cohort_tree(cq.name)[1] for c in by_queue.get(q, {}).values()]
    p = Preemptor(wl.key, cq.name, session.index.priority(wl), wl.created, dict(got.usage), got.needs,
                  buffer(session))
    pol = cq.preemption

    def borrowing(q: str) -> bool:  # Kueue visits only queues above their nominal quota for what it needs
        nid = node_id(q, False)
        return nid in tree.nodes and any(session.usage.get(q, fr) > tree.subtree(nid, fr) for fr in got.needs)
    out = []
    usage, old = slices.beyond(session, wl, got.usage), slices.gone(session, wl)  # a replacement slice's
    for fr in sorted(got.needs):
        flavor, res = fr
        need = usage[fr] - max(0, tree.available(node_id(cq.name, False), fr, session.usage))
        eligible = []
        for c in in_tree:
            if c.amounts.get(fr, 0) <= 0 or c.key == wl.key or c.key in old:
                continue
            same = c.cluster_queue == cq.name
            if same and satisfies_policy(pol.within_cluster_queue, p, c):
                eligible.append(c)
            elif not same and cq.cohort and borrowing(c.cluster_queue) and \
                    satisfies_policy(pol.reclaim_within_cohort, p, c):
                eligible.append(c)
        freed = sum(c.amounts.get(fr, 0) for c in eligible)
        policies = (f"withinClusterQueue {pol.within_cluster_queue}, reclaimWithinCohort "
                    f"{pol.reclaim_within_cohort}")
        if not eligible:
            text = (f"needs {format_quantity(need, res)} more {res} in flavor {flavor}, but ClusterQueue "
                    f"{cq.name}'s preemption policies ({policies}) allow evicting no admitted workload")
        else:
            text = (f"needs {format_quantity(need, res)} more {res} in flavor {flavor}; evicting every "
                    f"candidate its policies allow ({policies}: {len(eligible)} workload(s)) frees "
                    f"{format_quantity(freed, res)}, and Kueue finds no set that makes it fit")
        out.append(Reason(KAD533, text, flavor=flavor))
    return out
