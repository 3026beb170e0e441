"""Object identity from metadata: the controlling owner reference."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.model import ObjectRef


def controller_owner(f: Fields, o: Meta) -> ObjectRef | None:
    """The owner reference with `controller: true`, in the object's namespace (owners of
    namespaced objects are in the same namespace)."""
    for ref in f.maps(o.metadata, "ownerReferences"):
        if f.bool(ref, "controller", default=False):
            return ObjectRef(api_version=f.str(ref, "apiVersion", default="") or "",
                             kind=f.str(ref, "kind", default="") or "", namespace=o.namespace or "default",
                             name=f.str(ref, "name", default="") or "", uid=f.str(ref, "uid") or None)
    return None
