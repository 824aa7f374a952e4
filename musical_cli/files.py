"""Where files live (XDG base directories) and how they are written safely."""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from pathlib import Path

from . import PROGRAM
from .i18n import _

try:
    import pwd
except ImportError:  # not on Windows
    pwd = None  # type: ignore[assignment]


class NoHomeError(OSError):
    """A path that needs a home directory, where there is none (or no such user)."""


def home() -> Path | None:
    """The home directory: ``$HOME`` when it is set to an absolute path, else the password
    database's entry for this user; None when neither gives one (a container's uid without an
    entry, and no HOME). An empty or relative HOME counts as unset: it must never make the
    files land in ``/`` or in whatever directory the program was started from."""
    value = os.environ.get("HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    if pwd is None:
        return None
    try:
        entry = pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, OSError):
        return None
    return Path(entry) if entry and os.path.isabs(entry) else None


def expand_user(text: str) -> Path:
    """A path as typed, with a leading ``~`` or ``~user`` expanded; NoHomeError when there is
    no such home (where Path.expanduser raises RuntimeError, or os.path.expanduser leaves the
    ``~`` in place, which would create a directory named ``~nosuchuser``)."""
    if not text.startswith("~"):
        return Path(text)
    user, _slash, rest = text[1:].partition("/")
    if not user:
        base = home()
        if base is None:
            raise NoHomeError(_("there is no home directory for '~' (HOME is not set)"))
    else:
        try:
            if pwd is None:
                raise KeyError(user)
            base = Path(pwd.getpwnam(user).pw_dir)
        except KeyError:
            # TRANSLATORS: {user!r}: a user name as typed after '~' in a path ('~{user}').
            raise NoHomeError(_("there is no user {user!r} for '~{user}'").format(user=user)) from None
    return base / rest if rest else base


def _xdg(variable: str, default: str) -> Path:
    # The XDG spec says an empty or relative value is invalid and must be ignored.
    value = os.environ.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value) / PROGRAM
    base = home()
    if base is None:
        # TRANSLATORS: {variable}: an environment variable's name (XDG_DATA_HOME, XDG_STATE_HOME ...).
        raise NoHomeError(_("there is no home directory (neither HOME nor {variable} is set)").format(
            variable=variable))
    return base / default / PROGRAM


def state_dir() -> Path:
    """``$XDG_STATE_HOME/musical`` (default ``~/.local/state/musical``): the shell's history."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def data_dir() -> Path:
    """``$XDG_DATA_HOME/musical`` (default ``~/.local/share/musical``): saved games."""
    return _xdg("XDG_DATA_HOME", ".local/share")


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/musical`` (default ``~/.config/musical``): the player's settings."""
    return _xdg("XDG_CONFIG_HOME", ".config")


# Temporary files are named ".NAME.XXXXXXXX.musical-tmp" (mkstemp's eight random characters),
# so that one left by a killed save is recognisably ours. STALE_SECONDS old, no save is still
# writing it (a save takes milliseconds); a younger one may be another process's save in flight.
TMP_SUFFIX = ".musical-tmp"
STALE_SECONDS = 60.0
_OURS = re.compile(r"\..+\.[a-z0-9_]{8}" + re.escape(TMP_SUFFIX))


def remove_stale_temporaries(directory: Path, name: str | None = None, now: float | None = None) -> list[str]:
    """Remove the temporary files of our naming left in ``directory`` by saves that did not
    finish (and, for the file ``name``, those of the older naming ``.NAME.XXXXXXXX.tmp``); the
    names removed. Best effort: a file that cannot be removed stays."""
    now = time.time() if now is None else now
    legacy = re.compile(re.escape(f".{name}.") + r"[a-z0-9_]{8}\.tmp") if name else None
    removed: list[str] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for entry in names:
        if not (_OURS.fullmatch(entry) or (legacy and legacy.fullmatch(entry))):
            continue
        full = os.path.join(directory, entry)
        try:
            st = os.lstat(full)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_SECONDS:
                os.unlink(full)
                removed.append(entry)
        except OSError:
            continue
    return removed


def _sync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable: without this a power cut can undo a save that
    was reported done. Some systems cannot open or sync a directory; the rename stands anyway."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one, never half:
    a temporary file in the same directory (so the rename stays on one file system), flushed and
    synced, then renamed over the target, and the directory synced.

    A symbolic link is written through: the file it points to is replaced, in that file's
    directory, and the link stays a link. A file with several hard links is overwritten in place
    (synced, but not atomic), since a rename would leave the other names on the old text."""
    path = Path(os.path.realpath(path))  # through every symbolic link, to the file itself
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        _write_in_place(path, text)
        return
    if st is not None:
        mode = st.st_mode & 0o7777  # an overwritten file keeps its permissions
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # mkstemp's 0600 would make a shared transcript private
    directory = str(path.parent)
    remove_stale_temporaries(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
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
    _sync_directory(directory)


def _write_in_place(path: Path, text: str) -> None:
    data = text.encode("utf-8")  # before truncating: text that cannot be encoded changes nothing
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def read_limited(path: Path | str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a file, so an oversized file is noticed without reading it
    whole. ``-`` is standard input."""
    import sys

    if str(path) == "-":
        return sys.stdin.buffer.read(limit + 1)
    with open(path, "rb") as f:
        return f.read(limit + 1)
