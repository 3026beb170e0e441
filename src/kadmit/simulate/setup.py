"""From the command's inputs to a replay: the start, the arrivals, added capacity; then the results."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kadmit import workspace as ws
from kadmit.diagnostics import Diagnostics
from kadmit.durations import parse_duration_ms
from kadmit.identity import repeat_order
from kadmit.model import Model, Workload
from kadmit.simulate.codes import KAD700, KAD701, KAD703, KAD704, KAD705, KAD706, KAD714, KAD715
from kadmit.source import Span
from kadmit.simulate.run import Capacity, Options, Simulator
from kadmit.simulate.trace import _rows, parse_time, read_trace

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class Plan:
    """Everything a replay needs besides the policy: shared by `--compare` and sweeps."""

    start: datetime
    arrivals: list[tuple[int, Workload]] = field(default_factory=list)
    until_ms: int | None = None
    cycle_ms: int = 0  # Kueue's scheduling cycle: decisions only on its beat (0: at every instant)
    capacity: list[Capacity] = field(default_factory=list)
    nodepools: list = field(default_factory=list)  # kadmit.simulate.karpenter.NodePoolModel


def default_start(model: Model, trace_text: str | None, trace_name: str) -> datetime:
    """The snapshot's instant: the latest creation time in the inputs; without workloads, the
    earliest RFC 3339 time of the trace; else the Unix epoch."""
    if model.workloads:
        return max(w.created for w in model.workloads)
    if trace_text:
        rows = _rows(trace_text, trace_name, Diagnostics()) or []
        times = []
        for _, row in rows:
            ms = parse_time(row.get("time", ""), EPOCH)
            if ms is not None and not row.get("time", "").replace(".", "").isdigit():
                times.append(ms)
        if times:
            from datetime import timedelta
            return EPOCH + timedelta(milliseconds=min(times))
    return EPOCH


def prepare(workspace: ws.Workspace, *, trace: str | None, until: str | None, start: str | None,
            add_nodes: list[str], nodepools: list[str], diags: Diagnostics, limits: ws.Limits,
            cycle: str | None = None) -> Plan | None:
    """The replay's plan, or None with the reasons in `diags` (the run is refused on any error)."""
    model = workspace.model
    reader = ws.Reader(workspace.sources, diags, limits)
    text = None
    name = ""
    if trace is not None:
        name = ws.display_name(Path(trace))
        text = reader.read(Path(trace))
        if text is None:
            return None
    if start is not None:
        ms = parse_time(start, EPOCH)
        if ms is None or start.replace(".", "").isdigit():
            diags.emit(KAD700, f"`--start {start}` is not an RFC 3339 time", help="e.g. 2026-11-20T08:00:00Z")
            return None
        from datetime import timedelta
        t0 = EPOCH + timedelta(milliseconds=ms)
    else:
        t0 = default_start(model, text, name)
    plan = Plan(t0)
    if until is not None:
        plan.until_ms = parse_duration_ms(until)
        if plan.until_ms is None:
            diags.emit(KAD700, f"`--until {until}` is not a duration", help="write seconds or e.g. `72h`")
            return None
    if cycle is not None:
        ms = parse_duration_ms(cycle)
        if ms is None:
            diags.emit(KAD700, f"`--cycle-latency {cycle}` is not a duration", help="e.g. 100ms or 1s")
            return None
        plan.cycle_ms = ms
    errors = len([d for d in diags if d.severity.value == "error"])
    if text is not None:
        arrivals = read_trace(text, name, t0, diags)
        _check(model, arrivals, diags)
        plan.arrivals = [(a.at_ms, a.workload) for a in arrivals]
    for spec in add_nodes:
        got = _capacity(spec, diags, limits)
        if got is None:
            return None
        plan.capacity.append(got)
    for path in nodepools:
        from kadmit.simulate.karpenter import read_nodepools
        got = read_nodepools(path, reader, diags)
        if got is None:
            return None
        plan.nodepools.extend(got)
    if len([d for d in diags if d.severity.value == "error"]) > errors:
        return None
    missing = sorted((w.key for w in model.workloads if w.duration_ms is None and not w.finished), key=repeat_order)
    missing += sorted((wl.key for _, wl in plan.arrivals if wl.duration_ms is None), key=repeat_order)
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        diags.emit(KAD706, f"{len(missing)} workload(s) have no duration and run until the end once admitted: "
                   f"{shown}", help="annotate `kadmit.dev/duration`, write `duration` in .kad, or give a "
                   "trace `duration` column")
    return plan


def _check(model: Model, arrivals, diags: Diagnostics) -> None:
    lqs = {lq.key for lq in model.local_queues}
    classes = {p.name for p in model.priority_classes}
    seen = {w.key for w in model.workloads}
    for a in arrivals:
        wl = a.workload
        if wl.key in seen:
            diags.emit(KAD703, f"workload `{wl.key}` appears twice", wl.span)
        seen.add(wl.key)
        if wl.queue and f"{wl.namespace}/{wl.queue}" not in lqs:
            diags.emit(KAD704, f"no local queue `{wl.queue}` in namespace `{wl.namespace}`", wl.span,
                       help="leave `queue` empty for pods that kube-scheduler alone places")
        ps = wl.pod_sets[0] if wl.pod_sets else None
        if not wl.queue and ps is not None and (ps.topology is not None or ps.min_count is not None):
            diags.emit(KAD701, "`topology` and `min_pods` are Kueue's: a row without a `queue` is pods that "
                       "kube-scheduler alone places, one by one", wl.span)
        if wl.priority_class and wl.priority_class not in classes:
            diags.emit(KAD704, f"no priority class `{wl.priority_class}`", wl.span)


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL in it
        return False


def _capacity(spec: str, diags: Diagnostics, limits: ws.Limits) -> Capacity | None:
    """`TIME:PATH` (or `PATH` for time 0): the nodes defined in PATH join at TIME. Objects of the
    file that are not nodes are named and left out (KAD715); a file without nodes is refused (KAD714)."""
    at_text, colon, path = spec.partition(":") if ":" in spec and not _exists(spec) else ("0", ":", spec)
    at = parse_duration_ms(at_text)
    if at is None:
        diags.emit(KAD705, f"`--add-nodes {spec[:200]}`: `{at_text[:80]}` is not a time from the start",
                   help="write TIME:PATH, e.g. 6h:extra-nodes.yaml")
        return None
    loaded = ws.load([path], limits=limits, validate=False)
    diags.extend(loaded.diagnostics)
    if loaded.input_error:
        return None
    model = loaded.model
    for name in ("topologies", "flavors", "cohorts", "cluster_queues", "local_queues", "priority_classes",
                 "namespaces", "pods", "workloads", "rules", "gangs", "claim_templates"):
        for obj in getattr(model, name):
            span = getattr(obj, "span", None)
            if span is not None:
                what = {"topologies": "topology", "priority_classes": "priority class"}.get(name, name[:-1].replace("_", " "))
                diags.emit(KAD715, f"`--add-nodes`: {what} `{getattr(obj, 'key', None) or getattr(obj, 'name', '')}` "
                           "is not a node: it is not added", span)
    if not model.nodes:
        first = ws.display_name(Path(loaded.files[0])) if loaded.files else path
        diags.emit(KAD714, f"`--add-nodes {spec[:200]}`: `{first}` defines no nodes", Span(file=first, line=1, column=1),
                   help="a Node manifest, or `node NAME { … }` in .kad")
        return None
    return Capacity(at, list(model.nodes), f"added from {ws.display_name(Path(path))}")


def replay(model: Model, plan: Plan, *, mode: str = "ordered", scoring: str = "LeastAllocated",
           tas_profile: str = "Mixed", limits=None, progress=None, split: bool = True,
           work_budget: int | None = None) -> dict:
    """Run one replay and return its results (see `kadmit.simulate.results`). `split=False` decides
    the whole cluster in one engine session (the reference path `simulate.parts` is checked against);
    `work_budget`: pending workloads decided, in all, before the replay stops (`Options.work_budget`)."""
    from kadmit.simulate.results import results
    autoscaler = None
    if plan.nodepools:
        from kadmit.simulate.karpenter import Karpenter
        autoscaler = Karpenter(plan.nodepools)
    t0, c0 = time.perf_counter(), time.process_time()
    sim = Simulator(model, plan.start, plan.arrivals, plan.capacity,
                    Options(mode=mode, tas_profile=tas_profile, scoring=scoring,  # type: ignore[arg-type]
                            until_ms=plan.until_ms, limits=limits, cycle_ms=plan.cycle_ms, split=split,
                            **({"work_budget": work_budget} if work_budget is not None else {})),
                    autoscaler=autoscaler, progress=progress)
    sim.run()
    sim.seconds = time.perf_counter() - t0
    sim.cpu_seconds = time.process_time() - c0
    out = results(sim)
    out["summary"]["start"] = plan.start.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    out["summary"]["scoring"] = scoring
    out["summary"]["mode"] = mode
    return out
