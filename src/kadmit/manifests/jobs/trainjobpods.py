"""What Kueue compares of a TrainJob's pod sets with its Workload's (EquivalentToWorkload, ComparePodSets: each
pod set's count, minCount, containers, init containers and tolerations), as the JobSet Kueue v0.17.0 builds of
the TrainJob holds them (pkg/controller/jobs/trainjob getChildJobSet, with Trainer v2.2.0):

- the runtime's replicated jobs with the TrainJob's `runtimePatches` merged in, in order (the Trainer's
  `mergeRuntimePatches`, a strategic merge patch of each named job's template: containers by name, their env by
  name and volume mounts by mount path, the rest of a container's fields map by map; tolerations replaced);
- each job's pods (`pods`): the Trainer's `newRuntimeInfo` and its mlPolicy plugins' counts;
- the JobSet builder's `Initializer` (the initializers' `STORAGE_URI`, env and secret) and `Trainer` (the `node`
  container's image, command, args, resourcesPerNode and env) steps.

getChildJobSet does not run the jobset plugin's Build, which is what copies into the JobSet the env vars, ports
and volume mounts the mlPolicy plugins (torch's `PET_*`, MPI's SSH mounts and `OMPI_*`, ...) write into the
runtime.Info's pod sets: Kueue's pod sets never hold them (oracle --runs 3: a torch TrainJob's Workload without
them is kept, one with them deleted). Only where the runtime's container already holds an entry a plugin upserts
does the plugin rewrite it in place, in the slice the JobSet shares: that kadmit does not build (`in_place`).
"""

from __future__ import annotations

import copy

NODE, LAUNCHER = "node", "launcher"
TRAINER, DATASET, MODEL = "trainer", "dataset-initializer", "model-initializer"
PORT = 29500  # constants.ContainerTrainerPort
TORCHTUNE = ["tune", "run"]
# the env vars each plugin upserts into the trainer's `node` container (Trainer v2.2.0 pkg/constants)
PLUGIN_ENV = {
    "torch": ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"),
    "jax": ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"),
    "xgboost": ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"),
}
OMPI_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots",
            "OMPI_MCA_plm_rsh_args")
HOSTFILE_DIR = "/etc/mpi"
BUILT = ("torch", "mpi", "jax", "xgboost")  # the mlPolicy plugins whose part in Kueue's pod sets kadmit builds
# the strategic merge keys of the lists a runtime patch's pod spec merges (corev1 PodSpec, Container)
_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "volumeMounts": "mountPath",
         "ports": "containerPort"}


def omitempty(value, pointers: bool = False):
    """A patch as Go's typed marshalling writes it (the Trainer decodes each patch into its types, then
    marshals it with `omitempty`): null and empty lists left out of its maps, and "" and a volume mount's
    `readOnly: false` (plain fields); inside a `securityContext`, whose fields are all pointers, a zero value
    is set and stays (`runAsUser: 0`), as does an empty struct (`{}`, merging nothing), and so does a
    toleration's `tolerationSeconds: 0`."""
    if isinstance(value, dict):
        return {k: omitempty(v, pointers or k == "securityContext") for k, v in value.items()
                if not (v is None or v == [] or (not pointers and (v == "" or (k == "readOnly" and v is False))))}
    if isinstance(value, list):
        return [omitempty(v, pointers) for v in value]
    return value


def merge(original, patch):
    """`strategicpatch.StrategicMergePatch` of one value, as far as a runtime patch reaches: maps merged key by
    key, the lists of `_KEYS` item by item on their merge key (new items appended), other values replaced."""
    if not (isinstance(original, dict) and isinstance(patch, dict)):
        return copy.deepcopy(patch)
    out = dict(original)
    for k, v in patch.items():
        if k in _KEYS and isinstance(v, list) and isinstance(out.get(k), list):
            out[k] = merge_list(out[k], v, _KEYS[k])
        else:
            out[k] = merge(out[k], v) if k in out else copy.deepcopy(v)
    return out


def merge_list(original: list, patch: list, key: str) -> list:
    """`mergeSlice` of a list with a merge key: each patch item merged into the original's of its key, or
    added; then in `normalizeElementOrder`'s order: the patch's items in the patch's order, the others in the
    original's, interleaved where both stand in the original (`mergeSortedSlice`): a patch item not in the
    original comes before the original's items left (oracle: a patch naming the sidecar, then `node`, puts
    the sidecar first)."""
    def at(items: list, item) -> int:
        return next((i for i, o in enumerate(items) if isinstance(o, dict) and isinstance(item, dict)
                     and o.get(key) == item.get(key)), -1)
    merged = list(original)
    for item in patch:
        i = at(merged, item)
        if i < 0:
            merged.append(copy.deepcopy(item))
        else:
            merged[i] = merge(merged[i], item)
    mine = sorted((m for m in merged if at(patch, m) >= 0), key=lambda m: at(patch, m))
    left = [m for m in merged if at(patch, m) < 0]
    out = []
    while left or mine:
        if mine and left:
            li, ri = at(original, left[0]), at(original, mine[0])
            out.append(left.pop(0) if li >= 0 and ri >= 0 and li < ri else mine.pop(0))
        else:
            out.append((left or mine).pop(0))
    return out


def env_var(e) -> dict:
    """`apply.EnvVar`: the Trainer's copy of a corev1.EnvVar, its `value`, or the sources it knows of `valueFrom`."""
    if not isinstance(e, dict):
        return {}
    source = e.get("valueFrom")
    if not isinstance(source, dict):
        return {"name": e.get("name"), "value": e.get("value") or ""}
    kept = {"fieldRef": ("fieldPath",), "resourceFieldRef": ("containerName", "resource", "divisor"),
            "configMapKeyRef": ("key", "name", "optional"), "secretKeyRef": ("key", "name", "optional")}
    out = {k: {f: ref[f] for f in fields if f in ref and (f != "optional" or ref[f] is not None)}
           for k, fields in kept.items() if isinstance(ref := source.get(k), dict)}
    return {"name": e.get("name"), "valueFrom": out}


def upsert_env(container: dict, env: list) -> None:
    """`apply.UpsertEnvVars`: each var replaces the one of its name, else is appended."""
    have = list(container.get("env") or [])
    for e in env:
        at = next((i for i, h in enumerate(have) if isinstance(h, dict) and h.get("name") == e.get("name")), None)
        if at is None:
            have.append(e)
        else:
            have[at] = e
    container["env"] = have


def pods(job, runtime, train) -> tuple[int, int]:
    """A replicated job's replicas and pods per Job in the JobSet: its parallelism; the trainer's the mlPolicy's
    numNodes (`newRuntimeInfo`), then the TrainJob's `trainer.numNodes` (torch, jax, xgboost and plainml set the
    trainer's; MPI the job named `node`'s, one less with runLauncherAsNode); at least 1 (`WithPodSet`). The
    trainer's and the initializers' replicas are 1 (the JobSet builder)."""
    count = job.parallelism
    if job.ancestor == TRAINER and runtime.ml_policy:
        count = runtime.num_nodes if runtime.num_nodes is not None else 1
    n = train.num_nodes
    if n is not None:
        if "mpi" in runtime.plugins:
            if job.name == NODE:
                count = max(n - 1, 1) if runtime.launcher_as_node else n
        elif job.ancestor == TRAINER:
            count = n
    replicas = 1 if job.ancestor in (TRAINER, DATASET, MODEL) else job.replicas
    return replicas, max(count, 1)


def resources_apply(job, runtime) -> bool:
    """Whether the JobSet builder gives this job's `node` container the TrainJob's resourcesPerNode and env."""
    return job.ancestor == TRAINER or (runtime.launcher_as_node and "mpi" in runtime.plugins and job.name == NODE)


def patched(job, train) -> tuple[list | None, list | None, list | None]:
    """A job's containers, init containers and tolerations with the runtime patches naming it merged in."""
    containers, init = job.shape[0]
    tolerations = job.shape[1]
    for p in train.patches:
        if p.job != job.name or p.pod is None:
            continue
        got_containers, got_init, got_tolerations = p.pod[0]
        if got_containers:
            containers = merge_list(containers if isinstance(containers, list) else [], got_containers, "name")
        if got_init:
            init = merge_list(init if isinstance(init, list) else [], got_init, "name")
        if got_tolerations:
            tolerations = copy.deepcopy(got_tolerations)
    return copy.deepcopy(containers), copy.deepcopy(init), tolerations


def built(job, runtime, train) -> tuple[list, object]:
    """A job's pod template as Kueue's pod set holds what it compares: `[containers, init containers]`,
    tolerations (`patched`, then the JobSet builder's Initializer and Trainer steps)."""
    containers, init, tolerations = patched(job, train)
    spec = train.spec[0] if train.spec else {}
    for c in containers if isinstance(containers, list) else ():
        if not isinstance(c, dict):
            continue
        name = c.get("name")
        if job.ancestor in (DATASET, MODEL) and name == job.ancestor:
            source = (spec.get("initializer") or {}).get("dataset" if name == DATASET else "model")
            if isinstance(source, dict):
                if source.get("storageUri") is not None:
                    upsert_env(c, [{"name": "STORAGE_URI", "value": source["storageUri"]}])
                upsert_env(c, [env_var(e) for e in source.get("env") or ()])
                secret = source.get("secretRef")
                if isinstance(secret, dict):
                    c["envFrom"] = [*(c.get("envFrom") or ()), {"secretRef": {"name": secret.get("name")}}]
        trainer = spec.get("trainer")
        if name != NODE or not isinstance(trainer, dict):
            continue
        if job.ancestor == TRAINER:
            for k in ("image", "command", "args"):
                if trainer.get(k) is not None:
                    c[k] = copy.deepcopy(trainer[k])
        if resources_apply(job, runtime):
            per_node = trainer.get("resourcesPerNode")
            # (an empty `limits` or `requests` map is as none: the oracle's store drops it, omitempty)
            if isinstance(per_node, dict) and (per_node.get("limits") or per_node.get("requests")):
                c["resources"] = {k: copy.deepcopy(per_node[k]) for k in ("limits", "requests") if per_node.get(k)}
            upsert_env(c, [env_var(e) for e in trainer.get("env") or ()])
    return [containers, init], tolerations


def in_place(runtime, train) -> list[str]:
    """What an mlPolicy plugin rewrites in place in a container of the runtime (an entry it upserts that the
    runtime's container already holds, which the JobSet then shares), which kadmit does not build; and the
    plugins whose part kadmit does not build at all (`BUILT`)."""
    said = [f"its runtime's `mlPolicy.{p}` (the Trainer's {p} plugin writes into the JobSet's containers)"
            for p in runtime.plugins if p not in BUILT]
    spec = train.spec[0] if train.spec else {}
    trainer = spec.get("trainer")
    for job in runtime.jobs:
        containers, _, _ = patched(job, train)
        for c in containers if isinstance(containers, list) else ():
            if not isinstance(c, dict) or c.get("name") != NODE:
                continue
            names = {e.get("name") for e in c.get("env") or () if isinstance(e, dict)}
            where = f"the `node` container of replicated job `{job.name}`"
            for p in runtime.plugins:
                if p in PLUGIN_ENV and job.ancestor == TRAINER and isinstance(trainer, dict):
                    taken = sorted(names & set(PLUGIN_ENV[p]))
                    if taken:
                        said.append(f"{where} already sets {', '.join(f'`{n}`' for n in taken)}, which the Trainer's "
                                    f"{p} plugin rewrites in place")
                    if any(isinstance(q, dict) and (q.get("containerPort") == PORT or not q.get("name"))
                           for q in c.get("ports") or ()):
                        said.append(f"{where} has a port without a name or on {PORT}, which the Trainer's {p} plugin "
                                    f"rewrites in place")
                if p == "torch" and job.ancestor == TRAINER and isinstance(trainer, dict) \
                        and trainer.get("command") == TORCHTUNE:
                    said.append("its `trainer.command` runs torchtune, whose arguments the Trainer's torch plugin adds")
                if p == "mpi" and job.name in (NODE, LAUNCHER):
                    mounts = {m.get("mountPath") for m in c.get("volumeMounts") or () if isinstance(m, dict)}
                    taken = sorted(mounts & ({runtime.ssh_mount} | ({HOSTFILE_DIR} if job.name == LAUNCHER else set())))
                    taken += sorted(names & set(OMPI_ENV)) if job.name == LAUNCHER else []
                    if taken:
                        said.append(f"{where} already holds {', '.join(f'`{n}`' for n in taken)}, which the Trainer's "
                                    "mpi plugin rewrites in place")
    return said
