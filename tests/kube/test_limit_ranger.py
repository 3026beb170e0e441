"""The API server's LimitRanger admission plugin: a Pod being submitted whose containers or whole
pod fall outside a LimitRange of its namespace (min, max, maxLimitRequestRatio, once the
LimitRange's defaults are filled in) is refused by the real API server, and kadmit refuses it in
the same words (KAD157); one within the bounds both admit."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow


def limit_range(ns: str, name: str, limits: str) -> str:
    return f"""\
apiVersion: v1
kind: LimitRange
metadata: {{name: {name}, namespace: {ns}}}
spec:
  limits: {limits}
"""


def pod(ns: str, containers: str, resources: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: {ns}}}
spec:
  containers: {containers}
""" + (f"  resources: {resources}\n" if resources else "")


C = "{{name: c{i}, image: busybox, resources: {r}}}"
# kubernetes/website examples admin/resource/limit-mem-cpu-container.yaml, limit-mem-cpu-pod.yaml and
# limit-range-pod-1.yaml: each container within the Container bounds, the pod's limits above the Pod's
WEBSITE = (
    limit_range("lr-website", "limit-mem-cpu-per-container",
                '[{type: Container, max: {cpu: 800m, memory: 1Gi}, min: {cpu: 100m, memory: 99Mi}, '
                'default: {cpu: 700m, memory: 900Mi}, defaultRequest: {cpu: 110m, memory: 111Mi}}]')
    + "---\n" + limit_range("lr-website", "limit-mem-cpu-per-pod", "[{type: Pod, max: {cpu: \"2\", memory: 2Gi}}]")
    + "---\n" + pod("lr-website", "[" + ", ".join([
        C.format(i=1, r="{requests: {memory: 100Mi, cpu: 100m}, limits: {memory: 200Mi, cpu: 500m}}"),
        C.format(i=2, r="{requests: {memory: 100Mi, cpu: 100m}}"),
        C.format(i=3, r="{limits: {memory: 200Mi, cpu: 500m}}"),
        C.format(i=4, r="{}")]) + "]"))

# name -> (namespace, manifest, kadmit's errors: the server's, in some order; none: admitted)
CASES = {
    "website": ("lr-website", WEBSITE, ["maximum cpu usage per Pod is 2, but limit is 2400m",
                                        "maximum memory usage per Pod is 2Gi, but limit is 2200Mi"]),
    "container-max": ("lr-max", limit_range("lr-max", "lr", '[{type: Container, max: {memory: 1Gi}}]') + "---\n"
                      + pod("lr-max", "[" + C.format(i=1, r="{limits: {memory: 2Gi}}") + "]"),
                      ["maximum memory usage per Container is 1Gi, but limit is 2Gi"]),
    # the API server stores the LimitRange with `default` from `max`: the container's limit is filled in
    "container-max-defaults-the-limit": ("lr-nolimit", limit_range("lr-nolimit", "lr", '[{type: Container, max: {cpu: "1"}}]')
                               + "---\n" + pod("lr-nolimit", "[" + C.format(i=1, r="{requests: {cpu: 500m}}") + "]"),
                               []),
    "pod-max-no-limit": ("lr-podmax", limit_range("lr-podmax", "lr", '[{type: Pod, max: {cpu: "1"}}]')
                         + "---\n" + pod("lr-podmax", "[" + C.format(i=1, r="{requests: {cpu: 500m}}") + "]"),
                         ["maximum cpu usage per Pod is 1.  No limit is specified"]),
    "container-min": ("lr-min", limit_range("lr-min", "lr", '[{type: Container, min: {cpu: 500m}}]') + "---\n"
                      + pod("lr-min", "[" + C.format(i=1, r="{requests: {cpu: 200m}}") + "]"),
                      ["minimum cpu usage per Container is 500m, but request is 200m"]),
    "ratio": ("lr-ratio", limit_range("lr-ratio", "lr", '[{type: Container, maxLimitRequestRatio: {cpu: "2"}}]')
              + "---\n" + pod("lr-ratio", "[" + C.format(i=1, r="{requests: {cpu: 250m}, limits: {cpu: \"1\"}}") + "]"),
              ["cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"]),
    # pod-level limits win over the containers' for cpu and memory (podLimits, PodLevelResources)
    "pod-level-limit-above": ("lr-podlim", limit_range("lr-podlim", "lr", '[{type: Pod, max: {cpu: "2"}}]') + "---\n"
                              + pod("lr-podlim", "[" + C.format(i=1, r='{requests: {cpu: "1"}, limits: {cpu: "1"}}') + "]",
                                    '{limits: {cpu: "4"}}'),
                              ["maximum cpu usage per Pod is 2, but limit is 4"]),
    "pod-level-limit-within": ("lr-podlim2", limit_range("lr-podlim2", "lr", '[{type: Pod, max: {cpu: "2"}}]') + "---\n"
                               + pod("lr-podlim2", "[" + ", ".join([
                                   C.format(i=1, r='{requests: {cpu: "1"}, limits: {cpu: "1"}}'),
                                   C.format(i=2, r='{requests: {cpu: "1"}, limits: {cpu: 1500m}}')]) + "]",
                                     '{limits: {cpu: "2"}}'),
                               []),
    # quantities printed as the server prints them: in the format written, canonical (1G, not 1000000000;
    # 1.5Gi as 1536Mi, 2000M as 2G); a sum in its first non-zero addend's format
    "max-1G": ("lr-1g", limit_range("lr-1g", "lr", '[{type: Container, max: {memory: 1G}}]') + "---\n"
               + pod("lr-1g", "[" + C.format(i=1, r="{limits: {memory: 2Gi}}") + "]"),
               ["maximum memory usage per Container is 1G, but limit is 2Gi"]),
    "canonical": ("lr-canon", limit_range("lr-canon", "lr", '[{type: Container, max: {memory: 1.5Gi}, min: {cpu: "0.5"}}]')
                  + "---\n" + pod("lr-canon", "[" + C.format(i=1, r="{requests: {cpu: 100m}, limits: {memory: 2000M}}") + "]"),
                  ["maximum memory usage per Container is 1536Mi, but limit is 2G",
                   "minimum cpu usage per Container is 500m, but request is 100m"]),
    "pod-sum-formats": ("lr-sum", limit_range("lr-sum", "lr", '[{type: Pod, max: {memory: 1G}}]') + "---\n"
                        + pod("lr-sum", "[" + ", ".join([C.format(i=1, r="{limits: {memory: 600M}}"),
                                                         C.format(i=2, r="{limits: {memory: 600Mi}}")]) + "]"),
                        ["maximum memory usage per Pod is 1G, but limit is 1229145600"]),
    "defaults-within": ("lr-ok", limit_range("lr-ok", "lr", '[{type: Container, max: {cpu: "1"}, default: {cpu: 500m}}, '
                                             '{type: Pod, max: {cpu: "1"}}]')
                        + "---\n" + pod("lr-ok", "[" + C.format(i=1, r="{}") + "]"), []),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_limit_ranger_refuses_what_the_api_server_refuses_in_its_words(
        name: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    ns, manifest, want = CASES[name]
    text = f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\n" + manifest
    *setup, the_pod = text.split("---\n")
    kube_apiserver.run("create", "-f", "-", input="---\n".join(setup))
    created = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=the_pod, check=False)
    path = tmp_path / "state.yaml"
    path.write_text(text, encoding="utf-8")
    got = ws.load([str(path)])
    errors = [d.message for d in got.diagnostics if d.code == "KAD157"]
    if not want:
        assert created.returncode == 0, created.stderr
        assert not errors and [p.name for p in got.model.pods] == ["p"]
        return
    assert created.returncode != 0, created.stdout
    (error,) = errors
    quoted = error.split("`")[1]
    prefix = 'pods "p" is forbidden: '
    assert quoted.startswith(prefix) and prefix in created.stderr, (quoted, created.stderr)
    server = created.stderr.split(prefix, 1)[1].strip()
    # the server ranges over Go maps: its errors' order varies, the errors don't
    assert all(w in server for w in want) and all(w in quoted for w in want), (quoted, server)
    assert len(server) == len(quoted[len(prefix):]), (quoted, server)
    assert not got.model.pods  # refused: never on the cluster


@pytest.mark.parametrize("queue_on", ["job", "template"])
def test_a_jobs_pod_template_outside_a_limit_range_is_refused_in_the_servers_words(
        queue_on: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The API server creates the Job (it checks no template against a LimitRange) but refuses the pod the Job
    controller would make of it. A Job naming the queue is Kueue's: kadmit keeps it and warns (KAD199) in the
    server's words. A Job naming no queue while its template does has its pods decided as plain pods
    (tests/oracle/test_limit_ranger.py): none is created, so kadmit makes no Workload and says why in those words."""
    ns = f"lr-job-{queue_on}"
    containers = "[" + C.format(i=1, r='{requests: {memory: 1Gi}, limits: {memory: 4Gi}}') + "]"
    setup = (f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\n"
             + limit_range(ns, "lr", '[{type: Container, max: {memory: 2Gi}, maxLimitRequestRatio: {memory: "2"}}]'))
    queue = "{kueue.x-k8s.io/queue-name: lq}"
    job = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: {ns}, labels: {queue if queue_on == "job" else "{app: j}"}}}
spec:
  template:
    metadata: {{labels: {queue if queue_on == "template" else "{}"}}}
    spec:
      restartPolicy: Never
      containers: {containers}
"""
    kube_apiserver.run("create", "-f", "-", input=setup)
    assert kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=job, check=False).returncode == 0
    refused = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=pod(ns, containers), check=False)
    prefix = 'pods "p" is forbidden: '
    assert refused.returncode != 0 and prefix in refused.stderr, refused.stderr
    server = refused.stderr.split(prefix, 1)[1].strip()
    want = ["maximum memory usage per Container is 2Gi, but limit is 4Gi",
            "memory max limit to request ratio per Container is 2, but provided ratio is 4.000000"]
    assert all(w in server for w in want), server  # two errors: in Go map order on the server
    path = tmp_path / "state.yaml"
    path.write_text(setup + "---\n" + job, encoding="utf-8")
    got = ws.load([str(path)])
    if queue_on == "job":
        (warning,) = [d for d in got.diagnostics if d.code == "KAD199"]
        said = warning.message
        assert f"Job `{ns}/j`" in said and len(got.model.workloads) == 1, said
    else:
        (skip,) = [s for s in got.model.skipped if s.object.kind == "Job"]
        said = skip.reason
        assert not got.model.workloads and not [d for d in got.diagnostics if d.code == "KAD199"], said
    quoted = next(q for q in said.split("`") if want[0] in q).split("forbidden: ")[-1]
    assert all(w in quoted for w in want) and len(quoted) == len(server), (said, server)
    assert not [d for d in got.diagnostics if d.severity.value == "error"], got.diagnostics


@pytest.mark.parametrize("limits", [
    '[{type: Container, max: {cpu: "2"}, min: {memory: 64Mi}}]',
    '[{type: Container, max: {cpu: "2", memory: 1Gi}, default: {cpu: "1"}, min: {cpu: 100m}}, '
    '{type: Pod, max: {cpu: "4"}}]',
    '[{type: Container, min: {cpu: 100m}, defaultRequest: {memory: 32Mi}}]',
], ids=["max-and-min", "default-beside-max", "min-only"])
def test_a_limit_range_is_read_as_the_api_server_stores_it(
        limits: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    """The API server stores a LimitRange's Container items with their defaults filled in (a default limit
    from `max`, a default request from the default limit, else from `min`), and Kueue fills a Workload's
    containers from what it stores: kadmit reads the file as written as it reads what `kubectl get` gives back."""
    ns = "lr-stored"
    kube_apiserver.run("create", "namespace", ns, check=False)
    written = limit_range(ns, "lr", limits)
    kube_apiserver.apply(written)
    stored = kube_apiserver.run("get", "limitrange", "lr", "-n", ns, "-o", "yaml").stdout
    (tmp_path / "written.yaml").write_text(written, encoding="utf-8")
    (tmp_path / "stored.yaml").write_text(stored, encoding="utf-8")

    def read(name: str) -> list[tuple]:
        got = ws.load([str(tmp_path / name)])
        return [(r.type, r.default, r.default_request, r.min, r.max) for r in got.model.limit_ranges]
    assert read("written.yaml") == read("stored.yaml")
    kube_apiserver.run("delete", "limitrange", "lr", "-n", ns)
