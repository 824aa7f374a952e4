"""The games of the family: one package each under this one, one registry here.

Everything particular to a game lives in its package (``games/musical``, ``games/calculation``,
``games/crazy_quilt``):
the rules engine and its options (``rules.py``), its view (``view.py``), its players
(``solver.py``), and its rules for people (``rules.txt``). The shared layers find a game here by
name and talk to it only through the :class:`musical_cli.game.Game` protocol.
"""

from __future__ import annotations

from ..game import AnyGame, RuleOption
from .calculation.rules import CALCULATION
from .crazy_quilt.rules import CRAZY_QUILT
from .musical.rules import MUSICAL

GAMES: dict[str, AnyGame] = {}
_BY_NAME: dict[str, AnyGame] = {}


def register(game: AnyGame) -> AnyGame:
    """Add a game to the registry (its name and aliases must be new); returns it."""
    names = (game.name, *game.aliases)
    taken = [n for n in names if n in _BY_NAME and _BY_NAME[n] is not game]
    if taken:
        raise ValueError(f"a game is already called {taken[0]!r}")
    GAMES[game.name] = game
    for n in names:
        _BY_NAME[n] = game
    return game


def unregister(game: AnyGame) -> None:
    """Take a game out of the registry (for tests that register one of their own)."""
    GAMES.pop(game.name, None)
    for n in (game.name, *game.aliases):
        if _BY_NAME.get(n) is game:
            del _BY_NAME[n]


def game_named(name: str) -> AnyGame:
    """The game called ``name`` or one of its aliases (any case); KeyError when there is none."""
    return _BY_NAME[name.strip().lower()]


def rule_flags() -> dict[str, list[tuple[AnyGame, RuleOption]]]:
    """Every rule option's flag (``--redeals``), with the games (in registry order) that declare
    it: the command line's flags, and those of the shell's 'new'."""
    flags: dict[str, list[tuple[AnyGame, RuleOption]]] = {}
    for game in GAMES.values():
        for option in game.options:
            flags.setdefault(option.option_flag, []).append((game, option))
    return flags


for _game in (MUSICAL, CALCULATION, CRAZY_QUILT):
    register(_game)
DEFAULT_GAME = MUSICAL
