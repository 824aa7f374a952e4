"""The player's record: the SQLite store on its own, and the bad conditions that must
never stop play (a damaged file, a newer one, a full disk, a lock held too long, a read-only or
missing data directory), with two processes writing at once."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from musical_cli import store as store_module
from musical_cli.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    GameRow,
    Store,
    StoreError,
    duration,
    figures,
    set_aside,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "musical" / "musical.sqlite3"


def test_a_new_file_is_versioned_in_wal_mode_with_foreign_keys(path):
    s = Store.open(path)
    assert path.is_file()
    assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == s.version
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert s.conn.execute("PRAGMA busy_timeout").fetchone()[0] == int(store_module.BUSY_TIMEOUT * 1000)
    s.close()


def test_a_game_and_its_line(path):
    s = Store.open(path)
    gid = s.new_game("musical", {"redeals": "2"}, "ms5", started=1000.0, owner="x:1")
    s.save(gid, keep=0, append=[("d", 0), ("d", 1), ("w f3", 2)], moves=2, result="in play", undos=1, hints=2,
           seconds=3.5)
    s.save(gid, keep=2, append=[("redeal", 2)], moves=3, result="in play", undos=0, hints=1, seconds=1.0,
           verdict="won")
    row = s.game(gid)
    assert (row.game, row.rules, row.deal, row.started, row.moves) == ("musical", {"redeals": "2"}, "ms5", 1000.0, 3)
    assert (row.undos, row.hints, row.seconds, row.verdict, row.owner) == (1, 3, 4.5, "won", "x:1")
    assert s.line(gid) == [("d", 0), ("d", 1), ("redeal", 2)]
    assert s.moves(gid) == ["d", "d", "redeal"]
    s.save(gid, keep=3, append=[], moves=1, result="in play")  # two moves undone: the line stays for redo
    assert s.moves(gid) == ["d"] and len(s.line(gid)) == 3
    assert s.game(gid).verdict == "won"  # a verdict, once known, stays
    with pytest.raises(ValueError):
        s.save(gid, keep=0, append=[], moves=0, result="drawn")
    s.close()


def test_rule_options_keep_their_order(path):
    s = Store.open(path)
    gid = s.new_game("calculation", {"piles": "4", "bases": "yes"}, "1")
    assert list(s.game(gid).rules) == ["piles", "bases"]
    assert s.game(gid).rules_text() == "piles 4, bases yes"


def test_moves_go_with_their_game(path):
    s = Store.open(path)
    gid = s.new_game("musical", {}, "1")
    s.save(gid, keep=0, append=[("d", 0)], moves=1, result="in play")
    s.conn.execute("DELETE FROM games WHERE id = ?", (gid,))  # foreign keys: ON DELETE CASCADE
    assert s.conn.execute("SELECT count(*) FROM moves").fetchone()[0] == 0
    with pytest.raises(StoreError):
        s.save(999, keep=0, append=[("d", 0)], moves=1, result="in play")  # no such game: refused


# --- migrations ----------------------------------------------------------------------------------


def _database_at(path: Path, version: int) -> None:
    """A file as musical of schema ``version`` left it, with one game of two moves."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:version]:
        conn.executescript(script)
    conn.execute(f"PRAGMA user_version = {version}")
    if version >= 1:
        conn.execute("INSERT INTO games (game, rules, deal, started, last_played, result, moves, undos, hints) "
                     "VALUES ('musical', '{\"redeals\": \"2\"}', '7', 100, 200, 'won', 2, 1, 0)")
        conn.executemany("INSERT INTO moves VALUES (1, ?, ?, ?)", [(0, "d", 0), (1, "w f1", 1)])
    conn.close()


@pytest.mark.parametrize("version", range(0, SCHEMA_VERSION))
def test_each_version_migrates_to_this_one(path, version):
    _database_at(path, version)
    s = Store.open(path)
    assert s.version == SCHEMA_VERSION
    assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    columns = {r[1] for r in s.conn.execute("PRAGMA table_info(games)")}
    assert {"seconds", "owner"} <= columns
    if version >= 1:
        row = s.game(1)
        assert (row.game, row.deal, row.result, row.moves, row.undos) == ("musical", "7", "won", 2, 1)
        assert (row.seconds, row.owner) == (0, None)  # the defaults of what version 2 added
        assert s.moves(1) == ["d", "w f1"]
    s.close()
    assert Store.open(path).version == SCHEMA_VERSION  # opening again changes nothing


def test_version_3_marks_what_can_be_told_of_older_games(path):
    """Who played a game was not kept before version 3: such games stay unmarked (None) except a
    copy of an earlier game, its moves all the earlier line's, written at once (no time played):
    what 'load @ID' of a finished game made. A player who replays a deal the same way took time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:2]:
        for statement in store_module._statements(script):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    games = [(1, 100.0, 50.0, "won"), (2, 200.0, 0.0, "won"), (3, 300.0, 40.0, "won"), (4, 400.0, 0.0, "in play")]
    lines = {1: ["d", "w f1", "d"], 2: ["d", "w f1", "d"], 3: ["d", "w f1", "d"], 4: ["d", "d"]}
    for gid, started, seconds, result in games:
        conn.execute("INSERT INTO games (id, game, rules, deal, started, last_played, result, moves, seconds) "
                     "VALUES (?, 'musical', '{}', '7', ?, ?, ?, ?, ?)",
                     (gid, started, started, result, len(lines[gid]), seconds))
        conn.executemany("INSERT INTO moves VALUES (?, ?, ?, ?)",
                         [(gid, ply, move, ply) for ply, move in enumerate(lines[gid])])
    conn.close()
    s = Store.open(path)
    assert [(g.id, g.how) for g in sorted(s.games(), key=lambda g: g.id)] == [
        (1, None), (2, "loaded"), (3, None), (4, None)]
    assert not any(g.coach or g.difficulty for g in s.games())
    s.close()


def test_a_game_undone_to_its_start_stays_in_the_record(path):
    s = Store.open(path)
    gid = s.new_game("musical", {}, "1")
    s.save(gid, keep=0, append=[("d", 0), ("d", 1)], moves=0, result="in play")  # both undone: redo's
    [row] = s.unfinished()
    assert (row.id, row.moves, row.plies, row.resumable) == (gid, 0, 2, True)
    assert [g.id for g in s.games()] == [gid] and s.count() == 1


def test_the_first_version_is_read_without_migrating_by_the_reading_commands(path):
    _database_at(path, 1)
    before = path.read_bytes()
    s = Store.open(path, create=False, readonly=True)
    assert s.start_of(1) == ("musical", {"redeals": "2"}, "7", "won") and s.moves(1) == ["d", "w f1"]
    s.close()
    assert path.read_bytes() == before


def test_a_file_from_a_newer_musical_is_left_untouched(path):
    _database_at(path, SCHEMA_VERSION)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError) as e:
        Store.open(path)
    assert e.value.kind == "newer"
    assert "newer musical" in str(e.value) and "left untouched" in str(e.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


# --- a damaged file ------------------------------------------------------------------------------


def test_a_file_that_is_no_database_is_corrupt(path):
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not SQLite at all, but it is long enough to be read as a header" * 20)
    with pytest.raises(StoreError) as e:
        Store.open(path)
    assert e.value.kind == "corrupt" and e.value.path == path


def test_a_damaged_page_is_corrupt(path):
    s = Store.open(path)
    for _ in range(300):
        gid = s.new_game("musical", {"redeals": "2"}, "1")
        s.save(gid, keep=0, append=[("d", i) for i in range(20)], moves=20, result="in play")
    s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    data[2 * page: 6 * page] = b"\xa5" * (4 * page)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as e:
        s = Store.open(path)
        s.games()
        s.count()
    assert e.value.kind == "corrupt"


def test_set_aside_keeps_every_byte_and_never_overwrites(path):
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage one")
    Path(f"{path}-wal").write_bytes(b"its wal")
    first = set_aside(path)
    assert not path.exists() and not Path(f"{path}-wal").exists()
    assert first.read_bytes() == b"garbage one" and Path(f"{first}-wal").read_bytes() == b"its wal"
    assert first.name.startswith("musical.sqlite3.corrupt-")
    path.write_bytes(b"garbage two")
    second = set_aside(path)  # within the same second: another name, the first untouched
    assert second != first
    assert first.read_bytes() == b"garbage one" and second.read_bytes() == b"garbage two"


# --- figures -------------------------------------------------------------------------------------


def _row(i: int, result: str, moves: int = 100, game: str = "musical", rules=None, seconds: float = 60.0,
         how: str | None = "player", coach: bool = False, difficulty: str | None = None, hints: int = 0) -> GameRow:
    return GameRow(i, game, rules or {"redeals": "2"}, str(i), 1000.0 + i, 2000.0 + i, result, moves, 0, hints,
                   None, seconds, None, how, coach, difficulty)


def test_figures_on_a_hand_made_history():
    results = ["won", "won", "lost", "won", "won", "won", "abandoned", "won", "won"]
    rows = [_row(i, r, moves=140 + i) for i, r in enumerate(results, 1)]
    rows.append(_row(20, "in play", seconds=30))  # not played yet: no effect but on time
    rows.append(_row(21, "won", moves=90, rules={"redeals": "1"}))
    rows.append(_row(22, "lost", game="calculation", rules={"piles": "4", "bases": "yes"}))
    by_rules = {(f.game, json.dumps(f.rules)): f for f in figures(reversed(rows))}  # order of rows does not matter
    two = by_rules[("musical", '{"redeals": "2"}')]
    assert (two.played, two.won, two.in_play) == (9, 7, 1)
    assert two.win_rate == pytest.approx(700 / 9)
    assert (two.current_streak, two.longest_streak) == (2, 3)
    assert two.fewest_moves == 141
    assert two.seconds == 9 * 60 + 30
    one = by_rules[("musical", '{"redeals": "1"}')]
    assert (one.played, one.won, one.current_streak, one.longest_streak, one.fewest_moves) == (1, 1, 1, 1, 90)
    calc = by_rules[("calculation", '{"piles": "4", "bases": "yes"}')]
    assert (calc.played, calc.won, calc.win_rate, calc.current_streak, calc.fewest_moves) == (1, 0, 0.0, 0, None)
    assert calc.to_json()["win_percent"] == 0.0
    assert two.to_json() == {"game": "musical", "rules": {"redeals": "2"}, "played": 9, "won": 7, "lost": 1,
                             "abandoned": 1, "solved": 0, "loaded": 0, "coached": 0,
                             "win_percent": 77.8, "streak": 2, "longest_streak": 3, "longest_losing_streak": 1,
                             "fewest_moves": 141, "fastest_win": 60, "seconds": 570, "in_play": 1, "earlier": 0,
                             "won_with_hints": 0, "by_difficulty": {}}


def test_a_game_won_with_hints_is_played_but_not_won():
    """As PySolFC counts it: a win the hints led to is no win of the player's own. It counts as
    played, apart as won with hints, in no winning streak, for no fewest moves; undo keeps a win
    the player's."""
    rows = [_row(1, "won", moves=200), _row(2, "won", moves=90, hints=3), _row(3, "won", moves=150),
            _row(4, "lost")]
    (f,) = figures(rows)
    assert (f.played, f.won, f.hinted, f.lost) == (4, 2, 1, 1)
    assert f.win_rate == pytest.approx(50.0)
    assert (f.longest_streak, f.fewest_moves) == (1, 150)
    assert f.to_json()["won_with_hints"] == 1
    from musical_cli.record import apart_lines, figures_card

    assert "Won with hints, counted as played but not won: 1 game." in apart_lines(f)
    assert "won 2, won with hints 1, lost 1" in "\n".join(figures_card(f, "Musical"))


def test_only_the_players_own_games_count():
    """A game the solver finished, one loaded with its moves and one played with the coach on
    are counted apart; none of them is a game played, a win or a loss of the player's, nor
    breaks or extends a streak."""
    rows = [_row(1, "won", moves=150, seconds=300), _row(2, "won", moves=120, seconds=5, how="solver"),
            _row(3, "won", moves=110, seconds=0, how="loaded"), _row(4, "lost", how="loaded"),
            _row(5, "won", moves=100, coach=True), _row(6, "won", moves=140, seconds=200, how=None)]
    (f,) = figures(rows)
    assert (f.played, f.won, f.lost, f.solved, f.loaded, f.coached, f.earlier) == (2, 2, 0, 1, 2, 1, 1)
    assert (f.current_streak, f.longest_streak, f.fewest_moves, f.fastest_win) == (2, 2, 140, 200)
    assert f.seconds == 500  # the player's own games' active time


def test_losing_streaks_totals_and_bands():
    results = ["lost", "abandoned", "lost", "won", "lost"]
    rows = [_row(i, r, difficulty=("easy", "hard")[i % 2]) for i, r in enumerate(results, 1)]
    rows.append(_row(9, "won", game="calculation", rules={"piles": "3", "bases": "yes"}))
    calc, musical, total = figures(rows, total=True)  # by name: calculation first
    assert (calc.played, calc.won) == (1, 1)
    assert (musical.longest_losing_streak, musical.current_streak, musical.longest_streak) == (3, 0, 1)
    assert musical.by_difficulty == (("easy", 2, 1), ("hard", 3, 0))
    assert musical.to_json()["by_difficulty"] == {"easy": {"played": 2, "won": 1}, "hard": {"played": 3, "won": 0}}
    assert total.game == "all" and (total.played, total.won, total.lost, total.abandoned) == (6, 2, 3, 1)
    assert figures(rows[:5], total=True)[-1].game == "musical"  # one group: no total row


def test_streaks_follow_the_order_games_were_finished_in():
    # Game 1 was started first but finished last: it ends the streak of games 2 and 3.
    rows = [_row(1, "lost"), _row(2, "won"), _row(3, "won")]
    rows[0] = GameRow(**{**rows[0].__dict__, "last_played": 9999.0})
    (f,) = figures(rows)
    assert (f.current_streak, f.longest_streak) == (0, 2)


def test_nothing_played_has_no_win_rate():
    (f,) = figures([_row(1, "in play")])
    assert (f.played, f.win_rate, f.to_json()["win_percent"]) == (0, None, None)


def test_the_moves_a_player_made_leave_out_the_cards_the_game_turned_by_itself():
    """The store asks the registry which games turn their next card up by themselves: a game
    registered here, which the store cannot know by name, is counted as its auto_turn says."""
    from musical_cli import games

    turner = types.SimpleNamespace(name="toy-turner", aliases=(), auto_turn=True)
    games.register(turner)
    try:
        for game in (*games.GAMES, "no-such-game"):
            row = dataclasses.replace(_row(1, "in play", moves=7, game=game), turns=4, plies=9, turns_ahead=1)
            turned = game in games.GAMES and games.GAMES[game].auto_turn
            assert (row.player_moves, row.player_redo) == ((3, 1) if turned else (7, 2)), game
    finally:
        games.unregister(turner)
    assert "toy-turner" not in games.GAMES


def test_duration():
    assert [duration(s) for s in (0, 59.6, 61, 3600, 3725)] == ["0:00", "1:00", "1:01", "1:00:00", "1:02:05"]


# --- two writers ---------------------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys
    from musical_cli.language import Session, execute
    from musical_cli.deals import DealNumber
    from musical_cli.games.musical.rules import MUSICAL
    from musical_cli.record import Recorder

    session = Session(MUSICAL, DealNumber(int(sys.argv[1])), None, interactive=True)
    recorder = Recorder.open(offer=False)
    warnings = []
    recorder.attach(session, warnings.append)
    print("ready", flush=True)
    sys.stdin.readline()  # both start writing at the same moment
    for _ in range(int(sys.argv[2])):
        execute(session, "d" if session.state.stock else "redeal")
        if not session.state.stock and session.state.redeals_used == 2:
            execute(session, "undo 30")
    recorder.close()
    if recorder.why_not:  # a store that failed at opening warns at the prompt, not through attach
        warnings.append(recorder.why_not)
    print(recorder.game_id, len(session.moves), warnings, flush=True)
""")


def test_two_processes_write_at_once(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("MUSICAL_NO_RECORD", None)
    children = [subprocess.Popen([sys.executable, "-c", WRITER, str(deal), "300"], env=env, cwd=ROOT,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for deal in (1, 2)]
    for child in children:
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    outputs = [child.communicate(timeout=120)[0].split(None, 2) for child in children]
    assert [child.returncode for child in children] == [0, 0]
    s = Store.open(tmp_path / "data" / "musical" / "musical.sqlite3", create=False, readonly=True)
    ids = set()
    for (gid, moves, warnings), deal in zip(outputs, ("1", "2"), strict=True):
        assert warnings.strip() == "[]", f"game {gid}, {moves} moves: {warnings}"
        row = s.game(int(gid))
        ids.add(row.id)
        assert (row.deal, row.moves, row.result) == (deal, int(moves), "in play")
        assert len(s.moves(row.id)) == row.moves
        assert row.owner is None  # each let its game go
    assert len(ids) == 2


def test_the_busy_timeout_is_shorter_than_a_test_would_notice():
    assert 0 < store_module.BUSY_TIMEOUT <= 5



def test_opening_waits_for_another_shell_that_holds_the_file(tmp_path, monkeypatch):
    """Two shells starting at once: the second finds the file locked (the first is creating it)
    for longer than the busy timeout on a loaded machine; opening tries again, and both record."""
    import threading

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.05)
    path = tmp_path / "musical.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")  # a first shell creating the file holds it so
    threading.Timer(0.4, holder.rollback).start()
    s = Store.open(path)  # without the retry: "database is locked" after 0.05 s
    assert s.version == store_module.SCHEMA_VERSION
    s.close()
    holder.close()


def test_reading_a_newer_musicals_file_is_refused_too(path):
    """open_for_reading (the shell's history and stats on a record it cannot write) once fell back
    to reading a newer musical's file as immutable: its columns may mean other things."""
    _database_at(path, SCHEMA_VERSION)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError) as e:
        Store.open_for_reading(path)
    assert e.value.kind == "newer"


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr to make a file read-only for root")
def test_an_older_file_on_a_read_only_disk_says_why_it_cannot_be_listed(path):
    """It cannot be brought up to date there, and the games' list reads newer columns: one clear
    line, not SQLite's "no such column: seconds"."""
    _database_at(path, 1)
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        store = Store.open_for_reading(path)
        with pytest.raises(StoreError, match="written by an older musical .* cannot be brought up to date"):
            store.games()
        store.close()
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)
