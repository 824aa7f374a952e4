"""``musical replay`` on a terminal: forward (Enter, n, space), back (b, p), a move number, the
end (e, $), quit (q, Ctrl-D); quitting before the end says where it stopped and exits 4, not the
verdict of moves it did not show. On a pipe it prints it all (test_cli)."""

from __future__ import annotations

import sys

import pytest
from lines import winning_line
from terminal import Terminal, pexpect

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.notation import parse_move
from musical_cli.transcript import GameRecord, format_transcript

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

MOVES = len(winning_line(2))


@pytest.fixture
def won(tmp_path):
    record = GameRecord(MUSICAL, DealNumber(2), MusicalRules(), tuple(parse_move(m) for m in winning_line(2)))
    path = tmp_path / "won.txt"
    path.write_text(format_transcript(record, Outcome.WON), encoding="utf-8")
    return path


@pytest.fixture
def replay(terminal, won):
    """Starts ``musical replay`` on the won game (a new one each call)."""
    return lambda: Replay(terminal("replay", str(won)))


class Replay:
    def __init__(self, term: Terminal):
        self.term = term
        self.child = self.term.child
        self.log = self.term.log  # everything the child wrote
        self.shown = ""  # what came before the last prompt waited for
        self.go("", 0)

    def go(self, keys: str, move: int) -> None:
        """Type ``keys``, then wait for the prompt at ``move`` (prompt_toolkit also redraws the
        prompt it leaves, so the number tells the new prompt from that)."""
        self.child.send(keys)
        self.shown = self.term.expect(rf"move {move} of {MOVES}\b(, the end)?", exact=False)

    def end(self) -> tuple[str, int]:
        out = self.term.expect(pexpect.EOF)
        self.child.close()
        return out, self.child.exitstatus


def test_forward_back_a_number_and_the_end(replay):
    r = replay()
    assert "Musical deal 2" in r.shown
    r.go("\r", 1)
    assert "1. d" in r.shown
    r.go("n", 2)
    r.go(" ", 3)
    r.go("b", 2)
    r.go("p", 1)
    r.go("12\r", 12)
    assert f"12. {winning_line(2)[11]}" in r.shown and "12 moves" in r.shown
    r.go("0\r", 0)
    r.go("$", MOVES)
    assert f"won in {MOVES} moves" in r.shown  # the end shown: the verdict with it
    assert r.child.match.group(1) == ", the end"
    r.child.send("\r")  # Enter at the end quits
    out, status = r.end()
    assert status == 0


def test_e_then_back_then_q_gives_the_verdict_it_has_shown(replay):
    r = replay()
    r.go("e", MOVES)
    r.go("b", MOVES - 1)
    r.child.send("q")
    out, status = r.end()
    assert status == 0 and out.strip().endswith(f"won in {MOVES} moves")


@pytest.mark.parametrize("quit", ["q", "\x04"])  # q, Ctrl-D
def test_quitting_early_says_where_it_stopped_not_the_verdict(replay, quit):
    r = replay()
    r.go("n", 1)
    r.child.send(quit)
    out, status = r.end()
    assert f"stopped at move 1 of {MOVES}" in out
    assert status == 4
    assert "won in" not in r.log.getvalue()


def test_a_move_that_is_not_there_is_said_and_nothing_moves(replay):
    r = replay()
    r.child.send("999\r")
    r.child.expect_exact(f"there is no move 999: the moves are 0 to {MOVES}")
    r.go("", 0)
    r.go("x\r", 1)  # a letter that is no key is not typed: Enter alone goes on
    r.child.send("q")
    assert r.end()[1] == 4
