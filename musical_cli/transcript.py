"""Game records and their text form, the transcript (format version 1).

A record is the start (game, deal number, rules) plus the moves; every position is rebuilt by
replaying them, as a chess game is rebuilt from its PGN. A transcript is UTF-8 text::

    # comments and blank lines anywhere
    format: musical-transcript 1
    game: musical
    deal: 1
    redeals: 2
    d
    w f2
    redeal
    result: won

The header is ``key: value`` lines before the first move: ``format`` (required, first), ``game``
and ``deal`` (required), then the game's rule options (any left out take their defaults). Then
one move a line, in any spelling the shell takes. An optional ``result:`` line (``won``, ``lost``
or ``unfinished``) may close the moves and must agree with the replay.

A transcript is data: it is parsed, never executed. Oversized input is refused before it is read
whole.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from .deals import DealNumber
from .game import AnyGame, IllegalMove, Outcome, State
from .games import GAMES, game_named
from .i18n import N_, _, ngettext
from .moves import Move
from .notation import parse

FORMAT_NAME = "musical-transcript"
FORMAT_VERSION = 1
MAX_LINE = 1000  # characters
MAX_BYTES = 1 << 20  # 1 MiB
RESULTS = {"won": Outcome.WON, "lost": Outcome.LOST, "unfinished": Outcome.IN_PLAY}
RESULT_WORDS = {v: k for k, v in RESULTS.items()}

_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)")


class TranscriptError(ValueError):
    """Text that is not a valid transcript, or a move in it that the rules refuse.

    ``line`` is the 1-based line of the text the problem is on (None when it is the whole text).
    """

    def __init__(self, line: int | None, why: str, cause: Exception | None = None, moves: int = 0):
        self.line = line
        self.why = why
        self.cause = cause
        self.moves = moves  # how many moves were replayed before the problem
        super().__init__(_on_line(line, why))

    def text(self, ascii: bool = False) -> str:
        why = self.why
        if isinstance(self.cause, IllegalMove):
            why = self.cause.text(ascii)
        return _on_line(self.line, why)


def _on_line(line: int | None, why: str) -> str:
    if line is None:
        return why
    # TRANSLATORS: {line} is a line's number in a transcript, {why} what is wrong there
    return _("line {line}: {why}").format(line=line, why=why)


@dataclass(frozen=True)
class GameRecord:
    """The start of a game and the moves made; positions come from replay."""

    game: AnyGame
    deal: DealNumber
    rules: Hashable  # the game's rules value (Game.rules_type)
    moves: tuple[Move, ...] = ()

    def start(self) -> State:
        state: State = self.game.opening(self.deal, self.rules)
        return state

    def states(self) -> Iterator[State]:
        state = self.start()
        yield state
        for move in self.moves:
            state = self.game.apply(state, move)
            yield state

    def final(self) -> State:
        state: State = self.game.play(self.start(), self.moves)
        return state

    def header(self) -> dict[str, str]:
        return {"format": f"{FORMAT_NAME} {FORMAT_VERSION}", "game": self.game.name,
                "deal": self.deal.text, **self.game.rules_options(self.rules)}


def format_transcript(record: GameRecord, outcome: Outcome | None = None) -> str:
    """The transcript of a record; with ``outcome``, a closing ``result:`` line."""
    lines = [f"{k}: {v}" for k, v in record.header().items()]
    lines += [str(m) for m in record.moves]
    if outcome is not None:
        lines.append(f"result: {RESULT_WORDS[outcome]}")
    return "\n".join(lines) + "\n"


@dataclass
class Header:
    """A transcript's header as read, with the line each key stood on."""

    values: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


# A byte order mark is a signature of the encoding, written once at the start of a file (as
# Python's utf-8-sig and Windows' editors do); anywhere else U+FEFF is a character of the text,
# and a second one at the start comes from a tool that marked text already marked. So one mark,
# at the start, is read past, and any other is an error that names its line: the same rule for
# a file (verify, replay, load) and for standard input (batch mode).
BOM = "\ufeff"
ONE_BOM = N_("only the start of a file may have one, once")


def decode(data: bytes) -> str:
    """Bytes to text: UTF-8, a BOM allowed (one, at the start); anything else is a
    TranscriptError naming the line."""
    if len(data) > MAX_BYTES:
        raise TranscriptError(None, _("the file is larger than {kib} KiB; a transcript is a few kilobytes")
                              .format(kib=MAX_BYTES // 1024))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = e.object[: e.start].count(b"\n") + 1  # e.object: the data after any BOM
        raise TranscriptError(line, _("this is not UTF-8 text; a transcript is a text file")) from None


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, content) for each line that is neither blank nor a comment; a comment may
    also close a line (``d  # the jack``)."""
    # Lines end at "\n" only (a "\r" before it is stripped): str.splitlines() would also break
    # at form feeds and U+2028, letting the tail of a comment run as a move.
    for n, raw in enumerate(text.split("\n"), 1):
        raw = raw.rstrip("\r")
        if len(raw) > MAX_LINE:
            raise TranscriptError(n, _("the line is longer than {most} characters").format(most=MAX_LINE))
        if "\x00" in raw:
            raise TranscriptError(n, _("the line holds a NUL byte; a transcript is text"))
        line = raw.split("#", 1)[0].strip()
        if BOM in line:
            # TRANSLATORS: {rule} says where a byte order mark may be
            raise TranscriptError(n, _("the line holds a byte order mark (U+FEFF); {rule}").format(rule=_(ONE_BOM)))
        if line:
            yield n, line


def is_header_line(line: str) -> bool:
    return _HEADER.fullmatch(line) is not None


def looks_like_transcript(first_line: str) -> bool:
    """Whether a first meaningful line opens a transcript (used by batch mode)."""
    m = _HEADER.fullmatch(first_line.strip())
    return m is not None and m.group(1).lower() == "format"


def read_header(lines: Iterable[tuple[int, str]], first: int | None = None) -> tuple[Header, list[tuple[int, str]]]:
    """Split numbered lines into the header and the rest."""
    header = Header()
    rest: list[tuple[int, str]] = []
    in_header = True
    for n, line in lines:
        m = _HEADER.fullmatch(line)
        if in_header and m and m.group(1).lower() != "result":
            key, value = m.group(1).lower(), m.group(2).strip()
            if key in header.values and header.values[key] != value:
                # TRANSLATORS: {key} is a header's key, as "deal", which stays English; {first} its
                # value on line {line}, {value} its value here
                raise TranscriptError(n, _("{key} is given twice: {first!r} on line {line} and {value!r} here")
                                      .format(key=key, first=header.values[key], line=header.lines[key], value=value))
            header.values.setdefault(key, value)
            header.lines.setdefault(key, n)  # a repeat that agrees is harmless; the first counts
            continue
        in_header = False
        rest.append((n, line))
    return header, rest


def start_from_header(header: Header, first_line: int = 1, end_line: int | None = None) -> GameRecord:
    """The record's start (no moves) that a header describes. ``end_line`` is the first line
    after the header: a missing key is reported there, where it should have been."""
    fmt_line = header.lines.get("format")
    if fmt_line is None:
        # TRANSLATORS: {line} is the line a transcript begins with, "format: musical-transcript 1",
        # which stays English
        raise TranscriptError(first_line, _("this is not a transcript: it must begin '{line}'")
                              .format(line=f"format: {FORMAT_NAME} {FORMAT_VERSION}"))
    if min(header.lines.values()) != fmt_line:
        raise TranscriptError(min(header.lines.values()), _("the 'format:' line must come first"))
    fmt = header.values["format"].split()
    if len(fmt) != 2 or fmt[0].lower() != FORMAT_NAME:
        # TRANSLATORS: {format} is the format given; {expected} the one read, "musical-transcript 1"
        raise TranscriptError(fmt_line, _("unknown format {format!r}; expected '{expected}'")
                              .format(format=header.values["format"], expected=f"{FORMAT_NAME} {FORMAT_VERSION}"))
    if fmt[1] != str(FORMAT_VERSION):
        raise TranscriptError(fmt_line, _("format version {version!r} is not one this program reads "
                                          "(it reads version {known})").format(version=fmt[1], known=FORMAT_VERSION))
    for key in ("game", "deal"):
        if key not in header.values:
            where = end_line if end_line is not None else max(header.lines.values())
            # TRANSLATORS: {key} is a header's key, "game" or "deal", which stays English
            raise TranscriptError(where, _("the header has no '{key}:' line; it must come before the moves")
                                  .format(key=key))
    try:
        game = game_named(header.values["game"])
    except KeyError:
        # TRANSLATORS: {game} is the game named; {known} the games' names, which stay English
        raise TranscriptError(header.lines["game"], _("unknown game {game!r}; known: {known}")
                              .format(game=header.values["game"], known=", ".join(GAMES))) from None
    try:
        deal = DealNumber.parse(header.values["deal"])
    except ValueError as e:
        raise TranscriptError(header.lines["deal"], str(e)) from None
    options = {k: v for k, v in header.values.items() if k not in ("format", "game", "deal")}
    try:
        rules = game.rules_from_options(options)
    except ValueError as e:  # RulesError, or any other refusal of a value
        bad = next((k for k in options if k not in game.rules_options(game.default_rules())), None)
        line = header.lines[bad] if bad else min((header.lines[k] for k in options), default=fmt_line)
        raise TranscriptError(line, str(e)) from None
    return GameRecord(game, deal, rules)


@dataclass(frozen=True)
class Transcript:
    """A transcript read and replayed: the record, its final state, and the claimed result."""

    record: GameRecord
    final: State
    claimed: Outcome | None
    move_lines: tuple[int, ...]  # the line each move stood on


def read_transcript(text: str) -> Transcript:
    """Parse and replay a transcript. Raises :class:`TranscriptError` naming the line."""
    lines = list(numbered_lines(text))
    if not lines:
        raise TranscriptError(None, _("the transcript is empty"))
    header, rest = read_header(lines)
    record = start_from_header(header, lines[0][0], rest[0][0] if rest else None)
    game = record.game
    state = record.start()
    moves: list[Move] = []
    move_lines: list[int] = []
    claimed: Outcome | None = None
    for n, line in rest:
        if claimed is not None:
            raise TranscriptError(n, _("nothing may follow the 'result:' line"), moves=len(moves))
        m = _HEADER.fullmatch(line)
        if m:
            key, value = m.group(1).lower(), m.group(2).strip().lower()
            if key != "result":
                # TRANSLATORS: {key} is a header's key, which stays English
                raise TranscriptError(n, _("the header line '{key}:' must come before the first move")
                                      .format(key=key), moves=len(moves))
            if value not in RESULTS:
                # TRANSLATORS: won, lost and unfinished are the values written, which stay English
                raise TranscriptError(n, _("unknown result {value!r}; use won, lost or unfinished")
                                      .format(value=value), moves=len(moves))
            claimed = RESULTS[value]
            actual = game.outcome(state)
            if claimed != actual:
                # TRANSLATORS: {claimed} and {actual} are results as a transcript writes them, which
                # stay English: won, lost, unfinished
                raise TranscriptError(n, ngettext("the transcript says {claimed}, but the game is {actual} after {n} move",
                                                  "the transcript says {claimed}, but the game is {actual} after {n} moves",
                                                  len(moves)).format(claimed=value, actual=RESULT_WORDS[actual],
                                                                     n=len(moves)), moves=len(moves))
            continue
        try:
            move = parse(game, state, line)
            state = game.apply(state, move)
        except IllegalMove as e:
            raise TranscriptError(n, str(e), e, moves=len(moves)) from None
        except ValueError as e:
            raise TranscriptError(n, str(e), moves=len(moves)) from None
        moves.append(move)
        move_lines.append(n)
    return Transcript(GameRecord(game, record.deal, record.rules, tuple(moves)), state, claimed, tuple(move_lines))


def read_bytes(data: bytes) -> Transcript:
    return read_transcript(decode(data))
