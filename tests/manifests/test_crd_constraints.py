"""A job CRD's enums, bounds, lengths and CEL rules, checked as the API server checks them (KAD157), in its words.

Each expected message below is the oracle's (its apiextensions validator, the API server's; `kueue-oracle admit`
on the same object, skipped with `KIND.GROUP "NAME" is invalid: [...]`) for the same value.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.manifests.schema import constraints, crd_checks, status

ROOT = Path(__file__).resolve().parents[2]
JOBSET = """\
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata: {name: j, namespace: ns}
    spec:
      %s
      replicatedJobs:
      - name: w
        replicas: 1
        %s
        template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
    """
RAYJOB = """\
    apiVersion: ray.io/v1
    kind: RayJob
    metadata: {name: r, namespace: ns}
    spec:
      entrypoint: python -c 1
      %s
      rayClusterSpec:
        headGroupSpec:
          rayStartParams: {}
          template: {spec: {containers: [{name: h, image: ray}]}}
    """
# spark-operator v2.5.0's (Kueue v0.17.0's go.mod), the oracle's words: tests/oracle/features/sparkapplication-crd-*.yaml
SPARK = """\
    apiVersion: sparkoperator.k8s.io/v1beta2
    kind: SparkApplication
    metadata: {name: s, namespace: ns}
    spec:
      type: Scala
      sparkVersion: 4.0.0
      mainApplicationFile: "local:///x.jar"
      %s
      driver: {cores: 1, memory: 512m}
      executor: {instances: 1, cores: 1, memory: 512m}
    """
LONG = "a-very-long-trainjob-name-that-is-longer-than-sixty-three-characters-x"


def refusals(text: str) -> list[str]:
    diags = Diagnostics()
    read_manifest_text(textwrap.dedent(text), "m.yaml", diags)
    return [d.message for d in diags.sorted() if d.code == "KAD157"]


@pytest.mark.parametrize("text, words", [
    (JOBSET % ("successPolicy: {operator: Some}", ""),
     'spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any"'),
    (JOBSET % ("ttlSecondsAfterFinished: -1", ""),
     "spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished in body should be greater "
     "than or equal to 0"),
    (JOBSET % ("", "dependsOn: [" + ", ".join(f"{{name: a{i}, status: Ready}}" for i in range(6)) + "]"),
     "spec.replicatedJobs[0].dependsOn: Too many: 6: must have at most 5 items"),
    (JOBSET % ("", "dependsOn: [{name: a, status: Ready}, {name: a, status: Complete}, {name: a, status: Ready}]"),
     'spec.replicatedJobs[0].dependsOn[1]: Duplicate value: {"name":"a"}'),
    (JOBSET % ("startupPolicy: {startupPolicyOrder: InOrder}", "dependsOn: [{name: a, status: Ready}]"),
     "spec: Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive"),
    (JOBSET % ("failurePolicy: {rules: [{action: FailJobSet, targetReplicatedJobs: [w]}]}", ""),
     "spec.failurePolicy.rules[0].name: Required value"),  # JobSet's own failure-policy examples (soak13)
    (JOBSET % ("failurePolicy: {rules: [{name: null}]}", "dependsOn: [{name: a}]"),
     "spec.failurePolicy.rules[0].action: Required value, spec.failurePolicy.rules[0].name: Required value, "
     "spec.replicatedJobs[0].dependsOn[0].status: Required value"),
    (SPARK % "mode: local", 'spec.mode: Unsupported value: "local": supported values: "cluster", "client"'),
    ((SPARK % "").replace("instances: 1", "instances: 0"),
     "spec.executor.instances: Invalid value: 0: spec.executor.instances in body should be greater than or equal to 1"),
    (SPARK % "monitoring: {exposeDriverMetrics: true, exposeExecutorMetrics: true, prometheus: {jmxExporterJar: j, port: 80}}",
     "spec.monitoring.prometheus.port: Invalid value: 80: spec.monitoring.prometheus.port in body should be greater "
     "than or equal to 1024"),
    (RAYJOB % "managedBy: someone",
     "spec.managedBy: Invalid value: \"someone\": the managedBy field value must be either 'ray.io/kuberay-operator' "
     "or 'kueue.x-k8s.io/multikueue'"),
    (RAYJOB % "deletionStrategy: {onSuccess: {policy: DeleteCluster}}",
     "spec.deletionStrategy: Invalid value: deletionStrategy requires either BOTH onSuccess and onFailure, OR the "
     "deletionRules field (cannot be empty)"),
    (f"""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {{name: {LONG}, namespace: ns}}
    spec: {{runtimeRef: {{name: torch-distributed}}}}
    """, "<nil>: Invalid value: metadata.name must be no more than 63 characters"),
])
def test_a_broken_constraint_is_refused_in_the_api_servers_words(text: str, words: str) -> None:
    assert ", ".join(m.split("`")[-2] for m in refusals(text)) == words


CEL = "spec: Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive"


@pytest.mark.parametrize("other, words, blocks", [
    ("successPolicy: {operator: Some}",
     'spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any"', True),
    ("successPolicy: {}", "spec.successPolicy.operator: Required value", True),
    ("suspend: 'yes'", None, True),  # KAD156: `spec.suspend: Invalid value: "string": ... must be of type boolean`
    ("ttlSecondsAfterFinished: -1", "spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished "
     "in body should be greater than or equal to 0", False),
])
def test_an_error_that_blocks_the_cel_rules_leaves_them_unchecked(other: str, words: str | None, blocks: bool) -> None:
    """kube-apiserver v1.35.3 (`kubectl apply --dry-run=server`, these JobSets): an enum's, a required field's, a
    wrong type's error (a too long string's or too many items' too: apiextensions' hasBlockingErr) keeps it from
    checking the CRD's CEL rules, which it says in one more error (`<nil>: ... some validation rules were not
    checked`); a bound's (a pattern's, a duplicate's) does not, and it lists the rule's error after it. kadmit
    reported the rule's error under each. Now, where blocked, it is a note of the blocking error."""
    text = JOBSET % (f"{other}\n      startupPolicy: {{startupPolicyOrder: InOrder}}", "dependsOn: [{name: a, status: Ready}]")
    diags = Diagnostics()
    read_manifest_text(textwrap.dedent(text), "m.yaml", diags)
    said = [d for d in diags.sorted() if d.code in ("KAD156", "KAD157")]
    shown = [d.message.split("`")[-2] for d in said if d.code == "KAD157"]
    assert shown == ([words] if blocks else [CEL, words]) if words else shown == []
    assert len(said) == (1 if blocks else 2)
    unchecked = [n for d in said for n in d.notes if constraints.CEL_NOT_CHECKED in n]
    assert unchecked == ([f"the API server then leaves its CEL rules unchecked (`{constraints.CEL_NOT_CHECKED}`); "
                          f"they refuse it too: `{CEL}`"] if blocks else [])


def test_a_required_field_the_crd_defaults_is_not_missing() -> None:
    """RayCluster's workerGroupSpecs[] requires minReplicas and maxReplicas and defaults both (0, 2147483647):
    the API server defaults before it validates, so a worker group without them is taken (kube-apiserver
    v1.35.3 with KubeRay v1.6.0's CRD: only a missing `groupName` is refused)."""
    worker = "workerGroupSpecs: [{%stemplate: {spec: {containers: [{name: w, image: ray}]}}}]"
    assert refusals(RAYJOB % "") == []
    text = RAYJOB.replace("      rayClusterSpec:\n", "      rayClusterSpec:\n        %s\n")
    assert refusals(text % ("", worker % "groupName: w, ")) == []
    assert [m.split("`")[-2] for m in refusals(text % ("", worker % ""))] == [
        "spec.rayClusterSpec.workerGroupSpecs[0].groupName: Required value"]


@pytest.mark.parametrize("value, type_, shown", [("5", "an integer (`5`)", "5"), ("true", "a boolean (`true`)", "true"),
                                                  ("1.5", "a number (`1.5`)", "1.5"),
                                                  ('[1, "b", true, null, 2.5]', "a list", '[1,"b",true,null,2.5]')])
def test_a_wrong_type_the_enum_refuses_too_is_refused_for_both(value: str, type_: str, shown: str) -> None:
    """The API server lists both errors of a value of the wrong type that the enum refuses too, the type's first
    (kube-apiserver v1.35.3, `kubectl apply --dry-run=server`; the oracle's words for the case file below); kadmit
    said only the type's (one report per value)."""
    diags = Diagnostics()
    read_manifest_text(textwrap.dedent(JOBSET % (f"successPolicy: {{operator: {value}}}", "")), "m.yaml", diags)
    said = [(d.code, d.message, d.span.line) for d in diags.sorted()]
    assert said == [("KAD156", f"`spec.successPolicy.operator` should be a string, found {type_}", 5),
                    ("KAD157", "`spec.successPolicy.operator` is refused by its CRD: `spec.successPolicy.operator: "
                     f'Unsupported value: {shown}: supported values: "All", "Any"`', 5)]


def test_values_within_their_constraints_pass() -> None:
    assert refusals(JOBSET % ("successPolicy: {operator: Any}\n  ttlSecondsAfterFinished: 0",
                              "dependsOn: [{name: a, status: Complete}]")) == []
    assert refusals(RAYJOB % "managedBy: kueue.x-k8s.io/multikueue\n  deletionStrategy: {deletionRules: "
                              "[{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED}}]}") == []


def test_every_cel_rule_of_the_job_crds_is_in_the_table_and_every_entry_is_used() -> None:
    """The job CRDs' rules, and those of Kueue's kinds' status (schema.status)."""
    held = {r["rule"] for checks in crd_checks().values() for c in checks.values() for r in c.get("rules", [])}
    held |= {r["rule"] for kind in status._kinds().values() for c in kind["checks"].values() for r in c.get("rules", [])}
    assert held == set(constraints.CEL_RULES), "a CRD rule kadmit does not check (or a stale entry): CEL_RULES"


def test_go_values_print_as_field_errors_print_them() -> None:
    assert [constraints.go_value(v) for v in ("a\"b", 5, 0.5, 1e21, True, {"b": 1, "a": [1]})] == [
        '"a\\"b"', "5", "0.5", "1e+21", "true", '{"a":[1],"b":1}']


def test_the_generator_keeps_every_constraint_by_path() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_schemas
    finally:
        sys.path.remove(str(ROOT / "tools"))
    schema = {"type": "object", "properties": {
        "metadata": {"type": "object", "maxProperties": 1}, "status": {"type": "string", "enum": ["x"]},
        "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "self == oldSelf"}], "properties": {
            "a": {"type": "array", "maxItems": 2, "x-kubernetes-list-type": "set",
                  "items": {"type": "integer", "minimum": 1, "maximum": 9}},
            "l": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}},
            "m": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3, "pattern": "^x"}},
            "q": {"x-kubernetes-int-or-string": True, "pattern": gen_schemas._QUANTITY_PATTERN},
            "r": {"type": "object", "required": ["d"], "properties": {"d": {"type": "integer", "default": 0}}}},
            "required": ["a", "q"]}}}
    assert json.loads(json.dumps(gen_schemas._kind_checks(schema))) == {
        "spec": {"rules": [{"rule": "self == oldSelf"}], "required": ["a", "q"]},
        "spec/a": {"maxItems": 2, "listType": "set"},
        "spec/a/[]": {"minimum": 1, "maximum": 9}, "spec/m/{}": {"maxLength": 3, "pattern": "^x"}}
