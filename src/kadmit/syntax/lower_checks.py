"""Lowering admission checks: `admission_check`, the objects its built-in controllers read
(`provisioning_config`, `multikueue_config`, `multikueue_cluster`), a cluster queue's
`admission_checks` and a workload's `checks` (the same model the manifests path builds:
kadmit.modelchecks)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.model import AdmissionCheck, CheckConfig, CheckParameters, CheckRule, CheckState, RetryStrategy
from kadmit.modelchecks import KUEUE_GROUP, MULTIKUEUE, PROVISIONING, active_reason
from kadmit.source import Span, Spans
from kadmit.syntax import codes
from kadmit.syntax.ast import Decl, ListV, MapV, Scalar, Value
from kadmit.syntax.fields import FIELDS
from kadmit.syntax.values import (Fields, bool_of, enum_of, int_of, list_of, map_entries, name_of, shape,
                                  string_map, string_of)

# `controller = …`: Kueue's two built-in controllers by a short name; any other is written as Kueue names it
CONTROLLERS = {"provisioning_request": PROVISIONING, "multikueue": MULTIKUEUE}
# the kind of object `parameters = NAME` names for a built-in controller
PARAMETER_KINDS = {PROVISIONING: "ProvisioningRequestConfig", MULTIKUEUE: "MultiKueueConfig"}
STATES = {"pending": "Pending", "ready": "Ready", "retry": "Retry", "rejected": "Rejected"}
MERGE_POLICY = {"identical_pod_templates": "IdenticalPodTemplates",
                "identical_workload_scheduling_requirements": "IdenticalWorkloadSchedulingRequirements"}
LOCATION_TYPE = {"secret": "Secret", "path": "Path"}
RETRY_FIELDS = ("backoff_limit_count", "backoff_base_seconds", "backoff_max_seconds")


def admission_check(d: Decl, diags: Diagnostics) -> AdmissionCheck | None:
    what = f"admission_check `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["admission_check"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    a = f.get("controller")
    if a is None:
        diags.emit(codes.MISSING_FIELD, f"{what} has no `controller`", d.label.span,
                   help="add `controller = provisioning_request`, `multikueue`, or the name of the controller "
                        "that runs the check (`\"example.com/approval\"`)")
        return None
    spans["controller"] = a.value.span
    name = name_of(a.value, "`controller`", diags)
    if name is None:
        return None
    controller = CONTROLLERS.get(name, name)
    kw: dict = {}
    short, long = f.get("parameters"), f.block("parameters")
    if short is not None and long is not None:
        diags.emit(codes.DUPLICATE_FIELD, f"`parameters` is set twice in {what}", long.kind.span,
                   help="use either `parameters = NAME` or a `parameters { api_group … kind … name … }` block")
    if short is not None:
        spans["parameters"] = short.value.span
        target = name_of(short.value, "`parameters`", diags)
        if target is not None and controller not in PARAMETER_KINDS:
            diags.emit(codes.WRONG_VALUE, f"`parameters = {target}` names the configuration of a built-in controller; "
                       f"`{controller}` is not one", short.value.span,
                       help="write `parameters { api_group = \"…\"  kind = \"…\"  name = \"…\" }`")
        elif target is not None:
            kw["parameters"] = CheckParameters(api_group=KUEUE_GROUP, kind=PARAMETER_KINDS[controller], name=target,
                                               span=short.value.span)
    elif long is not None:
        spans["parameters"] = long.span
        g = Fields("`parameters`", long.members, *FIELDS["parameters"], diags)
        ref = {k: (string_of(x.value, f"`{k}`", diags) or "") if (x := g.get(k)) is not None else ""
               for k in ("api_group", "kind", "name")}
        kw["parameters"] = CheckParameters(**ref, span=long.span)
    if (x := f.get("active")) is not None:  # the `Active` condition its controller set (status)
        spans["status_active"] = x.value.span
        kw["status_active"] = bool_of(x.value, "`active`", diags)
    if (x := f.get("reason")) is not None:
        spans["status_reason"] = x.value.span
        if "status_active" not in kw:
            diags.emit(codes.WRONG_VALUE, "`reason` is the reason of the `Active` condition: it needs `active`",
                       x.value.span, help="add `active = false`")
        kw["status_reason"] = string_of(x.value, "`reason`", diags) or ""
    elif kw.get("status_active") is not None:  # a condition has a reason: Kueue's own word for it
        kw["status_reason"] = active_reason(kw["status_active"])
    return AdmissionCheck(name=d.label.value, controller=controller, span=d.span, spans=Spans(items=spans),
                          **{k: v for k, v in kw.items() if v is not None})


def provisioning_config(d: Decl, diags: Diagnostics) -> CheckConfig:
    what = f"provisioning_config `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["provisioning_config"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {}
    a = f.get("provisioning_class")
    if a is None:
        diags.emit(codes.MISSING_FIELD, f"{what} has no `provisioning_class`", d.label.span,
                   help='add e.g. `provisioning_class = "check-capacity.autoscaling.x-k8s.io"` (Kueue\'s '
                        "`provisioningClassName`, which it requires)")
    else:
        spans["provisioning_class"] = a.value.span
        kw["provisioning_class"] = string_of(a.value, "`provisioning_class`", diags)
        if kw["provisioning_class"] == "":
            diags.emit(codes.WRONG_VALUE, "`provisioning_class` is empty; Kueue requires one", a.value.span,
                       help='write e.g. `provisioning_class = "check-capacity.autoscaling.x-k8s.io"`')
    if (a := f.get("parameters")) is not None:
        spans["parameters"] = a.value.span
        kw["parameters"] = string_map(a.value, "`parameters`", diags, spans, "parameters")
    if (a := f.get("managed_resources")) is not None:
        spans["managed_resources"] = a.value.span
        kw["managed_resources"] = tuple(x for x in (name_of(v, "a managed resource", diags)
                                                    for v in list_of(a.value, "`managed_resources`", diags) or [])
                                        if x is not None)
    if (a := f.get("pod_set_merge_policy")) is not None:
        spans["pod_set_merge_policy"] = a.value.span
        kw["pod_set_merge_policy"] = enum_of(a.value, "`pod_set_merge_policy`", MERGE_POLICY, diags)
    if (b := f.block("retry_strategy")) is not None:
        spans["retry_strategy"] = b.span
        g = Fields("`retry_strategy`", b.members, *FIELDS["retry_strategy"], diags)
        inner = {k: int_of(x.value, f"`{k}`", diags, low=0) for k in RETRY_FIELDS if (x := g.get(k)) is not None}
        kw["retry_strategy"] = RetryStrategy(span=b.span, **inner)
    if (b := f.block("pod_set_updates")) is not None:
        spans["pod_set_updates"] = b.span
        g = Fields("`pod_set_updates`", b.members, *FIELDS["pod_set_updates"], diags)
        if (a := g.get("node_selector")) is not None:
            kw["pod_set_updates"] = tuple(string_map(a.value, "`node_selector`", diags, spans,
                                                     "pod_set_updates").items())
    return CheckConfig(kind="ProvisioningRequestConfig", name=d.label.value, span=d.span, spans=Spans(items=spans),
                       **{k: v for k, v in kw.items() if v is not None})


def multikueue_config(d: Decl, diags: Diagnostics) -> CheckConfig:
    f = Fields(f"multikueue_config `{d.label.value}`", d.members, *FIELDS["multikueue_config"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    clusters: list[str] = []
    if (a := f.get("clusters")) is not None:
        spans["clusters"] = a.value.span
        for v in list_of(a.value, "`clusters`", diags) or []:
            if (x := name_of(v, "a cluster", diags)) is not None:
                spans[f"clusters.{len(clusters)}"] = v.span
                clusters.append(x)
    return CheckConfig(kind="MultiKueueConfig", name=d.label.value, clusters=tuple(clusters), span=d.span,
                       spans=Spans(items=spans))


def multikueue_cluster(d: Decl, diags: Diagnostics) -> CheckConfig:
    what = f"multikueue_cluster `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["multikueue_cluster"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {}
    kube, profile = f.get("kubeconfig"), f.get("cluster_profile")
    if kube is not None and profile is not None:
        diags.emit(codes.DUPLICATE_FIELD, f"{what} sets both `kubeconfig` and `cluster_profile`; Kueue takes "
                   "exactly one", profile.key.span)
    elif kube is None and profile is None:
        diags.emit(codes.MISSING_FIELD, f"{what} has neither `kubeconfig` nor `cluster_profile`", d.label.span,
                   help='add `kubeconfig = "SECRET"` (the Secret holding its kubeconfig) or `cluster_profile = "NAME"`')
    if kube is not None:
        spans["kubeconfig"] = kube.value.span
        kw["kubeconfig"] = string_of(kube.value, "`kubeconfig`", diags)
    elif profile is not None:
        spans["cluster_profile"] = profile.value.span
        kw["cluster_profile"] = string_of(profile.value, "`cluster_profile`", diags)
    if (a := f.get("location_type")) is not None:
        spans["kubeconfig_location_type"] = a.value.span
        if kube is None:
            diags.emit(codes.WRONG_VALUE, "`location_type` says where `kubeconfig` is: it needs `kubeconfig`",
                       a.value.span)
        kw["kubeconfig_location_type"] = enum_of(a.value, "`location_type`", LOCATION_TYPE, diags)
    if (a := f.get("active")) is not None:  # its `Active` condition: Kueue connected to it
        spans["status_active"] = a.value.span
        kw["status_active"] = bool_of(a.value, "`active`", diags)
    return CheckConfig(kind="MultiKueueCluster", name=d.label.value, span=d.span, spans=Spans(items=spans),
                       **{k: v for k, v in kw.items() if v is not None})


def queue_checks(v: Value, diags: Diagnostics, spans: dict[str, Span]) -> tuple[CheckRule, ...]:
    """A cluster queue's `admission_checks`: `[a, b]` (every flavor), or `{ a = all, b = [h100, a100] }`
    (check `b` only for the workloads assigned one of those flavors: Kueue's `onFlavors`)."""
    out: list[CheckRule] = []
    seen: set[str] = set()

    def add(name: str | None, at: Span, flavors: tuple[str, ...] = (), fspans: dict[str, Span] | None = None) -> None:
        if name is None:
            return
        if name in seen:
            diags.emit(codes.DUPLICATE_FIELD, f"admission check `{name}` is named twice in `admission_checks`", at,
                       help="name each check once (Kueue's API server refuses a repeated name)")
            return
        seen.add(name)
        spans[f"admission_checks.{len(out)}"] = at
        out.append(CheckRule(name=name, on_flavors=flavors, span=at, spans=Spans(items={"name": at, **(fspans or {})})))

    if isinstance(v, ListV):
        for item in v.items:
            add(name_of(item, "an admission check", diags), item.span)
    elif isinstance(v, MapV):
        for key, val in map_entries(v, "`admission_checks`", diags) or []:
            if isinstance(val, Scalar) and val.kind == "name" and val.value == "all":
                add(key.value, key.span)
                continue
            items = list_of(val, f"the flavors of admission check `{key.value}`", diags)
            if items is None:
                continue
            flavors, fspans = [], {}
            for item in items:
                fl = name_of(item, "a flavor", diags)
                if fl is not None and fl not in flavors:
                    fspans[f"on_flavors.{len(flavors)}"] = item.span
                    flavors.append(fl)
            if not flavors:
                diags.emit(codes.WRONG_VALUE, f"admission check `{key.value}` is on no flavor", val.span,
                           help=f"write `{key.value} = all` for every flavor of the queue")
                continue
            add(key.value, key.span, tuple(flavors), fspans)
    else:
        diags.emit(codes.WRONG_VALUE, f"`admission_checks` takes a list of checks or a map of checks to their "
                   f"flavors, not {shape(v)}", v.span,
                   help="write `admission_checks = [capacity]` or `admission_checks = { capacity = [h100] }`")
    return tuple(out)


def check_states(v: Value, diags: Diagnostics, spans: dict[str, Span]) -> tuple[CheckState, ...]:
    """A workload's `checks = { capacity = ready, approval = pending }`: the state each check's controller set."""
    out = []
    for key, val in map_entries(v, "`checks`", diags) or []:
        state = enum_of(val, f"the state of check `{key.value}`", STATES, diags)
        if state is not None:
            spans[f"check_states.{key.value}"] = val.span
            out.append(CheckState(name=key.value, state=state, span=key.span))
    return tuple(out)
