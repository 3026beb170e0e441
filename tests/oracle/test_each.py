"""`kueue-oracle admit --each`: several independent clusters decided in one process, each as a run
of its own would decide it, with the process's feature gates set back between them."""

from __future__ import annotations

import json
import subprocess

from oracle.harness import ROOT, run_oracle

GATED = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {PartialAdmission: false}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: "2"}]}]}]
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: partial, namespace: ns}
spec:
  queueName: lq
  podSets: [{name: main, count: 4, minCount: 1, template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}}]
"""


def _each(binary: str, paths: list[str]) -> tuple[int, list[dict]]:
    proc = subprocess.run([binary, "admit", "--format", "json", "--each", *paths], capture_output=True, text=True,
                          cwd=ROOT)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def test_each_path_is_decided_as_on_its_own(kueue_oracle, tmp_path):
    gated = tmp_path / "gated.yaml"
    gated.write_text(GATED)
    plain = tmp_path / "plain.yaml"
    plain.write_text(GATED.split("---\n", 1)[1])
    paths = [str(gated), str(plain), "tests/oracle/features/topology-aware.yaml", str(gated)]
    code, lines = _each(kueue_oracle, paths)
    assert code == 0 and [line["path"] for line in lines] == paths

    def strip(d):
        d = dict(d, path=None, oracle=dict(d["oracle"], load_cpu_seconds=0, schedule_cpu_seconds=0))
        return d
    for path, line in zip(paths, lines):
        assert strip(line) == strip(run_oracle(kueue_oracle, [path]))
    # The gate the first Configuration turns off is on again for the next cluster.
    assert lines[0]["oracle"]["feature_gates"] == {"PartialAdmission": False}
    assert lines[1]["oracle"]["feature_gates"] == {}
    assert [d["admitted"] for d in lines[0]["decisions"]] == [False]
    assert [p["count"] for d in lines[1]["decisions"] for p in d["pod_sets"]] == [2]


def test_a_path_that_cannot_be_read_does_not_stop_the_others(kueue_oracle, tmp_path):
    code, lines = _each(kueue_oracle, [str(tmp_path / "missing.yaml"), "tests/oracle/features/topology-aware.yaml"])
    assert code == 2
    assert "error" in lines[0] and "no such file" in lines[0]["error"]
    assert lines[1]["decisions"]


def test_a_configuration_with_an_unknown_gate_does_not_fail_the_next_cluster(kueue_oracle, tmp_path):
    # Kueue main's docs turn on gates v0.17 does not have (KueueDRAIntegration): that cluster can't be
    # decided; the gate's SetFromMap records the names it is given before checking them, so the unknown
    # one failed every later cluster of the process (bench/upstream_sweep.py: 300 clusters after it)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(GATED.replace("PartialAdmission: false", "KueueDRAIntegration: true"))
    plain = tmp_path / "plain.yaml"
    plain.write_text(GATED.split("---\n", 1)[1])
    code, lines = _each(kueue_oracle, [str(unknown), str(plain)])
    assert code == 2
    assert lines[0]["error"] == "the Configuration's featureGates: unrecognized feature gate: KueueDRAIntegration"
    assert "error" not in lines[1] and [p["count"] for d in lines[1]["decisions"] for p in d["pod_sets"]] == [2]
