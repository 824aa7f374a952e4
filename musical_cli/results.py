"""How a checked game stands: the exit statuses and the words of the verdict, in one place.

Batch mode (``musical < game.txt``), ``verify``, ``replay`` and ``solve`` end on the same line
("won in 142 moves", or how many cards are still to build) and the same exit status, which the
man page documents (EXIT STATUS) and scripts rely on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .game import Game, Outcome
from .hand import Position, players_moves
from .i18n import _, ngettext
from .moves import Move
from .render import plural

EXIT_WON = 0  # the game is won
EXIT_NOT_WON = 1  # every line was fine, but the game is not won
EXIT_USAGE = 2  # the command line was wrong, or a file could not be read
EXIT_INVALID = 3  # not a transcript, or a move the rules refuse
EXIT_UNKNOWN = 4  # the solver could not decide within its limit
EXIT_SOFTWARE = 70  # an internal error (sysexits' EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it


@dataclass(frozen=True)
class Standing:
    """Where a game stands after its moves: the exit status, the result as programs read it
    (``verify --json``'s "won" or "not-won") and the line people read."""

    status: int
    result: str
    text: str


def standing(game: Game, final: Position, made: Sequence[Move]) -> Standing:
    """The standing of a game whose moves ``made`` ended in ``final``, its moves counted as the
    shell's status line counts them (a card the game turns up by itself is no move)."""
    moves = players_moves(game, made)
    if game.outcome(final) is Outcome.WON:
        # TRANSLATORS: {moves} is a count of moves: "142 moves"
        return Standing(EXIT_WON, "won", _("won in {moves}").format(moves=plural(moves, "move")))
    left = game.cards_to_build(final)
    to_build = ngettext("{n} card still to build", "{n} cards still to build", left).format(n=left)
    # TRANSLATORS: {after} is "after 12 moves", {left} is "40 cards still to build"
    text = _("legal, not won: {after}, {left}").format(after=after_moves(moves), left=to_build)
    return Standing(EXIT_NOT_WON, "not-won", text)


def after_moves(n: int) -> str:
    """The words "after 12 moves", in the language in use: a count of its own, as Russian declines
    it after its "после" ("после 12 ходов", where a count alone is "12 ходов")."""
    return ngettext("after {n} move", "after {n} moves", n).format(n=n)

