"""Regenerate kadmit's known-field trees (src/kadmit/manifests/schema/data/*.json) from their sources.

    python tools/gen_schemas.py core KUBE_DIR             # from the OpenAPI v3 of tools/kube-apiserver (`up KUBE_DIR`)
    python tools/gen_schemas.py crds OUT.json SOURCE CRD.yaml...   # from CustomResourceDefinitions
    python tools/gen_schemas.py served KUBE_DIR OUT.json...  # OUT.json's kinds again, from the CRDs that server serves
    python tools/gen_schemas.py goconfig OUT.json SOURCE GROUP/VERSION=types.go...  # Kueue's Configuration
    python tools/gen_schemas.py nulls KUBE_DIR            # what the API server says of a null list item (null_items.json)
    python tools/gen_schemas.py goorder SOURCE TYPES.go...  # Go's field order of a PodSpec's types (go_order.json)

jobs.json also holds each job kind's value constraints by path ("checks": `_crd_checks`).
Trees are JSON: `"s"` a scalar, `"*"` anything (free-form), `{"o": {field: tree}}` an object,
`{"l": tree}` a list, `{"m": tree}` a map with free keys, `"core:V1Name"` a Kubernetes type of
core.json. Embedded pod templates of CRDs become `core:V1PodTemplateSpec` (the API server's own
type), since controller-gen writes their metadata as a bare object.
"""

from __future__ import annotations

import hashlib
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
    """A whole PodSpec (a TrainJob's runtime patch has a pod spec of a few of its fields, containers of
    four: its own schema)."""
    return {"containers", "initContainers", "volumes", "restartPolicy", "hostNetwork"} <= props.keys()


# The Kubernetes types a CRD's embedded pod spec lacks fields of (`_core_within`), by name, for OUT.json's "types"
_LESS: dict[str, dict] = {}


def _core_within(name: str, s: dict) -> str:
    """`core:NAME` for a CRD's schema `s` of that Kubernetes type, or, where `s` lacks some of the type's fields
    (a CRD generated against an older Kubernetes: training-operator v1.9.3's PodSpec has no pod-level
    `resources`; controller-gen's embedded ObjectMeta keeps five fields), `core:NAME~DIGEST`: the type less those
    fields, kept in OUT.json's "types" (`_LESS`). The API server's strict field validation refuses them (KAD180)."""
    props = s.get("properties")
    if not props or s.get("x-kubernetes-preserve-unknown-fields"):
        return "core:" + name
    fields = json.loads((DATA / "core.json").read_text())["types"][name]
    kept = {f: _within(t, props[f]) for f, t in fields.items() if f in props}
    if kept == fields:
        return "core:" + name
    key = f"{name}~{hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:8]}"
    _LESS[key] = kept
    return "core:" + key


def _within(tree, s: dict):
    """A field's tree of a Kubernetes type, less what the CRD's schema `s` of that field lacks."""
    if isinstance(tree, str):
        return _core_within(tree[5:], s) if tree.startswith("core:") else tree
    if "l" in tree and isinstance(s.get("items"), dict):
        return {"l": _within(tree["l"], s["items"])}
    if "m" in tree and isinstance(s.get("additionalProperties"), dict):
        return {"m": _within(tree["m"], s["additionalProperties"])}
    return tree


def _crd_tree(s: dict) -> str | dict:
    if s.get("x-kubernetes-preserve-unknown-fields"):
        return "*"
    props = s.get("properties")
    if props:
        if _is_pod_spec(props):
            return _core_within("V1PodSpec", s)
        if set(props) == {"metadata", "spec"} and _is_pod_spec(props["spec"].get("properties", {})):
            return _core_within("V1PodTemplateSpec", s)
        return {"o": {k: _crd_tree(v) for k, v in sorted(props.items())}}
    if s.get("type") == "array":
        return {"l": _crd_tree(s.get("items", {}))}
    if isinstance(s.get("additionalProperties"), dict):
        return {"m": _crd_tree(s["additionalProperties"])}
    if s.get("type") == "object":
        # no field: the API server prunes (strict: refuses) every field of an object its schema gives none
        # (a ClusterTrainingRuntime's `mlPolicy.torch`, trainer v2.2.0's empty TorchMLPolicySource)
        return "*" if s.get("additionalProperties") or s.get("x-kubernetes-embedded-resource") else {"o": {}}
    if s.get("x-kubernetes-int-or-string"):
        return "q" if s.get("pattern") == _QUANTITY_PATTERN else "ios"  # controller-gen's resource.Quantity
    # a CRD's scalar types as the API server validates them (format is not a type: `int32` is any integer)
    return _CRD_SCALARS.get(s.get("type"), "s")


# The value constraints of a CRD's OpenAPI schema the API server checks (its apiextensions validator),
# kept beside the tree (OUT.json's "checks", with the CEL rules and list types): schema/constraints checks
# them (KAD157).
_CONSTRAINTS = ("enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                "minItems", "maxItems", "minProperties", "maxProperties", "pattern", "required")


def _crd_checks(s: dict, path: tuple = ()) -> dict[str, dict]:
    """The constraints of a CRD schema by path (keys joined by `/`, `[]` a list's items, `{}` a map's
    values), down to where `_crd_tree` stops (free-form fields, pod templates), with the CEL rules
    (`x-kubernetes-validations`: rule, message, messageExpression, fieldPath, reason) of each node."""
    out: dict[str, dict] = {}
    if s.get("x-kubernetes-preserve-unknown-fields") and "properties" not in s:
        return out
    here = {k: s[k] for k in _CONSTRAINTS if k in s}
    if "required" in here:  # a field its schema defaults is there when the API server validates (RayCluster's
        here["required"] = [k for k in here["required"] if "default" not in s.get("properties", {}).get(k, {})]
        if not here["required"]:  # workerGroupSpecs[].minReplicas, maxReplicas)
            del here["required"]
    if s.get("pattern") == _QUANTITY_PATTERN:
        here.pop("pattern")  # the quantity's own check (KAD158)
    if s.get("x-kubernetes-validations"):
        here["rules"] = s["x-kubernetes-validations"]
    if s.get("x-kubernetes-list-type") in ("set", "map"):  # unique items, or unique keys
        here["listType"] = s["x-kubernetes-list-type"]
        if s.get("x-kubernetes-list-map-keys"):
            here["listMapKeys"] = s["x-kubernetes-list-map-keys"]
    if here:
        out["/".join(path)] = here
    props = s.get("properties")
    if props:
        if _is_pod_spec(props) or (set(props) == {"metadata", "spec"}
                                   and _is_pod_spec(props["spec"].get("properties", {}))):
            return out
        for k, v in sorted(props.items()):
            out.update(_crd_checks(v, path + (k,)))
    elif s.get("type") == "array" and isinstance(s.get("items"), dict):
        out.update(_crd_checks(s["items"], path + ("[]",)))
    elif isinstance(s.get("additionalProperties"), dict):
        out.update(_crd_checks(s["additionalProperties"], path + ("{}",)))
    return out


def _kind_checks(schema: dict) -> dict[str, dict]:
    """`_crd_checks` of a kind's schema but its metadata (the API server's own) and status (not checked)."""
    return {p: c for p, c in _crd_checks(schema).items() if p.split("/")[0] not in ("metadata", "status")}


_QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+"
                     r"(\.[0-9]*)?)|(\.[0-9]+))))?$")
_CRD_SCALARS = {"string": "str", "integer": "int", "number": "num", "boolean": "bool"}


def crds(out: str, source: str, files: list[str]) -> None:
    kinds: dict[str, dict] = {}
    checks: dict[str, dict] = {}
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
                checks[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = _kind_checks(
                    v["schema"]["openAPIV3Schema"])
    _merge(out, source, kinds, checks)


def served(kube_dir: str, outs: list[str]) -> None:
    """Refresh every kind of bundles OUT.json (kueue.json, jobs.json) from the CRDs a running
    tools/kube-apiserver (`up DIR`) serves (the versions Kueue v0.17.0's go.mod pins); each kind keeps
    its source."""
    import subprocess

    crds = json.loads(subprocess.run([f"{kube_dir}/bin/kubectl", "--kubeconfig", f"{kube_dir}/kubeconfig", "get",
                                      "customresourcedefinitions", "--output", "json"],
                                     check=True, capture_output=True, text=True).stdout)["items"]
    trees, checks = {}, {}
    for crd in crds:
        spec = crd["spec"]
        for v in spec["versions"]:
            tree = _crd_tree(v["schema"]["openAPIV3Schema"])
            tree["o"]["metadata"] = "core:V1ObjectMeta"
            tree["o"].pop("status", None)
            trees[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = tree
            checks[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = _kind_checks(v["schema"]["openAPIV3Schema"])
    for out in outs:
        data = json.loads((DATA / out).read_text())
        for key in data["kinds"]:
            if key in trees:  # Kueue's Configuration is no CRD (goconfig)
                data["kinds"][key] = trees[key]
                if key in data.get("checks", {}):
                    data["checks"][key] = checks[key]
        _keep_less(data)
        (DATA / out).write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


def _keep_less(data: dict) -> None:
    """OUT.json's "types": the `_LESS` types its kinds' trees name (and those name), no other."""
    types = {**data.get("types", {}), **_LESS}
    named: set[str] = set()
    todo = re.findall(r'"core:(\w+~\w+)"', json.dumps(data["kinds"]))
    while todo:
        name = todo.pop()
        if name not in named:
            named.add(name)
            todo += re.findall(r'"core:(\w+~\w+)"', json.dumps(types[name]))
    if named:
        data["types"] = {n: types[n] for n in sorted(named)}
    else:
        data.pop("types", None)


def _merge(out: str, source: str, kinds: dict, checks: dict) -> None:
    path = DATA / out
    data = json.loads(path.read_text()) if path.exists() else {"sources": {}, "kinds": {}}
    data["kinds"].update(kinds)
    _keep_less(data)
    if out == "jobs.json":  # Kueue's own kinds: its webhooks' checks, not these
        data.setdefault("checks", {}).update(checks)
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
    _merge(out, source, kinds, {})


# --- a null item in a built-in kind's list of objects (data/null_items.json) ------------------------------
# The API server decodes a built-in kind into Go types: a null item of a list of objects is the item type's
# empty object, which its validation then judges. `nulls` asks a running server, for every list of objects
# in the objects below (and in their first items), what it says of the object with a null item added:
# the messages about that item, or none (it takes the item as an empty object).
_C = {"name": "c", "image": "busybox", "env": [{"name": "E", "value": "v"}],
      "ports": [{"containerPort": 80}], "volumeMounts": [{"name": "v", "mountPath": "/v"}],
      "livenessProbe": {"httpGet": {"port": 80, "httpHeaders": [{"name": "h", "value": "v"}]}},
      "lifecycle": {"preStop": {"httpGet": {"port": 80}}}}
_POD_SPEC = {
    "restartPolicy": "Never", "containers": [_C],
    "volumes": [{"name": "v", "projected": {"sources": [
        {"configMap": {"name": "m", "items": [{"key": "k", "path": "p"}]}},
        {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}}]}},
        {"name": "d", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
            "selector": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}}}}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}},
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "t", "labelSelector": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "t", "whenUnsatisfiable": "DoNotSchedule"}],
    "tolerations": [{"operator": "Exists"}]}
_TEMPLATE = {"metadata": {"labels": {"a": "b"}}, "spec": _POD_SPEC}
_ALWAYS = {**_TEMPLATE, "spec": {**_POD_SPEC, "restartPolicy": "Always"}}
NULL_BASES = {
    "/v1/Pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": _POD_SPEC},
    "batch/v1/Job": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
                     "spec": {"completionMode": "Indexed", "completions": 2, "parallelism": 2, "template": _TEMPLATE,
                              "successPolicy": {"rules": [{"succeededIndexes": "0"}]},
                              "podFailurePolicy": {"rules": [{"action": "Ignore",
                                                              "onPodConditions": [{"type": "DisruptionTarget"}]}]}}},
    "apps/v1/Deployment": {"apiVersion": "apps/v1", "kind": "Deployment",
                           "metadata": {"name": "d", "namespace": "default"},
                           "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": _ALWAYS}},
    "apps/v1/StatefulSet": {"apiVersion": "apps/v1", "kind": "StatefulSet",
                            "metadata": {"name": "s", "namespace": "default"},
                            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": _ALWAYS}},
    "/v1/Node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
                 "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}},
    "/v1/Namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
    "/v1/ConfigMap": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m", "namespace": "default"}},
    "/v1/LimitRange": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "l", "namespace": "default"},
                       "spec": {"limits": [{"type": "Container"}]}},
    "scheduling.k8s.io/v1/PriorityClass": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                           "metadata": {"name": "pc"}, "value": 1},
    "node.k8s.io/v1/RuntimeClass": {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "r"},
                                    "handler": "h", "scheduling": {"tolerations": [{"operator": "Exists"}]}},
    "resource.k8s.io/v1/ResourceClaimTemplate": {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "r", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {
            "deviceClassName": "x", "selectors": [{"cel": {"expression": "true"}}]}},
            {"name": "s", "firstAvailable": [{"name": "a", "deviceClassName": "x"}]}]}}}},
    "resource.k8s.io/v1/DeviceClass": {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                       "metadata": {"name": "d"}},
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "v"},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                         "operations": ["CREATE"], "resources": ["pods"]}]},
                 "validations": [{"expression": "true"}]}},
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "v"}, "spec": {"policyName": "v", "validationActions": ["Deny"]}},
}


def _dotted(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def object_lists(types: dict, tree, obj, where: tuple = (), holder: str | None = None):
    """(path, item type, the type holding the list) of every list of objects below `tree` (core.json's), not
    in `status`; a list's items are entered where `obj` (an object of that tree) has them, each. Within a
    list's item only the objects it has are entered (an object made there may be a second of a one-of, a
    second volume source of a volume: refused for that)."""
    if isinstance(tree, str):
        if not tree.startswith("core:"):
            return
        holder, tree = tree[5:], {"o": types[tree[5:]]}
    in_item = any(isinstance(p, int) for p in where)
    for key, sub in tree.get("o", {}).items():
        if key == "status" and not where:
            continue
        path, here = where + (key,), obj.get(key) if isinstance(obj, dict) else None
        if isinstance(sub, dict) and isinstance(sub.get("l"), str) and sub["l"].startswith("core:"):
            yield path, sub["l"][5:], holder
            for i, item in enumerate(here if isinstance(here, list) else ()):
                yield from object_lists(types, sub["l"], item, path + (i,))
        elif isinstance(sub, str) and sub.startswith("core:") and (isinstance(here, dict) or not in_item):
            yield from object_lists(types, sub, here if isinstance(here, dict) else {}, path)


def with_null(base: dict, path: tuple) -> tuple[dict, int]:
    """A copy of `base` with a null item added to the list at `path`, and that item's index."""
    import copy
    obj = copy.deepcopy(base)
    o = obj
    for key in path[:-1]:
        o = o[key] if isinstance(key, int) else o.setdefault(key, {})
    items = o.setdefault(path[-1], [])
    items.append(None)
    return obj, len(items) - 1


def server_messages(stderr: str) -> list[str]:
    """The field errors of the server's refusal (`The Pod "p" is invalid: A` or `...: \n* A\n* B`)."""
    text = stderr.strip().split(" is invalid: ", 1)[-1]
    lines = [line[2:] for line in text.splitlines() if line.startswith("* ")]
    return lines or [text]


def _templated(messages: list[str], path: tuple, index: int, own_fields: set[str]) -> list[str] | None:
    """The server's messages about the null item at `path` + (`index`,), its path written `{item}`, the list's
    `{list}`, its index `{index}` where only its own key and index are the server's (a Node's taints are
    `metadata.taints[0]` in its words), the object holding the list `{holder}` where the server names an
    item's field `F` (of `own_fields`, the item type's and not the holder's) as `holder.F` (a downward API
    volume's items: `...downwardAPI.path`) or, beside only such, the holder itself (a label selector's
    message about its whole value, beside its item's own, is left out). None: no message is about the item
    (refused for another field only)."""
    listed, at, own, holder = _dotted(path), _dotted(path + (index,)), f"{path[-1]}[{index}]", _dotted(path[:-1])
    out, at_holder = [], []
    for m in messages:
        where, sep, rest = m.partition(": ")
        for whole, mark in ((at, "{item}"), (listed, "{list}")):
            if where == whole or where.startswith((whole + ".", whole + "[")):
                out.append(mark + where[len(whole):] + sep + rest)
                break
        else:
            if own in where:
                out.append(where.replace(own, f"{path[-1]}[{{index}}]") + sep + rest)
            elif where.startswith(holder + ".") and re.split(r"[.\[]", where[len(holder) + 1:])[0] in own_fields:
                out.append("{holder}" + where[len(holder):] + sep + rest)
            elif where == holder:
                at_holder.append("{holder}" + sep + rest)
    if at_holder and out and all(m.startswith("{holder}") for m in out):
        out += at_holder
    return out or None


def null_item_verdicts(create, types: dict) -> dict[str, dict[str, dict]]:
    """For each kind of NULL_BASES (`group/version/kind`) and each list of objects in it (its path, the
    indices written `[]`): the item type and the server's messages about the null item added there
    (`_templated`; [] where it takes it, None where it refuses the object for another field only: not known). `create(obj)`
    answers (exit code, stderr) of `kubectl create --dry-run=server` with that object."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = []
    for key, base in NULL_BASES.items():
        group, version, kind = key.split("/")
        root = f"core:{'V1' + kind}" if f"V1{kind}" in types else None
        for path, item, holder in object_lists(types, root, base):
            jobs.append((key, path, item, holder))

    def one(job):
        key, path, item, holder = job
        obj, index = with_null(NULL_BASES[key], path)
        code, stderr = create(obj)
        if not code:
            return job, []
        return job, _templated(server_messages(stderr), path, index, set(types[item]) - set(types[holder]))
    out: dict[str, dict[str, dict]] = {}
    with ThreadPoolExecutor(4) as pool:
        for (key, path, item, _), messages in pool.map(one, jobs):
            where = _dotted(tuple("[]" if isinstance(p, int) else p for p in path)).replace(".[]", "[]")
            had = out.setdefault(key, {}).get(where)
            if had is None or had["messages"] is None:  # a place tried in several items: the first answer
                out[key][where] = {"type": item, "messages": messages}
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def nulls(kube_dir: str) -> None:
    """null_items.json from a running tools/kube-apiserver (`up DIR`)."""
    import subprocess

    def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([f"{kube_dir}/bin/kubectl", "--kubeconfig", f"{kube_dir}/kubeconfig", *args],
                              input=input, capture_output=True, text=True)

    def create(obj: dict) -> tuple[int, str]:
        proc = run("create", "--dry-run=server", "-f", "-", input=json.dumps(obj))
        return proc.returncode, proc.stderr
    version = json.loads(run("get", "--raw", "/version").stdout)["gitVersion"]
    types = json.loads((DATA / "core.json").read_text())["types"]
    out = {"source": f"kube-apiserver {version} (kubectl create --dry-run=server)",
           "kinds": null_item_verdicts(create, types)}
    (DATA / "null_items.json").write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")


# --- Go's field order of a PodSpec's types (data/go_order.json) -----------------------------------------
# Go's unstructured converter decodes a struct field by field in its declaration order and stops at the first
# error (AppWrapper's GetPodTemplateSpec decodes a component's pod spec so): the order names that error.


def go_order(types: dict, texts: list[str]) -> dict[str, list[str]]:
    """Each core.json type a PodSpec reaches (`V1PodSpec`, ...): its fields' JSON keys in the order the Go
    struct of that name (without `V1`/`CoreV1`) declares them in `texts`, inlined structs in place."""
    structs: dict[str, str] = {}
    for text in texts:
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        for m in _STRUCT.finditer(text):
            structs.setdefault(m.group(1), m.group(2))

    def keys(name: str) -> list[str]:
        out = []
        for field_name, t, tag in _FIELD.findall(structs[name]):
            key = tag.split(",")[0]
            if ",inline" in tag or (not key and not field_name):
                out += keys(t.lstrip("*"))
            elif key != "-":
                out.append(key)
        return out
    order, todo = {}, ["V1PodSpec"]
    while todo:
        name = todo.pop()
        if name in order:
            continue
        go = re.sub(r"^(Core)?V1", "", name)
        order[name] = keys(go)
        if sorted(order[name]) != sorted(types[name]):
            raise SystemExit(f"gen_schemas: Go's {go} has {sorted(order[name])}, core.json's {name} {sorted(types[name])}")
        for tree in types[name].values():
            for ref in re.findall(r'"core:(\w+)"', json.dumps(tree)):
                todo.append(ref)
    return dict(sorted(order.items()))


def goorder(source: str, paths: list[str]) -> None:
    types = json.loads((DATA / "core.json").read_text())["types"]
    out = {"source": source, "types": go_order(types, [Path(p).read_text() for p in paths])}
    (DATA / "go_order.json").write_text(json.dumps(out, indent=0) + "\n")


if __name__ == "__main__":
    what, *args = sys.argv[1:]
    if what == "core":
        core(args[0])
    elif what == "crds":
        crds(args[0], args[1], args[2:])
    elif what == "served":
        served(args[0], args[1:])
    elif what == "goorder":
        goorder(args[0], args[1:])
    elif what == "nulls":
        nulls(args[0])
    elif what == "goconfig":
        goconfig(args[0], args[1], args[2:])
    else:
        raise SystemExit(__doc__)
