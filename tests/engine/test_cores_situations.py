"""Blame in each situation Kueue leaves a workload out: a rule alone, StrictFIFO behind a blocked
head, a namespace selector, an inactive queue — real cores with lines, no fixed text."""

import shutil
from pathlib import Path

import pytest

from kadmit.engine.decide import admit, why
from kadmit.workspace import load
from reference.builders import build, cluster_queue, fq, group, pod_set, workload

ROOT = Path(__file__).resolve().parents[2]
FORBID_LLAMA = """
forbid no-llama-on-a100:
  workload.name == "llama-eval" and flavor == a100
forbid no-llama-on-h100:
  workload.name == "llama-eval" and flavor == h100
"""


@pytest.fixture(scope="module")
def rule_blocked(tmp_path_factory):
    root = tmp_path_factory.mktemp("rules")
    for f in (ROOT / "examples" / "ml-platform").glob("*.kad"):
        shutil.copy(f, root / f.name)
    with open(root / "rules.kad", "a") as fh:
        fh.write(FORBID_LLAMA)
    return load([str(root)]).model


def test_a_rule_alone_is_named_with_its_line_in_admit(rule_blocked):
    r = admit(rule_blocked)
    reason = r.reasons["team-nlp/llama-eval"][0]
    assert reason.code == "KAD520"
    for rule in rule_blocked.rules:
        if rule.name.startswith("no-llama"):
            assert f"`{rule.name}` ({rule.span.file}:{rule.span.line})" in reason.message
    assert "admitted before it" not in reason.message


def test_strict_fifo_blames_the_heads_core_and_its_own(rule_blocked):
    r = why(rule_blocked, "team-nlp/tokenize")
    assert r.blame_kind == "queue" and not r.fixes  # no fixed-text fixes
    behind = [g for g in r.blame_groups if g[0].kind == "queueing"]
    assert behind, r.blame_groups
    # the head's own core: its two rules, each with its line
    assert any({o.kind for o in g[2:]} == {"rule"} and len(g) == 4 for g in behind)
    assert all(g[1].kind == "head" and "team-nlp/llama-eval" in g[1].message for g in behind)
    # and what keeps it out even without the head: its own untolerated taint
    own = [g for g in r.blame_groups if g[0].kind != "queueing"]
    assert any(any(o.kind == "taint" for o in g) for g in own)
    assert all(o.span is not None for g in r.blame_groups for o in g)


def test_namespace_selector_core_names_the_local_queue():
    model = load([str(ROOT / "examples" / "ml-platform-kueue")]).model
    r = why(model, "team-nlp/shared-vision")
    kinds = {o.kind for o in r.blame_groups[0]}
    assert kinds == {"namespace_selector", "namespace_labels", "local_queue_target"}
    lq = next(o for o in r.blame_groups[0] if o.kind == "local_queue_target")
    assert lq.span.file.endswith("local-queues.yaml") and "vision-share" in lq.message
    sel = next(o for o in r.blame_groups[0] if o.kind == "namespace_selector")
    assert "`namespaceSelector`" in sel.message  # Kueue's field name for manifests


def test_stopped_queue_is_a_core_with_its_line():
    model = build(cluster_queue("a", group(fq("f", cpu=4)), stop="Hold"), workload("w", pod_set(cpu=1), queue="a"))
    r = why(model, "default/w")
    assert [o.kind for g in r.blame_groups for o in g] == ["stop_policy"]
    assert r.reasons[0].code == "KAD518"
