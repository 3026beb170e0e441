"""The part of the cluster `why` decides for a workload (its cohort tree, and every tree sharing nodes
with it), and proving fixes on it: the rest of the cluster is decided only when a change reaches it."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Callable

from kadmit.collector import long_lived
from kadmit.engine.admission.checks import mark_checks
from kadmit.engine.admission.loops import PreemptionLoop
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.parts import split
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.explain.decision import WhyResult
from kadmit.engine.explain.digest import summarize
from kadmit.engine.explain.fixes import Inputs, Obstacles, obstacles_of, own_obstacles
from kadmit.engine.explain.met import met_starts
from kadmit.engine.explain.proposals import Ask, choose, proven_fixes
from kadmit.engine.explain.prove import Prover, Proving
from kadmit.engine.explain.replay import Baseline, Overlay, states
from kadmit.engine.quota import QuotaTree
from kadmit.engine.solver.z3backend import Limits
from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.placement.tas import Profile


@dataclass
class PartScope:
    """What `why` decides: the model of the part of the cluster that holds the workload
    (`engine.admission.parts`: its cohort tree, with every tree sharing nodes with it), and the rest
    of the cluster, decided only when proving a fix needs it (None: `model` is the whole cluster)."""

    model: Model
    rest: Model | None = None
    whole: Model | None = None

    def decide_rest(self, limits: Limits | None, tas_profile: Profile) -> dict[str, Decision]:
        """The rest's decisions; when a preemption loop shows there, the whole cluster's (a loop is
        caught, and the run stops, where the whole run's state repeats)."""
        assert self.rest is not None
        loops: list[PreemptionLoop] = []
        session = Session(self.rest, limits, tas_profile)
        got = decide_ordered(session, loops=loops)
        if loops:
            session = Session(self.whole or self.model, limits, tas_profile)
            got = decide_ordered(session, loops=[])
        mark_checks(session.index, got)  # a reservation behind admission checks waits for them, as admit says
        return {d.key: d for d in got}


def why_scope(model: Model, key: str) -> PartScope:
    """The part `why` decides for workload `key` (the whole model with user rules, which may read
    anything in the cluster, or when there is nothing to leave out)."""
    index = ModelIndex(model)
    wl = index.workloads.get(key)
    if wl is None:
        raise KeyError(key)
    if model.rules:
        return PartScope(model)
    found = split(model, index, QuotaTree(index), holders=True)
    mine = found.part_of(wl)
    others = found.parts() - {mine}
    rest = found.slice(model, others)
    if not any(getattr(rest, name) for name in ("cluster_queues", "workloads")):
        return PartScope(model)
    return PartScope(found.slice(model, {mine}), rest, model)


def prove_fixes(session: Session, decisions: dict[str, Decision], result: WhyResult, inputs: Inputs,
                tas_profile: Profile = "Mixed", incremental: bool = True, redecide=None,
                whole: Model | None = None, rest=None, proving: Proving = Proving()) -> None:
    """Search fixes for a workload the run did not admit, each proven by deciding again (in ordered
    mode, re-deciding the touched cohort trees; with `redecide`, by calling it on the edited model).
    `whole`: the whole cluster (effective), when the session holds only the workload's part; `rest`:
    then a function deciding the rest (`decisions` are the part's alone). `proving`: how many fixes to
    show and the budget of re-decisions; the result says how many were found and tried, and whether
    the list is complete (every candidate decided within the budget, every fix found shown)."""
    d = result.decision
    assert d is not None
    target = session.index.workloads[result.workload]
    model = whole if whole is not None else session.model
    # the run's compiled shapes serve the re-decisions too (a queue the fix leaves alone compiles nothing)
    base = Baseline(model, dict(decisions), shapes=session.shape_cache or ShapeCache())
    if rest is not None:
        # the part's workloads: its run decided them all (one it gave no decision stays as the input has
        # it, as in the whole cluster's run: the parts are independent)
        part = frozenset(decisions) | {w.key for w in session.model.workloads}
        prover: Prover = PartProver(base, inputs.reload, target.key, session.limits, tas_profile,
                                    incremental=incremental, redecide=redecide, decided=part,
                                    rest=rest, budget=proving.budget, progress=proving.progress)
    else:
        prover = Prover(base, inputs.reload, target.key, session.limits, tas_profile, incremental=incremental,
                        redecide=redecide, budget=proving.budget, progress=proving.progress)
    head = None
    own = Obstacles(list(result.blame), list(result.candidates), list(result.blame_groups),
                    result.placement.pod_set if result.placement is not None else None)
    if d.waiting_behind:
        head = own_obstacles(session, session.index.workloads[d.waiting_behind])
        # the workload's own cores at the run's end state, as its explanation found them (`own_cores`)
        own = obstacles_of(session, *result.own_cores) if result.own_cores is not None else \
            own_obstacles(session, target)
    met = met_starts(session, d.cycle, target, own.origins) if not d.waiting_behind and result.met else {}
    ask = Ask(target, own, head, d.cluster_queue, met,
              dict(result.standing.ahead) if result.standing is not None else {}, head_key=d.waiting_behind)
    # The loaded model and the run live on through every re-decision: the cyclic garbage collector
    # leaves them out while proving (each full collection would walk them again), and takes them back after.
    # And its youngest generation is larger meanwhile (`PROVING_GC_YOUNG`): each re-decision makes
    # some hundred thousand objects that live as long as its run, then die together; collected young
    # every 700 allocations, they were walked again and again, promoted, and so set off full
    # collections (18 in a 60-change why at gpu_state(2000): 3.2 s of its GC's 4.2 s; 1.4 s in all so).
    # When it ends, in a process that decides on: the re-decisions' solver objects, and what the explanation
    # made before them, frozen with the model: a full walk, but at most a fifth of the time (a why's
    # leftovers are many: at the default pace they added up, 90 -> 338 MB over 30 whys).
    found = []
    with long_lived(share=4):
        thresholds = gc.get_threshold()
        gc.set_threshold(thresholds[0] and max(thresholds[0], PROVING_GC_YOUNG), *thresholds[1:])  # 0: off stays off
        try:
            found = proven_fixes(prover, model, inputs.sources, ask, session.compiler.scale)
        except SolverUnknown:
            prover.unknown = True
        finally:
            gc.set_threshold(*thresholds)
    ahead = result.standing.ahead_keys if result.standing is not None else frozenset()
    for p in found:
        p.summary = summarize(p.effects, ahead)
    result.fixes = choose(found, proving.shown)
    result.fixes_found = len(found)
    result.fixes_complete = not prover.exhausted and not prover.unknown and len(found) <= proving.shown
    result.candidates_tried = len(prover.candidates)
    result.fixes_checked = prover.tried
    result.fixes_refused = prover.refused
    result.fixes_notes = list(prover.notes)
    result.fixes_mode = "ordered" if redecide is None else "optimal"
    result.unknown = result.unknown or prover.unknown


PROVING_GC_YOUNG = 50_000  # allocations between collections of the youngest generation while proving


@dataclass
class PartProver(Prover):
    """A prover whose baseline decided only the target's part (`decided`: its workloads, with a
    decision or not; every other workload's baseline state is its input's). A re-decision that reaches outside the part
    (a change to something every part reads, or one joining parts) decides the rest once (`rest`)
    and puts its states in the baseline and in every re-decision made before, in place of the
    input's: then every comparison is the one the whole cluster's run gives."""

    decided: frozenset = frozenset()
    rest: Callable[[], dict[str, Decision]] | None = None

    def replay(self, changes):
        r = super().replay(changes)
        if r is not None and self.rest is not None and self._reaches_out(r):
            self._complete()
        return r

    def _reaches_out(self, r) -> bool:
        """Whether `r` re-decided a workload outside the part: outside it, a workload not re-decided
        keeps the baseline's very state object (`replay.decide_again`)."""
        if r.whole:
            return True
        before = self.base.states
        # an overlay on the baseline's states differs from them only in its own entries (`replay.effects`)
        got = r.states.own if isinstance(r.states, Overlay) and r.states.base is before else r.states
        return any(s is not before.get(k) for k, s in got.items() if k not in self.decided)

    def _complete(self) -> None:
        assert self.rest is not None
        old = self.base.states
        for k, d in self.rest().items():  # a key in both is a duplicate (the validator reports it): the part's stands
            self.base.decisions.setdefault(k, d)
        self.base.states = new = states(self.base.model, self.base.decisions)
        self.rest = None
        for r in self.cache.values():
            if r is not None:
                for k, s in r.states.items():
                    if k not in self.decided and s is old.get(k) and k in new:
                        r.states[k] = new[k]
