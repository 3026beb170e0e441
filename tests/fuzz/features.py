"""Structural mutations of the project's newer features (bench/fuzz_cli.py --features, bench/oracle_fuzz.py;
not in the suite's draw): feature gates, slices' old Workloads, nodes, topology assignments, refused
built-ins, unknown Workload fields, AppWrapper component statuses, template placeholders, negative counts."""

from __future__ import annotations

import copy
import json
import re

from .mutate import (_drop, _drop_doc, _duplicate_doc, _get, _lines, _named, _names, _number, _paths, _retype,
                     _zero_count)

REPLACEMENT = "kueue.x-k8s.io/workload-slice-replacement-for"
GATES = ["ElasticJobsViaWorkloadSlices", "ElasticJobsViaWorkloadSlicesWithTAS", "SchedulingEquivalenceHashing",
         "TopologyAwareScheduling", "TASBalancedPlacement", "TASMultiLayerTopology"]


def _gate_flip(docs, r):
    """A feature gate turned the other way, or one added (the configuration made when there is none)."""
    configs = [doc for doc in docs if isinstance(doc, dict) and doc.get("kind") == "Configuration"]
    if not configs:
        return False
    doc = configs[0]
    gates = doc.get("featureGates")
    if not isinstance(gates, dict):
        gates = doc["featureGates"] = {}
    name = r.choice(sorted(gates) + GATES) if gates else r.choice(GATES)
    gates[name] = not gates.get(name, False)
    return f"featureGates.{name} = {gates[name]}"


def _slice_target(docs, r):
    """A slice's old Workload made missing, another namespace's, itself, or malformed."""
    spots = [doc for doc in docs if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict)
             and isinstance(doc["metadata"].get("annotations"), dict) and REPLACEMENT in doc["metadata"]["annotations"]]
    if not spots:
        return False
    doc = r.choice(spots)
    own = f"{doc['metadata'].get('namespace', 'default')}/{doc['metadata'].get('name', 'x')}"
    value = r.choice([own, "ns/missing", "other/old", "old", "", "/", "ns/", "a/b/c", None])
    doc["metadata"]["annotations"][REPLACEMENT] = value
    return f"{REPLACEMENT} = {value!r}"


def _old_queue(docs, r):
    """A Workload (a slice's old one, often) moved to another or a missing queue, or its admission's cluster queue."""
    spots = [(d, p) for d, p in _named(docs, "queueName") + _named(docs, "clusterQueue")
             if isinstance(docs[d], dict) and docs[d].get("kind") == "Workload"]
    if not spots:
        return False
    d, p = r.choice(spots)
    queues = _names(docs, "LocalQueue" if p[-1] == "queueName" else "ClusterQueue")
    value = r.choice(queues + ["missing"])
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"document {d + 1} {'.'.join(map(str, p))} = {value!r}"


def _node_gone(docs, r):
    """A Node (one a topology assignment may name) removed, or made not ready, or its labels dropped."""
    nodes = [d for d, doc in enumerate(docs) if isinstance(doc, dict) and doc.get("kind") == "Node"]
    if not nodes:
        return False
    d = r.choice(nodes)
    how = r.choice(["removed", "not ready", "unlabelled"])
    if how == "removed":
        del docs[d]
    elif how == "not ready" and isinstance(docs[d].get("status"), dict):
        docs[d]["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    elif isinstance(docs[d].get("metadata"), dict):
        docs[d]["metadata"]["labels"] = {}
    return f"node (document {d + 1}) {how}"


def _assignment(docs, r):
    """A topology assignment's pod counts or domains made wrong: counts off, a node that is not there."""
    spots = _named(docs, "podCounts") + _named(docs, "valuesPerLevel") + _named(docs, "domainCount")
    if not spots:
        return False
    d, p = r.choice(spots)
    value = {"podCounts": lambda: r.choice([{"universal": 0}, {"universal": -2}, {"universal": 10 ** 6},
                                            {"individual": [1, 2, 3]}, {}]),
             "valuesPerLevel": lambda: r.choice([[{"universal": "gone"}], [], [{"individual": {"roots": ["n"]}}]]),
             "domainCount": lambda: r.choice([0, -1, 7, 10 ** 6])}[p[-1]]()
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value!r}"


BAD_BUILTINS = [
    {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr-bad", "namespace": "default"},
     "spec": {"limits": [{"type": "Pod", "max": {"cpu": "lots"}}]}},
    {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr-bad", "namespace": "default"},
     "spec": {"limits": [{"type": "Sideways", "default": {"cpu": "1"}}]}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-bad"}, "value": "high"},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-bad"}, "value": 10,
     "preemptionPolicy": "Sometimes"},
    {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc-bad"}},
    {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc-bad"}, "handler": "runc",
     "overhead": {"podFixed": {"cpu": "-1"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-bad", "labels": {"a": "b"}},
     "status": {"allocatable": {"cpu": "x1"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-bad"}, "spec": {"taints": [{"key": "k"}]},
     "color": "red"},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Bad_Namespace"}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns-bad", "labels": {"a": ["b"]}}},
]


def _bad_builtin(docs, r):
    """A LimitRange, PriorityClass, RuntimeClass, Node or Namespace with a bad field added beside the good ones
    (the API server refuses it alone), or a field of one already there made unknown or wrong."""
    have = [d for d, doc in enumerate(docs) if isinstance(doc, dict)
            and doc.get("kind") in ("LimitRange", "PriorityClass", "RuntimeClass", "Node", "Namespace")]
    if have and r.random() < 0.4:
        d = r.choice(have)
        key, value = r.choice([("bogusField", 1), ("spec", "text"), ("metadata", {"name": 7}),
                               ("status", {"capacity": {"cpu": "-2"}}), ("value", 2 ** 40)])
        docs[d][key] = value
        return f"document {d + 1} ({docs[d].get('kind')}) {key} = {value!r}"
    doc = copy.deepcopy(r.choice(BAD_BUILTINS))
    docs.insert(r.randrange(len(docs) + 1), doc)
    return f"bad {doc['kind']} added: {json.dumps(doc)[:120]}"


def _workload_unknown(docs, r):
    """A Workload (of a cohort with others, often) given an unknown field, at its top, spec or a pod set."""
    spots = [d for d, doc in enumerate(docs) if isinstance(doc, dict) and doc.get("kind") == "Workload"]
    if not spots:
        return False
    d = r.choice(spots)
    holder, where = docs[d], "top"
    spec = holder.get("spec")
    if isinstance(spec, dict) and r.random() < 0.7:
        holder, where = spec, "spec"
        sets = spec.get("podSets")
        if isinstance(sets, list) and sets and isinstance(sets[0], dict) and r.random() < 0.5:
            holder, where = sets[0], "spec.podSets[0]"
    holder[r.choice(["unknownField", "priorityClass", "podSetz", "countt"])] = r.choice([1, "x", {"a": 1}])
    return f"Workload (document {d + 1}) unknown field at {where}"


def _component_status(docs, r):
    """An AppWrapper's status.componentStatus of the wrong length, or its pod sets' paths to nothing, bad or odd."""
    spots = [d for d, doc in enumerate(docs) if isinstance(doc, dict) and doc.get("kind") == "AppWrapper"
             and isinstance(doc.get("spec"), dict) and isinstance(doc["spec"].get("components"), list)]
    if not spots:
        return False
    d = r.choice(spots)
    doc = docs[d]
    status = doc.get("status") if isinstance(doc.get("status"), dict) else {}
    doc["status"] = status
    n = len(doc["spec"]["components"])
    path = r.choice(["template.spec.template", "template.spec.nope", "template", "", "template.spec.template.spec",
                     "template.spec.replicatedJobs[0].template.spec.template", "template.spec.template[3]", "..", None])
    entry = {"name": "c", "kind": "Job", "apiVersion": "batch/v1",
             "podSets": r.choice([[{"path": path, "replicas": r.choice([0, -1, 1, 3, None])}], [], None, "x"])}
    status["componentStatus"] = r.choice([[], [entry] * max(0, n - 1), [entry] * n, [entry] * (n + 1), "x", [None]])
    return f"AppWrapper (document {d + 1}) componentStatus of {status['componentStatus']!r}"[:200]


PLACEHOLDERS = ["{{ .Values.image }}", "{{ .Release.Name }}", "{{ request.object.metadata.name }}",
                "$(params.queue)", "{{inputs.parameters.x}}", "{{workflow.name}}", "{{ name | lower }}",
                "{% if x %}a{% endif %}", "${{ github.sha }}", "${{ inputs.cpu }}", "{{- .Values.cpu -}}",
                "{{ tasks.a.outputs.result }}", "{{ $.Values.x }}"]


def _placeholder(docs, r):
    """A string value (a name, a queue, an image, a quantity) made a quoted template placeholder of some tool."""
    spots = [(d, p) for d, doc in enumerate(docs) for p in _paths(doc)
             if p and isinstance(_get(doc, p), (str, int)) and not isinstance(_get(doc, p), bool)
             and p[-1] not in ("apiVersion", "kind")]
    if not spots:
        return False
    d, p = r.choice(spots)
    old = _get(docs[d], p)
    value = r.choice(PLACEHOLDERS)
    if isinstance(old, str) and old and r.random() < 0.4:
        value = old + "-" + value
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value!r}"


def _t_placeholder(text, r):
    """A line's value made an unquoted placeholder (`image: {{ .Values.image }}`, `cpu: ${{ inputs.cpu }}`)."""
    lines = _lines(text)
    hits = [i for i, line in enumerate(lines) if re.match(r"^\s*(- )?[\w./-]+: [^{\[#&*|>]", line)]
    if not hits:
        return text, "no value line"
    i = r.choice(hits)
    key, _, _ = lines[i].partition(": ")
    lines[i] = f"{key}: {r.choice(PLACEHOLDERS)}\n"
    return "".join(lines), f"line {i + 1} unquoted placeholder: {lines[i].strip()}"


def _negative_count(docs, r):
    """A count, pod count or replica count made negative or zero (TAS assignments' counts too)."""
    spots = [s for key in ("count", "replicas", "parallelism", "completions", "podCount", "universal",
                           "individual", "minCount", "minReplicas", "maxReplicas", "numOfHosts")
             for s in _named(docs, key)]
    if not spots:
        return False
    d, p = r.choice(spots)
    old = _get(docs[d], p)
    value = [r.choice([0, -1, -5]) for _ in old] if isinstance(old, list) else r.choice([0, -1, -5])
    _get(docs[d], p[:-1])[p[-1]] = value
    return f"{'.'.join(map(str, p))} = {value}"


FEATURES = [_gate_flip, _gate_flip, _slice_target, _old_queue, _node_gone, _assignment, _zero_count, _number, _drop,
            _retype, _drop_doc, _duplicate_doc, _bad_builtin, _bad_builtin, _workload_unknown, _component_status,
            _component_status, _placeholder, _placeholder, _negative_count, _negative_count]
