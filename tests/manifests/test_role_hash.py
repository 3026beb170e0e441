"""A pod group's pod sets are named by Kueue's role hash (pkg/util/pod `GenerateRoleHash`: sha256 of
the Go JSON of the pod spec's shape), byte for byte: the names below are the ones Kueue v0.17.0
gives (tools/kueue-oracle convert tests/oracle/jobs/pod-group-roles.yaml; test_convert checks them
against the oracle on every run), and the Go encodings under them are Go's own output
(encoding/json, k8s.io/apimachinery v0.35.3 resource.Quantity)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kadmit.manifests.gojson import go_float, go_quantity, go_string
from kadmit.workspace import load

ROOT = Path(__file__).resolve().parents[2]
ROLES = ROOT / "tests" / "oracle" / "jobs" / "pod-group-roles.yaml"

# group -> Kueue's pod set name (the oracle's `convert`); `ports` leaves a port's protocol out, which the API
# server stores as TCP before Kueue's webhook hashes the pod (the oracle's harness defaults it too)
KUEUE = {
    "affinity": "445b92f3", "cpu-memory": "4ebdd4a6", "empty-affinity": "ff3429cd", "empty-node-selector": "dc85db45",
    "gpu": "e06ab421",
    "init": "e309dc70", "limits-and-requests": "4ebdd4a6", "limits-only": "8930981a", "no-requests": "7aa6c7b8",
    "node-selector": "148a4f66", "overhead": "bb989d57", "plain": "3e7adba3", "ports": "8b292214",
    "priority": "c3a0af48", "priority-class": "dc85db45", "quantities": "a9ba3dff", "quantities-2": "aa3ee771",
    "quantities-3": "13cf3fa7", "quantities-4": "65d96fc2", "runtime-class": "a3398eba", "sidecar": "c550150e",
    "spread": "4bfc68b0", "tolerations": "f964f594", "two-containers": "ebbaa1ab", "wpc-label": "e9ee6c1e",
}


def test_pod_groups_are_named_as_kueue_names_them():
    ws = load([str(ROLES)])
    names = {w.origin.name: [ps.name for ps in w.pod_sets] for w in ws.model.workloads
             if w.origin is not None and w.origin.kind == "Pod"}
    assert names == {group: [name] for group, name in KUEUE.items()}


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ns
  labels: {{kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/pod-group-name: g}}
  annotations: {{kueue.x-k8s.io/pod-group-total-count: "3"{extra}}}
spec:
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def test_roles_are_by_shape_and_a_role_hash_annotation_wins(tmp_path):
    """Pods of one shape share a pod set; the `kueue.x-k8s.io/role-hash` annotation, where a pod
    has one, is its role (getRoleHash); the pod sets are sorted by name."""
    pods = [POD.format(name="a", cpu="1", extra=""), POD.format(name="b", cpu="1000m", extra=""),
            POD.format(name="c", cpu="2", extra=", kueue.x-k8s.io/role-hash: aaa")]
    (tmp_path / "pods.yaml").write_text("---\n".join(pods))
    model = load([str(tmp_path / "pods.yaml")]).model
    assert [(ps.name, ps.count) for w in model.workloads for ps in w.pod_sets] == [("aaa", 1), ("dc85db45", 2)]


# text -> Quantity.MarshalJSON after ParseQuantity (Go's output, apimachinery v0.35.3)
GO_QUANTITIES = {
    "0": "0", "1": "1", "01": "01", "+1": "+1", "-1": "-1", "500m": "500m", "0.5": "500m", ".5": "500m", "1.": "1.",
    "1000m": "1", "1000": "1k", "2000": "2k", "1024": "1024", "2048": "2048", "1k": "1k", "1Ki": "1Ki",
    "1023Ki": "1023Ki", "1024Ki": "1Mi", "8Gi": "8Gi", "1536Mi": "1536Mi", "1.5Gi": "1536Mi", "0.5Gi": "512Mi",
    "0.1Gi": "107374182400m", "100Ki": "100Ki", "1e3": "1e3", "1E3": "1E3", "1e2": "100", "1e-3": "1e-3",
    "1e-7": "100e-9", "1e+3": "1e+3", "2e0": "2e0", "1M": "1M", "100M": "100M", "1G": "1G", "1T": "1T", "1P": "1P",
    "1E": "1E", "1000E": "1", "10000E": "10", "1n": "1n", "0.1n": "1n", "1u": "1u", "1.5": "1500m", "1.25": "1250m",
    "0.0001": "100u", "0.0000000001": "1n", "123456789012345678": "123456789012345678",
    "1234567890123456789": "1234567890123456789", "12345678901234567890": "12345678901234567890",
    "8Ei": "9223372036854775807", "16Ei": "9223372036854775807", "9223372036854775807": "9223372036854775807",
    "0.000001m": "1n", "1.0": "1", "1.000": "1", "1.500": "1.500", "100m": "100m", "250m": "250m", "1500m": "1500m",
    "128974848": "128974848", "129e6": "129e6", "129M": "129M", "12Mi": "12Mi", "3.5Ki": "3584",
    "-1.5Gi": "-1536Mi", "-2Gi": "-2Gi", "-500m": "-500m", "00100m": "00100m", "0Gi": "0", ".": "0", "00": "0",
    "0.0": "0", "10Ki": "10Ki", "7Ki": "7Ki", "999Mi": "999Mi", "1000Mi": "1000Mi",
}


@pytest.mark.parametrize("text", sorted(GO_QUANTITIES))
def test_quantities_marshal_as_go_marshals_them(text):
    assert go_quantity(text) == GO_QUANTITIES[text]


def test_strings_and_floats_encode_as_go_encodes_them():
    strings = ["a<b>&c", "tab\there", "\x01\x1f\x7f", "é漢字", "\u2028\u2029", 'quote"back\\', "\b\f\r"]
    assert [go_string(s) for s in strings] == [
        '"a\\u003cb\\u003e\\u0026c"', '"tab\\there"', '"\\u0001\\u001f\x7f"', '"é漢字"', '"\\u2028\\u2029"',
        '"quote\\"back\\\\"', '"\\b\\f\\r"']
    floats = [0.5, 2.5, 1e-7, 1.5e-7, 1e21, 1.5e22, 1000.0, 0.0001, 123456.789]
    assert [go_float(x) for x in floats] == ["0.5", "2.5", "1e-7", "1.5e-7", "1e+21", "1.5e+22", "1000", "0.0001",
                                             "123456.789"]
    assert json.loads(go_string("x<y")) == "x<y"
