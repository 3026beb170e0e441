"""YAML and JSON that is not a manifest: what it is, so that a folder kept as people keep a GitOps
repository (Helm charts, CI workflows, kadmit's own outputs, other tools' settings) reads clean and
every file left out is listed with the reason (KAD020)."""

from __future__ import annotations

import re

from kadmit.manifests.goaction import parses
from kadmit.manifests.yamltree import MAP, SEQ, STR, Val

# Keys that make a mapping a Kubernetes object, even a broken one (reported as such: KAD155, …)
OBJECT_KEYS = ("apiVersion", "kind", "metadata", "spec")
# A Go template action (Helm, gomplate, …): `{{ … }}` on one line, not GitHub's `${{ … }}` (a candidate: `is_action`
# says whether it is one)
_TEMPLATE = re.compile(r"(?<![$\\])\{\{([^{}\n]*)\}\}")
# a Jinja statement or comment on one line (`{% if x %}`, `{# note #}`: Ansible's templates, cloud-init's), which
# neither YAML nor a manifest holds outside a quoted value: the file is a template (its `{{ x }}` being another's)
_JINJA = re.compile(r"\{%.*%\}|\{#.*#\}")
# the text of a line before a plain value it starts (`key: `, `- `, `- key: `): a `{{` there opens a flow mapping
_NODE_START = re.compile(r"[ \t]*(?:(?:-[ \t]+)+(?:[\w./-]+:[ \t]+)?|[\w./-]+:[ \t]+)")


def go_action(m: re.Match[str]) -> bool:
    """Whether a match of `_TEMPLATE` is an action text/template parses with Helm's functions (`goaction.parses`), not
    another tool's placeholder: Argo Workflows' `{{inputs.parameters.message}}` and `{{=expression}}`, a bare name
    (`{{uid}}`, the Kubernetes examples' vitess templates; Pipelines-as-Code's `{{ git_auth_secret }}`), Jinja's
    `{{ name | lower }}` (`function "name" not defined`), Kyverno's JMESPath (`||`, `keys(x)`, a backslash); these stand
    in quoted values of real manifests, which `kubectl apply` takes as they are."""
    return parses(m.group(1))


def is_action(text: str, m: re.Match[str], line_start: int) -> bool:
    """Whether a match of `_TEMPLATE` makes its file a template: a Go action (`go_action`), or another tool's
    placeholder that starts a plain value (`name: {{ app_name }}`, Ansible's; YAML reads a flow mapping there, which
    kubectl refuses), so the file is a template all the same (KAD020) rather than a manifest in error."""
    if _in_comment(text, line_start, m.start()):
        return False
    return go_action(m) or _NODE_START.fullmatch(text, line_start, m.start()) is not None


# a YAML comment's `#` on a line: at its start or after a space or tab
_COMMENT = re.compile(r"(?:^|[ \t])#", re.MULTILINE)


def _in_comment(text: str, line_start: int, at: int) -> bool:
    """Whether `at` is in a YAML comment: a `#` after a space or at the start of its line comes before it with no
    quote before that `#` on the line (a quote might open a string holding the `#`: then it is no comment here).
    YAML, and so `kubectl apply`, ignores a comment: `# {{ .Values.x }}` above a manifest leaves it a manifest."""
    c = _COMMENT.search(text, line_start, at)
    return c is not None and not any(q in text[line_start:c.start()] for q in "'\"")


def is_object(doc: Val) -> bool:
    """Whether a document (a mapping) is meant as a Kubernetes object: it has one of `OBJECT_KEYS`."""
    return any(k in doc.v for k in OBJECT_KEYS)


# a line opening a block scalar (`key: |`, `- >-`, `key: |2+ # note`): the lines below it indented deeper are text
_BLOCK_SCALAR = re.compile(r"(?:^|:|-)[ \t]+[|>][-+0-9]*[ \t]*(?:#.*)?$")


def template_line(text: str) -> tuple[int, int] | None:
    """The 1-based line and column of the first Go template action in `text`, or None. One inside a
    block scalar is text of the manifest, no action (a ConfigMap holding a Jinja chat template,
    `{{- bos_token }}`: GKE's ai-ml/adk-vllm deploy-llm.yaml, which `kubectl apply` takes as it is)."""
    at = text.find("{{")  # every action starts with one; the pattern's lookbehind alone would try each character
    if ("{%" in text or "{#" in text) and (jinja := _jinja_line(text)) is not None:
        return jinja
    while at >= 0:
        m = _TEMPLATE.search(text, at)  # (the lookbehind still sees the character before `at`)
        if m is None:
            return None
        start = text.rfind("\n", 0, m.start()) + 1
        if not is_action(text, m, start):
            at = text.find("{{", m.end())
            continue
        if not _in_block_scalar(text, start):
            return text.count("\n", 0, m.start()) + 1, m.start() - start + 1
        eol = text.find("\n", m.start())
        at = text.find("{{", eol + 1) if eol >= 0 else -1
    return None


def _jinja_line(text: str) -> tuple[int, int] | None:
    """The line and column of the first Jinja statement or comment not in a block scalar nor after a quote on its
    line (a quoted value may hold one), or None."""
    for m in _JINJA.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if not any(q in text[start:m.start()] for q in "'\"") and not _in_comment(text, start, m.start()) \
                and not _in_block_scalar(text, start):
            return text.count("\n", 0, m.start()) + 1, m.start() - start + 1
    return None


def _in_block_scalar(text: str, start: int) -> bool:
    """Whether the line starting at `start` is in a block scalar: going up, a line indented less than
    every line between (blank lines aside) opens one; one at the left margin that does not, no."""
    eol = text.find("\n", start)
    line = text[start:eol if eol >= 0 else len(text)]
    indent = len(line) - len(line.lstrip(" "))
    end = start - 1
    while end > 0 and indent > 0:
        begin = text.rfind("\n", 0, end) + 1
        above = text[begin:end]
        if above.strip() and len(above) - len(above.lstrip(" ")) < indent:
            if _BLOCK_SCALAR.search(above):
                return True
            indent = len(above) - len(above.lstrip(" "))
        end = begin - 1
    return False


def _has(doc: Val, *keys: str) -> bool:
    return all(k in doc.v for k in keys)


def _kadmit_output(doc: Val) -> str | None:
    """Which of kadmit's own outputs (or inputs other than policy) the document is, by its keys."""
    if _has(doc, "diagnostics", "summary"):
        return "kadmit's own output (`kadmit check --format json`)"
    if _has(doc, "mode", "decisions"):
        return "kadmit's own output (`kadmit admit --format json`)"
    if _has(doc, "workload") and ("blame" in doc.v or "reasons" in doc.v or "gang" in doc.v):
        return "kadmit's own output (`kadmit why --format json`)"
    if _has(doc, "runs") and ("$schema" in doc.v or "version" in doc.v):
        return _sarif(doc)
    if _has(doc, "summary", "queues", "workloads") or _has(doc, "baseline", "compare", "differences"):
        return "kadmit's own output (`kadmit simulate --format json`)"
    if doc.v and set(doc.v) <= {"variants", "grid"}:
        return "a `kadmit simulate --sweep` file or its results"
    if _has(doc, "base", "head", "decisions"):
        return "kadmit's own output (`kadmit diff --format json`)"
    if _has(doc, "tests", "passed", "failed"):
        return "kadmit's own output (`kadmit test --format json`)"
    return None


def _sarif(doc: Val) -> str:
    runs = doc.v["runs"]
    for run in runs.v if runs.kind == SEQ else ():
        tool = run.v.get("tool") if run.kind == MAP else None
        driver = tool.v.get("driver") if tool is not None and tool.kind == MAP else None
        name = driver.v.get("name") if driver is not None and driver.kind == MAP else None
        if name is not None and name.kind == STR and name.v == "kadmit":
            return "kadmit's own output (`kadmit check --format sarif`)"
    return "a SARIF log"


def _ci(doc: Val, file: str) -> str | None:
    """Which CI system's workflow the document is, by its path or its keys."""
    if "/.github/workflows/" in f"/{file}" or (_has(doc, "jobs") and ("on" in doc.v or "true" in doc.v)):
        return "a GitHub Actions workflow"
    if file.rsplit("/", 1)[-1] in (".gitlab-ci.yml", ".gitlab-ci.yaml") or (_has(doc, "stages") and any(
            v.kind == MAP and "script" in v.v for v in doc.v.values())):
        return "a GitLab CI pipeline"
    if ("trigger" in doc.v or "pool" in doc.v or "pr" in doc.v) and any(k in doc.v for k in ("steps", "jobs", "stages")):
        return "an Azure Pipelines pipeline"
    if _has(doc, "pipelines") and file.rsplit("/", 1)[-1].startswith("bitbucket-pipelines"):
        return "a Bitbucket Pipelines file"
    if _has(doc, "version", "workflows", "jobs"):
        return "a CircleCI configuration"
    if _has(doc, "steps") and file.rsplit("/", 1)[-1].startswith("cloudbuild"):
        return "a Cloud Build configuration"
    return None


def _helm(doc: Val, file: str) -> str | None:
    name = file.rsplit("/", 1)[-1]
    if name in ("values.yaml", "values.yml") or (name.startswith("values") and name.endswith((".yaml", ".yml"))):
        return "Helm values (settings a chart is rendered with)"
    return None


def describe(doc: Val, file: str) -> str | None:
    """What a mapping that is not a Kubernetes object is, as best told from its path and keys."""
    return _kadmit_output(doc) or _ci(doc, file) or _helm(doc, file)


def list_message(doc: Val) -> str | None:
    """What a document that is a list of mappings none of which is an object is (an Ansible playbook or task
    list), as a KAD020 note's words; None for any other list (`expected a Kubernetes object`, KAD154)."""
    if not doc.v or any(i.kind != MAP or is_object(i) for i in doc.v):
        return None
    what = "an Ansible playbook" if any("hosts" in i.v or "import_playbook" in i.v for i in doc.v) else \
        "an Ansible task list" if all("name" in i.v or "include_tasks" in i.v for i in doc.v) else "a list of mappings"
    return f"not read: {what}, not a Kubernetes object (a list, and no item has `apiVersion` or `kind`)"


def message(doc: Val, file: str) -> str:
    what = describe(doc, file)
    if what is None:
        return "not read: no `apiVersion` or `kind`, so not a Kubernetes object"
    return f"not read: {what}, not a Kubernetes object (no `apiVersion` or `kind`)"


def template_objects(text: str, file: str) -> list:
    """The objects of a file left out as a Go template whose text is YAML all the same (its actions in quoted
    values: `kubectl apply` takes it as written, and Kueue reads them so), each listed as not read (`Skipped`),
    so that none goes unnamed; a document the YAML reader cannot take names none (the file is listed, KAD020)."""
    from kadmit.diagnostics import Diagnostics
    from kadmit.model import ObjectRef, Skipped
    from kadmit.manifests.yamltree import parse_documents

    def text_of(node: Val | None, key: str) -> str | None:
        v = node.get(key) if node is not None else None
        return v.v if v is not None and v.kind == STR else None

    out = []
    for doc in parse_documents(text, file, Diagnostics()):
        items = doc.get("items") if doc is not None and text_of(doc, "kind") == "List" else None
        for obj in items.v if items is not None and items.kind == SEQ else [doc]:
            api, kind = text_of(obj, "apiVersion"), text_of(obj, "kind")
            if obj is None or api is None or kind is None:
                continue
            meta = obj.get("metadata")
            ref = ObjectRef(api_version=api, kind=kind, namespace=text_of(meta, "namespace"),
                            name=text_of(meta, "name") or text_of(meta, "generateName") or "")
            out.append(Skipped(object=ref, reason="not read: its file is a Go template (`{{ … }}`), not a manifest "
                               "(KAD020)", span=obj.span(file)))
    return out
