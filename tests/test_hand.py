"""The game in hand as a frozen value (musical_cli.hand.Hand): every change is a new hand, the old
one untouched; undo and redo are inverses; a hand that turns cards up groups the turn with the
placement before it."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from musical_cli.deals import DealNumber
from musical_cli.game import IllegalMove
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.musical.rules import MUSICAL
from musical_cli.hand import Hand
from musical_cli.moves import DEAL, REDEAL


def _walk(hand: Hand, choices: list[int]) -> Hand:
    """Legal moves chosen by index, one step each."""
    for choice in choices:
        legal = hand.game.legal_moves(hand.state)
        if not legal:
            break
        hand, _ = hand.play(legal[choice % len(legal)])
    return hand


def test_a_hand_is_frozen():
    hand = Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules())
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.moves = (DEAL,)  # type: ignore[misc]


def test_a_move_leaves_the_hand_it_was_made_from_as_it_was():
    hand = Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules())
    after, move = hand.play(DEAL)
    assert move == DEAL
    assert hand.moves == () and hand.states == (hand.start,)
    assert after.moves == (DEAL,) and after.steps == (1,) and after.states[0] is hand.start
    assert after.trail[-1] == (1, DEAL, hand.start, after.state)


def test_an_illegal_move_raises_and_changes_nothing():
    hand = Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules())
    with pytest.raises(IllegalMove):
        hand.play(REDEAL)  # the stock is full
    assert hand == Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules())


@settings(max_examples=40)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=40), st.integers(1, 45), st.integers(1, 45))
def test_undo_then_redo_gives_the_hand_back(choices, n, m):
    hand = _walk(Hand.begin(MUSICAL, DealNumber(3), MUSICAL.default_rules()), choices)
    back, taken = hand.undo(n)
    assert taken == min(n, len(hand.steps))
    assert back.states == hand.states[:len(back.moves) + 1]
    again, made = back.redo(n)
    assert again.moves == hand.moves and again.states == hand.states and again.steps == hand.steps
    assert made == taken and not again.undone
    # a part of the way back, then the rest
    part, _ = back.redo(m)
    rest, _ = part.redo(n)
    assert rest.moves == hand.moves


def test_a_new_move_after_undo_ends_redo_but_the_same_move_keeps_it():
    hand = _walk(Hand.begin(MUSICAL, DealNumber(3), MUSICAL.default_rules()), [0, 0, 0, 0])
    back, _ = hand.undo(2)
    same, _ = back.play(hand.moves[len(back.moves)])
    assert same.undone == back.undone[:-1]  # the step redo would make, made by hand
    other = [m for m in MUSICAL.legal_moves(back.state) if m != hand.moves[len(back.moves)]]
    if other:
        assert back.play(other[0])[0].undone == ()


def test_the_trail_keeps_the_moves_undone():
    hand = _walk(Hand.begin(MUSICAL, DealNumber(2), MUSICAL.default_rules()), [0, 1, 0])
    back, _ = hand.undo(1)
    assert back.trail == hand.trail and len(back.moves) == len(hand.moves) - 1


def test_a_hand_that_turns_cards_up_counts_and_undoes_a_placement_with_its_turn():
    hand = Hand.begin(CALCULATION, DealNumber(7), CALCULATION.default_rules(), turns_up=True)
    assert hand.moves == (DEAL,) and hand.steps == () and hand.move_count == 0
    placement = next(m for m in CALCULATION.legal_moves(hand.state) if m != DEAL)
    after, _ = hand.play(placement)
    assert after.moves[-2:] == (placement, DEAL) and after.steps == (2,) and after.move_count == 1
    back, taken = after.undo()
    assert taken == 1 and back.moves == hand.moves and back.undone == ((placement, DEAL),)


def test_a_resumed_history_is_kept_as_given():
    start = Hand.begin(MUSICAL, DealNumber(4), MUSICAL.default_rules())
    played = _walk(start, [0, 0, 0])
    back, _ = played.undo(1)
    again = Hand.begin(MUSICAL, DealNumber(4), MUSICAL.default_rules(), back.moves, steps=back.steps,
                       undone=back.undone)
    # (the trail of a resumed game starts with the moves it has: the ones undone before are gone)
    assert (again.states, again.moves, again.steps, again.undone) == (back.states, back.moves, back.steps, back.undone)


def test_who_plays_must_be_known():
    with pytest.raises(ValueError, match="unknown player"):
        Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules(), how="robot")


def test_moves_played_on_join_the_last_step_and_forget_redo():
    hand = _walk(Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules()), [0, 0, 0])
    back, _ = hand.undo(1)
    assert back.undone
    on = back.play_on((DEAL, DEAL))
    assert on.steps == (*back.steps[:-1], back.steps[-1] + 2) and on.moves == (*back.moves, DEAL, DEAL)
    assert on.undone == ()  # the step taken back followed the step as it was
    assert on.trail[-2:] == ((len(back.moves) + 1, DEAL, back.state, on.states[-2]),
                             (len(back.moves) + 2, DEAL, on.states[-2], on.state))
    again, taken = on.undo(1)
    assert again.moves == back.moves[:-back.steps[-1]] and taken == back.steps[-1] + 2
    assert back.play_on(()) is back
    first = Hand.begin(MUSICAL, DealNumber(1), MUSICAL.default_rules()).play_on((DEAL,))
    assert first.steps == (1,)  # no step yet: a step of their own
