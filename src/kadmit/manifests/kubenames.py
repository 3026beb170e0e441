"""Kubernetes' own limits on names, label keys and values, and annotations (the API server's
`apimachinery` validation), checked where the manifest writes them."""

from __future__ import annotations

import re
from functools import lru_cache

from kadmit import kueuelabels
from kadmit.diagnostics import SERVER_WORDS
from kadmit.manifests.codes import KAD195, KAD196, KAD197, KAD301
from kadmit.manifests.fields import Fields
from kadmit.manifests.schema.constraints import go_value
from kadmit.manifests.yamltree import MAP, STR, Val
from kadmit.source import Span

DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
LABEL_MAX = 63
SUBDOMAIN_MAX = 253
ANNOTATIONS_MAX = 256 * 1024  # TotalAnnotationSizeLimitB: keys and values together
REFUSED = frozenset({KAD195, KAD196, KAD197})  # what the API server refuses an object for (not KAD301: Kueue's)

LABEL_WORDS = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
               "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
               "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
SUBDOMAIN_WORDS = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                   "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
                   "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
NAME_PART_WORDS = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                   "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                   "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_KEY_WORDS = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                   "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                   "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def label_key_words(value: str) -> list[str]:
    """apimachinery's IsLabelKey (IsQualifiedName) words for `value`, in its order: [] where it is one."""
    parts = value.split("/")
    if len(parts) > 2:
        return [f"a valid label key {LABEL_KEY_WORDS} with an optional DNS subdomain prefix and '/' (e.g. "
                "'example.com/MyName')"]
    words = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            words.append("prefix part must be non-empty")
        else:
            if len(prefix) > SUBDOMAIN_MAX:
                words.append(f"prefix part must be no more than {SUBDOMAIN_MAX} characters")
            if not DNS1123_SUBDOMAIN.fullmatch(prefix):
                words.append(f"prefix part {SUBDOMAIN_WORDS}")
    if not name:
        words.append("name part must be non-empty")
    elif len(name) > LABEL_MAX:
        words.append(f"name part must be no more than {LABEL_MAX} characters")
    if not QUALIFIED_NAME.fullmatch(name):
        words.append(NAME_PART_WORDS)
    return words


# Kinds whose names are DNS-1123 labels; every other kind kadmit reads (core kinds and Kueue's
# custom resources alike) takes a DNS-1123 subdomain.
LABEL_NAMED = {("", "Namespace")}


def _shown(text: str) -> str:
    return f"`{text}`" if len(text) <= 40 else f"`{text[:20]}…` ({len(text)} characters)"


def dns_label_problem(text: str) -> str | None:
    if len(text) > LABEL_MAX:
        return f"is {len(text)} characters long; a DNS-1123 label has at most {LABEL_MAX}"
    if not DNS1123_LABEL.fullmatch(text):
        return ("is not a DNS-1123 label (lowercase letters, digits and `-`, starting and ending "
                "with a letter or digit)")
    return None


def dns_subdomain_problem(text: str) -> str | None:
    if len(text) > SUBDOMAIN_MAX:
        return f"is {len(text)} characters long; a DNS-1123 subdomain has at most {SUBDOMAIN_MAX}"
    if not DNS1123_SUBDOMAIN.fullmatch(text):
        return ("is not a DNS-1123 subdomain (lowercase letters, digits, `-` and `.`, each part "
                "starting and ending with a letter or digit)")
    return None


@lru_cache(maxsize=4096)
def qualified_name_problem(key: str) -> str | None:
    """`IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of at most 63 (once per key:
    manifests repeat the same few label and annotation keys thousands of times)."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        if not prefix:
            return "has an empty prefix before `/`"
        if (p := dns_subdomain_problem(prefix)) is not None:
            return "has a prefix that " + p
    if not name:
        return "has an empty name"
    if len(name) > LABEL_MAX:
        return f"has a name part of {len(name)} characters; at most {LABEL_MAX}"
    if not QUALIFIED_NAME.fullmatch(name):
        return ("has a name part that isn't letters, digits, `-`, `_` and `.`, starting and ending "
                "with a letter or digit")
    return None


def label_value_problem(value: str) -> str | None:
    if len(value) > LABEL_MAX:
        return f"is {len(value)} characters long; at most {LABEL_MAX}"
    if value and not QUALIFIED_NAME.fullmatch(value):
        return ("isn't letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit "
                "(or empty)")
    return None


PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[A-Za-z_][\w -]*>")


def _help(value: str, usual: str) -> str:
    """`usual`, or, where the value holds a placeholder a tutorial leaves for the shell (`${JOB_ID}`, `$NS`,
    `<your-project>`), that it is one."""
    m = PLACEHOLDER.search(value)
    if m is None:
        return usual
    return (f"`{m.group(0)}` looks like a placeholder left to fill in (`envsubst < FILE` fills `${{VAR}}` from the "
            "environment): write the value it stands for")


def check_name(f: Fields, group: str, kind: str, node: Val | None, what: str = "name") -> None:
    """An object's `metadata.name` (or namespace) as Kubernetes validates it for `kind`."""
    if node is None or node.kind != STR:
        return
    label = (group, kind) in LABEL_NAMED or what == "namespace"
    problem = (dns_label_problem if label else dns_subdomain_problem)(node.v)
    if problem is not None:
        f.diags.emit(KAD195, f"the {what} of `{kind}` {_shown(node.v)} {problem}", f.span(node),
                     help=_help(node.v, "the API server rejects this object"))


LABEL_VALUE_WORDS = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                     "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                     "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _server_words(path: str | None, value: str, words: list[str]) -> list[str]:
    """A note quoting the API server's refusal of a label at `path` (apimachinery ValidateLabels: `field.Invalid` of
    each of IsQualifiedName's or IsValidLabelValue's messages), where the server validates it (an object's own
    labels); none elsewhere."""
    if path is None or not words:
        return []
    return [SERVER_WORDS + "; ".join(f"`{path}: Invalid value: {go_value(value)}: {w}`" for w in words)]


def check_labels(f: Fields, labels: Val | None, where: str = "label", path: str | None = None) -> None:
    """Each key a qualified name, each value a label value; `path`: where the API server validates them
    (`metadata.labels`), for its words."""
    if labels is None or labels.kind != MAP:
        return
    for key in sorted(labels.v):
        value = labels.v[key]
        if (p := qualified_name_problem(key)) is not None:
            f.diags.emit(KAD196, f"{where} key {_shown(key)} {p}", f.span(value),
                         help="label keys are `[prefix/]name`: a DNS subdomain prefix, a name of at most 63",
                         notes=_server_words(path, key, label_key_words(key)))
        if value.kind == STR and (p := label_value_problem(value.v)) is not None:
            words = ([f"must be no more than {LABEL_MAX} characters"] if len(value.v) > LABEL_MAX else []) + (
                [LABEL_VALUE_WORDS] if not QUALIFIED_NAME.fullmatch(value.v) else [])
            f.diags.emit(KAD196, f"the value of {where} `{key[:60]}` {p}", f.span(value),
                         help=_help(value.v, "label values are at most 63 letters, digits, `-`, `_` and `.`"),
                         notes=_server_words(path, value.v, words))


def check_annotations(f: Fields, annotations: Val | None) -> None:
    """Keys qualified names; keys and values together at most 256 KiB."""
    if annotations is None or annotations.kind != MAP:
        return
    total = 0
    for key in sorted(annotations.v):
        value = annotations.v[key]
        if (p := qualified_name_problem(key.lower())) is not None:
            f.diags.emit(KAD197, f"annotation key {_shown(key)} {p}", f.span(value))
        # surrogatepass: a JSON escape pair read by the YAML parser stays two surrogates; count bytes, never raise
        total += len(key.encode("utf-8", "surrogatepass")) + (
            len(value.v.encode("utf-8", "surrogatepass")) if value.kind == STR else 0)
    if total > ANNOTATIONS_MAX:
        f.diags.emit(KAD197, f"annotations take {total} bytes; Kubernetes allows {ANNOTATIONS_MAX} "
                     "(256 KiB, keys and values together)", f.span(annotations))


# once per key and place: a file repeats the same few keys near Kueue's domain (`kueue.x-k8s.io/job-uid` on
# every Workload), and one outside it is compared with the domain's spelling
_kueue_problem = lru_cache(maxsize=4096)(kueuelabels.problem)


def check_kueue_keys(f: Fields, metadata: Val | None, *, own: bool = True) -> None:
    """Labels and annotations in Kueue's domain that Kueue would not read as written (KAD301), at the
    key. `own`: the object's own metadata (not a pod template's), whose queue label decides whether
    Kueue manages it."""
    if metadata is None or metadata.kind != MAP:
        return
    labels = metadata.v.get("labels")
    present = labels.v if own and labels is not None and labels.kind == MAP else {kueuelabels.QUEUE_LABEL: None}
    for place in ("label", "annotation"):
        m = metadata.v.get(place + "s")
        if m is None or m.kind != MAP:
            continue
        for key in m.v:
            if "kueue" not in key and "k8s" not in key:
                continue  # not in (or near) Kueue's domain: the common case, no work
            got = _kueue_problem(key, place)
            if got is None:
                continue
            message, hint = got
            pos = getattr(m, "keys", {}).get(key)
            at = Span(f.file, pos[0] + 1, pos[1] + 1, pos[2] + 1, pos[3] + 1) if pos else f.span(m.v[key])
            f.diags.emit(KAD301, message, at, help=hint, notes=kueuelabels.unmanaged_note(hint, present))
