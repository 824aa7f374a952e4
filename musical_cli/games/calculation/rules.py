"""Calculation (Broken Intervals): the rules of musical-games(7), GAMES, "Calculation", as a pure engine.

Four foundations build by +1, +2, +3, +4 from an A, a 2, a 3 and a 4, regardless of suit, each
complete at the king with 13 cards. The stock's top card is turned onto a one-card waste and must
be placed at once: on a foundation that wants it or on one of the waste piles. A pile's top card
may go to a foundation at any time; cards never move between piles; there is no redeal.

Rule options: ``piles`` (4, or 3) and ``bases`` (True; with False no A, 2, 3, 4 is set out, all
52 cards are dealt and foundation N is founded only by a card of rank N).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    not_a_foundation,
    parse_yes_no,
    place_name,
    yes_no,
)
from ...i18n import N_, _
from ...moves import DEAL, FOUNDATION, PILE, WASTE, Deal, F, Move, P, Transfer, W

FOUNDATIONS = 4
FOUNDATION_SIZE = 13


def foundation_rank(i: int, j: int) -> int:
    """The rank of the j-th card (j = 0 for the base) of foundation i: i, 2i, 3i, ... mod 13."""
    return (i * (j + 1) - 1) % 13 + 1


SEQUENCES: tuple[tuple[int, ...], ...] = tuple(
    tuple(foundation_rank(i, j) for j in range(FOUNDATION_SIZE)) for i in range(1, FOUNDATIONS + 1)
)
BASE_RANKS = (1, 2, 3, 4)


@dataclass(frozen=True, slots=True)
class CalculationRules:
    piles: int = 4
    bases: bool = True

    def __post_init__(self) -> None:
        if self.piles not in (3, 4):
            raise RulesError(_("Calculation has 4 waste piles, or 3 as a variant; not {piles!r}")
                             .format(piles=self.piles))
        if not isinstance(self.bases, bool):
            # TRANSLATORS: "bases" is the rule option's name, "yes" and "no" its values: they stay English
            raise RulesError(_("bases must be yes or no"))


def _parse_piles(text: str) -> int:
    piles = text.strip()
    if not (piles.isascii() and piles.isdigit()) or len(piles) > 9:  # no int() of thousands of digits
        # TRANSLATORS: "piles" is the rule option's name, which stays English
        raise RulesError(_("piles must be 3 or 4; not {piles!r}").format(piles=piles))
    return int(piles)


@dataclass(frozen=True, slots=True)
class CalculationState(Foundations):
    """``stock`` top first; ``waste`` holds at most one card; each pile bottom first (top last)."""

    SEQUENCES = SEQUENCES  # the module's table, for Foundations.needs

    rules: CalculationRules
    foundations: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    waste: tuple[Card, ...] = ()
    piles: tuple[tuple[Card, ...], ...] = ((), (), (), ())

    @property
    def waste_top(self) -> Card | None:
        return self.waste[-1] if self.waste else None


def _no_pile(i: int, piles: int) -> str:
    # TRANSLATORS: {i} is a pile's number that the rules do not have; {piles} how many piles they have
    return _("there is no pile {i}; the piles are p1 to p{piles}").format(i=i, piles=piles)


class Calculation(Game[CalculationState, CalculationRules]):
    name = "calculation"
    title = N_("Calculation")
    aliases = ("broken-intervals",)
    auto_turn = True
    hint_is_blind = True
    options = (
        RuleOption("piles", N_("4 waste piles (default), or 3"), "4", _parse_piles, metavar="N"),
        RuleOption("bases", N_("set out no A, 2, 3, 4; all 52 cards are dealt"), "yes",
                   parse_yes_no("bases"), yes_no, flag="--no-bases", metavar=None, const="no"),
    )
    rules_type = CalculationRules
    notation = (
        ("d", N_("turn the stock's top card onto the waste (the shell does it by itself)")),
        ("w fN", N_("play the waste card to foundation N")),
        ("w pN", N_("put the waste card on waste pile N")),
        ("pN fM", N_("play the top card of pile N to foundation M")),
    )
    package = __package__
    players = ("solver", "blind")

    def layout(self, deck: Sequence[Card], rules: CalculationRules) -> CalculationState:
        if len(deck) != 52:
            raise ValueError("a Calculation deal needs one full deck of 52 cards")
        # musical-games(7), GAMES, Deal numbers: PySolFC's Calculation hook: walking from the bottom of the stock, the first
        # A, 2, 3 and 4 met become the foundation bases.
        bases: dict[int, Card] = {}
        rest: list[Card] = []
        for card in deck:
            if rules.bases and card.rank in BASE_RANKS and card.rank not in bases:
                bases[card.rank] = card
            else:
                rest.append(card)
        foundations = tuple((bases[r],) for r in BASE_RANKS) if rules.bases else ((),) * FOUNDATIONS
        return CalculationState(rules, foundations, tuple(reversed(rest)), (), ((),) * rules.piles)

    def legal_moves(self, state: CalculationState) -> tuple[Move, ...]:
        moves: list[Move] = []
        top = state.waste_top
        if top is not None:
            moves.extend(Transfer(W, F(i)) for i in state.wanting(top.rank))
            moves.extend(Transfer(W, P(j)) for j in range(1, len(state.piles) + 1))
        for j, pile in enumerate(state.piles, 1):
            if pile:
                moves.extend(Transfer(P(j), F(i)) for i in state.wanting(pile[-1].rank))
        if top is None and state.stock:
            moves.append(DEAL)
        return tuple(moves)

    def apply(self, state: CalculationState, move: Move) -> CalculationState:
        if isinstance(move, Deal):
            if state.waste:
                # TRANSLATORS: {} is the waste card, as "7♣"
                self._refuse(state, move, _("the waste card {} must be placed first, on a foundation "
                                            "or a pile"), state.waste[-1])
            if not state.stock:
                self._refuse(state, move, _("the stock is empty"))
            return CalculationState(state.rules, state.foundations, state.stock[1:], state.stock[:1], state.piles)
        if isinstance(move, Transfer):
            return self._transfer(state, move)
        self._refuse(state, move, _("Calculation has no redeal"))

    def _transfer(self, state: CalculationState, move: Transfer) -> CalculationState:
        source, target = move.source, move.target
        npiles = len(state.piles)
        if source.kind == WASTE:
            card = state.waste_top
            if card is None:
                self._refuse(state, move, _("the waste is empty; deal a card first") if state.stock
                             else _("the waste is empty"))
        elif source.kind == PILE:
            if not 1 <= source.index <= npiles:
                self._refuse(state, move, _no_pile(source.index, npiles))
            pile = state.piles[source.index - 1]
            if not pile:
                self._refuse(state, move, _("pile {i} is empty").format(i=source.index))
            card = pile[-1]
        else:
            # TRANSLATORS: {place} is a place of another game's notation, as "quilt cell q34"
            self._refuse(state, move, _("cards are played from the waste or a pile, not from {place}")
                         .format(place=place_name(source)))
        if target is None:
            # TRANSLATORS: {} is a card, as "5♥"
            self._refuse(state, move, _("no foundation takes {}") if not state.wanting(card.rank)
                         else _("say which foundation takes {}"), card)
        if target.kind == PILE:
            if source.kind != WASTE:
                self._refuse(state, move, _("cards never move from one pile to another"))
            if not 1 <= target.index <= npiles:
                self._refuse(state, move, _no_pile(target.index, npiles))
            piles = tuple(p + (card,) if n == target.index else p for n, p in enumerate(state.piles, 1))
            return CalculationState(state.rules, state.foundations, state.stock, (), piles)
        if target.kind != FOUNDATION or not 1 <= target.index <= FOUNDATIONS:
            self._refuse(state, move, no_foundation(target.index, FOUNDATIONS) if target.kind == FOUNDATION
                         else not_a_foundation(target, FOUNDATIONS))
        i = target.index
        need = state.needs(i)
        if need is None:
            self._refuse(state, move, _("foundation {i} is complete").format(i=i))
        if need != card.rank:
            # TRANSLATORS: {i} is a foundation's number; {rank} a rank with its article, as "a 5";
            # {place} where the card is, as "the waste" or "pile 2"; {{}} the card, as "7♣": keep it as {{}}
            self._refuse(state, move, _("foundation {i} needs {rank}; {place} shows {{}}")
                         .format(i=i, rank=a_rank(need), place=place_name(source)), card)
        foundations = tuple(f + (card,) if n == i else f for n, f in enumerate(state.foundations, 1))
        if source.kind == WASTE:
            return CalculationState(state.rules, foundations, state.stock, (), state.piles)
        piles = tuple(p[:-1] if n == source.index else p for n, p in enumerate(state.piles, 1))
        return CalculationState(state.rules, foundations, state.stock, state.waste, piles)

    def cards_to_build(self, state: CalculationState) -> int:
        return 52 - sum(len(f) for f in state.foundations)

    # --- the view, the solver and the blind player, imported when first asked for -----------
    def variant_title(self, rules: CalculationRules | None = None) -> str:
        if rules is None:
            return self.title
        from .view import variant_title

        return variant_title(self, rules)

    def draw(self, state: CalculationState, ascii: bool = False) -> list[tuple[str, str]]:
        from .view import draw

        return draw(state, ascii)

    def opening_record(self, deal: DealNumber, state: CalculationState) -> dict[str, Any]:
        from .view import opening_record

        return opening_record(self, deal, state)

    def own_search(self, state: CalculationState, budget: float | None, progress: Progress | None,
                   nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
        from .solver import search

        return search(state, budget, progress, nodes)

    def witness(self, state: CalculationState, budget: float | None, nodes: int | None, used: int,
                progress: Progress | None = None) -> tuple[Move, ...] | None:
        from .blind import witness

        return witness(state, budget, nodes, used, progress)

    def difficulty_bands(self) -> Mapping[CalculationRules, tuple[int, int]]:
        from .solver import DIFFICULTY_BANDS

        return DIFFICULTY_BANDS

    def difficulty_lost(self) -> Mapping[CalculationRules, int]:
        from .solver import DIFFICULTY_LOST

        return DIFFICULTY_LOST

    def sure_move(self, state: CalculationState) -> Move | None:
        from .solver import sure_move

        return sure_move(self, state)

    def blind_hint(self, state: CalculationState) -> Move | None:
        from .blind import hint_calculation

        return hint_calculation(state)

    def blind_safe_moves(self, state: CalculationState) -> tuple[Move, ...]:
        from .blind import safe_calculation_moves

        return safe_calculation_moves(state)

    def blind_estimate(self, state: CalculationState, stopped: Callable[[], bool] | None = None,
                       partial: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        from .blind import blind_estimate

        return blind_estimate(state, stopped=stopped, partial=partial)

    def blind_play(self, state: CalculationState, progress: Progress | None = None
                   ) -> tuple[bool, tuple[Move, ...]]:
        from .blind import blind_play

        return blind_play(state, progress=progress)


CALCULATION = Calculation()
