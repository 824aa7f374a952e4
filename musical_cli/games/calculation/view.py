"""Calculation on screen: the foundations with what each needs, the piles as columns (every card
visible, as a player may look at them in the real game; as rows once one is deeper than fits a
24-row screen), the waste and the stock."""

from __future__ import annotations

from typing import Any

from ...cards import rank_name
from ...deals import DealNumber
from ...render import Fragments, card, plain, row
from .rules import Calculation, CalculationRules, CalculationState

WIDTH = 6  # columns a foundation's or a pile's cell takes
# The deepest pile drawn as a column: deeper, the piles are drawn as rows (the top card, the one
# that plays, last), so that the whole layout, its title included, stays on a 24-row screen.
TALL = 12
ROW_CARDS = 15  # cards on a line of a pile drawn as a row: 80 columns


def _pile_rows(state: CalculationState, ascii: bool) -> Fragments:
    out: Fragments = []
    for j, pile in enumerate(state.piles, start=1):
        chunks = [pile[k:k + ROW_CARDS] for k in range(0, len(pile), ROW_CARDS)] or [()]
        for n, chunk in enumerate(chunks):
            out.append(("class:label", "  piles        " if j == 1 and n == 0 else "               "))
            out.append(("class:label", (f"p{j}" + ("  " if chunk else "")) if n == 0 else "    "))
            for k, c in enumerate(chunk):
                cell = card(c, ascii)
                out += cell
                if k < len(chunk) - 1:
                    out.append(("", " " * max(1, 4 - len(plain(cell)))))
            out.append(("", "\n"))
    return out


def draw(state: CalculationState, ascii: bool = False) -> Fragments:
    out: Fragments = row("foundations", [card(f[-1] if f else None, ascii) for f in state.foundations], WIDTH)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    out += row("needs", [[("class:done", "done")] if n is None else [("", rank_name(n))] for n in needs], WIDTH)
    if max((len(p) for p in state.piles), default=0) <= TALL:
        out += row("piles", [[("class:label", f"p{j}")] for j in range(1, len(state.piles) + 1)], WIDTH)
        for depth in range(max((len(p) for p in state.piles), default=0)):
            cells = [card(p[depth], ascii) if depth < len(p) else [("", "")] for p in state.piles]
            while cells and cells[-1] == [("", "")]:
                cells.pop()
            out += row("", cells, WIDTH)
    else:
        out += _pile_rows(state, ascii)
    out.append(("class:label", "  waste        "))
    out += card(state.waste_top, ascii)
    out.append(("class:label", "    stock "))
    out.append(("", f"{len(state.stock)}\n"))
    return out


def variant_title(game: Calculation, rules: CalculationRules) -> str:
    """The Game protocol's ``variant_title``: "Calculation", "Calculation with 3 piles",
    "Calculation with no bases", or both."""
    default = game.default_rules()
    changes = ([f"{rules.piles} piles"] if rules.piles != default.piles else []) + \
        (["no bases"] if rules.bases != default.bases else [])
    return game.title + (" with " + " and ".join(changes) if changes else "")


def opening_record(game: Calculation, deal: DealNumber, state: CalculationState) -> dict[str, Any]:
    return {"game": game.name, "seed": deal.json,
            "foundations": [f[0].code for f in state.foundations if f],
            "stock": [c.code for c in state.stock]}
