"""Musical on screen: the signs, the foundations with what each needs, the waste and the stock."""

from __future__ import annotations

from typing import Any

from ...cards import rank_name
from ...deals import DealNumber
from ...i18n import _, ngettext, pgettext
from ...render import Fragments, card, plural, row
from .rules import Musical, MusicalRules, MusicalState

WIDTH = 6  # columns a foundation's cell takes


def draw(state: MusicalState, ascii: bool = False) -> Fragments:
    out: Fragments = []
    out += row(pgettext("layout", "signs"), [card(c, ascii) for c in state.signs], WIDTH)
    out += row(pgettext("layout", "foundations"), [card(f[-1], ascii) for f in state.foundations], WIDTH)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    # TRANSLATORS: a foundation built to its end, under its card in the layout (4 letters fit best)
    done = pgettext("layout", "done")
    out += row(pgettext("layout", "needs"),
               [[("class:done", done)] if n is None else [("", rank_name(n))] for n in needs], WIDTH)
    waste, stock, empty = pgettext("layout", "waste"), pgettext("layout", "stock"), pgettext("layout", "empty")
    out.append(("class:label", f"  {waste:<13}"))
    top = state.waste_top
    out += card(top, ascii)
    out.append(("class:dim", f"  ({plural(len(state.waste), 'card')})" if top else f"  ({empty})"))
    out.append(("class:label", f"    {stock} "))
    out.append(("", f"{len(state.stock)}"))
    left = state.redeals_left
    redeals = _("unlimited redeals") if left is None else redeals_left(left)
    out.append(("class:dim", f"   {redeals}\n"))
    return out


def redeals_left(left: int) -> str:
    """How many redeals are left, as the layout says it: "2 redeals left"."""
    return ngettext("{n} redeal left", "{n} redeals left", left).format(n=left)


def variant_title(game: Musical, rules: MusicalRules) -> str:
    """The Game protocol's ``variant_title``: "Musical", or "Musical with 1 redeal" under other
    rules than the default two redeals."""
    if rules.redeals == game.default_rules().redeals:
        return game.title
    if rules.redeals is None:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Musical")
        return _("{title} with unlimited redeals").format(title=game.title)
    if rules.redeals == 0:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Musical", "Crazy Quilt")
        return _("{title} with no redeal").format(title=game.title)
    # TRANSLATORS: the name of a variant: {title} is the game's name ("Musical", "Crazy Quilt"), {n}
    # how many redeals it has
    return ngettext("{title} with {n} redeal", "{title} with {n} redeals", rules.redeals).format(
        title=game.title, n=rules.redeals)


def opening_record(game: Musical, deal: DealNumber, state: MusicalState) -> dict[str, Any]:
    return {"game": game.name, "seed": deal.json,
            "signs": [c.code for c in state.signs],
            "foundations": [f[0].code for f in state.foundations],
            "stock": [c.code for c in state.stock]}
