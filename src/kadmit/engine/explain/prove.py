"""Proving a fix: apply its edits to the input, read it again, decide the cluster again, and record
what the workload and every other workload then get."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kadmit.edits import Edit
from kadmit.engine.admission.session import SolverUnknown
from kadmit.engine.explain.bounds import IMPOSSIBLE, Bound, least_value
from kadmit.engine.explain.knobs import Knob, finished
from kadmit.engine.progress import Report, Stage
from kadmit.engine.explain.digest import EffectSummary
from kadmit.engine.explain.replay import (SAME_OUTCOME, Baseline, Effect, Replay, State, decide_again, effects,
                                          checks, plural, states)
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Model
from kadmit.placement.tas import Profile

Reload = Callable[[list[Edit]], "Model | None"]  # the model after edits; None: they don't apply cleanly
DEFAULT_BUDGET = 60  # changes decided again to prove one workload's fixes


@dataclass(frozen=True)
class Proving:
    """How far to go proving fixes: how many to show (0: search none), the budget in changes decided
    again (not seconds: the same input gets the same fixes on any machine), who to tell of progress,
    and who to hand the answer's first stages to before proving starts (`engine.progress.Stage`)."""

    shown: int = 3
    budget: int = DEFAULT_BUDGET
    progress: Report | None = field(default=None, compare=False)
    stages: Stage | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Change:
    """One edit of the input, with its place and names for the reader."""

    knob: Knob
    new: int | str
    minimal: bool | None = field(default=None, compare=False)  # a searched number: proven the least change?
    neighbor: int | None = field(default=None, compare=False)  # the value one step less of a change

    @property
    def edit(self) -> Edit | None:
        return self.knob.edit(self.new)

    @property
    def key(self) -> str:
        """Identifies the change among a fix's (an edit, or the holder waited for)."""
        return repr(self.edit) if self.edit is not None else f"wait {self.knob.value}"

    def describe(self) -> str:
        k = self.knob
        if k.kind == "wait":
            return (f"{k.where()}: wait for {k.subject} to finish (no edit of the input says so: proven by "
                    f"deciding again without it)")
        if k.kind == "priority":
            return f"{k.where()}: {k.field} of {k.subject}: {k.old} → {self.edit.new}"
        if k.kind == "enable":
            return (f"{k.where()}: enable Kueue's integration {k.subject}: add `{str(self.new).partition(chr(10))[2]}` "
                    f"to this Configuration: its reconciler drops the finalizer of workload {k.shown}, "
                    "being deleted, and it goes with its quota")
        if k.kind == "integration":
            return (f"{k.where()}: enable Kueue's integration {k.subject} (add it to this Configuration's "
                    f"integrations.frameworks): its reconciler drops the finalizer of workload {k.shown}, "
                    "being deleted, and it goes with its quota (no edit of the input is made: proven by deciding "
                    "again without it; the kind's other jobs Kueue would then manage are not decided)")
        if k.kind == "finish":
            return f"{k.where()}: wait for {k.subject} to finish: add `finished = true` to it"
        if k.kind == "cover":
            return f"{k.where()}: {k.field} of {k.subject}: add {k.shown_as(self.new)}{self._least()}"
        if k.kind == "tolerate" and k.shown:
            return f"{k.where()}: {k.field} of {k.subject}: add the toleration `{k.shown}`"
        if k.kind == "tolerate":
            return f"{k.where()}: {k.field} of {k.subject}: add a toleration (`{k.old}` → `{self.edit.new}`)"
        if k.kind == "new_local_queue":
            return (f"{k.where()}: add {k.subject} with spec.clusterQueue `{self.new}` (a document before this "
                    f"line's, as the LocalQueue of that name in another namespace)")
        if k.kind == "rule":
            return f"{k.where()}: disable {k.subject}: its expression `{k.old}` → `{self.edit.new}`"
        return f"{k.where()}: {k.field} of {k.subject}: {k.old} → {self.edit.new}{self._least()}"

    def brief(self, part: bool = True) -> str | None:
        """The change said within its object and file (`Knob.within`, `span.file`), its line last:
        `flavor a100 cpu nominalQuota: "576" → "4048" (:35)` (without `flavor a100` when `part` is
        False: said once for all); None where the knob names no object to say it within (the change
        is then said whole, by `describe`)."""
        k = self.knob
        if not k.within or k.kind != "quota" or self.edit is None:
            return None
        _, of, name = k.within
        return f"{f'{of} ' if part else ''}{name}: {k.old} → {self.edit.new}{self._least()} (:{k.span.line})"

    def _least(self) -> str:
        if self.minimal is None:
            return ""
        if not self.minimal:
            return " (admits it; a smaller change was not ruled out)"
        if self.neighbor == self.knob.value:  # one step from the input's own value: no change
            return " (minimal: the smallest change there is)"
        return f" (minimal: the change one step smaller, to {self.knob.render(self.neighbor)}, does not admit it)"

    def as_dict(self) -> dict:
        out = {**self.edit.as_dict(), "field": self.knob.field, "subject": self.knob.subject}
        return out if self.minimal is None else {**out, "minimal": self.minimal}


@dataclass
class Proven:
    """Changes that admit the workload when the whole cluster is decided again."""

    target: str
    changes: list[Change]
    outcome: State
    effects: list[Effect]
    needs: str = ""  # how the changes depend on each other, when there are several
    redecided: int = 0
    whole: bool = True
    summary: EffectSummary | None = None  # the side effects by kind, once the workloads ahead of it are known

    @property
    def harm(self) -> int:
        return sum(e.harmful for e in self.effects)

    @property
    def changed(self) -> list[Effect]:
        """The side effects a person sees (not a workload evicted either way, by another preemptor)."""
        return [e for e in self.effects if e.kind != SAME_OUTCOME]

    @property
    def actor(self) -> str:
        """Who makes the change: "platform" (quotas, limits, policies, queues, nodes), "owner" (the
        workload's spec), "others" (the spec of other workloads: their owners act) or "nobody"
        (waiting for a holder to finish)."""
        return actor_of(self.changes, self.target)

    @property
    def kept(self) -> float:
        """The part of its pods a workload keeps where the fix shrinks one (1: it shrinks none)."""
        out = 1.0
        for c in self.changes:
            old = c.knob.value
            if c.knob.kind in SHRINKS and isinstance(old, int) and isinstance(c.new, int) and 0 < c.new < old:
                out *= c.new / old
        return out

    @property
    def outcome_text(self) -> str:
        return f"`{self.target}` is {_gets(self.outcome)}"

    @property
    def message(self) -> str:
        what = " and ".join(c.describe() for c in self.changes)
        gets = _gets(self.outcome)
        if not self.effects:
            side = "no other workload changes"
        else:
            shown = self.effects[:4]
            side = "; ".join(f"`{e.workload}` {e.kind}" + (f" ({e.after.describe(e.nodes_only)})" if e.after.admitted
                                                           else "") for e in shown)
            if len(self.effects) > len(shown):
                side += f"; and {plural(len(self.effects) - len(shown), 'more workload')}"
            side = f"{plural(len(self.effects), 'other workload')} change{'s' if len(self.effects) == 1 else ''}: {side}"
        return f"{what}{self.needs}: it is {gets}; {side}"

    def as_dict(self) -> dict:
        out = {"message": self.message, "changes": [c.as_dict() for c in self.changes if c.edit is not None],
               "outcome": self.outcome.as_dict(), "effects": [e.as_dict() for e in self.effects]}
        out["by"] = self.actor
        if self.summary is not None:
            out["effects_summary"] = self.summary.as_dict()
        waits = [str(c.knob.value) for c in self.changes if c.edit is None]
        return {**out, "waits_for": waits} if waits else out


def _gets(s: State) -> str:
    """What a workload is admitted with, each pod set with its own flavors and nodes (never mixed)."""
    nodes = dict(s.nodes)
    parts = []
    for name, count, fl in s.pod_sets:
        text = f"{plural(count, 'pod')} of `{name}` on {', '.join(sorted({f for _, f in fl})) or 'no flavor'}"
        on = [n for n, _ in nodes.get(name, ())]
        if on:
            text += f" ({', '.join(on[:4])}{', …' if len(on) > 4 else ''})"
        parts.append(text)
    if s.waiting:  # quota reserved; Kueue admits it once every check is Ready, which no input edit decides
        return (f"given quota in ClusterQueue `{s.cluster_queue}` with {'; '.join(parts)}, and waits for "
                f"{checks(s.waiting)} (admitted once {'they are' if len(s.waiting) > 1 else 'it is'} Ready)")
    return f"admitted to ClusterQueue `{s.cluster_queue}` with {'; '.join(parts)}"


OWNER_KINDS = ("min_count", "count", "topology", "tolerate", "priority", "queue_name")  # the workload's own spec
NOBODY_KINDS = ("wait", "finish")  # a holder finishing: nothing to change
SHRINKS = ("min_count", "count")


def actor_of(changes: list[Change], target: str = "") -> str:
    """Who acts: the platform team for any change outside workloads' specs; else the owners of other
    workloads when a change is in another workload's spec (lowering its priority, shrinking it);
    else the workload's owner; else nobody (waiting)."""
    kinds = {c.knob.kind for c in changes}
    if kinds - set(OWNER_KINDS) - set(NOBODY_KINDS):
        return "platform"
    if any(c.knob.kind in OWNER_KINDS and c.knob.workload not in ("", target) for c in changes):
        return "others"
    return "owner" if kinds & set(OWNER_KINDS) else "nobody"


@dataclass
class Prover:
    """Decides the cluster again for edits of the input, within a budget of re-decisions."""

    base: Baseline
    reload: Reload
    target: str
    limits: Limits | None = None
    tas_profile: Profile = "Mixed"
    incremental: bool = True  # re-decide only the touched cohort trees (False: everything, for benchmarks)
    redecide: Callable[[Model], list] | None = None  # another mode's decisions for a model (optimal)
    # Re-decisions, not seconds: the same input gets the same fixes on any machine, however busy.
    budget: int = DEFAULT_BUDGET
    tried: int = 0
    unknown: bool = False
    cache: dict = field(default_factory=dict)
    last: Replay | None = None
    notes: list[str] = field(default_factory=list)  # obstacles no change of the input reaches, and why
    progress: Report | None = None  # told of every re-decision ("fixes", done, budget)
    exhausted: bool = False  # a change was left undecided: the budget was spent
    candidates: set = field(default_factory=set)  # the places changed together, per change decided again
    # the target's necessary condition (`bounds.Bound`): a change of quota numbers that fails it is
    # refused by arithmetic, without deciding again and outside the budget
    bound: Bound | None = None
    refused: int = 0  # changes so refused
    # quota numbers no value of which alone was found to admit the target: decided again at the value
    # given it stays pending, and at the end of that run no value of the number lets it fit (`_need`)
    alone_short: list[tuple[Knob, int]] = field(default_factory=list)
    need_unsure: bool = False  # the last `_need` met a check the solver left undecided
    # quota numbers no value of which alone lets the target in by the necessary condition (`bounds`)
    alone_refused: list[Knob] = field(default_factory=list)
    # workload -> (model, it, the baseline's states, the pending workloads ahead of it in its cohort tree),
    # kept by `raises.ahead_in_tree` (asked per resource and raise)
    ahead: dict = field(default_factory=dict, repr=False)

    def replay(self, changes: list[Change]) -> Replay | None:
        edits = tuple(sorted(c.edit for c in changes if c.edit is not None))
        gone = tuple(sorted(str(c.knob.value) for c in changes if c.edit is None))  # holders waited for
        if (edits, gone) in self.cache:
            return self.cache[edits, gone]
        if self._refuses_by_arithmetic(changes):
            self.refuse(changes)
            out = self.cache[edits, gone] = Replay({}, {}, 0, False)  # no state: the target is not admitted
            return out
        if self.tried >= self.budget:
            self.exhausted = True
            return None
        self.tried += 1
        self.candidates.add(_place(changes))
        if self.progress is not None:
            self.progress("fixes", self.tried, self.budget)
        out = None
        model = self.reload(list(edits))
        if model is not None and gone:
            model = finished(model, list(gone))
        if model is not None:
            try:
                if self.redecide is not None:
                    decided = {d.key: d for d in self.redecide(model)}
                    out = Replay(states(model, decided), decided, len(model.workloads), True)
                else:
                    out = decide_again(self.base, model, self.limits, self.tas_profile, self.incremental)
            except SolverUnknown:
                self.unknown = True
        if self.last is not None and self.last is not out:
            # Only the latest re-decision's session is kept (Z3 solvers are heavy), and its decisions
            # (only `_at_admission` reads them, with the session): the states answer the rest. Kept,
            # every re-decision's ~1,000 decisions (and their assignments, searches, victims) would
            # stay for the cyclic collector to walk in each full collection while proving goes on.
            self.last.session = None
            self.last.decisions = {}
        self.last = out
        self.cache[edits, gone] = out
        return out

    def kept_run(self, changes: list[Change]) -> Replay | None:
        """The run of `changes` if decided already (or refused by arithmetic), else None: never
        decides again."""
        edits = tuple(sorted(c.edit for c in changes if c.edit is not None))
        gone = tuple(sorted(str(c.knob.value) for c in changes if c.edit is None))
        return self.cache.get((edits, gone))

    def refuse(self, changes: list[Change]) -> None:
        """A candidate refused by arithmetic (`bounds`), every value of it or this one: counted
        among those tried, not decided again."""
        self.refused += 1
        self.candidates.add(_place(changes))

    def _quotas(self, changes: list[Change] | tuple[Change, ...]) -> dict | None:
        """The quota numbers `changes` set, as the bound names them; None when any change is not one."""
        out = {}
        for c in changes:
            entry = self._quota_entry(c.knob) if c.edit is not None else None
            if entry is None or not isinstance(c.new, int):
                return None
            out[entry] = c.new
        return out

    def _refuses_by_arithmetic(self, changes: list[Change]) -> bool:
        if self.bound is None or not self.bound.claims:
            return False
        numbers = self._quotas(changes)
        return numbers is not None and not self.bound.necessary(numbers)

    def _floor(self, knob: Knob, fixed: list[Change] | tuple[Change, ...]) -> int | None:
        """The least value of a quota number (with `fixed`) the bound does not refuse; IMPOSSIBLE
        when it refuses every value; None when it claims nothing here."""
        if self.bound is None or not self.bound.claims:
            return None
        entry = self._quota_entry(knob)
        numbers = self._quotas(fixed)
        if entry is None or numbers is None:
            return None
        return least_value(lambda v: self.bound.necessary({**numbers, entry: v}), int(knob.value))

    def admits(self, changes: list[Change]) -> bool:
        r = self.replay(changes)
        return r is not None and r.states.get(self.target, State(False)).admitted

    def refuses(self, changes: list[Change]) -> bool:
        """Decided again, the workload is not admitted (False also when it couldn't be decided)."""
        r = self.replay(changes)
        return r is not None and not r.states.get(self.target, State(False)).admitted

    def prove(self, changes: list[Change]) -> Proven | None:
        r = self.replay(changes)
        if r is None:
            return None
        mine = r.states.get(self.target, State(False))
        if not mine.admitted:
            return None
        return Proven(self.target, list(changes), mine, effects(self.base.states, r.states, self.target),
                      redecided=r.redecided, whole=r.whole)

    # --- searching a number -----------------------------------------------------------------------

    def raise_until(self, knob: Knob, start: int, unit: int, tries: int = 6,
                    fixed: list[Change] = (), hint: int | None = None, floor: int | None = None,
                    down: bool = True) -> Change | None:
        """The least value found (>= start, in steps of `unit`) that admits; every value tried is a
        re-decision, and the values are chosen from the re-decided runs' end states (quota numbers,
        by one-workload checks there):
        - up: `start`; after a value that doesn't admit, the least value with which the workload
          fits on its own at the end of that run (its shortfall), then `hint` (what Kueue's queue
          order suggests), then at least four times the raise (twice for other numbers); the
          search stops when no value lets it fit on its own at the end of a run;
        - down, once one admits: the least value with which it still fits at the end of that run
          with its own usage released (the run's spare quota); else one step less, then bisecting,
          when `tries` more bisections can reach one step.
        `floor`: the least value that can admit at all (a necessary condition, `bounds`): the values
        below it are refused without deciding again. Without `down`, the first value that admits is
        kept as it is (an alternative searched cheaply: not called minimal).
        The change is `minimal` when one step less was decided again and does not admit, or is
        below `floor`."""
        old = int(knob.value)
        entry = self._quota_entry(knob)
        if floor is None:
            floor = self._floor(knob, fixed)
        if floor == IMPOSSIBLE:
            self.refuse(list(fixed) + [Change(knob, old)])
            if not fixed:
                self.alone_refused.append(knob)
            return None  # no value of it lets the workload in (`bounds`)
        v = old + max(unit, _round_up(start - old, unit))
        fail, ok, used, won = old, None, 0, None
        known = old  # values up to here are refused without deciding again
        if floor is not None and floor > old:
            known = fail = old + _round_up(floor - old, unit) - unit
            v = max(v, known + unit)
        while used < tries:
            used += 1
            r = self.replay(list(fixed) + [Change(knob, v)])
            if r is not None and r.states.get(self.target, State(False)).admitted:
                ok, won = v, r
                break
            fail = v
            need = self._need(entry, r, v) if entry is not None and r is not None else None
            if need == NO_VALUE:
                if not fixed and not self.need_unsure:  # each value checked (none left to the solver)
                    self.alone_short.append((knob, v))
                return None
            if need is not None and need > v and used == 1:
                nxt = need
            elif hint is not None and hint > v:
                nxt, hint = max(hint, need or 0), None
            else:
                nxt = max(need or 0, old + (4 if entry is not None else 2) * (v - old))
            v = old + _round_up(nxt - old, unit)
        if ok is None:
            return None
        if not down:
            return Change(knob, ok, minimal=False, neighbor=ok - unit)
        left, first = tries, True
        while ok - fail > unit and left > 0:
            left -= 1
            low = self._spare(entry, won, ok) if entry is not None and won is not None else None
            then = self._at_admission(entry, won, ok) if entry is not None and won is not None else None
            if then is not None and fail < then < (ok + fail) // 2 and (low is None or then < low):
                low = then  # far below: what it fitted when that run admitted it
            low = old + _round_up(low - old, unit) if low is not None else None
            if low is not None and fail < low < ok - unit:
                mid = low  # the run had quota to spare: as much less
            elif (ok - fail) // unit <= 2 ** (left + 1):
                mid = ok - unit if first else fail + _round_up((ok - fail) // 2, unit)
                first = False
            else:
                break  # bisecting could not reach one step: `_least` says whether one step less admits
            if mid <= fail or mid >= ok:
                break
            r = self.replay(list(fixed) + [Change(knob, mid)])
            if r is not None and r.states.get(self.target, State(False)).admitted:
                ok, won = mid, r
            else:
                fail = mid
        return self._least(knob, ok, ok - unit, fail, old, list(fixed), known)

    def _least(self, knob: Knob, ok: int, less: int, fail: int, old: int, fixed: list[Change],
               known: int | None = None) -> Change:
        """`ok` as a change, `minimal` when `less` (one step less) is decided again and refuses: it
        is `fail` (the last refused value, or the input's own with `fixed` alone), or one more check;
        or it is at most `known`, a value the necessary condition already refuses."""
        if known is not None and known != old and less <= known:
            sure = True
        elif less == fail:
            sure = self.refuses(fixed + [Change(knob, fail)]) if fail != old else (
                not fixed or self.refuses(fixed))
        else:
            sure = self.refuses(fixed + [Change(knob, less)])
        return Change(knob, ok, minimal=sure, neighbor=less)

    def _quota_entry(self, knob: Knob) -> tuple[str, str, str, str, str] | None:
        """The quota number a knob writes, as `Session.what_if` names it (kind, name, flavor,
        resource, field), found by its span in the base model."""
        if knob.kind != "quota":
            return None
        at = (knob.span.file, knob.span.line, knob.span.column)  # spans are invisible to ==
        for kind, objs in (("cq", self.base.model.cluster_queues), ("cohort", self.base.model.cohorts)):
            for obj in objs:
                for g in obj.resource_groups:
                    for fq in g.flavors:
                        for rq in fq.resources:
                            for which in ("nominal", "borrowing_limit", "lending_limit"):
                                sp = rq.spans.get(which) if rq.spans is not None else None
                                if sp is not None and (sp.file, sp.line, sp.column) == at:
                                    return kind, obj.name, fq.flavor, rq.resource, which
        return None

    def _need(self, entry: tuple[str, str, str, str, str], r: Replay, v: int) -> int | None:
        """The least value (above the one `r` was decided with) of the quota number with which the
        target fits on its own at the end of the re-decided run `r`, by doubling then bisecting
        one-workload checks; None when `r` kept no session, NO_VALUE when no value fits."""
        s = r.session
        wl = s.index.workloads.get(self.target) if s is not None else None
        if s is None or wl is None or s.index.cluster_queue_of(wl) is None:
            return None

        self.need_unsure = False

        def fits(x: int) -> bool:
            try:
                with s.what_if([(*entry, x)]):
                    got, _ = s.try_admit(wl)
            except (KeyError, ValueError):  # the number isn't declared in this run's model
                raise _NoInfo
            except SolverUnknown:
                self.need_unsure = True
                return False
            return got is not None
        step, hi = max(1, v // 8), None
        try:
            for _ in range(24):
                if fits(v + step):
                    hi = v + step
                    break
                step *= 2
        except _NoInfo:
            return None
        if hi is None:
            return NO_VALUE
        return _bisect(fits, v, hi)  # doesn't fit at v: the run left it pending

    def _spare(self, entry: tuple[str, str, str, str, str], r: Replay, v: int) -> int | None:
        """The least value (<= v) of the quota number with which the target, admitted in the run
        `r` (decided with the number at v), still fits at the end of that run with its own usage
        released; None when `r` kept no session."""
        s = r.session
        wl = s.index.workloads.get(self.target) if s is not None else None
        if s is None or wl is None or self.target not in s.holders:
            return None

        def fits(x: int) -> bool:
            try:
                with s.suspended([self.target]), s.what_if([(*entry, x)]):
                    got, _ = s.try_admit(wl)
            except (KeyError, ValueError, SolverUnknown):
                return False
            return got is not None
        lo, hi = 0, v
        if fits(lo):
            return lo
        return _bisect(fits, lo, hi)

    def _at_admission(self, entry: tuple[str, str, str, str, str], r: Replay, v: int) -> int | None:
        """The least value (<= v) of the quota number with which the target, admitted in cycle k
        of the run `r` (decided with the number at v), fits the usage at the start of cycle k (the
        run's final usage less what cycles k and later admitted); None when `r` kept no session or
        evicted anything (the victims' usage is gone from the final one)."""
        s = r.session
        d = r.decisions.get(self.target)
        if s is None or d is None or not d.admitted or d.assignment is None:
            return None
        mine = [x for x in r.decisions.values() if x.cluster_queue in s.index.cluster_queues]
        if any(x.preempted or x.preempted_by for x in mine):
            return None
        usage = s.usage.copy()
        for x in mine:
            if x.admitted and x.assignment is not None and x.cycle >= d.cycle:
                usage.add(x.assignment.cluster_queue, {fr: -q for fr, q in x.assignment.usage.items()})
        nid = f"cq:{d.assignment.cluster_queue}"
        tree = s.compiler.tree

        def fits(x: int) -> bool:
            try:
                with s.what_if([(*entry, x)]):
                    usage.memo.clear()
                    return all(q <= tree.available(nid, fr, usage) for fr, q in d.assignment.usage.items() if q > 0)
            except (KeyError, ValueError):
                return False
        lo, hi = 0, v
        if not fits(hi):
            return None
        if fits(lo):
            return lo
        return _bisect(fits, lo, hi)

    def lower_until(self, knob: Knob, start: int, tries: int = 6, floor: int = 1,
                    fixed: list[Change] = ()) -> Change | None:
        """The largest value found (<= start, >= floor) that admits, halving, then bisecting;
        `minimal` when one more was decided again and does not admit."""
        old = int(knob.value)
        v = min(start, old - 1)
        fail, ok = old, None
        while v >= floor and tries > 0:
            tries -= 1
            if self.admits(list(fixed) + [Change(knob, v)]):
                ok = v
                break
            fail = v
            v = floor if v // 2 < floor and v > floor else v // 2
        if ok is None:
            return None
        while fail - ok > 1 and tries > 0:
            tries -= 1
            mid = (fail + ok) // 2
            if self.admits(list(fixed) + [Change(knob, mid)]):
                ok = mid
            else:
                fail = mid
        return self._least(knob, ok, ok + 1, fail, old, list(fixed))


NO_VALUE = -1


def _place(changes: list[Change]) -> tuple:
    """The places in the input a candidate changes (what `candidates_tried` counts)."""
    return tuple(sorted((c.knob.kind, c.knob.where(), c.knob.field, c.knob.subject) for c in changes))


class _NoInfo(Exception):
    pass


def _bisect(fits: Callable[[int], bool], lo: int, hi: int) -> int:
    """The least value in (lo, hi] found to fit, where `hi` fits and `lo` doesn't, bisecting to a
    thousandth of `hi` (a starting point for the search, proven by deciding again next)."""
    while hi - lo > 1 and (hi - lo) * 1000 > hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit
