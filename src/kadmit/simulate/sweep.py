"""Sweeps: many variants of one replay (policies, quota grids, node counts, scoring), each run on its
own (a process pool by default, or Ray), tabulated side by side.

SWEEP.yaml:
    variants:                      # explicit variants (optional)
      - name: today
        paths: [policy-today/]     # instead of the command's PATHS
      - name: tomorrow
        paths: [policy-tomorrow/]
        add_nodes: ["6h:extra-nodes.kad"]
        mode: optimal              # ordered | optimal (default: the command's --mode)
        cycle_latency: 1s          # a duration (default: the command's --cycle-latency; 0: none)
    grid:                          # the cartesian product, applied to every variant (optional)
      - set: {cluster_queue: team-a, flavor: h100, resource: nvidia.com/gpu, field: nominal}
        values: [16, 24, 32]
      - scoring: [LeastAllocated, MostAllocated]
      - mode: [ordered, optimal]
      - cycle_latency: [0s, 1s]
What a variant may set: `name`, `paths`, `add_nodes`, `scoring`, `mode`, `cycle_latency`; a grid
axis varies `set` (a quota number), `scoring`, `mode` or `cycle_latency`. What a variant doesn't set
comes from the command line (`--mode`, `--cycle-latency`; the trace, `--until` and `--start` are
every variant's). A variant is a plain value: it runs the same way anywhere, and the same variant
gives the same figures.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kadmit.diagnostics import Diagnostics
from kadmit.durations import parse_duration_ms
from kadmit.model import Model
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.simulate.codes import KAD700, KAD705

FIELDS = ("nominal", "borrowing_limit", "lending_limit")
SCORINGS = ("LeastAllocated", "MostAllocated")
MODES = ("ordered", "optimal")
VARIANT_KEYS = ("name", "paths", "add_nodes", "scoring", "mode", "cycle_latency")
MAX_VARIANTS = 10_000


@dataclass(frozen=True)
class QuotaChange:
    cluster_queue: str
    flavor: str
    resource: str
    field: str
    value: int | None  # milli-units; None: unlimited (limits only)


@dataclass(frozen=True)
class Variant:
    name: str
    paths: tuple[str, ...]
    quota: tuple[QuotaChange, ...] = ()
    scoring: str = "LeastAllocated"
    add_nodes: tuple[str, ...] = ()
    mode: str | None = None  # None: the command's
    cycle_latency: str | None = None  # None: the command's


@dataclass(frozen=True)
class Common:
    """What every variant shares: the arrivals and the clock; the command's mode and cycle latency,
    for variants that don't set their own."""

    trace: str | None = None
    until: str | None = None
    start: str | None = None
    max_file_bytes: int | None = None
    mode: str = "ordered"
    cycle_latency: str | None = None
    rlimit: int | None = None  # the solver's limits per check (None: the defaults)
    timeout_ms: int | None = None

    def check(self, diags: Diagnostics) -> bool:
        if self.cycle_latency is not None and parse_duration_ms(self.cycle_latency) is None:
            diags.emit(KAD700, f"`--cycle-latency {self.cycle_latency}` is not a duration", help="e.g. 100ms or 1s")
            return False
        return True


@dataclass
class SweepSpec:
    variants: list[Variant] = field(default_factory=list)


def read_sweep(path: str, text: str, base_paths: list[str], diags: Diagnostics) -> SweepSpec | None:
    def bad(msg: str) -> None:
        diags.emit(KAD705, f"`{path}`: {msg}")

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        bad(f"not YAML: {e}")
        return None
    if not isinstance(data, dict) or not set(data) <= {"variants", "grid"}:
        bad("expected a mapping with `variants` and/or `grid`")
        return None
    here = Path(path).parent
    base: list[Variant] = []
    for i, v in enumerate(data.get("variants") or []):
        if not isinstance(v, dict) or not set(v) <= set(VARIANT_KEYS):
            bad(f"variant {i + 1}: expected {', '.join(f'`{k}`' for k in VARIANT_KEYS)}")
            return None
        paths = tuple(str(here / p) if not Path(p).is_absolute() else p for p in v.get("paths") or []) \
            or tuple(base_paths)
        nodes = tuple(_rebase(s, here) for s in v.get("add_nodes") or [])
        scoring = v.get("scoring", "LeastAllocated")
        if scoring not in SCORINGS:
            bad(f"variant {i + 1}: scoring `{scoring}` is not one of {', '.join(SCORINGS)}")
            return None
        mode, cycle = v.get("mode"), v.get("cycle_latency")
        if mode is not None and mode not in MODES:
            bad(f"variant {i + 1}: mode `{mode}` is not one of {', '.join(MODES)}")
            return None
        if cycle is not None and parse_duration_ms(str(cycle)) is None:
            bad(f"variant {i + 1}: cycle_latency `{cycle}` is not a duration (e.g. 100ms or 1s)")
            return None
        base.append(Variant(str(v.get("name") or f"variant-{i + 1}"), paths, (), scoring, nodes, mode,
                            None if cycle is None else str(cycle)))
    if not base:
        base = [Variant("base", tuple(base_paths))]
    axes: list[list[tuple[str, object]]] = []
    for i, axis in enumerate(data.get("grid") or []):
        if not isinstance(axis, dict):
            bad(f"grid axis {i + 1}: expected a mapping")
            return None
        if "scoring" in axis:
            vals = axis["scoring"]
            if not isinstance(vals, list) or any(v not in SCORINGS for v in vals):
                bad(f"grid axis {i + 1}: `scoring` takes a list of {', '.join(SCORINGS)}")
                return None
            axes.append([("scoring", v) for v in vals])
        elif "mode" in axis:
            vals = axis["mode"]
            if not isinstance(vals, list) or not vals or any(v not in MODES for v in vals):
                bad(f"grid axis {i + 1}: `mode` takes a list of {', '.join(MODES)}")
                return None
            axes.append([("mode", v) for v in vals])
        elif "cycle_latency" in axis:
            vals = axis["cycle_latency"]
            if not isinstance(vals, list) or not vals or any(parse_duration_ms(str(v)) is None for v in vals):
                bad(f"grid axis {i + 1}: `cycle_latency` takes a list of durations (e.g. [0s, 100ms, 1s])")
                return None
            axes.append([("cycle_latency", str(v)) for v in vals])
        elif "set" in axis:
            s, vals = axis["set"], axis.get("values")
            if not isinstance(s, dict) or set(s) != {"cluster_queue", "flavor", "resource", "field"} \
                    or s["field"] not in FIELDS or not isinstance(vals, list) or not vals:
                bad(f"grid axis {i + 1}: `set` needs cluster_queue, flavor, resource and field "
                    f"({', '.join(FIELDS)}), and `values` a non-empty list")
                return None
            changes = []
            for v in vals:
                try:
                    q = None if v is None else parse_quantity(str(v))
                except QuantityError as e:
                    bad(f"grid axis {i + 1}: value `{v}`: {e}")
                    return None
                changes.append(("quota", QuotaChange(str(s["cluster_queue"]), str(s["flavor"]),
                                                     str(s["resource"]), s["field"], q)))
            axes.append(changes)
        else:
            bad(f"grid axis {i + 1}: expected `set` + `values`, `scoring`, `mode` or `cycle_latency`")
            return None
    out = []
    for v in base:
        for combo in itertools.product(*axes) if axes else [()]:
            quota, scoring, parts = list(v.quota), v.scoring, [v.name]
            mode, cycle = v.mode, v.cycle_latency
            for kind, val in combo:
                if kind == "scoring":
                    scoring = val  # type: ignore[assignment]
                    parts.append(str(val))
                elif kind == "mode":
                    mode = val  # type: ignore[assignment]
                    parts.append(str(val))
                elif kind == "cycle_latency":
                    cycle = val  # type: ignore[assignment]
                    parts.append(f"cycle={val}")
                else:
                    quota.append(val)  # type: ignore[arg-type]
                    parts.append(f"{val.cluster_queue}.{val.flavor}.{val.resource}.{val.field}="  # type: ignore[union-attr]
                                 f"{'unlimited' if val.value is None else val.value / 1000:g}")  # type: ignore[union-attr]
            out.append(Variant(" ".join(parts), v.paths, tuple(quota), scoring, v.add_nodes, mode, cycle))
            if len(out) > MAX_VARIANTS:
                bad(f"more than {MAX_VARIANTS} variants")
                return None
    return SweepSpec(out)


def _rebase(spec: str, here: Path) -> str:
    at, colon, p = spec.rpartition(":")
    p = p if Path(p).is_absolute() else str(here / p)
    return f"{at}:{p}" if colon else p


def apply_quota(model: Model, changes: tuple[QuotaChange, ...]) -> tuple[Model, list[str]]:
    """The model with the quota numbers changed; problems (no such queue or quota) as messages."""
    problems = []
    cqs = list(model.cluster_queues)
    for ch in changes:
        idx = next((i for i, c in enumerate(cqs) if c.name == ch.cluster_queue), None)
        if idx is None:
            problems.append(f"no cluster queue `{ch.cluster_queue}`")
            continue
        cq = cqs[idx]
        found = False
        groups = []
        for g in cq.resource_groups:
            fqs = []
            for fq in g.flavors:
                rs = []
                for r in fq.resources:
                    if fq.flavor == ch.flavor and r.resource == ch.resource:
                        if ch.field == "nominal" and ch.value is None:
                            problems.append("nominal quota can't be unlimited")
                        else:
                            r = r.model_copy(update={ch.field: ch.value})
                        found = True
                    rs.append(r)
                fqs.append(fq.model_copy(update={"resources": tuple(rs)}))
            groups.append(g.model_copy(update={"flavors": tuple(fqs)}))
        if not found:
            problems.append(f"cluster queue `{ch.cluster_queue}` has no quota for {ch.resource} in flavor {ch.flavor}")
        cqs[idx] = cq.model_copy(update={"resource_groups": tuple(groups)})
    return model.model_copy(update={"cluster_queues": tuple(cqs)}), problems


def run_variant(variant: Variant, common: Common) -> dict:
    """One variant, start to finish (in whatever process or Ray worker runs it): its row of the table."""
    from kadmit import workspace as ws
    from kadmit.simulate.setup import prepare, replay
    limits = ws.Limits() if common.max_file_bytes is None else ws.Limits(max_file_bytes=common.max_file_bytes)
    loaded = ws.load(list(variant.paths), limits=limits)
    diags = Diagnostics(list(loaded.diagnostics))
    errors = [d for d in loaded.diagnostics if d.severity.value == "error"]
    if loaded.input_error or errors:
        return {"variant": variant.name, "error": f"{len(errors)} error(s) in its inputs, e.g. "
                + (errors[0].message if errors else "unreadable input")}
    model, problems = apply_quota(loaded.model, variant.quota)
    if problems:
        return {"variant": variant.name, "error": "; ".join(problems)}
    loaded.model = model
    mode = variant.mode or common.mode
    cycle = variant.cycle_latency if variant.cycle_latency is not None else common.cycle_latency
    plan = prepare(loaded, trace=common.trace, until=common.until, start=common.start,
                   add_nodes=list(variant.add_nodes), nodepools=[], diags=diags, limits=limits, cycle=cycle)
    if plan is None:
        first = next((d for d in diags if d.severity.value == "error"), None)
        return {"variant": variant.name, "error": first.message if first else "inputs refused"}
    from kadmit.engine.solver.z3backend import Limits
    base = Limits()
    solver = Limits(rlimit=common.rlimit or base.rlimit, timeout_ms=common.timeout_ms or base.timeout_ms, seed=base.seed)
    r = replay(model, plan, mode=mode, scoring=variant.scoring, limits=solver)
    s = r["summary"]
    waits = [q["wait_p90"] for q in r["queues"] if q["wait_p90"] is not None]
    return {"variant": variant.name, "mode": mode, "cycle_latency": plan.cycle_ms / 1000, "admitted": s["admitted"], "never_admitted": s["never_admitted"],
            "evictions": s["evictions"], "makespan": s["makespan"], "gpu_hours": s["gpu_hours"],
            "worst_queue_wait_p90": max(waits, default=None),
            "utilisation": {f"{f['flavor']} {f['resource']}": f["utilisation"] for f in r["flavors"]},
            "queues": {q["name"]: {"wait_p50": q["wait_p50"], "wait_p90": q["wait_p90"],
                                   "preemptions": q["preemptions"]} for q in r["queues"]},
            "seconds": r["run"]["seconds"], **({"undecided": s["undecided"]} if "undecided" in s else {})}


def run_sweep(spec: SweepSpec, common: Common, executor: str = "process", workers: int | None = None,
              ray_address: str | None = None) -> list[dict]:
    """Every variant's row, in the sweep's order, whatever order they finished in."""
    if executor == "ray":
        import ray
        started = not ray.is_initialized()
        if started:
            ray.init(address=ray_address, include_dashboard=False, log_to_driver=False,
                     num_cpus=workers if ray_address is None else None)
        try:
            remote = ray.remote(run_variant)
            return list(ray.get([remote.remote(v, common) for v in spec.variants]))
        finally:
            if started:
                ray.shutdown()
    if workers == 1 or len(spec.variants) == 1:
        return [run_variant(v, common) for v in spec.variants]
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_variant, spec.variants, [common] * len(spec.variants)))
