"""Crazy Quilt on screen: the quilt with its coordinates, the foundations, and the waste and
stock (or the Persian Rug reserves), as render.py fragments; and the opening as plain data.

Every cell is three things a player reads at a glance: a mark (``*`` when the card can move now:
some legal move takes it; a space otherwise: text, so that it survives NO_COLOR and a screen
reader; the card is also bold. A card with a short side open but nowhere to go is not marked:
the rules call it available, but it cannot move now),
the card's orientation (``│`` vertical, ``─`` horizontal; ``|`` and ``-`` with ``ascii``) and the
card; an empty cell shows ``--``. It fits 80 columns and 24 rows.
"""

from __future__ import annotations

from typing import Any

from ...cards import Card
from ...deals import DealNumber
from ...i18n import _, ngettext, pgettext
from ...moves import Transfer
from ...render import Fragments, card, line, plain, plural
from .rules import COLUMNS, CRAZY_QUILT, ROWS, CrazyQuilt, CrazyQuiltRules, CrazyQuiltState, cell_of, vertical

CELL = 6  # characters per quilt cell: mark, orientation, card (up to 3), space
SIDE = 38  # characters per half line of the reserves
MARK = "*"


def orientation(cell: int, ascii: bool = False) -> str:
    if vertical(cell):
        return "|" if ascii else "│"
    return "-" if ascii else "─"


def movable_cells(state: CrazyQuiltState) -> frozenset[int]:
    """The quilt cells (0-63) whose card some legal move takes now."""
    return frozenset(cell for m in CRAZY_QUILT.legal_moves(state)
                     if isinstance(m, Transfer) and (cell := cell_of(m.source)) is not None)


def _cell(state: CrazyQuiltState, cell: int, ascii: bool, movable: frozenset[int]) -> Fragments:
    c = state.quilt[cell]
    if c is None:
        return [("", "  "), ("class:dim", "--".ljust(CELL - 2))]
    available = cell in movable
    style, text = card(c, ascii, CELL - 2)[0]
    if available:
        style += ",label"  # bold as well as the mark
    return [("class:label" if available else "", MARK if available else " "),
            ("class:dim", orientation(cell, ascii)), (style, text)]


def quilt_fragments(state: CrazyQuiltState, ascii: bool = False) -> Fragments:
    """The column numbers, then each row with its number, then a one-line key."""
    out: Fragments = [("class:label", "     " + "".join(f"{c:<{CELL}}" for c in range(1, COLUMNS + 1)).rstrip() + "\n")]
    movable = movable_cells(state)
    for row in range(ROWS):
        cells: Fragments = [("class:label", f"  {row + 1}  ")]
        for column in range(COLUMNS):
            cells += _cell(state, row * COLUMNS + column, ascii, movable)
        # no trailing spaces
        style, text = cells[-1]
        cells[-1] = (style, text.rstrip())
        if not cells[-1][1]:
            cells.pop()
        out += cells + [("", "\n")]
    v, h = ("|", "-") if ascii else ("│", "─")
    # TRANSLATORS: the key under the quilt, after 5 spaces: at most 74 characters, so that it fits 80
    # columns. {mark} is the mark of a card that can move now (*), {v} and {h} the signs of a vertical
    # and a horizontal card (│ and ─); "--" is an empty cell; q34 the cell in row 3, column 4.
    out += line("     " + _("{mark} can move   {v} vertical   {h} horizontal   -- empty   "
                            "q34: row 3, column 4").format(mark=MARK, v=v, h=h), "dim")
    return out


def _foundations(state: CrazyQuiltState, ascii: bool) -> Fragments:
    def row(label: str, cells: list[Fragments]) -> Fragments:
        out: Fragments = [("class:label", f"  {label:<13}")]
        for n, cell in enumerate(cells):
            out += cell
            if n < len(cells) - 1:
                out.append(("", " " * (CELL - len(plain(cell)) + (2 if n == 3 else 0))))
        return out + [("", "\n")]

    # TRANSLATORS: over foundations f1 to f4, which build up from the A to the K (at most 24 characters)
    up = _("up (A to K)")
    # TRANSLATORS: over foundations f5 to f8, which build down from the K to the A
    down = _("down (K to A)")
    out: Fragments = [("class:label", "  " + " " * 13 + up.ljust(4 * CELL + 2) + down + "\n")]
    # TRANSLATORS: the label of the row of the foundations' numbers, f1 to f8
    out += row(pgettext("layout", "foundation"), [[("class:label", f"f{i}")] for i in range(1, 9)])
    # TRANSLATORS: the label of the row of the foundations' top cards
    out += row(pgettext("layout", "top"), [card(f[-1], ascii) for f in state.foundations])
    needs: list[Fragments] = []
    # TRANSLATORS: a foundation built to its end, under its card in the layout (4 letters fit best)
    done = pgettext("layout", "done")
    for i in range(1, 9):
        need = state.needs(i)
        needs.append([("class:done", done)] if need is None else card(need, ascii))
    out += row(pgettext("layout", "needs"), needs)
    return out


def _reserves(state: CrazyQuiltState, ascii: bool) -> Fragments:
    out: Fragments = []
    empty = pgettext("layout", "empty")
    for first in range(4):
        for j in (first, first + 4):
            reserve = state.reserves[j]
            room = (SIDE - 6) // 4  # cards of up to 3 characters and a space
            shown = list(reserve)
            half: Fragments = [("class:label", f"  r{j + 1}  ")]
            if len(shown) > room:
                hidden = len(shown) - (room - 1)
                shown = shown[hidden:]
                half.append(("class:dim", f"+{hidden}".ljust(4)))
            if not reserve:
                half.append(("class:dim", f"({empty})"))
            for n, c in enumerate(shown):
                half += card(c, ascii, 0 if n == len(shown) - 1 else 4)
            if j == first:
                half.append(("", " " * max(1, SIDE - len(plain(half)))))
            out += half
        out.append(("", "\n"))
    return out + line("       " + _("each reserve bottom first: its top card is the last"), "dim")


def _waste_and_stock(state: CrazyQuiltState, ascii: bool) -> Fragments:
    waste, stock, empty = pgettext("layout", "waste"), pgettext("layout", "stock"), pgettext("layout", "empty")
    out: Fragments = [("class:label", f"  {waste:<13}")]
    top = state.waste_top
    out += card(top, ascii)
    out.append(("class:dim", f"  ({plural(len(state.waste), 'card')})" if top else f"  ({empty})"))
    out.append(("class:label", f"    {stock} "))
    out.append(("", f"{len(state.stock)}"))
    left = state.redeals_left
    out.append(("class:dim", "   " + ngettext("{n} redeal left", "{n} redeals left", left).format(n=left) + "\n"))
    return out


def layout_fragments(state: CrazyQuiltState, ascii: bool = False) -> Fragments:
    """The whole position (without a status line, which the shell adds)."""
    out = quilt_fragments(state, ascii)
    out += _foundations(state, ascii)
    out += _reserves(state, ascii) if state.rules.reserves else _waste_and_stock(state, ascii)
    return out


def draw(state: CrazyQuiltState, ascii: bool = False) -> Fragments:
    """The layout below the status line (the Game protocol's ``draw`` hook)."""
    return layout_fragments(state, ascii)


def variant_title(game: CrazyQuilt, rules: CrazyQuiltRules) -> str:
    """The Game protocol's ``variant_title``: Crazy Quilt, Indian Carpet (two redeals), Persian
    Rug (reserves), and what else differs: "Crazy Quilt with 3 redeals", "Indian Carpet with
    wrap"."""
    title = _(rules.variant)
    redeals = not rules.reserves and rules.redeals not in (1, 2)
    n = rules.redeals
    if redeals and rules.wrap:
        if n == 0:
            # TRANSLATORS: the name of a variant: {title} is the game's name ("Crazy Quilt"); with
            # wrap, a K and an A of a suit build on each other
            return _("{title} with no redeal and wrap").format(title=title)
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Crazy Quilt"), {n} how
        # many redeals it has; with wrap, a K and an A of a suit build on each other
        return ngettext("{title} with {n} redeal and wrap", "{title} with {n} redeals and wrap", n).format(
            title=title, n=n)
    if redeals:
        if n == 0:
            # TRANSLATORS: the name of a variant: {title} is the game's name ("Musical", "Crazy Quilt")
            return _("{title} with no redeal").format(title=title)
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Musical", "Crazy Quilt"), {n}
        # how many redeals it has
        return ngettext("{title} with {n} redeal", "{title} with {n} redeals", n).format(title=title, n=n)
    if rules.wrap:
        # TRANSLATORS: the name of a variant: {title} is the game's name ("Indian Carpet"); with wrap,
        # a K and an A of a suit build on each other
        return _("{title} with wrap").format(title=title)
    return title


def opening_record(game: CrazyQuilt, deal: DealNumber, state: CrazyQuiltState) -> dict[str, Any]:
    """The opening layout as plain data (``musical deal --game crazy-quilt --json``): cards as
    ASCII codes, the foundations' bases AC AS AH AD KC KS KH KD, the quilt row 1 first and
    column 1 first, the stock top first; in Persian Rug the reserves (reserve 1 first, each
    bottom first) and an empty stock."""
    record: dict[str, Any] = {
        "game": game.name, "seed": deal.json,
        "foundations": [f[0].code for f in state.foundations],
        "quilt": [[c.code for c in state.quilt[r * COLUMNS:(r + 1) * COLUMNS] if c is not None]
                  for r in range(ROWS)],
        "stock": [c.code for c in state.stock],
    }
    if state.rules.reserves:
        record["reserves"] = [[c.code for c in r] for r in state.reserves]
    return record


def opening_text(deal: DealNumber, state: CrazyQuiltState, ascii: bool = False) -> Fragments:
    """The opening layout for people (``musical deal --game crazy-quilt``)."""
    record = opening_record(CRAZY_QUILT, deal, state)
    # TRANSLATORS: {title} is the variant's name ("Indian Carpet"), {deal} the deal's number
    out: Fragments = line(_("{title} deal {deal}").format(title=variant_title(CRAZY_QUILT, state.rules), deal=deal),
                          "label")
    parts = [(pgettext("layout", "foundations"), record["foundations"])]
    # TRANSLATORS: a row of the quilt in the opening layout: {r} is its number, 1 to 8
    parts += [(_("quilt row {r}").format(r=r), codes) for r, codes in enumerate(record["quilt"], 1)]
    if "reserves" in record:
        parts += [(_("reserve {i}").format(i=j), codes) for j, codes in enumerate(record["reserves"], 1)]
    else:
        parts.append((pgettext("layout", "stock"), record["stock"]))
    # the labels' column: 12 wide, or as wide as the longest label in another language
    width = max(12, *(len(label) for label, _codes in parts))
    for label, codes in parts:
        out.append(("class:label", f"  {label:<{width}} "))
        for n, code in enumerate(codes):
            if n:
                out.append(("", " "))
            out += card(Card.parse(code), ascii)
        out.append(("", "\n"))
    return out

