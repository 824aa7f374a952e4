"""A won Musical game for tests that need one, found without the solver (so that a solver bug
cannot hide a shell or batch bug): a small depth-first search over the engine, keyed on ranks.

Deal 2 at the default two redeals and deal 1 with unlimited redeals take a few milliseconds.
"""

from __future__ import annotations

import functools

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules


@functools.cache
def winning_line(deal: int, redeals: int | None = 2) -> tuple[str, ...]:
    seen: set = set()
    stack = [(MUSICAL.opening(DealNumber(deal), MusicalRules(redeals)), ())]
    while stack:
        state, path = stack.pop()
        if MUSICAL.outcome(state) is Outcome.WON:
            return tuple(str(m) for m in path)
        key = (tuple(c.rank for c in state.stock), tuple(c.rank for c in state.waste),
               tuple(map(len, state.foundations)), state.redeals_used)
        if key in seen or len(seen) > 200_000:
            continue
        seen.add(key)
        for move in reversed(MUSICAL.legal_moves(state)):
            stack.append((MUSICAL.apply(state, move), (*path, move)))
    raise AssertionError(f"no win found for deal {deal}")


def run_main(argv: list[str], stdin: str, monkeypatch, capsys) -> tuple[int, str, str]:
    """``musical ARGV`` in this process (so that a game a test registers is there), with
    ``stdin`` as piped standard input: (exit status, standard output, standard error)."""
    import io
    import sys

    from musical_cli import cli

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    try:
        status = cli.main(argv)
    except SystemExit as e:  # argparse's own usage errors
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def shell_text(session, keys: str) -> str:
    """Type ``keys`` into a real Shell on ``session`` (pipe input, DummyOutput); what it printed."""
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from musical_cli.render import plain
    from musical_cli.shell import Shell

    printed: list = []
    with create_pipe_input() as pipe:
        shell = Shell(session, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        shell.print = printed.append
        pipe.send_text(keys)
        assert shell.run() == 0
    return "".join(plain(f) for f in printed)

