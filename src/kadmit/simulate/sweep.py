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

from kadmit.diagnostics import Diagnostics, field_key
from kadmit.durations import parse_duration_ms
from kadmit.manifests.yamltree import INT, NULL, SEQ, STR, Val, parse_documents
from kadmit.model import Model
from kadmit.simulate.codes import KAD700, KAD712
from kadmit.simulate.yamlread import Fields, Unusable, shown

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
    at: tuple | None = field(default=None, compare=False)  # (file, line, column) of its `set`, for messages


@dataclass(frozen=True)
class Variant:
    name: str
    paths: tuple[str, ...]
    quota: tuple[QuotaChange, ...] = ()
    scoring: str = "LeastAllocated"
    add_nodes: tuple[str, ...] = ()
    mode: str | None = None  # None: the command's
    cycle_latency: str | None = None  # None: the command's
    at: tuple | None = field(default=None, compare=False)  # (file, line, column) of its entry, for messages


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
    work_budget: int | None = None  # a replay's budget (`replay`; None: the default)

    def check(self, diags: Diagnostics) -> bool:
        if self.cycle_latency is not None and parse_duration_ms(self.cycle_latency) is None:
            diags.emit(KAD700, f"`--cycle-latency {self.cycle_latency}` is not a duration", help="e.g. 100ms or 1s")
            return False
        return True


@dataclass
class SweepSpec:
    variants: list[Variant] = field(default_factory=list)


def read_sweep(path: str, text: str, base_paths: list[str], diags: Diagnostics) -> SweepSpec | None:
    """The variants of a sweep file, or None with every problem reported at its line (KAD712)."""
    from kadmit.workspace import display_name
    file = display_name(Path(path))
    f = Fields(file, diags, KAD712)
    before = len(diags.items)
    docs = [d for d in parse_documents(text, file, diags) if d is not None]
    if any(d.severity.value == "error" for d in diags.items[before:]):
        return None
    try:
        if len(docs) != 1:
            raise f.fail(docs[1] if docs else None, "a sweep file is one YAML mapping with `variants` and/or `grid`")
        return _sweep(f, docs[0], Path(path).parent, base_paths)
    except Unusable:
        return None


def _sweep(f: Fields, root: Val, here: Path, base_paths: list[str]) -> SweepSpec:
    f.mapping(root, "sweep file")
    if f.unknown_keys(root, ("variants", "grid"), "sweep file"):
        raise Unusable("sweep file")
    base: list[Variant] = []
    for i, v in enumerate(f.seq(f.get(root, "variants") or _EMPTY, "variants")):
        what = f"variants[{i}]"
        f.mapping(v, what)
        if f.unknown_keys(v, VARIANT_KEYS, what):
            raise Unusable(what)
        paths = tuple(_path(f, p, f"{what}.paths[{j}]", here)
                      for j, p in enumerate(f.seq(f.get(v, "paths") or _EMPTY, f"{what}.paths"))) or tuple(base_paths)
        nodes = tuple(_rebase(_add_nodes(f, x, f"{what}.add_nodes[{j}]"), here)
                      for j, x in enumerate(f.seq(f.get(v, "add_nodes") or _EMPTY, f"{what}.add_nodes")))
        got = f.get(v, "scoring")
        scoring = "LeastAllocated" if got is None else f.choice(got, f"{what}.scoring", SCORINGS)
        got = f.get(v, "mode")
        mode = None if got is None else f.choice(got, f"{what}.mode", MODES)
        got = f.get(v, "cycle_latency")
        cycle = None if got is None else _cycle(f, got, f"{what}.cycle_latency")
        got = f.get(v, "name")
        name = f"variant-{i + 1}" if got is None else _scalar(f, got, f"{what}.name")
        if not name.strip():
            raise f.fail(got, f"`{what}.name` is empty", help="name the variant: its row in the results is named so")
        twin = next((j for j, b in enumerate(base) if b.name == name), None)
        if twin is not None:
            raise f.fail(got or v, f"`{what}` is named `{name[:80]}`, as `variants[{twin}]` is",
                         help="one name per variant: the results are told apart by it")
        base.append(Variant(name, paths, (), scoring, nodes, mode, cycle, tuple(v.span(f.file)[:3])))
    if not base:
        base = [Variant("base", tuple(base_paths), at=tuple(root.span(f.file)[:3]))]
    axes: list[list[tuple[str, object]]] = []
    targets: dict[object, int] = {}
    for i, axis in enumerate(f.seq(f.get(root, "grid") or _EMPTY, "grid")):
        what = f"grid[{i}]"
        f.mapping(axis, what)
        kinds = [k for k in ("set", "scoring", "mode", "cycle_latency") if k in axis.v]
        if len(kinds) != 1 or f.unknown_keys(axis, (kinds[0], "values") if kinds == ["set"] else tuple(kinds), what):
            raise f.fail(axis, f"`{what}` is one axis: `set` with `values`, `scoring`, `mode` or `cycle_latency`")
        kind, vals = kinds[0], axis.v[kinds[0]]
        if kind == "scoring":
            axes.append([("scoring", f.choice(x, f"{what}.scoring[{j}]", SCORINGS))
                         for j, x in enumerate(_nonempty(f, vals, f"{what}.scoring"))])
        elif kind == "mode":
            axes.append([("mode", f.choice(x, f"{what}.mode[{j}]", MODES))
                         for j, x in enumerate(_nonempty(f, vals, f"{what}.mode"))])
        elif kind == "cycle_latency":
            axes.append([("cycle_latency", _cycle(f, x, f"{what}.cycle_latency[{j}]"))
                         for j, x in enumerate(_nonempty(f, vals, f"{what}.cycle_latency"))])
        else:
            target = f.mapping(vals, f"{what}.set")
            keys = ("cluster_queue", "flavor", "resource", "field")
            if f.unknown_keys(target, keys, f"{what}.set"):
                raise Unusable(what)
            named = {k: _scalar(f, f.required(target, k, f"{what}.set"), field_key(f"{what}.set", k)) for k in keys}
            if named["field"] not in FIELDS:
                raise f.fail(target.v["field"], f"`{what}.set.field` `{named['field']}` is not one of {', '.join(FIELDS)}")
            values = f.required(axis, "values", what)
            changes = []
            for j, x in enumerate(_nonempty(f, values, f"{what}.values")):
                q = None if x.kind == NULL else f.quantity(x, f"{what}.values[{j}]")
                changes.append(("quota", QuotaChange(named["cluster_queue"], named["flavor"], named["resource"],
                                                     named["field"], q, tuple(target.span(f.file)[:3]))))
            axes.append(changes)
        _distinct(f, axis, what, axes[-1], targets, i)
    out = []
    count = len(base)
    for axis in axes:
        count *= len(axis)
    if count > MAX_VARIANTS:
        raise f.fail(f.get(root, "grid") or root, f"the sweep has {count} variants, more than {MAX_VARIANTS}")
    for v in base:
        for combo in itertools.product(*axes) if axes else [()]:
            quota, scoring, parts = list(v.quota), v.scoring, [v.name]
            mode, cycle = v.mode, v.cycle_latency
            for kind, val in combo:
                if kind == "scoring":
                    scoring = val  # type: ignore[assignment]
                elif kind == "mode":
                    mode = val  # type: ignore[assignment]
                elif kind == "cycle_latency":
                    cycle = val  # type: ignore[assignment]
                else:
                    quota.append(val)  # type: ignore[arg-type]
                parts.append(_label(kind, val))
            out.append(Variant(" ".join(parts), v.paths, tuple(quota), scoring, v.add_nodes, mode, cycle, v.at))
    return SweepSpec(out)


_EMPTY = Val(SEQ, [], 0, 0, 0, 0)


def _label(kind: str, val) -> str:
    """How a grid value is named in its variant's name."""
    if kind == "cycle_latency":
        return f"cycle={val}"
    if kind != "quota":
        return str(val)
    amount = "unlimited" if val.value is None else str(val.value // 1000) if val.value % 1000 == 0 \
        else f"{val.value}m"  # exact (`:g` named 1000000 and 1000001 alike)
    return f"{val.cluster_queue}.{val.flavor}.{val.resource}.{val.field}={amount}"


def _distinct(f: Fields, axis: Val, what: str, values: list[tuple[str, object]], targets: dict, i: int) -> None:
    """A grid axis sets what no earlier axis sets, each value once: otherwise two variants would be the
    same run under two names, or one name for two runs."""
    kind, val = values[0]
    target = (kind, val.cluster_queue, val.flavor, val.resource, val.field) if kind == "quota" else kind  # type: ignore[attr-defined]
    if target in targets:
        raise f.fail(axis, f"`{what}` sets what `grid[{targets[target]}]` sets",
                     help="one axis per setting: put the values in one list")
    targets[target] = i
    nodes = axis.v["values" if kind == "quota" else kind].v
    seen: dict[object, int] = {}
    for j, (k, v) in enumerate(values):
        same = parse_duration_ms(str(v)) if k == "cycle_latency" else _label(k, v)  # `1s` is `1000ms`
        if same in seen:
            raise f.fail(nodes[j], f"`{what}` gives `{_label(k, v).rsplit('=', 1)[-1][:80]}` again (as its entry "
                         f"{seen[same]})", help="each value once: the two variants would be the same run")
        seen[same] = j


def _nonempty(f: Fields, v: Val, what: str) -> list[Val]:
    items = f.seq(v, what)
    if not items:
        raise f.fail(v, f"`{what}` is an empty list")
    return items


def _scalar(f: Fields, v: Val, what: str) -> str:
    """A name: a string (a number, as YAML reads `2024`, is taken as written)."""
    if v.kind not in (STR, INT):
        raise f.fail(v, f"`{what}` must be a string, not {shown(v)}")
    return str(v.v)


def _path(f: Fields, v: Val, what: str, here: Path) -> str:
    p = f.string(v, what)
    if not usable_path(p):
        raise f.fail(v, f"`{what}` is not a path")
    return p if Path(p).is_absolute() else str(here / p)


def _add_nodes(f: Fields, v: Val, what: str) -> str:
    """`TIME:PATH` (or `PATH`, at the start): reported here when TIME is not a time or PATH not a path."""
    spec = f.string(v, what)
    at, colon, path = spec.rpartition(":")
    if not usable_path(path) or colon and parse_duration_ms(at) is None:
        raise f.fail(v, f"`{what}` `{spec[:80]}` is not TIME:PATH", help="e.g. `6h:extra-nodes.yaml`")
    return spec


def _cycle(f: Fields, v: Val, what: str) -> str:
    f.duration(v, what)  # reported where it is not a duration
    return str(v.v)


def usable_path(p: str) -> bool:
    """Whether `p` can name a file at all (not empty, no NUL, no name longer than file systems allow)."""
    return bool(p) and "\x00" not in p and len(p) < 4096 and all(len(part) < 256 for part in p.split("/"))


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


DIAGNOSTICS = "diagnostics"  # a row's key: what its inputs' reading and replay reported (as `simulate` shows them)


def run_variant(variant: Variant, common: Common) -> dict:
    """One variant, start to finish (in whatever process or Ray worker runs it): its row of the table, and under
    DIAGNOSTICS what `simulate` of its inputs would show (`api.sweep` takes them out of the row)."""
    from kadmit import workspace as ws
    from kadmit.simulate.setup import prepare, replay
    limits = ws.Limits() if common.max_file_bytes is None else ws.Limits(max_file_bytes=common.max_file_bytes)
    loaded = ws.load(list(variant.paths), limits=limits)
    diags = Diagnostics(list(loaded.diagnostics))
    errors = [d for d in loaded.diagnostics if d.severity.value == "error"]
    if loaded.input_error or errors:
        return _failed(variant, variant.at, f"{len(errors)} error(s) in its inputs, e.g. " + (_where(errors[0])
                       if errors else "unreadable input"))
    model, problems = apply_quota(loaded.model, variant.quota)
    if problems:
        at = next((c.at for c in variant.quota if c.at is not None), variant.at)
        return _failed(variant, at, "; ".join(problems))
    loaded.model = model
    mode = variant.mode or common.mode
    cycle = variant.cycle_latency if variant.cycle_latency is not None else common.cycle_latency
    plan = prepare(loaded, trace=common.trace, until=common.until, start=common.start,
                   add_nodes=list(variant.add_nodes), nodepools=[], diags=diags, limits=limits, cycle=cycle)
    if plan is None:
        first = next((d for d in diags if d.severity.value == "error"), None)
        return _failed(variant, variant.at, _where(first) if first else "inputs refused")
    from kadmit.engine.solver.z3backend import Limits
    base = Limits()
    solver = Limits(rlimit=common.rlimit or base.rlimit, timeout_ms=common.timeout_ms or base.timeout_ms, seed=base.seed)
    r = replay(model, plan, mode=mode, scoring=variant.scoring, limits=solver, work_budget=common.work_budget)
    s = r["summary"]
    waits = [q["wait_p90"] for q in r["queues"] if q["wait_p90"] is not None]
    return {"variant": variant.name, "mode": mode, "cycle_latency": plan.cycle_ms / 1000, "admitted": s["admitted"], "never_admitted": s["never_admitted"],
            "evictions": s["evictions"], "makespan": s["makespan"], "gpu_hours": s["gpu_hours"],
            "worst_queue_wait_p90": max(waits, default=None),
            "utilisation": {f"{f['flavor']} {f['resource']}": f["utilisation"] for f in r["flavors"]},
            "queues": {q["name"]: {"wait_p50": q["wait_p50"], "wait_p90": q["wait_p90"],
                                   "preemptions": q["preemptions"]} for q in r["queues"]},
            "seconds": r["run"]["seconds"], **({"undecided": s["undecided"]} if "undecided" in s else {}),
            **({"stopped": s["stopped"]} if "stopped" in s else {}),
            DIAGNOSTICS: [d for d in diags if d.severity.value != "note"]}


def _where(d) -> str:
    return (f"{d.span.file}:{d.span.line}: " if d.span is not None else "") + f"{d.code} {d.message}"


def _failed(variant: Variant, at: tuple | None, message: str) -> dict:
    """The row of a variant that could not run: why, and where the sweep file sets it up."""
    return {"variant": variant.name, "error": message, **({"at": list(at)} if at is not None else {})}


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
