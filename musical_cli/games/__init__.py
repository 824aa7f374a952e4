"""The games of the family, by the name used on the command line and in transcripts."""

from __future__ import annotations

from ..calculation import CALCULATION
from ..game import Game
from ..musical import MUSICAL

GAMES: dict[str, Game] = {MUSICAL.name: MUSICAL, CALCULATION.name: CALCULATION}
DEFAULT_GAME = MUSICAL


def game_named(name: str) -> Game:
    """The game called ``name`` (any case); KeyError when there is none."""
    return GAMES[name.strip().lower()]
