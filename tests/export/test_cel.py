"""The CEL `kadmit export` writes for a rule agrees with kadmit's own evaluation of the rule (the
engine's rule compiler, `engine.compile.rules`) on generated workloads and rules: the exported
Workload (and the batch Job it could have come from) is judged by the exported policy, run with
cel-python, and the same object read back by kadmit's manifest reader is judged by the engine."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.engine.compile.rules import RuleCompiler
from kadmit.engine.compile.tracked import PodSetVars
from kadmit.engine.solver import terms as T
from kadmit.export import export_model
from kadmit.export.cel import COUNT, needs
from kadmit.index import ModelIndex
from kadmit.manifests import read_manifest_text

from celshim import admit

RESOURCES = {"cpu": ("500m", "1", "2", "4"), "memory": ("1Gi", "64Gi", "1500Mi"), "nvidia.com/gpu": ("0", "1", "8")}
RACK = "cloud.example.com/rack"


@st.composite
def workloads(draw) -> str:
    lines = ["workload team-a/w {", "  queue = training"]
    prio = draw(st.sampled_from(("low", "high", "mid", "500", None)))
    if prio is not None:
        lines.append(f"  priority = {prio}")
    for name in draw(st.sampled_from((["main"], ["workers"], ["main", "workers"]))):
        count = draw(st.integers(1, 4))
        lines += [f"  pod_group {name} {{", f"    count = {count}"]
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"    min_count = {draw(st.integers(1, count))}")
        reqs = {r: draw(st.sampled_from(v)) for r, v in RESOURCES.items() if draw(st.booleans())}
        if reqs:
            lines.append("    requests = { " + ", ".join(f"{r} = {q}" for r, q in reqs.items()) + " }")
        if draw(st.booleans()):
            lines.append(f'    node_selector = {{ zone = "{draw(st.sampled_from(("a", "b")))}" }}')
        mode = draw(st.sampled_from((None, "required", "preferred", "unconstrained")))
        if mode == "unconstrained":
            lines.append("    topology = unconstrained")
        elif mode:
            lines.append(f"    topology = {mode} {RACK}")
        lines.append("  }")
    return "\n".join(lines + ["}"]) + "\n"


def ints(draw, depth: int) -> str:
    leaves = ["pod_group.max_count", "pod_group.min_count", "pod_group.count", "workload.priority",
              "workload.pod_count", str(draw(st.integers(0, 1200)))]
    if depth > 0 and draw(st.integers(0, 3)) == 0:
        op = draw(st.sampled_from(("+", "-", "*", "/")))
        return f"({ints(draw, depth - 1)} {op} {draw(st.integers(0, 3))})"
    return draw(st.sampled_from(leaves))


def quantities(draw, depth: int) -> str:
    r = draw(st.sampled_from(sorted(RESOURCES)))
    leaves = [f"pod_group.requests[{r}]", f"pod_group.total[{r}]", f"workload.requests[{r}]",
              draw(st.sampled_from(("0", "500m", "2", "8", "64Gi", "1")))]
    if depth > 0 and draw(st.integers(0, 3)) == 0:
        op = draw(st.sampled_from(("+", "*", "/")))
        right = quantities(draw, depth - 1) if op == "+" else str(draw(st.integers(0, 3)))
        return f"({quantities(draw, depth - 1)} {op} {right})"
    return draw(st.sampled_from(leaves))


@st.composite
def conditions(draw, depth: int = 2) -> str:
    kind = draw(st.integers(0, 8 if depth > 0 else 5))
    cmp = draw(st.sampled_from(("==", "!=", "<", "<=", ">", ">=")))
    if kind == 0:
        return f"{ints(draw, 1)} {cmp} {ints(draw, 1)}"
    if kind == 1:
        return f"{quantities(draw, 1)} {cmp} {quantities(draw, 1)}"
    if kind == 2:
        ref = draw(st.sampled_from(("workload.name", "workload.namespace", "workload.queue", "namespace.name",
                                    "namespace.labels[team]", "pod_group.name", "pod_group.node_selector[zone]",
                                    "pod_group.topology_level")))
        lit = draw(st.sampled_from(('"w"', '"team-a"', '"training"', '"ml"', '""', '"main"', '"a"', f'"{RACK}"')))
        return f"{ref} {draw(st.sampled_from(('==', '!=')))} {lit}"
    if kind == 3:
        return f"pod_group.topology {draw(st.sampled_from(('==', '!=')))} " \
               f"{draw(st.sampled_from(('required', 'preferred', 'unconstrained')))}"
    if kind == 4:
        return f"workload.priority {cmp} {draw(st.sampled_from(('low', 'mid', 'high')))}"
    if kind == 5:
        neg = draw(st.sampled_from(("in", "not in")))
        return f'namespace.labels[team] {neg} {{"ml", "web"}}'
    sub = draw(conditions(depth - 1))
    if kind == 6:
        return f"not ({sub})"
    if kind == 7:
        return f"({sub}) {draw(st.sampled_from(('and', 'or', 'implies')))} ({draw(conditions(depth - 1))})"
    body = sub.replace("pod_group.", "g.")
    return f"{draw(st.sampled_from(('all', 'any')))} g in workload.pod_groups: {body}"


DEFAULT_PRIORITY = 100  # POLICY's `mid`, the default class, which the export writes as spec.priority
POLICY = f"""
priority low = 10
priority mid = 100 default
priority high = 1000
namespace team-a {{ labels = {{ team = "ml" }} }}
topology dc {{ levels = ["{RACK}", "kubernetes.io/hostname"] }}
flavor f {{ node_labels = {{ "node-pool" = "tas" }}  topology = dc }}
cluster_queue q {{
  resources cpu, memory, nvidia.com/gpu {{ flavor f {{ cpu = 100  memory = 1Ti  nvidia.com/gpu = 64 }} }}
}}
local_queue team-a/training -> q
"""


def holds(model, rule, wl) -> bool:
    """kadmit's own verdict: the engine's rule compiler on the workload at its declared counts."""
    ix = ModelIndex(model)
    pvs = [PodSetVars(ps, T.Const(ps.count), T.BoolVar(f"skip|{ps.name}")) for ps in wl.pod_sets]
    rc = RuleCompiler(SimpleNamespace(index=ix, model=model), SimpleNamespace(workload=wl, pod_sets=pvs,
                                                                               cluster_queue=None))
    from kadmit.validate import rule_scope
    def kept(body) -> bool:
        value = bool(T.evaluate(body, {}))
        return not value if rule.kind == "forbid" else value

    try:  # as `compile_rules` checks it: per pod group, or once per workload
        if rule_scope(rule) == "pod_group":
            return all([kept(rc.boolean(rc.expr(rule.expr, {"pod_group": pv}))) for pv in pvs])  # every one
        return kept(rc.boolean(rc.expr(rule.expr, {})))
    except Exception as e:  # a RuleError: the engine leaves the rule unchecked for this workload
        assert type(e).__name__ == "RuleError", e
        return True


def pod_spec(ps: dict) -> dict:
    """A pod set's template spec as a job's: an image, and limits equal to requests for extended
    resources (the API server's pod validation wants both; kadmit reads requests first)."""
    spec = {**ps["template"]["spec"], "restartPolicy": "Never"}
    containers = []
    for c in spec["containers"]:
        reqs = c.get("resources", {}).get("requests", {})
        limits = {r: q for r, q in reqs.items() if "/" in r}
        res = {"requests": reqs, **({"limits": limits} if limits else {})} if reqs else {}
        containers.append({**c, "image": "busybox", **({"resources": res} if res else {})})
    return {**spec, "containers": containers}


def job_of(workload: dict) -> dict | None:
    """The batch Job whose Workload this is, when it has one pod set `main`."""
    sets = workload["spec"]["podSets"]
    if len(sets) != 1 or sets[0]["name"] != "main" or "topologyRequest" in sets[0]:
        return None
    ps = sets[0]
    labels = {"kueue.x-k8s.io/queue-name": workload["spec"]["queueName"]}
    ref = workload["spec"].get("priorityClassRef")
    if ref is not None:
        labels["kueue.x-k8s.io/priority-class"] = ref["name"]
    elif workload["spec"].get("priority", DEFAULT_PRIORITY) != DEFAULT_PRIORITY:
        return None  # a Job can't carry an explicit priority (the export writes the default class's)
    meta = {"name": workload["metadata"]["name"], "namespace": workload["metadata"]["namespace"], "labels": labels}
    if "minCount" in ps and ps["minCount"] < ps["count"]:
        meta["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": str(ps["minCount"])}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"parallelism": ps["count"], "suspend": True,
                     "template": {"spec": pod_spec(ps)}}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(wl_text=workloads(), cond=conditions(), kind=st.sampled_from(("require", "forbid")))
def test_cel_agrees_with_kadmit(tmp_path_factory, wl_text: str, cond: str, kind: str) -> None:
    folder = tmp_path_factory.mktemp("cel")
    (folder / "p.kad").write_text(POLICY + wl_text + f"{kind} r: {cond}\n")
    loaded = api.load_for_engine([str(folder)])
    assume(loaded.exit_code == 0)  # an ill-typed rule (the validator refuses it)
    model = loaded.workspace.model
    rule = model.rules[0]
    out = export_model(model, workloads=True, allow_unenforced=True)
    docs = {d.obj["kind"]: d.obj for stem in out.files for d in out.files[stem]}
    if "ValidatingAdmissionPolicy" not in docs:  # a rule the engine can't compile: it constrains nothing
        assert [d.code for d in out.diagnostics if "left out" in d.message] == ["KAD901"]
        assert holds(model, rule, model.workloads[0])
        return
    policy, workload = docs["ValidatingAdmissionPolicy"], docs["Workload"]
    text = yaml.safe_dump_all([o for o in out.objects() if o["kind"] != "Configuration"])
    back = read_manifest_text(text, "export.yaml", Diagnostics())
    back_model = model.model_copy(update={"workloads": tuple(back.workloads), "rules": tuple(back.rules)})
    assert [r.expr for r in back.rules] == [rule.expr]
    wl = back.workloads[0]
    expected = holds(back_model, rule, wl)
    partial = any(ps.min_count is not None and ps.min_count < ps.count for ps in wl.pod_sets)
    if COUNT in needs(rule) and partial:
        expected = True  # judged only without partial admission (KAD905)
    labels = {"kubernetes.io/metadata.name": "team-a", "team": "ml"}
    assert admit(policy, workload, labels) is expected, (cond, wl_text)
    for job in (job_of(workload), jobset_of(workload)):
        if job is None:
            continue
        jobs = read_manifest_text(yaml.safe_dump(job), "job.yaml", Diagnostics()).jobs
        job_wl = jobs[0].workloads[0].model_copy(update={"namespace": "team-a", "queue": "training",
                                                         "priority_class": ref_name(job), "priority_class_kind":
                                                         "workload" if ref_name(job) else None,
                                                         "priority": None, "name": job["metadata"]["name"]})
        want = holds(back_model, rule, job_wl)
        part = any(ps.min_count is not None and ps.min_count < ps.count for ps in job_wl.pod_sets)
        if COUNT in needs(rule) and part:
            want = True
        assert admit(policy, job, labels) is want, (cond, job)


def jobset_of(workload: dict) -> dict | None:
    """The JobSet whose Workload this is: one replicated job per pod set (no partial admission)."""
    sets = workload["spec"]["podSets"]
    if any("topologyRequest" in ps or ps.get("minCount", ps["count"]) < ps["count"] for ps in sets):
        return None
    labels = {"kueue.x-k8s.io/queue-name": workload["spec"]["queueName"]}
    if "priorityClassRef" in workload["spec"]:
        labels["kueue.x-k8s.io/priority-class"] = workload["spec"]["priorityClassRef"]["name"]
    elif workload["spec"].get("priority", DEFAULT_PRIORITY) != DEFAULT_PRIORITY:
        return None
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": workload["metadata"]["name"], "namespace": workload["metadata"]["namespace"],
                         "labels": labels},
            "spec": {"suspend": True, "replicatedJobs": [
                {"name": ps["name"], "replicas": 1, "template": {"spec": {
                    "parallelism": ps["count"], "completions": ps["count"],
                    "template": {"spec": pod_spec(ps)}}}}
                for ps in sets]}}


def ref_name(job: dict) -> str | None:
    return job["metadata"]["labels"].get("kueue.x-k8s.io/priority-class")


def test_every_rule_of_the_example_has_its_policy_or_its_reason(tmp_path: Path) -> None:
    model = api.load_for_engine(["examples/ml-platform/"]).workspace.model
    out = export_model(model, allow_unenforced=True)
    names = {d.obj["metadata"]["name"] for d in out.files["validating-admission-policies"]}
    assert names == {"kadmit-production-only-for-research-teams"}
    assert out.unenforced == ["gpu-jobs-on-gpu-flavors"]
