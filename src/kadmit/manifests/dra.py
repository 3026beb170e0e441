"""DRA ResourceClaimTemplates -> model: devices per device class, as Kueue's `countDevicesPerClass` counts them."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.yamltree import Val
from kadmit.model import ClaimTemplate

DRA_GROUP = "resource.k8s.io"


def claim_template(f: Fields, o: Meta) -> ClaimTemplate:
    """`spec.spec.devices.requests`: each `exactly` request (v1; v1beta1 writes its fields on the
    request itself) adds `count` (default 1) devices of its class; adminAccess requests count
    nothing; `firstAvailable` and AllocationMode `All` are what Kueue refuses to count."""
    spec = f.map(f.map(o.node, "spec"), "spec")
    devices: dict[str, int] = {}
    unsupported = ""
    for i, req in enumerate(f.maps(f.map(spec, "devices"), "requests")):
        if f.field(req, "firstAvailable") is not None:
            unsupported = unsupported or f"devices.requests[{i}]: FirstAvailable device selection is not supported"
            continue
        exact: Val | None = f.map(req, "exactly") or (req if f.field(req, "deviceClassName") is not None else None)
        if exact is None:
            unsupported = unsupported or f"devices.requests[{i}]: Exactly must be set if FirstAvailable is nil"
            continue
        if f.bool(exact, "adminAccess", default=False):
            continue
        mode = f.enum(exact, "allocationMode", ("ExactCount", "All"), "ExactCount")
        if mode == "All":
            unsupported = unsupported or f"devices.requests[{i}].exactly.allocationMode: AllocationMode 'All' is not supported"
            continue
        cls = f.str(exact, "deviceClassName", default="")
        if cls:
            devices[cls] = devices.get(cls, 0) + f.int(exact, "count", default=1, lo=1, hi=2**63 - 1)
    return ClaimTemplate(namespace=o.namespace or "default", name=o.name, devices=dict(sorted(devices.items())),
                         unsupported=unsupported, span=f.span(o.node),
                         spans=f.spans({"name": o.metadata.v.get("name")}))


def pod_claim_templates(f: Fields, spec: Val | None) -> tuple[tuple[str, ...], Val | None]:
    """The ResourceClaimTemplate names of a pod spec's `resourceClaims` (claims named directly are
    not counted by Kueue), and the node that lists them."""
    names = tuple(name for c in f.maps(spec, "resourceClaims")
                  if (name := f.str(c, "resourceClaimTemplateName")))
    return names, f.field(spec, "resourceClaims")
