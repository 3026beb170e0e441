"""A LocalQueue being deleted (metadata.deletionTimestamp, a finalizer holding it): Kueue's queue manager
keeps it and admits its pending workloads as before (tests/oracle/features/local-queue-being-deleted.yaml),
so kadmit reads it so; where its ClusterQueue has admission checks, Kueue's workload controller takes back
the reservations waiting for them ("LocalQueue ... is terminating or missing") and the scheduler reserves
them again, over and over (local-queue-being-deleted-with-admission-checks.yaml): modelled, no KAD161."""

from __future__ import annotations

from kadmit.workspace import load

SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: approval}
spec: {controllerName: example.com/approval}
status:
  conditions:
  - {type: Active, status: 'True', reason: Active, message: ok, lastTransitionTime: '2026-11-01T00:00:00Z'}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: plain}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: '2'}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: checked}
spec:
  namespaceSelector: {}
  admissionChecksStrategy: {admissionChecks: [{name: approval}]}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: '2'}]}]}]
"""
LQ = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {name}, namespace: ns, deletionTimestamp: '2026-11-01T00:07:00Z', finalizers: [example.com/hold]}}
spec: {{clusterQueue: {cq}}}
"""


def _kad161(tmp_path, text):
    (tmp_path / "in.yaml").write_text(text)
    loaded = load([str(tmp_path / "in.yaml")])
    return loaded, [d for d in loaded.diagnostics if d.code == "KAD161"]


def test_a_local_queue_being_deleted_is_read_as_kueue_keeps_it(tmp_path):
    loaded, found = _kad161(tmp_path, SETUP + LQ.format(name="going", cq="plain"))
    assert found == [] and [q.deleting for q in loaded.model.local_queues] == [True]


WORKLOAD = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, uid: 00000000-0000-0000-0000-00000000000{uid}, creationTimestamp: '2026-11-01T00:00:0{uid}Z'}}
spec:
  queueName: {queue}
  podSets: [{{name: main, count: 2, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: '1'}}}}}}]}}}}}}]
"""
HELD = """\
status:
  admission:
    clusterQueue: checked
    podSetAssignments: [{{name: main, count: 2, flavors: {{cpu: f0}}, resourceUsage: {{cpu: '2'}}}}]
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-11-01T00:05:00Z'}}
{admitted}  admissionChecks:
  - {{name: approval, state: {state}, message: m, lastTransitionTime: '2026-11-01T00:06:00Z'}}
"""
ADMITTED = "  - {type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2026-11-01T00:06:00Z'}\n"
STAYS = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: stays, namespace: ns}
spec: {clusterQueue: checked}
"""


def test_one_whose_cluster_queue_has_admission_checks_is_modelled(tmp_path):
    """Its workloads waiting for checks lose their reservation (`effective.drained`), as Kueue's workload
    controller takes it back ("LocalQueue ... is terminating or missing"); one Admitted keeps it, and so does
    one of another LocalQueue."""
    from kadmit.effective import effective

    text = (SETUP + LQ.format(name="going", cq="checked") + STAYS
            + WORKLOAD.format(name="waits", uid=1, queue="going") + HELD.format(admitted="", state="Pending")
            + WORKLOAD.format(name="runs", uid=2, queue="going") + HELD.format(admitted=ADMITTED, state="Ready")
            + WORKLOAD.format(name="other", uid=3, queue="stays") + HELD.format(admitted="", state="Pending"))
    loaded, found = _kad161(tmp_path, text)
    assert found == []
    held = {w.name: w.admission is not None for w in effective(loaded.model).workloads}
    assert held == {"waits": False, "runs": True, "other": True}


def test_its_reservation_waiting_for_checks_is_given_again_and_never_admitted(tmp_path):
    """The engine reserves the quota again (Kueue's queue manager keeps the LocalQueue) and says the
    workload is never admitted; a workload of another LocalQueue waiting for the same check is not told so."""
    from kadmit.engine.admission.checks import TAKEN_BACK
    from kadmit.engine.decide import admit

    text = (SETUP + LQ.format(name="going", cq="checked") + STAYS
            + WORKLOAD.format(name="waits", uid=1, queue="going") + HELD.format(admitted="", state="Pending")
            + WORKLOAD.format(name="next", uid=2, queue="stays"))
    loaded, _ = _kad161(tmp_path, text)
    decisions = {d.key: d for d in admit(loaded.model).decisions}
    waits, nxt = decisions["ns/waits"], decisions["ns/next"]
    assert waits.admitted and waits.waiting_checks == ("approval",) and TAKEN_BACK in waits.notes
    assert not nxt.admitted  # the 2 cpu are held by ns/waits, as Kueue's scheduler meets them
