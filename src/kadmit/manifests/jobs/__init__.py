"""Job kinds Kueue integrates -> the Workloads Kueue would make of them, one module per integration
(as Kueue's pkg/controller/jobs/<kind>); `manage` decides which of them Kueue manages. The kinds
(`INTEGRATIONS`, `REFERENCED`) are `kinds`'s."""

from __future__ import annotations

from kadmit.manifests.deferred import submodule


def __getattr__(name: str):
    """`kinds`'s names, imported when one is first asked for (`manage` applied to a `.kad` input's
    model needs none of the readers); a submodule's name is the import system's to import."""
    if name.startswith("__") or submodule(__name__, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from kadmit.manifests.jobs import kinds
    return getattr(kinds, name)
