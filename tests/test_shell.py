"""The real interactive Shell, driven through prompt_toolkit's pipe input
(create_pipe_input and DummyOutput): keys in, the session and what was printed out."""

from __future__ import annotations

import io
import re

from lines import winning_line
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.styles import Style, default_ui_style, merge_styles

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import REGISTRY, Session, execute
from musical_cli.moves import DEAL
from musical_cli.render import STYLE, plain
from musical_cli.shell import PROMPT_STYLE, Shell, ShellCompleter

ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"


def session(deal: int = 1, redeals: int | None = 2, ascii: bool = False) -> Session:
    """A session as ``musical`` makes one for the shell."""
    return Session(MUSICAL, DealNumber(deal), MusicalRules(redeals), ascii=ascii, interactive=True)


class Run:
    def __init__(self, status: int, session: Session, printed: list):
        self.status = status
        self.session = session
        self.printed = printed  # one fragment list per Shell.print call

    @property
    def text(self) -> str:
        return "".join(plain(f) for f in self.printed)

    def styled(self, style: str) -> str:
        return "".join(t for f in self.printed for s, t in f if s == style)

    @property
    def moves(self) -> list[str]:
        return [str(m) for m in self.session.moves]


def run_shell(keys: str, s: Session | None = None, **kwargs) -> Run:
    """Type ``keys`` into a real Shell (pipe input, DummyOutput) and collect what it prints."""
    s = s or session()
    printed: list = []
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=kwargs.pop("history", InMemoryHistory()))
        shell.print = printed.append  # DummyOutput swallows everything; read the fragments instead
        pipe.send_text(keys)
        status = shell.run()
    return Run(status, s, printed)


# --- playing -------------------------------------------------------------------------------


def test_a_move_then_quit():
    r = run_shell("d" + ENTER + "quit" + ENTER)
    assert r.status == 0
    assert r.moves == ["d"]
    assert r.session.state.waste_top.code == "JD"


def test_the_opening_shows_the_deal_and_the_layout():
    r = run_shell("quit" + ENTER)
    first = plain(r.printed[0])
    assert "deal 1" in first and "help" in first
    layout = plain(r.printed[1])
    for card in ("A♣", "2♥", "3♦", "4♠", "2♣", "4♦", "6♥", "8♣"):
        assert card in layout
    assert "pass 1 of 3" in layout


def test_each_move_shows_the_layout_with_the_waste_top():
    r = run_shell("d" + ENTER + "d" + ENTER + "quit" + ENTER)
    layouts = [plain(f) for f in r.printed if "signs" in plain(f)]
    assert len(layouts) == 3  # the opening and one after each move
    assert re.search(r"waste\s+J♦", layouts[1])
    assert re.search(r"waste\s+2♦", layouts[2])
    assert "stock 42" in layouts[2]


def test_ascii_layout():
    r = run_shell("d" + ENTER + "quit" + ENTER, session(ascii=True))
    assert re.search(r"waste\s+JD", r.text)
    assert not set("♣♦♥♠") & set(r.text)


def test_several_commands_on_a_line_and_case():
    r = run_shell("D; d;D ; W F3" + ENTER + "exit" + ENTER)
    assert r.status == 0
    assert r.moves == ["d", "d", "d", "w f3"]


def test_ctrl_d_leaves():
    r = run_shell(CTRL_D)
    assert r.status == 0
    assert r.moves == []


def test_ctrl_d_after_moves_leaves():
    r = run_shell("d" + ENTER + CTRL_D)
    assert r.status == 0
    assert r.moves == ["d"]


def test_ctrl_c_clears_the_line_without_leaving():
    # Without the clear, the line would read "w f2d", which is no command.
    r = run_shell("w f2" + CTRL_C + "d" + ENTER + CTRL_C + "d" + ENTER + "quit" + ENTER)
    assert r.status == 0
    assert r.moves == ["d", "d"]
    assert not r.styled("class:error")


def test_an_illegal_move_says_why_and_changes_nothing():
    r = run_shell("d" + ENTER + "w f2" + ENTER + "quit" + ENTER)
    assert r.status == 0
    assert r.moves == ["d"]
    error = r.styled("class:error")
    assert "foundation 2 needs a 6" in error and "J♦" in error
    assert r.session.states == [MUSICAL.opening(DealNumber(1)), MUSICAL.apply(MUSICAL.opening(DealNumber(1)), DEAL)]


def test_an_unknown_command_says_why_and_changes_nothing():
    r = run_shell("d" + ENTER + "frobnicate" + ENTER + "d; d; w f2; d" + ENTER + "quit" + ENTER)
    assert r.status == 0
    assert "frobnicate" in r.styled("class:error")
    assert r.moves == ["d", "d", "d"]  # the second line stopped at its illegal third command


def test_undo_and_redo_at_the_prompt():
    r = run_shell("d;d;d;w f3" + ENTER + "undo 2" + ENTER + "redo" + ENTER + "quit" + ENTER)
    assert r.moves == ["d", "d", "d"]
    assert "undid 2 moves" in r.text and "redid 1 move" in r.text
    r = run_shell("d;d;d;w f3" + ENTER + "undo 2" + ENTER + "redo 5" + ENTER + "quit" + ENTER)
    assert r.moves == ["d", "d", "d", "w f3"]
    assert r.session.state.foundations[2][-1].code == "9H"


def test_help_at_the_prompt():
    r = run_shell("help" + ENTER + "quit" + ENTER)
    for cmd in REGISTRY.values():
        # the move commands (d, w, redeal) are among the game's moves
        assert (f"\n  {cmd.plays} " if cmd.plays else cmd.usage) in r.text


def test_quit_ignores_what_follows():
    r = run_shell("quit" + ENTER + "d" + ENTER)
    assert r.status == 0
    assert r.moves == []


def test_winning_says_so_and_offers_a_new_deal():
    r = run_shell("; ".join(winning_line(2)) + ENTER + "quit" + ENTER, session(2))
    assert r.session.outcome() is Outcome.WON
    good = r.styled("class:good")
    assert "won" in good.lower() and "new" in good
    r2 = run_shell("; ".join(winning_line(2)) + ENTER + "new 3" + ENTER + "quit" + ENTER, session(2))
    assert r2.session.deal == DealNumber(3) and r2.moves == []


def test_a_lost_position_says_so_and_suggests_undo():
    s = session(1, redeals=0)
    line = []
    state = s.state
    while MUSICAL.outcome(state) is Outcome.IN_PLAY:
        move = MUSICAL.legal_moves(state)[0]
        line.append(str(move))
        state = MUSICAL.apply(state, move)
    assert MUSICAL.outcome(state) is Outcome.LOST
    r = run_shell(";".join(line) + ENTER + "undo" + ENTER + "quit" + ENTER, s)
    # 'undo', or (where the shell's thinking has proven the deal lost from its start) that too
    bad = r.styled("class:bad")
    assert "undo" in bad or "could not be won from its start" in bad, bad
    assert len(r.moves) == len(line) - 1


# --- what reaches a real terminal ----------------------------------------------------------


def run_on_vt100(keys: str, s: Session | None = None, depth: ColorDepth | None = ColorDepth.DEPTH_8_BIT) -> str:
    """Run the shell with a real VT100 output writing to a StringIO; return the bytes written."""
    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(rows=40, columns=100), term="xterm",
                       default_color_depth=depth, enable_cpr=False)
    with create_pipe_input() as pipe:
        shell = Shell(s or session(), input=pipe, output=out, history=InMemoryHistory())
        pipe.send_text(keys)
        assert shell.run() == 0
    return buf.getvalue()


from terminal import SGR, colour_codes  # noqa: E402  (one definition, the terminal tests')


def card_sgr(raw: str, card: str) -> str:
    """The SGR parameters in force just before the first ``card`` is written."""
    before = raw[: raw.index(card)]
    return SGR.findall(before)[-1]


def test_the_prompt_and_the_layout_reach_the_terminal():
    raw = run_on_vt100("d" + ENTER + "quit" + ENTER)
    assert "musical>" in raw
    assert "J♦" in raw
    assert "A♣" in raw


def test_red_suits_are_red_on_a_colour_terminal():
    raw = run_on_vt100("quit" + ENTER)
    assert "31" in card_sgr(raw, "2♥").split(";")


def test_black_suits_keep_the_terminal_default_colour():
    # Regression: a class named 'black' picked up prompt_toolkit's named colour (fg:#000000),
    # so clubs and spades vanished on a dark terminal.
    raw = run_on_vt100("quit" + ENTER)
    for card in ("A♣", "4♠", "2♣", "8♣"):
        assert colour_codes("\x1b[" + card_sgr(raw, card) + "m") == set(), card


def test_no_style_class_is_overridden_by_prompt_toolkit_defaults():
    # Every class of the layout means what render.STYLE says once merged with prompt_toolkit's
    # default UI style (as print_formatted_text and the prompt merge it).
    ours = Style.from_dict(STYLE)
    merged = merge_styles([default_ui_style(), PROMPT_STYLE])
    for name in STYLE:
        assert merged.get_attrs_for_style_str(f"class:{name}") == ours.get_attrs_for_style_str(f"class:{name}"), name


def test_no_colour_when_the_output_has_one_bit():
    # NO_COLOR reaches the shell as a 1-bit colour depth, through the output prompt_toolkit makes
    # for the terminal (tests/test_pty.py checks that end to end); the shell must add none of its own.
    raw = run_on_vt100("d" + ENTER + "w f2" + ENTER + "quit" + ENTER, depth=ColorDepth.DEPTH_1_BIT)
    assert "J♦" in raw and "2♥" in raw and "foundation 2 needs" in raw
    assert colour_codes(raw) == set()


def test_colour_by_default():
    raw = run_on_vt100("quit" + ENTER, depth=None)
    assert colour_codes(raw)


# --- the toolbar ---------------------------------------------------------------------------


def toolbar_text(shell: Shell) -> str:
    return "".join(t for _, t in shell.toolbar())


def test_toolbar_shows_deal_pass_moves_and_cards_to_build():
    s = session(31999)
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        text = toolbar_text(shell)
        assert "31999" in text and "pass 1 of 3" in text and "0 moves" in text and "44 to build" in text
        s.play(DEAL)
        text = toolbar_text(shell)
        assert "1 move" in text and "44 to build" in text


def test_toolbar_follows_the_game_through_the_shell():
    s = session(1)
    texts = []
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        shell.print = lambda fragments: texts.append(toolbar_text(shell))
        pipe.send_text(";".join(["d"] * 44) + "; redeal" + ENTER + "quit" + ENTER)
        shell.run()
    last = texts[-1]
    assert "deal 1" in last
    assert "pass 2 of 3" in last
    assert "45 moves" in last
    built = sum(len(f) - 1 for f in s.state.foundations)
    assert f"{44 - built} to build" in last


def test_toolbar_with_unlimited_redeals():
    with create_pipe_input() as pipe:
        shell = Shell(session(redeals=None), input=pipe, output=DummyOutput(), history=InMemoryHistory())
        assert "pass 1" in toolbar_text(shell)


def test_toolbar_shows_the_active_time_where_the_width_allows(monkeypatch):
    """The clock counts as the record does (a pause counts up to a minute), stops when the game
    is over, and is shown after the status line whole, in the room the pointer to help leaves."""
    from musical_cli import record

    now = [1000.0]
    monkeypatch.setattr(record.time, "monotonic", lambda: now[0])
    s = session(2)
    columns = [80]
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory(),
                      recorder=record.Recorder(None, "not recorded", refused=True))
        monkeypatch.setattr(shell, "_columns", lambda: columns[0])
        now[0] += 5
        assert toolbar_text(shell) == " Musical deal 2 · pass 1 of 3 · 0 moves · 44 to build · time 0:05 "
        execute(s, "d")
        now[0] += 600  # away: a pause counts up to a minute
        assert toolbar_text(shell).endswith("· 1 move · 44 to build · time 1:05 ")
        columns[0] = 100  # room for the pointer to help, and the clock after it
        assert toolbar_text(shell).endswith("44 to build · 'help' lists the commands · time 1:05 ")
        columns[0] = 60  # not even the status line whole: no clock
        assert "time" not in toolbar_text(shell)
        columns[0] = 80
        execute(s, ";".join(winning_line(2)[1:]))
        assert s.outcome() is Outcome.WON
        stopped = toolbar_text(shell)
        now[0] += 30  # the game is over: the clock stands
        assert toolbar_text(shell) == stopped and "time 1:05" in stopped
    assert shell.prompt is not None and shell.prompt.refresh_interval == 1.0  # it ticks


# --- completion ----------------------------------------------------------------------------


def complete(text: str, s: Session | None = None) -> list[str]:
    completer = ShellCompleter(s or session())
    doc = Document(text, len(text))
    return [c.text for c in completer.get_completions(doc, CompleteEvent(completion_requested=True))]


def completed(text: str, s: Session | None = None) -> list[str]:
    """The whole words the completions produce (the prefix typed plus what is inserted)."""
    completer = ShellCompleter(s or session())
    doc = Document(text, len(text))
    out = []
    for c in completer.get_completions(doc, CompleteEvent(completion_requested=True)):
        out.append(text[: len(text) + c.start_position] + c.text)
    return out


def test_completes_command_names():
    assert completed("he") == ["help"]
    assert completed("HE") == ["help"]
    assert "restart" in completed("re") and "redeal" in completed("re") and "redo" in completed("re")
    assert completed("xyz") == []


def test_every_command_name_completes():
    for name in REGISTRY:
        assert name in complete(""), name
        assert name in complete(name[0]), name


def test_completes_foundations_after_w():
    assert complete("w ") == ["f1", "f2", "f3", "f4"]
    assert complete("w f") == ["f1", "f2", "f3", "f4"]
    assert completed("w f2") == ["w f2"]


def test_completes_play_after_solve():
    assert complete("solve ") == ["play"]
    assert complete("solve p") == ["play"]


def test_completes_command_names_after_help():
    assert completed("help un") == ["help undo"]
    assert "quit" in complete("help ")


def test_completes_after_a_semicolon():
    assert completed("d; he") == ["d; help"]
    assert completed("d;he") == ["d;help"]
    assert complete("d; d; w ") == ["f1", "f2", "f3", "f4"]
    assert complete("w f1; solve ") == ["play"]


def test_nothing_to_complete_after_an_unknown_word():
    assert complete("frob ") == []


def test_completes_paths_after_save_and_load(tmp_path):
    (tmp_path / "game-one.txt").write_text("x")
    (tmp_path / "games").mkdir()
    (tmp_path / "other.txt").write_text("x")
    for cmd in ("save", "load", "d; load"):
        words = completed(f"{cmd} {tmp_path}/ga")
        assert sorted(words) == sorted([f"{cmd} {tmp_path}/game-one.txt", f"{cmd} {tmp_path}/games"]), words


def test_completes_files_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "saved.txt").write_text("x")
    assert completed("save sa") == ["save saved.txt"]


# --- history -------------------------------------------------------------------------------


def test_history_goes_to_xdg_state_home(tmp_path, monkeypatch):
    state = tmp_path / "state" / "deeper"  # created when missing
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    s = session()
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput())
        shell.print = lambda fragments: None
        pipe.send_text("d" + ENTER + "w f2" + ENTER + "quit" + ENTER)
        assert shell.run() == 0
    history = state / "musical" / "history"
    assert history.is_file()
    entries = [ln[1:] for ln in history.read_text(encoding="utf-8").splitlines() if ln.startswith("+")]
    assert entries == ["d", "w f2", "quit"]


def test_history_is_read_back_by_the_next_shell(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with create_pipe_input() as pipe:
        shell = Shell(session(), input=pipe, output=DummyOutput())
        shell.print = lambda fragments: None
        pipe.send_text("d; d; d" + ENTER + "quit" + ENTER)
        shell.run()
    s = session()
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput())
        shell.print = lambda fragments: None
        pipe.send_text("\x1b[A\x1b[A" + ENTER + "quit" + ENTER)  # up, up: the 'd; d; d' line
        shell.run()
    assert [str(m) for m in s.moves] == ["d", "d", "d"]


def test_an_unwritable_state_directory_does_not_stop_play(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    s = session()
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput())
        shell.print = lambda fragments: None
        pipe.send_text("d" + ENTER + "quit" + ENTER)
        assert shell.run() == 0
    assert s.moves == [DEAL]


# --- a dumb terminal, a history that cannot be used ---------------------------------------------------


def test_a_history_file_that_fails_mid_session_is_no_error(tmp_path):
    from musical_cli.shell import _SessionSafeHistory

    (tmp_path / "history").mkdir()  # the file replaced by a directory after the check
    history = _SessionSafeHistory(str(tmp_path / "history"))
    history.store_string("d")
    assert list(history.load_history_strings()) == []


def test_a_directory_in_place_of_the_history_file_gives_one_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "musical" / "history").mkdir(parents=True)
    r = run_shell("d" + ENTER + "quit" + ENTER, history=None)
    assert r.moves == ["d"]
    assert r.text.count("The history is kept for this session only") == 1
    assert str(tmp_path / "musical" / "history") in r.text


def test_the_plain_shell_for_a_dumb_terminal():
    out = io.StringIO()
    s = session()
    shell = Shell(s, input=io.StringIO("d\nw f2\nshow\n"), output=out, plain=True)
    assert shell.run() == 0
    assert [str(m) for m in s.moves] == ["d"]
    text = out.getvalue()
    assert "\x1b" not in text
    assert text.count("musical> ") == 4 and "needs a 6" in text and re.search(r"waste\s+J♦", text)


# --- a bracketed paste of many lines ------------------------------------------------------------

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def paste(text: str) -> str:
    return PASTE_START + text + PASTE_END


def test_a_pasted_game_runs_line_by_line():
    r = run_shell(paste("d\nd\r\n\nd\n") + "quit" + ENTER + CTRL_D)
    assert r.moves == ["d", "d", "d"]
    assert "takes no argument" not in r.text
    assert r.text.count("musical> d\n") == 2  # the lines after the first are shown as typed


def test_a_paste_stops_at_a_failing_line():
    r = run_shell(paste("d\nw f2\nd\nd\n") + "quit" + ENTER + CTRL_D)
    assert r.moves == ["d"]
    assert "needs a 6" in r.text
    assert "the rest of the paste was not run (2 lines)" in r.text
    r = run_shell(paste("d\nw f2\nd\nd") + "quit" + ENTER + CTRL_D)  # the unfinished last line too
    assert r.moves == ["d"]
    assert "the rest of the paste was not run (2 lines)" in r.text


def test_what_follows_a_pastes_last_line_break_is_left_to_edit():
    r = run_shell(paste("d\nd") + ENTER + "quit" + ENTER + CTRL_D)
    assert r.moves == ["d", "d"]
    r = run_shell(paste("d\nw") + " f3" + ENTER + "quit" + ENTER + CTRL_D)  # completed by hand: 'w f3'
    assert r.moves == ["d"]
    assert "unknown command 'w f3'" not in r.text and "needs" in r.text


def test_a_paste_of_one_line_is_typed_text():
    r = run_shell(paste("d") + ENTER + "quit" + ENTER + CTRL_D)
    assert r.moves == ["d"]


# --- a long line of moves, wrapped between moves ------------------------------------------------------


def test_solve_in_the_shell_fits_the_terminal_and_groups_the_passes():
    r = run_shell("solve" + ENTER + "quit" + ENTER + CTRL_D)  # DummyOutput: 80 columns
    lines = r.styled("class:hint").splitlines()
    assert lines[0] == "a win in 142 moves:"
    assert all(len(ln) < 80 for ln in lines), lines
    assert sum(ln.startswith("  pass ") for ln in lines) == 3
    assert not any(re.search(r"\bw$", ln) for ln in lines)  # never 'w' at a line's end, 'f4' on the next


def test_completion_offers_only_the_moves_that_are_legal_now():
    from musical_cli.games import game_named
    from musical_cli.moves import Transfer

    calculation = game_named("calculation")
    s = Session(calculation, DealNumber(1), interactive=True)
    waste_targets = [str(m.target) for m in calculation.legal_moves(s.state)
                     if isinstance(m, Transfer) and str(m.source) == "w"]
    assert complete("w ", s) == waste_targets and "p1" in waste_targets
    # pile cards on the piles until one of them can go to a foundation: its pile then completes
    # as a first word, and after it only the foundations that take it
    for _ in range(40):
        pile_moves = [m for m in calculation.legal_moves(s.state)
                      if isinstance(m, Transfer) and m.source.kind == "p"]
        if pile_moves:
            break
        execute(s, "w p1" if s.state.waste_top.rank % 2 else "w p2")
    assert pile_moves
    source = str(pile_moves[0].source)
    assert source in complete("", s) and source in complete(source[0], s)
    assert complete(source + " ", s) == [str(m.target) for m in pile_moves if str(m.source) == source]
    assert "p4" not in complete("", s)  # pile 4 is empty: nothing to move from it


def coached_plain_shell(monkeypatch, lines: str, wait: float = 30.0) -> tuple[Shell, io.StringIO]:
    """A dumb terminal's shell on deal 1 (winnable) with the coach on; ``wait``: how long the
    prompt waits for a verdict (long here: a loaded machine must not change what is printed)."""
    from musical_cli import shell as shell_module

    monkeypatch.setattr(shell_module, "PLAIN_COACH_WAIT", wait)
    out = io.StringIO()
    s = session()
    s.coach = True
    return Shell(s, input=io.StringIO(lines), output=out, plain=True), out


def test_the_coach_on_a_dumb_terminal_prints_its_verdict_before_each_prompt(monkeypatch):
    """No status line there: the verdict is a line of its own, once a position; 'coach' says it."""
    shell, out = coached_plain_shell(monkeypatch, "d\nbogus\ncoach\ncoach off\nd\n")
    assert shell.run() == 0
    text = out.getvalue()
    assert "\x1b" not in text
    verdicts = re.findall(r"^winnable: \d+ moves$", text, re.M)
    assert len(verdicts) == 2  # the deal, then after 'd'; not again for a command that moved nothing
    assert re.search(r"^musical> the coach is on: winnable: \d+ moves$", text, re.M)
    assert text.count("winnable:") == 3  # the coach off: no more


def test_a_verdict_not_ready_on_a_dumb_terminal_says_so(monkeypatch):
    shell, out = coached_plain_shell(monkeypatch, "", wait=0.0)
    monkeypatch.setattr(shell.coach, "thinking", lambda: True)
    monkeypatch.setattr(shell.coach, "status", lambda: "coach: thinking...")
    assert shell.run() == 0
    assert "coach: thinking... ('coach' shows the verdict when it is ready)" in out.getvalue()


def test_the_coach_on_again_on_a_dumb_terminal_says_its_verdict_again(monkeypatch):
    shell, out = coached_plain_shell(monkeypatch, "coach off\ncoach on\n")
    assert shell.run() == 0
    text = out.getvalue()
    assert len(re.findall(r"^winnable: \d+ moves$", text, re.M)) == 2  # at the deal, and after 'coach on'
    assert "the coach is on: its verdict shows after each move" in text


# --- a line of several commands ----------------------------------------------------------------


def test_a_failing_command_on_a_line_still_shows_what_those_before_it_did():
    """'d; d; w f9': the two deals are made (the record has them); the layout they led to is shown
    before the error, as if typed one a line. It once showed only the error."""
    r = run_shell("d; d; w f9" + ENTER + "quit" + ENTER)
    assert r.moves == ["d", "d"]
    texts = [plain(f) for f in r.printed]
    error = next(i for i, t in enumerate(texts) if "foundation 9" in t)
    assert re.search(r"waste\s+2♦", texts[error - 1]), texts[error - 1]


def test_a_game_lost_by_the_moves_before_a_failing_one_is_said_lost():
    """Calculation deal 7: sixty 'w p1' lose it at the 48th (the pile takes the rest); the 49th
    fails. The loss is announced, then the error."""
    from musical_cli.games import game_named

    s = Session(game_named("calculation"), DealNumber(7), interactive=True)
    r = run_shell("; ".join(["w p1"] * 60) + ENTER + "quit" + ENTER, s)
    assert s.outcome() is Outcome.LOST and len(r.moves) == 96  # 48 placements, 48 cards turned up
    text = r.text
    assert "the game is lost" in text and text.index("the game is lost") < text.index("the waste is empty")
    # said once, by the layout; the reply adds the deal and the count (it once repeated the line)
    assert text.count("the game is lost") == 1 and "Deal 7 is lost after 48 moves." in text


def test_what_a_command_says_comes_after_the_layout_of_the_moves_before_it():
    """'d; d; d; moves': the layout after the three deals, then the legal moves from there (they
    once came first, above a layout they did not belong to)."""
    s = session()
    reply = execute(s, "d; d; d; moves")
    assert not reply.show  # the layout is in the text, in its place
    text = plain(reply.out)
    assert re.search(r"waste\s+\S+", text) and text.index("stock 41") < text.index("legal")
    one = execute(session(), "d")
    assert one.show and not one.out  # a lone move still leaves the layout to the shell


def test_the_layout_before_a_failing_command_is_shown_once():
    """'d; d; moves; w f9': the layout after the deals comes with what 'moves' said, once (the
    error path printed it again)."""
    r = run_shell("d; d; moves; w f9" + ENTER + "quit" + ENTER)
    text = r.text
    assert text.count("stock 42") == 1, text
    assert text.index("stock 42") < text.index("legal") < text.index("foundation 9")


def test_ctrl_c_in_a_line_still_shows_what_the_commands_before_it_did(monkeypatch):
    from dataclasses import replace

    def interrupted(session, args):
        raise KeyboardInterrupt

    from musical_cli import commands

    monkeypatch.setitem(commands._BY_NAME, "hint", replace(REGISTRY["hint"], handler=interrupted))
    r = run_shell("d; d; hint" + ENTER + "quit" + ENTER)
    texts = [plain(f) for f in r.printed]
    cancelled = next(i for i, t in enumerate(texts) if "cancelled" in t)
    assert r.moves == ["d", "d"] and "stock 42" in texts[cancelled - 1]


def test_a_bug_in_a_line_still_shows_what_the_commands_before_it_did(monkeypatch):
    from dataclasses import replace

    def broken(session, args):
        raise RuntimeError("a bug")

    from musical_cli import commands

    monkeypatch.setitem(commands._BY_NAME, "hint", replace(REGISTRY["hint"], handler=broken))
    r = run_shell("d; d; hint" + ENTER + "quit" + ENTER)
    texts = [plain(f) for f in r.printed]
    bug = next(i for i, t in enumerate(texts) if "internal error" in t)
    assert "stock 42" in texts[bug - 1] and "the game goes on" in texts[bug]


def test_the_coach_speaks_in_lines_where_the_terminal_does_not_answer_the_cursor_request(monkeypatch):
    """A terminal that does not answer the cursor-position request gets no bottom toolbar from
    prompt_toolkit: there, as on a dumb terminal, the coach's verdict is a line before the prompt."""
    from prompt_toolkit.renderer import CPR_Support

    from musical_cli import shell as shell_module

    monkeypatch.setattr(shell_module, "PLAIN_COACH_WAIT", 30.0)
    s = session()
    s.coach = True
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=DummyOutput(), history=InMemoryHistory())
        assert shell.prompt is not None
        shell.prompt.app.renderer.cpr_support = CPR_Support.NOT_SUPPORTED
        said: list[str] = []
        monkeypatch.setattr(shell, "print", lambda fragments: said.append(plain(fragments)))
        shell._beside()
        shell.coach.cancel()
    assert any(re.fullmatch(r"winnable: \d+ moves\n", text) for text in said), said
