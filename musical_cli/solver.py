"""The solver's public face: ``solve``, ``greedy_wins`` and ``safe_moves``.

``solve`` dispatches on ``game.name``: Musical to :mod:`musical_cli.solve_musical`, Calculation
to :mod:`musical_cli.solve_calculation` (its own module); any other game raises
NotImplementedError. Whatever a search says, a win is only reported after the engine has replayed
the line to a won position: a solver bug must never be reported as a win (AssertionError).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .game import Game, IllegalMove, Outcome
from .moves import DEAL, REDEAL, F, Move, Transfer, W

RESULTS = ("won", "lost", "unknown")

# A game's search: (state, budget, progress) -> (result, moves, nodes).
Searcher = Callable[..., tuple]


@dataclass(frozen=True)
class Solution:
    result: str  # "won" | "lost" | "unknown"
    moves: tuple[Move, ...]  # the winning line from the given state when result == "won", else ()
    nodes: int
    seconds: float


def _engine_moves(line: list[int]) -> tuple[Move, ...]:
    """solve_musical's internal line (foundation index 0..3, DEAL_MOVE, REDEAL_MOVE) as moves."""
    from .solve_musical import DEAL_MOVE, REDEAL_MOVE

    out: list[Move] = []
    for m in line:
        if m == DEAL_MOVE:
            out.append(DEAL)
        elif m == REDEAL_MOVE:
            out.append(REDEAL)
        else:
            out.append(Transfer(W, F(m + 1)))
    return tuple(out)


def _search_musical(state, budget, progress):
    from .solve_musical import solve_position

    result, line, nodes = solve_position(state, budget, progress)
    return result, (_engine_moves(line) if result == "won" else ()), nodes


def _searcher(game: Game) -> Searcher:
    if game.name == "musical":
        return _search_musical
    if game.name == "calculation":
        try:
            from .solve_calculation import solve_calculation
        except ImportError as exc:  # pragma: no cover - only while that module is missing
            raise NotImplementedError(f"no solver for {game.title} yet") from exc
        return solve_calculation
    raise NotImplementedError(f"no solver for {game.title} yet")


def _check_musical(game: Game) -> None:
    if game.name != "musical":
        raise NotImplementedError(f"not available for {game.title}")


def solve(game: Game, state, budget: float | None = 10.0,
          progress: Callable[[int, float], None] | None = None) -> Solution:
    """Solve ``state``: a winning line, a proof of loss, or "unknown" when ``budget`` seconds
    (None: no limit) run out. ``progress(nodes, seconds)`` is called now and then (every 0.15 s
    or so); whatever it raises (KeyboardInterrupt to cancel) propagates, as does Ctrl-C."""
    search = _searcher(game)
    start = time.perf_counter()
    outcome = game.outcome(state)
    if outcome is Outcome.WON:
        return Solution("won", (), 0, time.perf_counter() - start)
    if outcome is Outcome.LOST:
        return Solution("lost", (), 0, time.perf_counter() - start)
    result, moves, nodes = search(state, budget, progress)
    if result not in RESULTS:
        raise AssertionError(f"solver bug: result {result!r}")
    if result == "won":
        moves = tuple(moves)
        try:
            final = game.play(state, moves)
        except IllegalMove as exc:
            raise AssertionError(f"solver bug: the winning line has an illegal move: {exc}") from exc
        if game.outcome(final) is not Outcome.WON:
            raise AssertionError("solver bug: the winning line does not win")
    else:
        moves = ()
    return Solution(result, moves, nodes, time.perf_counter() - start)


def blind_hint(game: Game, state):
    """The next move of a player who sees only what the player sees, for games whose hint must
    not read the stock (``game.hint_is_blind``); None when the game is over."""
    from .blind import hint_calculation

    return hint_calculation(state)


def greedy_wins(game: Game, state) -> bool:
    """The greedy strategy: play the waste top to the lowest-numbered foundation that takes it,
    else deal, else redeal. True if it wins. (Musical only.)"""
    _check_musical(game)
    while True:
        legal = game.legal_moves(state)
        if not legal:
            return game.outcome(state) is Outcome.WON
        plays = [m for m in legal if isinstance(m, Transfer)]
        if plays:
            move = min(plays, key=lambda m: m.target.index)
        else:
            move = legal[0]  # DEAL or REDEAL, the only other move
        state = game.apply(state, move)
        # With unlimited redeals greedy can cycle: a whole pass without a play is the same
        # position again, so it is stuck.
        if move == REDEAL:
            if getattr(state, "redeals_used", 0) > 0 and _greedy_stuck(game, state):
                return False


def _greedy_stuck(game: Game, state) -> bool:
    """After a redeal: does a whole pass of greedy play make no play? (Then it never will.)"""
    probe = state
    while probe.stock:
        top = probe.waste_top
        if top is not None and probe.wanting(top.rank):
            return False
        probe = game.apply(probe, DEAL)
    top = probe.waste_top
    return not (top is not None and probe.wanting(top.rank))


def safe_moves(game: Game, state, budget: float | None = 1.0) -> tuple[Move, ...]:
    """Moves from ``state`` that provably never lose winnability, for the shell's ``auto``.

    A move is taken when one of these holds, then the same is asked of the next position:
    1. it is the only legal move (a deal or redeal past a card no foundation wants, say);
    2. (Musical) it plays the waste top c to the one foundation X that still needs c's rank, X
       wanting it now. Then c is the only copy left and every win plays c to X; by the exchange
       argument (solve_musical's docstring) playing a card as soon as its foundation wants it
       is never worse, so some winning line, if any, starts with this play;
    3. every other legal move leads to a position the solver proves lost (within what is left of
       ``budget`` seconds): if the position is winnable, the remaining move keeps it winnable.
    Stops at the first position where none holds, when the game is over, or after 5000 moves.
    Empty when nothing is provably safe.
    """
    _searcher(game)
    if game.hint_is_blind:
        # The player cannot see this game's stock: safety is argued from the visible cards only,
        # so that auto gives nothing away (blind.safe_calculation_moves).
        from .blind import safe_calculation_moves

        return safe_calculation_moves(state)
    deadline = None if budget is None else time.perf_counter() + budget
    out: list[Move] = []
    while game.outcome(state) is Outcome.IN_PLAY and len(out) < 5_000:
        legal = game.legal_moves(state)
        move = None
        if len(legal) == 1:
            move = legal[0]
        elif game.name == "musical":
            top = state.waste_top
            plays = [m for m in legal if isinstance(m, Transfer)]
            if top is not None and len(plays) == 1:
                needing = [i for i in range(1, 5) if _needs_rank(state, i, top.rank)]
                if needing == [plays[0].target.index]:
                    move = plays[0]
        if move is None:
            move = _only_survivor(game, state, legal, deadline)
        if move is None:
            break
        out.append(move)
        state = game.apply(state, move)
    return tuple(out)


def _needs_rank(state, i: int, rank: int) -> bool:
    from .musical import SEQUENCES

    return rank in SEQUENCES[i - 1][len(state.foundations[i - 1]):]


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
