"""The SparkApplication integration and its feature gate (SparkApplicationIntegration, alpha, off by default in
Kueue v0.17.0): enabled without the gate, its CanSupportIntegration fails jobframework.SetupControllers and
Kueue's manager exits (the oracle's admit alike, which sets Kueue's job controllers up as cmd/kueue does); kadmit
refuses the Configuration with Kueue's error (KAD157). With the gate on, Kueue starts and kadmit too, the gate
given by the Configuration's `featureGates` or by the manager Deployment's `--feature-gates` alone (Kueue's main
sets the flag's gates before it sets its controllers up; kadmit checks once the flag's gates are in the model, in
either order of the files)."""

from __future__ import annotations

import subprocess

import pytest

from kadmit.diagnostics import Severity
from kadmit.workspace import load

KUEUE_ERROR = ("failed to configure reconcilers: sparkoperator.k8s.io/sparkapplication integration is alpha "
               "feature. please enable SparkApplicationIntegration featuregate")
MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: kueue-controller-manager, namespace: kueue-system}}
spec:
  selector: {{matchLabels: {{control-plane: controller-manager}}}}
  template:
    metadata: {{labels: {{control-plane: controller-manager}}}}
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.17.0
        args: ["--feature-gates={flag}"]
"""
CLUSTER = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
{gates}integrations:
  frameworks: [batch/job, sparkoperator.k8s.io/sparkapplication]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f0}}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: j, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
"""


@pytest.mark.parametrize("gates, starts", [("", False), ("featureGates: {SparkApplicationIntegration: true}\n", True)])
def test_the_spark_integration_needs_its_gate_to_start(kueue_oracle, tmp_path, gates, starts):
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.format(gates=gates), encoding="utf-8")
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert (proc.returncode == 0) == starts, proc.stderr[-2000:]
    assert (KUEUE_ERROR in proc.stderr) != starts
    errors = [d for d in load([str(path)]).diagnostics.items if d.severity == Severity.ERROR]
    assert [d.code for d in errors] == ([] if starts else ["KAD157"])
    assert all(f"`{KUEUE_ERROR}`" in d.message for d in errors)


@pytest.mark.parametrize("flag, starts", [("SparkApplicationIntegration=true", True),
                                          ("PartialAdmission=false", False)])
@pytest.mark.parametrize("manager_first", [True, False])
def test_the_spark_gate_given_by_the_managers_flag(kueue_oracle, tmp_path, flag, starts, manager_first):
    cluster, manager = tmp_path / "cluster.yaml", tmp_path / ("a.yaml" if manager_first else "z.yaml")
    cluster.write_text(CLUSTER.format(gates=""), encoding="utf-8")
    manager.write_text(MANAGER.format(flag=flag), encoding="utf-8")
    if manager_first:  # the oracle's run of the first order only: it reads the files as one input
        proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(manager), str(cluster)],
                              capture_output=True, text=True)
        assert (proc.returncode == 0) == starts, proc.stderr[-2000:]
        assert (KUEUE_ERROR in proc.stderr) != starts
    errors = [d for d in load([str(p) for p in sorted(tmp_path.iterdir())]).diagnostics.items
              if d.severity == Severity.ERROR]
    assert [d.code for d in errors] == ([] if starts else ["KAD157"])
    assert all(f"`{KUEUE_ERROR}`" in d.message and d.span.file.endswith("cluster.yaml") and d.span.line == 4
               for d in errors)
