"""KAD301: a label or annotation in Kueue's domain that Kueue v0.17.0 would not read as written — on
jobs, pod templates, Workloads, namespaces and nodes, in manifests and `.kad` — with the key meant;
and the list of keys is Kueue's own, as tools/gen_kueue_keys.py generates it from Kueue's source."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.kueuekeys import KEYS, KUEUE_VERSION
from kadmit.kueuelabels import problem
from kadmit.manifests import read_manifest_text
from kadmit.syntax import parse_text

ROOT = Path(__file__).resolve().parents[2]

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team
  labels:
    {label}
  annotations:
    {annotation}
spec:
  suspend: true
  template:
    metadata:
      annotations:
        {template}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        resources: {{requests: {{cpu: "1"}}}}
"""


def job(label: str = "app: x", annotation: str = "note: x", template: str = "note: x") -> list:
    diags = Diagnostics()
    read_manifest_text(JOB.format(label=label, annotation=annotation, template=template), "job.yaml", diags)
    return [d for d in diags if d.code == "KAD301"]


def test_a_misspelt_queue_label_says_the_job_runs_outside_every_quota() -> None:
    [d] = job(label="kueue.x-k8s.io/queue_name: lq")
    assert d.message == f"label `kueue.x-k8s.io/queue_name` is not one Kueue {KUEUE_VERSION} knows: Kueue ignores it"
    assert d.help == "did you mean `kueue.x-k8s.io/queue-name`?"
    assert (d.span.line, d.span.column, d.span.end_column) == (7, 5, 30)  # the key
    assert "runs outside every quota" in d.notes[0]


def test_the_queue_name_as_an_annotation_is_in_the_wrong_place() -> None:
    [d] = job(label="app: x", annotation="kueue.x-k8s.io/queue-name: lq")
    assert d.message == ("`kueue.x-k8s.io/queue-name` is a label Kueue reads, written as an annotation: "
                         "Kueue ignores it there")
    assert d.help == "move it to `metadata.labels`"


def test_a_misspelt_topology_annotation_of_a_pod_template() -> None:
    [d] = job(template="kueue.x-k8s.io/podset-required-topolgy: rack")
    assert d.span.line == 15 and d.help == "did you mean `kueue.x-k8s.io/podset-required-topology`?"
    assert d.notes == ()  # a template's labels don't decide whether the job is managed


def test_a_near_miss_of_the_domain() -> None:
    [d] = job(label="kueue.k8s.io/queue-name: lq")
    assert "is not in Kueue's domain `kueue.x-k8s.io`" in d.message
    assert d.help == "did you mean `kueue.x-k8s.io/queue-name`?"


@pytest.mark.parametrize("label", ["kueue.x-k8s.io/queue-name: lq", "kueue.x-k8s.io/priority-class: high",
                                   "app.kubernetes.io/name: x", "provreq.kueue.x-k8s.io/maxRunDurationSeconds: '60'",
                                   "cluster.x-k8s.io/cluster-name: c", "jobset.sigs.k8s.io/jobset-name: j"])
def test_keys_read_as_written_or_of_other_domains(label: str) -> None:
    assert job(label=label) == []


WORKLOAD_NS_NODE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team
  labels: {kueue.x-k8s.io/job_uid: "1"}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - {name: c, resources: {requests: {cpu: "1"}}}
---
apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels: {kueue.x-k8s.io/managed: "true", kueue.x-k8s.io/manged: "true"}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kueue.x-k8s.io/podset: main}
  annotations: {kueue.x-k8s.io/podset: main}
status:
  allocatable: {cpu: "8"}
"""


def test_workloads_namespaces_and_nodes() -> None:
    diags = Diagnostics()
    read_manifest_text(WORKLOAD_NS_NODE, "m.yaml", diags)
    got = [(d.span.line, d.message.split(":")[0]) for d in diags if d.code == "KAD301"]
    assert got == [(6, "label `kueue.x-k8s.io/job_uid` is not one Kueue v0.17.0 knows"),
                   (21, "label `kueue.x-k8s.io/manged` is not one Kueue v0.17.0 knows"),
                   (28, "`kueue.x-k8s.io/podset` is a label Kueue reads, written as an annotation")]


def test_kad_namespaces_and_nodes() -> None:
    text = ('namespace team { labels = { "kueue.x-k8s.io/queue_name" = "x", team = "a" } }\n'
            'node n { labels = { "kueue.x-k8s.io/podset-required-topology" = "rack" } allocatable = { cpu = 8 } }\n')
    diags = Diagnostics()
    parse_text(text, "p.kad", diags)
    got = [(d.code, d.span.line, d.span.column, d.help) for d in diags]
    assert got == [("KAD301", 1, 29, "did you mean `kueue.x-k8s.io/queue-name`?"), ("KAD301", 2, 21, None)]


def test_the_examples_use_only_keys_kueue_reads() -> None:
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        diags = Diagnostics()
        read_manifest_text(path.read_text(), str(path), diags)
        assert [d.message for d in diags if d.code == "KAD301"] == [], path


def test_problem_is_none_outside_kueues_domain() -> None:
    assert problem("queue-name", "label") is None and problem("example.com/queue_name", "label") is None


def _generator():
    spec = importlib.util.spec_from_file_location("gen_kueue_keys", ROOT / "tools" / "gen_kueue_keys.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def test_the_keys_are_kueues_own_as_generated() -> None:
    """tools/gen_kueue_keys.py, run on Kueue's source, writes exactly the committed module."""
    gen = _generator()
    source = gen.default_source(gen.version())
    if not (source / "apis" / "kueue").is_dir():
        pytest.skip(f"Kueue's source is not in the Go module cache ({source}): "
                    "`go mod download` in tools/kueue-oracle fetches it")
    assert gen.render(gen.scan(source), gen.version()) == (ROOT / "src" / "kadmit" / "kueuekeys.py").read_text()
    assert {"kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class", "kueue.x-k8s.io/job-min-parallelism",
            "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/pod-group-name"} <= set(KEYS)
