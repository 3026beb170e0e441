"""KAD193's claim, on the real API server: it defaults a Job's containers (`imagePullPolicy`,
`terminationMessagePath`, `terminationMessagePolicy`: `manifests.jobs.containerdefaults`) and not a
Workload's, so a prebuilt Workload written with the Job's very containers is out of sync with the Job as the
server stores it: kadmit finds them out of sync (as Kueue would) read back from the server, and in the files
as written, where it warns KAD193. The imagePullPolicy it gives each image is `containerdefaults.pull_policy`'s."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kadmit import workspace as ws
from kadmit.manifests.jobs.containerdefaults import CONTAINER_DEFAULTS, pull_policy
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: prebuilt-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: prebuilt-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: prebuilt-flavor
      resources: [{name: cpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: prebuilt-lq, namespace: default}
spec: {clusterQueue: prebuilt-cq}
"""
PAIR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: prebuilt-pre, namespace: default}
spec:
  queueName: prebuilt-lq
  podSets:
  - name: main
    count: 2
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: prebuilt-job
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: prebuilt-lq, kueue.x-k8s.io/prebuilt-workload-name: prebuilt-pre}
spec:
  suspend: true
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def _load(tmp_path: Path, name: str, text: str) -> ws.Workspace:
    path = tmp_path / name / "state.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return ws.load([str(path.parent)])


def test_the_api_server_defaults_a_jobs_containers_and_not_a_workloads(kube_apiserver: KubeAPIServer,
                                                                        tmp_path: Path) -> None:
    kube_apiserver.run("create", "-f", "-", input=QUEUES + "---\n" + PAIR)
    job = kube_apiserver.get("jobs.batch", "prebuilt-job", "default")
    wl = kube_apiserver.get("workloads.kueue.x-k8s.io", "prebuilt-pre", "default")
    (jc,) = job["spec"]["template"]["spec"]["containers"]
    (wc,) = wl["spec"]["podSets"][0]["template"]["spec"]["containers"]
    assert all(jc.get(k) for k in CONTAINER_DEFAULTS), jc
    assert not any(wc.get(k) for k in CONTAINER_DEFAULTS), wc

    written = _load(tmp_path, "written", QUEUES + "---\n" + PAIR)
    assert [d.code for d in written.diagnostics] == ["KAD193"]
    (skipped,) = [s for s in written.model.skipped if s.object.kind == "Job"]
    assert "OutOfSync" in skipped.reason and "its containers" in skipped.reason

    for obj in (job, wl):
        obj.pop("status", None)
    stored = _load(tmp_path, "stored", QUEUES + "---\n" + yaml.safe_dump_all([wl, job]))
    assert "KAD193" not in [d.code for d in stored.diagnostics]  # read back: the job carries its defaults
    (skipped,) = [s for s in stored.model.skipped if s.object.kind == "Job"]
    assert "OutOfSync" in skipped.reason and "its containers" in skipped.reason


def test_a_port_without_protocol_is_defaulted_on_both_sides(kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """tests/oracle/features/prebuilt-workload-job-ports-default-protocol.yaml on the real API server: it stores
    the Job's port with `protocol: TCP` (SetDefaults_ContainerPort) and the Workload's too (its CRD's default), so
    the pair read back is in sync for kadmit and for the oracle (whose harness defaults a Job's ports as the
    server does), as the files as written are for both (test_admit)."""
    from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, run_oracle

    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / "prebuilt-workload-job-ports-default-protocol.yaml"
    text = case.read_text(encoding="utf-8").replace("  completions: 2\n", "  completions: 2\n  suspend: true\n")
    kube_apiserver.run("create", "-f", "-", input=text)
    job = kube_apiserver.get("jobs.batch", "j", "ns")
    wl = kube_apiserver.get("workloads.kueue.x-k8s.io", "pre", "ns")
    (jc,) = job["spec"]["template"]["spec"]["containers"]
    (wc,) = wl["spec"]["podSets"][0]["template"]["spec"]["containers"]
    assert jc["ports"] == wc["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    for obj in (job, wl):
        obj.pop("status", None)
        obj["metadata"].pop("managedFields", None)
    setup = [d for d in text.split("---\n") if "kind: Workload\n" not in d and "kind: Job\n" not in d]
    stored = tmp_path / "stored.yaml"
    stored.write_text("---\n".join(setup) + "---\n" + yaml.safe_dump_all([wl, job]), encoding="utf-8")
    code, kadmit = run_kadmit([str(stored)])
    assert code == 0 and kadmit is not None
    kueue = run_oracle(oracle_binary(), [str(stored)], "--runs", "1")
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    assert compare(k, q).agree, compare(k, q).report(k, q)
    (taken,) = kadmit["decisions"]  # the Job's, in sync: named by the Workload (the Job has a UID)
    assert taken["admitted"] and taken["object"]["kind"] == "Job", taken
    assert not [s for s in kadmit["skipped"] if s["kind"] == "Job"], kadmit["skipped"]


def test_the_pull_policy_is_the_api_servers(kube_apiserver: KubeAPIServer) -> None:
    """The images of tests/jobs/test_prebuilt.py's test_the_pull_policy_is_the_api_servers, each in a Job the
    server creates: the imagePullPolicy it stores is `pull_policy`'s (SetDefaults_Container: `latest` or no tag
    nor digest Always, else IfNotPresent; an image that does not parse IfNotPresent)."""
    from tests.jobs.test_prebuilt import PULL_POLICIES

    images = [(image, policy) for image, policy in PULL_POLICIES if image]  # the server refuses a Job without one
    jobs = [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"pull-{i}", "namespace": "default"},
             "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [
                 {"name": "c", "image": image}]}}}} for i, (image, _) in enumerate(images)]
    try:
        kube_apiserver.run("create", "-f", "-", input=yaml.safe_dump_all(jobs))
        for i, (image, policy) in enumerate(images):
            (c,) = kube_apiserver.get("jobs.batch", f"pull-{i}", "default")["spec"]["template"]["spec"]["containers"]
            assert c["imagePullPolicy"] == pull_policy(image) == policy, (image, c)
    finally:
        kube_apiserver.run("delete", "jobs.batch", *[f"pull-{i}" for i in range(len(jobs))], "--namespace", "default",
                           "--ignore-not-found", "--wait=false")
