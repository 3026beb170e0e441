"""DRA: pods' resourceClaims from ResourceClaimTemplates count as the resource the Configuration's
deviceClassMappings name (Kueue's pkg/dra/claims.go), in the engine and the reference alike."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.effective import effective
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.reasons import gate_reasons
from kadmit.engine.admission.session import Session
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.reference import decide as reference_decide
from kadmit.validate import validate

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
  resourceGroups:
  - coveredResources: [cpu, whole-gpus]
    flavors: [{{name: f, resources: [{{name: cpu, nominalQuota: 16}}, {{name: whole-gpus, nominalQuota: 4}}]}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: q, namespace: default}}
spec: {{clusterQueue: cq}}
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - {{name: whole-gpus, deviceClassNames: [gpu.example.com]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: two-gpus, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {{deviceClassName: {device_class}, allocationMode: ExactCount, count: 2}}
      - name: debug
        exactly: {{deviceClassName: gpu.example.com, adminAccess: true}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: train, namespace: default}}
spec:
  queueName: q
  podSets:
  - name: workers
    count: {count}
    template:
      spec:
        containers: [{{name: c, resources: {{requests: {{cpu: 1}}, claims: [{{name: gpu}}]}}}}]
        resourceClaims: [{{name: gpu, resourceClaimTemplateName: {template}}}]
"""


def load(count=2, device_class="gpu.example.com", template="two-gpus"):
    diags = Diagnostics()
    model = merge([read_manifest_text(STATE.format(count=count, device_class=device_class, template=template),
                                      "s.yaml", diags)])
    validate(model, diags)
    return model, diags


def admitted(model) -> bool:
    engine = {d.key: d.admitted for d in decide_ordered(Session(model))}
    assert engine == {d.workload: d.admitted for d in reference_decide(model)}
    return engine["default/train"]


@pytest.mark.parametrize("count, fits", [(2, True), (3, False)])
def test_claimed_devices_count_as_the_mapped_resource(count, fits) -> None:
    model, diags = load(count)
    assert not [d for d in diags if d.severity.value != "note"], [(d.code, d.message) for d in diags]
    (ps,) = effective(model).workloads[0].pod_sets
    assert ps.requests["whole-gpus"] == 2000  # per pod; the adminAccess request counts nothing
    assert admitted(model) is fits


def test_an_unmapped_device_class_makes_the_workload_inadmissible() -> None:
    model, _ = load(device_class="fpga.example.com")
    assert not admitted(model)
    session = Session(model)
    reasons = [r.message for r in gate_reasons(session, session.index.workloads["default/train"])]
    assert reasons == ["Failed to process DRA resources for workload: DeviceClass fpga.example.com is not "
                       "mapped in DRA configuration for podset workers"]


def test_a_template_not_in_the_input_is_a_located_warning() -> None:
    model, diags = load(template="elsewhere")
    (d,) = [d for d in diags if d.code == "KAD297"]
    assert d.span.line == 52 and "default/elsewhere" in d.message
    assert admitted(model)  # nothing counted, as far as kadmit can tell
