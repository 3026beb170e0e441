"""ValidatingAdmissionPolicies that `kadmit export` wrote -> the rules they enforce. Such a policy
carries its rule's `.kad` text (`kadmit.dev/rule`) and a digest of its validations
(`kadmit.dev/cel-sha256`); a policy whose validations still match the digest is read as that rule
(placed at the annotation). Any other policy — someone else's, or one changed since — is listed as
skipped: kadmit does not read CEL. Bindings are listed as skipped, naming their policy."""

from __future__ import annotations

import hashlib

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.codes import KAD906
from kadmit.manifests.fields import Fields, Meta, NotRead
from kadmit.model import Rule
from kadmit.source import NO_SPANS

RULE_ANNOTATION = "kadmit.dev/rule"
DIGEST_ANNOTATION = "kadmit.dev/cel-sha256"


def digest(validations: list[tuple[str, str]]) -> str:
    """The digest of a policy's validations: each expression and message, in order."""
    text = "\n".join(f"{expression}\n{message}" for expression, message in validations)
    return hashlib.sha256(text.encode()).hexdigest()


def _respan(e, span):
    """The expression with every span moved to `span` (the text it came from is an annotation)."""
    update: dict = {"span": span}
    for key in ("arg", "left", "right", "elem", "body", "domain"):
        if getattr(e, key, None) is not None:
            update[key] = _respan(getattr(e, key), span)
    if getattr(e, "items", None) is not None and not isinstance(e.items, dict):
        update["items"] = tuple(_respan(i, span) for i in e.items)
    return e.model_copy(update=update)


def policy(f: Fields, o: Meta) -> Rule:
    from kadmit.syntax import parse_text

    text = o.annotations.get(RULE_ANNOTATION)
    if text is None:
        raise NotRead("a ValidatingAdmissionPolicy that kadmit did not export: kadmit does not read CEL")
    spec = f.map(o.node, "spec")
    found = [(f.str(v, "expression", default=""), f.str(v, "message", default=""))
             for v in f.maps(spec, "validations")]
    annotations = f.map(o.metadata, "annotations")
    at = f.span(annotations.v[RULE_ANNOTATION]) if annotations is not None else f.span(o.node)
    if o.annotations.get(DIGEST_ANNOTATION) != digest(found):
        f.diags.emit(KAD906, f"ValidatingAdmissionPolicy `{o.name}` was changed after kadmit exported it: "
                     "not read as its rule", at, help="export the rule again with `kadmit export`")
        raise NotRead("changed after kadmit exported it: kadmit does not read CEL")
    inner = Diagnostics()
    rules = parse_text(text, f.file, inner).rules
    if inner.has_errors or len(rules) != 1:
        f.diags.emit(KAD906, f"ValidatingAdmissionPolicy `{o.name}`: its `{RULE_ANNOTATION}` is not one kadmit "
                     "rule; not read", at)
        raise NotRead("its rule annotation is not one kadmit rule")
    rule = rules[0]
    return rule.model_copy(update={"span": at, "spans": NO_SPANS, "expr": _respan(rule.expr, at)})


def binding(f: Fields, o: Meta) -> None:
    """A binding that denies is understood (its policy carries the rule); one that only warns or
    audits enforces nothing, and is listed as skipped."""
    spec = f.map(o.node, "spec")
    actions = f.strs(spec, "validationActions")
    if "Deny" not in actions:
        name = f.str(spec, "policyName", default="")
        raise NotRead(f"binds ValidatingAdmissionPolicy `{name}` with validationActions {actions}, which "
                      "refuse nothing")
    return None
