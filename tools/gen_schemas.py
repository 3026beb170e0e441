"""Regenerate kadmit's known-field trees (src/kadmit/manifests/schema/data/*.json) from their sources.

    python tools/gen_schemas.py core                       # from the installed `kubernetes` client: 35.x (= v1.35)
    python tools/gen_schemas.py crds OUT.json SOURCE CRD.yaml...   # from CustomResourceDefinitions
    python tools/gen_schemas.py goconfig OUT.json SOURCE GROUP/VERSION=types.go...  # Kueue's Configuration

Trees are JSON: `"s"` a scalar, `"*"` anything (free-form), `{"o": {field: tree}}` an object,
`{"l": tree}` a list, `{"m": tree}` a map with free keys, `"core:V1Name"` a Kubernetes type of
core.json. Embedded pod templates of CRDs become `core:V1PodTemplateSpec` (the API server's own
type), since controller-gen writes their metadata as a bare object.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent.parent / "src" / "kadmit" / "manifests" / "schema" / "data"

# Kubernetes types kadmit (or its job converters) read, and the types they reach.
CORE_ROOTS = ("V1Pod", "V1Node", "V1Namespace", "V1PriorityClass", "V1ConfigMap", "V1PodTemplateSpec",
              "V1ObjectMeta", "V1LabelSelector", "V1Toleration", "V1Taint", "V1DeviceSelector",
              "V1Job", "V1Deployment", "V1StatefulSet", "V1ResourceClaimTemplate", "ResourceV1ResourceClaim",
              "V1DeviceClass", "V1ValidatingAdmissionPolicy", "V1ValidatingAdmissionPolicyBinding",
              "V1LimitRange", "V1RuntimeClass")
_PRIMITIVES = {"str", "int", "float", "bool", "datetime", "date", "bytearray", "bytes"}


def _core_type(t: str) -> str | dict:
    # Client releases spell containers two ways: 37.x `List[X]`/`Dict[str, X]`, 35.x `list[X]`/`dict(str, X)`.
    if t in _PRIMITIVES:
        return "s"
    if t == "object":
        return "*"
    if t[:5] in ("List[", "list[") and t.endswith("]"):
        return {"l": _core_type(t[5:-1])}
    if (t.startswith("Dict[str, ") and t.endswith("]")) or (t.startswith("dict(str, ") and t.endswith(")")):
        return {"m": _core_type(t[10:-1])}
    if not re.fullmatch(r"[A-Z]\w*", t):
        raise SystemExit(f"gen_schemas: unknown client type spelling {t!r}")
    return "core:" + t


def core() -> None:
    import kubernetes
    import kubernetes.client.models as models

    types: dict[str, dict] = {}
    todo = list(CORE_ROOTS)
    while todo:
        name = todo.pop()
        if name in types:
            continue
        cls = getattr(models, name)
        fields = {}
        for attr, t in sorted(cls.openapi_types.items()):
            tree = _core_type(t)
            fields[cls.attribute_map[attr]] = tree
            todo.extend(re.findall(r"\b(V\d\w*|Core\w+|Resource\w+)\b", t))
        types[name] = fields
    out = {"source": f"kubernetes Python client {kubernetes.__version__} (openapi_types, attribute_map)",
           "types": dict(sorted(types.items()))}
    (DATA / "core.json").write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")


def _is_pod_spec(props: dict) -> bool:
    return "containers" in props and "initContainers" in props and "volumes" in props


def _crd_tree(s: dict) -> str | dict:
    if s.get("x-kubernetes-preserve-unknown-fields"):
        return "*"
    props = s.get("properties")
    if props:
        if _is_pod_spec(props):
            return "core:V1PodSpec"
        if set(props) == {"metadata", "spec"} and _is_pod_spec(props["spec"].get("properties", {})):
            return "core:V1PodTemplateSpec"
        return {"o": {k: _crd_tree(v) for k, v in sorted(props.items())}}
    if s.get("type") == "array":
        return {"l": _crd_tree(s.get("items", {}))}
    if isinstance(s.get("additionalProperties"), dict):
        return {"m": _crd_tree(s["additionalProperties"])}
    if s.get("type") == "object":
        return "*"
    return "s"


def crds(out: str, source: str, files: list[str]) -> None:
    kinds: dict[str, dict] = {}
    for path in files:
        for doc in yaml.safe_load_all(Path(path).read_text()):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            for v in spec["versions"]:
                tree = _crd_tree(v["schema"]["openAPIV3Schema"])
                tree["o"]["metadata"] = "core:V1ObjectMeta"
                tree["o"].pop("status", None)  # written by controllers; not checked (see schema/__init__)
                kinds[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = tree
    _merge(out, source, kinds)


def _merge(out: str, source: str, kinds: dict) -> None:
    path = DATA / out
    data = json.loads(path.read_text()) if path.exists() else {"sources": {}, "kinds": {}}
    data["kinds"].update(kinds)
    for k in kinds:
        data["sources"][k] = source
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


# Go types of other packages that Kueue's Configuration embeds.
_GO_EXTERNAL = {
    "metav1.LabelSelector": "core:V1LabelSelector", "metav1.Duration": "s", "time.Duration": "s",
    "corev1.ResourceName": "s", "corev1.ResourceList": {"m": "s"}, "resourcev1.QualifiedName": "s",
    "resourcev1.DeviceSelector": "core:V1DeviceSelector", "clientcmdapi.ExecConfig": "*",
    "configv1alpha1.LeaderElectionConfiguration": {"o": {k: "s" for k in (
        "leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock", "resourceName",
        "resourceNamespace")}},
}
_GO_SCALARS = {"string", "bool", "int", "int32", "int64", "float32", "float64"}
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.S | re.M)
_FIELD = re.compile(r"^\t(?:(\w+) +)?([\w.*\[\]]+) +`json:\"([^\"]*)\"", re.M)


def _go_tree(structs: dict[str, str], named: set[str], t: str) -> str | dict:
    t = t.lstrip("*")
    if t.startswith("[]"):
        return {"l": _go_tree(structs, named, t[2:])}
    if t.startswith("map["):
        return {"m": _go_tree(structs, named, t[t.index("]") + 1:])}
    if t in _GO_EXTERNAL:
        return _GO_EXTERNAL[t]
    if t in _GO_SCALARS or t in named:
        return "s"
    if t in structs:
        return {"o": _go_struct(structs, named, t)}
    raise SystemExit(f"unknown Go type {t}")


def _go_struct(structs: dict[str, str], named: set[str], name: str) -> dict:
    fields: dict = {}
    for field_name, t, tag in _FIELD.findall(structs[name]):
        key = tag.split(",")[0]
        if ",inline" in tag or (not key and not field_name):
            if t == "metav1.TypeMeta":
                fields.update({"apiVersion": "s", "kind": "s"})
            else:
                fields.update(_go_struct(structs, named, t.lstrip("*")))
        elif key != "-":
            fields[key] = _go_tree(structs, named, t)
    return dict(sorted(fields.items()))


def goconfig(out: str, source: str, specs: list[str]) -> None:
    kinds = {}
    for spec in specs:
        gv, paths = spec.split("=", 1)
        text = "\n".join(Path(path).read_text() for path in paths.split(","))
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        structs = {m.group(1): m.group(2) for m in _STRUCT.finditer(text)}
        for alias, target in re.findall(r"^type (\w+) = (\w+)$", text, re.M):
            structs[alias] = structs[target]
        named = set(re.findall(r"^type (\w+) (?:string|int32|bool)\b", text, re.M))
        kinds[f"{gv}/Configuration"] = {"o": _go_struct(structs, named, "Configuration")}
    _merge(out, source, kinds)


if __name__ == "__main__":
    what, *args = sys.argv[1:]
    if what == "core":
        core()
    elif what == "crds":
        crds(args[0], args[1], args[2:])
    elif what == "goconfig":
        goconfig(args[0], args[1], args[2:])
    else:
        raise SystemExit(__doc__)
