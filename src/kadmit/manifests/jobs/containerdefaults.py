"""The container defaults the API server gives a built-in kind's pod template on create (k8s.io/kubernetes v1.35
pkg/apis/core/v1/defaults.go SetDefaults_Container), which a Workload (a custom resource: its CRD has no such
defaults) does not get: Kueue compares a job's containers with its Workload's (EquivalentToWorkload,
Semantic.DeepEqual), so a prebuilt Workload that leaves them unset is out of sync with a job being submitted
(KAD193). The oracle's harness applies the same (tools/kueue-oracle internal/jobs/builtins.go
applyContainerDefaults)."""

from __future__ import annotations

import re
from functools import lru_cache

# What SetDefaults_Container sets in a container where it is unset (imagePullPolicy: `pull_policy`).
CONTAINER_DEFAULTS = ("imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy")
FIXED = {"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}

# github.com/distribution/reference v0.6.0 regexp.go, as Go's RE2 reads it (ASCII classes, `$` at the end only)
_ALNUM = r"[a-z0-9]+"
_PATH_COMPONENT = _ALNUM + r"(?:(?:[._]|__|[-]+)" + _ALNUM + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_AND_PORT = (r"(?:" + _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*|\[(?:[a-fA-F0-9:]+)\])"
                    r"(?::[0-9]+)?")
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_REFERENCE = re.compile(r"((?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME + r")(?::([\w][\w.-]{0,127}))?"
                        r"(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}))?", re.ASCII)
_NAME = re.compile(r"(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}")
_DIGESTS = {"sha256": 64, "sha384": 96, "sha512": 128}  # go-digest's algorithms, all linked into the server
_NAME_MAX = 255  # RepositoryNameTotalLengthMax, of the path (the domain apart)
# The domain ParseNormalizedNamed gives a name without one (the public registry's host): any name the
# grammar takes reads alike here, since only the tag is kept. (Its legacy `index.` host is read as any other
# domain here, not given the `library/` prefix: that changes only the 255-character bound.)
_DEFAULT_DOMAIN = "registry.invalid"


@lru_cache(maxsize=4096)
def image_tag(image: str) -> str:
    """The tag pkg/util/parsers.ParseImageName gives `image`: its own, `latest` where it names neither tag nor
    digest, "" where it names only a digest or does not parse (reference.ParseNormalizedNamed)."""
    if _IDENTIFIER.fullmatch(image):
        return ""
    first, slash, rest = image.partition("/")
    if not slash:
        domain, remainder = _DEFAULT_DOMAIN, "library/" + image
    elif first == "localhost" or any(c in first for c in ".:") or first.lower() != first:
        domain, remainder = first, rest
    else:
        domain, remainder = _DEFAULT_DOMAIN, image
    if domain == _DEFAULT_DOMAIN and "/" not in remainder:
        remainder = "library/" + remainder
    remote = remainder.partition(":")[0]
    if remote.lower() != remote:
        return ""
    match = _REFERENCE.fullmatch(f"{domain}/{remainder}")
    if match is None:
        return ""
    name = _NAME.fullmatch(match[1])
    if len(name[2] if name else match[1]) > _NAME_MAX:
        return ""
    tag, digest = match[2] or "", match[3] or ""
    if digest:
        algorithm, _, encoded = digest.partition(":")
        size = _DIGESTS.get(algorithm)
        if size is None or not re.fullmatch(f"[a-f0-9]{{{size}}}", encoded):
            return ""  # an algorithm go-digest does not know, or an encoding of another length or case
    return tag or ("" if digest else "latest")


def pull_policy(image) -> str:
    """SetDefaults_Container's imagePullPolicy for `image`: Always where its tag is `latest`, else IfNotPresent."""
    return "Always" if isinstance(image, str) and image_tag(image) == "latest" else "IfNotPresent"


# SetDefaults_Probe: what a probe's unset (or zero) fields become; SetDefaults_HTTPGetAction: an httpGet's
PROBE_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
HTTP_GET_DEFAULTS = {"path": "/", "scheme": "HTTP"}


def defaulted(containers: list) -> list:
    """The plain pair of a template's containers and init containers (`template_shape`) with each container's
    unset CONTAINER_DEFAULTS set as the API server sets them, and its probes' and lifecycle handlers' defaults
    (SetDefaults_Probe, SetDefaults_HTTPGetAction; kubevalidate, tools/kube-apiserver, gives the same)."""
    def one(c):
        if not isinstance(c, dict):
            return c
        c = {**c, **{k: (pull_policy(c.get("image")) if k == "imagePullPolicy" else FIXED[k])
                     for k in CONTAINER_DEFAULTS if c.get(k) in (None, "")}}
        for k in ("livenessProbe", "readinessProbe", "startupProbe"):
            if isinstance(c.get(k), dict):
                c[k] = _http_get({**c[k], **{f: v for f, v in PROBE_DEFAULTS.items() if c[k].get(f) in (None, 0)}})
        if isinstance(c.get("lifecycle"), dict):
            c["lifecycle"] = {k: _http_get(h) for k, h in c["lifecycle"].items()}
        return c
    return [[one(c) for c in group] if isinstance(group, list) else group for group in containers]


def _http_get(handler):
    """A probe or lifecycle handler with its httpGet's unset path and scheme defaulted."""
    if not isinstance(handler, dict) or not isinstance(handler.get("httpGet"), dict):
        return handler
    get = handler["httpGet"]
    return {**handler, "httpGet": {**get, **{k: v for k, v in HTTP_GET_DEFAULTS.items() if get.get(k) in (None, "")}}}


def undefaulted(containers: list) -> list[str]:
    """The fields of CONTAINER_DEFAULTS some container or init container leaves unset (`containers`: the
    two plain lists `template_shape` keeps)."""
    return [k for k in CONTAINER_DEFAULTS if any(isinstance(c, dict) and c.get(k) in (None, "")
                                                 for group in containers for c in (group or []))]
