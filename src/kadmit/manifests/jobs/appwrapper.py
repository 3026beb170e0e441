"""AppWrapper -> a pod set per pod template of its components (Kueue's pkg/controller/jobs/appwrapper,
with the AppWrapper project's `InferPodSets` and `GetComponentPodSpecs`, pkg/utils/utils.go)."""

from __future__ import annotations

import re

from kadmit.manifests.codes import KAD161, KAD183
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import COMPLETION_INDEX, JOB_INDEX, QUEUE_LABEL, Builder, condition_true, run_state
from kadmit.manifests.jobs.refusals import go_atoi
from kadmit.manifests.jobs.templatepods import group_refusals, own_pods
from kadmit.manifests.jobs.unstructured import pod_spec_error
from kadmit.manifests.podspec import KEPT, WRITTEN
from kadmit.manifests.yamltree import INT, MAP, SEQ, Val
from kadmit.model import Job

FRAMEWORK = "workload.codeflare.dev/appwrapper"
# the pod set annotations Kueue's AppWrapper.PodSets reads its topologyRequest's index labels from (awutils
# PodSetAnnotationTAS*), which InferPodSets sets for a Job, a JobSet and a PyTorchJob
POD_INDEX, SUB_INDEX, SUB_COUNT = (f"workload.codeflare.dev.appwrapper/tas-{k}" for k in
                                   ("pod-index-label", "sub-group-index-label", "sub-group-count"))
_STEP = re.compile(r"^([^\[\]]+)((?:\[\d+\])*)$")


def _at(node: Val | None, path: str) -> Val | None:
    """The node at an AppWrapper path (`template.spec.replicatedJobs[0].template`), or None."""
    for part in path.split("."):
        m = _STEP.match(part)
        if node is None or m is None or node.kind != MAP:
            return None
        node = node.v.get(m.group(1))
        for index in re.findall(r"\[(\d+)\]", m.group(2)):
            if node is None or node.kind != SEQ or int(index) >= len(node.v):
                return None
            node = node.v[int(index)]
    return node


def value_at(template: Val | None, path: str) -> tuple[Val | None, str | None]:
    """AppWrapper's GetRawTemplate (getValueAtPath): the mapping at `path` in a component's `template`, or
    None with its error, in its words (a position it names leaves an index's `]` out, as its code does)."""
    if not path.startswith("template"):
        return None, "first element of the path must be 'template'"
    processed, remaining, cursor = "template", path[len("template"):], template
    while remaining:
        if remaining.startswith("["):
            end = remaining.find("]")
            if end < 0:
                return None, f"at path position '{processed}' invalid array index '{remaining}'"
            index, _ = go_atoi(remaining[1:end])
            if index is None:
                return None, f"at path position '{processed}' invalid index expression '{remaining[1:end]}'"
            if cursor is None or cursor.kind != SEQ:
                return None, f"at path position '{processed}' found non-array value"
            if not 0 <= index < len(cursor.v):
                return None, f"at path position '{processed}' out of bounds index '{index}'"
            cursor, processed, remaining = cursor.v[index], processed + remaining[:end], remaining[end + 1:]
        elif remaining.startswith("."):
            remaining, processed = remaining[1:], processed + "."
            end = len(remaining)
            if (dot := remaining.find(".")) > 0:
                end = dot
            if 0 < (bracket := remaining.find("[")) < end:
                end = bracket
            key = remaining[:end]
            if cursor is None or cursor.kind != MAP:
                return None, f"at path position '{processed}' non-map value"
            if key not in cursor.v:
                return None, f"at path position '{processed}' missing field '{key}'"
            cursor, remaining, processed = cursor.v[key], remaining.removeprefix(key), processed + key
        else:
            return None, f"at path position '{processed}' invalid path element '{remaining}'"
    if cursor is None or cursor.kind != MAP:
        return None, f"at path position '{path}' non-map value"
    return cursor, None


def _int(node: Val | None, path: str, default: int = 1) -> int:
    v = _at(node, path)
    return v.v if v is not None and v.kind == INT else default


def _jobs_pods(c: Val, prefix: str) -> int:
    """A Job spec's pods: parallelism (default 1) lowered to completions."""
    parallelism = _int(c, prefix + "parallelism")
    completions = _at(c, prefix + "completions")
    return min(parallelism, completions.v) if completions is not None and completions.kind == INT else parallelism


def infer(c: Val) -> list[tuple[str, int, dict[str, str]]]:
    """`InferPodSets`: (path, replicas, annotations) for the kinds the AppWrapper webhook knows."""
    api = _at(c, "template.apiVersion")
    kind = _at(c, "template.kind")
    gvk = (api.v if api is not None else "", kind.v if kind is not None else "")
    if gvk == ("batch/v1", "Job"):
        return [("template.spec.template", _jobs_pods(c, "template.spec."), {POD_INDEX: COMPLETION_INDEX})]
    if gvk == ("jobset.x-k8s.io/v1alpha2", "JobSet"):
        out = []
        jobs = _at(c, "template.spec.replicatedJobs")
        for i in range(len(jobs.v) if jobs is not None and jobs.kind == SEQ else 0):
            p = f"template.spec.replicatedJobs[{i}]."
            if _at(c, p + "template") is not None:
                replicas = _int(c, p + "replicas")
                out.append((p + "template.spec.template", replicas * _jobs_pods(c, p + "template.spec."),
                            {POD_INDEX: COMPLETION_INDEX, SUB_INDEX: JOB_INDEX, SUB_COUNT: str(replicas)}))
        return out
    if gvk == ("kubeflow.org/v1", "PyTorchJob"):
        return [(f"template.spec.pytorchReplicaSpecs.{t}.template", _int(c, f"template.spec.pytorchReplicaSpecs.{t}.replicas"),
                 {POD_INDEX: "training.kubeflow.org/replica-index"})
                for t in ("Master", "Worker") if _at(c, f"template.spec.pytorchReplicaSpecs.{t}.template") is not None]
    if gvk in (("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob")):
        prefix = "template.spec." if gvk[1] == "RayCluster" else "template.spec.rayClusterSpec."
        out = [(prefix + "headGroupSpec.template", 1)]
        workers = _at(c, prefix + "workerGroupSpecs")
        for i in range(len(workers.v) if workers is not None and workers.kind == SEQ else 0):
            p = f"{prefix}workerGroupSpecs[{i}]."
            if _at(c, p + "template") is not None:
                out.append((p + "template", _int(c, p + "replicas"), {}))
        return out
    if gvk == ("v1", "Pod"):
        return [("template", 1, {})]
    if gvk in (("apps/v1", "Deployment"), ("apps/v1", "StatefulSet")):
        return [("template.spec.template", _int(c, "template.spec.replicas"), {})]
    return []


def index_labels(annotations: dict[str, str]) -> tuple:
    """Kueue's AppWrapper.PodSets: the topologyRequest's podIndexLabel, subGroupIndexLabel and subGroupCount from a
    pod set's annotations (a count strconv.Atoi does not parse left out, as Kueue logs and ignores it; taken as an
    int32), () where none is set (`PodSet.index`)."""
    count, _ = go_atoi(annotations[SUB_COUNT]) if SUB_COUNT in annotations else (None, "")
    labels = (annotations.get(POD_INDEX), annotations.get(SUB_INDEX),
              None if count is None else (count + 2**31) % 2**32 - 2**31)
    return () if labels == (None, None, None) else labels


# What AppWrapper's GetPodTemplateSpec (github.com/project-codeflare/appwrapper pkg/utils) leaves out
# of a component's pod spec when it hands Kueue the pod set: the runtime class (so no overhead from
# it), pod-level resources, resource claims, and each container's restartPolicy (a sidecar becomes a
# plain init container: the most of them counts, not their sum).
_NOT_COPIED = ("runtimeClassName", "resources", "resourceClaims")


def _without(v: Val, keys) -> Val:
    out = Val(MAP, {k: x for k, x in v.v.items() if k not in keys}, v.line, v.col, v.end_line, v.end_col)
    out.keys = {k: at for k, at in v.keys.items() if k not in keys}
    return out


def _as_kueue_sees(template: Val) -> Val:
    """The pod template as GetPodTemplateSpec copies it for Kueue (`_NOT_COPIED`)."""
    spec = template.get("spec")
    if spec is None or spec.kind != MAP:
        return template
    copied = _without(spec, _NOT_COPIED)
    inits = spec.get("initContainers")
    if inits is not None and inits.kind == SEQ:
        seq = Val(SEQ, [_without(c, ("restartPolicy",)) if c.kind == MAP else c for c in inits.v],
                  inits.line, inits.col, inits.end_line, inits.end_col)
        copied.v["initContainers"] = seq
    out = _without(template, ())
    out.v["spec"] = copied
    return out


def _template_error(template: Val, path: str) -> tuple[str | None, Val]:
    """GetPodTemplateSpec's error for the pod template at `path` (its spec decoded into a v1.PodSpec), or None;
    with the node it is about."""
    spec = template.get("spec")
    if spec is None or spec.kind != MAP:
        return f"content at {path} does not contain a spec", spec or template
    error = pod_spec_error(spec)
    return (None if error is None else f"content at {path}.spec not parseable as a v1.PodSpec: {error}"), spec


def _undecodable(f: Fields, o: Meta, ci: int, path: str, template: Val) -> str | None:
    """Why Kueue's reconciler fails on the AppWrapper where GetPodTemplateSpec can't decode the pod spec at
    `path` of component `ci`, an inferred pod set (InferPodSets fails, so GetComponentPodSpecs does: KAD183,
    reported; the skip's reason), or None."""
    error, at = _template_error(template, path)
    if error is None:
        return None
    why = f"{path} does not refer to a v1.PodSpecTemplate: {error}"
    f.diags.emit(KAD183, f"Kueue can't decode the pod template of component {ci} of AppWrapper `{o.name}`, so it "
                 f"makes no Workload of it: `{why}`", f.span(at),
                 help="the API server keeps a component's template as written; write its pod spec's fields "
                      "with the types a Pod's have")
    return f"Kueue's reconciler fails on it and makes no Workload: {why}"


def _left_out(f: Fields, o: Meta, ci: int, path: str, template: Val | None, error: str | None, at: Val,
              source: str) -> bool:
    """Whether Kueue leaves out a declared pod set (or one of the status's), whose path leads to no pod template
    or whose spec does not decode: GetComponentPodSpecs takes only the pod sets GetPodTemplateSpec reads, with
    no error (KAD183, reported)."""
    if error is None and template is not None:
        error, at = _template_error(template, path)
    if error is None:
        return False
    f.diags.emit(KAD183, f"Kueue leaves pod set `{path}` of component {ci} of AppWrapper `{o.name}` out of its "
                 f"Workload: `{error}`", f.span(at),
                 help=f"its {source} must lead to a pod template whose spec has the types a Pod's have (the AppWrapper "
                      "operator's own webhook refuses such a path; Kueue's reconciler reads what is there)")
    return True


def _component_pod_sets(f: Fields, o: Meta, components: list[Val]) -> list[tuple[list, str]]:
    """Each component's pod sets as GetComponentPodSpecs takes them (EnsureComponentStatusInitialized): the
    status's `componentStatus[].podSets` once it lists one entry per component, else the declared `podSets`, else
    those InferPodSets finds; each with where it comes from."""
    status = f.map(o.node, "status")
    listed = f.maps(status, "componentStatus")
    out = []
    for ci, c in enumerate(components):
        if len(listed) == len(components):  # (its pod sets as they are: none, or not validated)
            sets, source = f.maps(listed[ci], "podSets"), "status's `componentStatus` pod set's path"
        else:
            sets, source = f.maps(c, "podSets"), "declared pod set's path"
        out.append(([(f.str(ps, "path", required=True, what="an AppWrapper pod set"), f.int(ps, "replicas", default=1, lo=0),
                      {k: v for k in (POD_INDEX, SUB_INDEX, SUB_COUNT) if (v := f.str(f.map(ps, "annotations"), k)) is not None},
                      ps) for ps in sets] or ([] if len(listed) == len(components) else
                                              [(p, n, a, None) for p, n, a in infer(c)]), source))
    return out


# a component's kind -> what the API server validates its pod template in first (`podspec.template_refusals`): the
# component itself where it is a built-in object, else what the custom resource's controller makes
_COMPONENT_MADE = {"Job": "Job", "Deployment": "Deployment", "StatefulSet": "StatefulSet", "JobSet": "Job",
                   "LeaderWorkerSet": "StatefulSet"}


def _made(kind, path: str) -> tuple[str, str | None]:
    """The kind of object made of a component's pod template at `path` the API server validates first, and how
    it takes the template's restartPolicy (`podspec.template_refusals`): the AppWrapper controller creates a
    built-in component as written (WRITTEN: an unset one the API server's Always, which a Job refuses), a
    JobSet's webhook defaults its Jobs' (KEPT), mpi-operator sets its launcher Job's (None)."""
    if kind == "MPIJob" and "Launcher" in path:
        return "Job", None  # mpi-operator's newLauncherJob, setRestartPolicy
    made = _COMPONENT_MADE.get(kind, "Pod") if isinstance(kind, str) else "Pod"
    return made, WRITTEN if kind == made else KEPT


def _queued_component(f: Fields, o: Meta, ci: int, c: Val, kind: Val | None) -> None:
    """KAD161 where a component's object names a queue itself while the AppWrapper names none: where Kueue leaves
    the AppWrapper running, its controller creates the object, and Kueue's webhook for the object's kind (its
    integration enabled) suspends it and its reconciler makes it a Workload of its own in that queue, the AppWrapper
    being no ancestor Kueue manages (WorkloadShouldBeSuspended, FindAncestorJobManagedByKueue: the owner names no
    queue). kadmit, as the oracle's harness (internal/jobs/ownpods.go), reads the AppWrapper's pods instead
    (`templatepods.own_pods`): a Workload per pod where the pod template names a queue, else none."""
    labels = _at(c, "template.metadata.labels")
    queue = labels.v.get(QUEUE_LABEL) if labels is not None and labels.kind == MAP else None
    if o.labels.get(QUEUE_LABEL) or queue is None or not isinstance(queue.v, str) or not queue.v:
        return
    what = f"{kind.v} `{name.v}`" if kind is not None and (name := _at(c, "template.metadata.name")) is not None \
        else f"component {ci}"
    f.diags.emit(KAD161, f"AppWrapper `{o.name}` names no queue, while its {what} names LocalQueue `{queue.v}`: "
                 "where Kueue leaves the AppWrapper running (its namespace has no LocalQueue `default`, and "
                 "manageJobsWithoutQueueName does not take it), its controller creates that object, and Kueue's "
                 "webhook for its kind (where that integration is enabled) suspends it and makes it a Workload of "
                 "its own in that queue, the AppWrapper being no ancestor Kueue manages; kadmit does not model "
                 "this: it reads the pods the AppWrapper's components make (a Workload per pod where their "
                 "template names a queue, else none), as the oracle's harness does", f.span(queue),
                 help="name the queue on the AppWrapper itself (`kueue.x-k8s.io/queue-name`): Kueue then admits "
                      "it as a whole, and its components' queue names are read by nothing")


def appwrapper(f: Fields, o: Meta) -> Job:
    """Pod sets `<name>-<i>`, one per pod set of every component in order (declared `podSets`,
    else inferred), count = its replicas (default 1)."""
    spec = f.map(o.node, "spec", required=True, what=f"AppWrapper `{o.name}`")
    b = Builder(f, o, FRAMEWORK)
    i = left_out = 0
    components = f.maps(spec, "components", required=True, what=f"the spec of AppWrapper `{o.name}`")
    for ci, (c, (sets, source)) in enumerate(zip(components, _component_pod_sets(f, o, components))):
        kind = _at(c, "template.kind")
        _queued_component(f, o, ci, c, kind)
        for path, replicas, annotations, declared in sets:
            if path is None:
                continue
            template, error = value_at(c.get("template"), path)
            if declared is not None:
                if _left_out(f, o, ci, path, template, error, declared, source):
                    left_out += 1
                    continue
            else:
                failed = _undecodable(f, o, ci, path, template)
                if failed is not None:
                    return b.job(workloads=[], note=failed)
            made, restart = _made(kind.v if kind is not None else None, path)
            b.template(f"{o.name}-{i}", replicas, _as_kueue_sees(template), template,
                       origin=f"component {ci} ({kind.v if kind is not None else '?'}) at `{path}`",
                       made=made, restart=restart, index=index_labels(annotations),
                       count_node=f.field(declared, "replicas") if declared is not None else None)
            group_refusals(b, template)
            i += 1
    if i == 0:
        return b.job(workloads=[], note="Kueue's reconciler fails on it: every pod set is left out, and a Workload "
                     "needs one (spec.podSets: at least 1 item)" if left_out else
                     "no component has a pod template kadmit can find; declare `podSets`")
    status = f.map(o.node, "status")
    phase = f.str(status, "phase") or ""
    # Kueue's AppWrapper.IsActive: a True QuotaReserved condition (the phase is not read); Finished:
    # phase Succeeded, or Failed once its resources are gone (not while ResourcesDeployed is True)
    started = condition_true(f, status, "QuotaReserved")
    finished = phase == "Succeeded" or (phase == "Failed" and not condition_true(f, status, "ResourcesDeployed"))
    return own_pods(b, b.job(state=run_state(started, finished)))
