"""Configurations Kueue v0.17.0 refuses to start with (pkg/config/validation.go): kadmit reports each
as an error at the field, quoting Kueue's error, and the oracle (Kueue's own config.Load) refuses the
same file with that error."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text

QUEUE = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
"""

# (Configuration fields, kadmit's quoted errors, what Kueue's own error says)
REFUSED = {
    "fair sharing without strategies": (
        "fairSharing: {}",
        ["fairSharing.preemptionStrategies: Required value: must be specified"],
        ["fairSharing.preemptionStrategies: Required value: must be specified"]),
    "fair sharing with an empty list": (
        "fairSharing: {preemptionStrategies: []}",
        ["fairSharing.preemptionStrategies: Required value: must be specified"],
        ["fairSharing.preemptionStrategies: Required value: must be specified"]),
    "a selector of every namespace": (
        "managedJobsNamespaceSelector: {}",
        ['managedJobsNamespaceSelector: should not match the "kube-system" namespace',
         'managedJobsNamespaceSelector: should not match the "kueue-system" namespace'],
        ['should not match the "kube-system" namespace', 'should not match the "kueue-system" namespace']),
    "a selector of Kueue's own namespace": (
        "namespace: ops\nmanagedJobsNamespaceSelector:\n  matchExpressions:\n"
        "  - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}",
        ['managedJobsNamespaceSelector: should not match the "ops" namespace'],
        ['should not match the "ops" namespace']),
    "a framework twice": (
        "integrations: {frameworks: [batch/job, batch/job]}",
        ['integrations.frameworks[1]: Duplicate value: "batch/job"'],
        ['integrations.frameworks[1]: Duplicate value: "batch/job"']),
    "a device class mapping named twice": (
        "resources:\n  deviceClassMappings:\n  - {name: example.com/gpu, deviceClassNames: [a.example.com]}\n"
        "  - {name: example.com/gpu, deviceClassNames: [b.example.com]}",
        ['resources.deviceClassMappings[1].name: Duplicate value: "example.com/gpu"'],
        ['resources.deviceClassMappings[1].name: Duplicate value: "example.com/gpu"']),
    "a device class twice in a mapping": (
        "resources:\n  deviceClassMappings:\n  - {name: example.com/gpu, deviceClassNames: [a.example.com, a.example.com]}",
        ['resources.deviceClassMappings[0].deviceClassNames[1]: Duplicate value: "a.example.com"'],
        ['resources.deviceClassMappings[0].deviceClassNames[1]: Duplicate value: "a.example.com"']),
    "a device class mapped to two resources": (
        "resources:\n  deviceClassMappings:\n  - {name: example.com/gpu, deviceClassNames: [a.example.com]}\n"
        "  - {name: example.com/tpu, deviceClassNames: [a.example.com]}",
        ['resources.deviceClassMappings[1].deviceClassNames[0]: Invalid value: "a.example.com": device class '
         'already mapped to resource example.com/gpu'],
        ['resources.deviceClassMappings[1].deviceClassNames[0]: Invalid value: "a.example.com": device class '
         'already mapped to resource example.com/gpu']),
    "a device class name that is no label key": (
        "resources:\n  deviceClassMappings:\n  - {name: example.com/gpu, deviceClassNames: [\"a b\"]}",
        ['resources.deviceClassMappings[0].deviceClassNames[0]: Invalid value: "a b"'],
        ['resources.deviceClassMappings[0].deviceClassNames[0]: Invalid value: "a b"']),
    "an external framework that is no Kind.version.group": (
        "integrations: {frameworks: [batch/job], externalFrameworks: [Widget.example]}",
        ["integrations.externalFrameworks[0]: Invalid value: \"Widget.example\": must be format, "
         "'Kind.version.group.com'"],
        ["integrations.externalFrameworks[0]: Invalid value: \"Widget.example\": must be format, "
         "'Kind.version.group.com'"]),
    "an external framework twice": (
        "integrations: {frameworks: [batch/job], externalFrameworks: [Widget.v1.example.com, Widget.v1.example.com]}",
        ['integrations.externalFrameworks[1]: Duplicate value: "Widget.v1.example.com"'],
        ['integrations.externalFrameworks[1]: Duplicate value: "Widget.v1.example.com"']),
    "a negative half-life": (
        "admissionFairSharing: {usageHalfLifeTime: -1h}",
        ['admissionFairSharing.usageHalfLifeTime: Invalid value: "-1h": must be greater than or equal to 0'],
        ['admissionFairSharing.usageHalfLifeTime: Invalid value: "-1h0m0s": must be greater than or equal to 0']),
}


def document(fields: str) -> str:
    return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + fields + "\n" + QUEUE


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_kadmit_refuses_what_kueue_refuses(case):
    fields, errors, _ = REFUSED[case]
    diags = Diagnostics()
    read_manifest_text(document(fields), "config.yaml", diags)
    got = [d for d in diags.sorted() if d.code == "KAD157"]
    assert [d.message.split("`")[1] for d in got] == errors, [d.message for d in diags]
    assert all(d.message.startswith("Kueue refuses to start with this Configuration: ") for d in got)
    assert all(d.span is not None and d.span.file == "config.yaml" and d.span.line >= 3 for d in got)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_oracle_refuses_it_too(case, kueue_oracle, tmp_path):
    fields, _, errors = REFUSED[case]
    path = tmp_path / "config.yaml"
    path.write_text(document(fields))
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode != 0 and "Kueue's Configuration at" in proc.stderr, proc.stderr
    for error in errors:
        assert error in proc.stderr


def test_the_configurations_kueue_accepts_are_accepted(kueue_oracle, tmp_path):
    """The fixes the help lines suggest: both start."""
    for i, fields in enumerate(["fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}",
                                "managedJobsNamespaceSelector: {matchLabels: {team: a}}",
                                "integrations: {frameworks: [batch/job, pod]}"]):
        diags = Diagnostics()
        read_manifest_text(document(fields), "config.yaml", diags)
        assert [d for d in diags if d.severity.value == "error"] == []
        path = tmp_path / f"ok{i}.yaml"
        path.write_text(document(fields))
        proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
