"""A Workload naming a priority class without `spec.priority`, on the real API server: the Workload CRD's rule
(v1beta2 `!has(self.priorityClassRef) || has(self.priority)`, v1beta1 `has(self.priorityClassName) ?
has(self.priority) : true`) refuses it, each version in its own words, and kadmit refuses it (KAD157) in those
words. Beside a reference of a kind its group does not hold the server gives both; a value the schema refuses
(v1beta1's `priorityClassSource` enum) leaves the rule unchecked; v1beta1's empty name is refused by its pattern
and the rule (kadmit says the rule only: it checks no such pattern)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws
from kube.server import KubeAPIServer
from kube.test_node_field_selector import _items

pytestmark = pytest.mark.slow

POD_SETS = "podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]"


def _workload(name: str, version: str, fields: str) -> str:
    return (f"apiVersion: kueue.x-k8s.io/{version}\nkind: Workload\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:\n  queueName: q\n  {fields}\n  {POD_SETS}\n")


RULE = "spec: Invalid value: priority should not be nil when {} is set"
REF = "priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: p}"
# name: (object, the rule's words the server says, kadmit's other KAD157 messages)
CASES = {
    "ref": (_workload("ref", "v1beta2", REF), RULE.format("priorityClassRef"), []),
    "name": (_workload("name", "v1beta1", "priorityClassName: p"), RULE.format("priorityClassName"), []),
    "empty-name": (_workload("empty-name", "v1beta1", 'priorityClassName: ""'), RULE.format("priorityClassName"),
                   ['the API server refuses the object: `Workload.kueue.x-k8s.io "empty-name" is invalid: '
                    'spec.priorityClassName: Invalid value: "": spec.priorityClassName in body should match '
                    "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`"]),
    "wrong-kind": (_workload("wrong-kind", "v1beta2", REF.replace("scheduling.k8s.io", "kueue.x-k8s.io")),
                   RULE.format("priorityClassRef"),
                   ["`priorityClassRef` can't name `PriorityClass` in group `kueue.x-k8s.io`"]),
    "bad-source": (_workload("bad-source", "v1beta1", "priorityClassName: p\n  priorityClassSource: kueue/wpc"), None,
                   ["`priorityClassSource` can't be `kueue/wpc`; it is one of `kueue.x-k8s.io/workloadpriorityclass`, "
                    "`scheduling.k8s.io/priorityclass`"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_class_without_a_priority_is_refused_in_the_servers_words(
        name: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    text, rule, others = CASES[name]
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=text, check=False)
    assert created.returncode != 0, created
    items = _items(created.stderr)  # kubectl lists the Status's causes, one a line where there are several
    path = tmp_path / "workload.yaml"
    path.write_text(text, encoding="utf-8")
    refused = sorted(d.message for d in ws.load([str(path)]).diagnostics if d.code == "KAD157")
    if rule is None:  # the schema refused a value: no rule checked
        assert any("some validation rules were not checked" in w for w in items), items
        assert not any("priority should not be nil" in w for w in items), items
        assert refused == others
        return
    assert rule in items, items
    # the Status's message, as kubectl prints it given a file name and the oracle says it
    assert refused == sorted([f'the API server refuses the object: `Workload.kueue.x-k8s.io "{name}" is invalid: '
                              f'{rule}`', *others])
    # besides: the empty name's pattern (in the server's words, a cause of its own); the reference's own rule
    # (kadmit's words)
    assert len(items) == (2 if name in ("empty-name", "wrong-kind") else 1), items

def test_a_class_with_a_priority_is_stored(kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    text = _workload("with-priority", "v1beta2", REF + "\n  priority: 5")
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=text, check=False).returncode == 0
    path = tmp_path / "workload.yaml"
    path.write_text(text, encoding="utf-8")
    assert not ws.load([str(path)]).diagnostics.has_errors
