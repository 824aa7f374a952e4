"""Where files live (XDG base directories) and how they are written safely."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _xdg(variable: str, default: str) -> Path:
    # The XDG spec says a relative value is invalid and must be ignored.
    value = os.environ.get(variable, "")
    base = Path(value) if value and os.path.isabs(value) else Path.home() / default
    return base / "musical"


def state_dir() -> Path:
    """``$XDG_STATE_HOME/musical`` (default ``~/.local/state/musical``): the shell's history."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def data_dir() -> Path:
    """``$XDG_DATA_HOME/musical`` (default ``~/.local/share/musical``): saved games."""
    return _xdg("XDG_DATA_HOME", ".local/share")


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one, never half:
    a temporary file in the same directory (so the rename stays on one file system), flushed and
    synced, then renamed over the target."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode & 0o7777  # an overwritten file keeps its permissions
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # mkstemp's 0600 would make a shared transcript private
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_limited(path: Path | str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a file, so an oversized file is noticed without reading it
    whole. ``-`` is standard input."""
    import sys

    if str(path) == "-":
        return sys.stdin.buffer.read(limit + 1)
    with open(path, "rb") as f:
        return f.read(limit + 1)
