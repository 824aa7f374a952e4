"""The Musical engine against RULES.md §1: unit tests of every rule, properties over random games,
and a stateful model that mixes legal and illegal moves."""

from __future__ import annotations

import copy
import gettext
import re

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from musical_cli import i18n
from musical_cli.cards import Card, new_deck
from musical_cli.deals import MS_LIMIT, MS_MAX, MT_MAX, DealNumber
from musical_cli.game import Game, IllegalMove, Outcome, RulesError
from musical_cli.games.musical.rules import (
    BASE_RANKS,
    FOUNDATION_SIZE,
    MUSICAL,
    SEQUENCES,
    SIGN_RANKS,
    Musical,
    MusicalRules,
    MusicalState,
    foundation_rank,
    parse_redeals,
)
from musical_cli.moves import DEAL, REDEAL, Deal, F, P, Redeal, Transfer, W

# The table of RULES.md §1, copied by hand (A=1, J=11, Q=12, K=13).
RULES_TABLE = (
    (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    (4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11, 13),
    (6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 13),
    (8, 12, 3, 7, 11, 2, 6, 10, 1, 5, 9, 13),
)

WF = tuple(Transfer(W, F(i)) for i in range(1, 5))
# Every move worth trying in Musical: the legal kinds, and some that are never legal.
CANDIDATES = (DEAL, REDEAL, *WF, Transfer(W, P(1)), Transfer(P(1), F(1)), Transfer(W, F(5)), Transfer(W))
NEVER_LEGAL = (Transfer(W, P(1)), Transfer(P(1), F(1)), Transfer(W, F(5)), Transfer(W))

deal_numbers = st.one_of(
    st.integers(1, MS_LIMIT).map(DealNumber),
    st.integers(MS_LIMIT + 1, MT_MAX).map(DealNumber),
    st.integers(1, MS_MAX).map(lambda n: DealNumber(n, ms=True)),
)
rules_strategy = st.sampled_from([MusicalRules(), MusicalRules(0), MusicalRules(1), MusicalRules(3),
                                  MusicalRules(None)])


def deal1() -> MusicalState:
    return MUSICAL.opening(DealNumber(1))


def all_cards(state: MusicalState) -> list[Card]:
    return [*state.signs, *(c for f in state.foundations for c in f), *state.stock, *state.waste]


def snapshot(state: MusicalState) -> tuple:
    """An independent copy of a state's contents (cheaper than a deepcopy), to compare after."""
    return (state.rules.redeals, tuple(c.code for c in state.signs),
            tuple(tuple(c.code for c in f) for f in state.foundations),
            tuple(c.code for c in state.stock), tuple(c.code for c in state.waste), state.redeals_used)


def accepted(state: MusicalState) -> set:
    ok = set()
    for move in CANDIDATES:
        try:
            MUSICAL.apply(state, move)
        except IllegalMove:
            continue
        ok.add(move)
    return ok


def check_invariants(state: MusicalState) -> None:
    # Card conservation: 52 distinct cards, the whole deck.
    cards = all_cards(state)
    assert len(cards) == 52
    assert set(cards) == set(new_deck())
    # Signs never change; foundations only ever hold their sequence.
    assert [c.rank for c in state.signs] == [1, 2, 3, 4]
    for i, f in enumerate(state.foundations):
        assert 1 <= len(f) <= FOUNDATION_SIZE
        assert tuple(c.rank for c in f) == SEQUENCES[i][:len(f)]
    # Counting.
    built = sum(len(f) - 1 for f in state.foundations)
    assert MUSICAL.cards_to_build(state) == len(state.stock) + len(state.waste) == 44 - built
    # Redeals.
    assert state.redeals_used >= 0
    if state.rules.redeals is not None:
        assert state.redeals_used <= state.rules.redeals
    # Legal moves: no duplicates, and exactly the candidates apply accepts.
    legal = MUSICAL.legal_moves(state)
    assert len(set(legal)) == len(legal)
    assert set(legal) == accepted(state)
    # Outcome.
    outcome = MUSICAL.outcome(state)
    won = all(len(f) == FOUNDATION_SIZE for f in state.foundations)
    if won:
        assert outcome is Outcome.WON
        assert MUSICAL.cards_to_build(state) == 0
        assert legal == ()
    elif not legal:
        assert outcome is Outcome.LOST
        assert not state.stock
        assert state.waste  # otherwise every card would be built
        assert state.redeals_left == 0
        assert not state.wanting(state.waste[-1].rank)
    else:
        assert outcome is Outcome.IN_PLAY


def check_transition(before: MusicalState, move, after: MusicalState) -> None:
    """What each kind of move does, spelt out from RULES.md."""
    assert after.rules == before.rules and after.signs == before.signs
    if isinstance(move, Deal):
        assert after.stock == before.stock[1:]
        assert after.waste == (*before.waste, before.stock[0])
        assert after.foundations == before.foundations
        assert after.redeals_used == before.redeals_used
    elif isinstance(move, Redeal):
        assert before.stock == ()
        assert after.stock == before.waste  # unshuffled: the same order as the previous pass
        assert after.waste == ()
        assert after.redeals_used == before.redeals_used + 1
        assert after.foundations == before.foundations
    else:
        i = move.target.index
        card = before.waste[-1]
        assert card.rank == before.needs(i)
        assert after.waste == before.waste[:-1]
        assert after.stock == before.stock
        assert after.foundations[i - 1] == (*before.foundations[i - 1], card)
        assert all(after.foundations[j] == before.foundations[j] for j in range(4) if j != i - 1)
        assert after.redeals_used == before.redeals_used


# --- the foundation sequences ----------------------------------------------------------------


def test_sequences_are_the_rules_table():
    assert SEQUENCES == RULES_TABLE
    assert SIGN_RANKS == (1, 2, 3, 4)
    assert BASE_RANKS == (2, 4, 6, 8)
    assert FOUNDATION_SIZE == 12


def test_foundation_rank_formula():
    for i in range(1, 5):
        for j in range(12):
            assert foundation_rank(i, j) == RULES_TABLE[i - 1][j]


def test_foundations_together_hold_every_card_but_the_signs():
    ranks = sorted(r for seq in SEQUENCES for r in seq)
    expected = sorted([r for r in range(1, 14) for _ in range(4)])
    for r in SIGN_RANKS:
        expected.remove(r)
    assert ranks == expected


# --- the opening -------------------------------------------------------------------------------


def test_opening_is_in_play_and_only_a_deal_is_legal():
    state = deal1()
    assert MUSICAL.outcome(state) is Outcome.IN_PLAY
    assert MUSICAL.legal_moves(state) == (DEAL,)
    assert MUSICAL.cards_to_build(state) == 44
    assert state.pass_number == 1 and state.passes == 3 and state.redeals_left == 2
    assert [state.needs(i) for i in range(1, 5)] == [3, 6, 9, 12]
    check_invariants(state)


def test_game_protocol():
    assert isinstance(MUSICAL, Game) and isinstance(MUSICAL, Musical)
    assert MUSICAL.name == "musical" and MUSICAL.decks == 1
    assert MUSICAL.opening(DealNumber(1), MusicalRules(0)).rules == MusicalRules(0)
    assert MUSICAL.opening(DealNumber(1)).rules == MusicalRules(2)


def _shout(message: str) -> str:
    """The words in capitals, the placeholders as they are."""
    return "".join(part if part.startswith("{") else part.upper() for part in re.split(r"(\{[^{}]*\})", message))


class _Shouting(gettext.NullTranslations):
    """A language whose every word is the English in capitals: what a catalog gives is seen."""

    def gettext(self, message):
        return _shout(message)

    def ngettext(self, singular, plural, n):
        return _shout(singular if n == 1 else plural)

    def pgettext(self, context, message):
        return _shout(message)


@pytest.fixture
def shouting(monkeypatch):
    monkeypatch.setattr(i18n, "_translation", _Shouting())


def test_a_games_words_for_people_are_in_the_language_in_use(shouting):
    """Its title, its variants' titles, its baseline and what its moves do are for people; its
    name and its notation are for programs, the same in every language."""
    assert (MUSICAL.name, MUSICAL.title, Musical.title) == ("musical", "MUSICAL", "MUSICAL")
    assert MUSICAL.greedy_text == "ALWAYS PLAYING TO THE LOWEST FOUNDATION THAT TAKES A CARD"
    assert MUSICAL.variant_title(MusicalRules(1)) == "MUSICAL WITH 1 REDEAL"
    assert MUSICAL.notation_for(MusicalRules()) == tuple((u, m.upper()) for u, m in MUSICAL.notation)
    assert MUSICAL.move_examples() == ("d", "w f2", "redeal")

    class Other(Musical):  # a game's subclass, as a plug-in writes it: the title a plain str
        title = "Other"

    assert (Other().title, Other().greedy_text) == ("OTHER", MUSICAL.greedy_text)


def test_an_illegal_move_is_refused_in_the_language_in_use(shouting):
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(deal1(), Transfer(W, F(2)))
    assert str(caught.value) == "w f2: THE WASTE IS EMPTY; DEAL A CARD FIRST; LEGAL NOW: d"
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(deal1(), Transfer(P(1), F(1)))
    assert "MUSICAL HAS NO PILE 1;" in str(caught.value)


# --- deal ---------------------------------------------------------------------------------------


def test_deal_turns_the_top_of_the_stock_onto_the_waste():
    state = deal1()
    after = MUSICAL.apply(state, DEAL)
    assert after.waste == (Card.parse("JD"),)
    assert after.stock == state.stock[1:]
    after2 = MUSICAL.apply(after, DEAL)
    assert after2.waste == (Card.parse("JD"), Card.parse("2D"))
    assert after2.waste_top == Card.parse("2D")
    check_transition(after, DEAL, after2)


def test_deal_is_allowed_past_a_playable_card(position):
    state = position(waste=(3,))  # foundation 1 wants the 3
    assert set(MUSICAL.legal_moves(state)) == {DEAL, WF[0]}
    after = MUSICAL.apply(state, DEAL)
    assert after.waste[:-1] == state.waste


def test_deal_refused_when_the_stock_is_empty(position):
    state = position(waste=(5,), rest="waste")
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, DEAL)
    assert "the stock is empty" in str(caught.value)
    assert "redeal to turn the waste over" in str(caught.value)
    assert caught.value.legal == (REDEAL,)


def test_deal_refused_with_no_advice_when_no_redeal_is_left(position):
    state = position(waste=(5,), rest="waste", redeals_used=2)
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, DEAL)
    assert "redeal" not in caught.value.reason
    assert "no move is legal now" in str(caught.value)


# --- play ---------------------------------------------------------------------------------------


def test_play_to_the_foundation_whose_next_rank_it_is(position):
    state = position(waste=(3,))
    card = state.waste_top
    after = MUSICAL.apply(state, Transfer(W, F(1)))
    assert after.foundations[0] == (*state.foundations[0], card)
    assert after.waste == ()
    assert after.needs(1) == 4
    assert MUSICAL.cards_to_build(after) == MUSICAL.cards_to_build(state) - 1
    check_transition(state, Transfer(W, F(1)), after)


@pytest.mark.parametrize(("heights", "rank", "i"), [
    ((1, 1, 1, 1), 6, 2), ((1, 1, 1, 1), 9, 3), ((1, 1, 1, 1), 12, 4),
    ((12, 1, 1, 1), 6, 2), ((1, 5, 1, 1), 1, 2),  # foundation 2 wraps: .. Q then A
    ((1, 1, 11, 1), 13, 3), ((1, 1, 1, 8), 1, 4), ((1, 1, 1, 9), 5, 4),
])
def test_play_each_foundation(position, heights, rank, i):
    state = position(heights, waste=(rank,))
    assert Transfer(W, F(i)) in MUSICAL.legal_moves(state)
    after = MUSICAL.apply(state, Transfer(W, F(i)))
    assert after.foundations[i - 1][-1].rank == rank
    check_invariants(after)


def test_suits_never_matter(position):
    state = position(waste=(3,))
    for card in [c for c in new_deck() if c.rank == 3]:
        if card in state.signs:
            continue
        stock = tuple(c for c in state.stock + state.waste if c != card)
        variant = MusicalState(state.rules, state.signs, state.foundations, stock, (card,))
        assert MUSICAL.apply(variant, Transfer(W, F(1))).foundations[0][-1] == card


def test_refusal_names_the_foundation_need_the_waste_card_and_legal_moves():
    state = MUSICAL.apply(deal1(), DEAL)  # J♦ on the waste; no foundation wants a jack
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, Transfer(W, F(3)))
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.move == Transfer(W, F(3))
    assert "foundation 3 needs a 9" in error.reason
    assert error.legal == (DEAL,) == MUSICAL.legal_moves(state)
    assert error.cards == (Card.parse("JD"),)
    message = str(error)
    assert message.startswith("w f3: ")
    assert "foundation 3 needs a 9" in message
    assert "J♦" in message
    assert "legal now: d" in message
    assert "JD" in error.text(ascii=True) and "J♦" not in error.text(ascii=True)


@pytest.mark.parametrize(("heights", "rank", "i", "words"), [
    ((1, 2, 1, 1), 5, 2, "foundation 2 needs an 8"),
    ((1, 5, 1, 1), 5, 2, "foundation 2 needs an A"),
    ((1, 1, 1, 1), 5, 4, "foundation 4 needs a Q"),
    ((8, 1, 1, 1), 5, 1, "foundation 1 needs a 10"),
    ((1, 1, 2, 1), 5, 3, "foundation 3 needs a Q"),
])
def test_refusal_articles(position, heights, rank, i, words):
    state = position(heights, waste=(rank,))
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, Transfer(W, F(i)))
    assert words in str(caught.value)


def test_play_refused_from_an_empty_waste():
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(deal1(), Transfer(W, F(1)))
    assert "the waste is empty" in str(caught.value)
    assert caught.value.legal == (DEAL,)


def test_complete_foundation_takes_nothing(position):
    state = position((12, 1, 1, 1), waste=(13,))
    assert state.needs(1) is None
    assert state.wanting(13) == ()
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, Transfer(W, F(1)))
    assert "foundation 1 is complete" in str(caught.value)
    assert MUSICAL.legal_moves(state) == (DEAL,)


def test_complete_foundation_refuses_a_card_another_foundation_wants(position):
    state = position((12, 1, 1, 1), waste=(6,))
    assert MUSICAL.legal_moves(state) == (Transfer(W, F(2)), DEAL)
    with pytest.raises(IllegalMove, match="foundation 1 is complete"):
        MUSICAL.apply(state, Transfer(W, F(1)))


def test_player_chooses_when_several_foundations_want_the_card(position):
    state = position((4, 1, 1, 1), waste=(6,))  # foundation 1 (2 3 4 5) and 2 (4) both want a 6
    assert state.wanting(6) == (1, 2)
    assert MUSICAL.legal_moves(state) == (Transfer(W, F(1)), Transfer(W, F(2)), DEAL)
    one = MUSICAL.apply(state, Transfer(W, F(1)))
    two = MUSICAL.apply(state, Transfer(W, F(2)))
    assert one != two
    assert len(one.foundations[0]) == 5 and len(two.foundations[1]) == 2
    with pytest.raises(IllegalMove, match="say which foundation"):
        MUSICAL.apply(state, Transfer(W))


def test_play_without_a_target_is_refused(position):
    state = position(waste=(3,))
    with pytest.raises(IllegalMove, match="say which foundation takes"):
        MUSICAL.apply(state, Transfer(W))
    state = position(waste=(5,))
    with pytest.raises(IllegalMove, match="no foundation takes"):
        MUSICAL.apply(state, Transfer(W))


@pytest.mark.parametrize(("move", "words"), [
    (Transfer(W, P(1)), "pile 1 is not a foundation"),
    (Transfer(W, F(5)), "f1 to f4"),
    (Transfer(W, F(0)), "f1 to f4"),
    (Transfer(W, W), "the waste is not a foundation"),
    (Transfer(P(1), F(1)), "Musical has no pile 1"),
    (Transfer(F(2), F(1)), "only the waste's top card is played"),
])
def test_only_the_waste_top_goes_only_to_a_foundation(position, move, words):
    state = position(waste=(3,))
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, move)
    assert words in str(caught.value)
    assert caught.value.move == move


def test_apply_rejects_what_is_not_a_move():
    with pytest.raises(TypeError):
        MUSICAL.apply(deal1(), "d")


# --- redeal -------------------------------------------------------------------------------------


def deal_through(state: MusicalState) -> MusicalState:
    while state.stock:
        state = MUSICAL.apply(state, DEAL)
    return state


def test_redeal_turns_the_waste_over_unshuffled():
    opening = deal1()
    end = deal_through(opening)
    # The waste lists its bottom first: the first card dealt (J♦) lies at the bottom.
    assert end.waste == opening.stock
    assert end.waste_top == opening.stock[-1]
    assert REDEAL in MUSICAL.legal_moves(end) and DEAL not in MUSICAL.legal_moves(end)
    again = MUSICAL.apply(end, REDEAL)
    assert again.stock == opening.stock  # the cards come out in the same order as before
    assert again.waste == ()
    assert again.redeals_used == 1 and again.pass_number == 2 and again.redeals_left == 1
    assert MUSICAL.apply(again, DEAL).waste == (Card.parse("JD"),)


def test_redeal_keeps_order_after_plays(position):
    state = position(waste=(7, 3), rest="waste")
    after = MUSICAL.apply(MUSICAL.apply(state, Transfer(W, F(1))), REDEAL)
    assert after.stock == state.waste[:-1]


def test_redeal_refused_while_the_stock_has_cards():
    state = MUSICAL.apply(deal1(), DEAL)
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, REDEAL)
    assert "the stock still has 43 cards" in str(caught.value)
    one_left = deal_through(deal1())
    one_left = MusicalState(one_left.rules, one_left.signs, one_left.foundations,
                            one_left.waste[-1:], one_left.waste[:-1])
    with pytest.raises(IllegalMove, match="still has 1 card;"):
        MUSICAL.apply(one_left, REDEAL)


def test_redeal_refused_when_the_waste_is_empty(position):
    won = position((12, 12, 12, 12))
    assert won.stock == () and won.waste == ()
    with pytest.raises(IllegalMove, match="the waste is empty"):
        MUSICAL.apply(won, REDEAL)
    with pytest.raises(IllegalMove, match="the stock is empty"):
        MUSICAL.apply(won, DEAL)


@pytest.mark.parametrize("redeals", [0, 1, 2, 3])
def test_at_most_rules_redeals(redeals):
    state = MUSICAL.opening(DealNumber(1), MusicalRules(redeals))
    for used in range(redeals):
        state = MUSICAL.apply(deal_through(state), REDEAL)
        assert state.redeals_used == used + 1
    state = deal_through(state)
    assert state.redeals_left == 0
    assert REDEAL not in MUSICAL.legal_moves(state)
    with pytest.raises(IllegalMove) as caught:
        MUSICAL.apply(state, REDEAL)
    assert f"no redeal is left (the rules allow {redeals})" in str(caught.value)


def test_default_rules_allow_two_redeals_three_passes():
    assert MusicalRules().redeals == 2
    state = deal1()
    state = MUSICAL.apply(deal_through(state), REDEAL)
    state = MUSICAL.apply(deal_through(state), REDEAL)
    with pytest.raises(IllegalMove):
        MUSICAL.apply(deal_through(state), REDEAL)


def test_unlimited_redeals():
    state = MUSICAL.opening(DealNumber(1), MusicalRules(None))
    assert state.passes is None and state.redeals_left is None
    for _ in range(25):
        state = MUSICAL.apply(deal_through(state), REDEAL)
    assert state.redeals_used == 25
    assert MUSICAL.outcome(deal_through(state)) is Outcome.IN_PLAY
    assert REDEAL in MUSICAL.legal_moves(deal_through(state))


# --- won, lost, in play ---------------------------------------------------------------------


def test_won(position):
    near = position((12, 12, 12, 11), waste=(13,))
    assert near.stock == () and len(near.waste) == 1
    assert MUSICAL.outcome(near) is Outcome.IN_PLAY
    assert MUSICAL.legal_moves(near) == (Transfer(W, F(4)), REDEAL)
    check_invariants(near)
    won = MUSICAL.apply(near, Transfer(W, F(4)))
    assert MUSICAL.outcome(won) is Outcome.WON
    assert MUSICAL.legal_moves(won) == ()
    assert MUSICAL.cards_to_build(won) == 0
    check_invariants(won)


@pytest.mark.parametrize("rules", [MusicalRules(0), MusicalRules(2), MusicalRules(None)])
def test_won_whatever_the_rules(position, rules):
    assert MUSICAL.outcome(position((12, 12, 12, 12), rules=rules)) is Outcome.WON


def test_lost(position):
    lost = position(waste=(5,), rest="waste", redeals_used=2)  # no foundation wants a 5
    assert MUSICAL.legal_moves(lost) == ()
    assert MUSICAL.outcome(lost) is Outcome.LOST
    assert MUSICAL.cards_to_build(lost) == 44
    check_invariants(lost)


def test_not_lost_while_a_redeal_is_left(position):
    state = position(waste=(5,), rest="waste", redeals_used=1)
    assert MUSICAL.legal_moves(state) == (REDEAL,)
    assert MUSICAL.outcome(state) is Outcome.IN_PLAY
    assert MUSICAL.outcome(MUSICAL.apply(state, REDEAL)) is Outcome.IN_PLAY


def test_not_lost_while_the_waste_top_fits(position):
    state = position(waste=(3,), rest="waste", redeals_used=2)
    assert MUSICAL.legal_moves(state) == (Transfer(W, F(1)),)
    assert MUSICAL.outcome(state) is Outcome.IN_PLAY


def test_lost_at_once_with_no_redeals(position):
    state = position(waste=(5,), rest="waste", rules=MusicalRules(0))
    assert MUSICAL.outcome(state) is Outcome.LOST


def test_never_lost_with_unlimited_redeals(position):
    state = position(waste=(5,), rest="waste", redeals_used=99, rules=MusicalRules(None))
    assert MUSICAL.legal_moves(state) == (REDEAL,)
    assert MUSICAL.outcome(state) is Outcome.IN_PLAY


def test_lost_after_three_passes_without_playing():
    # Deal 1 with no plays until the third pass ends: its last cards .. 10♣ 6♠ 9♣ then give
    # 9♣ to foundation 3 (6 9), 6♠ to foundation 2 (4 6), and 10♣ fits nowhere.
    state = deal1()
    for _ in range(2):
        state = MUSICAL.apply(deal_through(state), REDEAL)
    state = deal_through(state)
    assert MUSICAL.legal_moves(state) == (Transfer(W, F(3)),)
    state = MUSICAL.apply(state, Transfer(W, F(3)))
    assert state.waste_top == Card.parse("6S")
    assert MUSICAL.outcome(state) is Outcome.IN_PLAY
    assert MUSICAL.legal_moves(state) == (Transfer(W, F(2)),)
    state = MUSICAL.apply(state, Transfer(W, F(2)))
    assert state.waste_top == Card.parse("TC")
    assert MUSICAL.legal_moves(state) == ()
    assert MUSICAL.outcome(state) is Outcome.LOST
    assert MUSICAL.cards_to_build(state) == 42


# --- IllegalMove ----------------------------------------------------------------------------


def test_illegal_move_is_a_value_error_with_its_parts():
    assert issubclass(IllegalMove, ValueError)
    error = IllegalMove(DEAL, "because {}", [REDEAL, WF[0]], [Card.parse("TD")])
    assert error.move == DEAL and error.reason == "because {}"
    assert error.legal == (REDEAL, WF[0])
    assert str(error) == "d: because 10♦; legal now: redeal, w f1"
    assert error.text(ascii=True) == "d: because TD; legal now: redeal, w f1"
    assert str(IllegalMove(REDEAL, "no", [])) == "redeal: no; no move is legal now"


# --- rules -------------------------------------------------------------------------------------


def test_rule_options():
    assert MUSICAL.rules_from_options({}) == MusicalRules(2)
    assert MUSICAL.rules_from_options({"redeals": "0"}) == MusicalRules(0)
    assert MUSICAL.rules_from_options({"redeals": " Unlimited "}) == MusicalRules(None)
    for rules in (MusicalRules(0), MusicalRules(2), MusicalRules(7), MusicalRules(None)):
        assert MUSICAL.rules_from_options(MUSICAL.rules_options(rules)) == rules
    assert MUSICAL.rules_options(MusicalRules(None)) == {"redeals": "unlimited"}
    with pytest.raises(RulesError, match="no rule option 'wrap'"):
        MUSICAL.rules_from_options({"wrap": "yes"})


@pytest.mark.parametrize("bad", [-1, True, "2", 1.5])
def test_rules_reject_bad_redeals(bad):
    with pytest.raises(RulesError):
        MusicalRules(bad)


@pytest.mark.parametrize("bad", ["", "two", "1.5", "-2"])
def test_parse_redeals_rejects(bad):
    with pytest.raises(RulesError):
        parse_redeals(bad)
    assert issubclass(RulesError, ValueError)


# --- properties over random games ------------------------------------------------------------


def random_game(data, deal, rules, limit=250):
    """Play random legal moves from the opening; return the opening, the moves and every state."""
    state = MUSICAL.opening(deal, rules)
    states, moves = [state], []
    for _ in range(limit):
        legal = MUSICAL.legal_moves(state)
        if not legal:
            break
        move = legal[0] if len(legal) == 1 else data.draw(st.sampled_from(legal))
        state = MUSICAL.apply(state, move)
        moves.append(move)
        states.append(state)
    return moves, states


@settings(max_examples=40)  # 40 whole games: the property, at a cost the quick run keeps
@given(st.data(), deal_numbers, rules_strategy)
def test_random_games_keep_every_invariant(data, deal, rules):
    state = MUSICAL.opening(deal, rules)
    check_invariants(state)
    for _ in range(250):
        legal = MUSICAL.legal_moves(state)
        if not legal:
            break
        move = legal[0] if len(legal) == 1 else data.draw(st.sampled_from(legal))
        saved, saved_hash = snapshot(state), hash(state)
        after = MUSICAL.apply(state, move)
        assert snapshot(state) == saved and hash(state) == saved_hash  # apply never mutates its input
        check_transition(state, move, after)
        check_invariants(after)
        state = after
    event(f"outcome: {MUSICAL.outcome(state)}, redeals used: {state.redeals_used}")
    if MUSICAL.outcome(state) is not Outcome.IN_PLAY:
        assert MUSICAL.legal_moves(state) == ()


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(st.data(), deal_numbers, rules_strategy)
def test_replaying_the_same_moves_gives_the_same_states(data, deal, rules):
    moves, states = random_game(data, deal, rules)
    replayed = [MUSICAL.opening(deal, rules)]
    for move in moves:
        replayed.append(MUSICAL.apply(replayed[-1], move))
    assert replayed == states
    assert MUSICAL.play(MUSICAL.opening(deal, rules), moves) == states[-1]
    assert hash(replayed[-1]) == hash(states[-1])


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(st.data(), deal_numbers)
def test_states_are_frozen(data, deal):
    moves, states = random_game(data, deal, MusicalRules(), limit=60)
    state = states[-1]
    for field in ("stock", "waste", "foundations", "signs", "redeals_used", "rules"):
        with pytest.raises(AttributeError):
            setattr(state, field, ())
    assert all(isinstance(f, tuple) for f in state.foundations)
    assert isinstance(state.stock, tuple) and isinstance(state.waste, tuple)


@given(st.data(), deal_numbers, rules_strategy)
def test_illegal_candidates_raise_and_leave_the_state_alone(data, deal, rules):
    _, states = random_game(data, deal, rules, limit=data.draw(st.integers(0, 200)))
    state = states[-1]
    saved = copy.deepcopy(state)
    legal = MUSICAL.legal_moves(state)
    for move in CANDIDATES:
        if move in legal:
            continue
        with pytest.raises(IllegalMove) as caught:
            MUSICAL.apply(state, move)
        assert caught.value.move == move
        assert caught.value.legal == legal
        assert state == saved


# --- a stateful model ---------------------------------------------------------------------------


class MusicalMachine(RuleBasedStateMachine):
    """Random legal moves, greedy plays and illegal attempts from a random deal and rules."""

    def __init__(self):
        super().__init__()
        self.state: MusicalState | None = None

    @initialize(deal=deal_numbers, rules=rules_strategy)
    def start(self, deal, rules):
        self.deal, self.rules = deal, rules
        self.state = MUSICAL.opening(deal, rules)
        self.moves = []

    def _apply(self, move):
        before, saved = self.state, copy.deepcopy(self.state)
        after = MUSICAL.apply(before, move)
        assert before == saved
        check_transition(before, move, after)
        self.state = after
        self.moves.append(move)

    @precondition(lambda self: self.state is not None and MUSICAL.legal_moves(self.state))
    @rule(data=st.data())
    def play_a_legal_move(self, data):
        self._apply(data.draw(st.sampled_from(MUSICAL.legal_moves(self.state)), label="move"))

    @precondition(lambda self: self.state is not None and MUSICAL.legal_moves(self.state))
    @rule()
    def play_greedily(self):
        # Build whenever possible: this reaches late positions that random play seldom does.
        legal = MUSICAL.legal_moves(self.state)
        plays = [m for m in legal if isinstance(m, Transfer)]
        self._apply(plays[0] if plays else legal[0])

    @precondition(lambda self: self.state is not None and self.state.stock)
    @rule()
    def deal_to_the_end_of_the_pass(self):
        # Reach redeals, and the end of the game, within the step budget.
        while self.state.stock:
            self._apply(DEAL)

    @precondition(lambda self: self.state is not None)
    @rule(data=st.data())
    def try_an_illegal_move(self, data):
        legal = MUSICAL.legal_moves(self.state)
        illegal = [m for m in CANDIDATES if m not in legal]
        assert set(NEVER_LEGAL) <= set(illegal)
        move = data.draw(st.sampled_from(illegal), label="illegal move")
        saved, saved_hash = copy.deepcopy(self.state), hash(self.state)
        with pytest.raises(IllegalMove) as caught:
            MUSICAL.apply(self.state, move)
        assert caught.value.move == move
        assert caught.value.legal == legal
        assert self.state == saved and hash(self.state) == saved_hash

    @precondition(lambda self: self.state is not None)
    @invariant()
    def invariants_hold(self):
        check_invariants(self.state)

    def teardown(self):
        if self.state is not None:
            event(f"machine ended {MUSICAL.outcome(self.state)} after {self.state.redeals_used} redeals")

    @precondition(lambda self: self.state is not None)
    @invariant()
    def replay_reaches_the_same_state(self):
        assert MUSICAL.play(MUSICAL.opening(self.deal, self.rules), self.moves) == self.state


MusicalMachine.TestCase.settings = settings(
    max_examples=max(10, settings.default.max_examples // 4),
    stateful_step_count=120,
    deadline=None,
)
TestMusicalMachine = MusicalMachine.TestCase
