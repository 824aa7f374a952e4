"""Issue 23: the real program in an 80x24 pseudo-terminal, in every game and variant: help, moves,
an illegal move, rules (through the pager), history, record and solve print no line wider than
80 columns (so the terminal never cut a word: the shell breaks lines between words itself), and
``q 7`` leaves the Crazy Quilt shell running."""

from __future__ import annotations

import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

PROMPT = "musical>"
MORE = "space for more"
CPR = "\x1b[6n"
LINE_READ = "\x1b[?2004l"  # prompt_toolkit turns bracketed paste off once the line is read
# Escape sequences (CSI and the like), then what is left is text and line ends.
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x07")

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


class Terminal:
    def __init__(self, child):
        self.child = child
        self.seen: list[str] = []

    def until(self, *patterns: str) -> tuple[int, str]:
        """Wait for one of ``patterns`` (answering cursor-position requests); which, and what
        came before it."""
        before = []
        while True:
            i = self.child.expect_exact([*patterns, CPR])
            before.append(self.child.before)
            if i < len(patterns):
                text = "".join(before)
                self.seen.append(text)
                return i, text
            self.child.send("\x1b[24;1R")

    def run(self, command: str) -> str:
        """Type ``command``; what it printed up to the next prompt, through the pager's pages."""
        self.child.send(command + "\r")
        self.until(LINE_READ)  # the line as typed is redrawn (with the prompt) before the answer
        out = []
        while True:
            i, text = self.until(PROMPT, MORE)
            out.append(text)
            if i == 0:
                return "".join(out)
            self.child.send(" ")


def lines(raw: str) -> list[str]:
    """The terminal lines of raw output: split at line ends, carriage returns and the cursor's
    moves back or erasures (the pager erases its question and writes over it), escapes dropped."""
    return re.split(r"\r\n|\n|\r", ESCAPE.sub("", re.sub(r"\x1b\[[0-9]*[DJG]", "\r", raw)))


@pytest.fixture
def spawn(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MUSICAL_DEBUG", "PAGER")}
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               TERM="xterm")
    children = []

    def start(*args: str) -> Terminal:
        child = pexpect.spawn(sys.executable, ["-m", "musical_cli", *args], env=env, dimensions=(24, 80),
                              encoding="utf-8", timeout=60)
        children.append(child)
        return Terminal(child)

    yield start
    for child in children:
        if child.isalive():
            child.close(force=True)


@pytest.mark.parametrize(("args", "illegal", "name"), VARIANTS, ids=[v[2] for v in VARIANTS])
def test_every_line_fits_80_columns(spawn, args, illegal, name):
    term = spawn(*args)
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
    wide = [t for raw in term.seen for t in lines(raw) if len(t) > 80]
    assert not wide, wide


def test_q_7_leaves_the_crazy_quilt_shell_running(spawn):
    term = spawn("--game", "crazy-quilt", "--seed", "1")
    term.until(PROMPT)
    out = term.run("q 7")
    assert "did you mean q7N?" in out
    assert term.child.isalive()
    assert "q78 f2" in term.run("moves")
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)


def test_auto_on_plays_the_safe_moves_and_one_undo_takes_them_back(spawn):
    """Deal 1 of Musical: J♦ and 2♦ fit no foundation, so with 'auto on' the deal after the
    player's 'd' plays two more deals by itself (the only move each time); one 'undo' takes the
    three back."""
    term = spawn("--seed", "1")
    term.until(PROMPT)
    assert "auto is on" in term.run("auto on")
    out = term.run("d")
    assert "auto: d d" in out
    term.until("· 3 moves ·")
    assert "undid 3 moves" in term.run("undo")
    term.until("· 0 moves ·")
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)


def test_new_game_switches_game_completed_by_tab(spawn):
    term = spawn("--seed", "1")
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
    wide = [t for raw in term.seen for t in lines(raw) if len(t) > 80]
    assert not wide, wide


def test_the_toolbar_shows_the_active_time_and_it_ticks(spawn):
    term = spawn("--seed", "1")
    shown = " Musical deal 1 · pass 1 of 3 · 0 moves · 44 to build · time 0:0"
    term.until(shown)
    # Nothing typed, the toolbar is drawn again each second: prompt_toolkit rewrites only what
    # changed, the clock's last digit, moving the cursor to its column first.
    tick = re.compile(rf"\x1b\[{len(shown)}C(\x1b\[[0-9;]*m)*[2-9]")
    while term.child.expect([tick, re.escape(CPR)]) == 1:
        term.child.send("\x1b[24;1R")
    term.child.send("quit\r")
    term.child.expect(pexpect.EOF)
