"""The API server's checks of each quantity of a pod spec's resources (k8s.io/kubernetes pkg/apis/core/validation,
ValidateContainerResourceRequirements and validatePodResources of Kubernetes v1.35): an extended resource's
quantity a whole number (ValidateResourceQuantityValue: "must be an integer"), a hugepages-* quantity a multiple
of its page size (validateResourceQuantityHugePageValue). A Pod's or a built-in job kind's template is refused for
them (KAD157, `podspec.pod_requests`); a custom resource's template, stored unchecked, has the words listed for the
objects made of it (`podspec.template_refusals`, KAD199). A Workload's template is stored as written, and Kueue
decides it (`kadmit.effective` counts whole units as Kueue's NewRequests does)."""

from __future__ import annotations

from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields
from kadmit.manifests.kubenames import label_key_words
from kadmit.manifests.yamltree import Val
from kadmit.podresources import PodResources
from kadmit.quantity import MILLI, go_format, quantity_string


def written_quantity(qty: int, node: Val | None, fmt: str = "DecimalSI") -> str:
    """A quantity as the API server prints it (Quantity.String): in the format it was written in at `node`
    (`2Gi`, `1G`; `1000M` is `1G`), else in `fmt` (a sum's: `podresources.first_formats`)."""
    if node is not None and isinstance(node.v, (str, int, float)) and not isinstance(node.v, bool):
        fmt = go_format(node.v)
    return quantity_string(qty, fmt)


def extended(res: str) -> bool:
    """Kubernetes' IsExtendedResourceName, an integer resource (IsIntegerResourceName): a name with a domain that
    is not a native one (`kubernetes.io/`), nor a quota's `requests.` name."""
    return "/" in res and "kubernetes.io/" not in res and not res.startswith("requests.")


# k8s pkg/apis/core/helper integerResources: the standard resources counted in whole units
INTEGER_RESOURCES = frozenset(("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                               "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"))


def integer_resource(res: str) -> bool:
    """Kubernetes' IsIntegerResourceName: one of INTEGER_RESOURCES, or an extended resource (`extended`)."""
    return res in INTEGER_RESOURCES or extended(res)


def overcommit_allowed(resource: str) -> bool:
    """Kubernetes' IsOvercommitAllowed: a native resource (no domain, or a kubernetes.io one) that is
    not hugepages; a request of any other must equal its limit."""
    return ("/" not in resource or "kubernetes.io/" in resource) and not resource.startswith("hugepages-")


# IsStandardResourceName's names (k8s pkg/apis/core/helper standardResources; hugepages by prefix), and
# IsStandardContainerResourceName's (cpu, memory, ephemeral-storage; hugepages by prefix)
STANDARD_RESOURCES = frozenset((
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"))
CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def resource_name_words(res: str, container: bool = True) -> tuple[str, ...]:
    """validateResourceName's words for a resource's name (IsQualifiedName's, `kubenames.label_key_words`; else, a
    name without a domain not a standard one: "must be a standard resource type or fully qualified"), then, for a
    container's (validateContainerResourceName), "must be a standard resource for containers" for a name without a
    domain other than cpu, memory, ephemeral-storage or hugepages-*, "doesn't follow extended resource name
    standard" for one with a domain that is neither native (kubernetes.io) nor an extended resource's."""
    words = tuple(label_key_words(res))
    if "/" not in res:
        if not words and res not in STANDARD_RESOURCES and not res.startswith(("hugepages-", "requests.hugepages-")):
            words += ("must be a standard resource type or fully qualified",)
        if container and res not in CONTAINER_RESOURCES and not res.startswith("hugepages-"):
            words += ("must be a standard resource for containers",)
    elif container and "kubernetes.io/" not in res and (res.startswith("requests.")
                                                        or label_key_words("requests." + res)):
        words += ("doesn't follow extended resource name standard",)
    return words


def nothing_to_refuse(f: Fields, spec: Val | None, pod: PodResources) -> bool:
    """Whether `podspec._api_refusals` has nothing to check in `spec`: it checks the pod's own `resources` (none
    written), hugepages-* quantities and extended resources' that are not whole, and each container's requests
    against its limits (none in any container, `pod` as `pod_requests` read them)."""
    return f.field(spec, "resources") is None and not any(
        r.startswith("hugepages-") or (extended(r) and q % MILLI) or not overcommit_allowed(r) or resource_name_words(r)
        or (values is c.requests and r in c.limits and q > c.limits[r])
        for c in (*pod.containers, *pod.init_containers) for values in (c.requests, c.limits) for r, q in values.items())


def container_requirements(f: Fields, spec: Val, api: str, refusals: list[str] | None = None, pod: bool = False) -> None:
    """validateResourceRequirements on each container's requests (ValidatePodSpec's order): its resources' names
    (`resource_name_words`); a request of a
    resource not overcommitable (an extended one, hugepages-*) other than its limit, or without one; any other
    above its limit. A Pod's requests missing and defaulted to its limits (SetDefaults_Pod) equal them: only the
    requests written are checked. The words to `refusals` where given (`podspec._api_refusals`), else KAD157."""
    for key in ("containers", "initContainers"):
        for i, c in enumerate(f.maps(spec, key)):
            path = f"{api}.{key}[{i}].resources"
            resources = f.map(c, "resources")
            requests, nodes = f.resource_list(resources, "requests")
            limits, limit_nodes = f.resource_list(resources, "limits")
            # validateContainerResourceName; a Pod's requests missing are its limits (SetDefaults_Pod), named again
            for kind, named in (("limits", limit_nodes), ("requests", {**limit_nodes, **nodes} if pod else nodes)):
                for res, at in named.items():
                    for words in resource_name_words(res):
                        words = f'{path}.{kind}[{res}]: Invalid value: "{res}": {words}'
                        if refusals is not None:
                            refusals.append(words)
                        else:  # both words of one name said, each at its quantity
                            f.invalid(KAD157, f"the API server refuses the object: `{words}`", at, uses=())
            for res, qty in requests.items():
                text = written_quantity(qty, nodes[res])
                limit = written_quantity(limits[res], limit_nodes[res]) if res in limits else ""
                if res in limits and qty != limits[res] and not overcommit_allowed(res):
                    words = f'{path}.requests: Invalid value: "{text}": must be equal to {res} limit of {limit}'
                elif res in limits and qty > limits[res]:
                    words = f'{path}.requests: Invalid value: "{text}": must be less than or equal to {res} limit of {limit}'
                elif res not in limits and not overcommit_allowed(res):
                    words = f"{path}.limits: Required value: Limit must be set for non overcommitable resources"
                else:
                    continue
                if refusals is not None:
                    refusals.append(words)
                else:
                    f.invalid(KAD157, f"the API server refuses the object: `{words}`", nodes[res], uses=(nodes[res],),
                              help=f"set `limits: {{{res}: {text}}}` beside the request" if res not in limits else
                              "make the request no more than the limit (equal to it for a resource not overcommitable)")


def hugepages_indivisible(res: str, qty: int) -> bool:
    """Not Kubernetes' IsHugePageResourceValueDivisible: the page size of `hugepages-<size>` is not a
    positive whole number of bytes, or the quantity (rounded up to bytes) is not a multiple of it."""
    from kadmit.quantity import parse_quantity

    try:
        page = parse_quantity(res[len("hugepages-"):])
    except ValueError:
        return True
    return page <= 0 or page % 1000 != 0 or -(-qty // 1000) % (page // 1000) != 0


def quantity_values(f: Fields, spec: Val, api: str, refusals: list[str] | None = None) -> None:
    """ValidateResourceQuantityValue's "must be an integer" on every container's extended resources, and
    validateResourceQuantityHugePageValue on their and the pod's own hugepages-* (the words to `refusals` where
    given: `podspec._api_refusals`)."""
    owners = [(f"{api}.{key}[{i}].resources", f.map(c, "resources"))  # ValidatePodSpec's order
              for key in ("containers", "initContainers") for i, c in enumerate(f.maps(spec, key))]
    for path, resources in [*owners, (f"{api}.resources", f.map(spec, "resources"))]:
        for key in ("limits", "requests"):
            values, nodes = f.resource_list(resources, key)
            for res, qty in values.items():
                text = written_quantity(qty, nodes[res])
                if extended(res) and qty % MILLI:
                    words = f'{path}.{key}[{res}]: Invalid value: "{text}": must be an integer'
                elif res.startswith("hugepages-") and hugepages_indivisible(res, qty):
                    words = (f'{path}.{key}[{res}]: Invalid value: "{text}": {text} is not positive integer '
                             f"multiple of {res}")
                else:
                    continue
                if refusals is not None:
                    refusals.append(words)
                else:
                    f.invalid(KAD157, f"the API server refuses the object: `{words}`", nodes[res], uses=(nodes[res],))
