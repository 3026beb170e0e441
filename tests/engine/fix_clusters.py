"""Small generated clusters written as `.kad` text (one statement per line, so every number a fix
may change has its own span), for the property tests of proven fixes."""

from __future__ import annotations

from hypothesis import strategies as st

FLAVORS = ("f", "g")


@st.composite
def kad_clusters(draw, max_queues: int = 3, max_pending: int = 5, max_admitted: int = 2) -> str:
    out = ["priority low = 10", "priority mid = 100 default", "priority high = 1000", ""]
    for f in FLAVORS:
        out.append(f"flavor {f} {{ node_labels = {{ model = \"{f}\" }} }}")
    out += ["namespace ns-a {", '  labels = { team = "a" }', "}",
            "namespace ns-b {", '  labels = { team = "b" }', "}"]
    cohorts = draw(st.integers(0, 2))
    for c in range(cohorts):
        out.append(f"cohort c{c} {{ }}")
    queues = draw(st.integers(1, max_queues))
    first: list[str] = []
    for i in range(queues):
        cohort = draw(st.integers(-1, cohorts - 1)) if cohorts else -1
        strict = draw(st.booleans())
        team = draw(st.sampled_from(("a", "b", None)))
        flavors = draw(st.sampled_from((("f",), ("g",), ("f", "g"))))
        first.append(flavors[0])
        out.append(f"cluster_queue q{i} {{")
        if cohort >= 0:
            out.append(f"  cohort = c{cohort}")
        if team:
            out.append(f'  namespaces = {{ team = "{team}" }}')
        out.append(f"  queueing = {'strict_fifo' if strict else 'best_effort_fifo'}")
        if draw(st.booleans()):
            out.append("  preemption {")
            out.append("    within_cluster_queue = lower_priority")
            out.append("  }")
        out.append("  resources cpu {")
        for f in flavors:
            nominal = draw(st.integers(0, 6))
            borrow = draw(st.one_of(st.none(), st.integers(0, 4))) if cohort >= 0 else None
            out.append(f"    flavor {f} {{ cpu = {nominal}" + (f" borrow {borrow}" if borrow is not None else "") + " }")
        out.append("  }")
        out.append("}")
        for ns in ("ns-a", "ns-b"):
            out.append(f"local_queue {ns}/lq{i} -> q{i}")
    admitted = draw(st.integers(0, max_admitted))
    for j in range(admitted):
        q = draw(st.integers(0, queues - 1))
        out += [f"workload ns-a/adm{j} {{", f"  queue = lq{q}", "  priority = low",
                '  created = "2026-11-20T08:00:00Z"', "  pod_group main {", "    count = 1",
                "    requests = { cpu = 1 }", "  }", "  admitted {", f"    cluster_queue = q{q}",
                "    pod_group main {", "      count = 1", f"      flavor = {first[q]}", "    }", "  }", "}"]
    pending = draw(st.integers(1, max_pending))
    for j in range(pending):
        q = draw(st.integers(0, queues - 1))
        ns = draw(st.sampled_from(("ns-a", "ns-b")))
        count = draw(st.integers(1, 4))
        min_count = draw(st.one_of(st.none(), st.integers(1, count)))
        cpu = draw(st.integers(1, 4))
        prio = draw(st.sampled_from(("low", "mid", "high")))
        out += [f"workload {ns}/w{j} {{", f"  queue = lq{q}", f"  priority = {prio}",
                f'  created = "2026-11-20T09:{j:02d}:00Z"', "  pod_group main {", f"    count = {count}"]
        if min_count is not None:
            out.append(f"    min_count = {min_count}")
        out += [f"    requests = {{ cpu = {cpu} }}", "  }", "}"]
    if draw(st.booleans()):
        out += ["forbid no-big-on-g:", "  pod_group.count > 3 and flavor == g"]
    return "\n".join(out) + "\n"


def _doc(kind: str, api: str, name: str, body: str, namespace: str | None = None) -> str:
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}{ns}\n{body}"


@st.composite
def yaml_tas_clusters(draw, max_nodes: int = 4, max_pending: int = 3) -> str:
    """Kueue manifests: one GPU queue on a topology flavor, nodes in racks (some tainted), bound pods
    and perhaps an admitted workload holding GPUs, pending workloads asking for one rack or
    preferring one, some with tolerations, some also asking for cpu the queue has no quota for, and
    perhaps a JobSet (replicas × parallelism, a priority class label) — so fixes tolerate taints,
    raise a node's allocatable, wait for holders, change quota and counts, cover a resource in the
    queue's resource group, lower a JobSet's replicas and parallelism or raise its priority."""
    kueue = "kueue.x-k8s.io/v1beta2"
    quota = draw(st.integers(4, 40))
    docs = [
        _doc("Topology", kueue, "dc", "spec:\n  levels:\n  - nodeLabel: cloud.example.com/rack\n"
             "  - nodeLabel: kubernetes.io/hostname\n"),
        _doc("ResourceFlavor", kueue, "h100", "spec:\n  nodeLabels: {node-pool: tas}\n  topologyName: dc\n"),
        _doc("ClusterQueue", kueue, "gpu", "spec:\n  namespaceSelector: {}\n  resourceGroups:\n"
             "  - coveredResources: [\"nvidia.com/gpu\"]\n    flavors:\n    - name: h100\n      resources:\n"
             f"      - name: nvidia.com/gpu\n        nominalQuota: {quota}\n"),
        _doc("LocalQueue", kueue, "gpu", "spec:\n  clusterQueue: gpu\n", "team"),
        _doc("Namespace", "v1", "team", ""),
    ]
    nodes = draw(st.integers(1, max_nodes))
    for i in range(nodes):
        rack = draw(st.sampled_from(("r1", "r2")))
        gpus = draw(st.integers(2, 8))
        taint = draw(st.sampled_from((True, False, True)))  # tainted nodes are common: tolerations fix them
        spec = ("spec:\n  taints:\n  - key: maintenance\n    value: \"true\"\n    effect: NoSchedule\n" if taint else "")
        cpu = f"    cpu: \"{draw(st.integers(1, 8))}\"\n" if draw(st.integers(0, 3)) else ""
        docs.append(_doc("Node", "v1", f"n{i}", f"{spec}status:\n  allocatable:\n    nvidia.com/gpu: \"{gpus}\"\n"
                         f"{cpu}    pods: \"110\"\n").replace(
            "metadata:\n", f"metadata:\n  labels:\n    cloud.example.com/rack: {rack}\n"
                           f"    kubernetes.io/hostname: n{i}\n    node-pool: tas\n", 1))
    for j in range(draw(st.integers(0, 2))):
        node = draw(st.integers(0, nodes - 1))
        docs.append(_doc("Pod", "v1", f"p{j}", f"spec:\n  nodeName: n{node}\n  tolerations:\n  - operator: Exists\n"
                         "  containers:\n  - name: c\n    image: busybox\n    resources:\n      requests:\n"
                         f"        nvidia.com/gpu: \"{draw(st.integers(1, 2))}\"\nstatus:\n  phase: Running\n", "team"))
    if draw(st.booleans()):
        node = draw(st.integers(0, nodes - 1))
        docs.append(_doc("Workload", kueue, "held", "spec:\n  queueName: gpu\n  podSets:\n  - name: main\n"
                         "    count: 1\n    template:\n      spec:\n        tolerations:\n        - operator: Exists\n"
                         "        containers:\n        - name: c\n          resources:\n            requests:\n"
                         "              nvidia.com/gpu: \"2\"\nstatus:\n  admission:\n    clusterQueue: gpu\n"
                         "    podSetAssignments:\n    - name: main\n      count: 1\n      flavors:\n"
                         "        nvidia.com/gpu: h100\n      resourceUsage:\n        nvidia.com/gpu: \"2\"\n"
                         "      topologyAssignment:\n"
                         "        levels: [\"kubernetes.io/hostname\"]\n        slices:\n        - domainCount: 1\n"
                         f"          valuesPerLevel: [{{universal: \"n{node}\"}}]\n          podCounts: {{universal: 1}}\n"
                         "  conditions:\n  - type: QuotaReserved\n"
                         "    status: \"True\"\n    reason: QuotaReserved\n    message: m\n"
                         "    lastTransitionTime: \"2026-11-20T08:00:00Z\"\n", "team"))
    for j in range(draw(st.integers(1, max_pending))):
        count = draw(st.integers(1, 3))
        gpus = draw(st.integers(1, 8))
        mode = draw(st.sampled_from(("required", "preferred")))
        tol = draw(st.sampled_from(("", "        tolerations:\n        - key: other\n          operator: Exists\n")))
        cpu = "              cpu: \"1\"\n" if draw(st.integers(0, 3)) == 0 else ""  # not covered by the queue
        if cpu:  # tolerating every taint: covering cpu is the one fix it needs, where a node has cpu
            tol = "        tolerations:\n        - operator: Exists\n"
        docs.append(_doc("Workload", kueue, f"w{j}", "spec:\n  queueName: gpu\n  podSets:\n  - name: main\n"
                         f"    count: {count}\n    topologyRequest:\n      {mode}: cloud.example.com/rack\n"
                         f"    template:\n      spec:\n{tol}        containers:\n        - name: c\n"
                         "          resources:\n            requests:\n"
                         f"              nvidia.com/gpu: \"{gpus}\"\n{cpu}", "team").replace(
            "metadata:\n", f"metadata:\n  creationTimestamp: \"2026-11-20T09:{j:02d}:00Z\"\n", 1))
    if draw(st.booleans()):  # a JobSet: replicas × parallelism pods, a WorkloadPriorityClass
        docs += [_doc("WorkloadPriorityClass", kueue, "low", "value: 10\n"),
                 _doc("WorkloadPriorityClass", kueue, "high", "value: 100\n")]
        mode = draw(st.sampled_from(("required", "preferred")))
        docs.append(_doc("JobSet", "jobset.x-k8s.io/v1alpha2", "js", "spec:\n  replicatedJobs:\n  - name: workers\n"
                         f"    replicas: {draw(st.integers(1, 3))}\n    template:\n      spec:\n"
                         f"        parallelism: {draw(st.integers(1, 3))}\n        template:\n          metadata:\n"
                         f"            annotations:\n              kueue.x-k8s.io/podset-{mode}-topology: cloud.example.com/rack\n"
                         "          spec:\n            tolerations:\n            - operator: Exists\n"
                         "            containers:\n            - name: c\n              resources:\n"
                         f"                requests: {{nvidia.com/gpu: \"{draw(st.integers(1, 8))}\"}}\n", "team").replace(
            "metadata:\n", "metadata:\n  creationTimestamp: \"2026-11-20T08:00:00Z\"\n  labels:\n"
                           "    kueue.x-k8s.io/queue-name: gpu\n    kueue.x-k8s.io/priority-class: low\n", 1))
    return "---\n".join(docs)
