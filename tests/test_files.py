"""Where files live and how they are written (musical_cli.files): the atomic write that a failure
cannot leave half done, the bounded read, and the XDG base directories."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import time
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
    written, flushed and synced, and only then renamed over the target; then the directory is
    synced."""
    path = tmp_path / "game.txt"
    path.write_text(OLD, encoding="utf-8")
    events: list[tuple] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        st = os.fstat(fd)
        events.append(("fsync directory",) if stat.S_ISDIR(st.st_mode) else ("fsync", st.st_size))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", Path(src).parent, Path(dst)))
        assert path.read_text(encoding="utf-8") == OLD  # the target untouched until now
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    atomic_write(path, NEW)
    # and the directory synced after the rename, so that a power cut cannot undo it
    assert events == [("fsync", len(NEW.encode())), ("replace", tmp_path, path), ("fsync directory",)]


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


# --- no home, an empty HOME, ~user ------------------------------------------------------------


@pytest.fixture
def no_passwd_entry(monkeypatch):
    """A uid without a password entry, as in many containers."""
    if files.pwd is None:
        pytest.skip("no password database here")

    def missing(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(files.pwd, "getpwuid", missing)


@pytest.mark.parametrize("value", ["", "relative"])
def test_an_empty_or_relative_home_is_unset_and_never_the_root(monkeypatch, no_passwd_entry, value):
    monkeypatch.setenv("HOME", value)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    assert files.home() is None
    for directory in (data_dir, state_dir):
        with pytest.raises(files.NoHomeError, match=r"no home directory \(neither HOME nor XDG_"):
            directory()


@pytest.mark.skipif(getattr(files, "pwd", None) is None, reason="needs a password database")
def test_an_empty_home_falls_back_to_the_password_entry(monkeypatch, tmp_path):
    class Entry:
        pw_dir = str(tmp_path / "from-passwd")

    monkeypatch.setattr(files.pwd, "getpwuid", lambda uid: Entry)
    monkeypatch.setenv("HOME", "")
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert data_dir() == tmp_path / "from-passwd" / ".local" / "share" / "musical"


def test_no_home_still_honours_absolute_xdg_variables(monkeypatch, no_passwd_entry, tmp_path):
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "musical"


def test_expand_user(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert files.expand_user("~") == tmp_path
    assert files.expand_user("~/x.txt") == tmp_path / "x.txt"
    assert files.expand_user("x~/y") == Path("x~/y")
    assert files.expand_user("./~x") == Path("./~x")
    with pytest.raises(files.NoHomeError, match="no user 'nosuchuser'"):
        files.expand_user("~nosuchuser/x.txt")


def test_expand_user_without_a_home(monkeypatch, no_passwd_entry):
    monkeypatch.delenv("HOME", raising=False)
    with pytest.raises(files.NoHomeError, match="no home directory"):
        files.expand_user("~/x.txt")
    monkeypatch.setenv("HOME", "")  # os.path.expanduser would make this /x.txt
    with pytest.raises(files.NoHomeError):
        files.expand_user("~/x.txt")


# --- links, stale temporary files ---------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_symbolic_link_is_written_through_to_its_target(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "real.txt"
    target.write_text(OLD, encoding="utf-8")
    here = tmp_path / "here"
    here.mkdir()
    link = here / "link.txt"
    link.symlink_to(target)
    atomic_write(link, NEW)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == NEW
    assert sorted(os.listdir(here)) == ["link.txt"] and sorted(os.listdir(elsewhere)) == ["real.txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    target = tmp_path / "real.txt"
    (tmp_path / "b").symlink_to(target)  # dangling until the first save
    (tmp_path / "a").symlink_to(tmp_path / "b")
    atomic_write(tmp_path / "a", OLD)
    atomic_write(tmp_path / "a", NEW)
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert target.read_text(encoding="utf-8") == NEW


def test_a_hard_link_is_not_split(tmp_path):
    first = tmp_path / "one.txt"
    first.write_text(OLD, encoding="utf-8")
    second = tmp_path / "two.txt"
    os.link(first, second)
    atomic_write(second, NEW)
    assert first.read_text(encoding="utf-8") == NEW == second.read_text(encoding="utf-8")
    assert os.stat(first).st_ino == os.stat(second).st_ino
    assert sorted(os.listdir(tmp_path)) == ["one.txt", "two.txt"]


def test_a_hard_linked_file_is_unchanged_by_text_that_cannot_be_written(tmp_path):
    first = tmp_path / "one.txt"
    first.write_text(OLD, encoding="utf-8")
    os.link(first, tmp_path / "two.txt")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(first, "d\n\ud800\n")
    assert first.read_text(encoding="utf-8") == OLD


def test_stale_temporary_files_of_our_naming_are_removed(tmp_path):
    old = time.time() - 3600
    stale = [".game.txt.abcd1234.musical-tmp", ".other.txt.zz_9yy00.musical-tmp",
             ".game.txt.k2j3h4g5.tmp"]  # an older musical's naming, for the file saved
    kept = [".game.txt.fresh123.musical-tmp",  # a save in flight, perhaps another process's
            ".other.txt.abcd1234.tmp",  # older naming, but another file's: perhaps not ours
            "notes.tmp", ".game.txt.TOOLONG123.musical-tmp", "game.txt.abcd1234.musical-tmp"]
    for name in stale + kept:
        (tmp_path / name).write_text("half a gam", encoding="utf-8")
        if name != ".game.txt.fresh123.musical-tmp":
            os.utime(tmp_path / name, (old, old))
    atomic_write(tmp_path / "game.txt", NEW)
    assert sorted(os.listdir(tmp_path)) == sorted(["game.txt", *kept])


def test_a_killed_save_leaves_a_temporary_that_the_next_save_removes(tmp_path):
    """A real kill -9 in the middle of a save (after the temporary file was written), then a
    later save: no temporary file stays."""
    code = ("import os, sys\n"
            "from musical_cli import files\n"
            "def killed(*args):\n"
            "    os.kill(os.getpid(), 9)\n"
            "files.os.replace = killed\n"
            "files.atomic_write(sys.argv[1], 'format: musical-transcript 1\\n')\n")
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "game.txt")], timeout=60)
    assert p.returncode == -9
    (left,) = os.listdir(tmp_path)
    assert left.startswith(".game.txt.")
    old = time.time() - 3600
    os.utime(tmp_path / left, (old, old))
    atomic_write(tmp_path / "game.txt", NEW)
    assert os.listdir(tmp_path) == ["game.txt"]
