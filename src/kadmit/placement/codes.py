"""Diagnostic codes of placement (KAD600-KAD619)."""

from __future__ import annotations

from kadmit.diagnostics import register

KAD600 = register(
    "KAD600", "pod bound to an unknown node", "warning",
    "A bound pod names a node (`spec.nodeName`) that is not among the nodes read. Its requests "
    "hold no node's capacity, so the placement may think a node freer than it is; export the "
    "node too, or drop the pod.")
KAD601 = register(
    "KAD601", "node without a pod limit", "note",
    "A node's `allocatable` has no `pods` entry. The kubelet always reports one, so kadmit assumes "
    "the kubelet's default `maxPods` of 110 (kube-scheduler itself would count a missing limit as "
    "0 and place nothing there). Declare `pods` in `allocatable` to silence this.")
