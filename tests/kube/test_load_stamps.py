"""`cluster_state._create_together`: a group of one creation time the server stamped with two seconds (a slow
`kubectl create` straddling a second boundary) is deleted and created again, so equal times stay equal; a group
stamped with one second is created once. A recording stand-in for kubectl, no API server (under 1 s)."""

from __future__ import annotations

import json
import subprocess

from kube import cluster_state


class _Kubectl:
    """Answers `create -o json` with each object stamped from `stamps` (one list per create), records the rest."""

    def __init__(self, stamps: list[list[str]]):
        self.stamps, self.calls = stamps, []

    def run(self, *args: str, input: str | None = None, **_) -> subprocess.CompletedProcess[str]:
        self.calls.append(args[0])
        out = ""
        if args[0] == "create":
            seconds = self.stamps.pop(0)
            items = [{**o, "metadata": {**o["metadata"], "creationTimestamp": t}}
                     for o, t in zip(_yaml(input), seconds)]
            out = json.dumps({"kind": "List", "items": items})
        return subprocess.CompletedProcess(args, 0, out, "")


def _yaml(text: str) -> list[dict]:
    import yaml
    return [d for d in yaml.safe_load_all(text) if d]


GROUP = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "ns",
                                                           **({"finalizers": ["x/y"]} if i == 0 else {})}}
         for i in range(3)]


def test_a_group_stamped_with_two_seconds_is_made_again():
    k = _Kubectl([["2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z", "2020-01-01T00:00:01Z"],
                  ["2020-01-01T00:00:02Z"] * 3])
    stored = cluster_state._create_together(k, GROUP)
    assert {o["metadata"]["creationTimestamp"] for o in stored} == {"2020-01-01T00:00:02Z"}
    assert k.calls == ["create", "patch", "delete", "create"]  # p0's finalizer removed before the delete


def test_a_group_stamped_with_one_second_is_made_once():
    k = _Kubectl([["2020-01-01T00:00:00Z"] * 3])
    assert len(cluster_state._create_together(k, GROUP)) == 3
    assert k.calls == ["create"]
