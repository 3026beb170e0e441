"""stopPolicy on local queues and cluster queues, as Kueue's workload controller applies it: Hold
keeps pending workloads out; HoldAndDrain also evicts the admitted ones, whose quota goes back."""

from __future__ import annotations

import textwrap

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.reasons import gate_reasons
from kadmit.engine.admission.session import Session
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.reference import decide as reference_decide

STATE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  stopPolicy: {cq_stop}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: f, resources: [{{name: cpu, nominalQuota: 4}}]}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: held, namespace: default}}
spec: {{clusterQueue: cq, stopPolicy: {lq_stop}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: open, namespace: default}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: running, namespace: default, creationTimestamp: "2026-11-20T08:00:00Z"}}
spec:
  queueName: held
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 3}}}}}}]}}}}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{{name: main, count: 1, flavors: {{cpu: f}}, resourceUsage: {{cpu: 3}}}}]
  conditions: [{{type: QuotaReserved, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: pending-held, namespace: default, creationTimestamp: "2026-11-20T08:01:00Z"}}
spec:
  queueName: held
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1}}}}}}]}}}}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: pending-open, namespace: default, creationTimestamp: "2026-11-20T08:02:00Z"}}
spec:
  queueName: open
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 4}}}}}}]}}}}}}]
"""


def decisions(cq_stop: str, lq_stop: str):
    diags = Diagnostics()
    model = merge([read_manifest_text(STATE.format(cq_stop=cq_stop, lq_stop=lq_stop), "s.yaml", diags)])
    assert not list(diags), [(d.code, d.message) for d in diags]
    session = Session(model)
    engine = {d.key: d.admitted for d in decide_ordered(session)}
    reference = {d.workload: d.admitted for d in reference_decide(model)}
    assert engine == reference
    return engine, session


@pytest.mark.parametrize("lq_stop, want", [
    # running holds 3 of 4: pending-open (4) waits; pending-held (1) would fit but its queue is held
    ("None", {"default/pending-held": True, "default/pending-open": False}),
    ("Hold", {"default/pending-held": False, "default/pending-open": False}),
    # draining evicts running: its quota goes back and pending-open fits; running waits in its queue
    ("HoldAndDrain", {"default/running": False, "default/pending-held": False, "default/pending-open": True}),
])
def test_local_queue_stop_policy(lq_stop, want) -> None:
    got, session = decisions("None", lq_stop)
    assert got == want
    if lq_stop != "None":
        wl = session.index.workloads["default/pending-held"]
        assert [r.message for r in gate_reasons(session, wl)] == [f"LocalQueue held is inactive (stopPolicy {lq_stop})"]


def test_cluster_queue_hold_and_drain_evicts_its_admitted_workloads() -> None:
    got, _ = decisions("HoldAndDrain", "None")
    assert got == {"default/running": False, "default/pending-held": False, "default/pending-open": False}
