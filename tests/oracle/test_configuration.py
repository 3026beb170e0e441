"""Configurations Kueue v0.17.0 refuses to start with (pkg/config/validation.go): kadmit reports each
as an error at the field, quoting Kueue's error, and the oracle (Kueue's own config.Load) refuses the
same file with that error."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from oracle.harness import run_each

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
    "a namespace that is no label value, in the selector Kueue defaults": (
        'namespace: "-ops"',
        ['managedJobsNamespaceSelector.matchExpressions[0].values[1]: Invalid value: "-ops"'],
        ['managedJobsNamespaceSelector.matchExpressions[0].values[1]: Invalid value: "-ops"']),
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
    "a resource transformed twice": (
        "resources: {transformations: [{input: a}, {input: a}]}",
        ['resources.transformations[1].input: Duplicate value: "a"'],
        ['resources.transformations[1].input: Duplicate value: "a"']),
    "an unknown transformation strategy": (
        "resources: {transformations: [{input: a, strategy: Keep}]}",
        ['resources.transformations[0].strategy: Unsupported value: "Keep": supported values: "Retain", "Replace"'],
        ['resources.transformations[0].strategy: Unsupported value: "Keep": supported values: "Retain", "Replace"']),
    # pkg/config/validation.go's checks of the sections kadmit does not decide with (configcheck.py)
    "pods-ready timeout negative (recovery defaulted to it)": (
        "waitForPodsReady: {timeout: -1m}",
        ['waitForPodsReady.recoveryTimeout: Invalid value: "-1m0s": must be greater than or equal to 0',
         'waitForPodsReady.timeout: Invalid value: "-1m0s": must be greater than or equal to 0'],
        ['waitForPodsReady.timeout: Invalid value: "-1m0s": must be greater than or equal to 0',
         'waitForPodsReady.recoveryTimeout: Invalid value: "-1m0s": must be greater than or equal to 0']),
    "pods-ready without a timeout": (
        "waitForPodsReady: {blockAdmission: true}",
        ["waitForPodsReady.timeout: Required value: must be specified"],
        ["waitForPodsReady.timeout: Required value: must be specified"]),
    "pods-ready requeuing strategy": (
        "waitForPodsReady:\n  timeout: 5m\n  requeuingStrategy: {timestamp: Start, backoffLimitCount: -1, "
        "backoffBaseSeconds: -2, backoffMaxSeconds: -3}",
        ['waitForPodsReady.requeuingStrategy.timestamp: Unsupported value: "Start": supported values: '
         '"Creation", "Eviction"',
         "waitForPodsReady.requeuingStrategy.backoffLimitCount: Invalid value: -1: must be greater than or equal to 0",
         "waitForPodsReady.requeuingStrategy.backoffBaseSeconds: Invalid value: -2: must be greater than or equal to 0",
         "waitForPodsReady.requeuingStrategy.backoffMaxSeconds: Invalid value: -3: must be greater than or equal to 0"],
        ['waitForPodsReady.requeuingStrategy.timestamp: Unsupported value: "Start": supported values: '
         '"Creation", "Eviction"',
         "waitForPodsReady.requeuingStrategy.backoffLimitCount: Invalid value: -1: must be greater than or equal to 0",
         "waitForPodsReady.requeuingStrategy.backoffBaseSeconds: Invalid value: -2: must be greater than or equal to 0",
         "waitForPodsReady.requeuingStrategy.backoffMaxSeconds: Invalid value: -3: must be greater than or equal to 0"]),
    "multikueue durations and origin": (
        "multiKueue: {gcInterval: -1m, workerLostTimeout: -2s, origin: \"a b\"}",
        ["multiKueue.gcInterval: Invalid value: -60000000000: must be greater than or equal to 0",
         "multiKueue.workerLostTimeout: Invalid value: -2000000000: must be greater than or equal to 0",
         'multiKueue.origin: Invalid value: "a b"'],
        ["multiKueue.gcInterval: Invalid value: -60000000000: must be greater than or equal to 0",
         "multiKueue.workerLostTimeout: Invalid value: -2000000000: must be greater than or equal to 0",
         'multiKueue.origin: Invalid value: "a b"']),
    "multikueue external frameworks": (
        "multiKueue:\n  externalFrameworks: [{name: Job.v1.batch}, {name: W.v1.example.com}, "
        "{name: W.v1.example.com}, {name: W}]",
        ['multiKueue.externalFrameworks[0].name: Invalid value: "Job.v1.batch": conflicts with a built-in '
         'MultiKueue adapter',
         'multiKueue.externalFrameworks[2].name: Duplicate value: "W.v1.example.com"',
         "multiKueue.externalFrameworks[3].name: Invalid value: \"W\": must be in 'kind.version.group' format"],
        ['multiKueue.externalFrameworks[0].name: Invalid value: "Job.v1.batch": conflicts with a built-in '
         'MultiKueue adapter',
         'multiKueue.externalFrameworks[2].name: Duplicate value: "W.v1.example.com"',
         "multiKueue.externalFrameworks[3].name: Invalid value: \"W\": must be in 'kind.version.group' format"]),
    "webhook service and secret names": (
        "internalCertManagement: {webhookServiceName: Bad_Svc, webhookSecretName: \"a b\"}",
        ['internalCertManagement.webhookServiceName: Invalid value: "Bad_Svc"',
         'internalCertManagement.webhookSecretName: Invalid value: "a b"'],
        ['internalCertManagement.webhookServiceName: Invalid value: "Bad_Svc": a DNS-1035 label',
         'internalCertManagement.webhookSecretName: Invalid value: "a b": a lowercase RFC 1123 subdomain']),
    "negative retention": (
        "objectRetentionPolicies: {workloads: {afterFinished: -1h, afterDeactivatedByKueue: -90s}}",
        ['objectRetentionPolicies.workloads.afterFinished: Invalid value: "-1h0m0s": must be greater than or '
         'equal to 0',
         'objectRetentionPolicies.workloads.afterDeactivatedByKueue: Invalid value: "-1m30s": must be greater '
         'than or equal to 0'],
        ['objectRetentionPolicies.workloads.afterFinished: Invalid value: "-1h0m0s": must be greater than or '
         'equal to 0',
         'objectRetentionPolicies.workloads.afterDeactivatedByKueue: Invalid value: "-1m30s": must be greater '
         'than or equal to 0']),
    "an old TLS version": (
        "tls: {minVersion: VersionTLS11}",
        ['tls: Invalid value: {"minVersion":"VersionTLS11"}: invalid minVersion. Please use VersionTLS12 or '
         'VersionTLS13'],
        ['tls: Invalid value: {"minVersion":"VersionTLS11"}: invalid minVersion. Please use VersionTLS12 or '
         'VersionTLS13']),
    "an unknown cipher suite": (
        "tls: {minVersion: VersionTLS12, cipherSuites: [TLS_NOPE]}",
        ['tls: Invalid value: {"minVersion":"VersionTLS12","cipherSuites":["TLS_NOPE"]}: invalid cipher suites: '
         "Cipher suite TLS_NOPE not supported or doesn't exist"],
        ['tls: Invalid value: {"minVersion":"VersionTLS12","cipherSuites":["TLS_NOPE"]}: invalid cipher suites: '
         "Cipher suite TLS_NOPE not supported or doesn't exist"]),
    "cipher suites with TLS 1.3": (
        "tls: {minVersion: VersionTLS13, cipherSuites: [TLS_AES_128_GCM_SHA256]}",
        ['tls.cipherSuites: Invalid value: ["TLS_AES_128_GCM_SHA256"]: may not be specified when `minVersion` '
         "is 'VersionTLS13'"],
        ['tls.cipherSuites: Invalid value: ["TLS_AES_128_GCM_SHA256"]: may not be specified when `minVersion` '
         "is 'VersionTLS13'"]),
    "a visibility server address and port": (
        "visibilityServer: {bindAddress: 1.2.3, bindPort: 70000}",
        ['visibilityServer.bindAddress: Invalid value: "1.2.3": must be a valid IP address',
         "visibilityServer.bindPort: Invalid value: 70000: must be a valid port number (1-65535)"],
        ['visibilityServer.bindAddress: Invalid value: "1.2.3": must be a valid IP address',
         "visibilityServer.bindPort: Invalid value: 70000: must be a valid port number (1-65535)"]),
    "a visibility server on port 0 (the default fills only an unset port)": (
        "visibilityServer: {bindPort: 0}",
        ["visibilityServer.bindPort: Invalid value: 0: must be a valid port number (1-65535)"],
        ["visibilityServer.bindPort: Invalid value: 0: must be a valid port number (1-65535)"]),
    "metrics custom labels": (
        "metrics:\n  customLabels: [{name: 1x}, {name: team, sourceLabelKey: a, sourceAnnotationKey: b}, "
        "{name: team}, {name: tier, sourceLabelKey: \"a b\"}]",
        ['metrics.customLabels[0].name: Invalid value: "1x": must match ^[a-zA-Z][a-zA-Z0-9_]*$',
         "metrics.customLabels[1]: Invalid value",
         'metrics.customLabels[2].name: Duplicate value: "team"',
         'metrics.customLabels[3].sourceLabelKey: Invalid value: "a b"'],
        ['metrics.customLabels[0].name: Invalid value: "1x": must match ^[a-zA-Z][a-zA-Z0-9_]*$',
         "metrics.customLabels[1]: Invalid value: ",
         "sourceLabelKey and sourceAnnotationKey are mutually exclusive",
         'metrics.customLabels[2].name: Duplicate value: "team"',
         'metrics.customLabels[3].sourceLabelKey: Invalid value: "a b"']),
}


def document(fields: str) -> str:
    return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + fields + "\n" + QUEUE


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_kadmit_refuses_what_kueue_refuses(case):
    fields, errors, _ = REFUSED[case]
    diags = Diagnostics()
    read_manifest_text(document(fields), "config.yaml", diags)
    got = [d for d in diags.sorted() if d.code == "KAD157"]
    head = "Kueue refuses to start with this Configuration: "
    assert len(got) == len(errors) and all(d.message.startswith(f"{head}`{e}`") for d, e in zip(got, errors)), \
        [d.message for d in diags]
    assert all(d.span is not None and d.span.file == "config.yaml" and d.span.line >= 3 for d in got)


@pytest.fixture(scope="module")
def kueue_refusals(kueue_oracle, tmp_path_factory) -> dict[str, str]:
    """The oracle's admit on every REFUSED case, in one process (`--each`, each file a cluster of its own,
    the feature gates set back between them): case -> its error, "" where it decided the file."""
    folder = tmp_path_factory.mktemp("refused")
    paths = {case: folder / f"{i:02d}.yaml" for i, case in enumerate(sorted(REFUSED))}
    for case, path in paths.items():
        path.write_text(document(REFUSED[case][0]))
    answers = run_each(kueue_oracle, "admit", list(paths.values()))
    return {case: answers[str(path)].get("error", "") for case, path in paths.items()}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_oracle_refuses_it_too(case, kueue_refusals):
    _, _, errors = REFUSED[case]
    error = kueue_refusals[case]
    assert "Kueue's Configuration at" in error, error
    for expected in errors:
        assert expected in error


def test_the_configurations_kueue_accepts_are_accepted(kueue_oracle, tmp_path):
    """The fixes the help lines suggest: both start."""
    for i, fields in enumerate(["fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}",
                                "managedJobsNamespaceSelector: {matchLabels: {team: a}}",
                                "integrations: {frameworks: [batch/job, pod]}",
                                *ACCEPTED]):
        diags = Diagnostics()
        read_manifest_text(document(fields), "config.yaml", diags)
        assert [d for d in diags if d.severity.value == "error"] == []
        path = tmp_path / f"ok{i}.yaml"
        path.write_text(document(fields))
        proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


# What those sections may say: Kueue starts with each (no refusal in kadmit either).
ACCEPTED = [
    "waitForPodsReady: {timeout: 5m, recoveryTimeout: 0s, requeuingStrategy: {timestamp: Creation, backoffLimitCount: 0}}",
    "multiKueue: {gcInterval: 0s, origin: \"\", externalFrameworks: [{name: Widget.v1.example.com}]}",
    "internalCertManagement: {enable: false, webhookServiceName: Bad_Svc}",
    "tls: {minVersion: VersionTLS13}",
    "tls: {cipherSuites: [TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, TLS_RSA_WITH_RC4_128_SHA]}",
    "visibilityServer: {bindAddress: \"::1\", bindPort: 8443}",
    "resources: {transformations: [{strategy: Replace, outputs: {cpu: 1}}]}",  # no input: Kueue requires none
    "namespace: ops",
    "metrics: {customLabels: [{name: team}, {name: tier, sourceAnnotationKey: example.com/tier}]}",
]

V1BETA1 = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"


def _read(text: str) -> Diagnostics:
    diags = Diagnostics()
    read_manifest_text(text, "config.yaml", diags)
    return diags


def test_pods_ready_is_reported_where_kueue_runs_with_it():
    """waitForPodsReady changes what Kueue admits (KAD161) when Kueue runs with it: v1beta2 whenever the
    section is set, v1beta1 with `enable: true`; a disabled v1beta1 section is neither validated nor reported."""
    on = [document("waitForPodsReady: {timeout: 5m}"),
          V1BETA1 + "waitForPodsReady: {enable: true}\n" + QUEUE]
    for text in on:
        got = [d for d in _read(text) if d.code == "KAD161"]
        assert len(got) == 1 and got[0].message.startswith("`waitForPodsReady` of `Configuration` is not modelled")
        assert ("blockAdmission" in got[0].message) == text.startswith(V1BETA1)  # its default differs
    off = _read(V1BETA1 + "waitForPodsReady: {enable: false, timeout: -1m}\n" + QUEUE)
    assert [d.code for d in off if d.code in ("KAD157", "KAD161")] == []


def test_a_disabled_v1beta1_pods_ready_starts(kueue_oracle, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(V1BETA1 + "waitForPodsReady: {enable: false, timeout: -1m}\n" + QUEUE)
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_duration_go_cannot_read_is_refused(kueue_oracle, tmp_path):
    text = document("waitForPodsReady: {timeout: 5 minutes}")
    got = [d for d in _read(text) if d.code == "KAD157"]
    error = 'time: unknown unit " minutes" in duration "5 minutes"'  # Go's time.ParseDuration
    assert [d.message for d in got] == [f"Kueue refuses to start with this Configuration: `{error}`"]
    path = tmp_path / "config.yaml"
    path.write_text(text)
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode != 0 and f"Kueue's Configuration at {path}#0: {error}" in proc.stderr, proc.stderr


# Fields of later Kueue releases that v0.17.0's types lack: its strict decoding refuses the file, and
# kadmit's schema (generated from v0.17.0's configuration_types.go) reports each (KAD180).
LATER_FIELDS = {
    "resources.quotaCheckStrategy": "resources: {quotaCheckStrategy: IgnoreUndeclared}",
    "tls.curvePreferences": "tls: {curvePreferences: [X25519]}",
    "multiKueue.incrementalDispatcherConfig": "multiKueue: {incrementalDispatcherConfig: {stepSize: 2}}",
    "metrics.customLabels[0].sourceKind": "metrics: {customLabels: [{name: team, sourceKind: Workload}]}",
    "resources.deviceClassMappings[0].sources":
        "resources: {deviceClassMappings: [{name: example.com/gpu, deviceClassNames: [a.example.com], sources: []}]}",
}


@pytest.mark.parametrize("field", sorted(LATER_FIELDS))
def test_a_field_kueue_v017_does_not_have_is_refused(field, kueue_oracle, tmp_path):
    text = document(LATER_FIELDS[field])
    got = [d for d in _read(text) if d.code == "KAD180"]
    assert len(got) == 1 and field.rsplit(".", 1)[-1] in got[0].message, [d.message for d in _read(text)]
    path = tmp_path / "config.yaml"
    path.write_text(text)
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode != 0 and f'strict decoding error: unknown field "{field}"' in proc.stderr, proc.stderr


# (featureGates, kadmit's quoted error): Kueue's manager sets the gates (SetFromMap) and exits on its error
GATES = {
    "a later Kueue's gate (Kueue main's DRA docs)": (
        "featureGates: {KueueDRAIntegration: true}", "unrecognized feature gate: KueueDRAIntegration"),
    "a gate locked on, turned off": (
        "featureGates: {LocalQueueDefaulting: false}",
        "cannot set feature gate LocalQueueDefaulting to false, feature is locked to true"),
}


@pytest.mark.parametrize("case", sorted(GATES))
def test_a_feature_gate_kueue_cannot_set_is_refused(case, kueue_oracle, tmp_path):
    fields, error = GATES[case]
    got = [d for d in _read(document(fields)).sorted() if d.code == "KAD157"]
    assert [d.message for d in got] == [f"Kueue refuses to start with this Configuration: `{error}`"]
    assert got[0].span.line == 3
    path = tmp_path / "config.yaml"
    path.write_text(document(fields))
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode != 0 and f"the Configuration's featureGates: {error}" in proc.stderr, proc.stderr


def test_the_feature_gates_kueue_sets_are_accepted(kueue_oracle, tmp_path):
    fields = "featureGates: {LocalQueueDefaulting: true, PartialAdmission: false, AllAlpha: false, TASProfileMixed: true}"
    assert [d for d in _read(document(fields)) if d.severity.value == "error"] == []
    path = tmp_path / "config.yaml"
    path.write_text(document(fields))
    proc = subprocess.run([kueue_oracle, "admit", "--format", "json", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
