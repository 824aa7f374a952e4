"""The player's record: every game played in the shell, kept in one SQLite file.

The store knows nothing of the games' insides: a game is its name, its rule options (text), its
deal number (text) and its moves (the transcript's move lines), so that a new game needs nothing
here. It asks the registry one thing only, whether a game turns its next card up by itself
(:attr:`GameRow.player_moves`). :mod:`musical_cli.record` ties it to a Session.

One file, ``$XDG_DATA_HOME/musical/musical.sqlite3``, in WAL mode (readers never wait for the
writer, so ``musical history`` works while shells play), with a busy timeout (two shells writing
take turns) and foreign keys on. The schema is versioned with ``PRAGMA user_version``; each
migration in :data:`MIGRATIONS` takes the file one version up, in one transaction. A file from a
newer musical is left untouched. Every write is one short ``BEGIN IMMEDIATE`` transaction; with
``synchronous=NORMAL`` a committed move survives the process being killed (it is in the WAL file),
and only a power cut can lose the last few.

Every failure is a :class:`StoreError` with one line of text; ``kind`` tells a damaged file
(``corrupt``: the caller may set it aside with :func:`set_aside`) and a newer one (``newer``)
from a file that cannot be used now (``unavailable``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .games import game_named
from .i18n import _

FILE_NAME = "musical.sqlite3"
BUSY_TIMEOUT = 2.0  # seconds a writer waits for another; writes hold the lock for about a millisecond
OPEN_PATIENCE = 10.0  # seconds opening the record keeps trying while another shell holds it
AUTOCHECKPOINT_PAGES = 20000  # about 80 MB of WAL: never reached by the Recorder's checkpoints
RESULTS = ("in play", "won", "lost", "abandoned")
HOW = ("player", "solver", "loaded")  # who played a game; None: recorded before this was kept
FINISHED = ("won", "lost", "abandoned")
VERDICTS = ("won", "lost")  # the solver's verdict on the deal from its start: can be won, cannot

# Each entry takes the file from version i to version i + 1. Never edit one that has shipped:
# add a new one. Version 1 is the first schema.
MIGRATIONS: tuple[str, ...] = (
    # 1: one row a game; one row a move (the line, including moves undone that redo may replay)
    """
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        game        TEXT NOT NULL,
        rules       TEXT NOT NULL,           -- the rule options, a JSON object of text
        deal        TEXT NOT NULL,           -- the deal number as text: 1, ms5
        started     REAL NOT NULL,           -- Unix time
        last_played REAL NOT NULL,
        result      TEXT NOT NULL DEFAULT 'in play'
                    CHECK (result IN ('in play', 'won', 'lost', 'abandoned')),
        moves       INTEGER NOT NULL DEFAULT 0,  -- moves in the game now (the position)
        undos       INTEGER NOT NULL DEFAULT 0,
        hints       INTEGER NOT NULL DEFAULT 0,
        verdict     TEXT CHECK (verdict IN ('won', 'lost'))
    );
    CREATE TABLE moves (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply     INTEGER NOT NULL,            -- 0-based; plies >= games.moves are the redo future
        move    TEXT NOT NULL,               -- a transcript move line: d, w f2, redeal
        step    INTEGER NOT NULL,            -- moves of one command share a step (one undo)
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE INDEX games_by_start ON games(started);
    """,
    # 2: time played, and which running shell holds a game (so that two shells never resume one)
    """
    ALTER TABLE games ADD COLUMN seconds REAL NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN owner TEXT;
    CREATE INDEX games_by_result ON games(result, last_played);
    """,
    # 3: who played a game, so that the player's figures count only the player's own games:
    # 'player' (from the deal), 'solver' (any 'solve play'), 'loaded' (from a transcript or @ID,
    # with its moves). NULL: recorded before version 3, when it was not kept; the migration marks
    # as 'loaded' what can still be told: a game whose moves all repeat an earlier game's line of
    # the same deal and rules and that took no time at all (its moves were written at once, as
    # 'load @ID' or a saved game loaded again writes them; a player who replays a deal the same
    # way takes time over it). Also whether the live coach was on, and the deal's difficulty.
    """
    ALTER TABLE games ADD COLUMN how TEXT CHECK (how IN ('player', 'solver', 'loaded'));
    ALTER TABLE games ADD COLUMN coach INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN difficulty TEXT;
    UPDATE games SET how = 'loaded' WHERE EXISTS (
        SELECT 1 FROM games AS e
        WHERE e.game = games.game AND e.rules = games.rules AND e.deal = games.deal
          AND e.started < games.started AND games.seconds < 1.0
          AND (SELECT count(*) FROM moves WHERE game_id = games.id AND ply < games.moves) > 0
          AND NOT EXISTS (
              SELECT 1 FROM moves AS m WHERE m.game_id = games.id AND m.ply < games.moves
                AND m.move IS NOT (SELECT move FROM moves WHERE game_id = e.id AND ply = m.ply)));
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

# SQLite's primary result codes for a damaged file and for a file that is no database at all.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


class StoreError(Exception):
    """The record cannot be used: ``kind`` is 'corrupt', 'newer' or 'unavailable'."""

    def __init__(self, text: str, *, kind: str, path: Path | None = None):
        self.kind = kind
        self.path = path
        self.locked = False  # another connection held the file past the busy timeout
        super().__init__(text)


def default_path() -> Path:
    from .files import NoHomeError, data_dir

    try:
        return data_dir() / FILE_NAME
    except NoHomeError as e:  # no HOME, no XDG_DATA_HOME and no password entry
        # TRANSLATORS: {why}: why there is no home directory.
        raise StoreError(_("no data directory for the record ({why}); set XDG_DATA_HOME").format(
            why=e), kind="unavailable") from None


def _is_corrupt(e: sqlite3.Error) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    # Python 3.10 has no error codes: SQLite reports both as a plain DatabaseError.
    return type(e) is sqlite3.DatabaseError


def _error(e: sqlite3.Error, path: Path) -> StoreError:
    if _is_corrupt(e):
        # TRANSLATORS: {path}: the record's file; {why}: SQLite's own words (English).
        return StoreError(_("the record {path} is damaged ({why})").format(path=path, why=e), kind="corrupt",
                          path=path)
    why = str(e)
    if "readonly" in why.replace("-", "").replace(" ", "") or "unable to open" in why:
        # SQLite's own words name no cause: a file that cannot be opened for writing is most
        # often a read-only file or directory (WAL mode makes files beside the record).
        for place in (path, path.parent):
            if place.exists() and not os.access(place, os.W_OK):
                why = (_("{path} is a read-only directory") if place.is_dir()
                       else _("{path} is a read-only file")).format(path=place)
                break
    # TRANSLATORS: {path}: the record's file; {why}: SQLite's own words (English), or why it
    # cannot be written ("/home/x/.local/share/musical is a read-only directory").
    text = (_("the record {path} cannot be used: {why}").format(path=path, why=e) if why == str(e)
            else _("the record {path} cannot be written: {why}").format(path=path, why=why))
    error = StoreError(text, kind="unavailable", path=path)
    error.locked = "locked" in str(e) or "busy" in str(e)
    return error


def newer_text(path: Path, version: int) -> str:
    """What is said of a record written by a newer musical (schema ``version``)."""
    # TRANSLATORS: {version}: the file's schema version; {known}: the highest this musical knows.
    return _("the record {path} was written by a newer musical (schema version {version}; this one knows up "
             "to {known}); it is left untouched").format(path=path, version=version, known=SCHEMA_VERSION)


def _host() -> str:
    if hasattr(os, "uname"):
        return os.uname().nodename  # what gethostname says, without importing socket
    import socket

    return socket.gethostname()


def me() -> str:
    """Who holds a game: this host and process."""
    return f"{_host()}:{os.getpid()}"


def held_elsewhere(owner: str | None) -> bool:
    """Whether another running shell on this host holds a game. A shell killed outright leaves
    its name behind; its process is gone, so the game is free. Another host cannot be asked."""
    if not owner or owner == me():
        return False
    host, _colon, pid = owner.rpartition(":")
    if host != _host() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, under another user
        return True
    try:  # a killed shell whose parent has not reaped it yet (Linux) is gone too
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[:1] != ["Z"]
    except OSError:
        return True


@dataclass(frozen=True)
class GameRow:
    id: int
    game: str
    rules: dict[str, str]
    deal: str
    started: float
    last_played: float
    result: str
    moves: int
    undos: int
    hints: int
    verdict: str | None
    seconds: float
    owner: str | None
    how: str | None = "player"  # HOW, or None for a game recorded before schema version 3
    coach: bool = False
    difficulty: str | None = None
    plies: int = -1  # the stored line's length, redo moves included (-1: not read)
    turns: int = 0  # the 'd' moves among the game's moves (to its position)
    turns_ahead: int = 0  # the 'd' moves among the redo moves (beyond its position)

    @property
    def turned_by_itself(self) -> bool:
        """Whether the game's shell turns the next card up by itself ('d' after each placement:
        ``Game.auto_turn``). The record is written by the shell only, so there every 'd' of such
        a game is one the player did not make. A game this program does not know (a record of a
        newer one) turns none."""
        try:
            return game_named(self.game).auto_turn
        except KeyError:
            return False

    @property
    def player_moves(self) -> int:
        """The moves the player made, as the shell's status line counts them: in a game that
        turns its next card up by itself (:attr:`turned_by_itself`), the turned cards are not
        counted, although the line keeps them, as a transcript does."""
        return self.moves - self.turns if self.turned_by_itself else self.moves

    @property
    def player_redo(self) -> int:
        """The moves redo would make, counted as :attr:`player_moves` counts."""
        ahead = max(self.plies - self.moves, 0)
        return ahead - self.turns_ahead if self.turned_by_itself else ahead

    def rules_text(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.rules.items())

    @property
    def rating(self) -> str | None:
        """The deal's difficulty, once the game is over: in play it would give the game away."""
        return None if self.result == "in play" else self.difficulty

    @property
    def deal_verdict(self) -> str | None:
        """Whether the deal can be won ('won', 'lost'), as far as the solver has proven it: its
        verdict when asked in the game, else, once the game is over, what the deal's rating
        proves (easy, medium and hard deals were won by the solver; a lost one was proven lost)."""
        if self.verdict is not None:
            return self.verdict
        return {"easy": "won", "medium": "won", "hard": "won", "lost": "lost"}.get(self.rating or "")

    @property
    def resumable(self) -> bool:
        """In play with a line to go on with: a game undone to its start still has its redo moves."""
        return self.result == "in play" and (self.moves > 0 or self.plies > 0)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "deal": int(self.deal) if self.deal.isdigit() else self.deal,
                "rules": self.rules, "started": iso(self.started), "last_played": iso(self.last_played),
                "result": self.result, "moves": self.player_moves, "undos": self.undos, "hints": self.hints,
                "seconds": round(self.seconds), "verdict": self.deal_verdict, "played_by": self.how,
                "coach": self.coach, "difficulty": self.rating}


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def rules_key(rules: dict[str, str]) -> str:
    return json.dumps(dict(rules), sort_keys=True, ensure_ascii=False)


_COLUMNS = ("id, game, rules, deal, started, last_played, result, moves, undos, hints, verdict, seconds, owner, "
            "how, coach, difficulty, (SELECT count(*) FROM moves WHERE game_id = games.id), "
            "(SELECT count(*) FROM moves WHERE game_id = games.id AND ply < games.moves AND move = 'd'), "
            "(SELECT count(*) FROM moves WHERE game_id = games.id AND ply >= games.moves AND move = 'd')")
# A game is in the record once it has a line: a move made, even if undone since (redo replays it).
_HAS_LINE = "(moves > 0 OR EXISTS (SELECT 1 FROM moves WHERE game_id = games.id))"


def _row(r: Sequence[Any]) -> GameRow:
    return GameRow(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                   r[13], bool(r[14]), r[15], r[16], r[17], r[18])


class Store:
    """An open record. Every method raises :class:`StoreError` on failure."""

    def __init__(self, conn: sqlite3.Connection, path: Path, version: int):
        self.conn = conn
        self.path = path
        self.version = version

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None = None, *, create: bool = True, readonly: bool = False) -> Store:
        """:meth:`_open`, tried again for a while when the file is locked: two shells starting
        at once both create or migrate it, and on a loaded machine the first can hold the lock
        past the busy timeout (seen in CI). Waiting at start-up is not felt as waiting in a move."""
        deadline = time.monotonic() + OPEN_PATIENCE
        while True:
            try:
                return cls._open(path, create=create, readonly=readonly)
            except StoreError as e:
                if not e.locked or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    @classmethod
    def open_for_reading(cls, path: Path | None = None) -> Store:
        """The record opened only to read it, even where it cannot be written at all (a read-only
        file or directory, where WAL mode cannot make its shared-memory file): then SQLite is told
        the file is immutable, which is true while nothing can write it."""
        try:
            return cls.open(path, create=False, readonly=True)
        except StoreError as first:
            # Only a file that cannot be opened at all is read as immutable: a newer musical's
            # file is left alone, and a locked one is being written (immutable would skip its WAL).
            if first.kind != "unavailable" or first.locked:
                raise
            path = default_path() if path is None else Path(path)
            if not path.exists():
                raise
            try:
                conn = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True, isolation_level=None)
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                conn.execute("SELECT count(*) FROM games").fetchone()
            except sqlite3.Error:
                raise first from None
        if version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(newer_text(path, version), kind="newer")
        return cls(conn, path, version)

    @classmethod
    def _open(cls, path: Path | None = None, *, create: bool = True, readonly: bool = False) -> Store:
        """Open the record and bring its schema up to :data:`SCHEMA_VERSION`. With ``create``, a
        missing file (and its directory) is made; without, it is StoreError 'unavailable'. A
        ``readonly`` store is never written, not even migrated: the reading commands (``replay
        @ID`` and the like) use only columns that every version has. A file from a newer musical
        is left as it is: StoreError 'newer'."""
        path = default_path() if path is None else Path(path)
        if not create and not path.exists():
            raise StoreError(_("no game is recorded yet ({path} does not exist)").format(path=path),
                             kind="unavailable")
        try:
            if readonly:
                conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True,
                                       timeout=BUSY_TIMEOUT, isolation_level=None)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
        except OSError as e:
            # TRANSLATORS: {path}: the record's directory; {why}: the system's words (English).
            raise StoreError(_("cannot make {path}: {why}").format(path=path.parent, why=e.strerror or e),
                             kind="unavailable") from None
        except sqlite3.Error as e:
            raise _error(e, path) from None
        try:
            # user_version is read before anything writes: a newer file must stay byte for byte.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(newer_text(path, version), kind="newer")
            conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, path, version)
            if not readonly:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    # TRANSLATORS: WAL: SQLite's write-ahead log; {mode}: the journal mode SQLite gave instead.
                    raise StoreError(_("the record {path} cannot use WAL mode ({mode})").format(
                        path=path, mode=mode), kind="unavailable")
                conn.execute("PRAGMA synchronous = NORMAL")
                # A checkpoint (copying the WAL into the file, with an fsync) takes some 20 ms:
                # the Recorder runs one between games instead of inside a move every 500 or so
                # (bench/record.py); this is only the safety net for a very long game.
                conn.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
                if version < SCHEMA_VERSION:
                    store.migrate()
            # A damaged file may still open; reading the schema finds most damage at once.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return store
        except StoreError:
            conn.close()
            raise
        except sqlite3.Error as e:
            conn.close()
            raise _error(e, path) from None

    def migrate(self) -> None:
        """Apply the migrations from the file's version to :data:`SCHEMA_VERSION`, each in one
        transaction with the version bump, so that a crash leaves one version or the next."""
        with self._write():
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]  # another shell may have won
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _statements(MIGRATIONS[target - 1]):
                    self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {target}")
            self.version = max(version, SCHEMA_VERSION)

    def checkpoint(self) -> None:
        """Copy the WAL into the file, as far as readers allow (never waits for them)."""
        try:
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as e:
            raise _error(e, self.path) from None

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    # --- writing ---------------------------------------------------------------------------

    class _Transaction:
        def __init__(self, store: Store):
            self.store = store

        def __enter__(self) -> sqlite3.Connection:
            try:
                self.store.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _error(e, self.store.path) from None
            return self.store.conn

        def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                     tb: TracebackType | None) -> Literal[False]:
            conn = self.store.conn
            if kind is None:
                try:
                    conn.execute("COMMIT")
                    return False
                except sqlite3.Error as e:
                    value = e
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if isinstance(value, sqlite3.Error):
                raise _error(value, self.store.path) from None
            return False

    def _write(self) -> Store._Transaction:
        return Store._Transaction(self)

    def new_game(self, game: str, rules: dict[str, str], deal: str, started: float | None = None,
                 owner: str | None = None, how: str = "player", coach: bool = False,
                 difficulty: str | None = None) -> int:
        if how not in HOW:
            raise ValueError(_("unknown player {how!r}").format(how=how))
        now = time.time()
        with self._write() as conn:
            cur = conn.execute("INSERT INTO games (game, rules, deal, started, last_played, owner, how, coach, "
                               "difficulty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (game, json.dumps(dict(rules), ensure_ascii=False), deal,
                                started if started is not None else now, now, owner, how, int(coach), difficulty))
            assert cur.lastrowid is not None, "an INSERT gives the row's id"
            return cur.lastrowid

    def save(self, game_id: int, *, keep: int, append: Iterable[tuple[str, int]], moves: int, result: str,
             undos: int = 0, hints: int = 0, seconds: float = 0.0, verdict: str | None = None,
             how: str | None = None, coach: bool = False, difficulty: str | None = None) -> None:
        """One transaction: keep the line's first ``keep`` moves, add ``append`` after them
        (move line, step), and set the game's figures (``undos``, ``hints`` and ``seconds`` are
        added to the stored ones). ``how``, when given, replaces who played it; ``coach`` once
        true stays true; ``difficulty``, when given, is kept."""
        if result not in RESULTS:
            raise ValueError(_("unknown result {result!r}").format(result=result))
        if how is not None and how not in HOW:
            raise ValueError(_("unknown player {how!r}").format(how=how))
        with self._write() as conn:
            conn.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep))
            conn.executemany("INSERT INTO moves (game_id, ply, move, step) VALUES (?, ?, ?, ?)",
                             ((game_id, keep + i, move, step) for i, (move, step) in enumerate(append)))
            conn.execute("UPDATE games SET moves = ?, result = ?, undos = undos + ?, hints = hints + ?, "
                         "seconds = seconds + ?, verdict = coalesce(?, verdict), how = coalesce(?, how), "
                         "coach = max(coach, ?), difficulty = coalesce(?, difficulty), last_played = ? WHERE id = ?",
                         (moves, result, undos, hints, seconds, verdict, how, int(coach), difficulty, time.time(),
                          game_id))

    def set_result(self, game_id: int, result: str, only_if: str | None = None) -> None:
        with self._write() as conn:
            if only_if is None:
                conn.execute("UPDATE games SET result = ? WHERE id = ?", (result, game_id))
            else:
                conn.execute("UPDATE games SET result = ? WHERE id = ? AND result = ?", (result, game_id, only_if))

    def set_difficulty(self, game_id: int, difficulty: str) -> None:
        """The deal's rating, once known (a rating known before is kept)."""
        with self._write() as conn:
            conn.execute("UPDATE games SET difficulty = coalesce(difficulty, ?) WHERE id = ?", (difficulty, game_id))

    def claim(self, game_id: int, owner: str | None = None) -> bool:
        """Take a game for this shell, unless another running shell holds it."""
        owner = owner or me()
        with self._write() as conn:
            row = conn.execute("SELECT owner FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or held_elsewhere(row[0]):
                return False
            conn.execute("UPDATE games SET owner = ? WHERE id = ?", (owner, game_id))
            return True

    def release(self, game_id: int, owner: str | None = None) -> None:
        with self._write() as conn:
            conn.execute("UPDATE games SET owner = NULL WHERE id = ? AND owner = ?", (game_id, owner or me()))

    # --- reading ---------------------------------------------------------------------------

    def _query(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            if self.version < SCHEMA_VERSION and "no such column" in str(e):
                # an older file opened only to read (a read-only disk): it could not be brought
                # up to date, and this musical reads what the newer schema added
                raise StoreError(_("the record {path} was written by an older musical (schema version {version}) "
                                   "and cannot be brought up to date where it cannot be written: run musical once "
                                   "where it can be").format(path=self.path, version=self.version),
                                 kind="unavailable") from None
            raise _error(e, self.path) from None

    def game(self, game_id: int) -> GameRow | None:
        rows = self._query(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _row(rows[0]) if rows else None

    def line(self, game_id: int) -> list[tuple[str, int]]:
        """The whole stored line (move, step), the redo future included."""
        return [tuple(r) for r in self._query("SELECT move, step FROM moves WHERE game_id = ? ORDER BY ply",
                                              (game_id,))]

    def moves(self, game_id: int) -> list[str]:
        """The game's moves up to its position (what a transcript of it holds). Version 1 columns
        only, so that the reading commands work on a file not yet migrated."""
        return [r[0] for r in self._query("SELECT m.move FROM moves m JOIN games g ON g.id = m.game_id "
                                          "WHERE m.game_id = ? AND m.ply < g.moves ORDER BY m.ply", (game_id,))]

    def start_of(self, game_id: int) -> tuple[str, dict[str, str], str, str] | None:
        """(game, rules, deal, result) from version 1 columns, for the reading commands."""
        rows = self._query("SELECT game, rules, deal, result FROM games WHERE id = ?", (game_id,))
        return (rows[0][0], json.loads(rows[0][1]), rows[0][2], rows[0][3]) if rows else None

    def games(self, game: str | None = None, limit: int | None = None) -> list[GameRow]:
        """Newest first (by start), each with a line (a move made, even if undone since)."""
        sql = f"SELECT {_COLUMNS} FROM games WHERE {_HAS_LINE}"
        args: list[object] = []
        if game is not None:
            sql += " AND game = ?"
            args.append(game)
        sql += " ORDER BY started DESC, id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [_row(r) for r in self._query(sql, args)]

    def count(self) -> int:
        count: int = self._query(f"SELECT count(*) FROM games WHERE {_HAS_LINE}")[0][0]
        return count

    def unfinished(self, exclude: int | None = None) -> list[GameRow]:
        """Games in play that no running shell holds, the one played last first."""
        rows = self._query(f"SELECT {_COLUMNS} FROM games WHERE result = 'in play' AND {_HAS_LINE} "
                           "ORDER BY last_played DESC, id DESC")
        return [g for g in map(_row, rows) if g.id != exclude and not held_elsewhere(g.owner)]


def _statements(script: str) -> list[str]:
    """A migration's statements (executescript would commit the transaction it runs in)."""
    out, current = [], ""
    for raw in script.splitlines():
        line = raw.split("--", 1)[0]
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out


def set_aside(path: Path) -> Path:
    """Rename a damaged record (and its WAL and shared-memory files) out of the way, never over
    another file: ``musical.sqlite3.corrupt-20261130-223000`` (then ``-2``, ``-3`` ...)."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n = 1
    while True:
        target = path.with_name(f"{path.name}.corrupt-{stamp}" + (f"-{n}" if n > 1 else ""))
        if not any(Path(f"{target}{s}").exists() for s in ("", "-wal", "-shm")):
            break
        n += 1
    for suffix in ("-wal", "-shm", ""):  # the main file last: it is what the next start looks for
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.rename(source, f"{target}{suffix}")
    return target


# --- figures -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """One game and rule set (or all of them: ``game`` "all"): the player's figures.

    Only the player's own games count in ``played`` and what follows from it: played from the
    deal by the player (hints and ``auto`` do not change whose game it is), with the live coach
    off. Games the solver finished (any ``solve play``), games loaded with their moves, and
    coached games are counted apart; a game still in play is not counted yet. A game won with
    hints is played but not ``won`` (:func:`won_alone`): it is ``hinted``."""

    game: str
    rules: dict[str, str]
    played: int  # the player's finished games: won, lost or abandoned
    won: int  # won with no hint asked
    lost: int
    abandoned: int
    current_streak: int  # wins in a row, up to the last finished game
    longest_streak: int
    longest_losing_streak: int  # lost or abandoned games in a row
    fewest_moves: int | None  # in a win
    fastest_win: float | None  # active seconds of the quickest win
    seconds: float  # active time in the player's games, unfinished ones included
    in_play: int
    solved: int  # finished by the solver ('solve play')
    loaded: int  # loaded from a transcript or @ID with their moves
    coached: int  # played with the live coach on
    earlier: int = 0  # of the player's games, those recorded before who played was kept
    # difficulty band: (played, won), the player's finished games whose deal was rated
    by_difficulty: tuple[tuple[str, int, int], ...] = ()
    hinted: int = 0  # of the player's finished games, those won with hints (counted as played, not won)

    @property
    def win_rate(self) -> float | None:
        return 100.0 * self.won / self.played if self.played else None

    def to_json(self) -> dict[str, Any]:
        rate = self.win_rate
        return {"game": self.game, "rules": self.rules, "played": self.played, "won": self.won,
                "lost": self.lost, "abandoned": self.abandoned, "solved": self.solved, "loaded": self.loaded,
                "coached": self.coached, "win_percent": None if rate is None else round(rate, 1),
                "streak": self.current_streak, "longest_streak": self.longest_streak,
                "longest_losing_streak": self.longest_losing_streak, "fewest_moves": self.fewest_moves,
                "fastest_win": None if self.fastest_win is None else round(self.fastest_win),
                "seconds": round(self.seconds), "in_play": self.in_play, "earlier": self.earlier,
                "won_with_hints": self.hinted,
                "by_difficulty": {band: {"played": p, "won": w} for band, p, w in self.by_difficulty}}


BANDS = ("easy", "medium", "hard", "lost")  # the coach's difficulty ratings, in this order


def own(g: GameRow) -> bool:
    """Whether a game counts in the player's figures (see :class:`Figures`)."""
    return g.how in ("player", None) and not g.coach


def summarise(game: str, rules: dict[str, str], rows: list[GameRow]) -> Figures:
    """The figures of ``rows``. Finished games count in the order they were last played (a
    game's result is fixed then): a win extends the winning streak, a loss or an abandoned game
    the losing one."""
    mine = [g for g in rows if own(g)]
    finished = sorted((g for g in mine if g.result in FINISHED), key=lambda g: (g.last_played, g.id))
    streak = longest = losing = longest_losing = 0
    for g in finished:
        if won_alone(g):
            streak, losing = streak + 1, 0
        elif g.result == "won":  # with hints: no win of the player's own, nor a loss
            streak = 0
        else:
            streak, losing = 0, losing + 1
        longest, longest_losing = max(longest, streak), max(longest_losing, losing)
    wins = [g for g in finished if won_alone(g)]
    bands = tuple((band, sum(g.difficulty == band for g in finished),
                   sum(g.difficulty == band for g in wins)) for band in BANDS
                  if any(g.difficulty == band for g in finished))

    def apart(how: str) -> int:
        return sum(g.how == how and g.result in FINISHED for g in rows)

    return Figures(game, rules, len(finished), len(wins), sum(g.result == "lost" for g in finished),
                   sum(g.result == "abandoned" for g in finished), streak, longest, longest_losing,
                   min((g.player_moves for g in wins), default=None), min((g.seconds for g in wins), default=None),
                   sum(g.seconds for g in mine), sum(g.result == "in play" for g in mine),
                   apart("solver"), apart("loaded"),
                   sum(g.coach and g.how in ("player", None) and g.result in FINISHED for g in rows),
                   sum(g.how is None for g in mine), bands,
                   sum(g.result == "won" and g.hints > 0 for g in finished))


def won_alone(g: GameRow) -> bool:
    """Whether a game is a win of the player's own: won with no hint asked. A game won with
    hints counts as played, not won (as PySolFC counts it): the hints showed the way, and a win
    rate that counts them says little. ``auto`` and undo keep a win the player's."""
    return g.result == "won" and g.hints == 0


def figures(games: Iterable[GameRow], total: bool = False) -> list[Figures]:
    """Figures per game and rule set, in the order of the games' names; with ``total``, and
    more than one group, a last row for all of them together (``game`` "all")."""
    rows = list(games)
    groups: dict[tuple[str, str], list[GameRow]] = {}
    for g in rows:
        groups.setdefault((g.game, rules_key(g.rules)), []).append(g)
    out = [summarise(name, group[0].rules, group) for (name, _), group in sorted(groups.items())]
    if total and len(out) > 1:
        out.append(summarise("all", {}, rows))
    return out


def duration(seconds: float) -> str:
    """``1:02:03``, ``4:05`` (minutes and seconds under an hour)."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"
