"""Admission checks in the `.kad` language: a `.kad` file's checks are the objects the same cluster's
manifests give (one model, kadmit.modelchecks); `kadmit import` writes a manifest cluster's checks
(no KAD920 for them) and the `.kad` decides as the manifests do; `kadmit export` writes them and
reads back to the same model. (tests/kube/test_export_checks.py: the real API server takes the
export; tests/oracle/test_kad_checks.py: Kueue decides the export as kadmit decides the `.kad`.)"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.engine.decide import admit as decide_all
from kadmit.engine.solver.z3backend import Limits
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.render.decisions import admit_json
from kadmit.syntax import parse_text

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from oracle.strategies import clusters  # noqa: E402
GOOD = ROOT / "tests" / "corpus" / "syntax" / "good" / "admission-checks.kad"
# (admission-checks-delay-topology-assignment.yaml holds a flavor naming a missing topology: input
# with errors, which `import` refuses)
FEATURES = sorted(p for p in (ROOT / "tests" / "oracle" / "features").glob("admission-check*.yaml")
                  if p.name != "admission-checks-delay-topology-assignment.yaml")

KAD = """\
flavor f0 {}
flavor f1 {}
admission_check capacity { controller = provisioning_request  parameters = prc }
admission_check approval { controller = "example.com/approval"  active = false  reason = "Waiting" }
admission_check custom {
  controller = example.com/budget
  parameters { api_group = "example.com"  kind = "Budget"  name = "b" }
}
admission_check remote { controller = multikueue  parameters = mkc }
provisioning_config prc {
  provisioning_class   = "queued-provisioning.gke.io"
  parameters           = { ValidUntilSeconds = "3600", "BookingDuration" = "1h" }
  managed_resources    = [nvidia.com/gpu, cpu]
  retry_strategy { backoff_limit_count = 0 }
  pod_set_merge_policy = identical_workload_scheduling_requirements
  pod_set_updates { node_selector = { "b.example.com/pool" = "Pool", "a.example.com/zone" = "Zone" } }
}
multikueue_config mkc { clusters = [w1, w2] }
multikueue_cluster w1 { kubeconfig = "/etc/w1"  location_type = path  active = true }
multikueue_cluster w2 { cluster_profile = "w2" }
cluster_queue q {
  admission_checks = { approval = all, capacity = [f1] }
  resources cpu { flavor f0 { cpu = 1 }  flavor f1 { cpu = 1 } }
}
cluster_queue old { admission_checks = [approval]  resources cpu { flavor f0 { cpu = 1 } } }
"""

YAML = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: capacity}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prc}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: approval}
spec: {controllerName: example.com/approval}
status:
  conditions:
  - {type: Active, status: "False", reason: Waiting, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: custom}
spec:
  controllerName: example.com/budget
  parameters: {apiGroup: example.com, kind: Budget, name: b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: remote}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: mkc}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: prc}
spec:
  provisioningClassName: queued-provisioning.gke.io
  parameters: {ValidUntilSeconds: "3600", BookingDuration: 1h}
  managedResources: [nvidia.com/gpu, cpu]
  retryStrategy: {backoffLimitCount: 0}
  podSetMergePolicy: IdenticalWorkloadSchedulingRequirements
  podSetUpdates:
    nodeSelector:
    - {key: b.example.com/pool, valueFromProvisioningClassDetail: Pool}
    - {key: a.example.com/zone, valueFromProvisioningClassDetail: Zone}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: mkc}
spec: {clusters: [w1, w2]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec: {clusterSource: {kubeConfig: {location: /etc/w1, locationType: Path}}}
status:
  conditions:
  - {type: Active, status: "True", reason: Active, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w2}
spec: {clusterSource: {clusterProfileRef: {name: w2}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: approval}, {name: capacity, onFlavors: [f1]}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: f0, resources: [{name: cpu, nominalQuota: 1}]}
    - {name: f1, resources: [{name: cpu, nominalQuota: 1}]}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: old}
spec:
  namespaceSelector: {}
  admissionChecks: [approval]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: f0, resources: [{name: cpu, nominalQuota: 1}]}
"""


def checks_of(model) -> tuple:
    """What a cluster says about admission checks, in a stable order (spans take no part in equality)."""
    return (sorted(model.admission_checks, key=lambda a: a.name),
            sorted(model.check_configs, key=lambda c: (c.kind, c.name)),
            sorted(((cq.name, cq.admission_checks) for cq in model.cluster_queues)))


def test_a_kad_files_checks_are_the_objects_its_manifests_give() -> None:
    d = Diagnostics()
    kad = merge([parse_text(KAD, "c.kad", d)])
    yml = merge([read_manifest_text(YAML, "c.yaml", d)])
    assert not d.items, [f"{x.code} {x.message}" for x in d.items]
    assert checks_of(kad) == checks_of(yml)
    prc = next(c for c in kad.check_configs if c.kind == "ProvisioningRequestConfig")
    assert prc.pod_set_updates == (("b.example.com/pool", "Pool"), ("a.example.com/zone", "Zone"))  # as written
    assert prc.field_span("provisioning_class").line == 11
    q = next(cq for cq in kad.cluster_queues if cq.name == "q")
    assert [(r.name, r.on_flavors, r.span.line, r.span.column) for r in q.admission_checks] == [
        ("approval", (), 22, 24), ("capacity", ("f1",), 22, 40)]


def test_an_active_condition_without_a_reason_gets_kueues_word() -> None:
    d = Diagnostics()
    kad = merge([parse_text('admission_check a { controller = x  active = true }\n'
                            'admission_check b { controller = x  active = false }\n', "c.kad", d)])
    assert [(a.status_active, a.status_reason) for a in kad.admission_checks] == [(True, "Active"), (False, "Inactive")]


def decisions(model) -> list:
    """kadmit's decisions as JSON; a preemption message's workload UIDs left out (a `.kad` workload has
    none: KAD920), and the job each stands for (a `.kad` workload stands for itself)."""
    text = re.sub(r"\(UID: [^,]*, JobUID: [^)]*\)", "(UIDs)", admit_json(decide_all(model, "ordered", Limits()), []))
    out = json.loads(text)["decisions"]
    for d in out:
        d.pop("object")
    return out


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.stem)
def test_imported_checks_decide_as_the_manifests(tmp_path: Path, path: Path) -> None:
    """Kueue's own decisions on these files are held by tests/oracle/test_admit.py."""
    source = api.load_for_engine([str(path)])
    assert source.exit_code == api.EXIT_OK
    got = api.import_([str(path)], str(tmp_path), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    kept = [d.message for d in got.diagnostics if d.code == "KAD920"]
    assert not [m for m in kept if "check" in m.lower() or "Config" in m or "MultiKueue" in m], kept
    assert api.fmt([str(tmp_path)], "check").exit_code == 0
    back = api.check([str(tmp_path)])
    assert back.exit_code in (0, 1) and not [d for d in back.diagnostics if d.severity.value == "error"]
    assert checks_of(back.workspace.model) == checks_of(source.workspace.model)
    # what the `.kad` language can't say yet (KAD920: a LocalQueue's stopPolicy, a LimitRange, a retry time) changes
    # decisions; tests/oracle/test_kad_checks.py compares those clusters' `.kad` with Kueue
    if any(w in m for m in kept for w in ("stop policy", "LimitRange", "RuntimeClass", "recorded usage", "retry time")):
        return
    assert [m for m in kept if "UIDs" not in m] == []
    assert decisions(back.workspace.model) == decisions(source.workspace.model)


def test_export_writes_every_check_object_and_reads_back_the_same(tmp_path: Path) -> None:
    got = api.export([str(GOOD)], str(tmp_path), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    assert not [d for d in got.diagnostics if d.code == "KAD901" and "left out" in d.message and "node" not in d.message]
    text = (tmp_path / "12-admission-checks.yaml").read_text()
    for kind in ("AdmissionCheck", "ProvisioningRequestConfig", "MultiKueueConfig", "MultiKueueCluster"):
        assert f"kind: {kind}\n" in text
    source = api.load_for_engine([str(GOOD)]).workspace.model
    back = api.check([str(tmp_path)]).workspace.model
    assert checks_of(back) == checks_of(source)
    assert decisions(back) == decisions(source)


def test_import_of_the_export_gives_back_the_kad(tmp_path: Path) -> None:
    """`.kad` -> manifests -> `.kad`: the same checks, queues and check states, written the same way."""
    api.export([str(GOOD)], str(tmp_path / "yaml"), workloads=True)
    got = api.import_([str(tmp_path / "yaml")], str(tmp_path / "kad"), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    checks = (tmp_path / "kad" / "checks.kad").read_text()
    assert "parameters = gpu-capacity\n" in checks and 'reason = "BudgetExhausted"' in checks
    assert "admission_checks = { approval = all, capacity = [spot] }" in (tmp_path / "kad" / "queues.kad").read_text()
    workloads = (tmp_path / "kad" / "workloads.kad").read_text()
    assert "checks  = { approval = ready, capacity = pending }" in workloads and "admitted_condition = true" in workloads
    back = api.check([str(tmp_path / "kad")]).workspace.model
    source = api.load_for_engine([str(GOOD)]).workspace.model
    assert checks_of(back) == checks_of(source)
    assert [(w.key, w.check_states) for w in sorted(back.workloads, key=lambda w: w.key)] == \
        [(w.key, w.check_states) for w in sorted(source.workloads, key=lambda w: w.key)]


# the soak generator's clusters with admission checks, over the switches a `.kad` file says whole
_CHECKED = clusters(frozenset({
    "admission_checks", "flavors", "cohorts", "borrowing_limit", "preemption", "priorities", "admitted",
    "partial_admission", "memory", "strict_fifo", "stop_policy", "inactive"})).filter(
    lambda c: any(f.startswith("check=") for f in c.features))


@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cluster=_CHECKED)
def test_generated_clusters_with_checks_import_and_decide_the_same(tmp_path_factory, cluster) -> None:
    folder = tmp_path_factory.mktemp("checks")
    (folder / "cluster.yaml").write_text(cluster.text())
    source = api.load_for_engine([str(folder / "cluster.yaml")])
    if source.exit_code != api.EXIT_OK:
        return
    got = api.import_([str(folder / "cluster.yaml")], str(folder / "kad"), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    kept = [d.message for d in got.diagnostics if d.code == "KAD920" and "UIDs" not in d.message]
    back = api.check([str(folder / "kad")]).workspace.model
    assert checks_of(back) == checks_of(source.workspace.model)
    assert [(w.key, w.check_states) for w in sorted(back.workloads, key=lambda w: w.key)] == \
        [(w.key, w.check_states) for w in sorted(source.workspace.model.workloads, key=lambda w: w.key)]
    if any("stop policy" in m for m in kept):  # a LocalQueue's stopPolicy has no `.kad` form
        return
    assert kept == []
    assert decisions(back) == decisions(source.workspace.model), cluster.text()
