"""The `status` of Kueue's kinds, checked as the API server checks a status write (its status subresource's schema).

Kueue and its controllers write a Workload's status (and a ClusterQueue's, a LocalQueue's...) through the API server,
which validates it against the CRD's status schema: a status that breaks it (a condition without
`lastTransitionTime`, `type: ""`, an admission check's state without its time) is refused, so no cluster holds the
object as written and Kueue never reads it. The oracle reads an object as the API server takes its create, status
included (tools/kueue-oracle internal/objects Defaulter.Write): an unknown field is strict decoding's refusal
(KAD180), a value of a wrong type its decoding's, and the rest the schema's, in its words (KAD157).

Kueue's v1beta2 objects are checked after a round trip through Kueue's Go types, as the oracle decodes them
(`as_go`): a field Go omits when empty (`omitempty`) and written empty is gone (`domainCount: 0`: Required), and one
Go always writes, left out, is there with its zero value (a condition without `reason` has `reason: ""`, which the
schema's minimum length refuses; one without `message` is taken). data/kueuestatus.json (`tools/gen_status.py`)
holds each kind's status tree, checks and Go fields.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from kadmit.manifests.fields import whole_number
from kadmit.manifests.yamltree import BOOL, INT, MAP, NULL, SEQ, STR, Val

# The zero value Go writes of a field it always writes (no `omitempty`), by the field's Go kind.
_ZEROS = {"s": (STR, ""), "i": (INT, 0), "b": (BOOL, False)}


@lru_cache(maxsize=None)
def _kinds() -> dict[str, dict]:
    data = json.loads(resources.files("kadmit.manifests.schema").joinpath("data", "kueuestatus.json").read_text())
    return data["kinds"]


@lru_cache(maxsize=None)
def _children(kind: str) -> dict[str, dict[str, dict]]:
    """A kind's Go fields by the path of the object holding them."""
    out: dict[str, dict[str, dict]] = {}
    for path, info in _kinds()[kind]["go"].items():
        holder, _, name = path.rpartition("/")
        out.setdefault(holder, {})[name] = info
    return out


def entry(group: str, version: str, kind: str) -> dict | None:
    """The status tree, checks and Go fields of a kind's version with the status subresource, or None."""
    return _kinds().get(f"{group}/{version}/{kind}")


def _empty(val: Val, kind: str) -> bool:
    """Whether Go's JSON encoding leaves out a field of Go kind `kind` holding `val`, with `omitempty`."""
    if kind in ("s", "i", "b"):
        return (val.kind is STR and val.v == "") or (kind == "i" and whole_number(val) == 0) or (
            val.kind is BOOL and val.v is False)
    if kind in ("l", "m"):
        return val.kind in (SEQ, MAP) and not val.v
    return False


def as_go(val: Val, key: str, path: tuple = ("status",)) -> Val:
    """`val` (at `path`) as the oracle's round trip through Kueue's Go types of kind `key` leaves it: a null field
    gone, a field Go omits when empty and written empty gone, a field Go always writes and left out there with its
    zero value (located at the object holding it). The nodes of `val` that stay are its own."""
    if val.kind is SEQ:
        items = [as_go(x, key, path + ("[]",)) for x in val.v]
        return val if all(a is b for a, b in zip(items, val.v)) else _copy(val, SEQ, items)
    if val.kind is not MAP:
        return val
    fields = _children(key).get("/".join(path), {})
    out: dict[str, Val] = {}
    for name, sub in val.v.items():
        info = fields.get(name)
        if info is not None and (sub.kind is NULL or (info["omit"] and _empty(sub, info["kind"]))):
            continue
        out[name] = as_go(sub, key, path + (name,)) if info is not None else sub
    for name, info in fields.items():
        if name not in out and not info["omit"] and info["kind"] in _ZEROS:
            kind, zero = _ZEROS[info["kind"]]
            out[name] = Val(kind, zero, val.line, val.col, val.end_line, val.end_col)
    if out.keys() == val.v.keys() and all(out[k] is val.v[k] for k in out):
        return val
    return _copy(val, MAP, out)


def _copy(val: Val, kind: str, v) -> Val:
    new = Val(kind, v, val.line, val.col, val.end_line, val.end_col)
    keys = getattr(val, "keys", None)
    if keys is not None:
        new.keys = keys
    return new
