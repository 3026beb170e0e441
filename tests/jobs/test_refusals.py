"""What Kueue's webhooks refuse on create for every job kind, refused by kadmit too with Kueue's
message (KAD170). The messages are Kueue v0.17's, from the oracle's `convert` on the same file
(tests/oracle/jobs/refusals.yaml; tests/oracle/test_convert.py compares them whole)."""

from __future__ import annotations

from pathlib import Path

from kadmit.workspace import load

REFUSALS = Path(__file__).resolve().parents[1] / "oracle" / "jobs" / "refusals.yaml"


def refused() -> dict[str, list[str]]:
    ws = load([str(REFUSALS)])
    out: dict[str, list[str]] = {}
    for d in ws.diagnostics:
        if d.code == "KAD170":
            who, _, message = d.message.partition("`: ")
            out.setdefault(who.rpartition("`")[2], []).append(message)
    return out


def test_kueue_refuses_bad_labels_and_annotations_whoever_manages_the_job():
    got = refused()
    assert got["max-exec"] == ["metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should "
                               "be greater than 0"]
    assert got["max-exec-abc"] == ['metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: "abc": '
                                   'strconv.Atoi: parsing "abc": invalid syntax']
    assert got["bad-queue"][0].startswith('metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "Main_Queue": '
                                          "a lowercase RFC 1123 subdomain must consist of")
    assert "js-bad-queue" in got and "lws-bad" in got  # a JobSet's and a LeaderWorkerSet's webhooks too
    assert got["sync-nonindexed"] == ['metadata.annotations[kueue.x-k8s.io/job-completions-equal-parallelism]: '
                                      'Invalid value: "true": should not be enabled for NonIndexed jobs']
    assert got["sync-mismatch"] == ["spec.completions: Invalid value: 3: should be equal to parallelism when "
                                    "kueue.x-k8s.io/job-completions-equal-parallelism is annotation is true"]
    assert got["bad-level"] == [
        'annotations[kueue.x-k8s.io/podset-required-topology]: Invalid value: "not a label!": name part must '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
        "[A-Za-z0-9]')"]


def test_a_refused_job_makes_no_workload():
    ws = load([str(REFUSALS)])
    assert [w.origin.name for w in ws.model.workloads if w.origin] == []
