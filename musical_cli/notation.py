"""Move notation: every accepted spelling of a move parses to a value whose ``str`` is canonical.

Canonical: ``d``, ``redeal``, ``w f2``, ``w p3``, ``p1 f4``. Also accepted, in any case and with
any spacing: ``deal``, ``w2`` / ``w 2`` / ``wf2`` (a bare number after a source is a foundation),
``wp3``, ``p1f4``, and ``w`` alone ("to the one foundation that takes it"), completed by
:func:`resolve` against a position.
"""

from __future__ import annotations

import re

from .game import Game, IllegalMove
from .moves import DEAL, FOUNDATION, PILE, REDEAL, WASTE, Move, Place, Transfer

_TRANSFER = re.compile(r"(w|p([0-9]))(?:(f|p)?([0-9]))?")
_WORDS = {"d": DEAL, "deal": DEAL, "redeal": REDEAL}


class NotationError(ValueError):
    """Text that is not a move in any game's notation."""

    def __init__(self, text: str, why: str = "not a move"):
        self.text = text
        self.why = why
        super().__init__(f"{text.strip()!r}: {why} (moves look like d, w f2, w p1, p1 f3, redeal)")


def parse_move(text: str) -> Move:
    """The move a text names. ``w`` alone gives ``Transfer(W, None)``, for :func:`resolve`."""
    squeezed = "".join(text.split()).lower()
    if not squeezed:
        raise NotationError(text, "empty")
    if squeezed in _WORDS:
        return _WORDS[squeezed]
    m = _TRANSFER.fullmatch(squeezed)
    if not m:
        raise NotationError(text)
    source = Place(WASTE) if m.group(1) == "w" else Place(PILE, int(m.group(2)))
    if source.kind == PILE and source.index == 0:
        raise NotationError(text, "piles are numbered from 1")
    if m.group(4) is None:
        return Transfer(source)
    kind = PILE if m.group(3) == "p" else FOUNDATION
    index = int(m.group(4))
    if index == 0:
        raise NotationError(text, "foundations and piles are numbered from 1")
    return Transfer(source, Place(kind, index))


def format_move(move: Move) -> str:
    return str(move)


def resolve(game: Game, state, move: Move) -> Move:
    """Complete a short form against a position: ``w`` alone becomes ``w fN`` when exactly one
    legal move plays that card to a foundation. Anything else is returned as it is."""
    if not (isinstance(move, Transfer) and move.target is None):
        return move
    legal = game.legal_moves(state)
    options = [m for m in legal if isinstance(m, Transfer) and m.source == move.source
               and m.target is not None and m.target.kind == FOUNDATION]
    if len(options) == 1:
        return options[0]
    if not options:
        # Let the engine say why (empty waste, no foundation wants the card, ...).
        game.apply(state, move)
    raise IllegalMove(move, f"more than one foundation takes it; choose {' or '.join(map(str, options))}", legal)


def parse(game: Game, state, text: str) -> Move:
    """Parse and complete a move in one step."""
    return resolve(game, state, parse_move(text))
