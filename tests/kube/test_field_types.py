"""Field types as the real API server (Kubernetes v1.35.3, the CRDs Kueue v0.17.0 pins) checks them, and
kadmit's schema check (manifests/schema: KAD156, KAD158, KAD163) on the same object: each value below is
sent with `kubectl create --dry-run=server` (kubectl turns YAML into JSON first, as for every file) and
kadmit refuses exactly the ones the server refuses.

- A built-in kind is decoded into Go types: an int32 or int64 takes an integer in range (kubectl sends
  `3.0` and `1e3` as integers), not `"3"`, `3.5` or `true`; a string takes no number or boolean; a
  quantity takes a number or a quantity's text; an int-or-string no fraction; null leaves any field unset.
- A CRD's kind is checked against its OpenAPI schema: an integer of any size; a quantity (int-or-string
  with the quantity pattern) no fraction, unlike a built-in kind's.
- The Kubernetes examples' fibre channel Pod (`lun: <ADD LUN ID Here>`, an int32 as text): the server
  refuses it and kadmit lists it as not decided (it admitted it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from kube.server import KubeAPIServer

from kadmit.cli import cli
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text

pytestmark = pytest.mark.slow

TYPE_CODES = {"KAD156", "KAD158", "KAD163"}

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  containers:
  - name: c
    image: busybox
    {container}
  {spec}
"""

CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: f, resources: [{{name: cpu, nominalQuota: {quota}}}]}}]
  {spec}
"""

JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: default}}
spec:
  {spec}
  replicatedJobs:
  - name: w
    replicas: {replicas}
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{{name: c, image: busybox{container}}}]
"""

# a container written in each job kind's embedded pod template (`{container}`: its fields after the image)
_C = "{{name: c, image: {image}{container}}}"
TEMPLATES = {
    "runtime": """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {{name: rt}}
spec:
  mlPolicy: {{numNodes: 1, torch: {{}}}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                containers: [%s]
""" % _C,
    "lws": """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {{name: l, namespace: default}}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate: {{spec: {{containers: [%s]}}}}
    workerTemplate: {{spec: {{containers: [{{name: w, image: busybox}}]}}}}
""" % _C,
    "ray": """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {{name: r, namespace: default}}
spec:
  headGroupSpec:
    rayStartParams: {{}}
    template: {{spec: {{containers: [{{name: h, image: busybox}}]}}}}
  workerGroupSpecs:
  - groupName: g
    rayStartParams: {{}}
    template: {{spec: {{containers: [%s]}}}}
""" % _C,
    "pytorch": """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: p, namespace: default}}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template: {{spec: {{containers: [%s]}}}}
""" % _C.replace("name: c", "name: pytorch"),
    "mpi": """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {{name: m, namespace: default}}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template: {{spec: {{containers: [%s]}}}}
""" % _C,
    "trainjob-patch": """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {{name: t, namespace: default}}
spec:
  runtimeRef: {{name: rt}}
  runtimePatches:
  - manager: m
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template: {{spec: {{template: {{spec: {{containers: [{{name: node{container}}}]}}}}}}}}
""",
}

# (id, manifest, whether the server refuses it)
CASES = [
    ("int64", POD.format(container="", spec="terminationGracePeriodSeconds: 3"), False),
    ("int64-as-text", POD.format(container="", spec='terminationGracePeriodSeconds: "3"'), True),
    ("int64-float-whole", POD.format(container="", spec="terminationGracePeriodSeconds: 3.0"), False),
    ("int64-float-exponent", POD.format(container="", spec="terminationGracePeriodSeconds: 1e3"), False),
    ("int64-fraction", POD.format(container="", spec="terminationGracePeriodSeconds: 3.5"), True),
    ("int64-boolean", POD.format(container="", spec="terminationGracePeriodSeconds: true"), True),
    ("int64-null", POD.format(container="", spec="terminationGracePeriodSeconds: null"), False),
    ("int32-past-range", POD.format(container="ports: [{containerPort: 3000000000}]", spec=""), True),
    ("int32-as-text", POD.format(container='ports: [{containerPort: "80"}]', spec=""), True),
    ("boolean", POD.format(container="", spec="hostNetwork: yes"), False),
    ("boolean-y", POD.format(container="", spec="hostNetwork: y"), False),
    ("boolean-as-text", POD.format(container="", spec='hostNetwork: "true"'), True),
    ("boolean-number", POD.format(container="", spec="hostNetwork: 1"), True),
    ("string-number", POD.format(container="workingDir: 3", spec=""), True),
    ("string-boolean", POD.format(container="workingDir: true", spec=""), True),
    ("string-date", POD.format(container="workingDir: 2024-01-01", spec=""), False),
    ("string-mapping", POD.format(container="workingDir: {a: b}", spec=""), True),
    ("object-string", POD.format(container="", spec="securityContext: abc"), True),
    ("list-string", POD.format(container="", spec="tolerations: abc"), True),
    ("list-mapping", POD.format(container="", spec="tolerations: {a: b}"), True),
    ("map-value-number", POD.format(container="", spec="nodeSelector: {a: 1}"), True),
    ("map-value-null", POD.format(container="", spec="nodeSelector: {a: null}"), False),
    ("quantity-integer", POD.format(container="resources: {limits: {cpu: 2}}", spec=""), False),
    ("quantity-fraction", POD.format(container="resources: {limits: {cpu: 1.5}}", spec=""), False),
    ("quantity-exponent", POD.format(container="resources: {limits: {cpu: 1e3}}", spec=""), False),
    ("quantity-boolean", POD.format(container="resources: {limits: {cpu: true}}", spec=""), True),
    ("quantity-text", POD.format(container="resources: {limits: {cpu: abc}}", spec=""), True),
    ("int-or-string-name", POD.format(container="livenessProbe: {httpGet: {port: http}}", spec=""), False),
    ("int-or-string-float-whole", POD.format(container="livenessProbe: {httpGet: {port: 80.0}}", spec=""), False),
    ("int-or-string-fraction", POD.format(container="livenessProbe: {httpGet: {port: 80.5}}", spec=""), True),
    ("int-or-string-boolean", POD.format(container="livenessProbe: {httpGet: {port: true}}", spec=""), True),
    ("int-or-string-past-int32", POD.format(container="livenessProbe: {httpGet: {port: 3000000000}}", spec=""), True),
    ("fc-lun-text", POD.format(container="", spec="volumes: [{name: v, fc: {lun: <ADD LUN ID Here>}}]"), True),
    # kubectl's YAML (go-yaml v2) where YAML 1.1 readers differ: kadmit reads as kubectl does (manifests/goyaml.py)
    ("int64-exponent-as-text", POD.format(container="", spec='terminationGracePeriodSeconds: "1e3"'), True),
    ("int64-octal-0o", POD.format(container="", spec="terminationGracePeriodSeconds: 0o17"), False),
    ("int64-sexagesimal", POD.format(container="", spec="terminationGracePeriodSeconds: 1:30"), True),
    ("boolean-y-as-text", POD.format(container="", spec='hostNetwork: "y"'), True),
    ("string-y", POD.format(container="workingDir: y", spec=""), True),
    ("string-n", POD.format(container="workingDir: N", spec=""), True),
    ("string-exponent", POD.format(container="workingDir: 1e3", spec=""), True),
    ("string-sexagesimal", POD.format(container="workingDir: 1:30", spec=""), False),
    ("string-datetime", POD.format(container="workingDir: 2024-01-01T10:00:00Z", spec=""), False),
    ("label-value-y", POD.format(container="", spec="nodeSelector: {a: y}"), True),
    # a null item of a list: Go's decoding gives the item type's zero value; a CRD's schema refuses it
    ("list-null-item", POD.format(container="args: [null]", spec=""), False),
    ("list-null-item-read", POD.format(container="", spec="affinity: {nodeAffinity: {requiredDuringSchedulingIgnored"
                                        "DuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: "
                                        "In, values: [a, null]}]}]}}}"), False),
    ("crd-list-null-item", JOBSET.format(spec="", replicas="1", container=", args: [null]"), True),
    ("crd-list-null-item-read", CLUSTER_QUEUE.format(quota="3", spec="").replace("[cpu]", "[cpu, null]"), True),
    ("crd-quantity-text", CLUSTER_QUEUE.format(quota='"3"', spec=""), False),
    ("crd-quantity-integer", CLUSTER_QUEUE.format(quota="3", spec=""), False),
    ("crd-quantity-fraction", CLUSTER_QUEUE.format(quota="1.5", spec=""), True),
    ("crd-quantity-boolean", CLUSTER_QUEUE.format(quota="true", spec=""), True),
    ("crd-quantity-bad-text", CLUSTER_QUEUE.format(quota="abc", spec=""), True),
    ("crd-string-number", CLUSTER_QUEUE.format(quota="3", spec="cohortName: 3"), True),
    ("crd-string-null", CLUSTER_QUEUE.format(quota="3", spec="cohortName: null"), False),
    ("crd-object-string", CLUSTER_QUEUE.format(quota="3", spec="preemption: abc"), True),
    ("crd-integer", JOBSET.format(spec="", replicas="3", container=""), False),
    ("crd-integer-as-text", JOBSET.format(spec="", replicas='"3"', container=""), True),
    ("crd-integer-float-whole", JOBSET.format(spec="", replicas="3.0", container=""), False),
    ("crd-integer-fraction", JOBSET.format(spec="", replicas="3.5", container=""), True),
    ("crd-integer-past-int32", JOBSET.format(spec="", replicas="3000000000", container=""), False),
    ("crd-boolean-as-text", JOBSET.format(spec='suspend: "true"', replicas="1", container=""), True),
    ("crd-template-int32-as-text", JOBSET.format(spec="", replicas="1", container=', ports: [{containerPort: "80"}]'), True),
    ("crd-template-quantity-fraction", JOBSET.format(spec="", replicas="1",
                                                     container=", resources: {limits: {cpu: 1.5}}"), True),
    ("crd-template-quantity-integer", JOBSET.format(spec="", replicas="1",
                                                    container=", resources: {limits: {cpu: 2}}"), False),
    # every job kind's embedded pod template is checked by its CRD's schema (a TrainingRuntime's too, bundled
    # since `image: y`, a boolean to kubectl, went unchecked in one): `y` refused, `"y"` taken
    *((f"crd-{kind}-template-string-y", t.format(image="y", container=""), True) for kind, t in TEMPLATES.items()
      if kind != "trainjob-patch"),
    *((f"crd-{kind}-template-string", t.format(image='"y"', container=""), False) for kind, t in TEMPLATES.items()),
    *((f"crd-{kind}-template-int32-as-text", t.format(image="busybox", container=', ports: [{containerPort: "80"}]'),
       True) for kind, t in TEMPLATES.items() if kind != "trainjob-patch"),
    # a TrainJob's runtime patch: a pod spec of a few fields, containers of name, env, securityContext and
    # volumeMounts (trainer v2.2.0's schema), each typed
    ("crd-trainjob-patch-env-value-y", TEMPLATES["trainjob-patch"].format(container=", env: [{name: E, value: y}]"),
     True),
    ("crd-trainjob-patch-env-value", TEMPLATES["trainjob-patch"].format(container=', env: [{name: E, value: "y"}]'),
     False),
]


def _kadmit_refuses(manifest: str) -> list[str]:
    diags = Diagnostics()
    read_manifest_text(manifest, "m.yaml", diags)
    return [f"{d.code} {d.message}" for d in diags.sorted() if d.code in TYPE_CODES and d.severity.name == "ERROR"]


@pytest.mark.parametrize("manifest, refused", [(m, r) for _, m, r in CASES], ids=[i for i, _, _ in CASES])
def test_kadmit_refuses_a_value_of_a_wrong_type_as_the_api_server_does(
        kube_apiserver: KubeAPIServer, manifest: str, refused: bool) -> None:
    proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=manifest, check=False)
    assert (proc.returncode != 0) == refused, proc.stderr or proc.stdout
    if refused:  # refused for the value's type (or its quantity pattern), not for another rule
        assert any(s in proc.stderr for s in ("cannot unmarshal", "must be of type", "quantities must match",
                                              "should match")), proc.stderr
    assert bool(_kadmit_refuses(manifest)) == refused, _kadmit_refuses(manifest)


# Kueue's code (the oracle) can't read the Pod either and decides nothing (tests/oracle/test_upstream.py)
FC = Path(__file__).resolve().parents[1] / "corpus" / "upstream" / "k8s-examples-fibre-channel-lun-text"


def test_the_fibre_channel_example_pod_is_refused_and_not_decided(kube_apiserver: KubeAPIServer) -> None:
    pod = (FC / "fc.yaml").read_text()
    proc = kube_apiserver.run("create", "--dry-run=server", "--namespace", "default", "-f", "-", input=pod,
                              check=False)
    assert proc.returncode != 0 and "cannot unmarshal string into Go struct field FCVolumeSource" in proc.stderr, \
        proc.stderr
    result = CliRunner().invoke(cli, ["admit", "--format", "json", str(FC)], catch_exceptions=False)
    out = result.stdout
    answer = json.loads(out[out.index("{\n"):])
    assert result.exit_code == 1, result.stderr
    assert "error[KAD156]: `spec.volumes[0].fc.lun` should be an integer (int32), found a string" in result.stderr
    assert answer["decisions"] == []
    assert [(s["kind"], s["name"], s["reason"].startswith("not decided: an error in the input"))
            for s in answer["skipped"]] == [("Pod", "fibre-channel-example-pod", True)]
