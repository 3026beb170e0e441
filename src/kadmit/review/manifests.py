"""`kadmit diff --manifests`: what the Kueue manifests `kadmit export` writes change between two
revisions of a policy — the objects added, removed and changed, each as a unified diff of its YAML
(the `file:line` a policy's message names is shown from the folder of each side's rules)."""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass

from kadmit.export import FILES, export_model, file_name
from kadmit.export.rules import DIGEST_ANNOTATION, digest
from kadmit.model import Model
from kadmit.pyyaml import yaml


@dataclass
class ManifestChange:
    file: str  # the export's file the object is in (`cluster-queues.yaml`)
    kind: str
    namespace: str | None
    name: str
    change: str  # added, removed, changed
    before: dict | None
    after: dict | None
    diff: str  # unified diff of the object's YAML

    def as_dict(self) -> dict:
        return {"file": self.file, "kind": self.kind, "namespace": self.namespace, "name": self.name,
                "change": self.change, "before": self.before, "after": self.after, "diff": self.diff}


def _root(model: Model) -> str:
    """The folder the rules' files share: their places are shown from there, so that the same rule
    read from two revisions' folders reads the same."""
    files = [r.span.file for r in model.rules if r.span is not None]
    if not files:
        return ""
    root = os.path.dirname(files[0]) if len(set(files)) == 1 else os.path.commonpath(files)
    return root.rstrip("/") + "/" if root else ""


def _objects(model: Model) -> dict[tuple, tuple[str, dict]]:
    """Every exported object by (file order, kind, namespace, name), policy only (no workloads, nodes)."""
    out = export_model(model, allow_unenforced=True)
    root = _root(model)
    found = {}
    for stem in FILES:
        for d in out.files.get(stem, ()):
            obj = json.loads(json.dumps(d.obj).replace(json.dumps(root)[1:-1], "")) if root else d.obj
            if obj["kind"] == "ValidatingAdmissionPolicy" and root:  # its digest, of the messages as shown
                obj["metadata"]["annotations"][DIGEST_ANNOTATION] = digest(obj["spec"]["validations"])
            meta = obj.get("metadata", {})
            found[(FILES.index(stem), obj["kind"], meta.get("namespace") or "", meta.get("name", ""))] = (
                file_name(stem), obj)
    return found


def _text(obj: dict | None) -> list[str]:
    if obj is None:
        return []
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False, width=1 << 30).splitlines(keepends=True)


def manifest_changes(base: Model, head: Model) -> list[ManifestChange]:
    b, h = _objects(base), _objects(head)
    out = []
    for key in sorted(set(b) | set(h)):
        (file, before), (_, after) = b.get(key, (None, None)), h.get(key, (None, None))
        if before == after:
            continue
        file = file or h[key][0]
        change = "added" if before is None else "removed" if after is None else "changed"
        _, kind, ns, name = key
        label = f"{file}:{kind}/{ns + '/' if ns else ''}{name}"
        diff = "".join(difflib.unified_diff(_text(before), _text(after), fromfile=f"a/{label}",
                                            tofile=f"b/{label}"))
        out.append(ManifestChange(file, kind, ns or None, name, change, before, after, diff))
    return out
