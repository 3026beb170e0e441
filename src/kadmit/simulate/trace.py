"""Traces: CSV or JSON Lines rows, one workload each, read into model workloads with arrival times.

`tolerations` (optional): comma-separated tolerations in the syntax of the taints they tolerate
(`kubectl taint`): `key=value:Effect` (operator Equal, that effect), `key=value` (Equal, every
effect), `key:Effect` (operator Exists, that effect), `key` (Exists, every effect), `*` (Exists with
no key: every taint). Effect is NoSchedule, PreferNoSchedule or NoExecute. In JSON Lines the value
may also be a list of such strings. Kueue's admission checks them against the flavors' taints, and
kube-scheduler's TaintToleration filter against the nodes'.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from kadmit.diagnostics import Diagnostics
from kadmit.durations import parse_duration_ms
from kadmit.model import PodSet, Toleration, TopologyRequest, Workload
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.simulate.codes import KAD700, KAD701, KAD702
from kadmit.source import Span, Spans

KNOWN = ("time", "namespace", "name", "queue", "priority", "pods", "min_pods", "duration", "node_selector",
         "topology", "tolerations")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_KEY = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
REQUIRED = ("time", "namespace", "name", "pods")
NATIVE_RESOURCES = ("cpu", "memory", "ephemeral-storage")
MAX_ROWS = 1_000_000
_INT = re.compile(r"^[0-9]+$")


@dataclass(frozen=True)
class Arrival:
    """One trace row: the workload (queue "" for pods no Kueue queue manages) and when it arrives."""

    at_ms: int
    workload: Workload
    priority_text: str | None  # a class name or integer as written, resolved against the policy later


def is_resource(column: str) -> bool:
    return "/" in column or column in NATIVE_RESOURCES or column.startswith("hugepages-")


def read_trace(text: str, path: str, start: datetime, diags: Diagnostics) -> list[Arrival]:
    """The rows of a CSV (header first) or JSON Lines trace, in file order; bad rows are reported."""
    rows = _rows(text, path, diags)
    if rows is None:
        return []
    out: list[Arrival] = []
    for line, row in rows:
        got = _arrival(row, path, line, start, diags)
        if got is not None:
            out.append(got)
    return out


def _rows(text: str, path: str, diags: Diagnostics) -> list[tuple[int, dict[str, str]]] | None:
    body = text.lstrip("\ufeff")
    first = next((ln for ln in body.splitlines() if ln.strip()), "")
    if not first:
        diags.emit(KAD700, f"trace `{path}` is empty", Span(file=path, line=1, column=1))
        return None
    rows: list[tuple[int, dict[str, str]]] = []
    if first.lstrip().startswith("{"):
        for i, ln in enumerate(body.splitlines(), 1):
            if not ln.strip():
                continue
            try:
                obj = json.loads(ln, object_pairs_hook=_no_duplicates)
            except _Duplicate as e:
                diags.emit(KAD700, f"line {i} names `{str(e)[:80]}` twice", Span(file=path, line=i, column=1))
                return None
            except json.JSONDecodeError as e:
                diags.emit(KAD700, f"line {i} is not JSON: {e.msg}", Span(file=path, line=i, column=e.colno))
                return None
            except (ValueError, RecursionError):  # a number of thousands of digits, or nesting past the parser's depth
                diags.emit(KAD700, f"line {i} can't be read: it holds a number too long or nesting too deep",
                           Span(file=path, line=i, column=1))
                return None
            if not isinstance(obj, dict):
                diags.emit(KAD700, f"line {i} is not a JSON object", Span(file=path, line=i, column=1))
                return None
            row = {}
            for k, v in obj.items():
                text = _text(v, k)
                if text is None:
                    diags.emit(KAD701, f"line {i}: `{k}` " + (
                        "takes `{key: value}` of strings" if k == "node_selector" else
                        "takes a string or a list of strings" if k == "tolerations" else
                        "takes a string or a number"), Span(file=path, line=i, column=1))
                    return None
                if v is not None:
                    row[str(k)] = text
            rows.append((i, row))
    else:
        reader = csv.reader(io.StringIO(body))
        header = None
        try:
            for rec in reader:
                if header is None:
                    header = [h.strip() for h in rec]
                    twice = sorted({h for h in header if header.count(h) > 1})
                    if twice:
                        diags.emit(KAD700, "the header names " + ", ".join(f"`{h[:80]}`" for h in twice) + " twice",
                                   Span(file=path, line=reader.line_num, column=1), help="one column per field")
                        return None
                    continue
                if not any(c.strip() for c in rec):
                    continue
                line = reader.line_num
                if len(rec) > len(header):
                    diags.emit(KAD700, f"row has {len(rec)} fields, the header {len(header)}",
                               Span(file=path, line=line, column=1))
                    return None
                rows.append((line, {h: c.strip() for h, c in zip(header, rec) if c.strip() != ""}))
        except csv.Error as e:
            line = reader.line_num + 1
            why = ("a field longer than kadmit reads (131,072 characters)" if "field limit" in str(e)
                   else "a quote or character CSV doesn't allow here")
            diags.emit(KAD700, f"line {line} can't be read as CSV: {why}", Span(file=path, line=line, column=1))
            return None
        header = header or []
        _check_columns(header, path, 1, diags)
        if any(c not in header for c in REQUIRED):
            missing = ", ".join(f"`{c}`" for c in REQUIRED if c not in header)
            diags.emit(KAD700, f"trace `{path}` has no column {missing}", Span(file=path, line=1, column=1),
                       help="the header needs at least: " + ",".join(REQUIRED))
            return None
        if len(rows) > MAX_ROWS:
            diags.emit(KAD700, f"trace `{path}` has more than {MAX_ROWS} rows", Span(file=path, line=1, column=1))
            return None
        return rows
    if len(rows) > MAX_ROWS:
        diags.emit(KAD700, f"trace `{path}` has more than {MAX_ROWS} rows", Span(file=path, line=1, column=1))
        return None
    for line, row in rows:
        if not _check_columns(list(row), path, line, diags):
            return None
    return rows


class _Duplicate(ValueError):
    """A JSON object names a key twice (json keeps the last: the first would be dropped unsaid)."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


def _text(v, column: str) -> str | None:
    """A JSON value as the CSV cell it stands for; None when the column can't take its shape (only
    `node_selector` takes a mapping, only `tolerations` a list, each of plain values)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (str, int, float)):
        return str(v)
    if isinstance(v, dict) and column == "node_selector":
        parts = [(k, _text(x, "")) for k, x in v.items()]
        return None if any(t is None for _, t in parts) else ",".join(f"{k}={t}" for k, t in parts)
    if isinstance(v, list) and column == "tolerations":
        parts = [_text(x, "") for x in v]
        return None if any(t is None for t in parts) else ",".join(parts)  # type: ignore[arg-type]
    return None


def parse_tolerations(cell: str) -> tuple[tuple[Toleration, ...], str | None]:
    """The tolerations of a `tolerations` cell, or an error message naming the bad part."""
    out: list[Toleration] = []
    for part in filter(None, (p.strip() for p in cell.split(","))):
        if part == "*":
            out.append(Toleration(operator="Exists"))
            continue
        body, colon, effect = part.partition(":")
        if colon and effect not in EFFECTS:
            return (), (f"`tolerations` part `{part}`: effect `{effect}` is not one of {', '.join(EFFECTS)}")
        key, eq, value = body.partition("=")
        if not _KEY.match(key) or len(key) > 316 or (eq and not re.match(r"^[-A-Za-z0-9_.]{0,63}$", value)):
            return (), (f"`tolerations` part `{part}` is not `key=value:Effect`, `key=value`, `key:Effect`, "
                        "`key` or `*`")
        out.append(Toleration(key=key, operator="Equal" if eq else "Exists", value=value,
                              effect=effect))  # type: ignore[arg-type]
    return tuple(dict.fromkeys(out)), None


def _check_columns(columns: list[str], path: str, line: int, diags: Diagnostics) -> bool:
    ok = True
    for c in columns:
        if c not in KNOWN and not is_resource(c):
            diags.emit(KAD702, f"unknown trace column `{c}`", Span(file=path, line=line, column=1),
                       help="known columns: " + ", ".join(KNOWN) + ", and one per resource (cpu, memory, "
                       "nvidia.com/gpu, …)")
            ok = False
    return ok


def parse_time(text: str, start: datetime) -> int | None:
    """Milliseconds from `start`: seconds (`12.5`) or an RFC 3339 time."""
    ms = parse_duration_ms(text) if re.match(r"^[0-9.]+$", text) else None
    if ms is not None:
        return ms
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    t = t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t
    return round((t - start) / timedelta(milliseconds=1))


def _arrival(row: dict[str, str], path: str, line: int, start: datetime, diags: Diagnostics) -> Arrival | None:
    span = Span(file=path, line=line, column=1)

    def bad(msg: str, help_: str | None = None) -> None:
        diags.emit(KAD701, msg, span, help=help_)

    for c in REQUIRED:
        if not row.get(c):
            bad(f"row has no `{c}`")
            return None
    at = parse_time(row["time"], start)
    if at is None or at < 0:
        bad(f"`time` `{row['time'][:80]}` is neither seconds from the start nor an RFC 3339 time at or after it")
        return None
    try:
        created = start + timedelta(milliseconds=at)
    except OverflowError:
        bad(f"`time` `{row['time'][:80]}` is after the year 9999")
        return None
    counts = {}
    for c in ("pods", "min_pods"):
        if c in row:
            if not _INT.match(row[c]) or not 0 < int(row[c]) <= 1_000_000:
                bad(f"`{c}` `{row[c]}` is not a whole number from 1 to 1000000")
                return None
            counts[c] = int(row[c])
    pods = counts["pods"]
    min_pods = counts.get("min_pods")
    if min_pods is not None and min_pods > pods:
        bad(f"`min_pods` {min_pods} is more than `pods` {pods}")
        return None
    kw: dict = {}
    if "duration" in row:
        ms = parse_duration_ms(row["duration"])
        if ms is None:
            bad(f"`duration` `{row['duration']}` is not a duration", "write seconds (`90`) or `1h30m`")
            return None
        kw["duration_ms"] = ms
    requests = {}
    for c, v in row.items():
        if c not in KNOWN and is_resource(c):
            try:
                requests[c] = parse_quantity(v)
            except QuantityError as e:
                bad(f"`{c}` `{v}`: {e}")
                return None
    selector = {}
    for part in filter(None, (p.strip() for p in row.get("node_selector", "").split(","))):
        k, eq, v = part.partition("=")
        if not eq or not k.strip():
            bad(f"`node_selector` part `{part}` is not `key=value`")
            return None
        selector[k.strip()] = v.strip()
    topology = None
    if row.get("topology"):
        mode, colon, level = row["topology"].partition(":")
        if not colon or mode not in ("required", "preferred") or not level:
            bad(f"`topology` `{row['topology']}` is not `required:LEVEL` or `preferred:LEVEL`")
            return None
        topology = TopologyRequest(mode=mode, level=level)  # type: ignore[arg-type]
    tolerations, problem = parse_tolerations(row.get("tolerations", ""))
    if problem is not None:
        bad(problem, "e.g. `nvidia.com/gpu:NoSchedule,team=a:NoExecute`")
        return None
    pod_set = PodSet(name="main", count=pods, min_count=min_pods if min_pods is not None and min_pods < pods else None,
                     requests=requests, node_selector=selector, topology=topology, tolerations=tolerations, span=span)
    prio = row.get("priority")
    if prio is not None and re.match(r"^-?[0-9]+$", prio):
        kw["priority"] = int(prio)
    elif prio:
        kw["priority_class"] = prio
    wl = Workload(namespace=row["namespace"], name=row["name"], queue=row.get("queue", ""),
                  created=created, pod_sets=(pod_set,), span=span,
                  spans=Spans(items={"name": span}), **kw)
    return Arrival(at, wl, prio)
