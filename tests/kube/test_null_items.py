"""data/null_items.json is what the API server (tools/kube-apiserver, v1.35.3) says of a null item added to
each list of objects of the built-in kinds kadmit reads: `tools/gen_schemas.py nulls` on this server gives it
again, place for place and message for message (tests/manifests/test_null_items.py checks kadmit against it).
Also the two readings it rests on, asked of the server directly: a null item it takes is stored as an empty
object (`nodeSelectorTerms: [null]` comes back `[{}]`), and one it refuses is refused for that item. The 218
creates go through `kube.dry_run` (kubectl's request and words without a kubectl process each: 23 s of kubectl's
CPU), checked against kubectl itself on an object of each form of answer."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from kube.dry_run import DryRun
from kube.server import KubeAPIServer

from kadmit.manifests import schema

pytestmark = pytest.mark.slow

_GEN = Path(__file__).resolve().parents[2] / "tools" / "gen_schemas.py"


def _gen_schemas():
    spec = importlib.util.spec_from_file_location("gen_schemas", _GEN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_null_items_are_what_the_server_says(kube_apiserver: KubeAPIServer) -> None:
    gen = _gen_schemas()
    client = DryRun(kube_apiserver.kubeconfig)  # kubectl's request and words, without a kubectl process each
    asked: list[tuple[dict, int, str]] = []

    def create(obj: dict) -> tuple[int, str]:
        code, stderr = client.create(obj)
        asked.append((obj, code, stderr))
        return code, stderr
    served = gen.null_item_verdicts(create, schema._core()["types"])
    kinds = schema._load("null_items.json")["kinds"]
    assert sorted(served) == sorted(kinds)
    for key in sorted(kinds):
        assert served[key] == kinds[key], key
    # kubectl's own answer to an object of each form of answer the server gave (taken, taken with a warning, refused
    # for one field, refused for several): the words `DryRun` gives are kubectl's
    forms = {(code, err.startswith("Warning: "), "\n* " in err): (obj, code, err) for obj, code, err in asked}
    assert set(forms) == {(0, False, False), (0, True, False), (1, False, False), (1, False, True)}, sorted(forms)
    for obj, code, err in forms.values():
        proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=json.dumps(obj), check=False)
        assert (proc.returncode, proc.stderr) == (code, err), obj
    version = json.loads(kube_apiserver.run("get", "--raw", "/version").stdout)["gitVersion"]
    assert schema._load("null_items.json")["source"] == f"kube-apiserver {version} (kubectl create --dry-run=server)"


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: nulls, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [null]}}}
      imagePullSecrets: [~]
      containers: [{name: c, image: busybox}]
      %s
"""


def test_a_null_item_the_server_takes_is_an_empty_object(kube_apiserver: KubeAPIServer) -> None:
    stored = json.loads(kube_apiserver.run("create", "--dry-run=server", "--output", "json", "-f", "-",
                                           input=JOB % "").stdout)["spec"]["template"]["spec"]
    assert stored["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{}]}
    assert stored["imagePullSecrets"] == [{}]
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=JOB % "tolerations: [null]",
                                 check=False)
    assert refused.returncode != 0 and refused.stderr.strip() == (
        'The Job "nulls" is invalid: spec.template.spec.tolerations[0].operator: Invalid value: "": operator must be '
        'Exists when `key` is empty, which means "match all values and all keys"'), refused.stderr
