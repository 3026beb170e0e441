"""What Kueue's webhooks refuse on create for every job kind, in Kueue's words (field path, value
and the validation's message, as `field.ErrorList` prints them): the jobs' queue-name and
max-execution-time labels (jobframework `ValidateJobOnCreate`, `ValidateQueueName`) and the
topology annotations of their pod templates (`ValidateTASPodSetRequest`, with the slice layers
annotation under either value of TASMultiLayerTopology), and the pod-set groups of JobSets, LeaderWorkerSets,
MPIJobs, RayClusters and RayJobs (`ValidatePodSetGroupingTopology`). `manage` decides
whether a refusal applies (the integration enabled, the gate's value) and reports it (KAD170)."""

from __future__ import annotations

import re

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.layers import ANNOTATION as LAYERS, parse as parse_layers
from kadmit.manifests.yamltree import Val
from kadmit.model import PodSet, Refusal
from kadmit.modelscheduling import SUBDOMAIN, SUBDOMAIN_MESSAGE, label_key_errors

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
MAX_EXEC_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
PREBUILT_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
# jobframework's supportedPrebuiltWlJobGVKs: the kinds whose webhook lets a job name a prebuilt Workload
PREBUILT_KINDS = {("batch", "Job"), ("jobset.x-k8s.io", "JobSet"), ("kubeflow.org", "TFJob"),
                  ("kubeflow.org", "PaddleJob"), ("kubeflow.org", "PyTorchJob"), ("kubeflow.org", "XGBoostJob"),
                  ("trainer.kubeflow.org", "TrainJob"), ("kubeflow.org", "MPIJob"), ("ray.io", "RayJob"),
                  ("", "Pod"), ("ray.io", "RayCluster"), ("ray.io", "RayService"),
                  ("workload.codeflare.dev", "AppWrapper")}
# Integrations whose webhook checks only the queue name (ValidateQueueName), not the rest of
# jobframework.ValidateJobOnCreate.
QUEUE_NAME_ONLY = {"leaderworkerset.x-k8s.io/leaderworkerset", "statefulset", "deployment"}
# Integrations whose webhook leaves the template's topology annotations alone (no ValidateTASPodSetRequest): Kueue's
# pod webhook refuses their pods instead (`templatepods.template_refusals`)
TAS_UNCHECKED = {"statefulset", "deployment"}

_ATOI = re.compile(r"^[+-]?[0-9]+$")


def go_quote(text: str) -> str:
    """A string as Go's `%q` and field errors show it (for the plain text labels hold)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def go_atoi(text: str) -> tuple[int | None, str]:
    """`strconv.Atoi`: the value, or Go's error message."""
    if not _ATOI.match(text):
        return None, f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax"
    value = int(text)
    if not -2**63 <= value < 2**63:
        return None, f"strconv.Atoi: parsing {go_quote(text)}: value out of range"
    return value, ""


def dns_subdomain_errors(value: str) -> list[str]:
    """k8s.io/apimachinery/pkg/util/validation's IsDNS1123Subdomain (its length in characters)."""
    return (["must be no more than 253 characters"] if len(value) > 253 else []) + \
        ([] if SUBDOMAIN.fullmatch(value) else [SUBDOMAIN_MESSAGE])


def qualified_name_errors(value: str) -> list[str]:
    """`IsQualifiedName`, which apimachinery v0.35 (Kueue v0.17.0's) makes content.IsLabelKey: its words
    (`modelscheduling.label_key_errors`; oracle: "a valid label key ..." where a value has two slashes)."""
    return label_key_errors(value)


def _label_node(f: Fields, m: Val | None, key: str) -> Val | None:
    return f.field(f.map(m, "labels"), key) if m is not None else None


def job_refusals(f: Fields, o: Meta, framework: str) -> tuple[Refusal, ...]:
    """What every integration's webhook refuses on create, whether Kueue manages the job or not:
    a queue name that is not a DNS subdomain, as CRD names are; a `max-exec-time-seconds` label
    that is not a positive integer (not checked for LeaderWorkerSet, StatefulSet, Deployment)."""
    out = []
    queue = o.labels.get(QUEUE_LABEL)
    if queue is not None and (errors := dns_subdomain_errors(queue)):
        out.append(Refusal(message=f"metadata.labels[{QUEUE_LABEL}]: Invalid value: {go_quote(queue)}: "
                                   + ",".join(errors), managed_only=False,
                           span=f.span(_label_node(f, o.metadata, QUEUE_LABEL))))
    prebuilt = o.labels.get(PREBUILT_LABEL)
    if prebuilt is not None and framework not in QUEUE_NAME_ONLY:  # validateCreateForPrebuiltWorkload
        at = f.span(_label_node(f, o.metadata, PREBUILT_LABEL))
        if errors := dns_subdomain_errors(prebuilt):
            out.append(Refusal(message=f"metadata.labels[{PREBUILT_LABEL}]: Invalid value: {go_quote(prebuilt)}: "
                                       + ",".join(errors), managed_only=False, span=at))
        if (o.group, o.kind) not in PREBUILT_KINDS:
            out.append(Refusal(message=f"metadata.labels[{PREBUILT_LABEL}]: Forbidden: Is not supported for "
                                       f"{go_quote(f'{o.group}/{o.version}, Kind={o.kind}')}", managed_only=False, span=at))
    text = o.labels.get(MAX_EXEC_LABEL)
    if text is not None and framework not in QUEUE_NAME_ONLY:
        value, error = go_atoi(text)
        message = (f"Invalid value: {go_quote(text)}: {error}" if value is None else
                   f"Invalid value: {value}: should be greater than 0" if value <= 0 else "")
        if message:
            out.append(Refusal(message=f"metadata.labels[{MAX_EXEC_LABEL}]: {message}", managed_only=False,
                               span=f.span(_label_node(f, o.metadata, MAX_EXEC_LABEL))))
    return tuple(out)


REQUIRED, PREFERRED, UNCONSTRAINED = (f"kueue.x-k8s.io/podset-{m}-topology" for m in ("required", "preferred",
                                                                                       "unconstrained"))
SLICE_LEVEL, SLICE_SIZE = "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size"
SET_GROUP = "kueue.x-k8s.io/podset-group-name"
_GO_BOOLS = {"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"}


def topology_refusals(f: Fields, metadata: Val | None, count: int | None = None) -> list[Refusal]:
    """What `ValidateTASPodSetRequest` refuses of a pod template's topology annotations, in its
    order and words: more than one mode, levels that are not label names, a pod-set group name
    that is a number or comes with slices or without a level, an unconstrained value that is not a
    Go boolean, a slice size that is not an integer of at least 1, a slice level without a size or
    a size without a level; then (`ValidateSliceSizeAnnotationUpperBound`, reached only when all
    that passes) a slice size above the pod set's `count`. The message starts at `annotations`:
    the path above depends on where each kind keeps the template."""
    annotations = f.map(metadata, "annotations")
    values = {k: f.str(annotations, k) for k in (REQUIRED, PREFERRED, UNCONSTRAINED, SLICE_LEVEL, SLICE_SIZE,
                                                 SET_GROUP, LAYERS)} if annotations is not None else {}
    found = {k for k, v in values.items() if v is not None}
    out: list[tuple[str, str | None]] = []
    if len(found & {REQUIRED, PREFERRED, UNCONSTRAINED}) > 1:
        out.append(("annotations: Invalid value: must not contain more than one topology annotation: "
                    f'["{REQUIRED}", "{PREFERRED}", "{UNCONSTRAINED}"]', None))
    for key in (REQUIRED, PREFERRED, SLICE_LEVEL):
        if key in found:
            out += [(f"annotations[{key}]: Invalid value: {go_quote(values[key])}: {e}", key)
                    for e in qualified_name_errors(values[key])]
    if SET_GROUP in found:
        group = values[SET_GROUP]
        if group.isascii() and group.isdigit() and int(group) < 2**64:  # strconv.ParseUint succeeds
            out.append((f"annotations[{SET_GROUP}]: Invalid value: {go_quote(group)}: must not be a number", SET_GROUP))
        for key in (SLICE_SIZE, SLICE_LEVEL):
            if key in found:
                out.append((f"annotations[{SET_GROUP}]: Forbidden: may not be set when '{key}' is specified", SET_GROUP))
        if not found & {REQUIRED, PREFERRED}:
            out.append((f"annotations[{SET_GROUP}]: Forbidden: may not be set when neither '{PREFERRED}' nor "
                        f"'{REQUIRED}' is specified", SET_GROUP))
    if UNCONSTRAINED in found and values[UNCONSTRAINED] not in _GO_BOOLS:
        out.append((f"annotations[{UNCONSTRAINED}]: Invalid value: {go_quote(values[UNCONSTRAINED])}: "
                    "must be a boolean value", UNCONSTRAINED))
    size = _go_int32(values[SLICE_SIZE]) if SLICE_SIZE in found else None
    if SLICE_SIZE in found:
        if size is None:
            out.append((f"annotations[{SLICE_SIZE}]: Invalid value: {go_quote(values[SLICE_SIZE])}: "
                        "must be a numeric value", SLICE_SIZE))
        elif size < 1:
            out.append((f"annotations[{SLICE_SIZE}]: Invalid value: {go_quote(values[SLICE_SIZE])}: "
                        "must be greater than or equal to 1", SLICE_SIZE))
    if SLICE_LEVEL in found and SLICE_SIZE not in found:
        out.append((f"annotations[{SLICE_SIZE}]: Required value: must be set when '{SLICE_LEVEL}' is specified",
                    SLICE_LEVEL))
    if SLICE_SIZE in found and SLICE_LEVEL not in found:
        out.append((f"annotations[{SLICE_SIZE}]: Forbidden: may not be set when '{SLICE_LEVEL}' is not specified",
                    SLICE_SIZE))
    # the slice layers annotation: refused with TASMultiLayerTopology off, checked with it on (`layer_refusals`)
    gated = [(message, key, on) for on in (False, True)
             for message, key in layer_refusals(values, found, count if not out else None, on)]
    if not out and count is not None and size is not None and size > count and LAYERS not in found:
        out.append((f"annotations[{SLICE_SIZE}]: Invalid value: {go_quote(values[SLICE_SIZE])}: "
                    f"must not be greater than pod set count {count}", SLICE_SIZE))
    return [Refusal(message=message, managed_only=False, multi_layer=on,
                    span=f.span(f.field(annotations, key) if key else f.field(metadata, "annotations")))
            for message, key, on in [(m, k, None) for m, k in out] + gated]


def gate_on(refusals) -> list[Refusal]:
    """Of a JobSet's child Job's refusals, those Kueue's Job webhook has where the JobSet's own got past its: the
    slice layers annotation's with TASMultiLayerTopology on (off, the JobSet's webhook refuses the annotation
    first, `manage._refused`, whatever its Jobs would get)."""
    return [r for r in refusals if r.multi_layer is not False]


def layer_refusals(values: dict[str, str | None], found: set[str], count: int | None,
                   on: bool) -> list[tuple[str, str | None]]:
    """What Kueue's webhook refuses of the slice layers annotation with TASMultiLayerTopology `on` or off
    (validateSliceRequiredTopologyConstraintsAnnotation, in its order and words): off, the annotation; on,
    the slice level, slice size and pod-set group annotations beside it, JSON that isn't an array of layers,
    other than 1 to 3 layers, a layer's level that is not a label name or its size below 1, a level twice, a
    size that does not divide the one above it; then (`ValidateSliceSizeAnnotationUpperBound`, where
    nothing else was refused: `count` given) a first size above the pod set's count."""
    if LAYERS not in found:
        return []
    path, text = f"annotations[{LAYERS}]", values[LAYERS] or ""
    if not on:
        return [(f"{path}: Forbidden: the TASMultiLayerTopology feature gate must be enabled to use this annotation",
                 LAYERS)]
    out: list[tuple[str, str | None]] = []
    for key in (SLICE_LEVEL, SLICE_SIZE):
        if key in found:
            out.append((f"{path}: Forbidden: may not be set when '{key}' is specified", LAYERS))
    if SET_GROUP in found:
        out.append((f"annotations[{SET_GROUP}]: Forbidden: may not be set when '{LAYERS}' is specified", SET_GROUP))
    layers = parse_layers(text)
    if isinstance(layers, str):
        return out + [(f"{path}: Invalid value: {go_quote(text)}: must be a valid JSON array: {layers}", LAYERS)]
    if not 1 <= len(layers) <= 3:
        return out + [(f"{path}: Invalid value: {go_quote(text)}: topology constraints must contain between 1 "
                       "and 3 entries", LAYERS)]
    for i, (level, size) in enumerate(layers):
        out += [(f"{path}[{i}].topology: Invalid value: {go_quote(level)}: {e}", LAYERS)
                for e in qualified_name_errors(level)]
        if size < 1:
            out.append((f"{path}[{i}].size: Invalid value: {size}: must be greater than or equal to 1", LAYERS))
    seen: dict[str, int] = {}
    for i, (level, _) in enumerate(layers):
        if level in seen:
            out.append((f"{path}[{i}].topology: Duplicate value: {go_quote(f'{level} (also at index {seen[level]})')}",
                        LAYERS))
        else:
            seen[level] = i
    for i in range(len(layers) - 1):
        (_, outer), (_, size) = layers[i], layers[i + 1]
        if size > 0 and abs(outer) % size:  # (Go's `%`: the sign of `outer`)
            out.append((f"{path}[{i + 1}].size: Invalid value: {size}: must evenly divide the parent layer size "
                        f"{outer}", LAYERS))
    if not out and count is not None and layers[0][1] > count:
        out.append((f"{path}: Invalid value: {layers[0][1]}: must not be greater than pod set count {count}", LAYERS))
    return out


def group_refusals(f: Fields, pod_sets: list[tuple[PodSet, Val | None, str]]) -> list[Refusal]:
    """What `ValidatePodSetGroupingTopology` refuses of the pod-set groups of a JobSet, a
    LeaderWorkerSet, MPIJob, RayCluster or RayJob, in its order and words: a group of
    other than exactly 2 pod sets, a group where neither pod set has 1 pod, a group whose two pod
    sets ask for different levels. `pod_sets`: each pod set, its template's metadata and the field
    path of its annotations in the object."""
    groups: dict[str, list[tuple[PodSet, Val | None, str]]] = {}
    for entry in pod_sets:
        t = entry[0].topology
        if t is not None and t.group is not None:
            groups.setdefault(t.group, []).append(entry)
    out: list[tuple[str, Val | None]] = []
    for name, members in groups.items():
        if len(members) != 2:
            out += [(f"{path}[{SET_GROUP}]: Invalid value: {go_quote(name)}: can only define groups of exactly 2 "
                     f"pod sets, got: {len(members)} pod set(s)", meta) for _, meta, path in members]
            continue
        (a, meta_a, path_a), (b, meta_b, path_b) = members
        if a.count != 1 and b.count != 1:
            why = (f"can only define groups where at least one pod set has only 1 replica, got: {a.count} "
                   f"replica(s) and {b.count} replica(s) in the group")
            out += [(f"{path}[{SET_GROUP}]: Invalid value: {go_quote(name)}: {why}", meta)
                    for path, meta in ((path_a, meta_a), (path_b, meta_b))]
        ta, tb = a.topology, b.topology
        assert ta is not None and tb is not None
        if (ta.mode, ta.level) != (tb.mode, tb.level):
            why = f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with '%s' in group '{name}'"
            out += [(f"{path_a}: Invalid value: {why % path_b}", meta_a), (f"{path_b}: Invalid value: {why % path_a}", meta_b)]
    return [Refusal(message=message, managed_only=False,
                    span=f.span(f.field(f.map(meta, "annotations"), SET_GROUP) or meta))
            for message, meta in out]


def _go_int32(text: str) -> int | None:
    """`strconv.ParseInt(text, 10, 32)`: the value, or None where Go answers an error."""
    if not _ATOI.match(text):
        return None
    value = int(text)
    return value if -2**31 <= value < 2**31 else None
