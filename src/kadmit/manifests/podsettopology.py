"""A pod set's topology request as Kueue reads it: a Workload's `topologyRequest`, else the pod template's
annotations (mode, pod-set group, slices, layers), checked as Kueue's webhook checks a job's
(jobframework.ValidateTASPodSetRequest) or read as its jobframework builds the request of a job already
in the cluster (podSetTopologyRequestBuilder.Build)."""

from __future__ import annotations

from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields
from kadmit.manifests.layers import ANNOTATION as LAYERS, FIELD as LAYERS_FIELD, annotation_layers, workload_layers
from kadmit.manifests.yamltree import STR, Val
from kadmit.model import TopologyRequest
from kadmit.source import Spans

TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-{}-topology"
TOPOLOGY_MODES = ("required", "preferred", "unconstrained")  # also the keys of `topologyRequest`


SLICE_LEVEL = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"


def _check_group(f: Fields, annotations: Val | None) -> Val | None:
    """The pod-set group annotation as Kueue's webhook checks it: not a number, and not with slices."""
    group = f.field(annotations, GROUP_NAME)
    if group is None:
        return None
    if group.kind == STR and group.v.isdigit() or isinstance(group.v, int):
        raise f.fail(KAD157, f"`{GROUP_NAME}` must not be a number", group)
    for key in (SLICE_SIZE, SLICE_LEVEL):
        if f.field(annotations, key) is not None:
            raise f.fail(KAD157, f"`{key}` cannot be set when `{GROUP_NAME}` is present", annotations.v[key])
    return group


def _group(f: Fields, request: Val | None, group_annotation: Val | None, from_annotations: bool,
           mode: str) -> str | None:
    """The pod set's group (Kueue's `podSetGroupName`): a Workload's `topologyRequest.podSetGroupName`;
    from a job's template, the annotation, which Kueue's jobframework keeps only beside a required or
    preferred level (`NewPodSetTopologyRequest`)."""
    if not from_annotations:
        node = f.field(request, "podSetGroupName")
        if node is None:
            return None
        if node.kind != STR or not node.v:
            raise f.wrong_type(node, "podSetGroupName", "a pod-set group name")
        return node.v
    if group_annotation is None or mode not in ("required", "preferred"):
        return None
    return str(group_annotation.v)


def _slices(f: Fields, request: Val | None, annotations: Val | None, count: int,
            webhook: bool = True) -> tuple[str | None, int | None]:
    """Pod-set slices, validated as Kueue's webhook does (jobframework.ValidateTASPodSetRequest):
    the slice level needs a size, a size needs the level, and the size is an integer in 1..count; a
    Workload's own fields beside a topology mode as its scheduler reads them (below). A job already in the
    cluster (`webhook` False: it passed no webhook of Kueue's) has its annotations read as Kueue's
    jobframework builds the request (podSetTopologyRequestBuilder.Build): slices where both the level and the
    size are there, any integer size (a negative one places nothing, as on a Workload)."""
    # a Workload's `podsetSliceRequiredTopologyConstraints`: its first layer is the slice level and size
    # Kueue's scheduler takes (sliceLevelKeyWithDefault, after `podSetSliceRequiredTopology`;
    # getSliceSizeWithSinglePodAsDefault, before `podSetSliceSize`) whatever TASMultiLayerTopology says;
    # only the inner layers need the gate (`placement.layers`, `effective.gated`)
    layers = f.maps(request, "podsetSliceRequiredTopologyConstraints") if request is not None else []
    first = layers[0] if layers else None
    own = request is not None and (f.field(request, "podSetSliceRequiredTopology") is not None
                                   or f.field(request, "podSetSliceSize") is not None or first is not None)
    if own and (f.field(request, "podSetSliceRequiredTopology") is not None or first is not None
                or any(f.field(request, mode) is not None for mode in TOPOLOGY_MODES)):
        # a Workload's own fields (with the level, or beside a topology mode): no webhook or CRD rule checks
        # them (only a job's annotations are, by jobframework); Kueue's scheduler ignores a size without the
        # level, leaves a level without a size pending (getSliceSizeWithSinglePodAsDefault:
        # kadmit.placement.tas says so), and places count // size whole slices (none where the size is
        # above the count). A size alone, with no mode, stays refused below (not checked against Kueue)
        level_node = f.field(request, "podSetSliceRequiredTopology") or f.field(first, "topology")
        size_holder, size_key = (first, "size") if first is not None else (request, "podSetSliceSize")
        size_node = f.field(size_holder, size_key)
        if level_node is None:
            return None, None
        if level_node.kind != STR or not level_node.v:
            raise f.wrong_type(level_node, "podSetSliceRequiredTopology", "a topology level (a node label key)")
        if size_node is None:
            return level_node.v, None
        size = f.int(size_holder, size_key)
        if size is None or size == 0:  # 0 divides by zero in Kueue's scheduler (a panic)
            raise f.fail(KAD157, "`podSetSliceSize` must not be 0 (Kueue's scheduler divides by it)", size_node)
        return level_node.v, size  # a negative size: pending (kadmit.placement.tas), as Kueue leaves it
    if own:
        level_node, size_node = f.field(request, "podSetSliceRequiredTopology"), f.field(request, "podSetSliceSize")
        level_key, size_key = "podSetSliceRequiredTopology", "podSetSliceSize"
    else:
        level_node, size_node = f.field(annotations, SLICE_LEVEL), f.field(annotations, SLICE_SIZE)
        level_key, size_key = SLICE_LEVEL, SLICE_SIZE
    if level_node is None and size_node is None or not webhook and (level_node is None or size_node is None):
        return None, None
    if level_node is None:
        raise f.fail(KAD157, f"`{size_key}` cannot be set when `{level_key}` is not present", size_node)
    if level_node.kind != STR or not level_node.v:
        raise f.wrong_type(level_node, level_key, "a topology level (a node label key)")
    if size_node is None:
        raise f.fail(KAD157, f"slice size (`{size_key}`) is required if slice topology is requested", level_node)
    try:
        size = size_node.v if isinstance(size_node.v, int) and not isinstance(size_node.v, bool) else int(str(size_node.v), 10)
    except ValueError:
        raise f.fail(KAD157, f"`{size_key}` must be a numeric value", size_node) from None
    if not webhook and size != 0 and level_node.kind == STR and level_node.v:
        return level_node.v, size  # (0: Kueue's scheduler divides by it, refused below)
    if size < 1:
        raise f.fail(KAD157, f"`{size_key}` must be greater than or equal to 1", size_node)
    if size > count:
        raise f.fail(KAD157, f"`{size_key}` ({size}) must not be greater than pod set count {count}", size_node)
    return level_node.v, size


def topology_request(f: Fields, ps: Val | None, template_meta: Val | None, count: int = 1,
                     webhook: bool = True) -> tuple[TopologyRequest | None, Val | None]:
    """The pod set's topology request: `topologyRequest` if present, else the template annotations."""
    request = f.map(ps, "topologyRequest")
    annotations = f.map(template_meta, "annotations")
    if request is None and annotations is None:  # most pod sets: nothing below to read
        return None, None
    found: list[tuple[str, Val]] = []
    if request is not None:
        found = [(mode, request.v[mode]) for mode in TOPOLOGY_MODES if f.field(request, mode) is not None]
    from_annotations = not found
    if not found:
        found = [(mode, annotations.v[TOPOLOGY_ANNOTATION.format(mode)]) for mode in TOPOLOGY_MODES
                 if f.field(annotations, TOPOLOGY_ANNOTATION.format(mode)) is not None]
    group_annotation = _check_group(f, annotations) if webhook else f.field(annotations, GROUP_NAME)
    group_node = group_annotation if from_annotations else f.field(request, "podSetGroupName")
    group_spans = Spans(items={"group": f.span(group_node)} if group_node is not None else {})
    slice_level, slice_size = _slices(f, request, annotations, count, webhook)
    layers, annotated = workload_layers(f, request), annotation_layers(f, annotations) if from_annotations else ()
    how = {"layers": annotated or layers, "layers_annotation": ("mode" if found else "alone") if annotated else "",
           "plain_slices": (slice_level, slice_size) if annotated and slice_level is not None else None}
    slice_level, slice_size = annotated[0] if annotated else (slice_level, slice_size)  # the gate off: `effective.gated`
    if not found:
        if slice_level is None:
            return None, None
        node = (f.field(request, "podSetSliceRequiredTopology") or f.field(request, LAYERS_FIELD)
                or f.field(annotations, SLICE_LEVEL) or f.field(annotations, LAYERS))
        return TopologyRequest(mode="unconstrained", slice_level=slice_level, slice_size=slice_size, **how,
                               group=_group(f, request, group_annotation, from_annotations, "unconstrained"),
                               span=f.span(node), spans=group_spans), node
    if len(found) > 1 and not webhook:
        found = found[:1]  # Build's switch: required, else preferred, else unconstrained
    if len(found) > 1:
        modes = " and ".join(f"`{m}`" for m, _ in found)
        raise f.fail(KAD157, f"a pod set can ask for one topology mode, not {modes}", found[1][1])
    mode, node = found[0]
    group = _group(f, request, group_annotation, from_annotations, mode)
    if mode == "unconstrained":
        if not ((node.kind == STR and node.v.lower() == "true") or node.v is True):
            raise f.fail(KAD157, "the unconstrained topology request takes `true`", node)
        return TopologyRequest(mode=mode, level=None, slice_level=slice_level, slice_size=slice_size, **how,
                               group=group, span=f.span(node), spans=group_spans), node
    if node.kind != STR or not node.v:
        raise f.wrong_type(node, mode, "a topology level (a node label key)")
    return TopologyRequest(mode=mode, level=node.v, slice_level=slice_level, slice_size=slice_size, **how,
                           group=group, span=f.span(node), spans=group_spans), node
