"""The real program in a real pseudo-terminal, through pexpect: start ``musical --seed 1``,
type ``d``, see J♦ on the waste, ``quit``. Plus Ctrl-D, Ctrl-C, errors, the toolbar and colour."""

from __future__ import annotations

import re
import sys

import pytest
from terminal import PROMPT, SGR, TIMEOUT, Terminal, colour_codes, pexpect, screen_text, spawn

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


def test_seed_1_type_d_see_jd_quit(terminal, tmp_path):
    term = terminal("--seed", "1")
    opening = term.expect(PROMPT)
    assert "deal 1" in opening and "A♣" in opening and "J♦" not in opening
    term.sendline("d")
    before = term.expect("J♦")
    assert "31" in SGR.findall(before)[-1].split(";")  # J♦ is red on a colour terminal
    term.expect(PROMPT)
    term.sendline("quit")
    assert term.finish() == 0
    history = tmp_path / "state" / "musical" / "history"
    assert history.is_file()
    assert "+d" in history.read_text(encoding="utf-8").splitlines()


def test_ascii(terminal):
    term = terminal("--seed", "1", "--ascii")
    opening = term.expect(PROMPT)
    assert "AC" in opening and "♣" not in opening
    term.sendline("d")
    term.expect(r"waste\s+(\x1b\[[0-9;]*m)*JD", exact=False)
    term.sendline("exit")
    assert term.finish() == 0


def test_ctrl_d_leaves(terminal):
    term = terminal("--seed", "1")
    term.expect(PROMPT)
    term.child.sendcontrol("d")
    assert term.finish() == 0


def test_illegal_move_and_ctrl_c(terminal):
    term = terminal("--seed", "1")
    term.expect(PROMPT)
    term.sendline("d")
    term.expect("J♦")
    term.expect(PROMPT)
    term.sendline("w f2")
    term.expect("foundation 2 needs a 6")
    term.expect(PROMPT)
    term.child.send("w f4")
    term.child.sendcontrol("c")  # clears the line; the shell stays
    term.sendline("d")
    before = term.expect(r"waste\s+(\x1b\[[0-9;]*m)*2♦", exact=False)
    assert "needs a Q" not in before and "unknown command" not in before
    term.expect(PROMPT)
    term.sendline("moves")
    term.expect("legal: d")
    term.sendline("quit")
    assert term.finish() == 0


def test_the_toolbar(terminal):
    # 100 columns: room for the toolbar's last part, which 80 columns leave out
    term = terminal("--seed", "1", size=(24, 100))
    term.expect("deal 1 · pass 1 of 3 · 0 moves · 44 to build · 'help'")
    term.sendline("d")
    term.expect("deal 1 · pass 1 of 3 · 1 move · 44 to build · 'help'")
    term.child.sendcontrol("d")
    assert term.finish() == 0


def test_a_random_deal_is_shown_at_once(terminal):
    term = terminal()
    opening = term.expect(PROMPT)
    assert re.search(r"deal (\d+)\.", opening), opening
    term.sendline("quit")
    assert term.finish() == 0


def test_no_color(terminal):
    term = terminal("--seed", "1", NO_COLOR="1")
    opening = term.expect(PROMPT)
    assert "2♥" in opening and colour_codes(opening) == set()
    term.sendline("d")
    term.expect("J♦")
    term.sendline("w f2")
    term.expect("needs a 6")
    term.sendline("quit")
    assert term.finish() == 0
    raw = term.log.getvalue()
    assert "J♦" in raw and "\x1b[" in raw  # still a terminal: the prompt draws with escapes
    assert colour_codes(raw) == set()


def test_deal_on_a_terminal_is_coloured_unless_no_color(terminal_env):
    cmd = f"{sys.executable} -m musical_cli deal 1"
    out, status = pexpect.run(cmd, env=terminal_env, withexitstatus=True, encoding="utf-8", timeout=TIMEOUT)
    assert status == 0
    assert "J♦" in out and colour_codes(out)
    out, status = pexpect.run(cmd, env={**terminal_env, "NO_COLOR": "1"}, withexitstatus=True, encoding="utf-8",
                              timeout=TIMEOUT)
    assert status == 0
    assert "J♦" in out and "\x1b" not in out


def test_black_suits_are_not_forced_to_black(terminal_env):
    # Regression: the class 'black' was prompt_toolkit's named colour #000000, invisible on dark
    # terminals.
    cmd = f"{sys.executable} -m musical_cli deal 1"
    out, status = pexpect.run(cmd, env=terminal_env, withexitstatus=True, encoding="utf-8", timeout=TIMEOUT)
    assert status == 0
    before = out[: out.index("A♣")]
    assert colour_codes("\x1b[" + SGR.findall(before)[-1] + "m") == set()


def test_output_to_a_file_at_a_terminal_is_batch_mode(terminal_env, tmp_path):
    """`musical --seed 1 > out.txt` typed at a terminal: no prompt drawn into the file; the
    typed lines are read as batch input until Ctrl-D."""
    out = tmp_path / "out.txt"
    child = spawn("--seed", "1", env=terminal_env, stdout=out)
    child.sendline("d")
    child.sendline("show")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text and "musical>" not in text
    assert re.search(r"waste\s+J♦", text)
    assert text.splitlines()[-1] == "legal, not won: after 1 move, 44 cards still to build"


# --- a dumb terminal, a history that cannot be used ---------------------------------------------------


def test_a_dumb_terminal_gets_plain_text(terminal):
    term = terminal("--seed", "1", TERM="dumb")
    for command in ("d", "show", "w f2", "help", "moves", "undo", "quit"):
        term.expect(PROMPT)
        term.sendline(command)
    assert term.finish() == 0
    raw = term.log.getvalue()
    assert "J♦" in raw and "needs a 6" in raw and "legal: d" in raw and "undid 1 move" in raw
    assert "\x1b" not in raw


def test_printed_layouts_on_a_dumb_terminal_are_plain(terminal_env):
    out, status = pexpect.run(f"{sys.executable} -m musical_cli deal 1", env={**terminal_env, "TERM": "dumb"},
                              withexitstatus=True, encoding="utf-8", timeout=TIMEOUT)
    assert status == 0
    assert "J♦" in out and "\x1b" not in out


@pytest.mark.parametrize("how", ["a directory", "no home"])
@pytest.mark.slow  # a long terminal scenario
def test_a_history_that_cannot_be_used_is_one_line_of_warning(terminal, terminal_env, tmp_path, how):
    if how == "a directory":
        (tmp_path / "state" / "musical" / "history").mkdir(parents=True)
    else:  # no HOME, no XDG_STATE_HOME, and (patched) no password entry
        terminal_env.pop("HOME", None)
        terminal_env.pop("XDG_STATE_HOME")
    code = ("import pwd, sys\n"
            "def missing(uid):\n"
            "    raise KeyError(uid)\n"
            "pwd.getpwuid = missing\n"
            "from musical_cli.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    child = spawn("--seed", "1", env=terminal_env, python=("-c", code))
    term = Terminal(child)
    try:
        opening = term.expect(PROMPT)
        assert "The history is kept for this session only" in opening
        term.sendline("d")  # the first line typed is played, not swallowed
        term.expect("J♦")
        term.expect(PROMPT)
        term.sendline("d")
        term.expect("2♦")
        term.sendline("quit")
        assert term.finish() == 0
    finally:
        if child.isalive():
            child.close(force=True)
    raw = term.log.getvalue()
    assert "Traceback" not in raw and "Unhandled exception" not in raw
    assert raw.count("The history is kept for this session only") == 1


# --- the player's record ---------------------------------------------------------------------


def _toolbar(term: Terminal) -> str:
    """The last toolbar drawn: deal, pass, moves, cards to build."""
    found = re.findall(r"deal \d+ · pass \d of \d · \d+ moves? · \d+ to build", term.log.getvalue())
    return found[-1]


def _legal(term: Terminal) -> str:
    term.sendline("moves")
    term.expect(r"legal: [^\r\n]*", exact=False)
    return term.child.after


@pytest.mark.slow
def test_a_killed_shell_is_resumed_with_its_position_and_undo_history(terminal, tmp_path):
    import signal

    term = terminal("--seed", "1")
    term.expect(PROMPT)
    term.sendline("d;d;d;w f3;d;d")
    term.expect("· 6 moves ·")
    term.sendline("undo")
    term.expect("undid 1 move")
    before_legal = _legal(term)
    before = _toolbar(term)
    assert "5 moves" in before
    term.child.kill(signal.SIGKILL)  # no chance to write anything more
    term.child.expect(pexpect.EOF)  # not reaped: a zombie, which holds no game

    term = terminal()
    opening = term.expect("go on.")
    opening = screen_text(opening)  # wrapped at the terminal's width
    assert "An unfinished game of Musical, deal 1, from " in opening and "(5 moves, 1 to redo)" in opening
    term.sendline("resume")
    shown = term.expect("· 5 moves ·")
    assert "resumed game @1: deal 1, 5 moves" in shown
    term.expect(r"waste\s+(\x1b\[[0-9;]*m)*J♣", exact=False)  # J♦ 2♦ 9♥ (to f3) J♣ (5♦ undone)
    assert _legal(term) == before_legal
    assert _toolbar(term) == before
    term.sendline("redo")  # the move undone before the kill
    term.expect("redid 1 move")
    term.expect("· 6 moves ·")
    term.sendline("undo 6")
    term.expect("undid 6 moves")
    term.expect("· 0 moves ·")
    term.sendline("quit")
    assert term.finish() == 0


@pytest.mark.slow  # a long terminal scenario
def test_musical_resume_on_the_command_line(terminal):
    term = terminal("--seed", "7")
    term.expect(PROMPT)
    term.sendline("d;d")
    term.expect("· 2 moves ·")
    term.sendline("quit")
    assert term.finish() == 0
    term = terminal("--resume")
    opening = term.expect(PROMPT)
    assert "Musical, deal 7." in opening and "resumed game @1: deal 7, 2 moves" in opening
    term.sendline("quit")
    assert term.finish() == 0


@pytest.mark.slow  # a long terminal scenario
def test_musical_history_while_a_shell_plays(terminal, terminal_env):
    term = terminal("--seed", "3")
    term.expect(PROMPT)
    term.sendline("d;d;d")
    term.expect("· 3 moves ·")
    cmd = f"{sys.executable} -m musical_cli history"
    out, status = pexpect.run(cmd, env=terminal_env, withexitstatus=True, encoding="utf-8", timeout=TIMEOUT)
    assert status == 0
    assert re.search(r"@1 .* Musical +3 +you +in play +3\b", out), out
    term.sendline("d")
    term.expect("· 4 moves ·")
    out, status = pexpect.run(cmd, env=terminal_env, withexitstatus=True, encoding="utf-8", timeout=TIMEOUT)
    assert status == 0 and re.search(r"in play +4\b", out), out
    term.sendline("quit")
    assert term.finish() == 0


@pytest.mark.parametrize("how", ["--no-record", "MUSICAL_NO_RECORD"])
@pytest.mark.slow  # a long terminal scenario
def test_no_record_writes_nothing(terminal, tmp_path, how):
    term = terminal("--seed", "1", how) if how.startswith("--") else terminal("--seed", "1", MUSICAL_NO_RECORD="1")
    term.expect(PROMPT)
    term.sendline("d;d")
    term.expect("· 2 moves ·")
    term.sendline("record")
    term.expect("this game is not recorded")
    term.sendline("quit")
    assert term.finish() == 0
    assert not (tmp_path / "data").exists()


@pytest.mark.slow  # a long terminal scenario
def test_a_damaged_record_is_set_aside_and_play_goes_on(terminal, tmp_path):
    directory = tmp_path / "data" / "musical"
    directory.mkdir(parents=True)
    (directory / "musical.sqlite3").write_bytes(b"\x00garbage" * 1000)
    term = terminal("--seed", "1")
    term.expect(PROMPT)
    # With a deal asked for, the record is opened once the first prompt is drawn: its warning
    # follows, wrapped between words at the terminal's width: read it as words.
    said = term.expect("started")
    said = screen_text(said)
    assert "is damaged" in said and "it is kept as" in said and "a new record is" in said
    term.expect(PROMPT)
    term.sendline("d")
    term.expect("J♦")
    term.sendline("quit")
    assert term.finish() == 0
    (aside,) = [p for p in directory.iterdir() if ".corrupt-" in p.name]
    assert aside.read_bytes() == b"\x00garbage" * 1000


@pytest.mark.slow
def test_a_game_in_play_is_ended_only_with_the_players_word(terminal, terminal_env):
    """'new' on a game in play asks; Enter (the default) keeps it, 'y' ends it as abandoned;
    leaving with a game in play says how to go on with it."""
    term = terminal("--seed", "3")
    term.expect(PROMPT)
    term.sendline("d;d")
    term.expect("· 2 moves ·")
    term.sendline("new 4")
    asked = term.expect("End it? [y/N]")
    assert "Deal 3 is in play (2 moves)" in asked
    term.sendline("")
    term.expect("kept deal 3 in hand (2 moves)")
    term.sendline("new 4")
    term.expect("End it? [y/N]")
    term.sendline("y")
    term.expect("deal 4")
    term.expect(PROMPT)
    term.sendline("d")
    term.expect("· 1 move ·")
    term.sendline("quit")
    left = term.expect(pexpect.EOF)
    assert "Deal 4 is in play: 'musical --resume' goes on with it." in left
    term.child.close()
    assert term.child.exitstatus == 0
    out = pexpect.run(f"{sys.executable} -m musical_cli history", env=terminal_env, encoding="utf-8", timeout=TIMEOUT)
    assert re.search(r"@1 .* 3 +you +abandoned +2\b", out), out
    assert re.search(r"@2 .* 4 +you +in play +1\b", out), out
