"""Where files live and how they are written (musical_cli.files): the atomic write that a failure
cannot leave half done (issue 4), the bounded read, and the XDG base directories."""

from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

import pytest

from musical_cli import files
from musical_cli.files import atomic_write, data_dir, read_limited, state_dir

OLD = "format: musical-transcript 1\ngame: musical\ndeal: 1\nredeals: 2\nd\n"
NEW = "format: musical-transcript 1\ngame: musical\ndeal: 2\nredeals: 2\nd\nd\nw f1\n# ünïcødé ♣\n"


# --- atomic_write ---------------------------------------------------------------------------------


def test_atomic_write_writes_the_text(tmp_path):
    path = tmp_path / "game.txt"
    atomic_write(path, NEW)
    assert path.read_bytes() == NEW.encode("utf-8")
    assert os.listdir(tmp_path) == ["game.txt"]


def test_atomic_write_replaces_an_old_file(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(OLD, encoding="utf-8")
    atomic_write(path, NEW)
    assert path.read_text(encoding="utf-8") == NEW
    assert os.listdir(tmp_path) == ["game.txt"]


def test_atomic_write_takes_a_string_path_and_keeps_line_feeds(tmp_path):
    path = tmp_path / "game.txt"
    atomic_write(str(path), "d\nd\n")
    assert path.read_bytes() == b"d\nd\n"  # never CRLF, whatever the platform
    atomic_write(path, "")
    assert path.read_bytes() == b""


def _fail(*args, **kwargs):
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("where", ["fsync", "replace"])
@pytest.mark.parametrize("existed", [True, False])
def test_a_failure_during_the_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, where, existed):
    path = tmp_path / "game.txt"
    if existed:
        path.write_text(OLD, encoding="utf-8")
    monkeypatch.setattr(files.os, where, _fail)
    with pytest.raises(OSError):
        atomic_write(path, NEW)
    monkeypatch.undo()
    if existed:
        assert path.read_text(encoding="utf-8") == OLD
        assert os.listdir(tmp_path) == ["game.txt"]
    else:
        assert os.listdir(tmp_path) == []


def test_a_failure_while_writing_the_text_keeps_the_old_file(tmp_path):
    """A real failure, not a mocked one: text that UTF-8 cannot encode (a lone surrogate) fails in
    the middle of writing, after part of the text may have reached the temporary file."""
    path = tmp_path / "game.txt"
    path.write_text(OLD, encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(path, "d\n" * 50_000 + "\ud800\n")
    assert path.read_text(encoding="utf-8") == OLD
    assert os.listdir(tmp_path) == ["game.txt"]


def test_an_interrupt_during_the_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "game.txt"
    path.write_text(OLD, encoding="utf-8")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, NEW)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == OLD
    assert os.listdir(tmp_path) == ["game.txt"]


def test_the_text_is_synced_before_the_rename(tmp_path, monkeypatch):
    """The order that makes the write atomic: the temporary file in the same directory is
    written, flushed and synced, and only then renamed over the target."""
    path = tmp_path / "game.txt"
    path.write_text(OLD, encoding="utf-8")
    events: list[tuple] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.fstat(fd).st_size))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", Path(src).parent, Path(dst)))
        assert path.read_text(encoding="utf-8") == OLD  # the target untouched until now
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    atomic_write(path, NEW)
    assert events == [("fsync", len(NEW.encode())), ("replace", tmp_path, path)]


def test_a_missing_directory_is_an_error_that_creates_nothing(tmp_path):
    with pytest.raises(OSError):
        atomic_write(tmp_path / "nowhere" / "game.txt", NEW)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_atomic_write_gives_the_usual_permissions(tmp_path):
    old_umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.txt"
        atomic_write(fresh, NEW)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        shared = tmp_path / "shared.txt"
        shared.write_text(OLD, encoding="utf-8")
        shared.chmod(0o644)
        atomic_write(shared, NEW)
        assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    finally:
        os.umask(old_umask)


# --- read_limited -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "limit", "expected"), [
    (100, 10, 11), (100, 99, 100), (100, 100, 100), (100, 1000, 100), (0, 5, 0), (5, 0, 1),
])
def test_read_limited_returns_at_most_limit_plus_one_bytes(tmp_path, size, limit, expected):
    path = tmp_path / "data"
    data = bytes(range(256)) * (size // 256 + 1)
    path.write_bytes(data[:size])
    got = read_limited(path, limit)
    assert got == data[:expected]
    assert read_limited(str(path), limit) == got


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_read_limited_stops_on_an_endless_file():
    assert read_limited("/dev/zero", 4096) == bytes(4097)


def test_read_limited_reads_standard_input_for_a_dash(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbfd\n" * 1000)))
    got = read_limited("-", 20)
    assert got == (b"\xef\xbb\xbfd\n" * 1000)[:21]


def test_read_limited_on_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        read_limited(tmp_path / "nowhere", 10)


# --- XDG base directories ---------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return home


def test_directories_default_under_home(home):
    assert data_dir() == home / ".local" / "share" / "musical"
    assert state_dir() == home / ".local" / "state" / "musical"


def test_absolute_xdg_variables_are_honoured(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert data_dir() == tmp_path / "data" / "musical"
    assert state_dir() == tmp_path / "state" / "musical"


@pytest.mark.parametrize("value", ["", "relative/dir", ".", "~/data", "data"])
def test_empty_or_relative_xdg_variables_are_ignored(home, monkeypatch, value):
    monkeypatch.setenv("XDG_DATA_HOME", value)
    monkeypatch.setenv("XDG_STATE_HOME", value)
    assert data_dir() == home / ".local" / "share" / "musical"
    assert state_dir() == home / ".local" / "state" / "musical"


def test_each_variable_governs_its_own_directory(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data" / "musical"
    assert state_dir() == home / ".local" / "state" / "musical"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert data_dir() == home / ".local" / "share" / "musical"
    assert state_dir() == tmp_path / "state" / "musical"


def test_the_directories_are_not_created_by_asking(home):
    data_dir()
    state_dir()
    assert list(home.iterdir()) == []
