"""`admit --format json` says what its human summary says may make Kueue's answer differ (`may_differ`): settings
kadmit does not model (KAD161), pod sets whose every pod the API server refuses (KAD199), workloads waiting for
admission checks; each with its cause, code, count and the summary's words."""

from __future__ import annotations

import json
from pathlib import Path

from jobs.helpers import SETUP  # Kueue's getting-started queues: user-queue in default

FEATURES = Path(__file__).resolve().parents[1] / "oracle/features"
CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady: {timeout: 5m}
integrations: {frameworks: [batch/job, jobset.x-k8s.io/jobset]}
---
"""
POD = "{restartPolicy: Never, TOLERATIONS containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]}"
JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: NAME, namespace: default, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  replicatedJobs:
  - {name: w, replicas: 1, template: {spec: {template: {spec: POD}}}}
""".replace("POD", POD)
REFUSED = JOBSET.replace("TOLERATIONS", "tolerations: [{}],")  # an empty toleration: every pod refused (KAD199)


def _both(run, *paths: str) -> tuple[list[str], list[dict]]:
    """The human summary's lines saying Kueue's answer may differ, and the JSON's `may_differ`."""
    human = run("admit", *paths)
    out = run("admit", "--format", "json", *paths)
    assert human.exit_code == out.exit_code == 0, human.output
    return [line for line in human.stdout.splitlines() if "may differ" in line], json.loads(out.stdout)["may_differ"]


def test_the_json_says_what_the_human_summary_says_may_differ(run) -> None:
    run.write("in.yaml", CONFIG + SETUP + "---\n" + REFUSED.replace("NAME", "a") + "---\n" + REFUSED.replace("NAME", "b"))
    lines, said = _both(run, "in.yaml")
    assert [m["message"] for m in said] == lines and len(lines) == 2
    assert [(m["cause"], m["code"], m["count"]) for m in said] == [
        ("unmodelled_settings", "KAD161", 1), ("refused_pods", "KAD199", 2)]
    lines, said = _both(run, str(FEATURES / "admission-check-states-of-reserved-workloads.yaml"))
    assert [m["message"] for m in said] == lines and [(m["cause"], m["code"], m["count"]) for m in said] == [
        ("admission_checks", None, 2)]
    lines, said = _both(run, str(FEATURES / "statefulset-template-naming-a-pod-group.yaml"))
    assert [m["message"] for m in said] == lines and [(m["cause"], m["code"], m["count"]) for m in said] == [
        ("refused_pods", "KAD199", 1), ("gated_pods", "KAD188", 1)]
    assert lines[1].startswith("Kueue leaves every pod of a StatefulSet gated for good (KAD188")


def test_nothing_that_may_differ_is_an_empty_list(run) -> None:
    run.write("in.yaml", SETUP + "---\n" + JOBSET.replace("NAME", "a").replace("TOLERATIONS", ""))
    assert _both(run, "in.yaml") == ([], [])
