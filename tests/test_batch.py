"""Batch mode, the contract scripts rely on (issue 3): commands from a pipe, every exit status,
``line N:`` on standard error, plain output. Both through :func:`run_batch` and through the real
program as a subprocess."""

from __future__ import annotations

import io
import itertools
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lines import winning_line

from musical_cli.batch import (
    EXIT_INVALID,
    EXIT_NOT_WON,
    EXIT_USAGE,
    EXIT_WON,
    Given,
    UsageConflict,
    run_batch,
)
from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import Session
from musical_cli.render import plain

HEADER = "format: musical-transcript 1\ngame: musical\ndeal: {deal}\nredeals: {redeals}\n"


def batch(text: str, deal: int = 1, redeals: int | None = 2, ascii: bool = False,
          given: Given | None = None) -> tuple[int, str, str, Session]:
    s = Session(MUSICAL, DealNumber(deal), MusicalRules(redeals), ascii=ascii)
    out, err = io.StringIO(), io.StringIO()
    status = run_batch(io.StringIO(text), s, out, err, given)
    return status, out.getvalue(), err.getvalue(), s


def musical(*args: str, input: str = "", env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """The real program on pipes."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MUSICAL_DEBUG")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "musical_cli", *args], input=input, capture_output=True,
                          text=True, encoding="utf-8", env=full_env, cwd=cwd, timeout=60)


def test_exit_statuses_are_the_documented_numbers():
    assert (EXIT_WON, EXIT_NOT_WON, EXIT_USAGE, EXIT_INVALID) == (0, 1, 2, 3)


# --- run_batch in process ------------------------------------------------------------------


def test_won_is_0():
    status, out, err, s = batch("\n".join(winning_line(2)) + "\n", deal=2)
    assert status == EXIT_WON
    assert s.outcome() is Outcome.WON
    assert err == ""
    assert out.splitlines()[-1] == f"won in {len(winning_line(2))} moves"


def test_won_with_unlimited_redeals_is_0():
    status, out, err, _ = batch("\n".join(winning_line(1, None)), deal=1, redeals=None)
    assert status == EXIT_WON, err


def test_legal_not_won_is_1():
    status, out, err, s = batch("d\nd\nd\nw f3\n")
    assert status == EXIT_NOT_WON
    assert err == ""
    assert len(s.moves) == 4
    assert out.splitlines()[-1] == "legal, not won: after 4 moves, 43 cards still to build"


def test_empty_input_is_1():
    status, out, err, s = batch("")
    assert status == EXIT_NOT_WON
    assert s.moves == []


def test_illegal_move_is_3_and_names_the_line():
    status, out, err, s = batch("d\nw f2\nd\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 2: ")
    assert "foundation 2 needs a 6" in err and "J♦" in err
    assert len(s.moves) == 1  # processing stopped at line 2
    assert "won" not in out  # no summary after a failure


def test_illegal_move_message_in_ascii():
    status, out, err, _ = batch("d\nw f2\n", ascii=True)
    assert status == EXIT_INVALID
    assert "JD" in err and "♦" not in err


def test_unknown_command_is_3():
    status, out, err, s = batch("d\nd\nfrobnicate\nd\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 3: ") and "frobnicate" in err
    assert len(s.moves) == 2


def test_bad_argument_is_3():
    status, _, err, _ = batch("undo 0\n")
    assert status == EXIT_INVALID and err.startswith("line 1: ")


def test_blank_lines_and_comments_are_skipped_but_counted():
    text = "\n# a comment\n   \nd\n   # indented comment\n\t\nw f2\n"
    status, out, err, s = batch(text)
    assert status == EXIT_INVALID
    assert err.startswith("line 7: ")
    assert len(s.moves) == 1


def test_trailing_comments_on_a_command_line():
    status, _, err, s = batch("d # first card\nd;d # two more\n")
    assert status == EXIT_NOT_WON, err
    assert len(s.moves) == 3


def test_several_commands_on_a_line():
    status, _, err, s = batch("d; d; d; w f3\n")
    assert status == EXIT_NOT_WON, err
    assert [str(m) for m in s.moves] == ["d", "d", "d", "w f3"]


def test_a_failing_command_mid_line_keeps_the_ones_before():
    status, _, err, s = batch("d\nd; d; w f2; d\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 2: ")
    assert len(s.moves) == 3


def test_case_and_spacing():
    status, _, err, s = batch("D\n  DEAL  \nd\nW F3\n")
    assert status == EXIT_NOT_WON, err
    assert [str(m) for m in s.moves] == ["d", "d", "d", "w f3"]


def test_undo_redo_in_batch():
    status, _, err, s = batch("d;d;d;w f3\nundo 2\nredo\n")
    assert status == EXIT_NOT_WON, err
    assert [str(m) for m in s.moves] == ["d", "d", "d"]


def test_quit_stops_reading():
    status, _, err, s = batch("d\nquit\nfrobnicate\n")
    assert status == EXIT_NOT_WON, err
    assert len(s.moves) == 1


def test_show_prints_the_layout():
    status, out, err, s = batch("d\nshow\n")
    assert status == EXIT_NOT_WON, err
    assert "signs" in out and "A♣" in out and "2♣" in out
    assert re.search(r"waste\s+J♦", out)
    assert plain(s.layout()) in out


def test_moves_are_not_followed_by_a_layout():
    # Only 'show' prints the layout in batch mode; moves print nothing but the closing summary.
    status, out, _, _ = batch("d\nd\n")
    assert "signs" not in out
    assert out.count("\n") == 1


def test_help_in_batch():
    status, out, _, _ = batch("help\n")
    assert status == EXIT_NOT_WON
    assert "undo [N]" in out


def test_output_has_no_escape_codes():
    status, out, err, _ = batch("d\nshow\nhelp\nmoves\n" + "\n".join(winning_line(2)), deal=2)
    assert "\x1b" not in out + err


def test_a_too_long_line_is_3():
    # Commands are read and run a line at a time (issue 12, item 14): the line before it ran.
    status, _, err, s = batch("d\n" + "d;" * 600 + "\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 2: ")
    assert len(s.moves) == 1


def test_a_too_long_line_in_a_transcript_stops_it_before_any_move():
    status, _, err, s = batch(HEADER.format(deal=1, redeals=2) + "d\n" + "d" * 1001 + "\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 6: ")
    assert s.moves == []


def test_a_transcript_sets_the_game():
    text = HEADER.format(deal=5, redeals=0) + "d\nd\n"
    status, out, err, s = batch(text)  # the session began on deal 1
    assert status == EXIT_NOT_WON, err
    assert s.deal == DealNumber(5)
    assert s.rules == MusicalRules(0)
    assert len(s.moves) == 2


def test_a_won_transcript_with_its_result_line_is_0():
    text = HEADER.format(deal=2, redeals=2) + "\n".join(winning_line(2)) + "\nresult: won\n"
    status, out, err, _ = batch(text)
    assert status == EXIT_WON, err
    # One verdict line, as verify prints it: not the shell's "You won deal 2 ..." before it too.
    assert out == f"won in {len(winning_line(2))} moves\n", out


def test_a_wrong_result_line_is_3():
    text = HEADER.format(deal=1, redeals=2) + "d\nd\nresult: won\n"
    status, out, err, _ = batch(text)
    assert status == EXIT_INVALID
    assert err.startswith("line 7: ")
    assert "unfinished" in err


def test_a_right_unfinished_result_line_is_1():
    text = HEADER.format(deal=1, redeals=2) + "d\nd\nresult: unfinished\n"
    assert batch(text)[0] == EXIT_NOT_WON


def test_a_bad_transcript_header_is_3():
    for header in ("format: musical-transcript 1\ngame: musical\ndeal: 0\n",
                   "format: musical-transcript 9\ngame: musical\ndeal: 1\n",
                   "format: musical-transcript 1\ngame: chess\ndeal: 1\n",
                   "format: musical-transcript 1\ngame: musical\ndeal: 1\nredeals: lots\n"):
        status, _, err, _ = batch(header + "d\n")
        assert status == EXIT_INVALID, header
        assert err.startswith("line "), err


def test_a_header_line_among_the_moves_is_3():
    status, _, err, s = batch("d\ngame: musical\nd\n")
    assert status == EXIT_INVALID
    assert err.startswith("line 2: ")
    assert len(s.moves) == 1


def test_a_transcript_contradicting_the_command_line_is_a_usage_conflict():
    text = HEADER.format(deal=1, redeals=2) + "d\n"
    with pytest.raises(UsageConflict):
        batch(text, deal=7, given=Given(deal="7"))
    with pytest.raises(UsageConflict):
        batch(text, given=Given(deal="1", rules={"redeals": "0"}))
    status, _, err, _ = batch(text, given=Given(deal="1", rules={"redeals": "2"}))
    assert status == EXIT_NOT_WON, err


def test_a_byte_order_mark_is_ignored():
    status, _, err, s = batch("\ufeffd\nd\n")
    assert status == EXIT_NOT_WON, err
    assert len(s.moves) == 2


@settings(max_examples=30)
@given(st.lists(st.sampled_from(["", "   ", "# note", "\t# x"]), max_size=5), st.integers(0, 4))
def test_the_failing_line_number_counts_every_line(fillers, good):
    lines = fillers + ["d"] * good + fillers + ["w f4"]
    status, _, err, _ = batch("\n".join(lines) + "\n")
    # w f4 needs a Q; the first four stock cards are J♦ 2♦ 9♥ J♣.
    assert status == EXIT_INVALID
    assert err.startswith(f"line {len(lines)}: ")


# --- the real program on pipes ---------------------------------------------------------------


def test_program_won_is_0():
    p = musical("--seed", "2", input="\n".join(winning_line(2)) + "\n")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert p.stdout.splitlines()[-1].startswith("won in ")


def test_program_won_with_redeals_option():
    p = musical("--seed", "1", "--redeals", "unlimited", input="\n".join(winning_line(1, None)) + "\n")
    assert p.returncode == 0, p.stderr


def test_program_not_won_is_1():
    p = musical("--seed", "1", input="d\nd\n")
    assert p.returncode == 1, p.stderr
    assert p.stderr == ""
    assert "not won" in p.stdout


def test_program_the_issue_example_is_3_and_names_line_2():
    # printf 'd\nw f2\n' | musical --seed 1
    p = musical("--seed", "1", input="d\nw f2\n")
    assert p.returncode == 3
    assert p.stderr.startswith("line 2:")
    assert "Traceback" not in p.stderr


def test_program_unknown_command_is_3():
    p = musical("--seed", "1", input="d\nfly away\n")
    assert p.returncode == 3
    assert p.stderr.startswith("line 2:") and "fly away" in p.stderr


@pytest.mark.parametrize("args", [
    ["--seed", "0"], ["--seed", "abc"], ["--seed", "-5"], ["--seed", ""], ["--seed", "1.5"],
    ["--redeals", "x"], ["--redeals", "1.5"], ["--bogus"], ["--seed"],
])
def test_program_usage_errors_are_2(args):
    p = musical(*args, input="d\n")
    assert p.returncode == 2, (args, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    assert "usage" in p.stderr.lower()
    assert p.stdout == ""


@pytest.mark.parametrize("value", ["-1", "-2"])
def test_program_negative_redeals_is_2(value):
    for args in (["--redeals", value], [f"--redeals={value}"]):
        p = musical(*args, "--seed", "1", input="d\n")
        assert p.returncode == 2, (args, p.stdout)
        assert "Traceback" not in p.stderr


def test_program_blank_lines_and_comments_count_as_lines():
    p = musical("--seed", "1", input="# my game\n\nd\n\n# now a bad one\nw f2\n")
    assert p.returncode == 3
    assert p.stderr.startswith("line 6:")


def test_program_semicolons():
    p = musical("--seed", "1", input="d; d; d; w f3; show\n")
    assert p.returncode == 1, p.stderr
    assert "stock 41" in p.stdout


def test_program_output_on_a_pipe_has_no_escape_codes():
    for env in ({}, {"TERM": "xterm-256color", "FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"}):
        p = musical("--seed", "2", input="show\nhelp\nmoves\n" + "\n".join(winning_line(2)) + "\nshow\n", env=env)
        assert p.returncode == 0, p.stderr
        assert "\x1b" not in p.stdout and "\x1b" not in p.stderr
        assert "♣" in p.stdout


def test_program_no_color_gives_the_same_plain_output():
    plain_run = musical("--seed", "1", input="d\nshow\nw f2\n")
    no_color = musical("--seed", "1", input="d\nshow\nw f2\n", env={"NO_COLOR": "1"})
    assert no_color.returncode == plain_run.returncode == 3
    assert no_color.stdout == plain_run.stdout
    assert no_color.stderr == plain_run.stderr
    assert "\x1b" not in no_color.stdout + no_color.stderr


def test_program_show_prints_the_layout():
    p = musical("--seed", "1", input="show\nd\nshow\n")
    assert p.returncode == 1
    assert p.stdout.count("signs") == 2
    assert "A♣" in p.stdout and "needs" in p.stdout
    assert re.search(r"waste\s+J♦", p.stdout)


def test_program_ascii():
    p = musical("--seed", "1", "--ascii", input="d\nshow\nw f2\n")
    assert p.returncode == 3
    assert re.search(r"waste\s+JD", p.stdout)
    assert "JD" in p.stderr
    assert not set("♣♦♥♠") & set(p.stdout + p.stderr)


def test_program_random_deal_prints_its_number_first_and_replays():
    p = musical(input="show\n")
    assert p.returncode == 1, p.stderr
    first, *rest = p.stdout.splitlines()
    m = re.fullmatch(r"deal (\d+)", first)
    assert m, first
    again = musical("--seed", m.group(1), input="show\n")
    assert again.stdout.splitlines() == rest


def test_program_random_deals_differ():
    numbers = {musical(input="").stdout.splitlines()[0] for _ in range(3)}
    assert len(numbers) > 1


def test_program_plays_a_transcript_without_seed():
    text = "# saved by hand\n" + HEADER.format(deal=2, redeals=2) + "\n".join(winning_line(2)) + "\nresult: won\n"
    p = musical(input=text)
    assert p.returncode == 0, p.stderr
    assert not p.stdout.startswith("deal ")  # the transcript names its deal; none is drawn
    assert p.stdout.splitlines()[-1].startswith("won in ")


def test_program_transcript_with_the_same_seed_is_fine():
    text = HEADER.format(deal=1, redeals=2) + "d\nd\n"
    p = musical("--seed", "1", "--redeals", "2", input=text)
    assert p.returncode == 1, p.stderr


@pytest.mark.parametrize("args", [["--seed", "2"], ["--redeals", "0"], ["--seed", "1", "--redeals", "unlimited"]])
def test_program_transcript_contradicting_the_command_line_is_2(args):
    text = HEADER.format(deal=1, redeals=2) + "d\n"
    p = musical(*args, input=text)
    assert p.returncode == 2, p.stderr
    assert "contradicts" in p.stderr
    assert "Traceback" not in p.stderr


def test_program_transcript_with_a_wrong_result_is_3():
    text = HEADER.format(deal=1, redeals=2) + "d\nd\nresult: won\n"
    p = musical(input=text)
    assert p.returncode == 3
    assert p.stderr.startswith("line 7:")


def test_program_transcript_with_an_illegal_move_is_3():
    text = HEADER.format(deal=1, redeals=2) + "d\n\nw f2\n"
    p = musical(input=text)
    assert p.returncode == 3
    assert p.stderr.startswith("line 7:")


def test_program_input_that_is_not_utf8_is_3():
    p = subprocess.run([sys.executable, "-m", "musical_cli", "--seed", "1"], input=b"d\n\xff\xfe\n",
                       capture_output=True, timeout=60)
    assert p.returncode == 3
    assert b"Traceback" not in p.stderr


def test_program_batch_mode_never_starts_prompt_toolkit():
    code = ("import sys\n"
            "from musical_cli.cli import main\n"
            "status = main(['--seed', '1'])\n"
            "loaded = [m for m in sys.modules if m.startswith('prompt_toolkit')]\n"
            "assert not loaded, loaded[:3]\n"
            "sys.exit(status)\n")
    p = subprocess.run([sys.executable, "-c", code], input="d\nshow\nhelp\nw f2\n", capture_output=True,
                       text=True, encoding="utf-8", timeout=60)
    assert p.returncode == 3, p.stderr
    assert "prompt_toolkit" not in p.stderr


def test_program_crlf_line_endings():
    p = musical("--seed", "1", input="d\r\n\r\nw f2\r\n")
    assert p.returncode == 3
    assert p.stderr.startswith("line 3:")


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c"])
def test_program_a_comment_is_one_line_whatever_it_holds(separator):
    p = musical("--seed", "1", input=f"# page{separator} break\nd\nw f2\n")
    assert p.returncode == 3
    assert p.stderr.startswith("line 3:"), p.stderr


# --- issue 12, items 5 and 6: no home -------------------------------------------------------------

# The program with no password entry for its uid (patched: the tests may run as any user).
NO_PASSWD = ("import pwd, sys\n"
             "def missing(uid):\n"
             "    raise KeyError(uid)\n"
             "pwd.getpwuid = missing\n"
             "from musical_cli.cli import main\n"
             "sys.exit(main(sys.argv[1:]))\n")


@pytest.mark.parametrize("command", ["save", "load"])
def test_program_tilde_of_no_user_is_3_naming_the_line(tmp_path, command):
    p = subprocess.run([sys.executable, "-m", "musical_cli", "--seed", "1"], input=f"d\n{command} ~nosuchuser/x.txt\n",
                       capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, timeout=60)
    assert p.returncode == 3, p.stderr
    verb = "save to" if command == "save" else "read"
    assert p.stderr.startswith(f"line 2: cannot {verb} ~nosuchuser/x.txt: "), p.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="a password database")
@pytest.mark.parametrize("home", [None, ""])
def test_program_without_a_home_plays_and_save_without_a_file_says_why(tmp_path, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "HOME"}
    if home is not None:
        env["HOME"] = home
    p = subprocess.run([sys.executable, "-c", NO_PASSWD, "--seed", "1"], input="d\nshow\nsave\n",
                       capture_output=True, text=True, encoding="utf-8", env=env, cwd=tmp_path, timeout=60)
    assert p.returncode == 3, p.stderr
    assert "waste" in p.stdout
    assert p.stderr.startswith("line 3: cannot save: there is no home directory"), p.stderr
    assert "save FILE" in p.stderr
    saved = subprocess.run([sys.executable, "-c", NO_PASSWD, "--seed", "1"], input="d\nsave game.txt\n",
                           capture_output=True, text=True, encoding="utf-8", env=env, cwd=tmp_path, timeout=60)
    assert saved.returncode == 1, saved.stderr
    assert (tmp_path / "game.txt").is_file()


# --- issue 12, item 2: a transcript is data, never executed ----------------------------------------

TRANSCRIPT_COMMANDS = ["save victim.txt", "load victim.txt", "new 5", "hint", "show", "undo", "restart",
                       "help", "quit", "d; d", "moves", "solve play", "auto"]


@pytest.mark.parametrize("command", TRANSCRIPT_COMMANDS)
def test_a_transcript_runs_no_command(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "victim.txt").write_text("precious\n", encoding="utf-8")
    text = HEADER.format(deal=1, redeals=2) + f"d\n{command}\nd\n"
    status, out, err, s = batch(text)
    assert status == EXIT_INVALID, (out, err)
    assert err.startswith("line 6: "), err
    assert s.moves == []  # nothing of it was played
    assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == "precious\n"
    assert sorted(os.listdir(tmp_path)) == ["victim.txt"]


def test_program_a_piped_transcript_cannot_overwrite_a_file(tmp_path):
    (tmp_path / "victim.txt").write_text("precious\n", encoding="utf-8")
    text = "# looks like a shared game\n" + HEADER.format(deal=1, redeals=2) + "d\nsave victim.txt\n"
    p = subprocess.run([sys.executable, "-m", "musical_cli"], input=text, capture_output=True, text=True,
                       encoding="utf-8", cwd=tmp_path, timeout=60)
    assert p.returncode == 3
    assert p.stderr.startswith("line 7: "), p.stderr
    assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == "precious\n"


def test_a_transcript_is_read_as_verify_reads_it(tmp_path):
    """The same verdict, and the same message for a bad line, as `musical verify`."""
    texts = [HEADER.format(deal=1, redeals=2) + "d\nd\n",
             HEADER.format(deal=2, redeals=2) + "\n".join(winning_line(2)) + "\nresult: won\n",
             HEADER.format(deal=1, redeals=2) + "d\nsave x.txt\n",
             HEADER.format(deal=1, redeals=2) + "d\nw f2\n",
             HEADER.format(deal=1, redeals=2) + "d\nresult: won\n"]
    for text in texts:
        path = tmp_path / "t.txt"
        path.write_text(text, encoding="utf-8")
        verify = musical("verify", str(path), cwd=tmp_path)
        piped = musical(input=text, cwd=tmp_path)
        assert piped.returncode == verify.returncode, (text, piped.stderr, verify.stderr)
        if verify.returncode == 3:
            assert verify.stderr == f"{path}: {piped.stderr}"


def test_a_command_script_without_a_header_may_still_save(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err, s = batch("d\nsave mine.txt\nd\n")
    assert status == EXIT_NOT_WON, err
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8").splitlines()[-2:] == ["d", "result: unfinished"]


# --- issue 12, item 14: command input is streamed, without an overall limit --------------------------


def test_commands_are_read_as_they_come():
    """Endless input: the 45th 'd' (the stock is empty after 44) stops it, so it was not read
    whole first."""
    s = Session(MUSICAL, DealNumber(1), MusicalRules(0))
    out, err = io.StringIO(), io.StringIO()
    endless = itertools.chain(itertools.repeat("d\n", 100), iter(lambda: pytest.fail("read past line 100"), None))
    assert run_batch(endless, s, out, err) == EXIT_INVALID
    assert err.getvalue().startswith("line 45: ")


def test_program_a_command_script_over_a_mebibyte_runs():
    script = "# padding\n" * 120_000 + "d\nshow\n" + "moves\n" * 1000  # 1.2 MiB
    assert len(script.encode()) > (1 << 20)
    p = musical("--seed", "1", input=script)
    assert p.returncode == 1, p.stderr[:300]
    assert re.search(r"waste\s+J♦", p.stdout)


def test_program_an_endless_line_is_refused_naming_it():
    p = musical("--seed", "1", input="d\n" + "x" * 2_000_000 + "\n")
    assert p.returncode == 3
    assert p.stderr == "line 2: the line is longer than 1000 characters\n"


def test_program_a_transcript_over_a_mebibyte_is_still_refused():
    text = HEADER.format(deal=1, redeals=2) + "# padding\n" * 110_000 + "d\n"
    p = musical(input=text)
    assert p.returncode == 3
    assert "larger than 1024 KiB" in p.stderr and "Traceback" not in p.stderr


def test_program_a_line_that_is_not_utf8_is_named():
    p = subprocess.run([sys.executable, "-m", "musical_cli", "--seed", "1"], input=b"d\nd\n\xff\n",
                       capture_output=True, timeout=60)
    assert p.returncode == 3
    assert p.stderr.decode().startswith("line 3: ")


# --- issue 12, item 9: output that cannot carry Unicode ------------------------------------------------

NOT_UTF8 = [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}]


def _run_bytes(*args: str, input: bytes, env: dict) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MUSICAL_DEBUG", "LANG", "LC_ALL",
                                                                 "LC_CTYPE", "PYTHONUTF8", "PYTHONIOENCODING")}
    full_env.update(env)
    return subprocess.run([sys.executable, "-m", "musical_cli", *args], input=input, capture_output=True,
                          env=full_env, timeout=60)


@pytest.mark.parametrize("env", NOT_UTF8)
@pytest.mark.parametrize("ascii", [["--ascii"], []])
def test_program_output_that_cannot_carry_unicode_gets_ascii(env, ascii):
    p = _run_bytes("--seed", "1", *ascii, input=b"show\nhelp\nmoves\nd\nshow\nw f2\n", env=env)
    assert p.returncode == 3, p.stderr
    assert p.stdout.isascii() and p.stderr.isascii()
    assert b"Musical deal 1 | pass 1 of 3 | 0 moves | 44 to build" in p.stdout
    assert b"JD" in p.stderr and b"Traceback" not in p.stderr


def test_program_ascii_is_pure_ascii_on_a_utf8_pipe():
    p = _run_bytes("--seed", "1", "--ascii", input=b"show\nhelp\nmoves\nd\nshow\nhint\nw f2\n",
                   env={"PYTHONIOENCODING": "utf-8"})
    assert p.returncode == 3, p.stderr
    assert p.stdout.isascii() and p.stderr.isascii(), p.stdout


@pytest.mark.parametrize("env", NOT_UTF8)
def test_program_replay_and_deal_on_ascii_output(env, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(HEADER.format(deal=1, redeals=2) + "d\nd\n", encoding="utf-8")
    for args in (["replay", str(path)], ["deal", "1"], ["verify", str(path)]):
        p = _run_bytes(*args, input=b"", env=env)
        assert p.returncode in (0, 1), (args, p.stderr)
        assert p.stdout.isascii() and b"Traceback" not in p.stderr, args


def test_program_a_users_own_symbol_on_ascii_output_is_escaped_not_fatal(tmp_path):
    p = subprocess.run([sys.executable, "-m", "musical_cli", "--seed", "1"], input="d\nsave ♣.txt\nd\n♣\n".encode(),
                       env={**os.environ, "PYTHONIOENCODING": "ascii"}, cwd=tmp_path, capture_output=True, timeout=60)
    assert p.returncode == 3, p.stderr
    assert b"saved 1 move to \\u2663.txt" in p.stdout and (tmp_path / "♣.txt").is_file()
    assert p.stderr.startswith(b"line 4: unknown command") and b"Traceback" not in p.stderr


@pytest.mark.parametrize("extra", [0, 1])
def test_a_transcript_of_exactly_the_limit_is_read_and_one_byte_more_is_not(extra):
    from musical_cli.transcript import MAX_BYTES

    head = HEADER.format(deal=1, redeals=2) + "d\n"
    filler = "#" * 99 + "\n"
    text = head + filler * ((MAX_BYTES - len(head)) // len(filler))
    text += "#" * (MAX_BYTES - len(text) - 1) + "\n" + "\n" * extra
    assert len(text.encode()) == MAX_BYTES + extra
    status, _, err, s = batch(text)
    if extra:
        assert status == EXIT_INVALID and "larger than 1024 KiB" in err
    else:
        assert status == EXIT_NOT_WON, err
        assert len(s.moves) == 1


def test_batch_says_what_the_commands_before_a_failing_one_said(tmp_path):
    """'d; d; moves; save F; w f9' in batch mode: the save is made and said, and what 'moves'
    said is printed, before the error (only the error was)."""
    path = tmp_path / "g.txt"
    status, out, err, s = batch(f"d; d; moves; save {path}; w f9\n")
    assert status == EXIT_INVALID and path.is_file()
    # (a path longer than the line is broken where it may be, inside a name too: read without
    # the breaks)
    assert "legal:" in out and f"saved2movesto{path}" in "".join(out.split())
    assert err.startswith("line 1: w f9")


# Python itself hides the C locale from the streams (UTF-8 mode under LC_ALL=C, coercion to
# C.UTF-8 under LANG=C), so the program reads the variables (cli.ascii_locale). Not caught:
# LC_CTYPE=C over a UTF-8 LANG, which Python's coercion makes indistinguishable from C.UTF-8.
C_LOCALES = [{"LC_ALL": "C"}, {"LC_ALL": "POSIX"}, {"LANG": "C"}, {"LANG": "POSIX"}]


@pytest.mark.parametrize("env", C_LOCALES)
def test_the_c_locale_as_users_set_it_gets_ascii(env):
    p = _run_bytes("deal", "5", input=b"", env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.isascii() and b"AD" in p.stdout, p.stdout


@pytest.mark.parametrize("env", [{}, {"LANG": "C.UTF-8"}, {"LC_ALL": "en_US.UTF-8"}, {"LANG": "C", "LC_ALL": "C.UTF-8"}])
def test_a_utf8_locale_or_none_at_all_keeps_the_symbols(env):
    p = _run_bytes("deal", "5", input=b"", env=env)
    assert p.returncode == 0, p.stderr
    assert "♦".encode() in p.stdout, p.stdout


def test_ascii_locale_reads_the_variables_as_the_c_library_does():
    from musical_cli.cli import ascii_locale

    assert ascii_locale({"LC_ALL": "C"}) and ascii_locale({"LANG": "POSIX"})
    assert ascii_locale({"LANG": "C", "LC_CTYPE": "C.UTF-8"})  # LANG=C after Python's coercion
    assert not ascii_locale({}) and not ascii_locale({"LC_CTYPE": "C.UTF-8"})
    assert not ascii_locale({"LC_ALL": "de_DE.UTF-8", "LANG": "C"})
    assert not ascii_locale({"LANG": "C", "LC_CTYPE": "en_GB.UTF-8"})
