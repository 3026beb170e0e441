"""A preempting GPU cluster of batch Jobs (bench/gpu_states.py, a small one) on the real API server, created
as a cluster with Kueue holds it (`cluster_state.load_jobs`: suspended Jobs, running Jobs with their status,
the Workloads Kueue made of them named from the server's UIDs, their admissions through the status
subresource): `admit --cluster` decides every workload exactly as `admit` on the files of what the server
holds, and `kubectl kadmit why NS/JOB` answers exactly as `why` on those files but for the places it points
to (and the quotes of the values it quotes). bench/live_gpu.py does the same at 2,000 Jobs and times it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmit.live import discover
from kadmit.live.kubectl import Kubectl
from kube import cluster_state
from kube.server import KubeAPIServer
from kube.test_live import kadmit, plugin_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import gpu_states  # noqa: E402

PLACE = re.compile(r"(<cluster [^>]*>|\S+\.yaml)(:\d+(:\d+)?)?")
LINE = re.compile(r"\(:\d+\)")  # a fix's change's line in the file named before
SAME_FILE = re.compile(r"(:\d+ of )?the same file")  # a fix in the file of the fix above (render.why)
LATER_PLACE = re.compile(r", :\d+(:\d+)?")  # `FILE:30:23, :116:23`: the later places of a list naming its file once


@pytest.fixture(scope="module")
def jobs(kube_apiserver: KubeAPIServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KubeAPIServer, Path]]:
    """The server holding a 2-queue GPU state, and the folder of its files as the server holds them."""
    kube = Kubectl(str(kube_apiserver.kubectl), kubeconfig=str(kube_apiserver.kubeconfig))
    served = discover.parse_api_resources(kube.run("api-resources", "-o", "wide", "--no-headers").out)
    assert served
    resources = [(t.qualified, t.namespaced) for t in discover.plan(served).targets]
    cluster_state.clear(kube_apiserver, resources)
    files = {**gpu_states.gpu_state(70, cluster_queues=2, cohorts=1),  # 70 Jobs, 49 running
             **cluster_state.kueue_installed()}  # Kueue's ConfigMap, as its installation creates it
    counts = cluster_state.load_jobs(kube_apiserver, files)
    assert counts["Job"] > counts["Workload"] > 0  # running Jobs with their Workloads, and pending ones
    assert counts["ConfigMap"] == 1
    folder = tmp_path_factory.mktemp("held")
    gpu_states.write_state(cluster_state.as_held(kube_apiserver, files), folder)
    yield kube_apiserver, folder
    cluster_state.clear(kube_apiserver, resources)


def test_admit_on_the_cluster_decides_as_on_the_files_it_holds(jobs: tuple[KubeAPIServer, Path]) -> None:
    server, folder = jobs
    files = kadmit(server, "admit", "--format", "json", str(folder))
    live = kadmit(server, "admit", "--format", "json", "--cluster")
    assert (live.exit_code, files.exit_code) == (0, 0), live.output
    # Kueue's Configuration read from its ConfigMap: no KAD037; the warnings the state itself earns (KAD260: pending
    # Jobs created in one second without their Workloads, ordered by UIDs Kueue has yet to draw) the same on both
    heads = [re.findall(r"^(?:warning|error)\[KAD\d+\]: .*$", out, re.M) for out in (live.stderr, files.stderr)]
    assert heads[0] == heads[1], (live.stderr, files.stderr)
    assert {h.split("]")[0] for h in heads[0]} <= {"warning[KAD260"}, live.stderr
    got, want = json.loads(live.stdout), json.loads(files.stdout)
    assert got["decisions"] == want["decisions"]
    outcomes = {(d["admitted"], bool(d["preempted"]), d["preempted_by"] is not None) for d in want["decisions"]}
    assert {(True, True, False), (False, False, False)} <= outcomes  # it preempts, and some work stays pending


def test_kubectl_kadmit_why_answers_as_on_the_files(jobs: tuple[KubeAPIServer, Path], tmp_path: Path) -> None:
    server, folder = jobs
    decided = json.loads(kadmit(server, "admit", "--format", "json", str(folder)).stdout)["decisions"]
    pending = sorted(f"{d['object']['namespace']}/{d['object']['name']}" for d in decided
                     if not d["admitted"] and d["object"]["kind"] == "Job" and d["preempted_by"] is None)
    assert pending
    key = pending[0]
    # no width: a terminal's would wrap the places' lines where their lengths differ
    got = subprocess.run([str(server.kubectl), "kadmit", "why", key], env={**plugin_env(server, tmp_path),
                         "NO_COLOR": "1"}, capture_output=True, text=True, timeout=300)
    files = kadmit(server, "why", key, str(folder), env={"NO_COLOR": "1"})
    assert got.returncode == files.exit_code == 1, got.stderr
    assert "Traceback" not in got.stderr
    def same(text: str) -> str:  # but for places, and quotes (kubectl writes "96" where PyYAML wrote '96'); on the
        # cluster every object is in one text, so a fix says `the same file` where on the files it names another
        # a fix's changes name their file once and each line after its value: `in FILE: cpu: "4" → "8" (:83)`
        text = LINE.sub("(:N)", PLACE.sub("PLACE", SAME_FILE.sub("PLACE", text)))
        return LATER_PLACE.sub(", :N", text).replace("'", '"')
    assert same(got.stdout) == same(files.stdout)
    assert re.search(r"\n   = needs \d+ nvidia\.com/gpu( at once \(\d+ pods × \d+\))?; team-\d+ can reach \d+ in \w+ = \d+ own", got.stdout), got.stdout
