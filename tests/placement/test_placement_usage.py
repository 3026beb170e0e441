"""Admitted workloads' node placements, from both front ends, become node usage."""

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.placement.inventory import model_inventory
from kadmit.syntax import parse_text
from .builders import admitted_usage

KAD = """
node n-1 { allocatable = { cpu = 8, pods = 10 } }
node n-2 { allocatable = { cpu = 8, pods = 10 } }
workload a/b {
  queue = q
  pod_group w { count = 3  requests = { cpu = 2 } }
  admitted { cluster_queue = cq  pod_group w { count = 3  flavor = f  nodes = { "n-1" = 2, n-2 = 1 } } }
}
"""

YAML = """
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: b, namespace: a, creationTimestamp: "2026-11-20T08:00:00Z"}
spec:
  queueName: q
  podSets:
  - name: w
    count: 3
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "2"}}
status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: w
      count: 3
      flavors: {cpu: f}
      resourceUsage: {cpu: "6"}
      topologyAssignment:
        levels: ["kubernetes.io/hostname"]
        domains:
        - {values: ["n-1"], count: 2}
        - {values: ["n-2"], count: 1}
"""


def test_kad_and_manifest_placements_agree_and_take_node_capacity():
    d = Diagnostics()
    kad = merge([parse_text(KAD, "p.kad", d)])
    yml = read_manifest_text(YAML, "w.yaml", d)
    assert not d.has_errors, [x.message for x in d]
    kad_psa = kad.workloads[0].admission.pod_sets[0]
    assert kad_psa.placement == {"n-1": 2, "n-2": 1}
    assert yml.workloads[0].admission.pod_sets[0].placement == kad_psa.placement
    usage = admitted_usage(kad)
    assert usage == {"n-1": {"cpu": 4000, "pods": 2000}, "n-2": {"cpu": 2000, "pods": 1000}}
    inv = model_inventory(kad, usage)
    assert inv.get("n-1").free["cpu"] == 4000 and inv.get("n-2").free["pods"] == 9000


def test_a_rack_level_assignment_is_read_by_its_domain():
    # Kueue's TAS cache counts it on the lowest-level domain of that ID (the values joined by commas)
    text = YAML.replace('levels: ["kubernetes.io/hostname"]', 'levels: ["cloud.example.com/block", "cloud.example.com/rack"]').replace(
        '- {values: ["n-1"], count: 2}\n        - {values: ["n-2"], count: 1}', '- {values: ["b0", "r1"], count: 3}')
    d = Diagnostics()
    psa = read_manifest_text(text, "w.yaml", d).workloads[0].admission.pod_sets[0]
    assert psa.placement == {"b0,r1": 3} and psa.placement_levels == ("cloud.example.com/block", "cloud.example.com/rack")
    assert not list(d)


def test_an_assignment_over_rack_and_hostname_holds_no_node():
    # Kueue v0.17's TAS cache keys a hostname-lowest topology's nodes by hostname and the
    # assignment's domains by their joined values ("r1,n-1"): no node matches, no usage counts
    text = YAML.replace('levels: ["kubernetes.io/hostname"]',
                        'levels: ["cloud.example.com/rack", "kubernetes.io/hostname"]').replace(
        '- {values: ["n-1"], count: 2}\n        - {values: ["n-2"], count: 1}',
        '- {values: ["r1", "n-1"], count: 2}\n        - {values: ["r1", "n-2"], count: 1}')
    d = Diagnostics()
    frag = read_manifest_text(text, "w.yaml", d)
    assert frag.workloads[0].admission.pod_sets[0].placement == {}
    assert [x.code for x in d] == ["KAD168"] and "finds no node" in d.items[0].message


def test_an_admission_without_resource_usage_holds_nothing_in_kueues_books():
    # Kueue books an admitted workload by its admission's recorded usage (totalRequestsFromAdmission):
    # none recorded, no quota held, and on its nodes only its pods' count
    from kadmit.index import admitted_usage
    from kadmit.placement.inventory import admitted_pod_requests

    d = Diagnostics()
    wl = read_manifest_text(YAML.replace('      resourceUsage: {cpu: "6"}\n', ""), "w.yaml", d).workloads[0]
    psa = wl.admission.pod_sets[0]
    assert psa.unrecorded and [x.code for x in d] == ["KAD169"] and "holds no quota" in d.items[0].message
    assert admitted_usage(wl) == {} and admitted_pod_requests(wl.pod_sets[0], psa) == {}
    d = Diagnostics()
    wl = read_manifest_text(YAML, "w.yaml", d).workloads[0]
    assert not wl.admission.pod_sets[0].unrecorded and not list(d)
    assert admitted_usage(wl) == {("f", "cpu"): 6000}


def test_a_v1beta2_slice_of_no_domains_is_the_api_servers_refusal():
    # The Workload CRD's domainCount is 1 or more, and 0 is Go's omitted value: the API server refuses the
    # Workload ("Required value", the oracle: tests/oracle/features/...-domain-count-0-refused.yaml), so it holds
    # neither quota nor node capacity; kadmit read it silently, with its quota and without its pods
    slices = "slices:\n        - {domainCount: %s, valuesPerLevel: [{universal: n-1}], podCounts: {universal: 3}}"
    text = YAML.replace("kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2").replace(
        'domains:\n        - {values: ["n-1"], count: 2}\n        - {values: ["n-2"], count: 1}', slices)
    d = Diagnostics()
    assert read_manifest_text(text % 1, "w.yaml", d).workloads[0].admission.pod_sets[0].placement == {"n-1": 3}
    assert not list(d)
    d = Diagnostics()
    assert read_manifest_text(text % 0, "w.yaml", d).workloads == []
    assert [x.code for x in d] == ["KAD157"] and d.items[0].message.endswith(
        "status.admission.podSetAssignments[0].topologyAssignment.slices[0].domainCount: Required value`")
    d = Diagnostics()
    assert read_manifest_text(text.replace("domainCount: %s, ", ""), "w.yaml", d).workloads == []
    assert [x.code for x in d] == ["KAD157"] and "slices[0].domainCount: Required value" in d.items[0].message
