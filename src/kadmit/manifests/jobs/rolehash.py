"""The role hash Kueue names a pod group's pod sets by (pkg/util/pod `GenerateRoleHash`): the first
8 hex digits of the sha256 of the Go JSON of `{"spec": SpecShape(pod.spec)}` — its containers'
and init containers' ports and requests, node selector, affinity, tolerations, runtime class,
priority, topology spread constraints, overhead and resource claims, as the pod reaches Kueue's
webhook (the API server's defaulting has copied limits into missing requests and given a port
without `protocol` TCP, and an empty
list or map is absent, as JSON with `omitempty` carries it; nothing else:
the oracle runs no admission plugin, so a LimitRange's defaults, a RuntimeClass's overhead or a
PriorityClass's value are not in it unless the pod's spec carries them)."""

from __future__ import annotations

import hashlib

from kadmit.manifests.gojson import INT_T, QTY_T, STR_T, encode
from kadmit.manifests.yamltree import MAP, SEQ, STR, Val

_STRS = ("slice", STR_T)
_STR_MAP = ("map", STR_T)
_LABEL_SELECTOR = ("struct", (
    ("matchLabels", _STR_MAP, True),
    ("matchExpressions", ("slice", ("struct", (("key", STR_T, False), ("operator", STR_T, False),
                                                ("values", _STRS, True)))), True)))
_NODE_REQUIREMENTS = ("slice", ("struct", (("key", STR_T, False), ("operator", STR_T, False),
                                            ("values", _STRS, True))))
_NODE_TERM = ("struct", (("matchExpressions", _NODE_REQUIREMENTS, True), ("matchFields", _NODE_REQUIREMENTS, True)))
_POD_TERM = ("struct", (
    ("labelSelector", ("ptr", _LABEL_SELECTOR), True), ("namespaces", _STRS, True),
    ("topologyKey", STR_T, False), ("namespaceSelector", ("ptr", _LABEL_SELECTOR), True),
    ("matchLabelKeys", _STRS, True), ("mismatchLabelKeys", _STRS, True)))
_POD_AFFINITY = ("struct", (
    ("requiredDuringSchedulingIgnoredDuringExecution", ("slice", _POD_TERM), True),
    ("preferredDuringSchedulingIgnoredDuringExecution",
     ("slice", ("struct", (("weight", INT_T, False), ("podAffinityTerm", _POD_TERM, False)))), True)))
AFFINITY = ("struct", (
    ("nodeAffinity", ("ptr", ("struct", (
        ("requiredDuringSchedulingIgnoredDuringExecution",
         ("ptr", ("struct", (("nodeSelectorTerms", ("slice", _NODE_TERM), False),))), True),
        ("preferredDuringSchedulingIgnoredDuringExecution",
         ("slice", ("struct", (("weight", INT_T, False), ("preference", _NODE_TERM, False)))), True)))), True),
    ("podAffinity", ("ptr", _POD_AFFINITY), True),
    ("podAntiAffinity", ("ptr", _POD_AFFINITY), True)))
TOLERATION = ("struct", (
    ("key", STR_T, True), ("operator", STR_T, True), ("value", STR_T, True), ("effect", STR_T, True),
    ("tolerationSeconds", ("ptr", INT_T), True)))
SPREAD = ("struct", (
    ("maxSkew", INT_T, False), ("topologyKey", STR_T, False), ("whenUnsatisfiable", STR_T, False),
    ("labelSelector", ("ptr", _LABEL_SELECTOR), True), ("minDomains", ("ptr", INT_T), True),
    ("nodeAffinityPolicy", ("ptr", STR_T), True), ("nodeTaintsPolicy", ("ptr", STR_T), True),
    ("matchLabelKeys", _STRS, True)))
CLAIM = ("struct", (("name", STR_T, False), ("resourceClaimName", ("ptr", STR_T), True),
                    ("resourceClaimTemplateName", ("ptr", STR_T), True)))
PORT = ("struct", (("name", STR_T, True), ("hostPort", INT_T, True), ("containerPort", INT_T, False),
                   ("protocol", STR_T, True), ("hostIP", STR_T, True)))
RESOURCES = ("map", QTY_T)

# SpecShape's keys as Go's encoder writes a map: sorted.
_SHAPE = (("affinity", ("ptr", AFFINITY)), ("containers", None), ("initContainers", None),
          ("nodeSelector", _STR_MAP), ("overhead", RESOURCES), ("priority", ("ptr", INT_T)),
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
        text = _containers(fields.get(name)) if t is None else encode(_stored(fields.get(name)), t)
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
        out.append(f'{{"ports":{encode(_stored(_ports(fields.get("ports"))), ("slice", PORT))},'
                   f'"resources":{{"requests":{_requests(res.get("requests"), res.get("limits"))}}}}}')
    return "[" + ",".join(out) + "]"


def _ports(v: Val | None) -> Val | None:
    """A container's ports as the API server stores them: a port without `protocol` gets TCP
    (core/v1 SetDefaults_ContainerPort)."""
    if v is None or v.kind != SEQ or all(p.kind != MAP or "protocol" in p.v for p in v.v):
        return v
    tcp = Val(STR, "TCP", v.line, v.col, v.end_line, v.end_col)
    return Val(SEQ, [Val(MAP, {**p.v, "protocol": tcp}, p.line, p.col, p.end_line, p.end_col)
                     if p.kind == MAP and "protocol" not in p.v else p for p in v.v],
               v.line, v.col, v.end_line, v.end_col)


def _requests(requests: Val | None, limits: Val | None) -> str:
    """A container's requests after the API server's `SetDefaults_Pod`: a limit without a request
    is also the request (when the container has limits, its requests are never nil)."""
    if limits is None or limits.kind != MAP:
        return encode(_stored(requests), RESOURCES)
    merged = dict(requests.v) if requests is not None and requests.kind == MAP else {}
    for name, q in limits.v.items():
        merged.setdefault(name, q)
    return encode(Val(MAP, merged, 0, 0, 0, 0) if merged else None, RESOURCES)


def _stored(v: Val | None) -> Val | None:
    """A field as Kueue reads it back: the pod goes to the webhook (and to storage) as JSON, where
    an `omitempty` list or map that is empty is left out, so it comes back nil (`null`)."""
    return None if v is not None and v.kind in (MAP, SEQ) and not v.v else v

