"""Regenerate kadmit's known-field trees (src/kadmit/manifests/schema/data/*.json) from their sources.

    python tools/gen_schemas.py core KUBE_DIR             # from the OpenAPI v3 of tools/kube-apiserver (`up KUBE_DIR`)
    python tools/gen_schemas.py crds OUT.json SOURCE CRD.yaml...   # from CustomResourceDefinitions
    python tools/gen_schemas.py served KUBE_DIR OUT.json...  # OUT.json's kinds again, from the CRDs that server serves
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

# Kubernetes types kadmit (or its job converters) read, and the types they reach: OpenAPI names.
CORE_ROOTS = tuple(f"io.k8s.api.{n}" for n in (
    "core.v1.Pod", "core.v1.Node", "core.v1.Namespace", "scheduling.v1.PriorityClass", "core.v1.ConfigMap",
    "core.v1.PodTemplateSpec", "core.v1.Toleration", "core.v1.Taint", "resource.v1.DeviceSelector",
    "batch.v1.Job", "apps.v1.Deployment", "apps.v1.StatefulSet", "resource.v1.ResourceClaimTemplate",
    "resource.v1.ResourceClaim", "resource.v1.DeviceClass", "admissionregistration.v1.ValidatingAdmissionPolicy",
    "admissionregistration.v1.ValidatingAdmissionPolicyBinding", "core.v1.LimitRange", "node.v1.RuntimeClass")) + (
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
# Scalar leaves, typed as the API server decodes them (schema/__init__ checks them): OpenAPI's
# (type, format) -> code, and the apimachinery types that decode themselves.
_OPENAPI_SCALARS = {("string", None): "str", ("string", "byte"): "b64", ("string", "date-time"): "time",
                    ("integer", "int32"): "i32", ("integer", "int64"): "i64", ("boolean", None): "bool",
                    ("number", "double"): "num"}
_OPENAPI_OWN = {"io.k8s.apimachinery.pkg.api.resource.Quantity": "q",
                "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "ios",
                "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "time",
                "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "time",
                "io.k8s.apimachinery.pkg.runtime.RawExtension": "*",
                "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "*"}


def served_core_schemas(get) -> dict[str, dict]:
    """The OpenAPI v3 schemas of Kubernetes' own groups (`api/v1`, `apis/GROUP/v1`) as a server serves
    them; `get(path)` answers `kubectl get --raw PATH` parsed."""
    paths = get("/openapi/v3")["paths"]
    out: dict[str, dict] = {}
    for path in sorted(p for p in paths if p == "api/v1" or re.fullmatch(r"apis/[\w.]+\.k8s\.io/v1|apis/(apps|batch)/v1", p)):
        out.update(get(f"/openapi/v3/{path}")["components"]["schemas"])
    return out


def _name(openapi: str, taken: set[str]) -> str:
    """The client's spelling of a type: `V1Pod`; a short name two groups share gets its group's
    (`CoreV1ResourceClaim`, `ResourceV1ResourceClaim`)."""
    short = openapi.rsplit(".", 1)[1]
    if short in taken:
        group = openapi.split(".")[3] if openapi.startswith("io.k8s.api.") else "meta"
        return group.capitalize() + "V1" + short
    return "V1" + short


def _openapi_tree(s: dict, todo: list[str]) -> str | dict:
    ref = s.get("$ref") or (s["allOf"][0]["$ref"] if len(s.get("allOf", ())) == 1 else None)
    if ref:
        target = ref.rsplit("/", 1)[1]
        if target in _OPENAPI_OWN:
            return _OPENAPI_OWN[target]
        todo.append(target)
        return "ref:" + target
    t = s.get("type")
    if t == "array":
        return {"l": _openapi_tree(s["items"], todo)}
    if t == "object":
        extra = s.get("additionalProperties")
        return {"m": _openapi_tree(extra, todo)} if isinstance(extra, dict) else "*"
    code = _OPENAPI_SCALARS.get((t, s.get("format")))
    if code is None:
        raise SystemExit(f"gen_schemas: no code for OpenAPI type {t!r} format {s.get('format')!r}")
    return code


def core_types(schemas: dict[str, dict]) -> dict[str, dict]:
    """core.json's types from served OpenAPI schemas: every type CORE_ROOTS reach, by the client's
    name, each field a tree (`ref:` names resolved to `core:` names)."""
    reached: dict[str, dict] = {}
    todo = list(CORE_ROOTS)
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        props = schemas[name].get("properties", {})
        reached[name] = {field: _openapi_tree(s, todo) for field, s in sorted(props.items())}
    shorts = [n.rsplit(".", 1)[1] for n in reached]
    shared = {s for s in shorts if shorts.count(s) > 1}
    names = {n: _name(n, shared) for n in reached}

    def resolved(tree):
        if isinstance(tree, dict):
            return {k: resolved(v) for k, v in tree.items()}
        return "core:" + names[tree[4:]] if tree.startswith("ref:") else tree
    return {names[n]: {f: resolved(t) for f, t in fields.items()} for n, fields in sorted(reached.items())}


def core(kube_dir: str) -> None:
    """core.json from the OpenAPI v3 a running tools/kube-apiserver (`up DIR`) serves."""
    import subprocess

    def get(path: str) -> dict:
        return json.loads(subprocess.run([f"{kube_dir}/bin/kubectl", "--kubeconfig", f"{kube_dir}/kubeconfig",
                                          "get", "--raw", path], check=True, capture_output=True, text=True).stdout)
    version = get("/version")["gitVersion"]
    out = {"source": f"kube-apiserver {version} (/openapi/v3)",
           "types": dict(sorted(core_types(served_core_schemas(get)).items()))}
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
    if s.get("x-kubernetes-int-or-string"):
        return "q" if s.get("pattern") == _QUANTITY_PATTERN else "ios"  # controller-gen's resource.Quantity
    # a CRD's scalar types as the API server validates them (format is not a type: `int32` is any integer)
    return _CRD_SCALARS.get(s.get("type"), "s")


_QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+"
                     r"(\.[0-9]*)?)|(\.[0-9]+))))?$")
_CRD_SCALARS = {"string": "str", "integer": "int", "number": "num", "boolean": "bool"}


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


def served(kube_dir: str, outs: list[str]) -> None:
    """Refresh every kind of bundles OUT.json (kueue.json, jobs.json) from the CRDs a running
    tools/kube-apiserver (`up DIR`) serves (the versions Kueue v0.17.0's go.mod pins); each kind keeps
    its source."""
    import subprocess

    crds = json.loads(subprocess.run([f"{kube_dir}/bin/kubectl", "--kubeconfig", f"{kube_dir}/kubeconfig", "get",
                                      "customresourcedefinitions", "--output", "json"],
                                     check=True, capture_output=True, text=True).stdout)["items"]
    trees = {}
    for crd in crds:
        spec = crd["spec"]
        for v in spec["versions"]:
            tree = _crd_tree(v["schema"]["openAPIV3Schema"])
            tree["o"]["metadata"] = "core:V1ObjectMeta"
            tree["o"].pop("status", None)
            trees[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = tree
    for out in outs:
        data = json.loads((DATA / out).read_text())
        for key in data["kinds"]:
            if key in trees:  # Kueue's Configuration is no CRD (goconfig)
                data["kinds"][key] = trees[key]
        (DATA / out).write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


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
        core(args[0])
    elif what == "crds":
        crds(args[0], args[1], args[2:])
    elif what == "served":
        served(args[0], args[1:])
    elif what == "goconfig":
        goconfig(args[0], args[1], args[2:])
    else:
        raise SystemExit(__doc__)
