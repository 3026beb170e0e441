"""Progress is drawn on a terminal's stderr while `why` and `admit` work, and never on a pipe or with
JSON: each run here is a real process whose stderr is a pseudo-terminal, or a pipe."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KAD = "examples/ml-platform/"


def _run(args: list[str], tty: bool) -> tuple[int, str, str]:
    """`kadmit ARGS` with stdout on a pipe and stderr on a pseudo-terminal (`tty`) or a pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    if not tty:
        p = subprocess.run([sys.executable, "-m", "kadmit", *args], capture_output=True, text=True, cwd=ROOT,
                           env=env, timeout=300)
        return p.returncode, p.stdout, p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "kadmit", *args], stdout=subprocess.PIPE, stderr=slave, cwd=ROOT,
                         env=env)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not data:
                break
            chunks.append(data)
        elif p.poll() is not None:
            break
    out = p.stdout.read().decode() if p.stdout is not None else ""
    p.wait(timeout=300)
    os.close(master)
    return p.returncode, out, b"".join(chunks).decode(errors="replace")


def test_why_on_a_terminal_shows_cycles_and_proofs_on_stderr_only():
    code, out, err = _run(["why", "team-nlp/tokenize", KAD], tty=True)
    assert code == 1
    assert "scheduling cycles decided" in err and "changes decided again to prove fixes" in err
    assert "scheduling cycles" not in out and "error[KAD501]" in out


def test_why_on_a_pipe_or_as_json_shows_no_progress():
    code, out, err = _run(["why", "team-nlp/tokenize", KAD], tty=False)
    assert code == 1 and "error[KAD501]" in out
    assert err == ""
    code, out, err = _run(["why", "team-nlp/tokenize", KAD, "--format", "json"], tty=True)
    assert code == 1 and out.startswith("{")
    assert "scheduling cycles" not in err and "decided again" not in err


def test_admit_on_a_terminal_shows_cycles_and_on_a_pipe_nothing():
    code, out, err = _run(["admit", KAD], tty=True)
    assert code == 0 and "scheduling cycles decided" in err
    code, out, err = _run(["admit", KAD], tty=False)
    assert code == 0 and err == ""


def _read_all(fd: int, p: subprocess.Popen) -> bytes:
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif p.poll() is not None:
            break
    return b"".join(chunks)


def test_why_on_a_terminal_writes_its_first_lines_above_the_bars_and_the_whole_answer_as_a_pipe_gets_it():
    """stdout and stderr each on a pseudo-terminal: the answer comes in stages (`render.why.WhyStream`,
    each written where the bars were, which are drawn again below it) and adds up to a pipe's answer."""
    args = ["why", "team-vision/frame-extract", KAD, "--color", "never"]
    _, piped, _ = _run(args, tty=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    out_master, out_slave = pty.openpty()
    err_master, err_slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "kadmit", *args], stdout=out_slave, stderr=err_slave, cwd=ROOT,
                         env=env)
    os.close(out_slave)
    os.close(err_slave)
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(_read_all(err_master, p)))
    reader.start()
    out = _read_all(out_master, p).decode().replace("\r\n", "\n")
    p.wait(timeout=300)
    reader.join(timeout=60)
    os.close(out_master)
    os.close(err_master)
    assert p.returncode == 1 and out == piped
    assert "changes decided again to prove fixes" in b"".join(err).decode(errors="replace")
