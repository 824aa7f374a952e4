"""Batch mode: commands read from a pipe or a file, with exit statuses scripts rely on.

Exit status: 0 the game is won; 1 every line was fine but the game is not won; 3 a line was an
illegal move or not a command (processing stops there; standard error says ``line N:`` and why).
Input that opens with a transcript header (``format: musical-transcript 1``) sets the game,
the deal and the rules itself, so a saved game piped in plays again without ``--seed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from .commands import Session, error_text, execute
from .game import Outcome
from .render import plain, plural
from .transcript import (
    RESULT_WORDS,
    RESULTS,
    TranscriptError,
    is_header_line,
    looks_like_transcript,
    numbered_lines,
    read_header,
    start_from_header,
)

EXIT_WON = 0
EXIT_NOT_WON = 1
EXIT_USAGE = 2
EXIT_INVALID = 3


class UsageConflict(ValueError):
    """The command line and a transcript's header disagree (exit status 2)."""


@dataclass
class Given:
    """What the command line fixed explicitly, to be checked against a transcript header."""

    game: str | None = None
    deal: str | None = None
    rules: dict[str, str] | None = None


def summary(session: Session) -> str:
    n = len(session.moves)
    if session.outcome() is Outcome.WON:
        return f"won in {plural(n, 'move')}"
    left = session.game.cards_to_build(session.state)
    return f"legal, not won: after {plural(n, 'move')}, {plural(left, 'card')} still to build"


def run_batch(lines: Iterable[str], session: Session, out: TextIO, err: TextIO, given: Given | None = None) -> int:
    text = "\n".join(raw.rstrip("\r\n") for raw in lines).lstrip("\ufeff")
    try:
        numbered = list(numbered_lines(text))
    except TranscriptError as e:
        err.write(e.text(session.ascii) + "\n")
        return EXIT_INVALID

    if numbered and looks_like_transcript(numbered[0][1]):
        try:
            first = numbered[0][0]
            header, numbered = read_header(numbered)
            record = start_from_header(header, first, numbered[0][0] if numbered else None)
        except TranscriptError as e:
            err.write(e.text(session.ascii) + "\n")
            return EXIT_INVALID
        if given is not None:
            _check_given(given, record)
        session.start(record.game, record.deal, record.rules)

    for n, text in numbered:
        if is_header_line(text):
            key, _, value = text.partition(":")
            if key.strip().lower() == "result" and value.strip().lower() in RESULTS:
                actual = session.outcome()
                if RESULTS[value.strip().lower()] is not actual:
                    err.write(f"line {n}: the input says {value.strip().lower()}, but the game is "
                              f"{RESULT_WORDS[actual]} after {plural(len(session.moves), 'move')}\n")
                    return EXIT_INVALID
                continue
            err.write(f"line {n}: {text!r} is a header line; it belongs at the top of a transcript, "
                      "after 'format: musical-transcript 1'\n")
            return EXIT_INVALID
        try:
            reply = execute(session, text)
        except ValueError as e:
            err.write(f"line {n}: {error_text(e, session.ascii)}\n")
            return EXIT_INVALID
        if reply.out:
            out.write(plain(reply.out))
        if reply.asked:
            out.write(plain(session.layout()))
        if reply.quit:
            break
    out.write(summary(session) + "\n")
    return EXIT_WON if session.outcome() is Outcome.WON else EXIT_NOT_WON


def _check_given(given: Given, record) -> None:
    if given.game is not None and given.game != record.game.name:
        raise UsageConflict(f"--game {given.game} contradicts the transcript's game {record.game.name}")
    if given.deal is not None and given.deal != record.deal.text:
        raise UsageConflict(f"--seed {given.deal} contradicts the transcript's deal {record.deal}")
    if given.rules:
        options = record.game.rules_options(record.rules)
        for key, value in given.rules.items():
            if options.get(key) != value:
                raise UsageConflict(f"--{key} {value} contradicts the transcript's {key}: {options.get(key)}")
