"""Issue 23: the real program in an 80x24 pseudo-terminal, in every game and variant: help, moves,
an illegal move, rules (through the pager), history, record and solve print no line wider than
80 columns (so the terminal never cut a word: the shell breaks lines between words itself), and
``q 7`` leaves the Crazy Quilt shell running."""

from __future__ import annotations

import re
import sys

import pytest
from terminal import PROMPT, pexpect, screen_lines

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

# (arguments, an illegal move with a long answer, a deal 'solve' answers within a few seconds,
# the name the variant is shown by)
VARIANTS = [
    (["--seed", "1"], "w f1", "Musical deal 1"),
    (["--seed", "3", "--redeals", "1"], "redeal", "Musical with 1 redeal, deal 3"),
    (["--game", "calculation", "--seed", "3"], "p1 f1", "Calculation deal 3"),
    (["--game", "calculation", "--seed", "3", "--piles", "3"], "p4 f1", "Calculation with 3 piles, deal 3"),
    (["--game", "calculation", "--seed", "2", "--no-bases"], "w f4", "Calculation with no bases, deal 2"),
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


def test_auto_on_plays_the_safe_moves_and_one_undo_takes_them_back(terminal):
    """Deal 1 of Musical: J♦ and 2♦ fit no foundation, so with 'auto on' the deal after the
    player's 'd' plays two more deals by itself (the only move each time); one 'undo' takes the
    three back."""
    term = terminal("--seed", "1")
    term.until(PROMPT)
    assert "auto is on" in term.run("auto on")
    out = term.run("d")
    assert "auto: d d" in out
    term.until("· 3 moves ·")
    assert "undid 3 moves" in term.run("undo")
    term.until("· 0 moves ·")
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)


def test_new_game_switches_game_completed_by_tab(terminal):
    term = terminal("--seed", "1")
    term.until(PROMPT)
    term.run("d")
    # Tab completes --game, then crazy-quilt (each drawn before the next key: a key typed while
    # the completion is found cancels it)
    term.child.send("new --ga\t")
    term.until("me")
    term.child.send(" cr\t")
    term.until("azy-quilt")
    term.child.send(" 5\r")
    term.until("End it? [y/N]")  # a game in play ends only with the player's word
    term.child.send("y\r")
    i, out = term.until(PROMPT)
    assert "Crazy Quilt, deal 5" in out
    term.until("Crazy Quilt deal 5 · pass 1 of 2 · 0 moves")
    assert re.search(r"legal: q\d\d", term.run("moves"))
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
    wide = [t for raw in term.seen for t in screen_lines(raw) if len(t) > 80]
    assert not wide, wide


@pytest.mark.slow  # it waits for the clock's second
def test_the_toolbar_shows_the_active_time_and_it_ticks(terminal):
    term = terminal("--seed", "1")
    shown = " Musical deal 1 · pass 1 of 3 · 0 moves · 44 to build · time 0:0"
    term.until(shown)
    # Nothing typed, the toolbar is drawn again each second: prompt_toolkit rewrites only what
    # changed, the clock's last digit, moving the cursor to its column first.
    tick = re.compile(rf"\x1b\[{len(shown)}C(\x1b\[[0-9;]*m)*[2-9]")
    term.expect(tick, exact=False)
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)


# The same screens in Russian: the words run longer, and every line must still fit.
RUSSIAN = {"LANG": "ru_RU.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}


@pytest.mark.parametrize(("args", "illegal", "name"),
                         [pytest.param(*v, marks=pytest.mark.slow) for v in VARIANTS],
                         ids=[v[2] for v in VARIANTS])
def test_every_line_fits_80_columns_in_russian(terminal, args, illegal, name):
    term = terminal(*args, timeout=60, **RUSSIAN)
    opening = term.until(PROMPT)[1]
    assert re.search("[а-яё]", opening, re.I), opening  # the title and the layout speak Russian
    outputs = {command: term.run(command)
               for command in ("help", "moves", illegal, "rules", "solve", "solve play", "history", "record",
                               "help hint", "stats", "stats all", "review")}
    for command in ("help", "rules", "stats", illegal):
        assert re.search("[а-яё]", outputs[command], re.I), (command, outputs[command])
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
    wide = [t for raw in term.seen for t in screen_lines(raw) if len(t) > 80]
    assert not wide, wide


def test_a_first_hint_in_crazy_quilt_gives_a_move(terminal):
    """Deal 21 after 'd;d;q38 w;q17 w;d': the first 'hint' names a move (proven, or a guess said
    as one), never only 'undecided'."""
    term = terminal("--game", "crazy-quilt", "--seed", "21")
    term.until(PROMPT)
    term.run("d;d;q38 w;q17 w;d")
    said = " ".join(term.run("hint").split())
    assert re.search(r"hint: (q\d\d|r\d|w|d)\S* ?\S*", said), said
    assert "a win in" in said or "a guess" in said, said
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
