"""The built-in kinds as Kubernetes' own code checks them on create: kubevalidate (tools/kube-apiserver/cmd/kubevalidate,
Kubernetes v1.35.3's decoding, defaulting and create strategies), which the oracle runs over its input's Pods, Jobs,
Deployments, StatefulSets, Nodes, Namespaces, LimitRanges, PriorityClasses and RuntimeClasses, skipping what it
refuses. What it refuses kadmit refuses in the same words (KAD157): tests/kube's cases, which a real API server
checks there (test_pod_level_resources.REFUSED), and the containers' requests against their limits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from kadmit import workspace as ws
from kube.test_pod_level_resources import QUEUE, REFUSED, job, pod

# validateResourceRequirements on a container's own requests and limits (init containers too)
CONTAINERS = {
    "container-request-above-limit": (
        pod("container-request-above-limit", "{}",
            '[{name: c, image: busybox, resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}}]'),
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    "container-gpu-without-limit": (
        job("container-gpu-without-limit", "{}",
            '[{name: c, image: busybox, resources: {requests: {cpu: "1", example.com/gpu: "2"}}}]'),
        "spec.template.spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable "
        "resources"),
    "container-gpu-request-not-limit": (
        pod("container-gpu-request-not-limit", "{}",
            '[{name: c, image: busybox, resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "2"}}}]'),
        'spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'),
    "init-container-memory-above-limit": (
        job("init-container-memory-above-limit", "{}",
            "[{name: c, image: busybox}]\n      initContainers: [{name: i, image: busybox, resources: "
            "{requests: {memory: 2Gi}, limits: {memory: 1536Mi}}}]"),
        'spec.template.spec.initContainers[0].resources.requests: Invalid value: "2Gi": must be less than or equal '
        "to memory limit of 1536Mi"),
}
# ValidateLimitRange after SetDefaults_LimitRangeItem (a Container item's default from max, its default request from
# it), ValidatePriorityClass's reserved `system-` names: objects the oracle skips (kubevalidate refuses them)
POLICIES = {
    "limit-range-min-over-max": (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: team}\nspec:\n  limits:\n"
        '  - {type: Container, min: {cpu: "2", memory: 2Gi}, max: {cpu: "1", memory: 1024Mi}}\n',
        tuple(f'spec.limits[0].{w}' for w in (
            'min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
            'defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
            'default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
            'min[memory]: Invalid value: "2Gi": min value 2Gi is greater than max value 1Gi',
            'defaultRequest[memory]: Invalid value: "1Gi": min value 2Gi is greater than default request value 1Gi',
            'default[memory]: Invalid value: "2Gi": min value 2Gi is greater than default value 1Gi'))),
    "limit-range-default-over-max": (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: team}\nspec:\n  limits:\n"
        '  - {type: Container, max: {cpu: "1"}, default: {cpu: 1500m}, defaultRequest: {cpu: 1200m}}\n',
        ('spec.limits[0].defaultRequest[cpu]: Invalid value: "1200m": default request value 1200m is greater than '
         "max value 1",
         'spec.limits[0].default[cpu]: Invalid value: "1": default value 1500m is greater than max value 1')),
    "priority-class-system-name": (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-mine}\nvalue: 10\n",
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-mine is not a known system priority class"),
    "priority-class-system-value": (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-node-critical}\n"
        "value: 1000\n",
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-node-critical PriorityClass must be 2000001000"),
    # the rest of ValidateLimitRange: a ratio below 1 or above max/min, a Pod item's default, a PVC item without a
    # storage bound, a Container item's resource name, a non-overcommitable resource's default and request apart
    "limit-range-ratios": (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: team}\nspec:\n  limits:\n"
        '  - {type: Container, min: {cpu: "1"}, max: {cpu: "2"}, maxLimitRequestRatio: {cpu: "3", memory: 500m}}\n',
        ('spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000',
         'spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1')),
    "limit-range-types": (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: team}\nspec:\n  limits:\n"
        '  - {type: Pod, max: {cpu: "4"}, default: {cpu: "2"}}\n'
        '  - {type: PersistentVolumeClaim, max: {cpu: "2"}}\n'
        '  - {type: Container, max: {foo: "2"}, default: {example.com/gpu: "2"}, defaultRequest: {example.com/gpu: "1"}}\n',
        ("spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
         "spec.limits[1].limits: Required value: either minimum or maximum storage value is required, but neither was "
         "provided",
         *(f'spec.limits[2].{key}[foo]: Invalid value: "foo": must be a standard resource {w}'
           for key in ("max", "default", "defaultRequest") for w in ("type or fully qualified", "for containers")),
         'spec.limits[2].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to '
         "defaultRequest value 1 in example.com/gpu")),
    # validateContainerResourceName: a name without a domain, not a standard one (both words) or a quota's (one)
    "container-resource-names": (
        pod("container-resource-names", "{}",
            '[{name: c, image: busybox, resources: {requests: {cpu: "1", foo: "1"}, limits: {pods: "1"}}}]'),
        ('spec.containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers',
         'spec.containers[0].resources.requests[pods]: Invalid value: "pods": must be a standard resource for '
         "containers",  # the Pod's request defaulted to its limit
         'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully '
         "qualified",
         'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for '
         "containers")),
}


def selector_job(name: str, spec: str, labels: str = "") -> str:
    """A Job with a selector `spec` (and its template's labels), for JOB_SELECTORS."""
    meta = f"\n    metadata: {{labels: {labels}}}" if labels else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  {spec}\n"
            f"  template:{meta}\n    spec:\n      restartPolicy: Never\n      containers: [{{name: c, image: busybox}}]\n")


UID = "00000000-0000-0000-0000-000000000000"  # kubevalidate's, for an object given none
# A Job's selector as its strategy generates it (unless manualSelector) and validates it
JOB_SELECTORS = {
    "job-selector-not-generated": (
        selector_job("sel", "selector: {matchLabels: {a: b}}"),
        (f'spec.selector: Invalid value: {{"matchLabels":{{"a":"b","batch.kubernetes.io/controller-uid":"{UID}"}}}}: '
         "`selector` not auto-generated",
         f'spec.template.metadata.labels: Invalid value: {{"batch.kubernetes.io/controller-uid":"{UID}",'
         f'"batch.kubernetes.io/job-name":"sel","controller-uid":"{UID}","job-name":"sel"}}: `selector` does not '
         "match template `labels`")),
    "job-selector-expression": (
        selector_job("expr", "selector: {matchExpressions: [{key: a, operator: Exists}]}", "{a: x}"),
        f'spec.selector: Invalid value: {{"matchLabels":{{"batch.kubernetes.io/controller-uid":"{UID}"}},'
        '"matchExpressions":[{"key":"a","operator":"Exists"}]}: `selector` not auto-generated'),
    "job-template-job-name": (
        selector_job("named", "parallelism: 1", "{job-name: other}"),
        f'spec.template.metadata.labels[job-name]: Invalid value: {{"batch.kubernetes.io/controller-uid":"{UID}",'
        f'"batch.kubernetes.io/job-name":"named","controller-uid":"{UID}","job-name":"other"}}: must be \'named\''),
    "job-manual-selector-none": (
        selector_job("manual", "manualSelector: true"),
        ("spec.selector: Required value",
         "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`")),
    "job-manual-selector-mismatch": (
        selector_job("mismatch", "manualSelector: true\n  selector: {matchLabels: {a: b}}", "{a: c, z: w}"),
        'spec.template.metadata.labels: Invalid value: {"a":"c","z":"w"}: `selector` does not match template `labels`'),
}
# validateContainerResourceName on a name with a domain: IsQualifiedName's words (a prefix no DNS subdomain, a name
# part no qualified name), and "doesn't follow extended resource name standard"; a Pod's limits copied to its requests
DOMAINS = {
    "container-resource-names-with-a-domain": (
        pod("container-resource-names-with-a-domain", "{}",
            '[{name: c, image: busybox, resources: {limits: {Example.com/foo: "1", example.com/foo_: "1", '
            'example.com/requests.foo: "1", kubernetes.io/foo: "1"}}}]'),
        tuple(f'spec.containers[0].resources.{key}[{name}]: Invalid value: "{name}": {words}'
              for key in ("limits", "requests")
              for name, part in (("Example.com/foo", "prefix part a lowercase RFC 1123 subdomain must consist of lower "
                                  "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                                  "character (e.g. 'example.com', regex used for validation is "
                                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
                                 ("example.com/foo_", "name part must consist of alphanumeric characters, '-', '_' or "
                                  "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                                  "'my.name',  or '123-abc', regex used for validation is "
                                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"))
              for words in (part, "doesn't follow extended resource name standard"))),
}
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
# ValidatePodSpec's service account name (IsDNS1123Subdomain; the deprecated `serviceAccount` stands for an unset
# one), validateContainerPorts' protocol (a written one: unset is TCP), ValidateNode's status quantities
# (ValidateResourceQuantityValue: an integer resource's whole, capacity's and allocatable's)
SPEC_FIELDS = {
    "service-account-placeholder": (
        job("service-account-placeholder", "{}", "[{name: c, image: busybox}]\n      serviceAccountName: $K8S_SA_NAME"),
        f'spec.template.spec.serviceAccountName: Invalid value: "$K8S_SA_NAME": {SUBDOMAIN}'),
    "service-account-deprecated-and-long": (
        pod("service-account-deprecated-and-long", "{}", f"[{{name: c, image: busybox}}]\n  serviceAccount: {'A' * 254}"),
        tuple(f'spec.serviceAccountName: Invalid value: "{"A" * 254}": {w}'
              for w in ("must be no more than 253 characters", SUBDOMAIN))),
    "port-protocols": (
        pod("port-protocols", "{}", "[{name: c, image: busybox, ports: [{containerPort: 80, protocol: tcp}, "
            "{containerPort: 81, protocol: UDP}, {containerPort: 82, protocol: ''}]}]\n"
            "  initContainers: [{name: i, image: busybox, ports: [{containerPort: 83, protocol: HTTP}]}]"),
        tuple(f'spec.{c}.ports[0].protocol: Unsupported value: "{v}": supported values: "SCTP", "TCP", "UDP"'
              for c, v in (("containers[0]", "tcp"), ("initContainers[0]", "HTTP")))),
    "node-status-fractions": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {cpu: 500m, pods: 500m}\n"
        '  allocatable: {cpu: 500m, example.com/gpu: "1.5", memory: 1.5Gi, pods: "110"}\n',
        ('status.capacity.pods: Invalid value: "500m": must be an integer',
         'status.allocatable.example.com/gpu: Invalid value: "1500m": must be an integer')),
    "node-allocatable-defaulted-from-capacity": (  # SetDefaults_NodeStatus: the words twice
        "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus:\n  capacity: {cpu: 500m, pods: 500m}\n",
        tuple(f'status.{key}.pods: Invalid value: "500m": must be an integer' for key in ("capacity", "allocatable"))),
}
# ValidatePodSpec's required fields: the containers (none, null or []), each container's image (a Pod's without
# leading or trailing whitespace: validateContainerOnlyForPod, not a template's); a Job template's restartPolicy,
# unset (SetDefaults_PodSpec: Always) or outside OnFailure and Never (validateJobPodTemplateSpec, after
# ValidatePodSpec's own words); validateContainerPorts' names (IsValidPortName; each once in a container), a
# containerPort 0 or unset, a hostPort written outside 1-65535
REQUIRED = {
    "pod-without-containers": (pod("pod-without-containers", "{}", "[]"), "spec.containers: Required value"),
    "job-without-containers": (job("job-without-containers", "{}", "null"),
                               "spec.template.spec.containers: Required value"),
    "images-required": (
        job("images-required", "{}", '[{name: c}, {name: d, image: ""}, {name: e, image: " x "}]\n'
            "      initContainers: [{name: i, image: null}]"),
        tuple(f"spec.template.spec.{c}.image: Required value"
              for c in ("containers[0]", "containers[1]", "initContainers[0]"))),
    "container-names-required": (  # Required, and "" once among containers (an init container's not kept)
        pod("container-names-required", "{}", '[{image: x}, {name: "", image: x}, {name: C_1, image: x}, '
            "{name: C_1, image: x}]\n  initContainers: [{image: y}, {name: i, image: y}, {name: i, image: y}]"),
        ("spec.containers[0].name: Required value", "spec.containers[1].name: Required value",
         'spec.containers[1].name: Duplicate value: ""', f'spec.containers[2].name: Invalid value: "C_1": {LABEL}',
         f'spec.containers[3].name: Invalid value: "C_1": {LABEL}', 'spec.containers[3].name: Duplicate value: "C_1"',
         "spec.initContainers[0].name: Required value", 'spec.initContainers[0].name: Duplicate value: ""',
         'spec.initContainers[2].name: Duplicate value: "i"')),
    # no pod spec at all (absent, or null): validateContainers' words, then a Job's restartPolicy (unset: Always)
    "pod-without-spec": ("apiVersion: v1\nkind: Pod\nmetadata: {name: pod-without-spec, namespace: team}\n",
                         "spec.containers: Required value"),
    "job-template-without-spec": (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: job-template-without-spec, namespace: team}\n"
        "spec:\n  template:\n    spec: null\n",
        ("spec.template.spec.containers: Required value",
         'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"')),
    "job-without-template": (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: job-without-template, namespace: team}\nspec: {}\n",
        ("spec.template.spec.containers: Required value",
         'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"')),
    "job-without-spec": (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: job-without-spec, namespace: team}\n",
        ("spec.template.spec.containers: Required value",
         'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"')),
    "deployment-template-without-spec": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: deployment-template-without-spec, namespace: team}\n"
        "spec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n",
        "spec.template.spec.containers: Required value"),
    "pod-image-spaces": (
        pod("pod-image-spaces", "{}", '[{name: c, image: "busybox "}]\n  initContainers: [{name: i, image: " x"}]'),
        ('spec.containers[0].image: Invalid value: "busybox ": must not have leading or trailing whitespace',
         'spec.initContainers[0].image: Invalid value: " x": must not have leading or trailing whitespace')),
    "job-restart-policy-unset": (
        job("job-restart-policy-unset", "{}", "[{name: c, image: busybox}]").replace("      restartPolicy: Never\n", ""),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    "job-restart-policy-unknown": (
        job("job-restart-policy-unknown", "{}", "[{name: c, image: busybox}]").replace("Never", "Sometimes"),
        tuple(f'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: {v}'
              for v in ('"Always", "OnFailure", "Never"', '"OnFailure", "Never"'))),
    "port-names": (
        pod("port-names", "{}", "[{name: c, image: busybox, ports: [{name: Http_1, containerPort: 80}, "
            "{name: a-very-long-port, containerPort: 81}, {name: '123', containerPort: 82}, {name: '-a--', "
            "containerPort: 83}, {name: web, containerPort: 84}, {name: web, containerPort: 85}]}, "
            "{name: d, image: busybox, ports: [{name: web, containerPort: 86}]}]"),
        tuple(f'spec.containers[0].ports[{i}].name: Invalid value: "{n}": must {w}' for i, n, w in (
            (0, "Http_1", "contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
            (1, "a-very-long-port", "be no more than 15 characters"),
            (2, "123", "contain at least one letter (a-z)"),
            (3, "-a--", "not contain consecutive hyphens"), (3, "-a--", "not begin or end with a hyphen")))
        + ('spec.containers[0].ports[5].name: Duplicate value: "web"',)),
    "port-numbers": (
        job("port-numbers", "{}", "[{name: c, image: busybox, ports: [{name: a}, {containerPort: 0}, "
            "{containerPort: 80, hostPort: 0}, {containerPort: 81, hostPort: 65536}, {containerPort: -1, "
            "hostPort: -2}]}]"),
        ("spec.template.spec.containers[0].ports[0].containerPort: Required value",
         "spec.template.spec.containers[0].ports[1].containerPort: Required value",
         "spec.template.spec.containers[0].ports[3].hostPort: Invalid value: 65536: must be between 1 and 65535, "
         "inclusive",
         "spec.template.spec.containers[0].ports[4].containerPort: Invalid value: -1: must be between 1 and 65535, "
         "inclusive",
         "spec.template.spec.containers[0].ports[4].hostPort: Invalid value: -2: must be between 1 and 65535, "
         "inclusive")),
}
CASES = {**REFUSED, **CONTAINERS, **POLICIES, **JOB_SELECTORS, **DOMAINS, **SPEC_FIELDS, **REQUIRED}
MARKERS = (": Invalid value", ": Required value", ": Forbidden", ": Unsupported value", ": Duplicate value")


def kubevalidate(oracle: str, objects: list[dict]) -> list[dict]:
    """kubevalidate's answers on `objects`, one run: it is linked beside the oracle's binary (its build wrapper)."""
    run = subprocess.run([str(Path(oracle).parent / "kubevalidate")], input="".join(json.dumps(o) + "\n" for o in objects),
                         capture_output=True, text=True, check=True)
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_what_kubernetes_refuses_kadmit_refuses_in_its_words(kueue_oracle: str, tmp_path: Path) -> None:
    answers = kubevalidate(kueue_oracle, [yaml.safe_load(manifest) for manifest, _ in CASES.values()])
    assert len(answers) == len(CASES)
    for (name, (manifest, want)), answer in zip(CASES.items(), answers):
        want = (want,) if isinstance(want, str) else want
        refused = answer.get("refused", "")
        assert all(w in refused for w in want) and sum(refused.count(m) for m in MARKERS) == len(want), (name, answer)
        path = tmp_path / name / "state.yaml"
        path.parent.mkdir()
        path.write_text(QUEUE + "---\n" + manifest, encoding="utf-8")
        got = [d.message for d in ws.load([str(path.parent)]).diagnostics if d.code == "KAD157"]
        assert sorted(e.removeprefix("the API server refuses the object: `")[:-1] for e in got) == sorted(want), \
            (name, got)


def test_the_oracle_skips_what_the_api_server_refuses_with_its_words(kueue_oracle: str) -> None:
    """One oracle run: the refused objects are skipped with the server's message, never created."""
    from oracle.harness import run_oracle

    out = run_oracle(kueue_oracle, ["tests/oracle/features/builtin-kinds-refused-by-the-api-server.yaml"])
    skipped = {(s["kind"], s["name"]): s["reason"] for s in out["skipped"]}
    assert skipped[("Job", "over-limit")] == (
        'Job.batch "over-limit" is invalid: spec.template.spec.containers[0].resources.requests: Invalid value: "4": '
        "must be less than or equal to cpu limit of 2")
    assert skipped[("Pod", "gpu")] == ('Pod "gpu" is invalid: spec.containers[0].resources.limits: Required value: '
                                       "Limit must be set for non overcommitable resources")
    assert [(d["workload"], d["admitted"]) for d in out["decisions"]] == [("team/after", True)]
