"""`kadmit export` and `kadmit import` on the command line: what they write, their diagnostics, exit codes."""

from __future__ import annotations

POLICY = """flavor f {}
cluster_queue q { resources cpu { flavor f { cpu = 4 } } }
local_queue team-a/main -> q
"""
UNENFORCED = "require on-f: flavor == f\n"
ENFORCED = "forbid no-big: pod_group.max_count > 8\n"


def test_export_writes_and_the_import_reads_it_back(run) -> None:
    run.write("p.kad", POLICY + ENFORCED)
    got = run("export", "p.kad", "--output", "out")
    assert got.exit_code == 0, got.output
    assert "wrote out/05-resource-flavors.yaml" in got.output
    assert (run.root / "out" / "09-validating-admission-policies.yaml").is_file()
    back = run("import", "out", "-o", "kad")
    assert back.exit_code == 0, back.output
    assert "forbid no-big: pod_group.max_count > 8" in (run.root / "kad" / "rules.kad").read_text()
    assert run("fmt", "--check", "kad").exit_code == 0


def test_an_unenforced_rule_fails_the_export_unless_allowed(run) -> None:
    run.write("p.kad", POLICY + UNENFORCED)
    got = run("export", "p.kad", "--output", "out")
    assert got.exit_code == 1 and "error[KAD902]" in got.output and not (run.root / "out").exists()
    got = run("export", "p.kad", "--output", "out", "--allow-unenforced")
    assert got.exit_code == 0 and "warning[KAD902]" in got.output


def test_unusable_output_and_input(run) -> None:
    run.write("p.kad", POLICY)
    run.write("file", "x")
    got = run("export", "p.kad", "--output", "file")
    assert got.exit_code == 2 and "KAD904" in got.output
    run.write("bad.kad", "cluster_queue q { cohort = }\n")
    assert run("export", "bad.kad", "--output", "out").exit_code == 2
    assert run("import", "bad.kad", "--output", "out").exit_code == 2
    assert not (run.root / "out").exists()
