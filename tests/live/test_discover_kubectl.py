"""What the server serves (`kubectl api-resources -o wide`, as captured from kubectl v1.35.3 against
tools/kube-apiserver with its CRDs), which `kubectl get` each kind kadmit reads takes, and what kubectl's
failures mean (its messages as kubectl v1.35.3 prints them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.live import kubectl as k
from kadmit.live.discover import Served, failed_groups, parse_api_resources, plan
from kadmit.live.read import read
from kadmit.manifests import KINDS

CAPTURED = (Path(__file__).parent / "api-resources.txt").read_text(encoding="utf-8")


def test_the_captured_listing_is_read_line_by_line() -> None:
    served = parse_api_resources(CAPTURED)
    assert served is not None and len(served) == len(CAPTURED.splitlines())
    by = {(s.group, s.kind): s for s in served}
    assert by["kueue.x-k8s.io", "LocalQueue"] == Served(
        "localqueues", "kueue.x-k8s.io", "v1beta2", True, "LocalQueue",
        ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"))
    assert by["", "Binding"].verbs == ("create",) and by["", "Pod"].namespaced
    assert by["kubeflow.org", "MPIJob"].version == "v2beta1" and by["kubeflow.org", "TFJob"].version == "v1"


def test_each_kind_kadmit_reads_is_listed_once_in_a_version_it_reads() -> None:
    got = plan(parse_api_resources(CAPTURED) or [])
    assert got.kueue_served
    names = [t.shown for t in got.targets]
    assert len(names) == len(set(names)) == 40  # DeviceClass read since 8c7cd419
    assert "clusterqueues.v1beta2.kueue.x-k8s.io" in names and "pods.v1" in names
    # the admission-check kinds (kadmit.modelchecks): the checks and what their built-in controllers read
    assert {"admissionchecks.v1beta2.kueue.x-k8s.io", "provisioningrequestconfigs.v1beta2.kueue.x-k8s.io",
            "multikueueconfigs.v1beta2.kueue.x-k8s.io", "multikueueclusters.v1beta2.kueue.x-k8s.io"} <= set(names)
    assert all(t.version in KINDS[t.group, t.kind].versions for t in got.targets)
    config = next(t for t in got.targets if t.kind == "ConfigMap")
    assert (config.namespace, config.where()) == ("kueue-system", "in namespace kueue-system")
    assert next(t for t in got.targets if t.kind == "Node").where() == "cluster-wide"
    assert next(t for t in got.targets if t.kind == "Pod").qualified == "pods.v1."  # never another group's `pods`
    # what this server lacks: the gang kinds and SparkApplication; Kueue's Configuration is no API
    # object (DisaggregatedSet, LWS v0.9.0's, is no kind kadmit reads: docs/INTEGRATIONS.md §11)
    assert sorted(got.not_served) == sorted(("Workload (scheduling.k8s.io)", "PodGroup (scheduling.x-k8s.io)",
                                             "SparkApplication (sparkoperator.k8s.io)"))


def test_a_preferred_version_kadmit_does_not_read_is_asked_in_one_it_does() -> None:
    served = [Served("clusterqueues", "kueue.x-k8s.io", "v1", False, "ClusterQueue", ("list",)),
              Served("bindings", "", "v1", True, "Binding", ("create",)),
              Served("nodes", "", "v1", False, "Node", ("get",))]
    got = plan(served)
    (queue,) = got.targets
    assert (queue.version, queue.preferred, queue.qualified) == ("v1beta2", "v1", "clusterqueues.v1beta2.kueue.x-k8s.io")
    assert "Node (core)" in got.not_served  # served, but not with `list`


def test_older_kubectl_layouts_are_read_too() -> None:
    # kubectl before 1.30 printed VERBS as `[get list]`, and before 1.20 had no APIVERSION column
    old = ("pods                              po           v1                             true         Pod"
           "                              [create delete get list patch update watch]\n"
           "clusterqueues                     cq           kueue.x-k8s.io/v1beta1         false        ClusterQueue"
           "                     [get list]   kueue\n")
    got = parse_api_resources(old)
    assert got is not None and [(s.kind, s.group, s.verbs[-2:]) for s in got] == [
        ("Pod", "", ("update", "watch")), ("ClusterQueue", "kueue.x-k8s.io", ("get", "list"))]
    assert parse_api_resources("pods   po   true   Pod\n") is None  # no APIVERSION column: not guessed at
    assert parse_api_resources("error: the server doesn't have a resource type\n") is None


@pytest.mark.parametrize("stderr,meaning", [
    ("error: cannot locate context nope\n", k.CONTEXT),
    ("error: current-context must exist in order to minify\n", k.CONTEXT),
    ("Error in configuration: context was not found for specified context: nope\n", k.CONTEXT),
    ('error: error loading config file "/tmp/bad": yaml: line 1: did not find expected node content\n', k.CONTEXT),
    ("error: stat /nonexistent: no such file or directory\n", k.CONTEXT),
    ('E1203 21:00:29.484598   10671 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group '
     'list: Get \\"https://127.0.0.1:1/api?timeout=32s\\": dial tcp 127.0.0.1:1: connect: connection refused"\n'
     "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n", k.UNREACHABLE),
    ("Unable to connect to the server: dial tcp: lookup nosuchhost.invalid on 10.255.255.53:53: no such host\n",
     k.UNREACHABLE),
    ("Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown "
     "authority\n", k.UNREACHABLE),
    ("error: You must be logged in to the server (Unauthorized)\n", k.UNAUTHORIZED),
    ("Unable to connect to the server: getting credentials: exec: executable aws not found\n", k.UNAUTHORIZED),
    ('Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:analyst" cannot list '
     'resource "pods" in API group "" at the cluster scope\n', k.FORBIDDEN),
    ('error: the server doesn\'t have a resource type "clusterqueues"\n', k.NOT_SERVED),
    ("Error from server (InternalError): an error on the server has prevented the request from succeeding\n", k.OTHER),
])
def test_what_a_kubectl_failure_means(stderr: str, meaning: str) -> None:
    assert k.failure(k.Run(("get",), 1, "", stderr)) == meaning


def test_kubectl_s_message_without_its_log_lines_or_prefixes() -> None:
    run = k.Run(("api-resources",), 1, "", (
        'E1203 21:01:59.378688   11684 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API '
        'group list"\n' * 3 + "The connection to the server 127.0.0.1:1 was refused - did you specify the right "
        "host or port?\n"))
    assert k.message(run) == "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
    assert k.message(k.Run(("get",), 1, "", 'Error from server (Forbidden): pods is forbidden: x\n')) == \
        "pods is forbidden: x"
    assert k.message(k.Run(("get",), 7, "", "")) == "kubectl exited 7 without a message"


def test_no_kubectl_is_a_diagnostic_without_a_read(tmp_path: Path) -> None:
    got = read(program=str(tmp_path / "kubectl"))
    assert got.failed and [d.code for d in got.diagnostics] == ["KAD030"]
    assert got.diagnostics[0].message == f"can't read the cluster: `{tmp_path / 'kubectl'}` is not an executable program"
    script = tmp_path / "not-kubectl"
    script.write_text("#!/bin/sh\necho 'this is no kubectl' >&2\nexit 3\n")
    script.chmod(0o755)
    got = read(program=str(script))  # `config view` fails with a message that says nothing of a kubeconfig
    assert got.failed and [d.code for d in got.diagnostics] == ["KAD038"]
    assert got.diagnostics[0].message == "`kubectl config view --minify` failed: this is no kubectl"


def test_kinds_of_an_api_group_whose_discovery_failed_are_not_listed_nor_said_not_served() -> None:
    # client-go's ErrGroupDiscoveryFailed (discovery/discovery_client.go): `GROUP/VERSION: ERROR` sorted, joined by ", "
    stderr = ("error: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is "
              "currently unable to handle the request, scheduling.x-k8s.io/v1alpha1: stale GroupVersion discovery: "
              "scheduling.x-k8s.io/v1alpha1\n")
    failed = failed_groups(stderr)
    assert failed == {
        "metrics.k8s.io": "metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        "scheduling.x-k8s.io": "scheduling.x-k8s.io/v1alpha1: stale GroupVersion discovery: scheduling.x-k8s.io/v1alpha1"}
    got = plan(parse_api_resources(CAPTURED) or [], failed)
    assert got.undiscovered == ("PodGroup (scheduling.x-k8s.io): the server could not say what it serves there: "
                                "scheduling.x-k8s.io/v1alpha1: stale GroupVersion discovery: scheduling.x-k8s.io/v1alpha1",)
    assert "PodGroup (scheduling.x-k8s.io)" not in got.not_served


def test_the_first_kubectls_run_at_once_none_waiting_for_config_view(tmp_path: Path) -> None:
    log = tmp_path / "log"
    script = tmp_path / "kubectl"
    script.write_text(f"""#!/bin/sh
echo "start $*" >> {log}
case "$*" in
  *"config view"*) sleep 1; echo "end config view" >> {log}; echo 'error: nope' >&2; exit 1 ;;
esac
exit 1
""")
    script.chmod(0o755)
    got = read(program=str(script))
    assert got.failed and [d.code for d in got.diagnostics] == ["KAD038"]  # config view's failure says it
    lines = log.read_text().splitlines()
    ended = lines.index("end config view")
    started = [x for x in lines[:ended] if x.startswith("start")]
    assert any("api-resources" in x for x in started) and any(" version " in x for x in started)
    assert any(" proxy " in x for x in started)
