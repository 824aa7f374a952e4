"""The Calculation engine against RULES.md §2 and DEALS.md: golden deals, every rule, properties
over random legal games, and a stateful model through the game protocol with illegal moves."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from musical_cli.cards import Card, new_deck
from musical_cli.deals import MS_LIMIT, MT_MAX, DealNumber, shuffled_deck
from musical_cli.game import Game, IllegalMove, Outcome, RulesError
from musical_cli.games.calculation.rules import (
    BASE_RANKS,
    CALCULATION,
    FOUNDATION_SIZE,
    SEQUENCES,
    Calculation,
    CalculationRules,
    CalculationState,
    foundation_rank,
)
from musical_cli.games.musical.rules import MUSICAL
from musical_cli.moves import DEAL, REDEAL, Deal, F, P, Transfer, W

# RULES.md §2, copied by hand (A=1, J=11, Q=12, K=13).
RULES_TABLE = (
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    (2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11, 13),
    (3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 13),
    (4, 8, 12, 3, 7, 11, 2, 6, 10, 1, 5, 9, 13),
)

ALL_RULES = [CalculationRules(4, True), CalculationRules(3, True), CalculationRules(4, False),
             CalculationRules(3, False)]
rules_strategy = st.sampled_from(ALL_RULES)
deal_numbers = st.one_of(st.integers(1, MS_LIMIT), st.integers(MS_LIMIT + 1, MT_MAX)).map(DealNumber)


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def opening(n: int, rules: CalculationRules | None = None) -> CalculationState:
    return CALCULATION.opening(DealNumber(n), rules)


def all_cards(state: CalculationState) -> list[Card]:
    return [*(c for f in state.foundations for c in f), *state.stock, *state.waste,
            *(c for p in state.piles for c in p)]


def snapshot(state: CalculationState) -> tuple:
    return (state.rules, tuple(tuple(c.code for c in f) for f in state.foundations),
            tuple(c.code for c in state.stock), tuple(c.code for c in state.waste),
            tuple(tuple(c.code for c in p) for p in state.piles))


# Every move worth trying: the legal kinds and some never legal.
CANDIDATES = (
    DEAL, REDEAL, Transfer(W), Transfer(W, W), Transfer(W, F(5)), Transfer(W, P(5)), Transfer(P(0), F(1)),
    *(Transfer(W, F(i)) for i in range(1, 5)),
    *(Transfer(W, P(j)) for j in range(1, 5)),
    *(Transfer(P(j), F(i)) for j in range(1, 5) for i in range(1, 5)),
    *(Transfer(P(j), P(k)) for j in range(1, 5) for k in range(1, 5)),
    *(Transfer(F(i), P(1)) for i in range(1, 5)),
)


def accepted(state: CalculationState) -> set:
    ok = set()
    for move in CANDIDATES:
        try:
            CALCULATION.apply(state, move)
        except IllegalMove:
            continue
        ok.add(move)
    return ok


def check_invariants(state: CalculationState) -> None:
    # No card lost or duplicated: the whole deck, once.
    every = all_cards(state)
    assert len(every) == 52 and set(every) == set(new_deck())
    assert len(state.piles) == state.rules.piles
    assert len(state.waste) <= 1
    # Foundations hold only their sequence i, 2i, 3i, .. (mod 13), from the base.
    for i, f in enumerate(state.foundations):
        assert len(f) <= FOUNDATION_SIZE
        assert tuple(c.rank for c in f) == SEQUENCES[i][:len(f)]
        if state.rules.bases:
            assert len(f) >= 1
    assert CALCULATION.cards_to_build(state) == 52 - sum(len(f) for f in state.foundations)
    legal = CALCULATION.legal_moves(state)
    assert len(set(legal)) == len(legal)
    assert set(legal) == accepted(state)
    outcome = CALCULATION.outcome(state)
    if all(len(f) == FOUNDATION_SIZE for f in state.foundations):
        assert outcome is Outcome.WON and legal == ()
    elif not legal:
        assert outcome is Outcome.LOST
        assert not state.stock and not state.waste
    else:
        assert outcome is Outcome.IN_PLAY


# --- the foundation sequences --------------------------------------------------------------------


def test_sequences_are_the_rules_table():
    assert SEQUENCES == RULES_TABLE
    assert BASE_RANKS == (1, 2, 3, 4)
    assert FOUNDATION_SIZE == 13
    for i in range(1, 5):
        for j in range(13):
            assert foundation_rank(i, j) == RULES_TABLE[i - 1][j]


def test_each_foundation_takes_each_rank_once():
    for seq in SEQUENCES:
        assert sorted(seq) == list(range(1, 14))
        assert seq[-1] == 13


# --- golden deals --------------------------------------------------------------------------------


def test_deal_1():
    state = opening(1)
    assert [f[0] for f in state.foundations] == cards("AC 2H 3D 4S")
    assert all(len(f) == 1 for f in state.foundations)
    assert list(state.stock[:5]) == cards("JD 2D 9H JC 5D")
    assert len(state.stock) == 48
    assert state.waste == () and state.piles == ((), (), (), ())
    assert CALCULATION.legal_moves(state) == (DEAL,)
    assert [state.needs(i) for i in range(1, 5)] == [2, 4, 6, 8]


@pytest.mark.parametrize("number, bases", [(1, "AC 2H 3D 4S"), (31999, "AH 2D 3S 4D"), (32000, "AS 2D 3S 4S")])
def test_the_hook_walk_matches_musical(number, bases):
    """DEALS.md: the same walk from the bottom of the stock as Musical's signs; Musical's stock is
    Calculation's with Musical's four foundation bases taken out."""
    calc = opening(number)
    musical = MUSICAL.opening(DealNumber(number))
    assert [f[0] for f in calc.foundations] == cards(bases) == list(musical.signs)
    musical_bases = {f[0] for f in musical.foundations}
    assert tuple(c for c in calc.stock if c not in musical_bases) == musical.stock
    # From the deck itself: the stock is the deck without the bases, last element on top.
    deck = shuffled_deck(DealNumber(number))
    assert calc.stock == tuple(reversed([c for c in deck if c not in set(cards(bases))]))


def test_deals_across_the_generator_boundary_top_cards():
    # Musical's first five stock cards (DEALS.md) come first in Calculation's stock too, unless a
    # Musical base lies among them.
    for number, top5 in ((31999, "JD JH AD QH KH"), (32000, "7S 4D JS 8D 6D")):
        calc = opening(number)
        musical_bases = {f[0] for f in MUSICAL.opening(DealNumber(number)).foundations}
        top = [c for c in calc.stock if c not in musical_bases][:5]
        assert top == cards(top5)


def test_no_bases():
    state = opening(1, CalculationRules(4, False))
    assert state.foundations == ((), (), (), ())
    assert len(state.stock) == 52
    assert tuple(reversed(shuffled_deck(DealNumber(1)))) == state.stock
    assert [state.needs(i) for i in range(1, 5)] == [1, 2, 3, 4]
    check_invariants(state)


@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5, 13])
def test_no_bases_foundation_n_is_founded_only_by_rank_n(rank):
    card = next(c for c in new_deck() if c.rank == rank)
    rest = tuple(c for c in new_deck() if c != card)
    state = CalculationState(CalculationRules(4, False), ((),) * 4, rest, (card,), ((),) * 4)
    plays = [m for m in CALCULATION.legal_moves(state) if m.target is not None and m.target.kind == "f"]
    assert plays == ([Transfer(W, F(rank))] if rank <= 4 else [])
    for i in range(1, 5):
        if i != rank:
            with pytest.raises(IllegalMove):
                CALCULATION.apply(state, Transfer(W, F(i)))


def test_three_piles():
    state = CALCULATION.apply(opening(1, CalculationRules(3)), DEAL)
    assert len(state.piles) == 3
    assert Transfer(W, P(3)) in CALCULATION.legal_moves(state)
    assert Transfer(W, P(4)) not in CALCULATION.legal_moves(state)
    with pytest.raises(IllegalMove, match="no pile 4"):
        CALCULATION.apply(state, Transfer(W, P(4)))
    check_invariants(state)


def test_rules_options_round_trip():
    for rules in ALL_RULES:
        assert CALCULATION.rules_from_options(CALCULATION.rules_options(rules)) == rules
    with pytest.raises(RulesError):
        CALCULATION.rules_from_options({"redeals": "2"})
    with pytest.raises(RulesError):
        CalculationRules(5)


def test_game_protocol():
    assert isinstance(CALCULATION, Game) and isinstance(CALCULATION, Calculation)
    assert CALCULATION.name == "calculation" and CALCULATION.decks == 1 and CALCULATION.auto_turn
    assert CALCULATION.default_rules() == CalculationRules(4, True)


# --- rule by rule --------------------------------------------------------------------------------


def after_deal(n: int = 1) -> CalculationState:
    return CALCULATION.apply(opening(n), DEAL)


def test_deal_only_when_the_waste_is_empty():
    state = after_deal()
    assert state.waste == tuple(cards("JD"))
    assert DEAL not in CALCULATION.legal_moves(state)
    with pytest.raises(IllegalMove, match="must be placed first"):
        CALCULATION.apply(state, DEAL)
    placed = CALCULATION.apply(state, Transfer(W, P(2)))
    assert placed.waste == () and placed.piles[1] == tuple(cards("JD"))
    assert DEAL in CALCULATION.legal_moves(placed)


def test_the_turned_card_goes_to_a_wanting_foundation_or_any_pile():
    state = CALCULATION.apply(CALCULATION.apply(after_deal(), Transfer(W, P(1))), DEAL)
    assert state.waste == tuple(cards("2D"))  # foundation 1 (A) wants a 2
    legal = CALCULATION.legal_moves(state)
    assert set(legal) == {Transfer(W, F(1)), *(Transfer(W, P(j)) for j in range(1, 5))}
    built = CALCULATION.apply(state, Transfer(W, F(1)))
    assert built.foundations[0] == tuple(cards("AC 2D")) and built.waste == ()
    with pytest.raises(IllegalMove, match="needs"):
        CALCULATION.apply(state, Transfer(W, F(2)))


def test_a_pile_top_plays_to_a_foundation_at_any_time():
    state = after_deal()
    state = CALCULATION.apply(state, Transfer(W, P(3)))  # J♦ on pile 3
    state = CALCULATION.apply(state, DEAL)  # 2♦
    state = CALCULATION.apply(state, Transfer(W, P(3)))  # 2♦ on J♦
    assert Transfer(P(3), F(1)) in CALCULATION.legal_moves(state)
    state = CALCULATION.apply(state, DEAL)  # 9♥ turned: pile plays stay legal with a waste card
    assert Transfer(P(3), F(1)) in CALCULATION.legal_moves(state)
    played = CALCULATION.apply(state, Transfer(P(3), F(1)))
    assert played.piles[2] == tuple(cards("JD")) and played.foundations[0][-1] == Card.parse("2D")
    assert played.waste == state.waste and played.stock == state.stock


def test_no_pile_to_pile_and_no_redeal():
    state = CALCULATION.apply(after_deal(), Transfer(W, P(1)))
    for k in range(2, 5):
        with pytest.raises(IllegalMove, match="never move from one pile to another"):
            CALCULATION.apply(state, Transfer(P(1), P(k)))
    with pytest.raises(IllegalMove, match="no redeal"):
        CALCULATION.apply(state, REDEAL)
    empty = CalculationState(state.rules, state.foundations, (), (), state.piles)
    with pytest.raises(IllegalMove):
        CALCULATION.apply(empty, DEAL)
    with pytest.raises(IllegalMove):
        CALCULATION.apply(empty, REDEAL)


def test_illegal_sources_and_targets():
    state = after_deal()
    for move in (Transfer(P(1), F(1)), Transfer(P(5), F(1)), Transfer(W, F(5)), Transfer(W, P(0)),
                 Transfer(W), Transfer(F(1), P(1))):
        with pytest.raises(IllegalMove) as caught:
            CALCULATION.apply(state, move)
        assert caught.value.legal == CALCULATION.legal_moves(state)
    with pytest.raises(IllegalMove, match="waste is empty"):
        CALCULATION.apply(opening(1), Transfer(W, P(1)))


def won_state() -> CalculationState:
    deck = new_deck()
    pool = {r: [c for c in deck if c.rank == r] for r in range(1, 14)}
    foundations = tuple(tuple(pool[r].pop() for r in seq) for seq in SEQUENCES)
    return CalculationState(CalculationRules(), foundations, (), (), ((),) * 4)


def test_outcome_won():
    state = won_state()
    assert CALCULATION.outcome(state) is Outcome.WON
    assert CALCULATION.legal_moves(state) == ()
    assert CALCULATION.cards_to_build(state) == 0
    check_invariants(state)


def test_outcome_won_by_the_last_play_and_lost_when_stuck():
    won = won_state()
    last = won.foundations[0][-1]  # a king
    before = CalculationState(won.rules, (won.foundations[0][:-1], *won.foundations[1:]), (), (last,), won.piles)
    assert CALCULATION.outcome(before) is Outcome.IN_PLAY
    assert CALCULATION.outcome(CALCULATION.apply(before, Transfer(W, F(1)))) is Outcome.WON
    # A king on a pile above the queen foundation 1 needs: stuck.
    queen = won.foundations[0][-2]
    stuck = CalculationState(won.rules, (won.foundations[0][:-2], *won.foundations[1:]), (), (),
                             ((queen, last), (), (), ()))
    assert CALCULATION.legal_moves(stuck) == ()
    assert CALCULATION.outcome(stuck) is Outcome.LOST
    check_invariants(stuck)


# --- properties over random legal games --------------------------------------------------------------


@settings(max_examples=60)
@given(deal_numbers, rules_strategy, st.data())
def test_random_legal_games(deal, rules, data):
    state = CALCULATION.opening(deal, rules)
    start = state
    moves = []
    check_invariants(state)
    for _ in range(data.draw(st.integers(0, 130), label="length")):
        legal = CALCULATION.legal_moves(state)
        if not legal:
            break
        move = data.draw(st.sampled_from(legal), label="move")
        before = snapshot(state)
        after = CALCULATION.apply(state, move)
        assert snapshot(state) == before  # apply never mutates
        check_transition(state, move, after)
        moves.append(move)
        state = after
    check_invariants(state)
    # Replaying the same moves gives an equal state.
    assert CALCULATION.play(start, moves) == state
    assert CALCULATION.play(CALCULATION.opening(deal, rules), moves) == state


def check_transition(before: CalculationState, move, after: CalculationState) -> None:
    assert after.rules == before.rules
    if isinstance(move, Deal):
        assert before.waste == () and after.waste == before.stock[:1]
        assert after.stock == before.stock[1:]
        assert after.piles == before.piles and after.foundations == before.foundations
        return
    assert isinstance(move, Transfer)
    moved = Counter(all_cards(before)) - Counter(all_cards(after))
    assert not moved  # the same cards, elsewhere
    if move.source == W:
        card = before.waste[-1]
        assert after.waste == () and after.stock == before.stock
    else:
        card = before.piles[move.source.index - 1][-1]
        assert after.piles[move.source.index - 1] == before.piles[move.source.index - 1][:-1]
        assert after.waste == before.waste
    if move.target.kind == "f":
        i = move.target.index
        assert before.needs(i) == card.rank
        assert after.foundations[i - 1] == (*before.foundations[i - 1], card)
    else:
        assert move.source == W
        assert after.piles[move.target.index - 1] == (*before.piles[move.target.index - 1], card)


@settings(max_examples=30)
@given(deal_numbers, rules_strategy)
def test_every_card_is_dealt_exactly_once(deal, rules):
    state = CALCULATION.opening(deal, rules)
    turned = []
    while state.stock:
        state = CALCULATION.apply(state, DEAL)
        turned.append(state.waste[-1])
        state = CALCULATION.apply(state, Transfer(W, P(1 + len(turned) % rules.piles)))
    assert len(turned) == (48 if rules.bases else 52)
    assert len(set(turned)) == len(turned)
    check_invariants(state)


# --- a stateful model through the protocol -----------------------------------------------------------


class CalculationMachine(RuleBasedStateMachine):
    """Random play through Game.legal_moves / Game.apply, mixing in illegal moves, which must be
    refused with the state untouched."""

    game: Game = CALCULATION

    @initialize(deal=deal_numbers, rules=rules_strategy)
    def start(self, deal, rules):
        self.state = self.game.opening(deal, rules)
        self.history = [self.state]
        self.moves = []

    @rule(data=st.data())
    def legal_move(self, data):
        legal = self.game.legal_moves(self.state)
        if not legal:
            return
        move = data.draw(st.sampled_from(legal))
        self.state = self.game.apply(self.state, move)
        self.history.append(self.state)
        self.moves.append(move)

    @rule(move=st.sampled_from(CANDIDATES))
    def maybe_illegal_move(self, move):
        before = snapshot(self.state)
        if move in self.game.legal_moves(self.state):
            self.state = self.game.apply(self.state, move)
            self.history.append(self.state)
            self.moves.append(move)
            return
        with pytest.raises(IllegalMove) as caught:
            self.game.apply(self.state, move)
        assert caught.value.legal == self.game.legal_moves(self.state)
        assert snapshot(self.state) == before

    @rule()
    def replay(self):
        assert self.game.play(self.history[0], self.moves) == self.state

    @invariant()
    def consistent(self):
        if hasattr(self, "state"):
            check_invariants(self.state)


CalculationMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=60, deadline=None)
TestCalculationMachine = CalculationMachine.TestCase


# --- the layout on a 24-row screen ---------------------------------------------------------------


def _fits_and_shows_every_pile_card(state) -> None:
    from musical_cli.render import layout, plain

    text = plain(layout(CALCULATION, state, "1", 0))
    lines = text.splitlines()
    # with the prompt and the status toolbar, the title stays on a 24-row screen
    assert len(lines) <= 21, text
    assert max(map(len, lines)) < 80, text
    assert all(line == line.rstrip() for line in lines), text
    shown = [w for line in lines[3:] for w in line.split() if w[-1] in "♣♦♥♠"]
    expected = [c for pile in state.piles for c in pile] + ([state.waste_top] if state.waste_top else [])
    assert sorted(shown) == sorted(c.text() for c in expected), text  # every card, none cut


@settings(max_examples=60)
@given(deal_numbers, rules_strategy, st.data())
def test_the_layout_fits_24_rows_however_deep_the_piles(deal, rules, data):
    """The piles are columns until one is deeper than TALL, then rows: a pile of 20 cards once
    pushed the title off a 24-row screen (new-user audit). Mostly pile placements, to grow them."""
    state = CALCULATION.opening(deal, rules)
    pile = data.draw(st.integers(1, rules.piles), label="favourite pile")
    for _ in range(data.draw(st.integers(0, 110), label="length")):
        legal = CALCULATION.legal_moves(state)
        if not legal:
            break
        onto = [m for m in legal if str(m) == f"w p{pile}"]
        move = onto[0] if onto and data.draw(st.booleans()) else data.draw(st.sampled_from(legal))
        state = CALCULATION.apply(state, move)
        _fits_and_shows_every_pile_card(state)


def test_one_pile_of_every_card_fits():
    state = CALCULATION.opening(DealNumber(7))
    while any(str(m) == "w p1" for m in CALCULATION.legal_moves(state)) or DEAL in CALCULATION.legal_moves(state):
        state = CALCULATION.apply(state, DEAL if DEAL in CALCULATION.legal_moves(state) else Transfer(W, P(1)))
    assert len(state.piles[0]) == 48
    _fits_and_shows_every_pile_card(state)
