"""tools/kube-apiserver: the server answers, every CRD is established, objects read back with the
defaults the CRDs declare, the kubeconfig works for the Python client, and `down` ends what `up` began."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from kube.server import TOOL, KubeAPIServer, go_missing, start, stop

pytestmark = pytest.mark.slow

# Every CRD `up` installs (tools/kube-apiserver/crds/crds.txt), with the version each serves as storage.
CRDS = {
    **{f"{plural}.kueue.x-k8s.io": "v1beta2" for plural in (
        "admissionchecks", "clusterqueues", "cohorts", "localqueues", "multikueueclusters", "multikueueconfigs",
        "provisioningrequestconfigs", "resourceflavors", "topologies", "workloadpriorityclasses", "workloads")},
    "jobsets.jobset.x-k8s.io": "v1alpha2",
    "leaderworkersets.leaderworkerset.x-k8s.io": "v1",
    "rayjobs.ray.io": "v1",
    "rayclusters.ray.io": "v1",
    "rayservices.ray.io": "v1",
    **{f"{plural}.kubeflow.org": "v1" for plural in ("pytorchjobs", "tfjobs", "xgboostjobs", "paddlejobs", "jaxjobs")},
    "mpijobs.kubeflow.org": "v2beta1",
    "trainjobs.trainer.kubeflow.org": "v1alpha1",
    "trainingruntimes.trainer.kubeflow.org": "v1alpha1",
    "clustertrainingruntimes.trainer.kubeflow.org": "v1alpha1",
    "appwrappers.workload.codeflare.dev": "v1beta2",
    "nodepools.karpenter.sh": "v1",
}

CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 9}
      - {name: memory, nominalQuota: 36Gi}
"""


def test_the_server_answers_kubectl_with_the_version_built(kube_apiserver: KubeAPIServer) -> None:
    assert kube_apiserver.run("get", "--raw", "/readyz").stdout == "ok"
    server = json.loads(kube_apiserver.run("get", "--raw", "/version").stdout)
    assert (server["gitVersion"], server["major"], server["minor"]) == ("v1.35.3", "1", "35")
    client = json.loads(kube_apiserver.run("version", "--client", "--output", "json").stdout)
    assert client["clientVersion"]["gitVersion"] == "v1.35.3"
    # The kubeconfig's user is in system:masters: it may do anything.
    assert kube_apiserver.run("auth", "can-i", "*", "*", "--all-namespaces").stdout.strip() == "yes"


def test_every_crd_is_established_with_its_storage_version(kube_apiserver: KubeAPIServer) -> None:
    crds = json.loads(kube_apiserver.run("get", "customresourcedefinitions", "--output", "json").stdout)["items"]
    got = {}
    for crd in crds:
        conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        assert conditions["Established"] == "True" and conditions["NamesAccepted"] == "True", crd["metadata"]["name"]
        [storage] = [v["name"] for v in crd["spec"]["versions"] if v["storage"]]
        got[crd["metadata"]["name"]] = storage
    assert got == CRDS


def test_a_cluster_queue_reads_back_with_the_crd_defaults(kube_apiserver: KubeAPIServer) -> None:
    kube_apiserver.apply(CLUSTER_QUEUE)
    spec = kube_apiserver.get("clusterqueues.v1beta2.kueue.x-k8s.io", "team-a")["spec"]
    # +kubebuilder:default markers of Kueue v0.17.0's apis/kueue/v1beta2/clusterqueue_types.go.
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["stopPolicy"] == "None"
    assert spec["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
    assert spec["preemption"] == {"borrowWithinCohort": {"policy": "Never"}, "reclaimWithinCohort": "Never",
                                  "withinClusterQueue": "Never"}
    assert spec["resourceGroups"][0]["flavors"][0]["resources"][1] == {"name": "memory", "nominalQuota": "36Gi"}
    # The CRD's validation runs too: an unknown strategy is refused.
    bad = kube_apiserver.run("apply", "--dry-run=server", "-f", "-", check=False,
                             input=CLUSTER_QUEUE.replace("namespaceSelector: {}", "queueingStrategy: Random"))
    assert bad.returncode != 0 and "queueingStrategy" in bad.stderr


def test_a_jobset_and_a_leaderworkerset_read_back_with_their_crd_defaults(kube_apiserver: KubeAPIServer) -> None:
    kube_apiserver.apply("""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: pretrain, namespace: default, labels: {kueue.x-k8s.io/queue-name: training}}
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 4
        completions: 4
        template:
          spec:
            restartPolicy: Never
            containers: [{name: w, image: busybox, resources: {requests: {cpu: "1"}}}]
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve, namespace: default}
spec:
  leaderWorkerTemplate:
    workerTemplate:
      spec:
        containers: [{name: w, image: busybox}]
""")
    jobset = kube_apiserver.get("jobsets.jobset.x-k8s.io", "pretrain", "default")
    [workers] = jobset["spec"]["replicatedJobs"]
    assert (workers["replicas"], workers["groupName"]) == (1, "default")
    assert workers["template"]["spec"]["parallelism"] == 4
    assert jobset["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "training"}
    lws = kube_apiserver.get("leaderworkersets.leaderworkerset.x-k8s.io", "serve", "default")["spec"]
    assert lws["replicas"] == 1 and lws["startupPolicy"] == "LeaderCreated"
    assert lws["leaderWorkerTemplate"]["size"] == 1
    assert lws["leaderWorkerTemplate"]["restartPolicy"] == "RecreateGroupOnPodRestart"


def test_the_kubeconfig_works_for_the_python_client(kube_apiserver: KubeAPIServer) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    kube_apiserver.apply(CLUSTER_QUEUE)
    api = kubernetes.config.new_client_from_config(config_file=str(kube_apiserver.kubeconfig))
    cq = kubernetes.client.CustomObjectsApi(api).get_cluster_custom_object(
        "kueue.x-k8s.io", "v1beta2", "clusterqueues", "team-a")
    assert cq["spec"]["queueingStrategy"] == "BestEffortFIFO"
    names = [ns.metadata.name for ns in kubernetes.client.CoreV1Api(api).list_namespace().items]
    assert "default" in names


def test_kueue_v1beta1_is_served_without_conversion(kube_apiserver: KubeAPIServer) -> None:
    # The module's CRDs have no conversion webhook (strategy None): an object written as v1beta1 is
    # stored with v1beta2's apiVersion and pruned against v1beta2's schema, so a field v1beta2 renamed
    # (v1beta1 `cohort`, v1beta2 `cohortName`) is dropped, and read as v1beta1 a v1beta2-only field is
    # pruned from the answer. kubectl only warns that v1beta1 is deprecated.
    crd = kube_apiserver.get("customresourcedefinitions", "clusterqueues.kueue.x-k8s.io")
    assert crd["spec"]["conversion"]["strategy"] == "None"
    assert {v["name"]: (v["served"], v["storage"]) for v in crd["spec"]["versions"]} == {
        "v1beta1": (True, False), "v1beta2": (True, True)}
    applied = kube_apiserver.apply("""\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: written-as-v1beta1}
spec: {cohort: research, namespaceSelector: {}, resourceGroups: []}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: written-as-v1beta2}
spec: {cohortName: research, namespaceSelector: {}, resourceGroups: []}
""")
    assert "Warning: This version is deprecated. Use v1beta2 instead." in applied.stderr
    old = kube_apiserver.get("clusterqueues.v1beta2.kueue.x-k8s.io", "written-as-v1beta1")
    assert old["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert "cohort" not in old["spec"] and "cohortName" not in old["spec"]
    assert old["spec"]["queueingStrategy"] == "BestEffortFIFO"
    new = kube_apiserver.get("clusterqueues.v1beta1.kueue.x-k8s.io", "written-as-v1beta2")
    assert new["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert "cohortName" not in new["spec"] and "cohort" not in new["spec"]
    assert kube_apiserver.get("clusterqueues.v1beta2.kueue.x-k8s.io", "written-as-v1beta2")["spec"]["cohortName"] == "research"


def test_it_listens_on_loopback_only(kube_apiserver: KubeAPIServer) -> None:
    sockets = set()
    for pid_file in sorted((kube_apiserver.dir / "run").glob("*.pid")):
        pid = pid_file.read_text().split()[0]
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd)
            if target.startswith("socket:["):
                sockets.add(target[len("socket:["):-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in sockets:  # 0A: LISTEN
                listening.append(fields[1].split(":")[0])
    assert len(listening) >= 3  # etcd's client and peer ports, the API server's port
    loopback = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1, ::1
    assert set(listening) <= loopback, listening


def test_up_twice_on_the_same_dir_is_refused(kube_apiserver: KubeAPIServer) -> None:
    again = subprocess.run([str(TOOL / "up"), str(kube_apiserver.dir)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 2, again.stderr
    assert f"{kube_apiserver.dir} is already up" in again.stderr and "down" in again.stderr
    assert kube_apiserver.run("get", "--raw", "/readyz").stdout == "ok"
    assert kube_apiserver.run("get", "crd", "clusterqueues.kueue.x-k8s.io", "--output", "name").stdout.strip()


def test_down_ends_every_process_up_started_and_nothing_else(tmp_path: Path, kube_apiserver: KubeAPIServer) -> None:
    # A bare server of its own (no CRDs: quicker), so that stopping it leaves the session's alone.
    directory = tmp_path / "second"
    server = start(directory, no_crds=True)
    try:
        pids = {p.stem: int(p.read_text().split()[0]) for p in (directory / "run").glob("*.pid")}
        assert set(pids) == {"etcd", "kube-apiserver"}
        assert server.run("get", "--raw", "/readyz").stdout == "ok"
        assert server.run("get", "crd", "--output", "name").stdout == ""
    finally:
        done = stop(directory)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"down: stopped kube-apiserver (pid {pids['kube-apiserver']}) etcd (pid {pids['etcd']})"
    for pid in pids.values():
        assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0] in "ZX"
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            assert str(directory).encode() not in cmdline, (proc.name, cmdline)
    assert not list((directory / "run").glob("*.pid"))
    again = stop(directory)
    assert (again.returncode, again.stdout.strip()) == (0, f"down: nothing was running in {directory}")
    # The session's server still answers.
    assert kube_apiserver.run("get", "--raw", "/readyz").stdout == "ok"


def test_up_without_go_exits_2_saying_so(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if Path("/usr/bin/go").exists() or Path("/bin/go").exists():
        pytest.skip("a go in /usr/bin or /bin: this test needs a PATH without Go")
    proc = subprocess.run([str(TOOL / "up"), str(tmp_path / "k")], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Go is missing" in proc.stderr
    assert not (tmp_path / "k" / "run").exists()


def test_the_fixture_knows_when_go_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GO", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert go_missing() == "Go is not installed (no `go` on PATH)"
    monkeypatch.setenv("GO", str(tmp_path / "go"))
    assert go_missing() == f"GO={tmp_path / 'go'} is not a program"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    for script, args in (("up", []), ("up", ["a", "b"]), ("down", []), ("build", ["x"])):
        proc = subprocess.run([str(TOOL / script), *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "usage:" in proc.stderr, (script, args, proc.stderr)
