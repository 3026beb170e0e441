"""`kadmit lsp` driven as an editor drives it, on a copy of the bundled example: diagnostics as
`kadmit check` gives them, hover, definitions and references, completion, formatting, fixes."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, cwd, key
from lsp_editor import apply_edits
from lsprotocol import types

from kadmit import api
from kadmit.render.why import why_patch


def at(text: str, needle: str, nth: int = 0, shift: int = 0) -> tuple[int, int]:
    """The 0-based line and character of the `nth` occurrence of `needle` (plus `shift`)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += shift
    return text.count("\n", 0, i), i - (text.rfind("\n", 0, i) + 1)


def test_diagnostics_on_open_change_and_fix(workspace) -> None:
    ed = workspace.editor
    path = workspace.path("policy.kad")
    text = path.read_text()
    uri = ed.open(path)
    assert ed.diagnostics(uri, ed.versions[uri]) == []
    # an unknown enum value (did-you-mean), and a cluster queue defined twice (a related location)
    broken = text.replace("queueing   = best_effort_fifo", "queueing   = best_effort_fif", 1) + \
        "\ncluster_queue team-nlp {\n  cohort = research\n}\n"
    version = ed.change(uri, broken)
    published = ed.diagnostics(uri, version)
    path.write_text(broken)
    try:
        assert sorted(map(key, published)) == sorted(workspace.expected()[uri])
    finally:
        path.write_text(text)
    codes = {d.code for d in published}
    assert "KAD110" in codes
    dup = [d for d in published if d.related_information]
    assert dup and dup[0].related_information[0].location.uri == uri
    # what it is about: in its message, and as data (`about`, as `--format json` gives it)
    assert dup[0].message.endswith("\nabout: ClusterQueue `team-nlp`")
    assert dup[0].data == {"about": [{"kind": "ClusterQueue", "namespace": None, "name": "team-nlp"}]}
    # the did-you-mean fix, applied as the editor applies it, clears its diagnostic
    bad = next(d for d in published if d.code == "KAD110")
    actions = ed.code_actions(uri, (bad.range.start.line, bad.range.start.character))
    fix = next(a for a in actions if a.title == "replace `best_effort_fif` with `best_effort_fifo`")
    assert fix.is_preferred
    fixed = apply_edits(broken, fix.edit.changes[uri])
    assert fixed == broken.replace("best_effort_fif\n", "best_effort_fifo\n", 1)
    version = ed.change(uri, fixed)
    assert "KAD110" not in {d.code for d in ed.diagnostics(uri, version)}
    version = ed.change(uri, text)
    assert ed.diagnostics(uri, version) == []


def test_an_error_in_another_file_is_published_there_and_cleared(workspace) -> None:
    ed = workspace.editor
    rules, workloads = workspace.path("rules.kad"), workspace.path("workloads.kad")
    uri = ed.open(rules)
    ed.diagnostics(uri, ed.versions[uri])
    text = rules.read_text()
    # a rule naming a flavor that doesn't exist: reported in rules.kad; a workload's queue renamed:
    # reported in workloads.kad, which isn't open
    version = ed.change(uri, text.replace("flavor in {h100, a100}", "flavor in {h100, a10}", 1))
    assert "KAD2" in "".join(d.code for d in ed.diagnostics(uri, version))
    version = ed.change(uri, text)
    assert ed.diagnostics(uri, version) == []
    assert ed.latest(ed.uri(workloads)) in (None, [])


def test_hover(workspace) -> None:
    ed = workspace.editor
    policy, workloads = workspace.path("policy.kad"), workspace.path("workloads.kad")
    text, wtext = policy.read_text(), workloads.read_text()
    uri, wuri = ed.open(policy), ed.open(workloads)
    ed.diagnostics(uri, ed.versions[uri])
    queue = ed.hover(uri, *at(text, "cluster_queue team-vision", shift=16)).contents.value
    assert "cluster queue `team-vision`" in queue
    assert "cohort: `research` → `org`" in queue
    # h100 gpus: 24 nominal, borrow 8 (the cohort has 8 + team-nlp lends 4, within the limit): reach 32;
    # resnet-sweep holds 16 of them
    assert "| h100 | nvidia.com/gpu | 24 | 8 | 8 | 32 | 16 |" in queue
    flavor = ed.hover(uri, *at(text, "flavor h100", shift=8)).contents.value
    assert "`gpu.example.com/model=h100`" in flavor and "`nvidia.com/gpu=present:NoSchedule`" in flavor
    assert "used by: `cohort research`, `team-nlp`, `team-vision`" in flavor
    pending = ed.hover(wuri, *at(wtext, "team-nlp/tokenize", shift=10)).contents.value
    assert "decision: **not admitted**: couldn't assign flavors to pod set main: untolerated taint" in pending
    admitted = ed.hover(wuri, *at(wtext, "team-nlp/llama-eval", shift=10)).contents.value
    assert "decision: **admitted** to `team-nlp` (workers 2×h100)" in admitted
    quantity = ed.hover(uri, *at(text, "memory = 2Ti", shift=10)).contents.value
    assert "**`2Ti`** = 2,199,023,255,552 memory" in quantity
    assert ed.hover(uri, 0, 0) is None  # a comment


def test_definition_and_references_across_files(workspace) -> None:
    ed = workspace.editor
    policy, workloads, rules = (workspace.path(n) for n in ("policy.kad", "workloads.kad", "rules.kad"))
    wtext, ptext, rtext = workloads.read_text(), policy.read_text(), rules.read_text()
    wuri = ed.open(workloads)
    ed.diagnostics(wuri, ed.versions[wuri])
    # a workload's priority class and local queue are defined in policy.kad
    (loc,) = ed.definition(wuri, *at(wtext, "priority = research", shift=12))
    assert loc.uri == ed.uri(policy) and (loc.range.start.line, loc.range.start.character) == at(ptext, "research   = 100")
    (loc,) = ed.definition(wuri, *at(wtext, "queue    = training", shift=12))
    assert (loc.range.start.line, loc.range.start.character) == at(ptext, "team-vision/training")
    # an admitted workload's flavor -> the flavor
    (loc,) = ed.definition(wuri, *at(wtext, "flavor = h100", shift=10))
    assert (loc.range.start.line, loc.range.start.character) == at(ptext, "h100 {")
    # every use of h100: resource groups, admissions, rules
    refs = ed.references(wuri, *at(wtext, "flavor = h100", shift=10), declaration=False)
    files = {r.uri.rsplit("/", 1)[1] for r in refs}
    assert files == {"policy.kad", "workloads.kad", "rules.kad"}
    assert len([r for r in refs if r.uri == ed.uri(policy)]) == ptext.count("flavor h100 {") - 1
    assert len([r for r in refs if r.uri == ed.uri(rules)]) == rtext.count("h100")
    with_decl = ed.references(wuri, *at(wtext, "flavor = h100", shift=10), declaration=True)
    assert len(with_decl) == len(refs) + 1
    # a rule's flavor name -> the flavor; a topology level -> the topology's `levels` entry
    ruri = ed.open(rules)
    (loc,) = ed.definition(ruri, *at(rtext, "a100", shift=1))
    assert (loc.range.start.line, loc.range.start.character) == at(ptext, "a100 {")
    (loc,) = ed.definition(wuri, *at(wtext, "required cloud.example.com/rack", shift=12))
    assert (loc.range.start.line, loc.range.start.character) == at(ptext, '"cloud.example.com/rack"')


def test_completion(workspace) -> None:
    ed = workspace.editor
    path = workspace.path("policy.kad")
    uri = ed.open(path)
    text = path.read_text()
    ed.diagnostics(uri, ed.versions[uri])

    def labels(new: str, where: str) -> list[str]:
        edited = text.replace(where, where + new, 1)
        ed.change(uri, edited)
        line, char = at(edited, where + new, shift=len(where + new))
        return [i.label for i in ed.completion(uri, line, char).items]

    assert labels(" rese", "  cohort     =")[:1] == ["research"]
    assert labels("\n    flavor ", "  resources cpu, memory {")[:3] == ["a100", "h100", "spot-cpu"]
    assert set(labels("\n  cohort = ", "cluster_queue team-infra {")[:3]) == {"org", "platform", "research"}
    top = labels("\n", 'labels = { team = "nlp" }\n}')
    assert {"cluster_queue", "cohort", "flavor", "require", "workload"} <= set(top)
    assert set(labels(" ", "  queueing   =")) >= {"best_effort_fifo", "strict_fifo"}
    # the fields a block takes, from the table the reader reads them by
    assert labels("\n  coh", "cluster_queue team-infra {") == ["cohort"]
    assert labels("\n  ", "cluster_queue team-infra {")[:6] == [
        "cohort", "namespaces", "queueing", "stop_policy", "admission_checks", "preemption"]
    ed.change(uri, text)


def test_completion_of_levels_and_rule_fields(workspace) -> None:
    ed = workspace.editor
    path = workspace.path("workloads.kad")
    uri = ed.open(path)
    text = path.read_text()
    edited = text.replace("required cloud.example.com/rack", "required ", 1)
    ed.change(uri, edited)
    line, char = at(edited, "required ", shift=9)
    assert [i.label for i in ed.completion(uri, line, char).items] == ["block", "rack", "hostname"]
    rules = workspace.path("rules.kad")
    ruri = ed.open(rules)
    rtext = rules.read_text() + "\nrequire new-rule: workload.pri"
    ed.change(ruri, rtext)
    items = ed.completion(ruri, rtext.count("\n"), len(rtext.rsplit("\n", 1)[1])).items
    assert [i.label for i in items] == ["workload.priority"]
    ed.change(ruri, rules.read_text())
    ed.change(uri, text)


def test_formatting_is_kadmit_fmt(workspace, tmp_path) -> None:
    ed = workspace.editor
    path = workspace.path("rules.kad")
    uri = ed.open(path)
    messy = "cohort   messy{parent=org\nresources cpu{flavor spot-cpu{cpu=1}}}\n" + path.read_text()
    ed.change(uri, messy)
    edits = ed.formatting(uri)
    (tmp_path / "m.kad").write_text(messy)
    with cwd(tmp_path):
        expected = api.fmt(["m.kad"], "check").files[0].formatted
    assert apply_edits(messy, edits) == expected != messy
    ed.change(uri, expected)
    assert list(ed.formatting(uri)) == []
    ed.change(uri, "cohort x {")  # doesn't parse: no edit, as `kadmit fmt` writes nothing
    assert list(ed.formatting(uri)) == []
    ed.change(uri, path.read_text())


def test_why_on_request_and_its_fixes(workspace) -> None:
    ed = workspace.editor
    path = workspace.path("workloads.kad")
    text = path.read_text()
    uri = ed.open(path)
    ed.diagnostics(uri, ed.versions[uri])
    lenses = ed.code_lens(uri)
    pending = [lens.command.arguments[0] for lens in lenses]
    assert "team-nlp/tokenize" in pending and "team-vision/resnet-sweep" not in pending
    line, char = at(text, "team-nlp/tokenize")
    actions = ed.code_actions(uri, (line, char))
    assert [a.title for a in actions] == ["kadmit why `team-nlp/tokenize`: explain and prove fixes"]
    summary = ed.execute(actions[0].command)
    assert summary.startswith("`team-nlp/tokenize` can't be admitted: couldn't assign flavors to pod set main: "
                              "untolerated taint")
    assert summary.endswith("1 proven fix (code actions on the workload)")
    assert ed.messages[-1].message == summary
    lens = next(lens for lens in ed.code_lens(uri) if lens.command.arguments[0] == "team-nlp/tokenize")
    assert lens.command.title == summary
    (fix,) = [a for a in ed.code_actions(uri, (line, char)) if a.edit is not None]
    assert fix.title.startswith("kadmit why fix 1: ")
    # the same edit `kadmit why --apply-fix 1` prints as a patch
    with cwd(workspace.root.parent):
        outcome = api.why("team-nlp/tokenize", ["ml-platform"])
        patch = why_patch(outcome.result.fixes[0], outcome.loaded.sources)
    fixed = apply_edits(text, fix.edit.changes[uri])
    added = [x[1:] for x in patch.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert added and all(a in fixed.splitlines() for a in added)
    version = ed.change(uri, fixed)
    assert ed.diagnostics(uri, version) == []
    assert "decision: **admitted**" in ed.hover(uri, line, char + 10).contents.value
    ed.change(uri, text)


def test_without_pygls_it_says_how_to_install_it_and_exits_2() -> None:
    code = ("import sys; sys.modules['pygls'] = None\n"
            "from kadmit.cli import main; sys.argv = ['kadmit', 'lsp']; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""}, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "error[KAD950]: `kadmit lsp` needs pygls, which is not installed" in done.stderr
    assert "pip install 'kadmit[lsp]'" in done.stderr
