"""Kueue's manager's `--feature-gates` flag (read by manifests/managerflags.py) into the merged model: Kueue
v0.17.0's main sets the flag's gates in place of the Configuration's `featureGates`, and does not start when
both are given (cmd/kueue/main.go, config.ValidateFeatureGates). Kept apart from the reader: a `.kad` input
passes here too without loading it."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Label, Subject
from kadmit.featuregates import on, resolve
from kadmit.identity import about
from kadmit.manifests.codes import KAD157
from kadmit.model import Model, SchedulerConfig


def with_manager_gates(model: Model, diags: Diagnostics) -> Model:
    """The model whose SchedulerConfig holds the gates of Kueue's manager's flag in place of the
    Configuration's (the first manager Deployment's); where the Configuration gives `featureGates` too,
    Kueue's manager does not start (KAD157) and the model keeps the Configuration's."""
    if not model.manager_flags:
        return model
    flag, cfg = model.manager_flags[0], model.config
    if cfg is not None and cfg.spans.get("feature_gates") is not None:
        diags.emit(KAD157, "Kueue's manager does not start with both its `--feature-gates` flag and the "
                   "Configuration's `featureGates`: `conflicting feature gates detected: featureGates: Invalid "
                   "value: feature gates for CLI and configuration cannot both specified`", flag.span,
                   labels=[Label(cfg.spans.get("feature_gates"), "the Configuration's featureGates")],
                   help="give Kueue's gates in one place: the flag, or the Configuration's `featureGates`",
                   about=(Subject("Deployment", flag.namespace, flag.name), *about(cfg)))
        return model
    gates = resolve(flag.gates)
    base = cfg if cfg is not None else SchedulerConfig()
    update: dict = {"feature_gates": gates}
    if not on(gates, "AdmissionFairSharing"):  # admissionfairsharing.Enabled: the section is used with the gate on only
        update["admission_fair_sharing"] = None
    return model.model_copy(update={"scheduler_configs": (base.model_copy(update=update),
                                                          *model.scheduler_configs[1:])})
