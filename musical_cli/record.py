"""The glue between the shell's Session and the player's record (:mod:`musical_cli.store`).

A :class:`Recorder` listens to a Session (``Session.listener``): after every change it writes
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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .deals import DealNumber
from .game import IllegalMove, Outcome
from .render import plural
from .store import (
    GameRow,
    Store,
    StoreError,
    duration,
    figures,
    me,
    set_aside,
)

IDLE_CAP = 300.0  # seconds: a longer pause between two moves counts as this much time played
HISTORY_LIMIT = 10  # games the shell's 'history' lists by default
RESULT_OF = {Outcome.IN_PLAY: "in play", Outcome.WON: "won", Outcome.LOST: "lost"}


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
    set aside first (the next start makes a new one)."""
    try:
        return Store.open(path), None
    except StoreError as e:
        if e.kind == "corrupt":
            try:
                aside = set_aside(e.path or _path(path))
                return None, f"{e}: it is kept as {aside}; play goes on unrecorded"
            except OSError as why:
                return None, f"{e}, and it cannot be renamed aside ({why.strerror or why}); " \
                             "play goes on unrecorded"
        return None, f"{e}; play goes on unrecorded"
    except (OSError, RuntimeError) as e:  # no HOME to find the data directory in, and the like
        return None, f"cannot open the record: {e}; play goes on unrecorded"


def _path(path: Path | None) -> Path:
    from .store import default_path

    return default_path() if path is None else Path(path)


class RecordError(ValueError):
    """What the record cannot do now (a game to resume held elsewhere, or one that no longer
    replays), in one line; the shell prints it as it prints any refused command."""


class Recorder:
    """Writes one shell's games to the store (its commands are in :mod:`.record_commands`)."""

    def __init__(self, store: Store | None, why_not: str | None = None, offer: bool = True, quiet: bool = False):
        self.store = store
        self.why_not = why_not  # why nothing is recorded (shown by 'record')
        self.offer = offer  # say at start when an unfinished game waits ('musical' without --seed)
        # Warnings to show once the shell can print them; an opt-out is no warning.
        self.pending: list[tuple[str, str]] = [(why_not, "bad")] if why_not and not quiet else []
        self.warn: Callable[[str], None] | None = None
        self.session: Any = None
        self.game_id: int | None = None
        self.written: list[tuple[str, int]] = []  # the line as stored
        self.result = "in play"
        self.verdict: str | None = None
        self.undos = self.hints = 0  # not yet written
        self.started = time.time()
        self.clock = time.monotonic()
        self._binding: tuple[GameRow, list[tuple[str, int]]] | None = None
        self._texts: dict[Any, str] = {}

    @classmethod
    def open(cls, path: Path | None = None, no_record: bool = False, offer: bool = True) -> Recorder:
        refused = recording_refused(no_record)
        if refused:
            return cls(None, f"this shell does not record ({refused})", offer=False, quiet=True)
        store, why = open_store(path)
        return cls(store, why, offer)

    # --- the session's events --------------------------------------------------------------

    def attach(self, session: Any, warn: Callable[[str], None]) -> None:
        self.session = session
        self.warn = warn
        session.listener = self.event
        session.recorder = self
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
        return bool(self.session.steps or self.session.undone)

    def event(self, event: str) -> None:
        if self.store is None:
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
        self.clock = time.monotonic()
        self.undos = self.hints = 0
        if binding is not None:
            row, line = binding
            self.game_id, self.written = row.id, line
            self.result, self.verdict, self.started = row.result, row.verdict, row.started
        else:
            self.game_id, self.written = None, []
            self.result, self.verdict, self.started = "in play", None, time.time()

    def _finish(self) -> None:
        """The game in hand ends (another starts): in play, it is abandoned; it is let go."""
        if self.store is None or self.game_id is None:
            return
        try:
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
        s = self.session
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
        s = self.session
        if self.game_id is None and not self._played():
            return
        line = self.line()
        now = time.monotonic()
        seconds, self.clock = min(now - self.clock, IDLE_CAP), now
        result = RESULT_OF[s.outcome()]
        verdict = self._verdict(result)
        try:
            if self.game_id is None:
                self.game_id = self.store.new_game(s.game.name, s.game.rules_options(s.rules), s.deal.text,
                                                   self.started, owner=me())
                self.written = []
            keep = 0
            written = self.written
            limit = min(len(written), len(line))
            while keep < limit and written[keep] == line[keep]:
                keep += 1
            self.store.save(self.game_id, keep=keep, append=line[keep:], moves=len(s.moves), result=result,
                            undos=self.undos, hints=self.hints, seconds=seconds,
                            verdict=verdict if verdict != self.verdict else None)
        except StoreError as e:
            self._fail(e)
            return
        self.written, self.result, self.verdict = line, result, verdict or self.verdict
        self.undos = self.hints = 0

    def _verdict(self, result: str) -> str | None:
        if self.verdict is not None:
            return self.verdict
        if result == "won":
            return "won"  # the win proves it
        s = self.session
        if not s.solved:
            return None
        # A position of this deal proven winnable proves the deal winnable; only the start
        # itself proven lost proves it lost.
        if any(solution.result == "won" for solution in s.solved.values()):
            return "won"
        known = s.solved.get(s.states[0])
        return "lost" if known is not None and known.result == "lost" else None

    def _fail(self, e: StoreError) -> None:
        """Stop recording, with one line; a damaged file is set aside."""
        store, self.store = self.store, None
        if store is not None:
            store.close()
        text = str(e)
        if e.kind == "corrupt" and store is not None:
            try:
                text += f": it is kept as {set_aside(store.path)}"
            except OSError as why:
                text += f", and it cannot be renamed aside ({why.strerror or why})"
        self.why_not = f"{text}; play goes on unrecorded"
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
        from .games import DEFAULT_GAME

        what = "" if row.game == DEFAULT_GAME.name else f"{row.game} "
        return [f"an unfinished game of {what}deal {row.deal} from {when(row.last_played)} "
                f"({plural(row.moves, 'move')}): type 'resume' to go on"]

    def resume_at_start(self) -> str | None:
        """``musical --resume``: the unfinished game becomes the game in hand; or what is wrong."""
        if self.store is None:
            return f"nothing to resume: {self.why_not}"
        row = self.unfinished()
        if row is None:
            return "no unfinished game is waiting in the record ('musical history' lists the games)"
        try:
            self.pending.append((self.resume(row), "hint"))
        except RecordError as e:
            return str(e)
        return None

    def resume(self, row: GameRow) -> str:
        """Make ``row`` the game in hand, with its undo and redo history. Raises ValueError."""
        assert self.store is not None
        if not self.store.claim(row.id):
            raise RecordError(f"game @{row.id} is being played in another musical shell")
        try:
            line = self.store.line(row.id)
            game, deal, rules, moves, steps, undone = rebuild(row, line, self.session.ascii)
        except (StoreError, ValueError) as e:
            try:
                self.store.release(row.id)
            except StoreError:
                pass
            raise RecordError(f"game @{row.id} cannot be resumed: {e}") from None
        self._binding = (row, line)  # the start event ends the game in hand, then takes this one
        self.session.start(game, deal, rules, tuple(moves), steps=steps, undone=undone)
        return f"resumed game @{row.id}: deal {row.deal}, {plural(len(moves), 'move')}, " \
               f"started {when(row.started)}"


def rebuild(row: GameRow, line: list[tuple[str, int]], ascii: bool = False):
    """A stored game as the Session takes it: (game, deal, rules, moves, steps, undone). The
    moves are replayed by the rules (a ValueError names the bad one); a redo future that no
    longer replays is dropped."""
    from .notation import parse
    from .transcript import TranscriptError, read_transcript

    try:
        transcript = read_transcript(transcript_text(row.game, row.rules, row.deal,
                                                     [m for m, _ in line[:row.moves]]))
    except TranscriptError as e:
        # The text was made here: its line numbers mean nothing to the player; the move does.
        where = f"move {e.moves + 1}" if e.moves < row.moves and e.line and e.line > 3 + len(row.rules) else "its start"
        why = e.cause.text(ascii) if isinstance(e.cause, IllegalMove) else e.why
        raise ValueError(f"{where}: {why}") from None
    record = transcript.record
    game = record.game
    kept = line[:row.moves]
    steps: list[int] = []
    previous = None
    for _, step in kept:
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


def variant_title(game: str, rules: dict[str, str]) -> str:
    """A recorded game's name as players know it (Game.variant_title): "Indian Carpet"; its
    stored name when the game or its rules are not known here."""
    from .games import GAMES

    known = GAMES.get(game)
    if known is None:
        return game
    try:
        return known.variant_title(known.rules_from_options(rules))
    except ValueError:
        return game


def parse_ref(ref: str) -> int:
    text = ref[1:] if ref.startswith("@") else ref
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ref!r} names no recorded game: write @ID with an id that 'musical history' lists")
    return int(text)


def recorded_text(ref: str, store: Store | None = None) -> str:
    """The transcript of recorded game ``@ID`` (its moves up to where it stands). Raises
    ValueError (a bad reference, no such game) or StoreError (no record to read)."""
    game_id = parse_ref(ref)
    own = store is None
    if own:
        store = Store.open(create=False, readonly=True)
    try:
        start = store.start_of(game_id)
        if start is None:
            raise ValueError(f"there is no game @{game_id} in the record ('musical history' lists them)")
        game, rules, deal, result = start
        moves = store.moves(game_id)
    finally:
        if own:
            store.close()
    return transcript_text(game, rules, deal, moves, result,
                           comment=f"game @{game_id} of the record: {variant_title(game, rules)} deal {deal} ({result})")


def when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def history_table(rows: list[GameRow]) -> list[str]:
    """The games as lines: id, date, game, deal, rules, result, moves."""
    table = [("id", "date", "game", "deal", "rules", "result", "moves")]
    table += [(f"@{g.id}", when(g.started), g.game, g.deal, g.rules_text(), g.result, str(g.moves)) for g in rows]
    return _columns(table, right={0, 6})


def figures_table(rows: list[GameRow]) -> list[str]:
    table = [("game", "rules", "played", "won", "win %", "streak", "longest", "fewest moves", "time played")]
    for f in figures(rows):
        rate = f.win_rate
        table.append((f.game, ", ".join(f"{k} {v}" for k, v in f.rules.items()), str(f.played), str(f.won),
                      "-" if rate is None else f"{rate:.1f}", str(f.current_streak), str(f.longest_streak),
                      "-" if f.fewest_moves is None else str(f.fewest_moves), duration(f.seconds)))
    return _columns(table, right={2, 3, 4, 5, 6, 7, 8})


def _columns(table: list[tuple[str, ...]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  ".join(cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in
                      enumerate(zip(row, widths, strict=True))).rstrip() for row in table]


def export(rows: list[GameRow], store: Store, directory: Path) -> list[Path]:
    """One transcript a game, ``musical-42-deal-1.txt``, written atomically."""
    from .files import atomic_write

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for g in rows:
        text = transcript_text(g.game, g.rules, g.deal, store.moves(g.id), g.result,
                               comment=f"game @{g.id} of the record: {variant_title(g.game, g.rules)} deal {g.deal}, "
                                       f"started {when(g.started)}, {g.result}")
        path = directory / f"{g.game}-{g.id}-deal-{g.deal}.txt"
        atomic_write(path, text)
        written.append(path)
    return written


def history_json(rows: list[GameRow]) -> list[str]:
    return [json.dumps(g.to_json(), ensure_ascii=False) for g in rows]


def figures_json(rows: list[GameRow]) -> list[str]:
    return [json.dumps(f.to_json(), ensure_ascii=False) for f in figures(rows)]

