"""`kube_apiserver`: a real etcd and kube-apiserver with the CRDs kadmit reads, one per test session.

tools/kube-apiserver/up starts it in a temporary folder (building it from Go modules on first use) and
tools/kube-apiserver/down stops it at the end. Without Go the tests that use it are skipped, with the
reason printed, except under CI (`KADMIT_CI` set), where that is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from kube.server import KubeAPIServer, go_missing, say, start, stop


@pytest.fixture(scope="session")
def kube_apiserver(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[KubeAPIServer]:
    reason = go_missing()
    if reason:
        message = f"{reason}: tools/kube-apiserver builds etcd and kube-apiserver with Go"
        if os.environ.get("KADMIT_CI"):
            pytest.fail(f"under CI: {message}")
        say(request.config, f"skipping the tests that need it: {message}")
        pytest.skip(message)
    directory = tmp_path_factory.mktemp("kube-apiserver")
    try:
        server = start(directory, request.config)
    except RuntimeError as err:
        stop(directory)
        pytest.fail(str(err))
    try:
        yield server
    finally:
        done = stop(directory)
        if done.returncode != 0:
            raise AssertionError(f"tools/kube-apiserver/down exited {done.returncode}: {done.stderr}")
