"""What an editor shows on hover, as Markdown: a cluster queue's quotas and reach, a cohort, a flavor
and its users, a workload and its decision, a quantity's value; and `why`'s answer in one line."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.quantity import MILLI, format_quantity


@dataclass(frozen=True)
class QuotaRow:
    """One flavor-resource of a queue or cohort: its own numbers, what it can reach, what is free."""

    flavor: str
    resource: str
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None
    reach: int | None = None  # Kueue's maximum capacity: nominal plus what the cohort can lend it, no usage
    free: int | None = None  # what one more workload may take now, with the admitted workloads' usage


def _q(milli: int | None, resource: str, none: str = "—") -> str:
    return none if milli is None else format_quantity(milli, resource)


def _code(items) -> str:
    return ", ".join(f"`{x}`" for x in items) or "—"


def quota_table(rows: list[QuotaRow], with_reach: bool) -> list[str]:
    if not rows:
        return ["no quota"]
    head = "| flavor | resource | nominal | borrow | lend |" + (" reach | free now |" if with_reach else "")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        line = (f"| {r.flavor} | {r.resource} | {_q(r.nominal, r.resource)} | "
                f"{_q(r.borrowing_limit, r.resource, 'unlimited')} | {_q(r.lending_limit, r.resource, 'all')} |")
        if with_reach:
            line += f" {_q(r.reach, r.resource)} | {_q(r.free, r.resource)} |"
        out.append(line)
    return out


def cluster_queue_md(cq, rows: list[QuotaRow], cohort_path: list[str], local_queues: list[str],
                     pending: int, admitted: int) -> str:
    out = [f"**cluster queue `{cq.name}`**", ""]
    out.append("cohort: " + (" → ".join(f"`{c}`" for c in cohort_path) if cohort_path else "none (it borrows from no one)"))
    out.append(f"queueing: {cq.queueing_strategy} · preemption: within queue {cq.preemption.within_cluster_queue}, "
               f"reclaim {cq.preemption.reclaim_within_cohort} · stop policy: {cq.stop_policy}")
    out.append(f"local queues: {_code(local_queues)} · workloads: {admitted} admitted, {pending} pending")
    out.append("")
    out += quota_table(rows, with_reach=True)
    out += ["", "*reach*: the most one workload can take on an empty cluster (nominal quota plus what its "
            "cohort can lend it, within borrowing limits: Kueue's `available()` without usage); "
            "*free now*: the same with the admitted workloads' usage."]
    return "\n".join(out)


def cohort_md(c, rows: list[QuotaRow], path: list[str], children: list[str], queues: list[str]) -> str:
    out = [f"**cohort `{c.name}`**" + ("" if c.explicit else " (named by a queue, not defined)"), ""]
    if len(path) > 1:
        out.append("parents: " + " → ".join(f"`{p}`" for p in path[1:]))
    out.append(f"cluster queues: {_code(queues)}")
    if children:
        out.append(f"cohorts below: {_code(children)}")
    out += ["", "own quota:" if rows else "own quota: none"]
    if rows:
        out += quota_table(rows, with_reach=False)
    return "\n".join(out)


def flavor_md(f, users: list[str]) -> str:
    out = [f"**flavor `{f.name}`**", ""]
    out.append("node labels: " + (", ".join(f"`{k}={v}`" for k, v in sorted(f.node_labels.items())) or "—"))
    out.append("node taints: " + _code(f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
                                        for t in f.node_taints))
    if f.tolerations:
        out.append(f"tolerations (added to admitted pods): {len(f.tolerations)}")
    out.append(f"topology: `{f.topology}`" if f.topology else "topology: none")
    out.append(f"used by: {_code(users)}")
    return "\n".join(out)


def workload_md(w, cluster_queue: str | None, priority: int, decision: str | None) -> str:
    out = [f"**workload `{w.key}`**", ""]
    out.append(f"queue: `{w.queue}` → cluster queue " + (f"`{cluster_queue}`" if cluster_queue else "none"))
    out.append(f"priority: {priority}" + (f" (`{w.priority_class}`)" if w.priority_class else ""))
    for ps in w.pod_sets:
        req = ", ".join(f"{r}={format_quantity(q, r)}" for r, q in sorted(ps.requests.items()))
        count = f"{ps.count}" if ps.min_count in (None, ps.count) else f"{ps.min_count}–{ps.count}"
        out.append(f"pod set `{ps.name}`: {count} × {{{req}}}")
    if decision:
        out += ["", decision]
    return "\n".join(out)


def quantity_md(text: str, milli: int, resource: str) -> str:
    units, rest = divmod(milli, MILLI)
    exact = f"{units:,}" if not rest else f"{milli:,} milli-units"
    shown = format_quantity(milli, resource)
    out = [f"**`{text}`** = {exact}" + (f" {resource}" if resource else "")]
    if shown != text:
        out.append(f"canonical: `{shown}`")
    out.append(f"milli-units: {milli:,}")
    return "\n\n".join(out)


def simple_md(title: str, lines: list[str]) -> str:
    return "\n".join([f"**{title}**", ""] + lines)


def decision_line(d, reasons: list) -> str:
    """One workload's decision in a line: admitted where and how, or the first of Kueue's reasons."""
    if d.unknown:
        return "decision: kadmit couldn't decide within the solver's limits"
    if d.admitted and d.assignment is not None:
        a = d.assignment
        sets = "; ".join(f"{ps} {a.counts.get(ps, 0)}×{','.join(sorted(set(fl.values()))) or '-'}"
                         for ps, fl in sorted(a.flavors.items()))
        return f"decision: **admitted** to `{d.cluster_queue}` ({sets}){' borrowing' if a.borrowing else ''}"
    if d.admitted:
        return f"decision: **admitted** to `{d.cluster_queue}`"
    more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return "decision: **not admitted**" + (f": {reasons[0].message}{more}" if reasons else "")


def why_summary(result) -> str:
    """`why`'s answer in one line: the verdict, the first reason, and how many proven fixes."""
    if result.unknown:
        return f"kadmit couldn't decide whether `{result.workload}` can be admitted within the solver's limits"
    if result.admitted:
        return f"`{result.workload}` is admitted"
    if result.replaced_by is not None:  # an elastic job's old slice, finished by its new one
        return f"`{result.workload}` is finished, replaced by its job's new slice `{result.replaced_by}`"
    line = f"`{result.workload}` can't be admitted"
    if result.reasons:
        line += f": {result.reasons[0].message}"
        if len(result.reasons) > 1:
            line += f" (+{len(result.reasons) - 1} more)"
    n = len(result.fixes)
    return line + (f"; {n} proven fix{'' if n == 1 else 'es'} (code actions on the workload)" if n else "; no proven fix")
