"""Every independent reason: minimal unsat cores enumerated MARCO-style over a loaded problem's
tracking literals, up to a small bound, each minimal by deletion (every member checked to matter).

A map solver (a tiny SAT problem over one Boolean per statement) holds what is explored: a core
blocks its supersets, a satisfiable set blocks its subsets. Seeds are maximal unexplored sets, so
an unsat seed shrinks to a core and a sat one is a maximal satisfiable set. Hint seeds go first: one
per requested resource with the quota of the other resources left out, so that a cpu, a memory and
a GPU shortfall each come out as a core of their own when each alone blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import z3

from kadmit.engine.compile.problem import Origin
from kadmit.engine.solver.z3backend import check as fast_check

MAX_CORES = 6
MAX_CHECKS = 400

QUOTA_KINDS = ("nominal", "borrowing_limit", "lending_limit", "usage")
# deletion order for shrinking: what explains least goes first, so the demand and binding limits stay
KEEP_ORDER = {"usage": 0, "lending_limit": 1, "borrowing_limit": 2, "nominal": 3, "min_count": 9}


@dataclass(frozen=True)
class Core:
    """A set of statements that together forbid admission; dropping any one of them admits."""

    origins: tuple[Origin, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.origins)

    def as_dict(self) -> list[dict]:
        return [origin_dict(o) for o in self.origins]


@dataclass
class Enumeration:
    cores: list[Core] = field(default_factory=list)
    complete: bool = True  # every core was found (False: the bound or the check budget stopped it)


def origin_dict(o: Origin) -> dict:
    """An origin as data: where, what kind, its message and the number a fix may change."""
    sp = o.span
    out = {"id": o.id, "kind": o.kind, "message": o.message,
           "file": sp.file if sp else None, "line": sp.line if sp else None, "column": sp.column if sp else None}
    if o.param is not None:
        p = o.param
        out["param"] = {"subject": p.subject, "field": p.field, "value": p.value, "resource": p.resource,
                        "direction": p.direction}
    return out


def resource_of(o: Origin) -> str | None:
    return o.param.resource if o.kind in QUOTA_KINDS and o.param is not None else None


def enumerate_cores(ids: list[str], origins: dict[str, Origin], unsat: Callable[[list[str]], bool],
                    core_hint: Callable[[], set[str]] | None = None, most: int = MAX_CORES,
                    budget: int = MAX_CHECKS, hints: Iterable[list[str]] = ()) -> Enumeration:
    """Minimal unsat subsets of `ids` (the full set must be unsat for any to exist). `unsat(sub)`
    decides a subset (raising on unknown); `core_hint()` gives the solver's core of the last unsat
    call, a superset of some core inside it. Deterministic: ids are visited in sorted order."""
    ids = sorted(ids)
    pos = {k: i for i, k in enumerate(ids)}
    out = Enumeration()
    left = [budget]
    found: list[frozenset[str]] = []
    mss: list[frozenset[str]] = []

    def ask(sub: list[str]) -> bool:
        left[0] -= 1
        return unsat(sub)

    def shrink(seed: list[str]) -> list[str]:
        core = list(seed)
        if core_hint is not None:
            hinted = core_hint()
            core = [k for k in core if k in hinted]
        core.sort(key=lambda k: (KEEP_ORDER.get(origins[k].kind, 5), k))
        i = 0
        while i < len(core):
            if left[0] <= 0:
                return []
            trial = core[:i] + core[i + 1:]
            if ask(trial):
                core = trial
            else:
                i += 1
        return core

    def explored(seed: frozenset[str]) -> bool:
        return any(c <= seed for c in found) or any(seed <= m for m in mss)

    def visit(seed: list[str]) -> None:
        s = frozenset(seed)
        if explored(s) or left[0] <= 0:
            return
        if ask(seed):
            core = shrink(seed)
            if core:
                found.append(frozenset(core))
                out.cores.append(Core(tuple(sorted((origins[k] for k in core), key=_by_place))))
        else:
            mss.append(_grow(s, ids, ask, left))

    for h in hints:
        if len(out.cores) >= most:
            break
        visit(sorted(set(h) & set(ids)))

    # MARCO proper: a map solver over one Boolean per id; seeds maximal among the unexplored
    m = z3.Solver()
    m.set("random_seed", 0)
    var = [z3.Bool(f"m{i}") for i in range(len(ids))]
    for c in found:
        m.add(z3.Or([z3.Not(var[pos[k]]) for k in sorted(c)]))
    for s in mss:
        m.add(z3.Or([var[pos[k]] for k in ids if k not in s] or [z3.BoolVal(False)]))
    while len(out.cores) < most:
        if left[0] <= 0:
            out.complete = False
            break
        if m.check() != z3.sat:
            break
        model = m.model()
        seed = [k for k in ids if z3.is_true(model.eval(var[pos[k]], model_completion=True))]
        seed = _maximal(m, var, pos, ids, seed)
        if ask(seed):
            core = shrink(seed)
            if not core:
                out.complete = False
                break
            c = frozenset(core)
            found.append(c)
            out.cores.append(Core(tuple(sorted((origins[k] for k in core), key=_by_place))))
            m.add(z3.Or([z3.Not(var[pos[k]]) for k in core]))
        else:
            grown = _grow(frozenset(seed), ids, ask, left)
            mss.append(grown)
            m.add(z3.Or([var[pos[k]] for k in ids if k not in grown] or [z3.BoolVal(False)]))
    else:
        out.complete = m.check() != z3.sat
    return out


def _maximal(m: z3.Solver, var, pos, ids: list[str], seed: list[str]) -> list[str]:
    """Grow a map model to a maximal one: add each id in turn while the map stays satisfiable."""
    chosen = set(seed)
    # the map's variables are Boolean constants: asked without z3.py casting each assumption again
    # (casting a few hundred per check cost more than the check)
    if fast_check(m, [var[pos[x]] for x in ids]) == z3.sat:
        return list(ids)
    for k in ids:
        if k in chosen:
            continue
        trial = chosen | {k}
        if fast_check(m, [var[pos[x]] for x in sorted(trial)]) == z3.sat:
            chosen = trial
    return sorted(chosen)


def _grow(seed: frozenset[str], ids: list[str], ask, left) -> frozenset[str]:
    """A maximal satisfiable superset of a satisfiable seed."""
    cur = set(seed)
    for k in ids:
        if k in cur or left[0] <= 0:
            continue
        if not ask(sorted(cur | {k})):
            cur.add(k)
    return frozenset(cur)


def _by_place(o: Origin) -> tuple:
    return (o.span.key() if o.span else ("~",), o.id)


def resource_hints(ids: list[str], origins: dict[str, Origin]) -> list[list[str]]:
    """One seed per resource the quota statements name: everything but the other resources' quota."""
    resources = sorted({r for k in ids if (r := resource_of(origins[k])) is not None})
    if len(resources) < 2:
        return []
    return [[k for k in ids if resource_of(origins[k]) in (None, r)] for r in resources]
