"""Node affinity `matchExpressions` on the real API server (ValidateNodeSelectorRequirement): In or NotIn without
values, Exists or DoesNotExist with some, Gt or Lt with other than one value, a key that is no label key, a value no label
value are refused in a Pod or a built-in job's
template (kadmit: KAD157 in the server's words, required terms then preferred ones); a Gt or Lt value that is no
integer is taken (the server checks a label value only), and so is every such requirement in a custom resource's
template, whose made objects the server then refuses (KAD199). What the server takes and labels.NewRequirement
cannot parse, Kueue keeps pending (KAD246; tests/oracle/features/node-affinity-match-expressions-unparsable*.yaml)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kadmit import workspace as ws
from kube.server import KubeAPIServer
from kube.test_empty_toleration import _refusal
from kube import test_node_field_selector as fields
from kube.test_node_field_selector import _items

pytestmark = pytest.mark.slow

AFFINITY = ("{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: ["
            "{key: zone, operator: In}, {key: zone, operator: Lt, values: [x]}, {key: zone, operator: Exists, "
            "values: [a]}, {key: zone, operator: Gt, values: ['1', '2']}]}, {matchExpressions: [{key: zone, "
            "operator: NotIn, values: []}, {key: zone, operator: DoesNotExist, values: [a, b]}, {key: a/b/c, "
            "operator: Exists}, {key: Zone.X/y, operator: In, values: ['a b', '-1']}, {key: '', operator: Exists}, "
            "{key: zone, operator: Equals, values: ['a b']}]}]}, "
            "preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: ["
            "{key: zone, operator: Gt}]}}]}}")
TAKEN = "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [" \
        "{key: zone, operator: Gt, values: [x]}]}]}}}"


def _spec(affinity: str) -> str:
    return f"{{restartPolicy: Never, affinity: {affinity}, containers: [{{name: c, image: busybox}}]}}"


def _objects(affinity: str) -> dict[str, str]:
    return {
        "Job": f"apiVersion: batch/v1\nkind: Job\nmetadata: {{name: me-job, namespace: default, labels: "
               f"{{kueue.x-k8s.io/queue-name: lq}}}}\nspec: {{template: {{spec: {_spec(affinity)}}}}}\n",
        "Pod": f"apiVersion: v1\nkind: Pod\nmetadata: {{name: me-pod, namespace: default, labels: "
               f"{{kueue.x-k8s.io/queue-name: lq}}}}\nspec: {_spec(affinity)}\n",
    }


# the JobSet and the Job its controller makes, of test_node_field_selector, holding these expressions instead
JOBSET, MADE_JOB = (text.replace(fields.SPEC, _spec(AFFINITY)).replace("mf-js", "me-js")
                    for text in (fields.JOBSET, fields.MADE_JOB))


def _load(tmp_path: Path, text: str):
    path = tmp_path / "object.yaml"
    path.write_text(text, encoding="utf-8")
    return ws.load([str(path)]).diagnostics


@pytest.mark.parametrize("kind", ["Job", "Pod"])
def test_refused_match_expressions_are_refused_in_the_servers_words(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    text = _objects(AFFINITY)[kind]
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=text, check=False)
    assert created.returncode != 0, created
    refused = [d.message for d in _load(tmp_path, text) if d.code == "KAD157"]
    assert refused == [f"the API server refuses the object: `{w}`" for w in _items(created.stderr)], \
        (refused, created.stderr)
    assert len(refused) == 14  # an empty key gives two words, Equals two (its operator, its value)


@pytest.mark.parametrize("kind", ["Job", "Pod"])
def test_a_gt_value_no_integer_is_taken_and_kueue_cannot_parse_it(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    text = _objects(TAKEN)[kind]
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=text, check=False).returncode == 0
    diags = _load(tmp_path, text)
    assert not diags.has_errors, [str(d) for d in diags]
    assert [d.code for d in diags if d.code == "KAD246"] == ["KAD246"], [str(d) for d in diags]


def test_a_custom_resources_match_expressions_are_kept_and_refuse_the_objects_it_makes(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=JOBSET, check=False).returncode == 0
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=MADE_JOB, check=False)
    assert refused.returncode != 0, refused
    diags = _load(tmp_path, JOBSET)
    assert not diags.has_errors, [str(d) for d in diags]
    (warning,) = [d.message for d in diags if d.code == "KAD199"]
    assert f"`{_refusal(refused.stderr)}`: Kueue may admit it" in warning, (warning, refused.stderr)
    assert len([d for d in diags if d.code == "KAD246"]) == 10  # the required terms' ten Kueue cannot parse


EMPTY = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: me-empty, namespace: default}\n"
         "spec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n"
         "        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{"
         "matchExpressions: [{key: zone, operator: In, values: []}, {key: zone, operator: NotIn}]}]}}}\n"
         "        containers: [{name: c, image: busybox}]\n")


def test_a_workloads_empty_values_are_stored_and_kueue_reads_them_as_written(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The server stores a Workload's `values: []` as written (no values stays none): Kueue's client decodes
    `[]` as an empty list, whose error says `[]` (json.Marshal), and a nil one `null` (shown by hand with Go on
    the object read back: KUEUE-DIFFERENCES §5; the oracle's fake client drops the empty list)."""
    stored = json.loads(kube_apiserver.run("create", "--dry-run=server", "-o", "json", "-f", "-", input=EMPTY).stdout)
    term = stored["spec"]["podSets"][0]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert term["matchExpressions"] == [{"key": "zone", "operator": "In", "values": []},
                                        {"key": "zone", "operator": "NotIn"}], term
    diags = _load(tmp_path, EMPTY)
    assert [d.message.split("`")[-2] for d in diags if d.code == "KAD246"] == [
        "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set "
        "can't be empty", "nodeSelectorTerms[0].matchExpressions[1].values: Invalid value: null: for 'in', 'notin' "
        "operators, values set can't be empty"], [str(d) for d in diags]
