"""Hypothesis profiles for the whole suite, chosen by HYPOTHESIS_PROFILE, else by KADMIT_CI.

- `ci` (under `KADMIT_CI`, which `.ci/run` sets): derandomized — every property draws the same examples
  on every run (seeded by a hash of the test), so CI passes or fails on the code, never on the draw; no
  example database (CI starts from a clean clone, and a saved failure would make two runs differ).
- `dev` (otherwise): random examples, so every local run explores new ones; a failure is saved in
  `.hypothesis/`, replayed first on the next runs until it passes, and printed with the blob for
  `@reproduce_failure`. Make a failure one run found a regression test: an `@example` or a named test.

Neither times anything: no deadline per example and no `too_slow` health check, so a busy machine
fails no property (a test's own `suppress_health_check` replaces the list: keep `too_slow` in it).
`HYPOTHESIS_PROFILE=ci` runs CI's examples locally. A test's own `@settings` override the profile's.
"""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The width kadmit fits text to comes from $COLUMNS off a terminal (cli_options.width): the tests set it where they
# mean it, and read no width from where they run (a shell that exports it, or pytest-xdist's workers, whose
# environment has COLUMNS=80 and LINES=24), so that every run prints the same text.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _no_width_inherited():
    """... nor hand one to a subprocess: GNU readline, once something in the run imports it, exports COLUMNS
    and LINES in the C environment, which os.environ does not see and a child process inherits (a `why`
    run in a subprocess then wraps at 80 columns)."""
    for name in ("COLUMNS", "LINES"):
        if name not in os.environ:
            os.unsetenv(name)
    yield


RAM_FOLDER = Path("/dev/shm")  # Linux's RAM file system, where fsync costs nothing


@pytest.fixture(scope="session")
def scratch_root(tmp_path_factory: pytest.TempPathFactory):
    """The folder `scratch` folders are made in, for tests that have kadmit write hundreds of files (`import`,
    `export`): each goes through kadmit.atomic, two fsyncs apiece (the file's and its folder's), about 6 ms each
    on this machine's disk (ext4) when it is quiet, and a worker waiting on a disk is a core idle. On a RAM file
    system (/dev/shm, where there is one to write to) the same writes cost nothing; elsewhere under the
    session's tmp_path_factory. Removed when the worker's session ends."""
    if RAM_FOLDER.is_dir() and os.access(RAM_FOLDER, os.W_OK | os.X_OK):
        with tempfile.TemporaryDirectory(dir=RAM_FOLDER, prefix="kadmit-tests-") as folder:
            yield Path(folder)
    else:
        yield tmp_path_factory.mktemp("scratch")


@pytest.fixture
def scratch(scratch_root: Path):
    """A temporary folder of `scratch_root` for one test, removed when it ends (the test names its inputs)."""
    folder = Path(tempfile.mkdtemp(dir=scratch_root))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **UNTIMED)
settings.register_profile("dev", print_blob=True, **UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("KADMIT_CI") else "dev"))


try:  # glibc: hand freed heap back to the system (malloc_trim); elsewhere nothing to do
    _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
except (OSError, AttributeError):
    _TRIM = None


TRIM_ABOVE_KB = 1 << 20  # resident memory (1 GiB) above which a test's end hands freed heap back


def _resident_kb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@pytest.fixture(autouse=True)
def _heap_returned():
    """After a test, the memory freed goes back to the system once the worker holds more than 1 GiB. The
    engine frees what it takes (60 feature files decided 5 times over end at the same heap), but glibc keeps
    freed pages at its high-water mark, so a pytest-xdist worker deciding hundreds of clusters grew to 5.5 GB
    resident (merge train 4, measured per test; tests/oracle/test_upstream.py alone 3 GB) and one was
    OOM-killed on a shared machine; trimmed, the same work holds about 66 MB."""
    yield
    if _TRIM is not None and _resident_kb() > TRIM_ABOVE_KB:
        gc.collect()
        _TRIM(0)


# a file that reads the answers another file's tests had decided (tests/oracle/differential: `answered`, and
# each_selected's paths decided before with as many runs): sent to the
# same worker, in the same unit of work, which runs it after that file (the order of collection)
AFTER = {"tests/oracle/test_reference.py": "tests/oracle/test_admit.py",
         "tests/oracle/test_pending_messages.py": "tests/oracle/test_admit.py"}


PER_TEST = 0.31  # seconds a test, in tests/durations.txt's run, beside its 80 slowest (2 x 1236 s, 1288 s in those 80, 3,886 tests)


def _file_seconds() -> dict[str, float]:
    """tests/durations.txt: seconds per test file, for the order of the files only."""
    out = {}
    for line in (Path(__file__).parent / "durations.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            seconds, name = line.split(maxsplit=1)
            out[name] = float(seconds)
    return out


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (`-n 2`, as .ci/run runs the suite), tests go to the workers a test file at a
    time (its module-scoped fixtures made once), and tests/kube/ all to one worker: one API server starts
    per run (tests/kube/conftest.py). tests/kube/ goes first, so that its waits on the server (its start, the
    example's objects created a second apart) overlap the other worker's work; then the files longest first,
    by tests/durations.txt and their number of tests, so that the run does not end on one worker with a long
    file started last (xdist's own order, most tests first, sent tests/oracle/test_reference.py's one test,
    the fourth longest file, 252nd of 264)."""
    from xdist.scheduler import LoadScopeScheduling

    kube = "tests/kube/"
    seconds = _file_seconds()

    class ByFileOneServer(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            return kube if nodeid.startswith(kube) else AFTER.get(file, file)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the first assignment: the whole collection is in the queue
                self.ordered = True
                cost = {scope: (scope != kube, -(seconds.get(scope, 0.0) + PER_TEST * len(tests)))
                        for scope, tests in self.workqueue.items()}
                for scope in sorted(self.workqueue, key=cost.__getitem__):
                    self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return ByFileOneServer(config, log)
