"""Running kubectl for one kubeconfig context, and what its failures mean.

kadmit reads a cluster only through `kubectl`, so that the kubeconfig's authentication (exec
plugins, OIDC, cloud credentials) works exactly as it does for the user's own kubectl. kubectl runs
with the caller's environment, except that its messages are kept in English (`LC_ALL=C`, they are
read here) and the user's kuberc preferences are off (`KUBERC=off`: an alias or a default output
format there must not change what `kubectl get -o yaml` prints).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

REQUEST_TIMEOUT = "60s"  # kubectl's own limit per request (a list is read in chunks of 500)
PROCESS_TIMEOUT = 300.0  # seconds: a kubectl still running by then is stopped
MAX_OUT = 64 * 1024 * 1024  # bytes of standard output read from one kubectl when the caller sets no limit
MAX_ERR = 1024 * 1024  # bytes of standard error kept (the rest is read and dropped: kubectl never blocks on it)


@dataclass(frozen=True)
class Run:
    """What one kubectl run gave: exit code, standard output, standard error."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str
    cut: str = ""  # why kadmit stopped reading it (too much output, no end in time): nothing it gave is used

    @property
    def ok(self) -> bool:
        return self.code == 0 and not self.cut


class Budget:
    """The bytes one kind's listing may still take (its pages and namespaces together): `--max-file-size`'s
    limit, which a kind's listing is held to as a file is; shared by the threads that list it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def left(self) -> int:
        with self._lock:
            return max(0, self.limit - self.used)

    def take(self, n: int) -> bool:
        """Count `n` more bytes; False once the listing has taken more than its limit."""
        with self._lock:
            self.used += n
            return self.used <= self.limit


def too_large(who: str, limit: int) -> str:
    """Why a read was cut for its size: `who` (kubectl printed, the server sent) more than `limit` bytes."""
    return (f"{who} more than {limit:,} bytes, the limit of `--max-file-size` (a kind's listing is held to it as "
            "a file is)")


class Missing(Exception):
    """kubectl can't be run: not found, not executable."""


@dataclass(frozen=True)
class Kubectl:
    """kubectl bound to a kubeconfig and context (None: kubectl's own defaults)."""

    program: str
    context: str | None = None
    kubeconfig: str | None = None

    @classmethod
    def find(cls, context: str | None = None, kubeconfig: str | None = None,
             program: str | None = None) -> "Kubectl":
        """The `kubectl` on PATH (or `program`), or Missing."""
        path = shutil.which(program or "kubectl")
        if path is None:
            raise Missing(f"`{program}` is not an executable program" if program else
                          "no `kubectl` on PATH")
        return cls(path, context, kubeconfig)

    def flags(self) -> list[str]:
        out = []
        if self.kubeconfig:
            out.append(f"--kubeconfig={self.kubeconfig}")
        if self.context:
            out.append(f"--context={self.context}")
        return out

    def run(self, *args: str, timeout: float = PROCESS_TIMEOUT, budget: Budget | None = None) -> Run:
        """`kubectl ARGS...` with the context's flags; never raises for kubectl's own failures. Bounded: a
        kubectl that prints more than the `budget` has left (MAX_OUT without one), or is still running after
        `timeout` seconds, is stopped, and the run is `cut` (its output dropped)."""
        argv = [self.program, *self.flags(), *args]
        env = dict(os.environ, LC_ALL="C", LANG="C", KUBERC="off")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env)
        except FileNotFoundError as e:
            raise Missing(f"`{self.program}` could not be run: {e.strerror or e}") from e
        except PermissionError as e:
            raise Missing(f"`{self.program}` is not executable: {e.strerror or e}") from e
        budget = budget or Budget(MAX_OUT)
        out, err, cut = _bounded(proc, timeout, budget.left())
        if not cut and not budget.take(len(out)):
            cut = "over"
        if cut == "over":
            cut = too_large("kubectl printed", budget.limit)
        if cut:
            return Run(tuple(args), -1, "", err.decode("utf-8", "replace"), cut)
        return Run(tuple(args), proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _bounded(proc: subprocess.Popen, timeout: float, max_out: int) -> tuple[bytes, bytes, str]:
    """A started kubectl's standard output and error, read as it runs, and why it was stopped ("" if it
    ended by itself): "over" (more than `max_out` bytes of output), or not done within `timeout` seconds."""
    out: list[bytes] = []
    err: list[bytes] = []
    over = threading.Event()

    def drain(stream, into: list[bytes], cap: int, stop: bool) -> None:
        size = 0
        while chunk := stream.read1(1 << 16):
            if size + len(chunk) > cap and stop:  # standard output past its limit: kubectl is stopped
                over.set()
                return
            if size < cap:  # standard error past its limit: read on and dropped, so kubectl never waits on it
                into.append(chunk[:cap - size])
            size += len(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, out, max_out, True), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err, MAX_ERR, False), daemon=True)]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + timeout
    cut = ""
    readers[0].join(max(0.0, deadline - time.monotonic()))
    if over.is_set():
        cut = "over"
    elif readers[0].is_alive():
        cut = f"kubectl did not finish within {timeout:.0f} s"
    else:
        readers[1].join(max(0.0, deadline - time.monotonic()))
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            cut = f"kubectl did not finish within {timeout:.0f} s"
    if cut:
        proc.kill()
        proc.wait()
    for reader in readers:
        reader.join(5)
    proc.stdout.close()
    proc.stderr.close()
    return b"".join(out), b"".join(err), cut


# --- what a failure means ----------------------------------------------------------------------

CONTEXT = "context"  # the kubeconfig or the context is unusable (nothing reached the network)
UNREACHABLE = "unreachable"
UNAUTHORIZED = "unauthorized"
FORBIDDEN = "forbidden"
NOT_SERVED = "not served"
OTHER = "other"

_KLOG = re.compile(r"^[EWI]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S+:\d+\] ")  # klog's own log lines
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (UNAUTHORIZED, re.compile(r"\(Unauthorized\)|must be logged in|getting credentials|"
                              r"exec plugin|executable .* not found|the server has asked for the client to "
                              r"provide credentials", re.I)),
    (CONTEXT, re.compile(r"context was not found for specified context|cannot locate context|"
                         r"current-context must exist|no context exists with the name|"
                         r"Error in configuration|error loading config file|couldn't get version/kind|"
                         r"invalid configuration|^error: stat |no such file or directory", re.I | re.M)),
    (FORBIDDEN, re.compile(r"\(Forbidden\)|is forbidden:", re.I)),
    (NOT_SERVED, re.compile(r"the server doesn't have a resource type|no matches for kind|"
                            r"the server could not find the requested resource", re.I)),
    (UNREACHABLE, re.compile(r"connection to the server .* was refused|Unable to connect to the server|"
                             r"dial tcp|no such host|i/o timeout|connection refused|TLS handshake|x509:|"
                             r"certificate|context deadline exceeded|Client\.Timeout|did not finish within|"
                             r"connection reset|\bEOF\b", re.I | re.M)),
)


def message(run: Run) -> str:
    """kubectl's own message: its standard error without klog's log lines, repeats or `error:`."""
    if run.cut:
        return run.cut
    lines = []
    for line in run.err.splitlines():
        line = line.strip()
        if not line or _KLOG.match(line):
            continue
        line = re.sub(r"^(error: |Error from server \(\w+\): )", "", line)
        if line not in lines:
            lines.append(line)
    if not lines:  # klog's lines were all there was
        lines = [ln.strip() for ln in run.err.splitlines() if ln.strip()][:1]
    text = "; ".join(lines) or f"kubectl exited {run.code} without a message"
    return text if len(text) <= 600 else text[:597] + "…"


def failure(run: Run) -> str:
    """What kind of failure a kubectl run that failed is (one of the names above)."""
    err = run.cut or run.err  # a run cut for time reads as unreachable, for size as other
    for kind, pattern in _PATTERNS:
        if kind == CONTEXT and _about_server(err):
            continue
        if pattern.search(err):
            return kind
    return OTHER


def _about_server(err: str) -> bool:
    """A message the server sent (Forbidden, NotFound, …) is never about the kubeconfig, even when it
    quotes words the kubeconfig patterns know."""
    return "Error from server" in err
