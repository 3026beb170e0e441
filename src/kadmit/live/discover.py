"""Which of the kinds kadmit reads a cluster serves, and how to list each: `kubectl api-resources`.

`kubectl api-resources -o wide` prints every resource the server serves in its preferred version
(NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND, VERBS, CATEGORIES), in every kubectl release since
1.20 (its machine-readable `-o json` is 1.32's, too new to rely on). Each kind kadmit reads
(`manifests.KINDS`) is listed in the server's preferred version when kadmit reads it, else in the
newest version kadmit reads (the server may serve it too; if not, the listing says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_API_VERSION = re.compile(r"([a-z0-9.-]+/)?v\d+((alpha|beta)\d+)?")
KUEUE_NAMESPACE = "kueue-system"  # where Kueue's manifests and Helm chart install its ConfigMap
CONFIG_KEY = "controller_manager_config.yaml"


@dataclass(frozen=True)
class Served:
    """One resource the server serves, as `kubectl api-resources -o wide` lists it."""

    resource: str
    group: str
    version: str
    namespaced: bool
    kind: str
    verbs: tuple[str, ...]


@dataclass(frozen=True)
class Target:
    """One `kubectl get` to run: a resource in a version, in every namespace or in one."""

    group: str
    kind: str
    resource: str
    version: str
    namespaced: bool
    namespace: str | None = None  # list only there (Kueue's ConfigMap)
    preferred: str = ""  # the server's preferred version, when it is not one kadmit reads

    @property
    def qualified(self) -> str:
        """`resource.version.group` (`pods.v1.` for the core group): no short name or other group's
        resource of the same name can be meant."""
        return f"{self.resource}.{self.version}.{self.group}"

    @property
    def shown(self) -> str:
        return f"{self.resource}.{self.version}" + (f".{self.group}" if self.group else "")

    def where(self) -> str:
        return f"in namespace {self.namespace}" if self.namespace else \
            "in every namespace" if self.namespaced else "cluster-wide"


def parse_api_resources(text: str) -> list[Served] | None:
    """The lines of `kubectl api-resources -o wide --no-headers`, or None when one can't be read.
    SHORTNAMES and CATEGORIES may be empty; VERBS is `a,b` (kubectl 1.30+) or `[a b]` (before)."""
    out = []
    for line in text.splitlines():
        tokens = line.split()
        if not tokens:
            continue
        at = next((i for i in range(2, len(tokens)) if tokens[i] in ("true", "false")), None)
        if at is None or at + 1 >= len(tokens) or at > 3 or not _API_VERSION.fullmatch(tokens[at - 1]):
            return None
        group, _, version = tokens[at - 1].rpartition("/")
        rest = tokens[at + 2:]
        if rest and rest[0].startswith("["):
            closing = next((i for i, t in enumerate(rest) if t.endswith("]")), len(rest) - 1)
            verbs = " ".join(rest[: closing + 1]).strip("[]").split()
        else:
            verbs = rest[0].split(",") if rest else []
        out.append(Served(tokens[0], group, version, tokens[at] == "true", tokens[at + 1], tuple(verbs)))
    return out


_FAILED_GROUP = re.compile(r"(?:^|[:,] )([a-z0-9.-]+\.[a-z0-9.-]+)/(v[0-9a-z]+): ")


def failed_groups(stderr: str) -> dict[str, str]:
    """The API groups whose discovery failed, from kubectl's `unable to retrieve the complete list of server
    APIs: GROUP/VERSION: ERROR, …` (an aggregated API whose backend is down), each with its message."""
    out: dict[str, str] = {}
    for line in stderr.splitlines():
        if "unable to retrieve the complete list of server APIs" not in line:
            continue
        found = list(_FAILED_GROUP.finditer(line))
        for m, following in zip(found, found[1:] + [None]):
            end = following.start() if following is not None else len(line)
            out.setdefault(m.group(1), f"{m.group(1)}/{m.group(2)}: {line[m.end():end].strip(' ,')}")
    return out


@dataclass(frozen=True)
class Plan:
    """What to list, what kadmit reads that the server doesn't serve (or not with `list`), and what it
    serves but could not describe (its API group's discovery failed)."""

    targets: tuple[Target, ...]
    not_served: tuple[str, ...]  # `Kind (group)` of kinds kadmit reads that the server has no API for
    kueue_served: bool
    undiscovered: tuple[str, ...] = ()  # `Kind (group): why` of kinds whose API group's discovery failed


def plan(served: list[Served], failed: dict[str, str] | None = None) -> Plan:
    """One target per kind kadmit reads that the server serves with `list`; `failed`: the API groups
    whose discovery failed (`failed_groups`), whose kinds are neither listed nor said not to be served."""
    from kadmit.manifests import KINDS
    from kadmit.manifests.config import CONFIG_GROUP

    by_kind: dict[tuple[str, str], Served] = {}
    for s in served:
        by_kind.setdefault((s.group, s.kind), s)
    targets, missing, undiscovered = [], [], []
    for (group, kind), spec in sorted(KINDS.items()):
        if group == CONFIG_GROUP:  # Kueue's Configuration is no API object: it is read from its ConfigMap
            continue
        s = by_kind.get((group, kind))
        if s is None and group in (failed or {}):
            undiscovered.append(f"{kind} ({group}): the server could not say what it serves there: {failed[group]}")
            continue
        if s is None or "list" not in s.verbs:
            missing.append(f"{kind} ({group or 'core'})")
            continue
        version, preferred = (s.version, "") if s.version in spec.versions else (spec.versions[-1], s.version)
        namespace = KUEUE_NAMESPACE if (group, kind) == ("", "ConfigMap") else None
        targets.append(Target(group, kind, s.resource, version, s.namespaced, namespace, preferred))
    kueue = any(t.group == "kueue.x-k8s.io" for t in targets) or "kueue.x-k8s.io" in (failed or {})
    return Plan(tuple(targets), tuple(missing), kueue, tuple(undiscovered))
