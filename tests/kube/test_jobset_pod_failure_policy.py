"""A JobSet's replicated job with a `podFailurePolicy` whose pods restart OnFailure (as written, or as the JobSet
webhook defaults an unset restartPolicy): the real API server stores the JobSet and refuses each Job its controller
makes of it (ValidateJobSpec: only Never with a podFailurePolicy). kadmit warns (KAD199) in the Job's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from kube.server import KubeAPIServer
from kube.warned import kad199

pytestmark = pytest.mark.slow

POLICY = "{rules: [{action: FailJob, onExitCodes: {operator: In, values: [42]}}]}"


@pytest.mark.parametrize("written", ["", "restartPolicy: OnFailure, "], ids=["unset", "on-failure"])
def test_a_jobsets_job_with_a_pod_failure_policy_must_not_restart_on_failure(
        written: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    jobset = f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: pfp, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        podFailurePolicy: {POLICY}
        template: {{spec: {{{written}containers: [{{name: c, image: busybox}}]}}}}
"""
    job = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: pfp-w-0, namespace: default}}
spec:
  podFailurePolicy: {POLICY}
  template: {{spec: {{restartPolicy: OnFailure, containers: [{{name: c, image: busybox}}]}}}}
"""
    words = kube_apiserver.refusal(jobset, job)
    warning = kad199(tmp_path, jobset)
    assert warning.startswith(f"the API server refuses every Job made of pod set `w` of JobSet `default/pfp`: `{words}`"), \
        (warning, words)
