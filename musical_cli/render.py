"""The layout as styled text.

Rendering returns *fragments*: a list of ``(style, text)`` pairs, the shape prompt_toolkit prints
as formatted text, kept here as plain data so that batch mode can flatten it to text with no
escape codes (:func:`plain`) and tests can read it.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from .cards import Card, rank_name
from .game import Game, Outcome

Fragments = list[tuple[str, str]]

STYLE = {
    # Not "red"/"black": prompt_toolkit's default style already gives class "black" pure black,
    # which vanishes on a dark terminal. Black suits keep the terminal's own colour.
    "suit-red": "ansired bold",
    "suit-black": "",
    "dim": "ansibrightblack",
    "label": "bold",
    "done": "ansigreen bold",
    "error": "ansired",
    "good": "ansigreen bold",
    "bad": "ansiyellow bold",
    "hint": "ansicyan",
}


def card(c: Card | None, ascii: bool = False, width: int = 0) -> Fragments:
    if c is None:
        return [("class:dim", "--".ljust(width))]
    text = c.text(ascii)
    return [("class:suit-red" if c.suit.red else "class:suit-black", text.ljust(width))]


def plain(fragments: Fragments) -> str:
    return "".join(text for _, text in fragments)


def line(text: str, style: str = "") -> Fragments:
    return [(f"class:{style}" if style else "", text + "\n")]


def wants_colour(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal and only when NO_COLOR is not set (https://no-color.org)."""
    stream = sys.stdout if stream is None else stream
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def status(game: Game, state: Any, deal: str, moves: int) -> str:
    """One line for the bottom toolbar and batch summaries."""
    parts = [f"{game.title} deal {deal}"]
    if hasattr(state, "pass_number"):
        total = state.passes
        parts.append(f"pass {state.pass_number}" + (f" of {total}" if total is not None else ""))
    parts.append(plural(moves, "move"))
    parts.append(f"{game.cards_to_build(state)} to build")
    return " · ".join(parts)


def layout(game: Game, state: Any, deal: str, moves: int, ascii: bool = False) -> Fragments:
    if game.name == "musical":
        return _musical(game, state, deal, moves, ascii)
    if game.name == "calculation":
        return _calculation(game, state, deal, moves, ascii)
    raise NotImplementedError(game.name)


def _verdict(game: Game, state: Any) -> Fragments:
    verdict = game.outcome(state)
    if verdict is Outcome.WON:
        return line("  All four foundations are complete: won!", "good")
    if verdict is Outcome.LOST:
        return line("  No move is left: the game is lost.", "bad")
    return []


def _row(label: str, cells: list[Fragments], width: int) -> Fragments:
    """A labelled row of cells, padded to ``width`` but for the last (no trailing spaces)."""
    out: Fragments = [("class:label", f"  {label:<13}")]
    for n, cell in enumerate(cells):
        out += cell
        if n < len(cells) - 1:
            out.append(("", " " * max(1, width - len(plain(cell)))))
    out.append(("", "\n"))
    return out


def _musical(game: Game, state: Any, deal: str, moves: int, ascii: bool) -> Fragments:
    w = 6
    out: Fragments = []
    out += line(status(game, state, deal, moves), "dim")
    out += _row("signs", [card(c, ascii) for c in state.signs], w)
    out += _row("foundations", [card(f[-1], ascii) for f in state.foundations], w)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    out += _row("needs", [[("class:done", "done")] if n is None else [("", rank_name(n))] for n in needs], w)
    out.append(("class:label", "  waste        "))
    top = state.waste_top
    out += card(top, ascii)
    out.append(("class:dim", f"  ({plural(len(state.waste), 'card')})" if top else "  (empty)"))
    out.append(("class:label", "    stock "))
    out.append(("", f"{len(state.stock)}"))
    left = state.redeals_left
    redeals = "unlimited redeals" if left is None else plural(left, "redeal") + " left"
    out.append(("class:dim", f"   {redeals}\n"))
    return out + _verdict(game, state)


def _calculation(game: Game, state: Any, deal: str, moves: int, ascii: bool) -> Fragments:
    w = 6
    out: Fragments = line(status(game, state, deal, moves), "dim")
    out += _row("foundations", [card(f[-1] if f else None, ascii) for f in state.foundations], w)
    needs = [state.needs(i) for i in range(1, len(state.foundations) + 1)]
    out += _row("needs", [[("class:done", "done")] if n is None else [("", rank_name(n))] for n in needs], w)
    # The piles as columns, every card visible, as the player may look at them in the real game.
    out += _row("piles", [[("class:label", f"p{j}")] for j in range(1, len(state.piles) + 1)], w)
    for depth in range(max((len(p) for p in state.piles), default=0)):
        cells = [card(p[depth], ascii) if depth < len(p) else [("", "")] for p in state.piles]
        while cells and cells[-1] == [("", "")]:
            cells.pop()
        out += _row("", cells, w)
    out.append(("class:label", "  waste        "))
    out += card(state.waste_top, ascii)
    out.append(("class:label", "    stock "))
    out.append(("", f"{len(state.stock)}\n"))
    return out + _verdict(game, state)


def opening_record(game: Game, deal: Any, state: Any) -> dict[str, Any]:
    """The opening layout as plain data (``musical deal --json``), cards as ASCII codes,
    the stock top first."""
    if game.name == "musical":
        return {"game": game.name, "seed": deal.json,
                "signs": [c.code for c in state.signs],
                "foundations": [f[0].code for f in state.foundations],
                "stock": [c.code for c in state.stock]}
    if game.name == "calculation":
        return {"game": game.name, "seed": deal.json,
                "foundations": [f[0].code for f in state.foundations if f],
                "stock": [c.code for c in state.stock]}
    raise NotImplementedError(game.name)


def opening_text(game: Game, deal: Any, state: Any, ascii: bool = False) -> Fragments:
    """The opening layout for people (``musical deal``)."""
    record = opening_record(game, deal, state)
    out: Fragments = line(f"{game.title} deal {deal}", "label")
    for key in ("signs", "foundations", "stock"):
        if key not in record:
            continue
        out.append(("class:label", f"  {key:<12} "))
        for n, code in enumerate(record[key]):
            if n:
                out.append(("", " "))
            out += card(Card.parse(code), ascii)
        out.append(("", "\n"))
    return out
