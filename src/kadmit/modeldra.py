"""DRA objects Kueue counts quota from (ResourceClaimTemplates, DeviceClasses), and Kueue's
`ResolveExtendedResourceQuota` (pkg/dra/extended_resources.go, the DRAExtendedResources gate): a
container's request of an extended resource some DeviceClass names counted under that class's
`deviceClassMappings` name."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import

from kadmit.modelbase import Obj
from kadmit.podresources import ContainerResources, PodResources, Quantities
from kadmit.quantity import quantity_string

MILLI = 1000


class ClaimTemplate(Obj):
    """A DRA ResourceClaimTemplate as `countDevicesPerClass` reads it, or why Kueue can't count it."""
    namespace: str
    name: str
    devices: dict[str, int] = {}  # device class -> devices per claim
    # What Kueue refuses to count, as its field error: the path below the claim, its type and value
    # ("Invalid value: null"), and its detail; "" when it counts the template
    unsupported_at: str = ""
    unsupported_value: str = ""
    unsupported: str = ""


class DeviceClass(Obj):
    """A DRA DeviceClass (resource.k8s.io/v1): its `spec.extendedResourceName`, which Kueue's index
    (indexer.Setup, under the DRAExtendedResources gate) finds it by."""
    name: str
    extended_resource_name: str = ""


def is_extended(name: str) -> bool:
    """Kueue's `IsExtendedResourceName`: a name with a domain, not `kubernetes.io/` nor a hugepage."""
    return "/" in name and not name.startswith("kubernetes.io/") and not name.startswith("hugepages-")


def extended_quota(pod: PodResources, path: str, by_name: dict[str, list[str]],
                   mapping: dict[str, str]) -> tuple[Quantities, set[str], list[str]]:
    """`ResolveExtendedResourceQuota` for one pod set (its template at `path`, containers adjusted as
    Kueue's `AdjustResources` leaves them): what its extended resources count as (milli-units of the
    quota key: the mapped name of the first class naming it that a mapping holds, else its own),
    init containers by max and containers by sum, then the max of both; the resources replaced; and
    Kueue's field errors (a quantity of a resource some class names that is not a whole number)."""
    replaced: set[str] = set()
    errors: list[str] = []

    def one(c: ContainerResources, at: str) -> Quantities:
        out: Quantities = {}
        for name, q in sorted(c.requests.items()):
            if not q or not is_extended(name) or name not in by_name:
                continue
            if q % MILLI:
                shown = quantity_string(q, c.formats.get(f"requests.{name}", "DecimalSI"))
                errors.append(f'{at}.resources.requests.{name}: Invalid value: "{shown}": '
                              "extended resource quantity must be an integer")
                continue
            key = next((mapping[cls] for cls in by_name[name] if cls in mapping), name)
            replaced.add(name)
            out[key] = out.get(key, 0) + q
        return out

    init: Quantities = {}
    for j, c in enumerate(pod.init_containers):
        for k, q in one(c, f"{path}.initContainers[{j}]").items():
            init[k] = max(init.get(k, 0), q)
    total: Quantities = {}
    for j, c in enumerate(pod.containers):
        for k, q in one(c, f"{path}.containers[{j}]").items():
            total[k] = total.get(k, 0) + q
    for k, q in init.items():
        total[k] = max(total.get(k, 0), q)
    return total, replaced, errors
