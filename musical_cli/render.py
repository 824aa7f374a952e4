"""The layout as styled text.

Rendering returns *fragments*: a list of ``(style, text)`` pairs, the shape prompt_toolkit prints
as formatted text, kept here as plain data so that batch mode can flatten it to text with no
escape codes (:func:`plain`) and tests can read it.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

from .cards import Card
from .game import Game, Outcome
from .i18n import _, ngettext, pgettext

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


# The things counted in messages, each with its forms in the catalog: English has two, Russian
# three ("1 ход", "2 хода", "5 ходов"), so the count chooses the form through ngettext.
COUNTED: dict[str, Callable[[int], str]] = {
    "card": lambda n: ngettext("{n} card", "{n} cards", n),
    "deal": lambda n: ngettext("{n} deal", "{n} deals", n),
    "game": lambda n: ngettext("{n} game", "{n} games", n),
    "hint": lambda n: ngettext("{n} hint", "{n} hints", n),
    "line": lambda n: ngettext("{n} line", "{n} lines", n),
    "more line": lambda n: ngettext("{n} more line", "{n} more lines", n),
    "more move": lambda n: ngettext("{n} more move", "{n} more moves", n),
    "move": lambda n: ngettext("{n} move", "{n} moves", n),
    "other rule set": lambda n: ngettext("{n} other rule set", "{n} other rule sets", n),
    "redeal": lambda n: ngettext("{n} redeal", "{n} redeals", n),
    "undo": lambda n: ngettext("{n} undo", "{n} undos", n),
}


def plural(n: int, word: str) -> str:
    """``n`` things, in the form the language gives that count: "1 move", "3 moves"."""
    return COUNTED[word](n).format(n=n)


def number(value: float, spec: str = "") -> str:
    """``value`` formatted by ``spec`` (",": thousands grouped, ".1f": one decimal) with the
    separators of the language: "12,345" and "0.5" in English, "12 345" and "0,5" in Russian,
    where a comma is the decimal mark. For numbers in sentences; a table's keep their format."""
    text = format(value, spec)
    # TRANSLATORS: a number as a sentence in this language writes it, thousands grouped and with
    # a decimal part ("12 345,5" in Russian): only its two marks are read from it.
    marks = re.fullmatch(r"12(\D+)345(\D+)5", pgettext("number format", "12,345.5"))
    comma, point = marks.groups() if marks else (",", ".")
    if (comma, point) == (",", "."):
        return text
    return "".join(comma if ch == "," else point if ch == "." else ch for ch in text)


def separator(ascii: bool = False) -> str:
    """Between the parts of a status line: a middle dot, or a bar where only ASCII will do."""
    return " | " if ascii else " · "


def deal_title(title: str, deal: str) -> str:
    """A game and its deal as a title: "Musical deal 1", "Indian Carpet deal 7"; a name that
    says its rules takes a comma, so that the deal does not read as one more of them: "Musical
    with 1 redeal, deal 7"."""
    if " with " in title:
        # TRANSLATORS: a game's name that says its rules ("Musical with 1 redeal") and a deal number.
        return _("{title}, deal {deal}").format(title=title, deal=deal)
    # TRANSLATORS: a game's name ("Musical", "Indian Carpet") and a deal number: "Musical deal 7".
    return _("{title} deal {deal}").format(title=title, deal=deal)


def status_parts(game: Game, state: Any, deal: str, moves: int, title: str | None = None) -> list[str]:
    """The status line's parts, the most telling first: the game (``title``: its variant's
    name, Game.variant_title) and deal, the pass, the moves, the cards still to build."""
    parts = [deal_title(title or game.title, deal)]
    if hasattr(state, "pass_number"):
        total = state.passes
        # TRANSLATORS: the status line's pass through the stock: "pass 1 of 3", or "pass 4" when the
        # passes are unlimited.
        parts.append(_("pass {number}").format(number=state.pass_number) if total is None
                     else _("pass {number} of {total}").format(number=state.pass_number, total=total))
    parts.append(plural(moves, "move"))
    # TRANSLATORS: the status line's count of the cards not yet on the foundations: "48 to build".
    parts.append(_("{count} to build").format(count=game.cards_to_build(state)))
    return parts


def status(game: Game, state: Any, deal: str, moves: int, ascii: bool = False, title: str | None = None) -> str:
    """One line for the bottom toolbar and batch summaries."""
    return separator(ascii).join(status_parts(game, state, deal, moves, title))


def between_parts(parts: list[str], width: int, sep: str) -> list[str]:
    """``parts`` joined by ``sep`` within ``width`` - 1 columns (a line that fills the last column
    makes some terminals wrap it), broken between parts, never inside one: on one line when they
    fit; else the first part (the game and deal) on a line of its own and the rest after it, each
    line after the first indented 2, so that no part is left alone on the last line while the
    rest would have held it."""
    limit = max(width, 20) - 1
    whole = sep.join(parts)
    if len(whole) <= limit or len(parts) == 1:
        return [whole]
    out = [parts[0]]
    current = ""
    for part in parts[1:]:
        if current and len("  " + current + sep + part) > limit:
            out.append("  " + current)
            current = part
        else:
            current = current + sep + part if current else part
    return [*out, "  " + current]


def fit(parts: list[str], width: int, sep: str) -> str:
    """As many of ``parts`` (the first always) as fit ``width`` columns, joined by ``sep``: a
    line that must stay one line (the bottom toolbar) is shortened from its end."""
    text = parts[0]
    for part in parts[1:]:
        if len(text) + len(sep) + len(part) > width:
            break
        text += sep + part
    return text[:width]


def columns(words: list[str], width: int = 80, gap: int = 3) -> list[str]:
    """``words`` in as many columns as fit ``width``, down the first column first (as ``ls``)."""
    if not words:
        return []
    cell = max(len(w) for w in words) + gap
    n = max(1, (width - 3 + gap) // cell)  # an indent of 2, and the last column kept free
    rows = -(-len(words) // n)
    out = []
    for r in range(rows):
        row = [words[c * rows + r] for c in range(n) if c * rows + r < len(words)]
        out.append(("  " + "".join(w.ljust(cell) for w in row)).rstrip())
    return out


def wrap(fragments: Fragments, width: int) -> Fragments:
    """``fragments`` with each line longer than ``width - 1`` columns broken between words (a
    line that fills the last column makes some terminals wrap it themselves), styles kept; a
    continuation is indented 2 more than its line. Spaces at a break are dropped; a word
    longer than a whole line is cut, as nothing else would fit it: after a "/", "." or "-" when
    there is one late enough in the line."""
    limit = max(width, 20) - 1
    out: Fragments = []
    chars: list[tuple[str, str]] = []  # (style, character) of the line being read
    for style, text in fragments:
        for piece in text.splitlines(keepends=True):
            body = piece.rstrip("\n")
            chars += [(style, ch) for ch in body]
            if body != piece:
                out += _wrap_line(chars, limit) + [(style, "\n")]
                chars = []
    if chars:
        out += _wrap_line(chars, limit)
    return out


COMMA_REACH = 12  # how far back a break moves to fall after a comma: a move ("q34 f5") stays whole


def _wrap_line(chars: list[tuple[str, str]], limit: int) -> Fragments:
    text = "".join(ch for _, ch in chars)
    if len(text) <= limit:
        return _runs(chars)
    # A continuation hangs under the text after a line's first gap of two spaces (a table of
    # usages and meanings), or 2 in from the line's own indent.
    gap = re.match(r" *\S+(?: \S+)* {2,}(?=\S)", text)
    indent = len(text) - len(text.lstrip(" "))
    lead = " " * min(gap.end() if gap else indent + 2, limit // 2)
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"\S+", text):
        s, e = m.span()
        room = limit - len(lead)
        while e - s > room:  # a word longer than a line: cut, as nothing else fits it
            # after a path's "/" or a name's "." in the line's second half, else after a "-":
            # a file name is cut between its parts, not inside its time stamp
            cut = max(text.rfind(mark, s + room // 2, s + room) for mark in "/.")
            if cut < 0:
                cut = text.rfind("-", s + room // 2, s + room)
            cut = cut + 1 if cut >= 0 else s + room
            spans.append((s, cut))
            s = cut
        spans.append((s, e))
    lines: list[list[tuple[int, int]]] = [[]]
    for s, e in spans:
        current = lines[-1]
        start = 0 if len(lines) == 1 else current[0][0] if current else s
        width = (0 if len(lines) == 1 else len(lead)) + e - start
        if current and width > limit:
            # Break after the line's last comma when it is near the end: a list of moves
            # breaks between moves, not inside one.
            carried: list[tuple[int, int]] = []
            item_end = next((e2 for s2, e2 in spans if s2 >= s and text[e2 - 1] == ","), len(text))
            for i in range(len(current) - 1, 0, -1):
                if item_end - current[i][0] > COMMA_REACH:
                    break
                if text[current[i - 1][1] - 1] == ",":
                    carried = current[i:]
                    del current[i:]
                    break
            lines.append([*carried, (s, e)])
        else:
            current.append((s, e))
    out: Fragments = []
    for n, words in enumerate(lines):
        if n:
            out.append(("", "\n" + lead))
        out += _runs(chars[0 if n == 0 else words[0][0]:words[-1][1]])
    return out


def _runs(chars: list[tuple[str, str]]) -> Fragments:
    """(style, character) pairs back to fragments, one per run of a style."""
    out: Fragments = []
    for style, ch in chars:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + ch)
        else:
            out.append((style, ch))
    return out


def number_word(n: int) -> str:
    """``n`` in words up to ten, counting foundations ("four foundations"); a larger one in figures."""
    # TRANSLATORS: numbers counting foundations ("All four foundations are complete"): in Russian
    # feminine, as база is ("две", not "два").
    words = (pgettext("foundations", "no"), pgettext("foundations", "one"), pgettext("foundations", "two"),
             pgettext("foundations", "three"), pgettext("foundations", "four"), pgettext("foundations", "five"),
             pgettext("foundations", "six"), pgettext("foundations", "seven"), pgettext("foundations", "eight"),
             pgettext("foundations", "nine"), pgettext("foundations", "ten"))
    return words[n] if 0 <= n < len(words) else str(n)


def layout(game: Game, state: Any, deal: str, moves: int, ascii: bool = False, title: str | None = None,
           width: int | None = None, won: str | None = None) -> Fragments:
    """The status line, the game's own drawing of the position, and the verdict once it is over.
    With ``width``, a status line too long for it is broken between its parts (between_parts).
    ``won``: the words of a won game's verdict line, in place of the layout's own (the shell's
    win message: one line, where a message above the layout would take one more)."""
    parts = status_parts(game, state, deal, moves, title)
    head = [separator(ascii).join(parts)] if width is None else between_parts(parts, width, separator(ascii))
    return ([f for text in head for f in line(text, "dim")] + game.draw(state, ascii)
            + _verdict(game, state, won))


def _verdict(game: Game, state: Any, won: str | None = None) -> Fragments:
    verdict = game.outcome(state)
    if verdict is Outcome.WON and won is not None:
        return line(f"  {won}", "good")
    if verdict is Outcome.WON:
        n = len(getattr(state, "foundations", ()))
        if n == 1:
            return line("  " + _("The foundation is complete: won!"), "good")
        # TRANSLATORS: {number} is a number in words ("four"), the form chosen by the count of
        # foundations (never one: that is the message before).
        built = ngettext("All {number} foundation is complete: won!", "All {number} foundations are complete: won!",
                         n).format(number=number_word(n))
        return line("  " + built, "good")
    if verdict is Outcome.LOST:
        return line("  " + _("No move is left: the game is lost."), "bad")
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
    # the variant's name, as the shell's title has it ("Calculation with 3 piles", "Persian Rug")
    out: Fragments = line(deal_title(game.variant_title(state.rules), str(deal)), "label")
    for key, value in record.items():
        if key in ("game", "seed") or not isinstance(value, list) or not value:
            continue  # (an empty part, Persian Rug's stock, is no line: it has no stock)
        rows = value if value and isinstance(value[0], list) else [value]
        for n, codes in enumerate(rows, 1):
            label = game.part_label(key, n if len(rows) > 1 else None)
            out.append(("class:label", f"  {label:<12} "))
            for k, code in enumerate(codes):
                if k:
                    out.append(("", " "))
                out += card(Card.parse(code) if code else None, ascii)
            out.append(("", "\n"))
    return out


def search_progress(nodes: int, seconds: float) -> str:
    """A search's progress line, the shell's and ``musical solve``'s."""
    # TRANSLATORS: {nodes} and {seconds} are numbers formatted already ("12,345", "0.5").
    return _("searching: {nodes} positions, {seconds} s (Ctrl-C stops)").format(
        nodes=number(nodes, ","), seconds=number(seconds, ".1f"))


def rating_progress(wanted: str, rated: int, attempts: int, seconds: float) -> str:
    """The progress line of a search for a deal of a rating (``--difficulty``): within 80
    columns (a progress line redrawn in place must not wrap), so without the game's name."""
    from .advice import rating_text

    # TRANSLATORS: {wanted}: a difficulty (easy, medium, hard, lost); {rated}: the deals rated so
    # far, of {attempts} at most; {seconds}: a number formatted already ("1.5"). At most 79
    # columns, the numbers at their widest ("300 of 300", "20.0").
    return _("looking for a deal rated {wanted}: {rated} of {attempts} deals, {seconds} s (Ctrl-C stops)").format(
        wanted=rating_text(wanted), rated=rated, attempts=attempts, seconds=number(seconds, ".1f"))


def review_progress(done: int, total: int, seconds: float) -> str:
    """A review's progress line, the shell's and ``musical review``'s."""
    # TRANSLATORS: {done} of {total} positions decided so far; {seconds}: a number formatted already.
    return _("reviewing: {done} of {total} positions decided, {seconds} s (Ctrl-C stops)").format(
        done=done, total=total, seconds=number(seconds, ".1f"))
