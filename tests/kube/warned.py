"""What kadmit warns of a manifest the real server stores (`KubeAPIServer.refusal` gives the words it refuses
the object a controller makes of it with)."""

from __future__ import annotations

from pathlib import Path

from kadmit import workspace as ws


def kad199(tmp_path: Path, manifest: str) -> str:
    """kadmit's one KAD199 warning for `manifest` (written to `tmp_path`), which it reads with no error."""
    path = tmp_path / "job.yaml"
    path.write_text(manifest, encoding="utf-8")
    got = ws.load([str(path)])
    assert not got.diagnostics.has_errors, [str(d) for d in got.diagnostics]
    (warning,) = [d.message for d in got.diagnostics if d.code == "KAD199"]
    return warning
