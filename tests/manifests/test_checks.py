"""Admission checks: reading AdmissionCheck and what its built-in controllers read, a ClusterQueue's
checks in both of v0.17.0's spellings, a Workload's check states; and Kueue's rules over them
(kadmit.modelchecks). The decisions themselves are compared with Kueue's in
tests/oracle/features/admission-check*.yaml."""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.model import AdmissionCheck, CheckConfig, CheckParameters, CheckRule, CheckState
from kadmit.modelchecks import Activity, checks_for, states_on_reservation


def read(text: str):
    diags = Diagnostics()
    return read_manifest_text(textwrap.dedent(text), "m.yaml", diags), diags


def test_admission_check_and_the_objects_its_controllers_read():
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: AdmissionCheck
        metadata: {name: prov}
        spec:
          controllerName: kueue.x-k8s.io/provisioning-request
          parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prc}
        status:
          conditions:
          - {type: Active, status: "False", reason: BadParametersRef, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ProvisioningRequestConfig
        metadata: {name: prc}
        spec: {provisioningClassName: check-capacity.autoscaling.x-k8s.io}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: MultiKueueConfig
        metadata: {name: mkc}
        spec: {clusters: [w1, w2]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: MultiKueueCluster
        metadata: {name: w1}
        spec: {clusterSource: {kubeConfig: {locationType: Secret, location: s}}}
        status:
          conditions:
          - {type: Active, status: "True", reason: Active, message: Connected, lastTransitionTime: "2026-01-01T00:00:00Z"}
        """)
    assert not diags.items
    (ac,) = frag.admission_checks
    assert (ac.name, ac.controller, ac.status_active, ac.status_reason) == (
        "prov", "kueue.x-k8s.io/provisioning-request", False, "BadParametersRef")
    assert ac.parameters == CheckParameters(api_group="kueue.x-k8s.io", kind="ProvisioningRequestConfig", name="prc")
    assert [(c.kind, c.name, c.clusters, c.status_active) for c in frag.check_configs] == [
        ("ProvisioningRequestConfig", "prc", (), None), ("MultiKueueConfig", "mkc", ("w1", "w2"), None),
        ("MultiKueueCluster", "w1", (), True)]
    assert ac.field_span("controller").line == 5


def test_cluster_queue_checks_in_both_spellings():
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: old}
        spec:
          admissionChecks: [a, b]
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: new}
        spec:
          admissionChecksStrategy:
            admissionChecks:
            - {name: a}
            - {name: b, onFlavors: [f1]}
        """)
    assert not diags.items
    old, new = frag.cluster_queues
    assert old.admission_checks == (CheckRule(name="a"), CheckRule(name="b"))
    assert new.admission_checks == (CheckRule(name="a"), CheckRule(name="b", on_flavors=("f1",)))
    assert new.field_span("admission_checks").line == 12  # the strategy's value


def test_a_workloads_check_states():
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: w, namespace: ns}
        spec:
          queueName: lq
          podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
        status:
          admissionChecks:
          - {name: a, state: Ready, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}
          - {name: b, state: Retry, message: again, lastTransitionTime: "2026-01-01T00:00:00Z"}
        """)
    assert not diags.items
    assert frag.workloads[0].check_states == (CheckState(name="a", state="Ready"), CheckState(name="b", state="Retry"))


def _activity(*objs):
    return Activity([o for o in objs if isinstance(o, AdmissionCheck)], [o for o in objs if isinstance(o, CheckConfig)])


PROV = "kueue.x-k8s.io/provisioning-request"
MK = "kueue.x-k8s.io/multikueue"


def test_who_sets_active():
    prc = CheckParameters(api_group="kueue.x-k8s.io", kind="ProvisioningRequestConfig", name="prc")
    mkc = CheckParameters(api_group="kueue.x-k8s.io", kind="MultiKueueConfig", name="mkc")
    act = _activity(
        # a built-in check: its reconciler decides from the objects, whatever the status says
        AdmissionCheck(name="prov", controller=PROV, parameters=prc, status_active=False),
        AdmissionCheck(name="prov-bad-kind", controller=PROV, parameters=mkc, status_active=True),
        AdmissionCheck(name="prov-none", controller=PROV),
        CheckConfig(kind="ProvisioningRequestConfig", name="prc"),
        AdmissionCheck(name="mk", controller=MK, parameters=mkc),
        CheckConfig(kind="MultiKueueConfig", name="mkc", clusters=("w1", "w2")),
        CheckConfig(kind="MultiKueueCluster", name="w1", status_active=False),
        # another controller's: its status
        AdmissionCheck(name="custom", controller="example.com/c", status_active=True),
        AdmissionCheck(name="custom-none", controller="example.com/c"))
    assert act.inactive_reason("prov") == ""
    assert act.inactive_reason("prov-bad-kind") == ("BadParametersRef: wrong kind \"MultiKueueConfig\", expecting "
                                                    "\"ProvisioningRequestConfig\": bad parameters reference")
    assert act.inactive_reason("prov-none") == "BadParametersRef: missing parameters reference"
    assert act.inactive_reason("mk") == "NoUsableClusters: Missing clusters: [w2], Inactive clusters: [w1]"
    assert act.inactive_reason("custom") == ""
    assert "example.com/c" in act.inactive_reason("custom-none")


def test_queue_problems_in_kueues_words_and_order():
    mkc = CheckParameters(api_group="kueue.x-k8s.io", kind="MultiKueueConfig", name="mkc")
    act = _activity(AdmissionCheck(name="mk", controller=MK, parameters=mkc),
                    AdmissionCheck(name="mk2", controller=MK, parameters=mkc),
                    CheckConfig(kind="MultiKueueConfig", name="mkc", clusters=("w1",)),
                    CheckConfig(kind="MultiKueueCluster", name="w1", status_active=True),
                    AdmissionCheck(name="off", controller="example.com/c", status_active=False, status_reason="Down"))
    flavors = {"f0", "f1"}
    assert act.queue_problems((), flavors) == []
    assert act.queue_problems((CheckRule(name="mk"),), flavors) == []
    assert act.queue_problems((CheckRule(name="zz"), CheckRule(name="off"), CheckRule(name="mk", on_flavors=("f0",)),
                               CheckRule(name="mk2")), flavors) == [
        "references missing AdmissionCheck(s): zz",
        "references inactive AdmissionCheck(s): off (off: Down (its controller `example.com/c`))",
        "Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: mk,mk2",
        "Cannot specify MultiKueue AdmissionCheck per flavor, found: mk"]


def test_which_checks_a_workload_waits_on():
    rules = (CheckRule(name="a"), CheckRule(name="b", on_flavors=("f1",)))
    flavors = {"f0", "f1"}
    # a check on some flavors only: none before quota is reserved, then those of its flavors
    assert checks_for(rules, flavors, None) == ()
    assert checks_for(rules, flavors, {"f0"}) == ("a",)
    assert checks_for(rules, flavors, {"f1"}) == ("a", "b")
    # every check on every flavor: a state the pending workload had is kept, the others are Pending
    every = (CheckRule(name="a"), CheckRule(name="b"))
    had = (CheckState(name="a", state="Ready"),)
    assert states_on_reservation(every, flavors, {"f0"}, had) == (("a", "Ready"), ("b", "Pending"))
    # with `onFlavors` Kueue clears a pending workload's states: all start Pending
    assert states_on_reservation(rules, flavors, {"f1"}, had) == (("a", "Pending"), ("b", "Pending"))


def test_check_warns_where_kueue_keeps_a_queue_inactive_for_its_checks():
    """`kadmit check`: KAD299 on each cluster queue Kueue keeps inactive for its checks (the queues of
    the oracle case that both tools decide), none on those whose checks are usable."""
    from pathlib import Path

    from kadmit import workspace
    from kadmit.validate import validate

    case = Path(__file__).parents[1] / "oracle" / "features" / "admission-checks-inactive-queues.yaml"
    d = Diagnostics()
    validate(workspace.load([str(case)]).model, d)
    warned = sorted(x.message.split("`")[1] for x in d.items if x.code == "KAD299")
    assert warned == ["cq-missing", "cq-mk-down", "cq-mk-per-flavor", "cq-mk-prov", "cq-no-status",
                      "cq-prov-no-config", "cq-two-mk"]
    (missing,) = [x for x in d.items if x.code == "KAD299" and "`cq-missing`" in x.message]
    assert missing.message == "cluster queue `cq-missing` references missing AdmissionCheck(s): nowhere"
    assert missing.span.line == case.read_text().splitlines().index("    admissionChecks: [{name: nowhere}]") + 1


def test_run_time_check_settings_are_read():
    """A Retry check's `requeueAfterSeconds` is read as its retry time, from its lastTransitionTime
    (`retry_at`: Kueue keeps a workload holding quota until then, a controller timer), not KAD161; none
    without requeueAfterSeconds or on another state. A pod set's `delayedTopologyRequest: Pending` is
    read (`delayed`: its second pass is modelled), not KAD161."""
    held = """\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: w, namespace: ns}
        spec:
          queueName: lq
          podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
        status:
          admission:
            clusterQueue: cq
            podSetAssignments:
            - {name: main, count: 1, flavors: {cpu: f0}, delayedTopologyRequest: Pending}
          conditions:
          - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
          admissionChecks:
          - {name: b, state: Retry, message: again, lastTransitionTime: "2026-01-01T00:00:00Z", requeueAfterSeconds: 30}
        """
    frag, diags = read(held)
    assert not [d for d in diags.items if d.code == "KAD161"]
    assert frag.workloads[0].check_states == (
        CheckState(name="b", state="Retry", retry_at=datetime(2026, 1, 1, 0, 0, 30, tzinfo=timezone.utc)),)
    for other, to in ((", requeueAfterSeconds: 30", ""), ("state: Retry", "state: Pending")):
        changed, _ = read(held.replace(other, to))
        assert changed.workloads[0].check_states[0].retry_at is None
    assert [ps.delayed for ps in frag.workloads[0].admission.pod_sets] == [True]
    pending = held.replace("""          admission:
            clusterQueue: cq
            podSetAssignments:
            - {name: main, count: 1, flavors: {cpu: f0}, delayedTopologyRequest: Pending}
          conditions:
          - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
""", "")
    _, diags = read(pending)
    assert not [d for d in diags.items if d.code == "KAD161"]


def test_what_the_api_server_refuses_of_the_check_configs_is_an_error():
    """As tools/kube-apiserver (Kueue v0.17.0's CRDs) refuses them on a server-side dry run: a
    ProvisioningRequestConfig without `provisioningClassName`, a v1beta2 MultiKueueCluster without
    `clusterSource` or with both sources, a v1beta1 one without `kubeConfig` (a `clusterProfileRef` alone too)."""
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: MultiKueueCluster
        metadata: {name: w1}
        spec: {}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: MultiKueueCluster
        metadata: {name: w2}
        spec: {}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ProvisioningRequestConfig
        metadata: {name: p}
        spec: {}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: MultiKueueCluster
        metadata: {name: w3}
        spec: {clusterSource: {kubeConfig: {location: a}, clusterProfileRef: {name: b}}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: MultiKueueCluster
        metadata: {name: w4}
        spec: {clusterProfileRef: {name: b}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: MultiKueueCluster
        metadata: {name: ok}
        spec: {clusterSource: {clusterProfileRef: {name: b}}}
        """)
    assert [(d.code, d.span.line) for d in diags.sorted()] == [
        ("KAD155", 4), ("KAD155", 9), ("KAD155", 14), ("KAD157", 19), ("KAD155", 24)]
