"""Kueue's vocabulary for why a workload waits: per pod set and flavor, with Kueue's numbers."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.diagnostics import register
from kadmit.engine.compile import selector_conflicts, untolerated_taints
from kadmit.engine.quota import Usage, node_id
from kadmit.engine.session import Session
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
KAD518 = register("KAD518", "cluster queue stopped", "error",
                  "The cluster queue's stopPolicy holds new admissions.")
KAD519 = register("KAD519", "waiting behind (StrictFIFO)", "error",
                  "A StrictFIFO queue's head can't be admitted, and every workload behind it waits.")
KAD520 = register("KAD520", "rule forbids", "error", "A `require` or `forbid` rule excludes every assignment.")
KAD521 = register("KAD521", "workload inactive", "error", "The workload's spec.active is false.")
KAD522 = register("KAD522", "flavor skipped", "note",
                  "An earlier flavor in the resource group was skipped; why.")
KAD523 = register("KAD523", "not admitted in this run", "error",
                  "The workload fits on its own, but the workloads admitted before it in Kueue's order "
                  "took what it needed, or flavors were assigned greedily pod set by pod set.")


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
    cq = ix.cluster_queues.get(lq.cluster_queue)
    if cq is None:
        out.append(Reason(KAD517, f"ClusterQueue {lq.cluster_queue} doesn't exist"))
        return out
    if cq.stop_policy != "None":
        out.append(Reason(KAD518, f"ClusterQueue {cq.name} is inactive (stopPolicy {cq.stop_policy})"))
    sel = cq.namespace_selector
    if sel is None or not sel.matches(ix.namespace_labels(wl.namespace)):
        out.append(Reason(KAD515, "Workload namespace doesn't match ClusterQueue selector"))
    return out


def flavor_reasons(session: Session, wl: Workload, usage: Usage | None = None,
                   stop_at: dict[str, dict[str, str]] | None = None) -> list[Reason]:
    """Per pod set, per flavor considered in order, why it doesn't fit (Kueue's messages).

    With `stop_at` (pod set -> resource -> chosen flavor), only the flavors tried before the chosen
    one are explained. Pod sets are taken at full count, each seeing the earlier ones' needs."""
    ix = session.index
    cq = ix.cluster_queue_of(wl)
    if cq is None:
        return []
    usage = usage or session.usage
    tree = session.compiler.tree
    cq_nid = node_id(cq.name, False)
    covered = {r: gi for gi, g in enumerate(cq.resource_groups) for r in g.covered_resources}
    out: list[Reason] = []
    earlier: dict[tuple[str, str], int] = {}
    for ps in wl.pod_sets:
        per_group: dict[int, list[str]] = {}
        for res in sorted(r for r, q in ps.requests.items() if q > 0):
            if res not in covered:
                out.append(Reason(KAD514, f"couldn't assign flavors to pod set {ps.name}: resource {res} "
                                  f"unavailable in ClusterQueue", ps.name))
                continue
            per_group.setdefault(covered[res], []).append(res)
        for gi in sorted(per_group):
            chosen = (stop_at or {}).get(ps.name, {}).get(per_group[gi][0])
            for fq in cq.resource_groups[gi].flavors:
                fname = fq.flavor
                if chosen is not None and fname == chosen:
                    break
                fl = ix.flavors.get(fname)
                msgs: list[tuple[str, str]] = []
                if fl is None:
                    msgs.append((KAD517, f"flavor {fname} not found"))
                else:
                    for t in untolerated_taints(ps, fl):
                        msgs.append((KAD512, f"untolerated taint {{{t.key}: {t.value}, effect: {t.effect}}} in flavor {fname}"
                                     if t.value else f"untolerated taint {{{t.key}, effect: {t.effect}}} in flavor {fname}"))
                    for c in selector_conflicts(ps, fl):
                        msgs.append((KAD513, f"flavor {fname} doesn't match node affinity ({c})"))
                if not msgs:
                    for res in per_group[gi]:
                        fr = (fname, res)
                        need = ps.requests[res] * ps.count + earlier.get(fr, 0)
                        entry = tree.entry(cq_nid, fr)
                        if not entry.declared:
                            msgs.append((KAD514, f"resource {res} unavailable in ClusterQueue for flavor {fname}"))
                            continue
                        cap = tree.available(cq_nid, fr, None)
                        if need > cap:
                            msgs.append((KAD511, f"insufficient quota for {res} in flavor {fname}, request "
                                         f"({format_quantity(need, res)}) > maximum capacity "
                                         f"({format_quantity(max(cap, 0), res)})"))
                            continue
                        avail = tree.available(cq_nid, fr, usage)
                        if need > avail:
                            msgs.append((KAD510, f"insufficient unused quota for {res} in flavor {fname}, "
                                         f"{format_quantity(need - max(avail, 0), res)} more needed"))
                for code, m in msgs:
                    out.append(Reason(code if chosen is None else KAD522,
                                      f"couldn't assign flavors to pod set {ps.name}: {m}", ps.name, fname))
            for res in per_group[gi]:
                pick = (stop_at or {}).get(ps.name, {}).get(res)
                if pick:
                    earlier[(pick, res)] = earlier.get((pick, res), 0) + ps.requests[res] * ps.count
    return out
