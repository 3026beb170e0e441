"""kadmit's known-field trees of CRD kinds (data/kueue.json, data/jobs.json) are those of the CRDs the
real API server serves (tools/kube-apiserver installs the versions Kueue v0.17.0's go.mod pins), and a
field of a later Kueue release is refused by that server as kadmit reports it (KAD180)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from kube.later_fields import refused_by_server_and_kadmit
from kube.server import KubeAPIServer

from kadmit.manifests import schema

pytestmark = pytest.mark.slow

_GEN = Path(__file__).resolve().parents[2] / "tools" / "gen_schemas.py"


def _gen_schemas():
    spec = importlib.util.spec_from_file_location("gen_schemas", _GEN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _served_trees(server: KubeAPIServer, groups: set[str]) -> dict[tuple[str, str, str], dict]:
    """Each served version's tree as `tools/gen_schemas.py crds` derives it."""
    gen = _gen_schemas()
    crds = json.loads(server.run("get", "customresourcedefinitions", "--output", "json").stdout)["items"]
    out = {}
    for crd in crds:
        spec = crd["spec"]
        if spec["group"] not in groups:
            continue
        for v in spec["versions"]:
            tree = gen._crd_tree(v["schema"]["openAPIV3Schema"])
            tree["o"]["metadata"] = "core:V1ObjectMeta"
            tree["o"].pop("status", None)
            out[spec["group"], v["name"], spec["names"]["kind"]] = tree
    return out


def test_kueues_kinds_have_the_trees_of_the_crds_served(kube_apiserver: KubeAPIServer) -> None:
    served = _served_trees(kube_apiserver, {"kueue.x-k8s.io"})
    read = {key for key in served if schema.schema_for(*key) is not None}
    # the eleven kinds kadmit reads (the seven of its queues and work, AdmissionCheck and the three its
    # built-in controllers read), in both versions
    assert len(read) == 22, sorted(served)
    for key in sorted(read):
        assert schema.schema_for(*key) == served[key], key
        assert schema.source_of(*key).startswith("kubernetes-sigs/kueue@v0.17.0 "), key


LATER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: later-field}
spec:
  namespaceSelector: {}
  concurrentAdmissionPolicy: {migration: {mode: Disabled}}
"""


RAY_LATER = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: later-field, namespace: default}
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers: [{name: head, image: rayproject/ray, resources: {requests: {cpu: "1"}}}]
  networkPolicy: {mode: Enabled}
"""


@pytest.mark.parametrize("manifest, field, line", [
    (LATER, "spec.concurrentAdmissionPolicy", 6),  # a later Kueue's ClusterQueue field
    (RAY_LATER, "spec.networkPolicy", 10),  # a later KubeRay's than v1.6.0, which Kueue v0.17.0 pins
])
def test_a_field_of_a_later_release_is_refused_by_the_server_and_kadmit(
        kube_apiserver: KubeAPIServer, manifest: str, field: str, line: int) -> None:
    refused_by_server_and_kadmit(kube_apiserver, manifest, field, line)  # and taken without the field


JOB_GROUPS = {"jobset.x-k8s.io", "leaderworkerset.x-k8s.io", "ray.io", "kubeflow.org", "trainer.kubeflow.org",
              "workload.codeflare.dev"}
# Kinds whose bundled tree still comes from another commit than the one the server installs, by the
# source data/jobs.json records: they must differ while that source is recorded, and equal once not.
STALE = {("trainer.kubeflow.org", "v1alpha1", "TrainJob"): "kubeflow/trainer@a55f03a8c "}


def test_the_job_kinds_have_the_trees_of_the_crds_served(kube_apiserver: KubeAPIServer) -> None:
    served = _served_trees(kube_apiserver, JOB_GROUPS)
    bundled = {key for key in served if key in schema._kueue()}
    assert len(bundled) == 18, sorted(bundled)  # every kind of jobs.json
    for key in sorted(bundled):
        stale = key in STALE and schema.source_of(*key).startswith(STALE[key])
        assert (schema.schema_for(*key) == served[key]) != stale, (key, schema.source_of(*key))
