"""Shared helpers for the CLI tests: a runner in a temporary working directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kadmit.cli import cli


class Run:
    """Runs `kadmit ARGS...` in-process from a temporary working directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> Result:
        result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
        assert "Traceback" not in result.output
        return result


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return Run(tmp_path)
