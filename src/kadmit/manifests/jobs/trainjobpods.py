"""What Kueue compares of a TrainJob's pod sets with its Workload's (EquivalentToWorkload, ComparePodSets: each
pod set's count, minCount, containers, init containers and tolerations), as the JobSet Kueue v0.17.0 builds of
the TrainJob holds them (pkg/controller/jobs/trainjob getChildJobSet, with Trainer v2.2.0):

- the runtime's replicated jobs with the TrainJob's `runtimePatches` merged in, in order (the Trainer's
  `mergeRuntimePatches`, a strategic merge patch of each named job's template: containers by name, their env by
  name and volume mounts by mount path, the rest of a container's fields map by map; tolerations replaced);
- each job's pods (`pods`): the Trainer's `newRuntimeInfo` and its mlPolicy plugins' counts;
- the flux plugin's EnforceMLPolicy, which writes into the JobSet itself (`_flux`);
- the JobSet builder's `Initializer` (the initializers' `STORAGE_URI`, env and secret) and `Trainer` (the `node`
  container's image, command, args, resourcesPerNode and env) steps.

getChildJobSet does not run the jobset plugin's Build, which is what copies into the JobSet the env vars, ports
and volume mounts the mlPolicy plugins (torch's `PET_*`, MPI's SSH mounts and `OMPI_*`, ...) write into the
runtime.Info's pod sets: Kueue's pod sets never hold them (oracle --runs 3: a torch TrainJob's Workload without
them is kept, one with them deleted). Only where the runtime's container already holds an entry a plugin upserts
does the plugin rewrite it in place, in the slice the JobSet shares (oracle: a runtime's `PET_NNODES: "9"` is the
trainer's count in Kueue's pod set): `rewritten_in_place` does the same.
"""

from __future__ import annotations

import copy
import math

from kadmit.quantity import QuantityError, parse_exact

NODE, LAUNCHER = "node", "launcher"
TRAINER, DATASET, MODEL = "trainer", "dataset-initializer", "model-initializer"
PORT = 29500  # constants.ContainerTrainerPort
TORCHTUNE = ["tune", "run"]
# the runtime command's `key=value` entries the torch plugin passes on to torchtune (TorchTuneImmutableConfigs)
TUNE_KEPT = ("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file")
# the env vars each plugin upserts into the trainer's `node` container (Trainer v2.2.0 pkg/constants)
PLUGIN_ENV = {
    "torch": ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"),
    "jax": ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"),
    "xgboost": ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"),
}
OMPI_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots",
            "OMPI_MCA_plm_rsh_args")
HOSTFILE_DIR = "/etc/mpi"
JOB_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"  # constants.JobCompletionIndexFieldPath
# the flux plugin's init container, its image's setting and default, and the mounts it upserts into `node`
# (Trainer v2.2.0 pkg/constants, plugins/flux brokerDefaults)
FLUX_VIEW, FLUX_IMAGE = "FLUX_VIEW_IMAGE", "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"
FLUX_CONFIG = "/etc/flux-config"
BUILT = ("torch", "mpi", "jax", "xgboost", "flux")  # the mlPolicy plugins whose part in Kueue's pod sets kadmit builds
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


def built(job, runtime, train, name: str) -> tuple[list, object]:
    """A job's pod template as Kueue's pod set holds what it compares: `[containers, init containers]`,
    tolerations (`patched`, the plugins' `rewritten_in_place`, then the JobSet builder's Initializer and Trainer
    steps) for TrainJob `name`. Raises `Unbuilt` where kadmit cannot tell what a plugin writes."""
    containers, init, tolerations = patched(job, train)
    spec = train.spec[0] if train.spec else {}
    rewritten_in_place(job, runtime, train, name, containers)
    if "flux" in runtime.plugins:
        spec, init = _flux(job, runtime, train, spec, name, containers, init)  # (EnforceMLPolicy, before the steps)
    if "torch" in runtime.plugins and isinstance(trainer := spec.get("trainer"), dict) and \
            trainer.get("command") == TORCHTUNE:
        spec = {**spec, "trainer": {**trainer, "command": [*TORCHTUNE, *_torchtune(runtime, train, trainer, name)]}}
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


class Unbuilt(Exception):
    """What of a plugin's part kadmit cannot build (its words end the KAD161 "may differ")."""


def unbuilt(runtime, train, name: str) -> list[str]:
    """Why kadmit does not build the JobSet Kueue compares for TrainJob `name`: a plugin it does not build
    (`BUILT`), or what `built` cannot tell."""
    said = [f"its runtime's `mlPolicy.{p}` (the Trainer's {p} plugin writes into the JobSet's containers)"
            for p in runtime.plugins if p not in BUILT]
    for job in runtime.jobs:
        try:
            built(job, runtime, train, name)
        except Unbuilt as e:
            said.append(f"replicated job `{job.name}`: {e}")
    return said


def rewritten_in_place(job, runtime, train, name: str, containers) -> None:
    """The entries the mlPolicy plugins upsert that the runtime's `node` container already holds, rewritten in
    place (apply.UpsertEnvVars / UpsertVolumeMounts on runtime.Info's containers, whose slices the JobSet shares;
    the ones they append are the JobSet's no more): torch's, JAX's and XGBoost's env vars in the trainer's
    container (the TrainJob setting `trainer`; oracle: trainjob-plugin-env-rewritten-in-place-in-step.yaml), MPI's
    SSH and hostfile mounts and OpenMPI env vars in the `node` and `launcher` jobs'. Their port (UpsertPort) is
    not built (`Unbuilt`)."""
    spec = train.spec[0] if train.spec else {}
    trainer = spec.get("trainer")
    first = next((j for j in runtime.jobs if j.ancestor == TRAINER), None)  # FindPodSetByAncestor
    node = next((c for c in containers or () if isinstance(c, dict) and c.get("name") == NODE), None)
    if node is None:
        return
    if first is not None and job.name == first.name and isinstance(trainer, dict):
        count = pods(job, runtime, train)[1]
        for p in runtime.plugins:
            if p in PLUGIN_ENV:
                # (torch's PET_MASTER_* are torchrun's: not upserted for torchtune)
                n = 3 if p == "torch" and trainer.get("command") == TORCHTUNE else len(PLUGIN_ENV[p])
                _upsert(node, "env", "name", PLUGIN_ENV[p][:n],
                        lambda: _plugin_env(p, count, runtime, train, trainer, name)[:n],
                        before=[e.get("name") for e in trainer.get("env") or () if isinstance(e, dict)])
                if any(isinstance(q, dict) and (q.get("containerPort") == PORT or not q.get("name"))
                       for q in node.get("ports") or ()):
                    # rewritten in place as `{containerPort: 29500}`, with no protocol where the runtime's and the
                    # Workload's ports get the API server's TCP: the oracle (whose store defaults neither the
                    # plugin's port nor Kueue's dry run) finds any Workload out of step, a cluster may not
                    raise Unbuilt(f"its `node` container has a port without a name or on {PORT}, which the "
                                  f"Trainer's {p} plugin rewrites in place without a protocol")
    if "mpi" in runtime.plugins and job.name in (NODE, LAUNCHER):
        ssh = runtime.ssh_mount
        mounts = [(ssh, "mpi-ssh-auth")] + ([(HOSTFILE_DIR, "mpi-hostfile")] if job.name == LAUNCHER else [])
        _upsert(node, "volumeMounts", "mountPath", [m for m, _ in mounts],
                lambda: [{"name": v, "mountPath": m} for m, v in mounts])
        if job.name == LAUNCHER:
            if runtime.mpi_impl != "OpenMPI":
                raise Unbuilt(f"its MPI implementation `{runtime.mpi_impl}`, which the Trainer's mpi plugin refuses")
            _upsert(node, "env", "name", OMPI_ENV, lambda: [
                {"name": "OMPI_MCA_orte_default_hostfile", "value": f"{HOSTFILE_DIR}/hostfile"},
                {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
                {"name": "OMPI_MCA_orte_set_default_slots", "value": str(_slots(runtime, train, trainer))},
                {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"}])


def _flux(job, runtime, train, spec: dict, name: str, containers, init) -> tuple[dict, list | None]:
    """The flux plugin's EnforceMLPolicy, which getChildJobSet runs (oracle: trainjob-flux-workload-in-step.yaml):
    the TrainJob's `trainer.command` becomes `/bin/bash /etc/flux-config/entrypoint.sh "<command args>"` (the
    trainer's command and args joined: not the runtime's, which runtime.Info does not keep) and its args none,
    which the JobSet builder's Trainer step then writes (the runtime's args stay); the job named `node` gets the
    `flux-installer` init container appended in the JobSet itself, and its `node` container the flux mounts, seen
    only where they rewrite one in place (`_upsert`). Returns the spec the Trainer step reads and the init containers."""
    trainer = spec.get("trainer")
    if not isinstance(trainer, dict):
        raise Unbuilt("its runtime's `mlPolicy.flux` with no `trainer` (the Trainer's flux plugin reads its env)")
    first = next((j for j in runtime.jobs if j.ancestor == TRAINER), None)  # FindContainerByPodSetAncestorContainerName
    runtime_node = {}
    if first is not None:
        cs = patched(first, train)[0]
        runtime_node = next((c for c in cs or () if isinstance(c, dict) and c.get("name") == NODE), {})
    image = FLUX_IMAGE  # brokerSettingsFromEnvironment: the runtime's value (where it has one), then the TrainJob's
    for e in runtime_node.get("env") or ():
        if isinstance(e, dict) and e.get("name") == FLUX_VIEW and e.get("value") is not None:
            image = str(e["value"])
    for e in trainer.get("env") or ():
        if isinstance(e, dict) and e.get("name") == FLUX_VIEW:
            image = str(e.get("value") or "")
    # getOriginalCommand reads the runtime container's command of runtime.Info, which never holds one (oracle)
    original = " ".join(str(w) for w in [*(trainer.get("command") or ()), *(trainer.get("args") or ())]).strip()
    trainer = {**{k: v for k, v in trainer.items() if k != "args"},
               "command": ["/bin/bash", f"{FLUX_CONFIG}/entrypoint.sh", original]}
    if job.name != NODE:
        return {**spec, "trainer": trainer}, init
    config = f"{name}-flux-entrypoint"
    node = next((c for c in containers or () if isinstance(c, dict) and c.get("name") == NODE), None)
    mounts = [("flux-install", "/mnt/flux", False), ("spack-install", "/opt/software", False),
              (config, FLUX_CONFIG, True), ("flux-curve", "/curve", True)]
    if node is not None:
        _upsert(node, "volumeMounts", "mountPath", [m for _, m, _ in mounts],
                lambda: [{"name": v, "mountPath": m, **({"readOnly": True} if ro else {})} for v, m, ro in mounts])
    installer = {"name": "flux-installer", "image": image, "command": ["/bin/bash", f"{FLUX_CONFIG}/init.sh"],
                 "volumeMounts": [{"name": "flux-install", "mountPath": "/mnt/flux"},
                                  {"name": config, "mountPath": FLUX_CONFIG, "readOnly": True}]}
    return {**spec, "trainer": trainer}, [*(init if isinstance(init, list) else ()), installer]


def _torchtune(runtime, train, trainer: dict, name: str) -> list[str]:
    """The arguments the torch plugin appends to a `tune run` command (EnforceMLPolicy, getRecipeAndConfig,
    extractOverridesFromRuntime; oracle: trainjob-torchtune-command-in-step.yaml): the rendezvous endpoint where more
    than one node or process, the recipe, `--config` and the config (the model read of the runtime's name
    `torchtune-<model>-<size>`), then the runtime trainer's `node` command entries of TUNE_KEPT keys."""
    first = next((j for j in runtime.jobs if j.ancestor == TRAINER), None)
    nodes = pods(first, runtime, train)[1] if first is not None else 1
    res = _per_node(runtime, train, trainer)
    gpus = _gpus(res)
    procs = trainer.get("numProcPerNode")  # an int, else "auto" (a GPU count), or the cpus where no GPU
    if procs is None and not gpus:
        procs = max(1, _cpus(res))
    out = []
    if nodes > 1 or (procs is not None and procs > 1) or (procs is None and gpus > 1):
        out.append(f"--rdzv_endpoint={name}-{NODE}-0-0.{name}:{PORT}")
    args = [str(a) for a in trainer.get("args") or ()]
    qlora = not any("use_dora" in a for a in args) and any("model.quantize_base" in a for a in args)
    lora = any("model.lora_attn_modules" in a for a in args)
    recipe, suffix = "full_finetune_distributed", "_full"
    if nodes == 1 and (procs == 1 or gpus == 1):
        recipe, suffix = (("lora_finetune_single_device", "_qlora_single_device") if qlora else
                          ("lora_finetune_single_device", "_lora_single_device") if lora else
                          ("full_finetune_single_device", "_full_single_device"))
    elif nodes == 1 and qlora:
        recipe, suffix = "lora_finetune_distributed", "_qlora"
    elif nodes == 1 and lora:
        recipe, suffix = "lora_finetune_distributed", "_lora"
    elif nodes > 1:
        suffix = "_full_multinode"
    fields = train.runtime_name.split("-")
    model = f"{fields[1].replace('.', '_')}/{fields[2].upper()}" if len(fields) == 3 else ""
    out += [recipe, "--config", model + suffix]
    for j in runtime.jobs:
        if j.ancestor == TRAINER:
            cs = patched(j, train)[0]
            for c in cs or ():
                if isinstance(c, dict) and c.get("name") == NODE:
                    out += [str(w) for w in c.get("command") or () if str(w).split("=")[0] in TUNE_KEPT]
    return out


def _upsert(container: dict, field: str, key: str, keys, made, before=()) -> None:
    """Go's `upsert` of the items `made()` gives (their `key`s are `keys`, in order; `before`: the keys upserted
    into the same slice before them, the TrainJob's `trainer.env`) into `container[field]` as far as the JobSet
    sees it: an item replaces the first entry of its key in place, in the array the JobSet shares; an item that
    matches none is appended to runtime.Info's slice only, past the JobSet's length. An append to a full slice
    moves it to a new array, after which the JobSet sees no rewrite: the list of n items Go's JSON decoding built
    holds `_go_cap(n)` (oracle --runs 16, both input orders: a runtime env of 1, 2 or 4 vars then the TrainJob's
    one appended, PET_NNODES is not rewritten; of 3, 5 or 6 it is; tests/oracle/features/
    trainjob-plugin-env-rewritten-after-append.yaml). `made` is called only where an entry is rewritten."""
    have = container.get(field)
    if not isinstance(have, list):
        return

    def at(k) -> int:
        return next((i for i, h in enumerate(have) if isinstance(h, dict) and h.get(key) == k), -1)
    length, shared, added = len(have), True, set()
    if length > 256:  # (growslice grows by less than double past 256: not followed)
        raise Unbuilt(f"its `{NODE}` container's `{field}` of {length} items, whose capacity in Go kadmit does not follow")
    places = []
    for k, rewrite in [*((k, False) for k in before), *((k, True) for k in keys)]:
        i = at(k)
        if i < 0 and k not in added:
            added.add(k)
            shared = shared and length < _go_cap(len(have))
            length += 1
        if rewrite:
            places.append(i if shared and i >= 0 else -1)
    if all(i < 0 for i in places):
        return
    for i, item in zip(places, made()):
        if i >= 0:
            have[i] = item


def _go_cap(n: int) -> int:
    """The capacity of the slice Go's JSON decoding makes of a list of `n` items (n <= 256): reflect.Value.Grow(1)
    at each item past the capacity, growslice doubling it (the size classes of a 24-byte env var's or a 56-byte volume
    mount's array keep the double): the next power of two."""
    return 1 << max(n - 1, 0).bit_length() if n else 0


def _plugin_env(plugin: str, count: int, runtime, train, trainer: dict, name: str) -> list[dict]:
    """The env vars torch, JAX or XGBoost upsert into the trainer's container (Trainer v2.2.0 plugins)."""
    rank = {"valueFrom": {"fieldRef": {"fieldPath": JOB_INDEX}}}
    master = f"{name}-{NODE}-0-0.{name}"
    if plugin == "torch":
        procs = trainer.get("numProcPerNode")
        if procs is None:
            res = _per_node(runtime, train, trainer)
            procs = "auto" if _gpus(res) else max(1, _cpus(res))
        return [{"name": "PET_NNODES", "value": str(count)}, {"name": "PET_NPROC_PER_NODE", "value": str(procs)},
                {"name": "PET_NODE_RANK", **rank}, {"name": "PET_MASTER_ADDR", "value": master},
                {"name": "PET_MASTER_PORT", "value": str(PORT)}]
    if plugin == "jax":
        return [{"name": "JAX_NUM_PROCESSES", "value": str(count)}, {"name": "JAX_PROCESS_ID", **rank},
                {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{master}:{PORT}"}]
    gpus = _gpus(_per_node(runtime, train, trainer))
    return [{"name": "DMLC_TRACKER_URI", "value": master}, {"name": "DMLC_TRACKER_PORT", "value": str(PORT)},
            {"name": "DMLC_TASK_ID", **rank}, {"name": "DMLC_NUM_WORKER", "value": str(count * (gpus or 1))}]


def _slots(runtime, train, trainer) -> int:
    """MPI's numProcPerNode: the TrainJob's, else the runtime's, which where 1 becomes the GPUs per node if more."""
    if isinstance(trainer, dict) and trainer.get("numProcPerNode") is not None:
        return trainer["numProcPerNode"]
    if runtime.mpi_procs == 1:
        gpus = _gpus(_per_node(runtime, train, trainer))
        return gpus if gpus > 1 else 1
    return runtime.mpi_procs


def _per_node(runtime, train, trainer) -> dict:
    """The resources per node a plugin reads: the TrainJob's `resourcesPerNode` where set, else the `node`
    container's of the first job named `node` or labelled the trainer (ExtractResourcePerNodeFromRuntime)."""
    if isinstance(trainer, dict) and isinstance(trainer.get("resourcesPerNode"), dict):
        return trainer["resourcesPerNode"]
    for j in runtime.jobs:
        if j.name == NODE or j.ancestor == TRAINER:
            containers, _, _ = patched(j, train)
            c = next((c for c in containers or () if isinstance(c, dict) and c.get("name") == NODE), None)
            if c is not None:
                return c.get("resources") if isinstance(c.get("resources"), dict) else {}
    return {}


def _exact(q):
    try:
        return parse_exact(q)
    except QuantityError as e:
        raise Unbuilt(f"the quantity `{q}` a plugin reads ({e})") from None


def _ceil(q) -> int:
    """Quantity.Value(): rounded up, away from 0."""
    v = _exact(q)
    return math.ceil(v) if v >= 0 else math.floor(v)


def _gpus(res: dict) -> int:
    """GetNumGPUPerNode: the first resource whose name holds `gpu` in the requests, else in the limits."""
    def first(lst) -> int:
        names = [k for k in (lst if isinstance(lst, dict) else {}) if "gpu" in str(k).lower()]
        if len(names) > 1:
            raise Unbuilt(f"the resources per node name more than one GPU ({', '.join(f'`{n}`' for n in names)}), "
                          "of which a plugin reads one in Go's map order")
        return _ceil(lst[names[0]]) if names else 0
    return first(res.get("requests")) or max(first(res.get("limits")), 0)


def _cpus(res: dict) -> int:
    """getNumCPUPerNode: the cpu request, else (none or zero) the limit, rounded up."""
    request, limit = (res.get("requests") or {}).get("cpu"), (res.get("limits") or {}).get("cpu")
    if request is None or _exact(request) == 0:
        return _ceil(limit) if limit is not None else 0
    return _ceil(request)
