"""A custom resource's pod template (a JobSet's, a RayCluster's, an AppWrapper component's) is stored by the API
server without validating it, and Kueue validates none of it: one holding an empty toleration (`[{}]`) is
admitted as Kueue admits it, but every pod (or Job) its controller makes of it is refused. kadmit warns (KAD199,
in the words tests/kube/test_empty_toleration.py reads from the real server) and `admit`'s summary says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.workspace import load
from .helpers import SETUP, run, write

WORDS = ('spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means '
         '"match all values and all keys"')
POD = "{restartPolicy: Never, tolerations: [{}], containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]}"
JOBS = {
    "JobSet": f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {POD}}}}}}}}}
""",
    "AppWrapper": f"""\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {{name: aw, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  components:
  - template: {{apiVersion: batch/v1, kind: Job, metadata: {{name: j}}, spec: {{template: {{spec: {POD}}}}}}}
""",
}


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_custom_resources_template_with_an_empty_toleration_is_admitted_and_warned(kind: str, tmp_path: Path) -> None:
    paths = write(tmp_path, setup__yaml=SETUP, job__yaml=JOBS[kind])
    ws = load(paths)
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    (warning,) = [d for d in ws.diagnostics if d.code == "KAD199"]
    assert f"{kind} `default/" in warning.message and f"`{WORDS}`" in warning.message, warning.message
    r = run("admit", *paths)
    assert r.exit_code == 0, r.output
    assert "the API server refuses every pod of a pod set (KAD199)" in r.stdout, r.stdout


def test_a_workloads_template_with_an_empty_toleration_is_not_warned(tmp_path: Path) -> None:
    """A Workload written as such has no controller making pods of it: nothing is refused."""
    workload = f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: wl, namespace: default}}
spec:
  queueName: user-queue
  podSets: [{{name: main, count: 1, template: {{spec: {POD}}}}}]
"""
    paths = write(tmp_path, setup__yaml=SETUP, wl__yaml=workload)
    ws = load(paths)
    assert not [d for d in ws.diagnostics if d.code in ("KAD199", "KAD157")], [str(d) for d in ws.diagnostics]
    assert "KAD199" not in run("admit", *paths).stdout


def test_a_keyed_toleration_is_not_warned(tmp_path: Path) -> None:
    keyed = JOBS["JobSet"].replace("tolerations: [{}]", "tolerations: [{key: a}, {operator: Exists}]")
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=keyed))
    assert not [d for d in ws.diagnostics if d.code == "KAD199"], [str(d) for d in ws.diagnostics]
