"""A shared-mode problem's quota statements apart from the rest, so that quota is answered by arithmetic.

In a problem compiled in `shared` mode (one per workload shape, its numbers pinned per question)
the per-state numbers — the queue's usage and Kueue's available() per flavor-resource, the variables
of `Problem.numbers` — appear in nothing but the quota statements (`quota|FLAVOR|RESOURCE`: what the
workload takes of a flavor-resource is at most what is available) and their own bounds. The quota
statements read nothing but those numbers, the flavor choices and the pinned amounts. So with every
flavor choice fixed, a question with the quota statements standing is

    the same question without them  AND  each quota statement evaluated on the fixed choices

and the question without them no longer reads the numbers: its answer, kept per shape, sizes and
assumptions, serves every state of the cluster. `QuotaPart.of` checks that a problem has this form
(user rules or anything else reading the numbers: no split, the solver answers as before).

What fixes the flavor choices is the problem's structure (`compile.problem`): a flavor variable
implies its pod set takes part, and a pod set that takes part has exactly one flavor per resource
group. So a skipped pod set has no flavor; in a group with a chosen flavor the others are false; a
group of a pod set that takes part with no flavor chosen is free, and its flavors are tried one by
one (`fixings`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from kadmit.engine.compile.tracked import Problem
from kadmit.engine.solver import terms as T

MAX_FIXINGS = 16  # free flavor choices tried one by one at most; beyond, the solver answers the whole


class Pins:
    """A question's pinned values (variable name -> value), with what questions derive from them
    computed once: a question asks the solver up to three times on the same values."""

    __slots__ = ("values", "_key", "_split")

    def __init__(self, values: dict[str, int]) -> None:
        self.values = values
        self._key: tuple | None = None
        self._split: tuple | None = None

    def key(self) -> tuple:
        """The values in name order (a memo key; the order the pins are asserted in)."""
        if self._key is None:
            self._key = tuple(sorted(self.values.items()))
        return self._key

    def without_numbers(self, part: "QuotaPart") -> "Pins | None":
        """The values but the per-state numbers of `part`; None when a number the quota statements
        read lies outside its variable's domain (the question is then unsat: the solver asserts
        the domain of every variable a statement reads)."""
        if self._split is None or self._split[0] is not part:
            values = self.values
            ok = all(v.lo <= values[v.name] <= v.hi for v in part.bounded if v.name in values)
            names = part.names
            self._split = (part, Pins({k: v for k, v in values.items() if k not in names}) if ok else None)
        return self._split[1]


@dataclass(frozen=True)
class Fixed:
    """The flavor choices a question fixes: variable names assumed true, pod sets (by index) assumed
    to take part, and pod sets assumed skipped."""

    chosen: frozenset[str]
    taking: frozenset[int]
    skipped: frozenset[int] = frozenset()


@dataclass(eq=False)
class QuotaPart:
    """The quota statements of a separable problem (`of`)."""

    ids: frozenset[str]  # the quota statements' origin ids
    terms: tuple[T.Term, ...]  # what they assert
    numbers: tuple[T.IntVar, ...]  # the per-state numbers: usage and available() per flavor-resource
    groups: tuple[tuple[int, tuple[str, ...]], ...]  # (pod set index, one group's flavor variables)
    check: Callable[[dict], bool] = field(init=False)  # the terms as one Python function of the values
    names: frozenset[str] = field(init=False)  # the numbers' names
    bounded: tuple[T.IntVar, ...] = field(init=False)  # the numbers the quota statements read
    _fixings: dict = field(default_factory=dict, init=False)  # Fixed -> `fixings`' answer

    def __post_init__(self) -> None:
        self.check = python_function(self.terms)
        self.names = frozenset(v.name for v in self.numbers)
        # a variable's domain is asserted with the first statement that reads it (`Lowering.var`):
        # a number no statement reads (the queue's usage, today) is pinned but unbounded
        read = variables(self.terms)
        self.bounded = tuple(v for v in self.numbers if v.name in read)

    @staticmethod
    def of(prob: Problem) -> "QuotaPart | None":
        """The quota part of `prob`, or None when the problem is not of the separable form: a quota
        statement tied to another origin, the numbers read by anything but the quota statements, or
        a quota statement reading more than the numbers, the amounts and the flavor choices."""
        numbers = tuple(v for pair in prob.numbers.values() for v in pair)
        names = {v.name for v in numbers}
        if len(names) != len(numbers):
            return None
        ids: set[str] = set()
        terms: list[T.Term] = []
        rest: list[T.Term] = list(prob.structure)
        for tr in prob.tracked:
            quota = [o.id.startswith("quota|") for o in tr.origins]
            if any(quota) and not all(quota):
                return None
            if quota[0]:
                ids.update(o.id for o in tr.origins)
                terms.append(tr.term)
            else:
                rest.append(tr.term)
        if names & variables(rest):
            return None
        groups = tuple((i, tuple(v.name for _, v in pv.flavors[gi]))
                       for i, pv in enumerate(prob.pod_sets) for gi in sorted(pv.flavors))
        known = names | {v.name for pv in prob.pod_sets for v in pv.amounts.values()} \
            | {name for _, vs in groups for name in vs}
        if not variables(terms) <= known:
            return None
        return QuotaPart(frozenset(ids), tuple(terms), numbers, groups)

    def fixings(self, fixed: Fixed) -> list[tuple[dict[str, bool], tuple[str, ...]]] | None:
        """Every way to fix the flavor choices the question leaves free: (each flavor variable's
        value, the variables assumed true beyond `fixed`). None when the question's own choices
        can't be read this way (then the solver answers the whole question). Kept per `fixed`."""
        if fixed in self._fixings:
            return self._fixings[fixed]
        got = self._fixings[fixed] = self._compute_fixings(fixed)
        return got

    def _compute_fixings(self, fixed: Fixed) -> list[tuple[dict[str, bool], tuple[str, ...]]] | None:
        base: dict[str, bool] = {}
        free: list[tuple[str, ...]] = []
        for ps, names in self.groups:
            on = [n for n in names if n in fixed.chosen]
            if ps in fixed.skipped:
                if on or ps in fixed.taking:
                    return None
                base.update((n, False) for n in names)
            elif len(on) == 1:
                base.update((n, n == on[0]) for n in names)
            elif on or ps not in fixed.taking:
                return None
            else:
                free.append(names)
        count = 1
        for names in free:
            count *= len(names)
        if count > MAX_FIXINGS:
            return None
        out = []
        for pick in itertools.product(*free):
            env = dict(base)
            for names, name in zip(free, pick):
                env.update((n, n == name) for n in names)
            out.append((env, pick))
        return out

    def holds(self, pins: dict[str, int], flavors: dict[str, bool]) -> bool | None:
        """Every quota statement on the pinned numbers and amounts and these flavor choices; None
        when a statement reads a variable they don't give."""
        try:
            return self.check({**pins, **flavors})
        except KeyError:
            return None


def python_function(terms) -> Callable[[dict], bool]:
    """`all(T.evaluate(t, env) for t in terms)` as one compiled Python function of `env` (Python's
    integers are exact, as the solver's): the quota statements are checked per question, and
    walking the term trees each time cost more than the rest of the question."""
    names: dict[str, str] = {}

    def py(t: T.Term) -> str:
        if isinstance(t, (T.Const, T.BoolConst)):
            return repr(t.value)
        if isinstance(t, (T.IntVar, T.BoolVar)):
            if t.name not in names:
                names[t.name] = f"v{len(names)}"
            return names[t.name]
        if isinstance(t, T.Sum):
            return "(" + " + ".join([repr(t.constant)] + [f"{k} * {py(x)}" for k, x in t.parts]) + ")"
        if isinstance(t, T.Ite):
            return f"({py(t.then)} if {py(t.cond)} else {py(t.other)})"
        if isinstance(t, T.Max0):
            return f"max(0, {py(t.arg)})"
        if isinstance(t, T.Min):
            return f"min({', '.join(py(a) for a in t.args)})" if len(t.args) > 1 else py(t.args[0])
        if isinstance(t, T.Cmp):
            return f"({py(t.left)} {t.op} {py(t.right)})"
        if isinstance(t, T.BoolOp):
            args = [f"bool({py(a)})" for a in t.args]
            if t.op == "and":
                return "(" + " and ".join(args) + ")"
            if t.op == "or":
                return "(" + " or ".join(args) + ")"
            if t.op == "not":
                return f"(not {args[0]})"
            if t.op == "implies":
                return f"((not {args[0]}) or {args[1]})"
            return f"({args[0]} == {args[1]})"
        raise TypeError(f"unknown term {t!r}")

    body = " and ".join(f"bool({py(t)})" for t in terms) or "True"
    reads = "".join(f"    {sym} = env[{name!r}]\n" for name, sym in names.items())
    scope: dict = {}
    exec(f"def check(env):\n{reads}    return {body}\n", scope)  # noqa: S102 (text built above from terms)
    return scope["check"]


def variables(terms) -> set[str]:
    """The names of the variables the terms read."""
    out: set[str] = set()
    seen: set[int] = set()
    todo = list(terms)
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if isinstance(t, (T.IntVar, T.BoolVar)):
            out.add(t.name)
        elif isinstance(t, T.Sum):
            todo.extend(x for _, x in t.parts)
        elif isinstance(t, T.Ite):
            todo += [t.cond, t.then, t.other]
        elif isinstance(t, T.Max0):
            todo.append(t.arg)
        elif isinstance(t, (T.Min, T.BoolOp)):
            todo.extend(t.args)
        elif isinstance(t, T.Cmp):
            todo += [t.left, t.right]
        elif not isinstance(t, (T.Const, T.BoolConst)):
            raise TypeError(f"unknown term {t!r}")
    return out
