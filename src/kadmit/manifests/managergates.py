"""Kueue's manager's `--feature-gates` flag (read by manifests/managerflags.py) into the merged model: Kueue
v0.17.0's main sets the flag's gates in place of the Configuration's `featureGates`, and does not start when
both are given (cmd/kueue/main.go, config.ValidateFeatureGates). Once the gates are
final, the checks of Kueue's start that read them run here (`started_checks`), so that a gate the flag sets
counts as one the Configuration sets. Kept apart from the reader: a `.kad` input passes here too without
loading it."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Label, Subject
from kadmit.featuregates import on, resolve
from kadmit.identity import about
from kadmit.manifests.codes import KAD157
from kadmit.model import Model, SchedulerConfig


def with_manager_gates(model: Model, diags: Diagnostics) -> Model:
    """The model whose gates are those Kueue's manager sets (`_with_flag`), and the checks of its start that read
    them (`started_checks`)."""
    gated, starts = _with_flag(model, diags)
    if starts:  # else Kueue's manager exits on the conflict before it sets anything up
        started_checks(gated.config, diags)
    return gated


SPARK = "sparkoperator.k8s.io/sparkapplication"


def started_checks(cfg: SchedulerConfig | None, diags: Diagnostics) -> None:
    """What Kueue's manager refuses once it has set its gates (cmd/kueue/main.go, after ValidateFeatureGates and
    Set/SetFromMap): the SparkApplication integration enabled without its gate (SparkApplicationIntegration, alpha,
    off by default), whose CanSupportIntegration fails jobframework.SetupControllers, and Kueue's manager exits.
    The gates are the flag's or the Configuration's, whichever Kueue sets (`cfg.feature_gates`)."""
    if cfg is None or SPARK not in (cfg.frameworks or ()) or on(cfg.feature_gates, "SparkApplicationIntegration"):
        return
    at = cfg.spans.get(f"frameworks.{cfg.frameworks.index(SPARK)}") or cfg.spans.get("frameworks") or cfg.span
    diags.emit(KAD157, "Kueue refuses to start with this Configuration: `failed to configure reconcilers: "
               f"{SPARK} integration is alpha feature. please enable SparkApplicationIntegration featuregate`",
               at, help="set `featureGates: {SparkApplicationIntegration: true}` (or the manager's "
                        "`--feature-gates=SparkApplicationIntegration=true`), or leave the integration out",
               about=about(cfg))


def _with_flag(model: Model, diags: Diagnostics) -> tuple[Model, bool]:
    """The model whose SchedulerConfig holds the gates of Kueue's manager's flag in place of the
    Configuration's (the first manager Deployment's), and whether Kueue's manager gets past its gates: where
    the Configuration gives `featureGates` too, it does not start (KAD157) and the model keeps the
    Configuration's."""
    if not model.manager_flags:
        return model, True
    flag, cfg = model.manager_flags[0], model.config
    if cfg is not None and cfg.spans.get("feature_gates") is not None:
        diags.emit(KAD157, "Kueue's manager does not start with both its `--feature-gates` flag and the "
                   "Configuration's `featureGates`: `conflicting feature gates detected: featureGates: Invalid "
                   "value: feature gates for CLI and configuration cannot both specified`", flag.span,
                   labels=[Label(cfg.spans.get("feature_gates"), "the Configuration's featureGates")],
                   help="give Kueue's gates in one place: the flag, or the Configuration's `featureGates`",
                   about=(Subject("Deployment", flag.namespace, flag.name), *about(cfg)))
        return model, False
    gates = resolve(flag.gates)
    base = cfg if cfg is not None else SchedulerConfig()
    update: dict = {"feature_gates": gates}
    if not on(gates, "AdmissionFairSharing"):  # admissionfairsharing.Enabled: the section is used with the gate on only
        update["admission_fair_sharing"] = None
    return model.model_copy(update={"scheduler_configs": (base.model_copy(update=update),
                                                          *model.scheduler_configs[1:])}), True
