"""The Kueue / Kubernetes manifest front end: YAML or JSON text -> a model `Fragment` (its reader,
`read_manifest_text`, and the kinds it reads, `KINDS`, are `kadmit.manifests.reader`'s)."""

from __future__ import annotations

from kadmit.manifests.deferred import submodule

__all__ = ["read_manifest_text", "KINDS"]


def __getattr__(name: str):
    """The reader's names, the reader (with PyYAML and every kind's module) imported when one is
    first asked for: a command on `.kad` input uses modules of this package (turning jobs into
    workloads, Kueue's resource adjustments) and reads no manifest. A submodule's name is the
    import system's to import."""
    if name.startswith("__") or submodule(__name__, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from kadmit.manifests import reader
    return getattr(reader, name)
