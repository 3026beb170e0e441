"""An empty toleration (`{}`: key empty, operator Equal) on the real API server: refused in a Job's template
(ValidateTolerations), kept in a Workload's pod set template (its CRD checks tolerations only in
podSetUpdates) and in an AppWrapper's component (a RawExtension). kadmit refuses the first only (KAD157)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow

SPEC = "{restartPolicy: Never, tolerations: [{}], containers: [{name: c, image: busybox}]}"
OBJECTS = {
    "Job": f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: tol-job, namespace: default}}
spec:
  template:
    spec: {SPEC}
""",
    "Workload": f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: tol-wl, namespace: default}}
spec:
  queueName: q
  podSets: [{{name: main, count: 1, template: {{spec: {SPEC}}}}}]
""",
    "AppWrapper": f"""\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {{name: tol-aw, namespace: default}}
spec:
  components:
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {{name: tol-aw-job}}
      spec:
        template:
          spec: {SPEC}
""",
}


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_an_empty_toleration_is_refused_where_the_api_server_refuses_it(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=OBJECTS[kind], check=False)
    path = tmp_path / "object.yaml"
    path.write_text(OBJECTS[kind], encoding="utf-8")
    refused = [d.message for d in ws.load([str(path)]).diagnostics if d.code == "KAD157"]
    if kind == "Job":
        assert created.returncode != 0 and "operator must be Exists when `key` is empty" in created.stderr, created
        assert refused == ["a toleration with an empty `key` must use operator `Exists`"]
    else:
        assert created.returncode == 0, created.stderr
        assert not refused


def test_the_pods_a_jobset_would_make_of_an_empty_toleration_are_refused_in_kadmits_words(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The server creates a JobSet holding `tolerations: [{}]` (its template is not validated), refuses the Job its
    controller would make of it and each Pod: kadmit admits the JobSet and warns (KAD199) in the Pod's words."""
    jobset = f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: tol-js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {SPEC}}}}}}}}}
"""
    pod = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: tol-pod, namespace: default}}\nspec: {SPEC}\n"
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=jobset, check=False).returncode == 0
    job = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=OBJECTS["Job"], check=False)
    assert job.returncode != 0 and "spec.template.spec.tolerations[0].operator: Invalid value" in job.stderr, job
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=pod, check=False)
    assert refused.returncode != 0, refused
    words = refused.stderr.strip().split(" is invalid: ", 1)[1]
    path = tmp_path / "jobset.yaml"
    path.write_text(jobset, encoding="utf-8")
    got = ws.load([str(path)])
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d for d in got.diagnostics if d.code == "KAD199"]
    assert f"JobSet `default/tol-js`: `{words}`" in warning.message, (warning.message, words)
