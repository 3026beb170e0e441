"""Objects of the kinds Kueue's Configuration lists in `integrations.externalFrameworks`: Kueue v0.17.0 registers
each `Kind.version.group` (jobframework.RegisterExternalJobType) only so that its owner checks know the kind
(`isKnownOwner`, `getJobTypeForOwner`): its webhooks' walk up a job's controllers (FindAncestorJobManagedByKueue)
reads such an owner from the cluster, its metadata only, and takes it as the job's top-level ancestor where it
names a queue (its `kueue.x-k8s.io/queue-name` label) or under manageJobsWithoutQueueName. The kind's own
controller, not Kueue, makes its Workload. kadmit reads of an object of a kind it does not read what that walk
reads (`ExternalObject`), and the walk (`ancestors`) takes it where the Configuration lists its kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmit.model import ObjectRef
from kadmit.modelbase import Obj

if TYPE_CHECKING:
    from kadmit.manifests.yamltree import Val

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


class ExternalObject(Obj):
    """An object of a kind kadmit does not read, as Kueue's walk up a job's controllers reads it."""

    object: ObjectRef  # its namespace, "default" where it names none
    queue: str = ""  # its `kueue.x-k8s.io/queue-name` label (jobframework.QueueNameForObject)
    owner: ObjectRef | None = None  # its controller (`metav1.GetControllerOf`)


def resource(api_version: str, kind: str) -> str:
    """The resource an API server names in its NotFound message (`widgets.example.com`), as client-go's
    meta.UnsafeGuessKindToResource guesses it from the kind."""
    plural = kind.lower()
    if plural.endswith("s"):
        plural += "es"
    elif plural.endswith("y"):
        plural = plural[:-1] + "ies"
    elif plural:
        plural += "s"
    group = api_version.rpartition("/")[0]
    return f"{plural}.{group}" if group else plural


def custom(group: str) -> bool:
    """Whether an API group may be a custom resource's, so an external framework's: a CRD's group has a dot, and
    Kubernetes' own are `*.k8s.io` (`x-k8s.io` groups are SIGs' CRDs) or dotless (`apps`, `batch`, core)."""
    return "." in group and (not group.endswith(".k8s.io") or group.endswith(".x-k8s.io"))


def _text(node: Val | None, key: str) -> str | None:
    from kadmit.manifests.yamltree import MAP, STR  # the reader's, loaded by then (manage reads none for `.kad`)

    v = node.get(key) if node is not None and node.kind == MAP else None
    return v.v if v is not None and v.kind == STR else None


def read(node: Val, api_version: str, kind: str, span) -> ExternalObject | None:
    """What Kueue's walk reads of an object of a kind kadmit does not read (its metadata), or None where it
    has no name. Read leniently: the API server's checks of such an object are its CRD's, which kadmit
    does not hold."""
    from kadmit.manifests.yamltree import BOOL, MAP, SEQ

    md = node.get("metadata")
    name = _text(md, "name")
    if not name:
        return None
    ns = _text(md, "namespace") or "default"
    labels = md.get("labels")
    queue = _text(labels, QUEUE_LABEL) or ""
    owner = None
    refs = md.get("ownerReferences")
    for ref in refs.v if refs is not None and refs.kind == SEQ else ():
        controller = ref.get("controller") if ref.kind == MAP else None
        if controller is not None and controller.kind == BOOL and controller.v is True:
            owner = ObjectRef(api_version=_text(ref, "apiVersion") or "", kind=_text(ref, "kind") or "",
                              namespace=ns, name=_text(ref, "name") or "", uid=_text(ref, "uid"))
            break
    return ExternalObject(object=ObjectRef(api_version=api_version, kind=kind, namespace=ns, name=name,
                                           uid=_text(md, "uid")), queue=queue, owner=owner, span=span)


def held(model):
    """`model` without its listing of the objects of the kinds `integrations.externalFrameworks` lists as not
    read (kadmit reads them for the walk; reading a file cannot know the Configuration, so the reader listed
    them, and their kind as unread, which `say_unread` does not say): the model itself where there are none."""
    c = model.config
    kinds = frozenset(c.external_frameworks) if c is not None else frozenset()
    if not kinds or not model.external_objects:
        return model
    kept = tuple(s for s in model.skipped if (s.object.api_version, s.object.kind) not in kinds)
    return model if len(kept) == len(model.skipped) else model.model_copy(update={"skipped": kept})


def say_unread(unread, config, diags) -> None:
    """KAD159 for each kind of `unread` (`UnreadKind`, the files' kinds kadmit does not read) that the Configuration in
    force (`config`) does not list in `integrations.externalFrameworks`: said once the input is merged, so a listed
    kind, whose objects are read (`held`), is never said to be unread whatever the order of the files."""
    from kadmit.manifests.codes import KAD159

    listed = frozenset(config.external_frameworks) if config is not None else frozenset()
    for u in unread:
        if (u.api_version, u.kind) not in listed:
            diags.emit(KAD159, u.message, u.span, help=u.help)
