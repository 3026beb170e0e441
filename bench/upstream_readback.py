"""Upstream example clusters as a cluster holds them: created on the real API server, read back with
`kubectl get -o yaml`, and decided by kadmit and by Kueue's own code (tools/kueue-oracle).

Each cluster folder (tests/corpus/upstream's, or those bench/upstream_sweep.py keeps with --out) is created
on tools/kube-apiserver's server (Kubernetes v1.35.3 with the CRDs Kueue v0.17.0 pins) as
tests/kube/cluster_state.load creates a folder, each object on its own so that one the server refuses
(strict field validation, as `kubectl create` asks) is named and the rest created, with the queue label
Kueue's webhook would add (`webhook_defaults`: no Kueue runs beside the server); then every kind it created
is read back in one `kubectl get KIND... --all-namespaces --show-managed-fields -o yaml` (a `List` with managedFields,
status, uids, creation times and the defaults the server fills in), written as `state.yaml` of a folder of
its own, and the server cleared for the next. Of each:
- kadmit must decide the read-back as Kueue does (tests/oracle/harness.compare, retried with 16 of Kueue's runs);
- kadmit must decide the read-back as it decides the files (every object's workloads' outcomes), but where the
  server's way explains it, said as a note (`--details`): an object Kueue's webhook refuses on create is created
  here (no Kueue runs), a Deployment's or StatefulSet's pods are made by no controller here;
- an object the server refuses must be one kadmit does not decide from the files either (a kind no CRD here
  serves is a note);
- `kadmit check` must report no error of the read-back it does not report of the files (new warnings are notes:
  the server's own objects, its defaults).

    PYTHONPATH=src:tests python bench/upstream_readback.py [--out DIR] [--details] [--kube KUBE] CLUSTER_DIR...

CLUSTER_DIR is a cluster folder or a folder of them. `--kube KUBE` uses a server already up
(tools/kube-apiserver/up KUBE) rather than starting one. Exit 0 when all agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from kube import cluster_state  # noqa: E402
from kube.server import KubeAPIServer, start, stop  # noqa: E402
from oracle.differential import RETRY_RUNS, oracle_each  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, variants  # noqa: E402

QUEUE = "kueue.x-k8s.io/queue-name"


def _resource(obj: dict) -> str:
    group, _, version = obj["apiVersion"].rpartition("/")
    return f"{obj['kind'].lower()}.{version}.{group}" if group else obj["kind"].lower()  # kubectl's names


def webhook_defaults(objects: list[dict]) -> None:
    """What Kueue's job and pod webhooks would add on create and no Kueue runs here to add: the queue label
    `default` (ApplyDefaultLocalQueue) on a job of an integrated kind (or a pod) that names no queue and no
    controlling owner, in a namespace whose LocalQueue `default` the folder holds. (A job read back without
    it is one Kueue's webhook never saw: kadmit and Kueue leave it alone, tests/corpus/upstream/readback-*.)"""
    from kadmit.manifests.jobs.kinds import INTEGRATIONS

    kinds = {(i.group, i.kind) for i in INTEGRATIONS} | {("", "Pod")}
    queues = {((o.get("metadata") or {}).get("namespace") or "default") for o in objects
              if o.get("kind") == "LocalQueue" and (o.get("metadata") or {}).get("name") == "default"}
    for o in objects:
        meta = o.setdefault("metadata", {})
        labels = meta.get("labels") or {}
        if (o.get("apiVersion", "").rpartition("/")[0], o.get("kind")) in kinds and QUEUE not in labels and \
                (meta.get("namespace") or "default") in queues and \
                not any(r.get("controller") for r in meta.get("ownerReferences") or []):
            meta["labels"] = {**labels, QUEUE: "default"}


def load(server, folder: Path) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """Create the folder's objects (cluster_state.load's way, each on its own); the objects created and
    kubectl's word on each it refused."""
    objects = cluster_state.documents(folder)
    webhook_defaults(objects)
    namespaces = [cluster_state.as_stored(o) for o in objects if o["kind"] == "Namespace"]
    if any(o["kind"] == "Configuration" for o in objects):  # into Kueue's ConfigMap (as_stored), in its namespace
        namespaces.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}})
    if namespaces:
        server.apply(yaml.safe_dump_all(namespaces, sort_keys=False))
    created, refused = [], []
    for obj in objects:
        if obj["kind"] == "Namespace":
            continue
        sent = cluster_state.as_stored(obj)
        proc = server.run("create", "-f", "-", input=yaml.safe_dump(sent, sort_keys=False), check=False)
        if proc.returncode == 0:
            created.append(sent)
        else:
            refused.append((obj["kind"], (obj.get("metadata") or {}).get("name"), " ".join(proc.stderr.split())[:400]))
    ready = [o["metadata"]["name"] for o in created if o["kind"] == "Node" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in (o.get("status") or {}).get("conditions", []))]
    if ready:
        server.run("taint", "nodes", *ready, "node.kubernetes.io/not-ready:NoSchedule-")
    return created, refused


def read_back(server, created: list[dict]) -> str:
    kinds = sorted({_resource(o) for o in created} | {"namespace"})
    return server.run("get", ",".join(kinds), "--all-namespaces", "--show-managed-fields", "-o", "yaml").stdout


def generated_names(state: Path) -> dict[str, str]:
    """Each read-back object the server named from a `generateName` -> the name the files give it."""
    out = {}
    for doc in yaml.safe_load_all(state.read_text()):
        for o in (doc or {}).get("items") or []:
            meta = o.get("metadata") or {}
            if meta.get("generateName"):
                ns = meta.get("namespace") or ""
                out[f"{o['kind']}/{ns}/{meta['name']}"] = f"{o['kind']}/{ns}/{meta['generateName']}"
    return out


def by_object(answer, rename: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Each object's workloads' outcomes (without whom they preempt: workload names differ by UID)."""
    out: dict[str, list[str]] = {}
    for name, obj in answer.objects.items():
        o = answer.outcomes[name]
        obj = re.sub(r"#\d+$", "", obj)  # the second of one generateName in the files
        out.setdefault((rename or {}).get(obj, obj), []).append(o.text().split(", preempt")[0])
    return {k: sorted(v) for k, v in out.items()}


def _unnamed(outcomes: list[str] | None) -> list[str] | None:
    """Outcomes without their pod sets' names."""
    return None if outcomes is None else [re.sub(r"(: |; )[0-9a-f]{8} ", r"\1", o) for o in outcomes]


def diagnostics(path: Path) -> list[str]:
    """`kadmit check`'s diagnostics (code and message, without where) on a folder."""
    from kadmit import api

    return sorted({f"{d.severity.name.lower()}[{d.code}] {d.message}" for d in api.check([str(path)]).diagnostics})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clusters", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, help="write the read-back folders here and keep them")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--kube", type=Path, help="use the API server up in this folder (tools/kube-apiserver/up KUBE) "
                    "rather than starting one")
    args = ap.parse_args()
    folders = []
    for c in args.clusters:
        folders.extend([c] if any(c.glob("*.yaml")) else sorted(p for p in c.iterdir() if p.is_dir()))
    # a cluster's own read-back (objects with UIDs: tests/corpus/upstream/readback-*) is not created again: the
    # server refuses what it generated (a Job's controller-uid selector)
    held = [f for f in folders if any((o.get("metadata") or {}).get("uid") for o in cluster_state.documents(f))]
    for f in held:
        print(f"left out: {f.name}: already a read-back (objects with UIDs)")
    folders = [f for f in folders if f not in held]
    out = args.out or Path(tempfile.mkdtemp(prefix="kadmit-readback-"))
    out.mkdir(parents=True, exist_ok=True)
    server_dir = Path(tempfile.mkdtemp(prefix="kadmit-readback-server-")) if args.kube is None else args.kube
    server = start(server_dir) if args.kube is None else KubeAPIServer(
        args.kube, args.kube / "kubeconfig", args.kube / "bin" / "kubectl",
        dict(os.environ, KUBECONFIG=str(args.kube / "kubeconfig"), KUBECACHEDIR=str(args.kube / "cache")))
    refused: dict[Path, list[tuple[str, str, str]]] = {}
    backs: dict[Path, Path] = {}
    try:
        for f in folders:
            created, refused[f] = load(server, f)
            back = out / f.name
            back.mkdir(parents=True, exist_ok=True)
            (back / "state.yaml").write_text(read_back(server, created))
            backs[f] = back
            kinds = sorted({_resource(o) for o in created if o["kind"] != "PriorityClass"})
            if kinds:  # and the priority classes the files made
                cluster_state.clear(server, [(k, True) for k in kinds])
            elif classes := [o["metadata"]["name"] for o in created if o["kind"] == "PriorityClass"]:
                server.run("delete", "priorityclasses", *classes)
    finally:
        if args.kube is None:
            stop(server_dir)
            shutil.rmtree(server_dir, ignore_errors=True)
    answers = oracle_each(oracle_binary(), list(backs.values()))
    bad = 0
    for f, back in backs.items():
        lines, notes = [], []
        kueue = answers[str(back)]
        code, kadmit = run_kadmit([str(back)])
        _, files = run_kadmit([str(f)])
        skipped = {} if files is None else from_kadmit(files).skipped
        for kind, name, why in refused[f]:
            # a nameless object (MPI Operator's docs' Secret) is listed by kadmit with the name ""
            told = next((r for o, r in skipped.items() if o.startswith(f"{kind}/") and o.endswith(f"/{name or ''}")),
                        None)
            if "no matches for kind" in why:  # no CRD serves it here: kadmit lists it as not read or not served
                notes.append(f"not served by this server: {kind}/{name}")
            elif told is not None:
                notes.append(f"refused by the server and not decided by kadmit ({told[:120]}): {kind}/{name}: {why}")
            else:
                lines.append(f"refused by the server, decided by kadmit: {kind}/{name}: {why}")
        if "error" in kueue:
            lines.append("the oracle failed: " + kueue["error"][:300])
        elif kadmit is None:
            lines.append(f"kadmit refused the read-back (exit {code})")
        else:
            k, q = from_kadmit(kadmit), from_oracle(kueue)
            result = compare(k, q, alternatives=variants(kueue))
            if not result.agree:
                kueue = oracle_each(oracle_binary(), [back], runs=RETRY_RUNS)[str(back)]
                q = from_oracle(kueue)
                result = compare(k, q, alternatives=variants(kueue))
            if not result.agree:
                lines.append("kadmit and Kueue differ on the read-back:\n" + result.report(k, q))
            if files is not None:
                a, b = by_object(from_kadmit(files)), by_object(k, generated_names(back / "state.yaml"))
                for obj in sorted(a.keys() | b.keys()):
                    if a.get(obj) == b.get(obj):
                        continue
                    why = skipped.get(obj, "")
                    if why.startswith("Kueue's webhook refuses it"):
                        notes.append(f"created without Kueue's webhook, which refuses it: {obj}")
                    elif obj.split("/")[0] in ("Deployment", "StatefulSet") and b.get(obj) is None:
                        notes.append(f"no controller made its pods on this server: {obj}")
                    elif obj.startswith("Pod/") and _unnamed(a.get(obj)) == _unnamed(b.get(obj)):
                        notes.append(f"a pod group's pod set is named by Kueue's hash of the stored pod spec, which "
                                     f"the server's defaults change: {obj}: {a.get(obj)} / {b.get(obj)}")
                    else:
                        lines.append(f"files and read-back decided apart: {obj}: {a.get(obj)} / {b.get(obj)}")
        before = diagnostics(f)
        for d in sorted(set(diagnostics(back)) - set(before)):
            (lines if d.startswith("error") else notes).append(f"check says of the read-back only: {d}")
        bad += bool(lines)
        print(f"{'agree' if not lines else 'DIFFER'}: {f.name}")
        for line in lines + (notes if args.details else []):
            print("  " + line.replace("\n", "\n  "))
    print(f"all: {len(backs) - bad} of {len(backs)} read-backs agree")
    if args.out is None:
        shutil.rmtree(out, ignore_errors=True)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
