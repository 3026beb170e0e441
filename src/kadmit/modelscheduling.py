"""The scheduling vocabulary the model shares with Kubernetes: taints and tolerations, label
selector requirements, node selector terms (re-exported by `kadmit.model`)."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

import json
import re
from typing import Literal

from kadmit.modelbase import Obj

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class Taint(Obj):
    key: str
    value: str = ""
    effect: TaintEffect

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


class Toleration(Obj):
    key: str = ""  # empty with operator Exists tolerates every taint
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str = ""
    effect: Literal["", "NoSchedule", "PreferNoSchedule", "NoExecute"] = ""  # "" matches all effects

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes' ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.value == taint.value


_INT64 = re.compile(r"^[+-]?[0-9]+$")


def _go_int64(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 10, 64), as Gt/Lt parse label values: sign and digits, in range."""
    if not _INT64.match(text):
        return None
    value = int(text)
    return value if -2**63 <= value < 2**63 else None


class Requirement(Obj):
    """A label requirement: node selector terms (In/NotIn/Exists/DoesNotExist/Gt/Lt) and
    label selectors (In/NotIn/Exists/DoesNotExist). A node selector term of a Workload's or a custom
    resource's template holds its operator as written (no schema limits it): one outside the six matches
    nothing, and Kueue's parse refuses it (`expression_errors`)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    # `values: []` written in a Workload: the API server stores the empty list and Kueue's client decodes it
    # as one (its errors say `[]`, not `null`); one Kueue writes itself (a job's Workload) drops it (omitempty)
    empty_list: bool = False

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "In":
            return present and labels[self.key] in self.values
        if self.operator == "NotIn":
            return not present or labels[self.key] not in self.values
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        if self.operator not in ("Gt", "Lt") or not present or len(self.values) != 1:
            return False
        have, want = _go_int64(labels[self.key]), _go_int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if self.operator == "Gt" else have < want


class LabelSelector(Obj):
    """A Kubernetes LabelSelector; the empty selector matches everything."""

    match_labels: dict[str, str] = {}
    match_expressions: tuple[Requirement, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        return all(labels.get(k) == v for k, v in self.match_labels.items()) and all(
            r.matches(labels) for r in self.match_expressions)


NODE_NAME_FIELD = "metadata.name"  # the one field of a Node that `matchFields` selects on


def field_parses(req: Requirement) -> bool:
    """Whether component-helpers' nodeSelectorRequirementsAsFieldSelector reads this `matchFields`
    requirement: `In`/`NotIn` with exactly one value; anything else is a parse error, which makes its term
    match no node."""
    return req.operator in ("In", "NotIn") and len(req.values) == 1


def _go_json(r: Requirement) -> str:
    """A requirement's values ([]string) as Go's json.Marshal writes them in a field error: a list not written
    (nil) is null, an empty one Kueue read as such (`Requirement.empty_list`) `[]`."""
    return "[" + ",".join(_go_quote(v) for v in r.values) + "]" if r.values or r.empty_list else "null"


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")  # v1.NodeSelectorOperator's six


def _go_json_string(text: str) -> str:
    """A string of a named string type as a field error prints it (json.Marshal: HTML-safe escapes)."""
    return json.dumps(text, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace(
        "&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


_LABEL_KEY = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_KEY_MESSAGE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
                      "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_LABEL_VALUE_MESSAGE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                        "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
SUBDOMAIN_MESSAGE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                      "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                      "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def label_key_errors(key: str) -> list[str]:
    """apimachinery's content.IsLabelKey (v0.35; IsQualifiedName): an optional DNS-1123 subdomain prefix and
    `/`, then a name of at most 63 bytes, in its words."""
    parts = key.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return ["a valid label key " + _LABEL_KEY_MESSAGE + " with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix.encode()) > 253:
                errs.append("prefix part must be no more than 253 bytes")
            if not SUBDOMAIN.fullmatch(prefix):
                errs.append("prefix part " + SUBDOMAIN_MESSAGE)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY.fullmatch(name):
        errs.append("name part " + _LABEL_KEY_MESSAGE)
    return errs


def label_value_errors(value: str) -> list[str]:
    """apimachinery's content.IsLabelValue (v0.35; IsValidLabelValue), in its words."""
    return (["must be no more than 63 bytes"] if len(value.encode()) > 63 else []) + \
        ([] if not value or _LABEL_KEY.fullmatch(value) else [_LABEL_VALUE_MESSAGE])


def expression_errors(r: Requirement, at: str) -> list[str]:
    """What labels.NewRequirement (v0.35) refuses of one `matchExpressions` requirement whose field path is
    `at`, in its words: an operator outside the six (nodeSelectorRequirementsAsSelector's NotSupported, the
    requirement's other errors unchecked), In/NotIn with no values, Exists/DoesNotExist with some, Gt/Lt with
    other than one or a value that is no integer; then the key (content.IsLabelKey) and each value
    (content.IsLabelValue)."""
    if r.operator not in NODE_OPERATORS:
        return [f"{at}.operator: Unsupported value: {_go_json_string(r.operator)}: supported values: "
                + ", ".join(f'"{op}"' for op in NODE_OPERATORS)]
    key = label_key_errors(r.key)
    out = [f"{at}.key: Invalid value: {_go_quote(r.key)}: {'; '.join(key)}"] if key else []
    at_values = f"{at}.values"
    if r.operator in ("In", "NotIn") and not r.values:
        out.append(f"{at_values}: Invalid value: {_go_json(r)}: for 'in', 'notin' operators, values set can't be "
                   "empty")
    elif r.operator in ("Exists", "DoesNotExist") and r.values:
        out.append(f"{at_values}: Invalid value: {_go_json(r)}: values set must be empty for exists and "
                   "does not exist")
    elif r.operator in ("Gt", "Lt"):
        if len(r.values) != 1:
            out.append(f"{at_values}: Invalid value: {_go_json(r)}: for 'Gt', 'Lt' operators, exactly one "
                       "value is required")
        out += [f"{at_values}[{k}]: Invalid value: {_go_quote(v)}: for 'Gt', 'Lt' operators, the value must be "
                "an integer" for k, v in enumerate(r.values) if _go_int64(v) is None]
    # validateLabelValue's path: the value's index, then the key (field.Path.Key)
    out += [f"{at_values}[{k}][{r.key}]: Invalid value: {_go_quote(v)}: {'; '.join(errs)}"
            for k, v in enumerate(r.values) if (errs := label_value_errors(v))]
    return out


def parse_errors(terms: "tuple[NodeSelectorTerm, ...]") -> list[str]:
    """The errors component-helpers' nodeaffinity.NewNodeSelector (v0.35) gives for required node-affinity
    `terms`, in its words and order (empty where every term parses): a `matchFields` requirement other than
    In/NotIn with one value (nodeSelectorRequirementsAsFieldSelector); a `matchExpressions` one that
    labels.NewRequirement refuses (`expression_errors`). An empty term is skipped, as NewLazyErrorNodeSelector
    skips it."""
    out: list[str] = []
    for i, term in enumerate(terms):
        for j, r in enumerate(term.match_expressions):
            out += expression_errors(r, f"nodeSelectorTerms[{i}].matchExpressions[{j}]")
        for j, r in enumerate(term.match_fields):
            out += field_errors(r, f"nodeSelectorTerms[{i}].matchFields[{j}]")
    return out


def field_errors(r: Requirement, at: str) -> list[str]:
    """What nodeSelectorRequirementsAsFieldSelector refuses of one `matchFields` requirement at field path `at`:
    an operator other than In/NotIn, else other than one value."""
    if r.operator not in ("In", "NotIn"):
        return [f'{at}.operator: Unsupported value: {_go_json_string(r.operator)}: supported values: "In", "NotIn"']
    return [f"{at}.values: Invalid value: {_go_json(r)}: must have one element"] if len(r.values) != 1 else []


def flavor_affinity(terms: "tuple[NodeSelectorTerm, ...]", labels: dict[str, str],
                    keys: frozenset[str]) -> tuple[bool, list[str]]:
    """Kueue's non-topology flavor check of required node affinity (flavorassigner.go flavorSelector, then
    component-helpers' LazyErrorNodeSelector.Match on the flavor's node labels): each term keeps only its
    expressions on `keys` (its resource group's label keys; its fields are dropped), and a term left with none
    matches every flavor. Whether some kept term matches, and when none does, the parse errors of the kept
    terms (`expression_errors`, numbered as kept: Kueue's error for the pod set, which stops its search)."""
    kept = []
    for term in terms:
        exprs = [r for r in term.match_expressions if r.key in keys]
        if not exprs:
            return True, []
        kept.append(exprs)
    errors: list[str] = []
    for i, exprs in enumerate(kept):
        errs = [e for j, r in enumerate(exprs)
                for e in expression_errors(r, f"nodeSelectorTerms[{i}].matchExpressions[{j}]")]
        if errs:
            errors += errs
        elif all(r.matches(labels) for r in exprs):
            return True, []
    return False, errors


def go_node_selector(terms: "tuple[NodeSelectorTerm, ...]") -> str:
    """A required node affinity as Go prints a *v1.NodeSelector (its generated String())."""
    def reqs(rs: tuple[Requirement, ...]) -> str:
        return "[]NodeSelectorRequirement{" + "".join(
            f"NodeSelectorRequirement{{Key:{r.key},Operator:{r.operator},Values:[{' '.join(r.values)}],}},"
            for r in rs) + "}"
    return "&NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{" + "".join(
        f"NodeSelectorTerm{{MatchExpressions:{reqs(t.match_expressions)},MatchFields:{reqs(t.match_fields)},}},"
        for t in terms) + "},}"


def go_aggregate(errors: list[str]) -> str:
    """errors.Flatten(errors.NewAggregate(errs)).Error(): one as it is, more deduplicated in [a, b]."""
    seen = list(dict.fromkeys(errors))
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def field_matches(req: Requirement, name: str) -> bool:
    """One parsed `matchFields` requirement against the node named `name`: the node's field set is
    {metadata.name: name}, and any other key reads ""."""
    value = name if req.key == NODE_NAME_FIELD else ""
    return (value == req.values[0]) == (req.operator == "In")


class NodeSelectorTerm(Obj):
    """One term of required node affinity: its expressions and fields are ANDed."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()  # on the Node's `metadata.name` (NODE_NAME_FIELD)

    def matches(self, labels: dict[str, str], name: str | None = None) -> bool:
        """Expressions and fields ANDed; as in Kubernetes, an empty term matches no node. `name`: the node's;
        None where no node is at hand (Kubernetes checks no fields against an empty field set)."""
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(field_parses(r) for r in self.match_fields):
            return False
        if name is not None and not all(field_matches(r, name) for r in self.match_fields):
            return False
        return all(r.matches(labels) for r in self.match_expressions)
