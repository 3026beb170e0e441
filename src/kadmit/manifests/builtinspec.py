"""What the API server refuses of a built-in object's own fields that kadmit reads no further: a Pod's (or a built-in
job's template's) restartPolicy, container names and ports, runtime class, scheduling gates and spread skew
(k8s.io/kubernetes v1.35 pkg/apis/core/validation ValidatePodSpec); a Job's spec (pkg/apis/batch/validation
validateJobSpec: `jobspec.job_spec_refusals`, its template's restartPolicy `Always`; its selector as the Job strategy
generates it, `job_selector_refusals`); a Deployment's or a
StatefulSet's selector against its template's labels (pkg/apis/apps/validation); a RuntimeClass's handler
(pkg/apis/node/validation; a PriorityClass's preemptionPolicy and reserved names: `policy.pod_priority_class`);
a LimitRange item's quantities against each other (ValidateLimitRange, `cluster.limit_range`). Each an
error (KAD157) at its field, in the API server's words (checked with tools/kube-apiserver/cmd/kubevalidate:
bench/builtin_refusals_sweep.py); the object is refused alone, as for the resources' words (`podspec._api_refusals`)."""

from __future__ import annotations

import json
import math
import re

from kadmit.manifests import kubenames
from kadmit.manifests.kubenames import LABEL_WORDS, NAME_PART_WORDS, SUBDOMAIN_WORDS
from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields
from kadmit.manifests.jobs.refusals import dns_subdomain_errors
from kadmit.manifests.jobspec import NON_INDEXED, job_spec_refusals
from kadmit.manifests.podspec import WRITTEN, restart_refusals
from kadmit.manifests.podvalues import integer_resource, overcommit_allowed, resource_name_words, written_quantity
from kadmit.manifests.yamltree import Val
from kadmit.quantity import MILLI, go_format, quantity_string

RESTART_POLICIES = ("Always", "OnFailure", "Never")
POD_FAILURE_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")  # supportedPortProtocols, as sets.List gives them: sorted
PORT_RANGE_WORDS = "must be between 1 and 65535, inclusive"  # IsValidPortNum
PORT_NAME_MAX = 15


def _refuse(f: Fields, words: str, at: Val | None, again: bool = False) -> None:
    """KAD157 in the server's `words` at `at`; not where `at` was refused already, unless `again` (several errors of
    one field, all the server's)."""
    f.invalid(KAD157, f"the API server refuses the object: `{words}`", at, uses=() if again else (at,))


def _text(node: Val | None) -> str | None:
    return node.v if node is not None and isinstance(node.v, str) else None


def _int(node: Val | None) -> int | None:
    return node.v if node is not None and isinstance(node.v, int) and not isinstance(node.v, bool) else None


def no_pod_spec(f: Fields, holder: Val | None, path: str) -> Val | None:
    """Where `holder` (a Pod, or a built-in object's pod template) has no pod spec (absent or null), the node
    refused (the null `spec`, else `holder`) with ValidatePodSpec's `{path}.containers: Required value` (`path`: the
    spec's field path; validateContainers; kubevalidate: a Pod without `spec`, a Job's or a Deployment's template
    without one): the object is refused alone, as for containers: []. None where it has one."""
    if holder is None or not isinstance(holder.v, dict) or f.field(holder, "spec") is not None:
        return None
    at = holder.v.get("spec") or holder
    _refuse(f, f"{path}.containers: Required value", at)
    return at


def pod_spec_refusals(f: Fields, spec: Val | None, path: str) -> None:
    """ValidatePodSpec's words for the fields below, of a pod spec at field path `path` (`spec`, a Pod's own, or a
    built-in template's): the containers (required), the containers' and init containers' names (an RFC 1123 label,
    each once among containers and init containers), images (required; a Pod's without leading or trailing
    whitespace, validateContainerOnlyForPod) and ports (`_port_refusals`), the restartPolicy, the runtime class (an
    RFC 1123 subdomain), the spread constraints' maxSkew (above zero) and the scheduling gates' names (qualified
    names)."""
    written = f.field(spec, "containers")
    if spec is not None and isinstance(spec.v, dict) and (written is None or written.v in (None, [])):
        _refuse(f, f"{path}.containers: Required value", written or spec, again=True)  # validateContainers
    # validateContainers, then validateInitContainers: a name required, an RFC 1123 label, once among the containers
    # ("" too); an init container named as a container (or an earlier init container) is the duplicate, said after
    # the container's own words (validateContainerCommon)
    seen: set[str] = set()
    spaced: list[tuple[str, Val]] = []
    for key in ("containers", "initContainers"):
        for i, c in enumerate(f.maps(spec, key)):
            node = f.field(c, "name")
            name = "" if node is None or node.v is None else _text(node)  # None: not a string (its own error)
            if name == "":
                _refuse(f, f"{path}.{key}[{i}].name: Required value", node or c, again=True)
            elif name is not None and kubenames.dns_label_problem(name) is not None:
                _refuse(f, f'{path}.{key}[{i}].name: Invalid value: "{name}": {LABEL_WORDS}', node)
            image = f.field(c, "image")
            if image is None or image.v in (None, ""):
                _refuse(f, f"{path}.{key}[{i}].image: Required value", image or c, again=True)
            elif path == "spec" and isinstance(image.v, str) and image.v != image.v.strip():
                spaced.append((f"{path}.{key}[{i}]", image))
            _port_refusals(f, c, f"{path}.{key}[{i}]")
            if name is None:
                continue
            if name in seen:
                _refuse(f, f'{path}.{key}[{i}].name: Duplicate value: "{name}"', node or c, again=True)
            if key == "containers" or name:  # an init container's "" is not kept
                seen.add(name)
    node = f.field(spec, "restartPolicy")
    policy = _text(node)
    if policy is not None and policy and policy not in RESTART_POLICIES:
        _refuse(f, f'{path}.restartPolicy: Unsupported value: "{policy}": supported values: '
                   + ", ".join(f'"{p}"' for p in RESTART_POLICIES), node, again=True)  # a Job's own words too
    # the deprecated `serviceAccount` stands for an unset or empty serviceAccountName (Convert_v1_PodSpec_To_core_PodSpec)
    node = f.field(spec, "serviceAccountName")
    if not _text(node):
        node = f.field(spec, "serviceAccount") or node
    account = _text(node)
    if account:  # ValidateServiceAccountName: IsDNS1123Subdomain's words
        for words in dns_subdomain_errors(account):
            _refuse(f, f'{path}.serviceAccountName: Invalid value: "{account}": {words}', node, again=True)
    node = f.field(spec, "runtimeClassName")
    runtime = _text(node)
    if runtime and kubenames.dns_subdomain_problem(runtime) is not None:
        _refuse(f, f'{path}.runtimeClassName: Invalid value: "{runtime}": {SUBDOMAIN_WORDS}', node)
    for i, c in enumerate(f.maps(spec, "topologySpreadConstraints")):
        node = f.field(c, "maxSkew")
        skew = _int(node)
        if skew is not None and skew <= 0:
            _refuse(f, f"{path}.topologySpreadConstraints[{i}].maxSkew: Invalid value: {skew}: must be greater "
                       "than zero", node)
    for i, g in enumerate(f.maps(spec, "schedulingGates")):
        node = f.field(g, "name")
        gate = _text(node)
        if gate is not None and kubenames.qualified_name_problem(gate) is not None:
            _refuse(f, f'{path}.schedulingGates[{i}]: Invalid value: "{gate}": {NAME_PART_WORDS}', node)
    for at, image in spaced:
        _refuse(f, f'{at}.image: Invalid value: "{image.v}": must not have leading or trailing whitespace', image)


def _port_refusals(f: Fields, container: Val, path: str) -> None:
    """validateContainerPorts' words for a container's `ports` (at `path`, the container's field path): a name
    (IsValidPortName: an IANA service name, each of its words; else a name seen before in this container is the
    duplicate), the containerPort (required: 0 or unset; else 1-65535), a hostPort written (1-65535), the protocol
    (SCTP, TCP or UDP: an unset or empty one is defaulted to TCP, SetDefaults_ContainerPort)."""
    names: set[str] = set()
    for j, p in enumerate(f.maps(container, "ports")):
        at = f.field(p, "name")
        name = _text(at)
        if name:
            words = port_name_words(name)
            for w in words:
                _refuse(f, f'{path}.ports[{j}].name: Invalid value: "{name}": {w}', at, again=True)
            if not words and name in names:
                _refuse(f, f'{path}.ports[{j}].name: Duplicate value: "{name}"', at)
            names.add(name)
        at = f.field(p, "containerPort")
        value = _int(at)
        if at is None or at.v is None or value == 0:
            _refuse(f, f"{path}.ports[{j}].containerPort: Required value", at or p, again=True)
        elif value is not None and not 1 <= value <= 65535:
            _refuse(f, f"{path}.ports[{j}].containerPort: Invalid value: {value}: {PORT_RANGE_WORDS}", at)
        at = f.field(p, "hostPort")
        value = _int(at)
        if value and not 1 <= value <= 65535:
            _refuse(f, f"{path}.ports[{j}].hostPort: Invalid value: {value}: {PORT_RANGE_WORDS}", at)
        at = f.field(p, "protocol")
        protocol = _text(at)
        if protocol and protocol not in PORT_PROTOCOLS:
            _refuse(f, f'{path}.ports[{j}].protocol: Unsupported value: "{protocol}": supported values: '
                       + ", ".join(f'"{x}"' for x in PORT_PROTOCOLS), at)


def port_name_words(name: str) -> list[str]:
    """IsValidPortName's words for a container port's `name` (k8s.io/apimachinery pkg/util/validation): at most 15
    characters, only a-z, 0-9 and '-', at least one letter, no '--', no '-' first or last."""
    words = [f"must be no more than {PORT_NAME_MAX} characters"] if len(name) > PORT_NAME_MAX else []
    if not re.fullmatch(r"[-a-z0-9]+", name):
        words.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", name):
        words.append("must contain at least one letter (a-z)")
    if "--" in name:
        words.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        words.append("must not begin or end with a hyphen")
    return words


def job_refusals(f: Fields, spec: Val | None, template_spec: Val | None, restart: str = WRITTEN,
                 job: Val | None = None) -> None:
    """validateJobSpec's words for a built-in Job's scalar fields (`job_spec_refusals`, an unset `completionMode`
    NonIndexed as SetDefaults_Job makes it), a `successPolicy` without Indexed completion, a podFailurePolicy
    rule's action outside the four, then its template's restartPolicy `Always` or unset (SetDefaults_PodSpec makes it
    Always), `OnFailure` with a podFailurePolicy (validateJobPodTemplateSpec, `podspec.restart_refusals`), or
    another value outside OnFailure and Never (said twice, ValidatePodSpec's words too). `restart` KEPT: a Job
    JobSet's controller makes, whose unset restartPolicy JobSet's webhook made OnFailure (`podspec.restart_refusals`).
    No pod spec (nor template, nor spec: at the null field, else the Job `job`): the containers required first."""
    for words in job_spec_refusals(f, spec, default_mode=NON_INDEXED):
        # at the field refused, or where it is required, the field the words name (maxFailedIndexes, ...)
        key = words.split(":", 1)[0].removeprefix("spec.")
        named = [k for k in (spec.v if spec is not None and isinstance(spec.v, dict) else {}) if k in words]
        _refuse(f, words, f.field(spec, key) or next((f.field(spec, k) for k in named if f.field(spec, k)), spec))
    mode = _text(f.field(spec, "completionMode")) or NON_INDEXED
    success = f.field(spec, "successPolicy")
    if success is not None and mode != "Indexed":
        rules = [{"SucceededIndexes": _text(f.field(r, "succeededIndexes")),
                  "SucceededCount": _int(f.field(r, "succeededCount"))} for r in f.maps(success, "rules")]
        _refuse(f, f"spec.successPolicy: Invalid value: {json.dumps({'Rules': rules}, separators=(',', ':'))}: "
                   "requires indexed completion mode", success)
    for i, rule in enumerate(f.maps(f.field(spec, "podFailurePolicy"), "rules")):
        at = f.field(rule, "action")
        action = _text(at)
        if action is not None and action not in POD_FAILURE_ACTIONS:
            _refuse(f, f'spec.podFailurePolicy.rules[{i}].action: Unsupported value: "{action}": supported values: '
                       + ", ".join(f'"{a}"' for a in POD_FAILURE_ACTIONS), at)
    template = f.field(spec, "template")
    at = None
    if template is not None and template_spec is None:
        at = no_pod_spec(f, template, "spec.template.spec")
    elif template is None and (spec is None or isinstance(spec.v, dict)) and job is not None:
        at = (spec.v.get("template") if spec is not None else job.v.get("spec")) or spec or job
        _refuse(f, "spec.template.spec.containers: Required value", at)
    if at is not None:  # the server's words in its order: the containers, then the restartPolicy (unset: Always)
        for words in restart_refusals(f, None, "spec.template.spec", "Job", spec, restart):
            _refuse(f, words, at, again=True)
    if template_spec is None or not isinstance(template_spec.v, dict):
        return
    node = f.field(template_spec, "restartPolicy")
    policy = _text(node) or ""
    if policy and policy not in ("Always", "OnFailure", "Never"):  # ValidatePodSpec's words first (again)
        _refuse(f, f'spec.template.spec.restartPolicy: Unsupported value: "{policy}": supported values: "OnFailure", '
                   '"Never"', node, again=True)
    else:  # unset, SetDefaults_PodSpec makes it Always: refused as Always
        for words in restart_refusals(f, template_spec, "spec.template.spec", "Job", spec, restart):
            _refuse(f, words, node or template_spec, again=node is None)


def _go_json(value, sort_keys: bool = True) -> str:
    # json.Marshal: a map's keys sorted (a struct's fields in their order), compact, <, > and & escaped
    text = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def selector_refusals(f: Fields, spec: Val | None) -> None:
    """ValidateDeploymentSpec's or ValidateStatefulSetSpec's words for the selector: required, and matching the
    template's labels (ValidatePodTemplateSpecForReplicaSet / ...ForStatefulSet; a missing selector matches
    nothing). An empty selector's words are not given (not checked on the server yet)."""
    from kadmit.manifests.policy import label_selector  # policy reads Kueue's objects: imported where used

    node = f.field(spec, "selector")
    template = f.map(spec, "template")
    meta = f.map(template, "metadata")
    labels, _ = f.str_map(meta, "labels")
    if node is None:
        _refuse(f, "spec.selector: Required value", spec)
        matches = False
    else:
        selector = label_selector(f, spec, "selector")
        matches = selector is None or selector.matches(labels)
    if not matches:
        _refuse(f, f"spec.template.metadata.labels: Invalid value: {_go_json(labels)}: `selector` does not match "
                   "template `labels`", f.field(meta, "labels") or template or spec)


# the labels generateSelector puts on a Job's template where it has none of that key, in validateGeneratedSelector's
# order (the uid ones the Job's, the name ones its name), and the one its selector must select
CONTROLLER_UID, JOB_NAME = "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name"
GENERATED = (("controller-uid", "uid"), ("job-name", "name"), (CONTROLLER_UID, "uid"), (JOB_NAME, "name"))
NO_UID = "00000000-0000-0000-0000-000000000000"  # kubevalidate's UID for an object given none


def _selector_json(selector) -> str:
    """A metav1.LabelSelector as Go's json.Marshal writes it in a field error (omitempty fields)."""
    out = {}
    if selector.match_labels:
        out["matchLabels"] = dict(sorted(selector.match_labels.items()))
    if selector.match_expressions:
        out["matchExpressions"] = [{"key": r.key, "operator": r.operator, **({"values": list(r.values)} if r.values
                                                                            else {})}
                                   for r in selector.match_expressions]
    return _go_json(out, sort_keys=False)


def job_selector_refusals(f: Fields, o_name: str, uid: str | None, spec: Val | None, template: Val | None) -> None:
    """The Job strategy's words for its selector (pkg/registry/batch/job PrepareForCreate, pkg/apis/batch/validation
    validateGeneratedSelector and ValidateJobSpec). Unless `manualSelector` is true the server generates it: the
    template gets the job-name and controller-uid labels it lacks, the selector the controller-uid one; a template
    label of those keys with another value is refused, and a selector selecting more than that label (`selector`
    not auto-generated). With a manual selector, none is refused (Required). Either way the selector must select
    the template's labels. The UID is the Job's own (one read from a cluster): the server gives a new Job a new
    one, which no selector written before names (shown as kubevalidate shows it, all zeros)."""
    from kadmit.manifests.policy import label_selector  # policy reads Kueue's objects: imported where used

    node = f.field(spec, "selector")
    selector = label_selector(f, spec, "selector") if node is not None else None
    meta = f.map(template, "metadata")
    labels, _ = f.str_map(meta, "labels")
    manual = f.field(spec, "manualSelector")
    if manual is not None and manual.v is True:
        if node is None:
            _refuse(f, "spec.selector: Required value", spec)
        if selector is None or not selector.matches(labels):
            shown = _go_json(labels) if f.field(meta, "labels") is not None else "null"
            _refuse(f, f"spec.template.metadata.labels: Invalid value: {shown}: `selector` does not match template "
                       "`labels`", f.field(meta, "labels") or node or spec, again=True)
        return
    values = {"uid": uid or NO_UID, "name": o_name}
    generated = {**{key: values[v] for key, v in GENERATED}, **labels}
    for key, v in GENERATED:
        if generated[key] != values[v]:
            _refuse(f, f"spec.template.metadata.labels[{key}]: Invalid value: {_go_json(generated)}: must be "
                       f"'{values[v]}'", f.field(f.field(meta, "labels"), key) or meta, again=True)
    if node is None or selector is None:
        return  # generated: it selects the labels generated
    full = selector.model_copy(update={"match_labels": {CONTROLLER_UID: values["uid"], **selector.match_labels}})
    if not full.matches({CONTROLLER_UID: values["uid"]}):
        _refuse(f, f"spec.selector: Invalid value: {_selector_json(full)}: `selector` not auto-generated", node, again=True)
    if not full.matches(generated):
        _refuse(f, f"spec.template.metadata.labels: Invalid value: {_go_json(generated)}: `selector` does not match "
                   "template `labels`", f.field(meta, "labels") or node, again=True)


def runtime_class_refusals(f: Fields, node: Val) -> None:
    """ValidateRuntimeClass's words for a RuntimeClass's `handler`: an RFC 1123 label (none or null: "", refused)."""
    at = f.field(node, "handler")
    handler = "" if at is None or at.v is None else _text(at)
    if handler is not None and kubenames.dns_label_problem(handler) is not None:
        _refuse(f, f'handler: Invalid value: "{handler}": {LABEL_WORDS}', node if at is None else at)


def node_status_refusals(f: Fields, capacity: tuple[dict[str, int], dict[str, Val]],
                         allocatable: tuple[dict[str, int], dict[str, Val]], defaulted: bool = False) -> None:
    """ValidateNodeResources' words for a Node's status quantities as read (`capacity`'s, then `allocatable`'s, the
    capacity's copy where `defaulted`: SetDefaults_NodeStatus): an integer resource's (pods, an extended resource)
    not whole is refused ("must be an integer", ValidateResourceQuantityValue). Reading them refuses a quantity
    not one, negative, or a list not a map (KAD156, KAD158)."""
    for key, (values, nodes) in (("capacity", capacity), ("allocatable", allocatable)):
        for res, qty in values.items():
            if integer_resource(res) and qty % MILLI:
                _refuse(f, f'status.{key}.{res}: Invalid value: "{written_quantity(qty, nodes[res])}": must be an '
                           "integer", nodes[res], again=defaulted)


def limit_range_refusals(f: Fields, i: int, kind: str | None, item: Val,
                         lists: dict[str, tuple[dict[str, int], dict[str, Val]]],
                         default: dict[str, int], default_request: dict[str, int]) -> None:
    """ValidateLimitRange's words for item `i` (of type `kind`) as SetDefaults_LimitRangeItem leaves it (`default`,
    `default_request`: a Container item's default taken from max, its defaultRequest from default, then min): each
    resource's name (a Pod or Container item's as a container's, `podvalues.resource_name_words`; another's a
    standard one or with a domain), a Pod item's default or defaultRequest (forbidden), a PersistentVolumeClaim
    item's storage (a min or a max required); then per resource, in the validator's order, min over max, min over
    the default request, the default request over max or over the default, min over the default, the default over
    max, a maxLimitRequestRatio below 1 or above max/min, a default and a default request apart for a resource not
    overcommitable. Each at the field the words name where it is written (or where the default was taken from), a
    quantity shown as Quantity.String keeps its written format."""
    (mins, min_at), (maxes, max_at) = lists["min"], lists["max"]
    ratios, ratio_at = lists["maxLimitRequestRatio"]
    default_at = {**max_at, **lists["default"][1]}
    request_at = {**min_at, **default_at, **lists["defaultRequest"][1]}
    base = f"spec.limits[{i}]"

    def show(milli: int, at: Val | None) -> str:
        return quantity_string(milli, go_format(at.v if at is not None and isinstance(at.v, str) else ""))

    def refuse(words: str, at: Val | None) -> None:
        # where it is written; a second refusal at a node (a default taken from max) is said too
        f.invalid(KAD157, f"the API server refuses the object: `{base}.{words}`", at, uses=())

    pod = kind == "Pod"
    if pod:  # forbidden, and not compared
        for key in ("default", "defaultRequest"):
            if lists[key][0]:
                refuse(f"{key}: Forbidden: may not be specified when `type` is 'Pod'", f.field(item, key))
        default, default_request = {}, {}
    names = (("max", maxes, max_at), ("min", mins, min_at), ("default", default, default_at),
             ("defaultRequest", default_request, request_at), ("maxLimitRequestRatio", ratios, ratio_at))
    for key, values, at in names:
        for r in sorted(values):
            words = resource_name_words(r, container=kind in ("Pod", "Container"))
            for w in words:
                refuse(f'{key}[{r}]: Invalid value: "{r}": {w}', at.get(r))
    if kind == "PersistentVolumeClaim" and "storage" not in mins and "storage" not in maxes:
        refuse("limits: Required value: either minimum or maximum storage value is required, but neither was provided",
               item)
    bad = {id(e.at) for e in f.collected or ()}  # a quantity refused already: nothing to compare
    for r in sorted({*mins, *maxes, *default, *default_request, *ratios}):  # a Go set's order: map order
        if any(id(nodes[1].get(r)) in bad for nodes in lists.values()):
            continue
        lo, hi, dl, dr, ratio = mins.get(r), maxes.get(r), default.get(r), default_request.get(r), ratios.get(r)
        lo_s = show(lo, min_at.get(r)) if lo is not None else ""
        hi_s = show(hi, max_at.get(r)) if hi is not None else ""
        dl_s = show(dl, default_at.get(r)) if dl is not None else ""
        dr_s = show(dr, request_at.get(r)) if dr is not None else ""
        ratio_s = show(ratio, ratio_at.get(r)) if ratio is not None else ""
        checks = (
            (lo is not None and hi is not None and lo > hi, "min", lo_s, f"min value {lo_s} is greater than max value {hi_s}"),
            (dr is not None and lo is not None and lo > dr, "defaultRequest", dr_s,
             f"min value {lo_s} is greater than default request value {dr_s}"),
            (dr is not None and hi is not None and dr > hi, "defaultRequest", dr_s,
             f"default request value {dr_s} is greater than max value {hi_s}"),
            (dr is not None and dl is not None and dr > dl, "defaultRequest", dr_s,
             f"default request value {dr_s} is greater than default limit value {dl_s}"),
            (dl is not None and lo is not None and lo > dl, "default", lo_s, f"min value {lo_s} is greater than default value {dl_s}"),
            (dl is not None and hi is not None and dl > hi, "default", hi_s, f"default value {dl_s} is greater than max value {hi_s}"),
            (ratio is not None and ratio < MILLI, "maxLimitRequestRatio", ratio_s, f"ratio {ratio_s} is less than 1"),
            (ratio is not None and lo is not None and hi is not None and ratio / MILLI > _max_over_min(hi, lo),
             "maxLimitRequestRatio", ratio_s,
             f"ratio {ratio_s} is greater than max/min = {_max_over_min(hi or 0, lo or 0):f}"),
            (not overcommit_allowed(r) and dl is not None and dr is not None and dl != dr, "defaultRequest", dr_s,
             f"default value {dl_s} must equal to defaultRequest value {dr_s} in {r}"),
        )
        for wrong, key, shown, words in checks:
            if wrong:
                at = {"min": min_at, "defaultRequest": request_at, "default": default_at,
                      "maxLimitRequestRatio": ratio_at}[key].get(r)
                refuse(f'{key}[{r}]: Invalid value: "{shown}": {words}', at)


def _max_over_min(hi: int, lo: int) -> float:
    """ValidateLimitRange's max/min of two quantities in milli-units (float64 division: above 0 over 0 is +Inf, 0
    over 0 NaN, which no ratio exceeds)."""
    if lo == 0:
        return math.inf if hi > 0 else -math.inf if hi < 0 else math.nan
    return hi / lo
