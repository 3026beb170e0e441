"""A preferred node-affinity term's weight outside 1-100 (ValidatePreferredSchedulingTerms, "must be in the range
1-100"), and a pod (anti-)affinity term's (validateWeightedPodAffinityTerms) or its topologyKey empty or no
qualified name (validatePodAffinityTerm), on the real API server: a Pod or a built-in job's template is refused, and kadmit refuses it (KAD157) in
the server's words, in its order (each term's weight before its preference's words); a custom resource's template
is stored unvalidated and the objects its controller makes are refused (KAD199). A Workload object's is stored and
decided as Kueue decides it, preferences ignored (tests/oracle/features/preferred-node-affinity-weight-out-of-
range-unvalidated.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kube.server import KubeAPIServer
from kube.test_node_field_selector import made_job_refused, objects, refused_in_the_servers_words

pytestmark = pytest.mark.slow

# weights 0, 101 (beside a refused matchFields requirement) and -3 (of an empty preference); 1 and 100 are taken
AFFINITY = ("{nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
            "{weight: 0, preference: {matchExpressions: [{key: a, operator: In, values: [x]}]}}, "
            "{weight: 101, preference: {matchFields: [{key: metadata.name, operator: Exists}]}}, "
            "{weight: 1, preference: {}}, {weight: 100, preference: {}}, {weight: -3, preference: {}}]}}")
OBJECTS, JOBSET, MADE_JOB = objects("pw", AFFINITY)


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_a_weight_out_of_range_is_refused_in_the_servers_words(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    refused = refused_in_the_servers_words(kube_apiserver, tmp_path, OBJECTS[kind])
    assert len(refused) == 4 and sum("must be in the range 1-100" in w for w in refused) == 3


def test_a_custom_resources_weight_refuses_the_objects_it_makes(kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    made_job_refused(kube_apiserver, tmp_path, JOBSET, MADE_JOB, "must be in the range 1-100")


# pod affinity: a required term without topologyKey, preferred ones of weight 101 and -1, keys that are no label key
# (a space, two `/`, an upper-case prefix, a name of 64 bytes)
POD_AFFINITY = ("{podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {a: b}}}, "
                "{topologyKey: a/b/c}, {topologyKey: Bad_Prefix/x}, {topologyKey: " + "n" * 64 + "}], "
                "preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, podAffinityTerm: {topologyKey: zone}}, "
                "{weight: 5, podAffinityTerm: {topologyKey: 'bad key!'}}]}, "
                "podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: -1, podAffinityTerm: "
                "{topologyKey: ''}}, {weight: 100, podAffinityTerm: {topologyKey: example.com/rack}}]}}")
POD_OBJECTS, _, _ = objects("pa", POD_AFFINITY)
# the JobSet CRD requires a term's topologyKey (its schema's `required`), so a JobSet leaving it out is refused itself;
# one with it empty, or no label key, or a weight out of range, is stored
_, POD_JOBSET, POD_MADE_JOB = objects("pa", POD_AFFINITY.replace("{labelSelector: {matchLabels: {a: b}}}",
                                                                 "{topologyKey: ''}", 1))


@pytest.mark.parametrize("kind", sorted(POD_OBJECTS))
def test_pod_affinity_terms_are_refused_in_the_servers_words(
        kind: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    refused = refused_in_the_servers_words(kube_apiserver, tmp_path, POD_OBJECTS[kind])
    assert len(refused) == 12 and sum("must be in the range 1-100" in w for w in refused) == 2


def test_a_custom_resources_pod_affinity_refuses_the_objects_it_makes(
        kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    made_job_refused(kube_apiserver, tmp_path, POD_JOBSET, POD_MADE_JOB, "topologyKey: Required value: can not be empty")
