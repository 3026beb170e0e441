"""What the API server refuses of a built-in object's own fields (manifests/builtinspec.py):
bench/builtin_refusals_sweep.py's cases, each refused (KAD157) in the words kubevalidate
(tools/kube-apiserver/cmd/kubevalidate, Kubernetes v1.35.3's create validation) gave for it on 2026-12-06, at the
field's line and column; the object refused alone, the rest decided. tests/oracle/test_builtin_refusals.py runs
kubevalidate itself (with the oracle)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws

QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: 10}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: batch/v1
kind: Job
metadata: {name: fine, namespace: default, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
---
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  {spec}
  containers: {containers}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  {spec}
  template:
    spec:
      restartPolicy: {restart}
      containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""
APPS = """apiVersion: apps/v1
kind: {kind}
metadata: {{name: a, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  {selector}
  template:
    metadata: {{labels: {{a: c}}}}
    spec:
      containers: [{{name: c, image: busybox}}]
"""
C = '[{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]'
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
# name: (manifest, the API server's words, the refused field's text on its line)
CASES = {
    "job-restart-always": (JOB.format(spec="parallelism: 1", restart="Always"),
                           'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
                           "restartPolicy: Always"),
    "job-negative-backoff": (JOB.format(spec="backoffLimit: -1", restart="Never"),
                             "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
                             "backoffLimit"),
    "job-ttl-negative": (JOB.format(spec="ttlSecondsAfterFinished: -1", restart="Never"),
                         "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0",
                         "ttlSecondsAfterFinished"),
    "job-bad-completion-mode": (JOB.format(spec="completionMode: Sometimes", restart="Never"),
                                'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", '
                                '"Indexed"', "completionMode"),
    "job-max-failed-indexes-without-backoff": (
        JOB.format(spec="completionMode: Indexed\n  completions: 2\n  maxFailedIndexes: 1", restart="Never"),
        "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified", "maxFailedIndexes"),
    "job-success-policy-nonindexed": (JOB.format(spec="successPolicy: {rules: [{succeededCount: 1}]}",
                                                 restart="Never"),
                                      'spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,'
                                      '"SucceededCount":1}]}: requires indexed completion mode', "successPolicy"),
    "job-on-failure-with-pod-failure-policy": (
        JOB.format(spec="podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [1]}}]}",
                   restart="OnFailure"),
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified", "restartPolicy: OnFailure"),
    "job-pod-failure-policy-bad": (
        JOB.format(spec="podFailurePolicy: {rules: [{action: Explode, onExitCodes: {operator: In, values: [1]}}]}",
                   restart="Never"),
        'spec.podFailurePolicy.rules[0].action: Unsupported value: "Explode": supported values: "Count", '
        '"FailIndex", "FailJob", "Ignore"', "podFailurePolicy"),
    "deploy-selector-mismatch": (APPS.format(kind="Deployment", selector="selector: {matchLabels: {a: b}}"),
                                 'spec.template.metadata.labels: Invalid value: {"a":"c"}: `selector` does not match '
                                 "template `labels`", "labels: {a: c}"),
    "sts-no-selector": (APPS.format(kind="StatefulSet", selector="replicas: 1"), "spec.selector: Required value",
                        "replicas: 1"),
    "pod-dup-container-names": (POD.format(spec="restartPolicy: Never",
                                           containers="[{name: c, image: x}, {name: c, image: x}]"),
                                'spec.containers[1].name: Duplicate value: "c"', "containers"),
    "pod-init-container-named-as-a-container": (
        POD.format(spec="initContainers: [{name: c, image: x}]", containers="[{name: c, image: x}]"),
        'spec.initContainers[0].name: Duplicate value: "c"', "initContainers"),
    "pod-bad-container-name": (POD.format(spec="restartPolicy: Never", containers="[{name: C_1, image: x}]"),
                               f'spec.containers[0].name: Invalid value: "C_1": {LABEL}', "containers"),
    "pod-bad-restart-policy": (POD.format(spec="restartPolicy: Sometimes", containers=C),
                               'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
                               '"OnFailure", "Never"', "restartPolicy: Sometimes"),
    "pod-spread-bad-skew": (POD.format(spec="topologySpreadConstraints: [{maxSkew: 0, topologyKey: k, "
                                            "whenUnsatisfiable: DoNotSchedule}]", containers=C),
                            "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
                            "topologySpreadConstraints"),
    "pod-bad-port": (POD.format(spec="restartPolicy: Never",
                                containers="[{name: c, image: x, ports: [{containerPort: 70000}]}]"),
                     "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, "
                     "inclusive", "containers"),
    "pod-container-without-image": (POD.format(spec="restartPolicy: Never", containers="[{name: c}]"),
                                    "spec.containers[0].image: Required value", "containers: [{name: c}]"),
    "pod-without-containers": (POD.format(spec="restartPolicy: Never", containers="[]"),
                               "spec.containers: Required value", "containers: []"),
    "job-restart-policy-unset": (  # defaulted to Always (SetDefaults_PodSpec): at the template's spec
        JOB.format(spec="parallelism: 1", restart="Never").replace("      restartPolicy: Never\n", ""),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"', "containers"),
    "pod-port-name": (POD.format(spec="restartPolicy: Never",
                                 containers="[{name: c, image: x, ports: [{name: Web_1, containerPort: 80}]}]"),
                      'spec.containers[0].ports[0].name: Invalid value: "Web_1": must contain only alpha-numeric '
                      "characters (a-z, 0-9), and hyphens (-)", "Web_1"),
    "pod-port-unset": (POD.format(spec="restartPolicy: Never",
                                  containers="[{name: c, image: x, ports: [{name: web}]}]"),
                       "spec.containers[0].ports[0].containerPort: Required value", "ports: [{name: web}]"),
    "pod-bad-runtime-class": (POD.format(spec="runtimeClassName: Bad_Name", containers=C),
                              'spec.runtimeClassName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must '
                              "consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
                              "an alphanumeric character (e.g. 'example.com', regex used for validation is "
                              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                              "runtimeClassName"),
    "pod-bad-scheduler-gate": (POD.format(spec="schedulingGates: [{name: a b}]", containers=C),
                               'spec.schedulingGates[0]: Invalid value: "a b": name part must consist of alphanumeric '
                               "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
                               "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                               "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')", "schedulingGates"),
    "priorityclass-bad-policy": ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: pc}\n"
                                 "value: 10\npreemptionPolicy: Sometimes\n",
                                 'preemptionPolicy: Unsupported value: "Sometimes": supported values: '
                                 '"PreemptLowerPriority", "Never"', "preemptionPolicy"),
    "pod-unqualified-resource-name": (
        POD.format(spec="restartPolicy: Never", containers='[{name: c, image: x, resources: {requests: {foo: "1"}}}]'),
        'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully '
        "qualified", "containers"),
    "job-quota-resource-name": (
        JOB.format(spec="parallelism: 1", restart="Never").replace('requests: {cpu: "1"}', 'limits: {pods: "1"}'),
        'spec.template.spec.containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource '
        "for containers", "containers"),
    "priorityclass-system-prefix": ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-mine}\n"
                                    "value: 10\n", "metadata.name: Forbidden: priority class names with 'system-' prefix "
                                    "are reserved for system use only. error: system-mine is not a known system priority "
                                    "class", "system-mine"),
    "priorityclass-system-value": ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: "
                                   "system-node-critical\nvalue: 10\n", "metadata.name: Forbidden: priority class names "
                                   "with 'system-' prefix are reserved for system use only. error: value of "
                                   "system-node-critical PriorityClass must be 2000001000", "name: system-node-critical"),
    "priorityclass-system-global-default": (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-cluster-critical}\n"
        "value: 2000000000\nglobalDefault: true\n", "metadata.name: Forbidden: priority class names with 'system-' "
        "prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must "
        "be false", "system-cluster-critical"),
    "limitrange-default-from-max-under-min": (  # the default taken from max (SetDefaults_LimitRangeItem): at max
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: default}\nspec:\n  limits:\n"
        "  - type: Container\n    min: {cpu: \"2\"}\n    max: {cpu: \"1\"}\n",
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1', 'max: {cpu: "1"}'),
    "limitrange-default-over-max": (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: default}\nspec:\n  limits:\n"
        "  - type: Container\n    max: {memory: 1024Mi}\n    default: {memory: 1500Mi}\n",
        'spec.limits[0].default[memory]: Invalid value: "1Gi": default value 1500Mi is greater than max value 1Gi',
        "default: {memory: 1500Mi}"),
    "runtimeclass-bad-handler": ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\n"
                                 "handler: Bad_Handler\n", f'handler: Invalid value: "Bad_Handler": {LABEL}',
                                 "handler"),
    "runtimeclass-no-handler": ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\n"
                                "overhead: {podFixed: {cpu: '2'}}\n", f'handler: Invalid value: "": {LABEL}',
                                "apiVersion: node.k8s.io/v1"),  # (fuzz14: none is "", refused at the object)
}


@pytest.mark.parametrize("name", CASES)
def test_refused_in_the_api_servers_words_at_the_field(name: str, tmp_path: Path) -> None:
    manifest, words, at = CASES[name]
    path = tmp_path / "s.yaml"
    path.write_text(QUEUE + manifest, encoding="utf-8")
    got = ws.load([str(path)])
    errors = [d for d in got.diagnostics if d.severity.name == "ERROR"]
    said = [d for d in errors if d.code == "KAD157" and d.message == f"the API server refuses the object: `{words}`"]
    assert said, [(d.code, d.message) for d in errors]
    line = path.read_text(encoding="utf-8").splitlines()[said[0].span.line - 1]
    assert at in line, (said[0].span, line)
    assert [j.object.name for j in got.model.jobs] == ["fine"]  # the refused object left out, the rest read


def test_a_selector_matching_the_template_and_valid_fields_are_not_refused(tmp_path: Path) -> None:
    """The same objects written as the API server takes them: no error."""
    path = tmp_path / "s.yaml"
    path.write_text(QUEUE + APPS.format(kind="Deployment", selector="selector: {matchExpressions: "
                                        "[{key: a, operator: In, values: [c]}]}")
                    + "---\n" + APPS.format(kind="StatefulSet", selector="selector: {matchLabels: {a: c}}")
                    .replace("name: a,", "name: s,")
                    + "---\n" + JOB.format(spec="completionMode: Indexed\n  completions: 2", restart="OnFailure")
                    + "---\n" + POD.format(spec="restartPolicy: Always", containers="[{name: c, image: x, ports: "
                                           "[{containerPort: 8080}]}, {name: d, image: x}]"), encoding="utf-8")
    got = ws.load([str(path)])
    assert [(d.code, d.message) for d in got.diagnostics if d.severity.name == "ERROR"] == []


# kubevalidate's words (2026-12-06) for LimitRange items, each refusal of its list; a Go set's order among resources
LIMIT_RANGES = {
    '{type: Container, min: {cpu: "2"}, max: {cpu: "1"}}': {
        'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1'},
    '{type: Container, min: {memory: 2Gi, cpu: 500m}, max: {memory: 1024Mi, cpu: "1"}, default: {cpu: 1500m}}': {
        'spec.limits[0].min[memory]: Invalid value: "2Gi": min value 2Gi is greater than max value 1Gi',
        'spec.limits[0].defaultRequest[memory]: Invalid value: "1Gi": min value 2Gi is greater than default request '
        'value 1Gi',
        'spec.limits[0].default[memory]: Invalid value: "2Gi": min value 2Gi is greater than default value 1Gi',
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1500m": default request value 1500m is greater than max '
        'value 1',
        'spec.limits[0].default[cpu]: Invalid value: "1": default value 1500m is greater than max value 1'},
    '{type: Container, defaultRequest: {memory: 1G}, default: {memory: 500M}}': {
        'spec.limits[0].defaultRequest[memory]: Invalid value: "1G": default request value 1G is greater than default '
        'limit value 500M'},
    '{type: Pod, min: {cpu: "2"}, max: {cpu: 1000m}}': {
        'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1'},
    '{type: Container, min: {cpu: "1"}, max: {cpu: "2"}, default: {cpu: 1500m}, defaultRequest: {cpu: 1200m}}': set(),
    '{type: Container, min: {cpu: abc}, max: {cpu: "1"}}': set(),  # the quantity's own error (KAD158) alone
}


@pytest.mark.parametrize("item", LIMIT_RANGES)
def test_a_limit_range_is_refused_in_every_word_of_validate_limit_range(item: str, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"apiVersion: v1\nkind: LimitRange\nmetadata: {{name: lr, namespace: default}}\nspec:\n"
                    f"  limits:\n  - {item}\n", encoding="utf-8")
    said = [d.message for d in ws.load([str(path)]).diagnostics if d.code == "KAD157"]
    assert set(said) == {f"the API server refuses the object: `{w}`" for w in LIMIT_RANGES[item]}
    assert len(said) == len(LIMIT_RANGES[item])


def test_a_pod_kueue_does_not_manage_is_refused_alone_and_holds_no_node(tmp_path: Path) -> None:
    """The API server validates every Pod, whoever owns it: one only node usage (no queue name, on its node) that it
    refuses is never created, so it holds nothing on its node (the oracle's kubevalidate skips it)."""
    path = tmp_path / "s.yaml"
    running = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, uid: {uid}}}\nspec:\n"
               "  nodeName: n1\n  containers: [{{name: c, {image}resources: {{requests: {{cpu: '1'}}}}}}]\n"
               "status: {{phase: Running}}\n")
    path.write_text(QUEUE + running.format(name="refused", uid="9c1e0000-0000-4000-8000-000000000001", image="")
                    + "---\n" + running.format(name="kept", uid="9c1e0000-0000-4000-8000-000000000002",
                                               image="image: busybox, "), encoding="utf-8")
    got = ws.load([str(path)])
    said = [(d.code, d.message) for d in got.diagnostics if d.severity.name == "ERROR"]
    assert said == [("KAD157", "the API server refuses the object: `spec.containers[0].image: Required value`")]
    assert [p.name for p in got.model.pods] == ["kept"]
    assert [(b.kind, b.name) for b in got.model.broken] == [("Pod", "refused")]  # refused alone (scope)
