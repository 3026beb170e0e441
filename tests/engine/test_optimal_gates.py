"""Optimal mode decides as under Kueue v0.17.0's default for the gates only ordered mode's engine reads
(engine/optimal/placement.ORDERED_ONLY_GATES): set away from its default, each says so (KAD527), at the
Configuration's `featureGates` or the manager's `--feature-gates`; never silently."""

from __future__ import annotations

import pytest

pytest.importorskip("ortools")

from kadmit import api  # noqa: E402

POLICY = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}}]
"""


def manager(gates: str) -> str:
    """Kueue's manager Deployment with `--feature-gates=GATES` (an f-string: test_convert reads no literal of it)."""
    return f"""\
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: kueue-controller-manager, namespace: kueue-system}}
spec:
  selector: {{matchLabels: {{app: kueue}}}}
  template:
    metadata: {{labels: {{app: kueue}}}}
    spec:
      containers: [{{name: manager, image: registry.k8s.io/kueue/kueue:v0.17.0, args: ["--feature-gates={gates}"]}}]
"""


def warned(tmp_path, extra: str) -> list[tuple[str, int]]:
    (tmp_path / "in.yaml").write_text(POLICY + extra)
    out = api.admit([str(tmp_path)], mode="optimal", time_budget=2.0)
    assert [d.key for d in out.result.decisions if d.admitted] == ["default/w"]
    return sorted((d.message.split()[7], d.span.line) for d in out.diagnostics if d.code == "KAD527")


def test_a_gate_optimal_mode_does_not_follow_is_warned_where_it_is_set(tmp_path) -> None:
    config = ("---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {FlavorFungibility: "
              "false, SchedulerTimestampPreemptionBuffer: true, PartialAdmission: false, TASBalancedPlacement: true}\n")
    assert warned(tmp_path, config) == [("FlavorFungibility's", 28), ("SchedulerTimestampPreemptionBuffer's", 28),
                                        ("TASBalancedPlacement's", 28)]
    flag = manager("PrioritySortingWithinCohort=false,ReclaimablePods=false")
    assert warned(tmp_path, flag) == [("PrioritySortingWithinCohort's", 34)]
    flag = manager("SchedulingEquivalenceHashing=true")
    assert warned(tmp_path, flag) == [("SchedulingEquivalenceHashing's", 34)]


def test_gates_at_their_defaults_or_followed_say_nothing(tmp_path) -> None:
    assert warned(tmp_path, manager("FlavorFungibility=true,PartialAdmission=false")) == []
    assert warned(tmp_path, "") == []
