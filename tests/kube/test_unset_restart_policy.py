"""An AppWrapper's Job component and a RayJob's `submitterPodTemplate` leaving restartPolicy unset: the real API
server stores both (it validates no embedded template), and the Job each controller makes of it as written (the
AppWrapper controller creates its components as they are; KubeRay v1.6.0 copies the submitter template and fills
no restartPolicy) is refused: SetDefaults_PodSpec makes it Always, which ValidateJobSpec refuses. kadmit warns
(KAD199) in the Job's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from kube.server import KubeAPIServer
from kube.warned import kad199

pytestmark = pytest.mark.slow

SPEC = "{containers: [{name: c, image: busybox}]}"
MADE = {
    "AppWrapper": ("aw-0", f"""\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {{name: aw, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  components:
  - template: {{apiVersion: batch/v1, kind: Job, metadata: {{name: j}}, spec: {{template: {{spec: {SPEC}}}}}}}
"""),
    "RayJob": ("submitter", f"""\
apiVersion: ray.io/v1
kind: RayJob
metadata: {{name: r, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  shutdownAfterJobFinishes: true
  entrypoint: python x.py
  submitterPodTemplate: {{spec: {SPEC}}}
  rayClusterSpec:
    headGroupSpec: {{rayStartParams: {{}}, template: {{spec: {{containers: [{{name: c, image: x}}]}}}}}}
"""),
}


@pytest.mark.parametrize("kind", sorted(MADE))
def test_a_job_made_as_written_with_no_restart_policy_is_refused(kind: str, kube_apiserver: KubeAPIServer,
                                                                 tmp_path: Path) -> None:
    pod_set, manifest = MADE[kind]
    job = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: made, namespace: default}}
spec: {{template: {{spec: {SPEC}}}}}
"""
    words = kube_apiserver.refusal(manifest, job)
    warning = kad199(tmp_path, manifest)
    assert warning.startswith(f"the API server refuses every Job made of pod set `{pod_set}` of {kind} "), warning
    assert f": `{words}`" in warning, (warning, words)
