"""A snapshot's text: the bundled example's objects as kubectl lists them read back to the very model the
files give, and its header's lines about what could not be listed are reported wherever it is read."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from kadmit import workspace as ws
from kadmit.live.discover import Target
from kadmit.live.read import Snapshot
from kadmit.live.snapshot import Listed, Origin, compose, composed, is_snapshot
from kadmit.render.human import render_human

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"
ORIGIN = Origin(context="prod", cluster="gke_prod", user="me", server="https://10.0.0.1", server_version="v1.35.3",
                kubectl_version="v1.35.3", kadmit_version="0.1.0", read_at="2026-11-20T10:00:00Z", seconds=0.84)


def example_listing() -> list[Listed]:
    """The example's objects by kind, each as kubectl's JSON has it (keys sorted); Kueue's Configuration
    inside the ConfigMap Kueue installs it in."""
    by_kind: dict[tuple[str, str], Listed] = {}
    for path in sorted(EXAMPLE.glob("*.yaml")):
        if path.name.endswith(".kadtest.yaml"):
            continue
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            for obj in (doc or {}).get("items") or ([doc] if doc else []):
                if obj["kind"] == "Configuration":
                    obj = {"apiVersion": "v1", "kind": "ConfigMap", "data": {
                        "controller_manager_config.yaml": yaml.safe_dump(obj, sort_keys=False)},
                        "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"}}
                group, _, version = obj["apiVersion"].rpartition("/")
                target = Target(group, obj["kind"], obj["kind"].lower() + "s", version, "namespace" in obj["metadata"])
                one = by_kind.setdefault((group, obj["kind"]), Listed(target))
                one.docs.append(json.loads(json.dumps(obj, sort_keys=True, default=str)))  # as kubectl's JSON has it
    return [by_kind[k] for k in sorted(by_kind)]


def models_equal(a, b) -> None:
    """The same objects in every list of the model, in any order (spans are out of equality)."""
    for field in ("flavors", "cohorts", "cluster_queues", "local_queues", "namespaces", "topologies", "nodes",
                  "workloads", "priority_classes", "scheduler_configs", "pods", "jobs", "skipped"):
        left, right = list(getattr(a, field)), list(getattr(b, field))
        assert len(left) == len(right), field
        for one in left:
            match = next((i for i, other in enumerate(right) if other == one), None)
            assert match is not None, (field, one)
            right.pop(match)


def test_a_snapshot_of_the_example_reads_as_the_example() -> None:
    text = compose(ORIGIN, example_listing(), ("Workload (scheduling.k8s.io)",), [])
    assert is_snapshot(text)
    header = text.split("\n---\n")[0].splitlines()
    assert header[2:5] == ["# context: prod (cluster gke_prod, user me)",
                           "# server: https://10.0.0.1 (Kubernetes v1.35.3)",
                           "# read at: 2026-11-20T10:00:00Z, in 0.84 s, by kubectl v1.35.3, kadmit 0.1.0"]
    assert "# not served (kadmit reads them; this server has no API for them): Workload (scheduling.k8s.io)" in header
    live = ws.load([], texts=[Snapshot("<cluster prod>", text)])
    files = ws.load([str(EXAMPLE)])
    assert [d.code for d in live.diagnostics.sorted()] == [d.code for d in files.diagnostics.sorted()] == []
    models_equal(live.model, files.model)
    # `--cluster` takes the trees written with the text: the same model, every object at the same place
    again, trees = composed(ORIGIN, example_listing(), ("Workload (scheduling.k8s.io)",), [])
    assert again == text and len(trees) == sum(len(t.docs) for t in example_listing())
    read = Snapshot("<cluster prod>", text, trees=trees)
    taken = ws.load([], texts=[read])
    assert read.trees is None  # taken once: another load of the same read parses the text
    models_equal(taken.model, live.model)
    for field in ("cluster_queues", "local_queues", "workloads", "flavors", "nodes", "pods", "jobs", "scheduler_configs"):
        assert [(o.span, o) for o in getattr(taken.model, field)] == [(o.span, o) for o in getattr(live.model, field)]
    assert taken.diagnostics.sorted() == live.diagnostics.sorted()
    assert live.files == ["<cluster prod>"] and live.incomplete == []
    # the objects' places are in the snapshot's text
    queue = next(q for q in live.model.cluster_queues if q.name == "team-vision")
    assert queue.span.file == "<cluster prod>"
    document = text[sum(len(ln) + 1 for ln in text.splitlines()[:queue.span.line - 1]):].split("\n---\n")[0]
    assert document.startswith("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n")
    assert "\n  name: team-vision\n" in document


def test_what_could_not_be_listed_is_reported_from_the_header_wherever_it_is_read(tmp_path: Path) -> None:
    listing = example_listing()
    nodes = next(t for t in listing if t.target.kind == "Node")
    nodes.docs, nodes.failed = [], 'nodes is forbidden: User "me" cannot list resource "nodes" at the cluster scope'
    pods = next(t for t in listing if t.target.kind == "Pod")
    pods.namespaces, pods.missed, pods.missed_why = 5, ("team-infra", "team-vision"), "pods is forbidden: …"
    text = compose(ORIGIN, listing, (), [("no Kueue configuration", "no ConfigMap … holds it")])
    lines = text.splitlines()
    assert 'not listed: nodes.v1 cluster-wide: nodes is forbidden: User "me" cannot list resource "nodes" at the ' \
           'cluster scope' in lines[lines.index(next(ln for ln in lines if ln.startswith("# not listed: nodes")))]
    assert any(ln.startswith("#   pods.v1 in 3 of 5 namespaces") for ln in lines)
    path = tmp_path / "prod.yaml"
    path.write_text(text, encoding="utf-8")
    for loaded, name in ((ws.load([], texts=[Snapshot("<cluster prod>", text)]), "<cluster prod>"),
                         (ws.load([str(path)]), ws.display_name(path))):
        got = [(d.code, d.severity.value, d.message, d.span.file, d.span.line) for d in loaded.diagnostics.sorted()]
        assert got == [
            ("KAD034", "warning", f"not listed: {lines[i][len('# not listed: '):]}", name, i + 1)
            for i in range(len(lines)) if lines[i].startswith("# not listed: ")] + [
            ("KAD037", "warning", "no ConfigMap … holds it", name,
             next(i for i in range(len(lines)) if lines[i].startswith("# no Kueue configuration")) + 1)]
        assert loaded.incomplete == [ln[len("# not listed: "):] for ln in lines if ln.startswith("# not listed: ")]
        shown = render_human(loaded.diagnostics.sorted(), loaded.sources, files_checked=None)
        assert "# not listed: pods.v1 in namespaces team-infra, team-vision: pods is forbidden: …" in shown
        assert "every answer rests on the cluster's state without these objects" in shown


def test_a_read_that_gave_nothing_is_an_input_error_with_its_diagnostics() -> None:
    from kadmit.diagnostics import Diagnostics
    from kadmit.live.codes import KAD032

    failed = Diagnostics()
    failed.emit(KAD032, "can't reach the API server of context `prod`: refused")
    loaded = ws.load([], texts=[Snapshot("<cluster prod>", None, failed.sorted())])
    assert loaded.input_error and [d.code for d in loaded.diagnostics.sorted()] == ["KAD032"]
    assert loaded.files == []


def test_an_answer_says_what_it_rests_without() -> None:
    from kadmit.render.cluster import incomplete_json, incomplete_text

    assert incomplete_text([]) == "" and incomplete_json('{\n  "a": 1\n}\n', []) == '{\n  "a": 1\n}\n'
    assert incomplete_text(["nodes.v1 cluster-wide: forbidden"]) == (
        "\nincomplete: this answer rests on the cluster's state without what could not be listed:\n"
        "  nodes.v1 cluster-wide: forbidden\n")
    assert json.loads(incomplete_json('{"a": 1}', ["x"])) == {"a": 1, "incomplete": ["x"]}
