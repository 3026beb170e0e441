"""`kubectl create --dry-run=server -f -` of one object without a kubectl process: the same request over one
HTTPS connection per thread, and kubectl v1.35.3's words for the answer, byte for byte.

kubectl (k8s.io/kubectl pkg/cmd/create RunCreate) POSTs the object as JSON to its resource's collection with
`dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict`, in the kubeconfig context's namespace when the
object names none (resource.SetNamespace); the server's refusal is a Status, which kubectl prints as cmdutil's
checkErr does (helpers.go: `The KIND "NAME" is invalid: ` then the causes, deduplicated, one or one per `* ` line,
for reason Invalid; `Error from server (REASON): error when creating "STDIN": MESSAGE` for the others), after a
`Warning: ` line per warning the server sent (rest.WarningWriter, deduplicated). A kubectl process costs ~0.1 s
of CPU: 218 of them were 23 s of tests/kube/test_null_items (`CLIENT_CHECKS` there keeps real kubectl's word on
each form of answer)."""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import ssl
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlparse

import yaml

_WARNING = re.compile(r'\d{3} \S+ "((?:[^"\\]|\\.)*)"')


class DryRun:
    """Dry-run creates against the kubeconfig's current context (client certificate: tools/kube-apiserver's)."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(Path(kubeconfig).read_text())
        context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
        cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
        user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
        self.namespace = context.get("namespace") or "default"
        address = urlparse(cluster["server"])
        self.host, self.port = address.hostname, address.port or 443
        self.tls = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        with tempfile.TemporaryDirectory() as folder:  # ssl loads a client certificate from files only
            cert, key = Path(folder, "crt"), Path(folder, "key")
            cert.write_bytes(base64.b64decode(user["client-certificate-data"]))
            key.write_bytes(base64.b64decode(user["client-key-data"]))
            os.chmod(key, 0o600)
            self.tls.load_cert_chain(cert, key)
        self._local = threading.local()
        self._resources: dict[tuple[str, str], tuple[str, bool]] = {}
        self._lock = threading.Lock()

    def _request(self, method: str, path: str, body: bytes | None = None) -> http.client.HTTPResponse:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPSConnection(self.host, self.port, context=self.tls, timeout=60)
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=headers)
        return conn.getresponse()

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        """The kind's resource and whether it is namespaced, from discovery (as kubectl's REST mapper)."""
        with self._lock:
            if (api_version, kind) not in self._resources:
                got = self._request("GET", ("/api/" if "/" not in api_version else "/apis/") + api_version)
                listed = json.loads(got.read())
                for r in listed["resources"]:
                    if "/" not in r["name"]:
                        self._resources.setdefault((api_version, r["kind"]), (r["name"], r["namespaced"]))
            return self._resources[api_version, kind]

    def create(self, obj: dict) -> tuple[int, str]:
        """kubectl's exit code and standard error for `kubectl create --dry-run=server -f -` of `obj`."""
        obj = json.loads(json.dumps(obj))
        resource, namespaced = self._resource(obj["apiVersion"], obj["kind"])
        path = ("/api/" if "/" not in obj["apiVersion"] else "/apis/") + obj["apiVersion"]
        if namespaced:
            meta = obj.setdefault("metadata", {})
            meta["namespace"] = meta.get("namespace") or self.namespace
            path += f"/namespaces/{meta['namespace']}"
        body = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
        got = self._request("POST", f"{path}/{resource}?dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict",
                            body)
        answer = got.read()
        err = "".join(f"Warning: {w}\n" for w in dict.fromkeys(warnings(got.headers.get_all("Warning") or [])))
        if 200 <= got.status < 300:
            return 0, err
        return 1, err + refusal(json.loads(answer))


def warnings(headers: list[str]) -> list[str]:
    """The texts of `Warning` headers (`299 - "TEXT"`, RFC 7234: a header may hold several, comma-separated)."""
    return [re.sub(r"\\(.)", r"\1", m.group(1)) for h in headers for m in _WARNING.finditer(h)]


def refusal(status: dict) -> str:
    """kubectl's words (cmdutil.checkErr) for the Status the server refused a `create -f -` with."""
    reason, message, details = status.get("reason", ""), status.get("message", ""), status.get("details")
    if reason != "Invalid":
        message = f'error when creating "STDIN": {message}'  # cmdutil.AddSourceToErr
        if reason == "Unauthorized":
            return f"error: You must be logged in to the server ({message})\n"
        return (f"Error from server ({reason}): {message}" if reason else f"Error from server: {message}") + "\n"
    if details is None:
        return "The request is invalid" + (f': error when creating "STDIN": {message}' if message else "") + "\n"
    causes = details.get("causes") or []
    if details.get("kind") or details.get("name"):
        said = f"The {details.get('kind', '')} {go_quote(details.get('name', ''))} is invalid"
    else:
        said = "The request is invalid" + (f': error when creating "STDIN": {message}' if message and not causes
                                           else "")
    if not causes:
        return said + "\n"
    errors = list(dict.fromkeys(f"{c.get('field', '')}: {c.get('message', '')}" for c in causes))
    if len(errors) == 1:
        return f"{said}: {errors[0]}\n"
    return f"{said}: \n" + "".join(f"* {e}\n" for e in errors)


def go_quote(text: str) -> str:
    """Go's `%q` of a printable name (an object name is DNS characters): JSON's quoting agrees there."""
    assert text.isprintable(), text
    return json.dumps(text, ensure_ascii=False)
