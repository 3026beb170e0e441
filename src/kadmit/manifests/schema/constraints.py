"""A job CRD's value constraints, checked as the API server's apiextensions validator checks them: required
fields, enums, bounds (minimum, maximum, exclusive too), string lengths and patterns, list lengths and map sizes
and the unique items or keys of a list of type `set` or `map` (data/jobs.json's "checks", `tools/gen_schemas.py
_crd_checks`: by path, down to where a kind's tree stops). A value that breaks one is KAD157 in the server's own words (k8s.io/apiextensions-apiserver
validation.ConvertToFieldErrors of kube-openapi's messages, checked against the oracle, which runs that
validator: tests/oracle/features/job-crd-refuses-*.yaml): the object is never created.

The CEL rules (`x-kubernetes-validations`) are few and simple: `CEL_RULES` implements each, keyed by its
text, and tests/manifests/test_crd_constraints.py fails when a CRD holds a rule the table does not list.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache

from kadmit.manifests.codes import KAD156, KAD157
from kadmit.manifests.yamltree import BOOL, FLOAT, INT, MAP, NULL, SEQ, STR, Val

def _has(o, *keys) -> bool:
    """CEL's `has(self.KEY)` of a decoded object for any of `keys` (a null field is pruned, so absent)."""
    return isinstance(o, dict) and any(o.get(k) is not None for k in keys)


def _name(o) -> str | None:
    name = o.get("metadata", {}).get("name") if isinstance(o, dict) and isinstance(o.get("metadata"), dict) else None
    return name if isinstance(name, str) else None


_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# Every CEL rule (`x-kubernetes-validations`) of the job CRDs' checked parts (data/jobs.json), by its text:
# what it says of `self` (the value decoded), True where the API server takes it; None for a rule the API
# server evaluates on update only. A rule not listed fails tests/manifests/test_crd_constraints.py.
CEL_RULES = {
    "self == oldSelf": None,  # a transition rule (immutability): evaluated on update only
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    "self.replicatedJobs.exists(x, has(x.dependsOn)))":
        lambda o: not (_has(o, "startupPolicy") and o["startupPolicy"].get("startupPolicyOrder") == "InOrder"
                       and any(_has(x, "dependsOn") for x in o.get("replicatedJobs") or [])),
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)":
        lambda o: all(not _has(t.get("metadata"), "namespace") or t["metadata"]["namespace"] == ""
                      for t in o.get("templates") or [] if isinstance(t, dict)),
    "self in ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue']":
        lambda v: v in ("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue"),
    "!((has(self.onSuccess) || has(self.onFailure)) && has(self.deletionRules))":
        lambda o: not (_has(o, "onSuccess", "onFailure") and _has(o, "deletionRules")),
    "((has(self.onSuccess) && has(self.onFailure)) || has(self.deletionRules))":
        lambda o: (_has(o, "onSuccess") and _has(o, "onFailure")) or _has(o, "deletionRules"),
    "!(has(self.jobStatus) && has(self.jobDeploymentStatus))":
        lambda o: not (_has(o, "jobStatus") and _has(o, "jobDeploymentStatus")),
    "has(self.jobStatus) || has(self.jobDeploymentStatus)": lambda o: _has(o, "jobStatus", "jobDeploymentStatus"),
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1":
        lambda o: sum(_has(o, k) for k in ("torch", "mpi", "jax", "xgboost", "flux")) <= 1,
    "self >= 1": lambda v: v >= 1,
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')":
        lambda o: _name(o) is None or _DNS_LABEL.search(_name(o)) is not None,
    "size(self.metadata.name) <= 63": lambda o: _name(o) is None or len(_name(o)) <= 63,
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']":
        lambda v: v in ("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue"),
}


class NoSuchKey(Exception):
    """CEL's `no such key` error: a rule reads a field its object lacks."""


def _key(o: dict, key: str):
    """CEL's `o.key`: a field's value, or its error where the field is absent."""
    if o.get(key) is None:
        raise NoSuchKey(key)
    return o[key]


def _quota_reserved(o) -> bool:
    status = o.get("status")
    return _has(status, "conditions") and any(isinstance(c, dict) and c.get("type") == "QuotaReserved"
                                              and c.get("status") == "True" for c in status["conditions"])


def _one_of(o, *keys) -> bool:
    return sum(_has(o, k) for k in keys) == 1


# The CEL rules of Kueue's kinds' status (data/kueuestatus.json; the root's that read the status): the same table
CEL_RULES |= {
    "has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' "
    "&& c.status == 'True') && has(self.status.admission) ? size(self.spec.podSets) == "
    "size(self.status.admission.podSetAssignments) : true":
        lambda o: not (_quota_reserved(o) and _has(o["status"], "admission"))  # Go writes a Workload's spec
        or len(_key(o.get("spec") or {}, "podSets")) == len(_key(o["status"]["admission"], "podSetAssignments")),
    "!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName": None,
    "!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && "
    "size(self.nominatedClusterNames) == 0))":
        lambda o: not _has(o, "clusterName") or not o.get("nominatedClusterNames"),
    "self.slices.all(x, size(x.valuesPerLevel) == size(self.levels))":
        lambda o: all(len(x.get("valuesPerLevel") or []) == len(o.get("levels") or []) for x in o.get("slices") or []),
    "!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount":
        lambda o: not _has(o.get("podCounts"), "individual") or len(o["podCounts"]["individual"]) == o.get("domainCount"),
    "self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount)":
        lambda o: all(not _has(x, "individual") or len(x["individual"].get("roots") or []) == o.get("domainCount")
                      for x in o.get("valuesPerLevel") or []),
    "[has(self.universal),has(self.individual)].filter(x,x==true).size() == 1":
        lambda o: _one_of(o, "universal", "individual"),
    "self.all(x, !has(x.key) ? x.operator == 'Exists' : true)":
        lambda ts: all(_has(x, "key") or x.get("operator") == "Exists" for x in ts),
    "self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)":
        lambda ts: all(not _has(x, "tolerationSeconds") or x.get("effect") == "NoExecute" for x in ts),
    "self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])":
        lambda ts: all(not _has(x, "operator") or x["operator"] in ("Equal", "Exists") for x in ts),
    "self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)":
        lambda ts: all(not (x.get("operator") == "Exists") or not _has(x, "value") for x in ts),
    "self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])":
        lambda ts: all(not _has(x, "effect") or x["effect"] in ("NoSchedule", "PreferNoSchedule", "NoExecute")
                       for x in ts),
}
_CEL_KINDS = (MAP, SEQ, STR, INT, FLOAT, BOOL)


def _rules(val: Val, rules: list[dict]) -> list[str]:
    """The API server's words for each CEL rule `val` breaks (apiextensions' cel validator: the value, but an
    object's or a list's, then the rule's message, or `failed rule: RULE`)."""
    out, plain = [], None
    for r in rules:
        test = CEL_RULES[r["rule"]]
        if test is None or val.kind not in _CEL_KINDS:
            continue
        plain = val.plain() if plain is None else plain
        try:
            ok = test(plain)
        except (TypeError, AttributeError):  # a value of a wrong type: KAD156's
            continue
        except NoSuchKey as e:  # CEL's error evaluating the rule, which the API server reports as its refusal
            out.append(f'Invalid value: "object": no such key: {e.args[0]} evaluating rule: '
                       f'{r.get("message") or r["rule"]}')
            continue
        if not ok:
            shown = "" if val.kind in (MAP, SEQ) else f"{go_value(plain)}: "  # an object's or a list's left out
            out.append(f'Invalid value: {shown}{r.get("message") or "failed rule: " + r["rule"]}')
    return out


def go_value(v) -> str:
    """A bad value as k8s.io/apimachinery's field.Error prints it: a string quoted (%q), a number or boolean
    plain (%v), anything else as JSON."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _go_float(v)
    return json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _go_float(x: float) -> str:
    """Go's %v of a float64 (%g, shortest, exponent from 1e21)."""
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    return repr(x)


def _number(val: Val) -> float | int | None:
    if val.kind is INT:
        return val.v
    if val.kind is FLOAT and math.isfinite(val.v):
        return int(val.v) if val.v == int(val.v) else val.v
    return None


def _broken(name: str, val: Val, c: dict) -> list[str]:
    """The API server's words (after the field's path) for each constraint of `c` that `val` breaks."""
    out = []
    if "enum" in c and val.kind in (STR, INT, FLOAT, BOOL, SEQ):  # a list too, after its type error (KAD156)
        v = _number(val) if val.kind in (INT, FLOAT) else val.plain() if val.kind is SEQ else val.v
        if not any(e == v and isinstance(e, bool) == isinstance(v, bool) for e in c["enum"]):
            allowed = ", ".join(json.dumps(e) if isinstance(e, str) else json.dumps(json.dumps(e)) for e in c["enum"])
            out.append(f"Unsupported value: {go_value(v)}: supported values: {allowed}")
    n = _number(val)
    if n is not None:
        bad = f"Invalid value: {go_value(n)}: {name} in body should be"
        if "minimum" in c and (n <= c["minimum"] if c.get("exclusiveMinimum") else n < c["minimum"]):
            strict = "" if c.get("exclusiveMinimum") else " or equal to"
            out.append(f"{bad} greater than{strict} {_go_float(float(c['minimum']))}")
        if "maximum" in c and (n >= c["maximum"] if c.get("exclusiveMaximum") else n > c["maximum"]):
            strict = "" if c.get("exclusiveMaximum") else " or equal to"
            out.append(f"{bad} less than{strict} {_go_float(float(c['maximum']))}")
    if val.kind is STR:  # the first of a string's errors only (kube-openapi stringValidator returns at it)
        length = len(val.v)  # kube-openapi counts runes
        if "maxLength" in c and length > c["maxLength"]:
            out.append(f"Too long: may not be more than {c['maxLength']} byte{'' if c['maxLength'] == 1 else 's'}")
        elif "minLength" in c and length < c["minLength"]:
            out.append(f"Invalid value: {go_value(val.v)}: {name} in body should be at least {c['minLength']} chars long")
        elif "pattern" in c and _pattern(c["pattern"]).search(val.v) is None:
            out.append(f"Invalid value: {go_value(val.v)}: {name} in body should match '{c['pattern']}'")
    if val.kind is SEQ:
        if "maxItems" in c and len(val.v) > c["maxItems"]:
            out.append(f"Too many: {len(val.v)}: must have at most {c['maxItems']} item{'' if c['maxItems'] == 1 else 's'}")
        if "minItems" in c and len(val.v) < c["minItems"]:
            out.append(f"Invalid value: {go_value(val.plain())}: {name} in body should have at least {c['minItems']} items")
    if val.kind is MAP:
        if "maxProperties" in c and len(val.v) > c["maxProperties"]:
            m = c["maxProperties"]
            out.append(f"Too many: {len(val.v)}: must have at most {m} item{'' if m == 1 else 's'}")
        if "minProperties" in c and len(val.v) < c["minProperties"]:
            out.append(f"Invalid value: {go_value(val.plain())}: {name} in body should have at least "
                       f"{c['minProperties']} properties")
    return out


def value_refusals(val: Val, c: dict, path: str) -> list[str]:
    """The API server's words, after the field's path, for each of a CRD's constraints `c` that `val` breaks (a
    field a reader checks on its own: `_broken`)."""
    return [f"{path}: {words}" for words in _broken(path, val, c)]


@lru_cache(maxsize=None)
def _pattern(p: str) -> re.Pattern:
    return re.compile(p)


def _trie(checks: dict[str, dict]) -> dict:
    """`checks`' paths as a tree of their parts (`[]` every item of a list, `{}` every value of a map), each node's
    checks (their places in `checks`) under the key None: made once per checks table."""
    got = _TRIES.get(id(checks))
    if got is None or got[0] is not checks:
        root: dict = {}
        for i, path in enumerate(checks):
            at = root
            for part in path.split("/") if path else ():
                at = at.setdefault(part, {})
            at.setdefault(None, []).append(i)
        got = _TRIES[id(checks)] = (checks, root)
    return got[1]


_TRIES: dict[int, tuple[dict, dict]] = {}


def _walk(node: Val, trie: dict, where: tuple, out: list) -> None:
    """Each value of `node` a check of `trie` applies to: (the check's place, its path, the value), in one walk."""
    for i in trie.get(None, ()):
        out.append((i, where, node))
    kind = node.kind
    for part, sub in trie.items():
        if part is None:
            continue
        if part == "[]":
            if kind is SEQ:
                for i, item in enumerate(node.v):
                    _walk(item, sub, where + (i,), out)
        elif kind is MAP:
            if part == "{}":
                for key, value in node.v.items():
                    _walk(value, sub, where + (key,), out)
            elif part in node.v:
                _walk(node.v[part], sub, where + (part,), out)


def _duplicates(val: Val, c: dict) -> list[tuple[int, str]]:
    """The items of a list of list type `set` (or keys of type `map`) that repeat an earlier one: the second
    of each, as apiextensions' listtype.validateListSet reports it (`Duplicate value: ...`)."""
    keys = c.get("listMapKeys")
    if keys and all(x.kind is MAP for x in val.v):  # the common case, first: objects whose keys are all apart
        seen_keys = {tuple((k, x.v[k].kind, x.v[k].v) if k in x.v and x.v[k].kind in (STR, INT, BOOL) else (k, x)
                           for k in keys) for x in val.v}
        if len(seen_keys) == len(val.v):
            return []
    items = val.plain()
    if c["listType"] == "map":
        if any(x is not None and not isinstance(x, dict) for x in items):
            return []  # the API server's "must be an object": a type error, KAD156's
        items = [{k: x[k] for k in keys if k in x} if isinstance(x, dict) else {} for x in items]
    seen: dict[str, int] = {}
    out = []
    for i, x in enumerate(items):
        shown = go_value(x)
        mark = json.dumps([type(x).__name__, x], sort_keys=True)  # Go compares an int64 and a float64 apart
        seen[mark] = seen.get(mark, 0) + 1
        if seen[mark] == 2:
            out.append((i, f"Duplicate value: {shown}"))
    return out


def _missing(val: Val, required: list[str]) -> list[str]:
    """The fields of a CRD's `required` an object lacks; a null one too (the API server prunes a null
    field its schema does not call nullable, and none of the job CRDs' required fields is)."""
    return [k for k in required if k not in val.v or val.v[k].kind is NULL]


Violation = tuple[tuple, Val, tuple[str, str, str | None]]
_NAME = "\x00"  # a field's name in `_broken`'s words, put in once one is said


def violations(node: Val, checks: dict[str, dict], go_path) -> tuple[list[Violation], list[Violation]]:
    """Each value of `node` that breaks its CRD's constraints: (its path, the value, (KAD157, the message,
    no help)), the message quoting the API server's error (`spec.x: Unsupported value: ...`); those of its CEL
    rules (`x-kubernetes-validations`) apart, second: the API server checks them only where no other error
    blocks them (`cel_blocked`)."""
    out, cel = [], []
    hits: list = []
    _walk(node, _trie(checks), (), hits)
    hits.sort(key=lambda h: h[0])  # in checks' order, each check's values in the document's
    table = list(checks.values())
    for at, where, val in hits:
        c = table[at]
        if "required" in c and val.kind is MAP:
            missing = _missing(val, c["required"])
            if missing:  # at the object that lacks them, as the API server lists each
                words = ", ".join(f"{go_path(where + (k,))}: Required value" for k in missing)
                out.append((where, val, (KAD157, f"is refused by its CRD: `{words}`", None)))
        broken = _broken(_NAME, val, c)  # the field's name put in where a value breaks a constraint
        if not broken and "rules" not in c and "listType" not in c:
            continue
        name = go_path(where) or "<nil>"  # the object itself: Go's nil field path
        for words in _rules(val, c["rules"]) if "rules" in c else ():
            cel.append((where, val, (KAD157, f"is refused by its CRD: `{name}: {words}`", None)))
        for words in broken:
            words = words.replace(_NAME, name)
            out.append((where, val, (KAD157, f"is refused by its CRD: `{name}: {words}`", None)))
        if "listType" in c and val.kind is SEQ and len(val.v) > 1:
            for i, words in _duplicates(val, c):
                out.append((where + (i,), val.v[i], (KAD157, f"is refused by its CRD: `{name}[{i}]: {words}`",
                                                     None)))
    out.sort(key=lambda w: (w[1].line, w[1].col))
    return out, sorted(cel, key=lambda w: (w[1].line, w[1].col))


# the API server's error where an object's other errors kept it from checking its CEL rules
CEL_NOT_CHECKED = ("<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
                   "correct the existing errors to complete validation")
# the API server's words of the errors that keep it from checking an object's CEL rules (apiextensions-apiserver
# customResourceStrategy.Validate, hasBlockingErr: Unsupported value (an enum), Required value, Too long, Too many,
# and a wrong type, KAD156's). Not a bound, a pattern (a bad quantity's too), a minimum length or a duplicate
# (kube-apiserver v1.35.3: tests/manifests/test_crd_constraints.py)
_BLOCKING = ("Unsupported value:", "Required value", "Too long:", "Too many:", " must be of type ")


def cel_blocked(wrong: list[Violation]) -> Violation | None:
    """The first of an object's errors (the API server's order) that keeps the API server from checking its CEL
    rules (`_BLOCKING`), else None."""
    return next((w for w in wrong if w[2][0] == KAD156 or (w[2][0] == KAD157 and any(
        b in w[2][1] for b in _BLOCKING))), None)
