"""Move notation: every accepted spelling, errors on junk, round trips, and resolve()."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from musical_cli.deals import DealNumber
from musical_cli.game import IllegalMove
from musical_cli.games import GAMES
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT
from musical_cli.games.musical.rules import MUSICAL
from musical_cli.moves import DEAL, FOUNDATION, PILE, REDEAL, WASTE, Deal, F, P, Place, Redeal, Transfer, W
from musical_cli.notation import NotationError, format_move, parse, parse_move, resolve

# text -> the canonical text of the move it names
SPELLINGS = {
    "d": "d",
    "D": "d",
    "deal": "d",
    "DEAL": "d",
    " Deal ": "d",
    "redeal": "redeal",
    "REDEAL": "redeal",
    "re deal": "redeal",
    "w f1": "w f1",
    "wf1": "w f1",
    "w1": "w f1",
    "w 1": "w f1",
    "W  F 1": "w f1",
    "W F4": "w f4",
    "\tw\tf3\n": "w f3",
    "w f9": "w f9",
    "w p2": "w p2",
    "wp2": "w p2",
    "W P 2": "w p2",
    "p2 f1": "p2 f1",
    "p2f1": "p2 f1",
    "P2 F1": "p2 f1",
    "p2 1": "p2 f1",
    "p3 p4": "p3 p4",
    "p1": "p1",
    "w": "w",
    "W": "w",
    " w ": "w",
}


@pytest.mark.parametrize(("text", "canonical"), list(SPELLINGS.items()))
def test_every_spelling_parses_to_its_canonical_move(text, canonical):
    move = parse_move(text)
    assert str(move) == canonical
    assert format_move(move) == canonical
    assert parse_move(canonical) == move


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("d", DEAL),
        ("deal", Deal()),
        ("redeal", REDEAL),
        ("redeal", Redeal()),
        ("w f1", Transfer(W, F(1))),
        ("w3", Transfer(W, F(3))),
        ("w p2", Transfer(W, P(2))),
        ("p2 f1", Transfer(P(2), F(1))),
        ("w", Transfer(W)),
        ("w", Transfer(W, None)),
    ],
)
def test_parse_gives_move_values(text, move):
    assert parse_move(text) == move


def test_place_values():
    assert W == Place(WASTE) == Place(WASTE, 0)
    assert F(2) == Place(FOUNDATION, 2) and P(3) == Place(PILE, 3)
    assert (str(W), str(F(2)), str(P(3))) == ("w", "f2", "p3")
    assert (W.name, F(2).name, P(3).name) == ("the waste", "foundation 2", "pile 3")


@pytest.mark.parametrize(
    "text",
    ["", " ", "x", "w f0", "w0", "w p0", "p0 f1", "f1", "w f", "dd", "dealx", "re", "w f12", "w10",
     "w f1 f2", "p f1", "f1 w", "w w", "ww", "p", "1", "w -1", "w f-1", "w x1", "redeal 1", "d1",
     "w f１", "w ff1"],
)
def test_junk_is_a_notation_error(text):
    with pytest.raises(NotationError) as caught:
        parse_move(text)
    assert isinstance(caught.value, ValueError)
    assert caught.value.text == text
    assert "moves look like" not in str(caught.value)  # no game in hand: no game's moves
    with pytest.raises(NotationError) as caught:
        parse_move(text, MUSICAL, MUSICAL.default_rules())
    assert caught.value.text == text
    assert str(caught.value).endswith("(moves look like d, w f2, redeal)")


# Each game's default rules and its calibrated ones (Persian Rug among them, with moves of its own).
RULE_SETS = [(game, rules) for game in GAMES.values()
             for rules in {game.default_rules(), *game.difficulty_bands()}]


@pytest.mark.parametrize(("game", "rules"), RULE_SETS, ids=lambda x: getattr(x, "name", repr(x)))
def test_each_games_examples_are_its_own_moves_written_canonically(game, rules):
    examples = game.move_examples(rules)
    assert len(examples) == len(game.notation_for(rules))
    for example in examples:
        assert str(parse_move(example)) == example
        assert example.split()[0].rstrip("0123456789") in game.move_words(rules)


def test_a_bad_move_shows_the_moves_of_the_game_in_hand_under_its_rules():
    persian = CRAZY_QUILT.rules_from_options({"reserves": "yes"})
    state = CRAZY_QUILT.opening(DealNumber(1), persian)
    with pytest.raises(NotationError) as caught:
        parse(CRAZY_QUILT, state, "undo")
    assert str(caught.value) == "'undo': not a move (moves look like q23 f4, q23 r4, r2 f3, r2 r3)"
    with pytest.raises(NotationError) as caught:
        parse(CALCULATION, CALCULATION.opening(DealNumber(1)), "undo")
    assert str(caught.value) == "'undo': not a move (moves look like d, w f2, w p2, p2 f3)"


def test_pile_zero_alone_is_a_notation_error():
    with pytest.raises(NotationError):
        parse_move("p0")


# --- round trips ---------------------------------------------------------------------------------

sources = st.one_of(st.just(W), st.integers(1, 9).map(P))
targets = st.one_of(st.integers(1, 9).map(F), st.integers(1, 9).map(P))
moves = st.one_of(
    st.just(DEAL),
    st.just(REDEAL),
    st.builds(Transfer, sources, targets),
    st.builds(Transfer, sources),  # the short form, with no target yet
)


@given(moves)
def test_round_trip(move):
    text = str(move)
    assert parse_move(text) == move
    assert str(parse_move(text.upper())) == text
    assert str(parse_move(text.replace(" ", ""))) == text
    assert str(parse_move("  " + text.replace(" ", "   ") + " ")) == text


@given(sources, st.integers(1, 9), st.sampled_from(["{s}{n}", "{s} {n}", "{s} f{n}", "{s}F{n}", "{S} F {n}"]))
def test_a_bare_number_after_a_source_is_a_foundation(source, n, form):
    text = form.format(s=str(source), S=str(source).upper(), n=n)
    move = parse_move(text)
    assert move == Transfer(source, F(n))
    assert str(move) == f"{source} f{n}"


@given(st.text(max_size=8))
def test_parse_any_text_gives_a_move_or_a_notation_error(text):
    try:
        move = parse_move(text)
    except NotationError:
        return
    assert isinstance(move, (Deal, Redeal, Transfer))
    assert parse_move(str(move)) == move


# --- resolve -----------------------------------------------------------------------------------


def deal1_after_one_deal():
    return MUSICAL.apply(MUSICAL.opening(DealNumber(1)), DEAL)  # J♦ on the waste


def test_resolve_w_to_the_only_foundation_that_takes_it(position):
    state = position(waste=(3,))
    assert resolve(MUSICAL, state, Transfer(W)) == Transfer(W, F(1))
    assert parse(MUSICAL, state, "w") == Transfer(W, F(1))
    state = position(waste=(12,))
    assert parse(MUSICAL, state, " W ") == Transfer(W, F(4))


def test_resolve_leaves_complete_moves_alone(position):
    state = position(waste=(3,))
    for move in (DEAL, REDEAL, Transfer(W, F(1)), Transfer(W, F(2)), Transfer(P(1), F(1))):
        assert resolve(MUSICAL, state, move) is move
    assert parse(MUSICAL, state, "w f2") == Transfer(W, F(2))  # resolve does not judge legality


def test_resolve_w_when_no_foundation_takes_the_card():
    state = deal1_after_one_deal()
    with pytest.raises(IllegalMove) as caught:
        resolve(MUSICAL, state, Transfer(W))
    error = caught.value
    assert error.move == Transfer(W)
    assert error.legal == (DEAL,)
    assert "no foundation takes J♦" in str(error)
    assert "legal now: d" in str(error)
    assert "JD" in error.text(ascii=True)


def test_resolve_w_with_an_empty_waste():
    with pytest.raises(IllegalMove, match="the waste is empty"):
        parse(MUSICAL, MUSICAL.opening(DealNumber(1)), "w")


def test_resolve_w_when_several_foundations_take_the_card(position):
    state = position((4, 1, 1, 1), waste=(6,))  # foundation 1 (2 3 4 5) and 2 (4) both want a 6
    with pytest.raises(IllegalMove) as caught:
        resolve(MUSICAL, state, Transfer(W))
    error = caught.value
    assert error.move == Transfer(W)
    assert "more than one foundation takes it" in str(error)
    assert "w f1 or w f2" in str(error)
    assert error.legal == MUSICAL.legal_moves(state) == (Transfer(W, F(1)), Transfer(W, F(2)), DEAL)
    assert "legal now: w f1, w f2, d" in str(error)


def test_resolve_three_foundations_wanting_the_same_rank(position):
    # 1: 2 3 4 5 6 7 8 9 10 J -> Q; 3: 6 9 -> Q; 4: 8 -> Q.
    state = position((10, 1, 2, 1), waste=(12,))
    assert state.wanting(12) == (1, 3, 4)
    with pytest.raises(IllegalMove, match="choose w f1 or w f3 or w f4"):
        parse(MUSICAL, state, "w")


def test_resolve_a_pile_source_in_musical(position):
    with pytest.raises(IllegalMove, match="Musical has no pile 1"):
        parse(MUSICAL, position(waste=(3,)), "p1")


def test_resolved_move_is_legal_and_applies(position):
    state = position(waste=(9,))
    move = parse(MUSICAL, state, "w")
    assert move in MUSICAL.legal_moves(state)
    assert MUSICAL.apply(state, move).foundations[2][-1].rank == 9
