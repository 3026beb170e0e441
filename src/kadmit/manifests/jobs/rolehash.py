"""The role hash Kueue names a pod group's pod sets by (pkg/util/pod `GenerateRoleHash`): the first
8 hex digits of the sha256 of the Go JSON of `{"spec": SpecShape(pod.spec)}` — its containers'
and init containers' ports and requests, node selector, affinity, tolerations, runtime class,
priority, topology spread constraints, overhead and resource claims, as the pod reaches Kueue's
webhook (the API server's defaulting has copied limits into missing requests and given a port
without `protocol` TCP, and an empty
list or map is absent, as JSON with `omitempty` carries it, while an empty object for a pointer to a
struct, `affinity: {}`, is kept: manifests/specshape.py `stored`, whose Go types this shares; nothing else:
the oracle runs no admission plugin, so a LimitRange's defaults, a RuntimeClass's overhead or a
PriorityClass's value are not in it unless the pod's spec carries them)."""

from __future__ import annotations

import hashlib

from kadmit.manifests.gojson import INT_T, MILLI_QTY_T, STR_T, encode
from kadmit.manifests.specshape import (AFFINITY, CLAIM, PORTS, SPREAD, STR_MAP, TOLERATION, defaulted_ports,
                                        stored)
from kadmit.manifests.yamltree import MAP, SEQ, Val

RESOURCES = ("map", MILLI_QTY_T)  # requests and overhead, as the API server stores them (rounded up to milli-units)

# SpecShape's keys as Go's encoder writes a map: sorted.
_SHAPE = (("affinity", ("ptr", AFFINITY)), ("containers", None), ("initContainers", None),
          ("nodeSelector", STR_MAP), ("overhead", RESOURCES), ("priority", ("ptr", INT_T)),
          ("resourceClaims", ("slice", CLAIM)), ("runtimeClassName", ("ptr", STR_T)),
          ("tolerations", ("slice", TOLERATION)), ("topologySpreadConstraints", ("slice", SPREAD)))


def role_hash(spec: Val | None) -> str:
    """`GenerateRoleHash` of the pod spec `spec` (a YAML mapping, or None for a pod without one)."""
    return hashlib.sha256(spec_shape_json(spec).encode("utf-8", "surrogatepass")).hexdigest()[:8]


def spec_shape_json(spec: Val | None) -> str:
    """The bytes Kueue hashes: `json.Marshal(map[string]any{"spec": SpecShape(spec)})`."""
    fields = spec.v if spec is not None and spec.kind == MAP else {}
    parts = []
    for name, t in _SHAPE:
        text = _containers(fields.get(name)) if t is None else encode(stored(fields.get(name), t), t)
        parts.append(f'"{name}":{text}')
    return '{"spec":{' + ",".join(parts) + "}}"


def _containers(v: Val | None) -> str:
    """`ContainersShape`: per container its ports and requests (`null` for none)."""
    if v is None or v.kind != SEQ or not v.v:
        return "null"
    out = []
    for c in v.v:
        fields = c.v if c.kind == MAP else {}
        resources = fields.get("resources")
        res = resources.v if resources is not None and resources.kind == MAP else {}
        out.append(f'{{"ports":{encode(stored(defaulted_ports(fields.get("ports")), PORTS), PORTS)},'
                   f'"resources":{{"requests":{_requests(res.get("requests"), res.get("limits"))}}}}}')
    return "[" + ",".join(out) + "]"


def _requests(requests: Val | None, limits: Val | None) -> str:
    """A container's requests after the API server's `SetDefaults_Pod`: a limit without a request
    is also the request (when the container has limits, its requests are never nil)."""
    if limits is None or limits.kind != MAP:
        return encode(stored(requests, RESOURCES), RESOURCES)
    merged = dict(requests.v) if requests is not None and requests.kind == MAP else {}
    for name, q in limits.v.items():
        merged.setdefault(name, q)
    return encode(Val(MAP, merged, 0, 0, 0, 0) if merged else None, RESOURCES)

