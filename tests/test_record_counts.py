"""What the player's record counts: a win is the player's own, no game in hand is ended
without the player's word, the figures where a player looks for them, and a bad record costs one
line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from lines import run_main, winning_line
from test_cli import cli  # main() in this process: (status, stdout, stderr)
from test_record import Played, _read_only, reopen

from musical_cli.commands import CommandError, Declined, Unattended
from musical_cli.deals import DealNumber
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import Session, execute
from musical_cli.record import Recorder
from musical_cli.render import plain
from musical_cli.store import Store


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("MUSICAL_NO_RECORD", raising=False)
    return tmp_path / "data" / "musical" / "musical.sqlite3"


def figures(capsys) -> dict:
    status, out, _ = cli(capsys, "history", "--stats", "--json")
    assert status == 0
    return {f["game"]: f for f in map(json.loads, out.splitlines())}


def test_the_solver_s_win_and_loaded_games_are_not_the_player_s(data, capsys):
    """Deal 1, 'solve play', then 'load @1' twice: nothing is the player's."""
    p = Played(deal=1)
    assert "played" in p("solve play")
    p("load @1")
    p("load @1")
    p.close()
    store = reopen(data)
    assert [(g.id, g.how, g.result) for g in sorted(store.games(), key=lambda g: g.id)] == [
        (1, "solver", "won"), (2, "loaded", "won"), (3, "loaded", "won")]
    store.close()
    f = figures(capsys)["musical"]
    assert (f["played"], f["won"], f["solved"], f["loaded"], f["streak"], f["win_percent"]) == (0, 0, 1, 2, 0, None)
    status, out, _ = cli(capsys, "history", "--stats")
    assert "Not counted as yours: 1 game the solver finished ('solve play'); 2 games loaded" in out


def test_the_solver_s_win_is_said_to_be_the_solver_s(data):
    """'solve play' wins: the message says the solver won, as the record counts it."""
    p = Played(deal=1)
    out = p("solve play") + plain(p.session.layout())  # the shell's layout ends with the win
    assert "The solver won deal 1 in " in out and "('solve play'): not counted as yours." in out
    assert "You won" not in out
    p.close()


@pytest.mark.parametrize("game", [MUSICAL, CRAZY_QUILT], ids=["musical", "crazy-quilt"])
def test_batch_mode_says_the_solver_won(game):
    s = Session(game, DealNumber(1), game.default_rules())
    out = plain(execute(s, "solve play").out)
    assert "The solver won deal 1 in " in out and "You won" not in out
    assert "counts apart" not in out  # batch mode keeps no record


def test_a_solver_s_game_in_play_again_is_the_solver_s_in_part(data):
    """After 'solve play' and 'undo', the record's words hold for a game in play."""
    p = Played(deal=1)
    p("solve play; undo")
    out = p("record")
    assert "\n  in play; " in out
    assert "played in part by the solver ('solve play'): not counted as yours" in out
    assert "finished by the solver" not in out
    out = p("redo") + plain(p.session.layout())  # the player's move ends it: the solver's moves are in it
    assert "is won in 142 moves, some the solver's: not counted as yours." in out and "You won" not in out
    assert "finished by the solver ('solve play')" in p("record")
    p.close()


def test_hints_and_auto_keep_the_game_the_player_s(data, capsys):
    """The game stays the player's (played, not solved), but a win with a hint asked is no win
    of the player's own: played, and won with hints."""
    p = Played(deal=2)
    p("hint; auto")
    p("; ".join(winning_line(2)[len(p.session.moves):]))
    assert p.session.outcome().value == "won" and p.session.how == "player"
    p.close()
    f = figures(capsys)["musical"]
    assert (f["played"], f["won"], f["won_with_hints"], f["solved"]) == (1, 0, 1, 0)


def test_auto_alone_keeps_a_win_the_player_s(data, capsys):
    p = Played(deal=2)
    p("auto")
    p("; ".join(winning_line(2)[len(p.session.moves):]))
    assert p.session.outcome().value == "won"
    p.close()
    f = figures(capsys)["musical"]
    assert (f["played"], f["won"], f["won_with_hints"]) == (1, 1, 0)


def test_a_game_loaded_from_a_transcript_and_finished_is_not_a_win(data, tmp_path, capsys):
    line = winning_line(2)
    path = tmp_path / "half.txt"
    path.write_text("format: musical-transcript 1\ngame: musical\ndeal: 2\nredeals: 2\n"
                    + "\n".join(line[:40]) + "\n")
    p = Played(deal=5)
    p(f"load {path}")
    p("; ".join(line[40:]))
    assert p.session.how == "loaded"
    p("new 9")  # the loaded game was won: nothing to ask
    p("; ".join(["d"] * 3))
    p.close()
    f = figures(capsys)["musical"]
    assert (f["played"], f["won"], f["loaded"], f["in_play"]) == (0, 0, 1, 1)


@pytest.mark.parametrize("command", ["new 4", "restart", "load @1", "resume @1", "new --winnable",
                                     "new --difficulty easy"])
def test_ending_a_game_in_play_asks_and_no_keeps_it(data, command):
    first = Played(deal=3)
    first("d;d")
    first.close()  # game @1, in play, waiting to be resumed
    p = Played(deal=7, offer=False)
    asked: list[str] = []
    p.session.front = Unattended(answer=lambda q: asked.append(q) or False)
    p("d;d;d")
    before = (p.session.deal, list(p.session.moves))
    with pytest.raises(Declined, match="kept deal 7 in hand"):
        p(command)
    assert len(asked) == 1 and "Deal 7 is in play (3 moves)" in asked[0] and asked[0].endswith("[y/N] ")
    assert "counts as abandoned" in asked[0]
    assert (p.session.deal, list(p.session.moves)) == before
    assert p.row().result == "in play"
    p.session.front = Unattended(answer=lambda q: True)
    p(command)
    assert reopen(data).game(2).result == "abandoned"


def test_nothing_is_asked_when_nothing_is_at_stake(data):
    p = Played(deal=3)
    p.session.front = Unattended(answer=lambda q: pytest.fail(f"asked {q!r}"))
    p("new 4")  # no move made: nothing to lose
    p("; ".join(winning_line(4)))
    p("new 5")  # won: nothing to lose either
    p("d; undo")
    asked = []
    p.session.front = Unattended(answer=lambda q: asked.append(q) or True)
    p("new 6")  # undone to its start, with a move to redo: it is still a game in play
    assert len(asked) == 1


def test_batch_mode_never_asks(monkeypatch, capsys):
    status, out, err = run_main(["--seed", "3"], "d\nd\nnew 4\nd\n", monkeypatch, capsys)
    assert status == 1 and "[y/N]" not in out + err and "after 1 move" in out


def test_a_game_undone_to_its_start_is_resumed_with_its_redo_moves(data):
    p = Played(deal=3)
    p("d;d;d;undo 3")
    p.close()
    q = Played(deal=9, offer=True)
    (offer,) = q.recorder.opening_lines()
    assert "deal 3" in offer[0] and "(0 moves, 3 to redo)" in offer[0]
    q("resume")
    assert q.session.deal.text == "3" and q.session.moves == [] and len(q.session.undone) == 3
    q("redo 3")
    assert len(q.session.moves) == 3


def test_the_stats_command(data):
    p = Played(deal=2)
    p("; ".join(winning_line(2)))
    p("new 3; d")
    p.session.front = Unattended(answer=lambda q: True)
    p("new 4; d")  # deal 3 abandoned, with the player's word
    text = p("stats")
    assert text.startswith("Musical: your figures\n")
    assert "played 2: won 1, lost 0, abandoned 1; win rate 50.0%" in text
    assert "winning streak 0 now, 1 at best; longest losing streak 1" in text
    assert f"fewest moves in a win {len(winning_line(2))}" in text
    assert "In play, not counted yet: 1 game" in text
    q = Played(CALCULATION, 1)
    q("w p1")
    assert q("stats").startswith("Calculation: your figures\n  played 0")
    table = q("stats all").splitlines()
    assert table[0].split()[:3] == ["game", "played", "won"]
    assert [row.split()[0] for row in table[1:4]] == ["Calculation", "Musical", "all"]
    assert q("history --stats") == q("stats all")  # as 'musical history --stats' says it
    with pytest.raises(ValueError, match="usage: stats"):
        q("stats everything")


def test_time_played_leaves_out_idle_time(data, monkeypatch):
    from musical_cli import record

    now = [1000.0]
    monkeypatch.setattr(record.time, "monotonic", lambda: now[0])
    p = Played(deal=2)
    for pause in (5, 600, 20, 3600):
        now[0] += pause
        p("d")
    assert p.row().seconds == 5 + 60 + 20 + 60  # a pause counts up to a minute


def test_leaving_with_a_game_in_play_says_how_to_go_on(data):
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from musical_cli.deals import DealNumber
    from musical_cli.language import Session
    from musical_cli.shell import Shell

    printed: list[str] = []
    with create_pipe_input() as pipe:
        session = Session(MUSICAL, DealNumber(3), interactive=True)
        shell = Shell(session, input=pipe, output=DummyOutput(), history=InMemoryHistory(),
                      recorder=Recorder.open(offer=False))
        shell.print = lambda fragments: printed.append("".join(t for _, t in fragments))
        pipe.send_text("d\r")
        pipe.send_text("new 4\r")
        pipe.send_text("\r")  # Enter: the default answer keeps the game
        pipe.send_text("quit\r")
        assert shell.run() == 0
    text = "".join(printed)
    assert "kept deal 3 in hand (1 move)" in text
    assert "Deal 3 is in play: 'musical --resume' goes on with it." in text
    assert reopen(data).game(1).result == "in play"


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr to make a file read-only for root")
def test_resume_on_a_record_that_cannot_be_written_plays_unrecorded(data, capsys):
    """A read-only record (file and directory): --resume plays its game unrecorded, saying so in
    one line, and every reading command still reads it (found by a new-user audit: history and
    stats refused with SQLite's "unable to open database file")."""
    p = Played(deal=3)
    p("d;d")
    p.close()
    how = _read_only(data.parent)
    subprocess.run(["chattr", "+i", str(data)], check=False)
    try:
        q = Played(deal=9, offer=False)
        problem = q.recorder.resume_at_start()
        assert problem is None
        lines = [text for text, _ in q.recorder.opening_lines()]
        # one line, as the man page says (it was two: "cannot be used ... unrecorded", then this)
        assert len(lines) == 1 and "resumed game @1" in lines[0] and "not recorded" in lines[0], lines
        assert q.session.deal.text == "3" and len(q.session.moves) == 2
        assert "read-only" in q("record")  # why, in words: SQLite's were "unable to open database file"
        # the record can be read: the shell's history and stats, and the command line's
        assert re.search(r"^@1 .* 3 .*in play", q("history"), re.M), q("history")
        assert "played" in q("stats all").lower()
        q.close()
        for argv in (["history"], ["history", "--stats"], ["history", "--json"]):
            status, out, err = cli(capsys, *argv)
            assert status == 0 and err == "" and out, (argv, out, err)
    finally:
        subprocess.run(["chattr", "-i", str(data)], check=False)
        if how == "chattr":
            subprocess.run(["chattr", "-i", str(data.parent)], check=True)
        data.parent.chmod(0o755)


def test_resume_with_nothing_to_resume_on_an_unusable_record(data):
    data.parent.mkdir(parents=True)
    data.write_bytes(b"")  # an empty file: a record with nothing in it
    q = Played(deal=9, offer=False)
    assert q.recorder.resume_at_start().startswith("no unfinished game")


def test_rules_names_in_the_tables(data, capsys):
    p = Played(deal=2, rules=MusicalRules(redeals=1))
    p("d")
    p.close()
    status, out, _ = cli(capsys, "history")
    assert "Musical, redeals 1" in out or "Musical with 1 redeal" in out or "Musical 1 redeal" in out
    store = Store.open(data, create=False, readonly=True)
    assert store.games()[0].how == "player"
    store.close()


@pytest.mark.parametrize("n", ["10" + "0" * 23, "9" * 5000, "²", "٣", "0", "-1", "1.5"])
def test_counts_typed_in_the_shell_are_whole_ascii_numbers(data, n):
    p = Played(deal=2)
    p("d;d")
    if n.isascii() and n.isdigit() and n.strip("0"):
        assert p(f"undo {n}") == "undid 2 moves\n" and p(f"redo {n}") == "redid 2 moves\n"
        assert p(f"history {n}").splitlines()[0].split()[0] == "id"
    else:
        for command in ("undo", "redo", "history"):
            with pytest.raises(ValueError, match=rf"usage: {command} \[N\] \(N is a whole number from 1 up\)"):
                p(f"{command} {n}")


def test_the_question_counts_the_players_moves_in_calculation(data):
    p = Played(CALCULATION, deal=5, offer=False)
    p("w p1")  # and the card the shell turned up by itself
    asked: list[str] = []
    p.session.front = Unattended(answer=lambda q: asked.append(q) or False)
    with pytest.raises(Declined, match=r"kept deal 5 in hand \(1 move\)"):
        p("new 6")
    assert "Deal 5 is in play (1 move)" in asked[0]


def test_ending_a_coached_game_says_it_is_counted_apart(data):
    """The question before 'new' once said a coached game "counts as abandoned": it is recorded
    so, but counted apart from the player's own games (new-user audit)."""
    p = Played(deal=7, offer=False)
    asked: list[str] = []
    p.session.front = Unattended(answer=lambda q: asked.append(q) or False)
    p("coach on; d")
    with pytest.raises(Declined):
        p("new 4")
    assert "recorded as abandoned (counted apart from your own games)" in asked[0], asked
    p.session.coach = False
    p.session.mark(coached=False, how="solver")
    with pytest.raises(Declined):
        p("new 4")
    assert "counted apart" in asked[1]
    for both in ("new --winnable --difficulty hard", "new --difficulty --winnable", "new --difficulty hard --winnable"):
        with pytest.raises(CommandError, match="not both"):
            p(both)
