"""Musical on screen: the signs, the foundations with what each needs, the waste and the stock."""

from __future__ import annotations

from typing import Any

from ...cards import rank_name
from ...deals import DealNumber
from ...render import Fragments, card, plural, row
from .rules import Musical, MusicalRules, MusicalState

WIDTH = 6  # columns a foundation's cell takes


def draw(state: MusicalState, ascii: bool = False) -> Fragments:
    out: Fragments = []
    out += row("signs", [card(c, ascii) for c in state.signs], WIDTH)
    out += row("foundations", [card(f[-1], ascii) for f in state.foundations], WIDTH)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    out += row("needs", [[("class:done", "done")] if n is None else [("", rank_name(n))] for n in needs], WIDTH)
    out.append(("class:label", "  waste        "))
    top = state.waste_top
    out += card(top, ascii)
    out.append(("class:dim", f"  ({plural(len(state.waste), 'card')})" if top else "  (empty)"))
    out.append(("class:label", "    stock "))
    out.append(("", f"{len(state.stock)}"))
    left = state.redeals_left
    redeals = "unlimited redeals" if left is None else plural(left, "redeal") + " left"
    out.append(("class:dim", f"   {redeals}\n"))
    return out


def variant_title(game: Musical, rules: MusicalRules) -> str:
    """The Game protocol's ``variant_title``: "Musical", or "Musical with 1 redeal" under other
    rules than the default two redeals."""
    if rules.redeals == game.default_rules().redeals:
        return game.title
    if rules.redeals is None:
        return f"{game.title} with unlimited redeals"
    return f"{game.title} with {'no redeal' if rules.redeals == 0 else plural(rules.redeals, 'redeal')}"


def opening_record(game: Musical, deal: DealNumber, state: MusicalState) -> dict[str, Any]:
    return {"game": game.name, "seed": deal.json,
            "signs": [c.code for c in state.signs],
            "foundations": [f[0].code for f in state.foundations],
            "stock": [c.code for c in state.stock]}
