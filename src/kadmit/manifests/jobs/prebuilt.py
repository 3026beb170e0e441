"""A job naming a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`), as Kueue's job reconciler
takes it (jobframework ensureOneWorkload's prebuilt branch): which Workload of the input is the job's, or
why the job gets none (docs/INTEGRATIONS.md J11)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from kadmit.diagnostics import Diagnostics, Label, Subject
from kadmit.identity import subject
from kadmit.manifests.codes import KAD193, KAD194
from kadmit.manifests.jobs.containerdefaults import CONTAINER_DEFAULTS, defaulted, undefaulted  # noqa: F401 - CONTAINER_DEFAULTS: tests
from kadmit.manifests.jobs.start import merge, status_infos
from kadmit.model import Job, ResourceFlavor, Workload
from kadmit.quantity import QuantityError, parse_exact

PREBUILT_ABSENT = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), which the input "
                   "does not hold: Kueue's job reconciler stops it and makes no Workload of it "
                   "(ErrPrebuiltWorkloadNotFound), so it is not pending work for Kueue")
PREBUILT_CONTROLLED = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), which "
                       "{owner} controls (its controller ownerReference): Kueue's job reconciler ignores it, stops "
                       "the job and makes no Workload of it, so it is not pending work for Kueue")
PREBUILT_TAKEN = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), which {first} "
                  "names too and, taken first in input order, controls: Kueue's job reconciler then ignores it for this "
                  "job, stops the job and makes no Workload of it, so it is not pending work for Kueue (which job Kueue "
                  "reconciles first is run time: KAD194)")
PREBUILT_OUT_OF_SYNC = ("it names the prebuilt Workload `{wl}` (`kueue.x-k8s.io/prebuilt-workload-name`), whose pod "
                        "sets differ from the job's ({what}): Kueue's job reconciler marks the Workload Finished "
                        "(OutOfSync: \"The prebuilt workload is out of sync with its user job\"), so it is never admitted, "
                        "and makes no other: neither is pending work for Kueue")


def prebuilt_workload(job: Job, workloads: list[Workload], keys: dict[str, int], adopted: dict[int, tuple[Job, bool]],
              diags: Diagnostics | None, flavors: dict[str, ResourceFlavor] | None = None, queued: bool = True,
              sliced: bool = False) -> tuple[int | None, str | None]:
    """Kueue's ensureOneWorkload for a job naming a prebuilt Workload: the place of the Workload it takes, and
    None; or why it takes none (and the place of a Workload it finishes as out of sync). Absent, or controlled
    by another object (a controller ownerReference with another UID, or a job of the input that took it
    before: `adopted`, each Workload no object controlled and the job that took it, in sync or not), the job
    gets none; else it takes ownership (one it controls already too) and checks the Workload in sync
    (`EquivalentToWorkload`; `flavors` by name, for one holding quota; `queued`: AssignQueueLabelsForPods, `out_of_sync`),
    but where `sliced` (an elastic job, the ElasticJobsViaWorkloadSlices gate on) and the Workload is a scaled-up slice
    (`kueue.x-k8s.io/workload-slice-replacement-for`): ensureOneWorkload skips the check for it (workloadslicing.ScaledUp)."""
    ns = job.object.namespace or "default"
    key = f"{ns}/{job.prebuilt}"
    at = keys.get(key)
    if at is None:
        return None, PREBUILT_ABSENT.format(wl=key)
    wl = workloads[at]
    if at in adopted:
        first, in_sync = adopted[at]
        if diags is not None:
            _taken_first(job, first, in_sync, key, wl, diags)
        return None, PREBUILT_TAKEN.format(wl=key, first=f"{first.object.kind} `{first.object.name}`")
    owner = wl.origin
    if owner is not None and not (job.object.uid and owner.uid == job.object.uid):
        return None, PREBUILT_CONTROLLED.format(wl=key, owner=f"{owner.kind} `{owner.name}`")
    what = None if sliced and wl.replaces else out_of_sync(job, wl, flavors or {}, queued)
    if owner is None:  # Kueue makes the job its controller (EnsurePrebuiltWorkloadOwnership), in sync or not
        adopted[at] = (job, not what)
        workloads[at] = _owned_by(wl, job)
    if what:
        if job.submitted and diags is not None:
            _by_defaults(job, wl, key, flavors or {}, diags, queued)
        return at, PREBUILT_OUT_OF_SYNC.format(wl=key, what=what)
    return at, None


def _by_defaults(job: Job, wl: Workload, key: str, flavors: dict[str, ResourceFlavor], diags: Diagnostics,
                 queued: bool) -> None:
    """KAD193: a prebuilt Workload out of sync with a job being submitted only by the container defaults the API
    server gives the job on create (`containerdefaults`) and the Workload leaves unset."""
    shapes = wl.shapes or (None, ())
    unset = undefaulted([c for ps in shapes[1] for c in ps[2]])
    mended = (shapes[0], tuple((s[0], s[1], defaulted(s[2]), *s[3:]) for s in shapes[1]), *shapes[2:])
    if not unset or out_of_sync(job, wl.model_copy(update={"shapes": mended}), flavors, queued):
        return
    diags.emit(KAD193, f"{job.object.kind} `{job.object.name}` names the prebuilt Workload `{key}`, whose containers "
               f"leave {', '.join(f'`{k}`' for k in unset)} unset: the API server sets them in the job's containers "
               "when it creates the job (SetDefaults_Container) and not in the Workload's, so Kueue finds the "
               "Workload out of sync (Finished, OutOfSync) and the job gets no Workload", wl.span or job.span,
               help="set them in the Workload's containers as the API server sets them in the job's: "
                    "`imagePullPolicy: Always` for an image tagged `latest` or with neither tag nor digest, else "
                    "`IfNotPresent`; `terminationMessagePath: /dev/termination-log`; `terminationMessagePolicy: File`",
               about=(subject(job.object), Subject("Workload", wl.namespace, wl.name)))


def _owned_by(wl: Workload, job: Job) -> Workload:
    """The prebuilt Workload as EnsurePrebuiltWorkloadOwnership leaves it when the job takes it: its
    `kueue.x-k8s.io/job-uid` label set to the job's UID where that is a label value (kept where it is not),
    which a victim's "Preempted to accommodate a workload (UID: …, JobUID: …)" names. A job being submitted
    has no UID in the input (the API server gives it one): the label is unknown, "" (UNKNOWN in the message)."""
    from kadmit.manifests.jobs.common import job_uid  # (the manifest reader's: a `.kad` input loads none of it)

    if job.object.uid and not job_uid(job.object):
        return wl
    return wl.model_copy(update={"job_uid": job_uid(job.object)})


def _taken_first(job: Job, first: Job, in_sync: bool, key: str, wl: Workload, diags: Diagnostics) -> None:
    """KAD194: two jobs name one prebuilt Workload no object controls; which takes it is Kueue's reconcile order."""
    a, b = f"{first.object.kind} `{first.object.name}`", f"{job.object.kind} `{job.object.name}`"
    then = "takes it" if in_sync else "takes it and finds it out of sync (Finished, OutOfSync)"
    diags.emit(KAD194, f"{a} and {b} both name the prebuilt Workload `{key}`, which no object controls in the input: "
               f"Kueue's job reconciler gives it to whichever of them it reconciles first (it makes that job the "
               f"Workload's controller; the other then finds it controlled by another and gets none), an order of run "
               f"time no snapshot holds. kadmit takes them in input order: {a} {then} and {b} gets none; were {b} "
               f"reconciled first, {b} would take it instead, and Kueue's decisions may differ from kadmit's",
               job.span, labels=[Label(at, text) for at, text in ((first.span, f"{a} names `{key}` too"),
                                                                  (wl.span, "the Workload")) if at is not None],
               help="give each job its own prebuilt Workload, or set the Workload's controller ownerReference",
               about=(subject(first.object), subject(job.object), Subject("Workload", wl.namespace, wl.name)))


def out_of_sync(job: Job, wl: Workload, flavors: dict[str, ResourceFlavor], queued: bool = True) -> str:
    """What Kueue's `EquivalentToWorkload` finds different between the job and the Workload it takes, first:
    "" when in sync. A Workload holding quota is compared as it runs (`expectedRunningPodSets`: its
    admission's flavors and admission checks merged in, the admitted count for a partial admission), and
    then, the job suspended, as its spec says. `queued`: the queue labels are merged in (AssignQueueLabelsForPods)."""
    if len(job.workloads) != 1:
        return "the job makes more than one Workload"
    if wl.origin is not None and wl.origin.name != job.object.name:
        return f"its controller ownerReference names {wl.origin.kind} `{wl.origin.name}`, with the job's UID"
    mine, theirs = job.workloads[0].shapes or (None, ()), wl.shapes or (None, ())
    if mine[0] != theirs[0]:
        return f"maximumExecutionTimeSeconds {mine[0]} against {theirs[0]}"
    running = running_pod_sets(wl, flavors, queued)
    if running is not None:
        what = _differs(mine[1], running, wl.admitted_condition)
        if not what or job.suspended:
            return what and _differs(mine[1], theirs[1], wl.admitted_condition)
        return what + (" (as the Workload runs, its admission merged in; the job is not suspended, so its spec "
                       "is not compared)")
    return _differs(mine[1], theirs[1], wl.admitted_condition)


def running_pod_sets(wl: Workload, flavors: dict[str, ResourceFlavor], queued: bool = True) -> tuple | None:
    """Kueue's expectedRunningPodSets: the Workload's pod sets as its job runs them while it holds quota, what
    `getPodSetsInfoFromStatus` gives each (`start.status_infos`) merged into its template (`podset.Merge`), and
    the admitted count where it can be partially admitted; None (Kueue then compares the spec) without quota,
    or where Kueue's merge fails: a flavor not in the input, a pod set with no assignment, a label, annotation
    or node selector merged in conflicting with one already set. `queued`: getPodSetsInfoFromStatus sets the queue
    labels (AssignQueueLabelsForPods, `start.queue_labels`), whose values may conflict with the template's."""
    infos, _ = status_infos(wl, flavors, queued)
    if infos is None:
        return None
    shapes = wl.shapes
    partial = any(s[1] is not None and s[0] > s[1] for s in shapes[1])  # CanBePartiallyAdmitted, on the spec's counts
    by_name = {info[0]: info for info in infos}
    out = []
    for ps, shape, (selector, labels, annotations) in zip(wl.pod_sets, shapes[1], shapes[2][0]):
        info = by_name.get(ps.name)
        if info is None:
            return None
        merged = [dict(selector), dict(labels), dict(annotations), list(shape[3] or [])]
        if merge(merged, *info[1:5]):
            return None
        count = info[5] if partial and shape[1] is not None else shape[0]
        out.append((count, shape[1], shape[2], merged[3]))
    return tuple(out)


def _differs(mine: tuple, theirs: tuple, admitted: bool) -> str:
    """What `equality.ComparePodSetSlices` finds different, first: "" when nothing."""
    if len(mine) != len(theirs):
        return f"{len(mine)} pod sets against {len(theirs)}"
    for n, (a, b) in enumerate(zip(mine, theirs)):
        for i, what in enumerate(("count", "minCount", "containers", "tolerations")):
            if what == "tolerations" and admitted:
                continue
            if not (a[i] == b[i] if i < 2 else same_as_kueue(a[i], b[i], "l:s:Toleration" if i == 3 else "l:s:Container")):
                return f"pod set {n}: its {what}" + (f" {a[i]} against {b[i]}" if i < 2 else "")
    return ""


def same_as_kueue(a, b, kind: str = "l:s:Container") -> bool:
    """`Semantic.DeepEqual` of two plain values (`kind`: their Go type, `go_value`): equal as written, or as the
    Go values Kueue decodes them into: a quantity by its value (`1` and `1000m`), an absent, null, empty list
    or map as nil, an absent or null bool, number or string field as its zero value (`stdin: false` is unset),
    but a pointer (`securityContext`, a probe, `privileged`) set, even to `{}` or `false`, not as nil.
    `a` and `b` are lists of containers, or the pair of a template's containers and init containers."""
    if a == b:
        return True
    if kind == "l:s:Container" and isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2 \
            and all(x is None or isinstance(x, list) for x in (*a, *b)):  # the pair `template_shape` keeps
        return all(go_value(x, kind) == go_value(y, kind) for x, y in zip(a, b))
    return go_value(a, kind) == go_value(b, kind)


@lru_cache(maxsize=1)
def _go_types() -> dict:
    """core/v1's Container and Toleration as Go types (tools/gotypes writes them)."""
    return json.loads(resources.files("kadmit.manifests.schema").joinpath("data", "gotypes.json").read_text())["types"]


def go_value(value, kind: str):
    """A plain value as Go's JSON decoding holds it in a field of `kind` (tools/gotypes: "v" a bool, number or
    string, "p" a pointer to one, "q"/"pq" a Quantity or a pointer to one, "i"/"pi" an IntOrString, "s:T"/"ps:T"
    a struct, "l:K" a slice, "m:K" a map), in a form values `Semantic.DeepEqual` holds equal share."""
    if kind.startswith("p") and kind != "p" or kind == "p":
        if value is None:
            return None
        return ("p", go_value(value, kind[1:] if kind != "p" else "v") if kind != "p" else repr(value))
    if kind == "v":
        zero = value is None or value == "" or value is False or (type(value) in (int, float) and value == 0)
        return None if zero else repr(value)
    if kind == "q":
        if value is None:
            return ("q", 0)
        try:
            return ("q", parse_exact(value)) if not isinstance(value, bool) else repr(value)
        except QuantityError:
            return repr(value)
    if kind == "i":  # intstr.IntOrString: a string (even "" or "80") is not the number
        if value is None:
            return ("i", 0)
        return ("s", value) if isinstance(value, str) else ("i", value)
    if kind.startswith("l:"):
        if value is None or value == []:
            return ()
        return tuple(go_value(x, kind[2:]) for x in value) if isinstance(value, list) else repr(value)
    if kind.startswith("m:"):
        if value is None or value == {}:
            return ()
        return tuple(sorted((str(k), go_value(v, kind[2:])) for k, v in value.items())) \
            if isinstance(value, dict) else repr(value)
    fields = _go_types()[kind[2:]]  # "s:T"
    if value is None:
        value = {}
    if not isinstance(value, dict):
        return repr(value)
    if kind in SCHEMA_DEFAULTS:
        value = {**SCHEMA_DEFAULTS[kind], **{k: v for k, v in value.items() if v is not None}}
    return tuple((name, go_value(value.get(name), k)) for name, k in sorted(fields.items()))


# The defaults the Workload CRD's schema carries inside a pod template (core/v1's SetDefaults_ContainerPort, an env
# var's fileKeyRef `optional`, a probe's gRPC `service`): the API server writes them into every Workload, and a
# job's template gets them too (the pod defaults of a built-in kind, a custom resource's CRD, the dry run of the
# Workload Kueue makes of it), so Kueue's Semantic.DeepEqual always compares them set; the oracle's harness does
# the same (internal/jobs/builtins.go defaultContainerFields, crddefaults.go). Applied to both sides here.
SCHEMA_DEFAULTS = {"s:ContainerPort": {"protocol": "TCP"}, "s:FileKeySelector": {"optional": False},
                   "s:GRPCAction": {"service": ""}}
