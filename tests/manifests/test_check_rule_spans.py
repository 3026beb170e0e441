"""A ClusterQueue's admission check rules are located in its manifest: a diagnostic about one (KAD273, a
check on a flavor the queue doesn't list: Kueue's site's resource-flavor examples beside its
minimal-cq set-up) points at the rule's `onFlavors` entry, not nowhere."""

from __future__ import annotations

from kadmit import api

QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: other}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: sample-prov}
spec: {controllerName: kueue.x-k8s.io/provisioning-request}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks:
    - name: sample-prov
      onFlavors: [other, default-flavor]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: other
      resources: [{name: cpu, nominalQuota: 1}]
"""


def test_a_check_on_a_flavor_the_queue_does_not_list_points_at_the_flavor(tmp_path):
    (tmp_path / "cq.yaml").write_text(QUEUE)
    found = [d for d in api.check([str(tmp_path)]).diagnostics if d.code == "KAD273"]
    assert [d.message for d in found] == ["admission check `sample-prov` of cluster queue `cq` is on flavor "
                                         "`default-flavor`, which the queue's resource groups don't list"]
    span = found[0].span
    assert span is not None and (span.line, span.column) == (22, 26), span
