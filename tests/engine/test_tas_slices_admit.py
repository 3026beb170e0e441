"""Pod-set slices end to end: a Job whose pods fit one block only when slices may split across racks
is not admitted with a required slice level (ordered mode), and optimal mode says it ignores them."""

from __future__ import annotations

import pytest

from kadmit import api
from kadmit.render.decisions import admit_human

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec:
  levels: [{nodeLabel: cloud.example.com/block}, {nodeLabel: cloud.example.com/rack}, {nodeLabel: kubernetes.io/hostname}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {node-pool: tas}, topologyName: dc}
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas
      resources: [{name: cpu, nominalQuota: "100"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""


def node(name: str, rack: str, cpu: int) -> str:
    return f"""\
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{node-pool: tas, kubernetes.io/hostname: {name}, cloud.example.com/block: b1, cloud.example.com/rack: {rack}}}
status: {{allocatable: {{cpu: "{cpu}", pods: "110"}}, conditions: [{{type: Ready, status: "True"}}]}}
"""


def job(size: int) -> str:
    return f"""\
---
apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: default, labels: {{kueue.x-k8s.io/queue-name: q}}}}
spec:
  parallelism: 6
  completions: 6
  suspend: true
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: cloud.example.com/block
        kueue.x-k8s.io/podset-slice-required-topology: cloud.example.com/rack
        kueue.x-k8s.io/podset-slice-size: "{size}"
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""


@pytest.mark.parametrize("size, admitted", [(2, False), (3, True)])
def test_slices_that_fit_only_split_across_racks_are_not_admitted(tmp_path, size, admitted) -> None:
    # block b1 holds 6 pods: rack r1 3 (2 + 1), rack r2 3; slices of 2 fit 1 + 1, slices of 3 fit 1 + 1
    (tmp_path / "c.yaml").write_text(CLUSTER + node("a", "r1", 2) + node("b", "r1", 1) + node("c", "r2", 3)
                                     + job(size))
    out = api.admit([str(tmp_path)])
    assert out.exit_code == 0, [(d.code, d.message) for d in out.diagnostics]
    assert not [d for d in out.diagnostics if d.code == "KAD161"]
    assert [d.admitted for d in out.result.decisions] == [admitted]
    if admitted:
        return
    text = admit_human(out.result, [])
    assert "allows to fit only 2 out of 3 slice(s)" in text
    opt = api.admit([str(tmp_path)], mode="optimal", time_budget=2.0)
    warned = [d for d in opt.diagnostics if d.code == "KAD525"]
    assert len(warned) == 1 and warned[0].span is not None and warned[0].span.line > 0
