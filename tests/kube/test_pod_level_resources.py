"""Pod-level resources (a pod spec's own `resources`) as the real API server treats them: what it
refuses in a Pod or a built-in job kind's template kadmit refuses with the same message (KAD157),
and a Pod's pod-level requests it defaults from pod-level limits kadmit counts the same."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kadmit import workspace as ws
from kadmit.quantity import parse_quantity
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow

QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, example.com/gpu]
    flavors:
    - name: f0
      resources: [{name: cpu, nominalQuota: 10}, {name: memory, nominalQuota: 10Gi},
                  {name: example.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""


def pod(name: str, resources: str, containers: str) -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  resources: {resources}
  containers: {containers}
"""


def job(name: str, resources: str, containers: str) -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  template:
    spec:
      restartPolicy: Never
      resources: {resources}
      containers: {containers}
"""


GPU = '[{name: c, image: busybox, resources: {requests: {cpu: "1", example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}}]'
TWO_CPU = '[{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]'
HUGE = ('[{name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi, hugepages-2Mi: 4Mi}, '
        "limits: {memory: 1Gi, hugepages-2Mi: 4Mi}}}]")

# name -> (the object, the API server's error kadmit quotes)
REFUSED = {
    "pod-gpu": (pod("pod-gpu", '{requests: {example.com/gpu: "4"}}', GPU),
                ('spec.resources.requests[example.com/gpu]: Unsupported value: "example.com/gpu": supported values: '
                 '"cpu", "hugepages-", "memory"',
                 "spec.resources.limits: Required value: Limit must be set for non overcommitable resources")),
    "job-gpu": (job("job-gpu", '{limits: {example.com/gpu: "4"}}', GPU),
                'spec.template.spec.resources.limits[example.com/gpu]: Unsupported value: "example.com/gpu": '
                'supported values: "cpu", "hugepages-", "memory"'),
    "pod-below": (pod("pod-below", '{requests: {cpu: "1"}}', TWO_CPU),
                  'spec.resources.requests[cpu]: Invalid value: "1": must be greater than or equal to aggregate '
                  "container requests of 2"),
    "container-above-pod-limit": (
        pod("container-above-pod-limit", '{limits: {cpu: "2"}}',
            '[{name: c, image: busybox, resources: {requests: {cpu: "1"}, limits: {cpu: "3"}}}]'),
        'spec.resources.containers[0][cpu].limits: Invalid value: "3": must be less than or equal to pod limits of 2'),
    "job-above-limit": (job("job-above-limit", '{requests: {cpu: "3"}, limits: {cpu: "2"}}', TWO_CPU),
                        'spec.template.spec.resources.requests: Invalid value: "3": must be less than or equal to '
                        "cpu limit of 2"),
    # hugepages at pod level: not overcommitable (request equal to limit, a limit required), with cpu or
    # memory beside them, a limit covering the containers' aggregate limits, whole pages (a Pod's request
    # defaulted from its limit is validated too, and reported at that limit)
    "hugepages-below-containers": (
        pod("hugepages-below-containers", '{limits: {hugepages-2Mi: 2Mi}}', HUGE),
        ('spec.resources.requests[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate '
         "container requests of 4Mi",
         'spec.resources.limits[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate '
         "container limits of 4Mi",
         'spec.resources.containers[0][hugepages-2Mi].limits: Invalid value: "4Mi": must be less than or equal to '
         "pod limits of 2Mi")),
    "hugepages-request-not-limit": (
        job("hugepages-request-not-limit", '{requests: {hugepages-2Mi: 4Mi}, limits: {hugepages-2Mi: 8Mi}}', HUGE),
        ('spec.template.spec.resources.requests: Invalid value: "4Mi": must be equal to hugepages-2Mi limit of 8Mi',
         "spec.template.spec.resources: Forbidden: HugePages require cpu or memory")),  # a template: no defaulting
    "hugepages-without-limit": (
        pod("hugepages-without-limit", '{requests: {hugepages-2Mi: 4Mi}}', HUGE),
        ("spec.resources.limits: Required value: Limit must be set for non overcommitable resources",
         "spec.resources: Forbidden: HugePages require cpu or memory")),
    "hugepages-part-pages": (
        pod("hugepages-part-pages", '{limits: {hugepages-2Mi: 3Mi, memory: 2Gi}}', "[{name: c, image: busybox}]"),
        ('spec.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of '
         "hugepages-2Mi",
         'spec.resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of '
         "hugepages-2Mi")),
    "hugepages-part-pages-in-a-container": (
        job("hugepages-part-pages-in-a-container", "{}",
            '[{name: c, image: busybox, resources: {requests: {memory: 1Gi, hugepages-2Mi: 3Mi}, '
            "limits: {hugepages-2Mi: 3Mi}}}]"),
        ('spec.template.spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
         "positive integer multiple of hugepages-2Mi",
         'spec.template.spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
         "positive integer multiple of hugepages-2Mi")),
    # quantities printed as the server prints them (Quantity.String): in the format they were written in, a sum
    # in its first addend's (`1G` stays `1G`, `2000M` is `2G`, bytes stay bytes)
    "decimal-memory-below-containers": (
        pod("decimal-memory-below-containers", "{requests: {memory: 1G}}",
            "[{name: c, image: busybox, resources: {requests: {memory: 2000M}}}]"),
        'spec.resources.requests[memory]: Invalid value: "1G": must be greater than or equal to aggregate container '
        "requests of 2G"),
    "decimal-container-above-pod-limit": (
        pod("decimal-container-above-pod-limit", "{limits: {memory: 1G}}",
            "[{name: c, image: busybox, resources: {limits: {memory: 1500M}}}]"),
        ('spec.resources.requests: Invalid value: "1500M": must be less than or equal to memory limit of 1G',
         'spec.resources.containers[0][memory].limits: Invalid value: "1500M": must be less than or equal to pod '
         "limits of 1G")),
    "hugepages-in-bytes-in-a-container": (
        job("hugepages-in-bytes-in-a-container", "{}",
            '[{name: c, image: busybox, resources: {requests: {memory: 1G, hugepages-2Mi: "3145728"}, '
            'limits: {hugepages-2Mi: "3145728"}}}]'),
        ('spec.template.spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3145728": 3145728 is '
         "not positive integer multiple of hugepages-2Mi",
         'spec.template.spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3145728": 3145728 is '
         "not positive integer multiple of hugepages-2Mi")),
    "hugepages-limit-in-bytes": (
        pod("hugepages-limit-in-bytes", "{requests: {memory: 1G, hugepages-2Mi: 4Mi}, "
            "limits: {memory: 1G, hugepages-2Mi: 6291456}}", "[{name: c, image: busybox}]"),
        'spec.resources.requests: Invalid value: "4Mi": must be equal to hugepages-2Mi limit of 6291456'),
    "hugepages-aggregate-in-bytes": (
        pod("hugepages-aggregate-in-bytes", "{limits: {memory: 1G, hugepages-2Mi: 2Mi}}",
            '[{name: c, image: busybox, resources: {requests: {memory: 500M, hugepages-2Mi: "4194304"}, '
            'limits: {hugepages-2Mi: "4194304"}}}]'),
        ('spec.resources.requests[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate '
         "container requests of 4194304",
         'spec.resources.limits[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate '
         "container limits of 4194304",
         'spec.resources.containers[0][hugepages-2Mi].limits: Invalid value: "4194304": must be less than or equal '
         "to pod limits of 2Mi")),
    # an extended resource's quantity that is not whole, in a container (ValidateResourceQuantityValue), limits first;
    # a Workload's or a custom resource's template is stored so (Kueue decides it: KAD256, a warning)
    "job-gpu-fraction": (
        job("job-gpu-fraction", "{}",
            '[{name: c, image: busybox, resources: {requests: {example.com/gpu: 500m}, limits: {example.com/gpu: 500m}}}]'),
        ('spec.template.spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
         'spec.template.spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an '
         "integer")),
    "pod-gpu-fraction-in-an-init-container": (
        pod("pod-gpu-fraction-in-an-init-container", "{}",
            '[{name: c, image: busybox}]\n  initContainers: [{name: i, image: busybox, resources: {requests: '
            '{example.com/gpu: "1.5"}, limits: {example.com/gpu: "1.5"}}}]'),
        ('spec.initContainers[0].resources.limits[example.com/gpu]: Invalid value: "1500m": must be an integer',
         'spec.initContainers[0].resources.requests[example.com/gpu]: Invalid value: "1500m": must be an integer')),
}


def read(tmp_path: Path, name: str, text: str) -> ws.Workspace:
    path = tmp_path / name / "state.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return ws.load([str(path.parent)])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_api_server_refuses_kadmit_refuses_in_its_words(name: str, kube_apiserver: KubeAPIServer,
                                                                  tmp_path: Path) -> None:
    manifest, want = REFUSED[name]
    want = (want,) if isinstance(want, str) else want
    created = kube_apiserver.run("create", "-f", "-", input=manifest, check=False)
    assert created.returncode != 0 and all(e in created.stderr for e in want), created.stderr
    assert created.stderr.count(": Invalid value") + created.stderr.count(": Required value") + \
        created.stderr.count(": Forbidden") + created.stderr.count(": Unsupported value") == len(want), created.stderr
    got = read(tmp_path, name, QUEUE + "---\n" + manifest)
    errors = [d.message for d in got.diagnostics if d.code == "KAD157"]
    assert all(e.startswith("the API server refuses the object: `") for e in errors), errors
    assert sorted(e.split("`")[1] for e in errors) == sorted(want), [d.message for d in got.diagnostics]


# A Pod's own limits without requests: the API server defaults its requests (SetDefaults_Pod,
# defaultPodRequests): cpu its containers request to their sum, the rest to the limit.
DEFAULTED = {
    "limits-only": (pod("limits-only", '{limits: {cpu: "3", memory: 2Gi}}', "[{name: c, image: busybox}]"),
                    {"cpu": "3", "memory": "2Gi"}),
    "limits-and-containers": (pod("limits-and-containers", '{limits: {cpu: "3", memory: 2Gi}}', TWO_CPU),
                              {"cpu": "2", "memory": "2Gi"}),
}


@pytest.mark.parametrize("name", sorted(DEFAULTED))
def test_a_pods_own_requests_default_as_the_api_server_defaults_them(name: str, kube_apiserver: KubeAPIServer,
                                                                     tmp_path: Path) -> None:
    manifest, want = DEFAULTED[name]
    kube_apiserver.run("create", "-f", "-", input=manifest)
    stored = kube_apiserver.get("pod", name, "default")
    assert stored["spec"]["resources"]["requests"] == want
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
        stored["metadata"].pop(key, None)
    stored.pop("status", None)
    written, as_stored = read(tmp_path, "written", QUEUE + "---\n" + manifest), \
        read(tmp_path, "stored", QUEUE + "---\n" + yaml.safe_dump(stored))
    for got in (written, as_stored):
        assert not [d for d in got.diagnostics if d.severity.value == "error"], got.diagnostics
    (mine,), (theirs,) = written.model.workloads, as_stored.model.workloads
    assert mine.pod_sets[0].requests == theirs.pod_sets[0].requests
    assert mine.pod_sets[0].requests == {r: parse_quantity(q) for r, q in want.items()}


def refusal(stderr: str) -> str:
    """The API server's words refusing an object, as `field.ErrorList.ToAggregate().Error()` gives them (kubectl
    prints several as a list of `* ` lines)."""
    said = stderr.strip().split(" is invalid: ", 1)[1]
    items = [line[2:] for line in said.splitlines() if line.startswith("* ")]
    return said if not items else items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"


@pytest.mark.parametrize("name", sorted(n for n, (m, _) in REFUSED.items() if "\nkind: Pod\n" in m))
def test_a_custom_resources_template_is_warned_in_the_words_the_object_made_of_it_is_refused_in(
        name: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The same pod spec as a JobSet's template: the server stores the JobSet (it validates no custom resource's
    template), Kueue may admit it, but each Job its controller makes of it is refused as such a Job is (the
    template as written); a Job the server takes makes Pods, refused as the Pod above is (defaulted): kadmit
    keeps the JobSet and warns (KAD199) in the first refusal's words, word for word."""
    spec = {"restartPolicy": "Never", **yaml.safe_load(REFUSED[name][0])["spec"]}
    jobset = yaml.safe_dump({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"template": {"spec": spec}}}}]}})
    made = yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
                           "spec": {"template": {"spec": spec}}})
    pod_of_it = yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                                "spec": spec})
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=jobset, check=False)
    assert created.returncode == 0, created.stderr
    job = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=made, check=False)
    refused, what = (job, "Job made") if job.returncode != 0 else \
        (kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=pod_of_it, check=False), "pod")
    assert refused.returncode != 0, refused
    got = read(tmp_path, name, QUEUE + "---\n" + jobset)
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d.message for d in got.diagnostics if d.code == "KAD199"]
    assert warning.startswith(f"the API server refuses every {what} of pod set `w` of JobSet `default/{name}`: "
                              f"`{refusal(refused.stderr)}`: Kueue may admit it"), (warning, refused.stderr)
