"""The preempting GPU state (bench/gpu_states.py) has the intended shape: submitted Jobs read back
without a finding, the same seed writes the same text, and the admitted work holds quota Kueue
would have let it take."""

from collections import Counter
from pathlib import Path

import gpu_states as gs

from kadmit import workspace
from kadmit.engine.quota import QuotaTree, Usage, node_id
from kadmit.index import ModelIndex, admitted_usage


def _load(tmp_path: Path, jobs: int, seed: int):
    gs.write_state(gs.gpu_state(jobs, seed), tmp_path)
    loaded = workspace.load([str(tmp_path)])
    assert [str(d) for d in loaded.diagnostics] == []
    return loaded.model


def test_the_state_reads_back_with_its_shape(tmp_path: Path) -> None:
    model = _load(tmp_path, 400, 3)
    assert len(model.cluster_queues) == 10 and {cq.cohort for cq in model.cluster_queues} == {"org-0", "org-1"}
    assert all((cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort) == ("LowerPriority", "Any")
               for cq in model.cluster_queues)
    assert {cq.queueing_strategy for cq in model.cluster_queues} == {"StrictFIFO", "BestEffortFIFO"}
    assert all(q.lending_limit is not None for cq in model.cluster_queues for g in cq.resource_groups
               for f in g.flavors for q in f.resources)
    assert {p.name: p.value for p in model.priority_classes} == gs.PRIORITIES
    assert len(model.workloads) == 400 and all(w.origin is not None and w.origin.kind == "Job" for w in model.workloads)
    admitted = [w for w in model.workloads if w.admission is not None]
    assert 200 < len(admitted) < 400  # the defaults admit ~280 before the pending ones
    assert {w.priority_class for w in admitted} <= {"low", "mid"}
    pending = [w for w in model.workloads if w.admission is None]
    assert {w.priority_class for w in pending} == {"low", "mid", "high"}
    gpus = Counter(ps.requests["nvidia.com/gpu"] // 1000 * ps.count for w in model.workloads for ps in w.pod_sets)
    assert set(gpus) == {1, 2, 4, 8}
    assert max(w.created for w in admitted) < min(w.created for w in pending)


def test_admitted_work_fits_kueues_quota(tmp_path: Path) -> None:
    model = _load(tmp_path, 300, 5)
    usage = Usage()
    for w in model.workloads:
        if w.admission is not None:
            usage.add(w.admission.cluster_queue, admitted_usage(w))
    tree = QuotaTree(ModelIndex(model))
    borrowing = 0
    for cq in model.cluster_queues:
        for fr in tree.nodes[node_id(cq.name, False)].quotas:
            assert tree.available(node_id(cq.name, False), fr, usage) >= 0, (cq.name, fr)
            borrowing += usage.get(cq.name, fr) > tree.entry(node_id(cq.name, False), fr).nominal
    assert borrowing  # some queues borrow what others lend


def test_the_same_seed_writes_the_same_state() -> None:
    assert gs.gpu_state(120, 7) == gs.gpu_state(120, 7) != gs.gpu_state(120, 8)
