"""What Kueue's webhooks refuse on create for every job kind, in Kueue's words (field path, value
and the validation's message, as `field.ErrorList` prints them): the jobs' queue-name and
max-execution-time labels (jobframework `ValidateJobOnCreate`, `ValidateQueueName`) and the
topology annotations of their pod templates (`ValidateTASPodSetRequest`). `manage` decides
whether a refusal applies (the integration enabled) and reports it (KAD170)."""

from __future__ import annotations

import re

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.yamltree import Val
from kadmit.model import Refusal

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
MAX_EXEC_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
TOPOLOGY_ANNOTATIONS = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
                        "kueue.x-k8s.io/podset-slice-required-topology")
# Integrations whose webhook checks only the queue name (ValidateQueueName), not the rest of
# jobframework.ValidateJobOnCreate.
QUEUE_NAME_ONLY = {"leaderworkerset.x-k8s.io/leaderworkerset", "statefulset", "deployment"}

# k8s.io/apimachinery/pkg/util/validation: IsDNS1123Subdomain and IsQualifiedName
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1123_MESSAGE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_QUALIFIED_FORMAT = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                     "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
                     "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_ATOI = re.compile(r"^[+-]?[0-9]+$")


def go_quote(text: str) -> str:
    """A string as Go's `%q` and field errors show it (for the plain text labels hold)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def go_atoi(text: str) -> tuple[int | None, str]:
    """`strconv.Atoi`: the value, or Go's error message."""
    if not _ATOI.match(text):
        return None, f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax"
    value = int(text)
    if not -2**63 <= value < 2**63:
        return None, f"strconv.Atoi: parsing {go_quote(text)}: value out of range"
    return value, ""


def dns_subdomain_errors(value: str) -> list[str]:
    return (["must be no more than 253 characters"] if len(value) > 253 else []) + \
        ([] if _DNS1123_SUBDOMAIN.fullmatch(value) else [_DNS1123_MESSAGE])


def qualified_name_errors(value: str) -> list[str]:
    """`IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of at most 63."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errs = []
    elif len(parts) == 2:
        prefix, name = parts
        errs = ["prefix part must be non-empty"] if not prefix else \
            [f"prefix part {e}" for e in dns_subdomain_errors(prefix)]
    else:
        return ["a qualified name " + _QUALIFIED_FORMAT + " with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if name and not _QUALIFIED_NAME.fullmatch(name):
        errs.append("name part " + _QUALIFIED_FORMAT)
    return errs


def _label_node(f: Fields, m: Val | None, key: str) -> Val | None:
    return f.field(f.map(m, "labels"), key) if m is not None else None


def job_refusals(f: Fields, o: Meta, framework: str) -> tuple[Refusal, ...]:
    """What every integration's webhook refuses on create, whether Kueue manages the job or not:
    a queue name that is not a DNS subdomain, as CRD names are; a `max-exec-time-seconds` label
    that is not a positive integer (not checked for LeaderWorkerSet, StatefulSet, Deployment)."""
    out = []
    queue = o.labels.get(QUEUE_LABEL)
    if queue is not None and (errors := dns_subdomain_errors(queue)):
        out.append(Refusal(message=f"metadata.labels[{QUEUE_LABEL}]: Invalid value: {go_quote(queue)}: "
                                   + ",".join(errors), managed_only=False,
                           span=f.span(_label_node(f, o.metadata, QUEUE_LABEL))))
    text = o.labels.get(MAX_EXEC_LABEL)
    if text is not None and framework not in QUEUE_NAME_ONLY:
        value, error = go_atoi(text)
        message = (f"Invalid value: {go_quote(text)}: {error}" if value is None else
                   f"Invalid value: {value}: should be greater than 0" if value <= 0 else "")
        if message:
            out.append(Refusal(message=f"metadata.labels[{MAX_EXEC_LABEL}]: {message}", managed_only=False,
                               span=f.span(_label_node(f, o.metadata, MAX_EXEC_LABEL))))
    return tuple(out)


def topology_refusals(f: Fields, metadata: Val | None) -> list[Refusal]:
    """`ValidateTASPodSetRequest`'s label-name checks of a pod template's topology annotations
    (the levels must be label names). The message starts at the annotation: its path above
    depends on where each kind keeps the template."""
    annotations = f.map(metadata, "annotations")
    out = []
    for key in TOPOLOGY_ANNOTATIONS:
        value = f.str(annotations, key)
        if value is None:
            continue
        for error in qualified_name_errors(value):
            out.append(Refusal(message=f"annotations[{key}]: Invalid value: {go_quote(value)}: {error}",
                               managed_only=False, span=f.span(f.field(annotations, key))))
    return out
