"""`--cluster`, `kadmit snapshot` and `kubectl kadmit` against a real API server (tools/kube-apiserver)
holding the bundled example, created with kubectl (tests/kube/cluster_state.py): the cluster is decided and
explained exactly as the files are; a user without rights to some kinds gets warnings naming them and an
answer that says it rests on incomplete state; a dead server, an unknown context, a missing kubectl and
rejected credentials are diagnostics with exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from kadmit.cli import cli
from kadmit.live import discover
from kadmit.live.kubectl import Kubectl
from kube import cluster_state
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"
CONTEXT = "kadmit-kube"
NAME = f"<cluster {CONTEXT}>"


def kadmit(server: KubeAPIServer, *args: str, env: dict[str, str] | None = None) -> Result:
    """`kadmit ARGS...` in this process, with the server's kubeconfig and kubectl."""
    result = CliRunner().invoke(cli, list(args), env={**server.env, **(env or {})}, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def example(kube_apiserver: KubeAPIServer) -> Iterator[KubeAPIServer]:
    """The server holding the bundled example's objects, and nothing else of the kinds kadmit reads."""
    kube = Kubectl(str(kube_apiserver.kubectl), kubeconfig=str(kube_apiserver.kubeconfig))
    served = discover.parse_api_resources(kube.run("api-resources", "-o", "wide", "--no-headers").out)
    assert served
    resources = [(t.qualified, t.namespaced) for t in discover.plan(served).targets]
    cluster_state.clear(kube_apiserver, resources)
    cluster_state.load(kube_apiserver, EXAMPLE)
    yield kube_apiserver
    cluster_state.clear(kube_apiserver, resources)


# --- the same answers as on the files --------------------------------------------------------------

def test_admit_on_the_cluster_decides_exactly_as_on_the_files(example: KubeAPIServer) -> None:
    files = kadmit(example, "admit", str(EXAMPLE))
    live = kadmit(example, "admit", "--cluster")
    assert (live.exit_code, files.exit_code) == (0, 0), live.output
    assert live.stdout == files.stdout  # every decision, reason, placement and the summary, word for word
    assert live.stderr == ""
    as_json = json.loads(kadmit(example, "admit", "--cluster", "--format", "json").stdout)
    assert uidless(as_json["decisions"]) == uidless(json.loads(kadmit(example, "admit", str(EXAMPLE), "--format",
                                                                      "json").stdout)["decisions"])
    assert "incomplete" not in as_json  # a complete read adds nothing to the JSON


def uidless(decisions: list[dict]) -> list[dict]:
    """Decisions (and their victims) without `kueue_workload`: the name Kueue gives a job's Workload hashes the
    job's UID, which the API server gives the cluster's objects and the files do not hold (null there)."""
    def unnamed(d: dict) -> dict:
        return {k: v for k, v in d.items() if k not in ("kueue_workload", "kueue_workload_unknown")}
    return [{**unnamed(d), "preempted": [unnamed(v) for v in d["preempted"]]} for d in decisions]


LOCATION_KEYS = {"file", "line", "column", "end_line", "end_column", "old", "new", "solver", "kueue_workload",
                 "kueue_workload_unknown"}
LOCATION = re.compile(r"(?:[\w./-]+\.ya?ml|<cluster [^>]*>):\d+(?::\d+)?: ")


def placeless(value, key: str | None = None):
    """A why answer without where things are written: positions, the text of fixes' edits (the
    server writes some fields differently), solver timings; blame, sorted by place, sorted by content."""
    if isinstance(value, dict):
        return {k: placeless(v, k) for k, v in value.items() if k not in LOCATION_KEYS}
    if isinstance(value, list):
        out = [placeless(v, key) for v in value]
        return sorted(out, key=lambda v: json.dumps(v, sort_keys=True)) if key in (
            "blame", "blame_groups", "cores", "lines") else out
    return LOCATION.sub("", value) if isinstance(value, str) else value


def test_why_on_the_cluster_gives_the_answer_it_gives_on_the_files(example: KubeAPIServer) -> None:
    workload = "team-infra/gpu-smoke"  # a RayJob its queue has no GPU quota for: blame, proven fixes
    files = kadmit(example, "why", workload, str(EXAMPLE), "--format", "json")
    live = kadmit(example, "why", workload, "--cluster", "--format", "json")
    assert live.exit_code == files.exit_code == 1
    theirs, ours = json.loads(files.stdout), json.loads(live.stdout)
    assert placeless(ours) == placeless(theirs)
    assert ours["fixes"] and all(b["file"] == NAME for b in ours["blame"])


def plugin_env(server: KubeAPIServer, tmp_path: Path) -> dict[str, str]:
    """kubectl finds `kubectl-kadmit` (the entry point pyproject.toml installs) on PATH, and its Python
    reads this checkout's kadmit."""
    script = Path(sys.executable).parent / "kubectl-kadmit"
    assert script.exists(), "the kubectl-kadmit entry point is not installed: pip install -e ."
    bin_dir = tmp_path / "plugin-bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl-kadmit").symlink_to(script)
    return {**server.env, "PATH": f"{bin_dir}:{server.env['PATH']}",
            "PYTHONPATH": str(ROOT / "src") + (":" + server.env["PYTHONPATH"] if server.env.get("PYTHONPATH") else "")}


def test_kubectl_kadmit_why_reads_the_cluster_with_no_paths(example: KubeAPIServer, tmp_path: Path) -> None:
    workload = "team-vision/frame-extract"  # a JobSet no rack holds: cores over the topology's capacity, fixes
    got = subprocess.run([str(example.kubectl), "kadmit", "why", workload, "--format", "json"],
                         env=plugin_env(example, tmp_path), capture_output=True, text=True, timeout=300)
    assert got.returncode == 1 and got.stderr == "", got.stderr
    files = kadmit(example, "why", workload, str(EXAMPLE), "--format", "json")
    assert placeless(json.loads(got.stdout)) == placeless(json.loads(files.stdout))
    assert json.loads(got.stdout)["fixes"]
    # kadmit itself needs a PATH or --cluster
    bare = kadmit(example, "why", workload)
    assert bare.exit_code == 2 and "give PATH... (files or folders), or --cluster" in bare.stderr


def test_check_and_simulate_read_the_cluster(example: KubeAPIServer) -> None:
    checked = kadmit(example, "check", "--cluster")
    assert checked.exit_code == 0 and "no problems" in checked.stdout, checked.output
    simulated = kadmit(example, "simulate", "--cluster", "--format", "json", "--until", "1h")
    assert simulated.exit_code == 0, simulated.output
    replayed = {w["workload"] for w in json.loads(simulated.stdout)["workloads"]}
    assert {"team-vision/llm-pretrain", "team-infra/log-compaction", "team-infra/etl-nightly"} <= replayed


# --- the snapshot ----------------------------------------------------------------------------------

def test_a_snapshot_replays_as_the_cluster_and_places_diagnostics_in_it(example: KubeAPIServer,
                                                                       tmp_path: Path) -> None:
    out = tmp_path / "state.yaml"
    wrote = kadmit(example, "snapshot", "-o", str(out))
    assert wrote.exit_code == 0 and wrote.stdout.startswith(f"wrote {out}: "), wrote.output
    assert [p.name for p in tmp_path.iterdir()] == ["state.yaml"]  # written atomically: no temporary file left
    text = out.read_text(encoding="utf-8")
    header = text.split("\n---\n", 1)[0].splitlines()
    assert header[0].startswith("# kadmit snapshot 1:") and header[2].startswith(f"# context: {CONTEXT} (")
    assert re.match(r"# read at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, in [\d.]+ s, by kubectl v1\.35\.3", header[4])
    assert any(re.fullmatch(r"#   clusterqueues\.v1beta2\.kueue\.x-k8s\.io +3", line) for line in header)
    docs = [d for d in yaml.safe_load_all(text) if d]
    assert len(docs) == int(wrote.stdout.split(": ")[1].split()[0])  # one document per object listed
    assert {d["kind"] for d in docs} >= {"ClusterQueue", "Workload", "JobSet", "Node", "ConfigMap", "RayJob"}
    assert kadmit(example, "admit", str(out)).stdout == kadmit(example, "admit", str(EXAMPLE)).stdout
    # blame points into the snapshot: the line it names holds what it speaks of (the RayJob head's GPU request)
    why = json.loads(kadmit(example, "why", "team-infra/gpu-smoke", str(out), "--format", "json").stdout)
    lines = text.splitlines()
    assert why["blame"] and all(b["file"] == str(out) for b in why["blame"])
    coverage = next(b for b in why["blame"] if b["kind"] == "coverage")
    assert "`nvidia.com/gpu`" in coverage["message"] and lines[coverage["line"] - 1].strip().startswith("nvidia.com/gpu:")


def test_snapshot_to_standard_output_is_the_same_text(example: KubeAPIServer, tmp_path: Path) -> None:
    got = kadmit(example, "snapshot", "-o", "-")
    assert got.exit_code == 0 and got.stdout.startswith("# kadmit snapshot 1:")
    assert got.stdout.count("\n---\n") > 50 and got.stderr == ""


def test_kubectl_proxy_and_kubectl_get_read_the_same_text(example: KubeAPIServer, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind one request through `kubectl proxy` (live.proxy), or `kubectl get -o json` by batches where the
    proxy won't start: the same objects, written alike; only the header says which."""
    from kadmit.live import read as live

    for key in ("KUBECONFIG", "PATH", "KUBECACHEDIR"):
        monkeypatch.setenv(key, example.env[key])
    # the proxy's socket folder in a temporary folder of this test's own: another process's proxy (a bench, a
    # test worker) may have one open in the machine's
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made: list[str] = []
    mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(mkdtemp(*a, **k)) or made[-1])
    through_proxy = live.read()
    monkeypatch.setattr(live, "PROXY", False)
    through_get = live.read()
    assert through_proxy.text is not None and through_get.text is not None
    assert "# listed (one request per kind through `kubectl proxy`, every namespace at once):" in through_proxy.text
    assert "# listed (one `kubectl get RESOURCE -o json` each, every namespace at once):" in through_get.text

    def objects(text: str) -> str:
        return "\n".join(ln for ln in text.split("\n") if not ln.startswith(("# read at:", "# listed (")))
    assert objects(through_proxy.text) == objects(through_get.text)
    assert through_proxy.objects == through_get.objects > 50
    assert [Path(p).parent for p in made if "kadmit-proxy-" in p] == [tmp_path]
    assert not list(tmp_path.glob("kadmit-proxy-*"))  # the proxy's socket folder is gone


# --- rights, and failures that leave nothing to read -------------------------------------------------

RBAC = """\
apiVersion: v1
kind: ServiceAccount
metadata: {name: analyst, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kadmit-reader-without-pods-and-nodes}
rules:
- apiGroups: ["", "apps", "batch", "kueue.x-k8s.io", "jobset.x-k8s.io", "leaderworkerset.x-k8s.io", "kubeflow.org",
              "ray.io", "trainer.kubeflow.org", "workload.codeflare.dev", "scheduling.k8s.io", "node.k8s.io",
              "resource.k8s.io", "admissionregistration.k8s.io"]
  resources: [namespaces, configmaps, limitranges, deployments, statefulsets, jobs, clusterqueues, cohorts,
              localqueues, resourceflavors, topologies, workloads, workloadpriorityclasses, jobsets, leaderworkersets,
              jaxjobs, mpijobs, paddlejobs, pytorchjobs, tfjobs, xgboostjobs, rayclusters, rayjobs, rayservices,
              clustertrainingruntimes, trainingruntimes, trainjobs, appwrappers, priorityclasses, runtimeclasses,
              resourceclaimtemplates, deviceclasses, validatingadmissionpolicies, validatingadmissionpolicybindings, admissionchecks,
              provisioningrequestconfigs, multikueueconfigs, multikueueclusters]
  verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: analyst-reads}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kadmit-reader-without-pods-and-nodes}
subjects: [{kind: ServiceAccount, name: analyst, namespace: default}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pods, namespace: team-nlp}
rules: [{apiGroups: [""], resources: [pods], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: analyst-pods, namespace: team-nlp}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pods}
subjects: [{kind: ServiceAccount, name: analyst, namespace: default}]
"""


def kubeconfig(server: KubeAPIServer, path: Path, *, token: str | None = None, address: str | None = None) -> Path:
    """The server's kubeconfig with another user (a bearer token) or another server address."""
    config = yaml.safe_load(server.kubeconfig.read_text())
    if token is not None:
        config["users"][0]["user"] = {"token": token}
    if address is not None:
        config["clusters"][0]["cluster"]["server"] = address
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("proxy", [True, False], ids=["kubectl proxy", "kubectl get"])
def test_a_user_without_rights_to_some_kinds_gets_warnings_and_an_incomplete_answer(
        example: KubeAPIServer, tmp_path: Path, proxy: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from kadmit.live import read as live

    monkeypatch.setattr(live, "PROXY", proxy)
    example.apply(RBAC)
    token = example.run("create", "token", "analyst", "--namespace", "default").stdout.strip()
    env = {"KUBECONFIG": str(kubeconfig(example, tmp_path / "analyst", token=token))}
    got = kadmit(example, "admit", "--cluster", env=env)
    assert got.exit_code == 0, got.output  # decided, on what could be read
    warnings = re.findall(r"warning\[KAD034\]: not listed: (\S+) (.*)", got.stderr)
    assert [w[0] for w in warnings] == ["nodes.v1", "pods.v1"], got.stderr
    assert warnings[0][1].startswith('cluster-wide: nodes is forbidden: User "system:serviceaccount:default:analyst" '
                                     'cannot list resource "nodes"')
    # pods: listed in team-nlp, where a Role allows it, and in no other namespace; the warning names
    # the first 8 of those (the session's server may hold other tests' namespaces too: `case-…` of
    # test_export_policies sort before `default`)
    listed = re.match(r"in namespaces (.*?): pods is forbidden", warnings[1][1])
    assert listed, warnings[1][1]
    shown, _, more = listed.group(1).partition(", … (")
    every = sorted(n.split("/", 1)[1] for n in example.run("get", "namespaces", "-o", "name").stdout.split())
    missed = [n for n in every if n != "team-nlp"]
    assert {"default", "kube-node-lease", "team-vision"} <= set(missed) and len(missed) == len(every) - 1
    assert shown.split(", ") == missed[:8], (shown, missed)
    assert more == (f"{len(missed) - 8} more)" if len(missed) > 8 else ""), more
    assert "team-nlp" not in warnings[1][1]
    assert re.search(r"^team-nlp/tokenize +no", got.stdout, re.M)  # its pods, in team-nlp, were read
    assert f"--> {NAME}:" in got.stderr  # placed at the snapshot header's line
    assert got.stdout.endswith("incomplete: this answer rests on the cluster's state without what could not be "
                               "listed:\n  " + "\n  ".join(f"{a} {b}" for a, b in warnings) + "\n")
    # no nodes were read: the topology-aware workloads can't be placed, and why says what it rests on
    why = kadmit(example, "why", "team-vision/no-toleration", "--cluster", env=env)
    assert why.exit_code == 1 and "warning[KAD034]: not listed: nodes.v1 cluster-wide" in why.stderr
    assert "incomplete: this answer rests on" in why.stdout


@pytest.mark.parametrize("case,code,words", [
    ("dead server", "KAD032", "can't reach the API server of context `kadmit-kube` (server https://127.0.0.1:1): "
                              "The connection to the server 127.0.0.1:1 was refused"),
    ("unknown context", "KAD031", "can't use context `no-such-context` of the kubeconfig: cannot locate context"),
    ("no kubectl", "KAD030", "can't read the cluster: no `kubectl` on PATH"),
    ("bad credentials", "KAD033", "the API server of context `kadmit-kube`"),
])
def test_nothing_read_is_a_diagnostic_and_exit_2(example: KubeAPIServer, tmp_path: Path, case: str, code: str,
                                                words: str) -> None:
    args, env = ["--cluster"], {}
    if case == "dead server":
        env["KUBECONFIG"] = str(kubeconfig(example, tmp_path / "dead", address="https://127.0.0.1:1"))
    elif case == "unknown context":
        args = ["--context", "no-such-context"]
    elif case == "no kubectl":
        env["PATH"] = str(tmp_path)
    else:
        env["KUBECONFIG"] = str(kubeconfig(example, tmp_path / "bad", token="not-a-token"))
    for verb in (["admit"], ["why", "team-nlp/tokenize"], ["snapshot", "-o", str(tmp_path / "s.yaml")]):
        got = kadmit(example, *verb, *([] if verb[0] == "snapshot" and case != "unknown context" else args), env=env)
        assert got.exit_code == 2, (verb, got.output)
        assert f"error[{code}]: {words}" in got.stderr, (verb, got.stderr)
        assert got.stdout == "" and "kadmit decides only on inputs without errors" not in got.stderr
    assert not (tmp_path / "s.yaml").exists()


@pytest.mark.parametrize("proxy,who", [(True, "the server sent"), (False, "kubectl printed")],
                         ids=["kubectl proxy", "kubectl get"])
def test_a_kind_larger_than_max_file_size_stops_the_read_naming_it(example: KubeAPIServer, tmp_path: Path,
                                                                   proxy: bool, who: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kind's listing is held to `--max-file-size` as a file is (the real server's answers, as it sends
    them or kubectl prints them): past it, an error naming the kind, nothing decided or written, exit 2."""
    from kadmit.live import read as live

    monkeypatch.setattr(live, "PROXY", proxy)
    for verb in (["admit", "--cluster"], ["why", "team-nlp/tokenize", "--cluster"],
                 ["snapshot", "-o", str(tmp_path / "s.yaml")]):
        got = kadmit(example, *verb, "--max-file-size", "4000")
        assert got.exit_code == 2 and got.stdout == "", (verb, got.output)
        stopped = re.findall(r"^error\[KAD039\]: stopped reading (\S+) (?:in every namespace|cluster-wide): (.*)$",
                             got.stderr, re.M)
        assert stopped and len(stopped) == got.stderr.count("error["), got.stderr
        assert {why for _, why in stopped} == {f"{who} more than 4,000 bytes, the limit of `--max-file-size` (a "
                                               "kind's listing is held to it as a file is)"}, got.stderr
        assert "= help: pass --max-file-size BYTES to read a larger cluster" in got.stderr
    assert not (tmp_path / "s.yaml").exists()
    whole = kadmit(example, "snapshot", "-o", str(tmp_path / "s.yaml"), "--max-file-size", str(64 << 20))
    assert whole.exit_code == 0 and (tmp_path / "s.yaml").exists(), whole.output


# --- the on-call path's failures: each a diagnostic naming what, within seconds ---------------------------

def test_a_user_who_may_list_nothing_gets_every_kind_named_and_exit_2(example: KubeAPIServer, tmp_path: Path) -> None:
    """Discovery is every authenticated user's; listing is not: a ServiceAccount with no rights is told, kind by
    kind, what it may not list and where, and that nothing could be read (KAD035), exit 2."""
    example.apply("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: nobody, namespace: default}\n")
    token = example.run("create", "token", "nobody", "--namespace", "default").stdout.strip()
    env = {"KUBECONFIG": str(kubeconfig(example, tmp_path / "nobody", token=token))}
    served = discover.plan(discover.parse_api_resources(
        Kubectl(str(example.kubectl), kubeconfig=str(example.kubeconfig)).run(
            "api-resources", "-o", "wide", "--no-headers").out) or []).targets
    for verb in (["admit", "--cluster"], ["snapshot", "-o", str(tmp_path / "s.yaml")]):
        got = kadmit(example, *verb, env=env)
        assert got.exit_code == 2 and got.stdout == "", got.output
        assert "error[KAD035]: nothing could be listed from context `kadmit-kube`" in got.stderr
        named = re.findall(r"^warning\[KAD034\]: not listed: (\S+) (in every namespace|cluster-wide|in namespace "
                           r"kueue-system): \S+ is forbidden: User \"system:serviceaccount:default:nobody\" cannot list",
                           got.stderr, re.M)
        more = re.search(r"^warning\[KAD034\]: (\d+) more \(kind not listed\) not shown", got.stderr, re.M)
        assert set(named) <= {(t.shown, t.where()) for t in served}, got.stderr  # the first few, each named …
        assert len(named) + int(more.group(1) if more else 0) == len(served), got.stderr  # … and the count of the rest
    assert not (tmp_path / "s.yaml").exists()


def test_a_server_that_never_answers_is_unreachable_within_kubectls_handshake_timeout(example: KubeAPIServer,
                                                                                       tmp_path: Path) -> None:
    """A port that accepts connections and never answers (a hung API server): kubectl gives up on the TLS
    handshake (10 s, its own), and the read is KAD032 naming the context and server, exit 2; no hang."""
    import socket
    import time

    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(64)  # the kernel completes the connections; nothing ever reads or answers them
        address = f"https://127.0.0.1:{hung.getsockname()[1]}"
        env = {"KUBECONFIG": str(kubeconfig(example, tmp_path / "hung", address=address))}
        started = time.monotonic()
        got = kadmit(example, "snapshot", "-o", str(tmp_path / "s.yaml"), env=env)
        took = time.monotonic() - started
    assert got.exit_code == 2 and got.stdout == "", got.output
    assert f"error[KAD032]: can't reach the API server of context `kadmit-kube` (server {address}): " \
           "Unable to connect to the server: net/http: TLS handshake timeout" in got.stderr, got.stderr
    assert took < 60, took  # kubectl's 10 s, not the 60 s request timeout nor a hang


def test_a_cluster_without_kueue_is_read_and_decided_as_kueue_would_leave_it(tmp_path: Path) -> None:
    """A server with none of Kueue's kinds (a bare API server: no CRDs at all): a warning placed at the snapshot
    header's line (KAD036), the jobs read, and a queued Job pending because its LocalQueue doesn't exist."""
    from kube.server import start, stop

    directory = tmp_path / "bare"
    server = start(directory, no_crds=True)
    try:
        server.run("create", "namespace", "team-a")
        server.apply("apiVersion: batch/v1\nkind: Job\nmetadata: {name: queued, namespace: team-a, labels: "
                     "{kueue.x-k8s.io/queue-name: main}}\nspec:\n  suspend: true\n  template:\n    spec:\n"
                     "      restartPolicy: Never\n      containers: [{name: c, image: busybox, resources: "
                     "{requests: {cpu: '1'}}}]\n")
        got = kadmit(server, "admit", "--cluster")
        assert got.exit_code == 0, got.output
        assert re.search(r"^team-a/queued +no +- +- +LocalQueue main doesn't exist$", got.stdout, re.M), got.stdout
        assert ("warning[KAD036]: the server serves no kind of `kueue.x-k8s.io`: Kueue is not installed in this "
                f"cluster\n  --> {NAME}:") in got.stderr, got.stderr
        why = kadmit(server, "why", "team-a/queued", "--cluster")
        assert why.exit_code == 1 and "reason: LocalQueue main doesn't exist" in why.stdout, why.output
        assert "warning[KAD036]" in why.stderr
    finally:
        stop(directory)
