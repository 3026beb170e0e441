"""Raising several quota numbers together, where the blame names one whose raise alone admits
nothing: the workload's own queue's quotas of a flavor (its other resources run short once what is
ahead of it goes first), another queue's quotas of a flavor with its lending limit (what it lends the
workload's cohort tree), and the note saying which numbers' raises alone were proven to admit
nothing (or by arithmetic can't). Every candidate is proven by deciding the cluster again
(`prove.Prover`)."""

from __future__ import annotations

from kadmit.engine.explain import knobs as K
from kadmit.engine.explain.bounds import min_request
from kadmit.engine.explain.fixes import Obstacles
from kadmit.engine.explain.prove import Change, Proven, Prover, _place
from kadmit.identity import queue_uid
from kadmit.model import Model, Workload
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap

MAX_LENDERS = 3  # other queues searched for a raise of what they lend, before one admits

def ahead_in_tree(prover: Prover, model: Model, wl: Workload, res: str) -> int:
    """Kueue's queue order: what the pending workloads of `wl`'s cohort tree ahead of it (higher
    priority, then older) and `wl` itself need of `res` at their smallest counts."""
    values = {p.name: p.value for p in model.priority_classes}
    default = next((p.value for p in model.priority_classes if p.global_default), 0)

    def prio(w: Workload) -> int:
        return w.priority if w.priority is not None else values.get(w.priority_class or "", default)

    def need(w: Workload) -> int:
        return sum((p.min_count if p.min_count is not None else p.count) * p.requests.get(res, 0) for p in w.pod_sets)

    lqs = {q.key: q.cluster_queue for q in model.local_queues}
    cohort = {c.name: c.cohort for c in model.cluster_queues}
    parent = {c.name: c.parent for c in model.cohorts}

    def root(w: Workload) -> str | None:
        cq = lqs.get(f"{w.namespace}/{w.queue}")
        c = cohort.get(cq or "")
        seen = set()
        while c and parent.get(c) and c not in seen:
            seen.add(c)
            c = parent[c]
        return c or (f"cq:{cq}" if cq else None)

    states = prover.base.states
    kept = prover.ahead.get(wl.key)  # the workloads ahead, found once per model, workload and baseline
    if kept is None or kept[0] is not model or kept[1] is not wl or kept[2] is not states:
        mine, key = root(wl), (-prio(wl), wl.created, queue_uid(wl), wl.key)
        kept = prover.ahead[wl.key] = (model, wl, states, [
            w for w in model.workloads if w.admission is None and not w.finished and w.key != wl.key
            and w.key in states and not states[w.key].admitted
            and (-prio(w), w.created, queue_uid(w), w.key) < key and root(w) == mine])
    return need(wl) + sum(need(w) for w in kept[3])


def flavor_raises(prover: Prover, model: Model, sources: SourceMap, obs: Obstacles, wl: Workload,
                   units: dict[str, int]) -> list[Proven]:
    """Kueue assigns one flavor per resource group: when several resources are short, the nominal
    quotas of the workload's own queue in one flavor are raised together, each by the workload's
    demand times a common factor (grown, then halved while it still admits)."""
    out: list[Proven] = []
    lq = next((q for q in model.local_queues if q.key == f"{wl.namespace}/{wl.queue}"), None)
    cq_name = lq.cluster_queue if lq is not None else None
    mine = [o for o in obs.origins if o.id.startswith(f"quota|cq:{cq_name}|") and o.id.endswith("|nominal")]
    demand = min_request(wl)
    by_flavor: dict[str, list[tuple[K.Knob, int, int]]] = {}
    for o in mine:
        _, nid, fname, res, which = o.id.split("|")
        knob = K.quota_knob(model, sources, nid, fname, res, which)
        if knob is not None and demand.get(res, 0) > 0:
            by_flavor.setdefault(fname, []).append((knob, demand[res], units.get(res, 1)))
    for fname, knobs in sorted(by_flavor.items()):
        if len(knobs) < 2:
            continue

        def changes(factor: float) -> list[Change]:
            return [Change(k, int(k.value) + up(int(d * factor), u)) for k, d, u in knobs]
        factor, ok = 1.0, None
        for _ in range(3):
            if prover.admits(changes(factor)):
                ok = factor
                break
            factor *= 2
        while ok is not None and ok > 1 / 8 and prover.admits(changes(ok / 2)):
            ok /= 2
        if ok is not None:
            p = prover.prove(changes(ok))
            if p is not None:
                out.append(p)
    return out


def group_raises(prover: Prover, model: Model, sources: SourceMap, obs: Obstacles, wl: Workload,
                  units: dict[str, int], singles: list[list[Change]], ahead: dict[str, int]) -> list[Proven]:
    """A nominal quota of the workload's own queue in the blame whose raise alone admits nothing
    (`singles` has no change of it): once raised, the workload's other resources of that flavor (its
    resource group) run short too, taken by what goes first. So the queue's nominal quotas in that
    flavor are raised together, for every resource the workload asks, each by what is queued ahead
    of it in its ClusterQueue (`ahead`) plus its own demand, times a common factor (doubled once,
    then halved while it still admits); each value decided again. Behind a StrictFIFO head too: the
    head and the rest ahead of it go first with that room."""
    out: list[Proven] = []
    lq = next((q for q in model.local_queues if q.key == f"{wl.namespace}/{wl.queue}"), None)
    if lq is None:
        return out
    nid = f"cq:{lq.cluster_queue}"
    raised = _raised(singles)
    demand = min_request(wl)
    flavors: dict[str, list[str]] = {}  # flavor -> the blamed resources whose raise alone admitted nothing
    for o in obs.origins:
        if o.id.startswith(f"quota|{nid}|") and o.id.endswith("|nominal"):
            _, _, fname, res, _ = o.id.split("|")
            knob = K.quota_knob(model, sources, nid, fname, res, "nominal")
            if knob is not None and (knob.span.file, knob.span.line, knob.span.column) not in raised:
                flavors.setdefault(fname, []).append(res)
    for fname, alone in flavors.items():
        knobs = [(k, demand[res] + ahead.get(res, 0), units.get(res, 1)) for res in sorted(demand)
                 if demand[res] > 0
                 for k in [K.quota_knob(model, sources, nid, fname, res, "nominal")] if k is not None]
        if len(knobs) < 2:
            continue  # one resource of the flavor: its own raise was searched already

        def changes(factor: float) -> list[Change]:
            return [Change(k, int(k.value) + up(int(d * factor), u)) for k, d, u in knobs]
        ok = next((f for f in (1.0, 2.0) if prover.admits(changes(f))), None)
        while ok is not None and ok > 1 / 8 and prover.admits(changes(ok / 2)):
            ok /= 2
        if ok is not None:
            p = prover.prove(changes(ok))
            if p is not None:
                p.needs = (f" (together: no raise of its {', '.join(f'`{r}`' for r in alone)} quota in `{fname}`"
                           " alone was found to admit it)")
                out.append(p)
    return out


def lender_raises(prover: Prover, model: Model, sources: SourceMap, obs: Obstacles, wl: Workload,
                   units: dict[str, int], singles: list[list[Change]], ahead: dict[str, int],
                   found: bool = False) -> list[Proven]:
    """Another queue's nominal quota in the blame (what it lends the workload's queue) whose raise alone
    admits nothing (`singles` has no change of it): it helps only through what it lends, capped by its
    lending limit (and the borrower's borrowing limit), and only with the flavor's other resources too;
    and what it lends goes to the whole cohort tree, the workloads ahead of this one in Kueue's order
    first. So that queue's nominal quotas in the flavor, for every resource the workload asks, are
    raised together, with its lending limit where one caps what it lends and the workload's queue's
    borrowing limit where one caps what it borrows, each by what the cohort tree's pending workloads
    ahead of it and it need (`_ahead`; at least what is queued ahead of it in its ClusterQueue, `ahead`,
    plus its own demand), halved while it still admits. Each value decided again. One lender per
    flavor: the first whose raise admits (the others lend to the same cohort tree); once one flavor's
    admits, the next flavor's first lender is tried once at the same size (kept as it is: not called
    the least); at most MAX_LENDERS lenders searched in all.
    Once a fix is `found` (the single changes and raises before these), a lender's raise is an
    alternative, searched as cheaply as `_singles` searches another queue's number then: decided once
    at that size, kept as it is if it admits, not halved; a note names those not searched smaller.
    (A lender's raise lets the cohort tree's pending work in: at gpu_state(15000) such a re-decision
    admits thousands, and its halving, admitting nothing, was a quarter of the `why`.)"""
    out: list[Proven] = []
    lq = next((q for q in model.local_queues if q.key == f"{wl.namespace}/{wl.queue}"), None)
    if lq is None:
        return out
    mine = f"cq:{lq.cluster_queue}"
    raised = _raised(singles)
    demand = min_request(wl)
    asks = sorted(r for r, d in demand.items() if d > 0)
    lenders: dict[tuple[str, str], list[str]] = {}  # (queue, flavor) -> its blamed resources no raise alone admitted
    for o in obs.origins:
        if o.id.startswith("quota|cq:") and o.id.endswith("|nominal") and not o.id.startswith(f"quota|{mine}|"):
            _, nid, fname, res, _ = o.id.split("|")
            knob = K.quota_knob(model, sources, nid, fname, res, "nominal")
            if knob is not None and (knob.span.file, knob.span.line, knob.span.column) not in raised:
                lenders.setdefault((nid, fname), []).append(res)
    if not lenders:
        return out
    tree = {r: max(ahead_in_tree(prover, model, wl, r), demand[r] + ahead.get(r, 0)) for r in asks}
    factor: float | None = None  # the factor of the first lender's raise that admits
    searched, done = 0, set()
    once: list[str] = []  # lenders whose raise admits, decided at one size only (a fix was `found` before)
    for (nid, fname), alone in lenders.items():
        if fname in done:
            continue
        knobs: list[tuple[K.Knob, str]] = []
        for res in asks:
            nominal = K.quota_knob(model, sources, nid, fname, res, "nominal")
            if nominal is None:
                continue  # the lender has no quota of it in this flavor: nothing of it to lend
            knobs.append((nominal, res))
            for k in (K.quota_knob(model, sources, nid, fname, res, "lending_limit"),
                      K.quota_knob(model, sources, mine, fname, res, "borrowing_limit")):
                if k is not None:
                    knobs.append((k, res))
        if len(knobs) < 2:
            continue  # its nominal quota alone: searched already

        def changes(factor: float) -> list[Change]:
            return [Change(k, int(k.value) + up(int(tree[r] * factor), units.get(r, 1))) for k, r in knobs]
        if factor is not None:
            done.add(fname)  # tried once at the size found: this flavor's other lenders are not tried
            ok = factor if prover.admits(changes(factor)) else None
        elif searched >= MAX_LENDERS:
            break
        else:
            searched += 1
            ok = None
            if prover.admits(changes(1.0)):
                f = 1.0
                while not found and f > 1 / 8 and prover.admits(changes(f / 2)):
                    f /= 2
                ok = factor = f
                done.add(fname)
        if ok is not None and found:
            once.append(f"`{nid.split(':', 1)[1]}` in `{fname}`")
        if ok is not None:
            p = prover.prove(changes(ok))
            if p is not None:
                name = nid.split(":", 1)[1]
                # the claim only for a raise alone that was tried (decided again, or refused by arithmetic)
                tried = [r for r in alone if _place([Change(K.quota_knob(model, sources, nid, fname, r, "nominal"), 0)])
                         in prover.candidates]
                p.needs = (f" (together: no raise of `{name}`'s {', '.join(f'`{r}`' for r in tried)} quota in "
                           f"`{fname}` alone was found to admit it)" if tried else
                           f" (together: what `{name}` lends in `{fname}`)")
                out.append(p)
    if once:
        note = ("a lender's raise was decided at one size, what this workload and the pending workloads ahead of "
                "it in its cohort tree need, and not searched smaller (fixes were found without it): what "
                f"{_and(once)} lend{'s' if len(once) == 1 else ''}")
        if note not in prover.notes:
            prover.notes.append(note)
    return out


def _raised(singles: list[list[Change]]) -> set[tuple]:
    """The places of the quotas whose raise alone was proven to admit (`singles`)."""
    return {(c.knob.span.file, c.knob.span.line, c.knob.span.column)
            for ch in singles for c in ch if c.knob is not None and c.knob.kind == "quota"}


def up(x: int, unit: int) -> int:
    return max(unit, -(-x // unit) * unit)


def alone_short(prover: Prover, found: list[Proven]) -> list[tuple[K.Knob, int]]:
    """The quota numbers whose raise alone was proven to admit nothing (`Prover.alone_short`), once
    each (the first value decided), in the order searched; none a fix changes alone."""
    alone = {(c.knob.span.file, c.knob.span.line, c.knob.span.column) for p in found if len(p.changes) == 1
             for c in p.changes}
    out: dict[tuple, tuple[K.Knob, int]] = {}
    for knob, v in prover.alone_short:
        at = (knob.span.file, knob.span.line, knob.span.column)
        if at not in alone:
            out.setdefault(at, (knob, v))
    return list(out.values())


MAX_NAMED = 3  # parts of a note's list the text output names (`--all` and JSON: every quota number)


class Note(str):
    """A note naming quota numbers: as a string (JSON, `--all`) it names every one, with the value
    it was decided again at; `brief` (the text output) names the first MAX_NAMED parts, grouped by
    queue and flavors, and counts the rest."""

    brief: str

    def __new__(cls, full: str, brief: str) -> Note:
        note = super().__new__(cls, full)
        note.brief = brief
        return note

    def __reduce__(self):
        return Note, (str(self), self.brief)


def alone_notes(prover: Prover, found: list[Proven], own: str | None = None) -> list[Note]:
    """A line for the quota numbers whose raise alone was decided again and admits nothing: raised, the
    cluster decided again, the workload stayed pending, and where that run ended no value of the
    number lets it fit (`Prover.alone_short`); and one for those no value of which alone passes the
    necessary condition (`Prover.alone_refused`: what the queue can reach at most, `bounds`). `own`:
    the workload's ClusterQueue, whose numbers are named first."""
    out = []
    short = [(k, f" ({format_quantity(v, k.resource)})") for k, v in alone_short(prover, found)]
    if short:
        these = "this quota" if len(short) == 1 else "any one of these quotas"
        out.append(Note(f"raising {these} alone admits nothing (decided again with each raised to the value "
                        "shown: still pending, and where that run ends no value of it lets it fit): "
                        + _named(prover, short),
                        f"raising {these} alone admits nothing (decided again with each raised: still pending, "
                        "and where that run ends no value of it lets it fit): "
                        + _brief(prover, [k for k, _ in short], own)))
    seen = {(k.span.file, k.span.line, k.span.column) for k, _ in short}
    refused: dict[tuple, K.Knob] = {}
    for k in prover.alone_refused:
        at = (k.span.file, k.span.line, k.span.column)
        if at not in seen:
            refused.setdefault(at, k)
    if refused:
        head = (f"no value of {'this quota' if len(refused) == 1 else 'any one of these quotas'} alone can admit "
                "it (by arithmetic: what its ClusterQueue can reach at most stays short of what it must hold): ")
        out.append(Note(head + _named(prover, [(k, '') for k in refused.values()]),
                        head + _brief(prover, list(refused.values()), own)))
    return out


def _owned(prover: Prover, knobs: list[K.Knob]):
    """(knob, label, name, which, flavor, resource) of each quota number, in order."""
    for knob in knobs:
        entry = prover._quota_entry(knob)
        if entry is None:
            continue
        kind, name, fname, res, which = entry
        label = ("cluster_queue" if kind == "cq" else "cohort") if knob.kad else (
            "ClusterQueue" if kind == "cq" else "Cohort")
        yield knob, label, name, which, fname, res


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def _named(prover: Prover, knobs: list[tuple[K.Knob, str]]) -> str:
    """Quota numbers by owner and resource: `ClusterQueue `a`'s `cpu` in f (9) and g (4); …`."""
    tails = {id(k): tail for k, tail in knobs}
    by_owner: dict[tuple[str, str, str], list[str]] = {}
    for knob, label, name, which, fname, res in _owned(prover, [k for k, _ in knobs]):
        tail = tails[id(knob)]
        what = f"`{res}`" + ("" if which == "nominal" else f" {which.replace('_', ' ')}")
        by_owner.setdefault((label, name, what), []).append(f"{fname}{tail}")
    return "; ".join(f"{label} `{name}`'s {what} in {_and(at)}" for (label, name, what), at in by_owner.items())


def _brief(prover: Prover, knobs: list[K.Knob], own: str | None) -> str:
    """The first MAX_NAMED parts of the list, the workload's own queue's first: a part is one owner's
    resources (of one kind of number) raised in the same flavors, `cluster_queue `a`'s `cpu` and
    `memory` in f and g`; then how many quota numbers are left unnamed."""
    rows = [r[1:] for r in _owned(prover, knobs)]
    rows = [r for r in rows if r[1] == own and r[0] in ("cluster_queue", "ClusterQueue")] + [
        r for r in rows if not (r[1] == own and r[0] in ("cluster_queue", "ClusterQueue"))]
    flavors: dict[tuple, dict[str, list[str]]] = {}  # (label, name, which) -> resource -> flavors
    for label, name, which, fname, res in rows:
        flavors.setdefault((label, name, which), {}).setdefault(res, []).append(fname)
    parts: dict[tuple, list[str]] = {}  # (label, name, which, flavors) -> resources
    for (label, name, which), by_res in flavors.items():
        for res, fl in by_res.items():
            parts.setdefault((label, name, which, tuple(fl)), []).append(res)
    named = list(parts.items())[:MAX_NAMED]
    owners: dict[tuple[str, str], list[str]] = {}
    for (label, name, which, fl), res in named:
        what = _and([f"`{r}`" for r in res]) + ("" if which == "nominal" else f" {which.replace('_', ' ')}")
        owners.setdefault((label, name), []).append(f"{what} in {_and(list(fl))}")
    text = "; ".join(f"{label} `{name}`'s " + ", its ".join(said) for (label, name), said in owners.items())
    left = len(rows) - sum(len(res) * len(fl) for (_, _, _, fl), res in named)
    return text + (f"; and {left} more {'quota' if left == 1 else 'quotas'} (`--all` lists every one)" if left else "")
