"""DRA as Kueue v0.17.0 does it: its DynamicResourceAllocation feature gate is off by default, and then
pods' resourceClaims count nothing (a warning says so); with the gate on in the Configuration, claims
from ResourceClaimTemplates count as the resource the Configuration's deviceClassMappings name, and
what `countDevicesPerClass` refuses makes the workload inadmissible (Kueue's pkg/dra/claims.go), in
the engine and the reference alike."""

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
featureGates: {{{gates}}}
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
{extra}---
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


GATE_ON = "DynamicResourceAllocation: true"


def load(count=2, device_class="gpu.example.com", template="two-gpus", gates=GATE_ON, extra=""):
    diags = Diagnostics()
    text = STATE.format(count=count, device_class=device_class, template=template, gates=gates, extra=extra)
    model = merge([read_manifest_text(text, "s.yaml", diags)])
    validate(model, diags)
    return model, diags


def line_of(fragment: str, **kw) -> int:
    text = STATE.format(**{**dict(count=2, device_class="gpu.example.com", template="two-gpus", gates=GATE_ON,
                                  extra=""), **kw})
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def admitted(model) -> bool:
    engine = {d.key: d.admitted for d in decide_ordered(Session(model))}
    assert engine == {d.workload: d.admitted for d in reference_decide(model)}
    return engine["default/train"]


def reasons(model) -> list[str]:
    session = Session(model)
    return [r.message for r in gate_reasons(session, session.index.workloads["default/train"])]


@pytest.mark.parametrize("gates", ["", "DynamicResourceAllocation: false"])
def test_with_the_gate_off_claims_count_nothing_and_a_warning_says_so(gates) -> None:
    """Kueue v0.17.0's default: the oracle admits this on 3 cpu (tests/oracle/features/dra-gate-off.yaml)."""
    model, diags = load(3, gates=gates, extra=ADMIN_ACCESS)
    (d,) = [d for d in diags if d.severity.value != "note"]
    assert d.code == "KAD298" and d.span.line == line_of("resourceClaims:", extra=ADMIN_ACCESS) and "`default/two-gpus`" in d.message
    (ps,) = effective(model).workloads[0].pod_sets
    assert "whole-gpus" not in ps.requests
    assert admitted(model)


def test_another_feature_gate_is_reported_as_not_modelled() -> None:
    model, diags = load(gates="DynamicResourceAllocation: true, SchedulerLongRequeueInterval: true")
    (d,) = [d for d in diags if d.severity.value != "note"]
    assert d.code == "KAD161" and "`featureGates.SchedulerLongRequeueInterval`" in d.message and d.span.line == line_of("featureGates")


@pytest.mark.parametrize("count, fits", [(2, True), (3, False)])
def test_claimed_devices_count_as_the_mapped_resource(count, fits) -> None:
    model, diags = load(count)
    assert not [d for d in diags if d.severity.value != "note"], [(d.code, d.message) for d in diags]
    (ps,) = effective(model).workloads[0].pod_sets
    assert ps.requests["whole-gpus"] == 2000  # per pod
    assert admitted(model) is fits


def test_an_unmapped_device_class_makes_the_workload_inadmissible() -> None:
    model, _ = load(device_class="fpga.example.com")
    assert not admitted(model)
    assert reasons(model) == ['spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not '
                              'found: "DeviceClass fpga.example.com is not mapped in DRA configuration for podset '
                              'workers"']


ADMIN_ACCESS = """\
      - name: debug
        exactly: {deviceClassName: gpu.example.com, adminAccess: true}
"""


@pytest.mark.parametrize("extra, field, value, detail", [
    (ADMIN_ACCESS, "devices.requests[1].exactly.adminAccess", "null", "AdminAccess is not supported"),
    ("      - name: picky\n        exactly: {deviceClassName: gpu.example.com, selectors: "
     "[{cel: {expression: 'true'}}]}\n",
     "devices.requests[1].exactly.selectors", "null", "CEL selectors are not supported"),
    ("      - name: all\n        exactly: {deviceClassName: gpu.example.com, allocationMode: All}\n",
     "devices.requests[1].exactly.allocationMode", '"All"', "AllocationMode 'All' is not supported"),
    ("      constraints: [{matchAttribute: gpu.example.com/model}]\n",
     "devices.constraints", "null", "device constraints (MatchAttribute) are not supported"),
    ("      config: [{opaque: {driver: gpu.example.com, parameters: {}}}]\n",
     "devices.config", "null", "device config is not supported"),
])
def test_what_kueue_v0_17_does_not_count_makes_the_workload_inadmissible(extra, field, value, detail) -> None:
    """`countDevicesPerClass`: the first refusal, as the workload's Inadmissible condition says it."""
    model, _ = load(extra=extra)
    assert not admitted(model)
    assert reasons(model) == [f"spec.podSets[0].template.spec.resourceClaims[0].{field}: Invalid value: {value}: "
                              f"ResourceClaimTemplate two-gpus: {detail}"]


def test_a_template_not_in_the_input_is_a_located_warning() -> None:
    model, diags = load(template="elsewhere")
    (d,) = [d for d in diags if d.code == "KAD297"]
    assert d.span.line == line_of("resourceClaims:") and "default/elsewhere" in d.message
    assert admitted(model)  # nothing counted, as far as kadmit can tell


def test_a_claim_named_directly_is_inadmissible_with_the_gate_on() -> None:
    """workload_controller.go holds a pending workload naming a ResourceClaim Inadmissible before it
    reads templates (the oracle agrees: tests/oracle/features/dra-direct-claim.yaml)."""
    direct = "resourceClaims: [{name: gpu, resourceClaimName: my-claim}]"
    text = STATE.format(count=1, device_class="gpu.example.com", template="two-gpus", gates=GATE_ON, extra="")
    text = text.replace("resourceClaims: [{name: gpu, resourceClaimTemplateName: two-gpus}]", direct)
    diags = Diagnostics()
    model = merge([read_manifest_text(text, "s.yaml", diags)])
    validate(model, diags)
    assert not admitted(model)
    assert reasons(model) == ["DynamicResourceAllocation feature does not support use of resource claims"]
    off = Diagnostics()
    model = merge([read_manifest_text(text.replace(GATE_ON, ""), "s.yaml", off)])
    validate(model, off)
    (d,) = [d for d in off if d.severity.value != "note"]
    assert d.code == "KAD298" and "ResourceClaim `default/my-claim`" in d.message
    assert admitted(model)


def test_extended_resources_resolve_as_kueues_resolve_extended_resource_quota() -> None:
    """DRAExtendedResources (modeldra.extended_quota): a class's mapped name where a mapping holds it, init
    containers by max (a sidecar too), containers by sum; a request no DeviceClass names, or no extended
    resource, is left as it is; a quantity not whole is Kueue's field error, and resolves to nothing."""
    from kadmit.modeldra import extended_quota
    from kadmit.podresources import ContainerResources, PodResources

    pod = PodResources(
        init_containers=(ContainerResources(requests={"example.com/gpu": 3000}, sidecar=True),),
        containers=(ContainerResources(requests={"cpu": 1000, "example.com/gpu": 1000, "other.io/x": 1000}),
                    ContainerResources(requests={"example.com/gpu": 1000, "example.com/fpga": 1000})))
    by_name = {"example.com/gpu": ["a.example.com", "b.example.com"], "example.com/fpga": ["f.example.com"]}
    quota, replaced, errors = extended_quota(pod, "spec.podSets[0].template.spec", by_name, {"b.example.com": "gpus"})
    assert (quota, replaced, errors) == ({"gpus": 3000, "example.com/fpga": 1000},
                                         {"example.com/gpu", "example.com/fpga"}, [])
    half = PodResources(containers=(ContainerResources(requests={"example.com/fpga": 500}),))
    assert extended_quota(half, "spec.podSets[1].template.spec", by_name, {}) == ({}, set(), [
        'spec.podSets[1].template.spec.containers[0].resources.requests.example.com/fpga: Invalid value: "500m": '
        "extended resource quantity must be an integer"])
