"""Atomic file replacement: a complete new file or the old one, never a torn write."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_text_atomic(path: Path | str, text: str, *, encoding: str = "utf-8") -> None:
    """Replace `path` with `text`, keeping its permission bits.

    The text goes to a temporary file in the same folder (so the rename stays on one file
    system), is flushed and fsynced, then renamed over `path`. On any failure the temporary
    file is removed and `path` is untouched; the exception propagates.
    """
    import tempfile  # here, not at the top: with shutil it is 11 M instructions of `kadmit check`'s start-up

    path = Path(path)
    data = text.encode(encoding)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = _default_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Persist the rename itself; some platforms can't open folders, which is harmless."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
