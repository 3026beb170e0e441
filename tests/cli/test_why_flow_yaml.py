"""`why`'s fixes on manifests written in flow style (`{a: 1}` on one line, as `kubectl` users and
generators write them): each names the field it changes and its `--format patch` diff, applied with
`patch`, admits the workload."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}, {name: memory, nominalQuota: 8Gi}]}]}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: t}
spec: {clusterQueue: q}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: t, creationTimestamp: "2026-11-20T08:00:00Z"}
spec: {queueName: lq, podSets: [{name: main, count: 2, template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "3", memory: 1Gi}}}]}}}]}
"""
QUOTA_6 = CLUSTER.replace("nominalQuota: 4}", "nominalQuota: 6}")
TAINTED = CLUSTER.replace("metadata: {name: f}\n", "metadata: {name: f}\n"
                          "spec: {nodeTaints: [{key: gpu, value: \"true\", effect: NoSchedule}]}\n")

CASES = {
    # 2 pods of 3 cpu, 4 cpu of quota
    "count": (CLUSTER, "spec.podSets[0].count of Workload `t/w`: 2 → 1", "{name: main, count: 1, template"),
    # at least 3 pods of 3 cpu, 6 cpu of quota: partial admission down to 2
    "minCount": (QUOTA_6.replace("count: 2, template", "count: 4, minCount: 3, template"),
                 "spec.podSets[0].minCount of Workload `t/w`: 3 → 2", "count: 4, minCount: 2, template"),
    # the flavor's taint: tolerated first in the flow template spec
    "tolerations": (TAINTED.replace("count: 2, template", "count: 1, template"),
                    "spec.podSets[0].template.spec.tolerations of Workload `t/w`: add the toleration",
                    'template: {spec: {tolerations: [{"key": "gpu", "operator": "Equal", "value": "true", '
                    '"effect": "NoSchedule"}], containers:'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fix_on_a_flow_mapping_names_its_field_and_its_patch_admits(run, case):
    text, named, patched = CASES[case]
    run.write("in/c.yaml", text)
    assert "0 of 1 pending workloads admitted" in run("admit", "in").output
    human = run("why", "t/w", "in", "--fixes", "3").output
    # the fix changing that field (halving the job comes after the quota raised ×1.5: `explain.rank`)
    number = next((line.split(".")[0].strip() for line in human.splitlines()
                   if re.match(r"  \d+\. change ", line) and named in line), None)
    assert number is not None, human
    diff = run("why", "t/w", "in", "--fixes", "3", "--format", "patch", "--apply-fix", number).output
    subprocess.run(["patch", "-s", "-p1", "-d", str(run.root)], input=diff,
                   text=True, check=True)
    after = (run.root / "in" / "c.yaml").read_text()
    assert patched in after
    decided = json.loads(run("admit", "in", "--format", "json").output)["decisions"]
    assert [(d["workload"], d["admitted"]) for d in decided] == [("t/w", True)]
