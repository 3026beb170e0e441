"""Diagnostic codes of policy tests and diffs (KAD80x) and of test files' details (KAD81x)."""

from kadmit.diagnostics import register

KAD801 = register("KAD801", "invalid test file", "error",
                  "A policy test file (`*.kadtest.yaml`) doesn't have the expected shape: a mapping with a "
                  "`tests` list, each test a mapping with `name`, optional `given` and `expect`.")
KAD802 = register("KAD802", "unknown expectation", "error",
                  "A test expects an outcome kadmit doesn't know. A workload's expectation is one of "
                  "`admitted`, `not_admitted`, `preempted`, `not_preempted`, `never_admissible`, "
                  "`admissible`, alone or as a mapping with details.")
KAD803 = register("KAD803", "no tests found", "error",
                  "`kadmit test` was given paths that hold no `*.kadtest.yaml` file (exit 2). Run without "
                  "paths, it looks in the working directory, and finding none there is a note and exits 0: "
                  "the kadmit-test pre-commit hook passes on a repository with no policy tests.")
KAD804 = register("KAD804", "test setup invalid", "error",
                  "A test's `given` section names an object to remove that the policy doesn't have, or "
                  "adds text that doesn't parse; the test can't run.")
KAD805 = register("KAD805", "unreadable revision", "error",
                  "`kadmit diff` was given `git:REV[:PATH]` that git can't read in the working directory's "
                  "repository (no repository, unknown revision, or no such path in it).")
KAD810 = register("KAD810", "invalid expectation detail", "error",
                  "A detail of an expected outcome has the wrong type, so it could never be checked: "
                  "`cluster_queue`, `domain`, `reason` and `by` take a string; `flavors` a flavor name, or a "
                  "mapping of pod set to a flavor name (or of resource to flavor name); `counts` a whole number "
                  "of pods, or a mapping of pod set to a whole number; `nodes` and `blames` a string or a list "
                  "of strings; `borrowing` `true` or `false`. The test is left out, and the command exits 2.")
