"""The `kubectl get` path's batches (live.read, where `kubectl proxy` won't start): a batch kubectl could list only
in part, because some of its kinds may not be listed cluster-wide, gives each kind what its own `kubectl get` gives
(objects, or the refusal, its budget charged alike) without a kubectl per kind; any other failure is listed kind by
kind. kubectl here is a shell program answering as kubectl v1.35.3 does (`get` goes on past a kind's error: the
others' objects on standard output, a line per refused kind on standard error); tests/kube/test_live.py reads a
real API server both ways."""

from __future__ import annotations

import json
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kadmit.live import kubectl as k
from kadmit.live import read
from kadmit.live.discover import Target

JOBS = Target("batch", "Job", "jobs", "v1", True)
NODES = Target("", "Node", "nodes", "v1", False)
QUEUES = Target("kueue.x-k8s.io", "ClusterQueue", "clusterqueues", "v1beta2", False)
FLAVORS = Target("kueue.x-k8s.io", "ResourceFlavor", "resourceflavors", "v1beta2", False)
OBJECTS = {JOBS: [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "a"}}],
           QUEUES: [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": q}}
                    for q in ("x", "y")], FLAVORS: []}


def refusal(t: Target, user: str = "u") -> str:
    return (f'Error from server (Forbidden): {".".join(filter(None, (t.resource, t.group)))} is forbidden: User '
            f'"{user}" cannot list resource "{t.resource}" in API group "{t.group}" at the cluster scope')


def kubectl(tmp_path: Path, refused: dict[Target, str]) -> k.Kubectl:
    """kubectl's answers to `get` of the kinds above, one by one or several at once, `refused` those of NODES
    and JOBS given (the line kubectl prints); each run is logged to tmp_path/runs."""
    def listing(kinds: list[Target]) -> str:
        docs = [d for t in kinds if t not in refused for d in OBJECTS.get(t, [])]
        return json.dumps({"apiVersion": "v1", "items": docs, "kind": "List", "metadata": {"resourceVersion": ""}},
                          indent=4) + "\n" if docs else read.EMPTY_LIST
    cases = []
    for kinds in ([JOBS], [NODES], [QUEUES], [FLAVORS], [JOBS, NODES], [QUEUES, FLAVORS],
                  [JOBS, NODES, QUEUES, FLAVORS]):
        name = ",".join(t.qualified for t in kinds)
        (tmp_path / f"{name}.out").write_text(listing(kinds))
        (tmp_path / f"{name}.err").write_text("".join(refused[t] + "\n" for t in kinds if t in refused))
        code = 1 if any(t in refused for t in kinds) else 0
        cases.append(f'  {name}) cat "{tmp_path}/{name}.out"; cat "{tmp_path}/{name}.err" >&2; exit {code};;')
    path = tmp_path / "kubectl"
    path.write_text(f'#!/bin/sh\necho "$2" >> "{tmp_path}/runs"\ncase "$2" in\n' + "\n".join(cases) + "\nesac\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return k.Kubectl(str(path))


def both_ways(kube: k.Kubectl, targets: list[Target], monkeypatch,
              limit: int = 1 << 20) -> tuple[list, list, list[int], list[int]]:
    """The kinds listed in one batch and one by one, each held to `limit` bytes, and what each way charged the
    budgets of the kinds that failed (listed again namespace by namespace within what is left)."""
    monkeypatch.setattr(read, "BATCHES", 1)
    by_batch, alone = ({t: k.Budget(limit) for t in targets} for _ in range(2))
    with ThreadPoolExecutor(4) as pool:
        batched = read._list_all(kube, pool, targets, by_batch)
    single = [read._list(kube, t, alone[t]) for t in targets]
    failed = [t for t, got in zip(targets, single) if got.failed]
    return batched, single, [by_batch[t].used for t in failed], [alone[t].used for t in failed]


def test_a_batch_with_kinds_refused_cluster_wide_gives_each_kind_its_own_gets_outcome(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    targets = [JOBS, NODES, QUEUES, FLAVORS]
    kube = kubectl(tmp_path, {NODES: refusal(NODES), JOBS: refusal(JOBS)})
    batched, single, charged, charged_alone = both_ways(kube, targets, monkeypatch)
    assert batched == single and charged == charged_alone
    assert [(t.forbidden, t.count) for t in batched] == [(True, 0), (True, 0), (False, 2), (False, 0)]
    assert batched[1].failed.startswith('nodes is forbidden: User "u" cannot list resource "nodes"')
    runs = (tmp_path / "runs").read_text().split()
    assert runs[:1] == [",".join(t.qualified for t in targets)] and len(runs) == 1 + len(targets)  # one batch run


def test_a_batch_larger_than_a_kinds_limit_cuts_the_kinds_whose_own_get_would_print_more(tmp_path: Path,
                                                                                         monkeypatch) -> None:
    """Each kind is held to `--max-file-size` as its own `kubectl get` prints it: a batch within the kinds' limits
    together is read whole and each kind's own print measured (`read._printed`, `read._alone`): over its limit
    by a byte, that kind alone is cut; a batch past the limits together (some kind must be over) is listed in
    halves, and so on. The limits: a kind's own print exactly (it is read), the batch's together; a little less
    (the half with the Jobs is read whole, the other half kind by kind); an empty List's (kind by kind)."""
    targets = [JOBS, NODES, QUEUES, FLAVORS]
    kube = kubectl(tmp_path, {NODES: refusal(NODES)})
    jobs, queues = (len((tmp_path / f"{t.qualified}.out").read_text()) for t in (JOBS, QUEUES))
    whole = len((tmp_path / f"{','.join(t.qualified for t in targets)}.out").read_text())
    assert whole // 4 - 2 >= (jobs + 1) // 2 and queues > 2 * (whole // 4 - 2)  # the halves' limits, below
    for limit, batched_runs in ((jobs, 1), (whole // 4 + 1, 1), (whole // 4 - 2, 1 + 2 + 2), (read._alone([]), 7)):
        (tmp_path / "runs").unlink(missing_ok=True)
        batched, single, charged, charged_alone = both_ways(kube, targets, monkeypatch, limit)
        assert batched == single and charged == charged_alone
        assert len((tmp_path / "runs").read_text().split()) == batched_runs + len(targets), limit  # and one by one
        assert [t.cut is not None for t in batched] == [limit < jobs, False, limit < queues, False], limit


def test_a_batch_failing_otherwise_is_listed_kind_by_kind(tmp_path: Path, monkeypatch) -> None:
    """A refusal in other words (an authorizer's own reason after RBAC's), or a line kubectl added (a warning), is
    not attributed to a kind: the batch's kinds are asked one by one, as before."""
    targets = [JOBS, NODES, QUEUES, FLAVORS]
    for said in (refusal(NODES) + ": denied by the policy webhook", "Warning: a warning\n" + refusal(NODES)):
        (tmp_path / "runs").unlink(missing_ok=True)
        kube = kubectl(tmp_path, {NODES: said})
        batched, single, charged, charged_alone = both_ways(kube, targets, monkeypatch)
        assert batched == single and charged == charged_alone
        assert len((tmp_path / "runs").read_text().split()) == 1 + 2 * len(targets)  # the batch, again one by one
