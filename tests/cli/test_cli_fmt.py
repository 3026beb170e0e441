"""`kadmit fmt`: stdout, --check, --diff and --write (atomic, all-or-nothing on parse errors)."""

from __future__ import annotations

import os
import stat

import pytest

from kadmit import api
from kadmit.syntax import format_text

MESSY = "priority    research=100    default\n\n\n\nflavor   h100   {\n}\n"
BROKEN = "cohort org {\n  parent = \n"


def canonical(text: str = MESSY) -> str:
    formatted, _ = format_text(text, "x.kad")
    assert formatted is not None
    return formatted


def test_the_messy_sample_is_not_canonical_and_formatting_is_idempotent():
    assert canonical() != MESSY
    assert canonical(canonical()) == canonical()


def test_default_prints_one_formatted_file(run):
    path = run.write("a.kad", MESSY)
    result = run("fmt", "a.kad")
    assert result.exit_code == 0, result.output
    assert result.stdout == canonical()
    assert path.read_text() == MESSY


def test_default_refuses_several_files(run):
    run.write("a.kad", MESSY)
    run.write("b.kad", MESSY)
    assert run("fmt", "a.kad", "b.kad").exit_code == 2
    folder = run("fmt", ".")
    assert folder.exit_code == 2 and "--check, --diff or --write" in folder.stderr


def test_default_with_a_parse_error_prints_diagnostics_only(run):
    run.write("a.kad", BROKEN)
    result = run("fmt", "a.kad")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "--> a.kad:" in result.stderr


def test_check_lists_files_that_would_change(run):
    run.write("p/messy.kad", MESSY)
    run.write("p/tidy.kad", canonical())
    result = run("fmt", "--check", "p")
    assert result.exit_code == 1
    assert result.stdout == "would reformat p/messy.kad\n"
    assert "1 file would be reformatted, 1 already formatted" in result.stderr
    assert (run.root / "p/messy.kad").read_text() == MESSY


def test_check_passes_when_everything_is_formatted(run):
    run.write("tidy.kad", canonical())
    result = run("fmt", "--check", "tidy.kad")
    assert result.exit_code == 0 and result.stdout == ""


def test_diff_prints_a_unified_diff(run):
    run.write("a.kad", MESSY)
    result = run("fmt", "--diff", "a.kad")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/a.kad\n+++ b/a.kad\n@@ ")
    assert (run.root / "a.kad").read_text() == MESSY


def test_write_rewrites_changed_files_only_and_keeps_the_mode(run):
    messy = run.write("p/messy.kad", MESSY)
    tidy = run.write("p/tidy.kad", canonical())
    os.chmod(messy, 0o600)
    before = tidy.stat().st_ino
    result = run("fmt", "--write", "p")
    assert result.exit_code == 0, result.output
    assert result.stdout == "reformatted p/messy.kad\n"
    assert messy.read_text() == canonical()
    assert stat.S_IMODE(messy.stat().st_mode) == 0o600
    assert tidy.stat().st_ino == before
    assert run("fmt", "--check", "p").exit_code == 0


def test_write_with_a_parse_error_anywhere_writes_nothing(run):
    messy = run.write("p/messy.kad", MESSY)
    run.write("p/broken.kad", BROKEN)
    result = run("fmt", "--write", "p")
    assert result.exit_code == 1
    assert messy.read_text() == MESSY
    assert "--> p/broken.kad:" in result.stderr and "nothing written" in result.stderr
    checked = run("fmt", "--check", "p")
    assert checked.exit_code == 1 and checked.stdout == "would reformat p/messy.kad\n"
    assert "1 file would be reformatted, 0 already formatted, 1 not parsed" in checked.stderr


def test_write_failure_leaves_the_original_intact(run, monkeypatch):
    messy = run.write("a.kad", MESSY)

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    result = run("fmt", "--write", "a.kad")
    assert result.exit_code == 2
    assert "error[KAD006]: can't write `a.kad`: No space left on device" in result.stderr
    assert messy.read_text() == MESSY
    assert sorted(os.listdir(run.root)) == ["a.kad"]


def test_folders_skip_manifests_but_named_manifests_are_refused(run):
    run.write("p/a.kad", canonical())
    run.write("p/queues.yaml", "kind: ClusterQueue\n")
    assert run("fmt", "--check", "p").exit_code == 0
    named = run("fmt", "--check", "p/queues.yaml")
    assert named.exit_code == 2 and "error[KAD005]" in named.stderr


@pytest.mark.parametrize("setup, code", [
    (lambda r: r.write("bin.kad", b"\x00\x01"), "KAD002"),
    (lambda r: None, "KAD001"),
    (lambda r: (r.root / "bin.kad").mkdir(), "KAD004"),
])
def test_unreadable_input_exits_2(run, setup, code):
    setup(run)
    result = run("fmt", "--check", "bin.kad")
    assert result.exit_code == 2
    assert f"error[{code}]" in result.stderr


def test_modes_are_exclusive(run):
    run.write("a.kad", MESSY)
    result = run("fmt", "--check", "--write", "a.kad")
    assert result.exit_code == 2 and "can't be combined" in result.stderr


def test_api_fmt_reports_each_file(run):
    run.write("b.kad", MESSY)
    run.write("a.kad", canonical())
    result = api.fmt(["."], "check")
    assert [f.path for f in result.files] == ["a.kad", "b.kad"]
    assert [f.changed for f in result.files] == [False, True]
    assert result.files[1].diff().startswith("--- a/b.kad")
    assert result.files[0].diff() == ""
    with pytest.raises(ValueError):
        api.fmt(["."], "inplace")  # type: ignore[arg-type]
