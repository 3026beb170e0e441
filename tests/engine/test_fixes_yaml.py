"""Proven fixes on Kueue/Kubernetes manifests and on standard input: tolerations in the pod
template's `spec.tolerations`, a Node's `status.allocatable`, waiting for a running workload (no
edit: proven by deciding again without it), each applied by hand (`patch`) and decided by `admit`;
numbers searched by deciding again say `minimal` only when one step less was decided and refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit import api
from kadmit.cli import cli
from kadmit.edits import apply
from kadmit.render.why import why_patch

sys.path.insert(0, str(Path(__file__).parent))
from fix_clusters import yaml_tas_clusters  # noqa: E402
from test_fixes_proven import _states  # noqa: E402

HERE = Path(__file__).parent
TAS = (HERE / "fix_yaml_tas.yaml").read_text()  # `team/big` (2 × 8 GPUs in one rack) behind `team/small`
BIG_SPEC = """      spec:
        containers:
        - name: c
          resources:
            requests:
              nvidia.com/gpu: "8"
"""
TAINT = 'spec:\n  taints:\n  - key: maintenance\n    value: "true"\n    effect: NoSchedule\nstatus:\n'


def tainted(text: str, tolerations: str = "") -> str:
    """No holder; both nodes of rack r1 tainted; `tolerations` put in `team/big`'s template."""
    docs = [d for d in text.split("---\n") if "name: small" not in d]
    docs = [d.replace("status:\n", TAINT, 1) if "kind: Node" in d and ("name: n1" in d or "name: n2" in d) else d
            for d in docs]
    out = "---\n".join(docs)
    return out.replace(BIG_SPEC, BIG_SPEC.replace("      spec:\n", "      spec:\n" + tolerations)) if tolerations else out


def decided_again(tmp: Path, name: str, text: str, key: str, fix, before: dict) -> None:
    """Fix applied to the text as `why --apply-fix` prints it (through `patch`), decided by `admit`:
    the announced outcome and exactly the announced side effects."""
    d = tmp / name
    d.mkdir()
    (d / "c.yaml").write_text(text)
    diff = why_patch(fix, _Sources(text))
    subprocess.run(["patch", "-s", str(d / "c.yaml")], input=diff, text=True, check=True)
    after = api.admit([str(d)])
    assert after.exit_code == 0, [x.message for x in after.diagnostics]
    new = _states(after)
    assert new[key] == fix.outcome, fix.message
    assert {k for k in new if k != key and new[k] != before.get(k)} == {e.workload for e in fix.effects}


class _Sources:
    """Every file name of a fix's edits reads as `text` (the one input file, wherever it was)."""

    def __init__(self, text: str) -> None:
        self._text = text

    def text(self, _name: str) -> str:
        return self._text


def why_of(tmp: Path, text: str, key: str):
    (tmp / "in").mkdir(exist_ok=True)
    (tmp / "in" / "c.yaml").write_text(text)
    out = api.why(key, [str(tmp / "in")])
    assert out.result is not None and not out.result.admitted
    return out, _states(api.admit([str(tmp / "in")]))


def test_a_holder_is_waited_for_without_an_edit_and_a_node_gets_more_allocatable(tmp_path):
    out, before = why_of(tmp_path, TAS, "team/big")
    kinds = [[c.knob.kind for c in f.changes] for f in out.result.fixes]
    assert kinds[:2] == [["wait"], ["allocatable"]]
    wait, node = out.result.fixes[:2]
    # waiting: no edit, the holder named; proven with it finished — as Kueue's Finished condition says
    assert wait.as_dict()["changes"] == [] and wait.as_dict()["waits_for"] == ["team/small"]
    assert why_patch(wait, out.loaded.sources) == ""
    assert "wait for workload `team/small` to finish (no edit of the input" in wait.message
    done = TAS.replace("  conditions:\n  - type: QuotaReserved",
                       '  conditions:\n  - type: Finished\n    status: "True"\n    reason: Succeeded\n'
                       '    message: done\n    lastTransitionTime: "2026-11-20T08:40:00Z"\n  - type: QuotaReserved', 1)
    assert done != TAS
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "c.yaml").write_text(done)
    assert _states(api.admit([str(tmp_path / "done")]))["team/big"] == wait.outcome and not wait.effects
    # more GPUs on one node: Kueue's field name, the least whole number (one less refused)
    change = node.changes[0]
    assert (change.knob.field, change.edit.old, change.edit.new) == ("status.allocatable[nvidia.com/gpu]", '"8"', '"18"')
    assert change.minimal and node.as_dict()["changes"][0]["minimal"] is True
    assert 'minimal: the change one step smaller, to "17", does not admit it' in node.message
    decided_again(tmp_path, "node", TAS, "team/big", node, before)
    less = TAS.replace('nvidia.com/gpu: "8"\n    pods: "110"', 'nvidia.com/gpu: "17"\n    pods: "110"', 1)
    (tmp_path / "less").mkdir()
    (tmp_path / "less" / "c.yaml").write_text(less)
    assert not _states(api.admit([str(tmp_path / "less")]))["team/big"].admitted
    got = CliRunner().invoke(cli, ["why", "team/big", str(tmp_path / "in" / "c.yaml"), "--apply-fix", "1"])
    assert got.exit_code == 1 and got.stdout == "" and "fix 1 changes no input file" in got.stderr


def test_a_toleration_goes_into_the_workloads_pod_template(tmp_path):
    for i, tolerations in enumerate(("", "        tolerations:\n        - key: other\n          operator: Exists\n",
                                     "        tolerations: []\n")):
        text = tainted(TAS, tolerations)
        tmp = tmp_path / str(i)
        tmp.mkdir()
        out, before = why_of(tmp, text, "team/big")
        fix = next(f for f in out.result.fixes if f.changes[0].knob.kind == "tolerate")
        assert fix.changes[0].knob.field == "spec.podSets[0].template.spec.tolerations"
        assert ('add the toleration `{"key": "maintenance", "operator": "Equal", "value": "true", '
                '"effect": "NoSchedule"}`') in fix.message
        assert fix.outcome.nodes and not fix.effects
        decided_again(tmp, "fixed", text, "team/big", fix, before)


JOB = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeTaints:
  - key: spot
    effect: NoSchedule
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: spot
      resources:
      - name: cpu
        nominalQuota: 3
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
  namespace: team
spec:
  clusterQueue: cq
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests:
            cpu: "2"
"""


def test_a_jobs_pod_template_tolerates_the_flavors_taint_and_the_quota_is_minimal(tmp_path):
    out, before = why_of(tmp_path, JOB, "team/train")
    assert out.result.fixes
    # the taint and the quota (4 > 3) are independent obstacles: both changed, each named in Kueue's words
    fix = out.result.fixes[0]
    by_kind = {c.knob.kind: c for c in fix.changes}
    assert by_kind["tolerate"].knob.subject == "Job `train` (pod set `main`)"
    assert '{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}' in by_kind["tolerate"].edit.new
    assert by_kind["quota"].edit.new == "4" and by_kind["quota"].minimal
    decided_again(tmp_path, "fixed", JOB, "team/train", fix, before)


def test_fixes_of_manifests_on_standard_input_name_stdin_and_apply_to_the_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(cli, ["why", "team/big", "-", "--format", "json"], input=TAS)
    assert got.exit_code == 1, got.output
    fixes = json.loads(got.stdout)["fixes"]
    assert fixes and fixes[0]["waits_for"] == ["team/small"]
    node = fixes[1]
    assert [c["file"] for c in node["changes"]] == ["<stdin>"]
    patch = CliRunner().invoke(cli, ["why", "team/big", "-", "--apply-fix", "2"], input=TAS)
    assert patch.exit_code == 0 and patch.stdout.startswith("--- a/<stdin>\n+++ b/<stdin>\n")
    (tmp_path / "c.yaml").write_text(TAS)
    subprocess.run(["patch", "-s", "c.yaml"], input=patch.stdout, text=True, check=True)  # the file piped in
    after = _states(api.admit(["c.yaml"]))
    assert after["team/big"].admitted and after["team/big"].as_dict() == node["outcome"]


def test_fixes_of_kad_on_standard_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = ("flavor f { }\ncluster_queue q {\n  resources cpu {\n    flavor f { cpu = 4 }\n  }\n}\n"
            "local_queue ns/q -> q\nnamespace ns { }\n"
            "workload ns/w {\n  queue = q\n  pod_group main {\n    count = 3\n    requests = { cpu = 2 }\n  }\n}\n")
    got = CliRunner().invoke(cli, ["why", "ns/w", "-", "--format", "json"], input=text)
    assert got.exit_code == 1, got.output
    fixes = json.loads(got.stdout)["fixes"]
    quota = next(f for f in fixes if f["changes"][0]["old"] == "4")
    assert quota["changes"][0] | {"minimal": True} == quota["changes"][0] and quota["changes"][0]["new"] == "6"
    assert quota["changes"][0]["file"] == "<stdin>"
    edit = quota["changes"][0]
    lines = text.splitlines(keepends=True)
    line = lines[edit["line"] - 1]
    lines[edit["line"] - 1] = line.replace(edit["old"], edit["new"], 1)
    (tmp_path / "c.kad").write_text("".join(lines))
    assert _states(api.admit(["c.kad"]))["ns/w"].as_dict() == quota["outcome"]
    (tmp_path / "c.kad").write_text(apply(text, []).replace("cpu = 4", "cpu = 5"))
    assert not _states(api.admit(["c.kad"]))["ns/w"].admitted  # one step less: not admitted


def check_yaml_fixes(tmp: Path, text: str, key: str) -> int:
    """Each fix of `why key` applied to the manifest text (a fix that waits: its holders finished in
    the model read from the text) and decided again from scratch; the number checked."""
    from kadmit import workspace
    from kadmit.engine.admission.ordered import decide_ordered
    from kadmit.engine.admission.session import Session
    from kadmit.engine.explain.replay import states

    (tmp / "in").mkdir(exist_ok=True)
    (tmp / "in" / "c.yaml").write_text(text)
    before = api.admit([str(tmp / "in")])
    out = api.why(key, [str(tmp / "in")])
    assert out.exit_code in (1, 3), out.diagnostics
    old = _states(before)
    for i, fix in enumerate(out.result.fixes):
        d = tmp / f"fix{i}"
        d.mkdir()
        (d / "c.yaml").write_text(apply(text, [c.edit for c in fix.changes if c.edit is not None]))
        model = workspace.load([str(d)]).model
        gone = set(fix.as_dict().get("waits_for", []))
        model = model.model_copy(update={
            "workloads": tuple(w.model_copy(update={"finished": True}) if w.key in gone else w for w in model.workloads),
            "pods": tuple(p.model_copy(update={"phase": "Succeeded"}) if f"pod:{p.namespace}/{p.name}" in gone else p
                          for p in model.pods)})
        new = states(model, {x.key: x for x in decide_ordered(Session(model))})
        assert new[key] == fix.outcome, fix.message
        changed = {k for k in new if k != key and old.get(k) != new[k]}
        assert changed == {e.workload for e in fix.effects}, fix.message
        for c in fix.changes:
            assert c.edit is not None or c.knob.kind == "wait"
    return len(out.result.fixes)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=yaml_tas_clusters(), data=st.data())
def test_every_manifest_fix_admits_with_exactly_the_side_effects_it_lists(tmp_path_factory, text, data):
    tmp = tmp_path_factory.mktemp("yfix")
    (tmp / "c.yaml").write_text(text)
    base = api.admit([str(tmp)])
    assume(base.exit_code == 0)
    pending = sorted(d.key for d in base.result.decisions if not d.admitted)
    assume(pending)
    check_yaml_fixes(tmp, text, data.draw(st.sampled_from(pending)))


def test_a_lowered_count_one_below_the_input_is_the_smallest_change_there_is():
    example = str(HERE.parents[1] / "examples" / "ml-platform-kueue")
    out = api.why("team-vision/frame-extract", [example])
    fix = next(f for f in out.result.fixes if f.changes[0].knob.kind == "count")
    change = fix.changes[0]
    assert (change.edit.old, change.edit.new, change.minimal) == ("5", "4", True)
    assert fix.message.split(": it is")[0].endswith("5 → 4 (minimal: the smallest change there is)")
