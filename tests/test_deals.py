"""Deal numbers and the decks they name: golden layouts from DEALS.md, the generator boundary,
parsing, and properties of every shuffle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysol_cards.cards import ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

from musical_cli.cards import Card, Suit, new_deck
from musical_cli.deals import (
    MS_LIMIT,
    MS_MAX,
    MT_MAX,
    DealNumber,
    DealNumberError,
    parse_deal_range,
    random_deal_number,
    shuffled_deck,
)
from musical_cli.games.musical.rules import MUSICAL, MusicalState


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def opening(n: int | str) -> MusicalState:
    return MUSICAL.opening(DealNumber.parse(n))


# --- strategies -------------------------------------------------------------------------------

ms_numbers = st.integers(1, MS_LIMIT).map(DealNumber)
mt_numbers = st.integers(MS_LIMIT + 1, MT_MAX).map(DealNumber)
forced_ms_numbers = st.integers(1, MS_MAX).map(lambda n: DealNumber(n, ms=True))
deal_numbers = st.one_of(ms_numbers, mt_numbers, forced_ms_numbers)


# --- golden layouts (DEALS.md) ---------------------------------------------------------------


def test_deal_1_full_layout():
    state = opening(1)
    assert state.signs == tuple(cards("A♣ 2♥ 3♦ 4♠"))
    assert state.foundations == tuple((c,) for c in cards("2♣ 4♦ 6♥ 8♣"))
    assert len(state.stock) == 44
    assert list(state.stock[:10]) == cards("J♦ 2♦ 9♥ J♣ 5♦ 7♥ 7♣ 5♥ K♦ K♣")
    assert list(state.stock[-4:]) == cards("6♣ 10♣ 6♠ 9♣")
    assert state.waste == ()
    assert state.redeals_used == 0
    assert state.rules == MUSICAL.default_rules()


def test_deal_1_first_deal_turns_up_the_jack_of_diamonds():
    state = MUSICAL.apply(opening(1), MUSICAL.legal_moves(opening(1))[0])
    assert state.waste == (Card.parse("JD"),)


def test_deal_1_shuffled_list_has_the_top_of_the_stock_last():
    deck = shuffled_deck(DealNumber(1))
    assert deck[-1] == Card.parse("JD")
    # The stock's last four cards from the top (.. 6♣ 10♣ 6♠ 9♣) lie at the front of the list.
    positions = [deck.index(c) for c in cards("9♣ 6♠ 10♣ 6♣ J♦")]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("number", "signs", "bases", "top5"),
    [
        (31999, "A♥ 2♦ 3♠ 4♦", "2♣ 4♠ 6♣ 8♣", "J♦ J♥ A♦ Q♥ K♥"),
        (32000, "A♠ 2♦ 3♠ 4♠", "2♥ 4♣ 6♣ 8♥", "7♠ 4♦ J♠ 8♦ 6♦"),
    ],
)
def test_deals_across_the_generator_boundary(number, signs, bases, top5):
    state = opening(number)
    assert state.signs == tuple(cards(signs))
    assert tuple(f[0] for f in state.foundations) == tuple(cards(bases))
    assert all(len(f) == 1 for f in state.foundations)
    assert list(state.stock[:5]) == cards(top5)
    assert len(state.stock) == 44


# --- the generator boundary, against pysol-cards directly ------------------------------------


def _unshuffled() -> list[Card]:
    # Written out independently of new_deck: clubs, spades, hearts, diamonds; A..K.
    return [Card(rank, suit) for suit in (Suit.CLUBS, Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS)
            for rank in range(1, 14)]


def _microsoft(n: int) -> list[Card]:
    rng = LCRandom31(n)
    deck = ms_rearrange(_unshuffled())
    rng.reset()
    rng.shuffle(deck)
    return deck


def _mersenne(n: int) -> list[Card]:
    rng = MTRandom(n)
    deck = _unshuffled()
    rng.reset()
    rng.shuffle(deck)
    return deck


@pytest.mark.parametrize("n", [1, 2, 617, 11982, 31998, 31999])
def test_numbers_up_to_31999_use_the_microsoft_generator(n):
    deck = shuffled_deck(DealNumber(n))
    assert deck == _microsoft(n)
    assert deck != _mersenne(n)


@pytest.mark.parametrize("n", [32000, 32001, 10**6, 2**40, MT_MAX])
def test_numbers_from_32000_use_the_mersenne_twister(n):
    deck = shuffled_deck(DealNumber(n))
    assert deck == _mersenne(n)
    if n <= LCRandom31.MAX_SEED:
        assert deck != _microsoft(n)


def test_boundary_constant():
    assert MS_LIMIT == 31999


@pytest.mark.parametrize("n", [1, 5, 31999, 32000, 123456, MS_MAX])
def test_ms_prefix_forces_the_microsoft_generator(n):
    assert shuffled_deck(DealNumber(n, ms=True)) == _microsoft(n)


def test_ms5_is_deal_5():
    assert shuffled_deck(DealNumber.parse("ms5")) == shuffled_deck(DealNumber.parse("5"))
    assert MUSICAL.opening(DealNumber.parse("ms5")) == MUSICAL.opening(DealNumber(5))


@given(st.integers(1, MS_LIMIT))
def test_msn_is_n_below_the_boundary(n):
    assert shuffled_deck(DealNumber(n, ms=True)) == shuffled_deck(DealNumber(n))


@pytest.mark.parametrize("n", [32000, 32001, 99999, MS_MAX])
def test_msn_differs_from_n_from_32000(n):
    assert shuffled_deck(DealNumber(n, ms=True)) != shuffled_deck(DealNumber(n))


def test_shuffled_deck_is_repeatable_and_fresh():
    a = shuffled_deck(DealNumber(7))
    b = shuffled_deck(DealNumber(7))
    assert a == b and a is not b
    a.reverse()
    assert shuffled_deck(DealNumber(7)) == b


def test_two_decks_are_104_cards_of_each_card_twice():
    deck = shuffled_deck(DealNumber(3), decks=2)
    assert len(deck) == 104
    assert sorted(deck, key=Card.sort_key) == sorted(new_deck(2), key=Card.sort_key)


# --- properties of every deal ----------------------------------------------------------------


def reference_layout(deck: list[Card]):
    """The walk of DEALS.md, written out again for comparison with the engine."""
    sign: dict[int, Card] = {}
    base: dict[int, Card] = {}
    rest = []
    for card in deck:
        r = card.rank
        if r in (1, 2, 3, 4) and r not in sign:
            sign[r] = card
        elif r == 2 and 2 in sign and 2 not in base:
            base[2] = card
        elif r == 4 and 4 in sign and 4 not in base:
            base[4] = card
        elif r in (6, 8) and r not in base:
            base[r] = card
        else:
            rest.append(card)
    return ([sign[r] for r in (1, 2, 3, 4)], [base[r] for r in (2, 4, 6, 8)], rest[::-1])


@given(deal_numbers)
def test_every_shuffle_is_a_permutation_of_the_deck(deal):
    deck = shuffled_deck(deal)
    assert len(deck) == 52
    assert len(set(deck)) == 52
    assert set(deck) == set(new_deck())


@given(deal_numbers)
def test_every_opening_is_a_musical_layout(deal):
    state = MUSICAL.opening(deal)
    assert [c.rank for c in state.signs] == [1, 2, 3, 4]
    assert [len(f) for f in state.foundations] == [1, 1, 1, 1]
    assert [f[0].rank for f in state.foundations] == [2, 4, 6, 8]
    assert len(state.stock) == 44
    assert state.waste == ()
    everything = list(state.signs) + [f[0] for f in state.foundations] + list(state.stock)
    assert len(set(everything)) == 52
    assert set(everything) == set(new_deck())
    signs, bases, stock = reference_layout(shuffled_deck(deal))
    assert list(state.signs) == signs
    assert [f[0] for f in state.foundations] == bases
    assert list(state.stock) == stock


def test_layout_of_the_unshuffled_deck():
    # Walking A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ ... A♠ 2♠ 3♠ 4♠: the signs are clubs, the bases 2♠ 4♠ 6♣ 8♣.
    state = MUSICAL.layout(new_deck(), MUSICAL.default_rules())
    assert state.signs == tuple(cards("AC 2C 3C 4C"))
    assert tuple(f[0] for f in state.foundations) == tuple(cards("2S 4S 6C 8C"))
    assert state.stock[0] == Card.parse("KD")
    assert state.stock[-1] == Card.parse("5C")


@pytest.mark.parametrize("size", [0, 51, 53, 104])
def test_layout_needs_one_full_deck(size):
    deck = (new_deck() * 3)[:size]
    with pytest.raises(ValueError):
        MUSICAL.layout(deck, MUSICAL.default_rules())


# --- DealNumber.parse --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", DealNumber(1)),
        ("ms5", DealNumber(5, ms=True)),
        ("MS5", DealNumber(5, ms=True)),
        (" 7 ", DealNumber(7)),
        ("007", DealNumber(7)),
        ("31999", DealNumber(31999)),
        ("32000", DealNumber(32000)),
        (2**64, DealNumber(2**64)),
        (str(2**64), DealNumber(2**64)),
        (10**20, DealNumber(10**20)),
        (str(10**20), DealNumber(10**20)),
        (1, DealNumber(1)),
        (f"ms{MS_MAX}", DealNumber(MS_MAX, ms=True)),
    ],
)
def test_parse_accepts(text, expected):
    assert DealNumber.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [0, -1, "0", "-1", "ms0", "abc", "", " ", "1.5", 1.5, "1e3", 10**20 + 1, str(10**20 + 1),
     f"ms{MS_MAX + 1}", "ms", "ms-1", "5ms", "m5", "ms 5", "1 2", "+3", "0x10", "1_000", "١",
     None, True, False, "ms5ms", "-0"],
)
def test_parse_rejects_with_deal_number_error(text):
    with pytest.raises(DealNumberError) as caught:
        DealNumber.parse(text)
    assert isinstance(caught.value, ValueError)
    assert "is not a deal number" in str(caught.value)


def test_parse_rejects_a_huge_digit_string_with_deal_number_error():
    with pytest.raises(DealNumberError):
        DealNumber.parse("9" * 5000)


@given(st.one_of(st.text(max_size=30), st.integers(), st.from_regex(r"\s*(ms|MS)?-?[0-9]{1,25}\s*")))
def test_parse_never_raises_anything_but_deal_number_error(text):
    try:
        deal = DealNumber.parse(text)
    except DealNumberError:
        return
    assert 1 <= deal.number <= (MS_MAX if deal.ms else MT_MAX)
    assert DealNumber.parse(deal.text) == deal


@given(deal_numbers)
def test_text_round_trip(deal):
    assert DealNumber.parse(deal.text) == deal
    assert DealNumber.parse(str(deal)) == deal
    assert DealNumber.parse(deal.json) == deal
    assert DealNumber.parse(f"  {deal.text.upper()} ") == deal


def test_text_and_json_forms():
    assert DealNumber(5, ms=True).text == "ms5"
    assert DealNumber(5, ms=True).json == "ms5"
    assert DealNumber(5).text == "5"
    assert DealNumber(5).json == 5


@pytest.mark.parametrize(("number", "ms"), [(0, False), (-3, False), (MT_MAX + 1, False),
                                            (MS_MAX + 1, True), (0, True), ("5", False),
                                            (True, False), (2.0, False)])
def test_constructor_validates(number, ms):
    with pytest.raises(DealNumberError):
        DealNumber(number, ms=ms)


def test_successor():
    assert DealNumber(31999).successor() == DealNumber(32000)
    assert DealNumber(4, ms=True).successor() == DealNumber(5, ms=True)
    with pytest.raises(DealNumberError):
        DealNumber(MT_MAX).successor()


def test_random_deal_number_is_a_valid_plain_number():
    for _ in range(20):
        deal = random_deal_number()
        assert not deal.ms
        assert 1 <= deal.number <= 10**9
        assert DealNumber.parse(deal.text) == deal


# --- parse_deal_range ----------------------------------------------------------------------------


def test_range():
    assert parse_deal_range("3-5") == [DealNumber(3), DealNumber(4), DealNumber(5)]
    assert parse_deal_range(" 3 - 5 ") == [DealNumber(3), DealNumber(4), DealNumber(5)]
    assert parse_deal_range("7-7") == [DealNumber(7)]
    assert parse_deal_range("7") == [DealNumber(7)]
    assert parse_deal_range("ms7") == [DealNumber(7, ms=True)]
    assert parse_deal_range("ms2-ms3") == [DealNumber(2, ms=True), DealNumber(3, ms=True)]
    assert parse_deal_range("31999-32001") == [DealNumber(31999), DealNumber(32000), DealNumber(32001)]


@pytest.mark.parametrize("text", ["5-3", "5-4", "3-", "-3", "-", "", "a-b", "3-ms5", "ms3-5", "0-2", "1-2-3",
                                  "3--5", "1.5-2", f"1-{10**20 + 1}"])
def test_bad_ranges(text):
    with pytest.raises(DealNumberError):
        parse_deal_range(text)


@pytest.mark.parametrize("text", ["²", "٣", "-²"])
def test_a_digit_that_is_not_ascii_is_not_called_a_number_below_1(text):
    # "new ٣" must not say "deal numbers start at 1": a digit that is not ASCII is no number (as 'undo ²')
    with pytest.raises(DealNumberError) as info:
        DealNumber.parse(text)
    assert "start at 1" not in str(info.value)
    assert "whole number" in str(info.value)
