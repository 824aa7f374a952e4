"""Batch mode: commands read from a pipe or a file, with exit statuses scripts rely on.

Exit status: 0 the game is won; 1 every line was fine but the game is not won; 3 a line was an
illegal move or not a command (processing stops there; standard error says ``line N:`` and why).
Input that opens with a transcript header (``format: musical-transcript 1``) sets the game,
the deal and the rules itself, so a saved game piped in plays again without ``--seed``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from .game import Outcome
from .i18n import _
from .language import Session, announce_outcome, error_text, execute, said_before
from .render import plain, wrap
from .results import EXIT_INVALID, EXIT_NOT_WON, EXIT_WON, after_moves, standing
from .transcript import (
    BOM,
    MAX_BYTES,
    MAX_LINE,
    RESULT_WORDS,
    RESULTS,
    TranscriptError,
    is_header_line,
    looks_like_transcript,
    numbered_lines,
    read_header,
    read_transcript,
    start_from_header,
)


class UsageConflict(ValueError):
    """The command line and a transcript's header disagree (exit status 2)."""


@dataclass
class Given:
    """What the command line fixed explicitly, to be checked against a transcript header."""

    game: str | None = None
    deal: str | None = None
    rules: dict[str, str] | None = None


def summary(session: Session) -> str:
    hand = session.hand
    return standing(hand.game, hand.state, hand.moves).text


class _Lines:
    """The input's lines as they come, numbered from 1, each checked (length, NUL) as a
    transcript's line is; the raw text is kept only while it may still be a transcript."""

    def __init__(self, lines: Iterable[str]):
        self.source = iter(lines)
        self.n = 0
        self.raw: list[str] | None = []  # every line so far, until the input is known to be commands
        self.size = 0

    def next(self) -> tuple[int, str, str] | None:
        """(line number, raw line, its command text: '' for a blank or comment line), or None
        at the end. Raises TranscriptError for a line that cannot be read."""
        try:
            raw = next(self.source)
        except StopIteration:
            return None
        self.n += 1
        if self.raw is not None:
            self.size += len(raw.encode("utf-8", "surrogatepass"))  # as read, line feed and all
        raw = raw.rstrip("\n").rstrip("\r")
        if self.n == 1:
            raw = raw.removeprefix(BOM)  # one mark, as a transcript file has (transcript.BOM)
        if self.raw is not None:
            self.raw.append(raw)
        try:
            content = next((c for _, c in numbered_lines(raw)), "")  # raises for a long line, a NUL
        except TranscriptError as e:  # it counted this one line as line 1
            raise TranscriptError(self.n, e.why) from None
        return self.n, raw, content


def run_batch(lines: Iterable[str], session: Session, out: TextIO, err: TextIO, given: Given | None = None,
              announce: bool = False) -> int:
    """Run ``lines`` (each a line of input, its line ending optional). Commands are read and run
    one line at a time, with no limit but each line's own; input that opens with a transcript
    header is a transcript, read whole (up to MAX_BYTES) and replayed as ``verify`` reads it.
    ``announce``: print ``deal N`` first unless the input is a transcript (a random deal)."""
    source = _Lines(lines)
    first = None
    try:
        while first is None:
            got = source.next()
            if got is None:
                break
            if got[2]:
                first = got
    except TranscriptError as e:
        err.write(e.text(session.ascii) + "\n")
        return EXIT_INVALID
    if first is not None and looks_like_transcript(first[2]):
        return _run_transcript(source, session, out, err, given)
    source.raw = None  # commands: nothing needs keeping
    if announce:
        # TRANSLATORS: the first line of batch mode on a random deal: its number ("deal 4711")
        out.write(_("deal {deal}").format(deal=session.deal) + "\n")
    pending = [first] if first is not None else []
    while True:
        if pending:
            n, raw, text = pending.pop()
        else:
            try:
                got = source.next()
            except TranscriptError as e:
                err.write(e.text(session.ascii) + "\n")
                return EXIT_INVALID
            if got is None:
                break
            n, raw, text = got
            if not text:
                continue
        if is_header_line(text):
            key, colon, value = text.partition(":")
            if key.strip().lower() == "result" and value.strip().lower() in RESULTS:
                actual = session.outcome()
                if RESULTS[value.strip().lower()] is not actual:
                    # TRANSLATORS: {said} and {actual} are a transcript's result words, which stay
                    # English ("won", "lost", "abandoned"); {after} is "after 12 moves"
                    err.write(_("line {n}: the input says {said}, but the game is {actual} {after}").format(
                        n=n, said=value.strip().lower(), actual=RESULT_WORDS[actual],
                        after=after_moves(len(session.moves))) + "\n")
                    return EXIT_INVALID
                continue
            # TRANSLATORS: {text} is the line, quoted; 'format: musical-transcript 1' stays as it is
            err.write(_("line {n}: {text} is a header line; it belongs at the top of a transcript, "
                        "after 'format: musical-transcript 1'").format(n=n, text=repr(text)) + "\n")
            return EXIT_INVALID
        try:
            reply = execute(session, text)
        except ValueError as e:
            done = said_before(e)  # what the commands before it on the line said ('d; save F; w f9')
            if done.out:
                out.write(plain(wrap(done.out, session.width)))
            if done.asked:
                out.write(plain(session.layout()))
            out.flush()
            # TRANSLATORS: {error} is why the line was refused
            err.write(_("line {n}: {error}").format(n=n, error=error_text(e, session.ascii)) + "\n")
            return EXIT_INVALID
        if reply.out:
            out.write(plain(wrap(reply.out, session.width)))  # 80 columns, as on a terminal
        if reply.asked:
            out.write(plain(session.layout()))
        if reply.quit:
            break
    out.write(summary(session) + "\n")
    return EXIT_WON if session.outcome() is Outcome.WON else EXIT_NOT_WON


def _run_transcript(source: _Lines, session: Session, out: TextIO, err: TextIO, given: Given | None) -> int:
    """A transcript is data: its moves are replayed, and nothing else in it runs (no save, no
    load, no ';'). It is read exactly as ``musical verify`` reads it."""
    try:
        while source.size <= MAX_BYTES and source.next() is not None:
            pass
    except TranscriptError as e:
        err.write(e.text(session.ascii) + "\n")
        return EXIT_INVALID
    if source.size > MAX_BYTES:
        err.write(_("the transcript is larger than {size} KiB; a transcript is a few kilobytes").format(
            size=MAX_BYTES // 1024) + "\n")
        return EXIT_INVALID
    text = "\n".join(source.raw or [])
    try:
        numbered = list(numbered_lines(text))
        header, rest = read_header(numbered)
        record = start_from_header(header, numbered[0][0], rest[0][0] if rest else None)
    except TranscriptError as e:
        err.write(e.text(session.ascii) + "\n")
        return EXIT_INVALID
    if given is not None:
        _check_given(given, record)
    try:
        transcript = read_transcript(text)
    except TranscriptError as e:
        err.write(e.text(session.ascii) + "\n")
        return EXIT_INVALID
    record = transcript.record
    session.start(record.game, record.deal, record.rules, record.moves)
    if record.moves and session.outcome() is not Outcome.WON:
        # A lost game is said so ("Deal N is lost after M moves."); a won one's summary says it all.
        out.write(plain(announce_outcome(session).out))
    out.write(summary(session) + "\n")
    return EXIT_WON if session.outcome() is Outcome.WON else EXIT_NOT_WON


def read_lines(stream) -> Iterator[str]:
    """Standard input's lines, one at a time, each read with a limit so that one endless line is
    refused as too long (naming it) without being read whole. UTF-8; a line that is not is a
    TranscriptError naming it. Lines end at a line feed only."""
    buffer = getattr(stream, "buffer", None)  # a replaced sys.stdin may be text only
    limit = 4 * MAX_LINE + 8  # a line of MAX_LINE characters of up to 4 bytes each, and CR LF
    n = 0
    while True:
        n += 1
        chunk = buffer.readline(limit) if buffer is not None else stream.readline(limit)
        if not chunk:
            return
        if len(chunk) >= limit and not chunk.endswith(b"\n" if isinstance(chunk, bytes) else "\n"):
            raise TranscriptError(n, _("the line is longer than {count} characters").format(count=MAX_LINE))
        if isinstance(chunk, bytes):
            try:
                chunk = chunk.decode("utf-8")
            except UnicodeDecodeError:
                raise TranscriptError(n, _("this is not UTF-8 text")) from None
        yield chunk


def _check_given(given: Given, record) -> None:
    if given.game is not None and given.game != record.game.name:
        # TRANSLATORS: {given} and {game} are games' names as --game takes them ("calculation")
        raise UsageConflict(_("--game {given} contradicts the transcript's game {game}").format(
            given=given.game, game=record.game.name))
    if given.deal is not None and given.deal != record.deal.text:
        raise UsageConflict(_("--seed {given} contradicts the transcript's deal {deal}").format(
            given=given.deal, deal=record.deal))
    if given.rules:
        options = record.game.rules_options(record.rules)
        for key, value in given.rules.items():
            if options.get(key) != value:
                # TRANSLATORS: {key} is a rule option's name, {given} and {value} its values, as transcripts write them
                raise UsageConflict(_("--{key} {given} contradicts the transcript's {key}: {value}").format(
                    key=key, given=value, value=options.get(key)))

