"""What of a pod template's spec Kueue's scheduling hash takes (pkg/util/pod SpecShape, read by
workload.go computeSchedulingHash under SchedulingEquivalenceHashing) that kadmit's model holds nowhere
else: the containers' and init containers' ports, the whole `affinity` (preferred node affinity, pod
affinity and anti-affinity; the required node-affinity terms are in the model too), the
topologySpreadConstraints, the template's own `priority` and the pod-level `resourceClaims` entries. The
engine only compares it (`engine.admission.equivalence`), so a digest of the Go JSON of those fields is
enough: each as Go's encoder writes its core/v1 type (gojson.encode with the types below, which
manifests/jobs/rolehash.py's role hash shares), after the object's way through JSON storage (`stored`: an
empty list or map is left out and comes back nil) and the API server's defaulting of a port's `protocol`
to TCP (`defaulted_ports`; the Workload CRD's schema defaults it too). So an empty object where Go holds
a pointer to a struct (`affinity: {}`, `nodeAffinity: {}`, a `labelSelector: {}`) is kept and hashes
apart from none, while `hostPort: 0`, `name: ""` or `tolerations: []` hash as absent (the oracle:
tests/oracle/features/feature-gate-scheduling-equivalence-hashing-on-empty-*.yaml)."""

from __future__ import annotations

import hashlib

from kadmit.manifests.fields import Fields
from kadmit.manifests.gojson import INT_T, STR_T, encode
from kadmit.manifests.yamltree import MAP, SEQ, STR, Val

# core/v1 (k8s.io/api v0.35) types as gojson types: (json name, type, omitempty) per struct field
_STRS = ("slice", STR_T)
STR_MAP = ("map", STR_T)
_LABEL_SELECTOR = ("struct", (
    ("matchLabels", STR_MAP, True),
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
PORTS = ("slice", ("struct", (("name", STR_T, True), ("hostPort", INT_T, True), ("containerPort", INT_T, False),
                              ("protocol", STR_T, True), ("hostIP", STR_T, True))))

# the fields of SpecShape the digest takes, beside the containers' ports
_FIELDS = (("affinity", ("ptr", AFFINITY)), ("topologySpreadConstraints", ("slice", SPREAD)),
           ("priority", ("ptr", INT_T)), ("resourceClaims", ("slice", CLAIM)))


def spec_shape(f: Fields, spec: Val | None, *, pod: bool = False) -> str:
    """The digest of `spec`'s fields above; "" when it has none of them (a `.kad` pod set's alike). `pod`: a
    Pod's spec, whose `priority` the API server's Priority admission sets from its priorityClassName (or the
    global default, or 0), as the workload's priority already compared: left out, as written or not."""
    parts = []
    for key in ("containers", "initContainers"):
        containers = f.field(spec, key) if spec is not None else None
        ports = [encode(stored(defaulted_ports(c.v.get("ports")), PORTS), PORTS) if c.kind == MAP else "null"
                 for c in (containers.v if containers is not None and containers.kind == SEQ else ())]
        if any(p != "null" for p in ports):
            parts.append(f'"{key}":[{",".join(ports)}]')
    for key, t in _FIELDS:
        v = stored(f.field(spec, key), t) if spec is not None and not (pod and key == "priority") else None
        if v is not None:
            parts.append(f'"{key}":{encode(v, t)}')
    if not parts:
        return ""
    return hashlib.sha256(("{" + ",".join(parts) + "}").encode("utf-8", "surrogatepass")).hexdigest()[:16]


def defaulted_ports(v: Val | None) -> Val | None:
    """A container's ports as the API server stores them: a port without `protocol` gets TCP
    (core/v1 SetDefaults_ContainerPort)."""
    if v is None or v.kind != SEQ or all(p.kind != MAP or "protocol" in p.v for p in v.v):
        return v
    tcp = Val(STR, "TCP", v.line, v.col, v.end_line, v.end_col)
    return Val(SEQ, [Val(MAP, {**p.v, "protocol": tcp}, p.line, p.col, p.end_line, p.end_col)
                     if p.kind == MAP and "protocol" not in p.v else p for p in v.v],
               v.line, v.col, v.end_line, v.end_col)


def stored(v: Val | None, t: tuple) -> Val | None:
    """A pod spec's field of type `t` as Kueue reads it back: the object goes to storage (and to the
    webhook) as JSON, where an `omitempty` list or map that is empty is left out, so it comes back nil
    (`null`); a pointer to a struct that is empty (`affinity: {}`) is written `{}` and comes back so."""
    if v is not None and t[0] in ("slice", "map") and v.kind in (MAP, SEQ) and not v.v:
        return None
    return v
