"""Which proven fix a person would choose first (issue 19, item 4): the fixes grouped by who acts, and
within a group ranked by how much of the cluster they change, then by how far they move a number.

The order, and why a platform engineer would agree with it:
1. **Side effects as a person sees them** (`disruption`): every other workload whose state changes
   counts (349 workloads admitted that were pending are a large change of the cluster too, even
   though none of them is harmed), and a harmful change (evicted, losing its admission, fewer pods)
   counts `HARM_WEIGHT` times: its owner loses running work rather than waiting less. Compared by
   order of magnitude (`magnitude`: 0, 1, 2–3, 4–10, 11–30, 31–100, 101–300, …), so that 165 and 190
   changed workloads tie while 46 and 583 do not: nobody weighs 178 side effects against 183.
2. **Shrinking by half or more last**: a fix that leaves a workload half its pods or fewer comes after
   every platform fix of no larger side effects (a person shrinks a job last; the issue asks this of
   shrinking by more than half, and halving a job is no smaller a loss to its owner than a quota
   raised ×2 to the platform: a 2-pod gang's minimum lowered to 1 was offered before its queue's
   empty quota raised to one cpu).
3. **The relative size of the change** (`growth`: the most any number of it grows or shrinks, as a
   factor: ×1.5, ×11, ×46), by order of magnitude too (up to ×3, ×10, ×30, ×100, …): a quota raised
   ×46 is a different request from one raised ×11, one raised ×11 the same request as one ×25 — a
   change that is no number (a priority class, a policy, a toleration) is of the smallest class, with
   numbers changed up to ×3.
4. **Its own queue before a lender's**: at equal classes, a change to the workload's own
   ClusterQueue comes before one to another team's queue or a cohort's quota (its team asks itself,
   not another team, and changes nothing another team was promised).
5. Then exactly: fewest harmful side effects, fewest side effects, the smallest sum of relative
   changes (a number halved or doubled counts 0.5 or 1; a change that is no number 1), the fewest
   changes; then who acts (`ACTORS`), then the changes' text (the same input gives the same order).

The groups of who acts (the workload's owner: its spec; the platform team: quotas, limits,
policies, queues, nodes; the owners of other workloads; nobody: waiting for a holder) come in the
order of their best fix; of fixes ranked equal by 1–5, the owner's first (the person asking can act
alone and at once, on their own spec), then waiting (nobody need act), then the platform team's (to
be asked), then other owners'. So a priority raise that moves 46 workloads is offered before an own
quota raise ×11 that moves 178, and a quota raise 3 → 4 before halving the job.

`preference` is the one place the order is defined: proving may stop early by it (a candidate not
yet proven cannot rank better than itself proven with no side effects: `preference` never improves
with more side effects or harm)."""

from __future__ import annotations

import math
from typing import Iterable

from kadmit.engine.explain.prove import Change, Proven
from kadmit.engine.explain.replay import State

HARM_WEIGHT = 3  # a harmful side effect counts as this many changed workloads
ACTORS = ("owner", "nobody", "platform", "others")  # of fixes ranked equal, the group offered first


def magnitude(n: float) -> int:
    """The order of magnitude class of a count or factor, in steps of 1-3-10: 0 → -1; (0, 1] → 0;
    (1, 3] → 1; (3, 10] → 2; (10, 30] → 3; (30, 100] → 4; … (integers compare exactly at the edges)."""
    if n <= 0:
        return -1
    if n <= 1:
        return 0
    decade = math.floor(math.log10(n))
    if 10 ** decade >= n:  # an exact power of ten: the top of the class below (log10 may round up)
        decade -= 1
    edge = 10 ** decade
    return 1 + 2 * decade + (1 if n > 3 * edge else 0)


def disruption(p: Proven) -> int:
    """Side effects as a person sees them: every other workload whose state changes, a harmful change
    counted `HARM_WEIGHT` times."""
    return len(p.changed) + (HARM_WEIGHT - 1) * p.harm


def growth(c: Change) -> float:
    """How many times a change moves its number, up or down (>= 1); 1 for a change that is no number,
    or that sets a number from or to zero (a quota given where there was none is the smallest class:
    its effects say how large it is)."""
    old, new = c.knob.value, c.new
    if not isinstance(old, int) or not isinstance(new, int) or old <= 0 or new <= 0:
        return 1.0
    return max(new / old, old / new)


def size_class(p: Proven) -> int:
    """The order of magnitude of the fix's largest `growth`, at least 1: a change that is no number
    is as small as a number changed up to ×3."""
    return max(1, magnitude(max((growth(c) for c in p.changes), default=1.0)))


def lends(p: Proven, own: str | None) -> bool:
    """Whether the fix changes the quota of another team's ClusterQueue or of a cohort (not only the
    workload's own queue, `own`)."""
    return any(c.knob.kind == "quota" and c.knob.quota_of and c.knob.quota_of != f"cq:{own}" for c in p.changes)


def demoted(p: Proven, policy: Iterable[int]) -> bool:
    """A fix shrinking a workload to half its pods or fewer, where a platform fix (`policy`: their
    `disruption` classes) changes no more of the cluster."""
    mine = magnitude(disruption(p))
    return p.kept <= 0.5 and any(c <= mine for c in policy)


def preference(p: Proven, own: str | None, policy: Iterable[int] = ()) -> tuple:
    """The fix's place (smaller first) among all fixes, before who acts and the text break a tie: see
    the module's docstring. `own`: the workload's ClusterQueue; `policy`: the platform fixes'
    `magnitude(disruption)` (for shrinks). Never better with more side effects or harm."""
    return (magnitude(disruption(p)), demoted(p, policy), size_class(p), lends(p, own), p.harm, len(p.changed),
            sum(_relative(c) for c in p.changes), len(p.changes))


def at_best(changes: list[Change], target: str, own: str | None) -> tuple:
    """The best `preference` a candidate can have once proven: with no side effects (`preference` never
    improves with more) and no shrink demoted. `changes` at the values it would be proven at; for a
    number still to be searched, the value nearest its input's that the search may reach bounds it."""
    return preference(Proven(target, list(changes), State(True), []), own)


def ordered(found: list[Proven], own: str | None) -> list[Proven]:
    """Best first: the groups of who acts together, in the order of their best fix (its `preference`,
    then `ACTORS`), each group by `preference`, then the changes' text."""
    policy = [magnitude(disruption(p)) for p in found if p.actor == "platform"]

    def actor(a: str) -> int:
        return ACTORS.index(a) if a in ACTORS else len(ACTORS)
    keys = {id(p): (preference(p, own, policy), actor(p.actor), [c.describe() for c in p.changes]) for p in found}
    best: dict[str, tuple] = {}
    for p in found:
        k = keys[id(p)][:2]
        if p.actor not in best or k < best[p.actor]:
            best[p.actor] = k
    return sorted(found, key=lambda p: (best[p.actor], keys[id(p)]))


def _relative(c: Change) -> float:
    """The change relative to the value it changes (1 for a change that is no number)."""
    k = c.knob
    if isinstance(k.value, int) and isinstance(c.new, int) and k.value:
        return abs(c.new - k.value) / abs(k.value)
    return 1.0

