"""DisaggregatedSet (LWS's multi-role set) -> per slice and role, the LeaderWorkerSet it creates
(kubernetes-sigs/lws pkg/controllers/disaggregatedset/lws_manager.go), made into Workloads by
Kueue's LeaderWorkerSet integration."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder, object_ref
from kadmit.manifests.jobs.lws import FRAMEWORK, group_workloads
from kadmit.model import Job


def disaggregated_set(f: Fields, o: Meta) -> list[Job]:
    """For each slice (`slices`, default 1) and role, the role's LeaderWorkerSet spec with its
    replicas; the child's labels — the queue and priority labels Kueue reads — are the role's
    `metadata.labels` (`mergeLabels(config.ObjectMeta.Labels, …)`), not the DisaggregatedSet's."""
    spec = f.map(o.node, "spec", required=True, what=f"DisaggregatedSet `{o.name}`")
    slices = f.int(spec, "slices", default=1, lo=1)
    ref = object_ref(o, f)
    status = f.map(o.node, "status")
    running = any(f.int(r, "replicas", default=0) for r in f.maps(status, "roleStatuses"))
    out = []
    for role in f.maps(spec, "roles", required=True, what=f"the spec of DisaggregatedSet `{o.name}`"):
        name = f.str(role, "name", required=True, what="a role")
        labels, _ = f.str_map(f.map(role, "metadata"), "labels")
        role_meta = Meta(o.api_version, o.kind, o.node, o.metadata, o.name, o.namespace, labels, o.annotations)
        lws_spec = f.map(role, "spec", required=True, what=f"role `{name}`")
        external = f.str(f.map(role, "scaling"), "mode") == "External"
        b = Builder(f, role_meta, FRAMEWORK)
        workloads = []
        if not external:
            for s in range(slices):
                # the child is `<set>-<slice>-<revision>-<role>`; the revision hash is not known here
                workloads += group_workloads(f, b, ref, lws_spec, f"{o.name}-{s}-{name}", f"role `{name}`",
                                             within=f"role `{name}`, slice {s}, ")
        note = (f"role `{name}` scales externally (a DisaggregatedSetRoleScaler kadmit does not read)" if external
                else f"role `{name}` has no replicas")
        out.append(b.job(state="running" if running else "pending", workloads=workloads, note=note)
                   .model_copy(update={"object": ref}))
    return out
