"""Regenerate kadmit's Kueue status schemas (src/kadmit/manifests/schema/data/kueuestatus.json): each Kueue kind's
`status` tree, checks and Go fields, for the versions with the status subresource (manifests/schema/status.py).

    K=$(go env GOMODCACHE)/sigs.k8s.io/kueue@v0.17.0 M=$(go env GOMODCACHE)/k8s.io/apimachinery@v0.35.3
    python tools/gen_status.py kueuestatus.json "kubernetes-sigs/kueue@v0.17.0 ..." \
        $K/config/components/crd/bases/*.yaml $K/apis/kueue/v1beta1/*types.go $K/apis/kueue/v1beta2/*types.go \
        $M/pkg/apis/meta/v1/types.go
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

from gen_schemas import DATA, _FIELD, _STRUCT, _crd_checks, _crd_tree


def _status_checks(schema: dict) -> dict[str, dict]:
    """`_crd_checks` of a kind's status, and its root's CEL rules that read the status but no old object (a rule with
    `oldSelf` is a transition rule: not evaluated on create), by path from the object's root."""
    out = {p: c for p, c in _crd_checks(schema).items() if p.split("/")[0] == "status"}
    rules = [r for r in schema.get("x-kubernetes-validations", [])
             if "self.status" in r["rule"] and "oldSelf" not in r["rule"]]
    if rules:
        out[""] = {"rules": rules}
    return out


_GO_NAMED = re.compile(r"^type (\w+) (string|int32|int64|int|bool)$", re.M)
_GO_SCALAR_KINDS = {"string": "s", "int32": "i", "int64": "i", "int": "i", "bool": "b"}


def _go_kind(t: str, named: dict[str, str], structs: dict[str, str]) -> str:
    """A Go field type's kind as its JSON encoding treats it: "s" a string, "i" an integer, "b" a boolean (each
    omitted, with omitempty, when zero), "t" a metav1.Time (its zero is null), "p" a pointer, "l" a slice, "m" a map,
    "o:T" a value struct T, "x" any other (a Quantity, a Duration: left as written)."""
    t = t.removeprefix("metav1.")
    if t.startswith("*"):
        return "p"
    if t.startswith("[]"):
        return "l"
    if t.startswith("map["):
        return "m"
    if t == "Time":
        return "t"
    base = named.get(t, t)
    if base in _GO_SCALAR_KINDS:
        return _GO_SCALAR_KINDS[base]
    return f"o:{t}" if t in structs else "x"


def _go_fields(schema: dict, struct: str, structs: dict[str, str], named: dict[str, str], path: tuple,
               out: dict[str, dict]) -> None:
    """For each field of `schema` (an object of Go struct `struct`), by path: its Go kind and whether it is
    omitted when empty (`omitempty`, `omitzero`), down through value structs, slices and pointers of structs."""
    fields = {}
    for _, t, tag in _FIELD.findall(structs.get(struct, "")):
        name, *opts = tag.split(",")
        fields[name] = (t, "omitempty" in opts or "omitzero" in opts)
    for key, sub in sorted(schema.get("properties", {}).items()):
        if key not in fields:
            continue
        t, omit = fields[key]
        kind = _go_kind(t, named, structs)
        out["/".join(path + (key,))] = {"kind": kind[0], "omit": omit}
        inner = t.removeprefix("*").removeprefix("[]").removeprefix("*").removeprefix("metav1.")
        if inner in structs:
            if sub.get("type") == "array" and isinstance(sub.get("items"), dict):
                _go_fields(sub["items"], inner, structs, named, path + (key, "[]"), out)
            elif "properties" in sub:
                _go_fields(sub, inner, structs, named, path + (key,), out)


def status(out: str, source: str, files: list[str]) -> None:
    """OUT.json (kueuestatus.json): each Kueue kind's `status` tree and checks, for the versions with the status
    subresource (what the API server validates a status write against; schema.check_status), and its Go fields
    (`_go_fields`: what the oracle's round trip through Kueue's Go types makes of a status as written). FILES: the
    CRDs, then the Go sources (`*.go`: Kueue's apis/kueue/VERSION and apimachinery's meta/v1 types.go, for
    Condition), each version's from a folder named for it."""
    go = [Path(f) for f in files if f.endswith(".go")]
    files = [f for f in files if not f.endswith(".go")]
    meta = "".join(p.read_text() for p in go if p.parent.name == "v1")
    kinds: dict[str, dict] = {}
    for path in files:
        for doc in yaml.safe_load_all(Path(path).read_text()):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            for v in spec["versions"]:
                schema = v["schema"]["openAPIV3Schema"]
                if "status" not in v.get("subresources", {}) or "status" not in schema.get("properties", {}):
                    continue
                text = meta + "".join(p.read_text() for p in go if p.parent.name == v["name"])
                structs = {m.group(1): m.group(2) for m in _STRUCT.finditer(text)}
                named = dict(_GO_NAMED.findall(text))
                fields: dict[str, dict] = {}
                _go_fields(schema["properties"]["status"], f"{spec['names']['kind']}Status", structs, named,
                           ("status",), fields)
                kinds[f"{spec['group']}/{v['name']}/{spec['names']['kind']}"] = {
                    "tree": _crd_tree(schema["properties"]["status"]), "checks": _status_checks(schema), "go": fields}
    data = {"source": source, "kinds": dict(sorted(kinds.items()))}
    (DATA / out).write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    status(sys.argv[1], sys.argv[2], sys.argv[3:])
