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
from collections.abc import Sequence
from dataclasses import dataclass

from .game import AnyGame, IllegalMove, NotAvailable, Outcome, Progress, State
from .i18n import _
from .lines import replay, shorten
from .moves import Move

RESULTS = ("won", "lost", "unknown")


@dataclass(frozen=True)
class Solution:
    result: str  # "won" | "lost" | "unknown"
    moves: tuple[Move, ...]  # the winning line from the given state when result == "won", else ()
    nodes: int
    seconds: float


def has_solver(game: AnyGame) -> bool:
    return "solver" in game.players


def _require_solver(game: AnyGame) -> None:
    if not has_solver(game):
        raise NotAvailable(_("{title} has no solver yet").format(title=game.title))


def solve(game: AnyGame, state: State, budget: float | None = 10.0,
          progress: Progress | None = None, nodes: int | None = None, short: bool = True) -> Solution:
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


def blind_hint(game: AnyGame, state: State) -> Move | None:
    """The next move of a player who sees only what the player sees, for games whose hint must
    not read the stock (``game.hint_is_blind``); None when the game is over."""
    return game.blind_hint(state)


def greedy_wins(game: AnyGame, state: State) -> bool:
    """Whether the game's baseline strategy wins (NotAvailable when it has none)."""
    return game.greedy_wins(state)


SAFE_LIMIT = 5_000  # moves at most in one answer of safe_moves


def safe_moves(game: AnyGame, state: State, budget: float | None = 1.0, nodes: int | None = None) -> tuple[Move, ...]:
    """Moves from ``state`` that provably never lose winnability, for the shell's ``auto``.

    A move is taken when one of these holds, then the same is asked of the next position:
    1. it is the only legal move (a deal or redeal past a card no foundation wants, say);
    2. the game's own rule says so (``Game.sure_move``, argued where each game writes it);
    3. every other legal move leads to a position the solver proves lost, within what is left of
       ``budget`` seconds and of ``nodes`` search nodes (None: no limit; shared out among the
       moves still to prove): if the position is winnable, the remaining move keeps it winnable.
    Stops at the first position where none holds, when the game is over, or after SAFE_LIMIT
    moves. Empty when nothing is provably safe.

    In a game whose stock stays hidden (``hint_is_blind``) the player's safety is argued from the
    visible cards only, so that auto gives nothing away: the game's blind rules
    (``Game.blind_safe_moves``) and its sure move, which there reads only what the player sees;
    no search (rule 3), and no budget is needed.
    """
    if game.hint_is_blind:
        return _blind_safe_moves(game, state)
    _require_solver(game)
    deadline = None if budget is None else time.perf_counter() + budget
    left = nodes
    out: list[Move] = []
    while game.outcome(state) is Outcome.IN_PLAY and len(out) < SAFE_LIMIT:
        legal = game.legal_moves(state)
        move = legal[0] if len(legal) == 1 else game.sure_move(state)
        if move is None:
            move, used = _only_survivor(game, state, legal, deadline, left)
            left = None if left is None else left - used
        if move is None:
            break
        out.append(move)
        state = game.apply(state, move)
    return tuple(out)


def _blind_safe_moves(game: AnyGame, state: State) -> tuple[Move, ...]:
    out: list[Move] = []
    while game.outcome(state) is Outcome.IN_PLAY and len(out) < SAFE_LIMIT:
        got = tuple(game.blind_safe_moves(state))
        if not got:
            sure = game.sure_move(state)
            got = () if sure is None else (sure,)
        if not got:
            break
        out.extend(got)
        state = game.play(state, got)
    return tuple(out[:SAFE_LIMIT])


def _only_survivor(game: AnyGame, state: State, legal: Sequence[Move], deadline: float | None, nodes: int | None) -> tuple[Move | None, int]:
    """The one legal move the solver does not prove lost, when every other one is; and the
    search nodes that took."""
    survivor = None
    used = 0
    for i, move in enumerate(legal):
        left = None if deadline is None else deadline - time.perf_counter()
        share = None if nodes is None else (nodes - used) // (len(legal) - i)
        if (left is not None and left <= 0) or (share is not None and share <= 0):
            return None, used
        got = solve(game, game.apply(state, move), budget=left, nodes=share)
        used += got.nodes
        if got.result == "lost":
            continue
        if survivor is not None:
            return None, used  # two moves not proved lost: neither is provably safe
        survivor = move
    return survivor, used
