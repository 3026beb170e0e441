"""Kueue's TAS match of a pod set and a flavor is made per resource group: a pod set asking for a
topology may take a flavor without one in a group its pods request nothing of. Kueue (v0.20 era,
unchanged since #8963) pkg/scheduler/flavorassigner/tas_flavorassigner.go,
`checkPodSetAndFlavorMatchForTAS`: when the pod set requests TAS (and the queue isn't TAS-only) and
the flavor has no `topologyName`, `hasOverlapWithPodRequestedResources(ps, rg.CoveredResources)`
false -> a match; the check runs first in `checkFlavorForPodSets`, before taints and node affinity,
and only for groups `findFlavorForPodSets` visits (those covering a requested resource, `pods`
included when a group covers it). The inverse has no such exemption: a pod set without a request
can't take a flavor with a topology unless every flavor of the queue has one (`isTASImplied`).
Engine and reference (written apart) must agree on every row."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.reasons import flavor_reasons
from kadmit.engine.admission.session import Session
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.reference import decide as reference_decide

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - nodeLabel: cloud.example.com/rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas-cpu}
spec: {nodeLabels: {node-pool: tas}, topologyName: dc}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
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
  - coveredResources: [cpu, memory]
    flavors: [{name: tas-cpu, resources: [{name: cpu, nominalQuota: 16}, {name: memory, nominalQuota: 64Gi}]}]
  - coveredResources: [%(second)s]
    flavors: [{name: plain, resources: [%(second_quota)s]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node-pool: tas, cloud.example.com/rack: r1, kubernetes.io/hostname: n1}
status:
  allocatable: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "8", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
%(topology)s    template:
      spec:
        containers:
        - name: c
          resources: {requests: {%(requests)s}}
"""

GPU = {"second": "nvidia.com/gpu", "second_quota": "{name: nvidia.com/gpu, nominalQuota: 8}"}
PODS = {"second": "pods", "second_quota": "{name: pods, nominalQuota: 10}"}
REQUIRED = "    topologyRequest: {required: cloud.example.com/rack}\n"
PREFERRED = "    topologyRequest: {preferred: cloud.example.com/rack}\n"
UNCONSTRAINED = "    topologyRequest: {unconstrained: true}\n"
NOT_TAS = 'Flavor "plain" does not support TopologyAwareScheduling'
TAS_ONLY = 'Flavor "tas-cpu" supports only TopologyAwareScheduling'

ROWS = [
    # a topology request asking only cpu: the gpu group (no topology) is never visited
    ("cpu-only-required", GPU, REQUIRED, "cpu: 1", True, None),
    # asking gpu too: the gpu group's only flavor has no topology and the pods request gpu
    ("gpu-too-required", GPU, REQUIRED, "cpu: 1, nvidia.com/gpu: 1", False, NOT_TAS),
    ("gpu-too-preferred", GPU, PREFERRED, "cpu: 1, nvidia.com/gpu: 1", False, NOT_TAS),
    ("gpu-too-unconstrained", GPU, UNCONSTRAINED, "cpu: 1, nvidia.com/gpu: 1", False, NOT_TAS),
    # a group of `pods` only: Kueue counts pods there, but no container requests `pods`, so no overlap
    ("pods-group-required", PODS, REQUIRED, "cpu: 1", True, None),
    ("pods-group-unconstrained", PODS, UNCONSTRAINED, "cpu: 1", True, None),
    # inverse: no topology request in a mixed queue, asking cpu (TAS-only flavor): no exemption
    ("no-request-cpu", GPU, "", "cpu: 1", False, TAS_ONLY),
    # ... but asking only gpu never visits the TAS group
    ("no-request-gpu-only", GPU, "", "nvidia.com/gpu: 1", True, None),
]


@pytest.mark.parametrize("second,topology,requests,admitted,reason",
                         [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_tas_match_is_per_resource_group(second, topology, requests, admitted, reason) -> None:
    diags = Diagnostics()
    text = CLUSTER % {**second, "topology": topology, "requests": requests}
    model = merge([read_manifest_text(text, "c.yaml", diags)])
    assert not [d for d in diags if d.severity == "error"], [(d.code, d.message) for d in diags]
    engine = {d.key: d.admitted for d in decide_ordered(Session(model))}
    reference = {d.workload: d.admitted for d in reference_decide(model)}
    assert engine == reference == {"default/w": admitted}
    if reason is not None:
        session = Session(model)
        messages = [r.message for r in flavor_reasons(session, session.index.workloads["default/w"])]
        assert any(reason in m for m in messages), messages


def test_a_pods_group_counts_one_pod_per_pod_without_topology_too() -> None:
    """Kueue adds `pods: count` to a pod set's requests when a group covers `pods`
    (`assignFlavors`); the engine's solver units for `pods` must see that one-per-pod amount, or
    2 pods round up to more than a quota of 10 (found with the pods-group rows above)."""
    diags = Diagnostics()
    text = (CLUSTER % {**PODS, "topology": "", "requests": "cpu: 1"}).replace(
        "spec: {nodeLabels: {node-pool: tas}, topologyName: dc}\n", "")
    model = merge([read_manifest_text(text, "c.yaml", diags)])
    engine = {d.key: d.admitted for d in decide_ordered(Session(model))}
    assert engine == {d.workload: d.admitted for d in reference_decide(model)} == {"default/w": True}
