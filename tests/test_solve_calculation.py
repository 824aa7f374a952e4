"""The thoughtful Calculation solver: every "won" line replays to a win through the engine, every
"lost" verdict agrees with a plain brute-force search on positions near the end of real deals,
and the answers are deterministic."""

from __future__ import annotations

import functools

import pytest

from musical_cli.cards import new_deck
from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.calculation.blind import heuristic_move, view_of
from musical_cli.games.calculation.rules import CALCULATION, SEQUENCES, CalculationRules, CalculationState
from musical_cli.games.calculation.solver import RankSolver, relaxed_winnable, solve_calculation
from musical_cli.moves import DEAL, F, P, Transfer, W


def opening(n: int, rules: CalculationRules | None = None) -> CalculationState:
    return CALCULATION.opening(DealNumber(n), rules)


def assert_wins(state: CalculationState, line) -> None:
    final = CALCULATION.play(state, line)  # raises IllegalMove on a bad line
    assert CALCULATION.outcome(final) is Outcome.WON


# --- won lines replay ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 4, 7, 8, 11, 12, 17, 19, 20])
def test_won_lines_replay_to_a_win(n):
    state = opening(n)
    result, line, nodes = solve_calculation(state, 20)
    assert result == "won" and nodes > 0
    assert line[0] == DEAL and line.count(DEAL) == 48
    assert_wins(state, line)


# Deals each variant's solver wins quickly (found once by running it).
VARIANT_DEALS = [(CalculationRules(3), (4, 8, 12)), (CalculationRules(4, False), (4, 7, 12, 14)),
                 (CalculationRules(3, False), (4, 8, 12, 14))]


@pytest.mark.parametrize("rules, deals", VARIANT_DEALS)
def test_variants_won_lines_replay(rules, deals):
    for n in deals:
        state = opening(n, rules)
        result, line, _ = solve_calculation(state, 20)
        assert result == "won", n
        assert line.count(DEAL) == len(state.stock)
        assert_wins(state, line)


@functools.cache
def won_line(n: int) -> tuple:
    result, line, _ = solve_calculation(opening(n), 20)
    assert result == "won"
    return line


def along(n: int, moves: int) -> CalculationState:
    """The position after the first ``moves`` moves of the solver's winning line for deal n."""
    return CALCULATION.play(opening(n), won_line(n)[:moves])


@pytest.mark.parametrize("n", [2, 4, 8, 12])
def test_from_any_position(n):
    """Positions along a winning line, with the waste card turned or not: still won, and the line
    found from there replays."""
    line = won_line(n)
    for moves in range(5, len(line), 17):
        start = along(n, moves)
        result, again, _ = solve_calculation(start, 20)
        assert result == "won", (n, moves)
        assert_wins(start, again)
        if not start.waste and start.stock:
            assert again[0] == DEAL


def test_finished_positions():
    deck = new_deck()
    pool = {r: [c for c in deck if c.rank == r] for r in range(1, 14)}
    foundations = tuple(tuple(pool[r].pop() for r in seq) for seq in SEQUENCES)
    won = CalculationState(CalculationRules(), foundations, (), (), ((),) * 4)
    assert solve_calculation(won, 1)[:2] == ("won", ())
    king, queen = foundations[0][-1], foundations[0][-2]
    stuck = CalculationState(won.rules, (foundations[0][:-2], *foundations[1:]), (), (),
                             ((queen, king), (), (), ()))
    assert solve_calculation(stuck, 1)[:2] == ("lost", ())
    one_play = CalculationState(won.rules, (foundations[0][:-2], *foundations[1:]), (), (),
                                ((king, queen), (), (), ()))
    result, line, _ = solve_calculation(one_play, 1)
    assert result == "won" and line == (Transfer(P(1), F(1)), Transfer(P(1), F(1)))


def midgame(n: int, cards_left: int, rules: CalculationRules | None = None) -> CalculationState:
    """A position of deal n reached by the placing heuristic, with a card turned and about
    ``cards_left`` cards still in the stock."""
    state = opening(n, rules)
    while CALCULATION.outcome(state) is Outcome.IN_PLAY:
        if state.waste and len(state.stock) <= cards_left:
            return state
        state = CALCULATION.apply(state, heuristic_move(view_of(state)))
    return state


# --- lost verdicts against brute force --------------------------------------------------------------


def brute_force(state: CalculationState) -> bool:
    """Every legal move, every order: can the position be won? (Remembering positions by their
    ranks, since suits never matter.)"""
    seen: dict[tuple, bool] = {}

    def key(s: CalculationState) -> tuple:
        return (tuple(len(f) for f in s.foundations), tuple(c.rank for c in s.stock),
                tuple(c.rank for c in s.waste), tuple(tuple(c.rank for c in p) for p in s.piles))

    def winnable(s: CalculationState) -> bool:
        outcome = CALCULATION.outcome(s)
        if outcome is not Outcome.IN_PLAY:
            return outcome is Outcome.WON
        k = key(s)
        if k not in seen:
            seen[k] = any(winnable(CALCULATION.apply(s, m)) for m in CALCULATION.legal_moves(s))
        return seen[k]

    return winnable(state)


@functools.cache
def end_positions() -> tuple:
    """Positions near the end of real deals with few stock cards left: reached by the placing
    heuristic (which loses most deals, so many of them are lost), and along the solver's winning
    lines together with every move from there (won, and often lost)."""
    out = []
    for n in range(1, 25):
        for left in (0, 3):
            state = midgame(n, left)
            if CALCULATION.outcome(state) is Outcome.IN_PLAY:
                out.append((n, left, state))
    for n in (2, 4, 8, 12):
        line = won_line(n)
        deals = [i for i, m in enumerate(line) if m == DEAL]
        state = along(n, deals[-3] + 1)  # three cards left to turn
        out.append((n, 3, state))
        for move in CALCULATION.legal_moves(state):
            out.append((n, 3, CALCULATION.apply(state, move)))
    return tuple(out)


@pytest.mark.slow
def test_verdicts_agree_with_brute_force():
    won = lost = 0
    for n, left, state in end_positions():
        result, line, _ = solve_calculation(state, 20)
        assert result in ("won", "lost"), (n, left)
        truth = brute_force(state)
        assert (result == "won") == truth, (n, left)
        if truth:
            assert_wins(state, line)
            won += 1
        else:
            lost += 1
    assert won >= 5 and lost >= 20  # both kinds were really checked


def test_relaxation_and_rank_solver_never_contradict_brute_force():
    for n, left, state in end_positions()[::3]:
        truth = brute_force(state)
        v = view_of(state)
        packed = []
        for pile in v.piles:
            p = 0
            for r in pile:
                p = p << 8 | r
            packed.append(p)
        if truth:
            assert relaxed_winnable(v.heights, tuple(packed)), (n, left)
        stock = tuple(c.rank for c in state.stock)
        got = RankSolver(stock).solve(v.heights, v.piles, v.waste)
        assert (got == "won") == truth, (n, left)


# --- determinism, budget and progress --------------------------------------------------------------


def test_deterministic():
    state = opening(5)
    first = solve_calculation(state, 20)
    again = solve_calculation(state, 20)
    assert first == again and first[0] == "won"


def test_budget_runs_out_to_unknown():
    # Deal 16 takes the search far longer than a hundredth of a second.
    result, line, nodes = solve_calculation(opening(16), 0.01)
    assert result == "unknown" and line == () and nodes > 0


def test_progress_is_called_and_may_cancel():
    calls = []

    def progress(nodes, seconds):
        calls.append((nodes, seconds))

    solve_calculation(opening(1), 5, progress)
    assert calls and all(n > 0 and s >= 0 for n, s in calls)

    def cancel(nodes, seconds):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_calculation(opening(1), 5, cancel)


def test_waste_card_already_turned():
    state = CALCULATION.apply(opening(4), DEAL)
    result, line, _ = solve_calculation(state, 10)
    assert result == "won" and line[0] != DEAL and line[0].source == W
    assert_wins(state, line)
