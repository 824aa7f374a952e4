"""The glue between the shell's Recorded and the player's record (:mod:`musical_cli.store`).

A :class:`Recorder` listens to a Recorded (``Recorded.listener``): after every change it writes
what differs between the game in hand and what the store holds, in one small transaction, so that
a shell killed outright loses at most the move in flight. The stored line is the session's moves
followed by the moves undone that ``redo`` would make again, each with the number of the step it
belongs to, so that ``resume`` rebuilds the undo and redo history exactly.

Only the interactive shell records: batch mode, ``verify``, ``replay``, ``solve`` and ``stats``
never make a Recorder. When the store cannot be used (a read-only or missing data directory, a
full disk, a lock held too long, a damaged file, a file from a newer musical) the recorder says so
in one line and play goes on unrecorded; a damaged file is renamed aside, never deleted.

A game's row is made at its first move (a deal looked at and left is no game played). ``new``,
``load``, ``restart`` and ``resume`` end the game in hand: one still in play is *abandoned*; a won
or lost one keeps its result. Quitting leaves a game in play, to be resumed.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from .advice import Memory
from .deals import DealNumber
from .game import Game, IllegalMove, Outcome
from .hand import Hand, Listener, Rules
from .i18n import N_, _, english, ngettext, pgettext
from .moves import Move
from .render import number, plural
from .store import (
    Figures,
    GameRow,
    Store,
    StoreError,
    duration,
    figures,
    me,
    set_aside,
)

# Active time: a pause between two changes counts up to a minute (thinking over a move is play);
# beyond that the player is away, and the rest of the pause is not play.
IDLE_CAP = 60.0
HISTORY_LIMIT = 10  # games the shell's 'history' lists by default
RESULT_OF = {Outcome.IN_PLAY: "in play", Outcome.WON: "won", Outcome.LOST: "lost"}


def result_text(result: str) -> str:
    """A game's result as stored ("in play", "won", "lost", "abandoned": the same in every
    language) in the words of the language, for a person to read."""
    words = {
        # TRANSLATORS: a game's result, in the record's tables: in play (not over), won, lost,
        # abandoned (left unfinished for another game). In Russian of a партия: идёт, выиграна ...
        "in play": lambda: pgettext("result", "in play"),
        "won": lambda: pgettext("result", "won"),
        "lost": lambda: pgettext("result", "lost"),
        "abandoned": lambda: pgettext("result", "abandoned"),
    }
    return words[result]() if result in words else result


def unrecorded(why: object) -> str:
    """The end of every warning that the record cannot be written: ``why``, and that play goes on."""
    # TRANSLATORS: {why}: why the record cannot be written; the game goes on all the same.
    return _("{why}; play goes on unrecorded").format(why=why)


def kept_aside(why: object, aside: object) -> str:
    # TRANSLATORS: {why}: that the record is damaged; {path}: the name it is renamed to.
    return _("{why}: it is kept as {path}").format(why=why, path=aside)


def not_aside(why: object, reason: object) -> str:
    # TRANSLATORS: {why}: that the record is damaged; {reason}: why it cannot be renamed (the
    # system's words, English).
    return _("{why}, and it cannot be renamed aside ({reason})").format(why=why, reason=reason)


class ActiveTime:
    """A game's active time, as the record counts it: each pause between two changes counts up
    to IDLE_CAP. The record writes what each change adds; the shell's toolbar shows it going."""

    def __init__(self, seconds: float = 0.0):
        self.seconds = seconds  # counted up to the last change
        self.last = time.monotonic()

    def change(self) -> float:
        """A change now: what the pause since the last one adds (it is added)."""
        now = time.monotonic()
        added, self.last = min(now - self.last, IDLE_CAP), now
        self.seconds += added
        return added

    def now(self) -> float:
        """The active time now: the pause going on counts too, up to IDLE_CAP."""
        return self.seconds + min(time.monotonic() - self.last, IDLE_CAP)

    def text(self, going: bool = True) -> str:
        """``4:05``; the pause going on left out unless ``going`` (a game over stops the clock)."""
        return duration(self.now() if going else self.seconds)


def recording_refused(no_record: bool = False) -> str | None:
    """Why the shell must not record (--no-record, MUSICAL_NO_RECORD), or None."""
    if no_record:
        return "--no-record"
    value = os.environ.get("MUSICAL_NO_RECORD", "")
    if value and value != "0":
        return "MUSICAL_NO_RECORD"
    return None


def open_store(path: Path | None = None) -> tuple[Store | None, str | None]:
    """The store for recording, or None and the one line that says why not. A damaged file is
    set aside and a new record started in its place, so that the game about to be played is
    kept: the store comes back with the line that says so."""
    try:
        return Store.open(path), None
    except StoreError as e:
        if e.kind == "corrupt":
            try:
                aside = set_aside(e.path or _path(path))
            except OSError as why:
                return None, unrecorded(not_aside(e, why.strerror or why))
            try:
                # TRANSLATORS: {why}: that the record is damaged; {path}: the name it is renamed to.
                return Store.open(path), _("{why}: it is kept as {path}, and a new record is started").format(
                    why=e, path=aside)
            except (StoreError, OSError, RuntimeError):
                return None, unrecorded(kept_aside(e, aside))
        return None, unrecorded(e)
    except (OSError, RuntimeError) as e:  # no HOME to find the data directory in, and the like
        # TRANSLATORS: {why}: the system's words.
        return None, unrecorded(_("cannot open the record: {why}").format(why=e))


def _path(path: Path | None) -> Path:
    from .store import default_path

    return default_path() if path is None else Path(path)


class RecordError(ValueError):
    """What the record cannot do now (a game to resume held elsewhere, or one that no longer
    replays), in one line; the shell prints it as it prints any refused command."""


class Recorded(Protocol):
    """What the record needs of the game in hand: musical_cli.commands.Recorded has it, and
    tells its ``listener`` of every change."""

    hand: Hand
    listener: Listener | None

    @property
    def memory(self) -> Memory: ...

    @property
    def ascii(self) -> bool: ...

    def start(self, game: Game, deal: DealNumber, rules: Rules, moves: tuple[Move, ...] = (),
              steps: list[int] | None = None, undone: list[tuple[Move, ...]] | None = None,
              how: str = "player", coached: bool = False) -> None: ...

    def mark(self, *, how: str | None = None, coached: bool | None = None,
             chosen: str | None = None, difficulty: str | None = None) -> None: ...


class Recorder:
    """Writes one shell's games to the store (its commands are in :mod:`.record_commands`)."""

    def __init__(self, store: Store | None, why_not: str | None = None, offer: bool = True, quiet: bool = False,
                 refused: bool = False):
        self.store = store
        self.why_not = why_not  # why nothing is recorded (shown by 'record')
        self.refused = refused  # the player said not to record (--no-record): nor is it read
        self.offer = offer  # say at start when an unfinished game waits ('musical' without --seed)
        # Warnings to show once the shell can print them; an opt-out is no warning.
        self.pending: list[tuple[str, str]] = [(why_not, "bad")] if why_not and not quiet else []
        self.warn: Callable[[str], None] | None = None
        self.session: Recorded | None = None
        self.game_id: int | None = None
        self.written: list[tuple[str, int]] = []  # the line as stored
        self.result = "in play"
        self.verdict: str | None = None
        self.undos = self.hints = 0  # not yet written
        self.started = time.time()
        self.active = ActiveTime()  # the game in hand's active time
        self._binding: tuple[GameRow, list[tuple[str, int]]] | None = None
        self._texts: dict[Any, str] = {}
        # (game name, rules, deal) -> its rating, as the shell's Rater finds them
        self.ratings: dict[tuple[str, Any, Any], str] = {}
        self.key: tuple[str, Any, Any] | None = None
        self.rating_written = False

    @classmethod
    def open(cls, path: Path | None = None, no_record: bool = False, offer: bool = True) -> Recorder:
        refused = recording_refused(no_record)
        if refused:
            # TRANSLATORS: {why}: --no-record or MUSICAL_NO_RECORD, as typed.
            return cls(None, _("this shell does not record ({why})").format(why=refused), offer=False, quiet=True,
                       refused=True)
        store, why = open_store(path)
        if store is None:
            return cls(None, why, offer)
        recorder = cls(store, None, offer)
        if why:  # a damaged record set aside: recording goes on in a new one
            recorder.pending.append((why, "bad"))
        return recorder

    # --- the session's events --------------------------------------------------------------

    def rated(self, key: tuple[str, Any, Any], rating: str) -> None:
        """A deal's rating, found beside the game (musical_cli.live.Rater), from its thread:
        kept here and written by the shell's own thread with the game's next change, when it
        ends, or when the shell leaves. ``key``: (game name, rules, deal)."""
        self.ratings[key] = rating

    def _rating(self) -> str | None:
        s = self._session().hand
        return s.difficulty or (None if self.key is None else self.ratings.get(self.key))

    def _session(self) -> Recorded:
        if self.session is None:
            raise RuntimeError("the recorder is not attached to a session")
        return self.session

    @property
    def keeps(self) -> bool:
        """Whether the games are kept (a game left can be resumed)."""
        return self.store is not None

    def attach(self, session: Recorded, warn: Callable[[str], None]) -> None:
        self.session = session
        self.warn = warn
        session.listener = self
        self._begin()
        if self._played():
            self.sync()

    def opening_lines(self) -> list[tuple[str, str]]:
        """What the shell says under its title: (text, style) for the warnings so far, then the
        unfinished game that waits, if any."""
        out, self.pending = self.pending, []
        if self.offer:
            out += [(text, "hint") for text in self.startup_lines()]
        return out

    def _played(self) -> bool:
        """Whether the player has made a move in this game (not just the card turned up by itself)."""
        hand = self._session().hand
        return bool(hand.steps or hand.undone)

    def event(self, event: str) -> None:
        if self.store is None:  # nothing is written; the clock goes on
            if event == "start":
                self.active = ActiveTime()
            else:
                self.active.change()
            return
        if event == "start":
            self._finish()
            if self.store is not None:
                try:
                    self.store.checkpoint()  # between games, where its fsync is not felt
                except StoreError as e:
                    self._fail(e)
            self._begin()
            if self._played():  # a loaded game is in hand at once
                self.sync()
            return
        if event == "undo":
            self.undos += 1
        elif event in ("hint", "solved"):
            self.hints += event == "hint"
            if self.game_id is None or (event == "solved" and self.verdict is not None):
                return  # counted when the game's row is made; a verdict once known is kept
        self.sync()

    def _begin(self) -> None:
        binding, self._binding = self._binding, None
        self.active = ActiveTime(binding[0].seconds if binding is not None else 0.0)
        self.undos = self.hints = 0
        s = self._session().hand
        self.key = (s.game.name, s.rules, s.deal)  # the deal in hand, for its rating
        self.rating_written = False
        if binding is not None:
            row, line = binding
            self.game_id, self.written = row.id, line
            self.result, self.verdict, self.started = row.result, row.verdict, row.started
        else:
            self.game_id, self.written = None, []
            self.result, self.verdict, self.started = "in play", None, time.time()

    def _write_rating(self) -> None:
        """The deal's rating, found since the game's last change (the shell leaves, or another
        game starts: the session no longer holds this one, the key does)."""
        rating = None if self.key is None else self.ratings.get(self.key)
        if rating is None or self.rating_written or self.store is None or self.game_id is None:
            return
        self.store.set_difficulty(self.game_id, rating)
        self.rating_written = True

    def _finish(self) -> None:
        """The game in hand ends (another starts): in play, it is abandoned; it is let go."""
        if self.store is None or self.game_id is None:
            return
        try:
            self._write_rating()
            if self.result == "in play":
                self.store.set_result(self.game_id, "abandoned", only_if="in play")
            self.store.release(self.game_id)
        except StoreError as e:
            self._fail(e)

    def _text(self, move: Any) -> str:
        text = self._texts.get(move)
        if text is None:
            text = self._texts[move] = str(move)
        return text

    def line(self) -> list[tuple[str, int]]:
        """The session's moves, then the moves redo would make, with their step numbers. Moves
        made before any step (the card a game turns up by itself at the start) are step -1:
        undo never takes them back."""
        s = self._session().hand
        fixed = len(s.moves) - sum(s.steps)
        out = [(self._text(m), -1) for m in s.moves[:fixed]]
        i = fixed
        for n, count in enumerate(s.steps):
            out += [(self._text(m), n) for m in s.moves[i:i + count]]
            i += count
        n = len(s.steps)
        for step in reversed(s.undone):
            out += [(self._text(m), n) for m in step]
            n += 1
        return out

    def sync(self) -> None:
        """Write what differs between the session and the store, in one transaction."""
        if self.store is None or self.session is None:
            return
        s = self.session.hand
        if self.game_id is None and not self._played():
            return
        line = self.line()
        seconds = self.active.change()
        result = RESULT_OF[s.outcome()]
        verdict = self._verdict(result)
        try:
            if self.game_id is None:
                self.game_id = self.store.new_game(s.game.name, s.game.rules_options(s.rules), s.deal.text,
                                                   self.started, owner=me(), how=s.how, coach=s.coached,
                                                   difficulty=self._rating())
                self.written = []
            keep = 0
            written = self.written
            limit = min(len(written), len(line))
            while keep < limit and written[keep] == line[keep]:
                keep += 1
            self.store.save(self.game_id, keep=keep, append=line[keep:], moves=len(s.moves), result=result,
                            undos=self.undos, hints=self.hints, seconds=seconds,
                            verdict=verdict if verdict != self.verdict else None, how=s.how, coach=s.coached,
                            difficulty=self._rating())
        except StoreError as e:
            self._fail(e)
            return
        self.written, self.result, self.verdict = line, result, verdict or self.verdict
        self.undos = self.hints = 0
        self.rating_written = self._rating() is not None

    def _verdict(self, result: str) -> str | None:
        if self.verdict is not None:
            return self.verdict
        if result == "won":
            return "won"  # the win proves it
        s = self._session()
        solved = s.memory.solved
        if not solved:
            return None
        # A position of this deal proven winnable proves the deal winnable; only the start
        # itself proven lost proves it lost.
        if any(solution.result == "won" for solution in solved.values()):
            return "won"
        known = solved.get(s.hand.start)
        return "lost" if known is not None and known.result == "lost" else None

    def _fail(self, e: StoreError) -> None:
        """Stop recording, with one line; a damaged file is set aside."""
        store, self.store = self.store, None
        if store is not None:
            store.close()
        text = str(e)
        if e.kind == "corrupt" and store is not None:
            try:
                text = kept_aside(text, set_aside(store.path))
            except OSError as why:
                text = not_aside(text, why.strerror or why)
        self.why_not = unrecorded(text)
        if self.warn is not None and self.session is not None:
            self.warn(self.why_not)
        else:
            self.pending.append((self.why_not, "bad"))

    def close(self) -> None:
        """The shell leaves: the game in hand stays as it is (in play, it waits for 'resume')."""
        if self.store is None:
            return
        if self.game_id is not None:
            try:
                self._write_rating()
                self.store.release(self.game_id)
            except StoreError:
                pass
        self.store.close()
        self.store = None

    # --- resuming --------------------------------------------------------------------------

    def unfinished(self) -> GameRow | None:
        if self.store is None:
            return None
        try:
            games = self.store.unfinished(exclude=self.game_id)
        except StoreError as e:
            self._fail(e)
            return None
        return games[0] if games else None

    def startup_lines(self) -> list[str]:
        if not self.offer:
            return []
        row = self.unfinished()
        if row is None:
            return []
        moves = plural(row.player_moves, "move")
        if row.player_redo > 0:
            # TRANSLATORS: {moves}: the moves made ("12 moves"); {redo}: how many 'redo' would make again.
            moves = _("{moves}, {redo} to redo").format(moves=moves, redo=row.player_redo)
        # TRANSLATORS: said as the shell starts. {game}: the game's name ("Musical with 1 redeal");
        # {deal}: its deal number; {when}: when it was last played ("2026-12-01 21:30"); {moves}:
        # "12 moves" or "12 moves, 3 to redo"; 'resume' is the command as typed.
        return [_("An unfinished game of {game}, deal {deal}, from {when} ({moves}): type 'resume' to go on.").format(
            game=variant_name(row.game, row.rules), deal=row.deal, when=when(row.last_played), moves=moves)]

    def resume_at_start(self) -> str | None:
        """``musical --resume``: the unfinished game becomes the game in hand; or what is wrong.
        A record that cannot be written (read-only, say) is read for the game, which is then
        played unrecorded, the one-line warning said; nothing to resume is an error."""
        if self.store is None:
            if self.refused:
                return nothing_to_resume(self.why_not)
            return self._resume_unrecorded()
        row = self.unfinished()
        if row is None:
            if self.store is None:  # reading it failed: try again without writing
                return self._resume_unrecorded()
            return no_unfinished_game()
        try:
            self.pending.append((self.resume(row), "hint"))
        except RecordError as e:
            return str(e)
        return None

    def _resume_unrecorded(self) -> str | None:
        """``--resume`` where the record cannot be written: its game played unrecorded, if it
        can be read; else the reason, for exit status 2."""
        try:
            store = Store.open_for_reading()
        except (StoreError, OSError) as e:
            return nothing_to_resume(self.why_not or e)
        try:
            games = store.unfinished()
            if not games:
                return no_unfinished_game()
            row = games[0]
            line = store.line(row.id)
        except StoreError as e:
            return nothing_to_resume(e)
        finally:
            store.close()
        try:
            resumed = self._take(row, line, bind=False)
        except RecordError as e:
            return str(e)
        # One line, not two: the resumed game's says it is not recorded ('record' says why).
        self.pending = [(text, style) for text, style in self.pending if text != self.why_not]
        self.pending.append((resumed, "hint"))
        return None

    def resume(self, row: GameRow) -> str:
        """Make ``row`` the game in hand, with its undo and redo history. Raises ValueError. A
        record that cannot be written now is read for it all the same, and play goes on
        unrecorded (one line of warning)."""
        assert self.store is not None
        try:
            if not self.store.claim(row.id):
                # TRANSLATORS: {id}: a recorded game's number ("game @12").
                raise RecordError(_("game @{id} is being played in another musical shell").format(id=row.id))
        except StoreError as e:
            self._fail(e)
            try:
                store = Store.open_for_reading()
                try:
                    line = store.line(row.id)
                finally:
                    store.close()
            except StoreError as why:
                raise RecordError(cannot_resume(row.id, why)) from None
            return self._take(row, line, bind=False)
        try:
            line = self.store.line(row.id)
        except StoreError as e:
            self.store.release(row.id)
            raise RecordError(cannot_resume(row.id, e)) from None
        return self._take(row, line, bind=True)

    def _take(self, row: GameRow, line: list[tuple[str, int]], bind: bool) -> str:
        """Make the stored game the game in hand (bound to its row when it is recorded)."""
        try:
            game, deal, rules, moves, steps, undone = rebuild(row, line, self._session().ascii)
        except ValueError as e:
            if bind and self.store is not None:
                try:
                    self.store.release(row.id)
                except StoreError:
                    pass
            raise RecordError(cannot_resume(row.id, e)) from None
        if bind:
            self._binding = (row, line)  # the start event ends the game in hand, then takes this one
        session = self._session()
        session.start(game, deal, rules, tuple(moves), steps=steps, undone=undone,
                      how=row.how or "player", coached=row.coach)
        session.mark(difficulty=row.difficulty)
        moves = plural(session.hand.move_count, "move")
        if bind:
            # TRANSLATORS: {id}: the recorded game's number; {deal}: its deal number; {moves}: "12
            # moves"; {when}: when it was started ("2026-12-01 21:30").
            return _("resumed game @{id}: deal {deal}, {moves}, started {when}").format(
                id=row.id, deal=row.deal, moves=moves, when=when(row.started))
        return _("resumed game @{id}: deal {deal}, {moves}, started {when} (not recorded: the record cannot be "
                 "written)").format(id=row.id, deal=row.deal, moves=moves, when=when(row.started))


def nothing_to_resume(why: object) -> str:
    # TRANSLATORS: {why}: why the record cannot be read (or is not kept).
    return _("nothing to resume: {why}").format(why=why)


def no_unfinished_game() -> str:
    # TRANSLATORS: 'musical history' is a command as typed.
    return _("no unfinished game is waiting in the record ('musical history' lists the games)")


def cannot_resume(game_id: int, why: object) -> str:
    # TRANSLATORS: {id}: a recorded game's number ("game @12"); {why}: what is wrong with it.
    return _("game @{id} cannot be resumed: {why}").format(id=game_id, why=why)


def rebuild(row: GameRow, line: list[tuple[str, int]], ascii: bool = False):
    """A stored game as the Recorded takes it: (game, deal, rules, moves, steps, undone). The
    moves are replayed by the rules (a ValueError names the bad one); a redo future that no
    longer replays is dropped."""
    from .notation import parse
    from .transcript import TranscriptError, read_transcript

    try:
        transcript = read_transcript(transcript_text(row.game, row.rules, row.deal,
                                                     [m for m, _step in line[:row.moves]]))
    except TranscriptError as e:
        # The text was made here: its line numbers mean nothing to the player; the move does.
        # TRANSLATORS: where a stored game no longer replays: "move 12: ..." or "its start: ...".
        where = (_("move {number}").format(number=e.moves + 1) if e.moves < row.moves and e.line
                 and e.line > 3 + len(row.rules) else _("its start"))
        why = e.cause.text(ascii) if isinstance(e.cause, IllegalMove) else e.why
        raise ValueError(f"{where}: {why}") from None
    record = transcript.record
    game = record.game
    kept = line[:row.moves]
    steps: list[int] = []
    previous = None
    for _move, step in kept:
        if step < 0:
            continue
        if step == previous:
            steps[-1] += 1
        else:
            steps.append(1)
            previous = step
    future = line[row.moves:]
    replayed: list[tuple[int, Any]] = []
    state = transcript.final
    for text, step in future:
        try:
            move = parse(game, state, text)
            state = game.apply(state, move)
        except ValueError:
            # keep the whole steps that replay; a step cut in two is no step
            replayed = [(s, m) for s, m in replayed if s != step]
            break
        replayed.append((step, move))
    groups: list[list[Any]] = []
    previous = None
    for step, move in replayed:
        if step == previous:
            groups[-1].append(move)
        else:
            groups.append([move])
            previous = step
    return (game, DealNumber.parse(row.deal), record.rules, list(record.moves), steps,
            [tuple(g) for g in reversed(groups)])


# --- reading the record ------------------------------------------------------------------------


def transcript_text(game: str, rules: dict[str, str], deal: str, moves: list[str], result: str | None = None,
                    comment: str | None = None) -> str:
    from .transcript import FORMAT_NAME, FORMAT_VERSION

    lines = [f"# {comment}"] if comment else []
    lines += [f"format: {FORMAT_NAME} {FORMAT_VERSION}", f"game: {game}", f"deal: {deal}"]
    lines += [f"{k}: {v}" for k, v in rules.items()]
    lines += moves
    if result is not None:
        lines.append(f"result: {'unfinished' if result in ('in play', 'abandoned') else result}")
    return "\n".join(lines) + "\n"


MAX_ID = 2**63 - 1  # SQLite's largest integer: no game id is larger


def parse_ref(ref: str) -> int:
    text = ref[1:] if ref.startswith("@") else ref
    # Only ASCII digits are an id (str.isdigit also takes '١' and '²'), and no id is past SQLite's
    # largest integer: a longer number names no game (and int() of thousands of digits refuses).
    digits = text.lstrip("0")
    if not (text.isascii() and text.isdigit()) or len(digits) > 19 or not 1 <= int(text) <= MAX_ID:
        # TRANSLATORS: {ref!r}: what was typed for a recorded game; @ID and 'musical history' as typed.
        raise ValueError(_("{ref!r} names no recorded game: write @ID with an id that 'musical history' lists").format(
            ref=ref))
    return int(text)


def recorded_text(ref: str, store: Store | None = None) -> str:
    """The transcript of recorded game ``@ID`` (its moves up to where it stands). Raises
    ValueError (a bad reference, no such game) or StoreError (no record to read)."""
    game_id = parse_ref(ref)
    own = store is None
    reading = Store.open(create=False, readonly=True) if store is None else store
    try:
        start = reading.start_of(game_id)
        if start is None:
            # TRANSLATORS: {id}: a recorded game's number ("@12").
            raise ValueError(_("there is no game @{id} in the record ('musical history' lists them)").format(
                id=game_id))
        game, rules, deal, result = start
        moves = reading.moves(game_id)
    finally:
        if own:
            reading.close()
    # TRANSLATORS: a comment atop the transcript of a recorded game: {id} its number, {game} its
    # name, {deal} its deal number, {result} its result (in play, won, lost, abandoned).
    # A transcript is the same in every language, its comment too (English).
    with english():
        comment = _("game @{id} of the record: {game} deal {deal} ({result})").format(
            id=game_id, game=variant_name(game, rules), deal=deal, result=result_text(result))
    return transcript_text(game, rules, deal, moves, result, comment=comment)


def when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def short_when(t: float, now: float | None = None) -> str:
    """A date for a table: ``12-01 21:30`` this year, ``2025-12-01`` before."""
    here = time.localtime(t)
    if here.tm_year == time.localtime(time.time() if now is None else now).tm_year:
        return time.strftime("%m-%d %H:%M", here)
    return time.strftime("%Y-%m-%d", here)


def variant_name(game: str, rules: dict[str, str]) -> str:
    """The rule set as players name it (Indian Carpet, Calculation with 3 piles), from a stored
    game's name and rule options; a game this musical does not know is named as stored."""
    from .games import game_named

    try:
        g = game_named(game)
        return g.variant_title(g.rules_from_options(rules))
    except (KeyError, ValueError):
        return f"{game} ({', '.join(f'{k} {v}' for k, v in rules.items())})" if rules else game


# Who played a game, in the record's tables (translated where shown).
BY = {
    # TRANSLATORS: who played a game, in the 'history' table's "by" column: you (the player), the
    # solver ('solve play'), loaded (from a file with its moves); "you?" for a game recorded before
    # who played was kept; "+coach" after it when the live coach was on ("you+coach").
    "player": N_("you"), "solver": N_("solver"), "loaded": N_("loaded"), None: N_("you?"),
}


def played_by(g: GameRow) -> str:
    """Who played a game, for a table: you, solver, loaded; "+coach" when the coach was on; "you?"
    for a game recorded before who played was kept."""
    by = _(BY[g.how]) if g.how in BY else str(g.how)
    return by + (_("+coach") if g.coach else "")


def fit(table: Sequence[tuple[str, ...]], right: set[int], width: int, squeeze: int,
        optional: tuple[int, ...] = ()) -> list[str]:
    """Columns two spaces apart, each as wide as its widest cell, within ``width`` - 1 columns (a
    line that fills the last column makes some terminals wrap). Where that is too wide, the
    ``optional`` columns go, last first, while the names (column ``squeeze``) would be narrower
    than 16 characters; then the names wrap between words, onto lines of their own under their
    row, each indented 2 ("Calculation with" and "  3 piles"): a name is never cut nor shortened,
    so that every table names a game alike. Only a word wider than the column (a name this
    musical never gives) is cut, with '~'."""
    limit = max(width, 40) - 1
    keep = list(range(len(table[0])))

    def widths_of(rows: Sequence[tuple[str, ...]]) -> list[int]:
        return [max(len(row[i]) for row in rows) for i in keep]

    def overflow(rows: Sequence[tuple[str, ...]]) -> int:
        return sum(widths_of(rows)) + 2 * (len(keep) - 1) - limit

    for column in reversed(optional):
        names = max(len(row[squeeze]) for row in table)
        if names - overflow(table) >= 16:
            break
        keep.remove(column)
    widths = widths_of(table)
    at = keep.index(squeeze)
    over = overflow(table)
    if over > 0:
        widths[at] = max(widths[at] - over, 8)
    out = []
    for row in table:
        for n, part in enumerate(name_lines(row[squeeze], widths[at])):
            cells = []
            for i, w in zip(keep, widths, strict=True):
                cell = part if i == squeeze else row[i] if n == 0 else ""
                if len(cell) > w:
                    cell = cell[:w - 1] + "~"
                cells.append(cell.rjust(w) if i in right else cell.ljust(w))
            out.append("  ".join(cells).rstrip())
    return out


def name_lines(name: str, width: int) -> list[str]:
    """A game's name within ``width`` columns: whole when it fits, else broken before its
    phrases ("Calculation", "  with 3 piles", "  and no bases"), several to a line where they
    fit, and between words only where a phrase alone is too wide; each line after the first
    indented 2."""
    if len(name) <= width:
        return [name]
    # TRANSLATORS: the words a phrase of a game's name begins with, separated by "|": a name too
    # long for its column is broken before them ("Calculation" / "with 3 piles" / "and no bases").
    words = "|".join(re.escape(word) for word in _("with|and").split("|") if word)
    lines: list[str] = []
    for phrase in re.split(rf" (?=(?:{words}) )", name):
        if lines and len(lines[-1]) + 1 + len(phrase) <= width:
            lines[-1] += " " + phrase
            continue
        lead = "  " if lines else ""
        lines += textwrap.wrap(phrase, width, initial_indent=lead, subsequent_indent="  ",
                               break_long_words=False, break_on_hyphens=False)
    return lines or [""]


def history_table(rows: list[GameRow], width: int = 80) -> list[str]:
    """The games, one line each: id, date, game (the rule set as players name it), deal, who
    played it, result, moves; a game undone to its start shows the moves redo would make."""
    # TRANSLATORS: the 'history' table's headers: the game's id (@12), the date it was started,
    # the game (its name), its deal number, who played it (you, solver ...), its result, its
    # moves. Short: the table fits 80 columns.
    table = [(pgettext("history", "id"), pgettext("history", "date"), pgettext("history", "game"),
              pgettext("history", "deal"), pgettext("history", "by"), pgettext("history", "result"),
              pgettext("history", "moves"))]
    for g in rows:
        moves = str(g.player_moves) if g.player_moves or g.player_redo <= 0 else f"0 (+{g.player_redo})"
        table.append((f"@{g.id}", short_when(g.started), variant_name(g.game, g.rules), g.deal, played_by(g),
                      result_text(g.result), moves))
    return fit(table, right={0, 6}, width=width, squeeze=2)


# (translated where it is shown: _(STATS_LEGEND))
# TRANSLATORS: under the 'history --stats' table: what its headers mean. Name them as the table's
# headers are translated.
STATS_LEGEND = N_("played: your own games finished (won, lost or abandoned); streak: wins in a row now; "
                  "best: the longest; losing: the longest run of games not won; moves: fewest in a win; "
                  "fastest: the quickest win, and time: all your play, in active time (on a wider "
                  "terminal).")


def figures_table(rows: list[GameRow], width: int = 80) -> list[str]:
    """The player's figures, one line a game and rule set, and a total; then what was counted apart."""
    # TRANSLATORS: the 'history --stats' table's headers, explained by the legend under it: the
    # game; its games played, won, lost, abandoned; the win rate; the winning streak now, the
    # longest; the longest losing streak; the fewest moves in a win; the fastest win; the active
    # time. Short: the first ten fit 72 columns beside the games' names.
    table = [(pgettext("figures", "game"), pgettext("figures", "played"), pgettext("figures", "won"),
              pgettext("figures", "lost"), pgettext("figures", "aband"), pgettext("figures", "win %"),
              pgettext("figures", "streak"), pgettext("figures", "best"), pgettext("figures", "losing"),
              pgettext("figures", "moves"), pgettext("figures", "fastest"), pgettext("figures", "time"))]
    found = figures(rows, total=True)
    for f in found:
        rate = f.win_rate
        table.append((_("all games") if f.game == "all" else variant_name(f.game, f.rules), str(f.played), str(f.won),
                      str(f.lost), str(f.abandoned), "-" if rate is None else f"{rate:.0f}", str(f.current_streak),
                      str(f.longest_streak), str(f.longest_losing_streak),
                      "-" if f.fewest_moves is None else str(f.fewest_moves),
                      "-" if f.fastest_win is None else duration(f.fastest_win), duration(f.seconds)))
    out = fit(table, right=set(range(1, 12)), width=width, squeeze=0, optional=(10, 11))
    for text in apart_lines(found[-1]):
        out += textwrap.wrap(text, max(width, 40) - 1, break_on_hyphens=False, break_long_words=False)
    return out


def apart_lines(f: Figures) -> list[str]:
    """What the player's figures leave out, and why, in a line or two (empty when nothing)."""
    parts = []
    if f.solved:
        parts.append(ngettext("{n} game the solver finished ('solve play')",
                              "{n} games the solver finished ('solve play')", f.solved).format(n=f.solved))
    if f.loaded:
        parts.append(ngettext("{n} game loaded with their moves", "{n} games loaded with their moves",
                              f.loaded).format(n=f.loaded))
    if f.coached:
        parts.append(ngettext("{n} game played with the coach on", "{n} games played with the coach on",
                              f.coached).format(n=f.coached))
    out = []
    if f.hinted:
        out.append(ngettext("Won with hints, counted as played but not won: {n} game.",
                            "Won with hints, counted as played but not won: {n} games.", f.hinted).format(n=f.hinted))
    if parts:
        # TRANSLATORS: {games}: the kinds of games counted apart, joined by "; " ("2 games loaded
        # with their moves; 1 game played with the coach on").
        out.append(_("Not counted as yours: {games}.").format(games="; ".join(parts)))
    if f.in_play:
        # TRANSLATORS: {games}: "2 games"; 'resume' is the command as typed.
        out.append(_("In play, not counted yet: {games} ('resume' goes on).").format(games=plural(f.in_play, "game")))
    if f.earlier:
        # TRANSLATORS: "you?" as in the 'history' table's "by" column; 'history' is the command as typed.
        out.append(ngettext("{n} game recorded before musical kept who played count as yours (marked you? in "
                            "'history').",
                            "{n} games recorded before musical kept who played count as yours (marked you? in "
                            "'history').", f.earlier).format(n=f.earlier))
    return out


def figures_card(f: Figures, name: str) -> list[str]:
    """One rule set's figures, a line each (the shell's 'stats' for the game in hand)."""
    from .advice import rating_text

    rate = "-" if f.win_rate is None else number(f.win_rate, ".1f") + "%"
    # TRANSLATORS: the first line of 'stats': {game} is the game's name ("Musical with 1 redeal").
    out = [_("{game}: your figures").format(game=name),
           # TRANSLATORS: {rate}: the win rate ("66.7%", or "-" before any game is finished).
           "  " + (_("played {played}: won {won}, won with hints {hinted}, lost {lost}, abandoned {abandoned}; "
                     "win rate {rate}") if f.hinted else
                   _("played {played}: won {won}, lost {lost}, abandoned {abandoned}; win rate {rate}")).format(
               played=f.played, won=f.won, hinted=f.hinted, lost=f.lost, abandoned=f.abandoned, rate=rate),
           "  " + _("winning streak {now} now, {best} at best; longest losing streak {losing}").format(
               now=f.current_streak, best=f.longest_streak, losing=f.longest_losing_streak)]
    best = []
    if f.fewest_moves is not None:
        best.append(_("fewest moves in a win {moves}").format(moves=f.fewest_moves))
    if f.fastest_win is not None:
        # TRANSLATORS: {time}: the active time of the quickest win ("4:05").
        best.append(_("fastest win {time}").format(time=duration(f.fastest_win)))
    # TRANSLATORS: {time}: all the active time played ("1:02:03").
    best.append(_("active time {time}").format(time=duration(f.seconds)))
    out.append("  " + "; ".join(best))
    if f.by_difficulty:
        # TRANSLATORS: one difficulty band's games in 'stats': "easy 3 of 5" (won 3 of 5 played).
        bands = ", ".join(_("{band} {won} of {played}").format(band=rating_text(band), won=won, played=played)
                          for band, played, won in f.by_difficulty)
        # TRANSLATORS: {bands}: "easy 3 of 5, hard 0 of 2".
        out.append("  " + _("by difficulty: {bands}").format(bands=bands))
    return out + ["  " + text for text in apart_lines(f)]


def export(rows: list[GameRow], store: Store, directory: Path) -> list[Path]:
    """One transcript a game, ``musical-42-deal-1.txt``, written atomically."""
    from .files import atomic_write

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for g in rows:
        # TRANSLATORS: a comment atop an exported transcript: {id} the game's number, {game} its
        # name, {deal} its deal number, {when} when it was started, {result} its result.
        with english():  # a transcript is the same in every language, its comment too
            comment = _("game @{id} of the record: {game} deal {deal}, started {when}, {result}").format(
                id=g.id, game=variant_name(g.game, g.rules), deal=g.deal, when=when(g.started),
                result=result_text(g.result))
        text = transcript_text(g.game, g.rules, g.deal, store.moves(g.id), g.result, comment=comment)
        path = directory / f"{g.game}-{g.id}-deal-{g.deal}.txt"
        atomic_write(path, text)
        written.append(path)
    return written


def history_json(rows: list[GameRow]) -> list[str]:
    with english():  # JSON is the same in every language: the variant's English name
        return [json.dumps({**g.to_json(), "variant": variant_name(g.game, g.rules)}, ensure_ascii=False)
                for g in rows]


def figures_json(rows: list[GameRow]) -> list[str]:
    """One object a game and rule set, then one for all games ("game": "all") when several."""
    with english():  # JSON is the same in every language: the variant's English name
        return [json.dumps({**f.to_json(), "variant": "all games" if f.game == "all" else variant_name(f.game, f.rules)},
                           ensure_ascii=False) for f in figures(rows, total=True)]

