"""Corners of this project's newer features found by fuzzing them (bench/fuzz_cli.py --features): each is a
call that crashed, hung or contradicted itself, kept here as it was found, cut down."""

from __future__ import annotations

from pathlib import Path

from kadmit import api

_TAS_ZERO = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec: {levels: [{nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {kubernetes.io/hostname: n0}}
status: {allocatable: {cpu: '8', pods: '110'}, conditions: [{type: Ready, status: 'True'}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
spec: {topologyName: dc, nodeLabels: {kubernetes.io/hostname: n0}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: '8'}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 0
    topologyRequest: {required: kubernetes.io/hostname}
    template: {spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]}}
"""


def test_why_of_a_pending_pod_set_of_count_0_says_why(tmp_path: Path) -> None:
    # Found on feature-gate-tas-multi-layer-topology-on-three-layers.yaml with count 8 -> 0: the pod set needs
    # nothing, so the standing's "furthest out of what was free" divided by a need of 0 (ZeroDivisionError, exit 70).
    # Pending it is (its admission's topology assignment has no slices: the API server refuses the status write).
    (tmp_path / "in.yaml").write_text(_TAS_ZERO)
    admitted = {d.key: d.admitted for d in api.admit([str(tmp_path)]).result.decisions}
    out = api.why("ns/w", [str(tmp_path)], fixes=0)
    assert out.exit_code == 1 and admitted == {"ns/w": False}
    assert out.result.admitted is False and out.result.standing.needs == {}


_TEMPLATE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec: {namespaceSelector: {}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{image: "{{ .Values.image }}", name: main, resources: {requests: {cpu: {{inputs.parameters.cpu}}}}}]
"""


def test_nothing_to_decide_says_why_its_objects_are_not_decided(tmp_path: Path) -> None:
    # Found with a Helm image and an unquoted Argo Workflows parameter in an otherwise good file: the file is a
    # template (KAD020), its two objects listed as not read, and KAD004 called them "objects of kinds kadmit does
    # not decide on" (a ClusterQueue, a Job): it says the first one's reason now.
    (tmp_path / "in.yaml").write_text(_TEMPLATE)
    out = api.admit([str(tmp_path)])
    said = [d.message for d in out.diagnostics if d.code == "KAD004"]
    assert out.exit_code == 2 and len(said) == 1
    assert "does not decide on" not in said[0]
    assert "2 objects not decided, the first (ClusterQueue cq): not read: its file is a Go template" in said[0]
