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
from dataclasses import dataclass

REQUEST_TIMEOUT = "60s"  # kubectl's own limit per request (a list is read in chunks of 500)
PROCESS_TIMEOUT = 300.0  # seconds: a kubectl still running by then is stopped


@dataclass(frozen=True)
class Run:
    """What one kubectl run gave: exit code, standard output, standard error."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str

    @property
    def ok(self) -> bool:
        return self.code == 0


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

    def run(self, *args: str, timeout: float = PROCESS_TIMEOUT) -> Run:
        """`kubectl ARGS...` with the context's flags; never raises for kubectl's own failures."""
        argv = [self.program, *self.flags(), *args]
        env = dict(os.environ, LC_ALL="C", LANG="C", KUBERC="off")
        try:
            proc = subprocess.run(argv, capture_output=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)
        except FileNotFoundError as e:
            raise Missing(f"`{self.program}` could not be run: {e.strerror or e}") from e
        except PermissionError as e:
            raise Missing(f"`{self.program}` is not executable: {e.strerror or e}") from e
        except subprocess.TimeoutExpired:
            return Run(tuple(args), -1, "", f"kubectl did not finish within {timeout:.0f} s")
        return Run(tuple(args), proc.returncode, proc.stdout.decode("utf-8", "replace"),
                   proc.stderr.decode("utf-8", "replace"))


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
    err = run.err
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
