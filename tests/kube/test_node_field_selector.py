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


def pod_spec(affinity: str) -> str:
    return f"{{restartPolicy: Never, affinity: {affinity}, containers: [{{name: c, image: busybox}}]}}"


def objects(prefix: str, affinity: str) -> tuple[dict[str, str], str, str]:
    """A Job and a Pod whose pod spec (`pod_spec`) has `affinity` (by kind), a JobSet of one such Job template, and
    the Job its controller makes; named `prefix`-job, -pod, -js, -js-w-0."""
    spec = pod_spec(affinity)
    job = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: {prefix}-job, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec: {{template: {{spec: {spec}}}}}
"""
    pod = f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {prefix}-pod, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec: {spec}
"""
    jobset = f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: {prefix}-js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {spec}}}}}}}}}
"""
    made = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: {prefix}-js-w-0, namespace: default}}
spec: {{template: {{spec: {spec}}}}}
"""
    return {"Job": job, "Pod": pod}, jobset, made


SPEC = pod_spec(AFFINITY)
OBJECTS, JOBSET, MADE_JOB = objects("mf", AFFINITY)


def _items(stderr: str) -> list[str]:
    said = stderr.strip().split(" is invalid: ", 1)[1]
    return [line[2:] for line in said.splitlines() if line.startswith("* ")] or [said]


def refused_in_the_servers_words(kube_apiserver: KubeAPIServer, tmp_path: Path, text: str) -> list[str]:
    """kadmit's KAD157 messages of the object `text`, which the server must refuse, in the server's words."""
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=text, check=False)
    assert created.returncode != 0, created
    path = tmp_path / "object.yaml"
    path.write_text(text, encoding="utf-8")
    refused = [d.message for d in ws.load([str(path)]).diagnostics if d.code == "KAD157"]
    assert refused == [f"the API server refuses the object: `{w}`" for w in _items(created.stderr)], \
        (refused, created.stderr)
    return refused


def made_job_refused(kube_apiserver: KubeAPIServer, tmp_path: Path, jobset: str, made: str, words: str) -> None:
    """The server stores `jobset` and refuses the Job it makes (`made`, for `words`); kadmit warns KAD199 in the
    server's words."""
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=jobset, check=False).returncode == 0
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=made, check=False)
    assert refused.returncode != 0 and words in refused.stderr, refused
    path = tmp_path / "cr.yaml"
    path.write_text(jobset, encoding="utf-8")
    got = ws.load([str(path)])
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d.message for d in got.diagnostics if d.code == "KAD199"]
    assert warning.startswith("the API server refuses every Job made of pod set `") and \
        f"`{_refusal(refused.stderr)}`: Kueue may admit it" in warning, (warning, refused.stderr)


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_refused_match_fields_are_refused_in_the_servers_words(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    assert len(refused_in_the_servers_words(kube_apiserver, tmp_path, OBJECTS[kind])) == 5


def test_a_custom_resources_match_fields_refuse_the_objects_it_makes(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    made_job_refused(kube_apiserver, tmp_path, JOBSET, MADE_JOB, "not a valid field selector key")
