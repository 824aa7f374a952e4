"""Issue 23: the real program in an 80x24 pseudo-terminal, in every game and variant: help, moves,
an illegal move, rules (through the pager), history, record and solve print no line wider than
80 columns (so the terminal never cut a word: the shell breaks lines between words itself), and
``q 7`` leaves the Crazy Quilt shell running."""

from __future__ import annotations

import sys

import pytest
from terminal import PROMPT, pexpect, screen_lines

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

# (arguments, an illegal move with a long answer, a deal 'solve' answers within a few seconds,
# the name the variant is shown by)
VARIANTS = [
    (["--seed", "1"], "w f1", "Musical deal 1"),
    (["--seed", "3", "--redeals", "1"], "redeal", "Musical with 1 redeal deal 3"),
    (["--game", "calculation", "--seed", "3"], "p1 f1", "Calculation deal 3"),
    (["--game", "calculation", "--seed", "3", "--piles", "3"], "p4 f1", "Calculation with 3 piles deal 3"),
    (["--game", "calculation", "--seed", "2", "--no-bases"], "w f4", "Calculation with no bases deal 2"),
    (["--game", "crazy-quilt", "--seed", "1"], "q45 f1", "Crazy Quilt deal 1"),
    (["--game", "crazy-quilt", "--seed", "1", "--redeals", "2"], "q11 f1", "Indian Carpet deal 1"),
    (["--game", "crazy-quilt", "--seed", "1", "--reserves"], "d", "Persian Rug deal 1"),
]
# Each game once in a bare 'pytest'; its other variants (seconds each) with the slow tests.
QUICK = ("Musical deal 1", "Calculation deal 3", "Crazy Quilt deal 1")


@pytest.mark.parametrize(("args", "illegal", "name"),
                         [v if v[2] in QUICK else pytest.param(*v, marks=pytest.mark.slow) for v in VARIANTS],
                         ids=[v[2] for v in VARIANTS])
def test_every_line_fits_80_columns(terminal, args, illegal, name):
    term = terminal(*args, timeout=60)  # 'solve' searches for its seconds (the shell's has no node limit)
    opening = term.until(PROMPT)[1]
    assert name in opening
    outputs = {}
    for command in ("help", "moves", illegal, "rules", "solve", "solve play", "history", "record", "help hint",
                    "stats", "stats all", "review"):
        outputs[command] = term.run(command)
    assert "your figures" in outputs["stats"]
    assert "played" in outputs["stats all"] or "no game recorded yet" in outputs["stats all"]
    assert "Moves in" in outputs["help"] and "legal" in outputs["moves"]
    assert "legal now" in outputs[illegal] or "no move is legal" in outputs[illegal]
    assert "Deal numbers" in outputs["rules"] or "deal" in outputs["rules"].lower()
    assert name.rsplit(" deal", 1)[0] in outputs["record"] or "recorded from its first move" in outputs["record"]
    assert "win" in outputs["solve"] or "undecided" in outputs["solve"]
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
    wide = [t for raw in term.seen for t in screen_lines(raw) if len(t) > 80]
    assert not wide, wide


def test_q_7_leaves_the_crazy_quilt_shell_running(terminal):
    term = terminal("--game", "crazy-quilt", "--seed", "1")
    term.until(PROMPT)
    out = term.run("q 7")
    assert "did you mean q7N?" in out
    assert term.child.isalive()
    assert "q78 f2" in term.run("moves")
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
