"""Hostile input files for every verb that reads more than policy and state: Karpenter NodePools
(`simulate --nodepool`, `why --with-capacity`), sweep files (`simulate --sweep`), traces (CSV and
JSON Lines, `simulate --trace`), capacity files (`simulate --add-nodes TIME:PATH`) and policy tests
(`*.kadtest.yaml`, `kadmit test`).

Each kind has a valid seed. `mutations(kind)` lists every mutation of it, by name: each value of the
seed replaced by values of other types (at every path), each key removed, huge numbers, deep nesting,
very long text, and text-level damage (binary, NUL, truncation, bad UTF-8, tabs). `run` runs the
verb on a mutated file through the CLI, in-process; `problems` says what is wrong with what it
printed: an exit code other than 0-3, an internal error, a Python exception's name or repr, or a
failure without a KAD code at a line of a file. Used by tests/robustness/test_hostile_files.py
(samples, hypothesis) and bench/hostile_bench.py (`--files`: every mutation, as a table).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import yaml
from click.testing import CliRunner

POLICY = """\
flavor gpu { node_labels = { "karpenter.sh/nodepool" = "gpu" } }
namespace a {}
cluster_queue q {
  namespaces = {}
  resources cpu, nvidia.com/gpu {
    flavor gpu { cpu = 1000  nvidia.com/gpu = 64 }
  }
}
local_queue a/lq -> q
workload a/gang {
  queue    = lq
  created  = "2026-11-20T08:00:00Z"
  duration = 600
  pod_group workers {
    count    = 2
    requests = { cpu = 8, nvidia.com/gpu = 8 }
  }
}
"""

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
  annotations:
    kadmit.dev/provisioning-delay: 60s
    kadmit.dev/instance-types: |
      - {name: g.4x, allocatable: {cpu: 48, memory: 192Gi, nvidia.com/gpu: 4, pods: 110}, labels: {zone: a}, price: 12}
      - {name: g.8x, allocatable: {cpu: 96, memory: 768Gi, nvidia.com/gpu: 8, pods: 110}, price: 20}
spec:
  weight: 10
  template:
    metadata:
      labels: {team: a}
    spec:
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      taints:
        - {key: dedicated, value: gpu, effect: PreferNoSchedule}
  limits:
    nvidia.com/gpu: 32
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 5m}
"""

SWEEP = """\
variants:
  - name: today
    scoring: LeastAllocated
    cycle_latency: 0s
  - name: tomorrow
    mode: ordered
    add_nodes: ["1h:nodes.yaml"]
grid:
  - set: {cluster_queue: q, flavor: gpu, resource: nvidia.com/gpu, field: nominal}
    values: [16, 64]
  - scoring: [LeastAllocated, MostAllocated]
  - cycle_latency: [0s, 1s]
"""

TRACE_CSV = """\
time,namespace,name,queue,priority,pods,min_pods,duration,cpu,memory,nvidia.com/gpu,node_selector,topology,tolerations
0,a,j1,lq,,2,1,600,8,64Gi,8,karpenter.sh/nodepool=gpu,,"dedicated=gpu:PreferNoSchedule"
2026-11-20T08:05:00Z,a,j2,lq,100,1,,1h30m,4,16Gi,1,,,
30,a,p3,,,1,,7200,2,8Gi,,,,*
"""

TRACE_JSONL = "\n".join(json.dumps(row) for row in [
    {"time": 0, "namespace": "a", "name": "j1", "queue": "lq", "pods": 2, "min_pods": 1, "duration": 600,
     "cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 8, "node_selector": {"karpenter.sh/nodepool": "gpu"},
     "tolerations": ["dedicated=gpu:PreferNoSchedule"]},
    {"time": "2026-11-20T08:05:00Z", "namespace": "a", "name": "j2", "queue": "lq", "priority": 100, "pods": 1,
     "duration": "1h30m", "cpu": "4", "nvidia.com/gpu": 1},
    {"time": 30, "namespace": "a", "name": "p3", "pods": 1, "duration": 7200, "cpu": 2, "tolerations": "*"},
]) + "\n"

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: extra-0
  labels: {karpenter.sh/nodepool: gpu, kubernetes.io/hostname: extra-0}
status:
  allocatable: {cpu: "96", memory: 768Gi, nvidia.com/gpu: "8", pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: extra-1
  labels: {karpenter.sh/nodepool: gpu}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  allocatable: {cpu: "96", nvidia.com/gpu: "8"}
"""

TESTS = """\
tests:
  - name: the gang is admitted
    expect:
      a/gang: {admitted: {cluster_queue: q, flavors: {workers: gpu}, counts: 2, borrowing: false}}
  - name: a bigger gang waits
    given:
      add: |
        workload a/big {
          queue = lq
          created = "2026-11-20T09:00:00Z"
          pod_group workers { count = 9  requests = { nvidia.com/gpu = 8 } }
        }
      remove: [workload a/gang]
    expect:
      a/big: {not_admitted: {reason: KAD511, blames: q}}
      diagnostics: []
  - name: on an empty cluster
    given:
      add: |
        workload a/huge {
          queue = lq
          created = "2026-11-20T09:00:00Z"
          pod_group workers { count = 99  requests = { nvidia.com/gpu = 8 } }
        }
    expect:
      a/gang: admissible
      a/huge: {never_admissible: {blames: q}}
"""


@dataclass(frozen=True)
class Kind:
    """A kind of input file: its seed, the name it is written as, how it is parsed for structural
    mutations ("yaml", "jsonl", "csv"), and the command that reads it (`{file}` and `{dir}` filled in)."""

    name: str
    filename: str
    seed: str
    shape: str
    argv: tuple[str, ...]


KINDS = {k.name: k for k in [
    Kind("nodepool", "pool.yaml", NODEPOOL, "yaml",
         ("simulate", "{dir}/policy.kad", "--nodepool", "{file}", "--until", "2h")),
    Kind("nodepool-why", "pool.yaml", NODEPOOL, "yaml",
         ("why", "a/gang", "{dir}/policy.kad", "--with-capacity", "{file}")),
    Kind("sweep", "sweep.yaml", SWEEP, "yaml",
         ("simulate", "{dir}/policy.kad", "--sweep", "{file}", "--workers", "1", "--until", "2h")),
    Kind("trace-csv", "trace.csv", TRACE_CSV, "csv",
         ("simulate", "{dir}/policy.kad", "--trace", "{file}", "--until", "4h")),
    Kind("trace-jsonl", "trace.jsonl", TRACE_JSONL, "jsonl",
         ("simulate", "{dir}/policy.kad", "--trace", "{file}", "--until", "4h")),
    Kind("capacity", "nodes.yaml", NODES, "yaml",
         ("simulate", "{dir}/policy.kad", "--add-nodes", "30m:{file}", "--until", "2h")),
    Kind("kadtest", "policy.kadtest.yaml", TESTS, "yaml", ("test", "{dir}")),
]}

DEEP = 5_000  # nesting deeper than any reader's recursion
VALUES: list[tuple[str, object]] = [
    ("int 7", 7), ("negative -1", -1), ("zero", 0), ("huge int 10^30", 10**30), ("float 1e308", 1e308),
    ("nan", float("nan")), ("string x", "x"), ("empty string", ""), ("null", None), ("true", True),
    ("list", [1, "x"]), ("empty list", []), ("map", {"k": 7}), ("empty map", {}),
    ("long string", "x" * 100_000), ("deep list", "DEEP"),
]
CELLS: list[tuple[str, str]] = [
    ("empty", ""), ("x", "x"), ("negative", "-1"), ("zero", "0"), ("huge", "9" * 400), ("exponent", "1e400"),
    ("float", "0.5"), ("nan", "nan"), ("inf", "inf"), ("colons", "a:b:c"), ("equals", "=,=,"),
    ("far future", "9999-12-31T23:59:59Z"), ("long", "x" * 100_000), ("NUL", "a\x00b"),
]


def _deep(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def paths(obj, at: tuple = ()) -> Iterator[tuple]:
    """Every path into a parsed document (keys and list indices), the root's children first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield at + (k,)
            yield from paths(v, at + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield at + (i,)
            yield from paths(v, at + (i,))


def _set(obj, path: tuple, value, delete: bool = False):
    import copy
    out = copy.deepcopy(obj)
    holder = out
    for p in path[:-1]:
        holder = holder[p]
    if delete:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return out


def _dump_yaml(docs: list) -> str:
    text = yaml.safe_dump_all(docs, sort_keys=False, width=10**9)
    return text.replace("DEEP", _deep(200))  # deep nesting as flow text (safe_dump would recurse)


def _yaml_mutations(seed: str) -> Iterator[tuple[str, Callable[[], str]]]:
    docs = list(yaml.safe_load_all(seed))

    def put(d: int, path: tuple, value, delete: bool = False) -> Callable[[], str]:
        return lambda: _dump_yaml(docs[:d] + [_set(docs[d], path, value, delete)] + docs[d + 1:])

    for d, doc in enumerate(docs):
        for path in paths(doc):
            where = ".".join(str(p) for p in path) + (f" (document {d + 1})" if len(docs) > 1 else "")
            for label, value in VALUES:
                yield f"{where} = {label}", put(d, path, value)
            yield f"{where} removed", put(d, path, None, delete=True)
        for label, value in VALUES:
            yield f"document {d + 1} = {label}", (lambda d=d, value=value: _dump_yaml(docs[:d] + [value] + docs[d + 1:]))


def _jsonl_mutations(seed: str) -> Iterator[tuple[str, Callable[[], str]]]:
    rows = [json.loads(line) for line in seed.splitlines() if line.strip()]

    def with_line(r: int, line: str) -> str:
        return "\n".join([json.dumps(x) for x in rows[:r]] + [line] + [json.dumps(x) for x in rows[r + 1:]]) + "\n"

    for r, row in enumerate(rows):
        for key in row:
            for label, value in VALUES:
                yield f"row {r + 1} {key} = {label}", (lambda r=r, row=row, key=key, value=value: with_line(
                    r, json.dumps({**row, key: "@@"}).replace('"@@"', json.dumps(value, allow_nan=True))
                    .replace('"DEEP"', _deep())))
            yield f"row {r + 1} {key} removed", (lambda row=row, key=key: "\n".join(
                json.dumps({k: v for k, v in x.items() if x is not row or k != key}) for x in rows) + "\n")
        for label, value in VALUES:
            yield f"row {r + 1} = {label}", (lambda r=r, value=value: with_line(
                r, json.dumps(value, allow_nan=True).replace('"DEEP"', _deep())))


def _csv_mutations(seed: str) -> Iterator[tuple[str, Callable[[], str]]]:
    import csv
    import io
    rows = list(csv.reader(io.StringIO(seed)))

    def text(rs) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rs)
        return out.getvalue()

    header = rows[0]
    for r in range(1, len(rows)):
        for c, col in enumerate(header):
            for label, value in CELLS:
                changed = [list(x) for x in rows]
                changed[r][c] = value
                yield f"row {r} {col} = {label}", (lambda changed=changed: text(changed))
    for c, col in enumerate(header):
        for label, value in [("renamed", "bogus"), ("empty", ""), ("duplicated", header[(c + 1) % len(header)])]:
            yield f"header {col} {label}", (lambda c=c, value=value: text([header[:c] + [value] + header[c + 1:]] + rows[1:]))
        yield f"column {col} removed", (lambda c=c: text([x[:c] + x[c + 1:] for x in rows]))
    yield "row with an extra field", lambda: text(rows + [rows[1] + ["extra"]])
    yield "row with a missing field", lambda: text(rows + [rows[1][:3]])
    yield "field over the csv module's limit", lambda: text(rows[:1] + [[rows[1][0], "a", "x" * 200_000] + rows[1][3:]])


def _text_mutations(seed: str) -> Iterator[tuple[str, str | bytes]]:
    yield "empty file", ""
    yield "binary", bytes(range(256)) * 4
    yield "invalid UTF-8", b"\xff\xfe" + seed.encode()
    yield "NUL inside", seed[: len(seed) // 2] + "\x00" + seed[len(seed) // 2:]
    yield "truncated", seed[: len(seed) // 2]
    yield "tabs for indentation", seed.replace("  ", "\t")
    yield "one very long line (2 MB)", "x" * 2_000_000
    yield "deep nesting (100,000 levels)", _deep(100_000)
    yield "a billion laughs", "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9))


def mutations(kind: str) -> list[tuple[str, Callable[[], str | bytes]]]:
    """Every mutation of `kind`'s seed, in a fixed order: (what was done, a function making the
    file's content: they are made only when run)."""
    k = KINDS[kind]
    shaped = {"yaml": _yaml_mutations, "jsonl": _jsonl_mutations, "csv": _csv_mutations}[k.shape]
    return [(what, (lambda c=content: c)) for what, content in _text_mutations(k.seed)] + list(shaped(k.seed))


def setup(folder: Path, kind: str, content: str | bytes) -> list[str]:
    """Write the policy, the companion files and the mutated file; the command's arguments."""
    k = KINDS[kind]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "policy.kad").write_text(POLICY)
    if kind != "capacity":
        (folder / "nodes.yaml").write_text(NODES)  # the sweep's add_nodes
    path = folder / k.filename
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    return [a.format(dir=str(folder), file=str(path)) for a in k.argv]


def run(folder: Path, kind: str, content: str | bytes) -> tuple[int, str]:
    """The exit code and everything printed (stdout and stderr)."""
    from kadmit.cli import cli

    got = CliRunner().invoke(cli, setup(folder, kind, content), catch_exceptions=True)
    out = got.output
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        out += f"\n(uncaught) {type(got.exception).__name__}: {got.exception}"
    return got.exit_code, out


EXCEPTION = re.compile(r"Traceback|internal error|\b(?:Error|Exception)\b|\b[A-Z]\w*(?:Error|Exception)\b"
                        r"|object at 0x|\bVal\(|<class |<built-in")
# a diagnostic's excerpt of the input (`18 |   text`, the line's number in the gutter): the input's own words, in
# which `except Exception as e:` of a script in a ConfigMap is no exception of kadmit's
EXCERPT = re.compile(r"^\s*\d+ \|.*$", re.M)
_BLOCK = re.compile(r"^(?:error|warning|note)\[(KAD\d{3})\](?![^\n]* more \([^\n]*\) not shown)[^\n]*\n"
                    r"(\s*-->\s*\S+:\d+:\d+)?", re.M)  # (a count line of diagnostics not shown is no block)
# `kadmit test`'s per-test diagnostics: `file:line: KADnnn …` (a name starts after a space: a 100,000-character
# value echoed in the output is scanned once, not once per character)
_LINE = re.compile(r"(?<!\S)\S+:\d+:\s+(KAD\d{3})\b")


def problems(exit_code: int, output: str) -> list[str]:
    """What is wrong with a run on a hostile input (empty: nothing)."""
    out = []
    if exit_code not in (0, 1, 2, 3):
        out.append(f"exit {exit_code}")
    hit = EXCEPTION.search(EXCERPT.sub("", output))
    if hit:
        out.append(f"prints `{hit.group(0)}`")
    blocks = _BLOCK.findall(output)
    unlocated = sorted({code for code, where in blocks if not where and code.startswith("KAD")})
    if any(re.search(rf"^error\[{c}\](?![^\n]* not shown)", output, re.M) for c in unlocated):
        out.append("an error without a location: " + ", ".join(unlocated))
    if exit_code in (1, 2) and not any(b[1] for b in blocks) and not _LINE.search(output) \
            and not re.search(r"^FAIL\s+\S+:\d+", output, re.M):
        out.append("fails without a KAD code at a line")
    return out


def first_code(output: str) -> str:
    """The code of the first error reported (else of the first diagnostic; "-" for none)."""
    found = re.search(r"^error\[(KAD\d{3})\]", output, re.M) or re.search(r"\b(KAD\d{3})\b", output)
    return found.group(1) if found else "-"


DELETE = object()


def edited(kind: str, edits: list[tuple[int, object]]) -> str:
    """The seed of `kind` with each edit applied in turn: (which path, counted over the document as it
    stands, modulo their number; the value to put there, or DELETE). CSV edits put text in a cell."""
    k = KINDS[kind]
    if k.shape == "csv":
        import csv
        import io
        rows = list(csv.reader(io.StringIO(k.seed)))
        cells = [(r, c) for r in range(1, len(rows)) for c in range(len(rows[0]))]
        for at, value in edits:
            r, c = cells[at % len(cells)]
            rows[r][c] = "" if value is DELETE else str(value)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()
    docs = [json.loads(line) for line in k.seed.splitlines() if line.strip()] if k.shape == "jsonl" \
        else list(yaml.safe_load_all(k.seed))
    for at, value in edits:
        where = [(d, p) for d, doc in enumerate(docs) for p in paths(doc)]
        d, path = where[at % len(where)]
        docs[d] = _set(docs[d], path, None if value is DELETE else value, delete=value is DELETE)
    if k.shape == "jsonl":
        return "\n".join(json.dumps(doc, allow_nan=True) for doc in docs) + "\n"
    return _dump_yaml(docs)
