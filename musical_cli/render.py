"""The layout as styled text.

Rendering returns *fragments*: a list of ``(style, text)`` pairs, the shape prompt_toolkit prints
as formatted text, kept here as plain data so that batch mode can flatten it to text with no
escape codes (:func:`plain`) and tests can read it.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from .cards import Card
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


def dumb_terminal() -> bool:
    """TERM=dumb (or unknown, as prompt_toolkit counts it), as in Emacs's shell: a terminal that
    takes no escape sequence at all, so the shell reads plain lines and prints plain text."""
    return os.environ.get("TERM", "").lower() in ("dumb", "unknown")


def wants_colour(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal that takes escape sequences, and only when NO_COLOR is not set
    (https://no-color.org)."""
    stream = sys.stdout if stream is None else stream
    return (not os.environ.get("NO_COLOR") and not dumb_terminal()
            and hasattr(stream, "isatty") and stream.isatty())


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def separator(ascii: bool = False) -> str:
    """Between the parts of a status line: a middle dot, or a bar where only ASCII will do."""
    return " | " if ascii else " · "


def status(game: Game, state: Any, deal: str, moves: int, ascii: bool = False) -> str:
    """One line for the bottom toolbar and batch summaries."""
    parts = [f"{game.title} deal {deal}"]
    if hasattr(state, "pass_number"):
        total = state.passes
        parts.append(f"pass {state.pass_number}" + (f" of {total}" if total is not None else ""))
    parts.append(plural(moves, "move"))
    parts.append(f"{game.cards_to_build(state)} to build")
    return separator(ascii).join(parts)


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def layout(game: Game, state: Any, deal: str, moves: int, ascii: bool = False) -> Fragments:
    """The status line, the game's own drawing of the position, and the verdict once it is over."""
    return line(status(game, state, deal, moves, ascii), "dim") + game.draw(state, ascii) + _verdict(game, state)


def _verdict(game: Game, state: Any) -> Fragments:
    verdict = game.outcome(state)
    if verdict is Outcome.WON:
        n = len(getattr(state, "foundations", ()))
        built = ("The foundation is complete" if n == 1 else
                 f"All {NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else n} foundations are complete")
        return line(f"  {built}: won!", "good")
    if verdict is Outcome.LOST:
        return line("  No move is left: the game is lost.", "bad")
    return []


def row(label: str, cells: list[Fragments], width: int) -> Fragments:
    """A labelled row of cells, padded to ``width`` but for the last (no trailing spaces)."""
    out: Fragments = [("class:label", f"  {label:<13}")]
    for n, cell in enumerate(cells):
        out += cell
        if n < len(cells) - 1:
            out.append(("", " " * max(1, width - len(plain(cell)))))
    out.append(("", "\n"))
    return out


def opening_record(game: Game, deal: Any, state: Any) -> dict[str, Any]:
    """The opening layout as plain data (``musical deal --json``), cards as ASCII codes,
    the stock top first: the game's own record."""
    return game.opening_record(deal, state)


def opening_text(game: Game, deal: Any, state: Any, ascii: bool = False) -> Fragments:
    """The opening layout for people (``musical deal``): the record's parts in its order, one
    line each; a part made of rows (a quilt, reserves) takes a line a row."""
    record = opening_record(game, deal, state)
    out: Fragments = line(f"{game.title} deal {deal}", "label")
    for key, value in record.items():
        if key in ("game", "seed") or not isinstance(value, list):
            continue
        rows = value if value and isinstance(value[0], list) else [value]
        for n, codes in enumerate(rows, 1):
            label = f"{key} {n}" if len(rows) > 1 else key
            out.append(("class:label", f"  {label:<12} "))
            for k, code in enumerate(codes):
                if k:
                    out.append(("", " "))
                out += card(Card.parse(code) if code else None, ascii)
            out.append(("", "\n"))
    return out
