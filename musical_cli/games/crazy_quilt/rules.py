"""Crazy Quilt (Quilt, Indian Carpet, Japanese Rug): the rules of musical-games(7), GAMES, "Crazy Quilt", as a pure engine.

Two decks. Foundations 1-4 are the aces of clubs, spades, hearts and diamonds, built up in suit
to the king; foundations 5-8 the kings of the same suits, built down in suit to the ace. 64 cards
lie face up in the *quilt*, 8 rows of 8; the cell in row r, column c holds a vertical card when
r + c is even, a horizontal one otherwise, and a card is *available* when one of its short sides
(above/below for a vertical card, left/right for a horizontal one) touches no card. The other 32
cards are the stock (or, in Persian Rug, eight face-up reserves of four).

Places: ``q`` + row + column for a quilt cell (``Place("q", 34)`` prints ``q34``; the index is
10 * row + column), ``r1``..``r8`` for the Persian Rug reserves, the waste ``w`` and the
foundations ``f1``..``f8`` of :mod:`musical_cli.moves`.

Rule options (text values as in a transcript): ``redeals`` (a whole number, default 1; Indian
Carpet is 2), ``wrap`` (yes/no, default no: whether a K and an A of a suit build on each other,
onto the waste and, in Persian Rug, onto a reserve) and ``reserves`` (yes/no, default no: Persian
Rug). ``redeals`` means nothing in Persian Rug, which has no stock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...cards import SUITS, Card, Suit
from ...deals import DealNumber
from ...game import (
    Game,
    IllegalMove,
    Outcome,
    Progress,
    RuleOption,
    RulesError,
    for_people,
    no_foundation,
    no_redeal_left,
    parse_yes_no,
    place_name,
    stock_still_has,
    yes_no,
)
from ...i18n import N_, _, pgettext
from ...moves import DEAL, FOUNDATION, REDEAL, WASTE, Deal, F, Move, Place, Redeal, Transfer, W, register_kind

# TRANSLATORS: {} is the cell's row and column, as "34": "quilt cell q34"
QUILT = register_kind("q", N_("quilt cell q{}"), digits=2)
RESERVE = register_kind("r", N_("reserve"))

ROWS = COLUMNS = 8
CELLS = ROWS * COLUMNS
RESERVES = 8
FOUNDATIONS = 8
FOUNDATION_SIZE = 13


def Q(row: int, column: int) -> Place:  # noqa: N802 - reads like the notation
    """The quilt cell in ``row`` and ``column`` (both 1-8)."""
    return Place(QUILT, 10 * row + column)


def R(i: int) -> Place:  # noqa: N802
    return Place(RESERVE, i)


def cell_of(place: Place) -> int | None:
    """The 0-based cell number (8 * (row - 1) + column - 1) of a quilt place, None off the quilt."""
    row, column = divmod(place.index, 10)
    if place.kind != QUILT or not (1 <= row <= ROWS and 1 <= column <= COLUMNS):
        return None
    return (row - 1) * COLUMNS + column - 1


def place_of(cell: int) -> Place:
    row, column = divmod(cell, COLUMNS)
    return Q(row + 1, column + 1)


def vertical(cell: int) -> bool:
    """Whether the card in this cell lies vertically (row + column even: musical-games(7), GAMES, "Crazy Quilt")."""
    row, column = divmod(cell, COLUMNS)
    return (row + column) % 2 == 0  # 0-based: the parity of (row+1) + (column+1) is the same


def _short_neighbours(cell: int) -> tuple[int | None, int | None]:
    """The cells touching this cell's short sides (None off the quilt): above and below for a
    vertical card, left and right for a horizontal one."""
    row, column = divmod(cell, COLUMNS)
    if vertical(cell):
        return (cell - COLUMNS if row > 0 else None, cell + COLUMNS if row < ROWS - 1 else None)
    return (cell - 1 if column > 0 else None, cell + 1 if column < COLUMNS - 1 else None)


SHORT_NEIGHBOURS: tuple[tuple[int | None, int | None], ...] = tuple(_short_neighbours(c) for c in range(CELLS))

# Foundation i (1-based): its suit, and whether it builds up (1-4) or down (5-8).
FOUNDATION_SUITS: tuple[Suit, ...] = SUITS + SUITS


def builds_up(i: int) -> bool:
    return i <= 4


# The most redeals a game may allow: the solver keeps the redeals left in a byte, and more than
# this never matter (a pass that plays no card leaves the position as it was, and a game has at
# most 168 plays: 104 cards to the foundations, 64 quilt cards to the waste).
MAX_REDEALS = 255


@dataclass(frozen=True, slots=True)
class CrazyQuiltRules:
    """``redeals``: times the waste may be turned over; ``wrap``: K and A build on each other;
    ``reserves``: Persian Rug (no stock, no waste, eight reserves)."""

    redeals: int = 1
    wrap: bool = False
    reserves: bool = False

    def __post_init__(self) -> None:
        if (isinstance(self.redeals, bool) or not isinstance(self.redeals, int)
                or not 0 <= self.redeals <= MAX_REDEALS):
            raise RulesError(_redeals_range(self.redeals))
        for name in ("wrap", "reserves"):
            if not isinstance(getattr(self, name), bool):
                # TRANSLATORS: {name} is the rule option's name ("wrap", "reserves"), which stays
                # English, as do its values "yes" and "no"
                raise RulesError(_("{name} must be yes or no").format(name=name))
        if self.reserves and self.redeals != 1:
            # Persian Rug has no stock and no waste: a number of redeals would mean nothing, and
            # would only make a rule set of its own in the record, apart from Persian Rug's.
            # TRANSLATORS: "redeals" is the rule option's name, which stays English
            raise RulesError(_("redeals has no meaning in Persian Rug: it has no stock to "
                               "turn over; leave it out"))

    @property
    def variant(self) -> str:
        """The name players know this set of rules by, in English (:meth:`variant_title` says it
        in the language in use)."""
        if self.reserves:
            return PERSIAN_RUG
        return {1: CRAZY_QUILT_TITLE, 2: INDIAN_CARPET}.get(self.redeals, CRAZY_QUILT_TITLE)


# The names of the variants, for people (read with _()).
CRAZY_QUILT_TITLE = N_("Crazy Quilt")
INDIAN_CARPET = N_("Indian Carpet")
PERSIAN_RUG = N_("Persian Rug")


def _redeals_range(value: object) -> str:
    # TRANSLATORS: "redeals" is the rule option's name, which stays English
    return _("redeals must be a whole number from 0 to {most}; not {value!r}").format(most=MAX_REDEALS, value=value)


def _parse_redeals(text: str) -> int:
    t = text.strip()
    # not just isdigit(): "²" is a digit that int() refuses; and no int() of thousands of digits
    if not (t.isascii() and t.isdigit()) or len(t.lstrip("0")) > len(str(MAX_REDEALS)) or int(t) > MAX_REDEALS:
        raise RulesError(_redeals_range(text))
    return int(t)


@dataclass(frozen=True, slots=True)
class CrazyQuiltState:
    """A position. ``foundations``: 8 tuples of cards, base first. ``quilt``: 64 cells, row 1
    first, column 1 first, None for an empty cell. ``stock`` top first; ``waste`` and each
    reserve bottom first (top last), so a redeal is ``stock = waste``. Persian Rug has an empty
    stock and waste and eight reserves; the other games have ``reserves == ()``."""

    rules: CrazyQuiltRules
    foundations: tuple[tuple[Card, ...], ...]
    quilt: tuple[Card | None, ...]
    stock: tuple[Card, ...] = ()
    waste: tuple[Card, ...] = ()
    reserves: tuple[tuple[Card, ...], ...] = ()
    redeals_used: int = 0

    @property
    def waste_top(self) -> Card | None:
        return self.waste[-1] if self.waste else None

    @property
    def redeals_left(self) -> int:
        return self.rules.redeals - self.redeals_used

    # Persian Rug has no stock and so no passes: there the attributes are missing (AttributeError),
    # which is how render.status knows not to show "pass 1 of 2".
    @property
    def pass_number(self) -> int:
        if self.rules.reserves:
            raise AttributeError("Persian Rug has no passes")
        return self.redeals_used + 1

    @property
    def passes(self) -> int:
        if self.rules.reserves:
            raise AttributeError("Persian Rug has no passes")
        return self.rules.redeals + 1

    def needs(self, i: int) -> Card | None:
        """The card foundation i (1-8) takes next, or None when it is complete."""
        pile = self.foundations[i - 1]
        if len(pile) >= FOUNDATION_SIZE:
            return None
        top = pile[-1].rank
        return Card(top + 1 if builds_up(i) else top - 1, FOUNDATION_SUITS[i - 1])

    def wanting(self, card: Card) -> tuple[int, ...]:
        """The foundations (1-8) whose next card is ``card``."""
        return tuple(i for i in range(1, FOUNDATIONS + 1) if self.needs(i) == card)

    @property
    def complete(self) -> bool:
        return all(len(f) == FOUNDATION_SIZE for f in self.foundations)

    def available(self, cell: int) -> bool:
        """Whether the quilt card in ``cell`` (0-63) may be moved: a card lies there and one of
        its short sides touches no card."""
        if self.quilt[cell] is None:
            return False
        return any(n is None or self.quilt[n] is None for n in SHORT_NEIGHBOURS[cell])

    def available_cells(self) -> tuple[int, ...]:
        """Every available cell (0-63), in reading order."""
        return tuple(c for c in range(CELLS) if self.available(c))

    def available_cards(self) -> tuple[tuple[int, Card], ...]:
        """Every available cell (0-63) and its card, in reading order."""
        return tuple((c, card) for c, card in enumerate(self.quilt) if card is not None and self.available(c))


def builds_on(card: Card, below: Card, wrap: bool) -> bool:
    """Whether ``card`` may go onto ``below`` on the waste or a reserve: same suit, one rank
    apart (K and A only with ``wrap``)."""
    if card.suit != below.suit:
        return False
    gap = abs(card.rank - below.rank)
    return gap == 1 or (wrap and gap == 12)


# The moves with a stock and a waste (Crazy Quilt, Indian Carpet), and those of Persian Rug
# (reserves, no stock, no waste): notation_for gives the rules' own.
STOCK_NOTATION = (
    ("d", N_("turn the stock's top card onto the waste")),
    ("redeal", N_("turn the waste over to be the stock again (when the stock is empty)")),
    ("w fN", N_("play the waste card to foundation N (1-4 up from A, 5-8 down from K)")),
    ("qRC fN", N_("play the available quilt card in row R, column C to foundation N")),
    ("qRC w", N_("put the available quilt card in row R, column C onto the waste")),
)
RESERVE_NOTATION = (
    ("qRC fN", N_("play the available quilt card in row R, column C to foundation N")),
    ("qRC rN", N_("put the quilt card onto reserve N")),
    ("rN fM", N_("reserve N's top card to foundation M (1-4 up from A, 5-8 down from K)")),
    ("rN rM", N_("move reserve N's top card onto reserve M")),
)
# TRANSLATORS: a move of Persian Rug's among the moves of all the variants: {move} says what it does
PERSIAN_RUG_MOVE = N_("Persian Rug: {move}")


class CrazyQuilt(Game[CrazyQuiltState, CrazyQuiltRules]):
    name = "crazy-quilt"
    title = CRAZY_QUILT_TITLE
    aliases = ("quilt", "japanese-rug")  # Indian Carpet is the option redeals 2, not another name
    decks = 2
    options = (
        RuleOption("redeals", N_("times the waste may be turned over: 1 (default), 2 for Indian Carpet"),
                   "1", _parse_redeals, metavar="K"),
        RuleOption("wrap", N_("a K and an A of a suit build on each other (onto the waste or a reserve)"),
                   "no", parse_yes_no("wrap"), yes_no, metavar=None, const="yes"),
        RuleOption("reserves", N_("Persian Rug: no stock; eight reserves of four cards, face up"),
                   "no", parse_yes_no("reserves"), yes_no, metavar=None, const="yes"),
    )
    rules_type = CrazyQuiltRules
    notation = STOCK_NOTATION + tuple((u, PERSIAN_RUG_MOVE.format(move=m)) for u, m in RESERVE_NOTATION[1:])
    package = __package__
    players = ("solver",)
    has_greedy = True
    # TRANSLATORS: how the baseline strategy plays, after "won by" in the report of 'musical stats'
    greedy_text = N_("always playing to a foundation first, then onto the waste, then dealing")

    def notation_for(self, rules: CrazyQuiltRules | None = None) -> tuple[tuple[str, str], ...]:
        if rules is None:
            return for_people(STOCK_NOTATION) + tuple((u, _(PERSIAN_RUG_MOVE).format(move=_(m)))
                                                      for u, m in RESERVE_NOTATION[1:])
        return for_people(RESERVE_NOTATION if rules.reserves else STOCK_NOTATION)

    def resolve(self, state: CrazyQuiltState, move: Move) -> Move:
        """The short forms: ``q34`` (or ``w``, ``r2``) alone is the one legal move of that card."""
        if isinstance(move, Transfer) and move.target is None:
            return short_form(state, move.source)
        return move

    # --- the deal --------------------------------------------------------------------------
    def layout(self, deck: Sequence[Card], rules: CrazyQuiltRules) -> CrazyQuiltState:
        # musical-games(7), GAMES, "Crazy Quilt", Deal numbers: from the bottom (first element), the first ace and the first
        # king of each suit leave; the rest keep their order; the quilt is dealt from the top
        # (the last element to q11, ... q18, q21, ...), the remaining 32 are the stock.
        if len(deck) != 104:
            raise ValueError("a Crazy Quilt deal needs two full decks, 104 cards")
        aces: dict[Suit, Card] = {}
        kings: dict[Suit, Card] = {}
        rest: list[Card] = []
        for card in deck:
            if card.rank == 1 and card.suit not in aces:
                aces[card.suit] = card
            elif card.rank == 13 and card.suit not in kings:
                kings[card.suit] = card
            else:
                rest.append(card)
        top_first = rest[::-1]
        quilt = tuple(top_first[:CELLS])
        stock = tuple(top_first[CELLS:])
        foundations = tuple((aces[s],) for s in SUITS) + tuple((kings[s],) for s in SUITS)
        if rules.reserves:
            # Dealt from the top, one to each reserve in turn, four rounds; the last dealt is on top.
            reserves = tuple(tuple(stock[j + RESERVES * k] for k in range(4)) for j in range(RESERVES))
            return CrazyQuiltState(rules, foundations, quilt, (), (), reserves)
        return CrazyQuiltState(rules, foundations, quilt, stock)

    # --- moves -----------------------------------------------------------------------------
    @staticmethod
    def _wants(state: CrazyQuiltState) -> dict[Card, list[int]]:
        """Each card some foundation takes next, and which (computed once per position)."""
        wants: dict[Card, list[int]] = {}
        for i in range(1, FOUNDATIONS + 1):
            need = state.needs(i)
            if need is not None:
                wants.setdefault(need, []).append(i)
        return wants

    def legal_moves(self, state: CrazyQuiltState) -> tuple[Move, ...]:
        """Every legal move, in a fixed order: waste or reserve tops to the foundations, quilt
        cards to the foundations, quilt cards onto the waste or the reserves, reserve to reserve,
        then the deal or the redeal."""
        moves: list[Move] = []
        wrap = state.rules.wrap
        top = state.waste_top
        wants = self._wants(state)
        if top is not None:
            moves += [Transfer(W, F(i)) for i in wants.get(top, ())]
        for j, reserve in enumerate(state.reserves, 1):
            if reserve:
                moves += [Transfer(R(j), F(i)) for i in wants.get(reserve[-1], ())]
        cells = state.available_cards()
        for cell, card in cells:
            moves += [Transfer(place_of(cell), F(i)) for i in wants.get(card, ())]
        for cell, card in cells:
            if top is not None and builds_on(card, top, wrap):
                moves.append(Transfer(place_of(cell), W))
            for j, reserve in enumerate(state.reserves, 1):
                if not reserve or builds_on(card, reserve[-1], wrap):
                    moves.append(Transfer(place_of(cell), R(j)))
        for j, reserve in enumerate(state.reserves, 1):
            if reserve:
                for k, other in enumerate(state.reserves, 1):
                    if k != j and (not other or builds_on(reserve[-1], other[-1], wrap)):
                        moves.append(Transfer(R(j), R(k)))
        if state.stock:
            moves.append(DEAL)
        elif state.waste and state.redeals_left > 0:
            moves.append(REDEAL)
        return tuple(moves)

    def apply(self, state: CrazyQuiltState, move: Move) -> CrazyQuiltState:
        if isinstance(move, Deal):
            if not state.stock:
                self._refuse(state, move, self._no_stock(state))
            return _replace(state, stock=state.stock[1:], waste=state.waste + state.stock[:1])
        if isinstance(move, Redeal):
            if state.rules.reserves:
                self._refuse(state, move, _("Persian Rug has no stock and no redeal"))
            if state.stock:
                self._refuse(state, move, stock_still_has(len(state.stock)))
            if not state.waste:
                self._refuse(state, move, _("the waste is empty; there is nothing to turn over"))
            if state.redeals_left <= 0:
                self._refuse(state, move, no_redeal_left(state.rules.redeals))
            return _replace(state, stock=state.waste, waste=(), redeals_used=state.redeals_used + 1)
        if isinstance(move, Transfer):
            return self._transfer(state, move)
        raise TypeError(f"not a move: {move!r}")

    def _no_stock(self, state: CrazyQuiltState) -> str:
        if state.rules.reserves:
            return _("Persian Rug has no stock")
        if state.waste and state.redeals_left > 0:
            return _("the stock is empty; redeal to turn the waste over")
        return _("the stock is empty")

    def _source_card(self, state: CrazyQuiltState, move: Transfer) -> Card:
        """The card ``move`` takes, or IllegalMove saying why there is none."""
        source = move.source
        if source.kind == WASTE:
            if state.rules.reserves:
                self._refuse(state, move, _("Persian Rug has no waste"))
            if state.waste_top is None:
                self._refuse(state, move, _("the waste is empty; deal a card first") if state.stock
                             else _("the waste is empty"))
            return state.waste_top
        if source.kind == QUILT:
            cell = cell_of(source)
            if cell is None:
                # TRANSLATORS: {cell} is a quilt cell off the quilt, as "q91"
                self._refuse(state, move, _("there is no quilt cell {cell}; cells are q11 to q88 "
                                            "(row 1-8, then column 1-8)").format(cell=source))
            card = state.quilt[cell]
            if card is None:
                # TRANSLATORS: {cell} is a quilt cell, as "q34"
                self._refuse(state, move, _("{cell} is empty").format(cell=source))
            if not state.available(cell):
                # TRANSLATORS: {cell} is a quilt cell, as "q34"; {why} says which cards cover it
                self._refuse(state, move, _("{cell} is not available: {why}").format(cell=source, why=why_covered(cell)))
            return card
        if source.kind == RESERVE:
            if not state.rules.reserves:
                self._refuse(state, move, _no_reserves())
            if not 1 <= source.index <= RESERVES:
                self._refuse(state, move, _no_reserve(source.index))
            reserve = state.reserves[source.index - 1]
            if not reserve:
                self._refuse(state, move, _("reserve {i} is empty").format(i=source.index))
            return reserve[-1]
        # TRANSLATORS: {place} is a place of another game's notation, as "pile 2"
        self._refuse(state, move, (_("cards are played from the waste, the quilt or a reserve, not from {place}")
                                   if state.rules.reserves else
                                   _("cards are played from the waste, the quilt, not from {place}"))
                     .format(place=place_name(source)))

    def _transfer(self, state: CrazyQuiltState, move: Transfer) -> CrazyQuiltState:
        card = self._source_card(state, move)
        target = move.target
        source = move.source
        if target is None:
            # TRANSLATORS: {} is a card, as "5♥"
            self._refuse(state, move, _("say where {} goes"), card)
        if target.kind == FOUNDATION:
            if not 1 <= target.index <= FOUNDATIONS:
                self._refuse(state, move, no_foundation(target.index, FOUNDATIONS))
            i = target.index
            need = state.needs(i)
            if need is None:
                self._refuse(state, move, _("foundation {i} is complete").format(i=i))
            if need != card:
                # TRANSLATORS: {i} is a foundation's number; {place} where the card is, as "the waste",
                # "q34" or "reserve 2"; the first {{}} is the card the foundation needs, the second the
                # card played, as "7♣": keep them as {{}}, in their order
                self._refuse(state, move, _("foundation {i} needs {{}}; {place} shows {{}}")
                             .format(i=i, place=_shown(source)), need, card)
            foundations = tuple(f + (card,) if n == i else f for n, f in enumerate(state.foundations, 1))
            return _take(state, source, foundations=foundations)
        if target.kind == WASTE:
            if state.rules.reserves:
                self._refuse(state, move, _("Persian Rug has no waste; cards go onto the reserves r1 to r8"))
            if source.kind != QUILT:
                self._refuse(state, move, _("only a quilt card goes onto the waste"))
            top = state.waste_top
            if top is None:
                self._refuse(state, move, _("the waste is empty; nothing is played onto an empty waste"))
            if not builds_on(card, top, state.rules.wrap):
                self._refuse(state, move, _does_not_go(state.rules.wrap), card, top)
            return _replace(_take(state, source), waste=state.waste + (card,))
        if target.kind == RESERVE:
            if not state.rules.reserves:
                self._refuse(state, move, _no_reserves())
            if not 1 <= target.index <= RESERVES:
                self._refuse(state, move, _no_reserve(target.index))
            if source == target:
                self._refuse(state, move, _("a card cannot move onto its own reserve"))
            reserve = state.reserves[target.index - 1]
            if reserve and not builds_on(card, reserve[-1], state.rules.wrap):
                self._refuse(state, move, _does_not_go(state.rules.wrap), card, reserve[-1])
            taken = _take(state, source)
            reserves = tuple(r + (card,) if n == target.index else r for n, r in enumerate(taken.reserves, 1))
            return _replace(taken, reserves=reserves)
        # TRANSLATORS: {place} is a place of another game's notation, as "pile 2"
        self._refuse(state, move, (_("nothing goes onto {place}; cards go to the foundations, the reserves")
                                   if state.rules.reserves else
                                   _("nothing goes onto {place}; cards go to the foundations or the waste"))
                     .format(place=place_name(target)))

    # --- the end ---------------------------------------------------------------------------
    def outcome(self, state: CrazyQuiltState) -> Outcome:
        """Won when every foundation is complete. Lost when no move is left, or, in Persian Rug,
        when no move can ever lead on (:func:`stuck_for_ever`)."""
        if state.complete:
            return Outcome.WON
        legal = self.legal_moves(state)
        if not legal or (state.rules.reserves and stuck_for_ever(state, legal)):
            return Outcome.LOST
        return Outcome.IN_PLAY

    def cards_to_build(self, state: CrazyQuiltState) -> int:
        return 2 * 52 - sum(len(f) for f in state.foundations)

    # --- the view and the solver, imported when first asked for ----------------------------
    def variant_title(self, rules: CrazyQuiltRules | None = None) -> str:
        if rules is None:
            return self.title
        from .view import variant_title

        return variant_title(self, rules)

    def draw(self, state: CrazyQuiltState, ascii: bool = False) -> list[tuple[str, str]]:
        from .view import draw

        return draw(state, ascii)

    def opening_record(self, deal: DealNumber, state: CrazyQuiltState) -> dict[str, Any]:
        from .view import opening_record

        return opening_record(self, deal, state)

    def own_search(self, state: CrazyQuiltState, budget: float | None, progress: Progress | None,
                   nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
        from .solver import search

        return search(state, budget, progress, nodes)

    def part_label(self, key: str, row: int | None = None) -> str:
        if key == "quilt":
            if row is not None:
                # TRANSLATORS: a row of the opening layout, as 'musical deal' labels it: "quilt 3".
                return pgettext("layout", "quilt {row}").format(row=row)
            return pgettext("layout", "quilt")
        return super().part_label(key, row)

    def shorter_line(self, state: CrazyQuiltState, moves: tuple[Move, ...]) -> tuple[Move, ...] | None:
        from .lines import shorter_line

        return shorter_line(state, moves)

    def difficulty_bands(self) -> Mapping[CrazyQuiltRules, tuple[int, int]]:
        from .solver import DIFFICULTY_BANDS

        return DIFFICULTY_BANDS

    def difficulty_lost(self) -> Mapping[CrazyQuiltRules, int]:
        from .solver import DIFFICULTY_LOST

        return DIFFICULTY_LOST

    def difficulty_nodes(self) -> int:
        from .solver import DIFFICULTY_NODES

        return DIFFICULTY_NODES

    def sure_move(self, state: CrazyQuiltState) -> Move | None:
        from .solver import sure_move

        return sure_move(self, state)

    def greedy_wins(self, state: CrazyQuiltState) -> bool:
        from .solver import greedy_wins

        return greedy_wins(self, state)


def _shown(source: Place) -> str:
    """Where a card played is, for a message: "the waste", "q34", "reserve 2"."""
    return str(source) if source.kind == QUILT else place_name(source)


def _no_reserves() -> str:
    # TRANSLATORS: "reserves" in parentheses is the rule option's name, which stays English
    return _("reserves are only in Persian Rug (rule option reserves)")


def _no_reserve(i: int) -> str:
    # TRANSLATORS: {i} is a reserve's number that the game does not have
    return _("there is no reserve {i}; the reserves are r1 to r8").format(i=i)


def _does_not_go(wrap: bool) -> str:
    """Why a card does not go onto another on the waste or a reserve: the two cards are {}."""
    if wrap:
        # TRANSLATORS: the first {} is the card played, the second the card it would go onto
        return _("{} does not go onto {}: same suit, one rank higher or lower")
    # TRANSLATORS: the first {} is the card played, the second the card it would go onto
    return _("{} does not go onto {}: same suit, one rank higher or lower (no wrap between K and A)")


def _replace(state: CrazyQuiltState, **changes: Any) -> CrazyQuiltState:
    fields: dict[str, Any] = {"rules": state.rules, "foundations": state.foundations, "quilt": state.quilt,
              "stock": state.stock, "waste": state.waste, "reserves": state.reserves,
              "redeals_used": state.redeals_used}
    fields.update(changes)
    return CrazyQuiltState(**fields)


def _take(state: CrazyQuiltState, source: Place, **changes: Any) -> CrazyQuiltState:
    """``state`` with the card at ``source`` taken away (and ``changes``)."""
    if source.kind == WASTE:
        changes["waste"] = state.waste[:-1]
    elif source.kind == QUILT:
        cell = cell_of(source)
        assert cell is not None, "a quilt move's cell is checked before the card is taken"
        changes["quilt"] = state.quilt[:cell] + (None,) + state.quilt[cell + 1:]
    else:
        changes["reserves"] = tuple(r[:-1] if n == source.index else r for n, r in enumerate(state.reserves, 1))
    return _replace(state, **changes)


def why_covered(cell: int) -> str:
    """Why the card in ``cell`` is not available (both short sides are covered)."""
    a, b = SHORT_NEIGHBOURS[cell]
    assert a is not None and b is not None, "a card on the quilt's edge always has a free side"
    # TRANSLATORS: {a} and {b} are quilt cells, as "q24" and "q44"
    return _("the cards at {a} and {b} cover its short sides").format(a=place_of(a), b=place_of(b))


def is_progress(move: Move) -> bool:
    """Whether ``move`` changes anything but the order of the reserves' cards: every move but
    reserve to reserve."""
    return not (isinstance(move, Transfer) and move.source.kind == RESERVE
                and move.target is not None and move.target.kind == RESERVE)


def stuck_for_ever(state: CrazyQuiltState, legal: Sequence[Move] | None = None) -> bool:
    """Persian Rug: whether no sequence of reserve-to-reserve moves reaches a position with any
    other move (to a foundation, or from the quilt).

    Exact, by a complete search of the positions reserve-to-reserve moves reach from ``state``:
    those moves change nothing but the reserves, so the quilt and the foundations stay as they
    are and the positions reached are finitely many arrangements of the same reserve cards. Two
    arrangements that are the same piles in another order of the reserves have the same moves
    up to renumbering, so they are visited once (key: the sorted piles). The search stops at the
    first arrangement with a move that is not reserve to reserve; it explores everything only
    when the answer is "stuck", which is when the reserves can do little.

    (A non-empty quilt always has an available card: the first occupied row's leftmost card, or a
    vertical card of it, has a free short side. So with an empty reserve the quilt must be empty
    for the position to be stuck: a quilt card could go there.)"""
    game = CRAZY_QUILT
    if legal is None:
        legal = game.legal_moves(state)
    if any(is_progress(m) for m in legal):
        return False
    seen = {_arrangement(state)}
    todo = [(state, legal)]
    while todo:
        s, moves = todo.pop()
        for move in moves:
            nxt = game.apply(s, move)
            key = _arrangement(nxt)
            if key in seen:
                continue
            seen.add(key)
            nxt_moves = game.legal_moves(nxt)
            if any(is_progress(m) for m in nxt_moves):
                return False
            todo.append((nxt, nxt_moves))
    return True


def _arrangement(state: CrazyQuiltState) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The reserves as piles in no particular order of the reserves."""
    return tuple(sorted(tuple(c.sort_key() for c in r) for r in state.reserves))


def short_form(state: CrazyQuiltState, source: Place) -> Move:
    """What a short form (``q34`` alone, ``w`` alone, ``r2`` alone) means in ``state``: the one
    legal move of that card. IllegalMove when the card has no legal move (saying why) or more
    than one (naming them)."""
    game = CRAZY_QUILT
    legal = game.legal_moves(state)
    options = [m for m in legal if isinstance(m, Transfer) and m.source == source]
    if len(options) == 1:
        return options[0]
    short = Transfer(source)
    if not options:
        card = game._source_card(state, short)  # raises, saying why, when no card can move from there
        # TRANSLATORS: {} is a card, as "5♥"
        raise IllegalMove(short, _("{} has nowhere to go now"), legal, (card,))
    # TRANSLATORS: {moves} are the moves that take the card, as "q34 f2 or q34 w"
    raise IllegalMove(short, _("more than one move takes it; choose {moves}").format(
        moves=pgettext("between moves", " or ").join(map(str, options))), legal)


def all_cards(state: CrazyQuiltState) -> list[Card]:
    """Every card of the position, wherever it lies (for checks: always the 104 of two decks)."""
    return [*(c for f in state.foundations for c in f), *(c for c in state.quilt if c is not None),
            *state.stock, *state.waste, *(c for r in state.reserves for c in r)]


CRAZY_QUILT = CrazyQuilt()
