"""kadmit's job conversion (src/kadmit/manifests/jobs/) against Kueue's own: the oracle's `convert`
(tools/kueue-oracle, Kueue v0.17's webhooks and job reconcilers) and kadmit read the same files,
and every job object's Workloads must agree — per Workload its queue, priority, and per pod set
its count, minimum count and one pod's requests after Kueue's resource adjustment — or both must
make none (Kueue's refusal is then one of kadmit's errors or skipped objects).

Inputs: the examples, the job manifests of tests/ (files, and the YAML literals of tests/jobs/),
and the upstream-style examples of tests/oracle/jobs/, one per integration and resource rule.
"""

from __future__ import annotations

import ast
import importlib
import re
import json
import subprocess
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import yaml

from kadmit.diagnostics import Severity
from kadmit.effective import gated
from kadmit.index import ModelIndex
from kadmit.quantity import parse_quantity
from kadmit.workspace import load
from oracle.harness import run_each

ROOT = Path(__file__).resolve().parents[2]
JOB_KINDS = {"Job", "JobSet", "LeaderWorkerSet", "RayJob", "RayCluster", "RayService", "PyTorchJob", "TFJob",
             "MPIJob", "JAXJob", "PaddleJob", "XGBoostJob", "TrainJob", "AppWrapper", "Pod", "Deployment",
             "StatefulSet"}


# --- the inputs ---------------------------------------------------------------------------------

# Every manifest file of tests/ is read to find the cases, at collection: libyaml's safe loader where PyYAML
# has it (the same cases as PyYAML's own, in half the time), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# A text that names none of the kinds holds none of them: the shortest names each kind's name contains ("Job" is
# in ten of them), looked for before the YAML is read (27,000 string literals of the tests are asked, at collection
# in each pytest-xdist worker: half of those with `kind:` name no job kind). YAML could spell a kind with escapes:
# none of tests/ does.
_KIND_WORDS = tuple(sorted(k for k in JOB_KINDS if not any(o != k and o in k for o in JOB_KINDS)))


def _has_jobs(text: str) -> bool:
    if "kind:" not in text or not any(w in text for w in _KIND_WORDS):
        return False
    try:
        docs = list(yaml.load_all(text, Loader=SAFE_LOADER))
    except Exception:  # noqa: BLE001 - the robustness tests' broken YAML (PyYAML fails in many ways): no job
        return False
    return any(isinstance(d, dict) and d.get("kind") in JOB_KINDS for d in docs) and not _beyond_bound(docs)


def _beyond_bound(docs: list) -> bool:
    """An object asking for more Workloads than kadmit reads from one (KAD003 at its `replicas`;
    KUEUE-DIFFERENCES §2): Kueue's converter would build them all (100,001 pods' Workloads took the oracle
    more than 8 minutes and 5.5 GB), and tests/jobs/test_pod_based.py checks kadmit's refusal."""
    from kadmit.manifests.jobs.common import MAX_OBJECT_WORKLOADS

    def big(part) -> bool:
        n = part.get("replicas") if isinstance(part, dict) else None
        return isinstance(n, int) and n > MAX_OBJECT_WORKLOADS
    return any(isinstance(d, dict) and (big(d.get("spec")) or big(d.get("status"))) for d in docs)


# Inputs with objects the API server refuses and the oracle, running no admission plugin, reads
# (tests/oracle/test_limit_ranger.py asks it without them)
REFUSED = ROOT / "tests" / "oracle" / "refused"


def _file_cases() -> list[tuple[str, list[Path]]]:
    """Each example folder that holds a job, read whole; each manifest file of tests/ that holds one."""
    cases = [(f"examples/{d.name}", [d]) for d in sorted((ROOT / "examples").iterdir())
             if d.is_dir() and any(_has_jobs(p.read_text()) for p in _manifests(d))]
    for path in _manifests(ROOT / "tests"):
        if path.is_relative_to(REFUSED):
            continue  # pods the API server refuses, which the oracle makes Workloads of: test_limit_ranger.py
        if _has_jobs(path.read_text()):
            cases.append((str(path.relative_to(ROOT)), [path]))
    return cases


def _manifests(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


# YAML of tests/jobs that sets jobs up rather than submits them (the Configuration, a training
# runtime): every case of its module gets it, after the getting-started queues (helpers.SETUP).
SETUP_CONSTANTS = ("ENABLE", "RUNTIME")


def _literal_cases() -> list[tuple[str, list[str]]]:
    """Every string literal of tests/jobs that is YAML holding a job (templates built by the
    tests' helper functions are not literals: the examples of tests/oracle/jobs cover them)."""
    from tests.jobs import helpers

    cases = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.parent.name == "oracle":
            continue
        rel = path.relative_to(ROOT)
        if rel.parts[1] == "jobs":
            module = importlib.import_module(f"tests.jobs.{path.stem}")
            setup = [helpers.SETUP] + [getattr(module, n) for n in SETUP_CONSTANTS if isinstance(getattr(module, n, None), str)]
        else:
            setup = []
        seen = set(setup)
        source = path.read_text()
        if "kind:" not in source:
            continue  # no literal of it says `kind:` (more than half of the test files: not parsed)
        nodes = list(ast.walk(ast.parse(source)))  # walked once (most of this function's time)
        # an f-string's literal pieces are not files: the YAML is whole only once formatted
        pieces = {id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values}
        for node in nodes:
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces \
                    and node.value not in seen \
                    and _has_jobs(textwrap.dedent(node.value)):
                seen.add(node.value)
                cases.append((f"{rel}:{node.lineno}", setup + [node.value]))
    return cases


CASES = _file_cases() + _literal_cases()

# Where kadmit and Kueue v0.17 still differ, and why (strict: the test fails once they agree).
DIVERGENCES: dict[str, str] = {}


def _materialise(case, tmp: Path) -> list[str]:
    out = []
    for i, item in enumerate(case):
        if isinstance(item, Path):
            out.append(str(item))
        else:
            p = tmp / f"{i:02d}.yaml"
            p.write_text(textwrap.dedent(item))
            out.append(str(p))
    return out


# --- both sides, in one shape -------------------------------------------------------------------

def _requests(raw: dict[str, str]) -> dict[str, int]:
    return {r: parse_quantity(q) for r, q in sorted(raw.items()) if parse_quantity(q)}


def _topology(t: dict | None) -> tuple | None:
    """Kueue's topology request as kadmit models it: (mode, level, slice level, slice size, slice layers), or
    None for a pod set that asks for none (Kueue still records its pod index label). Slices with no
    level are unconstrained, as Kueue's scheduler takes them (tas_flavor_snapshot.go isUnconstrained:
    isSliceTopologyOnlyRequest), whether or not the request says `unconstrained`; the first layer is the slice
    level (sliceLevelKeyWithDefault: after `podSetSliceRequiredTopology`) and size (getSliceSizeWithSinglePodAsDefault)."""
    if not t:
        return None
    layers = tuple((x.get("topology", ""), x.get("size", 0)) for x in t.get("layers") or ())
    slice_level = t.get("slice_required") or (layers[0][0] if layers else None)
    mode = "required" if t.get("required") else "preferred" if t.get("preferred") else \
        "unconstrained" if t.get("unconstrained") or slice_level else None
    if mode is None and not slice_level:
        return None
    return (mode, t.get("required") or t.get("preferred") or None, slice_level,
            (layers[0][1] if layers else None) or t.get("slice_size") or None, layers)


def kueue_side(converted: dict) -> dict[tuple, dict]:
    """object (kind, namespace, name) -> {"workloads": [...], "skipped": reason}, from `convert`'s answer."""
    out = {}
    for o in converted["objects"]:
        ref = o["object"]
        key = (ref["kind"], ref["namespace"], ref["name"])
        wls = [{"queue": w["queue"], "priority": w["priority"] or 0,
                "pod_sets": [(p["name"], p["count"], p["min_count"], _requests(p["requests"]), _topology(p["topology"]))
                             for p in w["pod_sets"]]}
               for w in o["workloads"] if w["queue"]]
        # A Workload without a queue (manageJobsWithoutQueueName, no `default` LocalQueue) is never
        # admitted: kadmit lists its job as skipped instead (docs/INTEGRATIONS.md J1).
        skipped = o.get("skipped", "") or ("its Workload has no queue" if o["workloads"] and not wls else "")
        out[key] = {"workloads": wls, "skipped": skipped}
    return out


# the oracle's reason where the API server refused the Workload a reconciler created (its CRD's schema and rules)
RECONCILER_REFUSED = "Kueue's reconciler failed: Workload.kueue.x-k8s.io "
REFUSAL = re.compile(r": (Invalid value|Required value|Forbidden|Too many|Unsupported value)\b")


def kadmit_side(paths: list[str]) -> tuple[dict[tuple, dict], list[str]]:
    """The same from kadmit's model; and kadmit's errors (a refusal of Kueue's is one of them)."""
    ws = load(paths)
    model = gated(ws.model)  # the pod sets as Kueue's feature gates leave them (PartialAdmission off: no minCount)
    index = ModelIndex(model)
    out: dict[tuple, dict] = {}
    for w in model.workloads:
        if w.kueue_name is None or w.origin is None:  # a Workload of the input, not one a job made
            continue
        key = (w.origin.kind, w.origin.namespace or "default", w.origin.name)
        entry = out.setdefault(key, {"workloads": [], "skipped": ""})
        entry["workloads"].append({
            "queue": w.queue, "priority": index.priority(w),
            "pod_sets": [(ps.name, ps.count, ps.min_count, dict(sorted((r, q) for r, q in ps.placed_requests.items() if q)),
                          None if ps.topology is None else (ps.topology.mode, ps.topology.level, ps.topology.slice_level,
                                                            ps.topology.slice_size, ps.topology.layers))
                         for ps in w.pod_sets]})
    for s in model.skipped:
        # a SparkApplication kadmit lists (as not managed, refused, or not modelled) but makes no Workload of; its
        # files are cases for the other kinds they hold
        if s.object.kind not in JOB_KINDS and s.object.kind != "SparkApplication":
            continue
        key = (s.object.kind, s.object.namespace or "default", s.object.name)
        out.setdefault(key, {"workloads": [], "skipped": s.reason})
    errors = [f"{d.code}: {d.message}" for d in ws.diagnostics if d.severity == Severity.ERROR]
    broken = {(b.kind, b.namespace or "default", b.name) for b in model.broken}
    return out, errors + [f"broken: {'/'.join(b)}" for b in sorted(broken)]


def refusal_rows(kueue: dict, errors: list[str]) -> list[tuple[str, str, str]]:
    """Kueue's webhook refusals (a field error in its words) kadmit does not make: kadmit must
    refuse the object too, with KAD170 quoting Kueue (each KAD170 of the object part of Kueue's
    message); where Kueue's pod webhook refuses the pods the object's controller makes (the object stored), KAD170
    saying so."""
    rows = []
    for key, k in sorted(kueue.items()):
        if k["workloads"] or not REFUSAL.search(k["skipped"]) or k["skipped"].startswith(("creating it failed", RECONCILER_REFUSED)):
            continue  # not a webhook's refusal: the API server refused what Kueue's reconciler wrote (its CRD's schema)
        if re.match(rf'{re.escape(key[0])}(\.[a-z0-9.-]+)? "{re.escape(key[2])}" is invalid: ', k["skipped"]):
            # the API server refuses the object itself against its CRD (internal/jobs CheckCRD), or a built-in
            # kind with Kubernetes' validation (kubevalidate): kadmit must too
            if not _refused(key, errors):
                rows.append(("/".join(key), f"refused: {k['skipped']}", "not refused"))
            continue
        prefix = f"KAD170: Kueue's pod webhook refuses every pod {key[0]} `{key[2]}` makes: " \
            if k["skipped"].startswith("Kueue's pod webhook refuses its pods: ") else \
            f"KAD170: Kueue's Job webhook refuses the Jobs {key[0]} `{key[2]}` makes: " \
            if k["skipped"].startswith("Kueue's Job webhook refuses its child Jobs: ") else \
            f"KAD170: Kueue's webhook refuses {key[0]} `{key[2]}`: "
        ours = [e[len(prefix):] for e in errors if e.startswith(prefix)]
        if any(m not in k["skipped"] for m in ours) or not ours:
            rows.append(("/".join(key), f"refused: {k['skipped']}", "; ".join(ours) or "no KAD170"))
    return rows


def _shape(entry: dict, kind: str) -> Counter:
    """A comparable multiset of an object's Workloads (a pod group's pod sets by name too: Kueue's
    role hashes, which kadmit computes as Kueue does)."""
    def pod_set(p):
        name, count, min_count, requests, topology = p
        return (name, count, min_count, tuple(requests.items()), topology)
    return Counter(json.dumps([w["queue"], w["priority"], [pod_set(p) for p in w["pod_sets"]]])
                   for w in entry["workloads"])


def disagreements(kueue: dict, kadmit: dict, errors: list[str]) -> list[tuple[str, str, str]]:
    """(object, Kueue's, kadmit's) for every object the two read differently."""
    rows = []
    for key in sorted(set(kueue) | set(kadmit)):
        k, a = kueue.get(key), kadmit.get(key)
        name = "/".join(key)
        if k is None and key[0] == "Pod" and not a["workloads"]:
            continue  # a pod group kadmit makes no work of, named by its group (Kueue's side lists its pods)
        if k is None and not a["workloads"] and a["skipped"].startswith("kadmit does not read this kind"):
            continue  # neither reads it as a job (a `Job` of another API group: tests/manifests/test_kinds.py)
        if k is None:
            rows.append((name, "not a job object", _show(a)))
        elif a is None and not k["workloads"] and (key[0] == "Pod" or _refused(key, errors)):
            continue  # kadmit reads a pod Kueue leaves alone as node usage; or refuses the object too
        elif a is None and _strictly_refused(key, errors):
            continue  # `kubectl apply` refuses it (strict field validation, a value its type refuses)
        elif a is None:
            rows.append((name, _show(k), "no Workload, not skipped" + (f" (errors: {errors})" if errors else "")))
        elif not k["workloads"] and not a["workloads"]:
            continue  # neither makes work of it; the reasons are each one's own words
        elif not k["workloads"] and re.search(r"is invalid: \[?metadata\.name: ", k["skipped"]) \
                and any(e.startswith("KAD195: ") and f"`{key[2]}`" in e for e in errors):
            continue  # the API server refuses the object's own name (KAD195, an error; kadmit reads it still)
        elif _shape(k, key[0]) != _shape(a, key[0]):
            rows.append((name, _show(k), _show(a)))
    return rows


# kadmit's reason for a single Kueue pod on a node with no Workload in the input (manifests/jobs/pods.py)
ON_A_NODE = re.compile(r"^none: it is on node `[^`]+`, ungated, and the input holds no Workload for it")


def bound_pods_apart(rows: list[tuple[str, str, str]], kadmit: dict, oracle: list[str],
                     paths: list[str]) -> list[tuple[str, str, str]]:
    """The rows left once the single pods on a node without their Workload are taken out where the oracle's
    own `admit` agrees with kadmit: `convert` gives every pod to Kueue's pod reconciler, which makes such a
    pod a Workload (and would stop it); `admit` keeps a pod bound to a node apart as that node's usage
    (tools/kueue-oracle jobKinds), as kadmit does, saying so (KUEUE-DIFFERENCES §2: a cluster holds such a
    pod with its Workload). Checked: `admit` decides no Workload of the pod."""
    apart = [r for r in rows if r[0].startswith("Pod/") and ON_A_NODE.match(r[2])]
    if not apart:
        return rows
    run = subprocess.run(oracle + ["admit", "--format", "json", *paths], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    decided = {"/".join((d["object"]["kind"], d["object"]["namespace"], d["object"]["name"]))
               for d in json.loads(run.stdout)["decisions"] if d.get("object")}
    return [r for r in rows if r not in apart or r[0] in decided]


def started_apart(rows: list[tuple[str, str, str]], oracle: list[str], paths: list[str]) -> list[tuple[str, str, str]]:
    """The rows left once the jobs whose Workload Kueue's workload controller admits and their reconciler then
    fails to start are taken out where the oracle's own `admit` says so in kadmit's words: `convert` runs the job
    reconcilers without the workload controller, so a Workload holding quota with every check Ready but no
    Admitted condition yet is never admitted there, nor its job started, and `convert` lists no such job;
    `admit` runs both (3b23c70). Checked: `admit` skips the job with the same start error kadmit gives."""
    apart = [r for r in rows if r[1] == "not a job object" and "reason FailedToStart" in r[2]]
    if not apart:
        return rows
    run = subprocess.run(oracle + ["admit", "--format", "json", *paths], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    failed = {"/".join((s["kind"], s["namespace"], s["name"])): s["reason"].split("(FailedToStart): ", 1)[1]
              for s in json.loads(run.stdout)["skipped"] if "(FailedToStart): " in s.get("reason", "")}
    return [r for r in rows if r not in apart or r[0] not in failed or failed[r[0]] not in r[2]]


def _first_of_repeats(key: tuple) -> tuple:
    """The object a repeat of a `generateName` prefix is (`job-#2`, as the oracle numbers them in input order:
    identity.repeat_name): kadmit's errors and `Model.broken` name each by the prefix, the input's words."""
    return (*key[:2], key[2].split("#", 1)[0]) if key[2] else key


def _refused(key: tuple, errors: list[str]) -> bool:
    """kadmit reports an error about the object (named in backquotes, as its messages do; any
    error, for an object without a name) or leaves it out for its errors (`Model.broken`)."""
    key = _first_of_repeats(key)
    if f"broken: {'/'.join(key)}" in errors:
        return True
    return any(f"`{key[2]}`" in e for e in errors) if key[2] else bool(errors)


def _strictly_refused(key: tuple, errors: list[str]) -> bool:
    """kadmit leaves the job out for an unknown field (KAD180, or one of another version, KAD162) or a
    fractional number where its CRD types a quantity int-or-string (KAD156): the object the API server
    refuses, its strict field validation being the default (docs/KUEUE-SETTINGS.md;
    tests/kube/test_unknown_fields_and_empty_jobs.py checks it on the real API server). The oracle refuses a
    custom resource so too (CRDCheck's strict decoding: skipped), and a built-in kind (kubevalidate's strict
    decoding); a value it takes where kadmit refuses it still counts here (the KAD156/KAD157 cases below)."""
    # KAD156 names the field and the value since a55c5da (the type check of every field), not the object:
    # the object's own refusal is `broken`
    key = _first_of_repeats(key)
    return f"broken: {'/'.join(key)}" in errors and any(
        (e.startswith(("KAD180: ", "KAD162: ")) and f"`{key[0]}` `{key[2]}`" in e)
        or (e.startswith("KAD156: ") and "found a number" in e)
        # a pod spec the API server's validation refuses in a built-in kind (an empty toleration's operator:
        # tests/jobs/test_appwrapper.py); the oracle validates none
        or (key[0] in ("Job", "Pod", "Deployment", "StatefulSet") and e.startswith("KAD157: a toleration with an empty"))
        for e in errors)


def _show(entry: dict | None) -> str:
    if entry is None:
        return "-"
    if not entry["workloads"]:
        return f"none: {entry['skipped']}"
    return "; ".join(f"q={w['queue']} p={w['priority']} " + " ".join(
        f"{n}:{c}" + (f"/min{m}" if m else "") + f"{{{','.join(f'{r}={q}' for r, q in req.items())}}}"
        + (f"@{'/'.join(str(x) for x in t if x)}" if t else "")
        for n, c, m, req, t in w["pod_sets"]) for w in entry["workloads"])


@pytest.fixture(scope="module")
def kueue_converted(kueue_oracle, request, tmp_path_factory) -> dict[str, tuple[list[str], dict]]:
    """Every case of test_kadmit_converts_jobs_as_kueue_does this run selected, written out (a case of
    several texts in a folder of its own, which the oracle reads as those files in that order) and
    converted in one oracle process (`convert --each`, each path a cluster of its own) rather than a
    process per case: case id -> (its paths, Kueue's answer)."""
    root = tmp_path_factory.mktemp("convert")
    written: dict[str, list[str]] = {}
    cluster: dict[str, str] = {}  # case id -> the path the oracle converts
    for item in request.session.items:
        if getattr(item, "originalname", None) != "test_kadmit_converts_jobs_as_kueue_does" \
                or item.module is not request.module:
            continue
        name, case = item.callspec.id, item.callspec.params["case"]
        if len(case) == 1 and isinstance(case[0], Path):
            written[name] = [str(case[0])]
            cluster[name] = str(case[0])
        else:
            folder = root / f"{len(written):04d}"
            folder.mkdir()
            written[name] = _materialise(case, folder)
            cluster[name] = str(folder)
    answers = run_each(kueue_oracle, "convert", sorted(set(cluster.values())))
    return {name: (written[name], answers[cluster[name]]) for name in written}


@pytest.mark.parametrize("case", [pytest.param(paths, id=name, marks=[pytest.mark.xfail(strict=True, reason=DIVERGENCES[name])]
                                               if name in DIVERGENCES else [])
                                  for name, paths in CASES])
def test_kadmit_converts_jobs_as_kueue_does(case, kueue_oracle, kueue_converted, request):
    paths, converted = kueue_converted[request.node.callspec.id]
    assert "error" not in converted, converted["error"]
    kueue = kueue_side(converted)
    kadmit, errors = kadmit_side(paths)
    rows = started_apart(bound_pods_apart(disagreements(kueue, kadmit, errors), kadmit, [kueue_oracle], paths),
                         [kueue_oracle], paths) + refusal_rows(kueue, errors)
    table = "\n".join(f"| {o} | {k} | {a} |" for o, k, a in rows)
    assert not rows, f"\n| object | Kueue v0.17 | kadmit |\n|---|---|---|\n{table}"
