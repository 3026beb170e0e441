"""`git:REV[:PATH]` -> a folder holding that revision's files (git's own commands, no shell)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from kadmit.diagnostics import Diagnostics
from kadmit.review.codes import KAD805

GIT_PREFIX = "git:"
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=120, check=False)


def materialize(spec: str, into: Path, diags: Diagnostics) -> Path | None:
    """The folder for `spec`: itself for a path; for `git:REV[:PATH]`, REV's PATH (from the
    repository's root) of the repository in the working directory, extracted under `into`."""
    if not spec.startswith(GIT_PREFIX):
        return Path(spec)
    rev, _, path = spec[len(GIT_PREFIX):].partition(":")
    path = path.strip("/")
    if not rev or rev.startswith("-") or any(c in rev for c in "\0\n"):
        diags.emit(KAD805, f"`{spec}` names no revision", help="write `git:REV` or `git:REV:PATH`, e.g. `git:main`")
        return None
    try:
        top = _git(["rev-parse", "--show-toplevel"], Path.cwd())
        if top.returncode != 0:
            diags.emit(KAD805, "the working directory is not in a git repository",
                       help=f"run kadmit diff from the repository that holds `{spec}`")
            return None
        root = Path(top.stdout.decode().strip())
        sha = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], root)
        if sha.returncode != 0:
            diags.emit(KAD805, f"no revision `{rev}` in the repository at `{root}`")
            return None
        commit = sha.stdout.decode().strip()
        args = ["archive", "--format=tar", commit]
        if path:
            args += ["--", path]
        arch = _git(args, root)
    except (OSError, subprocess.TimeoutExpired) as e:
        diags.emit(KAD805, f"can't run git for `{spec}`: {e}")
        return None
    if arch.returncode != 0:
        diags.emit(KAD805, f"no path `{path}` in revision `{rev}`",
                   help="PATH is from the repository's root: `git:REV:examples/ml-platform`")
        return None
    if len(arch.stdout) > MAX_ARCHIVE_BYTES:
        diags.emit(KAD805, f"`{spec}` is larger than kadmit reads ({MAX_ARCHIVE_BYTES:,} bytes)")
        return None
    dest = into / f"{GIT_PREFIX}{rev}"
    dest.mkdir(parents=True, exist_ok=True)  # named for the revision: spans read `…/git:REV/PATH/file`
    with tarfile.open(fileobj=io.BytesIO(arch.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest / path if path else dest
