"""`why`'s standing as text: what the workload needs and the most its queue can reach through whom, its
place in line, who held what it needed and whether its queue may preempt them."""

from __future__ import annotations

from kadmit.engine.decide import WhyResult
from kadmit.quantity import format_quantity


def standing_lines(result: WhyResult) -> list[str]:
    """A few sentences with the numbers: what the workload needs and the most it can reach and through
    whom (or, for a gang the nodes can't hold, the room the best domain has); its place in line; and,
    when it would fit an empty cluster, who held what it needed and whether its queue may preempt them."""
    return _standing(result.standing, result.placement, result.met)


def _standing(st, p, met: bool) -> list[str]:
    if st is None:
        return []
    out = []
    r = st.resource
    if st.behind is not None:  # the head's numbers first: it is what keeps this one out
        line = (f"waits behind the {st.behind_strategy} head `{st.behind}`"
                + (" (the API server refuses Kueue's admission write of it: requeued at once)" if st.behind_refused
                   else "" if st.behind_strategy == "StrictFIFO" else " (it has flavors left to try)"))
        head = [x for x in _standing(st.head, None, st.head_met) if not x[:1].isdigit()] \
            if st.head is not None and st.head.quota else []
        if head and head[0].startswith("needs "):
            line += f": it {head.pop(0)}"
        out.append(line)
        out.extend(f"the head: {x}" for x in head)
    if p is not None:
        n = p.count - p.kept  # a workload slice's new pods, beside those its old slice keeps
        out.append(f"needs {n}{' new' if p.kept else ''} pod{'' if n == 1 else 's'} of {p.pod_set} placed at once"
                   + (f" beside the {p.kept} slice `{p.kept_from}` keeps on their nodes" if p.kept else "")
                   + f" ({p.request} in flavor {p.flavor}); {p.topology_view.split(': ', 1)[-1]}")
    elif r is not None and st.quota:
        sets = st.shape.get(r, [])
        pods = " + ".join(f"{n} pod{'' if n == 1 else 's'} × {_q(each, r)}" for _, n, each in sets)
        if st.min_pods < st.pods:
            head = f"needs at least {_q(st.needs[r], r)} {r} ({pods}; partial admission goes no lower)"
        else:
            head = f"needs {_q(st.needs[r], r)} {r}" + (" at once" if st.pods > 1 else "") + \
                (f" ({pods})" if sum(n for _, n, _ in sets) > 1 else "")
        if not st.reach:
            out.append(f"{head}; ClusterQueue {st.cluster_queue} has no quota for {r}")
        else:
            shown = st.reach[:2] if st.short else [max(st.reach, key=lambda x: (x.free or 0, x.most))]
            reach = " and ".join(_reach_text(x) for x in shown)
            line = f"{head}; {st.cluster_queue} can reach {'at most ' if st.short else ''}{reach}"
            if st.beyond_nodes:
                held = " and ".join(f"{_q(n, r)} in {f}" for f, n in st.nodes_hold)
                line += f"; the nodes of its flavors hold {held}: no change of quota alone admits it"
            out.append(line)
    if st.replacing is not None:
        out.append(_replacing_text(st, p is not None))
    if st.evicted_by is not None:
        out.append(f"evicted by `{st.evicted_by}`" + (f" ({st.evicted_reason})" if st.evicted_reason else "")
                   + " and requeued: it waits again in its ClusterQueue's order (priority, then creation time)")
    if st.position is not None:
        line = (f"{_ordinal(st.position + 1)} of {st.pending} pending in ClusterQueue {st.cluster_queue}"
                f" ({_ordinal((st.position_in_local_queue or 0) + 1)} in LocalQueue {st.local_queue})")
        if st.position == 0:
            line += "; nothing of equal or higher priority is ahead of it"
        else:
            res = r if r in st.ahead else next(iter(sorted(st.ahead)), None)
            wants = f" request {_q(st.ahead[res], res)} {res}" if res is not None else ""
            line += f"; the {st.position:,} ahead of it (priority {st.priority} or higher){wants}"
        out.append(line)
    h = st.held
    if h is not None and st.quota and p is None:
        when = "when Kueue last tried it" if met else "at the end of the run"
        reach = next((x for x in st.reach if x.flavor == h.flavor), None)
        most = f" of the {_q(reach.most, h.resource)}" if reach is not None else ""
        holders = ", ".join(f"{n} at priority {pr}" for pr, n, _ in h.by_priority[:3]) + (
            ", …" if len(h.by_priority) > 3 else "")
        line = f"{when}, {_q(h.used, h.resource)}{most} {h.resource} in {h.flavor} were in use"
        if h.holders:
            line += f", held by {h.holders} workload{'' if h.holders == 1 else 's'} ({holders})"
        if h.preemptible:
            line += (f"; its queue may preempt {h.preemptible} of them ({h.policies}), freeing "
                     f"{_q(h.freed, h.resource)}")
        else:
            line += f"; its queue may preempt none of them ({h.policies})"
        out.append(line)
        out.extend(k.says(f"{_q(a, h.resource)} {h.resource} in {h.flavor}") for k, a in h.kept)
    return out


def _replacing_text(st, placed: bool) -> str:
    """A workload slice: the old slice it replaces, and what Kueue asks of it beyond that slice (`placed`: its
    pods are placed on the nodes, every one of them beside the old slice's)."""
    r, old = st.resource, st.replacing
    held = old.held(r) if r is not None else []
    pods = "" if not placed else \
        "; only its new pods are placed, the old slice's kept on their nodes (ElasticJobsViaWorkloadSlicesWithTAS)" \
        if old.only_new_pods else "; its pods are all placed again, beside the old slice's, which stay on their nodes"
    if not held:
        return (f"replaces its job's admitted slice `{old.old}` (ElasticJobsViaWorkloadSlices): of the quota Kueue "
                f"asks only its usage beyond that slice's, on that slice's flavors, counting the old slice's as "
                f"freed{pods}")
    holds = " and ".join(f"{_q(v, r)} {r} in {f}" for f, v in held)
    beyond = max(0, st.needs[r] - sum(v for _, v in held))
    return (f"replaces its job's admitted slice `{old.old}`, which holds {holds} (ElasticJobsViaWorkloadSlices): of "
            f"the quota Kueue asks only the {_q(beyond, r)} {r} beyond it, on the old slice's flavors, counting the "
            f"old slice's as freed{pods}")


def _reach_text(x) -> str:
    q = lambda v: _q(v, x.resource)  # noqa: E731
    text = f"{q(x.most)} in {x.flavor}"
    if not x.borrowed:
        return text + (" (its own quota)" if x.own else "")
    names = [who for who, _ in x.lenders]
    who = _names(names)
    if x.limit is not None:
        return (f"{text} = {q(x.own)} own + {q(x.borrowed)} borrowed (capped by its borrowing limit; {who} "
                f"lend{'s' if len(names) == 1 else ''} {q(x.lent)})")
    return f"{text} = {q(x.own)} own + {q(x.borrowed)} lent by {who}"


def _names(names: list[str], most: int = 3) -> str:
    """`a`, `a and b`, `a, b and c`, `a, b, c and 2 more`."""
    if len(names) > most:
        return ", ".join(names[:most]) + f" and {len(names) - most} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _q(milli: int, resource: str) -> str:
    """A quantity as Kubernetes writes it, a whole number grouped by thousands (1,540 cpu)."""
    text = format_quantity(milli, resource)
    return f"{int(text):,}" if text.isdigit() else text


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
