"""Musical (Betsy Ross): the rules of musical-games(7), GAMES, "Musical", as a pure engine.

Suits never matter. Foundation i (1..4) builds up by i from its base (2, 4, 6, 8), wrapping after
the king, and is complete when a king lands on it: 12 cards each, 44 built in all, exactly the stock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...cards import Card, a_rank
from ...deals import DealNumber
from ...game import (
    Foundations,
    Game,
    Progress,
    RuleOption,
    RulesError,
    no_foundation,
    no_redeal_left,
    not_a_foundation,
    place_name,
    stock_still_has,
)
from ...i18n import N_, _
from ...moves import DEAL, FOUNDATION, REDEAL, WASTE, Deal, F, Move, Redeal, Transfer, W

FOUNDATIONS = 4
FOUNDATION_SIZE = 12  # base plus 11 built cards


def foundation_rank(i: int, j: int) -> int:
    """The rank of the j-th card (j = 0 for the base) of foundation i (musical-games(7), GAMES)."""
    return (i * (j + 2) - 1) % 13 + 1


SEQUENCES: tuple[tuple[int, ...], ...] = tuple(
    tuple(foundation_rank(i, j) for j in range(FOUNDATION_SIZE)) for i in range(1, FOUNDATIONS + 1)
)
SIGN_RANKS = (1, 2, 3, 4)
BASE_RANKS = tuple(seq[0] for seq in SEQUENCES)  # 2, 4, 6, 8


# The most redeals a game may allow, short of unlimited: far more than ever matter (a game won at
# all is won within 44 passes that play a card), and within what the solver's C core counts in.
MAX_REDEALS = 255


@dataclass(frozen=True, slots=True)
class MusicalRules:
    """``redeals``: how many times the waste may be turned over; None is unlimited."""

    redeals: int | None = 2

    def __post_init__(self) -> None:
        if self.redeals is not None and (
            isinstance(self.redeals, bool) or not isinstance(self.redeals, int)
            or not 0 <= self.redeals <= MAX_REDEALS
        ):
            # TRANSLATORS: "redeals" is the rule option's name and "unlimited" its value: both stay English
            raise RulesError(_("redeals must be a whole number from 0 to {most}, or unlimited; not {value!r}")
                             .format(most=MAX_REDEALS, value=self.redeals))

    @property
    def redeals_text(self) -> str:
        return "unlimited" if self.redeals is None else str(self.redeals)


def parse_redeals(text: str) -> int | None:
    t = text.strip().lower()
    if t in ("unlimited", "inf", "infinite"):
        return None
    # not just isdigit(): "²" is a digit that int() refuses; and no int() of thousands of digits
    if t.isascii() and t.isdigit() and len(t.lstrip("0")) <= len(str(MAX_REDEALS)) and int(t) <= MAX_REDEALS:
        return int(t)
    # TRANSLATORS: "redeals" is the rule option's name and 'unlimited' its value: both stay English
    raise RulesError(_("redeals must be a whole number from 0 to {most}, or 'unlimited'; not {value!r}")
                     .format(most=MAX_REDEALS, value=text))


@dataclass(frozen=True, slots=True)
class MusicalState(Foundations):
    """A position. ``stock`` lists the stock top first; ``waste`` bottom first (its top is last),
    so turning the waste over to become the stock is ``stock = waste``."""

    SEQUENCES = SEQUENCES  # the module's table, for Foundations.needs

    rules: MusicalRules
    signs: tuple[Card, ...]
    foundations: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    waste: tuple[Card, ...] = ()
    redeals_used: int = 0

    @property
    def waste_top(self) -> Card | None:
        return self.waste[-1] if self.waste else None

    @property
    def pass_number(self) -> int:
        return self.redeals_used + 1

    @property
    def passes(self) -> int | None:
        """Passes through the stock in all, or None when redeals are unlimited."""
        return None if self.rules.redeals is None else self.rules.redeals + 1

    @property
    def redeals_left(self) -> int | None:
        return None if self.rules.redeals is None else self.rules.redeals - self.redeals_used


def _redeals_text(redeals: int | None) -> str:
    return "unlimited" if redeals is None else str(redeals)


class Musical(Game[MusicalState, MusicalRules]):
    name = "musical"
    title = N_("Musical")
    aliases = ("betsy-ross",)
    options = (
        # TRANSLATORS: --redeals's help; 'unlimited' is the value typed, which stays English
        RuleOption("redeals", N_("how many times the waste may be turned over: 0, 1, 2 (default) ... "
                                 "or 'unlimited'"), "2", parse_redeals, _redeals_text, metavar="K"),
    )
    rules_type = MusicalRules
    notation = (
        ("d", N_("deal: turn the stock's top card onto the waste")),
        # TRANSLATORS: 'w' is the move as typed, which stays English
        ("w fN", N_("play the waste card to foundation N ('w' alone: to the one that takes it)")),
        ("redeal", N_("turn the waste over to become the stock again, once the stock is empty")),
    )
    package = __package__
    players = ("solver",)
    has_greedy = True
    # TRANSLATORS: how the baseline strategy plays, after "won by" in the report of 'musical stats'
    greedy_text = N_("always playing to the lowest foundation that takes a card")

    def layout(self, deck: Sequence[Card], rules: MusicalRules) -> MusicalState:
        # musical-games(7), GAMES, Deal numbers: PySolFC's Betsy Ross hook: walk from the bottom of the stock (the first
        # element) taking the first A, 2, 3, 4 as signs, then the first 2 and 4 met after their
        # sign is taken, and the first 6 and 8, as the foundation bases.
        signs: dict[int, Card] = {}
        bases: dict[int, Card] = {}
        rest: list[Card] = []
        for card in deck:
            r = card.rank
            if r in SIGN_RANKS and r not in signs:
                signs[r] = card
            elif r in BASE_RANKS and r not in bases:
                bases[r] = card
            else:
                rest.append(card)
        if len(signs) != 4 or len(bases) != 4 or len(deck) != 52:
            raise ValueError("a Musical deal needs one full deck of 52 cards")
        return MusicalState(
            rules=rules,
            signs=tuple(signs[r] for r in SIGN_RANKS),
            foundations=tuple((bases[r],) for r in BASE_RANKS),
            stock=tuple(reversed(rest)),
        )

    def legal_moves(self, state: MusicalState) -> tuple[Move, ...]:
        moves: list[Move] = []
        top = state.waste_top
        if top is not None:
            moves.extend(Transfer(W, F(i)) for i in state.wanting(top.rank))
        if state.stock:
            moves.append(DEAL)
        elif state.waste and (state.redeals_left is None or state.redeals_left > 0):
            moves.append(REDEAL)
        return tuple(moves)

    def apply(self, state: MusicalState, move: Move) -> MusicalState:
        if isinstance(move, Deal):
            if not state.stock:
                self._refuse(state, move, self._redeal_advice(state))
            return MusicalState(state.rules, state.signs, state.foundations,
                                state.stock[1:], state.waste + state.stock[:1], state.redeals_used)
        if isinstance(move, Redeal):
            if state.stock:
                self._refuse(state, move, stock_still_has(len(state.stock)))
            if not state.waste:
                self._refuse(state, move, _("the waste is empty; there is nothing to turn over"))
            if state.redeals_left is not None and state.redeals_left <= 0:
                self._refuse(state, move, no_redeal_left(state.rules.redeals))
            return MusicalState(state.rules, state.signs, state.foundations,
                                state.waste, (), state.redeals_used + 1)
        if isinstance(move, Transfer):
            return self._play(state, move)
        raise TypeError(f"not a move: {move!r}")

    def _play(self, state: MusicalState, move: Transfer) -> MusicalState:
        if move.source.kind != WASTE:
            # TRANSLATORS: {place} is a place of another game's notation, as "pile 2" or "quilt cell q34"
            self._refuse(state, move, _("Musical has no {place}; only the waste's top card is played")
                         .format(place=place_name(move.source)))
        if move.target is not None and move.target.kind != FOUNDATION:
            # TRANSLATORS: {place} is a place of the notation, as "pile 2" or "the waste"
            self._refuse(state, move, _("{place} is not a foundation; cards go to the foundations f1 to f4")
                         .format(place=place_name(move.target)))
        top = state.waste_top
        if top is None:
            self._refuse(state, move, _("the waste is empty; deal a card first"))
        target = move.target
        if target is None:
            wanting = state.wanting(top.rank)
            if not wanting:
                # TRANSLATORS: {} is a card, as "5♥"
                self._refuse(state, move, _("no foundation takes {}"), top)
            # TRANSLATORS: {} is a card, as "5♥"
            self._refuse(state, move, _("say which foundation takes {}"), top)
        if target.kind != "f" or not 1 <= target.index <= FOUNDATIONS:
            self._refuse(state, move, no_foundation(target.index, FOUNDATIONS) if target.kind == FOUNDATION
                         else not_a_foundation(target, FOUNDATIONS))
        i = target.index
        need = state.needs(i)
        if need is None:
            self._refuse(state, move, _("foundation {i} is complete").format(i=i))
        if need != top.rank:
            # TRANSLATORS: {i} is a foundation's number; {rank} a rank with its article, as "a 5";
            # {{}} is the card the waste shows, as "7♣": keep it as {{}}
            self._refuse(state, move, _("foundation {i} needs {rank}; the waste shows {{}}")
                         .format(i=i, rank=a_rank(need)), top)
        foundations = tuple(f + (top,) if n == i else f for n, f in enumerate(state.foundations, 1))
        return MusicalState(state.rules, state.signs, foundations,
                            state.stock, state.waste[:-1], state.redeals_used)

    def _redeal_advice(self, state: MusicalState) -> str:
        """Why no card can be dealt: the stock is empty, and what to do then."""
        if state.waste and (state.redeals_left is None or state.redeals_left > 0):
            return _("the stock is empty; redeal to turn the waste over")
        return _("the stock is empty")

    def cards_to_build(self, state: MusicalState) -> int:
        return len(state.stock) + len(state.waste)

    # --- the view and the solver, imported when first asked for ----------------------------
    def variant_title(self, rules: MusicalRules | None = None) -> str:
        if rules is None:
            return self.title
        from .view import variant_title

        return variant_title(self, rules)

    def draw(self, state: MusicalState, ascii: bool = False) -> list[tuple[str, str]]:
        from .view import draw

        return draw(state, ascii)

    def opening_record(self, deal: DealNumber, state: MusicalState) -> dict[str, Any]:
        from .view import opening_record

        return opening_record(self, deal, state)

    def own_search(self, state: MusicalState, budget: float | None, progress: Progress | None,
                   nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
        from .solver import search

        return search(state, budget, progress, nodes)

    def difficulty_bands(self) -> Mapping[MusicalRules, tuple[int, int]]:
        from .solver import DIFFICULTY_BANDS

        return DIFFICULTY_BANDS

    def difficulty_lost(self) -> Mapping[MusicalRules, int]:
        from .solver import DIFFICULTY_LOST

        return DIFFICULTY_LOST

    def sure_move(self, state: MusicalState) -> Move | None:
        from .solver import sure_move

        return sure_move(self, state)

    def greedy_wins(self, state: MusicalState) -> bool:
        from .solver import greedy_wins

        return greedy_wins(self, state)


MUSICAL = Musical()
