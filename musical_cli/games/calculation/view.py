"""Calculation on screen: the foundations with what each needs, the piles as columns (every card
visible, as a player may look at them in the real game; as rows once one is deeper than fits a
24-row screen), the waste and the stock."""

from __future__ import annotations

from typing import Any

from ...cards import rank_name
from ...deals import DealNumber
from ...i18n import _, ngettext, pgettext
from ...render import Fragments, card, plain, row
from .rules import Calculation, CalculationRules, CalculationState

WIDTH = 6  # columns a foundation's or a pile's cell takes
# The deepest pile drawn as a column: deeper, the piles are drawn as rows (the top card, the one
# that plays, last), so that the whole layout, its title included, stays on a 24-row screen.
TALL = 12
ROW_CARDS = 15  # cards on a line of a pile drawn as a row: 80 columns


def _pile_rows(state: CalculationState, ascii: bool) -> Fragments:
    out: Fragments = []
    piles = pgettext("layout", "piles")
    for j, pile in enumerate(state.piles, start=1):
        chunks = [pile[k:k + ROW_CARDS] for k in range(0, len(pile), ROW_CARDS)] or [()]
        for n, chunk in enumerate(chunks):
            out.append(("class:label", f"  {piles if j == 1 and n == 0 else '':<13}"))
            out.append(("class:label", (f"p{j}" + ("  " if chunk else "")) if n == 0 else "    "))
            for k, c in enumerate(chunk):
                cell = card(c, ascii)
                out += cell
                if k < len(chunk) - 1:
                    out.append(("", " " * max(1, 4 - len(plain(cell)))))
            out.append(("", "\n"))
    return out


def draw(state: CalculationState, ascii: bool = False) -> Fragments:
    out: Fragments = row(pgettext("layout", "foundations"),
                         [card(f[-1] if f else None, ascii) for f in state.foundations], WIDTH)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    # TRANSLATORS: a foundation built to its end, under its card in the layout (4 letters fit best)
    done = pgettext("layout", "done")
    out += row(pgettext("layout", "needs"),
               [[("class:done", done)] if n is None else [("", rank_name(n))] for n in needs], WIDTH)
    if max((len(p) for p in state.piles), default=0) <= TALL:
        out += row(pgettext("layout", "piles"), [[("class:label", f"p{j}")] for j in range(1, len(state.piles) + 1)],
                   WIDTH)
        for depth in range(max((len(p) for p in state.piles), default=0)):
            cells = [card(p[depth], ascii) if depth < len(p) else [("", "")] for p in state.piles]
            while cells and cells[-1] == [("", "")]:
                cells.pop()
            out += row("", cells, WIDTH)
    else:
        out += _pile_rows(state, ascii)
    waste, stock = pgettext("layout", "waste"), pgettext("layout", "stock")
    out.append(("class:label", f"  {waste:<13}"))
    out += card(state.waste_top, ascii)
    out.append(("class:label", f"    {stock} "))
    out.append(("", f"{len(state.stock)}\n"))
    return out


def variant_title(game: Calculation, rules: CalculationRules) -> str:
    """The Game protocol's ``variant_title``: "Calculation", "Calculation with 3 piles",
    "Calculation with no bases", or both."""
    default = game.default_rules()
    piles, bases = rules.piles != default.piles, rules.bases != default.bases
    if piles and bases:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Calculation"), {n} how
        # many waste piles it has
        return ngettext("{title} with {n} pile and no bases", "{title} with {n} piles and no bases",
                        rules.piles).format(title=game.title, n=rules.piles)
    if piles:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Calculation"), {n} how
        # many waste piles it has
        return ngettext("{title} with {n} pile", "{title} with {n} piles", rules.piles).format(
            title=game.title, n=rules.piles)
    if bases:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Calculation"), with no
        # A, 2, 3, 4 set out as the foundations' bases
        return _("{title} with no bases").format(title=game.title)
    return game.title


def opening_record(game: Calculation, deal: DealNumber, state: CalculationState) -> dict[str, Any]:
    return {"game": game.name, "seed": deal.json,
            "foundations": [f[0].code for f in state.foundations if f],
            "stock": [c.code for c in state.stock]}
