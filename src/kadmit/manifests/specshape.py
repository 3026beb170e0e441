"""What of a pod template's spec Kueue's scheduling hash takes (pkg/util/pod SpecShape, read by
workload.go computeSchedulingHash under SchedulingEquivalenceHashing) that kadmit's model holds nowhere
else: the containers' and init containers' ports, the whole `affinity` (preferred node affinity, pod
affinity and anti-affinity; the required node-affinity terms are in the model too), the
topologySpreadConstraints, the template's own `priority` and the pod-level `resourceClaims` entries (their
names). The engine only compares it (`engine.admission.equivalence`), so a canonical digest of those
fields as written is enough: JSON with sorted keys, absent, null and empty values left out (as Go's
`omitempty` leaves out the empty ones) and a port's `protocol` defaulted to TCP (the API server
defaults it in a built-in job's template and in the Workload CRD's)."""

from __future__ import annotations

import hashlib
import json

from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import Val

_FIELDS = ("affinity", "topologySpreadConstraints", "priority", "resourceClaims")


def spec_shape(f: Fields, spec: Val | None, *, pod: bool = False) -> str:
    """The digest of `spec`'s fields above; "" when it has none of them (a `.kad` pod set's alike). `pod`: a
    Pod's spec, whose `priority` the API server's Priority admission sets from its priorityClassName (or the
    global default, or 0), as the workload's priority already compared: left out, as written or not."""
    shape: dict = {}
    for key in ("containers", "initContainers"):
        containers = _plain(f, spec, key)
        ports = [[_port(p) for p in c.get("ports") or () if isinstance(p, dict)] if isinstance(c, dict) else []
                 for c in (containers if isinstance(containers, list) else ())]
        if any(ports):
            shape[key] = ports
    for key in _FIELDS[:2] + _FIELDS[3:] if pod else _FIELDS:
        if (plain := _canonical(_plain(f, spec, key))) is not None:
            shape[key] = plain
    if not shape:
        return ""
    text = json.dumps(shape, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(f: Fields, spec: Val | None, key: str):
    v = f.field(spec, key) if spec is not None else None
    return v.plain() if v is not None else None


def _port(p: dict) -> dict:
    port = _canonical(p) or {}
    port.setdefault("protocol", "TCP")
    return port


def _canonical(v):
    """`v` with null and empty values left out (None where nothing is left); 0 and false stay."""
    if isinstance(v, dict):
        out = {k: c for k, x in v.items() if (c := _canonical(x)) is not None}
        return out or None
    if isinstance(v, list):
        items = [c for x in v if (c := _canonical(x)) is not None]
        return items or None
    return None if v is None or v == "" else v
