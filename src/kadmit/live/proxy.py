"""Listing through one `kubectl proxy` on a private unix socket, instead of a `kubectl get` per batch.

kubectl's own `get` decodes the server's JSON and encodes it again (`-o json`: 1.0 s of CPU for 2,000 Jobs,
`-o yaml` 1.7 s, bench/live_gpu.py); `kubectl proxy` passes the server's answer through with the
kubeconfig's credentials (exec plugins, OIDC: kubectl's own), so the one kubectl process costs next to
nothing and every kind is one HTTP request, all at once. The socket is in a folder only this user may
enter (the proxy authenticates whoever connects), and the proxy is stopped when the read is done. A
request's failure is told as kubectl tells it (`Error from server (Forbidden): …`, the server's own
message), so `kubectl.failure` and `kubectl.message` read it alike. Where the proxy can't be started
(an old or unusual kubectl), the read falls back to `kubectl get` (`read._list_all`).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from urllib.parse import quote

from kadmit.live import kubectl as k
from kadmit.live.discover import Target

START_TIMEOUT = 30.0  # seconds for the proxy to listen
REQUEST_TIMEOUT = 60.0  # seconds per request (as `--request-timeout` for kubectl)
CONNECT_TRIES = 40  # connections refused in a row before a request fails (0.05 s apart)
CHUNK = 5000  # objects per page (the server's `limit`; kubectl get pages by 500)


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.socket_path)
        self.sock = sock


class Proxy:
    """A running `kubectl proxy` (`start`), to `get` lists from and to `close`."""

    def __init__(self, proc: subprocess.Popen, folder: str, path: str) -> None:
        self.proc, self.folder, self.path = proc, folder, path

    @classmethod
    def start(cls, kube: k.Kubectl) -> "Proxy | None":
        """The proxy listening, or None (it could not be started: the caller lists with `kubectl get`)."""
        folder = tempfile.mkdtemp(prefix="kadmit-proxy-")  # mode 0700: no other user may connect
        path = os.path.join(folder, "api")
        env = dict(os.environ, LC_ALL="C", LANG="C", KUBERC="off")
        try:
            proc = subprocess.Popen([kube.program, *kube.flags(), "proxy", f"--unix-socket={path}"], env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        proxy = cls(proc, folder, path)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(path):
                return proxy
            time.sleep(0.01)
        proxy.close()
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def get(self, target: Target, namespace: str | None = None,
            budget: k.Budget | None = None) -> tuple[list[dict] | None, k.Run | None]:
        """Every object of a kind (in every namespace, or in `namespace`), page by page: the objects as
        `kubectl get -o json` has them (`apiVersion` and `kind` on each, no `managedFields`; `live.emit` sorts
        the keys as kubectl does), or None and the failure as kubectl tells it (`cut`: the server sent more
        than the `budget` allows, or stalled, or closed the connection mid-answer)."""
        base = f"/api/{target.version}" if not target.group else f"/apis/{target.group}/{target.version}"
        ns = namespace or target.namespace
        url = f"{base}/namespaces/{quote(ns)}/{target.resource}" if ns else f"{base}/{target.resource}"
        shown = ("get", target.qualified) + (("--namespace", ns) if ns else ("--all-namespaces",) if target.namespaced else ())
        budget = budget or k.Budget(k.MAX_OUT)
        out: list[dict] = []
        token = ""
        while True:
            status, body, cut = self._request(f"{url}?limit={CHUNK}" + (f"&continue={quote(token)}" if token else ""),
                                              budget)
            if cut:
                return None, k.Run(shown, -1, "", "", cut)
            if status is None:
                return None, k.Run(shown, -1, "", body)
            try:
                got = json.loads(body)
            except ValueError:
                got = None
            if status != 200 or not isinstance(got, dict) or not isinstance(got.get("items"), list):
                return None, k.Run(shown, 1, "", _error(status, got, body))
            kind = str(got.get("kind") or "")
            kind = kind[:-4] if kind.endswith("List") else target.kind
            api_version = got.get("apiVersion") or (f"{target.group}/{target.version}" if target.group else target.version)
            for item in got["items"]:
                if isinstance(item, dict):
                    item.setdefault("apiVersion", api_version)
                    item.setdefault("kind", kind)
                    meta = item.get("metadata")
                    if isinstance(meta, dict):  # as kubectl get shows an object (--show-managed-fields=false)
                        meta.pop("managedFields", None)
                    out.append(item)
            token = str((got.get("metadata") or {}).get("continue") or "")
            if not token:
                return out, None

    def _request(self, url: str, budget: k.Budget) -> tuple[int | None, str, str]:
        """The status and body of one GET, or None and why the request failed; the third part says why the
        answer was cut (more than the budget, no complete answer within REQUEST_TIMEOUT, the connection
        closed mid-answer), when it was."""
        for attempt in range(CONNECT_TRIES):
            conn = _UnixConnection(self.path, REQUEST_TIMEOUT)
            try:
                conn.request("GET", url, headers={"Accept": "application/json"})
            except ConnectionRefusedError as e:  # the socket exists, the proxy not yet listening on it
                conn.close()
                if attempt + 1 == CONNECT_TRIES or self.proc.poll() is not None:
                    return None, f"kubectl proxy: {e}", ""
                time.sleep(0.05)
                continue
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                return None, f"kubectl proxy: {e}", ""
            try:
                return _answer(conn, budget)
            finally:
                conn.close()
        return None, "kubectl proxy: not listening", ""


def _answer(conn: _UnixConnection, budget: k.Budget) -> tuple[int | None, str, str]:
    """A sent request's answer, read within REQUEST_TIMEOUT in all (a watchdog shuts the socket at the
    deadline: a server that sends a byte now and then can't hold the read) and within the budget."""
    sock = conn.sock
    late = threading.Event()

    def expire() -> None:
        late.set()
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    watchdog = threading.Timer(REQUEST_TIMEOUT, expire)
    watchdog.daemon = True
    watchdog.start()
    chunks: list[bytes] = []
    received = 0
    try:
        response = conn.getresponse()
        while not late.is_set():
            chunk = response.read1(1 << 20)
            if not chunk:
                break
            received += len(chunk)
            if not budget.take(len(chunk)):
                return None, "", k.too_large("the server sent", budget.limit)
            chunks.append(chunk)
        if late.is_set():
            raise TimeoutError
        if response.length:  # `read1` ends quietly where the connection closed short of Content-Length
            raise http.client.IncompleteRead(b"", response.length)
    except (TimeoutError, socket.timeout):
        return None, "", f"no complete answer within {REQUEST_TIMEOUT:.0f} s ({received:,} bytes received)"
    except (OSError, http.client.HTTPException) as e:
        if late.is_set():
            return None, "", f"no complete answer within {REQUEST_TIMEOUT:.0f} s ({received:,} bytes received)"
        if received or isinstance(e, (http.client.IncompleteRead, http.client.RemoteDisconnected)):
            return None, "", f"the connection closed before the answer was complete ({received:,} bytes received): {e}"
        return None, f"kubectl proxy: {e}", ""
    finally:
        watchdog.cancel()
    return response.status, b"".join(chunks).decode("utf-8", "replace"), ""


def _error(status: int, got, body: str) -> str:
    """A failed request as kubectl tells it: `Error from server (Reason): message`."""
    if isinstance(got, dict) and got.get("kind") == "Status":
        return f"Error from server ({got.get('reason') or status}): {got.get('message') or body.strip()}"
    reason = {401: "Unauthorized", 403: "Forbidden", 404: "NotFound"}.get(status, str(status))
    what = "the server could not find the requested resource" if status == 404 else " ".join(body.split())[:300]
    return f"Error from server ({reason}): {what}"
