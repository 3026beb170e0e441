"""A pod set's slice layers (`podsetSliceRequiredTopologyConstraints`, feature gate TASMultiLayerTopology):
a Workload's own field, or a job template's annotation
`kueue.x-k8s.io/podset-slice-required-topology-constraints`, a JSON array of `{"topology", "size"}`
read as Kueue's jobframework reads it (podSetTopologyRequestBuilder.Build, Kueue v0.17.0's
pkg/controller/jobframework/tas.go) and refused as its webhook refuses it
(validateSliceRequiredTopologyConstraintsAnnotation, tas_validation.go), in its words. The placement
of the layers is `placement.layers`; `effective.gated` keeps one layer with the gate off."""

from __future__ import annotations

import json
import re

from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import INT, STR, Val

ANNOTATION = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
FIELD = "podsetSliceRequiredTopologyConstraints"
INT32 = (-2**31, 2**31)


def workload_layers(f: Fields, request: Val | None) -> tuple[tuple[str, int], ...]:
    """A Workload's own layers, as its CRD takes them: at most 3, each a `topology` and a `size` of at
    least 1, both required (the API server refuses the Workload otherwise); the first is also read as the
    pod set's slices (`podsettopology._slices`, which checks its type)."""
    node = f.field(request, FIELD) if request is not None else None
    layers = f.maps(request, FIELD) if node is not None else []
    if len(layers) > 3:
        raise f.fail(KAD157, f"`{FIELD}` has {len(layers)} layers; the Workload CRD takes at most 3", node)
    out = []
    for i, layer in enumerate(layers):
        level, size = f.field(layer, "topology"), f.field(layer, "size")
        if i == 0 and (level is None or level.kind != STR or size is None or size.kind != INT):
            return ()  # (the first layer's faults are `_slices`')
        if level is None or level.kind != STR or not level.v:
            raise f.wrong_type(level or layer, "topology", "a topology level (a node label key)")
        got = f.int(layer, "size")
        if got is None or got < 1:
            raise f.fail(KAD157, "a slice layer's `size` must be at least 1 (the Workload CRD's minimum)",
                         size or layer)
        out.append((level.v, got))
    return tuple(out)


class _Num(str):
    """A JSON number's literal text, as Go's decoder keeps it for its errors."""


_GO_TYPE = "v1beta2.PodsetSliceRequiredTopologyConstraint"


def parse(text: str) -> tuple[tuple[str, int], ...] | str:
    """The annotation's layers as Go's `json.Unmarshal` into `[]PodsetSliceRequiredTopologyConstraint`
    decodes them (keys matched case-insensitively, others ignored, a missing key or a null the zero
    value, a size an integer literal within int32), or Go's error: a syntax error (Go's words for the
    two commonest, an unfinished text and a character where a value should start; Python's for the
    others), else the first value of the wrong type."""
    try:
        value = json.loads(text, parse_int=_Num, parse_float=_Num, parse_constant=_not_json)
    except _NotJson as e:  # NaN, Infinity, -Infinity: Python's, not JSON
        return f"invalid character 'I' in numeric literal" if str(e)[0] == "-" else \
            f"invalid character '{str(e)[0]}' looking for beginning of value"
    except json.JSONDecodeError as e:
        if e.msg == "Expecting value" and e.pos < len(text):
            return f"invalid character {_go_rune(text[e.pos])} looking for beginning of value"
        if e.pos >= len(text.rstrip()):
            return "unexpected end of JSON input"
        return f"{e.msg} (character {e.pos + 1})"
    if value is None:
        return ()
    if not isinstance(value, list):
        return f"json: cannot unmarshal {_go_kind(value)} into Go value of type []{_GO_TYPE}"
    out = []
    for item in value:
        if item is not None and not isinstance(item, dict):
            return f"json: cannot unmarshal {_go_kind(item)} into Go value of type {_GO_TYPE}"
        level, size = "", 0
        for key, v in (item or {}).items():  # the last of the keys naming a field wins
            if key.lower() == "topology" and v is not None:
                if not isinstance(v, str) or isinstance(v, _Num):
                    return _field_error(_go_kind(v), "topology", "string")
                level = v
            elif key.lower() == "size" and v is not None:
                if not isinstance(v, _Num):
                    return _field_error(_go_kind(v), "size", "int32")
                if not re.fullmatch(r"-?[0-9]+", v) or not INT32[0] <= int(v) < INT32[1]:
                    return _field_error(f"number {v}", "size", "int32")
                size = int(v)
        out.append((level, size))
    return tuple(out)


class _NotJson(ValueError):
    pass


def _not_json(name: str) -> object:
    raise _NotJson(name)


def _go_rune(c: str) -> str:
    return "'\\''" if c == "'" else f"'{c}'" if c.isprintable() else repr(c)


def _go_kind(v: object) -> str:
    return ("number" if isinstance(v, _Num) else "bool" if isinstance(v, bool) else "string" if isinstance(v, str)
            else "array" if isinstance(v, list) else "object")


def _field_error(shown: str, name: str, go_type: str) -> str:
    return f"json: cannot unmarshal {shown} into Go struct field PodsetSliceRequiredTopologyConstraint.{name} of type {go_type}"


def annotation_layers(f: Fields, annotations: Val | None) -> tuple[tuple[str, int], ...]:
    """A job template's layers as Kueue's jobframework builds them with the gate on: the annotation's
    1 to 3 layers; none where it is absent or its webhook refuses it (`jobs.refusals.layer_refusals`: the
    job is then refused, or, already in the cluster, Build fails and Kueue makes no Workload of it)."""
    node = f.field(annotations, ANNOTATION)
    layers = parse(str(node.v)) if node is not None and node.kind == STR else ()
    if isinstance(layers, str) or not 1 <= len(layers) <= 3 or any(size < 1 or not level for level, size in layers):
        return ()
    return layers


def build_error(f: Fields, annotations: Val | None) -> str | None:
    """Why Kueue's jobframework can't build a pod set's topology request from the annotation with the gate on
    (podSetTopologyRequestBuilder.Build: JSON it can't decode, other than 1 to 3 layers), in its words; its
    job reconciler then fails and makes no Workload (a job already in the cluster: no webhook refused it)."""
    node = f.field(annotations, ANNOTATION)
    if node is None or node.kind != STR:
        return None
    layers = parse(str(node.v))
    if isinstance(layers, str):
        return f"failed to parse multi-layer topology constraints annotation: {layers}"
    if not 1 <= len(layers) <= 3:
        return f"topology constraints must contain between 1 and 3 entries: got {len(layers)}"
    return None
