"""Kueue's Configuration decoded as Kueue's manager decodes it (manifests/configtypes.py), against Kueue's own
loader: `kueue-oracle config` runs cmd/kueue's start (pkg/config.Load: strict decoding into the Go types,
conversion, defaults, validation; then the feature gates and TLS options) on each file.

Every field of both versions' Go types gets values of every JSON type (and a few texts the YAML or a
field's own decoder reads specially); kadmit must refuse exactly the files Kueue refuses, and where Kueue's
error is its decoding's, say that error word for word."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.durations import go_duration_ns
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.quantity import parse_quantity
from kadmit.validate import validate
from kadmit.manifests.configtypes import UNMARSHALERS, go_types

QUEUE = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f0}\n"

# Values of each JSON type, and texts YAML or a field's decoder reads specially
VALUES = ['"text"', "5", "-1", "1.5", "1e3", "3000000000", "true", "y", "n", "[a]", "{a: 1}", "null", "", "5m",
          '"5m"', '"-1h"', "500m", '"64Gi"', "0", '""', "1e39", ".inf", "0x1F", "2026-01-01"]
# A key for each map: one Kueue accepts where the key itself is checked
MAP_KEYS = {"featureGates": "PartialAdmission", "resourceWeights": "cpu", "outputs": "cpu",
            "groupKindConcurrency": "Job.batch", "matchLabels": "a"}
# A valid Configuration around a field: what v1beta2 requires with it (fair sharing's strategies,
# waitForPodsReady's timeout) so that a refusal is the field's own
AROUND = {"fairSharing": "preemptionStrategies: [LessThanOrEqualToFinalShare]",
          "waitForPodsReady": "timeout: 5m"}


def fields(t: dict, path: tuple = ()) -> list[tuple]:
    """Every field path of a Go type tree: a key, `[]` for a list's item, `{}` for a map's value."""
    out = []
    if t["decode"] == "struct":
        for key, sub in sorted(t["fields"].items()):
            if key in ("apiVersion", "kind"):
                continue
            out.append((*path, key))
            out.extend(fields(sub, (*path, key)))
    elif t["decode"] == "slice":
        out.extend(fields(t["elem"], (*path, "[]")))
    elif t["decode"] == "map":
        out.extend(fields(t["elem"], (*path, "{}")))
    return out


def flow(path: tuple, value: str) -> str:
    """The YAML (flow style) that sets `path` to `value` in a Configuration."""
    text = value or "null"
    for i in range(len(path) - 1, -1, -1):
        part = path[i]
        if part == "[]":
            text = f"[{text}]"
        elif part == "{}":
            text = f"{{{MAP_KEYS.get(path[i - 1], 'k')}: {text}}}"
        else:
            extra = AROUND.get(path[0]) if i == 1 else None
            if extra and not extra.startswith(part + ":"):
                text = f"{{{part}: {text}, {extra}}}"
            else:
                text = f"{{{part}: {text}}}"
    return text[1:-1]


def cases(seed: int = 18, per_field: int = 4) -> list[tuple[str, str]]:
    """(version, Configuration text): every field with a few values (seeded), every unmarshaler field with all."""
    rng = random.Random(seed)
    out = []
    for version, tree in sorted(go_types().items()):
        leaves = {p: _type_at(tree, p) for p in fields(tree)}
        for path, t in sorted(leaves.items()):
            values = VALUES if t["decode"] in UNMARSHALERS else rng.sample(VALUES, per_field)
            for value in values:
                out.append((version, f"apiVersion: config.kueue.x-k8s.io/{version}\nkind: Configuration\n"
                                     f"{flow(path, value)}\n"))
    return out


def _type_at(tree: dict, path: tuple) -> dict:
    t = tree
    for part in path:
        t = t["elem"] if part in ("[]", "{}") else t["fields"][part]
    return t


DECODING = ("json: ", "time: ", "quantities must match", "unable to parse", "yaml: ")
UNKNOWN = re.compile(r'unknown field "[^"]*"')  # Kueue's strict decoding names each (kadmit: KAD180/KAD162)


def kueue_reads(cfg: dict) -> dict:
    """What Kueue runs with (the Configuration its loader returns), in the terms kadmit models."""
    fs, res = cfg.get("fairSharing"), cfg.get("resources") or {}
    afs = cfg.get("admissionFairSharing")
    stamp = ((cfg.get("waitForPodsReady") or {}).get("requeuingStrategy") or {}).get("timestamp")
    return {
        "fair_sharing": fs is not None, "strategies": tuple((fs or {}).get("preemptionStrategies") or ()),
        "manage_jobs_without_queue_name": cfg.get("manageJobsWithoutQueueName", False),
        "frameworks": tuple(cfg["integrations"]["frameworks"]),
        "exclude_resource_prefixes": tuple(res.get("excludeResourcePrefixes") or ()),
        "transformations": tuple((t.get("input", ""), t.get("strategy"), t.get("multiplyBy", ""),
                                  {k: parse_quantity(str(v)) for k, v in (t.get("outputs") or {}).items()})
                                 for t in res.get("transformations") or ()),
        "admission_fair_sharing": None if afs is None else (
            go_duration_ns(afs["usageHalfLifeTime"]) // 10 ** 6, go_duration_ns(afs["usageSamplingInterval"]) // 10 ** 6,
            {k: float(v) for k, v in (afs.get("resourceWeights") or {}).items()}),
        "dynamic_resource_allocation": (cfg.get("featureGates") or {}).get("DynamicResourceAllocation", False),
        "pods_ready_requeuing_timestamp": stamp or "Eviction",
    }


def kadmit_reads(text: str) -> dict:
    (c,) = read_manifest_text(text + QUEUE, "config.yaml", Diagnostics()).scheduler_configs
    afs = c.admission_fair_sharing
    return {
        "fair_sharing": c.fair_sharing, "strategies": c.strategies,
        "manage_jobs_without_queue_name": bool(c.manage_jobs_without_queue_name), "frameworks": c.frameworks,
        "exclude_resource_prefixes": c.exclude_resource_prefixes,
        "transformations": tuple((t.input, t.strategy, t.multiply_by, dict(t.outputs)) for t in c.transformations),
        "admission_fair_sharing": None if afs is None else (
            afs.usage_half_life_ms, afs.usage_sampling_interval_ms, dict(afs.resource_weights)),
        "dynamic_resource_allocation": c.dynamic_resource_allocation,
        "pods_ready_requeuing_timestamp": c.pods_ready_requeuing_timestamp,
    }


def kadmit_errors(text: str, notes: bool = False) -> list[str]:
    """kadmit's errors for the Configuration: read (manifests) and checked (validate: the strategies' names)."""
    diags = Diagnostics()
    fragment = read_manifest_text(text + QUEUE, "config.yaml", diags)
    validate(merge([fragment]), diags)
    return [" ".join((d.message, *d.notes)) if notes else d.message for d in diags.sorted()
            if d.severity.value == "error"]


def test_the_go_types_are_kueues(kueue_oracle):
    """data/kueueconfig.json is what Kueue v0.17.0's types are, read by reflection."""
    proc = subprocess.run([kueue_oracle, "config", "--types"], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == go_types(), "regenerate: kueue-oracle config --types > data/kueueconfig.json"


def _seeds() -> list[int]:
    """The draws' seeds: 18, or KADMIT_CONFIG_SEEDS (`1-8`, `3,5`) for a longer run."""
    spec = os.environ.get("KADMIT_CONFIG_SEEDS", "18")
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


@pytest.mark.parametrize("seed", _seeds())
@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_kadmit_refuses_the_configurations_kueue_refuses(version, seed, kueue_oracle, tmp_path):
    mine = [text for v, text in cases(seed) if v == version]
    paths = []
    for i, text in enumerate(mine):
        p = tmp_path / f"c{i}.yaml"
        p.write_text(text)
        paths.append(str(p))
    proc = subprocess.run([kueue_oracle, "config", *paths], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [x["path"] for x in lines] == paths
    differ = []
    for text, line in zip(mine, lines):
        kueue = line.get("error")
        errors = kadmit_errors(text, notes=True)
        if kueue is None and errors:
            differ.append(f"{text}Kueue starts; kadmit: {errors}")
        elif kueue is not None and not errors:
            differ.append(f"{text}Kueue: {kueue}; kadmit accepts it")
        elif kueue is not None and kueue.startswith(DECODING) and not any(f"`{kueue}`" in e for e in errors):
            differ.append(f"{text}Kueue: {kueue}; kadmit: {errors}")
        elif kueue is not None and kueue.startswith("strict decoding error: unknown field") and not all(
                any(f"strict decoding error: {u}`" in e for e in errors) for u in UNKNOWN.findall(kueue)):
            differ.append(f"{text}Kueue: {kueue}; kadmit: {errors}")
        elif kueue is None and (theirs := kueue_reads(line["configuration"])) != (ours := kadmit_reads(text)):
            differ.append(f"{text}Kueue runs with {theirs}; kadmit reads {ours}")
    assert not differ, f"{len(differ)} of {len(mine)} differ:\n" + "\n".join(differ[:15])


# Kueue's own errors for these (kueue-oracle config, v1beta2), which kadmit quotes without the oracle
KUEUE_SAYS = {
    'manageJobsWithoutQueueName: "true"':
        "json: cannot unmarshal string into Go struct field Configuration.manageJobsWithoutQueueName of type bool",
    "waitForPodsReady: {timeout: 5}":
        "json: cannot unmarshal number into Go struct field WaitForPodsReady.waitForPodsReady.timeout of type string",
    "waitForPodsReady: {timeout: null}": 'time: invalid duration ""',
    "waitForPodsReady: {timeout: 5 minutes}": 'time: unknown unit " minutes" in duration "5 minutes"',
    "integrations: {frameworks: batch/job}":
        "json: cannot unmarshal string into Go struct field Integrations.integrations.frameworks of type []string",
    "namespace: 5": "json: cannot unmarshal number into Go struct field Configuration.namespace of type string",
    'featureGates: {PartialAdmission: "true"}':
        "json: cannot unmarshal string into Go struct field Configuration.featureGates of type bool",
    "metrics: {customLabels: [{name: 5}]}":
        "json: cannot unmarshal number into Go struct field ControllerMetricsCustomLabel.ControllerManager.metrics."
        "customLabels.name of type string",
    "resources: {transformations: [{input: cpu, outputs: {x: true}}]}":
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    "controller: {cacheSyncTimeout: 5m}":
        "json: cannot unmarshal string into Go struct field ControllerConfigurationSpec.ControllerManager.controller."
        "cacheSyncTimeout of type time.Duration",
    "clientConnection: {burst: 3000000000}":
        "json: cannot unmarshal number 3000000000 into Go struct field ClientConnection.clientConnection.burst of type "
        "int32",
}


@pytest.mark.parametrize("fields", sorted(KUEUE_SAYS))
def test_kadmit_quotes_kueues_decoding_error(fields):
    text = f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n{fields}\n"
    assert kadmit_errors(text) == [f"Kueue refuses to start with this Configuration: `{KUEUE_SAYS[fields]}`"]


@pytest.mark.parametrize("fields", sorted(KUEUE_SAYS))
def test_kueue_says_so(fields, kueue_oracle, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n{fields}\n")
    proc = subprocess.run([kueue_oracle, "config", str(path)], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)["error"] == KUEUE_SAYS[fields]


# Settings kadmit models, written as YAML's readers differ on them, in both versions
READ = ["manageJobsWithoutQueueName: y", "manageJobsWithoutQueueName: on", "fairSharing: {enable: y}",
        "fairSharing: {enable: true, preemptionStrategies: [LessThanInitialShare]}",
        "fairSharing: {preemptionStrategies: [LessThanInitialShare]}", "integrations: {frameworks: [pod, batch/job]}",
        "integrations: {frameworks: []}", "resources: {excludeResourcePrefixes: [a, '1e3']}",
        "resources: {transformations: [{input: cpu, outputs: {x: 1e3, y: 500m}}]}",
        "resources: {transformations: [{input: cpu, strategy: Replace, multiplyBy: 'n', outputs: {x: 2}}]}",
        "admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 0s, resourceWeights: {cpu: 1e3, gpu: 0x10}}",
        "admissionFairSharing: {usageHalfLifeTime: 1.5h}", "featureGates: {DynamicResourceAllocation: y}",
        "waitForPodsReady: {enable: y, timeout: 5m, requeuingStrategy: {timestamp: Creation}}",
        "waitForPodsReady: {timeout: 5m, requeuingStrategy: {timestamp: Creation}}"]


def test_kadmit_reads_the_settings_as_kueue_runs_with_them(kueue_oracle, tmp_path):
    """A v1beta1 waitForPodsReady without `enable: true` is dropped by Kueue's conversion, its requeuing
    timestamp too (kadmit read it: found by this test)."""
    texts = [f"apiVersion: config.kueue.x-k8s.io/{v}\nkind: Configuration\n{fields}\n"
             for v in ("v1beta1", "v1beta2") for fields in READ]
    paths = []
    for i, text in enumerate(texts):
        (p := tmp_path / f"r{i}.yaml").write_text(text)
        paths.append(str(p))
    proc = subprocess.run([kueue_oracle, "config", *paths], capture_output=True, text=True, check=True)
    differ, started = [], 0
    for text, line in zip(texts, map(json.loads, proc.stdout.splitlines())):
        errors = kadmit_errors(text)
        if "error" in line or errors:
            if not ("error" in line and errors):
                differ.append(f"{text}Kueue: {line.get('error')}; kadmit: {errors}")
            continue
        started += 1
        if (theirs := kueue_reads(line["configuration"])) != (ours := kadmit_reads(text)):
            differ.append(f"{text}Kueue runs with {theirs}; kadmit reads {ours}")
    assert not differ and started >= 20, "\n".join(differ)


# The text of Kueue's ConfigMap as Kueue's loader reads it: its first YAML document only, and without
# apiVersion or kind the type it decodes into (v1beta2 Configuration); nothing at all is the defaults
TEXTS = {
    "empty": "",
    "no apiVersion or kind": "namespace: x\nmanageJobsWithoutQueueName: y\n",
    "kind only": "kind: Configuration\nintegrations: {frameworks: [pod, batch/job]}\n",
    "a second document, never read": "manageJobsWithoutQueueName: true\n---\nnamespace: 5\nfoo: 1\n",
    "an empty first document": "---\n---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                               "manageJobsWithoutQueueName: true\n",
    "a trailing separator": "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n---\n",
    "another kind": "apiVersion: v1\nkind: ConfigMap\n",
    "a list": "[]\n",
}


def config_map(text: str) -> str:
    body = "".join(f"    {line}\n" for line in text.splitlines()) if text else None
    value = "|\n" + body if body else '""\n'
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config, namespace: kueue-system}\n"
            f"data:\n  controller_manager_config.yaml: {value}")


@pytest.mark.parametrize("case", sorted(TEXTS))
def test_the_config_map_text_is_read_as_kueue_reads_it(case, kueue_oracle, tmp_path):
    (path := tmp_path / "controller_manager_config.yaml").write_text(TEXTS[case])
    proc = subprocess.run([kueue_oracle, "config", str(path)], capture_output=True, text=True, check=True)
    line = json.loads(proc.stdout)
    diags = Diagnostics()
    fragment = read_manifest_text(config_map(TEXTS[case]) + QUEUE, "cm.yaml", diags)
    validate(merge([fragment]), diags)
    errors = [d.message for d in diags if d.severity.value == "error"]
    assert bool(errors) == ("error" in line), (line, errors)
    if "error" not in line:
        (c,) = fragment.scheduler_configs
        theirs = kueue_reads(line["configuration"])
        assert (theirs["frameworks"], theirs["manage_jobs_without_queue_name"]) == (
            c.frameworks, bool(c.manage_jobs_without_queue_name))
    assert ("KAD174" in [d.code for d in diags]) == case.startswith(("a second", "an empty first"))
