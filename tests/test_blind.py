"""The blind Calculation player: it never reads an unseen card, it is reproducible, and its
``auto`` moves are safe."""

from __future__ import annotations

import random

import pytest

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.calculation.blind import (
    _foundation_for,
    _safe_play,
    blind_move,
    blind_play,
    heuristic_move,
    hint_calculation,
    safe_calculation_moves,
    view_of,
)
from musical_cli.games.calculation.rules import CALCULATION, CalculationRules, CalculationState
from musical_cli.games.calculation.solver import solve_calculation
from musical_cli.moves import DEAL, P, Transfer, W
from musical_cli.solver import safe_moves


def opening(n: int, rules: CalculationRules | None = None) -> CalculationState:
    return CALCULATION.opening(DealNumber(n), rules)


def positions(n: int, every: int, rules: CalculationRules | None = None) -> list[CalculationState]:
    """Positions of deal n reached by the placing heuristic, one every ``every`` moves."""
    state = opening(n, rules)
    out = []
    i = 0
    while CALCULATION.outcome(state) is Outcome.IN_PLAY:
        if i % every == 0:
            out.append(state)
        state = CALCULATION.apply(state, heuristic_move(view_of(state)))
        i += 1
    return out


def reshuffled(state: CalculationState, rng: random.Random) -> CalculationState:
    """The same visible cards, the unseen stock in another order."""
    stock = list(state.stock)
    rng.shuffle(stock)
    return CalculationState(state.rules, state.foundations, tuple(stock), state.waste, state.piles)


# --- it never reads an unseen card -------------------------------------------------------------------


@pytest.mark.parametrize("n, rules", [(1, None), (6, None), (9, CalculationRules(3)), (13, CalculationRules(4, False))])
def test_the_blind_player_never_reads_an_unseen_card(n, rules):
    rng = random.Random(n)
    checked = 0
    for state in positions(n, 7, rules):
        if len(state.stock) < 2:
            continue
        move = blind_move(state, seed=3, rollouts=12)
        for _ in range(3):
            other = reshuffled(state, rng)
            if other.stock == state.stock:
                continue
            assert blind_move(other, seed=3, rollouts=12) == move
            checked += 1
    assert checked >= 10


class Unreadable(tuple):
    """A stock whose length may be asked but whose cards may not."""

    def __getitem__(self, index):
        raise AssertionError("the blind player read an unseen card")

    def __iter__(self):
        raise AssertionError("the blind player read an unseen card")


def test_a_stock_that_cannot_be_read():
    checked = 0
    for n in (2, 7):
        for state in positions(n, 5):
            if not state.stock:
                continue
            hidden = CalculationState(state.rules, state.foundations, Unreadable(state.stock), state.waste,
                                      state.piles)
            with pytest.raises(AssertionError):
                list(hidden.stock)
            assert blind_move(hidden, seed=2, rollouts=8) == blind_move(state, seed=2, rollouts=8)
            assert hint_calculation(hidden) in CALCULATION.legal_moves(state)
            assert _safe_play(hidden) == _safe_play(state)  # auto's rules read nothing either
            checked += 1
    assert checked >= 10


def test_the_view_holds_no_stock_order():
    state = positions(2, 30)[1]
    v = view_of(state)
    other = reshuffled(state, random.Random(1))
    assert other.stock != state.stock and view_of(other) == v
    assert v.stock == len(state.stock) == sum(v.unseen)


def test_it_turns_a_card_whenever_the_waste_is_empty():
    for state in positions(3, 5):
        if not state.waste and state.stock:
            assert blind_move(state, rollouts=4) == DEAL


# --- reproducible ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 8])
def test_blind_play_is_reproducible(n):
    state = opening(n)
    first = blind_play(state, seed=1, rollouts=4)
    again = blind_play(state, seed=1, rollouts=4)
    assert first == again
    won, moves = first
    final = CALCULATION.play(state, moves)
    assert CALCULATION.outcome(final) is (Outcome.WON if won else Outcome.LOST)


def test_blind_play_reports_progress_and_stops_when_told():
    calls = []

    class Stop(Exception):
        pass

    def progress(moves, seconds):
        calls.append(moves)
        assert seconds >= 0
        if moves == 3:
            raise Stop

    with pytest.raises(Stop):
        blind_play(opening(4), seed=1, rollouts=4, progress=progress)
    assert calls == [1, 2, 3]


def test_the_rollout_policy_prefers_a_foundation_whose_next_card_is_at_hand():
    # Foundations 1 (A-2-3 built) and 2 (2 built) both want a 4; next, foundation 1 takes a 5 and
    # foundation 2 a 6. Piles are ints, the top in the low byte.
    h = (3, 1, 4, 4)
    assert _foundation_for(h, [0x0506, 0, 0, 0], 4) == 1  # a 6 on top: foundation 2
    assert _foundation_for(h, [0x0605, 0, 0, 0], 4) == 0  # a 5 on top: foundation 1
    assert _foundation_for(h, [0x0B, 0, 0, 0], 4) == 1  # neither: the one furthest behind
    assert _foundation_for(h, [0x05, 0x06, 0, 0], 4) == 1  # both: the one furthest behind


def test_hint_is_legal_and_none_when_over():
    for state in positions(5, 11):
        move = hint_calculation(state)
        assert move in CALCULATION.legal_moves(state)
    state = opening(4)
    result, line, _ = solve_calculation(state, 10)
    assert result == "won"
    assert hint_calculation(CALCULATION.play(state, line)) is None


# --- auto --------------------------------------------------------------------------------------------------


def test_safe_moves_are_legal_and_keep_a_won_position_won():
    for n in (2, 4, 8, 12):
        state = opening(n)
        result, line, _ = solve_calculation(state, 20)
        assert result == "won"
        for i in range(0, len(line), 9):
            here = CALCULATION.play(state, line[:i])
            safe = safe_calculation_moves(here)
            after = CALCULATION.play(here, safe)  # legal, in order
            if safe:
                got, again, _ = solve_calculation(after, 20)
                assert got == "won", (n, i, safe)


def test_safe_moves_play_the_last_copy_and_never_a_contested_card():
    state = opening(4)
    result, line, _ = solve_calculation(state, 10)
    # Along the line, every safe play is of a rank no other foundation could still want.
    for i in range(len(line)):
        here = CALCULATION.play(state, line[:i])
        for move in safe_calculation_moves(here)[:1]:
            if isinstance(move, Transfer) and len(CALCULATION.legal_moves(here)) > 1:
                card = here.waste[-1] if move.source.kind == "w" else here.piles[move.source.index - 1][-1]
                needing = [f for f in range(1, 5) if here.needs(f) is not None
                           and card.rank in _still_needed(here, f)]
                assert all(here.needs(f) == card.rank for f in needing)


def _still_needed(state: CalculationState, f: int) -> tuple[int, ...]:
    from musical_cli.games.calculation.rules import SEQUENCES

    return SEQUENCES[f - 1][len(state.foundations[f - 1]):]


def test_no_safe_move_when_a_choice_is_needed():
    state = CALCULATION.apply(opening(1), DEAL)  # J♦ turned: four empty piles, no foundation
    assert safe_calculation_moves(state) == ()
    assert safe_calculation_moves(opening(1)) == (DEAL,)


# --- the sure move: the only legal move up to the order of the piles --------------------------------------


def test_the_first_card_that_fits_no_foundation_goes_to_the_first_pile():
    state = CALCULATION.apply(opening(1), DEAL)  # J♦ turned: four empty piles, no foundation wants it
    assert CALCULATION.sure_move(state) == Transfer(W, P(1))
    # auto: the placing, then the next card turned (the only move); no more (the piles now differ)
    assert safe_moves(CALCULATION, state) == (Transfer(W, P(1)), DEAL)
    after = CALCULATION.play(state, (Transfer(W, P(1)), DEAL))
    assert len(CALCULATION.legal_moves(after)) > 1 and CALCULATION.sure_move(after) is None
    # A first card a foundation wants: playing it and placing it differ.
    wanted = next(s for s in (CALCULATION.apply(opening(n), DEAL) for n in range(1, 40))
                  if s.wanting(s.waste[-1].rank))
    assert CALCULATION.sure_move(wanted) is None


def test_the_sure_move_keeps_a_winnable_position_winnable():
    """Against the solver (which reads the stock): the position after the sure move is won
    when the one before is (and lost when it is: it is reached from it), at the first card of
    deals and in positions of the placing heuristic's games with the piles emptied into the
    stock, shuffled (the foundations higher, every pile empty)."""
    rng = random.Random(5)
    states = []
    for rules in (None, CalculationRules(3), CalculationRules(4, False)):
        states += [CALCULATION.apply(opening(n, rules), DEAL) for n in range(1, 7)]
        for n in range(1, 5):
            for here in positions(n, 10, rules)[2:]:
                rest = [c for pile in here.piles for c in pile] + list(here.waste) + list(here.stock)
                rng.shuffle(rest)
                states.append(CalculationState(here.rules, here.foundations, tuple(rest[1:]), tuple(rest[:1]),
                                               ((),) * len(here.piles)))
    checked = 0
    for state in states:
        move = CALCULATION.sure_move(state)
        if move is None or len(CALCULATION.legal_moves(state)) == 1:
            continue
        before = solve_calculation(state, None, None, 200_000)[0]
        if before == "unknown":
            continue
        after = solve_calculation(CALCULATION.apply(state, move), None, None, 200_000)[0]
        assert after == before, (state, move)
        checked += 1
    assert checked >= 30, checked


def test_the_sure_move_reads_no_unseen_card():
    checked = 0
    for n in range(1, 12):
        for state in [CALCULATION.apply(opening(n), DEAL)] + positions(n, 9):
            if not state.stock:
                continue
            hidden = CalculationState(state.rules, state.foundations, Unreadable(state.stock), state.waste,
                                      state.piles)
            assert CALCULATION.sure_move(hidden) == CALCULATION.sure_move(state)
            checked += CALCULATION.sure_move(state) is not None
    assert checked >= 5
