"""What the API server's Workload CRD refuses of the Workloads Kueue's job reconcilers make (its schema's required
fields), in its words. Light: `.kad` input reaches `manage` without the manifest reader."""

from __future__ import annotations

from collections.abc import Iterable

from kadmit.model import Refusal, Workload


def workload_crd_refusal(workloads: Iterable[Workload]) -> str | None:
    """Why the API server refuses the Workload Kueue's reconciler makes of a job, where it does: a pod set whose
    template has no container (a custom resource's template, e.g. a LeaderWorkerSet's `spec:` left empty, which its
    own CRD stores) breaks the Workload CRD's required `containers`, in the API server's words (the CRD's CEL rules
    are then not run). The reconciler's create fails every time; no Workload is made, the job is never admitted."""
    for wl in workloads:
        missing = [f"spec.podSets[{i}].template.spec.containers: Required value"
                   for i, ps in enumerate(wl.pod_sets) if ps.resources is not None and not ps.resources.containers]
        if missing:
            # a name hashing a UID the input lacks (`kueue_name` ""): its hash is the cluster's
            name = wl.kueue_name or (wl.name if wl.kueue_name is None else wl.name.rsplit("-", 1)[0] + "-<hash of its UID>")
            return (f"Kueue's reconciler failed: Workload.kueue.x-k8s.io \"{name}\" is invalid: ["
                    + ", ".join(missing) + ", <nil>: Invalid value: null: some validation rules were not checked "
                    "because the object was invalid; correct the existing errors to complete validation]")
    return None


RECONCILER_FAILED = "Kueue's reconciler failed: "


def build_failure(refusals: Iterable[Refusal], multi_layer: bool) -> str | None:
    """Why Kueue's job reconciler fails to build the Workload of a job already in the cluster, where the gate
    TASMultiLayerTopology (`multi_layer`) makes it fail: the reader's `Refusal` of its slice layers annotation
    for that gate (`manifests.layers.build_error`; no webhook refuses a job already stored)."""
    return next((r.message for r in refusals if r.message.startswith(RECONCILER_FAILED)
                 and r.multi_layer is multi_layer), None)
