"""Calculation on screen: the foundations with what each needs, the piles as columns (every card
visible, as a player may look at them in the real game), the waste and the stock."""

from __future__ import annotations

from typing import Any

from ...cards import rank_name
from ...deals import DealNumber
from ...render import Fragments, card, row
from .rules import CalculationState

WIDTH = 6  # columns a foundation's or a pile's cell takes


def draw(state: CalculationState, ascii: bool = False) -> Fragments:
    out: Fragments = row("foundations", [card(f[-1] if f else None, ascii) for f in state.foundations], WIDTH)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    out += row("needs", [[("class:done", "done")] if n is None else [("", rank_name(n))] for n in needs], WIDTH)
    out += row("piles", [[("class:label", f"p{j}")] for j in range(1, len(state.piles) + 1)], WIDTH)
    for depth in range(max((len(p) for p in state.piles), default=0)):
        cells = [card(p[depth], ascii) if depth < len(p) else [("", "")] for p in state.piles]
        while cells and cells[-1] == [("", "")]:
            cells.pop()
        out += row("", cells, WIDTH)
    out.append(("class:label", "  waste        "))
    out += card(state.waste_top, ascii)
    out.append(("class:label", "    stock "))
    out.append(("", f"{len(state.stock)}\n"))
    return out


def variant_title(game: Any, rules: Any) -> str:
    """The Game protocol's ``variant_title``: "Calculation", "Calculation with 3 piles",
    "Calculation with no bases", or both."""
    default = game.default_rules()
    changes = ([f"{rules.piles} piles"] if rules.piles != default.piles else []) + \
        (["no bases"] if rules.bases != default.bases else [])
    return game.title + (" with " + " and ".join(changes) if changes else "")


def opening_record(game: Any, deal: DealNumber, state: CalculationState) -> dict[str, Any]:
    return {"game": game.name, "seed": deal.json,
            "foundations": [f[0].code for f in state.foundations if f],
            "stock": [c.code for c in state.stock]}
