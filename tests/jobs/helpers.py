"""Loading job manifests the way a user passes them, and asking the CLI."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.workspace import load

# Kueue's getting-started ClusterQueue setup (site/static/examples/admin/single-clusterqueue-setup.yaml).
SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: "default-flavor"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: "cluster-queue"
spec:
  namespaceSelector: {} # match all.
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
      - name: "memory"
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: "default"
  name: "user-queue"
spec:
  clusterQueue: "cluster-queue"
"""


def write(tmp: Path, **files: str) -> list[str]:
    """Write files (name=text, dedented; `__` in a name becomes `.`) and return their paths."""
    out = []
    for name, text in files.items():
        p = tmp / name.replace("__", ".")
        p.write_text(textwrap.dedent(text))
        out.append(str(p))
    return out


def model_of(tmp: Path, **files: str):
    ws = load(write(tmp, **files))
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    return ws.model


def run(*args, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def admit_json(*paths, input: str | None = None) -> dict:
    r = run("admit", *paths, "--format", "json", input=input)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)
