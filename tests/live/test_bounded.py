"""Every read of a cluster is bounded (live.kubectl, live.proxy): a kubectl that prints more than a kind's
limit or never ends is stopped, and an answer through `kubectl proxy` that is too large, stalls (even a byte
now and then) or is cut mid-body is `cut`, with why, within the request timeout, never a traceback or a hang.
The servers here are local sockets and programs that misbehave at the transport (no Kubernetes is mocked);
what the read makes of a cut listing, a KAD039 error naming the kind, is checked against the real API server
in tests/kube/test_live.py."""

from __future__ import annotations

import socket
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from kadmit.live import kubectl as k
from kadmit.live import proxy as p
from kadmit.live.discover import Target
from kadmit.live.read import _kubectl_get, _listed

JOBS = Target("batch", "Job", "jobs", "v1", True)
PAGE = b'{"kind":"JobList","apiVersion":"batch/v1","metadata":{},"items":[{"metadata":{"name":"a","namespace":"n"}}]}'


def program(tmp_path: Path, body: str) -> k.Kubectl:
    """A program in kubectl's place that does `body` (a shell line) whatever it is asked."""
    path = tmp_path / "kubectl"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return k.Kubectl(str(path))


# --- kubectl's standard output ---------------------------------------------------------------------

def test_a_kubectl_that_prints_without_end_is_stopped_at_the_kinds_limit(tmp_path: Path) -> None:
    kube = program(tmp_path, "exec yes")
    started = time.monotonic()
    docs, run = _kubectl_get(kube, JOBS, None, k.Budget(100_000))
    assert docs is None and run is not None and not run.ok
    assert run.cut == ("kubectl printed more than 100,000 bytes, the limit of `--max-file-size` (a kind's listing is "
                       "held to it as a file is)")
    assert time.monotonic() - started < 10
    listed = _listed(JOBS, docs, run)
    assert (listed.cut, listed.failed) == (f"in every namespace: {run.cut}", None)


def test_a_kubectl_within_the_limit_is_read_whole_and_counted(tmp_path: Path) -> None:
    (tmp_path / "page.json").write_bytes(PAGE)
    kube = program(tmp_path, f"exec cat {tmp_path / 'page.json'}")
    budget = k.Budget(len(PAGE) * 2)
    docs, run = _kubectl_get(kube, JOBS, None, budget)
    assert run is None and docs == [{"metadata": {"name": "a", "namespace": "n"}}]
    assert budget.left() == len(PAGE)  # the next namespace of the same kind has what is left
    docs, run = _kubectl_get(kube, JOBS, "other", budget)
    assert docs is not None
    docs, run = _kubectl_get(kube, JOBS, "third", budget)  # the kind's listing is now over its limit
    assert docs is None and run is not None and "more than" in run.cut


def test_a_kubectl_that_never_ends_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    kube = program(tmp_path, "echo partial; echo waiting >&2; exec sleep 60")
    started = time.monotonic()
    run = kube.run("get", "jobs", timeout=1.0)
    assert time.monotonic() - started < 5
    assert (run.ok, run.out, run.cut) == (False, "", "kubectl did not finish within 1 s")
    assert k.message(run) == "kubectl did not finish within 1 s" and k.failure(run) == k.UNREACHABLE


def test_a_kubectl_that_writes_much_to_standard_error_is_not_blocked(tmp_path: Path) -> None:
    kube = program(tmp_path, "head -c 5000000 /dev/zero | tr '\\0' e >&2; echo done; exit 3")
    run = kube.run("get", "jobs", timeout=30)
    assert (run.code, run.out, run.cut) == (3, "done\n", "")
    assert len(run.err) == k.MAX_ERR  # kept up to its limit, the rest read and dropped


# --- answers through `kubectl proxy` ---------------------------------------------------------------

@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[Callable[[socket.socket], None]], p.Proxy]]:
    """A unix socket answering every connection with `answer(conn)`, as a Proxy to `get` from."""
    path = str(tmp_path / "api")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    stop = threading.Event()
    threads = []

    def start(answer: Callable[[socket.socket], None]) -> p.Proxy:
        def loop() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                conn.recv(65536)  # the request
                try:
                    answer(conn)
                except OSError:
                    pass
                finally:
                    conn.close()
        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        threads.append(thread)
        return p.Proxy(SimpleNamespace(poll=lambda: None), str(tmp_path), path)  # type: ignore[arg-type]

    yield start
    stop.set()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wake:  # the accept() waiting sees `stop`
        wake.connect(path)
    listener.close()
    for thread in threads:
        thread.join(5)


def head(length: int | None = None) -> bytes:
    size = f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{size}\r\n".encode()


def test_an_answer_within_the_limit_is_read(serve) -> None:
    proxy = serve(lambda conn: conn.sendall(head(len(PAGE)) + PAGE))
    docs, run = proxy.get(JOBS, None, k.Budget(10_000))
    assert run is None and docs == [{"metadata": {"name": "a", "namespace": "n"}, "apiVersion": "batch/v1",
                                     "kind": "Job"}]


def test_a_server_that_sends_more_than_the_limit_is_cut_at_it(serve) -> None:
    def endless(conn: socket.socket) -> None:
        conn.sendall(head())
        chunk = b" " * 65536
        for _ in range(1000):  # 64 MiB, chunked, far past the limit
            conn.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
    proxy = serve(endless)
    docs, run = proxy.get(JOBS, "team-a", k.Budget(1_000_000))
    assert docs is None and run is not None
    assert run.cut == ("the server sent more than 1,000,000 bytes, the limit of `--max-file-size` (a kind's listing "
                       "is held to it as a file is)")
    assert run.args == ("get", "jobs.v1.batch", "--namespace", "team-a")


@pytest.mark.parametrize("trickle", [False, True], ids=["silent", "a byte now and then"])
def test_a_server_that_stalls_is_cut_at_the_request_timeout(serve, monkeypatch: pytest.MonkeyPatch,
                                                           trickle: bool) -> None:
    monkeypatch.setattr(p, "REQUEST_TIMEOUT", 1.0)

    def stall(conn: socket.socket) -> None:
        conn.sendall(head(len(PAGE)) + PAGE[:10])
        if not trickle:
            conn.recv(1)  # silent until the reader gives up and closes
        while trickle:  # each byte well within the socket's timeout: only the deadline ends it
            time.sleep(0.25)
            conn.sendall(b" ")  # fails once the reader has given up
    proxy = serve(stall)
    started = time.monotonic()
    docs, run = proxy.get(JOBS, None, k.Budget(10_000))
    assert time.monotonic() - started < 5
    assert docs is None and run is not None
    assert run.cut.startswith("no complete answer within 1 s (") and run.cut.endswith(" bytes received)"), run.cut


def test_a_server_that_closes_mid_answer_is_cut(serve) -> None:
    proxy = serve(lambda conn: conn.sendall(head(len(PAGE)) + PAGE[:20]))
    docs, run = proxy.get(JOBS, None, k.Budget(10_000))
    assert docs is None and run is not None
    assert run.cut.startswith("the connection closed before the answer was complete (20 bytes received): "), run.cut


def test_a_server_that_closes_without_an_answer_is_cut(serve) -> None:
    proxy = serve(lambda conn: None)
    docs, run = proxy.get(JOBS, None, k.Budget(10_000))
    assert docs is None and run is not None
    assert run.cut.startswith("the connection closed before the answer was complete (0 bytes received): "), run.cut


# --- which failed listings stop the read -----------------------------------------------------------

@pytest.mark.parametrize("err,cut", [
    ("Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while awaiting headers)",
     True),
    ("The connection to the server 10.0.0.1:6443 was refused - did you specify the right host or port?", True),
    ("kubectl proxy: [Errno 111] Connection refused", True),
    ('Error from server (Forbidden): jobs.batch is forbidden: User "u" cannot list resource "jobs"', False),
    ('Error from server (InternalError): Internal error occurred: conversion webhook for kueue.x-k8s.io/v1beta1, '
     'Kind=Workload failed: Post "https://kueue-webhook-service.kueue-system.svc:443/convert": dial tcp '
     '10.96.0.7:443: connect: connection refused', False),
    ("error: the server doesn't have a resource type \"jobs\"", False),
])
def test_a_server_that_stops_answering_stops_the_read_and_its_own_errors_leave_a_kind_out(err: str, cut: bool) -> None:
    """After discovery answered, a listing that times out or finds the server gone is half a state (KAD039, the
    read stops); a refusal, a kind not served, or the server's own error for one kind (a CRD's conversion webhook
    down, quoting the refused connection to it) leaves that kind out with a warning (KAD034)."""
    listed = _listed(JOBS, None, k.Run(("get", "jobs.v1.batch", "--all-namespaces"), 1, "", err))
    assert (listed.cut is not None, listed.failed is not None) == (cut, not cut)
    if cut:
        assert listed.cut == f"in every namespace: the server stopped answering: {k.message(k.Run((), 1, '', err))}"
