"""Placement foundations: node inventory, kube-scheduler filters, node classes, topology domains.

Solver-independent: the engine encodes placement over `node_classes` and `build_domains`;
`reference` is the brute-force oracle it is tested against, and `tas.kueue_assign` is Kueue's
own greedy topology assignment.
"""

from kadmit.placement import codes as _codes  # noqa: F401  (registers KAD600-KAD619)
from kadmit.placement.classes import NodeClass, node_classes, relevant_label_keys
from kadmit.placement.domains import (Domain, DomainTree, build_domains, domain_fits, fits_count,
                                      node_fit_count, topology_view)
from kadmit.placement.filters import PodTemplate, capacity_holders, filter_node, histogram, reason_counts
from kadmit.placement.inventory import Inventory, NodeState, build_inventory, model_inventory, pod_usage
from kadmit.placement.tas import TASResult, kueue_assign

__all__ = [
    "Domain", "DomainTree", "Inventory", "NodeClass", "NodeState", "PodTemplate", "TASResult",
    "build_domains", "capacity_holders", "build_inventory", "domain_fits", "filter_node", "fits_count", "histogram",
    "kueue_assign", "model_inventory", "node_classes", "node_fit_count", "pod_usage",
    "reason_counts", "relevant_label_keys", "topology_view",
]
