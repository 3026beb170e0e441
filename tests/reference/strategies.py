"""Hypothesis strategies for admission models: cohort trees, quotas, admitted usage, pending workloads.

Shared by the reference's property tests and the differential tests of the Z3 engine. Import as
`from reference.strategies import admission_models` (with `tests/` on `sys.path`, as pytest
arranges for `tests/reference`) or `from tests.reference.strategies import ...`.

- `admission_models(...)` draws a whole `Model`: up to `max_cohorts` cohorts (a forest: each
  cohort's parent is an earlier one or none; some carry their own quota), up to `max_queues`
  cluster queues (each in a random cohort or none, one resource group over `cpu` and
  `nvidia.com/gpu` with one or two of the flavors `f` and `g`, nominal quotas 0–8 units, random
  borrowing and lending limits, either queueing strategy and either fungibility policy, a namespace
  selector on `team`), a LocalQueue per queue per namespace, admitted workloads within their
  queue's nominal quota (so every quota starts respected), and up to `max_workloads` pending workloads (one or two pod sets,
  counts 1–4 with optional `min_count`, priorities 0–3, creation minutes 0–30, node selectors on
  `model` and a toleration of flavor `g`'s `spot` taint drawn at random).
- `quota_trees(...)` is the same without workloads, for quota arithmetic alone.

Flavor `f` has labels `model=a`; flavor `g` has `model=b` and the taint `spot=true:NoSchedule`.
Quantities are milli-units, whole units only, so printed quantities stay small integers.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from kadmit.model import (Admission, ClusterQueue, Cohort, FlavorFungibility, FlavorQuotas, LabelSelector,
                          LocalQueue, Model, Namespace, PodSet, PodSetAssignment, ResourceFlavor, ResourceGroup,
                          ResourceQuota, Taint, Toleration, Workload)

RESOURCES = ("cpu", "nvidia.com/gpu")
FLAVORS = (
    ResourceFlavor(name="f", node_labels={"model": "a"}),
    ResourceFlavor(name="g", node_labels={"model": "b"},
                   node_taints=(Taint(key="spot", value="true", effect="NoSchedule"),)),
)
NAMESPACES = (Namespace(name="ns-a", labels={"team": "a"}), Namespace(name="ns-b", labels={"team": "b"}))
T0 = datetime(2026, 11, 20, tzinfo=timezone.utc)
UNIT = 1000


def _limit(draw, high: int) -> int | None:
    return draw(st.one_of(st.none(), st.integers(0, high).map(lambda v: v * UNIT)))


@st.composite
def resource_group(draw, flavors: tuple[str, ...], max_nominal: int = 8, limits: bool = True) -> ResourceGroup:
    fqs = []
    for name in flavors:
        quotas = []
        for res in RESOURCES:
            quotas.append(ResourceQuota(
                resource=res, nominal=draw(st.integers(0, max_nominal)) * UNIT,
                borrowing_limit=_limit(draw, 6) if limits else None,
                lending_limit=_limit(draw, 6) if limits else None))
        fqs.append(FlavorQuotas(flavor=name, resources=tuple(quotas)))
    return ResourceGroup(covered_resources=RESOURCES, flavors=tuple(fqs))


@st.composite
def quota_trees(draw, max_cohorts: int = 3, max_queues: int = 4) -> Model:
    """Cohorts and cluster queues with quotas; no workloads."""
    n_cohorts = draw(st.integers(0, max_cohorts))
    cohorts = []
    for i in range(n_cohorts):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None
        groups = (draw(resource_group(("f", "g"), 4)),) if draw(st.booleans()) else ()
        cohorts.append(Cohort(name=f"c{i}", parent=None if parent is None else f"c{parent}",
                              resource_groups=groups))
    queues = []
    for i in range(draw(st.integers(1, max_queues))):
        flavors = draw(st.sampled_from((("f",), ("g",), ("f", "g"), ("g", "f"))))
        cohort = draw(st.one_of(st.none(), st.integers(0, n_cohorts - 1))) if n_cohorts else None
        team = draw(st.sampled_from(("a", "b", None)))
        queues.append(ClusterQueue(
            name=f"q{i}", cohort=None if cohort is None else f"c{cohort}",
            resource_groups=(draw(resource_group(flavors)),),
            namespace_selector=LabelSelector(match_labels={"team": team} if team else {}),
            queueing_strategy=draw(st.sampled_from(("BestEffortFIFO", "StrictFIFO"))),
            flavor_fungibility=FlavorFungibility(when_can_borrow=draw(st.sampled_from(("Borrow", "TryNextFlavor")))),
        ))
    lqs = tuple(LocalQueue(namespace=ns.name, name=q.name, cluster_queue=q.name) for ns in NAMESPACES for q in queues)
    return Model(flavors=FLAVORS, cohorts=tuple(cohorts), cluster_queues=tuple(queues), local_queues=lqs,
                 namespaces=NAMESPACES)


@st.composite
def pod_sets(draw, max_pod_sets: int = 2, max_units: int = 4) -> tuple[PodSet, ...]:
    out = []
    for i in range(draw(st.integers(1, max_pod_sets))):
        count = draw(st.integers(1, 4))
        min_count = draw(st.one_of(st.none(), st.integers(1, count)))
        requests = {res: draw(st.integers(0, max_units)) * UNIT for res in RESOURCES if draw(st.booleans())}
        out.append(PodSet(
            name=f"p{i}", count=count, min_count=min_count, requests=requests,
            node_selector=draw(st.sampled_from(({}, {}, {"model": "a"}, {"model": "b"}))),
            tolerations=(Toleration(key="spot", operator="Exists"),) if draw(st.booleans()) else ()))
    return tuple(out)


@st.composite
def admission_models(draw, max_cohorts: int = 3, max_queues: int = 4, max_workloads: int = 8,
                     max_admitted: int = 3) -> Model:
    """A whole model: quota tree, admitted usage within quota, pending workloads."""
    model = draw(quota_trees(max_cohorts, max_queues))
    queues = model.cluster_queues
    workloads = []
    left = {(cq.name, fq.flavor, r.resource): r.nominal
            for cq in queues for fq in cq.resource_groups[0].flavors for r in fq.resources}
    for i in range(draw(st.integers(0, max_admitted))):
        cq = draw(st.sampled_from(queues))
        flavor = draw(st.sampled_from([fq.flavor for fq in cq.resource_groups[0].flavors]))
        res = draw(st.sampled_from(RESOURCES))
        # within what is left of the queue's own nominal, so every quota starts respected
        amount = draw(st.integers(0, left[(cq.name, flavor, res)] // UNIT)) * UNIT
        left[(cq.name, flavor, res)] -= amount
        ps = PodSet(name="main", count=1, requests={res: amount})
        workloads.append(Workload(
            namespace="ns-a", name=f"adm{i}", queue=cq.name, created=T0,
            pod_sets=(ps,), admission=Admission(cluster_queue=cq.name, pod_sets=(
                PodSetAssignment(name="main", count=1, flavors={res: flavor}),))))
    for i in range(draw(st.integers(0, max_workloads))):
        cq = draw(st.sampled_from(queues))
        workloads.append(Workload(
            namespace=draw(st.sampled_from(("ns-a", "ns-b"))), name=f"w{i}", queue=cq.name,
            priority=draw(st.integers(0, 3)), created=T0 + timedelta(minutes=draw(st.integers(0, 30))),
            pod_sets=draw(pod_sets())))
    return model.model_copy(update={"workloads": tuple(workloads)})
