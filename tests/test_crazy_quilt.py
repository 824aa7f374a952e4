"""The Crazy Quilt engine against RULES.md §3 and DEALS.md ("Crazy Quilt"): golden deals written
out card by card, the availability rule, every kind of illegal move with its reason, rule
options, Persian Rug's "no move can ever lead on", a hypothesis state machine over random legal
games, and golden renderings of the view."""

from __future__ import annotations

import gettext
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from pysol_cards.random import LCRandom31, MTRandom

from musical_cli import i18n, notation
from musical_cli.cards import SUITS, Card, new_deck
from musical_cli.deals import MS_LIMIT, DealNumber
from musical_cli.game import IllegalMove, Outcome, RulesError
from musical_cli.games.crazy_quilt.rules import (
    CRAZY_QUILT,
    CrazyQuiltRules,
    CrazyQuiltState,
    Q,
    R,
    all_cards,
    cell_of,
    place_of,
    short_form,
    stuck_for_ever,
    vertical,
)
from musical_cli.games.crazy_quilt.view import layout_fragments, opening_record, opening_text
from musical_cli.moves import DEAL, REDEAL, F, Place, Transfer, W
from musical_cli.render import plain

GAME = CRAZY_QUILT
PERSIAN = CrazyQuiltRules(reserves=True)

# DEALS.md "Crazy Quilt", pinned for ever: the quilt row by row (row 1 first, column 1 first),
# the stock top first, and the Persian Rug reserves (reserve 1 first, each bottom first).
GOLDEN = {
    1: (
        "3D 5H JC KH 5S 5H KC 8D",
        "JD AS 8C 6C 6H TC 8D 4C",
        "JS QC 4H KD 2H TD 8S AC",
        "7C 2H AD 9H 8S 7D 9S 8H",
        "JH 4D 2D 6H TH 8C 2S 3S",
        "9C 7D 4S 8H TH AH JC 4H",
        "7H QS QC 7C 3S QH 9S 2S",
        "QH 3C 4S KS 6D TD 9C 9D",
        "JS 4D 5C 6C JH 6S 3C JD TC QS 2C 9H 3H 7S 5C 9D 5D TS QD 7S 6D TS QD 7H 3D 2C 5D 3H 2D 4C 5S 6S",
        "JS TC 5D 3D / 4D QS TS 2C / 5C 2C QD 5D / 6C 9H 7S 3H / JH 3H 6D 2D / 6S 7S TS 4C / 3C 5C QD 5S / JD 9D 7H 6S",
    ),
    2: (
        "7D 3S QS 7S 7H TD 9H 9D",
        "JD QS QC JC 8D 9C JS 4H",
        "5S 5C JH TC TH AD 6C 5H",
        "3S 5C 9H QH 7S KC TS 9S",
        "8D 4S TH 2H 6D 5D 7H 7C",
        "KS KH 4D 9C JH 8H 8H 7C",
        "6H AS 8S 5D 3C AH 2C 5H",
        "2D 3D 8C TC AC TS 3H 9S",
        "7D TD 2S 4C JS 3D QH 4D 8S 2D 2C 2H 5S 4H KD 4C 6D 9D 3H 6S 6C 2S QD QD 6S JD JC 3C QC 8C 4S 6H",
        "7D 8S 6D 6S / TD 2D 9D JD / 2S 2C 3H JC / 4C 2H 6S 3C / JS 5S 6C QC / 3D 4H 2S 8C / QH KD QD 4S / 4D 4C QD 6H",
    ),
    31999: (
        "3D 5S 2H 7H AH QS JS 7S",
        "9C AC 5S 3S 3D 7C 8H 2C",
        "4D KH QS JC 2H 6D 2S JC",
        "AS 7H 4S 2C 6D TD 8D 9S",
        "4H 5H 3C 6S KC 2D 8S 9S",
        "9H 2D 3H 5H AD KD TH QC",
        "6S 6H JD 8D JD 9D 2S 4C",
        "3H 5C 8C 7C 5D JH 4D 3S",
        "4H TD QH 5D 9H QH 4S TC 7D QD 7D TS 8H 9D TS QD TC 9C 5C QC JH KS 3C 4C 6C TH JS 6H 6C 7S 8S 8C",
        "4H 7D TC 6C / TD QD 9C TH / QH 7D 5C JS / 5D TS QC 6H / 9H 8H JH 6C / QH 9D KS 7S / 4S TS 3C 8S / TC QD 4C 8C",
    ),
    32000: (
        "KH 9H TD 6D 3D 9C TH JS",
        "JS 6C 3C KD 4H AC 7S TH",
        "7S 9D QD 4C 7C JD 7C KC",
        "4C 5C TS TC 2H 7H QC 4D",
        "AH AS 8D 7D JH 5H JD 4S",
        "8C 3S 5S 2C 5C 5S 3H QS",
        "9S 3D AD 9H 6C 8S 6H KS",
        "TC 9D 2C 6H QD TS 5H 4S",
        "3C 8D 3H 2D 9C QC JH 7D 8C 9S QH 2S 6D 2S 2H 8S JC QS 6S 2D 7H 3S TD 8H JC 5D 6S QH 4D 4H 8H 5D",
        "3C 8C JC JC / 8D 9S QS 5D / 3H QH 6S 6S / 2D 2S 2D QH / 9C 6D 7H 4D / QC 2S 3S 4H / JH 2H TD 8H / 7D 8S 8H 5D",
    ),
}
BASES = "AC AS AH AD KC KS KH KD"


def codes(cards) -> str:
    return " ".join(c.code for c in cards)


def complete_foundations() -> tuple[tuple[Card, ...], ...]:
    up = tuple(tuple(Card(r, s) for r in range(1, 14)) for s in SUITS)
    return up + tuple(tuple(Card(r, s) for r in range(13, 0, -1)) for s in SUITS)


def opening(n: int, rules: CrazyQuiltRules | None = None) -> CrazyQuiltState:
    return GAME.opening(DealNumber(n), rules)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


# --- the deals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", sorted(GOLDEN))
def test_golden_deals(n):
    *rows, stock, reserves = GOLDEN[n]
    state = opening(n)
    assert codes(f[0] for f in state.foundations) == BASES
    assert all(len(f) == 1 for f in state.foundations)
    for r, row in enumerate(rows):
        assert codes(state.quilt[8 * r:8 * r + 8]) == row, f"deal {n} row {r + 1}"
    assert codes(state.stock) == stock
    assert state.waste == () and state.reserves == () and state.redeals_used == 0
    rug = opening(n, PERSIAN)
    assert rug.quilt == state.quilt and rug.foundations == state.foundations
    assert rug.stock == () and rug.waste == ()
    assert " / ".join(codes(r) for r in rug.reserves) == reserves


def by_hand(n: int) -> tuple[list[Card], list[Card], list[Card]]:
    """DEALS.md step by step with pysol-cards' generators directly: (bases, quilt, stock)."""
    deck = new_deck(2)
    rng = LCRandom31(n) if n <= MS_LIMIT else MTRandom(n)
    rng.reset()
    rng.shuffle(deck)
    bases: dict[tuple[int, str], Card] = {}
    rest = []
    for c in deck:
        if c.rank in (1, 13) and (c.rank, c.suit.code) not in bases:
            bases[(c.rank, c.suit.code)] = c
        else:
            rest.append(c)
    order = [bases[(rank, s.code)] for rank in (1, 13) for s in SUITS]
    top_first = rest[::-1]
    return order, top_first[:64], top_first[64:]


@pytest.mark.parametrize("n", [1, 2, 3, 617, 31999, 32000, 32001, 10**9])
def test_deal_follows_deals_md(n):
    bases, quilt, stock = by_hand(n)
    state = opening(n)
    assert [f[0] for f in state.foundations] == bases
    assert list(state.quilt) == quilt and list(state.stock) == stock
    rug = opening(n, PERSIAN)
    for j in range(8):
        assert list(rug.reserves[j]) == [stock[j], stock[j + 8], stock[j + 16], stock[j + 24]]


@settings(max_examples=30)
@given(st.integers(1, 10**12))
def test_every_deal_uses_both_decks(n):
    for rules in (CrazyQuiltRules(), PERSIAN):
        state = opening(n, rules)
        assert Counter(all_cards(state)) == Counter(new_deck(2))
        assert len(state.available_cells()) == 16


def test_layout_needs_two_decks():
    with pytest.raises(ValueError, match="two full decks"):
        GAME.layout(new_deck(1), CrazyQuiltRules())


def test_opening_record():
    record = GAME.opening_record(DealNumber(1), opening(1))  # the Game protocol's hook
    assert list(record) == ["game", "seed", "foundations", "quilt", "stock"]
    assert record["game"] == "crazy-quilt" and record["seed"] == 1
    assert record["foundations"] == BASES.split()
    assert [" ".join(row) for row in record["quilt"]] == list(GOLDEN[1][:8])
    assert " ".join(record["stock"]) == GOLDEN[1][8]
    rug = opening_record(GAME, DealNumber(5, ms=True), opening(5, PERSIAN))
    assert rug["seed"] == "ms5" and rug["stock"] == []
    assert rug["reserves"] == [[c.code for c in r] for r in opening(5, PERSIAN).reserves]
    assert len(rug["reserves"]) == 8 and all(len(r) == 4 for r in rug["reserves"])
    text = plain(opening_text(DealNumber(1), opening(1), ascii=True))
    assert text.splitlines()[0] == "Crazy Quilt deal 1"
    assert "  quilt row 1  3D 5H JC KH 5S 5H KC 8D" in text
    assert "  stock        " + GOLDEN[1][8] in text
    assert "  reserve 8    JD 9D 7H 6S" in plain(opening_text(DealNumber(1), opening(1, PERSIAN), ascii=True))


def test_the_opening_texts_labels_take_the_room_a_language_needs(monkeypatch):
    """A label longer in another language than the English column ("одеяло, ряд 1") widens the
    column for every line, so that the cards still line up."""

    class Longer(gettext.NullTranslations):
        def gettext(self, message):
            return "long quilt row {r}" if message == "quilt row {r}" else message

    monkeypatch.setattr(i18n, "_translation", Longer())
    lines = plain(opening_text(DealNumber(1), opening(1), ascii=True)).splitlines()[1:]
    assert lines[1] == "  long quilt row 1 3D 5H JC KH 5S 5H KC 8D"
    column = len("  long quilt row 1 ")  # where every line's cards begin
    assert all(line[column - 1] == " " and line[column] != " " for line in lines), lines


# --- rules options -----------------------------------------------------------------------------


def test_game_declares_its_options_and_notation():
    assert GAME.name == "crazy-quilt" and GAME.title == "Crazy Quilt" and GAME.decks == 2
    assert [o.name for o in GAME.options] == ["redeals", "wrap", "reserves"]
    assert [o.option_flag for o in GAME.options] == ["--redeals", "--wrap", "--reserves"]
    for option in GAME.options:
        assert option.format(option.parse(option.default)) == option.default
        if option.metavar is None:  # a switch: its flag sets the value
            assert option.parse(option.const) is True
    assert GAME.default_rules() == CrazyQuiltRules()
    assert {text.split()[0] for text, _ in GAME.notation} >= {"d", "redeal", "w", "qRC", "rN"}
    assert "Crazy Quilt" in GAME.rules_text and "Persian Rug" in GAME.rules_text


def test_rules_options_round_trip():
    for rules in (CrazyQuiltRules(), CrazyQuiltRules(2), CrazyQuiltRules(0, True), PERSIAN,
                  CrazyQuiltRules(1, True, True)):
        options = GAME.rules_options(rules)
        assert set(options) == {"redeals", "wrap", "reserves"}
        assert GAME.rules_from_options(options) == rules
    assert GAME.rules_options(GAME.default_rules()) == {"redeals": "1", "wrap": "no", "reserves": "no"}
    assert GAME.rules_from_options({}) == CrazyQuiltRules()
    assert GAME.rules_from_options({"redeals": "2"}).variant == "Indian Carpet"
    assert GAME.rules_from_options({"reserves": "yes"}).variant == "Persian Rug"


@pytest.mark.parametrize("options, message", [
    ({"piles": "3"}, "no rule option 'piles'"),
    ({"redeals": "-1"}, "redeals must be a whole number"),
    ({"redeals": "unlimited"}, "redeals must be a whole number"),
    ({"redeals": "²"}, "redeals must be a whole number"),
    ({"wrap": "maybe"}, "wrap must be yes or no"),
    ({"reserves": ""}, "reserves must be yes or no"),
    # Persian Rug has no stock: a number of redeals would only split its record (it was taken)
    ({"reserves": "yes", "redeals": "2"}, "redeals has no meaning in Persian Rug"),
    ({"reserves": "yes", "redeals": "0"}, "redeals has no meaning in Persian Rug"),
])
def test_bad_rules_options(options, message):
    with pytest.raises(RulesError, match=message):
        GAME.rules_from_options(options)


def test_rules_values_checked():
    with pytest.raises(RulesError):
        CrazyQuiltRules(redeals=-1)
    with pytest.raises(RulesError):
        CrazyQuiltRules(wrap="yes")  # type: ignore[arg-type]


# --- places and availability -------------------------------------------------------------------


def test_places_print_and_number():
    assert str(Q(3, 4)) == "q34" and Q(3, 4) == Place("q", 34)
    assert str(R(2)) == "r2" and R(2).name == "reserve 2"
    assert Q(4, 5).name == "quilt cell q45"
    assert cell_of(Q(1, 1)) == 0 and cell_of(Q(8, 8)) == 63 and cell_of(Q(3, 4)) == 19
    assert cell_of(Place("q", 19)) is None and cell_of(Place("q", 90)) is None and cell_of(F(1)) is None
    assert all(cell_of(place_of(c)) == c for c in range(64))
    # RULES.md: row 1 starts vertical, row 2 horizontal, like a chessboard.
    assert vertical(cell_of(Q(1, 1))) and not vertical(cell_of(Q(1, 2))) and not vertical(cell_of(Q(2, 1)))


def available_by_rule(state: CrazyQuiltState) -> set[int]:
    """RULES.md §3 read literally, independently of the engine's tables."""
    out = set()
    for r in range(1, 9):
        for c in range(1, 9):
            if state.quilt[(r - 1) * 8 + c - 1] is None:
                continue
            sides = [(r - 1, c), (r + 1, c)] if (r + c) % 2 == 0 else [(r, c - 1), (r, c + 1)]
            if any(not (1 <= rr <= 8 and 1 <= cc <= 8) or state.quilt[(rr - 1) * 8 + cc - 1] is None
                   for rr, cc in sides):
                out.add((r - 1) * 8 + c - 1)
    return out


def test_sixteen_available_at_the_start():
    state = opening(1)
    got = {str(place_of(c)) for c in state.available_cells()}
    # The vertical cards of rows 1 and 8, the horizontal cards of columns 1 and 8.
    assert got == {"q11", "q13", "q15", "q17", "q82", "q84", "q86", "q88",
                   "q21", "q41", "q61", "q81", "q18", "q38", "q58", "q78"}
    assert set(state.available_cells()) == available_by_rule(state)


def without(state: CrazyQuiltState, *places: Place) -> CrazyQuiltState:
    quilt = list(state.quilt)
    for p in places:
        quilt[cell_of(p)] = None
    return CrazyQuiltState(state.rules, state.foundations, tuple(quilt), state.stock, state.waste,
                           state.reserves, state.redeals_used)


def test_emptied_cells_free_their_neighbours():
    state = without(opening(1), Q(7, 8))
    assert state.available(cell_of(Q(6, 8)))  # q68 is vertical: q78 below is now empty
    assert not state.available(cell_of(Q(7, 7)))  # q77 is vertical: q67 and q87 still there
    state = without(state, Q(8, 7))
    assert state.available(cell_of(Q(7, 7)))
    assert not state.available(cell_of(Q(7, 8)))  # an empty cell is never available
    assert set(state.available_cells()) == available_by_rule(state)


# --- moves and the reasons for refusing them ---------------------------------------------------


def refusal(state, move) -> str:
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, move)
    assert info.value.legal == GAME.legal_moves(state)
    return info.value.text(ascii=True)


def test_opening_moves_deal_1():
    state = opening(1)
    assert [str(m) for m in GAME.legal_moves(state)] == ["q78 f2", "q81 f7", "d"]
    after = GAME.apply(state, Transfer(Q(7, 8), F(2)))
    assert codes(after.foundations[1]) == "AS 2S" and after.quilt[cell_of(Q(7, 8))] is None
    assert state.quilt[cell_of(Q(7, 8))] == Card.parse("2S")  # the state is untouched
    assert GAME.cards_to_build(state) == 96 and GAME.cards_to_build(after) == 95
    dealt = GAME.apply(after, DEAL)
    assert codes(dealt.waste) == "JS" and len(dealt.stock) == 31


def test_refusals_say_why():
    state = GAME.play(opening(1), [Transfer(Q(7, 8), F(2)), DEAL])
    assert refusal(state, Transfer(Q(4, 5))) == (
        "q45: q45 is not available: the cards at q44 and q46 cover its short sides; "
        "legal now: q58 f2, q81 f7, d")
    # q44 is vertical (4 + 4 is even): its short sides are above and below.
    assert refusal(state, Transfer(Q(4, 4), F(1))).startswith(
        "q44 f1: q44 is not available: the cards at q34 and q54 cover its short sides")
    assert "q78 is empty" in refusal(state, Transfer(Q(7, 8), F(2)))
    assert "there is no quilt cell q90" in refusal(state, Transfer(Place("q", 90), F(2)))
    assert "there is no quilt cell q19" in refusal(state, Transfer(Place("q", 19), F(2)))
    assert "foundation 3 needs 2H; q81 shows QH" in refusal(state, Transfer(Q(8, 1), F(3)))
    assert "foundation 1 needs 2C; the waste shows JS" in refusal(state, Transfer(W, F(1)))
    assert "there is no foundation 9" in refusal(state, Transfer(W, F(9)))
    assert "QH does not go onto JS: same suit, one rank higher or lower (no wrap between K and A)" in \
        refusal(state, Transfer(Q(8, 1), W))
    assert "only a quilt card goes onto the waste" in refusal(state, Transfer(W, W))
    assert "say where JS goes" in refusal(state, Transfer(W))
    assert "reserves are only in Persian Rug" in refusal(state, Transfer(Q(8, 1), R(1)))
    assert "reserves are only in Persian Rug" in refusal(state, Transfer(R(1), F(1)))
    assert "nothing goes onto pile 1" in refusal(state, Transfer(Q(8, 1), Place("p", 1)))
    assert "not from foundation 1" in refusal(state, Transfer(F(1), F(2)))
    assert "the stock still has 31 cards" in refusal(state, REDEAL)
    assert "the waste is empty; nothing is played onto an empty waste" in \
        refusal(opening(1), Transfer(Q(8, 1), W))
    assert "the waste is empty; deal a card first" in refusal(opening(1), Transfer(W, F(1)))
    with pytest.raises(TypeError):
        GAME.apply(state, "d")  # type: ignore[arg-type]


def test_foundation_complete_and_down_building():
    state = opening(1)
    assert state.needs(5) == Card.parse("QC") and state.needs(1) == Card.parse("2C")
    # Down foundation: after K the Q, then the J.
    spades_down = CrazyQuiltState(state.rules, state.foundations[:5] + (cards("KS QS"),) + state.foundations[6:],
                                  state.quilt, state.stock)
    assert spades_down.needs(6) == Card.parse("JS") and spades_down.wanting(Card.parse("JS")) == (6,)
    done = CrazyQuiltState(state.rules, (cards("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),) + state.foundations[1:],
                           state.quilt, state.stock)
    assert done.needs(1) is None
    assert "foundation 1 is complete" in refusal(done, Transfer(Q(8, 1), F(1)))


def test_stock_and_redeal():
    state = opening(3, CrazyQuiltRules(redeals=1))
    for _ in range(32):
        state = GAME.apply(state, DEAL)
    assert state.stock == () and len(state.waste) == 32
    assert "the stock is empty; redeal to turn the waste over" in refusal(state, DEAL)
    turned = GAME.apply(state, REDEAL)
    # The waste's bottom card becomes the stock's top: the cards come out in the same order.
    assert turned.stock == state.waste and turned.waste == () and turned.redeals_left == 0
    assert turned.stock == opening(3).stock
    for _ in range(32):
        turned = GAME.apply(turned, DEAL)
    assert "no redeal is left (the rules allow 1)" in refusal(turned, REDEAL)
    with pytest.raises(IllegalMove) as info:
        GAME.apply(turned, DEAL)
    assert info.value.reason == "the stock is empty"
    empty = GAME.apply(opening(3, CrazyQuiltRules(redeals=1)), DEAL)
    empty = CrazyQuiltState(empty.rules, empty.foundations, empty.quilt, (), ())
    assert "the waste is empty; there is nothing to turn over" in refusal(empty, REDEAL)


def test_building_onto_the_waste_and_wrap():
    state = opening(1)
    # A hand-made waste with KS on top; QS and AS in the quilt.
    waste_k = CrazyQuiltState(state.rules, state.foundations, state.quilt, state.stock, cards("KS"))
    quilt = list(state.quilt)
    quilt[cell_of(Q(1, 1))] = Card.parse("QS")
    quilt[cell_of(Q(1, 3))] = Card.parse("AS")
    plain_rules = CrazyQuiltState(state.rules, state.foundations, tuple(quilt), state.stock, cards("KS"))
    assert Transfer(Q(1, 1), W) in GAME.legal_moves(plain_rules)
    assert Transfer(Q(1, 3), W) not in GAME.legal_moves(plain_rules)
    wrapped = CrazyQuiltState(CrazyQuiltRules(wrap=True), state.foundations, tuple(quilt), state.stock, cards("KS"))
    assert Transfer(Q(1, 3), W) in GAME.legal_moves(wrapped)
    after = GAME.apply(wrapped, Transfer(Q(1, 3), W))
    assert codes(after.waste) == "KS AS" and after.quilt[cell_of(Q(1, 3))] is None
    assert waste_k.waste_top == Card.parse("KS")


def test_short_forms():
    state = GAME.play(opening(1), [Transfer(Q(7, 8), F(2)), DEAL])
    assert short_form(state, Q(8, 1)) == Transfer(Q(8, 1), F(7))
    # Through the Game protocol and the shared notation layer, as the shell will call it.
    assert GAME.resolve(state, Transfer(Q(8, 1))) == Transfer(Q(8, 1), F(7))
    assert GAME.resolve(state, Transfer(Q(8, 1), W)) == Transfer(Q(8, 1), W)
    assert notation.resolve(GAME, state, Transfer(Q(8, 1))) == Transfer(Q(8, 1), F(7))
    with pytest.raises(IllegalMove, match="J♠ has nowhere to go now"):
        short_form(state, W)
    with pytest.raises(IllegalMove, match="q45 is not available"):
        short_form(state, Q(4, 5))
    # Two foundations want the same card: the short form names both.
    quilt = list(state.quilt)
    quilt[cell_of(Q(1, 1))] = Card.parse("7H")
    seven = CrazyQuiltState(state.rules, state.foundations[:2] + (cards("AH 2H 3H 4H 5H 6H"),)
                            + state.foundations[3:6] + (cards("KH QH JH TH 9H 8H"),) + state.foundations[7:],
                            tuple(quilt), state.stock, state.waste)
    with pytest.raises(IllegalMove, match="more than one move takes it; choose q11 f3 or q11 f7"):
        short_form(seven, Q(1, 1))


# --- Persian Rug -------------------------------------------------------------------------------


def test_persian_rug_moves():
    state = opening(1, PERSIAN)
    legal = [str(m) for m in GAME.legal_moves(state)]
    assert "d" not in legal and "redeal" not in legal
    assert "q78 f2" in legal and "q81 f7" in legal
    # 3D (q11) onto the 2D on top of reserve 5.
    assert "q11 r5" in legal
    after = GAME.apply(state, Transfer(Q(1, 1), R(5)))
    assert codes(after.reserves[4]) == "JH 3H 6D 2D 3D"
    assert "Persian Rug has no stock" in refusal(state, DEAL)
    assert "Persian Rug has no stock and no redeal" in refusal(state, REDEAL)
    assert "Persian Rug has no waste" in refusal(state, Transfer(W, F(1)))
    assert "Persian Rug has no waste; cards go onto the reserves" in refusal(state, Transfer(Q(8, 1), W))
    assert "there is no reserve 9" in refusal(state, Transfer(R(9), F(1)))
    assert "there is no reserve 0" in refusal(state, Transfer(Q(1, 1), R(0)))
    assert "QH does not go onto 3D" in refusal(state, Transfer(Q(8, 1), R(1)))
    assert "a card cannot move onto its own reserve" in refusal(state, Transfer(R(1), R(1)))


def rug(foundations: dict[int, str], quilt: dict[Place, str], reserves: list[str]) -> CrazyQuiltState:
    """A hand-made Persian Rug position (not every card need be there)."""
    base = opening(1, PERSIAN)
    fs = tuple(cards(foundations[i]) if i in foundations else base.foundations[i - 1] for i in range(1, 9))
    cells = [None] * 64
    for place, text in quilt.items():
        cells[cell_of(place)] = Card.parse(text)
    res = tuple(cards(r) for r in reserves) + ((),) * (8 - len(reserves))
    return CrazyQuiltState(PERSIAN, fs, tuple(cells), (), (), res)


def test_persian_rug_empty_reserves_take_any_card():
    state = rug({}, {Q(1, 1): "9H"}, ["5C"])
    legal = {str(m) for m in GAME.legal_moves(state)}
    assert {"q11 r2", "q11 r8", "r1 r2", "r1 r8"} <= legal and "q11 r1" not in legal


def test_persian_rug_stuck_for_ever():
    # Reserve moves only: 5C and 6C can change places for ever, but the foundations want the 2s.
    state = rug({}, {}, ["3S 5C", "3H 6C"])
    legal = GAME.legal_moves(state)
    assert legal and all(m.source.kind == "r" and m.target.kind == "r" for m in legal)
    assert stuck_for_ever(state) and GAME.outcome(state) is Outcome.LOST
    # The same, but one shuffle uncovers a card a foundation takes: not lost.
    state = rug({}, {}, ["2S 5C", "3H 6C"])
    assert not stuck_for_ever(state) and GAME.outcome(state) is Outcome.IN_PLAY
    # Deeper: 4C must travel twice before the 2H shows.
    state = rug({}, {}, ["2H 4C 5C", "9D 3C"])
    assert not stuck_for_ever(state)
    assert GAME.outcome(rug({}, {}, [])) is Outcome.LOST  # nothing anywhere, foundations not complete


# --- a state machine over random legal games ---------------------------------------------------

EVERY_PLACE = [W, *(F(i) for i in range(0, 10)), *(R(j) for j in range(0, 10)), Place("q", 90), Place("p", 1),
               *(place_of(c) for c in range(64))]


def candidates(draw_places: list[Place]) -> list:
    out = [DEAL, REDEAL]
    for a in draw_places:
        out.append(Transfer(a))
        for b in draw_places:
            out.append(Transfer(a, b))
    return out


class CrazyQuiltMachine(RuleBasedStateMachine):
    @initialize(n=st.integers(1, 10**9), redeals=st.integers(0, 2), wrap=st.booleans(), reserves=st.booleans())
    def start(self, n, redeals, wrap, reserves):
        self.state = opening(n, CrazyQuiltRules(1 if reserves else redeals, wrap, reserves))
        self.deck = Counter(new_deck(2))

    @rule(data=st.data())
    def legal_move(self, data):
        legal = GAME.legal_moves(self.state)
        if not legal:
            return
        move = data.draw(st.sampled_from(legal))
        before = self.state
        self.state = GAME.apply(before, move)
        assert GAME.cards_to_build(self.state) <= GAME.cards_to_build(before)

    @rule(data=st.data())
    def other_moves_raise(self, data):
        places = data.draw(st.lists(st.sampled_from(EVERY_PLACE), min_size=1, max_size=4))
        legal = set(GAME.legal_moves(self.state))
        for move in candidates(places):
            if move in legal:
                GAME.apply(self.state, move)
                continue
            with pytest.raises(IllegalMove) as info:
                GAME.apply(self.state, move)
            assert info.value.move == move and str(move) in str(info.value)

    @invariant()
    def no_card_lost_or_duplicated(self):
        assert Counter(all_cards(self.state)) == self.deck

    @invariant()
    def availability_follows_the_rule(self):
        assert set(self.state.available_cells()) == available_by_rule(self.state)
        for m in GAME.legal_moves(self.state):
            if m.__class__ is Transfer and m.source.kind == "q":
                assert cell_of(m.source) in available_by_rule(self.state)

    @invariant()
    def foundations_in_suit(self):
        for i, f in enumerate(self.state.foundations, 1):
            assert all(c.suit == f[0].suit for c in f)
            ranks = [c.rank for c in f]
            assert ranks == (list(range(1, len(f) + 1)) if i <= 4 else list(range(13, 13 - len(f), -1)))

    @invariant()
    def outcome_agrees(self):
        outcome = GAME.outcome(self.state)
        if outcome is Outcome.WON:
            assert self.state.complete
        elif not GAME.legal_moves(self.state):
            assert outcome is Outcome.LOST


CrazyQuiltMachine.TestCase.settings = settings(max_examples=20, stateful_step_count=50, deadline=None)
TestCrazyQuiltMachine = CrazyQuiltMachine.TestCase


# --- the view ----------------------------------------------------------------------------------

OPENING_1 = """\
     1     2     3     4     5     6     7     8
  1   │3♦   ─5♥   │J♣   ─K♥   │5♠   ─5♥   │K♣   ─8♦
  2   ─J♦   │A♠   ─8♣   │6♣   ─6♥   │10♣  ─8♦   │4♣
  3   │J♠   ─Q♣   │4♥   ─K♦   │2♥   ─10♦  │8♠   ─A♣
  4   ─7♣   │2♥   ─A♦   │9♥   ─8♠   │7♦   ─9♠   │8♥
  5   │J♥   ─4♦   │2♦   ─6♥   │10♥  ─8♣   │2♠   ─3♠
  6   ─9♣   │7♦   ─4♠   │8♥   ─10♥  │A♥   ─J♣   │4♥
  7   │7♥   ─Q♠   │Q♣   ─7♣   │3♠   ─Q♥   │9♠  *─2♠
  8  *─Q♥   │3♣   ─4♠   │K♠   ─6♦   │10♦  ─9♣   │9♦
     * can move   │ vertical   ─ horizontal   -- empty   q34: row 3, column 4
               up (A to K)               down (K to A)
  foundation   f1    f2    f3    f4      f5    f6    f7    f8
  top          A♣    A♠    A♥    A♦      K♣    K♠    K♥    K♦
  needs        2♣    2♠    2♥    2♦      Q♣    Q♠    Q♥    Q♦
  waste        --  (empty)    stock 32   1 redeal left
"""

AFTER_THREE_ASCII = """\
     1     2     3     4     5     6     7     8
  1   |3D   -5H   |JC   -KH   |5S   -5H   |KC   -8D
  2   -JD   |AS   -8C   |6C   -6H   |TC   -8D   |4C
  3   |JS   -QC   |4H   -KD   |2H   -TD   |8S   -AC
  4   -7C   |2H   -AD   |9H   -8S   |7D   -9S   |8H
  5   |JH   -4D   |2D   -6H   |TH   -8C   |2S  *-3S
  6   -9C   |7D   -4S   |8H   -TH   |AH   -JC   |4H
  7   |7H   -QS   |QC   -7C   |3S   -QH   |9S    --
  8    --   |3C   -4S   |KS   -6D   |TD   -9C   |9D
     * can move   | vertical   - horizontal   -- empty   q34: row 3, column 4
               up (A to K)               down (K to A)
  foundation   f1    f2    f3    f4      f5    f6    f7    f8
  top          AC    2S    AH    AD      KC    KS    QH    KD
  needs        2C    3S    2H    2D      QC    QS    JH    QD
  waste        JS  (1 card)    stock 31   0 redeals left
"""


def test_view_opening_unicode():
    assert plain(layout_fragments(opening(1))) == OPENING_1
    assert GAME.draw(opening(1)) == layout_fragments(opening(1))  # the Game protocol's hook


def test_view_after_moves_ascii():
    state = GAME.play(opening(1, CrazyQuiltRules(redeals=0)), [Transfer(Q(7, 8), F(2)), Transfer(Q(8, 1), F(7)), DEAL])
    assert plain(layout_fragments(state, ascii=True)) == AFTER_THREE_ASCII


def test_view_persian_rug_ascii():
    text = plain(layout_fragments(opening(1, PERSIAN), ascii=True))
    assert text.splitlines()[-5:] == [
        "  r1  JS  TC  5D  3D                    r5  JH  3H  6D  2D",
        "  r2  4D  QS  TS  2C                    r6  6S  7S  TS  4C",
        "  r3  5C  2C  QD  5D                    r7  3C  5C  QD  5S",
        "  r4  6C  9H  7S  3H                    r8  JD  9D  7H  6S",
        "       each reserve bottom first: its top card is the last",
    ]
    long = rug({}, {Q(1, 1): "2C"}, ["KS QS JS TS 9S 8S 7S 6S 5S 4S", ""])
    text = plain(layout_fragments(long, ascii=True))
    first = text.splitlines()[-5]
    # The top seven cards, and how many more lie under them.
    assert first == "  r1  +3  TS  9S  8S  7S  6S  5S  4S    r5  (empty)"
    assert "  8    --    --" in text  # empty cells


def test_status_line():
    from musical_cli.render import status

    assert status(GAME, opening(1), "1", 0, ascii=True) == "Crazy Quilt deal 1 | pass 1 of 2 | 0 moves | 96 to build"
    # Persian Rug has no stock, so no passes.
    assert status(GAME, opening(1, PERSIAN), "1", 0, ascii=True) == "Crazy Quilt deal 1 | 0 moves | 96 to build"


def test_view_fits_80_columns_and_24_rows():
    for rules in (CrazyQuiltRules(), PERSIAN):
        for ascii in (False, True):
            text = plain(layout_fragments(opening(7, rules), ascii))
            lines = text.splitlines()
            assert max(len(line) for line in lines) <= 80 and len(lines) <= 22
            assert all(line == line.rstrip() for line in lines)


def test_view_marks_survive_without_style():
    """The cards that can move now carry a text mark and a bold style; the mark is in the plain
    text. (Issue 23: of the 16 available cards of deal 1, q78 and q81 can move.)"""
    state = opening(1)
    fragments = layout_fragments(state)
    marks = [n for n, (style, text) in enumerate(fragments) if text == "*"]
    assert len(marks) == 2
    for n in marks:
        assert "label" in fragments[n + 2][0]  # the card itself is bold too
    done = CrazyQuiltState(state.rules, complete_foundations(), (None,) * 64)
    assert "done" in plain(layout_fragments(done))
