"""Invalid built-in objects, each with one mistake a user makes, as Kubernetes' own code checks them (kubevalidate,
tools/kube-apiserver/cmd/kubevalidate: kube-apiserver v1.35.3's decoding, defaulting and create strategies) against
kadmit's errors on the same object: where Kubernetes refuses and kadmit reports no error (or the reverse), a line
DIFFER (what kadmit does not refuse yet; docs/ORACLE-FINDINGS.md, "kubevalidate"). `-v` prints the agreements too.
Nothing here asserts. Run: `.venv/bin/python bench/builtin_refusals_sweep.py [-v]` (Go builds kubevalidate on first use).
Figures 2026-12-06: 19 agree, 23 differ of 42; since builtinrefusals (manifests/builtinspec.py)
37 agree, 5 differ; tail 41; refusals (a Job's generated selector) 42 of 42, then 48 of 48 with six more
(LimitRange rules, a resource name with a bad domain, unknown fields: kubevalidate decodes strictly); refusals2 55 of
55; refusals3 65 of 65 with ten more (a container without image or name, a pod without containers, a Pod's image with a
trailing space, a Job template without restartPolicy, port names, containerPort 0, hostPort): main had 56 of 65)."""
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from kadmit import workspace as ws  # noqa: E402

KV = subprocess.run([str(ROOT / "tools" / "kube-apiserver" / "kubevalidate"), "--build-only"], capture_output=True, text=True,
                    check=True).stdout.strip()
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
       "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}}
def pod(**spec):
    p = copy.deepcopy(POD)
    p["spec"].update(spec)
    return p
def podc(**c):
    p = copy.deepcopy(POD)
    p["spec"]["containers"][0].update(c)
    return p
def job(**spec):
    j = copy.deepcopy(JOB)
    j["spec"].update(spec)
    return j
def jobt(**spec):
    j = copy.deepcopy(JOB)
    j["spec"]["template"]["spec"].update(spec)
    return j
CASES = {
 "pod-bad-name": (lambda p: (p["metadata"].update(name="Bad_Name"), p)[1])(copy.deepcopy(POD)),
 "pod-bad-label-value": (lambda p: (p["metadata"]["labels"].update(x="a b"), p)[1])(copy.deepcopy(POD)),
 "pod-bad-annotation-key": (lambda p: (p["metadata"].update(annotations={"a b": "x"}), p)[1])(copy.deepcopy(POD)),
 "pod-toleration-bad-effect": pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "Sometimes"}]),
 "pod-toleration-equal-no-key": pod(tolerations=[{"operator": "Equal", "value": "v"}]),
 "pod-nodeselector-bad-key": pod(nodeSelector={"a b": "x"}),
 "pod-affinity-bad-operator": pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Near", "values": ["a"]}]}]}}}),
 "pod-dup-container-names": pod(containers=[{"name": "c", "image": "x"}, {"name": "c", "image": "x"}]),
 "pod-bad-container-name": podc(name="C_1"),
 "pod-negative-cpu": podc(resources={"requests": {"cpu": "-1"}}),
 "pod-bad-resource-name": podc(resources={"requests": {"foo": "1"}}),
 "pod-bad-restart-policy": pod(restartPolicy="Sometimes"),
 "pod-bad-priority-class-name": pod(priorityClassName="Bad_Name"),
 "pod-spread-bad-skew": pod(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"}]),
 "pod-bad-port": podc(ports=[{"containerPort": 70000}]),
 "pod-bad-runtime-class": pod(runtimeClassName="Bad_Name"),
 "pod-bad-scheduler-gate": pod(schedulingGates=[{"name": "a b"}]),
 "job-negative-parallelism": job(parallelism=-1),
 "job-negative-completions": job(completions=-1),
 "job-indexed-without-completions": job(completionMode="Indexed"),
 "job-bad-completion-mode": job(completionMode="Sometimes"),
 "job-restart-always": jobt(restartPolicy="Always"),
 "job-negative-backoff": job(backoffLimit=-1),
 "job-bad-selector": job(selector={"matchLabels": {"a": "b"}}),
 "job-ttl-negative": job(ttlSecondsAfterFinished=-1),
 "job-active-deadline-zero": job(activeDeadlineSeconds=0),
 "job-pod-failure-policy-bad": job(podFailurePolicy={"rules": [{"action": "Explode", "onExitCodes": {"operator": "In", "values": [1]}}]}),
 "job-success-policy-nonindexed": job(successPolicy={"rules": [{"succeededCount": 1}]}),
 "job-max-failed-indexes-without-backoff": job(completionMode="Indexed", completions=2, maxFailedIndexes=1),
 "deploy-selector-mismatch": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "c"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
 "deploy-negative-replicas": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d2", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}, "spec": {"replicas": -1, "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
 "sts-no-selector": {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}, "spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
 "priorityclass-too-high": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "huge"}, "value": 2000000001},
 "priorityclass-system-prefix": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-mine"}, "value": 10},
 "priorityclass-bad-policy": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"}, "value": 10, "preemptionPolicy": "Sometimes"},
 "limitrange-min-over-max": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "default"}, "spec": {"limits": [{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}]}},
 "limitrange-default-over-max": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr2", "namespace": "default"}, "spec": {"limits": [{"type": "Container", "max": {"cpu": "1"}, "default": {"cpu": "2"}}]}},
 "runtimeclass-bad-handler": {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc"}, "handler": "Bad_Handler"},
 "runtimeclass-negative-overhead": {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc2"}, "handler": "h", "overhead": {"podFixed": {"cpu": "-1"}}},
 "node-bad-taint-effect": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}, "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}},
 "node-bad-label": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2", "labels": {"a b": "c"}}},
 "namespace-bad-name": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Bad.ns"}},
 "limitrange-ratio-below-one": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr3", "namespace": "default"}, "spec": {"limits": [{"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}]}},
 "limitrange-pod-default": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr4", "namespace": "default"}, "spec": {"limits": [{"type": "Pod", "default": {"cpu": "1"}}]}},
 "limitrange-pvc-without-storage": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr5", "namespace": "default"}, "spec": {"limits": [{"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}]}},
 "pod-resource-bad-domain": podc(resources={"limits": {"Example.com/gpu": "1"}}),
 "limitrange-unknown-field": {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr6", "namespace": "default"}, "spec": {"limits": [], "defaults": {"cpu": "1"}}},
 "node-unknown-field": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"}, "spec": {"taint": []}},
 "job-service-account-placeholder": jobt(serviceAccountName="$K8S_SA_NAME"),
 "pod-deprecated-service-account": pod(serviceAccount="Build_Bot"),
 "pod-port-protocol-lowercase": podc(ports=[{"containerPort": 80, "protocol": "tcp"}]),
 "node-capacity-pods-fraction": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n4"}, "status": {"capacity": {"pods": "500m"}}},
 "node-allocatable-gpu-fraction": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n5"}, "status": {"allocatable": {"example.com/gpu": "1.5"}}},
 "node-capacity-not-a-map": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n6"}, "status": {"capacity": 5}},
 "node-capacity-negative": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n7"}, "status": {"capacity": {"cpu": "-1"}}},
 "pod-container-without-image": (lambda p: (p["spec"]["containers"][0].pop("image"), p)[1])(copy.deepcopy(POD)),
 "pod-without-containers": pod(containers=[]),
 "pod-image-trailing-space": podc(image="busybox "),
 "job-without-restart-policy": (lambda j: (j["spec"]["template"]["spec"].pop("restartPolicy"), j)[1])(copy.deepcopy(JOB)),
 "job-init-container-without-image": jobt(initContainers=[{"name": "i"}]),
 "pod-port-bad-name": podc(ports=[{"name": "Metrics_1", "containerPort": 80}]),
 "pod-port-duplicate-name": podc(ports=[{"name": "http", "containerPort": 80}, {"name": "http", "containerPort": 81}]),
 "pod-port-zero": podc(ports=[{"name": "http", "containerPort": 0}]),
 "pod-host-port-out-of-range": podc(ports=[{"containerPort": 80, "hostPort": 70000}]),
 "pod-container-without-name": pod(containers=[{"image": "busybox"}]),
}
QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: 10}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""
run = subprocess.run([KV], input="".join(json.dumps(o) + "\n" for o in CASES.values()), capture_output=True, text=True, check=True)
answers = [json.loads(l) for l in run.stdout.splitlines()]
agree = differ = 0
tmp = Path(tempfile.mkdtemp(prefix="kadmit-sweep-"))
for (name, obj), a in zip(CASES.items(), answers):
    d = tmp / name
    d.mkdir()
    (d / "s.yaml").write_text(QUEUE + "---\n" + yaml.safe_dump(obj))
    w = ws.load([str(d)])
    errs = [f"{x.code} {x.message}" for x in w.diagnostics if x.severity.name == "ERROR"]
    refused = a.get("refused")
    ok = bool(refused) == bool(errs)
    agree += ok
    differ += not ok
    if not ok or "-v" in sys.argv:
        print(("AGREE " if ok else "DIFFER"), name, "| k8s:", (refused or "accepted")[:230], "| kadmit:", (errs[0][:150] if errs else "no error"))
print(agree, "agree,", differ, "differ of", len(CASES))
