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


# a custom resource -> the object its controller makes of its pod template, which the API server refuses first
MAKERS = {
    "JobSet": ("""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: tol-js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {spec}}}}}}}}}
""", """\
apiVersion: batch/v1
kind: Job
metadata: {{name: tol-js-w-0, namespace: default}}
spec: {{template: {{spec: {spec}}}}}
""", "Job made"),
    "LeaderWorkerSet": ("""\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {{name: tol-lws, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  leaderWorkerTemplate: {{size: 1, workerTemplate: {{spec: {spec}}}}}
""", """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: tol-lws, namespace: default}}
spec: {{selector: {{matchLabels: {{a: b}}}}, template: {{metadata: {{labels: {{a: b}}}}, spec: {spec}}}}}
""", "StatefulSet made"),
    "PyTorchJob": ("""\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: tol-pt, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  pytorchReplicaSpecs: {{Master: {{replicas: 1, template: {{spec: {spec}}}}}}}
""", """\
apiVersion: v1
kind: Pod
metadata: {{name: tol-pt-master-0, namespace: default}}
spec: {spec}
""", "pod"),
}
# each kind's pod spec: a Job's needs `restartPolicy` Never or OnFailure (the JobSet's webhook, which would default
# it, is not installed), a StatefulSet's Always (the default)
RESTART = {"JobSet": "restartPolicy: Never, ", "LeaderWorkerSet": "", "PyTorchJob": ""}
SPECS = {
    "toleration": "{{{restart}tolerations: [{{}}], containers: [{{name: c, image: busybox}}]}}",
    # an empty toleration beside resources its validation refuses: ValidatePodSpec lists the containers', the init
    # containers' and the pod's own resources, then the tolerations (not for the PyTorchJob: its CRD, Kubeflow
    # training-operator v1.9.3's, has no pod-level `resources`)
    "mixed": ('{{{restart}resources: {{limits: {{example.com/gpu: "1"}}}}, tolerations: [{{}}], containers: [{{name: c, '
              'image: busybox, resources: {{requests: {{memory: 1Gi, hugepages-2Mi: 3Mi}}, limits: {{hugepages-2Mi: '
              '3Mi}}}}}}], initContainers: [{{name: i, image: busybox, resources: {{requests: {{memory: 1Gi, '
              'hugepages-2Mi: 5Mi}}, limits: {{hugepages-2Mi: 5Mi}}}}}}]}}'),
}


def _refusal(stderr: str) -> str:
    """The server's words, as `field.ErrorList.ToAggregate().Error()` gives them (kubectl prints several as `* `
    lines)."""
    said = stderr.strip().split(" is invalid: ", 1)[1]
    items = [line[2:] for line in said.splitlines() if line.startswith("* ")]
    return said if not items else items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"


# a restartPolicy the made object refuses (after ValidatePodSpec's words): a Job's pods must end (the JobSet's
# webhook defaults an unset one to OnFailure), a StatefulSet's restart Always
WRONG_RESTART = {"JobSet": "restartPolicy: Always, ", "LeaderWorkerSet": "restartPolicy: Never, "}


@pytest.mark.parametrize("kind,spec", [(k, s) for k in sorted(MAKERS) for s in (*sorted(SPECS), "restart")
                                       if (k, s) != ("PyTorchJob", "mixed") and (s != "restart" or k in WRONG_RESTART)])
def test_the_objects_a_custom_resources_controller_makes_are_refused_in_kadmits_words(
        kind: str, spec: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The server creates the custom resource holding `tolerations: [{}]` (its template is not validated) and refuses
    what its controller makes of it (a JobSet's Job, a LeaderWorkerSet's StatefulSet, a PyTorchJob's Pod): kadmit
    admits the custom resource and warns (KAD199) in that object's words, word for word and in the server's order;
    a restartPolicy the made object refuses too ("restart": with the mixed refusals, it comes last)."""
    pod_spec = SPECS["mixed"].format(restart=WRONG_RESTART[kind]) if spec == "restart" else \
        SPECS[spec].format(restart=RESTART[kind])
    cr, made, what = MAKERS[kind][0].format(spec=pod_spec), MAKERS[kind][1].format(spec=pod_spec), MAKERS[kind][2]
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=cr, check=False).returncode == 0
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=made, check=False)
    assert refused.returncode != 0 and "tolerations[0].operator: Invalid value" in refused.stderr, refused
    assert spec != "restart" or "spec.template.spec.restartPolicy: " in refused.stderr, refused
    path = tmp_path / "cr.yaml"
    path.write_text(cr, encoding="utf-8")
    got = ws.load([str(path)])
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d.message for d in got.diagnostics if d.code == "KAD199"]
    assert warning.startswith(f"the API server refuses every {what} of pod set `") and \
        f"`{_refusal(refused.stderr)}`: Kueue may admit it" in warning, (warning, refused.stderr)
