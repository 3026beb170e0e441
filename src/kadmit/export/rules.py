"""Rules as Kubernetes ValidatingAdmissionPolicies (`admissionregistration.k8s.io/v1`), each with its
binding: a `require`/`forbid` rule the API server can judge from the object alone is refused at
creation (on Workloads, and on the Jobs and JobSets users submit) with a message naming the rule
and its place. A rule that reads the admission (flavors, cluster queue, cohort) gets no policy and
is reported (KAD902); one that reads the admitted count is judged only for workloads without
partial admission (KAD905). `prefer` rules have no Kueue form (KAD901).

Each policy carries the rule's `.kad` text (`kadmit.dev/rule`) and a digest of its CEL
(`kadmit.dev/cel-sha256`), so that kadmit reads the rule back from the export (and only if its
CEL is what kadmit wrote: `manifests.admission`)."""

from __future__ import annotations

import hashlib
import re

from kadmit.diagnostics import Diagnostics, Severity
from kadmit.export.cel import ADMISSION, COUNT, CelError, Translator, Vacuous, needs, resources, string
from kadmit.export.codes import KAD901, KAD902, KAD905
from kadmit.export.kinds import kinds
from kadmit.export.text import rule_text
from kadmit.index import ModelIndex
from kadmit.manifests import admission
from kadmit.model import Model, Rule

API = "admissionregistration.k8s.io/v1"
RULE_ANNOTATION = admission.RULE_ANNOTATION
DIGEST_ANNOTATION = admission.DIGEST_ANNOTATION
_DNS = re.compile(r"[^a-z0-9.-]+")


def policy_name(rule: Rule, taken: set[str]) -> str:
    """`kadmit-<rule>` as a DNS subdomain; a digest of the rule's name is added where the name had to
    change (capitals, `_`, `/`) or would collide."""
    base = _DNS.sub("-", rule.name.lower()).strip("-.") or "rule"
    name = f"kadmit-{base}"[:200]
    if base != rule.name or name in taken:
        name = f"{name}-{hashlib.sha256(rule.name.encode()).hexdigest()[:8]}"
    taken.add(name)
    return name


def digest(validations: list[dict]) -> str:
    """The digest kadmit's reader checks (`manifests.admission.digest`)."""
    return admission.digest([(v["expression"], v["message"]) for v in validations])


def where(rule: Rule) -> str:
    return f"{rule.span.file}:{rule.span.line}" if rule.span is not None else "the policy"


def variables(ix: ModelIndex, rule: Rule) -> list[dict]:
    """The workload as rules see it, per kind; then what every kind shares."""
    model = ix.model
    defaults = sorted({lq.namespace for lq in model.local_queues if lq.name == "default"})
    res = resources(rule)
    ks = kinds(defaults)

    def per_kind(pick, text: str = "''") -> str:
        for k in reversed(ks):
            text = f"(object.kind == {string(k.kind)} ? {pick(k)} : {text})"
        return text

    wpc = "{" + ", ".join(f"{string(n)}: {p.value}" for n, p in sorted(ix.workload_priority_classes.items())) + "}"
    pc = "{" + ", ".join(f"{string(n)}: {p.value}" for n, p in sorted(ix.pod_priority_classes.items())) + "}"
    default = ix.default_priority
    src = "variables.prioritySource"
    priority = (f"({src}[0] == 'workload' ? ({src}[1] in {wpc} ? {wpc}[{src}[1]] : {default}) : "
                f"({src}[0] == 'pod' ? ({src}[1] in {pc} ? {pc}[{src}[1]] : {default}) : "
                f"({src}[0] == 'value' && {src}[1] != '' ? int({src}[1]) : {default})))")
    groups = "variables.podGroups"
    totals = "{" + ", ".join(
        f"{string(r)}: (size({groups}) == 0 ? 0 : {groups}.map(g, g.requests[{string(r)}] * g.count).sum())"
        for r in res) + "}"
    return [
        {"name": "name", "expression": "object.metadata.name"},
        {"name": "queue", "expression": per_kind(lambda k: k.queue)},
        {"name": "prioritySource", "expression": per_kind(lambda k: k.priority_source, "['', '']")},
        {"name": "priority", "expression": priority},
        {"name": "podGroups", "expression": per_kind(lambda k: k.pod_groups(res), "[]")},
        {"name": "podCount", "expression": f"(size({groups}) == 0 ? 0 : {groups}.map(g, g.count).sum())"},
        {"name": "totalRequests", "expression": totals},
        {"name": "partial", "expression": f"{groups}.exists(g, g.minCount < g.count)"},
        {"name": "namespaceLabels", "expression": "(has(namespaceObject.metadata.labels) ? "
                                                  "namespaceObject.metadata.labels : {})"},
    ]


def admission_policy(ix: ModelIndex, rule: Rule, name: str, counted: bool) -> list[dict]:
    """The policy for `rule` and its binding."""
    body = Translator(ix).rule(rule)
    if counted:
        body = f"variables.partial || ({body})"
    verb = "requires" if rule.kind == "require" else "forbids"
    validations = [{"expression": body, "message": f"kadmit rule `{rule.name}` ({where(rule)}) {verb} "
                    "something this workload does not meet", "reason": "Forbidden"}]
    defaults = sorted({lq.namespace for lq in ix.model.local_queues if lq.name == "default"})
    ks = kinds(defaults)
    managed = " || ".join(f"(object.kind == {string(k.kind)} && {k.managed})" for k in ks)
    policy = {
        "apiVersion": API, "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "annotations": {DIGEST_ANNOTATION: digest(validations),
                                                   RULE_ANNOTATION: rule_text(rule)}},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [k.rule() for k in ks]},
            "matchConditions": [
                {"name": "kueue-manages-it", "expression": managed},
                {"name": "created-or-spec-changed",
                 "expression": "request.operation == 'CREATE' || object.spec != oldObject.spec"}],
            "variables": variables(ix, rule),
            "validations": validations}}
    binding = {"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
               "spec": {"policyName": name, "validationActions": ["Deny"]}}
    return [policy, binding]


def admission_policies(model: Model, ix: ModelIndex, diags: Diagnostics, unenforced: list[str],
                       allow_unenforced: bool) -> list[tuple[dict, object, str]]:
    out = []
    taken: set[str] = set()
    severity = Severity.WARNING if allow_unenforced else None
    seen: set[str] = set()
    for rule in sorted(model.rules, key=lambda r: r.name):
        if rule.name in seen:
            continue
        seen.add(rule.name)
        if rule.kind == "prefer":
            diags.emit(KAD901, f"`prefer` rule `{rule.name}` is left out: Kueue has no preferences (only kadmit's "
                       "optimal mode reads them; Kueue's own decisions, and `admit`'s ordered mode, don't)",
                       rule.span)
            continue
        need = needs(rule)
        try:
            Translator(ix).rule(rule)
        except Vacuous:
            diags.emit(KAD901, f"rule `{rule.name}` is left out: it divides a number that depends on the admitted "
                       "count (or multiplies two), which kadmit's engine can't check, so it constrains nothing",
                       rule.span, help="divide numbers known before admission, e.g. `pod_group.max_count`")
            continue
        except CelError:
            pass  # reported below, by the reason that applies
        if ADMISSION in need:
            unenforced.append(rule.name)
            diags.emit(KAD902, f"rule `{rule.name}` reads the workload's admission (its flavors, cluster queue "
                       "or cohort), which no admission policy sees when the workload is created: the cluster "
                       "does not enforce it", rule.span, severity=severity,
                       help="a Kueue AdmissionCheck could enforce it; `--allow-unenforced` exports the rest")
            continue
        if COUNT in need:
            unenforced.append(rule.name)
            diags.emit(KAD905, f"rule `{rule.name}` reads the admitted count: its policy judges workloads "
                       "without partial admission only", rule.span, severity=severity,
                       help="a Kueue AdmissionCheck could enforce it for the others; `--allow-unenforced` "
                            "exports it as it is")
        try:
            objs = admission_policy(ix, rule, policy_name(rule, taken), COUNT in need)
        except CelError as e:  # the validator reports rules that don't type-check; nothing to enforce
            unenforced.append(rule.name)
            diags.emit(KAD902, f"rule `{rule.name}` can't be written as an admission policy: {e}", rule.span,
                       severity=severity)
            continue
        for obj in objs:
            out.append((obj, rule.span, f"{rule.kind} {rule.name}"))
    return out
