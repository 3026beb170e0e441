"""A greedy first-fit start point for `optimal` mode, beside the ordered (BestFit) run's.

Pending workloads in Kueue's order (priority, then creation, then key), each admitted when its pod
sets fit first fit (`packing.first_fit`), it keeps its own rules and (see `greedy_hint`) the quota
invariants hold for everything admitted so far; flavors are tried in the queue's order, the same
position in every resource group.
It is a plain, fast packing that often admits more than BestFit on gang-heavy clusters: the solver
starts from the better of the two, so its answer is never worse than either by the objective.
"""

from __future__ import annotations

from kadmit.engine.optimal.model import GlobalModel, empty_hint, satisfies, set_pools
from kadmit.engine.optimal.packing import first_fit
from kadmit.engine.optimal.placement import Option, PlacementModel
from kadmit.engine.solver import terms as T

CHECKED_MAX = 1000  # workloads up to which quota is checked per workload when it binds

Placements = dict[tuple[str, str, str], dict[str, int]]  # (workload, pod set, flavor) -> node -> pods


def greedy_hint(gm: GlobalModel, pm: PlacementModel) -> dict[str, int] | None:
    """A full assignment admitting what fits first fit in Kueue's order that satisfies every hard
    constraint, or None. Quota is checked once at the end when it allows everything placed (checking
    it per workload costs time in proportion to all workloads each time); when it doesn't, per
    workload up to `CHECKED_MAX` workloads, and beyond that there is no greedy start point."""
    env, _ = first_fit_all(gm, pm, False)
    if satisfies(gm.hard, env):
        return env
    if len(gm.problems) > CHECKED_MAX:
        return None
    env, _ = first_fit_all(gm, pm, True)
    return env if satisfies(gm.hard, env) else None


def first_fit_all(gm: GlobalModel, pm: PlacementModel, quota: bool) -> tuple[dict[str, int], Placements]:
    """An assignment admitting what fits first fit in Kueue's order (keeping each workload's own
    rules, and with `quota` the quota invariants so far), and its placements."""
    env = empty_hint(gm)
    placements: Placements = {}
    free = dict(pm.leaf_free)  # per leaf: a node, the nodes sharing a hostname, or a rack
    options: dict[tuple[str, str, str], Option] = {(o.key, o.request.pod_set, o.request.flavor): o
                                                    for o in pm.options}
    seen: dict = {}  # first_fit's cache of node fits
    order = sorted(gm.problems, key=lambda p: (-gm.priority[p.workload.key], p.workload.created, p.workload.key))
    for prob in order:
        key = prob.workload.key
        widest = max((len(ch) for pv in prob.pod_sets for ch in pv.flavors.values()), default=1)
        for rank in range(widest):
            trial = dict(env)
            trial_free = dict(free)
            placed: Placements = {}
            trial[prob.admitted.name] = 1
            ok = True
            for pv in prob.pod_sets:
                ps = pv.pod_set
                trial[pv.count.name] = ps.count  # type: ignore[attr-defined]
                for gi in sorted(pv.flavors):
                    choices = pv.flavors[gi]
                    fname, _ = choices[min(rank, len(choices) - 1)]
                    for f, v in choices:
                        trial[v.name] = int(f == fname)
                    opt = options.get((key, ps.name, fname))
                    if opt is None or (key, ps.name, fname) in placed:
                        continue
                    got = first_fit(pm, opt, ps.count, trial_free, seen)
                    if got is None:
                        ok = False
                        break
                    placed[(key, ps.name, fname)] = got
                if not ok:
                    break
            if not ok:
                continue
            for nf, v, n in gm.splits:
                trial[nf.name] = trial[n.name] if trial[v.name] else 0
            set_pools(gm, trial)
            if satisfies(gm.own[key], trial) and (not quota or satisfies(gm.shared, trial)):
                env, free = trial, trial_free
                placements.update(placed)
                break
    pm.hint(env, placements)
    return env, placements


def better(stages, a: dict[str, int], b: dict[str, int]) -> bool:
    """Whether start point `a` is strictly better than `b` by the staged objective."""
    for st in stages:
        va, vb = int(T.evaluate(st.term, a)), int(T.evaluate(st.term, b))
        if va != vb:
            return va > vb if st.sense == "max" else va < vb
    return False
