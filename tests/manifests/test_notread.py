"""YAML and JSON that is not a manifest is listed as not read with what it is (KAD020, a note); a
document meant as an object (it has `apiVersion`, `kind`, `metadata` or `spec`) is read, errors and all."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics, Severity
from kadmit.manifests import read_manifest_text
from kadmit.manifests.notread import _TEMPLATE, is_action, template_line

CASES = [
    ("ci.yml", "name: ci\non: [push]\njobs:\n  t: {runs-on: ubuntu-latest, steps: []}\n", "a GitHub Actions workflow"),
    ("x/.github/workflows/a.yaml", "name: a\n", "a GitHub Actions workflow"),
    ("pipeline.yml", "stages: [test]\nunit:\n  stage: test\n  script: [make]\n", "a GitLab CI pipeline"),
    ("azure-pipelines.yml", "trigger: [main]\npool: {vmImage: ubuntu-latest}\nsteps: []\n",
     "an Azure Pipelines pipeline"),
    ("config.yml", "version: 2.1\njobs: {}\nworkflows: {}\n", "a CircleCI configuration"),
    ("values.yaml", "image: {tag: v1}\n", "Helm values"),
    ("values-prod.yaml", "replicas: 3\n", "Helm values"),
    ("out.json", '{"diagnostics": [], "summary": {"files": 1}}', "`kadmit check --format json`"),
    ("out.json", '{"mode": "ordered", "decisions": []}', "`kadmit admit --format json`"),
    ("out.json", '{"workload": "a/b", "admitted": false, "reasons": []}', "`kadmit why --format json`"),
    ("out.json", '{"summary": {}, "queues": [], "flavors": [], "workloads": []}', "`kadmit simulate --format json`"),
    ("out.json", '{"baseline": {}, "compare": {}, "differences": {}}', "`kadmit simulate --format json`"),
    ("out.json", '{"base": "a", "head": "b", "changed": false, "decisions": []}', "`kadmit diff --format json`"),
    ("out.json", '{"tests": [], "passed": 0, "failed": 0, "errors": 0}', "`kadmit test --format json`"),
    ("sweep.yaml", "variants: [{name: a}]\n", "a `kadmit simulate --sweep` file or its results"),
    ("log.json", '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "other"}}}]}', "a SARIF log"),
    ("log.json", '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "kadmit"}}}]}',
     "`kadmit check --format sarif`"),
    ("package.json", '{"name": "x", "version": "1.0.0"}', "no `apiVersion` or `kind`, so not a Kubernetes object"),
]


@pytest.mark.parametrize("name,text,what", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_not_read_with_what_it_is(name: str, text: str, what: str) -> None:
    diags = Diagnostics()
    frag = read_manifest_text(text, name, diags)
    assert [(d.code, d.severity) for d in diags] == [("KAD020", Severity.NOTE)], [d.message for d in diags]
    assert what in diags.items[0].message
    assert frag.model_dump() == type(frag)().model_dump()


def test_a_document_meant_as_an_object_is_read_and_its_errors_reported() -> None:
    diags = Diagnostics()
    read_manifest_text("metadata: {name: a}\nspec: {}\n", "a.yaml", diags)
    assert {d.code for d in diags} == {"KAD155"}


def test_only_the_documents_that_are_not_objects_are_left_out() -> None:
    text = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a}\n---\n"
            "just: settings\n")
    diags = Diagnostics()
    frag = read_manifest_text(text, "a.yaml", diags)
    assert [f.name for f in frag.flavors] == ["a"]
    assert [(d.code, d.span.line) for d in diags] == [("KAD020", 5)]


def test_template_actions_but_not_github_expressions() -> None:
    assert template_line("a: 1\nname: {{ .Values.name }}\n") == (2, 7)
    assert template_line("{{- range .Values.x }}\n") == (1, 1)
    assert template_line("run: echo ${{ secrets.TOKEN }}\n") is None
    assert template_line("a: '{'\nb: '}'\n") is None
    # Argo Workflows' parameters and expressions in a quoted value: not Go template actions (its
    # text/template parses neither), so the manifest is read
    assert template_line('args: ["{{inputs.parameters.message}}"]\n') is None
    assert template_line("value: '{{=sprig.trim(inputs.parameters.x)}}'\n") is None
    assert template_line("{{- end }}\n") == (1, 1) and template_line("a: {{ $x.y }}\n") == (1, 4)
    # a bare name with no space: another tool's placeholder (the Kubernetes examples' vitess templates:
    # `vttablet-{{uid}}`, `{{backup_flags}}`); text/template refuses it (function "uid" not defined).
    # With arguments it stays an action (`{{include "x" .}}`), as Helm's function `{{ now }}` does
    assert template_line("name: vttablet-{{uid}}\nargs: '{{backup_flags}}'\n") is None
    assert template_line("a: {{ now }}\n") == (1, 4) and template_line('a: {{include "x" .}}\n') == (1, 4)
    assert template_line("a: x-{{uid}}\nb: {{ .Values.x }}\n") == (2, 4)
    # one that starts a plain value is a template's all the same: YAML reads a flow mapping there (Ansible's
    # `name: {{ app_name }}`), which kubectl refuses; not on a line that only continues a quoted value
    assert template_line("a: {{uid}}\n") == (1, 4) and template_line("- {{ item }}\n") == (1, 3)
    assert template_line("- name: {{ x || y }}\n") == (1, 9)
    assert template_line('a: "x\n  {{backup_flags}}" y\n') is None


def test_other_tools_expressions_are_no_actions() -> None:
    """Kyverno's JMESPath and Pipelines-as-Code's placeholders in quoted values (soak13: Kueue's
    site examples' ClusterPolicies, tekton-kueue's PipelineRun): text/template parses none of them
    (checked with Go: `unexpected "|" in command`, `unexpected "(" in operand`, `bad character U+005C`,
    `function "git_auth_secret" not defined`), so the file is a manifest, read as `kubectl apply` takes it."""
    assert template_line("key: \"{{request.object.data.queueName || ''}}\"\n") is None
    assert template_line('r: "{{ items(parse_yaml(request.object.data.quota), \'name\', \'q\') }}"\n') is None
    assert template_line('u: "/x/{{request.namespace}}/{{request.object.metadata.labels.\\"a.b/c\\"}}"\n') is None
    assert template_line("secretName: '{{ git_auth_secret }}'\nb: '{{ revision}}'\n") is None
    # a non-Go expression before a Go action on the same line hides it not
    assert template_line("a: '{{ x || y }}{{ .Values.x }}'\n") == (1, 17)
    # keywords and Helm's functions without arguments stay actions; `||` or `(` inside a Go string is text
    assert template_line("{{ end }}\n") == (1, 1) and template_line("a: {{- else -}}\n") == (1, 4)
    assert template_line("a: '{{ endpoint }}'\n") is None
    assert template_line('a: {{ .X | default "a||b(c)\\n" }}\n') == (1, 4)
    assert template_line("a: {{ include \"x\" (dict \"k\" .v) }}\n") == (1, 4)


def test_template_text_in_a_yaml_comment_is_no_action() -> None:
    """YAML (and so `kubectl apply`) ignores a comment: a manifest whose only `{{ }}` is in one is read, as the oracle
    reads it (fuzz14: `# {{ .Values.x }}` above a Deployment left the file out, KAD020, and the run had nothing to
    decide). A `#` after a quote on its line may be a string's: the action there still counts."""
    assert template_line("# {{ .Values.x }}\napiVersion: v1\n") is None
    assert template_line("a: 1  # {{ .Values.x }}\n  # {% if x %}\n") is None
    assert template_line("a: x#{{ .Values.x }}\n") == (1, 6)  # no space before `#`: no comment
    assert template_line("a: 'b # c' {{ .Values.x }}\n") == (1, 12)
    assert template_line("# {{ .Values.x }}\nb: {{ .Values.y }}\n") == (2, 4)


def test_template_text_in_a_block_scalar_is_no_action() -> None:
    """A ConfigMap holding a Jinja chat template (GKE's ai-ml/adk-vllm deploy-llm.yaml, beside its
    Deployment): `{{- bos_token }}` inside `key: |` is the manifest's text, which `kubectl apply` takes;
    kadmit left the whole file out (KAD020) and never decided the Deployment."""
    jinja = "data:\n  chat.jinja: |\n    {{- bos_token }}\n    {%- if x %}\n        {{- 'e' }}\n    {%- endif %}\n"
    assert template_line(jinja) is None
    assert template_line("spec:\n  args:\n  - >-\n    echo {{ .Values.x }}\n") is None
    assert template_line("a: |2+ # kept\n    {{ .X }}\n") is None
    # one outside the block still makes the file a template
    assert template_line(jinja + "name: {{ .Values.n }}\n") == (7, 7)
    assert template_line("a: |\n  text\nb:\n  c: {{ .X }}\n") == (4, 6)
    assert template_line("a: |\n  text\n  b:\n    c: {{ .X }}\n") is None  # deeper: still the block's text


@given(st.text(alphabet="{}$\\- x\n(&\"", max_size=40))
def test_template_line_is_the_first_match_of_the_pattern(text: str) -> None:
    """Searching from the first `{{` finds what searching the whole text finds (the lookbehind
    still sees the character before it): the first match that is a Go action."""
    m = next((m for m in _TEMPLATE.finditer(text) if is_action(text, m, text.rfind("\n", 0, m.start()) + 1)), None)
    want = None if m is None else (text.count("\n", 0, m.start()) + 1, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1)
    assert template_line(text) == want


def test_a_go_template_files_objects_are_listed_not_read(tmp_path) -> None:
    """A file left out as a Go template whose text is YAML all the same names its objects in `skipped` (not
    read, nothing unnamed), a `List`'s items too; one the YAML reader cannot take names none, the file listed."""
    from kadmit.workspace import load

    (tmp_path / "a.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns}\ndata: {x: '{{ .Values.x }}'}\n---\n"
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: batch/v1, kind: Job, metadata: {generateName: j-}}\n",
        encoding="utf-8")
    (tmp_path / "b.yaml").write_text("{{- if .Values.on }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n",
                                     encoding="utf-8")
    loaded = load([str(tmp_path)])
    got = [(s.object.kind, s.object.namespace, s.object.name, s.span.file.rsplit("/", 1)[-1], s.span.line)
           for s in loaded.model.skipped]
    assert got == [("ConfigMap", "ns", "cm", "a.yaml", 1), ("Job", None, "j-", "a.yaml", 9)]
    assert all(s.reason.startswith("not read: its file is a Go template") for s in loaded.model.skipped)
    assert sorted(d.span.file.rsplit("/", 1)[-1] for d in loaded.diagnostics.items if d.code == "KAD020") == [
        "a.yaml", "b.yaml"]


def test_jinja_templates_and_ansible_lists_are_listed_not_read() -> None:
    """A Jinja statement or comment outside a quoted value makes a file a template (cloud-init's, Ansible's), whose
    `{{ x }}` placeholders are no Go actions; an Ansible task list or playbook (a list of mappings, none an object)
    is listed as not read (KAD020), not refused as a list where an object was expected (KAD154)."""
    assert template_line("a: 1\n{% set v = 'x' %}\nb: {{ v }}\n") == (2, 1)
    assert template_line("a: '{% raw %}'\nb: \"{# c #}\"\n") is None  # quoted: text
    assert template_line("a: |\n  {% if x %}y{% endif %}\n") is None  # a block scalar's text
    for text, what in [("- name: a\n  shell: b\n- name: c\n  user: {name: '{{ u }}'}\n", "an Ansible task list"),
                       ("- hosts: all\n  tasks: []\n", "an Ansible playbook"), ("- a: 1\n- b: 2\n", "a list of mappings")]:
        diags = Diagnostics()
        read_manifest_text(text, "main.yml", diags)
        assert [(d.code, d.severity, d.message) for d in diags.items] == [
            ("KAD020", Severity.NOTE, f"not read: {what}, not a Kubernetes object (a list, and no item has "
                                      "`apiVersion` or `kind`)")]
    diags = Diagnostics()
    read_manifest_text("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n", "list.yaml", diags)
    assert [d.code for d in diags.items] == ["KAD154"]  # a list of objects: kubectl wants `kind: List`


# (text between `{{` and `}}`, whether Go's text/template parses it with Helm's functions: each checked with Go's
# template.New("x").Funcs(<goaction.NAMES>).Parse, the words of its error beside the refused ones)
GO_PARSES = [
    (" .Values.x | lower ", True), (" name | lower ", False),  # function "name" not defined
    (" item.name ", False), (" lower ", True), (" include \"x\" . | nindent 4 ", True), ("- toYaml .r | indent 2 -", True),
    (" .Values.x | upper | trunc 63 | trimSuffix \"-\" ", True), (" semverCompare \">=1.2\" .Capabilities.X ", True),
    (" lookup \"v1\" \"Secret\" .ns .n ", True), (" env \"X\" ", True), (" Quote ", False), (" DefaultParam .x 1 ", False),
    (" 'a' ", True), (" 'abc' ", False),  # malformed character constant: 'abc'
    (" x | default('a') ", False), (" print(1) ", False), (" (1)(2) ", False),  # unexpected "(" in operand
    (" git-auth ", False), (" .x\"a\" ", False), (" 3abc ", False),  # bad character U+002D '-'; bad number syntax
    ("=a", False), (" .x := 1 ", False), (" $x := .y | lower ", True), (" $x = 1 ", True),  # unexpected "=" in command
    (" .a, .b ", False), (" $i, $v := .x ", False), (" range $i, $v := .x ", True),  # too many declarations in command
    (" .x || .y ", False), (" | .x ", False), (" !x ", False), (" [1] ", False), ("..a", False), (" () ", False),
    (" ( ", False), (" ) ", False), (" ", False), (" \"a\\qb\" ", False), (" 'x' if y else z ", False),
    ("/* a note */", True), (" end ", True), (" else if .x ", True), (" nil ", True), (" -3 ", True), (" 0x1F ", True),
    (" (.x | lower) | upper ", True), (" $.Values.x ", True), (" . ", True), (" `raw` ", True), (" print \"a\\\"b\" ", True),
]


@pytest.mark.parametrize("inner,parses", GO_PARSES, ids=[c[0].strip() or "space" for c in GO_PARSES])
def test_go_action_as_text_template_parses_it_with_helms_functions(inner: str, parses: bool) -> None:
    from kadmit.manifests.goaction import parses as go_parses
    assert go_parses(inner) is parses


def test_a_jinja_filter_is_no_go_action_but_a_helm_pipeline_is() -> None:
    """`{{ name | lower }}` (a Jinja filter) is no Go action: text/template says `function "name" not defined` (fuzz14),
    so a manifest holding it in a quoted value is read as `kubectl apply` takes it; `{{ .Values.x | lower }}` is a
    Helm chart's, and its file is a template (KAD020)."""
    assert template_line("metadata:\n  name: '{{ name | lower }}'\n") is None
    assert template_line("metadata:\n  name: '{{ .Values.x | lower }}'\n") == (2, 10)
    assert template_line("a: '{{ name | lower }}-{{ include \"x\" . }}'\n") == (1, 24)
