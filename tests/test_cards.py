"""Cards: parsing every text form, round trips, errors, and the unshuffled deck's order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from musical_cli.cards import (
    SUITS,
    Card,
    CardParseError,
    Suit,
    new_deck,
    parse_rank,
    rank_name,
)

RANK_LETTERS = "A23456789TJQK"  # rank 1..13, written out here rather than imported
SUIT_LETTERS = {"C": Suit.CLUBS, "S": Suit.SPADES, "H": Suit.HEARTS, "D": Suit.DIAMONDS}
SUIT_SYMBOLS = {"♣": Suit.CLUBS, "♠": Suit.SPADES, "♥": Suit.HEARTS, "♦": Suit.DIAMONDS}
ALL_CARDS = [Card(rank, suit) for suit in Suit for rank in range(1, 14)]

ASCII_CODES = [(r + s, Card(RANK_LETTERS.index(r) + 1, suit))
               for r in RANK_LETTERS for s, suit in SUIT_LETTERS.items()]


@pytest.mark.parametrize(("code", "card"), ASCII_CODES, ids=[c for c, _ in ASCII_CODES])
def test_parse_every_ascii_code_in_any_case(code, card):
    assert Card.parse(code) == card
    assert Card.parse(code.lower()) == card
    assert Card.parse(code[0].lower() + code[1]) == card
    assert Card.parse(code[0] + code[1].lower()) == card
    assert Card.parse(f"  {code}\t") == card


@pytest.mark.parametrize("suit", list(SUIT_LETTERS))
def test_ten_is_written_10_or_t(suit):
    assert Card.parse("10" + suit) == Card(10, SUIT_LETTERS[suit])
    assert Card.parse("10" + suit.lower()) == Card(10, SUIT_LETTERS[suit])
    assert Card.parse("T" + suit) == Card.parse("t" + suit) == Card(10, SUIT_LETTERS[suit])


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("10♦", Card(10, Suit.DIAMONDS)),
        ("A♣", Card(1, Suit.CLUBS)),
        ("Q♠", Card(12, Suit.SPADES)),
        ("K♥", Card(13, Suit.HEARTS)),
        ("2♥", Card(2, Suit.HEARTS)),
        ("j♦", Card(11, Suit.DIAMONDS)),
        ("T♣", Card(10, Suit.CLUBS)),
        # Outline suit symbols, as some keyboards produce them.
        ("A♧", Card(1, Suit.CLUBS)),
        ("5♤", Card(5, Suit.SPADES)),
        ("9♡", Card(9, Suit.HEARTS)),
        ("10♢", Card(10, Suit.DIAMONDS)),
    ],
)
def test_parse_unicode_forms(text, card):
    assert Card.parse(text) == card


@pytest.mark.parametrize("card", ALL_CARDS, ids=[c.code for c in ALL_CARDS])
def test_round_trip_through_code_and_symbol(card):
    assert Card.parse(card.code) == card
    assert Card.parse(card.symbol) == card
    assert Card.parse(card.text(ascii=True)) == card
    assert Card.parse(card.text()) == card
    assert Card.parse(str(card)) == card
    assert eval(repr(card), {"Card": Card}) == card


def test_text_forms_are_as_documented():
    ten_d = Card(10, Suit.DIAMONDS)
    assert ten_d.code == "TD" and ten_d.symbol == "10♦"
    assert str(ten_d) == "TD"
    assert Card(1, Suit.CLUBS).symbol == "A♣"
    assert Card(13, Suit.SPADES).code == "KS"
    assert len({c.code for c in ALL_CARDS}) == 52
    assert len({c.symbol for c in ALL_CARDS}) == 52
    assert all(len(c.code) == 2 for c in ALL_CARDS)


def test_suit_colours():
    assert [s.red for s in SUITS] == [False, False, True, True]


@pytest.mark.parametrize("text", ["", " ", "A", "1C", "ZZ", "AX", "11H", "0S", "1♣", "AC♣", "A C C",
                                  "♣A", "CA", "10", "KK", "+1C", "-1C", "1 0C"])
def test_bad_text_is_a_card_parse_error(text):
    with pytest.raises(CardParseError) as caught:
        Card.parse(text)
    assert isinstance(caught.value, ValueError)
    # The error names the offending text (the whole card, or only its suit: see below).
    assert caught.value.text in text
    assert repr(caught.value.text) in str(caught.value)


@pytest.mark.parametrize("text", ["AX", "10Z"])
def test_bad_suit_error_names_the_whole_card_text(text):
    with pytest.raises(CardParseError) as caught:
        Card.parse(text)
    assert caught.value.text == text


def test_card_parse_error_is_a_value_error():
    assert issubclass(CardParseError, ValueError)


@pytest.mark.parametrize("rank", [0, 14, -1])
def test_card_rejects_ranks_out_of_range(rank):
    with pytest.raises(CardParseError):
        Card(rank, Suit.CLUBS)


def test_card_rejects_a_suit_that_is_not_a_suit():
    with pytest.raises(CardParseError):
        Card(1, "C")  # type: ignore[arg-type]


def test_parse_rank_and_rank_name():
    for rank, letter in enumerate(RANK_LETTERS, 1):
        assert parse_rank(letter) == rank
        assert parse_rank(letter.lower()) == rank
        assert parse_rank(rank_name(rank)) == rank
    assert parse_rank("10") == 10
    assert [rank_name(r) for r in range(1, 14)] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                   "J", "Q", "K"]
    with pytest.raises(CardParseError):
        parse_rank("1")
    with pytest.raises(CardParseError):
        parse_rank("11")


def test_new_deck_order_clubs_spades_hearts_diamonds_ace_to_king():
    deck = new_deck()
    assert len(deck) == 52
    assert [c.code for c in deck[:13]] == [r + "C" for r in RANK_LETTERS]
    assert [c.code for c in deck[13:26]] == [r + "S" for r in RANK_LETTERS]
    assert [c.code for c in deck[26:39]] == [r + "H" for r in RANK_LETTERS]
    assert [c.code for c in deck[39:]] == [r + "D" for r in RANK_LETTERS]
    assert deck == ALL_CARDS


def test_new_deck_two_decks_is_the_deck_twice():
    assert new_deck(2) == ALL_CARDS + ALL_CARDS


def test_new_deck_returns_a_fresh_list():
    deck = new_deck()
    deck.reverse()
    assert new_deck()[0] == Card(1, Suit.CLUBS)


def test_sort_key_is_rank_then_deck_suit_order():
    shuffled = sorted(ALL_CARDS, key=lambda c: (c.suit.code, -c.rank))
    ordered = sorted(shuffled, key=Card.sort_key)
    assert [c.code for c in ordered[:4]] == ["AC", "AS", "AH", "AD"]
    assert [c.code for c in ordered[-4:]] == ["KC", "KS", "KH", "KD"]


def test_cards_are_frozen_values():
    card = Card.parse("QS")
    with pytest.raises(AttributeError):
        card.rank = 1  # type: ignore[misc]
    assert hash(card) == hash(Card(12, Suit.SPADES))


@given(st.text(max_size=6))
def test_parse_any_text_gives_a_card_or_a_card_parse_error(text):
    try:
        card = Card.parse(text)
    except CardParseError:
        return
    assert isinstance(card, Card)
    assert Card.parse(card.code) == card


@given(st.sampled_from(ALL_CARDS), st.sampled_from(["", " ", "  \t"]), st.booleans(), st.booleans())
def test_round_trip_with_spaces_and_case(card, pad, lower, symbol):
    text = card.symbol if symbol else card.code
    if lower:
        text = text.lower()
    assert Card.parse(pad + text + pad) == card
