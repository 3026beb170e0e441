"""Admission fair sharing (`engine.afs`): a ClusterQueue with admissionScope
UsageBasedAdmissionFairSharing takes its workloads lowest LocalQueue usage first; each admission
adds an entry penalty to its LocalQueue; preemption takes the candidate of the LocalQueue that used
more first. The same files are decided by Kueue's own code in tests/oracle (features/admission-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace
from kadmit.engine.afs import AdmissionFairSharing
from kadmit.engine.decide import admit, why

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"

HEAD = """
apiVersion: v1
kind: List
items:
- apiVersion: config.kueue.x-k8s.io/v1beta2
  kind: Configuration
  admissionFairSharing: {AFS}
- {apiVersion: v1, kind: Namespace, metadata: {name: team}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: default}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: shared}
  spec:
    namespaceSelector: {}
    admissionScope: {admissionMode: MODE}
    resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default, resources: [{name: cpu, nominalQuota: "1"}]}]
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata: {name: used, namespace: team}
  spec: {clusterQueue: shared, fairSharing: {weight: "WEIGHT"}}
  status: {fairSharing: {admissionFairSharingStatus: {consumedResources: {cpu: "3"}, lastUpdate: "2026-11-01T00:00:00Z"}}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata: {name: fresh, namespace: team}
  spec: {clusterQueue: shared}
  status: {fairSharing: {admissionFairSharingStatus: {consumedResources: {cpu: "1"}, lastUpdate: "2026-11-01T00:00:00Z"}}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata: {name: older, namespace: team, creationTimestamp: "2026-11-01T00:00:00Z"}
  spec: {queueName: used, podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata: {name: newer, namespace: team, creationTimestamp: "2026-11-01T00:05:00Z"}
  spec: {queueName: fresh, podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]}
"""


def _model(tmp_path, afs="{usageHalfLifeTime: 168h}", mode="UsageBasedAdmissionFairSharing", weight="1"):
    path = tmp_path / "afs.yaml"
    path.write_text(HEAD.replace("{AFS}", afs).replace("MODE", mode).replace("WEIGHT", weight))
    ws = workspace.load([str(path)])
    assert not ws.diagnostics.has_errors, [d.message for d in ws.diagnostics]
    return ws.model


def _admitted(model) -> set[str]:
    return {d.key for d in admit(model).decisions if d.admitted}


def test_the_queue_that_used_less_goes_first(tmp_path):
    model = _model(tmp_path)
    assert _admitted(model) == {"team/newer"}
    s = why(model, "team/older").standing
    assert s is not None and (s.position, s.pending) == (0, 1)


def test_without_the_configuration_or_the_queue_mode_it_is_first_come(tmp_path):
    assert _admitted(_model(tmp_path, mode="NoAdmissionFairSharing")) == {"team/older"}
    path = tmp_path / "plain.yaml"
    path.write_text(HEAD.replace("  admissionFairSharing: {AFS}\n", "").replace("MODE", "UsageBasedAdmissionFairSharing")
                    .replace("WEIGHT", "1"))
    assert _admitted(workspace.load([str(path)]).model) == {"team/older"}


def test_a_local_queue_weight_divides_its_usage(tmp_path):
    # `used`: 3 cpu / weight 4 = 0.75 < `fresh`'s 1
    assert _admitted(_model(tmp_path, weight="4")) == {"team/older"}


def test_resource_weights_weigh_each_resource(tmp_path):
    # cpu weighs nothing: both queues at 0, so first come first served
    assert _admitted(_model(tmp_path, afs="{usageHalfLifeTime: 168h, resourceWeights: {cpu: 0}}")) == {"team/older"}


def test_the_reading_of_the_configuration_and_queues(tmp_path):
    model = _model(tmp_path, afs="{usageHalfLifeTime: 1h, usageSamplingInterval: 1m, resourceWeights: {cpu: 2.5}}",
                   weight="500m")
    cfg = model.config.admission_fair_sharing
    assert (cfg.usage_half_life_ms, cfg.usage_sampling_interval_ms, cfg.resource_weights) == (3_600_000, 60_000,
                                                                                               {"cpu": 2.5})
    lq = {q.name: q for q in model.local_queues}
    assert lq["used"].afs_consumed == {"cpu": 3000} and lq["used"].fair_sharing.weight == 500
    assert [cq.admission_fair_sharing for cq in model.cluster_queues] == [True]
    afs = AdmissionFairSharing(model)
    assert afs.usage("team/used") == pytest.approx(2.5 * 3 / 0.5) and afs.usage("team/none") == 0.0


def test_an_admission_adds_the_entry_penalty_kueue_adds():
    """alpha = 1 - 0.5^(sampling / half-life); milli-units truncated as resource.MulByFloat does."""
    model = workspace.load([str(FEATURES / "admission-fair-sharing.yaml")]).model
    afs = AdmissionFairSharing(model)
    wl = next(w for w in model.workloads if w.name == "from-light")
    before = afs.usage("team/light")
    afs.admitted(wl, "shared")
    alpha = 1 - 0.5 ** (300 / (168 * 3600))
    assert afs.penalties["team/light"] == {"cpu": int(4000 * alpha)}
    assert afs.usage("team/light") == pytest.approx(before + int(4000 * alpha) / 1000)


@pytest.mark.parametrize("afs, message", [
    ("{usageHalfLifeTime: soon}", "Kueue refuses to start with this Configuration: `time: invalid duration \"soon\"`"),
    ("{usageHalfLifeTime: 1h, resourceWeights: {cpu: -1}}", "`resourceWeights.cpu` must be greater than or equal to 0"),
])
def test_settings_kueue_refuses_are_errors(tmp_path, afs, message):
    path = tmp_path / "afs.yaml"
    path.write_text(HEAD.replace("{AFS}", afs).replace("MODE", "UsageBasedAdmissionFairSharing").replace("WEIGHT", "1"))
    ws = workspace.load([str(path)])
    assert any(message in d.message for d in ws.diagnostics), [d.message for d in ws.diagnostics]


def test_preemption_takes_the_heavier_queue_first():
    model = workspace.load([str(FEATURES / "admission-fair-sharing-preemption.yaml")]).model
    [d] = [d for d in admit(model).decisions if d.key == "team/urgent"]
    assert d.admitted and [v.key for v in d.preempted] == ["team/running-heavy"]


def test_queues_take_turns_as_penalties_add_up():
    model = workspace.load([str(FEATURES / "admission-fair-sharing-cycles.yaml")]).model
    got = sorted((d.cycle, d.key) for d in admit(model).decisions if d.admitted)
    assert [k for _, k in got] == ["team/light-1", "team/light-2", "team/double-1", "team/double-2", "team/heavy-1"]


def test_a_lighter_queue_goes_before_the_preemptor_waiting_for_its_victim():
    """Kueue's queueOrderingFunc puts the LocalQueue's usage before the sticky preemptor: the victim,
    from the lighter queue, is admitted again before the preemptor, which evicts it again (a loop,
    as in Kueue's own run of the file)."""
    model = workspace.load([str(FEATURES / "admission-fair-sharing-sticky.yaml")]).model
    result = admit(model)
    assert {d.key: d.unknown for d in result.decisions} == {"team/high": True, "team/low": True}
    assert not any(d.admitted and not d.unknown for d in result.decisions)


STALL = FEATURES / "admission-fair-sharing-holder-without-local-queue.yaml"


def _stall_variant(tmp_path, old: str, new: str):
    path = tmp_path / "variant.yaml"
    text = STALL.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return workspace.load([str(path)]).model


def test_a_holder_without_its_local_queue_stops_every_cycle():
    """Kueue's snapshot reads the LocalQueue of every Workload holding quota in an active ClusterQueue under
    admission fair sharing; team/old's `gone` doesn't exist, so every cycle fails: nothing is admitted in any
    ClusterQueue (KAD542, naming the holder)."""
    result = admit(workspace.load([str(STALL)]).model)
    assert {d.key: d.admitted for d in result.decisions} == {"team/fits": False, "team/other": False}
    for d in result.decisions:
        [r] = result.reasons[d.key]
        assert r.code == "KAD542" and "Workload team/old holds quota in ClusterQueue shared" in r.message
        assert "LocalQueue gone, which doesn't exist" in r.message


@pytest.mark.parametrize("old, new", [
    ("queueName: gone", "queueName: lq"),  # the LocalQueue exists
    ("    admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n", ""),  # no admission fair sharing
    ("    admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n",  # an inactive queue: not in the snapshot
     "    admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n    stopPolicy: Hold\n"),
])
def test_kueue_schedules_where_no_such_holder_is_read(tmp_path, old, new):
    result = admit(_stall_variant(tmp_path, old, new))
    assert "team/other" in {d.key for d in result.decisions if d.admitted}
    assert not any(r.code == "KAD542" for rs in result.reasons.values() for r in rs)


def test_check_warns_of_the_stall_as_admit_does(tmp_path):
    """`kadmit check` reports KAD542 by the engine's rule (`engine.admission.stalls`), at the holder's admission,
    and not where Kueue schedules (the LocalQueue there, or no admission fair sharing)."""
    from kadmit.api import check

    [d] = [d for d in check([str(STALL)]).diagnostics if d.code == "KAD542"]
    assert d.severity == "warning" and "Workload team/old holds quota in ClusterQueue shared" in d.message
    assert d.span is not None and d.span.file.endswith(STALL.name) and "create the LocalQueue" in d.help
    for old, new in [("queueName: gone", "queueName: lq"),
                     ("    admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n", "")]:
        path = tmp_path / "variant.yaml"
        path.write_text(STALL.read_text().replace(old, new, 1))
        assert not any(d.code == "KAD542" for d in check([str(path)]).diagnostics)


def test_why_decides_the_stall_as_admit_does():
    """`why` decides only its workload's part of the cluster; the stall is the whole cluster's: `other`, in a
    ClusterQueue of its own, waits for it too (it was explained as admitted)."""
    result = why(workspace.load([str(STALL)]).model, "team/other")
    assert not result.decision.admitted
    assert any(r.code == "KAD542" for r in result.reasons)
