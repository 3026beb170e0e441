"""Kueue's vocabulary for why a workload waits: per pod set and flavor, with Kueue's numbers."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.diagnostics import register
from kadmit.engine.compile.problem import selector_conflicts, tas_only, topology_mismatch, untolerated_taints
from kadmit.engine.quota import Usage, node_id
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.model import Workload
from kadmit.quantity import format_quantity

KAD501 = register("KAD501", "workload not admitted", "error",
                  "The workload can't be admitted; the reasons, blame and fixes follow.")
KAD502 = register("KAD502", "workload admitted", "note", "The workload is admitted; why this queue and flavor.")
KAD503 = register("KAD503", "solver gave no answer", "error",
                  "The solver could not decide within its limits (`unknown`); raise --rlimit or --timeout.")
KAD510 = register("KAD510", "insufficient unused quota", "error",
                  "The flavor has the quota, but admitted workloads use it: Kueue's `insufficient unused quota`.")
KAD511 = register("KAD511", "request above maximum capacity", "error",
                  "Even with nothing admitted the request exceeds what the queue could ever get in this "
                  "flavor, borrowing included: Kueue's `request > maximum capacity`.")
KAD512 = register("KAD512", "untolerated taint", "error",
                  "The flavor's nodes carry a NoSchedule/NoExecute taint the pod set doesn't tolerate.")
KAD513 = register("KAD513", "flavor doesn't match node selector or affinity", "error",
                  "The pod set's node selector or required node affinity excludes the flavor's node labels.")
KAD514 = register("KAD514", "resource unavailable in cluster queue", "error",
                  "The pod set requests a resource that no resource group of the cluster queue covers.")
KAD515 = register("KAD515", "namespace not selected", "error",
                  "The workload's namespace doesn't match the cluster queue's namespace selector.")
KAD516 = register("KAD516", "local queue missing", "error", "The workload's LocalQueue doesn't exist.")
KAD517 = register("KAD517", "cluster queue missing", "error", "The LocalQueue's ClusterQueue doesn't exist.")
KAD518 = register("KAD518", "queue stopped or inactive", "error",
                  "The cluster queue or local queue is stopped (its stopPolicy holds new admissions), "
                  "or the cluster queue is inactive (a missing flavor, a cohort cycle).")
KAD519 = register("KAD519", "waiting behind (StrictFIFO)", "error",
                  "A StrictFIFO queue's head can't be admitted, and every workload behind it waits.")
KAD520 = register("KAD520", "rule forbids", "error", "A `require` or `forbid` rule excludes every assignment.")
KAD521 = register("KAD521", "workload inactive", "error", "The workload's spec.active is false.")
KAD522 = register("KAD522", "flavor skipped", "note",
                  "An earlier flavor in the resource group was skipped; why.")
KAD523 = register("KAD523", "not admitted in this run", "error",
                  "The workload fits on its own, but the workloads admitted before it in Kueue's order "
                  "took what it needed, or flavors were assigned greedily pod set by pod set.")
KAD530 = register("KAD530", "topology doesn't fit", "error",
                  "Quota admits the pod set, but topology-aware scheduling finds no placement on the flavor's "
                  "nodes within its topology request: Kueue's `topology \"T\" allows to fit only F out of N pod(s)`.")
KAD531 = register("KAD531", "preempted", "error",
                  "The workload was admitted, and another workload preempted it under one of its cluster "
                  "queue's preemption policies (Kueue's `Preempted` condition).")
KAD532 = register("KAD532", "pending preemption", "error",
                  "The workload needs preemption and Kueue chose victims; it is admitted once they are gone.")
KAD534 = register("KAD534", "optimal mode differs", "note",
                  "`why --mode optimal`: where the optimal assignment (CP-SAT) decides this workload "
                  "differently from Kueue's order — admitted or not, and which victims.")
KAD533 = register("KAD533", "no preemption possible", "error",
                  "The workload's flavor needs preemption, but no admitted workload may be preempted for it "
                  "(or evicting every candidate would not make it fit).")


@dataclass(frozen=True)
class Reason:
    code: str
    message: str
    pod_set: str | None = None
    flavor: str | None = None

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


def gate_reasons(session: Session, wl: Workload) -> list[Reason]:
    """Reasons that don't depend on flavors: inactive, missing queues, stop policy, namespace."""
    ix = session.index
    out: list[Reason] = []
    if not wl.active:
        out.append(Reason(KAD521, "the workload is inactive (spec.active is false)"))
    lq = ix.local_queues.get(f"{wl.namespace}/{wl.queue}")
    if lq is None:
        out.append(Reason(KAD516, f"LocalQueue {wl.queue} doesn't exist"))
        return out
    if lq.stop_policy != "None":
        out.append(Reason(KAD518, f"LocalQueue {wl.queue} is stopped (stopPolicy {lq.stop_policy})"))
    cq = ix.cluster_queues.get(lq.cluster_queue)
    if cq is None:
        out.append(Reason(KAD517, f"ClusterQueue {lq.cluster_queue} doesn't exist"))
        return out
    if cq.stop_policy != "None":
        out.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive (stopPolicy {cq.stop_policy})"))
    missing = session.compiler.missing_flavors(cq)
    if missing:
        out.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: references missing ResourceFlavor(s): "
                          + ", ".join(missing)))
    if cq.cohort and cq.cohort in session.compiler.tree.cycles:
        out.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive: cohort {cq.cohort} is in a cycle of parents"))
    sel = cq.namespace_selector
    if sel is None or not sel.matches(ix.namespace_labels(wl.namespace)):
        out.append(Reason(KAD515, "Workload namespace doesn't match ClusterQueue selector"))
    return out


def taint_text(t) -> str:
    """A taint as Kueue prints it (Go's `%v` of a corev1.Taint)."""
    return f"{{{t.key} {t.value} {t.effect} <nil>}}"


def flavor_reasons(session: Session, wl: Workload, usage: Usage | None = None,
                   stop_at: dict[str, dict[str, str]] | None = None) -> list[Reason]:
    """Why flavors don't fit, in Kueue's words and order: pod sets in order at full counts, each
    seeing what the earlier ones took; resources by name, the first of a resource group choosing
    the group's flavor; every flavor tried gets its reasons. Like Kueue, the first pod set that
    can't be assigned ends the search.

    With `stop_at` (pod set -> resource -> chosen flavor), only the flavors tried before the
    chosen one are explained (why an admitted workload didn't get an earlier flavor)."""
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
    for ps in wl.pod_sets:
        requests = {r: q * ps.count for r, q in session.compiler.requests(ps, covered).items()}
        done: set[str] = set()
        failed = False
        for res in sorted(requests):
            if res in done:
                continue
            gi = covered.get(res)
            if gi is None:
                if requests[res] == 0:
                    continue
                out.append(Reason(KAD514, f"couldn't assign flavors to pod set {ps.name}: resource {res} "
                                  "unavailable in ClusterQueue", ps.name))
                failed = True
                break
            group = [r for r in sorted(requests) if covered.get(r) == gi]
            done.update(group)
            chosen_now = (stop_at or {}).get(ps.name, {}).get(res)
            picked, reasons = None, []
            for fq in cq.resource_groups[gi].flavors:
                fname = fq.flavor
                if chosen_now is not None and fname == chosen_now:
                    picked = fname
                    break
                why = _mismatch(session, ps, fname, wl)
                if why is not None:
                    reasons.append(why)
                    continue
                fits = True
                for r in group:
                    fr = (fname, r)
                    before = assumed.get(fr, 0)
                    val = before + requests[r]
                    cap = tree.available(cq_nid, fr, None) if tree.entry(cq_nid, fr).declared else 0
                    if val > cap:
                        reasons.append((KAD511, f"insufficient quota for {r} in flavor {fname}, previously "
                                        f"considered podsets requests ({format_quantity(before, r)}) + current "
                                        f"podset request ({format_quantity(requests[r], r)}) > maximum capacity "
                                        f"({format_quantity(max(cap, 0), r)})"))
                        fits = False
                        continue
                    avail = max(0, tree.available(cq_nid, fr, usage))
                    if val > avail:
                        reasons.append((KAD510, f"insufficient unused quota for {r} in flavor {fname}, "
                                        f"{format_quantity(val - avail, r)} more needed"))
                        fits = False
                if fits and chosen_now is None:
                    picked = fname
                    break
            code_override = KAD522 if chosen_now is not None else None
            for code, m in sorted(reasons, key=lambda cm: cm[1]):
                out.append(Reason(code_override or code, f"couldn't assign flavors to pod set {ps.name}: {m}",
                                  ps.name))
            if picked is None:
                failed = True
                break
            for r in group:
                assumed[(picked, r)] = assumed.get((picked, r), 0) + requests[r]
        if failed:
            break
    return out


def _mismatch(session: Session, ps, fname: str, wl: Workload | None = None) -> tuple[str, str] | None:
    """Why a flavor can't serve the pod set whatever the quota (Kueue's first reason), or None."""
    fl = session.index.flavors.get(fname)
    if fl is None:
        return (KAD517, f"flavor {fname} not found")
    cq = session.index.cluster_queue_of(wl) if wl is not None else None
    topo = topology_mismatch(ps, fl, session.index, cq is not None and tas_only(cq, session.index))
    if topo is not None:
        return (KAD513, topo)
    taints = untolerated_taints(ps, fl)
    if taints:
        return (KAD512, f"untolerated taint {taint_text(taints[0])} in flavor {fname}")
    if selector_conflicts(ps, fl):
        return (KAD513, f"flavor {fname} doesn't match node affinity")
    return None


def placement_reasons(session: Session, wl: Workload) -> list[Reason]:
    """The topology-aware placement failure of the workload's last try at full counts, in Kueue's words."""
    f = session.placement_failures.get(wl.key)
    if f is None:
        return []
    return [Reason(KAD530, f"couldn't assign flavors to pod set {f.pod_set}: {f.message}", f.pod_set,
                   f.request.flavor)]


def preemption_path(session: Session, cq: str) -> str:
    """Kueue's queue path in preemption messages: `/root-cohort/…/cohort/cq`."""
    cohort = session.index.cluster_queues[cq].cohort if cq in session.index.cluster_queues else None
    return "/" + "/".join(list(reversed(session.index.cohort_path(cohort) if cohort else [])) + [cq])


def preempted_reason(session: Session, victim_cq: str, by: str, reason: str) -> Reason:
    """Kueue's Preempted condition message for a victim, prefixed with the preemptor's name."""
    from kadmit.engine.preemption.candidates import HUMAN_REASONS
    preemptor = session.index.workloads.get(by)
    pcq = session.index.cluster_queue_of(preemptor) if preemptor is not None else None
    uid = preemptor.uid if preemptor is not None and preemptor.uid else "UNKNOWN"
    job_uid = preemptor.job_uid if preemptor is not None and preemptor.job_uid else "UNKNOWN"
    text = (f"preempted by {by}: Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{HUMAN_REASONS.get(reason, 'UNKNOWN')}; preemptor path: "
            f"{preemption_path(session, pcq.name) if pcq is not None else 'UNKNOWN'}; "
            f"preemptee path: {preemption_path(session, victim_cq)}")
    return Reason(KAD531, text)


def no_preemption_reasons(session: Session, wl: Workload) -> list[Reason]:
    """When the workload's flavors need preemption at the run's final state but Kueue finds no
    victims: what the preemption policies let it evict, against what it needs, per flavor-resource
    (e.g. "needs 24 more nvidia.com/gpu in flavor h100; evicting every candidate frees 16")."""
    from kadmit.engine.preemption.candidates import Preemptor, candidates_of, satisfies_policy
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
    root = tree.root(node_id(cq.name, False))
    p = Preemptor(wl.key, cq.name, session.index.priority(wl), wl.created, dict(got.usage), got.needs)
    pol = cq.preemption
    out = []
    for fr in sorted(got.needs):
        flavor, res = fr
        need = got.usage[fr] - max(0, tree.available(node_id(cq.name, False), fr, session.usage))
        eligible = []
        for c in candidates_of(session):
            if c.amounts.get(fr, 0) <= 0 or c.key == wl.key:
                continue
            same = c.cluster_queue == cq.name
            if same and satisfies_policy(pol.within_cluster_queue, p, c):
                eligible.append(c)
            elif not same and tree.root(node_id(c.cluster_queue, False)) == root and cq.cohort \
                    and satisfies_policy(pol.reclaim_within_cohort, p, c):
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
