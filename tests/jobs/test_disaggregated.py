"""DisaggregatedSet (LWS v0.9.0's kind): not in Kueue v0.17's world (Kueue v0.17.0 pins LWS v0.8.0, which has
no such CRD, and never names it; docs/INTEGRATIONS.md §11). kadmit lists it as a kind it does not read, saying
why, as Kueue's oracle lists it; the LeaderWorkerSets a later LWS makes of it are decided as any other."""

from __future__ import annotations

import json

from .helpers import SETUP, run, write

DS = """\
apiVersion: disaggregatedset.x-k8s.io/v1
kind: DisaggregatedSet
metadata:
  name: serve
spec:
  roles:
  - name: prefill
    metadata:
      labels: {kueue.x-k8s.io/queue-name: user-queue}
    spec:
      replicas: 1
      leaderWorkerTemplate:
        size: 2
        workerTemplate:
          spec:
            containers: [{name: w, image: x, resources: {requests: {cpu: "1"}}}]
"""

# What LWS's controller makes of the role: a LeaderWorkerSet owned by the set, its labels the role's.
CHILD = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve-0-abc12-prefill
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  ownerReferences:
  - {apiVersion: disaggregatedset.x-k8s.io/v1, kind: DisaggregatedSet, name: serve, uid: u-1, controller: true}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers: [{name: w, image: x, resources: {requests: {cpu: "1"}}}]
"""


def test_a_disaggregated_set_is_listed_as_not_read_saying_why(tmp_path):
    r = run("admit", "--format", "json", *write(tmp_path, setup__yaml=SETUP, ds__yaml=DS))
    assert r.exit_code == 0, r.output
    answer = json.loads(r.stdout)
    assert answer["decisions"] == []
    [skipped] = answer["skipped"]
    assert (skipped["kind"], skipped["name"]) == ("DisaggregatedSet", "serve")
    assert skipped["reason"].startswith("kadmit does not read this kind: DisaggregatedSet came in LWS v0.9.0; "
                                        "Kueue v0.17.0 pins sigs.k8s.io/lws v0.8.0")
    assert "warning[KAD159]" in r.stderr


def test_the_leader_worker_sets_a_later_lws_makes_of_it_are_kueues_jobs(tmp_path):
    r = run("admit", "--format", "json", *write(tmp_path, setup__yaml=SETUP, ds__yaml=DS, child__yaml=CHILD))
    assert r.exit_code == 0, r.output
    [decision] = json.loads(r.stdout)["decisions"]
    assert decision["object"]["kind"] == "LeaderWorkerSet" and decision["admitted"]
