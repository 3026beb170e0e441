"""`simulate --mode optimal`: at each instant, the engine's optimal decisions on the state as it stands.

The state at the instant (running workloads with their admissions, arrived pending workloads, the
nodes) becomes a model, `engine.decide.admit(…, "optimal")` decides it (CP-SAT, its time budget per
instant), and its admissions and evictions are applied to the replay. Every instant with a change is
decided whole (no incremental reuse), so this mode suits small replays; pods that kube-scheduler
bound outside admission are not part of the model it sees.
"""

from __future__ import annotations

from kadmit.engine.decide import admit
from kadmit.model import Admission, PodSetAssignment


def decide_optimal(sim, t: int, time_budget: float = 5.0) -> None:
    pending = [k for keys in sim.queues.pending.values() for k in keys]
    if not pending:
        return
    wls = []
    for key in sorted(sim.running):
        wl = sim.ix.workloads[key]
        rec = sim.records[key]
        sets = tuple(PodSetAssignment(name=p.name, flavors=dict(p.flavor_map), count=p.count,
                                      placement=dict(p.placement) if p.tas else {}) for p in rec.pod_sets)
        wls.append(wl.model_copy(update={"admission": Admission(cluster_queue=rec.cluster_queue, pod_sets=sets),
                                         "evicted": False}))
    wls += [sim.ix.workloads[k] for k in sorted(pending)]
    nodes = tuple(n.node for n in sim.kube.nodes if n.node is not None)
    snapshot = sim.model.model_copy(update={"workloads": tuple(wls), "nodes": nodes, "pods": sim.model.pods})
    result = admit(snapshot, "optimal", sim.opt.limits, time_budget=time_budget, tas_profile=sim.opt.tas_profile)
    sim.rounds += 1
    if result.unknown:  # no assignment within the budget: what it left pending is undecided
        sim.undecided.update(d.key for d in result.decisions if not d.admitted)
    for d in result.decisions:
        if not d.admitted and d.preempted_by and d.key in sim.running:
            sim.session.finish(d.key)
            sim._evicted(d.key, t)
    for d in result.decisions:
        if d.admitted and d.assignment is not None and d.key not in sim.running:
            wl = sim.ix.workloads[d.key]
            sim.session.commit(wl, d.assignment)
            sim._admitted(wl, d.assignment, t)
        elif not d.admitted and d.key in sim.records:
            reasons = result.reasons.get(d.key, [])
            sim.records[d.key].reasons = [(r.code, r.message) for r in reasons]
            sim.records[d.key].reason = "; ".join(f"{r.code}: {r.message}" for r in reasons) or None
