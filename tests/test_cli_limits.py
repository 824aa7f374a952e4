"""Bad numbers are refused as usage errors that name the limit, in every entry point (command
line, batch mode, a transcript's header, the shell), never an internal error: redeals past what
the rules allow, thousands of digits, @ID and --limit past
SQLite's integers, digits that are not ASCII."""

from __future__ import annotations

import pytest
from lines import run_main
from test_cli import cli  # main() in this process: (status, stdout, stderr)

from musical_cli.deals import DealNumber
from musical_cli.game import RulesError
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import CommandError, Session, execute
from musical_cli.record import Recorder

HUGE = "9" * 5000  # past int()'s 4300 digits


@pytest.mark.parametrize("argv, limit", [
    (["solve", "--game", "crazy-quilt", "--redeals", "256", "--seed", "1"], "from 0 to 255; not '256'"),
    (["solve", "--redeals", "2147483648", "--seed", "1"], "from 0 to 255, or 'unlimited'; not '2147483648'"),
    (["stats", "--game", "crazy-quilt", "--redeals", "300", "1"], "from 0 to 255"),
    (["stats", "--redeals", "300", "1"], "from 0 to 255, or 'unlimited'"),
    (["deal", "--game", "crazy-quilt", "--redeals", "256", "1"], "from 0 to 255"),
    (["solve", "--redeals", HUGE, "--seed", "1"], "from 0 to 255"),
    (["solve", "--game", "calculation", "--piles", HUGE, "--seed", "1"], "piles must be 3 or 4"),
])
def test_redeals_past_the_limit_are_a_usage_error_naming_it(capsys, argv, limit):
    status, out, err = cli(capsys, *argv)
    assert status == 2, err
    assert f"musical {argv[0]}: error: " in err and limit in err
    assert "internal error" not in err and "set_int_max_str_digits" not in err


@pytest.mark.parametrize("game", ["musical", "crazy-quilt"])
def test_the_limit_itself_is_played_and_solved(capsys, game):
    status, out, err = cli(capsys, "solve", "--game", game, "--redeals", "255", "--seed", "1", "--nodes", "3000")
    assert status in (0, 1, 4) and "internal error" not in err, err
    assert out


def test_batch_mode_refuses_them_too(capsys, monkeypatch):
    status, _, err = run_main(["--game", "crazy-quilt", "--redeals", "256", "--seed", "1"], "d\n",
                              monkeypatch, capsys)
    assert status == 2 and "redeals must be a whole number from 0 to 255" in err


@pytest.mark.parametrize("game, value", [("crazy-quilt", "256"), ("musical", "2147483648"), ("musical", "9" * 900)])
def test_a_transcript_header_past_the_limit_is_an_invalid_transcript(capsys, tmp_path, game, value):
    path = tmp_path / "t.txt"
    path.write_text(f"format: musical-transcript 1\ngame: {game}\ndeal: 1\nredeals: {value}\nd\n")
    for sub in ("verify", "solve", "replay"):
        status, _, err = cli(capsys, sub, str(path))
        assert status == 3, err
        assert "line 4: redeals must be a whole number from 0 to 255" in err
        assert "internal error" not in err


def test_the_rules_values_refuse_them_whatever_builds_them():
    # (the shell's hint and solve run on a session's rules: no such rules can be made)
    for make in (lambda: CrazyQuiltRules(redeals=256), lambda: MusicalRules(redeals=2**31)):
        with pytest.raises(RulesError, match="from 0 to 255"):
            make()
    assert CrazyQuiltRules(redeals=255).redeals == 255 and MusicalRules(redeals=None).redeals is None


def test_the_shell_loads_no_such_transcript(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("format: musical-transcript 1\ngame: crazy-quilt\ndeal: 1\nredeals: 256\n")
    session = Session(CRAZY_QUILT, DealNumber(1), None, interactive=True)
    with pytest.raises(ValueError, match="from 0 to 255"):
        execute(session, f"load {path}")


# --- @ID and --limit --------------------------------------------------------------------------


@pytest.fixture
def record(tmp_path, monkeypatch):
    """A record holding game 1 (deal 1, one move), played as the shell plays it."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("MUSICAL_NO_RECORD", raising=False)
    session = Session(MUSICAL, DealNumber(1), None, interactive=True)
    recorder = Recorder.open()
    recorder.attach(session, lambda text: None)
    execute(session, "d")
    assert recorder.game_id == 1
    recorder.close()


BAD_IDS = ["@9223372036854775808", "@" + "1" * 5000, "@١", "@²", "@0", "@-1", "@00000000000000000000009223372036854775808"]


@pytest.mark.parametrize("ref", BAD_IDS)
@pytest.mark.parametrize("sub", ["verify", "replay", "solve"])
def test_an_id_that_no_game_can_have_names_no_recorded_game(capsys, record, sub, ref):
    status, out, err = cli(capsys, sub, ref)
    assert status == 2, err
    assert "names no recorded game" in err, err
    assert "internal error" not in err and "set_int_max_str_digits" not in err


def test_a_good_id_with_leading_zeros_still_names_its_game(capsys, record):
    status, out, _ = cli(capsys, "verify", "@00000000000000000000000001")
    assert status == 1 and out.startswith("legal, not won")


@pytest.mark.parametrize("ref", BAD_IDS[:3])
@pytest.mark.parametrize("command", ["load", "resume"])
def test_the_shell_says_so_too(record, command, ref):
    session = Session(MUSICAL, DealNumber(2), None, interactive=True)
    recorder = Recorder.open()
    recorder.attach(session, lambda text: None)
    try:
        with pytest.raises((CommandError, ValueError), match="names no recorded game"):
            execute(session, f"{command} {ref}")
    finally:
        recorder.close()


@pytest.mark.parametrize("limit", ["100000000000000000000000", "9223372036854775808", HUGE])
def test_history_limit_past_sqlites_integers_lists_every_game(capsys, record, limit):
    status, out, err = cli(capsys, "history", "--limit", limit)
    assert status == 0, err
    assert out.split("\n")[1].split()[0] == "@1" and "older" not in out


@pytest.mark.parametrize("limit", ["²", "١", "0", "000"])
def test_history_limit_takes_only_ascii_digits_from_1(capsys, record, limit):
    status, _, err = cli(capsys, "history", "--limit", limit)
    assert status == 2 and f"{limit!r} is not a whole number from 1 up" in err
