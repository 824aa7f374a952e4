"""The record tied to the shell: every change of the game in hand reaches the store at
once, resume rebuilds the undo and redo history, bad conditions cost one line and never the game,
and only the interactive shell writes."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from lines import winning_line
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_cli import cli  # main() in this process: (status, stdout, stderr)

from musical_cli import store as store_module
from musical_cli.commands import Unattended
from musical_cli.deals import DealNumber
from musical_cli.game import IllegalMove, Outcome
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import CommandError, Session, execute
from musical_cli.record import Recorder, rebuild
from musical_cli.render import plain
from musical_cli.shell import Shell
from musical_cli.store import Store

ENTER = "\r"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """XDG_DATA_HOME in a temporary directory; the record's path."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("MUSICAL_NO_RECORD", raising=False)
    return tmp_path / "data" / "musical" / "musical.sqlite3"


class Played:
    """A session with a recorder attached, as the shell makes them."""

    def __init__(self, game=MUSICAL, deal: int = 1, rules=None, path: Path | None = None, offer: bool = True):
        self.session = Session(game, DealNumber(deal), rules, interactive=True)
        self.recorder = Recorder.open(path, offer=offer)
        self.warnings: list[str] = []
        self.recorder.attach(self.session, self.warnings.append)

    def __call__(self, line: str) -> str:
        return plain(execute(self.session, line).out)

    def row(self):
        store = reopen(self.recorder.store.path if self.recorder.store else None)
        try:
            return store.game(self.recorder.game_id)
        finally:
            store.close()

    def close(self) -> None:
        self.recorder.close()


def reopen(path: Path | None = None) -> Store:
    return Store.open(path, create=False, readonly=True)


def history_of(s: Session) -> tuple:
    return (s.game, s.deal, s.rules, tuple(s.moves), tuple(s.steps), tuple(s.undone))


def resumed(path: Path | None = None, game_id: int | None = None) -> Session:
    """A new shell's session, resumed from the record."""
    p = Played(MUSICAL, 3, path=path)
    p("resume" + (f" @{game_id}" if game_id else ""))
    return p.session


# --- what is written -----------------------------------------------------------------------------


def test_no_row_before_the_first_move(data):
    p = Played()
    p("hint")
    p("show; moves")
    assert p.recorder.game_id is None
    assert not data.exists() or reopen(data).count() == 0
    p("d")
    row = p.row()
    assert (row.game, row.deal, row.rules, row.moves, row.result, row.hints) == ("musical", "1", {"redeals": "2"},
                                                                                  1, "in play", 1)
    assert row.owner == store_module.me()
    p.close()
    assert reopen(data).game(row.id).owner is None


def test_every_move_is_in_the_file_when_it_is_made(data):
    p = Played()
    for n in range(1, 6):
        p("d")
        # another connection (another process would see the same): the move is committed
        assert reopen(data).moves(p.recorder.game_id) == ["d"] * n


def test_undo_redo_and_a_new_future(data):
    p = Played()
    p("d;d;d;w f3")
    p("undo 2")
    s = reopen(data)
    gid = p.recorder.game_id
    assert s.moves(gid) == ["d", "d"]
    assert [m for m, _ in s.line(gid)] == ["d", "d", "d", "w f3"]  # kept for redo
    assert s.game(gid).undos == 1
    p("d")  # the same move as the one undone: the redo future goes on
    assert [m for m, _ in s.line(gid)] == ["d", "d", "d", "w f3"]
    p("undo; d; d")  # a different future replaces the old one
    assert [m for m, _ in s.line(gid)] == ["d", "d", "d", "d"] and s.moves(gid) == ["d"] * 4


def test_resume_rebuilds_the_position_and_the_undo_and_redo_history(data):
    p = Played()
    p("d;d;d;w f3;d;d;d")
    p("undo 2")
    before = history_of(p.session)
    p.close()
    s = resumed(data)
    assert history_of(s) == before
    assert s.states == [MUSICAL.opening(DealNumber(1))] + [
        s.states[i] for i in range(1, len(s.states))]
    execute(s, "redo 2")
    execute(s, "undo 5")
    assert [str(m) for m in s.moves] == ["d", "d"]


def test_resume_in_calculation_keeps_a_move_and_its_turned_card_one_step(data):
    p = Played(CALCULATION, 1)
    p("w p1; w p2; w p3")
    assert p.session.steps == [2, 2, 2]
    p("undo")
    before = history_of(p.session)
    p.close()
    s = resumed(data)
    assert s.game is CALCULATION
    assert history_of(s) == before
    execute(s, "undo 2")
    assert [str(m) for m in s.moves] == ["d"]  # the card turned up at the start is no step


def test_resume_says_what_and_the_game_in_hand_is_abandoned(data):
    p = Played(deal=4)
    p("d;d")
    p.close()
    q = Played(deal=5)
    q("d")
    out = q("resume")
    assert "resumed game @1" in out and "deal 4, 2 moves" in out
    s = reopen(data)
    assert s.game(2).result == "abandoned"
    assert s.game(1).owner == store_module.me()
    assert q.session.deal == DealNumber(4) and len(q.session.moves) == 2
    with pytest.raises(CommandError, match="no unfinished game"):
        q("resume")
    with pytest.raises(CommandError, match="is the game in hand"):
        q("resume @1")
    with pytest.raises(CommandError, match="abandoned; 'load @2'"):
        q("resume @2")
    with pytest.raises(CommandError, match="no game @9"):
        q("resume @9")
    with pytest.raises(CommandError, match="names no recorded game"):
        q("resume x")


def test_a_game_held_by_a_running_shell_is_not_offered(data):
    p = Played(deal=4)
    p("d")
    q = Played(deal=5)
    other = Store.open(data)
    other.conn.execute("UPDATE games SET owner = ? WHERE id = 1", (f"{store_module._host()}:1",))
    assert q.recorder.opening_lines() == []  # pid 1 is alive: held
    with pytest.raises(CommandError, match="another musical shell"):
        q("resume @1")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    other.conn.execute("UPDATE games SET owner = ? WHERE id = 1", (f"{store_module._host()}:{dead}",))
    (offer,) = q.recorder.opening_lines()  # a killed shell's game is free
    assert offer[0].startswith("An unfinished game of Musical, deal 4, from ") and "type 'resume' to go on" in offer[0]


def test_new_restart_and_load_end_the_game_in_hand(data, tmp_path):
    p = Played(deal=2)
    p("; ".join(winning_line(2)))
    assert p.session.outcome() is Outcome.WON
    p("new 3")
    p("d")
    p("restart")
    p("d")
    saved = tmp_path / "g.txt"
    p(f"save {saved}")
    p(f"load {saved}")  # a loaded game is in hand at once, a new one
    s = reopen(data)
    assert [(g.id, g.result, g.moves) for g in s.games()][::-1] == [
        (1, "won", len(winning_line(2))), (2, "abandoned", 1), (3, "abandoned", 1), (4, "in play", 1)]
    assert s.game(1).verdict == "won"  # a win proves the deal


def test_a_lost_game_stays_lost_and_undo_brings_it_back_into_play(data):
    p = Played(deal=1, rules=MusicalRules(0))
    while p.session.outcome() is Outcome.IN_PLAY:
        p(str(MUSICAL.legal_moves(p.session.state)[0]))
    assert p.row().result == "lost"
    p("undo")
    assert p.row().result == "in play"
    p("redo")
    p("new 5")
    assert reopen(data).game(1).result == "lost"


def test_the_solver_verdict_is_kept(data):
    p = Played(deal=1)
    p("d")
    p("hint")  # proves a position of this deal winnable: the deal can be won
    assert p.row().verdict == "won"
    assert "proven the deal can be won" in p("record")


def test_load_at_id(data):
    p = Played(deal=6)
    p("d;d;d")
    p("new 7")
    out = p("load @1")
    assert "loaded deal 6, 3 moves, from game @1" in out
    assert [str(m) for m in p.session.moves] == ["d", "d", "d"] and p.recorder.game_id == 2  # 'new 7' made no move
    with pytest.raises(CommandError, match="no game @42"):
        p("load @42")


def test_history_and_record_in_the_shell(data):
    p = Played(deal=8)
    assert "recorded from its first move" in p("record")
    assert p("history") == "no game recorded yet\n"
    p("d;d;u;hint")
    text = p("record")
    assert "game @1: Musical, deal 8" in text and "played by you" in text
    assert "in play; 1 move, 1 undo, 1 hint" in text
    for n in range(12):
        p(f"new {n + 20}; d")
    lines = p("history").splitlines()
    assert lines[0].split() == ["id", "date", "game", "deal", "by", "result", "moves"]
    assert lines[1].split()[0] == "@13" and len(lines) == 12
    assert "3 older" in lines[-1]
    assert len(p("history 20").splitlines()) == 14
    with pytest.raises(CommandError, match="usage: history"):
        p("history 0")


def test_batch_mode_has_no_record(data):
    s = Session(MUSICAL, DealNumber(1), None)
    with pytest.raises(CommandError, match="only the interactive shell"):
        execute(s, "history")
    with pytest.raises(CommandError, match="only the interactive shell"):
        execute(s, "resume")


# --- the opt-out ---------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_record(data, monkeypatch, how):
    if how == "env":
        monkeypatch.setenv("MUSICAL_NO_RECORD", "1")
    recorder = Recorder.open(no_record=how == "flag")
    s = Session(MUSICAL, DealNumber(1), None, interactive=True)
    warnings: list[str] = []
    recorder.attach(s, warnings.append)
    assert recorder.opening_lines() == [] and warnings == []
    execute(s, "d;d;hint;undo")
    assert not data.parent.exists()
    reason = "--no-record" if how == "flag" else "MUSICAL_NO_RECORD"
    assert f"not recorded: this shell does not record ({reason})" in plain(execute(s, "record").out)


def test_musical_no_record_0_still_records(data, monkeypatch):
    monkeypatch.setenv("MUSICAL_NO_RECORD", "0")
    assert Recorder.open().store is not None


# --- bad conditions ------------------------------------------------------------------------------


def test_a_damaged_file_is_kept_aside_and_a_new_record_keeps_the_game(data):
    data.parent.mkdir(parents=True)
    junk = os.urandom(8192)
    data.write_bytes(junk)
    p = Played()
    (warning,) = p.recorder.opening_lines()
    assert "is damaged" in warning[0] and "it is kept as" in warning[0] and "a new record is started" in warning[0]
    aside = [f for f in data.parent.iterdir() if f.name.startswith("musical.sqlite3.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == junk
    p("d;d;d")  # play goes on, and this game is recorded (it once went unrecorded)
    assert len(p.session.moves) == 3 and p.recorder.why_not is None
    p.close()
    assert reopen(data).count() == 1 and aside[0].read_bytes() == junk
    q = Played()  # the next shell finds the game there
    q("d")
    assert reopen(data).count() >= 1 and len(list(data.parent.glob("musical.sqlite3.corrupt-*"))) == 1


def test_a_damaged_file_that_cannot_be_replaced_leaves_play_unrecorded(data, monkeypatch):
    from musical_cli import record

    data.parent.mkdir(parents=True)
    data.write_bytes(os.urandom(8192))
    real = record.Store.open
    calls = []

    def open_twice(path=None, *args, **kwargs):
        calls.append(path)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(record.Store, "open", open_twice)
    p = Played()
    (warning,) = p.recorder.opening_lines()
    assert "it is kept as" in warning[0] and warning[0].endswith("play goes on unrecorded") and len(calls) == 2
    p("d")
    assert len(p.session.moves) == 1 and p.recorder.store is None


def test_a_file_damaged_during_play_is_kept_aside(data):
    p = Played()
    p("d")
    os.truncate(data, 0)  # what the disk loses under the shell's feet
    Path(f"{data}-wal").write_bytes(b"\x00" * 100)
    p.recorder.store.conn.close()
    p.recorder.store.conn = sqlite3.connect(data, isolation_level=None)  # what a fresh open would find
    data.write_bytes(os.urandom(4096))
    p("d")
    assert len(p.warnings) == 1 and "damaged" in p.warnings[0] and "kept as" in p.warnings[0]
    p("d")  # one line only, then silence
    assert len(p.warnings) == 1 and len(p.session.moves) == 3


def test_a_newer_file_is_left_untouched_and_play_goes_on(data):
    Store.open(data).close()
    conn = sqlite3.connect(data)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = data.read_bytes()
    p = Played()
    (warning,) = p.recorder.opening_lines()
    assert "newer musical" in warning[0] and "untouched" in warning[0]
    p("d;d")
    p.close()
    assert data.read_bytes() == before


def test_a_full_disk_costs_one_line(data):
    p = Played()
    p("d")
    conn = p.recorder.store.conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # no room for one more page, as on a full disk
    other = p.recorder.store.new_game("musical", {}, "2")
    with pytest.raises(sqlite3.OperationalError, match="full"):  # fill the pages there are
        for ply in range(100_000):
            conn.execute("INSERT INTO moves VALUES (?, ?, 'd', 0)", (other, ply))
    for _ in range(20):
        p("d")
    assert len(p.warnings) == 1
    assert "full" in p.warnings[0] and "play goes on unrecorded" in p.warnings[0]
    assert len(p.session.moves) == 21


def test_a_lock_held_too_long_costs_one_line(data, monkeypatch):
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.05)
    p = Played()
    p("d")
    p.recorder.store.conn.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(data, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer that never lets go
    p("d;d")
    other.execute("ROLLBACK")
    assert len(p.warnings) == 1 and "locked" in p.warnings[0] and "unrecorded" in p.warnings[0]
    assert len(p.session.moves) == 3
    assert reopen(data).moves(1) == ["d"]


def test_a_failure_as_a_game_ends_costs_one_line_too(data, monkeypatch):
    p = Played()
    p("d")
    p.recorder.store.conn.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(data, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    p("new 5; d; d")  # ending game 1 finds the file locked
    other.execute("ROLLBACK")
    assert len(p.warnings) == 1 and "locked" in p.warnings[0]
    assert p.session.deal == DealNumber(5) and len(p.session.moves) == 2


def test_a_data_directory_that_cannot_be_made(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "file"))
    p = Played()
    (warning,) = p.recorder.opening_lines()
    assert "cannot make" in warning[0] and "unrecorded" in warning[0]
    p("d;d")
    assert "not recorded" in p("record")


def _read_only(directory: Path) -> str:
    """Make a directory unwritable even for root when we can; how, or skip."""
    directory.chmod(0o555)
    try:
        (directory / ".probe").touch()
    except OSError:
        return "chmod"
    (directory / ".probe").unlink()
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(directory)],
                                                 capture_output=True).returncode == 0:
        return "chattr"
    pytest.skip("running as root on a file system without chattr +i: cannot make a directory read-only")


@pytest.mark.parametrize("existing", [False, True])
def test_a_read_only_data_directory(data, existing):
    directory = data.parent
    directory.mkdir(parents=True)
    if existing:
        Store.open(data).close()
        before = data.read_bytes()
    how = _read_only(directory)
    try:
        p = Played()
        lines = p.recorder.opening_lines()
        p("d;d;d")
        lines += [(w, "bad") for w in p.warnings]
        assert len(lines) == 1, lines
        assert "unrecorded" in lines[0][0]
        assert len(p.session.moves) == 3
        p.close()
        if existing:
            assert data.read_bytes() == before
        else:
            assert not data.exists()
    finally:
        if how == "chattr":
            subprocess.run(["chattr", "-i", str(directory)], check=True)
        directory.chmod(0o755)


def test_no_home_at_all(monkeypatch, capsys):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))  # no entry
    p = Played()
    (warning,) = p.recorder.opening_lines()
    assert "no home" in warning[0] and "set XDG_DATA_HOME" in warning[0] and "unrecorded" in warning[0]
    p("d")
    for argv in (["history"], ["verify", "@1"]):
        status, out, err = cli(capsys, *argv)
        assert status == 2 and out == "" and "set XDG_DATA_HOME" in err and len(err.splitlines()) == 1


# --- the shell -----------------------------------------------------------------------------------


def run_shell(keys: str, session: Session, recorder: Recorder) -> str:
    printed: list = []
    with create_pipe_input() as pipe:
        shell = Shell(session, input=pipe, output=DummyOutput(), history=InMemoryHistory(), recorder=recorder)
        shell.print = printed.append
        pipe.send_text(keys)
        assert shell.run() == 0
    return "".join(plain(f) for f in printed)


def test_the_shell_offers_the_unfinished_game_and_resumes_it(data):
    s = Session(MUSICAL, DealNumber(11), None, interactive=True)
    run_shell("d;d;d" + ENTER + "quit" + ENTER, s, Recorder.open())
    assert reopen(data).game(1).owner is None  # the shell let it go when it left
    s2 = Session(MUSICAL, DealNumber(12), None, interactive=True)
    text = run_shell("resume" + ENTER + "undo" + ENTER + "quit" + ENTER, s2, Recorder.open())
    assert "An unfinished game of Musical, deal 11, from " in text and "(3 moves): type 'resume' to go on" in text
    assert "resumed game @1: deal 11, 3 moves" in text
    assert s2.deal == DealNumber(11) and len(s2.moves) == 2
    assert reopen(data).game(1).moves == 2
    s3 = Session(MUSICAL, DealNumber(13), None, interactive=True)
    text = run_shell("quit" + ENTER, s3, Recorder.open(offer=False))  # --seed given: no offer
    assert "unfinished" not in text


def test_the_shell_prints_a_warning_once(data, monkeypatch):
    data.parent.mkdir(parents=True)
    data.write_bytes(b"x" * 5000)
    s = Session(MUSICAL, DealNumber(11), None, interactive=True)
    text = run_shell("d" + ENTER + "record" + ENTER + "quit" + ENTER, s, Recorder.open())
    # said once; 'record' then shows the game kept in the new record (it once said why not)
    assert text.count("damaged") == 1 and "a new record is started" in " ".join(text.split())
    assert len(s.moves) == 1 and "Deal 11 is in play" in text


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture
def played(data):
    """A hand-made record: deal 2 won, deal 1 left in play, deal 3 abandoned, a Calculation game."""
    p = Played(deal=2)
    p("; ".join(winning_line(2)))
    p("new 3; d")
    p("new 1; d; d; d; w f3")
    p.close()
    q = Played(CALCULATION, 1)
    q("w p1")
    q.close()
    return data


def test_musical_history(capsys, played):
    status, out, err = cli(capsys, "history")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["id", "date", "game", "deal", "by", "result", "moves"]
    assert [line.split()[0] for line in lines[1:]] == ["@4", "@3", "@2", "@1"]
    assert lines[1].split()[3:] == ["Calculation", "1", "you", "in", "play", "1"]  # w p1: the shell turned the cards
    assert lines[4].split()[3:] == ["Musical", "2", "you", "won", str(len(winning_line(2)))]
    assert max(map(len, lines)) < 80
    status, out, _ = cli(capsys, "history", "--game", "musical", "--limit", "2")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["@3", "@2", "(1"]
    assert cli(capsys, "history", "--game", "musical", "2")[1] == out  # N alone, as in the shell
    status, _, err = cli(capsys, "history", "2", "--limit", "3")
    assert status == 2 and "not both" in err
    status, out, _ = cli(capsys, "history", "--json")
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["id"] for g in games] == [4, 3, 2, 1]
    assert games[3]["result"] == "won" and games[3]["deal"] == 2 and games[3]["rules"] == {"redeals": "2"}
    assert games[2]["result"] == "abandoned" and games[1]["result"] == "in play"
    assert set(games[0]) == {"id", "game", "variant", "deal", "rules", "started", "last_played", "result", "moves",
                             "undos", "hints", "seconds", "verdict", "played_by", "coach", "difficulty"}
    assert (games[0]["variant"], games[0]["played_by"], games[0]["coach"]) == ("Calculation", "player", False)


def test_musical_history_stats(capsys, played):
    status, out, _ = cli(capsys, "history", "--stats")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["game", "played", "won", "lost", "aband", "win", "%", "streak", "best", "losing",
                                "moves"]  # fastest and time on a wider terminal
    assert max(map(len, lines)) < 80
    musical = next(line for line in lines if line.startswith("Musical"))
    # deal 2 won, deal 3 abandoned (with the player's word: no one asks in this test), deal 1 in play
    assert musical.split()[1:10] == ["2", "1", "0", "1", "50", "0", "1", "1", str(len(winning_line(2)))]
    assert next(line for line in lines if line.startswith("all games")).split()[2:6] == ["2", "1", "0", "1"]
    assert "In play, not counted yet: 2 games" in out
    status, out, _ = cli(capsys, "history", "--stats", "--json")
    figures = {f["game"]: f for f in map(json.loads, out.splitlines())}
    assert set(figures) == {"musical", "calculation", "all"}
    assert figures["musical"] == {**figures["musical"], "variant": "Musical", "played": 2, "won": 1, "lost": 0,
                                  "abandoned": 1, "solved": 0, "win_percent": 50.0, "streak": 0,
                                  "longest_streak": 1, "longest_losing_streak": 1,
                                  "fewest_moves": len(winning_line(2)), "in_play": 1}
    assert figures["calculation"]["played"] == 0 and figures["calculation"]["win_percent"] is None


def test_the_figures_fit_the_width_and_show_more_when_wider(played):
    from musical_cli.record import figures_table, history_table

    store = Store.open(played, create=False, readonly=True)
    rows = store.games()
    store.close()
    for width in (72, 80, 100, 140):  # 72: the narrowest the figures' ten columns fit
        for lines in (figures_table(rows, width), history_table(rows, width)):
            assert max(map(len, lines)) < width, (width, lines)
    assert figures_table(rows, 140)[0].split()[-2:] == ["fastest", "time"]


def test_the_tables_name_every_rule_set_whole_and_alike(tmp_path):
    """At 80 columns a long name wraps before its phrases, under its row: never cut ('~'), never
    shortened ("Musical 1 redeal"), the same words in 'history' and 'history --stats'."""
    from musical_cli.record import figures_table, history_table

    store = Store.open(tmp_path / "record.sqlite3")
    variants = [("musical", {"redeals": "1"}), ("calculation", {"piles": "3", "bases": "yes"}),
                ("calculation", {"piles": "3", "bases": "no"}), ("crazy-quilt", {"redeals": "3", "wrap": "yes",
                                                                                 "reserves": "no"})]
    for game, rules in variants:
        game_id = store.new_game(game, rules, "928750127")
        store.save(game_id, keep=0, append=[("d", 0)], moves=1, result="won", seconds=3725)
    rows = store.games()
    store.close()
    names = ["Musical with 1 redeal", "Calculation with 3 piles", "Calculation with 3 piles and no bases",
             "Crazy Quilt with 3 redeals and wrap"]
    for lines in (figures_table(rows, 80), history_table(rows, 80)):
        assert max(map(len, lines)) < 80, lines
        assert "~" not in "\n".join(lines)
        col = lines[0].index("game")
        shown: list[str] = []  # each row's name, its lines joined
        for text in lines[1:]:
            if not text[:col].strip() and text.startswith("  ", col):
                shown[-1] += " " + text[col:].strip()
            elif text:
                shown.append(text[col:].split("  ")[0])
        assert set(names) <= set(shown), lines
    figures = figures_table(rows, 80)
    musical = figures.index(next(t for t in figures if t.startswith("Musical")))
    assert figures[musical + 1] == "  with 1 redeal"  # broken before a phrase, not inside one


def test_musical_history_export(capsys, played, tmp_path):
    status, out, _ = cli(capsys, "history", "--export", str(tmp_path / "out"))
    assert status == 0 and out == f"exported 4 games to {tmp_path / 'out'}\n"
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["calculation-4-deal-1.txt", "musical-1-deal-2.txt", "musical-2-deal-3.txt",
                     "musical-3-deal-1.txt"]
    status, out, _ = cli(capsys, "verify", str(tmp_path / "out" / "musical-1-deal-2.txt"))
    assert status == 0 and out == f"won in {len(winning_line(2))} moves\n"
    status, out, _ = cli(capsys, "verify", str(tmp_path / "out" / "musical-3-deal-1.txt"))
    assert status == 1


def test_reading_commands_take_at_id_and_never_write(capsys, played):
    # (SQLite's readers of a WAL file may leave its empty -wal and -shm companions behind.)
    before = played.read_bytes()
    status, out, _ = cli(capsys, "verify", "@1")
    assert status == 0 and out == f"won in {len(winning_line(2))} moves\n"
    status, out, _ = cli(capsys, "replay", "@3")
    assert status == 1 and "4. w f3" in out
    status, out, _ = cli(capsys, "solve", "@3", "--nodes", "200000")  # (won in a few hundred)
    assert status == 0 and out.startswith("format: musical-transcript 1\n")
    status, out, _ = cli(capsys, "verify", "--json", "@4")
    assert status == 1 and json.loads(out)["moves"] == 3  # d, w p1, and the d the shell played by itself
    status, _, err = cli(capsys, "verify", "@99")
    assert status == 2 and "no game @99" in err
    status, _, err = cli(capsys, "replay", "@x")
    assert status == 2 and "names no recorded game" in err
    assert played.read_bytes() == before
    assert not Path(f"{played}-wal").exists() or Path(f"{played}-wal").stat().st_size == 0


def test_history_with_no_record_yet(capsys, data):
    status, out, _ = cli(capsys, "history")
    assert (status, out) == (0, "no game recorded yet\n")
    assert not data.exists()


def test_history_of_a_damaged_record_says_so_and_leaves_it(capsys, data):
    data.parent.mkdir(parents=True)
    data.write_bytes(b"y" * 5000)
    status, _, err = cli(capsys, "history", "--stats")
    assert status == 2 and "damaged" in err and data.read_bytes() == b"y" * 5000


def test_batch_mode_and_the_other_subcommands_never_write(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MUSICAL_NO_RECORD"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    for args, stdin in ((["--seed", "1"], "d;d;hint;undo\n"), (["deal", "1"], ""), (["solve", "--seed", "2"], ""),
                        (["stats", "--workers", "1", "1-2"], ""), (["history"], "")):
        result = subprocess.run([sys.executable, "-m", "musical_cli", *args], input=stdin, capture_output=True,
                                text=True, env=env, timeout=120)
        assert result.returncode in (0, 1), result.stderr
    assert not (tmp_path / "data").exists()


def test_resume_on_the_command_line_needs_the_shell(capsys, data):
    status, _, err = cli(capsys, "--resume")  # standard input is no terminal under pytest
    assert status == 2 and "--resume is for the interactive shell" in err


# --- a property: the store always holds the game in hand ---------------------------------------


class RecordMachine(RuleBasedStateMachine):
    """Random play, undo, redo, new and restart; after each, what the store holds rebuilds the
    session: the same moves, undo steps and redo future."""

    @initialize(calculation=st.booleans())
    def start(self, calculation):
        self.dir = tempfile.mkdtemp(prefix="musical-record-")
        self.path = Path(self.dir) / "musical.sqlite3"
        game = CALCULATION if calculation else MUSICAL
        self.session = Session(game, DealNumber(3), None, interactive=True)
        self.recorder = Recorder(Store.open(self.path), offer=False)
        self.warnings: list[str] = []
        self.recorder.attach(self.session, self.warnings.append)

    def teardown(self):
        if hasattr(self, "recorder"):
            self.recorder.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    @rule(data=st.data())
    def move(self, data):
        legal = self.session.game.legal_moves(self.session.state)
        if legal:
            self.session.play(data.draw(st.sampled_from(legal)))

    @rule(n=st.integers(1, 4))
    def undo(self, n):
        try:
            execute(self.session, f"undo {n}")
        except CommandError:
            pass

    @rule(n=st.integers(1, 4))
    def redo(self, n):
        try:
            execute(self.session, f"redo {n}")
        except CommandError:
            pass

    @rule(command=st.sampled_from(["new 4", "restart"]))
    def start_again(self, command):
        execute(self.session, command)

    @invariant()
    def the_store_holds_the_game(self):
        assert self.warnings == []
        gid = self.recorder.game_id
        if gid is None:
            assert not (self.session.steps or self.session.undone)
            return
        store = Store.open(self.path, create=False, readonly=True)
        row, line = store.game(gid), store.line(gid)
        store.close()
        game, deal, rules, moves, steps, undone = rebuild(row, line)
        s = self.session
        assert (game, deal, rules, moves, steps, undone) == (s.game, s.deal, s.rules, s.moves, s.steps, s.undone)
        assert row.result == {Outcome.IN_PLAY: "in play", Outcome.WON: "won", Outcome.LOST: "lost"}[s.outcome()]


RecordMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                           suppress_health_check=[HealthCheck.too_slow])
TestRecordMachine = RecordMachine.TestCase


def test_an_illegal_stored_move_is_refused_on_resume(data):
    p = Played(deal=1)
    p("d;d")
    p.close()
    conn = sqlite3.connect(data)
    conn.execute("UPDATE moves SET move = 'w f2' WHERE ply = 1")
    conn.commit()
    conn.close()
    q = Played(deal=5)
    with pytest.raises(CommandError, match="cannot be resumed: move 2: w f2: foundation 2 needs a 6"):
        q("resume")
    q.session.ascii = True
    with pytest.raises(CommandError, match="the waste shows JD; legal now: d$"):
        q("resume")
    assert q.session.deal == DealNumber(5)
    assert reopen(data).game(1).owner is None  # let go again


def test_an_illegal_move_is_still_refused_with_a_recorder(data):
    p = Played()
    with pytest.raises(IllegalMove):
        p("w f2")
    assert p.recorder.game_id is None


def test_resume_completes_the_games_that_can_be_resumed(data):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from musical_cli.shell import ShellCompleter

    for deal in (4, 5):
        p = Played(deal=deal)
        p("d")
        p.close()
    q = Played(deal=6)
    q("d")
    completer = ShellCompleter(q.session)
    words = [c.text for c in completer.get_completions(Document("resume "), CompleteEvent(completion_requested=True))]
    assert words == ["@2", "@1"]  # played last first; not the game in hand
    words = [c.text for c in completer.get_completions(Document("resume @1"), CompleteEvent(completion_requested=True))]
    assert words == ["@1"]


@pytest.mark.parametrize(("argv", "why"), [
    (["--resume", "--seed", "3"], "give no --seed, --game or rule option"),
    (["--resume", "--redeals", "1"], "give no --seed, --game or rule option"),
    (["--resume", "--no-record"], "--no-record keeps no record"),
])
def test_resume_on_the_command_line_is_alone(capsys, data, monkeypatch, argv, why):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())  # refused before any shell starts
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # both ends a terminal: the shell's case
    status, _, err = cli(capsys, *argv)
    assert status == 2 and why in err


# --- each game's rating (the difficulty, for stats' win rate per band) ------------------------


def test_a_rating_found_beside_the_game_is_written_with_the_next_change_or_at_the_end(data):
    p = Played(deal=5)
    p("d")
    key = (MUSICAL.name, p.session.rules, p.session.deal)
    assert p.row().difficulty is None
    p.recorder.rated(key, "hard")  # as the rater's thread hands it over
    p.recorder.rated((MUSICAL.name, p.session.rules, DealNumber(6)), "easy")  # another deal's: not this game's
    p("d")
    assert p.row().difficulty == "hard"
    p.session.front = Unattended(answer=lambda q: True)
    p("new 6")
    p("d")
    assert p.row().difficulty == "easy"  # known before its first move
    p("new 7")  # deal 6 ends; 7 is rated after its last change
    p("d")
    p.recorder.rated((MUSICAL.name, p.session.rules, DealNumber(7)), "medium")
    p("new 8")
    assert reopen(data).game(3).difficulty == "medium"  # written as the game ended
    p("d")
    p.recorder.rated((MUSICAL.name, p.session.rules, DealNumber(8)), "lost")
    p.close()
    assert reopen(data).game(4).difficulty == "lost"  # written as the shell left


def test_the_shell_rates_every_game_played_for_the_record(data, monkeypatch):
    from musical_cli import live
    from musical_cli.advice import rating

    update = live.Rater.update

    def update_and_wait(self, session):  # the rating is a few milliseconds: let it end first
        update(self, session)
        self.wait(60)

    monkeypatch.setattr(live.Rater, "update", update_and_wait)
    s = Session(MUSICAL, DealNumber(5), None, interactive=True)
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory(), recorder=Recorder.open())
        shell.print = lambda fragments: None
        pipe.send_text("d" + ENTER + "new 9" + ENTER + "y" + ENTER + "d" + ENTER + "quit" + ENTER)  # y: end deal 5
        assert shell.run() == 0
    for game_id, deal in ((1, 5), (2, 9)):
        want = rating(MUSICAL, s.rules, MUSICAL.opening(DealNumber(deal)))
        assert want in ("easy", "medium", "hard") and reopen(data).game(game_id).difficulty == want


def test_a_deal_without_bands_is_not_rated(data):
    s = Session(MUSICAL, DealNumber(5), MusicalRules(None), interactive=True)
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory(), recorder=Recorder.open())
        shell.print = lambda fragments: None
        pipe.send_text("d" + ENTER + "quit" + ENTER)
        assert shell.run() == 0
        assert shell.rater._thread is None
    assert reopen(data).game(1).difficulty is None


def test_calculation_counts_the_players_moves_as_the_status_line_does(data, capsys):
    """The shell turns Calculation's next card up by itself: the record keeps those 'd' moves in
    the line (a transcript has them), but the moves shown and counted are the player's."""
    p = Played(CALCULATION, 1)
    p("w p1; w p2; w p3")
    assert p.session.move_count == 3 and len(p.session.moves) == 7  # the opening turn, 3 x (placement, d)
    row = p.row()
    assert (row.moves, row.turns, row.player_moves) == (7, 4, 3)
    p.close()
    status, out, _ = cli(capsys, "history")
    assert status == 0 and re.search(r"@1 .* Calculation .* in play +3$", out, re.M)
    status, out, _ = cli(capsys, "history", "--json")
    assert json.loads(out.splitlines()[0])["moves"] == 3
    q = Played(MUSICAL, 2)
    ((offer, _),) = q.recorder.opening_lines()
    assert "Calculation, deal 1" in offer and "(3 moves)" in offer
    assert q("resume").startswith("resumed game @1: deal 1, 3 moves,")


def test_the_rating_of_a_game_in_play_is_not_shown(data, capsys):
    """It would give the game away (and Calculation's reads the hidden stock): history --json
    gives it once the game is over."""
    p = Played(CALCULATION, deal=1)
    p("w p1")
    p.recorder.rated((CALCULATION.name, p.session.rules, p.session.deal), "hard")
    p("w p2")
    assert p.row().difficulty == "hard"  # kept
    p.close()
    status, out, _ = cli(capsys, "history", "--json")
    assert status == 0 and json.loads(out)["result"] == "in play" and json.loads(out)["difficulty"] is None
    q = Played(MUSICAL, deal=4)
    q.session.front = Unattended(answer=lambda question: True)
    q("resume @1")
    q("new 5")  # game @1 abandoned: over
    q.close()
    status, out, _ = cli(capsys, "history", "--json", "--game", "calculation")
    assert json.loads(out)["result"] == "abandoned" and json.loads(out)["difficulty"] == "hard"


def test_a_deal_chosen_by_its_rating_and_played_again_keeps_it(data, monkeypatch):
    from musical_cli import deals

    class Seven:
        @staticmethod
        def randbelow(n):
            return 6

    monkeypatch.setattr(deals, "secrets", Seven)
    s = Session(MUSICAL, DealNumber(1), None, interactive=True)
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory(), recorder=Recorder.open())
        shell.print = lambda fragments: None
        pipe.send_text("new --difficulty easy" + ENTER + "d" + ENTER + "restart" + ENTER + "y" + ENTER + "d" + ENTER
                       + "quit" + ENTER)
        assert shell.run() == 0
    store = reopen(data)
    assert [(g.deal, g.difficulty) for g in store.games()] == [(s.deal.text, "easy")] * 2


def test_calculation_redo_counts_the_players_moves(data, capsys):
    p = Played(CALCULATION, deal=1)
    p("w p1; w p2; undo 2")
    row = p.row()
    assert (row.player_moves, row.player_redo) == (0, 2)
    p.close()
    status, out, _ = cli(capsys, "history")
    assert re.search(r"@1 .* Calculation .* in play +0 \(\+2\)$", out, re.M)
    q = Played(MUSICAL, deal=2)
    ((offer, _),) = q.recorder.opening_lines()
    assert "(0 moves, 2 to redo)" in offer


def test_no_rating_is_searched_for_without_a_record(data, monkeypatch):
    monkeypatch.setenv("MUSICAL_NO_RECORD", "1")
    s = Session(MUSICAL, DealNumber(5), None, interactive=True)
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory(), recorder=Recorder.open())
        shell.print = lambda fragments: None
        pipe.send_text("d" + ENTER + "quit" + ENTER)
        assert shell.run() == 0
        assert shell.recorder.store is None and shell.rater._thread is None


def test_the_rating_gives_way_while_the_shell_is_busy(data):
    """Its search waits at its progress reports while a command runs or the coach thinks, and
    counts the same nodes."""
    import threading

    from musical_cli import live
    from musical_cli.advice import rating

    busy = threading.Event()
    busy.set()
    found = []
    rater = live.Rater(lambda key, got: found.append(got), busy=busy.is_set)
    s = Session(CALCULATION, DealNumber(3), None, interactive=True)  # 496 nodes; a progress report at 256
    rater.update(s)
    rater.wait(0.5)
    assert found == [] and rater._thread.is_alive()
    busy.clear()
    rater.wait(60)
    assert found == [rating(CALCULATION, s.rules, s.states[0])]


def test_a_rating_is_a_verdict_once_the_game_is_over(data):
    """A deal rated easy, medium or hard was won by the solver; 'record' and history --json once
    said "not decided" (verdict null) beside a rating of medium (found by a new-user audit). In
    play neither tells: the rating would give the game away."""
    from musical_cli.games.calculation.rules import CALCULATION

    p = Played(game=CALCULATION, deal=7)
    p.recorder.rated((CALCULATION.name, p.session.rules, p.session.deal), "medium")
    p("w p1")
    assert "has not decided" in p("record") and "medium" not in p("record")
    assert p.row().to_json()["verdict"] is None and p.row().to_json()["difficulty"] is None
    p("; ".join(["w p1"] * 47))  # the pile takes every card: lost
    assert p.session.outcome() is Outcome.LOST
    assert "the solver has proven the deal can be won (rated medium)" in p("record")
    assert p.row().to_json()["verdict"] == "won" and p.row().to_json()["difficulty"] == "medium"
    row = p.row()
    for rating, verdict in (("easy", "won"), ("hard", "won"), ("lost", "lost"), ("unknown", None), (None, None)):
        assert replace(row, verdict=None, difficulty=rating).deal_verdict == verdict
    assert replace(row, verdict="won", difficulty="lost", result="in play").deal_verdict == "won"  # asked in play
