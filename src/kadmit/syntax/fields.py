"""The fields and blocks each kind of `.kad` block takes: what lowering reads (any other member is an
unknown field, KAD105) and what an editor offers to complete, from this one table."""

from __future__ import annotations

# block kind -> (fields written `name = value`, blocks written `name { … }`)
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "topology": (("levels",), ()),
    "flavor": (("node_labels", "node_taints", "tolerations", "topology"), ()),
    "fair_sharing": (("weight",), ()),
    "cohort": (("parent",), ("fair_sharing", "resources")),
    "namespaces": (("labels",), ("match",)),
    "preemption": (("within_cluster_queue", "reclaim_within_cohort"), ("borrow_within_cohort",)),
    "borrow_within_cohort": (("policy", "max_priority_threshold"), ()),
    "flavor_fungibility": (("when_can_borrow", "when_can_preempt", "preference"), ()),
    "cluster_queue": (("cohort", "namespaces", "queueing", "stop_policy"),
                      ("namespaces", "preemption", "flavor_fungibility", "fair_sharing", "resources")),
    "namespace": (("labels",), ()),
    "scheduler": (("fair_sharing", "preemption_strategies"), ()),
    "node": (("labels", "taints", "allocatable", "unschedulable", "ready"), ()),
    "affinity": ((), ("term",)),
    "term": ((), ("match",)),
    "pod_group": (("count", "min_count", "requests", "node_selector", "tolerations", "topology", "topology_group"),
                  ("affinity",)),
    "admitted": (("cluster_queue", "admitted_at"), ("pod_group",)),
    "admitted pod_group": (("count", "flavor", "flavors", "nodes"), ()),
    "workload": (("queue", "priority", "created", "active", "finished", "evicted", "duration"), ("pod_group", "admitted")),
}
