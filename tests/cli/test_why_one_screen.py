"""Issue 19 item 3: `why` in one screen. Lines of one shape naming different queues are one line with
every number of each; Kueue's reasons that differ in a word or two are one; each fix's outcome and side
effects are one line, and the text says what it leaves to `--all`, which (with JSON) keeps everything."""

from __future__ import annotations

import json

from kadmit.engine.explain.digest import Line
from kadmit.render.why import _one_word_apart
from kadmit.render.why_blame import _by_shape
from kadmit.source import Span

from tests.cli.test_why_lender_raise import POLICY


def _line(text: str, at: int, file: str = "q.yaml") -> Line:
    return Line(text, Span(file, at, 23))


def test_lines_of_one_shape_are_one_line_with_every_number_of_each_queue_in_order():
    lines = [_line("(`ns/head`) cluster queue `a`: nominal quota 64 nvidia.com/gpu in h100, 48 in a100; in use 63 in "
                   "h100 (26 workloads), 48 in a100 (9)", 30),
             _line("(`ns/head`) cluster queue `b`: nominal quota 96 nvidia.com/gpu in h100, 48 in a100; in use 96 in "
                   "h100 (26 workloads), 48 in a100 (15)", 116),
             _line("`ns/head` is ahead of it in the queue", 5),
             _line("(`ns/head`) cluster queue `c`: nominal quota 32 nvidia.com/gpu in h100, 48 in a100; in use 32 in "
                   "h100 (11 workloads), 41 in a100 (15)", 380)]
    assert _by_shape(lines) == [
        ("q.yaml:30:23, :116, :380", "(`ns/head`) cluster queues `a`, `b`, `c`: nominal quota 64/96/32 nvidia.com/gpu "
         "in h100, 48/48/48 in a100; in use 63/96/32 in h100 (26/26/11 workloads), 48/48/41 in a100 (9/15/15)"),
        ("q.yaml:5:23", "`ns/head` is ahead of it in the queue")]


def test_lines_are_kept_apart_in_other_files_of_other_shapes_or_naming_the_same_thing():
    a, b = "cluster queue `a`: nominal quota 4 cpu in f", "cluster queue `b`: nominal quota 8 cpu in f"
    assert _by_shape([_line(a, 1), _line(b, 2, "r.yaml")]) == [("q.yaml:1:23", a), ("r.yaml:2:23", b)]
    other = "cluster queue `b`: nominal quota 8 cpu in f; borrowing limit 2 cpu in f"
    assert _by_shape([_line(a, 1), _line(other, 2)]) == [("q.yaml:1:23", a), ("q.yaml:2:23", other)]
    again = "cluster queue `a`: nominal quota 5 cpu in f"  # the same queue: which number is whose is unclear
    assert _by_shape([_line(a, 1), _line(again, 2)]) == [("q.yaml:1:23", a), ("q.yaml:2:23", again)]


def test_several_names_take_the_plural_and_its_verb():
    lines = [_line("admitted workload `ns/a` holds 4 cpu in f", 1), _line("admitted workload `ns/b` holds 8 cpu in f", 2)]
    assert _by_shape(lines) == [("q.yaml:1:23, :2", "admitted workloads `ns/a`, `ns/b` hold 4/8 cpu in f")]


def test_reasons_that_differ_in_the_same_word_or_two_are_one():
    a = ("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, "
         "4 more needed")
    assert _one_word_apart([a, a.replace("a100", "h100"), "needs 4 more"]) == [
        a.replace("a100,", "a100/h100,"), "needs 4 more"]
    b = a.replace("a100", "h100").replace("4 more", "5 more")
    assert _one_word_apart([a, b]) == [a.replace("a100,", "a100/h100,").replace("4 more", "4/5 more")]
    c = b.replace("unused", "free")  # three words apart: each whole
    assert _one_word_apart([a, c]) == [a, c]
    assert _one_word_apart([a, b, a.replace("4 more", "6 more")]) == [  # another word: apart
        a.replace("a100,", "a100/h100,").replace("4 more", "4/5 more"), a.replace("4 more", "6 more")]


def test_the_text_shows_three_fixes_each_on_a_line_and_says_what_all_adds(run):
    run.write("p.kad", POLICY)
    full = json.loads(run("why", "t/mine", ".", "--format", "json").output)
    assert len(full["fixes"]) == 3
    text = run("why", "t/mine", ".").output.splitlines()
    assert [x[:5] for x in text if x[:5] in ("  1. ", "  2. ", "  3. ")] == ["  1. ", "  2. ", "  3. "]
    # each fix's outcome and side effects on one line (on a pipe), what --all adds said last
    then = [x for x in text if x.startswith("     then ")]
    assert len(then) == 3 and all("side effects" in x for x in then)
    assert text[-1].startswith("   = note: ") and "`--all`: " in text[-1] and "each fix in full" in text[-1]
    every = run("why", "t/mine", ".", "--all").output
    assert every.count("     side effects on ") + every.count("     side effects: none") == 3


HELD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: running, namespace: default, creationTimestamp: "2026-11-20T08:00:00Z"}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 3}}}]}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: 3}}]
  conditions: [{type: QuotaReserved, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: mine, namespace: default, creationTimestamp: "2026-11-20T08:01:00Z"}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 2}}}]}}}]
"""
NO_EVICTION = ("needs 1 more cpu in flavor f, but ClusterQueue cq's preemption policies (withinClusterQueue Never, "
               "reclaimWithinCohort Never) allow evicting no admitted workload")


def test_a_reason_the_standing_line_says_word_for_word_is_left_to_all(run):
    run.write("s.yaml", HELD)
    text = run("why", "default/mine", ".", "--fixes", "0").output
    assert "its queue may preempt none of them (withinClusterQueue Never, reclaimWithinCohort Never)" in text
    assert "insufficient unused quota for cpu in flavor f, 1 more needed" in text  # how much more: Kueue's reason
    assert NO_EVICTION not in text
    assert f"   = reason: {NO_EVICTION}" in run("why", "default/mine", ".", "--fixes", "0", "--all").output
    reasons = json.loads(run("why", "default/mine", ".", "--fixes", "0", "--format", "json").output)["reasons"]
    assert {"code": "KAD533", "message": NO_EVICTION} in reasons


def test_the_reason_stays_where_no_other_says_how_much_more_it_needs(tmp_path):
    from dataclasses import replace

    from kadmit import api
    from kadmit.render.why import why_human

    (tmp_path / "s.yaml").write_text(HELD)
    out = api.why("default/mine", [str(tmp_path)], fixes=0)
    model = out.loaded.workspace.model
    wl = next(w for w in model.workloads if w.key == "default/mine")
    assert NO_EVICTION not in why_human(out.result, out.loaded.sources, wl.span, wl)
    out.result.reasons = [replace(r, message=r.message.replace("1 more needed", "2 more needed"))
                          for r in out.result.reasons]
    assert f"   = reason: {NO_EVICTION}" in why_human(out.result, out.loaded.sources, wl.span, wl)


def test_a_fix_in_the_file_the_fix_above_changes_says_the_same_file_where_that_is_shorter(run):
    run.write("a-rather-long-policy-name.kad", POLICY)
    lines = run("why", "t/mine", ".").output.splitlines()
    fixes = [x for x in lines if x[:5] in ("  1. ", "  2. ", "  3. ")]
    assert fixes[0].startswith("  1. change a-rather-long-policy-name.kad:35: wait for workload `t/held`")
    assert fixes[1].startswith("  2. change all 2 of cluster_queue `q`, flavor `f`, in the same file: `cpu`: 8 → 16 (:9)")
    assert fixes[2].startswith("  3. change all 4 of cluster_queue `lender`, flavor `f`, in the same file: ")
    body = json.loads(run("why", "t/mine", ".", "--format", "json").output)
    assert {c["file"] for f in body["fixes"] for c in f["changes"]} == {"a-rather-long-policy-name.kad"}
    assert "the same file" not in run("why", "t/mine", ".", "--all").output  # `--all`: each fix whole
    from kadmit import api
    from kadmit.render.why_fixes import _same_file

    wait = api.why("t/mine", [str(run.root)]).result.fixes[0].changes[0]  # a change said whole, at its place
    assert _same_file(wait, "a-rather-long-policy-name.kad").startswith(":35 of the same file: wait for workload `t/held`")
    assert _same_file(wait, "other.kad") == wait.describe()
    run.write("a-rather-long-policy-name.kad", "")
    run.write("p.kad", POLICY)  # a name shorter than `the same file` is said again
    assert "in the same file" not in run("why", "t/mine", ".").output


def test_one_quota_number_of_a_manifest_is_said_as_several_are_and_all_gives_its_path(run):
    run.write("s.yaml", HELD)
    text = run("why", "default/mine", ".").output
    assert ("  1. change nominalQuota of ClusterQueue `cq`, flavor f, in s.yaml: cpu: 4 → 5 (minimal: the smallest "
            "change there is) (:12)") in text
    assert ("  1. change s.yaml:12: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota of ClusterQueue `cq` "
            "(f, cpu): 4 → 5 (minimal: the smallest change there is)") in run("why", "default/mine", ".", "--all").output
    fix = json.loads(run("why", "default/mine", ".", "--format", "json").output)["fixes"][0]["changes"][0]
    assert (fix["file"], fix["line"], fix["field"]) == ("s.yaml", 12, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota")
