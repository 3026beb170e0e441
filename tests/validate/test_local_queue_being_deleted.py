"""A LocalQueue being deleted (metadata.deletionTimestamp, a finalizer holding it): Kueue's queue manager
keeps it and admits its pending workloads as before (tests/oracle/features/local-queue-being-deleted.yaml),
so kadmit reads it so; only where its ClusterQueue has admission checks, whose waiting reservations Kueue's
workload controller takes back ("LocalQueue ... is terminating or missing"), does it say it is not
modelled (KAD161 at the timestamp)."""

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


def test_one_whose_cluster_queue_has_admission_checks_is_reported_not_modelled(tmp_path):
    _, found = _kad161(tmp_path, SETUP + LQ.format(name="going", cq="checked") + LQ.format(name="also", cq="plain"))
    (d,) = found
    assert "local queue `ns/going`" in d.message and "cluster queue `checked` has admission checks" in d.message
    assert d.span.line == 30 and d.span.column == 59  # the first LocalQueue's deletionTimestamp
