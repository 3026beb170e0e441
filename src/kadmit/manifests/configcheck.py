"""Kueue's validation of the Configuration's sections kadmit does not decide with (waitForPodsReady,
multiKueue, internalCertManagement, objectRetentionPolicies, tls, visibilityServer,
metrics.customLabels): pkg/config/validation.go's refusals, in Kueue's words (KAD157), and a
warning (KAD161) where an accepted setting changes what Kueue admits.

Kueue formats a refused value as Go's field errors do: a string quoted, an integer bare, a
metav1.Duration as its JSON (`"-1m0s"`), a bare time.Duration in nanoseconds.
"""

from __future__ import annotations

import json
import re
from ipaddress import ip_address

from kadmit.durations import go_duration_ns, go_duration_string
from kadmit.manifests.codes import KAD157, KAD161
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.gates import refused
from kadmit.manifests.yamltree import STR, Val

NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg

DEFAULT_FRAMEWORKS = ("batch/job",)  # apis/config/v1beta2/defaults.go: defaultJobFrameworkName


class _Check:
    """One Configuration's checks: each refusal reported at its node, and whether any was."""

    def __init__(self, f: Fields, o: Meta):
        self.f, self.o, self.bad = f, o, False

    def refuse(self, error: str, at: Val | None, help: str | None = None, detail: str = "",
               own: bool = True) -> None:
        """`own`: `at` is the refused value (not reported when it was itself bad)."""
        self.bad = True
        self.f.invalid(KAD157, refused(error) + detail, at or self.o.node, uses=(at,) if own else (), help=help)

    def duration(self, m: Val | None, key: str, path: str) -> tuple[int | None, Val | None]:
        """A metav1.Duration field: nanoseconds, or None when unset; a text Go can't parse is refused
        (Kueue's strict decoding fails)."""
        node = self.f.field(m, key)
        if node is None:
            return None, None
        ns = go_duration_ns(str(node.v)) if node.kind == STR else None
        if ns is None:
            self.bad = True
            self.f.invalid(KAD157, f"`{path}` is not a duration like `5m` or `1h30m` (Go's time.ParseDuration); "
                           "Kueue refuses to start", node, uses=(node,))
        return ns, node

    def integer(self, m: Val | None, key: str) -> tuple[int | None, Val | None]:
        node = self.f.field(m, key)
        if node is None:
            return None, None
        return self.f.int(m, key), node


def check_configuration(f: Fields, o: Meta) -> None:
    """Every refusal of validation.go for the sections kadmit does not otherwise read, then the
    KAD161 warning of a waitForPodsReady Kueue would run with."""
    c = _Check(f, o)
    wait = _wait_for_pods_ready(c)
    _multi_kueue(c)
    _internal_cert_management(c)
    _object_retention(c)
    _tls(c)
    _visibility_server(c)
    _custom_labels(c)
    if wait is not None and not c.bad:
        node, block = wait
        what = ("Kueue admits no workload while an admitted workload's pods are not all ready "
                "(`blockAdmission`), and it evicts and requeues workloads whose pods are not ready in time"
                if block else "Kueue evicts and requeues workloads whose pods are not ready in time "
                "(`requeuingStrategy` orders them)")
        f.diags.emit(KAD161, f"`waitForPodsReady` of `Configuration` is not modelled: {what}; kadmit decides as "
                     "if every admitted workload's pods were ready; its decision may differ from Kueue's",
                     f.span(node), help="kadmit's answer holds for a cluster whose admitted workloads' pods are "
                                        "all ready")


def _wait_for_pods_ready(c: _Check) -> tuple[Val, bool] | None:
    """validateWaitForPodsReady, on the Configuration as Kueue converts and defaults it: v1beta1 runs it
    with `enable: true` (timeout defaulted to 5m, blockAdmission to true), v1beta2 whenever the section
    is there (blockAdmission defaulted to false). The node and blockAdmission, when enabled."""
    f, o = c.f, c.o
    w = f.map(o.node, "waitForPodsReady")
    if w is None:
        return None
    v1 = o.version == "v1beta1"
    if v1 and not f.bool(w, "enable", default=False):
        return None
    path = "waitForPodsReady"
    timeout, t_node = c.duration(w, "timeout", f"{path}.timeout")
    if timeout is None and t_node is None and v1:
        timeout = 5 * 60 * 10 ** 9  # defaultPodsReadyTimeout
    if t_node is None or timeout is not None:
        if not timeout:
            c.refuse(f"{path}.timeout: Required value: must be specified", t_node or w,
                     help="set `timeout`, e.g. `timeout: 5m`")
        elif timeout < 0:
            c.refuse(f'{path}.timeout: Invalid value: "{go_duration_string(timeout)}": {NEGATIVE}', t_node)
    recovery, r_node = c.duration(w, "recoveryTimeout", f"{path}.recoveryTimeout")
    if r_node is None:
        recovery = timeout  # defaulted to the timeout
    if recovery is not None and recovery < 0:
        c.refuse(f'{path}.recoveryTimeout: Invalid value: "{go_duration_string(recovery)}": {NEGATIVE}',
                 r_node or t_node, own=r_node is not None)
    strategy = f.map(w, "requeuingStrategy")
    rpath = f"{path}.requeuingStrategy"
    stamp = f.field(strategy, "timestamp")
    if stamp is not None and (stamp.kind != STR or stamp.v not in ("Creation", "Eviction")):
        c.refuse(f'{rpath}.timestamp: Unsupported value: "{stamp.v}": supported values: "Creation", "Eviction"',
                 stamp)
    for key in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        value, node = c.integer(strategy, key)
        if value is not None and value < 0:
            c.refuse(f"{rpath}.{key}: Invalid value: {value}: {NEGATIVE}", node)
    block = f.bool(w, "blockAdmission", default=v1)
    return w, block


# The job kinds whose integrations have a built-in MultiKueue adapter (their jobframework
# registrations' MultiKueueAdapter), as `Kind.version.group`.
MULTIKUEUE_ADAPTERS = {
    "batch/job": "Job.v1.batch", "jobset.x-k8s.io/jobset": "JobSet.v1alpha2.jobset.x-k8s.io",
    "kubeflow.org/mpijob": "MPIJob.v2beta1.kubeflow.org", "kubeflow.org/pytorchjob": "PyTorchJob.v1.kubeflow.org",
    "kubeflow.org/tfjob": "TFJob.v1.kubeflow.org", "kubeflow.org/xgboostjob": "XGBoostJob.v1.kubeflow.org",
    "kubeflow.org/paddlejob": "PaddleJob.v1.kubeflow.org", "kubeflow.org/jaxjob": "JAXJob.v1.kubeflow.org",
    "ray.io/rayjob": "RayJob.v1.ray.io", "ray.io/raycluster": "RayCluster.v1.ray.io",
    "ray.io/rayservice": "RayService.v1.ray.io",
    "workload.codeflare.dev/appwrapper": "AppWrapper.v1beta2.workload.codeflare.dev",
    "trainer.kubeflow.org/trainjob": "TrainJob.v1alpha1.trainer.kubeflow.org",
    "leaderworkerset.x-k8s.io/leaderworkerset": "LeaderWorkerSet.v1.leaderworkerset.x-k8s.io",
    "statefulset": "StatefulSet.v1.apps",
}


def _gvk(name: str) -> tuple[str, str, str] | None:
    """schema.ParseKindArg: `Kind.version.group` (the group may hold dots); None with fewer parts."""
    parts = name.split(".", 2)
    return (parts[2], parts[1], parts[0]) if len(parts) == 3 else None


def _multi_kueue(c: _Check) -> None:
    """validateMultiKueue: durations not negative, `origin` a label value, external frameworks named
    `Kind.version.group`, once each and not a built-in adapter's kind, credentials providers complete."""
    from kadmit.manifests.kubenames import label_value_problem

    f, o = c.f, c.o
    mk = f.map(o.node, "multiKueue")
    if mk is None:
        return
    for key in ("gcInterval", "workerLostTimeout"):
        ns, node = c.duration(mk, key, f"multiKueue.{key}")
        if ns is not None and ns < 0:  # a bare time.Duration: Go prints its nanoseconds
            c.refuse(f"multiKueue.{key}: Invalid value: {ns}: {NEGATIVE}", node)
    origin = f.field(mk, "origin")
    if origin is not None and origin.kind == STR and (problem := label_value_problem(str(origin.v))) is not None:
        c.refuse(f'multiKueue.origin: Invalid value: "{origin.v}"', origin, detail=f": the value {problem}")
    integrations = f.map(o.node, "integrations")
    enabled = set(f.strs(integrations, "frameworks") or DEFAULT_FRAMEWORKS)  # SetDefaults_Configuration
    builtin = {_gvk(MULTIKUEUE_ADAPTERS[k]) for k in enabled if k in MULTIKUEUE_ADAPTERS}
    seen: set = set()
    for i, item in enumerate(f.maps(mk, "externalFrameworks")):
        node = f.field(item, "name")
        name = str(node.v) if node is not None else ""
        at = f"multiKueue.externalFrameworks[{i}].name"
        gvk = _gvk(name)
        if gvk is None:
            c.refuse(f"{at}: Invalid value: \"{name}\": must be in 'kind.version.group' format", node or item)
            continue
        if gvk in seen:
            c.refuse(f'{at}: Duplicate value: "{name}"', node)
        seen.add(gvk)
        if gvk in builtin:
            c.refuse(f'{at}: Invalid value: "{name}": conflicts with a built-in MultiKueue adapter', node)
    profile = f.map(mk, "clusterProfile")
    base = "multiKueue.clusterProfile.credentialsProviders"
    for provider in f.maps(profile, "credentialsProviders"):
        if not f.str(provider, "name", default=""):
            c.refuse(f"{base}.name: Required value: must be specified", f.field(provider, "name") or provider)
        ex = f.map(provider, "execConfig")
        for key in ("command", "apiVersion"):
            if not f.str(ex, key, default=""):
                c.refuse(f"{base}.execConfig.{key}: Required value: must be specified", f.field(ex, key) or provider)
        for env in f.maps(ex, "env"):
            if not f.str(env, "name", default=""):
                c.refuse(f"{base}.execConfig.env.name: Required value: must be specified", env)
        mode = f.str(ex, "interactiveMode", default="")
        if mode == "":
            c.refuse(f"{base}.execConfig.interactiveMode: Required value: must be specified",
                     f.field(ex, "interactiveMode") or provider)
        elif mode not in ("Never", "IfAvailable", "Always"):
            c.refuse(f'{base}.execConfig.interactiveMode: Unsupported value: "{mode}": supported values: '
                     '"Never", "IfAvailable", "Always"', f.field(ex, "interactiveMode"))


def _internal_cert_management(c: _Check) -> None:
    """validateInternalCertManagement (when enabled, the default): the webhook's Service a DNS-1035
    label, its Secret a DNS-1123 subdomain."""
    from kadmit.manifests.kubenames import dns_subdomain_problem

    f, o = c.f, c.o
    icm = f.map(o.node, "internalCertManagement")
    if icm is None or not f.bool(icm, "enable", default=True):
        return
    path = "internalCertManagement"
    svc = f.field(icm, "webhookServiceName")
    if svc is not None and svc.kind == STR and (problem := _dns1035_problem(str(svc.v))) is not None:
        c.refuse(f'{path}.webhookServiceName: Invalid value: "{svc.v}"', svc, detail=f": the name {problem}")
    secret = f.field(icm, "webhookSecretName")
    if secret is not None and secret.kind == STR and (problem := dns_subdomain_problem(str(secret.v))) is not None:
        c.refuse(f'{path}.webhookSecretName: Invalid value: "{secret.v}"', secret, detail=f": the name {problem}")


_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")


def _dns1035_problem(text: str) -> str | None:
    if len(text) > 63:
        return f"is {len(text)} characters long; a DNS-1035 label has at most 63"
    if not _DNS1035.fullmatch(text):
        return ("is not a DNS-1035 label (lowercase letters, digits and `-`, starting with a letter and "
                "ending with a letter or digit)")
    return None


def _object_retention(c: _Check) -> None:
    """validateObjectRetentionPolicies: the workloads' retention durations not negative."""
    f, o = c.f, c.o
    wl = f.map(f.map(o.node, "objectRetentionPolicies"), "workloads")
    path = "objectRetentionPolicies.workloads"
    for key in ("afterFinished", "afterDeactivatedByKueue"):
        ns, node = c.duration(wl, key, f"{path}.{key}")
        if ns is not None and ns < 0:
            c.refuse(f'{path}.{key}: Invalid value: "{go_duration_string(ns)}": {NEGATIVE}', node)


# Go's crypto/tls cipher suites (CipherSuites and InsecureCipherSuites) and the two legacy names
# component-base's flag package also accepts.
CIPHER_SUITES = frozenset((
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
    "TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
))
TLS_VERSIONS = ("VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13")


def _tls(c: _Check) -> None:
    """validateTLS (tlsconfig.ParseTLSOptions): `minVersion` VersionTLS12 or VersionTLS13, every cipher
    suite one Go knows (that error wins when both are wrong), none with VersionTLS13."""
    f, o = c.f, c.o
    tls = f.map(o.node, "tls")
    if tls is None:
        return
    version = f.str(tls, "minVersion", default="")
    suites = f.strs(tls, "cipherSuites")
    shown = json.dumps({k: v for k, v in (("minVersion", version), ("cipherSuites", suites)) if v},
                       separators=(",", ":"))
    error = None
    if version in ("VersionTLS10", "VersionTLS11"):
        error = "invalid minVersion. Please use VersionTLS12 or VersionTLS13"
    elif version and version not in TLS_VERSIONS:
        error = f'invalid minVersion: unknown tls version "{version}". Please use VersionTLS12 or VersionTLS13'
    unknown = next((s for s in suites if s not in CIPHER_SUITES), None)
    if unknown is not None:
        error = f"invalid cipher suites: Cipher suite {unknown} not supported or doesn't exist"
    if error is not None:
        at = f.field(tls, "cipherSuites") if unknown is not None else f.field(tls, "minVersion")
        c.refuse(f"tls: Invalid value: {shown}: {error}", at)
    elif version == "VersionTLS13" and suites:
        c.refuse(f"tls.cipherSuites: Invalid value: {json.dumps(suites, separators=(',', ':'))}: may not be "
                 "specified when `minVersion` is 'VersionTLS13'", f.field(tls, "cipherSuites"),
                 help="TLS 1.3's cipher suites are not configurable: remove `cipherSuites`")


def _visibility_server(c: _Check) -> None:
    """validateVisibilityServer: `bindAddress` an IP address, `bindPort` 1-65535 (8082 only when unset:
    the default fills a nil pointer, and 0 is refused)."""
    f, o = c.f, c.o
    vs = f.map(o.node, "visibilityServer")
    if vs is None:
        return
    address = f.field(vs, "bindAddress")
    if address is not None and address.kind == STR and not _is_ip(str(address.v)):
        c.refuse(f'visibilityServer.bindAddress: Invalid value: "{address.v}": must be a valid IP address', address)
    port, node = c.integer(vs, "bindPort")
    if port is not None and not 1 <= port <= 65535:
        c.refuse(f"visibilityServer.bindPort: Invalid value: {port}: must be a valid port number (1-65535)", node)


def _is_ip(text: str) -> bool:
    """Go's net.ParseIP: dotted IPv4 or IPv6 text, no zone."""
    if "%" in text:
        return False
    try:
        ip_address(text)
    except ValueError:
        return False
    return True


_CUSTOM_LABEL = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")


def _custom_labels(c: _Check) -> None:
    """validateCustomLabels: each name a metric label name, given once; a label key or an annotation key
    as the source, not both, and a qualified name (the name itself when neither is set)."""
    from kadmit.manifests.kubenames import qualified_name_problem

    f, o = c.f, c.o
    seen: set[str] = set()
    for i, entry in enumerate(f.maps(f.map(o.node, "metrics"), "customLabels")):
        at = f"metrics.customLabels[{i}]"
        name_node = f.field(entry, "name")
        name = f.str(entry, "name", default="")
        if not _CUSTOM_LABEL.fullmatch(name):
            c.refuse(f'{at}.name: Invalid value: "{name}": must match ^[a-zA-Z][a-zA-Z0-9_]*$', name_node or entry)
        if name in seen:
            c.refuse(f'{at}.name: Duplicate value: "{name}"', name_node)
        seen.add(name)
        label, annotation = f.str(entry, "sourceLabelKey", default=""), f.str(entry, "sourceAnnotationKey", default="")
        if label and annotation:
            c.refuse(f"{at}: Invalid value", entry,
                     detail=": `sourceLabelKey and sourceAnnotationKey are mutually exclusive`")
        key, value = (("sourceLabelKey", label) if label else ("sourceAnnotationKey", annotation) if annotation
                      else ("name", name))
        if (problem := qualified_name_problem(value)) is not None:
            c.refuse(f'{at}.{key}: Invalid value: "{value}"', f.field(entry, key) or entry,
                     detail=f": the key {problem}")

