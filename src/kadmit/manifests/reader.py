"""The manifest reader: YAML or JSON text -> a model `Fragment`, each object read by its kind's module
(`KINDS`)."""

from __future__ import annotations

from typing import Callable

from pydantic import ValidationError

from kadmit import budget
from kadmit.diagnostics import Diagnostics, Subject, did_you_mean
from kadmit.featuregates import ManagerFlag
from kadmit.manifests import (admission, checks, cluster, config, dra, gangs, jobs, kubenames, notread, policy, schema,
                              served, unread, workloads)
from kadmit.manifests.jobs import external, pods
from kadmit.manifests.codes import KAD020, KAD154, KAD157, KAD160, KAD171
from kadmit.manifests.fields import Fields, Invalid, Meta, NotRead, created_at
from kadmit.manifests.schema import coverage
from kadmit.manifests.yamltree import DESCRIBE, MAP, NULL, SEQ, STR, Val, parse_documents
from kadmit.model import SKIPPED_NAMED, Fragment, ObjectRef, Skipped, UnreadKind
from kadmit.source import Span

__all__ = ["read_manifest_text", "KINDS"]

KUEUE = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta1", "v1beta2")


class Kind:
    """How one kind is read: its API versions, the fragment list it fills, its converter (which
    returns an object, a list of them, or None). `anonymous` kinds need no `metadata.name`;
    `generated` kinds may be named by `metadata.generateName` alone (objects about to be created)."""

    def __init__(self, versions: tuple[str, ...], target: str, read: Callable, namespaced: bool = False,
                 anonymous: bool = False, generated: bool = False, also: Callable | None = None) -> None:
        self.versions = versions
        self.target = target
        self.read = read
        self.namespaced = namespaced
        self.anonymous = anonymous
        self.generated = generated
        self.also = also  # a second reading of the same object, into `jobs` (a Kueue-managed Pod)


# The built-in kinds read that the API server decodes strictly for `kubectl apply` (the oracle's kubevalidate), besides
# the job kinds: one with an unknown field is never created
STRICT_BUILTINS = frozenset({("", "Pod"), ("", "Namespace"), ("", "Node"), ("", "LimitRange"),
                             ("scheduling.k8s.io", "PriorityClass"), ("node.k8s.io", "RuntimeClass")})

KINDS: dict[tuple[str, str], Kind] = {
    (KUEUE, "ResourceFlavor"): Kind(KUEUE_VERSIONS, "flavors", policy.resource_flavor),
    (KUEUE, "ClusterQueue"): Kind(KUEUE_VERSIONS, "cluster_queues", policy.cluster_queue),
    (KUEUE, "Cohort"): Kind(KUEUE_VERSIONS, "cohorts", policy.cohort),
    (KUEUE, "LocalQueue"): Kind(KUEUE_VERSIONS, "local_queues", policy.local_queue, namespaced=True),
    (KUEUE, "WorkloadPriorityClass"): Kind(KUEUE_VERSIONS, "priority_classes", policy.workload_priority_class),
    (KUEUE, "Topology"): Kind(KUEUE_VERSIONS, "topologies", policy.topology),
    (KUEUE, "Workload"): Kind(KUEUE_VERSIONS, "workloads", workloads.workload, namespaced=True),
    (KUEUE, "AdmissionCheck"): Kind(KUEUE_VERSIONS, "admission_checks", checks.admission_check),
    (KUEUE, "ProvisioningRequestConfig"): Kind(KUEUE_VERSIONS, "check_configs", checks.provisioning_request_config),
    (KUEUE, "MultiKueueConfig"): Kind(KUEUE_VERSIONS, "check_configs", checks.multikueue_config),
    (KUEUE, "MultiKueueCluster"): Kind(KUEUE_VERSIONS, "check_configs", checks.multikueue_cluster),
    ("scheduling.k8s.io", "PriorityClass"): Kind(("v1",), "priority_classes", policy.pod_priority_class),
    ("", "Namespace"): Kind(("v1",), "namespaces", cluster.namespace),
    ("", "Node"): Kind(("v1",), "nodes", cluster.node),
    ("", "Pod"): Kind(("v1",), "pods", cluster.pod, namespaced=True, generated=True, also=pods.pod_job),
    # what Kueue adjusts a workload's requests by (workload.AdjustResources)
    ("", "LimitRange"): Kind(("v1",), "limit_ranges", cluster.limit_range, namespaced=True),
    ("node.k8s.io", "RuntimeClass"): Kind(("v1",), "runtime_classes", cluster.runtime_class),
    # gangs kube-scheduler places all-or-nothing (not Kueue's): Kubernetes' own, and coscheduling's
    (gangs.K8S, "Workload"): Kind(("v1alpha1",), "gangs", gangs.workload, namespaced=True),
    (gangs.COSCHEDULING, "PodGroup"): Kind(("v1alpha1",), "gangs", gangs.coscheduling_pod_group, namespaced=True),
    # Kueue's own configuration: the document (a file, with no metadata), or the ConfigMap it ships in.
    (config.CONFIG_GROUP, "Configuration"): Kind(config.CONFIG_VERSIONS, "scheduler_configs",
                                                 config.configuration, anonymous=True),
    ("", "ConfigMap"): Kind(("v1",), "scheduler_configs", config.config_map, namespaced=True),
    # rules `kadmit export` wrote as admission policies
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): Kind(("v1",), "rules", admission.policy),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): Kind(("v1",), "rules", admission.binding),
    (dra.DRA_GROUP, "ResourceClaimTemplate"): Kind(("v1",), "claim_templates", dra.claim_template, namespaced=True),
    (dra.DRA_GROUP, "DeviceClass"): Kind(("v1",), "device_classes", dra.device_class),
    # The job kinds Kueue integrates: read as submitted, managed or not by `jobs.manage`.
    **{(i.group, i.kind): Kind(i.versions, "jobs", i.read, namespaced=True, generated=True)
       for i in jobs.INTEGRATIONS},
    **{(group, kind): Kind(versions, target, read, namespaced=namespaced)
       for group, kind, versions, target, read, namespaced in jobs.REFERENCED},
}


NOT_READ_HELP = ("kadmit reads Kubernetes objects and `.kad` policy; name the folders that hold them to leave "
                 "other files out")

# Kinds of which kadmit reads only some objects; the others are reported like unread kinds.
PARTLY_READ = {"ConfigMap": f"Kueue's configuration (`{config.CONFIG_KEY}`)"}


class Restart(Exception):
    """Items of a List read as they were parsed should not have been (the document turned out not to be
    a List, or broken): the file is read again without that (`restartable`)."""


_GUESS = ("", "")  # a List's item type not known yet: its items are read when they name their own


class _Stream:
    """A top-level List read item by item while it is parsed (`_Reader.list_item`): its mapping as
    built so far, the item type its items were read with (None: a `kind: List`), and what reading
    them reported, held until the document ends (after what parsing it reports, as when read whole)."""

    __slots__ = ("values", "item_type", "seq", "took", "said")

    def __init__(self, values: dict, item_type) -> None:
        self.values = values
        self.item_type = item_type
        self.seq: Val | None = None  # the `items` list once parsed: the items not read yet
        self.took = 0
        self.said = Diagnostics()


class _Reader:
    def __init__(self, file: str, diags: Diagnostics, text: str | None = None) -> None:
        self.f = Fields(file, diags, text)
        self.fragment = Fragment()
        # (apiVersion, kind) of a kind not read -> [the first's span, how many, the index in `fragment.skipped`
        # of the entry that counts those past SKIPPED_NAMED (-1: none yet)]
        self.skipped: dict[tuple[str, str], list] = {}
        self.stream: _Stream | None = None

    # A document's top-level `items` list is handed over item by item while it is parsed
    # (`yamltree.parse_documents(lister=)`), so that a List's tree is never whole in memory: an item is
    # read at once when reading it later could not differ (the List's kind and apiVersion came first,
    # or the item names its own), else it and every later one stay in the tree for `document`. What was
    # read is checked when the document ends; if it should not have been, the file is read again (Restart).

    def list_item(self, values: dict, item: Val) -> bool:
        """Whether `item` of the top-level `items` list of the mapping `values` (being parsed) was read."""
        st = self.stream
        if st is None or st.values is not values:
            if st is not None and st.took:
                raise Restart  # the last one never ended as a document
            st = self.stream = _Stream(values, self._item_type(values))
        item_type = st.item_type
        if item_type is False or item_type is _GUESS and item.kind == MAP and not _named(item):
            return False
        f = self.f
        diags, f.diags = f.diags, st.said
        try:
            self.document(item, None if item_type is _GUESS else item_type)  # a guess: read alike in any List
        finally:
            f.diags = diags
        st.took += 1
        return True

    def list_done(self, values: dict, seq: Val) -> None:
        if self.stream is not None and self.stream.values is values:
            self.stream.seq = seq

    @staticmethod
    def _item_type(values: dict):
        """The type a List's items are read as, from its keys parsed so far: None (`kind: List`), a
        `*List`'s, _GUESS (not known yet), or False (not a List, or one whose items wait)."""
        api, kind = values.get("apiVersion"), values.get("kind")
        if api is not None and api.kind != STR or kind is not None and kind.kind != STR:
            return False
        if kind is None:
            return _GUESS
        if kind.v == "List":
            return None
        if not kind.v.endswith("List"):
            return False
        return (api.v, kind.v[: -len("List")]) if api is not None else _GUESS

    def finish(self) -> None:
        """The text is read: items read from a List whose document never ended (a YAML error) were not
        to be (the error drops that document whole)."""
        if self.stream is not None and self.stream.took:
            raise Restart

    def _listed(self, node: Val) -> bool:
        """`node` is the top-level mapping of a List whose items were read while parsed: check that they
        were to be, and read the rest (True), or Restart; False: another document."""
        st = self.stream
        if st is None or node.v is not st.values:
            return False
        self.stream = None
        if not st.took:
            return False  # nothing read yet: the tree is whole
        f = self.f
        try:
            api_version = f.str(node, "apiVersion", required=True, what="a manifest object")
            kind = f.str(node, "kind", required=True, what="a manifest object")
        except Invalid:
            raise Restart from None
        item_type = None if kind == "List" else (api_version, kind[: -len("List")])
        if (not kind.endswith("List") or node.v.get("items") is not st.seq
                or st.item_type is not _GUESS and st.item_type != item_type):
            raise Restart
        f.diags.extend(st.said.items)
        for item in st.seq.v:
            self.document(item, item_type)
        return True

    def document(self, node: Val, list_type: tuple[str, str] | None = None) -> None:
        """One document or list item: an object, or a list whose items are read in turn."""
        f = self.f
        if node.kind == NULL:
            return
        if list_type is None and self.stream is not None and self._listed(node):
            return
        if node.kind == SEQ and list_type is None and (unread := notread.list_message(node)) is not None:
            f.diags.emit(KAD020, unread, Span(f.file, node.line + 1, node.col + 1, node.line + 1, node.col + 2),
                         help=NOT_READ_HELP)
            return
        if node.kind != MAP:
            f.diags.emit(KAD154, f"expected a Kubernetes object (a mapping), found {DESCRIBE[node.kind]}",
                         f.span(node))
            return
        if list_type is None and not notread.is_object(node):
            f.diags.emit(KAD020, notread.message(node, f.file),
                         Span(f.file, node.line + 1, node.col + 1, node.line + 1, node.col + 2),
                         help=NOT_READ_HELP)
            return
        try:
            api_version = f.str(node, "apiVersion", required=not list_type, what="a manifest object",
                                default=list_type[0] if list_type else None)
            kind = f.str(node, "kind", required=not list_type, what="a manifest object",
                         default=list_type[1] if list_type else None)
            if kind == "List" or (kind.endswith("List") and f.field(node, "items") is not None):
                item_type = None if kind == "List" else (api_version, kind[: -len("List")])
                for item in f.seq(node, "items"):
                    self.document(item, item_type)
                return
            b = budget.current()
            if b is not None and not b.take_object(lambda: f.span(node)):
                return
            self.object(node, api_version, kind)
        except Invalid:
            return

    def object(self, node: Val, api_version: str, kind: str) -> None:
        f = self.f
        group, _, version = api_version.rpartition("/")
        spec = KINDS.get((group, kind))
        if (spec is None and (group, kind) not in served.MOVED and (group, version, kind) not in served.REMOVED
                and (group, kind) not in served.LATER_K8S):
            later = served.LATER.get((group, kind)) or unread.why(group, kind)
            self.skip(node, api_version, kind, "kadmit does not read this kind" + (f": {later}" if later else ""))
            if (group, kind) in unread.WHY and not external.custom(group) and group != "apiextensions.k8s.io":
                self.created(node)  # a Kubernetes kind the API server holds (a Service): in the cluster all the same
            # what Kueue's walk up a job's controllers reads of it, should the Configuration list its kind (a custom
            # resource's: its group has a dot, and is none of Kubernetes' own `*.k8s.io`)
            if external.custom(group) and (owner := external.read(node, api_version, kind, f.span(node))) is not None:
                self.fragment.external_objects.append(owner)
            return
        if (gone := served.unserved(group, version, kind)) is not None:
            versions, source = gone
            f.diags.emit(KAD171, f"`{kind}` is not served in `{api_version}`; served: {versions} ({source}); skipped",
                         f.span(f.field(node, "apiVersion")) or f.span(node),
                         help="the API server refuses the object; " + (
                             f"on Kubernetes v1.35 write {served.LATER_K8S[group, kind][1]}"
                             if (group, kind) in served.LATER_K8S else f"write it in {versions.split(', ')[-1]}"),
                         about=(self.subject(node, kind),))
            self.record(node, api_version, kind, f"the API server does not serve `{kind}` in `{api_version}` "
                        f"(served: {versions}, by {source})")
            return
        if version not in spec.versions:
            known = ", ".join(f"`{group + '/' if group else ''}{v}`" for v in spec.versions)
            f.diags.emit(KAD160, f"`{kind}` in `{api_version}` is not read by kadmit; skipped",
                         f.span(f.field(node, "apiVersion")) or f.span(node), help=f"kadmit reads {known}",
                         about=(self.subject(node, kind),))
            self.record(node, api_version, kind, f"kadmit does not read `{kind}` in `{api_version}` "
                        f"(it reads {known})")
            return
        metadata = f.map(node, "metadata", required=not spec.anonymous, what=f"`{kind}`")
        if kind == "Namespace" and metadata is not None and "name" not in metadata.v and "generateName" in metadata.v:
            # a test suite's namespace: the API server names it (the prefix and a suffix of its own), so nothing
            # in the input names it and it decides nothing
            self.record(node, api_version, kind, "a Namespace named by `generateName`: the API server gives it a "
                                                 "name of its own, which nothing in the input can name")
            return
        generated = f.str(metadata, "generateName") if spec.generated else None
        name = f.str(metadata, "name", required=not (spec.anonymous or generated),
                     what=f"the metadata of a `{kind}`") or generated or ""
        f.collect()  # from here every bad field of the object is reported, then it is dropped
        try:
            self.read(node, spec, api_version, kind, metadata, name)
        finally:
            f.done()

    def read(self, node: Val, spec: Kind, api_version: str, kind: str, metadata: Val | None, name: str) -> None:
        """The object's fields (collecting its bad ones) into the fragment, or it is dropped."""
        f = self.f
        namespace = f.str(metadata, "namespace") if spec.namespaced else None
        concerning = f.diags.concerning  # what the object's own diagnostics are about: the object
        f.diags.concerning = (Subject(kind, (namespace or "default") if spec.namespaced else None, name),)
        try:
            self._read(node, spec, api_version, kind, metadata, name, namespace)
        finally:
            f.diags.concerning = concerning

    def _read(self, node: Val, spec: Kind, api_version: str, kind: str, metadata: Val | None, name: str,
              namespace: str | None) -> None:
        f = self.f
        group, _, version = api_version.rpartition("/")
        unknown = schema.check(f, node, group, version, kind, name)
        if group in (KUEUE, config.CONFIG_GROUP):
            coverage.warn_unmodelled(f, node, kind, f"`{kind}`" + (f" `{name}`" if name else ""))
        seen = len(f.diags.items)
        kubenames.check_name(f, group, kind, f.field(metadata, "name"))
        kubenames.check_name(f, group, kind, f.field(metadata, "namespace"), "namespace")
        kubenames.check_labels(f, f.field(metadata, "labels"), path="metadata.labels")
        kubenames.check_annotations(f, f.field(metadata, "annotations"))
        kubenames.check_kueue_keys(f, metadata)
        # a name, namespace, label or annotation the API server refuses: the object is never created, a job's too
        # (refused alone, as one with an unknown field; its reader still says what Kueue's webhook would refuse, KAD170)
        misnamed = any(d.code in kubenames.REFUSED for d in f.diags.items[seen:])
        labels, _ = f.str_map(metadata, "labels")
        annotations, _ = f.str_map(metadata, "annotations")
        meta = Meta(api_version, kind, node, metadata, name, namespace, labels, annotations)
        broken = (api_version, kind, name, (namespace or 'default') if spec.namespaced else None, node)
        b = budget.current()
        if (spec.target == "workloads" or spec.generated) and b is not None \
                and not b.take_workloads(1, lambda: f.span(node)):
            self.broken(*broken)
            return
        try:
            obj = spec.read(f, meta)
            job = spec.also(f, meta) if spec.also is not None else None
        except Invalid:
            self.broken(*broken)
            raise
        except NotRead as e:
            if group == KUEUE and (f.collected or misnamed):  # the API server refuses it first (a status its CRD
                self.broken(*broken)  # refuses, a bad label), whatever Kueue would make of it: refused alone (`scope`)
                return
            if e.args:  # the reader said why (and reported it)
                self.record(node, api_version, kind, str(e.args[0]))
            else:
                self.skip(node, api_version, kind, f"kadmit reads only {PARTLY_READ.get(kind, 'some')} of this kind")
                self.created(node)  # a ConfigMap not Kueue's: in the cluster all the same
            return
        except ValidationError as e:
            if not f.collected:  # else: the placeholder of a field already reported
                where = " at `" + ".".join(map(str, e.errors()[0]["loc"])) + "`" if e.errors() else ""
                named = f" `{name}`" if name else ""
                f.diags.emit(KAD157, f"`{kind}`{named} holds an invalid value{where}", f.span(node))
            self.broken(*broken)
            return
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            if not f.collected:
                raise
            self.broken(*broken)  # a placeholder of a bad field, already reported, went on
            return
        if f.collected or misnamed or (unknown and (spec.target in ("jobs", "training_runtimes", "workloads")
                                                    or (group, kind) in STRICT_BUILTINS)):
            # every bad field (or name) was reported; the object is not used. A job, a training runtime, a Workload
            # or a built-in object with an unknown field too: `kubectl apply` (strict field validation, its default)
            # refuses it, so it is never created (refused alone: `scope._blocking`)
            self.broken(*broken)
            return
        for one in (obj if isinstance(obj, list) else [] if obj is None else [obj]):
            # Kueue's manager's `--feature-gates`, read with its Deployment (`managerflags`)
            getattr(self.fragment, "manager_flags" if isinstance(one, ManagerFlag) else spec.target).append(one)
        if job is not None:
            self.fragment.jobs.append(job)
        if spec.target != "scheduler_configs":  # the oracle reads Kueue's Configuration apart, as no object
            self.created(node)

    def created(self, node: Val) -> None:
        """An object in the cluster: its creationTimestamp, where valid, for the run's clock, which starts after the
        latest (`effective.run_start`; kueue-oracle admit.go `startOf`: every object it holds and every job)."""
        if (at := created_at(node.v.get("metadata"))) is not None:
            self.fragment.creation_times.append(at)

    def broken(self, api_version: str, kind: str, name: str, namespace: str | None, node: Val) -> None:
        """An object dropped for its errors: kept by name, so references to it resolve. A dropped
        ClusterQueue's or Cohort's cohort is kept too (as a Cohort named by a broken object): its
        quota there is unknown, so the errors touch that cohort tree."""
        if name:
            self.fragment.broken.append(ObjectRef(api_version=api_version, kind=kind, namespace=namespace,
                                                  name=name, span=self.f.span(node)))
        spec = node.v.get("spec") if kind in ("ClusterQueue", "Cohort") else None
        for key in ("cohort", "cohortName", "parent", "parentName"):
            v = spec.v.get(key) if spec is not None and spec.kind == MAP else None
            if v is not None and v.kind == STR and v.v:
                self.fragment.broken.append(ObjectRef(api_version=api_version, kind="Cohort", name=v.v,
                                                      span=self.f.span(node)))

    @staticmethod
    def metadata(node: Val, key: str) -> str | None:
        """A string of an object's metadata as written, if it is one (of an object not read)."""
        md = node.v.get("metadata")
        v = md.v.get(key) if md is not None and md.kind == MAP else None
        return v.v if v is not None and isinstance(v.v, str) else None

    def subject(self, node: Val, kind: str) -> Subject:
        """An object not read, as a diagnostic is about it (`Diagnostic.about`)."""
        text = self.metadata
        return Subject(kind, text(node, "namespace"), text(node, "name") or text(node, "generateName") or "")

    def record(self, node: Val, api_version: str, kind: str, reason: str) -> None:
        """List an object that is not read, with the reason."""
        text = self.metadata
        ref = ObjectRef(api_version=api_version, kind=kind, namespace=text(node, "namespace"),
                        name=text(node, "name") or text(node, "generateName") or "", uid=text(node, "uid"))
        self.fragment.skipped.append(Skipped(object=ref, reason=reason, span=self.f.span(node)))

    def skip(self, node: Val, api_version: str, kind: str, reason: str) -> None:
        """List an object kadmit does not read; each kind is also reported once (KAD159). Past
        SKIPPED_NAMED of a kind, the next one's entry counts the rest (`compact`)."""
        got = self.skipped.get((api_version, kind))
        if got is None:
            got = self.skipped[api_version, kind] = [self.f.span(node), 0, -1]
        got[1] += 1
        if got[1] <= SKIPPED_NAMED:
            self.record(node, api_version, kind, reason)
        elif got[2] < 0:
            got[2] = len(self.fragment.skipped)
            self.record(node, api_version, kind, reason)

    def compact(self) -> bool:
        """The entries that count the objects of a kind past SKIPPED_NAMED get their counts; whether any did."""
        out = self.fragment.skipped
        for _, count, at in self.skipped.values():
            if at >= 0 and count > SKIPPED_NAMED + 1:
                out[at] = out[at].model_copy(update={"more": count - SKIPPED_NAMED - 1})
        return any(at >= 0 and count > SKIPPED_NAMED + 1 for _, count, at in self.skipped.values())

    def report_skipped(self) -> None:
        """The file's kinds kadmit does not read, each once (`Fragment.unread_kinds`): not said here, as a file cannot
        know whether the Configuration, perhaps in another file, lists one as an external framework, whose objects
        are then read; KAD159 is said of the others once the input is merged (`manifests.jobs.external.say_unread`)."""
        for (api_version, kind), (first, count, _) in sorted(self.skipped.items()):
            many = f" ({count} objects)" if count > 1 else ""
            what = f"kind `{kind}` (`{api_version}`) is not read by kadmit"
            if kind in PARTLY_READ:
                what = f"`{kind}` objects (`{api_version}`) other than {PARTLY_READ[kind]} are not read by kadmit"
            self.fragment.unread_kinds.append(UnreadKind(api_version=api_version, kind=kind, message=f"{what}; skipped{many}",
                                                         help=unread.why(api_version.rpartition("/")[0], kind)
                                                         or _kind_help(api_version, kind), span=first))


def _kind_help(api_version: str, kind: str) -> str | None:
    """For a kind kadmit does not read: the kind of its group it reads that is spelt alike ("did you mean"),
    or the group where kadmit reads a kind of that name."""
    group = api_version.rpartition("/")[0]
    elsewhere = sorted(g or "core (v1)" for g, k in KINDS if k == kind and g != group)
    if elsewhere:
        return f"kadmit reads `{kind}` in the API group {', '.join(f'`{g}`' for g in elsewhere)}"
    return did_you_mean(kind, [k for g, k in KINDS if g == group and k != kind])  # not a partly read kind itself


def _named(item: Val) -> bool:
    """Whether a List's item names its own apiVersion and kind (so reading it doesn't depend on the List's)."""
    api, kind = item.v.get("apiVersion"), item.v.get("kind")
    return api is not None and api.kind == STR and bool(api.v) and kind is not None and kind.kind == STR and bool(kind.v)


def restartable(read: Callable, diags: Diagnostics):
    """`read(lists)`: with `lists` True, a List's items are read while parsed; if that Restarts, what
    it reported and counted is taken back and the text read with `read(False)`, its Lists whole."""
    mark = len(diags.items)
    b = budget.current()
    saved = b.save() if b is not None else None
    try:
        return read(True)
    except Restart:
        del diags.items[mark:]
        if b is not None:
            b.restore(saved)
        return read(False)


def read_manifest_text(text: str, filename: str, diags: Diagnostics) -> Fragment:
    """Read every Kueue / Kubernetes object of a YAML or JSON text (multi-document, `kind: List`
    and `*List` kinds included) into a fragment. `filename` names the file in spans. Problems
    become diagnostics in `diags`; an object with a problem is skipped, the rest are read."""
    return restartable(lambda lists: read_text(text, filename, diags, lists), diags)


def read_text(text: str, filename: str, diags: Diagnostics, lists: bool) -> Fragment:
    """`read_manifest_text`; `lists`: a List's items are read while parsed (may raise Restart)."""
    reader = _Reader(filename, diags, text)
    for doc in parse_documents(text, filename, diags, lister=reader if lists else None):
        if doc is not None:
            reader.document(doc)
    reader.finish()
    reader.compact()
    reader.report_skipped()
    return reader.fragment
