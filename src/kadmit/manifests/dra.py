"""DRA ResourceClaimTemplates -> model: devices per device class, as Kueue's `countDevicesPerClass` counts them."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.yamltree import Val
from kadmit.model import ClaimTemplate, DeviceClass

DRA_GROUP = "resource.k8s.io"
NULL = "Invalid value: null"  # how a field.Invalid error with no value reads


def claim_template(f: Fields, o: Meta) -> ClaimTemplate:
    """`spec.spec.devices.requests`: each `exactly` request (v1; v1beta1 writes its fields on the
    request itself) adds `count` (default 1) devices of its class. What Kueue v0.17.0 refuses to count
    (`countDevicesPerClass`, first refusal wins): device constraints, device config, `firstAvailable`,
    CEL selectors, adminAccess and AllocationMode `All`."""
    spec = f.map(f.map(o.node, "spec"), "spec")
    devices_node = f.map(spec, "devices")
    devices: dict[str, int] = {}
    refusal: tuple[str, str, str] = ("", "", "")
    if f.seq(devices_node, "constraints"):
        refusal = ("devices.constraints", NULL, "device constraints (MatchAttribute) are not supported")
    elif f.seq(devices_node, "config"):
        refusal = ("devices.config", NULL, "device config is not supported")
    for i, req in enumerate(f.maps(devices_node, "requests")):
        if refusal[0]:
            break
        at = f"devices.requests[{i}]"
        if f.field(req, "firstAvailable") is not None:
            refusal = (at, NULL, "FirstAvailable device selection is not supported")
            break
        exact: Val | None = f.map(req, "exactly") or (req if f.field(req, "deviceClassName") is not None else None)
        if exact is None:  # the API server's validation refuses it before Kueue sees it
            refusal = (at, "Required value", "Exactly must be set if FirstAvailable is nil")
            break
        if f.seq(exact, "selectors"):
            refusal = (f"{at}.exactly.selectors", NULL, "CEL selectors are not supported")
            break
        if f.bool(exact, "adminAccess", default=False):
            refusal = (f"{at}.exactly.adminAccess", NULL, "AdminAccess is not supported")
            break
        mode = f.enum(exact, "allocationMode", ("ExactCount", "All"), "ExactCount")
        if mode == "All":
            refusal = (f"{at}.exactly.allocationMode", 'Invalid value: "All"', "AllocationMode 'All' is not supported")
            break
        cls = f.str(exact, "deviceClassName", default="")
        if cls:
            devices[cls] = devices.get(cls, 0) + f.int(exact, "count", default=1, lo=1, hi=2**63 - 1)
    return ClaimTemplate(namespace=o.namespace or "default", name=o.name, devices=dict(sorted(devices.items())),
                         unsupported_at=refusal[0], unsupported_value=refusal[1], unsupported=refusal[2],
                         span=f.span(o.node),
                         spans=f.spans({"name": o.metadata.v.get("name")}))


def device_class(f: Fields, o: Meta) -> DeviceClass:
    """A DeviceClass: the extended resource it names (`spec.extendedResourceName`), which Kueue reads with
    its DRAExtendedResources gate on (kadmit.effective `extended_classes`)."""
    spec = f.map(o.node, "spec")
    return DeviceClass(name=o.name, extended_resource_name=f.str(spec, "extendedResourceName", default=""),
                       span=f.span(o.node), spans=f.spans({"name": o.metadata.v.get("name")}))


def pod_claim_templates(f: Fields, spec: Val | None) -> tuple[tuple[str, ...], tuple[str, ...], Val | None]:
    """The ResourceClaimTemplate names of a pod spec's `resourceClaims`, the ResourceClaims it names
    directly (which Kueue v0.17.0, with its DynamicResourceAllocation gate on, refuses to admit), and
    the node that lists them."""
    items = f.maps(spec, "resourceClaims")
    names = tuple(name for c in items if (name := f.str(c, "resourceClaimTemplateName")))
    direct = tuple(name for c in items if (name := f.str(c, "resourceClaimName")))
    return names, direct, f.field(spec, "resourceClaims")
