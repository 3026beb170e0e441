"""Kueue's own Configuration -> model: fair sharing and its preemption strategies.

Kueue reads its Configuration from a file that its installation ships in a ConfigMap
(`kueue-manager-config`, key `controller_manager_config.yaml`); exports hold either the
Configuration document or that ConfigMap, whose value is YAML text. The text is parsed with the
same bounded loader as every manifest, and what it says is located in the ConfigMap's file: line
for line when the value is a literal block (`|`, as kubectl and Helm write it), else at the data
field itself.
"""

from __future__ import annotations

import dataclasses
import re

from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit import featuregates
from kadmit.manifests import gates as known_gates
from kadmit.manifests import configtypes, schema
from kadmit.manifests.codes import KAD157, KAD160, KAD161, KAD174
from kadmit.manifests.configcheck import check_configuration, refused
from kadmit.manifests.fields import Fields, Invalid, Meta, NotRead
from kadmit.manifests.schema import coverage
from kadmit.manifests.yamltree import DESCRIBE, FLOAT, INT, MAP, NULL, SEQ, STR, Val, parse_documents
from kadmit.durations import parse_duration_ms
from kadmit.quantity import MILLI, QuantityError, parse_exact
from kadmit.model import AdmissionFairSharing, DeviceClassMapping, ResourceTransformation, SchedulerConfig
from kadmit.source import Span

CONFIG_GROUP = "config.kueue.x-k8s.io"
CONFIG_VERSIONS = ("v1beta1", "v1beta2")
CONFIG_KEY = "controller_manager_config.yaml"
CONFIG_MAP = "kueue-manager-config"  # the name Kueue's installation gives it

# `|`, `|-`, `|+`, optionally followed by a comment: a literal block whose indentation Kueue's
# writers leave implicit. (An explicit indentation digit is rare; such values are located at the
# data field instead.)
_LITERAL_HEADER = re.compile(r"\|[+-]?[ \t]*(#.*)?$")


def configuration(f: Fields, o: Meta) -> SchedulerConfig:
    """A Configuration document: v1beta1 turns fair sharing on with `fairSharing.enable`,
    v1beta2 by having a `fairSharing` section at all. A value Kueue can't decode into its Go type stops
    Kueue's manager before anything else (configtypes): those are all reported, and nothing more."""
    if configtypes.check(f, o.node, o.version):
        raise Invalid("Kueue can't decode the Configuration")
    fs = f.map(o.node, "fairSharing")
    enabled, enabled_at = False, fs
    if fs is not None and o.version == "v1beta1":
        enabled = f.bool(fs, "enable", default=False)
        enabled_at = f.field(fs, "enable") or fs
    elif fs is not None:
        enabled = True  # v1beta2 has no `enable` (the schema check reports it, KAD162)
    items = f.seq(fs, "preemptionStrategies")
    names = f.strs(fs, "preemptionStrategies")
    if fs is not None and o.version == "v1beta2" and not names:  # v1beta1 defaults them when enabled
        f.invalid(KAD157, refused("fairSharing.preemptionStrategies: Required value: must be specified"),
                  f.field(fs, "preemptionStrategies") or fs, uses=(f.field(fs, "preemptionStrategies"),),
                  help="list them (`preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]` "
                       "is what v1beta1 defaults to), or remove `fairSharing` to turn fair sharing off")
    jobs, job_nodes = integration_settings(f, o)
    res, res_nodes = resource_settings(f, o)
    afs, afs_node = admission_fair_sharing(f, o)
    gate_values, gates_node = feature_gates(f, o)
    check_configuration(f, o)
    # cmd/kueue's podsReadyRequeuingTimestamp: the section's requeuing timestamp where set, else Eviction; a
    # v1beta1 section without `enable: true` is dropped by the conversion to v1beta2
    wait = f.map(o.node, "waitForPodsReady")
    if o.version == "v1beta1" and not f.bool(wait, "enable", default=False):
        wait = None
    stamp = f.str(f.map(wait, "requeuingStrategy"), "timestamp")
    return SchedulerConfig(
        fair_sharing=enabled, preemption_strategies=tuple(names), span=f.span(o.node), **jobs, **res,
        # admissionfairsharing.Enabled: the section is used only with the AdmissionFairSharing gate on
        admission_fair_sharing=afs if featuregates.on(gate_values, "AdmissionFairSharing") else None,
        feature_gates=gate_values,
        pods_ready_requeuing_timestamp="Creation" if stamp == "Creation" else "Eviction",
        spans=f.spans({"fair_sharing": enabled_at, "preemption_strategies": f.field(fs, "preemptionStrategies"),
                       **{f"preemption_strategies.{i}": v for i, v in enumerate(items)}, **job_nodes,
                       **res_nodes, "admission_fair_sharing": afs_node,
                       "feature_gates": gates_node}))


DRA_GATE = "DynamicResourceAllocation"


def feature_gates(f: Fields, o: Meta) -> tuple[dict[str, bool], Val | None]:
    """`featureGates`: Kueue's gates it turns away from their defaults (AllAlpha/AllBeta applied,
    featuregates.resolve), and where they are set. A gate set to a value that may change a decision
    kadmit does not model (gates.unmodelled) is reported (KAD161): kadmit keeps Kueue v0.17.0's default
    for it. A gate set to its default, or one that decides nothing kadmit decides (gates.NO_DECISION, the
    API server library's), or one kadmit models (gates.MODELLED) is not."""
    gates = f.map(o.node, "featureGates")
    written: dict[str, bool] = {}
    for name, node in (gates.v.items() if gates is not None else ()):
        bad = known_gates.refusal(name, node.v if node.kind != STR else None)
        if bad is not None:
            f.invalid(KAD157, refused(bad[0]), node, uses=(node,), help=bad[1])
            continue
        if isinstance(node.v, bool):
            written[str(name)] = node.v
    for name, node in (gates.v.items() if gates is not None else ()):
        if name in written and (why := known_gates.unmodelled_warning(name, written)) is not None:
            f.diags.emit(KAD161, f"`featureGates.{name}` of the Configuration is not modelled: {why}; {MAY_DIFFER}",
                         f.span(node))
    return known_gates.resolve(written), gates


MAY_DIFFER = "kadmit's decision may differ from Kueue's"


def admission_fair_sharing(f: Fields, o: Meta) -> tuple[AdmissionFairSharing | None, Val | None]:
    """`admissionFairSharing`: the half-life of consumed usage, how often it is sampled (Kueue's
    default 5m) and resource weights, refused as Kueue's configuration validation refuses them."""
    afs = f.map(o.node, "admissionFairSharing")
    if afs is None:
        return None, None

    def duration(key: str, default: int) -> int:
        node = f.field(afs, key)
        if node is None:
            return default
        ms = parse_duration_ms(str(node.v)) if node.kind in (STR, INT) else None
        negative = str(node.v).startswith("-") and parse_duration_ms(str(node.v)[1:]) not in (None, 0)
        if negative:
            raise f.fail(KAD157, refused(f"admissionFairSharing.{key}: Invalid value: \"{node.v}\": "
                                         + ("must be greater than 0" if key == "usageSamplingInterval"
                                            else "must be greater than or equal to 0")), node)
        if ms is None:
            raise f.fail(KAD157, f"`admissionFairSharing.{key}` is not a duration like `168h` or `5m`", node)
        return ms

    half_life = duration("usageHalfLifeTime", 0)
    sampling = duration("usageSamplingInterval", 300_000) or 300_000  # Kueue's defaulting: cmp.Or
    weights: dict[str, float] = {}
    table = f.map(afs, "resourceWeights")
    for name, node in (table.v.items() if table is not None else ()):
        if node.kind not in (INT, FLOAT) or isinstance(node.v, bool):
            raise f.wrong_type(node, f"resourceWeights.{name}", "a number")
        if node.v < 0:
            raise f.fail(KAD157, f"`resourceWeights.{name}` must be greater than or equal to 0", node)
        weights[str(name)] = float(node.v)
    return AdmissionFairSharing(usage_half_life_ms=half_life, usage_sampling_interval_ms=sampling,
                                resource_weights=weights, span=f.span(afs)), afs


def _fine(outputs: dict[str, int], nodes: dict[str, Val]) -> dict[str, str]:
    """The output factors finer than a milli-unit, as written (ResourceTransformation.fine_outputs)."""
    out = {}
    for r, v in nodes.items():
        text = repr(v.v) if v.kind == FLOAT else str(v.v)
        try:
            exact = parse_exact(text)
        except QuantityError:
            continue  # reported as the quantity was read (KAD158)
        if r in outputs and exact * MILLI != outputs[r]:
            out[r] = text
    return out


def resource_settings(f: Fields, o: Meta) -> tuple[dict, dict]:
    """`resources`: excluded prefixes, transformations and DRA device class mappings (Kueue's
    `pkg/config/validation.go` rules are errors here too). Kueue v0.17 has no `quotaCheckStrategy`
    (its strict decoding refuses it: the schema check, KAD180)."""
    res = f.map(o.node, "resources")
    if res is None:
        return {}, {}
    out: dict = {}
    prefixes = f.strs(res, "excludeResourcePrefixes")
    transformations, seen = [], set()
    for i, t in enumerate(f.maps(res, "transformations")):
        name = f.str(t, "input", default="")  # Kueue requires none: a transformation of "" matches no resource
        if name in seen:
            raise f.fail(KAD157, refused(f'resources.transformations[{i}].input: Duplicate value: "{name}"'),
                         f.field(t, "input"), help="a resource has one transformation: merge their outputs")
        seen.add(name)
        how = f.str(t, "strategy", default="") or "Retain"  # defaulted when unset or empty
        if how not in ("Retain", "Replace"):
            raise f.fail(KAD157, refused(f'resources.transformations[{i}].strategy: Unsupported value: "{how}": '
                                         'supported values: "Retain", "Replace"'), f.field(t, "strategy"))
        # Kueue checks no sign here: a negative factor makes a negative request, which it counts
        outputs, nodes = f.resource_list(t, "outputs", signed=True)
        transformations.append(ResourceTransformation(
            input=name, strategy=how,
            multiply_by=f.str(t, "multiplyBy", default=""), outputs=outputs,
            fine_outputs=_fine(outputs, nodes), span=f.span(t)))
    mappings = []
    for m in f.maps(res, "deviceClassMappings"):
        mappings.append(DeviceClassMapping(
            name=f.str(m, "name", required=True, what="a device class mapping"),
            device_class_names=tuple(f.strs(m, "deviceClassNames", required=True, what="a device class mapping")),
            span=f.span(m)))
    _check_device_class_mappings(f, res, mappings)
    out.update(exclude_resource_prefixes=tuple(prefixes), transformations=tuple(transformations),
               device_class_mappings=tuple(mappings))
    nodes = {"exclude_resource_prefixes": f.field(res, "excludeResourcePrefixes"),
             "transformations": f.field(res, "transformations"),
             "device_class_mappings": f.field(res, "deviceClassMappings")}
    return out, nodes


MAX_DEVICE_CLASS_MAPPINGS, MAX_DEVICE_CLASSES = 16, 8  # validateDeviceClassMappings


def _check_device_class_mappings(f: Fields, res: Val, mappings: list[DeviceClassMapping]) -> None:
    """`resources.deviceClassMappings` as Kueue's validateDeviceClassMappings refuses it: at most 16, each
    name and device class a label key, a name given once, at most 8 device classes a mapping, each once,
    and a device class mapped to one resource only."""
    from kadmit.manifests.kubenames import qualified_name_problem

    path = "resources.deviceClassMappings"
    items = f.seq(res, "deviceClassMappings")
    if len(mappings) > MAX_DEVICE_CLASS_MAPPINGS:
        f.invalid(KAD157, refused(f"{path}: Too many: {len(mappings)}: must have at most "
                                  f"{MAX_DEVICE_CLASS_MAPPINGS} items"), f.field(res, "deviceClassMappings"), uses=())
    seen: set[str] = set()
    mapped: dict[str, str] = {}
    for i, (m, node) in enumerate(zip(mappings, items)):
        at = f"{path}[{i}]"
        name_node, classes_node = f.field(node, "name"), f.field(node, "deviceClassNames")
        problem = qualified_name_problem(m.name)
        if problem is not None:
            f.invalid(KAD157, refused(f"{at}.name: Invalid value: \"{m.name}\"") + f": the name {problem}",
                      name_node, uses=(name_node,))
        if m.name in seen:
            f.invalid(KAD157, refused(f"{at}.name: Duplicate value: \"{m.name}\""), name_node, uses=(name_node,))
        seen.add(m.name)
        if len(m.device_class_names) > MAX_DEVICE_CLASSES:
            f.invalid(KAD157, refused(f"{at}.deviceClassNames: Too many: {len(m.device_class_names)}: must have at "
                                      f"most {MAX_DEVICE_CLASSES} items"), classes_node, uses=(classes_node,))
        own: set[str] = set()
        for j, (dc, dc_node) in enumerate(zip(m.device_class_names, f.seq(node, "deviceClassNames"))):
            where = f"{at}.deviceClassNames[{j}]"
            problem = qualified_name_problem(dc)
            if problem is not None:
                f.invalid(KAD157, refused(f"{where}: Invalid value: \"{dc}\"") + f": the name {problem}",
                          dc_node, uses=(dc_node,))
            if dc in own:
                f.invalid(KAD157, refused(f"{where}: Duplicate value: \"{dc}\""), dc_node, uses=(dc_node,))
            own.add(dc)
            if mapped.setdefault(dc, m.name) != m.name:
                f.invalid(KAD157, refused(f"{where}: Invalid value: \"{dc}\": device class already mapped to "
                                          f"resource {mapped[dc]}"), dc_node, uses=(dc_node,))


# Kueue's framework names (apis/config/*/configuration_types.go, `Integrations.Frameworks`).
FRAMEWORKS = (
    "batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/rayservice", "ray.io/raycluster",
    "jobset.x-k8s.io/jobset", "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob", "kubeflow.org/jaxjob", "trainer.kubeflow.org/trainjob",
    "workload.codeflare.dev/appwrapper", "sparkoperator.k8s.io/sparkapplication", "pod", "deployment",
    "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset",
)


DEFAULT_FRAMEWORKS = ("batch/job",)  # apis/config/v1beta2/defaults.go: defaultJobFrameworkName


def integration_settings(f: Fields, o: Meta) -> tuple[dict, dict]:
    """Which jobs Kueue manages: `manageJobsWithoutQueueName`, `managedJobsNamespaceSelector`,
    `integrations.frameworks`. A Configuration replaces Kueue's installed one whole: frameworks it
    leaves unset (or empty) are Kueue's default, `batch/job` alone (SetDefaults_Configuration);
    the other keys unset stay None (Kueue's defaults apply). Returns SchedulerConfig fields and
    their nodes."""
    from kadmit.diagnostics import did_you_mean
    from kadmit.manifests.policy import label_selector

    out: dict = {}
    manage = f.field(o.node, "manageJobsWithoutQueueName")
    if manage is not None:
        out["manage_jobs_without_queue_name"] = f.bool(o.node, "manageJobsWithoutQueueName", default=False)
    selector = label_selector(f, o.node, "managedJobsNamespaceSelector")
    if selector is not None:
        out["managed_jobs_namespace_selector"] = selector
    integrations = f.map(o.node, "integrations")
    frameworks = f.field(integrations, "frameworks")
    names: list[str] = []
    if frameworks is not None:
        names = f.strs(integrations, "frameworks")
        seen: set[str] = set()
        for i, (item, name) in enumerate(zip(f.seq(integrations, "frameworks"), names)):
            if name not in FRAMEWORKS:
                raise f.fail(KAD157, f"`{name}` is not one of Kueue's integrations; Kueue refuses to start",
                             item, help=did_you_mean(name, FRAMEWORKS))
            if name in seen:
                f.invalid(KAD157, refused(f"integrations.frameworks[{i}]: Duplicate value: \"{name}\""), item,
                          uses=(item,), help="list each integration once")
            seen.add(name)
    out["frameworks"] = tuple(names) if frameworks is not None and names else DEFAULT_FRAMEWORKS
    external: set[str] = set()  # kinds of owners Kueue's walk up a job's controllers knows (manifests.jobs.external)
    kinds: list[tuple[str, str]] = []
    for i, (item, name) in enumerate(zip(f.seq(integrations, "externalFrameworks"),
                                         f.strs(integrations, "externalFrameworks"))):
        at = f"integrations.externalFrameworks[{i}]"
        kind = parse_kind_arg(name)
        if kind is None:  # schema.ParseKindArg finds no group-version-kind
            f.invalid(KAD157, refused(f"{at}: Invalid value: \"{name}\": must be format, 'Kind.version.group.com'"),
                      item, uses=(item,), help="name the kind as `Kind.version.group`, e.g. `AppWrapper.v1beta2.workload.codeflare.dev`")
        elif name in external:
            f.invalid(KAD157, refused(f"{at}: Duplicate value: \"{name}\""), item, uses=(item,))
        else:
            kinds.append(kind)
        external.add(name)
    if kinds:
        out["external_frameworks"] = tuple(kinds)
    if selector is not None:
        _check_managed_namespaces(f, o, selector)
    else:
        _check_default_selector(f, o)
    return out, {"manage_jobs_without_queue_name": manage, "frameworks": frameworks,
                 **{f"frameworks.{i}": item for i, item in enumerate(f.seq(integrations, "frameworks"))},
                 "managed_jobs_namespace_selector": f.field(o.node, "managedJobsNamespaceSelector")}


def parse_kind_arg(name: str) -> tuple[str, str] | None:
    """(apiVersion, kind) of an `integrations.externalFrameworks` item, as schema.ParseKindArg reads
    `Kind.version.group` (None: fewer than two dots, which Kueue's validation refuses)."""
    if name.count(".") < 2:
        return None
    kind, version, group = name.split(".", 2)
    return (f"{group}/{version}" if group else version), kind


KUEUE_NAMESPACE = "kueue-system"  # apis/config/v1beta2/defaults.go: DefaultNamespace


def _check_managed_namespaces(f: Fields, o: Meta, selector) -> None:
    """`managedJobsNamespaceSelector` must leave out `kube-system` and Kueue's own namespace (the
    Configuration's `namespace`, default `kueue-system`): validateManagedJobsNamespaceSelector."""
    node = f.field(o.node, "managedJobsNamespaceSelector")
    own = f.field(o.node, "namespace")
    namespaces = ["kube-system", str(own.v) if own is not None and own.kind == STR and own.v else KUEUE_NAMESPACE]
    for ns in namespaces:
        if selector.matches({"kubernetes.io/metadata.name": ns}):
            f.invalid(KAD157, refused(f"managedJobsNamespaceSelector: should not match the \"{ns}\" namespace"),
                      node, uses=(),
                      help=f"leave `{ns}` out, e.g. `matchExpressions: [{{key: kubernetes.io/metadata.name, "
                           f"operator: NotIn, values: [kube-system, {namespaces[1]}]}}]` (Kueue's default)")


def _check_default_selector(f: Fields, o: Meta) -> None:
    """With no `managedJobsNamespaceSelector`, Kueue's defaulting writes one leaving out `kube-system` and the
    Configuration's `namespace` (NotIn [kube-system, namespace]), and its validation checks that selector: the
    namespace must be a label value (ValidateLabelSelector)."""
    from kadmit.manifests.kubenames import label_value_problem

    own = f.field(o.node, "namespace")
    if own is None or own.kind != STR or (problem := label_value_problem(str(own.v))) is None:
        return
    f.invalid(KAD157, refused(f'managedJobsNamespaceSelector.matchExpressions[0].values[1]: Invalid value: "{own.v}"')
              + f": the namespace {problem}", own, uses=(own,),
              help="Kueue's default selector leaves out its own namespace by name, so the name must be a label "
                   "value; or set `managedJobsNamespaceSelector` yourself")


def config_map(f: Fields, o: Meta) -> list[SchedulerConfig]:
    """Kueue's ConfigMap: the Configuration in its `controller_manager_config.yaml`. Any other
    ConfigMap is not read (`NotRead`)."""
    data = o.node.v.get("data")
    value = data.v.get(CONFIG_KEY) if data is not None and data.kind == MAP else None
    if value is None:
        raise NotRead
    if value.kind != STR:
        raise f.wrong_type(value, CONFIG_KEY, "a string (the Configuration as YAML text)")
    inner = Diagnostics()
    offset = _literal_offset(f.text, value)
    # Kueue's loader reads the first YAML document of the text only (one go-yaml Unmarshal): the rest is
    # never read, its problems neither (KAD174 at the second)
    reading = parse_documents(value.v, f.file, inner, strict=True, shift=None if offset is None else offset[0])
    first = next(reading, _END)
    seen = len(inner.items)
    second = next((d for d in reading if d is not None and d.kind != NULL), _END)  # a later one saying something
    del inner.items[seen:]
    empty = first is _END or first is None or first.kind == NULL
    if first is _END and inner.items:  # the text can't be read (KAD150 says why): Kueue does not start
        docs = []
    elif empty:  # nothing: Kueue decodes an empty Configuration, defaulted
        first = Val(MAP, {}, value.line, value.col, value.end_line, value.end_col)
        first.keys = {}
        docs = [first]
    else:
        docs = [first]
    if o.name != CONFIG_MAP and not any(_names_configuration(d) for d in docs):
        # another operator's manager ConfigMap under the same key (LWS's `lws-manager-config`, JobSet's):
        # Kueue reads only its own, so it is a ConfigMap like any other
        raise NotRead
    place = _Placement(f, value)
    for d in inner:
        f.diags.add(place.diagnostic(d))
    if second is not _END:
        where = place.span(second.span(f.file))
        f.diags.emit(KAD174, f"`{CONFIG_KEY}` holds more than one YAML document; Kueue reads the first only",
                     where, help="put one Configuration in the text; Kueue never reads what follows it")
    configs = []
    for doc in docs:
        if not empty:
            place.move(doc)
        try:
            configs.append(_embedded(f, o, doc, value))
        except Invalid:
            continue
    return configs


_END = object()  # no further document


def _names_configuration(doc: Val) -> bool:
    """Whether a document of a ConfigMap's text says it is Kueue's Configuration (its group)."""
    api = doc.v.get("apiVersion") if doc.kind == MAP else None
    return api is not None and api.kind == STR and api.v.rpartition("/")[0] == CONFIG_GROUP


def _embedded(f: Fields, o: Meta, doc: Val, value: Val) -> SchedulerConfig:
    """The first document of the ConfigMap's text, which Kueue decodes as its Configuration: without
    `apiVersion` or `kind` it is the type Kueue decodes into, `config.kueue.x-k8s.io/v1beta2` `Configuration`
    (the decoder's defaults for an unset group-version and kind)."""
    where = f"`{CONFIG_KEY}` of ConfigMap `{o.name}`"
    if doc.kind != MAP:
        raise f.fail(KAD157, f"{where} holds {DESCRIBE[doc.kind]}, not Kueue's `Configuration`", doc)
    api_version = f.str(doc, "apiVersion", default="") or f"{CONFIG_GROUP}/{CONFIG_VERSIONS[-1]}"
    kind = f.str(doc, "kind", default="") or "Configuration"
    group, _, version = api_version.rpartition("/")
    if (group, kind) != (CONFIG_GROUP, "Configuration"):
        raise f.fail(KAD157, f"{where} holds `{kind}` (`{api_version}`), not Kueue's `Configuration`",
                     f.field(doc, "kind"), help=f"Kueue reads it as `{CONFIG_GROUP}` `Configuration`")
    if version not in CONFIG_VERSIONS:
        known = ", ".join(f"`{CONFIG_GROUP}/{v}`" for v in CONFIG_VERSIONS)
        f.diags.emit(KAD160, f"`Configuration` in `{api_version}` is not read by kadmit; skipped",
                     f.span(f.field(doc, "apiVersion")), help=f"kadmit reads {known}")
        raise Invalid(api_version)
    what = f"the `Configuration` of ConfigMap `{o.name}`"
    schema.check(f, doc, group, version, kind, what=what)
    coverage.warn_unmodelled(f, doc, kind, what)
    return configuration(f, Meta(api_version, kind, doc, None, "", None, {}, {}))


class _Placement:
    """Where the embedded text's positions lie in the ConfigMap's file."""

    def __init__(self, f: Fields, value: Val) -> None:
        self.value = value
        self.field_span = f.span(value)
        self.offset = _literal_offset(f.text, value)

    def move(self, doc: Val) -> None:
        """Relocate every node of a parsed document (shared alias targets once)."""
        seen: set[int] = set()
        stack = [doc]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            self._node(node)
            if node.kind == MAP:
                stack.extend(node.v.values())
            elif node.kind == SEQ:
                stack.extend(node.v)

    def _node(self, node: Val) -> None:
        v = self.value
        if self.offset is None:
            node.line, node.col, node.end_line, node.end_col = v.line, v.col, v.end_line, v.end_col
            if node.kind == MAP:
                node.keys = {k: (v.line, v.col, v.end_line, v.end_col) for k in node.keys}
            return
        dl, dc = self.offset
        node.line, node.col, node.end_line, node.end_col = (
            node.line + dl, node.col + dc, node.end_line + dl, node.end_col + dc)
        if node.kind == MAP:
            node.keys = {k: (a + dl, b + dc, c + dl, d + dc) for k, (a, b, c, d) in node.keys.items()}

    def span(self, s: Span | None) -> Span | None:
        if s is None or self.offset is None:
            return self.field_span
        dl, dc = self.offset
        return Span(file=s.file, line=s.line + dl, column=s.column + dc,
                    end_line=None if s.end_line is None else s.end_line + dl,
                    end_column=None if s.end_column is None else s.end_column + dc)

    def diagnostic(self, d: Diagnostic) -> Diagnostic:
        """A problem of the embedded text, where it is in the file."""
        message = d.message
        if self.offset is None and d.span is not None:
            message += f" (line {d.span.line}, column {d.span.column} of `{CONFIG_KEY}`)"
        return dataclasses.replace(
            d, message=message, span=self.span(d.span),
            labels=tuple(dataclasses.replace(lb, span=self.span(lb.span)) for lb in d.labels))


def _literal_offset(text: str | None, value: Val) -> tuple[int, int] | None:
    """(lines, columns) to add to a position in the value's text to find it in the file, when the
    value is a literal block scalar: its lines are the file's lines after the `|` header, each
    indented alike. Checked line by line against the file; None when anything differs."""
    if text is None:
        return None
    lines = text.splitlines()
    if value.line >= len(lines) or not _LITERAL_HEADER.match(lines[value.line][value.col:].rstrip()):
        return None
    body = value.v.split("\n")
    if body and body[-1] == "":
        body.pop()
    first = value.line + 1
    indent = next((len(ln) - len(ln.lstrip(" ")) for ln in lines[first:first + len(body)] if ln.strip()), 0)
    if first + len(body) > len(lines) or indent == 0:
        return None
    for k, content in enumerate(body):
        source = lines[first + k]
        if (source[indent:] if source.strip() else "") != content and source[indent:] != content:
            return None
    return first, indent
