"""Atomic writes: the new text completely, or the old file untouched, with its mode kept."""

from __future__ import annotations

import os
import stat

import pytest

from kadmit.atomic import write_text_atomic


def test_replaces_text_and_keeps_the_mode(tmp_path):
    p = tmp_path / "a.kad"
    p.write_text("old\n")
    os.chmod(p, 0o640)
    write_text_atomic(p, "new ü\n")
    assert p.read_text(encoding="utf-8") == "new ü\n"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["a.kad"]


def test_creates_a_missing_file(tmp_path):
    p = tmp_path / "new.kad"
    write_text_atomic(p, "x")
    assert p.read_bytes() == b"x"


def test_failed_rename_leaves_the_original_and_no_temporary(tmp_path, monkeypatch):
    p = tmp_path / "a.kad"
    p.write_text("old\n")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_text_atomic(p, "new\n")
    assert p.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["a.kad"]


def test_newlines_are_written_as_given(tmp_path):
    p = tmp_path / "a.kad"
    write_text_atomic(p, "a\r\nb\n")
    assert p.read_bytes() == b"a\r\nb\n"
