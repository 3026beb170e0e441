"""kadmit's known-field trees of CRD kinds (data/kueue.json, data/jobs.json) are those of the CRDs the
real API server serves (tools/kube-apiserver installs the versions Kueue v0.17.0's go.mod pins), and a
field of a later Kueue release is refused by that server as kadmit reports it (KAD180)."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest
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
    # the seven kinds kadmit reads, in both versions
    assert len(read) == 14, sorted(served)
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


def test_a_cluster_queue_field_of_a_later_kueue_is_refused_by_the_server_and_kadmit(
        kube_apiserver: KubeAPIServer) -> None:
    proc = kube_apiserver.run("apply", "--dry-run=server", "-f", "-", input=LATER, check=False)
    assert proc.returncode != 0 and 'unknown field "spec.concurrentAdmissionPolicy"' in proc.stderr, proc.stderr
    diags = Diagnostics()
    read_manifest_text(textwrap.dedent(LATER), "cq.yaml", diags)
    assert [(d.code, d.span.line) for d in diags.sorted()] == [("KAD180", 6)]
    # without the field the server takes it
    kube_apiserver.run("apply", "--dry-run=server", "-f", "-",
                       input=LATER.replace("  concurrentAdmissionPolicy: {migration: {mode: Disabled}}\n", ""))
