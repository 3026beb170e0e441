"""The Configuration's `resources` as Kueue's `totalRequestsFromPodSets` applies them before quota:
excluded prefixes and transformations (Retain / Replace, multiplyBy, summed outputs). Kueue v0.17
has no quotaCheckStrategy (tests/oracle/test_configuration.py: its strict decoding refuses it)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.effective import effective, transform
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.reasons import flavor_reasons
from kadmit.engine.admission.session import Session
from kadmit.manifests import read_manifest_text
from kadmit.model import ResourceTransformation, merge
from kadmit.quantity import parse_quantity as q
from kadmit.reference import decide as reference_decide

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
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
  - coveredResources: [cpu, example.com/gpu-memory]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 8}, {name: example.com/gpu-memory, nominalQuota: 40Gi}]}]
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
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: 2, nvidia.com/mig-1g.5gb: 2, example.com/license: 1}}
"""


def load(config: str):
    diags = Diagnostics()
    text = CLUSTER + ("---\n" + textwrap.dedent(config) if config else "")
    model = merge([read_manifest_text(text, "c.yaml", diags)])
    assert not list(diags), [(d.code, d.message) for d in diags]
    return model


def decide(model):
    engine = {d.key: d.admitted for d in decide_ordered(Session(model))}
    assert engine == {d.workload: d.admitted for d in reference_decide(model)}
    return engine["default/w"]


def test_without_configuration_undeclared_resources_block_admission() -> None:
    model = load("")
    assert not decide(model)
    session = Session(model)
    reasons = [r.message for r in flavor_reasons(session, session.index.workloads["default/w"])]
    assert any("unavailable in ClusterQueue" in m for m in reasons), reasons


def test_excluded_prefixes_and_a_replacing_transformation_admit() -> None:
    model = load("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        resources:
          excludeResourcePrefixes: [example.com/license]
          transformations:
          - input: nvidia.com/mig-1g.5gb
            strategy: Replace
            outputs: {example.com/gpu-memory: 5Gi}
        """)
    (ps,) = effective(model).workloads[0].pod_sets
    assert ps.requests == {"cpu": q("2"), "example.com/gpu-memory": q("10Gi")}
    assert decide(model)  # 2 pods x 10Gi = 20Gi of 40Gi


def test_retain_keeps_the_input_which_the_queue_must_then_declare() -> None:
    model = load("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        resources:
          excludeResourcePrefixes: [example.com/]
          transformations:
          - {input: nvidia.com/mig-1g.5gb, outputs: {example.com/gpu-memory: 5Gi}}
        """)
    (ps,) = effective(model).workloads[0].pod_sets
    # the output is generated after the exclusion, so the prefix does not drop it
    assert ps.requests == {"cpu": q("2"), "example.com/gpu-memory": q("10Gi"), "nvidia.com/mig-1g.5gb": q("2")}
    assert not decide(model)


def test_transform_sums_outputs_and_multiplies_below_zero_too() -> None:
    by_input = {
        "a": ResourceTransformation(input="a", strategy="Replace", outputs={"x": q("3"), "y": q("-1")}),
        "b": ResourceTransformation(input="b", multiply_by="n", outputs={"x": q("500m"), "y": q("-4")}),
    }
    got = transform({"a": q("2"), "b": q("4"), "n": q("3"), "y": q("1")}, by_input)
    # b is multiplied by n before its outputs, and Retain keeps the product (Kueue's
    # inputQuantity.Mul): b 12; x: 2*3 + 12*0.5 = 12; generated y: -2 - 48 = -50, counted as it is
    # (the oracle books a negative usage: transformation-negative-factor.yaml), plus the pod's own 1
    # (the sum is one of Kueue's map orders: KUEUE-DIFFERENCES §1)
    assert got == {"b": q("12"), "n": q("3"), "x": q("12"), "y": q("-49")}


def test_transform_counts_a_negative_fraction_as_go_does() -> None:
    """Quantity.Value() below 0 truncates and adds 1 for any fraction (Go's scaledValue): -1.5 counts
    0, -0.5 counts 1 (so 3 pods of -0.5 count +3), -2.5 counts -1; whole amounts count as they are."""
    by_input = {"t": ResourceTransformation(input="t", strategy="Replace", outputs={"c": q("-1.5")}),
                "h": ResourceTransformation(input="h", strategy="Replace", outputs={"c": q("-0.5")}),
                "g": ResourceTransformation(input="g", strategy="Replace", outputs={"c": q("-2.5")}),
                "w": ResourceTransformation(input="w", strategy="Replace", outputs={"c": q("-1")})}
    assert transform({"t": q("1")}, by_input) == {"c": 0}  # kept at 0: it takes a flavor where covered
    assert transform({"h": q("1")}, by_input) == {"c": q("1")}
    assert transform({"g": q("1")}, by_input) == {"c": q("-1")}
    assert transform({"t": q("3")}, by_input) == {"c": q("-3")}  # -4.5 counts -3
    assert transform({"w": q("2")}, by_input) == {"c": q("-2")}


def test_transform_counts_whole_units_as_kueue_does() -> None:
    """Kueue multiplies by the multiplier's whole units and each output's factor by the input's
    (Quantity.Value(), rounded up), and NewRequests counts every resource but cpu in whole units
    (tests/oracle/features/resource-transformations-count-whole-units.yaml)."""
    by_input = {
        "tpu": ResourceTransformation(input="tpu", strategy="Replace", outputs={"credits": q("500m")}),
        "fpga": ResourceTransformation(input="fpga", strategy="Replace", multiply_by="cpu",
                                       outputs={"credits": q("1")}),
        "cpu": ResourceTransformation(input="cpu", outputs={"memory": q("1500Mi")}),
    }
    assert transform({"tpu": q("1")}, by_input) == {"credits": q("1")}  # 500m credits counts 1
    assert transform({"tpu": q("3")}, by_input) == {"credits": q("2")}  # 1500m counts 2
    # fpga 2 x cpu 500m (1 unit) = 2 credits; the cpu input, retained in milli-units, counts 1 unit
    # for its memory output: 1500Mi
    assert transform({"cpu": q("500m"), "fpga": q("2")}, by_input) == {
        "cpu": q("500m"), "credits": q("2"), "memory": q("1500Mi")}
    # the cpu input 1500m counts 2 units: 3000Mi of memory
    assert transform({"cpu": q("1500m")}, by_input) == {"cpu": q("1500m"), "memory": q("3000Mi")}


def test_transformations_apply_once_however_often_asked() -> None:
    model = load("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        resources:
          transformations:
          - {input: nvidia.com/mig-1g.5gb, outputs: {example.com/gpu-memory: 5Gi}}
        """)
    once = effective(model)
    assert effective(once) is once


@pytest.mark.parametrize("config, message", [
    ("resources: {transformations: [{input: a}, {input: a}]}",
     'resources.transformations[1].input: Duplicate value: "a"'),
    ("resources: {transformations: [{input: a, strategy: Keep}]}",
     'resources.transformations[0].strategy: Unsupported value: "Keep": supported values: "Retain", "Replace"'),
])
def test_kueues_configuration_validation(config, message) -> None:
    diags = Diagnostics()
    read_manifest_text(f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n{config}\n", "k.yaml", diags)
    assert [d.code for d in diags] == ["KAD157"] and message in diags.items[0].message


def test_transform_multiplies_a_factor_finer_than_a_milli_unit_exactly() -> None:
    """A factor of `100u` is multiplied as written and the product rounded (Kueue's Quantity.Mul, then
    Value()/MilliValue()): 15000 units give 1.5 credits (2) and 1.5 cpu (1500m), not 15 of each."""
    t = ResourceTransformation(input="g", strategy="Replace", outputs={"c": 1, "cpu": 1},
                               fine_outputs={"c": "100u", "cpu": "100u"})
    assert transform({"g": q("15000")}, {"g": t}) == {"c": q("2"), "cpu": q("1500m")}
    assert transform({"g": q("3")}, {"g": t}) == {"c": q("1"), "cpu": q("1m")}  # 300u of cpu counts 1m


def test_why_counts_a_queue_of_negative_usage_as_putting_nothing_in_its_cohort() -> None:
    """A queue whose usage is below 0 puts max(0, U - G) = 0 in its cohort, not U: why's symbolic
    problem said `team/pending` "fits on its own" and found no fix where admit keeps it pending."""
    from kadmit import api

    path = str(Path(__file__).parent / "negative-usage-in-a-cohort.yaml")
    out = api.why("team/pending", [path])
    r = out.result
    assert r is not None and not r.admitted
    assert not any("fits on its own" in reason.message for reason in r.reasons)
    assert r.fixes and any(c.knob.subject.startswith("ClusterQueue `cq-b`") for c in r.fixes[0].changes)
