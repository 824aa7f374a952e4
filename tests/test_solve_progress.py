"""``musical solve`` shows a progress line on standard error while it searches, when standard
error is a terminal, and wipes it before the answer; nothing when it is not a terminal. No
wall-clock time is asserted: --budget only makes the search long enough to report."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from terminal import child_env, pexpect, spawn

# Calculation with 3 piles, deal 21: undecided at 200,000,000 nodes (docs/calculation-solver.md),
# so --budget always stops it, with the C core or without. (Deal 1 was used once: its win at
# 2,836,657 nodes takes the C core under 2 s, which a search stopped at 1.5 s may or may not reach.)
LONG = ["solve", "--game", "calculation", "--piles", "3", "--seed", "21"]
# --budget, not --nodes, below: the progress line is drawn every so many seconds, so the search
# must last seconds on any machine, however fast; its answer (unknown) is the same either way.
LINE = re.compile(r"\rsearching: [\d,]+ positions, \d+\.\d s \(Ctrl-C stops\)")


def test_a_terminal_sees_the_search_going_and_the_line_wiped(tmp_path):
    out = tmp_path / "out"
    child = spawn(*LONG, "--budget", "1.5", stdout=out, timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 4
    err = child.before
    assert LINE.search(err), repr(err)
    widest = max(len(m.group()) for m in LINE.finditer(err))
    # wiped, and the two columns a terminal's "^C" would take after it: the answer starts clean
    assert err.endswith("\r" + " " * (widest - 1 + 2) + "\r")
    assert "\x1b" not in err  # no escape code: a dumb terminal shows it as well
    assert out.read_text() == "unknown\n"  # and none of it on standard output


def test_ctrl_c_wipes_it_too(tmp_path):
    child = spawn(*LONG, "--budget", "60", stdout=tmp_path / "out", timeout=60)
    child.expect(LINE)
    child.sendintr()
    child.expect_exact("musical: interrupted")
    assert " \r" in child.before  # wiped (the terminal's own echo of ^C may come before or after)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


@pytest.mark.slow  # a long process scenario
def test_nothing_when_standard_error_is_not_a_terminal():
    p = subprocess.run([sys.executable, "-m", "musical_cli", *LONG, "--budget", "1.5"], capture_output=True,
                       text=True, env=child_env(), timeout=60)
    assert p.returncode == 4 and p.stdout == "unknown\n"
    assert p.stderr == ""


def solve_on_a_terminal(*args: str) -> tuple[int, str]:
    """musical solve with standard output on an 80-column pseudo-terminal and standard error not:
    a search slow enough to show its progress line (a loaded machine) must not change the answer
    read here, and the progress line is tested above."""
    child = spawn("solve", *args, stderr="/dev/null", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before.replace("\r\n", "\n")


def test_a_person_is_told_what_lost_and_unknown_mean():
    # Deal 117 at one redeal: rule 8 proves it lost at the opening (docs/crazy-quilt-solver.md).
    status, out = solve_on_a_terminal("--game", "crazy-quilt", "--seed", "117")
    assert (status, out) == (1, "lost: deal 117 cannot be won (proven; 1 position searched)\n")
    # Deal 175 is undecided at 3,000,000 nodes; 20,000 stop it, and --nodes is what is named.
    status, out = solve_on_a_terminal("--game", "crazy-quilt", "--seed", "175", "--nodes", "20000")
    assert status == 4
    assert out.startswith("unknown: no win found and no loss proven in 2")
    assert "a larger --nodes searches further" in " ".join(out.split())
    assert all(len(line) < 80 for line in out.splitlines())  # wrapped between words to the width


def test_a_pipe_gets_the_bare_word():
    p = subprocess.run([sys.executable, "-m", "musical_cli", "solve", "--game", "crazy-quilt", "--seed", "117"],
                       capture_output=True, text=True, env=child_env(), timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (1, "lost\n", "")
