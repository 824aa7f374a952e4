"""The live coach in a real pseudo-terminal: along a winning line the status line says
winnable, the move that leaves it for a proven loss is announced and shown lost, and the prompt
takes commands while a verdict is still being searched for."""

from __future__ import annotations

import re

from terminal import PROMPT

from musical_cli.advice import Limit, analyse
from musical_cli.deals import DealNumber
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.solver import solve


def _deal4():
    """Deal 4 at one redeal: its winning line and the first move off it that loses (index)."""
    state = MUSICAL.opening(DealNumber(4), MusicalRules(1))
    # node limits far above what these positions take (1,000 nodes at most)
    line = analyse(MUSICAL, state, Limit(nodes=1_000_000)).moves
    for i, right in enumerate(line):
        for move in MUSICAL.legal_moves(state):
            if move != right and solve(MUSICAL, MUSICAL.apply(state, move), budget=None, nodes=1_000_000).result == "lost":
                return line, i, move
        state = MUSICAL.apply(state, right)
    raise AssertionError("no losing move")


def test_the_coach_follows_a_winning_line_and_names_the_move_that_loses(terminal):
    line, i, wrong = _deal4()
    # 100 columns: room for the whole status line (80 columns leave out the cards to build)
    term = terminal("--seed", "4", "--redeals", "1", "--coach", size=(24, 100), MUSICAL_NO_RECORD="1")
    term.expect(PROMPT)
    # the verdict comes right after the deal (the toolbar is shortened from its end)
    term.expect(f"winnable: {len(line)} moves · pass 1 of 2 · 0 moves · 44 to build")
    term.sendline("; ".join(str(m) for m in line[:10]))
    left = MUSICAL.cards_to_build(MUSICAL.play(MUSICAL.opening(DealNumber(4), MusicalRules(1)), line[:10]))
    term.expect(f"winnable: {len(line) - 10} moves · pass 1 of 2 · 10 moves · {left} to build")
    term.sendline("; ".join(str(m) for m in line[10:i]))
    term.expect(f"winnable: {len(line) - i} moves · ")
    term.expect(f"{i} moves · ")
    term.sendline(str(wrong))
    term.expect("that move lost the game: 'undo' takes it back")
    term.expect("lost: 'undo 1' wins · ")
    term.expect(f"{i + 1} moves · ")
    term.sendline("undo")
    term.expect(f"winnable: {len(line) - i} moves · ")
    term.expect(f"{i} moves · ")
    term.sendline("coach off")
    term.expect("the coach is off")
    term.expect("'help' lists the commands")
    term.sendline("quit")
    assert term.finish() == 0


def test_the_prompt_takes_commands_while_the_coach_searches(terminal):
    # Crazy Quilt's deal 175 stays undecided for many seconds of search (12,000,000 nodes and
    # more; 34, used before, is won in 19,560 nodes since rule 8, and 409 within a second since
    # rule 7): the coach is still at it when 'moves' answers.
    term = terminal("--game", "crazy-quilt", "--seed", "175", "--coach", MUSICAL_NO_RECORD="1")
    term.expect(PROMPT)
    term.expect("coach: thinking...")
    term.sendline("moves")
    term.expect(r"legal: [^\r\n]*", exact=False)
    term.expect(PROMPT)
    term.expect("coach: thinking...")  # the toolbar drawn with the answer: still searching
    assert not re.search(r"winnable|undecided|lost", term.log.getvalue().split("legal:")[-1])
    term.sendline("quit")
    assert term.finish() == 0
