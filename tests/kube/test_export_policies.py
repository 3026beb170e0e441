"""Rules `kadmit export` writes as ValidatingAdmissionPolicies, enforced by a real API server
(tools/kube-apiserver, Kubernetes v1.35.3): a Workload, Job or JobSet that breaks a rule is refused with
the rule's name and place, one that keeps it is created; and on generated rules and workloads the
server's verdict (server-side dry run) is the one tests/export/test_cel.py holds equal to kadmit's own."""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit import api
from kadmit.export import export_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
import test_cel as tc  # noqa: E402
from celshim import admit as cel_admit  # noqa: E402

POLICY = """
priority low = 10
priority high = 1000
namespace team-a { labels = { team = "ml" } }
flavor f {}
cluster_queue q {
  namespaces = { team = "ml" }
  resources cpu, memory, nvidia.com/gpu { flavor f { cpu = 100  memory = 1Ti  nvidia.com/gpu = 64 } }
}
local_queue team-a/training -> q

forbid no-big-gpu-pods: pod_group.requests[nvidia.com/gpu] > 8
"""


def workload(name: str, gpus: str) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "team-a"},
            "spec": {"queueName": "training", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": gpus}}}]}}}]}}


def refusal(kube, obj: dict) -> str | None:
    """Why the server refuses to create `obj` (server-side dry run), or None when it would create it."""
    got = kube.run("create", "--dry-run=server", "-f", "-", input=yaml.safe_dump(obj), check=False)
    return None if got.returncode == 0 else got.stderr


class DryRuns:
    """The server's verdict on creating an object (a server-side dry run with strict field validation,
    as `kubectl create --dry-run=server` asks for it), through the Python client: one request on a kept
    connection, where a kubectl run per object costs a process start."""

    def __init__(self, kube) -> None:
        import kubernetes

        self.api = kubernetes.client.CustomObjectsApi(
            kubernetes.config.new_client_from_config(config_file=str(kube.kubeconfig)))
        self.error = kubernetes.client.ApiException

    def refusal(self, obj: dict) -> str | None:
        """Why the server refuses to create `obj`, or None when it would create it."""
        group, _, version = obj["apiVersion"].rpartition("/")
        try:  # CustomObjectsApi's path, /apis/GROUP/VERSION/namespaces/NS/PLURAL, is every grouped kind's
            self.api.create_namespaced_custom_object(group, version, obj["metadata"]["namespace"],
                                                     obj["kind"].lower() + "s", obj, dry_run="All",
                                                     field_validation="Strict")
        except self.error as e:
            if e.status in (400, 403, 422):  # refused (an admission policy's denial is 403 or 422)
                return str(e.body)
            raise
        return None


def synced(kube, obj: dict, said: str) -> None:
    """Policies take effect when the server's policy cache syncs: wait until `obj` is refused saying `said`."""
    deadline = time.monotonic() + 60
    while said not in (refusal(kube, obj) or ""):
        assert time.monotonic() < deadline, "the exported policies never took effect"
        time.sleep(0.5)


def test_a_rule_is_enforced_by_the_api_server(kube_apiserver, tmp_path: Path) -> None:
    (tmp_path / "p.kad").write_text(POLICY)
    out = api.export([str(tmp_path / "p.kad")], str(tmp_path / "out"))
    assert out.exit_code == 0, [d.message for d in out.diagnostics]
    for path in sorted((tmp_path / "out").glob("*.yaml")):
        kube_apiserver.run("apply", "-f", str(path))
    big = workload("big", "16")
    synced(kube_apiserver, big, f"kadmit rule `no-big-gpu-pods` ({tmp_path}/p.kad:12)")
    assert refusal(kube_apiserver, workload("fits", "8")) is None
    job = tc.job_of(big)
    assert "kadmit rule `no-big-gpu-pods`" in refusal(kube_apiserver, job)
    assert refusal(kube_apiserver, tc.job_of(workload("fits", "8"))) is None
    assert "kadmit rule `no-big-gpu-pods`" in refusal(kube_apiserver, tc.jobset_of(big))
    unmanaged = copy.deepcopy(job)
    del unmanaged["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    assert refusal(kube_apiserver, unmanaged) is None  # Kueue doesn't manage it: no rule of its
    # the Python client's dry run (the generated rules' test below) gets kubectl's verdicts
    server = DryRuns(kube_apiserver)
    for obj in (big, workload("fits", "8"), job, tc.job_of(workload("fits", "8")), tc.jobset_of(big), unmanaged):
        said = server.refusal(obj)
        assert (said is None) == (refusal(kube_apiserver, obj) is None), obj
        assert said is None or "kadmit rule `no-big-gpu-pods`" in said


def test_the_servers_verdicts_on_generated_rules(kube_apiserver) -> None:
    cases: list[tuple[str, dict]] = []

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(wl_text=tc.workloads(), cond=tc.conditions(), kind=st.sampled_from(("require", "forbid")))
    def collect(wl_text: str, cond: str, kind: str) -> None:
        folder = Path(tempfile.mkdtemp())
        (folder / "p.kad").write_text(tc.POLICY + wl_text + f"{kind} r: {cond}\n")
        loaded = api.load_for_engine([str(folder)])
        if loaded.exit_code != 0:
            return
        out = export_model(loaded.workspace.model, workloads=True, allow_unenforced=True)
        docs = {d.obj["kind"]: d.obj for stem in out.files for d in out.files[stem]}
        if "ValidatingAdmissionPolicy" in docs:
            cases.append((cond, docs))

    collect()
    run = int(time.time()) % 100000
    objects, checks = [], []
    for i, (cond, docs) in enumerate(cases):  # each case in a namespace of its own, bound to it alone
        key = f"{run}-{i}"
        labels = {"team": "ml", "case": key}
        policy = copy.deepcopy(docs["ValidatingAdmissionPolicy"])
        binding = copy.deepcopy(docs["ValidatingAdmissionPolicyBinding"])
        policy["metadata"]["name"] = binding["metadata"]["name"] = binding["spec"]["policyName"] = f"kadmit-{key}"
        binding["spec"]["matchResources"] = {"namespaceSelector": {"matchLabels": {"case": key}}}
        objects += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"case-{key}", "labels": labels}},
                    policy, binding]
        for obj in (docs["Workload"], tc.job_of(docs["Workload"]), tc.jobset_of(docs["Workload"])):
            if obj is not None:
                obj = copy.deepcopy(obj)
                obj["metadata"]["namespace"] = f"case-{key}"
                want = cel_admit(policy, obj, {**labels, "kubernetes.io/metadata.name": f"case-{key}"})
                checks.append((cond, obj, want))
    # 40 draws gave 39 and 43 checks in two runs (some draws export no policy); the bound only guards that
    # the generator still yields policies to judge, and stays clear of a sparse draw (local runs are random)
    assert len(checks) >= 20
    # ~40 namespaces with their policies and bindings in one request: over 120 s once at load average 20 on 2 cores
    kube_apiserver.apply(yaml.safe_dump_all(objects), timeout=600)
    server = DryRuns(kube_apiserver)
    wrong = []
    try:
        for cond, obj, want in checks:
            deadline = time.monotonic() + 30  # a refusal waits for the policy cache to hold the new policy
            while (got := server.refusal(obj) is None) and not want and time.monotonic() < deadline:
                time.sleep(0.5)
            if got != want:
                wrong.append((cond, obj["kind"], want))
    finally:
        removed(kube_apiserver, objects)
    assert wrong == []


def removed(kube, objects: list[dict]) -> None:
    """The namespaces, policies and bindings gone from the session's server, whose later tests would otherwise
    see them: every policy is matched on each request, and tests/kube/test_live lists a kind namespace by namespace
    for a user without rights to it (a kubectl run each, twice over). No controller-manager finalizes a deleted
    namespace here: it is finalized as the namespace controller does once the namespace is empty (these hold
    nothing: the objects were dry runs)."""
    import kubernetes

    api = kubernetes.config.new_client_from_config(config_file=str(kube.kubeconfig))
    core, admission = kubernetes.client.CoreV1Api(api), kubernetes.client.AdmissionregistrationV1Api(api)
    for obj in objects:
        name = obj["metadata"]["name"]
        if obj["kind"] == "ValidatingAdmissionPolicyBinding":
            admission.delete_validating_admission_policy_binding(name)
        elif obj["kind"] == "ValidatingAdmissionPolicy":
            admission.delete_validating_admission_policy(name)
        else:
            core.delete_namespace(name)
            core.replace_namespace_finalize(name, {"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": name}, "spec": {"finalizers": []}})
    left = {n.metadata.name for n in core.list_namespace().items}
    assert not left & {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}, left
