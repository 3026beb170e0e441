"""The policy test format: `*.kadtest.yaml` files -> test cases (setup changes and expected outcomes).

A test file is YAML, beside the policy it tests:

    tests:
      - name: a one-GPU job in team-nlp lands on h100
        given:
          add: |                      # `.kad` text: workloads, nodes, queues, rules...
            workload team-nlp/tiny { queue = training  pod_group main { ... } }
          add_manifests: |            # or Kueue / Kubernetes manifests
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: Workload
            ...
          remove: [workload team-vision/resnet-sweep, node h100-r1-0]
        expect:
          team-nlp/tiny: {admitted: {cluster_queue: team-nlp, flavors: {main: h100}}}
          team-vision/llm-pretrain: {not_admitted: {reason: KAD510, blames: policy.kad:72}}
          diagnostics: [KAD203]

An added object with the kind and name of an existing one replaces it (that is how a test changes
a queue or a workload). Embedded text keeps its lines: diagnostics and blame point into the test file.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.yamltree import BOOL, DESCRIBE, INT, MAP, SEQ, STR, Val, parse_documents
from kadmit.review.codes import KAD801, KAD802, KAD810
from kadmit.source import Span
from kadmit.workspace import TEST_SUFFIXES

OUTCOMES = ("admitted", "not_admitted", "preempted", "not_preempted", "never_admissible", "admissible")
DETAILS = {
    "admitted": ("cluster_queue", "flavors", "counts", "nodes", "domain", "borrowing"),
    "not_admitted": ("reason", "blames"),
    "preempted": ("by",),
    "not_preempted": (),
    "never_admissible": ("blames",),
    "admissible": (),
}
# kind written in `remove:` -> the model field holding such objects
KINDS = {"workload": "workloads", "node": "nodes", "cluster_queue": "cluster_queues", "cohort": "cohorts",
         "flavor": "flavors", "local_queue": "local_queues", "namespace": "namespaces", "rule": "rules",
         "priority": "priority_classes", "topology": "topologies", "pod": "pods"}


@dataclass(frozen=True)
class Expectation:
    """One expected outcome: for a workload (`outcome` and its details), located in the test file."""

    workload: str
    outcome: str
    details: tuple[tuple[str, object], ...]
    span: Span

    def detail(self, key: str, default=None):
        return dict(self.details).get(key, default)

    def text(self) -> str:
        if not self.details:
            return self.outcome
        inner = ", ".join(f"{k}: {_show(v)}" for k, v in self.details)
        return f"{self.outcome} ({inner})"


@dataclass(frozen=True)
class Added:
    """Text a test adds: `.kad` (`kind` "kad") or manifests, padded so its lines are the file's."""

    kind: str
    text: str
    file: str


@dataclass
class TestCase:
    name: str
    file: str
    span: Span
    added: list[Added] = field(default_factory=list)
    removed: list[tuple[str, str, Span]] = field(default_factory=list)  # (model field, key, where)
    expect: list[Expectation] = field(default_factory=list)
    diagnostics: list[tuple[str, Span]] = field(default_factory=list)  # codes that must be reported

    @property
    def setup(self) -> tuple:
        """What the test changes; tests with equal setups share one decision run."""
        return (tuple((a.kind, a.file, a.text) for a in self.added),
                tuple(sorted((k, key) for k, key, _ in self.removed)))


def _show(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


def is_test_file(name: str) -> bool:
    return name.endswith(TEST_SUFFIXES)


def read_tests(text: str, file: str, diags: Diagnostics) -> list[TestCase]:
    """The tests of one file; shape errors become KAD801/KAD802 diagnostics (that test is left out)."""
    docs = [d for d in parse_documents(text, file, diags) if d is not None]
    lines = text.splitlines()
    if len(docs) != 1 or docs[0].kind != MAP or docs[0].get("tests") is None:
        at = docs[0].span(file) if docs else Span(file=file, line=1, column=1)
        diags.emit(KAD801, "a test file is one YAML mapping with a `tests` list", at,
                   help="see `kadmit test --help` for the format")
        return []
    root = docs[0]
    for key in root.v:
        if key != "tests":
            diags.emit(KAD801, f"unknown key `{key}` in a test file", _key_span(root, key, file),
                       help="a test file has only `tests`")
    tests = root.get("tests")
    assert tests is not None
    if tests.kind != SEQ:
        diags.emit(KAD801, "`tests` must be a list of tests", tests.span(file))
        return []
    out = []
    for node in tests.v:
        case = _test(node, file, lines, diags)
        if case is not None:
            out.append(case)
    return out


def _key_span(node: Val, key: str, file: str) -> Span:
    line, col, end_line, end_col = node.keys[key]
    return Span(file=file, line=line + 1, column=col + 1, end_line=end_line + 1, end_column=end_col + 1)


def _test(node: Val, file: str, lines: list[str], diags: Diagnostics) -> TestCase | None:
    if node.kind != MAP or node.get("name") is None or node.get("name").kind != STR:
        diags.emit(KAD801, "each test is a mapping with a `name` (a string)", node.span(file))
        return None
    ok = True
    for key in node.v:
        if key not in ("name", "given", "expect"):
            diags.emit(KAD801, f"unknown key `{key}` in a test", _key_span(node, key, file),
                       help="a test has `name`, `given` and `expect`")
            ok = False
    case = TestCase(node.get("name").v, file, node.span(file))
    given = node.get("given")
    if given is not None:
        ok &= _given(given, case, file, lines, diags)
    expect = node.get("expect")
    if expect is None or expect.kind != MAP or not expect.v:
        diags.emit(KAD801, f"test `{case.name}` expects nothing", (expect or node).span(file),
                   help="add `expect:` with workload outcomes or `diagnostics`")
        return None
    for key, val in expect.v.items():
        at = _key_span(expect, key, file)
        if key == "diagnostics":
            items = val.v if val.kind == SEQ else [val]
            for item in items:
                if item.kind != STR:
                    diags.emit(KAD801, "`diagnostics` lists codes such as `KAD203`", item.span(file))
                    ok = False
                else:
                    case.diagnostics.append((item.v.strip().upper(), item.span(file)))
            continue
        if "/" not in key:
            diags.emit(KAD801, f"`{key}` is not a workload: name it as `namespace/name`", at)
            ok = False
            continue
        got = _expectation(key, val, at, file, diags)
        if got is None:
            ok = False
        else:
            case.expect.append(got)
    return case if ok else None


def _given(given: Val, case: TestCase, file: str, lines: list[str], diags: Diagnostics) -> bool:
    if given.kind != MAP:
        diags.emit(KAD801, "`given` is a mapping with `add`, `add_manifests` and `remove`", given.span(file))
        return False
    ok = True
    for key, val in given.v.items():
        if key in ("add", "add_manifests"):
            if val.kind != STR:
                diags.emit(KAD801, f"`{key}` takes a block of text (`{key}: |`)", val.span(file))
                ok = False
                continue
            case.added.append(Added("kad" if key == "add" else "manifests",
                                    _embedded(val, lines, dedent=key != "add"), file))
        elif key == "remove":
            items = val.v if val.kind == SEQ else [val]
            for item in items:
                parts = str(item.v).split() if item.kind == STR else []
                if len(parts) != 2 or parts[0] not in KINDS:
                    diags.emit(KAD801, f"remove `KIND NAME`, KIND one of {', '.join(sorted(KINDS))}",
                               item.span(file), help="e.g. `workload team-a/train` or `node gpu-0`")
                    ok = False
                    continue
                case.removed.append((KINDS[parts[0]], parts[1], item.span(file)))
        else:
            diags.emit(KAD801, f"unknown key `{key}` in `given`", _key_span(given, key, file),
                       help="`given` has `add`, `add_manifests` and `remove`")
            ok = False
    return ok


def _embedded(val: Val, lines: list[str], *, dedent: bool) -> str:
    """A block scalar's text as it stands in the file, earlier lines blanked, so that spans keep
    the file's line numbers (and, for `.kad`, its columns). Text written another way (a quoted string
    with escapes) is taken as its value, from the line it starts on."""
    first = lines[val.line][val.col:val.col + 1] if val.line < len(lines) else ""
    if first not in ("|", ">"):
        return "\n" * val.line + str(val.v) + "\n"
    start = val.line + 1 if val.line < val.end_line else val.line
    body = lines[start:start + max(1, str(val.v).rstrip("\n").count("\n") + 1)]
    text = "\n".join(body)
    if dedent:
        text = textwrap.dedent(text)
    return "\n" * start + text + "\n"


DETAIL_TYPES = {
    "cluster_queue": "a name", "domain": "a name", "reason": "a code or words of the reason", "by": "a workload",
    "flavors": "a flavor, or a mapping of pod set to flavor (or to a mapping of resource to flavor)",
    "counts": "a number of pods, or a mapping of pod set to a number of pods",
    "nodes": "a node or a list of nodes", "blames": "a `file:line` or name, or a list of them",
    "borrowing": "`true` or `false`",
}


def _detail_ok(key: str, v: Val) -> bool:
    """Whether a detail has a shape its check reads (anything else could only pass or fail by accident)."""
    def names(x: Val) -> bool:
        return x.kind == STR or x.kind == SEQ and bool(x.v) and all(i.kind == STR for i in x.v)
    if key in ("cluster_queue", "domain", "reason", "by"):
        return v.kind == STR
    if key == "borrowing":
        return v.kind == BOOL
    if key in ("nodes", "blames"):
        return names(v)
    if key == "counts":
        return v.kind == INT or v.kind == MAP and bool(v.v) and all(i.kind == INT for i in v.v.values())
    if key == "flavors":
        return v.kind == STR or v.kind == MAP and bool(v.v) and all(
            i.kind == STR or i.kind == MAP and bool(i.v) and all(j.kind == STR for j in i.v.values())
            for i in v.v.values())
    return True


def _expectation(workload: str, val: Val, at: Span, file: str, diags: Diagnostics) -> Expectation | None:
    if val.kind == STR:
        outcome, details = val.v, None
    elif val.kind == MAP and len(val.v) == 1:
        outcome, node = next(iter(val.v.items()))
        details = node
    else:
        diags.emit(KAD802, f"expect one outcome for `{workload}`", val.span(file),
                   help="one of " + ", ".join(OUTCOMES))
        return None
    if outcome not in OUTCOMES:
        diags.emit(KAD802, f"unknown outcome `{outcome}` for `{workload}`", val.span(file),
                   help="one of " + ", ".join(OUTCOMES))
        return None
    pairs: list[tuple[str, object]] = []
    if details is not None and details.kind == MAP:
        for k, x in details.v.items():
            if k not in DETAILS[outcome]:
                allowed = ", ".join(DETAILS[outcome]) or "nothing"
                diags.emit(KAD802, f"`{outcome}` has no detail `{k}`", _key_span(details, k, file),
                           help=f"it takes {allowed}")
                return None
            if not _detail_ok(k, x):
                diags.emit(KAD810, f"`{outcome}` detail `{k}` can't be {DESCRIBE.get(x.kind, 'this')}",
                           x.span(file), help=f"`{k}` takes {DETAIL_TYPES[k]}")
                return None
            pairs.append((k, x.plain()))
    elif details is not None and not (details.kind == "bool" and details.v is True):
        diags.emit(KAD802, f"`{outcome}` takes `true` or a mapping of details", details.span(file))
        return None
    return Expectation(workload, outcome, tuple(pairs), at)
