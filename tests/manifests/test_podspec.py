"""Effective pod requests: bounds that hold for every mix of containers, init containers and sidecars."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit import workspace as ws
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text

millis = st.integers(min_value=0, max_value=64_000)
container = st.fixed_dictionaries({"cpu": millis, "sidecar": st.booleans()})


def requests_of(containers, inits, overhead):
    spec = {
        "containers": [{"name": f"c{i}", "image": "i", "resources": {"requests": {"cpu": f"{c['cpu']}m"}}}
                       for i, c in enumerate(containers)],
        "initContainers": [{"name": f"i{i}", "image": "i", "resources": {"requests": {"cpu": f"{c['cpu']}m"}},
                            **({"restartPolicy": "Always"} if c["sidecar"] else {})}
                           for i, c in enumerate(inits)],
        "overhead": {"cpu": f"{overhead}m"},
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
    diags = Diagnostics()
    frag = read_manifest_text(yaml.safe_dump(pod), "p.yaml", diags)
    assert not diags.items
    return frag.pods[0].requests.get("cpu", 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(container, min_size=1, max_size=4), st.lists(container, max_size=4), millis)
def test_requests_are_bounded_by_what_runs_together(containers, inits, overhead):
    got = requests_of(containers, inits, overhead)
    sidecars = [c["cpu"] for c in inits if c["sidecar"]]
    steady = sum(c["cpu"] for c in containers) + sum(sidecars)
    # at least what runs once init is done, and at least each init container (with overhead)
    assert got >= steady + overhead
    assert all(got >= c["cpu"] + overhead for c in inits)
    # at most everything at once
    assert got <= steady + sum(c["cpu"] for c in inits) + overhead
    if not inits:
        assert got == steady + overhead


def test_sidecars_started_before_an_init_container_count_with_it():
    inits = [{"cpu": 1000, "sidecar": True}, {"cpu": 5000, "sidecar": False}]
    # steady: 2000 + 1000 = 3000; the second init container runs beside the sidecar: 6000
    assert requests_of([{"cpu": 2000, "sidecar": False}], inits, 0) == 6000
    # an init container that runs before the sidecar starts runs alone
    assert requests_of([{"cpu": 2000, "sidecar": False}], inits[::-1], 0) == 5000


def test_node_affinity_match_fields_are_read_and_not_warned():
    """`matchFields` (on `metadata.name`) are kept beside a term's expressions: Kueue's TAS and kube-scheduler
    match them against the node's name (tests/oracle/features/tas-node-affinity-match-fields*.yaml), so
    they are modelled, no longer a KAD161."""
    terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
              "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]},
             {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": terms}}}}
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "ns"},
          "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}]}}
    diags = Diagnostics()
    frag = read_manifest_text(yaml.safe_dump(wl), "w.yaml", diags)
    assert not [d for d in diags.items if d.code == "KAD161"], [d.message for d in diags.items]
    a, b = frag.workloads[0].pod_sets[0].node_affinity
    assert [(r.key, r.operator, r.values) for r in a.match_expressions] == [("zone", "In", ("a",))]
    assert [(r.key, r.operator, r.values) for r in a.match_fields] == [("metadata.name", "NotIn", ("n1",))]
    assert not b.match_expressions and [r.values for r in b.match_fields] == [("n2",)]
    assert a.matches({"zone": "a"}, "n2") and not a.matches({"zone": "a"}, "n1")


def _said_of_each(tmp_path, spec: dict, workload=None) -> dict[str, list[tuple[str, str]]]:
    """KAD157 and KAD199 of a Pod, a JobSet (a Job template) and a Workload (a pod set) of pod spec `spec`, by kind;
    `workload(model)` looks at the Workload's model."""
    meta = {"name": "x", "namespace": "ns", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}
    objects = {"Pod": {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec},
               "JobSet": {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
                          "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {
                              "spec": {"template": {"spec": spec}}}}]}},
               "Workload": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta,
                            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1,
                                                                     "template": {"spec": spec}}]}}}
    said = {}
    for kind, obj in objects.items():
        path = tmp_path / f"{kind}.yaml"
        path.write_text(yaml.safe_dump(obj), encoding="utf-8")
        got = ws.load([str(path)])
        said[kind] = [(d.code, d.message) for d in got.diagnostics if d.code in ("KAD157", "KAD199")]
        if kind == "Workload" and workload is not None:
            workload(got.model)
    return said


def _refused_as_the_api_server_says(said: dict[str, list[tuple[str, str]]], words: list[str]) -> None:
    """The Pod refused (KAD157) in `words`, the JobSet warned (KAD199) in its Job's, the Workload kept."""
    assert said["Pod"] == [("KAD157", f"the API server refuses the object: `{w}`") for w in words]
    (code, message), = said["JobSet"]
    assert code == "KAD199" and "[" + ", ".join(w.replace("spec.", "spec.template.spec.", 1) for w in words) + "]" \
        in message, message
    assert said["Workload"] == []


def test_refused_match_fields_are_refused_where_the_api_server_validates_the_template(tmp_path):
    """A `matchFields` requirement ValidateNodeFieldSelectorRequirement refuses: a Pod is refused (KAD157) in the
    server's words (checked on the real server: tests/kube/test_node_field_selector.py), a JobSet warned (KAD199:
    its Jobs are refused), a Workload kept (its template is not validated) and the term matches no node."""
    fields = [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]},
              {"key": "metadata.name", "operator": "In", "values": []}]
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": fields}]}}}}
    term = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    words = [f'{term}.matchFields[0].key: Invalid value: "spec.nodeName": not a valid field selector key',
             f"{term}.matchFields[1].values: Required value: must be only one value when `operator` is 'In' or "
             "'NotIn' for node field selector"]

    def matches_no_node(model) -> None:
        (term_read,) = model.workloads[0].pod_sets[0].node_affinity
        assert not term_read.matches({}, "n1")
    _refused_as_the_api_server_says(_said_of_each(tmp_path, spec, matches_no_node), words)


def test_a_preferred_weight_out_of_range_is_refused_where_the_api_server_validates_the_template(tmp_path):
    """ValidatePreferredSchedulingTerms: weight 1-100. A Pod is refused (KAD157) in the server's words, each term's
    weight before its preference's (checked on the real server: tests/kube/test_preferred_weight.py), a JobSet
    warned (KAD199: its Jobs are refused), a Workload kept (its template is not validated; Kueue ignores preferred
    terms: tests/oracle/features/preferred-node-affinity-weight-out-of-range-unvalidated.yaml)."""
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}],
            "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 0, "preference": {}}, {"weight": 1, "preference": {}}, {"weight": 100, "preference": {}},
                {"weight": 101, "preference": {"matchFields": [{"key": "x", "operator": "In", "values": ["n1"]}]}}]}}}
    at = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    words = [f"{at}[0].weight: Invalid value: 0: must be in the range 1-100",
             f"{at}[3].weight: Invalid value: 101: must be in the range 1-100",
             f'{at}[3].preference.matchFields[0].key: Invalid value: "x": not a valid field selector key']
    _refused_as_the_api_server_says(_said_of_each(tmp_path, spec), words)


def test_pod_affinity_terms_are_refused_where_the_api_server_validates_the_template(tmp_path):
    """validatePodAffinity: each preferred term's weight 1-100, each term's topologyKey set and a qualified name, in
    the server's words and order (checked on the real server: tests/kube/test_preferred_weight.py); a JobSet warned
    (KAD199), a Workload kept (Kueue reads no pod affinity)."""
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}],
            "affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}, {"topologyKey": "a/b/c"}],
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 0, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}}}
    at = "spec.affinity.podAntiAffinity"
    words = [f'{at}.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey: Invalid value: "a/b/c": a valid label key '
             "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
             "'example.com/MyName')",
             f"{at}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range "
             "1-100"]
    _refused_as_the_api_server_says(_said_of_each(tmp_path, spec), words)
