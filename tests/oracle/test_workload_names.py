"""Kueue's names of the Workloads it makes of jobs (`kueue_workload` in the oracle's answer) against kadmit's
(`Workload.kueue_name`), where a Configuration changes how Kueue names them (feature gate ShortWorkloadNames;
manifests/jobs/shortnames.py), and of victims. The name hashes the job's UID: without one in the input the oracle's
own API server gives one, and kadmit says the name is the cluster's (docs/INTEGRATIONS.md J4)."""

from __future__ import annotations

import json

import pytest

from kadmit.workspace import load
from oracle.harness import ROOT, run_oracle


@pytest.mark.parametrize("case", ["tests/oracle/features/feature-gate-short-workload-names-on.yaml",
                                  "tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-on-pod.yaml",
                                  "tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-on-rayjob-"
                                  "named-with-its-raycluster.yaml",
                                  "tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-on-rayservice-"
                                  "named-with-its-raycluster.yaml"])
def test_kadmit_names_the_workloads_of_jobs_as_kueue_does(kueue_oracle, case):
    """ShortWorkloadNames cuts a name (shortnames.py); an elastic pod's Workload is named as a slice, its
    generation hashed in (ElasticJobsViaWorkloadSlices, slices.named), an elastic RayJob's or RayService's with its
    RayCluster's generation too (slices.slice_name)."""
    kueue = sorted(d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"]
                   if d["object"]["kind"] != "Workload")  # the input's own Workloads: named as written
    mine = sorted(f"{w.namespace}/{w.kueue_name}" for w in load([str(ROOT / case)]).model.workloads if w.kueue_name)
    assert mine == kueue
    if "short-workload-names" in case:
        assert max(len(name.split("/", 1)[1]) for name in kueue) == 63  # one name cut, as the gate cuts it
    elif "rayjob" in case:
        assert kueue == ["ns/rayjob-rj-0711b"]  # extra "0_3", not "0" (rayjob-rj-ea9f9)
    elif "rayservice" in case:
        assert kueue == ["ns/rayservice-rs-a8d56"]  # extra "0_3", not "0" (rayservice-rs-94bc7)
    else:
        assert kueue == ["ns/pod-p-de5a0"]  # not pod-p-78112, its name without the gate


@pytest.mark.parametrize("case", ["tests/oracle/features/leaderworkerset-templates-naming-a-pod-group.yaml"])
def test_every_output_names_a_pod_groups_workload_as_kueue_does(kueue_oracle, case):
    """A LeaderWorkerSet's pod group's Workload (Kueue names it as the group, no hash: the same without UIDs) is
    shown as its object (`workload`, as the oracle shows it) and named as Kueue names it (`kueue_workload`) by
    admit's JSON and why's JSON and text alike: kadmit keeps it under the LeaderWorkerSet's name, while why said
    Kueue's and admit's JSON did not say it."""
    from click.testing import CliRunner

    from kadmit.cli import cli

    kueue = {d["workload"]: d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"]}
    assert kueue == {"ns-b/a": "ns-b/ga", "ns-b/c": "ns-b/gc"}
    path = str(ROOT / case)
    mine = json.loads(CliRunner().invoke(cli, ["admit", "--format", "json", path]).stdout)["decisions"]
    assert {d["workload"]: d["kueue_workload"] for d in mine} == kueue
    for shown, named in kueue.items():
        for typed in (shown, named):  # found by either name
            said = json.loads(CliRunner().invoke(cli, ["why", "--format", "json", typed, path]).stdout)
            assert (said["workload"], said["kueue_workload"]) == (shown, named)
        text = CliRunner().invoke(cli, ["why", shown, path]).stdout
        assert text.splitlines()[0].endswith(f"is admitted (Workload {named})")


@pytest.mark.parametrize("case", ["tests/oracle/features/preempted-victims-named-as-kueue-names-them.yaml"])
def test_workloads_and_victims_are_named_as_kueue_names_them_where_the_input_holds_the_uid(kueue_oracle, case):
    """`kueue_workload` of each decision and of each victim (`preempted[]`, for `kubectl get workload`) is Kueue's
    where the input holds what the name hashes (a Job with its UID, a Workload of the input); null, with
    `kueue_workload_unknown` saying why, where it does not (`fresh`, a Job without a UID: the oracle's name hashes
    the UID its own API server gave it), and why's first line says the cluster gives it. `why` finds a workload by
    Kueue's name where it is known."""
    from click.testing import CliRunner

    from kadmit.cli import cli
    from kadmit.identity import KUEUE_NAME_UNKNOWN

    def named(decisions: list[dict]) -> dict[str, tuple]:
        return {"{kind}/{namespace}/{name}".format(**d["object"]): (
            d["kueue_workload"], sorted(v["kueue_workload"] or "" for v in d["preempted"])) for d in decisions}
    kueue = named(run_oracle(kueue_oracle, [case])["decisions"])
    path = str(ROOT / case)
    decisions = json.loads(CliRunner().invoke(cli, ["admit", "--format", "json", path]).stdout)["decisions"]
    mine = named(decisions)
    assert mine.pop("Job/ns/fresh") == (None, ["ns/solo"]) and kueue.pop("Job/ns/fresh")[1] == ["ns/solo"]
    assert mine == kueue == {"Job/ns/high": ("ns/job-high-a74bf", ["ns/job-low-887de"]),
                             "Job/ns/low": ("ns/job-low-887de", []), "Workload/ns/solo": ("ns/solo", [])}
    (fresh,) = [d for d in decisions if d["object"]["name"] == "fresh"]
    assert fresh["kueue_workload_unknown"] == KUEUE_NAME_UNKNOWN
    assert all("kueue_workload_unknown" not in d for d in decisions if d is not fresh)
    said = json.loads(CliRunner().invoke(cli, ["why", "--format", "json", "ns/fresh", path]).stdout)
    assert (said["kueue_workload"], said["kueue_workload_unknown"]) == (None, KUEUE_NAME_UNKNOWN)
    text = CliRunner().invoke(cli, ["why", "ns/fresh", path]).stdout
    assert text.splitlines()[0].endswith("is admitted (its Workload's name is given by the cluster: the input holds "
                                         "no UID)")
    said = json.loads(CliRunner().invoke(cli, ["why", "--format", "json", "ns/job-high-a74bf", path]).stdout)
    assert (said["workload"], said["kueue_workload"]) == ("ns/high", "ns/job-high-a74bf")


@pytest.mark.parametrize("case", ["tests/oracle/features/deployment-queue-in-its-pod-template-only.yaml"])
def test_the_several_workloads_of_one_object_without_uids_have_kadmits_own_keys(kueue_oracle, case, tmp_path):
    """A Deployment's replicas (their pods' names and UIDs the cluster's): Kueue names each pod's Workload by the
    pod's name and UID (`pod-serve-6b4d95549f-44444-5bf59`); kadmit's key for each was a Kueue-like name hashing an
    empty UID (`pod-serve-0-4dd81`), which no cluster gives. It is now kadmit's own, `team/serve:replica-0` (a `:`
    no object name holds), the JSON and why's first line say so, admit's hint names it as `why` takes it, and `export --workloads`
    writes a Workload name the API server takes."""
    from click.testing import CliRunner

    from kadmit.cli import cli
    from kadmit.identity import KUEUE_NAME_UNKNOWN

    kueue = sorted(d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"]
                   if d["object"]["namespace"] == "team")
    assert len(kueue) == 3 and all(k.startswith("team/pod-serve-") for k in kueue)
    path = str(ROOT / case)
    mine = [d for d in json.loads(CliRunner().invoke(cli, ["admit", "--format", "json", path]).stdout)["decisions"]
            if d["object"]["namespace"] == "team"]
    assert [d["workload"] for d in mine] == ["team/serve:replica-0", "team/serve:replica-1", "team/serve:replica-2"]
    for d in mine:
        assert d["kueue_workload"] is None and d["kueue_workload_unknown"].startswith(KUEUE_NAME_UNKNOWN)
        assert f"`{d['workload']}` is kadmit's own key" in d["kueue_workload_unknown"]
    text = CliRunner().invoke(cli, ["admit", path]).stdout
    assert "(+1 more: kadmit why team/serve:replica-2)" in text
    said = json.loads(CliRunner().invoke(cli, ["why", "--format", "json", "team/serve:replica-2", path]).stdout)
    assert said["workload"] == "team/serve:replica-2"
    first = CliRunner().invoke(cli, ["why", "team/serve:replica-2", path]).stdout.splitlines()[0]
    assert first.endswith("(its Workload's name is given by the cluster: the input holds no UID; "
                          "`team/serve:replica-2` is kadmit's own key for it (the object's name, `:`, the part it "
                          "stands for), not a Kueue name)")
    CliRunner().invoke(cli, ["export", "--workloads", "-o", str(tmp_path / "out"), path])
    written = (tmp_path / "out" / "11-workloads.yaml").read_text()
    assert "  name: serve-replica-0\n" in written and "name: serve:" not in written  # the comment says the key


@pytest.mark.parametrize("case", ["tests/oracle/features/deployment-pod-group-template-naming-a-missing-local-queue.yaml"])
def test_a_missing_local_queue_is_warned_of_the_workload_kueue_keeps_pending(kueue_oracle, case):
    """KAD202's note names the Workload Kueue keeps pending as Kueue names it (a pod group's: the group, `ns-b/gm`,
    where it named none) and says Kueue's pending message; its message names the workload by kadmit's key, as every
    other output does (`ns-b/dm`, the same in the `.kad` import, tests/export/test_import.py)."""
    kueue = {d["kueue_workload"]: d["pending"]["message"] for d in run_oracle(kueue_oracle, [case])["decisions"]}
    assert kueue == {"ns-b/gm": "LocalQueue missing doesn't exist", "ns-b/gt": "LocalQueue missing2 doesn't exist"}
    said = [d for d in load([str(ROOT / case)]).diagnostics if d.code == "KAD202"]
    assert {d.notes[0].split("`")[1]: d.notes[0].split(" pending: ")[1] for d in said} == kueue
    assert [d.message.split(" is queued")[0] for d in said] == ["workload `ns-b/dm`", "workload `ns-b/dt`"]
