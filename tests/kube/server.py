"""A real etcd and kube-apiserver for tests: tools/kube-apiserver's `up` and `down`, and a kubectl helper."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "kube-apiserver"


@dataclass(frozen=True)
class KubeAPIServer:
    """A running server: `kubectl` is the matching client in DIR/bin, `env` has KUBECONFIG set and
    DIR/bin first on PATH (and kubectl's discovery cache in DIR)."""

    dir: Path
    kubeconfig: Path
    kubectl: Path
    env: dict[str, str]

    def run(self, *args: str, input: str | None = None, check: bool = True,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`kubectl ARGS...`; a failure raises with kubectl's own message when `check`."""
        proc = subprocess.run([str(self.kubectl), *args], input=input, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}{proc.stdout}")
        return proc

    def apply(self, manifest: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`kubectl apply -f -` with the YAML given (server-side apply: pass `--server-side`)."""
        return self.run("apply", "-f", "-", *args, input=manifest, timeout=timeout)

    def refusal(self, stored: str, made: str) -> str:
        """The server's words refusing `made` (`kubectl create --dry-run=server`; "…is invalid: WORDS"), an object
        a controller makes of `stored`, which the server is checked to store."""
        taken = self.run("create", "--dry-run=server", "-f", "-", input=stored, check=False)
        assert taken.returncode == 0, taken
        refused = self.run("create", "--dry-run=server", "-f", "-", input=made, check=False)
        assert refused.returncode != 0, refused
        return refused.stderr.strip().split(" is invalid: ", 1)[1]

    def get(self, resource: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        """The object as the server stores it (`kubectl get -o json`)."""
        ns = ["--namespace", namespace] if namespace else []
        return json.loads(self.run("get", resource, name, *ns, "--output", "json").stdout)


def go_missing() -> str | None:
    """Why the tool can't build here, or None."""
    go = os.environ.get("GO")
    if go:
        return None if os.access(go, os.X_OK) else f"GO={go} is not a program"
    return None if shutil.which("go") else "Go is not installed (no `go` on PATH)"


def say(config: pytest.Config, line: str) -> None:
    """Print a line to the terminal, past pytest's capture."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"kube-apiserver: {line}")


def start(directory: Path, config: pytest.Config | None = None, *, no_crds: bool = False) -> KubeAPIServer:
    """Run `up DIRECTORY` (with `--no-crds`: a bare server), printing its lines as they come to the
    terminal when given pytest's `config` (a first build takes minutes)."""
    args = ["--no-crds"] if no_crds else []
    # In a session of its own, so that an interrupted test run can end `up` and all it runs (kubeup
    # then stops the servers it started) rather than leave it starting servers no one will stop.
    proc = subprocess.Popen([str(TOOL / "up"), *args, str(directory)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if config is not None:
                say(config, lines[-1])
        proc.wait()
    except BaseException:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        _wait_group_gone(proc.pid)
        stop(directory)
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"tools/kube-apiserver/up exited {proc.returncode}:\n" + "\n".join(lines))
    env = dict(os.environ)
    env["KUBECONFIG"] = str(directory / "kubeconfig")
    env["PATH"] = f"{directory / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["KUBECACHEDIR"] = str(directory / "cache")
    return KubeAPIServer(directory, directory / "kubeconfig", directory / "bin" / "kubectl", env)


def _wait_group_gone(pgid: int, seconds: float = 15) -> None:
    """Wait while any process of the group runs (kubeup stopping the servers after SIGTERM)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def stop(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOL / "down"), str(directory)], capture_output=True, text=True, timeout=60)


