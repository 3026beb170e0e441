"""Compiled shapes and their answers kept across sessions over states of one policy (`ShapeCache`),
keyed by what compiling reads of a model: its policy without workloads, pods and nodes, and without
the quota numbers a question pins (`Problem.number_values`)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from kadmit.model import Model, Workload


class _Same:
    __slots__ = ("obj", "h")

    def __init__(self, obj, h: int) -> None:
        self.obj, self.h = obj, h

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other) -> bool:
        return isinstance(other, _Same) and (self.obj is other.obj or self.obj == other.obj)


@dataclass
class ShapeCache:
    """Compiled shapes and their answers, shared by sessions over states of one policy (policy tests,
    diffs): a question asked again in another state is answered from here. Shapes are keyed by the
    policy (everything but workloads, pods and nodes), the solver units, and the workload itself."""

    shapes: OrderedDict = field(default_factory=OrderedDict)
    memo: dict = field(default_factory=dict)
    policies: dict = field(default_factory=dict)  # id(model) -> (model, policy key)
    workloads: dict = field(default_factory=dict)  # id(workload) -> _Same
    rests: dict = field(default_factory=dict)  # id(model) -> (model, queues key)

    def same(self, wl: Workload) -> "_Same":
        """`wl` as a key whose hash is computed once (model objects hash deeply)."""
        got = self.workloads.get(id(wl))
        if got is None or got.obj is not wl:
            got = self.workloads[id(wl)] = _Same(wl, hash(wl))
        return got

    def queues_key(self, model: Model) -> int:
        """`policy_key` without the cluster queues, cohorts and local queues: the key of a shape of a
        queue (`Session._shape`), whose own structure (resource groups, flavors, declared resources,
        stop policies, whether it is inactive or selects the workload's namespace) the shape holds.
        Within one model, workloads of equal shape in different queues share a compiled problem (its
        quota numbers are pinned per question, `Problem.number_values`), so across models what else
        compiling reads is enough: flavors, topologies, namespaces, and the rest of the policy. A
        change to one queue then leaves the other queues' shapes compiled (the re-decisions proving
        `why`'s fixes mostly change one queue)."""
        got = self.rests.get(id(model))
        if got is None or got[0] is not model:
            rest = model.model_copy(update={"workloads": (), "pods": (), "nodes": (), "jobs": (), "skipped": (),
                                            "training_runtimes": (), "external_objects": (), "cluster_queues": (),
                                            "cohorts": (),
                                            "local_queues": ()})
            got = self.rests[id(model)] = (model, hash(rest))
        return got[1]

    def policy_key(self, model: Model) -> int:
        """What compiling reads of a model: everything but workloads, pods, nodes, the jobs they
        were made of and the objects read as neither (the engine reads none of them) and the quota
        numbers (a question pins its queue's numbers, `Problem.number_values`; only which quotas
        are declared is compiled), so the re-decisions of a quota edit share compiled shapes.
        (Hashing 2,000 Jobs deeply was a tenth of a re-decision of gpu_state(2000)'s tree.)"""
        got = self.policies.get(id(model))
        if got is None or got[0] is not model:
            policy = model.model_copy(update={"workloads": (), "pods": (), "nodes": (), "jobs": (), "skipped": (),
                                              "training_runtimes": (), "external_objects": (),
                                              "cluster_queues": tuple(map(_without_numbers, model.cluster_queues)),
                                              "cohorts": tuple(map(_without_numbers, model.cohorts))})
            got = self.policies[id(model)] = (model, hash(policy))
        return got[1]


def _without_numbers(obj):
    """A cluster queue or cohort with every quota number blanked (which quotas it declares kept)."""
    if not obj.resource_groups:
        return obj
    groups = tuple(g.model_copy(update={"flavors": tuple(fq.model_copy(update={"resources": tuple(
        q.model_copy(update={"nominal": 0, "borrowing_limit": None if q.borrowing_limit is None else 0,
                             "lending_limit": None if q.lending_limit is None else 0}) for q in fq.resources)})
        for fq in g.flavors)}) for g in obj.resource_groups)
    return obj.model_copy(update={"resource_groups": groups})
