"""Which changes to try for a workload that isn't admitted, and proving them: candidates come from
the statements in its blame (quota numbers, limits, counts, rules, selectors, queue targets, flavor
references, stop policies), from the one-workload fixes' values as starting points, and from Kueue's
semantics (BestEffortFIFO for a queue blocked by its StrictFIFO head, the head's own fixes). Every
fix returned was proven by deciding the cluster again (`prove.Prover`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace

from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain import knobs as K
from kadmit.engine.explain import spec_knobs as S
from kadmit.engine.explain.bounds import IMPOSSIBLE, Bound, entry_of
from kadmit.engine.explain.coverage import cover_options, out_of_reach
from kadmit.validate.likely import misspelt_resources
from kadmit.engine.explain.fixes import Fix, Obstacles
from kadmit.engine.explain.prove import Change, Proven, Prover
from kadmit.engine.explain.rank import ordered
from kadmit.engine.explain.raises import ahead_in_tree, alone_notes, flavor_raises, group_raises, lender_raises
from kadmit.model import Model, Workload
from kadmit.source import SourceMap

MAX_TARGETS = 3  # other queues / flavors tried for a retarget
MAX_PAIR_FIRST = 3  # candidates per blame group combined with another group's
MAX_NODE_RAISES = 2  # node allocatable quantities searched for a placement core's domains


@dataclass
class Ask:
    """The question: the workload, what blocks it, and (StrictFIFO) the head it waits behind."""

    workload: Workload
    own: Obstacles
    head: Obstacles | None = None  # the StrictFIFO head's own obstacles
    cluster_queue: str | None = None
    # per quota number of the blame, the least value with which the workload fits on its own at the
    # state it met when Kueue last tried it (`met_starts`): where its search starts
    met: dict[str, int] = field(default_factory=dict)
    ahead: dict[str, int] = field(default_factory=dict)  # what the pending ahead of it in its queue request
    head_key: str | None = None  # the StrictFIFO head's key


def proven_fixes(prover: Prover, model: Model, sources: SourceMap, ask: Ask, units: dict[str, int]) -> list[Proven]:
    """Every candidate proven by deciding again, best first (`rank.ordered`: grouped by who acts, then
    by side effects, then by the relative size of the change, the workload's own queue first)."""
    found: dict[tuple, Proven] = {}

    def keep(p: Proven | None) -> None:
        if p is not None:
            found.setdefault(tuple(sorted(c.key for c in p.changes)), p)

    bound = Bound.of(model, ask.workload)
    prover.bound = bound  # changes of quota numbers it refuses are refused without deciding again
    singles = _singles(prover, model, sources, ask.own, ask.workload, units, bound=bound, met=ask.met,
                       ahead=ask.ahead)
    switch = None
    if ask.head is not None:
        cq = next((c for c in model.cluster_queues if c.name == ask.cluster_queue), None)
        knob = K.queueing_knob(sources, cq) if cq is not None else None
        switch = Change(knob, K.best_effort(knob)) if knob is not None else None
        if switch is not None:
            keep(prover.prove([switch]))
        for ch in singles:
            keep(prover.prove(ch))
    else:
        for ch in singles:
            keep(prover.prove(ch))
    if ask.head is None:  # its owner may raise its priority: it then goes before the lower ones in line
        values = {p.name: p.value for p in model.priority_classes}
        for ch in _priorities(model, sources, ask.workload):
            if bound.necessary(priority=values[str(ch.new)]):  # else no run admits it at that priority
                keep(prover.prove([ch]))
            else:
                prover.refuse([ch])
    if len(ask.own.groups) > 1:
        for p in flavor_raises(prover, model, sources, ask.own, ask.workload, units):
            keep(p)
    else:  # (behind a StrictFIFO head too: the head and the rest ahead go first with the room)
        for p in group_raises(prover, model, sources, ask.own, ask.workload, units, singles, ask.ahead):
            keep(p)
        for p in lender_raises(prover, model, sources, ask.own, ask.workload, units, singles, ask.ahead,
                               found=bool(found)):
            keep(p)
    if ask.head is not None:
        _head_fixes(prover, model, sources, ask, units, keep, bool(found))
    if switch is not None:
        _after_switch(prover, model, sources, ask, units, keep, switch, bool(found))
    if not found and len(ask.own.groups) > 1:
        _pairs(prover, model, sources, ask.own, ask.workload, units, keep)
    for note in alone_notes(prover, list(found.values()), ask.cluster_queue):
        if note not in prover.notes:
            prover.notes.append(note)
    lq = next((q for q in model.local_queues if q.key == f"{ask.workload.namespace}/{ask.workload.queue}"), None)
    return ordered(list(found.values()), lq.cluster_queue if lq is not None else ask.cluster_queue)


def _head_fixes(prover: Prover, model: Model, sources: SourceMap, ask: Ask, units: dict[str, int], keep,
                found: bool) -> None:
    """Behind a StrictFIFO head: the head's own fixes (the numbers of its blame, searched from its
    one-workload fixes' values), each proven for the workload by deciding again. Tried after every
    single change and raise of the workload's own; once one of those is `found`, a quota number the
    workload's own search already raised alone is not searched again from the head's values where
    that run shows the head was no obstacle any more: the head admitted, the workload still pending,
    and at that run's end no value of the number lets it fit (`Prover.alone_short`); a note says
    how many were left."""
    settled: set[tuple] = set()
    if found and ask.head_key is not None:
        for knob, v in prover.alone_short:
            r = prover.kept_run([Change(knob, v)])
            head = r.states.get(ask.head_key) if r is not None else None
            if head is not None and head.admitted:
                settled.add((knob.span.file, knob.span.line, knob.span.column))
    left: list[str] = []
    for ch in _singles(prover, model, sources, ask.head, None, units, settled=settled, left=left):
        keep(prover.prove(ch))
    if left:
        many = f"{len(left)} quotas" if len(left) > 1 else "one quota"
        note = (f"the head `{ask.head_key}`'s own fixes were not searched in {many} raised alone for this "
                "workload (the head admitted then, it still pending with no value fitting it): fixes were found "
                "without them")
        if note not in prover.notes:
            prover.notes.append(note)


def _after_switch(prover: Prover, model: Model, sources: SourceMap, ask: Ask, units: dict[str, int], keep,
                  switch: Change, found: bool) -> None:
    """Behind a StrictFIFO head, where the switch to BestEffortFIFO alone admits nothing: the queue's
    own obstacles stand once the head no longer blocks, so each number of its own blame is searched
    with the switch applied (both changes needed). Tried last, after every single change and raise
    (what a person changes first); once one of those is `found`, the numbers of other queues' quotas
    are not searched with the switch (as `_singles` leaves another queue's number once a fix is
    found), and a note says how many were left."""
    if prover.admits([switch]):
        return
    left: list[str] = []
    for ch in _singles(prover, model, sources, ask.own, ask.workload, units, fixed=[switch],
                       lenders=not found, left=left):
        p = prover.prove([switch] + ch)
        if p is not None and not prover.admits(ch):  # else the second alone is the fix
            p.needs = " (neither change alone admits it: the second needs the first)"
            keep(p)
    if left:
        many = f"{len(left)} of the blame" if len(left) > 1 else "one of the blame"
        note = (f"the switch of ClusterQueue `{ask.cluster_queue}` to BestEffortFIFO was not tried with a raise of a "
                f"quota outside it ({many}): fixes were found without it")
        if note not in prover.notes:
            prover.notes.append(note)


def choose(found: list[Proven], n: int) -> list[Proven]:
    """The `n` fixes to show, from `found` in order: the best of each group of who acts first (so the
    reader sees every kind of choice there is), then the next best; grouped by who acts, the groups
    in the order of their best fix."""
    if n <= 0:
        return []
    actors = list(dict.fromkeys(p.actor for p in found))
    picked = [next(p for p in found if p.actor == a) for a in actors][:n]
    for p in found:
        if len(picked) >= n:
            break
        if p not in picked:
            picked.append(p)
    return [p for a in actors for p in found if p.actor == a and p in picked]


def _priorities(model: Model, sources: SourceMap, wl: Workload) -> list[Change]:
    """Kueue orders a queue by priority: the next higher priority classes (at most two)."""
    knob = S.priority_knob(model, sources, wl)
    if knob is None:
        return []
    values = {p.name: p.value for p in model.priority_classes
              if wl.priority_class_kind is None or p.kind == wl.priority_class_kind}
    mine = values.get(str(knob.value))
    if mine is None:
        return []
    higher = sorted((v, name) for name, v in values.items() if v > mine)
    return [Change(knob, name) for _, name in higher[:2]]


def _pairs(prover: Prover, model: Model, sources: SourceMap, obs: Obstacles, wl: Workload,
           units: dict[str, int], keep) -> None:
    """Independent obstacles (blame groups) need a change each: one candidate of an earlier group
    with each of a later one, its numbers searched with the first change applied."""
    def part(group: list[Origin], fixed: list[Change]) -> list[list[Change]]:
        ids = {o.id for o in group}
        cands = [f for f in obs.candidates if len(f.changes) == 1 and f.changes[0].origin in ids]
        return _singles(prover, model, sources, Obstacles(list(group), cands), wl, units, fixed)[:MAX_PAIR_FIRST]

    groups = obs.groups
    for i in range(len(groups)):
        for first in part(groups[i], []):
            for j in range(i + 1, len(groups)):
                for second in part(groups[j], first):
                    p = prover.prove(first + second)
                    if p is not None:
                        p.needs = " (each alone does not admit it: the blame's independent obstacles need one each)"
                        keep(p)


def _singles(prover: Prover, model: Model, sources: SourceMap, obs: Obstacles, wl: Workload | None,
             units: dict[str, int], fixed: list[Change] = (), bound: Bound | None = None,
             met: dict[str, int] | None = None, ahead: dict[str, int] | None = None,
             lenders: bool = True, left: list[str] | None = None,
             settled: set[tuple] | frozenset = frozenset()) -> list[list[Change]]:
    """One change (or group of changes) per candidate, its number searched by deciding again (with
    `fixed` applied). Quota numbers: the workload's own ClusterQueue's first (its nominal quota and
    borrowing limit in the blame even where no one-workload fix names them); with `bound` (and
    nothing `fixed`), a number no value of which can admit the workload is skipped, and the search
    starts from the value with which its queue has room for everything queued ahead of it. Every
    quota number of the blame is a candidate (another queue's lending limit, a cohort's quota), its
    search starting where the workload fits on its own at the state it met (`met`), with room for
    what is queued ahead of it in its ClusterQueue too (`ahead`: those go first); once a fix is found,
    another queue's number is decided again once, and kept as it is if that admits it (not called
    minimal). Without `lenders`, another queue's number is left out (its id added to `left`); so is a
    number whose place (file, line, column) is in `settled`."""
    out: list[list[Change]] = []
    seen: set = set()

    def add(ch: Change | list[Change] | None) -> None:
        group = ch if isinstance(ch, list) else [ch] if ch is not None else []
        key = tuple(sorted(c.key for c in group))
        if group and key not in seen:
            seen.add(key)
            out.append(group)

    # numbers: searched from a one-workload fix's value (a single change's; with `fixed` applied, a
    # pair's too, or one unit up for a number no one-workload fix names)
    starts: dict[str, int] = {}
    subjects: dict[str, str] = {o.id: o.param.subject for o in obs.origins if o.param is not None}
    order: list[str] = []
    for fx in sorted(obs.candidates, key=lambda f: len(f.changes)):
        if len(fx.changes) > 1 and not fixed:
            continue
        for c in fx.changes:
            if c.value is None or c.kind not in ("raise", "lower"):
                continue
            pick = min if c.kind == "raise" else max
            starts[c.origin] = pick(starts.get(c.origin, c.value), c.value)
            subjects.setdefault(c.origin, c.subject)
            if c.origin not in order:
                order.append(c.origin)
    if fixed:
        order += [o.id for o in obs.origins if o.id not in order and o.id.startswith(("quota|", "gang|"))]
    lq = next((q for q in model.local_queues if wl is not None and q.key == f"{wl.namespace}/{wl.queue}"), None)
    own = f"quota|cq:{lq.cluster_queue}|" if lq is not None else None
    if own is not None and not fixed:
        order += [o.id for o in obs.origins if o.id not in order and o.id.startswith(own)
                  and o.id.endswith(("|nominal", "|borrowing_limit"))]
    if not fixed and wl is not None:  # every quota number of the blame is a fix a person may choose
        order += [o.id for o in obs.origins if o.id not in order and o.id.startswith("quota|")]
    order.sort(key=lambda oid: not (own is not None and oid.startswith(own)))  # stable: own queue's first
    bound = bound if not fixed and wl is not None else None
    for oid in order:
        if oid.startswith("quota|"):
            _, nid, fname, res, which = oid.split("|")
            knob = K.quota_knob(model, sources, nid, fname, res, which)
            if knob is None:
                continue
            if (knob.span.file, knob.span.line, knob.span.column) in settled:
                if left is not None:
                    left.append(oid)
                continue
            old, unit = int(knob.value), units.get(res, 1)
            entry = entry_of(oid)
            floor = bound.least(entry, old) if bound is not None and entry is not None else None
            if floor == IMPOSSIBLE:
                prover.refuse(list(fixed) + [Change(knob, old)])
                if not fixed:
                    prover.alone_refused.append(knob)
                continue  # no value of this number lets the workload in (`bounds`: necessary condition)
            enough = bound.enough(entry, old) if bound is not None and entry is not None else None
            alternative = bool(out) and not (own is not None and oid.startswith(own))
            if not lenders and not (own is not None and oid.startswith(own)):
                if left is not None:
                    left.append(oid)
                continue
            from_met = (met or {}).get(oid)
            if alternative and enough is None and from_met is None:
                continue  # a fix is found: another queue's number only where some value surely helps
            start = max(starts.get(oid, from_met if from_met is not None else old + unit), floor or 0)
            # what is queued ahead of it in its ClusterQueue goes first: room for it too (a search down follows)
            queued = (ahead or {}).get(res, 0)
            if queued:
                start = max(start, (from_met if from_met is not None else old + unit) + queued)
            hint = None
            if enough is not None:
                start = max(start, enough)
            elif wl is not None:
                hint = old + ahead_in_tree(prover, model, wl, res)
            tries = 1 if alternative else 4 if oid in starts or from_met is not None else 8
            add(prover.raise_until(knob, start, unit, fixed=list(fixed), tries=tries,
                                   hint=hint, floor=floor, down=not alternative))
        elif oid.startswith("gang|"):
            owner = _owner(model, subjects.get(oid, "")) or wl
            if owner is None:
                continue
            ps = oid.split("|", 1)[1]
            pset = next((p for p in owner.pod_sets if p.name == ps), None)
            which = "min_count" if pset is not None and pset.min_count is not None else "count"
            knob = S.pod_set_knob(sources, owner, ps, which)
            got = None
            if knob is not None and int(knob.value) > 1:
                start = max(1, starts[oid] // knob.scale) if oid in starts else int(knob.value) - 1
                got = prover.lower_until(knob, start, fixed=list(fixed))
                add(got)
            if got is None and which == "count":
                add(_per_job(prover, sources, owner, ps, knob, starts.get(oid), list(fixed)))
    # a domain of a placement core made roomier: the domains closest to fitting first, each on the
    # resource its node holds fewest pods by
    domains = sorted((o for o in obs.origins if o.kind == "domain" and wl is not None),
                     key=lambda o: (-(o.param.value or 0) if o.param is not None else 0, o.id))
    for o in domains[:MAX_NODE_RAISES]:
        for knob, per_pod in _allocatable_knobs(model, sources, wl, obs.pod_set, o.id)[:1]:
            # steps of one pod's request, bisected down to whole units where a pod asks few
            unit = 1000 if per_pod % 1000 == 0 and per_pod <= 1024 * 1000 else per_pod
            add(prover.raise_until(knob, int(knob.value) + per_pod, unit, tries=5, fixed=list(fixed)))
    for o in obs.origins:
        if o.kind == "domain":
            continue
        if o.kind == "coverage" and wl is not None:
            for ch in _covers(prover, model, sources, wl, o.id.rsplit("|", 1)[1], units, list(fixed)):
                add(ch)
            continue
        if o.kind == "count" and o.id.startswith(("placement|count|", "gang|count")) and wl is not None:
            name = o.id.rsplit("|", 1)[1] if o.id.startswith("placement|") else obs.pod_set
            pset = next((p for p in wl.pod_sets if p.name == name), None)
            if pset is not None and pset.count > 1:
                which = "min_count" if pset.min_count is not None else "count"
                knob = S.pod_set_knob(sources, wl, pset.name, which)
                if knob is not None:
                    add(prover.lower_until(knob, int(knob.value) - 1, fixed=list(fixed)))
            continue
        for ch in _edits_for(model, sources, o, wl, obs.pod_set):
            add(ch)
    return out


def _covers(prover: Prover, model: Model, sources: SourceMap, wl: Workload, res: str, units: dict[str, int],
            fixed: list[Change]) -> list[list[Change]]:
    """The workload's queue given quota for a resource it has none of (`coverage.cover_options`):
    the quota meant for the workload searched, the other edits of the option fixed."""
    lq = next((q for q in model.local_queues if q.key == f"{wl.namespace}/{wl.queue}"), None)
    cq = next((c for c in model.cluster_queues if lq is not None and c.name == lq.cluster_queue), None)
    out: list[list[Change]] = []
    meant = misspelt_resources(model).get(res)
    if meant is not None:  # a quota for a misspelling would only hide it (check: KAD300)
        note = (f"`{res}` looks like a misspelling of `{meant}` (KAD300): no cluster queue covers it"
                + (" and no node has it" if model.nodes else "")
                + f"; no fix adds it to a quota: correct the request to `{meant}` if that is what it means")
        if note not in prover.notes:
            prover.notes.append(note)
        return out
    options = cover_options(model, sources, cq, res, wl) if cq is not None else []
    if cq is not None and not options:
        note = out_of_reach(model, sources, cq, res, wl)
        if note not in prover.notes:
            prover.notes.append(note)
    for opt in options:
        given = [Change(k, v) for k, v in opt.fixed]
        if opt.searched is None:
            out.append(given)
            continue
        ch = prover.raise_until(opt.searched, opt.start, units.get(res, 1), tries=4, fixed=fixed + given)
        if ch is not None:
            out.append(given + [ch])
    return out


def _per_job(prover: Prover, sources: SourceMap, wl: Workload, ps: str, replicas: K.Knob | None,
             start: int | None, fixed: list[Change]) -> list[Change] | None:
    """A replicated job's pods per job (`parallelism`) lowered, with its replicas at one when
    fewer replicas alone don't admit it (a JobSet's pod set counts replicas × pods per job)."""
    knob = S.per_job_knob(sources, wl, ps)
    if knob is None:
        return None
    first = max(1, start // knob.scale) if start is not None else int(knob.value) - 1
    got = prover.lower_until(knob, first, fixed=fixed)
    if got is not None or replicas is None or int(replicas.value) <= 1:
        return [got] if got is not None else None
    one = Change(replicas, 1)
    single = replace(knob, scale=1, subject=knob.subject.split(" (")[0])  # one job's pods
    got = prover.lower_until(single, start if start is not None else int(knob.value) - 1, fixed=fixed + [one])
    return [one, got] if got is not None else None


def _owner(model: Model, subject: str) -> Workload | None:
    """The workload a `pod set … of `ns/name`` subject names."""
    if "of `" not in subject:
        return None
    key = subject.rsplit("of `", 1)[1].rstrip("`")
    return next((w for w in model.workloads if w.key == key), None)


def _edits_for(model: Model, sources: SourceMap, o: Origin, wl: Workload | None,
               pod_set: str | None = None) -> list[Change | list[Change]]:
    """Non-numeric changes an origin suggests (each still to be proven); a list is changes that only
    make sense together (the same taint removed from every node that has it)."""
    out: list[Change | list[Change]] = []
    if wl is None:
        return out
    lq_key = f"{wl.namespace}/{wl.queue}"
    lq = next((q for q in model.local_queues if q.key == lq_key), None)
    cq = next((c for c in model.cluster_queues if lq is not None and c.name == lq.cluster_queue), None)
    ns = next((n for n in model.namespaces if n.name == wl.namespace), None)
    # as the API server keeps them: a selector on kubernetes.io/metadata.name matches the name
    labels = ns.effective_labels() if ns is not None else {}
    if o.kind in ("usage", "holder"):
        key = o.id.split("|")[1] if o.kind == "usage" else o.id.split("|", 3)[3]
        if o.id.startswith("usage|cq:") or key == wl.replaces:  # (a slice's old one goes once it is admitted)
            return out
        pod = o.kind == "holder" and o.id.split("|")[2] == "pod"
        knob = K.wait_knob(model, f"pod:{key}") if pod else \
            K.integration_knob(model, sources, key) or K.finish_knob(model, sources, key)
        if knob is not None:
            out.append(Change(knob, knob.value))
        if cq is not None and o.kind == "usage":  # let the queue's policy preempt the holders
            for which, to in (("within_cluster_queue", "LowerPriority"), ("reclaim_within_cohort", "Any")):
                pk = K.preemption_knob(sources, cq, which)
                if pk is not None and pk.value == "Never":
                    out.append(Change(pk, K.enum_text(pk, to)))
    elif o.kind == "taint" and o.id.startswith("taint|"):
        _, ps_name, _ = o.id.split("|", 2)
        taint = next((t for f in model.flavors for t in f.node_taints if str(t) == o.id.split("|", 2)[2]), None)
        if taint is not None:
            knob = S.tolerate_knob(sources, wl, ps_name, taint)
            if knob is not None:
                out.append(Change(knob, knob.value))
    elif o.kind == "rule":
        name = o.id.split("|", 1)[1]
        knob = K.rule_knob(model, sources, name)
        if knob is not None:
            out.append(Change(knob, "false" if knob.value == "forbid" else "true"))
    elif o.kind == "namespace_selector" and cq is not None and cq.namespace_selector is not None:
        for key, value in sorted(cq.namespace_selector.match_labels.items()):
            if labels.get(key) != value and key != "kubernetes.io/metadata.name":  # the name, not a label
                knob = K.label_knob(model, sources, wl.namespace, key)
                if knob is not None:
                    out.append(Change(knob, value))
        out += _retarget(model, sources, lq_key, labels, cq.name)
    elif o.kind == "cluster_queue":
        out += _retarget(model, sources, lq_key, labels, None)
    elif o.kind == "local_queue" and o.id == "gate|local_queue":  # its owner queues it to one that exists
        knob = S.queue_name_knob(sources, wl)
        names = sorted(q.name for q in model.local_queues if q.namespace == wl.namespace)
        # a name close to the one written (a typo's fix, as `check`'s KAD202 "did you mean"), else each of them
        near = difflib.get_close_matches(wl.queue, names, n=MAX_TARGETS, cutoff=0.6)
        for name in (near or names[:MAX_TARGETS]) if knob is not None else ():
            out.append(Change(knob, name))
        # or the platform creates the queue in its namespace, as the namespaces that have one of that name
        elsewhere = sorted((q for q in model.local_queues if q.name == wl.queue and q.namespace != wl.namespace),
                           key=lambda q: q.key)
        for lq in elsewhere[:MAX_TARGETS] if wl.namespace else ():
            created = K.new_local_queue_knob(sources, lq, wl.namespace)
            if created is not None:
                out.append(Change(created, lq.cluster_queue))
    elif o.kind == "stop_policy" and cq is not None:
        knob = K.stop_policy_knob(sources, cq)
        if knob is not None:
            out.append(Change(knob, K.no_stop(knob)))
    elif o.kind == "topology" and o.id.startswith(("placement|topology|", "gang|topology")):
        name = o.id.rsplit("|", 1)[1] if o.id.startswith("placement|") else pod_set
        knob = S.topology_knob(sources, wl, name or "")
        if knob is not None:
            out.append(Change(knob, "preferred"))
    elif o.kind == "node_taint":
        text = o.id.split("|", 2)[2]
        ps_name = pod_set or next((p.name for p in wl.pod_sets if p.topology is not None), None)
        taint = next((t for n in model.nodes for t in n.taints if K.taint_text(t) == text), None)
        knob = S.tolerate_knob(sources, wl, ps_name, taint) if ps_name and taint is not None else None
        if knob is not None:  # the pod set tolerates it
            out.append(Change(knob, knob.value))
        group = []  # or the taint goes from every node that has it
        for n in sorted(model.nodes, key=lambda n: n.name):
            if any(_taint_text(t) == text for t in n.taints):
                knob = K.node_taints_knob(model, sources, n.name)
                if knob is None:
                    break
                group.append(Change(knob, "[]"))
        else:
            if group:
                out.append(group)
        return out
    elif o.kind == "flavor_missing" and cq is not None:
        missing = o.id.rsplit("|", 1)[1]
        knob = K.flavor_ref_knob(sources, cq, missing)
        used = {fq.flavor for g in cq.resource_groups for fq in g.flavors}
        for f in sorted(f.name for f in model.flavors if f.name not in used)[:MAX_TARGETS]:
            if knob is not None:
                out.append(Change(knob, f))
    return out


_taint_text = K.taint_text


def _allocatable_knobs(model: Model, sources: SourceMap, wl: Workload, pod_set: str | None,
                       oid: str) -> list[tuple[K.Knob, int]]:
    """A placement core's domain (`gang|domain|PATH`, `*`: the whole topology) made roomier: the
    allocatable of the first of its nodes the pod set may use, per resource it requests (the one
    the node's allocatable holds fewest pods by first), each with the pod's request as the step."""
    ps = next((p for p in wl.pod_sets if p.name == pod_set), None) or \
        next((p for p in wl.pod_sets if p.topology is not None), None)
    if ps is None:
        return []
    path = oid.split("|", 2)[2]
    values = [] if path == "*" else path.split("/")

    def inside(n) -> bool:
        return any(len(t.levels) >= len(values) and all(n.labels.get(lv) == v for lv, v in zip(t.levels, values))
                   for t in model.topologies)

    lq = next((q for q in model.local_queues if q.key == f"{wl.namespace}/{wl.queue}"), None)
    names = {fq.flavor for c in model.cluster_queues if lq is not None and c.name == lq.cluster_queue
             for g in c.resource_groups for fq in g.flavors}
    flavors = [f for f in model.flavors if f.name in names and f.topology]  # the pod set's candidates

    def usable(n) -> bool:
        return (n.ready and not n.unschedulable and all(n.labels.get(k) == v for k, v in ps.node_selector.items())
                and any(all(n.labels.get(k) == v for k, v in f.node_labels.items()) for f in flavors)
                and all(t.effect not in ("NoSchedule", "NoExecute") or any(x.tolerates(t) for x in ps.tolerations)
                        for t in n.taints))

    node = next((n for n in sorted(model.nodes, key=lambda n: n.name) if inside(n) and usable(n)), None)
    if node is None:
        return []
    out = []
    for res in sorted((r for r, q in ps.requests.items() if q and r != "pods"),
                      key=lambda r: (node.allocatable.get(r, 0) // ps.requests[r], r)):
        knob = K.allocatable_knob(model, sources, node.name, res)
        if knob is not None:
            out.append((knob, ps.requests[res]))
    return out


def _retarget(model: Model, sources: SourceMap, lq_key: str, labels: dict, current: str | None) -> list[Change]:
    knob = K.local_queue_knob(model, sources, lq_key)
    if knob is None:
        return []
    others = [c.name for c in sorted(model.cluster_queues, key=lambda c: c.name)
              if c.name != current and c.namespace_selector is not None and c.namespace_selector.matches(labels)]
    return [Change(knob, name) for name in others[:MAX_TARGETS]]
