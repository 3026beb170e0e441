"""Every verb says the same of a path it can't use (KAD001, exit 2), and an input that holds nothing
kadmit reads is said to be so (KAD020 per file, KAD004, exit 2), never "0 of 0" in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "ml-platform-kueue")

# Each verb with its arguments around one input path (`{}`); output options where a verb needs one
VERBS = [
    ("check", "{}"),
    ("admit", "{}"),
    ("why", "team-a/job", "{}"),
    ("simulate", "{}"),
    ("test", "{}"),
    ("fmt", "{}"),
    ("export", "{}", "-o", "out"),
    ("import", "{}", "-o", "out"),
    ("export", "{}"),  # without -o: the input is said first, not click's "missing option"
    ("import", "{}"),
    ("diff", EXAMPLE, "{}"),
    ("simulate", EXAMPLE, "--trace", "{}"),
    ("simulate", EXAMPLE, "--nodepool", "{}"),
    ("simulate", EXAMPLE, "--sweep", "{}"),
]


def _args(verb: tuple[str, ...], path: str) -> list[str]:
    return [path if a == "{}" else a for a in verb]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: "-".join(a for a in v if a not in ("{}", EXAMPLE)))
def test_a_missing_path_is_kad001_exit_2(run, verb):
    result = run(*_args(verb, "nowhere/at-all.yaml"))
    assert result.exit_code == 2, result.output
    assert "error[KAD001]: no such file or folder: `nowhere/at-all.yaml`" in result.output
    assert "Usage:" not in result.output and "Error:" not in result.output


@pytest.mark.parametrize("option", ["--trace", "--nodepool", "--sweep"])
def test_a_folder_where_a_file_is_expected_says_so(run, option):
    (run.root / "folder").mkdir()
    result = run("simulate", EXAMPLE, option, "folder")
    assert result.exit_code == 2, result.output
    assert "error[KAD001]: can't read `folder`: a folder, where a file is expected" in result.output


def test_a_test_path_that_is_no_file_nor_folder(run):
    result = run("test", "/dev/null")
    assert result.exit_code == 2, result.output
    assert "error[KAD001]: can't read `/dev/null`: not a file or folder" in result.output


@pytest.mark.parametrize("verb", ["export", "import"])
def test_a_missing_output_folder_is_a_diagnostic(run, verb):
    result = run(verb, EXAMPLE)
    assert result.exit_code == 2, result.output
    assert "error[KAD904]: no output folder given" in result.output
    assert "--output FOLDER" in result.output


@pytest.mark.parametrize("name, text", [
    ("notes.txt", ""),
    ("only-comments.yaml", "# nothing here yet\n---\n"),
    ("empty.json", "{}\n"),
])
@pytest.mark.parametrize("verb", [("admit",), ("why", "team-a/job"), ("simulate",)])
def test_nothing_usable_is_said_and_exits_2(run, name, text, verb):
    run.write(name, text)
    result = run(*verb, name)
    assert result.exit_code == 2, result.output
    assert "0 of 0" not in result.output
    assert "error[KAD004]: nothing to decide" in result.output
    assert f"note[KAD020]: not read" in result.output and f"--> {name}:1:1" in result.output
    # check passes such input (nothing in it is wrong), so admit does not send the reader to check for errors
    assert "`kadmit check` lists them" not in result.output
    assert run("check", name).exit_code == 0


def test_an_unknown_extension_named_is_read_and_an_empty_one_noted(run):
    run.write("notes.txt", "# to do\n")
    result = run("admit", "notes.txt")
    assert "`notes.txt` holds no object: it is empty, or only comments (a `.txt` file named on the command line " \
           "is read as YAML)" in result.output


def test_an_empty_file_beside_real_input_is_a_note_and_admit_decides(run):
    run.write("empty.yaml", "")
    result = run("admit", EXAMPLE, "empty.yaml")
    assert result.exit_code == 0, result.output
    assert "of 9 pending workloads admitted" in result.output
    listed = run("check", EXAMPLE, "empty.yaml")
    assert "note[KAD020]: not read: `empty.yaml` holds no object" in listed.output


def test_admit_wraps_placement_lines_to_columns(run):
    whole = run("admit", EXAMPLE).output  # no terminal, no $COLUMNS: every line whole
    placed = whole.split("placement (topology-aware):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert any(len(line) > 70 for line in placed)
    fitted = run("admit", EXAMPLE, env={"COLUMNS": "70"}).output
    block = fitted.split("placement (topology-aware):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert all(len(line) <= 70 for line in block), block
    assert [b.startswith("  ") and not b.startswith("   ") for b in block].count(True) == len(placed)
    assert " ".join(b.strip() for b in block).split() == " ".join(placed).split()  # every word kept, in order


def test_admit_says_in_its_summary_when_a_setting_it_does_not_model_is_set(run):
    """A Configuration Kueue runs with waitForPodsReady: the warning names the field (KAD161) and the
    summary says Kueue's answer may differ; without it the summary says nothing of the kind."""
    queue = ("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f0}\n")
    config = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
    run.write("on/c.yaml", config + "waitForPodsReady: {timeout: 5m}\n" + queue)
    run.write("off/c.yaml", config + queue)
    run.write("two/c.yaml", config + "waitForPodsReady: {timeout: 5m}\nfeatureGates: {SchedulerLongRequeueInterval: true}\n" + queue)
    on, off, two = run("admit", "on"), run("admit", "off"), run("admit", "two")
    assert on.exit_code == off.exit_code == two.exit_code == 0
    assert "the input sets 2 settings kadmit does not model (KAD161)" in two.output
    assert "`waitForPodsReady` of `Configuration` is not modelled" in on.output
    assert "the input sets a setting kadmit does not model (KAD161): Kueue's answer may differ" in on.output
    assert "KAD161" not in off.output and "may differ" not in off.output


def test_files_are_named_from_the_working_directory_of_the_moment(tmp_path: Path, monkeypatch) -> None:
    """display_name keeps the working directory's resolved path per directory: a file is named relative to the
    directory the process is in when asked, through symbolic links, after each change of directory."""
    from kadmit.workspace import display_name

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    f = tmp_path / "a" / "b" / "f.yaml"
    for where, via, name in [("a", f, "b/f.yaml"), ("a/b", f, "f.yaml"), ("link", tmp_path / "link" / "b" / "f.yaml",
                             "b/f.yaml"), ("link/b", f, "f.yaml"), (".", f, "a/b/f.yaml"), ("a/b", f, "f.yaml")]:
        monkeypatch.chdir(tmp_path / where)
        assert display_name(via) == name
        assert display_name(via) == via.resolve().relative_to(Path.cwd().resolve()).as_posix()
    monkeypatch.chdir(tmp_path / "a" / "b")
    assert display_name(tmp_path / "elsewhere.yaml") == (tmp_path / "elsewhere.yaml").as_posix()
