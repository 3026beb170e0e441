"""Node affinity `matchFields` the API server refuses (ValidateNodeFieldSelectorRequirement: In or NotIn with exactly
one value, the key `metadata.name`, a node name for value), on the real API server: in a Pod or a built-in job's
template the object is refused and kadmit refuses it (KAD157) in the server's words, one error each; a custom
resource's template is stored unvalidated and the objects its controller makes are refused (KAD199)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws
from kube.server import KubeAPIServer
from kube.test_empty_toleration import _refusal

pytestmark = pytest.mark.slow

# a required term of four refused requirements (a wrong key, an operator of no fields, two values, a value no node
# name), a valid one between them, and a preferred term's refused one
AFFINITY = ("{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: ["
            "{key: spec.nodeName, operator: In, values: [n1]}, {key: metadata.name, operator: Exists}, "
            "{key: metadata.name, operator: NotIn, values: [n1]}, {key: metadata.name, operator: In, values: [n1, n2]}, "
            "{key: metadata.name, operator: In, values: [N_1]}]}]}, "
            "preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchFields: ["
            "{key: metadata.name, operator: Gt, values: ['1']}]}}]}}")
SPEC = f"{{restartPolicy: Never, affinity: {AFFINITY}, containers: [{{name: c, image: busybox}}]}}"
OBJECTS = {
    "Job": f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: mf-job, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec: {{template: {{spec: {SPEC}}}}}
""",
    "Pod": f"""\
apiVersion: v1
kind: Pod
metadata: {{name: mf-pod, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec: {SPEC}
""",
}
JOBSET = f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: mf-js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {SPEC}}}}}}}}}
"""
MADE_JOB = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: mf-js-w-0, namespace: default}}
spec: {{template: {{spec: {SPEC}}}}}
"""


def _items(stderr: str) -> list[str]:
    said = stderr.strip().split(" is invalid: ", 1)[1]
    return [line[2:] for line in said.splitlines() if line.startswith("* ")] or [said]


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_refused_match_fields_are_refused_in_the_servers_words(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=OBJECTS[kind], check=False)
    assert created.returncode != 0, created
    path = tmp_path / "object.yaml"
    path.write_text(OBJECTS[kind], encoding="utf-8")
    refused = [d.message for d in ws.load([str(path)]).diagnostics if d.code == "KAD157"]
    assert refused == [f"the API server refuses the object: `{w}`" for w in _items(created.stderr)], \
        (refused, created.stderr)
    assert len(refused) == 5


def test_a_custom_resources_match_fields_refuse_the_objects_it_makes(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=JOBSET, check=False).returncode == 0
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=MADE_JOB, check=False)
    assert refused.returncode != 0 and "not a valid field selector key" in refused.stderr, refused
    path = tmp_path / "cr.yaml"
    path.write_text(JOBSET, encoding="utf-8")
    got = ws.load([str(path)])
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d.message for d in got.diagnostics if d.code == "KAD199"]
    assert warning.startswith("the API server refuses every Job made of pod set `") and \
        f"`{_refusal(refused.stderr)}`: Kueue may admit it" in warning, (warning, refused.stderr)
