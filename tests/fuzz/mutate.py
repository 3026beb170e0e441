"""Mutations of real inputs for the CLI fuzz (tests/fuzz/test_fuzz_cli.py, bench/fuzz_cli.py).

A seed is a folder of real input (the bundled examples, the oracle's feature files, the upstream
corpus, the syntax corpus's good `.kad` files). `mutate(files, rng)` returns the files with one to
three mutations, and names them: structural ones on YAML documents (a field dropped, duplicated or
retyped, huge numbers, negative and malformed quantities, unicode, deep nesting, other kinds and
apiVersions, cyclic cohorts, self-referencing queues, 0-count pod sets, minCount above count, empty
documents, duplicate keys, anchors and aliases) and text ones on any file (BOM, CRLF, tabs,
truncation, binary bytes, very long lines, a line dropped or doubled, a number replaced).
"""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

Files = dict[str, str | bytes]


@dataclass(frozen=True)
class Seed:
    name: str
    files: dict[str, str]


def seeds() -> list[Seed]:
    """Every seed, in a fixed order: a folder's readable files (policy, state, tests, traces)."""
    out: list[Seed] = []

    def folder(name: str, path: Path, pattern: str = "*") -> None:
        files = {p.name: p.read_text(encoding="utf-8") for p in sorted(path.glob(pattern))
                 if p.is_file() and p.suffix in (".kad", ".yaml", ".yml", ".json", ".csv")}
        if files:
            out.append(Seed(name, files))

    folder("examples/ml-platform", ROOT / "examples/ml-platform")
    folder("examples/ml-platform-kueue", ROOT / "examples/ml-platform-kueue")
    for path in sorted((ROOT / "tests/oracle/features").glob("*.yaml")):
        out.append(Seed(f"features/{path.name}", {path.name: path.read_text(encoding="utf-8")}))
    for path in sorted((ROOT / "tests/corpus/upstream").iterdir()):
        if path.is_dir():
            folder(f"upstream/{path.name}", path)
    for path in sorted((ROOT / "tests/corpus/syntax/good").glob("*.kad")):
        out.append(Seed(f"syntax/{path.name}", {path.name: path.read_text(encoding="utf-8")}))
    return out


# ---- values a field may be given -----------------------------------------------------------------

def _deep(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


VALUES = [
    ("null", lambda r: None),
    ("true", lambda r: True),
    ("zero", lambda r: 0),
    ("-1", lambda r: -1),
    ("huge int", lambda r: 10 ** r.choice([19, 30, 400])),
    ("-huge int", lambda r: -(10 ** 30)),
    ("float", lambda r: r.choice([0.5, 1e308, -0.0, 3.7])),
    ("nan", lambda r: float("nan")),
    ("inf", lambda r: float("inf")),
    ("negative quantity", lambda r: r.choice(["-5", "-1Gi", "-500m"])),
    ("bad quantity", lambda r: r.choice(["1.5.3Gi", "12Qi", "1e999", "0x10", "", " 4", "5 Gi", "∞"])),
    ("huge quantity", lambda r: r.choice(["99999999999999999999999Ei", "1e18", "123456789012345678901234567890"])),
    ("unicode", lambda r: r.choice(["ünïcødé", "名前", "a\u202eb", "\u200b", "😀", "x" * 300])),
    ("empty string", lambda r: ""),
    ("list", lambda r: ["a", 1]),
    ("map", lambda r: {"a": 1}),
    ("empty list", lambda r: []),
    ("empty map", lambda r: {}),
    ("deep nesting", lambda r: _deep(r.choice([60, 400]))),
    ("date", lambda r: r.choice(["2026-13-45T99:00:00Z", "yesterday", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])),
]

KINDS = ["ClusterQueue", "LocalQueue", "ResourceFlavor", "Cohort", "Workload", "Job", "JobSet", "Pod", "Node",
         "Topology", "WorkloadPriorityClass", "PriorityClass", "Namespace", "ConfigMap", "Frobnicator",
         "LeaderWorkerSet", "RayJob", "PyTorchJob", "AdmissionCheck", "LimitRange"]
API_VERSIONS = ["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1alpha1", "v1", "batch/v1",
                "jobset.x-k8s.io/v1alpha2", "apps/v1", "nonsense/v9", "", "kueue.x-k8s.io"]


def _paths(obj, at: tuple = ()) -> list[tuple]:
    out: list[tuple] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(at + (k,))
            out.extend(_paths(v, at + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append(at + (i,))
            out.extend(_paths(v, at + (i,)))
    return out


def _get(obj, path: tuple):
    for p in path:
        obj = obj[p]
    return obj


def _named(docs: list, key: str) -> list[tuple[int, tuple]]:
    """(document, path) of every mapping key named `key`."""
    return [(d, p) for d, doc in enumerate(docs) for p in _paths(doc) if p and p[-1] == key]


def _names(docs: list, kind: str) -> list[str]:
    return [doc["metadata"]["name"] for doc in docs if isinstance(doc, dict) and doc.get("kind") == kind
            and isinstance(doc.get("metadata"), dict) and isinstance(doc["metadata"].get("name"), str)]


# ---- structural mutations of YAML documents (each edits `docs` in place; False: nothing to do) ----

def _retype(docs, r):
    spots = [(d, p) for d, doc in enumerate(docs) for p in _paths(doc)]
    if not spots:
        return False
    d, p = r.choice(spots)
    label, value = r.choice(VALUES)
    _get(docs[d], p[:-1])[p[-1]] = value(r)
    return f"{'.'.join(map(str, p))} = {label}"


def _drop(docs, r):
    spots = [(d, p) for d, doc in enumerate(docs) for p in _paths(doc)]
    if not spots:
        return False
    d, p = r.choice(spots)
    del _get(docs[d], p[:-1])[p[-1]]
    return f"{'.'.join(map(str, p))} dropped"


def _duplicate_item(docs, r):
    spots = [(d, p) for d, doc in enumerate(docs) for p in _paths(doc) if isinstance(p[-1], int)]
    if not spots:
        return False
    d, p = r.choice(spots)
    holder = _get(docs[d], p[:-1])
    holder.insert(p[-1], copy.deepcopy(holder[p[-1]]))
    return f"{'.'.join(map(str, p))} duplicated"


def _duplicate_doc(docs, r):
    if not docs:
        return False
    d = r.randrange(len(docs))
    docs.insert(d, copy.deepcopy(docs[d]))
    return f"document {d + 1} duplicated"


def _drop_doc(docs, r):
    if not docs:
        return False
    d = r.randrange(len(docs))
    del docs[d]
    return f"document {d + 1} dropped"


def _empty_doc(docs, r):
    docs.insert(r.randrange(len(docs) + 1), None)
    return "an empty document"


def _kind(docs, r):
    spots = _named(docs, "kind") + _named(docs, "apiVersion")
    if not spots:
        return False
    d, p = r.choice(spots)
    value = r.choice(KINDS if p[-1] == "kind" else API_VERSIONS)
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value}"


def _number(docs, r):
    """A number or quantity field given an extreme or malformed value."""
    spots = [(d, p) for d, doc in enumerate(docs) for p in _paths(doc)
             if isinstance(_get(doc, p), (int, float)) and not isinstance(_get(doc, p), bool)
             or isinstance(_get(doc, p), str) and re.fullmatch(r"-?\d+(\.\d+)?[a-zA-Z]{0,2}", _get(doc, p))]
    if not spots:
        return False
    d, p = r.choice(spots)
    value = r.choice([0, -1, -3, 10 ** 30, 2 ** 63, 2 ** 63 - 1, -(2 ** 63), "-4Gi", "1.5.3Gi", "0.0001m", "1e400",
                      "1Ei", "999999999999Ei", "1m", "0.5", "1_000", "007", "+3", "3.", ".5", "1e-9"])
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value!r}"


def _zero_count(docs, r):
    spots = [s for key in ("count", "replicas", "parallelism", "completions", "size", "minCount", "numSlices")
             for s in _named(docs, key)]
    if not spots:
        return False
    d, p = r.choice(spots)
    value = r.choice([0, -1, 5000, 100_001, 2 ** 31 - 1])
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value}"


def _min_count(docs, r):
    spots = [(d, p) for d, p in _named(docs, "count") if isinstance(_get(docs[d], p[:-1]), dict)]
    if not spots:
        return False
    d, p = r.choice(spots)
    holder = _get(docs[d], p[:-1])
    count = holder["count"] if isinstance(holder["count"], int) else 1
    holder["minCount"] = count + r.choice([1, 5])
    return f"{'.'.join(map(str, p[:-1]))}.minCount above count"


def _cohort_cycle(docs, r):
    """A cohort (or cluster queue) made its own parent, or two cohorts each other's."""
    cohorts = [doc for doc in docs if isinstance(doc, dict) and doc.get("kind") in ("Cohort", "ClusterQueue")
               and isinstance(doc.get("metadata"), dict) and isinstance(doc.get("spec"), dict)]
    named = _names(docs, "Cohort")
    if not cohorts:
        return False
    doc = r.choice(cohorts)
    name = doc["metadata"].get("name", "x")
    if doc["kind"] == "Cohort":
        target = r.choice(named + [name])
        doc["spec"]["parentName"] = target
        if target != name:  # and the other way round
            other = next(x for x in docs if isinstance(x, dict) and x.get("kind") == "Cohort"
                         and x["metadata"].get("name") == target)
            if isinstance(other.get("spec"), dict):
                other["spec"]["parentName"] = name
        return f"cohort {name} <-> {target}"
    doc["spec"]["cohortName"] = r.choice(named + [name, str(name) + "-cohort"])
    return f"cluster queue {name} in cohort {doc['spec']['cohortName']}"


def _queue_self(docs, r):
    """A local queue pointing at itself, a workload at a queue that is not there."""
    spots = _named(docs, "clusterQueue") + _named(docs, "queueName") + _named(docs, "kueue.x-k8s.io/queue-name")
    if not spots:
        return False
    d, p = r.choice(spots)
    doc = docs[d]
    own = doc.get("metadata", {}).get("name", "x") if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) else "x"
    value = r.choice([own, "missing-queue", ""])
    _get(doc, p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value!r}"


STRUCTURAL = [_retype, _drop, _duplicate_item, _duplicate_doc, _drop_doc, _empty_doc, _kind, _number, _number,
              _zero_count, _min_count, _cohort_cycle, _queue_self, _retype]


class _Dumper(yaml.SafeDumper):
    pass


def _dump(docs: list) -> str:
    """YAML text of the documents; nesting past what safe_dump recurses through is written as flow text."""
    deep: list[object] = []

    def shallow(obj, depth: int = 0):
        if depth > 80:
            deep.append(obj)
            return f"@@DEEP{len(deep) - 1}@@"
        if isinstance(obj, dict):
            return {k: shallow(v, depth + 1) for k, v in obj.items()}
        if isinstance(obj, list):
            return [shallow(v, depth + 1) for v in obj]
        return obj

    text = yaml.dump_all([shallow(d) for d in docs], Dumper=_Dumper, sort_keys=False, width=10 ** 9,
                         allow_unicode=True)
    for i, obj in enumerate(deep):
        text = text.replace(f"'@@DEEP{i}@@'", _flow(obj)).replace(f"@@DEEP{i}@@", _flow(obj))
    return text


def _flow(obj) -> str:
    depth = 0
    while isinstance(obj, list) and len(obj) == 1:
        obj, depth = obj[0], depth + 1
    return "[" * depth + yaml.safe_dump(obj, default_flow_style=True).strip().removesuffix("...").strip() + "]" * depth


# ---- text mutations (any file) ---------------------------------------------------------------------

def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def _t_bom(text, r):
    return "\ufeff" + text, "BOM"


def _t_crlf(text, r):
    return text.replace("\n", "\r\n"), "CRLF"


def _t_tabs(text, r):
    return text.replace("  ", "\t", r.choice([1, 3, -1])), "tabs"


def _t_truncate(text, r):
    n = r.randrange(len(text) + 1)
    return text[:n], f"truncated at {n}"


def _t_binary(text, r):
    n = r.randrange(len(text) + 1)
    junk = r.choice([b"\x00", b"\xff\xfe\xfd", bytes(r.randrange(256) for _ in range(16)), b"\x1b[31m", b"\xc3"])
    return text[:n].encode() + junk + text[n:].encode(), f"bytes {junk!r} at {n}"


def _t_long_line(text, r):
    lines = _lines(text)
    i = r.randrange(len(lines))
    size = r.choice([10_000, 300_000])
    pad = r.choice(["x" * size, "# " + "y" * size, "a" * size + ": 1"])
    return "".join(lines[:i] + [pad + "\n"] + lines[i:]), f"a {size}-character line at {i + 1}"


def _t_drop_line(text, r):
    lines = _lines(text)
    i = r.randrange(len(lines))
    return "".join(lines[:i] + lines[i + 1:]), f"line {i + 1} dropped"


def _t_dup_line(text, r):
    lines = _lines(text)
    i = r.randrange(len(lines))
    return "".join(lines[:i + 1] + lines[i:]), f"line {i + 1} doubled"  # a YAML line doubled: a duplicate key


def _t_swap_lines(text, r):
    lines = _lines(text)
    if len(lines) < 2:
        return text, "nothing swapped"
    i = r.randrange(len(lines) - 1)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "".join(lines), f"lines {i + 1} and {i + 2} swapped"


def _t_number(text, r):
    hits = list(re.finditer(r"(?<![\w.])\d+(\.\d+)?([a-zA-Z]{1,2})?(?![\w.])", text))
    if not hits:
        return text, "no number"
    m = r.choice(hits)
    value = r.choice(["-1", "0", "99999999999999999999999999999", "1.5.3Gi", "1e400", "-4Gi", "0.0000001", "1Ei"])
    return text[:m.start()] + value + text[m.end():], f"{m.group(0)} -> {value} at {m.start()}"


def _t_unicode(text, r):
    n = r.randrange(len(text) + 1)
    junk = r.choice(["é", "名", "\u202e", "\u200b", "😀", "\u0000", "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")])
    return text[:n] + junk + text[n:], f"{junk!r} at {n}"


def _t_deep(text, r):
    lines = _lines(text)
    i = r.randrange(len(lines))
    depth = r.choice([200, 5000, 100_000])
    nest = r.choice(["[" * depth + "]" * depth, "{" * depth + "}" * depth, "(" * depth + ")" * depth,
                     "[" * depth])
    return "".join(lines[:i] + [f"deep: {nest}\n"] + lines[i:]), f"{depth} levels of nesting at {i + 1}"


def _t_laughs(text, r):
    bomb = "lol0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10))
    return r.choice([bomb + text, text + "\n---\n" + bomb]), "a billion laughs"


def _t_alias(text, r):
    """An anchor on one value and aliases of it elsewhere (`<<` merge keys too)."""
    lines = _lines(text)
    spots = [i for i, line in enumerate(lines) if re.match(r"^\s*[\w.\-/]+:\s*\S", line) and "&" not in line]
    if len(spots) < 2:
        return text, "no alias"
    a, b = sorted(r.sample(spots, 2))
    key, _, value = lines[a].partition(":")
    lines[a] = f"{key}: &anchor {value.strip()}\n"
    key_b = lines[b].partition(":")[0]
    lines[b] = f"{key_b}: *anchor\n" if r.random() < 0.7 else f"{key_b}: *undefined\n"
    return "".join(lines), f"line {b + 1} an alias of line {a + 1}"


def _t_empty(text, r):
    return r.choice(["", "\n", "---\n", "---\n---\n", "null\n", "~\n", "[]\n", "{}\n", "# nothing\n"]), "emptied"


def _t_brace(text, r):
    """A `.kad` block's brace, quote or equals sign dropped or doubled."""
    hits = [m.start() for m in re.finditer(r'[{}"=\[\],]', text)]
    if not hits:
        return text, "no brace"
    n = r.choice(hits)
    if r.random() < 0.5:
        return text[:n] + text[n + 1:], f"{text[n]!r} at {n} dropped"
    return text[:n] + text[n] + text[n:], f"{text[n]!r} at {n} doubled"


def _k_reference(text, r):
    """`.kad`: a block's reference made to itself or a name that is not there (`parent = org` in cohort org,
    a cluster queue in its own name's cohort, a local queue to a missing cluster queue)."""
    blocks = list(re.finditer(r"^(cohort|cluster_queue|local_queue|flavor|topology)\s+([\w./-]+)", text, re.M))
    refs = list(re.finditer(r"^(\s*(?:parent|cohort|queue|topology)\s*=\s*)([\w.-]+)|(->\s*)([\w.-]+)", text, re.M))
    if not refs:
        return text, "no reference"
    m = r.choice(refs)
    start, end = (m.start(2), m.end(2)) if m.group(2) else (m.start(4), m.end(4))
    owner = [b.group(2).split("/")[-1] for b in blocks if b.start() < m.start()]
    value = r.choice(([owner[-1]] if owner else []) + ["missing", m.group(0).split()[0] if m.group(2) else "x"])
    return text[:start] + value + text[end:], f"reference at {start} -> {value}"


def _k_count(text, r):
    """`.kad`: a pod group's count 0, negative or huge, or a min_count above it."""
    hits = list(re.finditer(r"^(\s*)count(\s*=\s*)(\d+)", text, re.M))
    if not hits:
        return text, "no count"
    m = r.choice(hits)
    if r.random() < 0.4:
        line = f"{m.group(0)}\n{m.group(1)}min_count = {int(m.group(3)) + r.choice([1, 7])}"
        return text[:m.start()] + line + text[m.end():], f"min_count above count at {m.start()}"
    value = r.choice(["0", "-1", "2147483647", "2147483648", "99999999999999999999"])
    return text[:m.start(3)] + value + text[m.end(3):], f"count {m.group(3)} -> {value}"


KAD = [_k_reference, _k_count]

TEXT = [_t_bom, _t_crlf, _t_tabs, _t_truncate, _t_binary, _t_long_line, _t_drop_line, _t_dup_line, _t_swap_lines,
        _t_number, _t_number, _t_unicode, _t_deep, _t_laughs, _t_alias, _t_empty, _t_brace, _t_drop_line]


# ---- one case ------------------------------------------------------------------------------------

def _structural(text: str, r: random.Random, pool: list | None = None) -> tuple[str, str] | None:
    if re.search(r"(^|[\s\[{,])[&*]\w", text) or len(text) > 200_000:
        return None  # aliases a load expands (a billion laughs an earlier round wrote), or huge: text mutations only
    try:
        docs = list(yaml.safe_load_all(text))
    except (yaml.YAMLError, RecursionError):  # (deep nesting an earlier round wrote)
        return None
    for _ in range(4):
        fn = r.choice(pool or STRUCTURAL)
        work = copy.deepcopy(docs)
        what = fn(work, r)
        if what:
            try:
                return _dump(work), what
            except (yaml.YAMLError, RecursionError, ValueError):
                return None
    return None


def mutate(files: dict[str, str], r: random.Random, rounds: int | None = None,
           features: bool = False) -> tuple[Files, list[str]]:
    """The files with one to three mutations, and what each was (`file: what`); `features`: structural ones
    from tests/fuzz/features.py only (and unquoted placeholders), always tried first."""
    out: Files = dict(files)
    what: list[str] = []
    for _ in range(rounds or r.choice([1, 1, 1, 2, 3])):
        name = r.choice(sorted(out))
        text = out[name]
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        done = None
        if features and name.endswith((".yaml", ".yml")):
            from .features import FEATURES, _t_placeholder
            done = _t_placeholder(text, r) if r.random() < 0.15 else _structural(text, r, FEATURES)
        elif name.endswith((".yaml", ".yml", ".json")) and r.random() < 0.6:
            done = _structural(text, r)
        if done is None and name.endswith(".kad") and r.random() < 0.3:
            done = r.choice(KAD)(text, r)
        if done is None:
            fn = r.choice(TEXT)
            done = fn(text, r)
        out[name], change = done
        what.append(f"{name}: {change}")
    return out, what
