"""The solver's public face: ``solve``, ``safe_moves``, ``blind_hint`` and ``greedy_wins``.

Each game searches in its own package (``Game.search``); a game without a solver raises
:class:`musical_cli.game.NotAvailable`, which says so. Whatever a search says, a win is only
reported after the engine has replayed the line to a won position: a solver bug must never be
reported as a win (AssertionError). The line is then shortened (:func:`musical_cli.lines.shorten`:
its detours taken out, and the result replayed to a win again), so that every line the solver
gives, to ``solve``, ``solve play``, ``hint`` and the coach, is the short one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .game import Game, IllegalMove, NotAvailable, Outcome
from .lines import replay, shorten
from .moves import Move

RESULTS = ("won", "lost", "unknown")


@dataclass(frozen=True)
class Solution:
    result: str  # "won" | "lost" | "unknown"
    moves: tuple[Move, ...]  # the winning line from the given state when result == "won", else ()
    nodes: int
    seconds: float


def has_solver(game: Game) -> bool:
    return "solver" in game.players


def _require_solver(game: Game) -> None:
    if not has_solver(game):
        raise NotAvailable(f"{game.title} has no solver yet")


def solve(game: Game, state, budget: float | None = 10.0,
          progress: Callable[[int, float], None] | None = None, nodes: int | None = None,
          short: bool = True) -> Solution:
    """Solve ``state``: a winning line, a proof of loss, or "unknown" when ``budget`` seconds
    or ``nodes`` search nodes (None: no limit) run out; a node limit alone gives the same answer
    on every machine. ``progress(nodes, seconds)`` is called now and then (every 0.15 s or so);
    whatever it raises (KeyboardInterrupt to cancel) propagates, as does Ctrl-C. The winning
    line is shortened (:func:`musical_cli.lines.shorten`; its time is in ``seconds``) unless
    ``short`` is false: the search's own line, for measuring what shortening does."""
    _require_solver(game)
    start = time.perf_counter()
    outcome = game.outcome(state)
    if outcome is Outcome.WON:
        return Solution("won", (), 0, time.perf_counter() - start)
    if outcome is Outcome.LOST:
        return Solution("lost", (), 0, time.perf_counter() - start)
    result, moves, nodes = game.search(state, budget, progress, nodes)
    if result not in RESULTS:
        raise AssertionError(f"solver bug: result {result!r}")
    if result == "won":
        moves = tuple(moves)
        try:
            states = replay(game, state, moves)
        except IllegalMove as exc:
            raise AssertionError(f"solver bug: the winning line has an illegal move: {exc}") from exc
        if game.outcome(states[-1]) is not Outcome.WON:
            raise AssertionError("solver bug: the winning line does not win")
        if short:
            moves = shorten(game, state, moves, states)
    else:
        moves = ()
    return Solution(result, moves, nodes, time.perf_counter() - start)


def blind_hint(game: Game, state):
    """The next move of a player who sees only what the player sees, for games whose hint must
    not read the stock (``game.hint_is_blind``); None when the game is over."""
    return game.blind_hint(state)


def greedy_wins(game: Game, state) -> bool:
    """Whether the game's baseline strategy wins (NotAvailable when it has none)."""
    return game.greedy_wins(state)


def safe_moves(game: Game, state, budget: float | None = 1.0) -> tuple[Move, ...]:
    """Moves from ``state`` that provably never lose winnability, for the shell's ``auto``.

    A move is taken when one of these holds, then the same is asked of the next position:
    1. it is the only legal move (a deal or redeal past a card no foundation wants, say);
    2. the game's own rule says so (``Game.sure_move``, argued where each game writes it);
    3. every other legal move leads to a position the solver proves lost (within what is left of
       ``budget`` seconds): if the position is winnable, the remaining move keeps it winnable.
    Stops at the first position where none holds, when the game is over, or after 5000 moves.
    Empty when nothing is provably safe.
    """
    if game.hint_is_blind:
        # The player cannot see this game's stock: safety is argued from the visible cards only,
        # so that auto gives nothing away.
        return game.blind_safe_moves(state)
    _require_solver(game)
    deadline = None if budget is None else time.perf_counter() + budget
    out: list[Move] = []
    while game.outcome(state) is Outcome.IN_PLAY and len(out) < 5_000:
        legal = game.legal_moves(state)
        move = legal[0] if len(legal) == 1 else game.sure_move(state)
        if move is None:
            move = _only_survivor(game, state, legal, deadline)
        if move is None:
            break
        out.append(move)
        state = game.apply(state, move)
    return tuple(out)
def _only_survivor(game: Game, state, legal, deadline) -> Move | None:
    survivor = None
    for move in legal:
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return None
        got = solve(game, game.apply(state, move), budget=left)
        if got.result == "lost":
            continue
        if survivor is not None:
            return None  # two moves not proved lost: neither is provably safe
        survivor = move
    return survivor
