"""A job naming a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`), as Kueue's job reconciler
takes it (jobframework ensureOneWorkload's prebuilt branch): which Workload of the input is the job's, or
why the job gets none (docs/INTEGRATIONS.md J11)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.codes import KAD193
from kadmit.model import Job, Workload
from kadmit.quantity import QuantityError, parse_exact

PREBUILT_ABSENT = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), which the input "
                   "does not hold: Kueue's job reconciler stops it and makes no Workload of it "
                   "(ErrPrebuiltWorkloadNotFound), so it is not pending work for Kueue")
PREBUILT_CONTROLLED = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), which "
                       "{owner} controls (its controller ownerReference): Kueue's job reconciler ignores it, stops "
                       "the job and makes no Workload of it, so it is not pending work for Kueue")
PREBUILT_OUT_OF_SYNC = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), whose pod "
                        "sets differ from the job's ({what}): Kueue's job reconciler marks the Workload Finished "
                        "(OutOfSync: \"The prebuilt workload is out of sync with its user job\"), so it is never admitted, "
                        "and makes no other: neither is pending work for Kueue")


def prebuilt_workload(job: Job, workloads: list[Workload], keys: dict[str, int], adopted: set[int],
              diags: Diagnostics | None) -> tuple[int | None, str | None]:
    """Kueue's ensureOneWorkload for a job naming a prebuilt Workload: the place of the Workload it takes, and
    None; or why it takes none (and the place of a Workload it finishes as out of sync). Absent, or controlled
    by another object (a controller ownerReference with another UID, or a job of the input that took it
    before), the job gets none; else it takes ownership and checks the Workload in sync
    (`EquivalentToWorkload`: `equality.ComparePodSetSlices`, tolerations not for an admitted one)."""
    ns = job.object.namespace or "default"
    key = f"{ns}/{job.prebuilt}"
    at = keys.get(key)
    if at is None:
        return None, PREBUILT_ABSENT.format(wl=key)
    wl = workloads[at]
    if at in adopted:
        return None, PREBUILT_CONTROLLED.format(wl=key, owner=f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin
                                                else "another job of the input, which took it first,")
    owner = wl.origin
    if owner is not None and not (job.object.uid and owner.uid == job.object.uid):
        return None, PREBUILT_CONTROLLED.format(wl=key, owner=f"{owner.kind} `{owner.name}`")
    if owner is not None:  # its own already (the same UID): Kueue checks it as any Workload it owns
        return at, None
    mine, theirs = job.workloads[0].shapes or (None, ()), wl.shapes or (None, ())
    what = ("the job makes more than one Workload" if len(job.workloads) != 1 else
            f"maximumExecutionTimeSeconds {mine[0]} against {theirs[0]}" if mine[0] != theirs[0] else
            _differs(mine[1], theirs[1], wl.admitted_condition))
    if what:
        return at, PREBUILT_OUT_OF_SYNC.format(wl=key, what=what)
    unset = undefaulted([c for ps in theirs[1] for c in ps[2]])
    if unset and job.submitted and diags is not None:
        diags.emit(KAD193, f"{job.object.kind} `{job.object.name}` takes the prebuilt Workload `{key}` as the files "
                   f"are written, but on a cluster the API server sets {', '.join(f'`{k}`' for k in unset)} in the "
                   f"job's containers and not in the Workload's: Kueue would find it out of sync (Finished, "
                   f"OutOfSync) and the job would get no Workload", wl.span or job.span,
                   help="set those fields in the Workload's containers as the API server sets them in the job's")
    return at, None


def _differs(mine: tuple, theirs: tuple, admitted: bool) -> str:
    """What `equality.ComparePodSetSlices` finds different, first: "" when nothing."""
    if len(mine) != len(theirs):
        return f"{len(mine)} pod sets against {len(theirs)}"
    for n, (a, b) in enumerate(zip(mine, theirs)):
        for i, what in enumerate(("count", "minCount", "containers", "tolerations")):
            if what == "tolerations" and admitted:
                continue
            if not (a[i] == b[i] if i < 2 else same_as_kueue(a[i], b[i])):
                return f"pod set {n}: its {what}" + (f" {a[i]} against {b[i]}" if i < 2 else "")
    return ""


def same_as_kueue(a, b) -> bool:
    """`Semantic.DeepEqual` of two plain values: equal as written, or in a form where what it holds equal
    is equal: a quantity by its value (`1` and `1000m`), a null, empty list, map or string as unset."""
    return a == b or _canonical(a) == _canonical(b)


# What the API server's defaulting (core/v1 SetDefaults_Container) sets in every container of a built-in
# kind's pod template, and never in a Workload's (a custom resource: its schema has no defaults there).
CONTAINER_DEFAULTS = ("imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy")


def undefaulted(containers: list) -> list[str]:
    """The fields of CONTAINER_DEFAULTS some container or init container leaves unset (`containers`: the
    two plain lists `template_shape` keeps)."""
    return [k for k in CONTAINER_DEFAULTS if any(isinstance(c, dict) and not c.get(k)
                                                 for group in containers for c in (group or []))]


def _canonical(value, key: str = "") -> str:
    if isinstance(value, dict):
        items = sorted((k, _canonical(v, k if key not in ("requests", "limits") else "quantity"))
                       for k, v in value.items())
        return "{" + ",".join(f"{k!r}:{v}" for k, v in items if v != "") + "}" if any(v != "" for _, v in items) \
            else ""
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        return "[" + ",".join(items) + "]" if items else ""
    if value is None or value == "":
        return ""
    if key == "quantity" and isinstance(value, (str, int)) and not isinstance(value, bool):
        try:
            return "q" + str(parse_exact(value))
        except QuantityError:
            pass
    return repr(value)
