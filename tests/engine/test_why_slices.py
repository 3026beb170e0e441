"""`why` explains a workload slice (ElasticJobsViaWorkloadSlices) as Kueue asks it: the replacement of its job's
admitted slice, on that slice's flavors, asking only the usage beyond it (explain/replacing.py). Its old slice is
never blamed for holding quota the replacement takes over, the kept flavors are blamed where they keep it out, and
the fixes found on that basis are the ones Kueue agrees with (oracle --runs 3: the -owner-fix case, quota 5 -> 6 and
parallelism 4 -> 3 of the -waits case all admit the slice)."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.render.why import why_dict, why_human

FEATURES = Path("tests/oracle/features")
CASE = "feature-gate-elastic-jobs-via-workload-slices-on-scale-up-{}.yaml"


def _why(name: str):
    out = api.why("ns/e", [str(FEATURES / CASE.format(name))])
    assert out.result is not None
    return out.result, why_human(out.result, out.loaded.sources, None, None)


def _fixes(r) -> list[str]:
    """Each fix's edits, as the new text at their places."""
    return sorted(c.edit.new for f in r.fixes for c in f.changes)


def test_a_slice_waiting_for_quota_blames_the_others_not_its_old_slice():
    r, text = _why("waits")
    assert not r.admitted
    assert "ns/job-e-1" not in {k for o in r.blame for k in o.message.split("`")[1::2]}
    assert any("`ns/later`" in o.message for o in r.blame)
    assert why_dict(r)["standing"]["replacing"] == {"old": "ns/job-e-1", "holds": {"f0/cpu": "2"}, "only_new_pods_placed": False}
    assert ("replaces its job's admitted slice `ns/job-e-1`, which holds 2 cpu in f0 (ElasticJobsViaWorkloadSlices): "
            "of the quota Kueue asks only the 2 cpu beyond it") in text
    assert "2 of the 5 cpu in f0 were in use, held by 1 workload" in text  # the old slice's 2 counted freed
    assert _fixes(r) == ['"6"', "3"]
    assert all(f.outcome.admitted for f in r.fixes)


def test_a_slice_kept_on_its_old_flavor_blames_that_flavor():
    r, text = _why("keeps-flavor")
    assert [o.kind for o in r.blame if o.kind == "slice"] == ["slice"]
    assert "pod set `main` keeps the flavor of the slice it replaces, `ns/job-e-1` (f0): it can't use flavor `f1`" in text
    assert "cq can reach at most 3 in f0" in text  # not f1's 10: the slice may not take it
    assert _fixes(r) == ['"4"', "3"]


def test_an_admitted_slice_says_whom_it_replaced():
    r, text = _why("fits")
    assert r.admitted
    assert "it replaces its job's admitted slice ns/job-e-1 (ElasticJobsViaWorkloadSlices)" in text


def test_a_slice_is_never_told_to_wait_for_the_slice_it_replaces():
    """Its old slice's pods hold their node (blamed: Kueue places every pod of the slice beside them), but they go
    only once the replacement is admitted: no fix waits for them (oracle --runs 3: n0 at 6 cpu admits the slice,
    fix 1)."""
    out = api.why("ns/new", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-on-topology-old-pods-stay.yaml")])
    r = out.result
    assert r is not None and any("`ns/old`" in o.message for o in r.blame)
    assert r.fixes and not any(str(c.knob.value) == "ns/old" for f in r.fixes for c in f.changes)
    assert _fixes(r) == ["'6'", "2"]


def test_with_tas_a_slice_places_only_its_new_pods():
    """ElasticJobsViaWorkloadSlicesWithTAS on: Kueue places only the new pods, the old ones kept on their nodes."""
    out = api.why("ns/new", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-delta-does-not-fit.yaml")],
                  fixes=0)
    text = why_human(out.result, out.loaded.sources, None, None)
    assert "only its new pods are placed, the old slice's kept on their nodes (ElasticJobsViaWorkloadSlicesWithTAS)" in text
    assert why_dict(out.result)["standing"]["replacing"]["old"] == "ns/old"


def test_with_tas_the_placement_section_places_only_the_new_pods():
    """The placement section counts as Kueue's placement of the slice does (handleScaleUp): its 3 new pods, the 2 of
    the old slice kept on n0 and counted twice there (4 cpu: none left), so n1 alone fits 1, the count of the
    engine's (Kueue's) message; the old slice is blamed as counted twice. With the gate off every pod is placed
    beside the old ones (-on-topology-old-pods-stay.yaml): nothing kept."""
    out = api.why("ns/new", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-delta-does-not-fit.yaml")],
                  fixes=0)
    r = out.result
    assert r is not None and r.placement is not None
    p = r.placement
    assert (p.count, p.kept, p.kept_from) == (5, 2, "ns/old")
    assert p.domains == [("n1", 1), ("n0", 0)]
    assert "only 1 of 3 pods fit" in p.topology_view and "allows to fit only 1 out of 3 pod(s)" in p.message
    assert any("`ns/old`" in o.message and "counted twice" in o.message for o in r.blame)
    text = why_human(r, out.loaded.sources, None, None)
    assert "needs 3 new pods of main placed at once beside the 2 slice `ns/old` keeps on their nodes" in text
    off = api.why("ns/new", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-on-topology-old-pods-stay.yaml")],
                  fixes=0).result
    assert off is not None and off.placement is not None and off.placement.kept == 0


def test_with_tas_a_refused_topology_is_said_admitted_unplaced():
    """With ElasticJobsViaWorkloadSlicesWithTAS on Kueue refuses a required topology after the assignment was taken
    as Fit: the workload is admitted, its pod set placed nowhere (oracle --runs 3), and `why` says so."""
    r = api.why("ns/plain", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-required-refused.yaml")],
                fixes=0).result
    assert r is not None and r.admitted
    said = [x.message for x in r.reasons if x.message.startswith("pod set main is admitted with no topology assignment")]
    assert said and '"required topology is not supported with ElasticJobsViaWorkloadSlices"' in said[0], r.reasons


def test_a_slice_admitted_afresh_after_its_refused_write_replaces_nothing():
    """Its cycle-1 write is refused (a node merged to 0), its old slice finished before it (replaceWorkloadSlice):
    cycle 2 admits it afresh (oracle --runs 3), and `why` says so, not that this admission finished the old slice."""
    out = api.why("ns/new", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-merged-to-0-write-refused.yaml")])
    r = out.result
    assert r is not None and r.admitted and r.decision.cycle == 2 and r.decision.replaced is None
    text = why_human(r, out.loaded.sources, None, None)
    assert "it replaces its job's admitted slice" not in text
    assert "it was admitted afresh, not as the replacement of its job's slice ns/old" in text


def test_a_slice_admitted_as_a_replacement_carries_its_old_slice():
    r, _ = _why("fits")
    assert r.decision.replaced == "ns/job-e-1"


def test_the_old_slice_of_an_admitted_replacement_is_finished_not_admitted():
    """Kueue finishes the old slice when its replacement is admitted (oracle -v 2: job-e-1 "finished", prevStatus
    "admitted"); `why` of it said "already admitted to ClusterQueue cq". It holds no quota after that."""
    out = api.why("ns/job-e-1", [str(FEATURES / CASE.format("fits"))], fixes=0)
    r = out.result
    assert r is not None and not r.admitted and r.replaced_by == "ns/job-e-9d070"
    text = why_human(r, out.loaded.sources, None, None)
    assert "already admitted" not in text
    assert ("Kueue finishes it (Finished: WorkloadSliceReplaced) as its job's new slice ns/job-e-9d070 replaces it, "
            "admitted to ClusterQueue cq in cycle 2") in text
    d = why_dict(r)
    assert d["replaced_by"] == "ns/job-e-9d070" and not d["admitted"] and not d["quota_reserved"]
    # a replacement still waiting leaves the old slice admitted
    r = api.why("ns/job-e-1", [str(FEATURES / CASE.format("waits"))], fixes=0).result
    assert r is not None and r.admitted and r.replaced_by is None
    assert r.reasons[0].message == "already admitted to ClusterQueue cq"


def test_the_old_slice_is_finished_by_a_refused_write_too():
    """replaceWorkloadSlice runs before the admission write: a refused write finished the old slice all the same."""
    out = api.why("ns/old", [str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-merged-to-0-write-refused.yaml")],
                  fixes=0)
    r = out.result
    assert r is not None and not r.admitted and r.replaced_by == "ns/new"
    text = why_human(r, out.loaded.sources, None, None)
    assert text.startswith("note[KAD502]: workload `ns/old` is finished, replaced by its job's new slice `ns/new`")
    assert "refused its admission write" in text and "is free" in text
