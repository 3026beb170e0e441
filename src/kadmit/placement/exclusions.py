"""Why the leaves of a topology hold no pod of a pod set: the counts Kueue's topology messages end with
(". Total nodes: 3; excluded: resource \"cpu\": 1"), Kueue v0.17's `ExclusionStats` as
`TASFlavorSnapshot.fillInCounts` gathers them.

Every leaf counts in the total (a node where the hostname is the lowest level, else a rack leaf). On
host leaves the filters come first, in Kueue's order, each excluding the leaf once: its first taint
with effect NoSchedule or NoExecute the pod set doesn't tolerate (named as `Taint.ToString`), the node
selector, the required node affinity. A leaf that passes them (any rack leaf) and where not one pod
fits is counted under its limiting resource: a requested resource the leaf has none of at all, else
the one allowing the fewest pods, ties by name (`Requests.CountInWithLimitingResource`; with two
requested resources both absent from a leaf, Kueue names the one its map gives first, here the first
by name). Nothing is said where nothing was excluded."""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from kadmit.placement.domains import DomainTree
from kadmit.placement.filters import PodTemplate, term_matches, untolerated_taint


def exclusion_stats(tree: DomainTree, template: PodTemplate, free: Mapping[str, Mapping[str, int]] | None) -> str:
    """Kueue's suffix for a topology that doesn't fit `template`'s pods with `free` capacity (node or
    rack-leaf key -> free; the nodes' own where absent): ". Total nodes: N; excluded: …", or ""."""
    total = selector = affinity = 0
    taints: Counter = Counter()
    resources: Counter = Counter()
    per_pod = [(r, q) for r, q in template.requests if q > 0]
    for dom in tree.by_level[-1] if tree.by_level else ():
        total += 1
        if tree.host_lowest:
            node = tree.nodes[dom.nodes[0]]
            taint = untolerated_taint(template, node)
            if taint is not None:
                taints[str(taint)] += 1
                continue
            if not all(node.labels.get(k) == v for k, v in template.node_selector):
                selector += 1
                continue
            if template.node_affinity and not any(term_matches(t, node.labels, node.name)
                                                  for t in template.node_affinity):
                affinity += 1
                continue
        room = tree.leaf_free(dom, free)
        absent = sorted(r for r, _ in per_pod if r not in room)
        if absent:
            resources[absent[0]] += 1
            continue
        # Kueue's count truncates toward zero; a leaf of negative capacity (a negative count) is not excluded
        fits = min(((room[r] // q if room[r] >= 0 else -(-room[r] // q), r) for r, q in per_pod), default=None)
        if fits is not None and fits[0] == 0:
            resources[fits[1]] += 1
    reasons = ([f"nodeSelector: {selector}"] if selector else []) + ([f"affinity: {affinity}"] if affinity else []) \
        + [f'taint "{t}": {n}' for t, n in taints.items()] + [f'resource "{r}": {n}' for r, n in resources.items()]
    if not reasons:
        return ""
    return f". Total nodes: {total}; excluded: {', '.join(sorted(reasons))}"
