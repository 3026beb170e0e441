"""Requests as Kueue counts them (docs/INTEGRATIONS.md section 13): RuntimeClass overhead,
LimitRange defaults and limits as missing requests, applied to every Workload's pod sets. The
numbers are Kueue v0.17's, from the oracle's `convert` on the same file (tests/oracle/jobs/
resources.yaml, which tests/oracle/test_convert.py compares whole)."""

from __future__ import annotations

from pathlib import Path

from kadmit.quantity import parse_quantity as q
from kadmit.workspace import load

RESOURCES = Path(__file__).resolve().parents[1] / "oracle" / "jobs" / "resources.yaml"


def _requests(model, name: str) -> dict[str, int]:
    (wl,) = [w for w in model.workloads if w.origin is not None and w.origin.name == name]
    (ps,) = wl.pod_sets
    return ps.requests


def test_requests_as_kueue_v017_counts_them():
    ws = load([str(RESOURCES)])
    assert not [d for d in ws.diagnostics if d.severity.value == "error"]
    m = ws.model
    accel = "example.com/accel"
    # sidecar summed, the 6Gi init container by max; each container takes the LimitRange's
    # default limit of example.com/accel as its request
    assert _requests(m, "init-and-sidecar") == {"cpu": q("3"), accel: q("2"), "memory": q("6400Mi")}
    # defaultRequest before the container's own limit (cpu 500m, not 4), the first LimitRange by
    # name for memory (1Gi)
    assert _requests(m, "limits-only") == {"cpu": q("500m"), accel: q("1"), "memory": q("1Gi"), "nvidia.com/gpu": q("1")}
    assert _requests(m, "limitrange-defaults") == {"cpu": q("1100m"), accel: q("3"), "memory": q("2112Mi")}
    # RuntimeClass overhead, unless the pod sets its own; a RuntimeClass not in the input adds none
    assert _requests(m, "overhead") == {"cpu": q("1250m"), accel: q("1"), "memory": q("1144Mi")}
    assert _requests(m, "own-overhead") == {"cpu": q("1100m"), accel: q("1"), "memory": q("1Gi")}
    assert _requests(m, "missing-runtime-class") == {"cpu": q("1"), accel: q("1"), "memory": q("1Gi")}
    # a Pod (a Deployment's replica, a pod group's member) is stored with its limits as its missing
    # requests (SetDefaults_Pod), so no defaultRequest fills them in: the Job limits-only's 500m
    # is a Pod's 4 cpu (5 with its init container)
    assert _requests(m, "pod-limits-only") == {"cpu": q("5"), accel: q("1"), "memory": q("8Gi")}
    assert _requests(m, "group-limits-only") == {"cpu": q("4250m"), accel: q("1"), "memory": q("4216Mi")}
    assert _requests(m, "deployment-limits-only") == {"cpu": q("3"), accel: q("1"), "memory": q("1Gi")}


def test_limit_ranges_and_runtime_classes_are_read(tmp_path):
    ws = load([str(RESOURCES)])
    assert not [d for d in ws.diagnostics if d.code == "KAD159"]
    assert sorted((lr.name, lr.type) for lr in ws.model.limit_ranges) == [("a-first", "Container"), ("b-defaults", "Container")]
    (rc,) = ws.model.runtime_classes
    assert rc.overhead == {"cpu": q("250m"), "memory": q("120Mi")}
    # a request a LimitRange supplies points at it
    (wl,) = [w for w in ws.model.workloads if w.origin is not None and w.origin.name == "limits-only"]
    span = wl.pod_sets[0].spans.get("requests.cpu")
    assert span is not None and RESOURCES.read_text().splitlines()[span.line - 1].strip().startswith("defaultRequest")


def test_without_limit_ranges_requests_are_the_front_ends(tmp_path):
    """No LimitRange or RuntimeClass: the adjustment changes nothing (limits already count as
    missing requests), and the model is the same object."""
    from kadmit.manifests.resources import apply_resources
    from kadmit.podresources import adjust, pod_requests

    ws = load([str(Path(__file__).resolve().parents[2] / "examples" / "ml-platform-kueue")])
    assert apply_resources(ws.model) is ws.model
    for w in ws.model.workloads:
        for ps in w.pod_sets:
            if ps.resources is not None:
                assert pod_requests(adjust(ps.resources, [], {})) == ps.requests, (w.key, ps.name)


CLUSTER_QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}]}]
"""


def test_an_edited_input_adjusts_again_only_what_the_edit_reaches(tmp_path):
    """Reading an edited input again (`edited.with_edits`, every fix `why` proves): a workload the edit
    leaves is the very object adjusted at load; an edit of a LimitRange adjusts every workload of its
    namespace again, as loading the edited file does."""
    from kadmit import edited
    from kadmit.edits import Edit, apply

    text = RESOURCES.read_text() + CLUSTER_QUEUE
    (tmp_path / "a.yaml").write_text(text)
    ws = load([str(tmp_path / "a.yaml")])
    lines = text.splitlines()
    name = ws.model.workloads[0].span.file

    def edit(old: str, new: str, at: str) -> Edit:
        line = next(i for i, t in enumerate(lines) if at in t)
        return Edit(name, line + 1, lines[line].index(old) + 1, old, new)

    queue, _ = edited.with_edits(ws, [edit("9", "10", "nominalQuota: 9")])
    assert [w.key for w in queue.workloads] == [w.key for w in ws.model.workloads]
    assert all(a is b for a, b in zip(queue.workloads, ws.model.workloads))
    e = edit("500m", "700m", "defaultRequest: {cpu: 500m}")
    model, _ = edited.with_edits(ws, [e])
    assert _requests(model, "limits-only")["cpu"] == q("700m")
    (tmp_path / "b.yaml").write_text(apply(text, [e]))
    fresh = load([str(tmp_path / "b.yaml")])
    assert [w.pod_sets for w in fresh.model.workloads] == [w.pod_sets for w in model.workloads]


def test_kueue_finds_workloads_outside_their_limits_inadmissible():
    """Kueue v0.17's own messages (kueue-oracle admit on the same file): a container asking for
    more than its limit, containers above a LimitRange's Container max or below its min, a pod
    above its Pod max. kadmit says them as Kueue does (KAD521)."""
    ws = load([str(RESOURCES.parent / "limit-range-checks.yaml")])
    by = {(w.origin.name if w.origin else w.name): w.inadmissible for w in ws.model.workloads}
    assert by["fine"] == ""
    assert by["req-over-limit"] == ("resources validation failed: spec.podSets[0].template.spec.containers[0]: "
                                    'Invalid value: ["cpu"]: requests must not exceed its limits')
    assert by["pod-too-big"] == ("resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec: "
                                 'Invalid value: ["memory"]: requests must not be above the limitRange max')
    # its LimitRange as the API server stores it: the Container max is the default limit, below the request
    assert by["too-big"] == ("resources validation failed: spec.podSets[0].template.spec.containers[0]: "
                             'Invalid value: ["cpu"]: requests must not exceed its limits')


def test_an_admitted_workload_counts_what_its_admission_records():
    """A LimitRange adjusts the requests of the workloads Kueue queues, not of one holding quota:
    Kueue's cache counts that by its admission's resourceUsage (here count x the requests as read;
    tests/oracle/features/admitted-under-limit-range.yaml, decided by Kueue too)."""
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / "admitted-under-limit-range.yaml"
    ws = load([str(case)])
    assert not [d for d in ws.diagnostics if d.severity.value == "error"]
    running, big = ([w for w in ws.model.workloads if w.name == name][0] for name in ("running", "big"))
    assert running.pod_sets[0].requests == {"cpu": q("3")}
    assert big.pod_sets[0].requests == {"cpu": q("2")}  # no LimitRange in its namespace


def test_pod_level_requests_count_only_what_kubernetes_takes_at_pod_level():
    """PodRequests takes cpu, memory and hugepages-* from a pod's own `resources.requests`; any other
    resource comes from the containers, and kadmit says so (KAD166) at the pod-level quantity."""
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / "pod-level-request-of-an-unsupported-resource.yaml"
    ws = load([str(case)])
    (wl,) = [w for w in ws.model.workloads if w.key == "team/first"]
    assert wl.pod_sets[0].requests == {"cpu": q("3"), "example.com/gpu": q("1")}
    (d,) = [d for d in ws.diagnostics if d.code == "KAD166"]
    assert d.severity.value == "warning" and "example.com/gpu" in d.message
    assert case.read_text().splitlines()[d.span.line - 1].strip().startswith("requests: {cpu: '3', example.com/gpu")


def _job(kind: str, name: str, resources: str, containers: str) -> str:
    """A Job or a JobSet of one pod (an f-string: tests/oracle/test_convert.py converts literal YAML)."""
    spec = f"restartPolicy: Never\nresources: {resources}\ncontainers: {containers}\n"
    meta = f"metadata: {{name: {name}, namespace: team, labels: {{kueue.x-k8s.io/queue-name: lq}}}}\n"
    if kind == "Job":
        return f"apiVersion: batch/v1\nkind: Job\n{meta}spec:\n  template:\n    spec:\n" + \
            "".join(f"      {line}\n" for line in spec.splitlines())
    return (f"apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n{meta}spec:\n  replicatedJobs:\n  - name: w\n"
            f"    template:\n      spec:\n        template:\n          spec:\n"
            + "".join(f"            {line}\n" for line in spec.splitlines()))


def test_a_built_in_kinds_pod_level_resources_are_checked_as_the_api_server_checks_them(tmp_path):
    """The API server validates a Pod's and a built-in job kind's pod spec (tests/kube/
    test_pod_level_resources.py holds its own errors): a pod-level resource other than cpu, memory and
    hugepages-* refuses the object (KAD157); in a custom resource's template it stays a warning (KAD166)."""
    one_cpu = "[{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]"
    for kind, code in (("Job", "KAD157"), ("JobSet", "KAD166")):
        path = tmp_path / f"{kind}.yaml"
        path.write_text(_job(kind, "j", "{requests: {example.com/gpu: '4'}}", one_cpu))
        got = [d for d in load([str(path)]).diagnostics if d.code in ("KAD157", "KAD166")]
        # the API server also wants a limit beside an extended resource's request (not overcommitable)
        assert [d.code for d in got] == [code] * (2 if code == "KAD157" else 1), [d.message for d in got]
        assert "example.com/gpu" in got[0].message
        assert kind != "Job" or "Limit must be set for non overcommitable resources" in got[1].message


def test_a_pods_own_limits_default_its_own_requests(tmp_path):
    """SetDefaults_Pod (a Pod, never a template): pod-level limits without requests give requests, cpu and
    memory the containers request their aggregate, any other supported one the limit."""
    one_cpu = "[{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]"
    limits = "{limits: {cpu: '4', memory: 2Gi}}"
    path = tmp_path / "pod.yaml"
    path.write_text(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: team, labels: "
                    f"{{kueue.x-k8s.io/queue-name: lq}}}}\nspec:\n  resources: {limits}\n  containers: {one_cpu}\n")
    (wl,) = load([str(path)]).model.workloads
    assert wl.pod_sets[0].requests == {"cpu": q("1"), "memory": q("2Gi")}
    template = tmp_path / "job.yaml"
    template.write_text(_job("Job", "j", limits, one_cpu))
    (wl,) = load([str(template)]).model.workloads
    assert wl.pod_sets[0].requests == {"cpu": q("1")}  # a template's are not defaulted
