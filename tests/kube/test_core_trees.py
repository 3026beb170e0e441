"""kadmit's known-field trees of Kubernetes' own kinds (data/core.json: Pod, Node, Job, Deployment, …, every
pod template) are those of the API server tools/kube-apiserver runs (v1.35.3, as Kueue v0.17.0's go.mod),
field for field and type for type against its OpenAPI v3; and a pod-spec field of a later Kubernetes is refused by that
server as kadmit reports it (KAD180), as is a kind of a later Kubernetes (KAD171)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from kube.later_fields import refused_by_server_and_kadmit
from kube.server import KubeAPIServer

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text, schema

pytestmark = pytest.mark.slow

_GEN = Path(__file__).resolve().parents[2] / "tools" / "gen_schemas.py"


def _gen_schemas():
    spec = importlib.util.spec_from_file_location("gen_schemas", _GEN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_core_trees_are_what_the_server_serves(kube_apiserver: KubeAPIServer) -> None:
    """data/core.json is current: `tools/gen_schemas.py core` on this server gives it again, every field
    and its scalar type (int32, int64, quantity, int-or-string, …) as the server's OpenAPI v3 has them."""
    gen = _gen_schemas()
    served = gen.core_types(gen.served_core_schemas(lambda path: json.loads(kube_apiserver.run("get", "--raw", path).stdout)))
    types = schema._core()["types"]
    assert len(types) > 200  # Pod, Node, Job, … and every type they reach
    assert sorted(served) == sorted(types)
    for name in sorted(types):
        assert types[name] == served[name], name
    version = json.loads(kube_apiserver.run("get", "--raw", "/version").stdout)["gitVersion"]
    assert schema._core()["source"] == f"kube-apiserver {version} (/openapi/v3)"
    assert types["V1FCVolumeSource"]["lun"] == "i32"  # the Kubernetes examples' fc.yaml gives it text


LATER_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: later-field, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
      schedulingGroup: {podGroupName: g}
"""

LATER_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: later-field, namespace: default}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
  schedulingGroup: {podGroupName: g}
"""


@pytest.mark.parametrize("manifest, field, line", [
    (LATER_JOB, "spec.template.spec.schedulingGroup", 9),  # Kubernetes v1.36's, in a pod template
    (LATER_POD, "spec.schedulingGroup", 6),
])
def test_a_pod_field_of_a_later_kubernetes_is_refused_by_the_server_and_kadmit(
        kube_apiserver: KubeAPIServer, manifest: str, field: str, line: int) -> None:
    without = refused_by_server_and_kadmit(kube_apiserver, manifest, field, line)
    # without the field kadmit reads it without an error
    diags = Diagnostics()
    read_manifest_text(without, "m.yaml", diags)
    assert not [d for d in diags.sorted() if d.severity.name == "ERROR"], diags.sorted()


LATER_KINDS = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
"""


def test_a_kind_of_a_later_kubernetes_is_refused_by_the_server_and_kadmit(kube_apiserver: KubeAPIServer) -> None:
    """Kubernetes v1.36's scheduling.k8s.io/v1alpha2 (Workload, and the PodGroup kind v1.35 has in no version):
    the v1.35.3 server has no such kind ("no matches for kind"), and kadmit reports KAD171 at each
    apiVersion, naming what v1.35 serves."""
    for doc in LATER_KINDS.split("---\n"):
        kind = doc.split("kind: ", 1)[1].split("\n", 1)[0]
        proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=doc, check=False)
        assert proc.returncode != 0 and f'no matches for kind "{kind}" in version "scheduling.k8s.io/v1alpha2"' \
            in proc.stderr, proc.stderr
    diags = Diagnostics()
    read_manifest_text(LATER_KINDS, "m.yaml", diags)
    assert [(d.code, d.span.line) for d in diags.sorted()] == [("KAD171", 1), ("KAD171", 9)], diags.sorted()
    workload, group = (d.message for d in diags.sorted())
    assert "served: `scheduling.k8s.io/v1alpha1`" in workload
    assert "served: none" in group and "has no `PodGroup` in `scheduling.k8s.io`: it came in v1.36" in group
