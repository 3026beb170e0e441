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
    "cluster_queue": (("cohort", "namespaces", "queueing", "stop_policy", "admission_checks"),
                      ("namespaces", "preemption", "flavor_fungibility", "fair_sharing", "resources")),
    "namespace": (("labels",), ()),
    "scheduler": (("fair_sharing", "preemption_strategies", "feature_gates"), ()),
    "node": (("labels", "taints", "allocatable", "unschedulable", "ready"), ()),
    "affinity": ((), ("term",)),
    "term": ((), ("match", "match_fields")),
    "match_fields": ((), ("match",)),
    "pod_group": (("count", "min_count", "requests", "node_selector", "tolerations", "topology", "topology_group"),
                  ("affinity",)),
    "admitted": (("cluster_queue", "admitted_at", "admitted_condition"), ("pod_group",)),
    "admitted pod_group": (("count", "flavor", "flavors", "nodes", "delayed"), ()),
    "workload": (("queue", "priority", "created", "active", "finished", "evicted", "duration", "checks"),
                 ("pod_group", "admitted")),
    "admission_check": (("controller", "parameters", "active", "reason"), ("parameters",)),
    "parameters": (("api_group", "kind", "name"), ()),
    "provisioning_config": (("provisioning_class", "parameters", "managed_resources", "pod_set_merge_policy"),
                            ("retry_strategy", "pod_set_updates")),
    "retry_strategy": (("backoff_limit_count", "backoff_base_seconds", "backoff_max_seconds"), ()),
    "pod_set_updates": (("node_selector",), ()),
    "multikueue_config": (("clusters",), ()),
    "multikueue_cluster": (("kubeconfig", "location_type", "cluster_profile", "active"), ()),
}
