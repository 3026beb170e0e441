"""kubectl's own reading of YAML scalars (`kubectl create --dry-run=client -o json`: the object as kubectl
would send it), against kadmit's (manifests/goyaml.py). tests/oracle/test_yaml_scalars.py compares thousands
of forms with sigs.k8s.io/yaml.YAMLToJSON, the conversion kubectl calls; this checks that kubectl is that
conversion, on the forms YAML 1.1 readers read otherwise."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from kube.server import KubeAPIServer

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.yamltree import parse_documents
from oracle.test_yaml_scalars import to_json

pytestmark = pytest.mark.slow

FORMS = {"a": "y", "b": "N", "c": "on", "d": "1e3", "e": "1.0e3", "f": "0o17", "g": "017", "h": "08", "i": "0x1F",
         "j": "1_000", "k": "1:30", "l": "2026-01-01", "m": "2026-01-01 10:00:00", "n1": "=", "o": "!custom x",
         "p": "!!float 5", "q": "99999999999999999999", "r": "-.nan", "s": "'y'", "t": "1e400"}
KEYS = ["yes", "N", "0x10", "1.0", "1e3", "2026-01-01", "~x"]


def test_kubectl_reads_the_scalars_as_kadmit_does(kube_apiserver: KubeAPIServer) -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: forms, namespace: default}\nx:\n"
            + "".join(f"  {k}: {v}\n" for k, v in FORMS.items())
            + "keys:\n" + "".join(f"  {k}: v{i}\n" for i, k in enumerate(KEYS)))
    proc = kube_apiserver.run("create", "--dry-run=client", "--validate=false", "-o", "json", "-f", "-", input=text)
    sent = json.loads(proc.stdout)
    diags = Diagnostics()
    (doc,) = list(parse_documents(text, "forms.yaml", diags))
    assert not diags.items
    ours = to_json(doc)
    assert ours["x"] == json.loads(json.dumps(sent["x"]), parse_float=Decimal)
    assert ours["keys"] == sent["keys"] == {"true": "v0", "false": "v1", "16": "v2", "1": "v3", "1000": "v4",
                                           "2026-01-01": "v5", "~x": "v6"}
    assert ours["x"]["a"] is True and ours["x"]["d"] == 1000 and ours["x"]["k"] == "1:30"
