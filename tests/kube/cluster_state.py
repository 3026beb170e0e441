"""Putting a folder of manifests into the test API server as a cluster would hold them, and clearing it.

The server keeps what `kubectl create` sends, with these differences from the files, each handled here:
- it stores Kueue's objects as `v1beta2` with no conversion webhook (v1beta1 fields would be pruned, not
  converted: tools/kube-apiserver/README.md), so v1beta1 objects are written as Kueue's own conversion
  (apis/kueue/v1beta1/*_conversion.go) makes them: a ClusterQueue's `cohort` becomes `cohortName`, a Workload's `priorityClassName`/`priorityClassSource`
  become `priorityClassRef`, its topology assignment's domains one slice;
- it ignores `status` on create for kinds with a status subresource, so each Workload's status (its
  admission) is written afterwards through that subresource;
- its admission (TaintNodesByCondition) taints every new Node `node.kubernetes.io/not-ready:NoSchedule`, which
  a cluster's node lifecycle controller removes once the node's Ready condition is True (no controller runs
  here), so it is removed from the nodes that are Ready;
- no Kueue runs beside it, so the label Kueue's pod webhook adds to the pods it manages on create
  (`kueue.x-k8s.io/managed: "true"`, for pods with a queue name or a pod-group name that no controller
  owns) is added here: without it a pod the server holds is one Kueue never managed (pod.Skip);
- it stamps `metadata.creationTimestamp` itself, so objects are created in the order of the files'
  creation times, one second apart where those differ (queue order is by creation time; equal times stay
  equal), which keeps every decision's order; the nodes' taints and the Workloads' status (above) are written
  while the next second is awaited.
Kueue's Configuration document goes into the ConfigMap Kueue's installation reads it from.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml

from kadmit.manifests.jobs.common import workload_name
from kube.server import KubeAPIServer

KUEUE = "kueue.x-k8s.io"
CONFIG_MAP = "kueue-manager-config"
ORACLE = Path(__file__).resolve().parents[2] / "tools" / "kueue-oracle"  # its go.mod pins Kueue's module
CHUNK = 400  # objects per `kubectl create` of `load_jobs`


def documents(folder: Path) -> list[dict]:
    """Every object of the folder's YAML files (Lists flattened), in file order."""
    out = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name.endswith(".kadtest.yaml"):
            continue
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                out.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    return out


def as_stored(obj: dict) -> dict:
    """The object as it can be created on the server (Kueue's v1beta1 converted, Configuration in its
    ConfigMap), without the server's own metadata."""
    obj = json.loads(json.dumps(obj))
    if obj.get("kind") == "Configuration":
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": CONFIG_MAP, "namespace": "kueue-system"},
                "data": {"controller_manager_config.yaml": yaml.safe_dump(obj, sort_keys=False)}}
    meta = obj.get("metadata", {})
    for key in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
        meta.pop(key, None)
    labels = meta.get("labels") or {}
    if obj["kind"] == "Pod" and (f"{KUEUE}/queue-name" in labels or f"{KUEUE}/pod-group-name" in labels) \
            and not any(ref.get("controller") for ref in meta.get("ownerReferences") or []):
        meta["labels"] = {**labels, f"{KUEUE}/managed": "true"}  # what Kueue's pod webhook adds
    if obj["apiVersion"] == f"{KUEUE}/v1beta1":
        obj["apiVersion"] = f"{KUEUE}/v1beta2"
        if obj["kind"] == "Workload":
            _workload_v1beta2(obj)
        elif obj["kind"] == "ClusterQueue" and "cohort" in obj.get("spec", {}):
            obj["spec"]["cohortName"] = obj["spec"].pop("cohort")  # clusterqueue_conversion.go
    return obj


def _workload_v1beta2(wl: dict) -> None:
    spec = wl.get("spec") or {}  # none in Kueue's KEPs 3258 and 2941 (a Workload's status shown alone)
    source, name = spec.pop("priorityClassSource", None), spec.pop("priorityClassName", None)
    if name and source == f"{KUEUE}/workloadpriorityclass":
        spec["priorityClassRef"] = {"group": KUEUE, "kind": "WorkloadPriorityClass", "name": name}
    elif name and source == "scheduling.k8s.io/priorityclass":
        spec["priorityClassRef"] = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": name}
    status = wl.get("status") or {}
    if "accumulatedPastExexcutionTimeSeconds" in status:
        status["accumulatedPastExecutionTimeSeconds"] = status.pop("accumulatedPastExexcutionTimeSeconds")
    for psa in (status.get("admission") or {}).get("podSetAssignments", []):
        ta = psa.get("topologyAssignment")
        if ta and "domains" in ta:
            domains = ta.pop("domains")
            ta["slices"] = [{"domainCount": len(domains),
                             "valuesPerLevel": [{"individual": {"roots": [d["values"][i] for d in domains]}}
                                                for i in range(len(ta["levels"]))],
                             "podCounts": {"individual": [d["count"] for d in domains]}}]


def _created(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("creationTimestamp") or ""


def load(server: KubeAPIServer, folder: Path) -> list[dict]:
    """Create the folder's objects on the server (see the module's docstring); returns them as sent."""
    objects = documents(folder)
    namespaces = [o for o in objects if o["kind"] == "Namespace"]
    if any(o["kind"] == "Configuration" for o in objects):
        namespaces.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}})
    if namespaces:  # namespaces outlive a `clear` (no controller-manager deletes them): applied, not created
        server.apply(yaml.safe_dump_all([as_stored(o) for o in namespaces], sort_keys=False))
    rest = [o for o in objects if o["kind"] != "Namespace"]
    times = sorted({_created(o) for o in rest})
    sent, last = [], time.time()  # the namespaces' second at the latest
    for stamp in times:
        group = [as_stored(o) for o in rest if _created(o) == stamp]
        if stamp:  # objects of one instant get one second of the server's clock, after the previous ones'
            _after(last)
        stored = _create_together(server, group) if stamp else _create(server, group)
        assert len(stored) == len(group), (len(stored), len(group))
        _settle(server, group)  # within the wait for the next second
        last = max([last, *(_stamped(o) for o in stored)])
        sent.extend(group)
    return sent


def _create_together(server: KubeAPIServer, group: list[dict]) -> list[dict]:
    """`_create` of a group of one creation time, all stamped with one second: created early in a second (after
    `_after`'s wait, the usual case, at once), and where the server's stamps still differ (a slow `kubectl create`
    under load straddling a second boundary), deleted and created again in the next second: up to six times (a
    merge train's load of ~23 on 2 cores straddled three times running with 37 objects)."""
    for _ in range(6):
        if len(group) > 1 and time.time() % 1 > 0.5:  # too late in this second for a group: the next one
            _after(time.time())
        stored = _create(server, group)
        seconds = {_stamped(o) for o in stored}
        if len(seconds) <= 1:
            return stored
        _delete(server, stored)
        _after(max(seconds))
    raise AssertionError(f"{len(group)} objects of one creation time stamped with different seconds six times")


def _delete(server: KubeAPIServer, stored: list[dict]) -> None:
    """Delete objects just created (their finalizers removed first: no controller runs), waiting until gone."""
    for item in stored:
        meta = item["metadata"]
        if meta.get("finalizers"):
            ns = ["--namespace", meta["namespace"]] if meta.get("namespace") else []
            server.run("patch", _resource(item), meta["name"], *ns, "--type=merge",
                       "--patch", '{"metadata":{"finalizers":null}}')
    server.run("delete", "-f", "-", "--wait=true", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": stored}))


def _resource(item: dict) -> str:
    """An object's resource as kubectl names it: its kind's singular name, version and group."""
    group, _, version = item["apiVersion"].rpartition("/")
    return f"{item['kind'].lower()}.{version}.{group}"


def _stamped(stored: dict) -> float:
    """The second the server stamped an object it created with (`metadata.creationTimestamp`), as a Unix time."""
    at = datetime.strptime(stored["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
    return at.replace(tzinfo=timezone.utc).timestamp()


def _after(second: float) -> None:
    """Wait until this machine's clock (the server's) is past the second `second` is in: no longer (a kubectl that
    took a while to end may have ended in a later second than the server stamped its objects with)."""
    time.sleep(max(0.0, math.floor(second) + 1.02 - time.time()))


def _settle(server: KubeAPIServer, created: list[dict]) -> None:
    """What the objects just created need besides: the Ready nodes untainted, each Workload's status written."""
    ready = [o["metadata"]["name"] for o in created if o["kind"] == "Node" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in (o.get("status") or {}).get("conditions", []))]
    if ready:
        server.run("taint", "nodes", *ready, "node.kubernetes.io/not-ready:NoSchedule-")
    for obj in created:
        if obj.get("status") and obj["kind"] == "Workload":
            meta = obj["metadata"]
            server.run("patch", f"workloads.v1beta2.{KUEUE}", meta["name"], "--namespace", meta["namespace"],
                       "--subresource=status", "--type=merge", "--patch", json.dumps({"status": obj["status"]}))


def _create(server: KubeAPIServer, objects: list[dict]) -> list[dict]:
    """`kubectl create` of the objects; as the server stored them."""
    if not objects:
        return []
    return _printed(server.run("create", "-f", "-", "-o", "json", input=yaml.safe_dump_all(objects, sort_keys=False)))


def clear(server: KubeAPIServer, resources: list[tuple[str, bool]]) -> None:
    """Delete every object of `resources` ((resource.version.group, namespaced)) but namespaces and the
    server's own priority classes (namespaces can't be deleted without a controller-manager); finalizers
    are removed first, as no controller runs to remove them. A handful of kubectl runs in all."""
    kinds = [r for r, _ in resources if not r.startswith(("namespaces.", "priorityclasses."))]
    listed = json.loads(server.run("get", ",".join(kinds), "--all-namespaces", "-o", "json").stdout)["items"]
    for item in listed:
        meta = item["metadata"]
        if meta.get("finalizers"):
            ns = ["--namespace", meta["namespace"]] if meta.get("namespace") else []
            server.run("patch", _resource(item), meta["name"], *ns, "--type=merge", "--patch", '{"metadata":{"finalizers":null}}')
    if listed:
        server.run("delete", ",".join(kinds), "--all", "--all-namespaces", "--wait=false")
    classes = json.loads(server.run("get", "priorityclasses", "-o", "json").stdout)["items"]
    names = [c["metadata"]["name"] for c in classes if not c["metadata"]["name"].startswith("system-")]
    if names:
        server.run("delete", "priorityclasses", *names, "--wait=false")


def _create_all(server: KubeAPIServer, objects: list[dict]) -> list[dict]:
    """`kubectl create` in chunks, in order; the objects as stored."""
    out = []
    for i in range(0, len(objects), CHUNK):
        chunk = {"apiVersion": "v1", "kind": "List", "items": objects[i:i + CHUNK]}
        out += _printed(server.run("create", "-f", "-", "-o", "json", input=json.dumps(chunk)))
    return out


def _printed(got: subprocess.CompletedProcess[str]) -> list[dict]:
    """The objects `kubectl create -o json` printed: one JSON object per object created, one after the other."""
    out, decoder, text, at = [], json.JSONDecoder(), got.stdout, 0
    while at < len(text.rstrip()):
        body, at = decoder.raw_decode(text, at)
        out.extend(body["items"] if body.get("kind") == "List" else [body])
        while at < len(text) and text[at].isspace():
            at += 1
    return out


def _write_status(server: KubeAPIServer, stored: list[dict], status: dict[tuple[str, str], dict]) -> None:
    """Each stored object's status (by namespace/name) through the status subresource, in chunks."""
    objs = []
    for o in stored:
        key = (o["metadata"]["namespace"], o["metadata"]["name"])
        if key in status:
            objs.append({**o, "status": status[key]})
    for i in range(0, len(objs), CHUNK):
        server.run("replace", "--subresource=status", "-f", "-",
                   input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs[i:i + CHUNK]}))


def kueue_installed(go: str | None = None) -> dict[str, str]:
    """Kueue's namespace and ConfigMap as Kueue v0.17.0's installation creates them (config/components/manager:
    kustomize puts `controller_manager_config.yaml` in `manager-config`, prefixed `kueue-`, with no hash), as one
    file of manifest text (relative path -> text, as bench/gpu_states.py's files): the Configuration's text is
    read from the Kueue module tools/kueue-oracle pins (`go list -m`), as the install has it, comments and all."""
    go = go or shutil.which("go") or "/usr/local/go/bin/go"
    found = subprocess.run([go, "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue"], cwd=ORACLE, capture_output=True,
                           text=True, check=True)
    text = (Path(found.stdout.strip()) / "config" / "components" / "manager" / "controller_manager_config.yaml").read_text()
    body = "".join(f"    {line}\n" if line.strip() else "\n" for line in text.splitlines())
    return {"cluster/kueue-system.yaml": f"""\
apiVersion: v1
kind: Namespace
metadata:
  name: kueue-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {CONFIG_MAP}
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
{body}"""}


def load_jobs(server: KubeAPIServer, files: dict[str, str]) -> dict[str, int]:
    """Create a state of batch Jobs and the Workloads Kueue made of the running ones (bench/gpu_states.py:
    relative path -> YAML text) on the server as Kueue would hold it, in a few kubectl runs rather than
    `load`'s one second per creation time: namespaces, then the Kueue objects; the Jobs in the order of
    their creation times (the server stamps its own, so Jobs created in one second are queued by UID as
    Kueue does, where the files' times may have ordered them otherwise: `as_held` gives the files of what
    the server holds); each Job's status through the status subresource; each Workload named and owned as
    Kueue names it from its Job's UID on this server (`workload_name`), its pod set's template the Job's as
    the server holds it (`job_pod_template`), its status (its admission) through the status subresource; Kueue's ConfigMap when the files hold it (`kueue_installed`). How many objects of
    each kind were created."""
    docs = [d for text in files.values() for d in yaml.safe_load_all(text) if d]
    by_kind: dict[str, list[dict]] = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    server.apply(yaml.safe_dump_all([as_stored(o) for o in by_kind["Namespace"]], sort_keys=False))
    _create_all(server, [as_stored(o) for kind in ("ConfigMap", "ResourceFlavor", "WorkloadPriorityClass",
                                                   "ClusterQueue", "LocalQueue") for o in by_kind.get(kind, [])])
    jobs = sorted(by_kind["Job"], key=lambda j: j["metadata"]["creationTimestamp"])  # stable: file order in a tie
    old_uid = {(j["metadata"]["namespace"], j["metadata"]["name"]): j["metadata"].get("uid") for j in jobs}
    job_status = {(j["metadata"]["namespace"], j["metadata"]["name"]): j["status"] for j in jobs if j.get("status")}
    stored = _create_all(server, [as_stored(j) for j in jobs])
    _write_status(server, stored, job_status)
    new_uid = {old_uid[o["metadata"]["namespace"], o["metadata"]["name"]]: o["metadata"]["uid"]
               for o in stored if old_uid.get((o["metadata"]["namespace"], o["metadata"]["name"]))}
    held = {o["metadata"]["uid"]: o for o in stored}
    workloads, wl_status = [], {}
    for wl in sorted(by_kind.get("Workload", []), key=lambda w: w["metadata"]["creationTimestamp"]):
        wl = as_stored(wl)
        meta = wl["metadata"]
        owner = meta["ownerReferences"][0]
        uid = new_uid[owner["uid"]]
        owner["uid"] = uid
        (pod_set,) = wl["spec"]["podSets"]  # a batch Job's one pod set, `main`
        pod_set["template"] = job_pod_template(held[uid])
        meta["labels"]["kueue.x-k8s.io/job-uid"] = uid
        meta["name"] = workload_name("Job", "batch", owner["name"], uid)
        wl_status[meta["namespace"], meta["name"]] = wl.pop("status")
        workloads.append(wl)
    _write_status(server, _create_all(server, workloads), wl_status)
    return {kind: len(v) for kind, v in sorted(by_kind.items())}


def job_pod_template(job: dict) -> dict:
    """The pod template Kueue gives the Workload it makes of a batch Job as the server holds it (Job.PodSets:
    the Job's template, copied, with the server's defaults in its containers, imagePullPolicy,
    terminationMessagePath...; `cleanLabels` drops the Job controller's labels but `batch.kubernetes.io/job-name`),
    so that the Workload is in step with its Job (EquivalentToWorkload, equality.ComparePodSets)."""
    template = json.loads(json.dumps(job["spec"]["template"]))
    labels = (template.get("metadata") or {}).get("labels") or {}
    for label in ("job-name", "controller-uid", "batch.kubernetes.io/controller-uid"):
        labels.pop(label, None)
    return template


def as_held(server: KubeAPIServer, files: dict[str, str]) -> dict[str, str]:
    """The files `load_jobs` created with what the server assigned written in: each Job's and Workload's
    UID and creation time, each Workload's name and its owner's UID: the state the server holds (Kueue's
    queue order is by creation time, then by UID); files without Jobs or Workloads as they are."""
    listed = json.loads(server.run("get", f"jobs.batch,workloads.{KUEUE}", "--all-namespaces",
                                   "-o", "json").stdout)["items"]
    jobs = {(o["metadata"]["namespace"], o["metadata"]["name"]): o["metadata"] for o in listed if o["kind"] == "Job"}
    wls = {(o["metadata"]["namespace"], o["metadata"]["ownerReferences"][0]["name"]): o["metadata"]
           for o in listed if o["kind"] == "Workload"}
    out = {}
    for path, text in files.items():
        docs = [d for d in yaml.safe_load_all(text) if d]
        for d in docs:
            meta = d["metadata"]
            if d["kind"] == "Job":
                got = jobs[meta["namespace"], meta["name"]]
                meta["uid"], meta["creationTimestamp"] = got["uid"], got["creationTimestamp"]
            elif d["kind"] == "Workload":
                got = wls[meta["namespace"], meta["ownerReferences"][0]["name"]]
                meta["uid"], meta["creationTimestamp"], meta["name"] = got["uid"], got["creationTimestamp"], got["name"]
                meta["ownerReferences"][0]["uid"] = meta["labels"]["kueue.x-k8s.io/job-uid"] = \
                    got["ownerReferences"][0]["uid"]
        held = any(d["kind"] in ("Job", "Workload") for d in docs)
        out[path] = yaml.safe_dump_all(docs, sort_keys=False) if held else text  # the others as written
    return out
