"""Ctrl-C during ``musical stats``: any number of presses, quick or slow, ends
in the report and exit status 130, with no traceback (none from an atexit callback either) and no
worker process left behind.

The program runs in a session of its own, and SIGINT goes to its whole process group, as a
terminal sends it to the foreground job: the workers receive it too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(entry))
    return out


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def start(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "MUSICAL_DEBUG"}
    return subprocess.Popen([sys.executable, "-m", "musical_cli", "stats", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)


def wait_for_workers(proc, count: int, limit: float = 30.0) -> set[int]:
    """The worker processes of ``proc`` (a Popen or a pexpect child), once ``count`` run."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        kids = children(proc.pid)
        if len(kids) >= count:
            return kids
        assert proc.isalive() if hasattr(proc, "isalive") else proc.poll() is None, "the run ended early"
        time.sleep(0.05)
    raise AssertionError(f"no {count} workers after {limit} s")


def press(proc: subprocess.Popen, times: int, gap: float) -> None:
    for k in range(times):
        if k:
            time.sleep(gap)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            return


def finish(proc: subprocess.Popen, workers: set[int]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"still running 30 s after Ctrl-C; stderr: {err}") from None
    deadline = time.monotonic() + 5
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in workers if os.path.exists(f"/proc/{pid}")]
    if group_alive(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError(f"worker processes survived the run: {survivors}")
    return proc.returncode, out, err


@pytest.mark.parametrize("times, gap", [(1, 0.0), (2, 0.05), pytest.param(5, 0.01, marks=pytest.mark.slow),
                                        pytest.param(3, 0.4, marks=pytest.mark.slow)])
def test_ctrl_c_pressed_many_times(times, gap):
    # One redeal: deals 1-400 take minutes, so the run is in full swing when Ctrl-C comes.
    proc = start("1-400", "--redeals", "1", "--workers", "2")
    workers = wait_for_workers(proc, 2)
    time.sleep(0.5)
    press(proc, times, gap)
    status, out, err = finish(proc, workers)
    assert status == 130, (out, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "interrupted: the deals finished so far" in " ".join(out.split())  # wrapped at 80
    assert "won" in out and "seconds per deal" in out


@pytest.mark.slow  # a long process scenario
def test_ctrl_c_while_the_blind_player_plays():
    proc = start("1-400", "--game", "calculation", "--player", "blind", "--workers", "2", "--json")
    workers = wait_for_workers(proc, 2)
    time.sleep(1.0)
    press(proc, 3, 0.05)
    status, out, err = finish(proc, workers)
    assert status == 130, (out, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert '"player": "blind"' in out


@pytest.mark.slow  # a long process scenario
def test_ctrl_c_in_one_process():
    proc = start("1-400", "--redeals", "1", "--workers", "1")
    time.sleep(1.5)
    press(proc, 4, 0.03)
    status, out, err = finish(proc, set())
    assert status == 130, (out, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "interrupted: the deals finished so far" in " ".join(out.split())  # wrapped at 80


@pytest.mark.slow
def test_ctrl_c_keeps_the_results_file_sound(tmp_path):
    """Interrupted with --out, the file holds whole lines only, and the same command resumes."""
    out_file = tmp_path / "r.jsonl"
    # --budget, not --nodes: half a second a deal keeps the run going until the Ctrl-C on any
    # machine, and the resumed run ends soon; only counts are asserted
    proc = start("1-60", "--redeals", "1", "--workers", "2", "--budget", "0.5", "--out", str(out_file))
    workers = wait_for_workers(proc, 2)
    time.sleep(1.5)
    press(proc, 2, 0.05)
    status, out, err = finish(proc, workers)
    assert status == 130, (out, err)
    data = out_file.read_bytes()
    assert data == b"" or data.endswith(b"\n")
    done = data.count(b"\n")
    assert f"{done} deal" in out
    proc = start("1-60", "--redeals", "1", "--workers", "2", "--budget", "0.5", "--out", str(out_file), "--json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert '"deals": 60' in out
    assert out_file.read_bytes().count(b"\n") == 60


@pytest.mark.parametrize("presses, gap", [(2, 0.05), pytest.param(2, 0.3, marks=pytest.mark.slow),
                                          pytest.param(4, 0.05, marks=pytest.mark.slow)])
def test_ctrl_c_at_a_terminal(presses, gap):
    """At a terminal the progress bar reads the keyboard: Ctrl-C is a key there, which the bar
    turns into SIGINT for this process alone. Two quick presses once printed the report and then
    hung for ever; a third printed a traceback from an atexit callback."""
    terminal = pytest.importorskip("terminal")  # (needs pexpect)
    pexpect = terminal.pexpect
    child = terminal.spawn("stats", "1-400", "--redeals", "1", "--workers", "2", timeout=30)
    try:
        workers = wait_for_workers(child, 2)
        child.expect("deals")  # the bar is drawn
        time.sleep(2.0)  # the workers deep in their deals (the hang needed that)
        for k in range(presses):
            if k:
                time.sleep(gap)
            child.sendcontrol("c")
        child.expect(pexpect.EOF, timeout=30)
        text = child.before
    finally:
        child.close(force=True)
    assert child.exitstatus == 130, text
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert "interrupted: the deals finished so far" in " ".join(text.split())  # wrapped at 80
    deadline = time.monotonic() + 5
    while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]
