"""`why` on a terminal: the first lines (the decision, what the workload needs and can reach, its place
in line) are handed over before the blame is searched and before any fix is proven, and what is shown
in stages adds up to the answer a pipe gets, byte for byte."""

from __future__ import annotations

from kadmit import api
from kadmit.render.why import WhyStream, why_human

KAD = "examples/ml-platform/"
STRICT = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""
WL = """\
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-01-01T00:0{at}:00Z"}}
spec:
  queueName: q
  podSets: [{{name: main, count: {n}, template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""


def _streamed(key: str, paths: list[str]) -> tuple[list[tuple[str, str]], str]:
    """The chunks a terminal is shown, each with the kinds of progress reported before it ("fixes": a
    change was decided again), the last one what is left once fixes are proven; and the answer a pipe
    gets."""
    events: list[str] = []
    chunks: list[tuple[str, str]] = []
    stream = WhyStream(lambda text: chunks.append((",".join(dict.fromkeys(events)), text)))

    def progress(what: str, done: int, total) -> None:
        events.append(what)

    out = api.why(key, paths, progress=progress, stages=stream.stage)
    model = out.loaded.workspace.model
    wl = next(w for w in model.workloads if w.key == out.result.workload)
    full = why_human(out.result, out.loaded.sources, wl.span, wl, model.skipped)
    chunks.append((",".join(dict.fromkeys(events)), stream.rest(full)))
    return chunks, full


def test_behind_a_strict_fifo_head_the_first_lines_come_before_any_blame_or_fix(tmp_path):
    (tmp_path / "s.yaml").write_text(STRICT + WL.format(name="head", at=0, n=8) + WL.format(name="small", at=1, n=1))
    chunks, full = _streamed("default/small", [str(tmp_path)])
    assert "".join(text for _, text in chunks) == full
    before, first = chunks[0]
    assert "fixes" not in before
    assert first.splitlines()[2].startswith("   = waits behind the StrictFIFO head `default/head`: it needs")
    assert "waits behind the head of its queue" not in first  # the blame's title: searched after
    assert "waits behind the head of its queue" in chunks[1][1] and "fixes" not in chunks[1][0]
    assert chunks[-1][1].startswith("fixes") and "fixes" in chunks[-1][0]  # proven last


def test_the_stages_add_up_to_the_answer_a_pipe_gets():
    chunks, full = _streamed("team-vision/frame-extract", [KAD])
    assert "".join(text for _, text in chunks) == full
    assert len(chunks) == 3 and all("fixes" not in before for before, _ in chunks[:2])
    assert chunks[0][1].startswith("error[KAD501]") and "fixes" in chunks[2][0]


def test_lines_that_changed_are_shown_again_in_full():
    shown: list[str] = []
    stream = WhyStream(shown.append)
    stream.shown = "error[KAD501]: `a/b` can't be admitted\n"
    assert stream.rest("error[KAD501]: `a/b` can't be admitted\nmore\n") == "more\n"
    again = stream.rest("error[KAD503]: kadmit couldn't decide\n")
    assert again.splitlines()[0].startswith("(the lines above changed") and again.endswith("couldn't decide\n")


EVICTED_HEAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  namespaceSelector: {}
  cohortName: co
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec:
  namespaceSelector: {}
  cohortName: co
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: qa, namespace: default}
spec: {clusterQueue: a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: qb, namespace: default}
spec: {clusterQueue: b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: head, namespace: default, creationTimestamp: "2026-11-20T08:00:00Z"}
spec:
  queueName: qa
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 4}}}]}}}]
status:
  admission:
    clusterQueue: a
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: 4}}]
  conditions: [{type: QuotaReserved, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: reclaimer, namespace: default, creationTimestamp: "2026-11-20T08:01:00Z"}
spec:
  queueName: qb
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 4}}}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: small, namespace: default, creationTimestamp: "2026-11-20T08:02:00Z"}
spec:
  queueName: qa
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 7}}}]}}}]
"""


def test_behind_a_head_that_was_evicted_the_first_lines_come_before_its_own_obstacle_is_searched(tmp_path):
    # the head was evicted by a reclaim and tried again (its standing says by whom): the first lines come
    # once the head's standing is known, not with the whole blame (the live gpu_state's team-00 head
    # preempting was the case: its first line came after the workload's own cores, seconds later); small
    # asks 7 cpu, more than a can reach, so its own obstacle is searched after the head's
    (tmp_path / "s.yaml").write_text(EVICTED_HEAD)
    searched: list[str] = []
    from kadmit.engine.explain import cores

    real = cores.blame_cores

    def blame_cores(*args, **kwargs):
        searched.append("cores")
        return real(*args, **kwargs)

    cores.blame_cores = blame_cores
    chunks: list[tuple[int, str]] = []
    try:
        stream = WhyStream(lambda text: chunks.append((len(searched), text)))
        out = api.why("default/small", [str(tmp_path)], fixes=0, stages=stream.stage)
    finally:
        cores.blame_cores = real
    model = out.loaded.workspace.model
    wl = next(w for w in model.workloads if w.key == out.result.workload)
    full = why_human(out.result, out.loaded.sources, wl.span, wl, model.skipped)
    assert out.result.decision.waiting_behind == "default/head"
    assert "".join(text for _, text in chunks) + stream.rest(full) == full
    first_searched, first = chunks[0]
    assert first_searched == 0 and "   = waits behind the StrictFIFO head `default/head`" in first
    assert "   = the head: evicted by `default/reclaimer` (InCohortReclamation) and requeued" in first
    assert "its own obstacle" not in first and "waits behind the head of its queue" not in first
    assert "its own obstacle" in full and searched  # the own cores were searched, after the first lines
