"""Issue 23, items 1-8: the shell at 80x24 in every game and variant. Words that mean one thing
(``q 7`` in Crazy Quilt), text wrapped between words and paged, help and moves from the rules in
hand, the variants' names, the quilt's marks, Calculation's move count and its lost-game hint."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prompt_toolkit.data_structures import Size
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games import GAMES
from musical_cli.language import CommandError, Session, execute
from musical_cli.moves import DEAL, Transfer
from musical_cli.render import line, plain, wrap
from musical_cli.shell import Shell, ShellCompleter

ENTER = "\r"
MUSICAL, CALCULATION, QUILT = GAMES["musical"], GAMES["calculation"], GAMES["crazy-quilt"]

# Every game and variant: (game, rule options, the name players know it by).
VARIANTS = [
    (MUSICAL, {}, "Musical"),
    (MUSICAL, {"redeals": "1"}, "Musical with 1 redeal"),
    (CALCULATION, {}, "Calculation"),
    (CALCULATION, {"piles": "3"}, "Calculation with 3 piles"),
    (CALCULATION, {"bases": "no"}, "Calculation with no bases"),
    (QUILT, {}, "Crazy Quilt"),
    (QUILT, {"redeals": "2"}, "Indian Carpet"),
    (QUILT, {"reserves": "yes"}, "Persian Rug"),
]


def session(game=MUSICAL, options=None, deal=1, interactive=True) -> Session:
    return Session(game, DealNumber(deal), game.rules_from_options(options or {}), interactive=interactive)


def text(reply) -> str:
    return plain(reply.out)


class Screen(DummyOutput):
    """prompt_toolkit's DummyOutput at a chosen size."""

    def __init__(self, rows: int = 24, columns: int = 80):
        super().__init__()
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def run_shell(s: Session, keys: str, rows: int = 24, columns: int = 80, paging: bool | None = None):
    """Type ``keys`` into a Shell at rows x columns; the text it printed, each print apart."""
    printed: list[str] = []
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=Screen(rows, columns), history=InMemoryHistory())
        shell.paging = paging
        real = shell.print
        shell.print = lambda fragments: (printed.append(plain(wrap(fragments, columns))), real(fragments))
        pipe.send_text(keys)
        assert shell.run() == 0
    return printed


# --- 1: q 7 ----------------------------------------------------------------------------------


def test_q_and_more_is_a_quilt_move_in_crazy_quilt():
    s = session(QUILT)
    with pytest.raises(CommandError, match=r"'q 7': q is followed by 2 digits; did you mean q7N\?"):
        execute(s, "q 7")
    with pytest.raises(CommandError, match="did you mean q7N"):
        execute(s, "Q7")
    assert not execute(s, "q78").quit and [str(m) for m in s.moves] == ["q78 f2"]  # the short form
    assert execute(s, "q").quit  # q alone is still quit


def test_q_7_leaves_the_crazy_quilt_shell_running():
    s = session(QUILT)
    out = "".join(run_shell(s, "q 7" + ENTER + "q78" + ENTER + "quit" + ENTER))
    assert "did you mean q7N?" in out
    assert [str(m) for m in s.moves] == ["q78 f2"]  # the line after 'q 7' still ran


@pytest.mark.parametrize("word", ["quit", "exit", "q"])
def test_a_command_that_takes_no_argument_refuses_one(word):
    s = session(MUSICAL)  # in Musical, q is no move: 'q 7' is quit with an argument
    with pytest.raises(CommandError, match="quit takes no argument; got '7'"):
        execute(s, f"{word} 7")
    with pytest.raises(CommandError, match="quit takes no argument"):
        execute(session(QUILT), f"{'quit' if word == 'q' else word} 7")


# --- 2: wrapping -----------------------------------------------------------------------------


def test_wrap_breaks_between_words_and_keeps_moves_whole():
    moves = ", ".join(f"q{r}{c} f{r}" for r in range(1, 9) for c in range(1, 4))
    message = f"q45: q45 is not available; legal now: {moves}"
    lines = plain(wrap(line(message, "error"), 80)).splitlines()
    assert len(lines) > 1 and all(len(t) <= 79 for t in lines)
    assert " ".join(t.strip() for t in lines) == message  # nothing lost, nothing cut
    assert all(re.fullmatch(r"q\d\d f\d,?", item) for t in lines[1:] for item in re.findall(r"\S+ \S+", t))
    assert plain(wrap(line("short", "bad"), 80)) == "short\n"
    styled = wrap([("class:a", "one " * 30), ("class:b", "two " * 10 + "\n")], 40)
    assert {s for s, _ in styled} >= {"class:a", "class:b"}  # the styles are kept


def test_a_path_longer_than_a_line_is_cut_between_its_parts():
    # the record's notice once cut a file name inside its time stamp ("...-122" / "618")
    path = "/tmp/tmp.qUB41j8hXz/.local/share/musical/musical.sqlite3.corrupt-20261202-122618"
    lines = plain(wrap(line(f"the record is damaged: it is kept as {path}; play goes on"), 60)).splitlines()
    assert all(len(t) <= 59 for t in lines)
    assert all(not (a.rstrip()[-1].isalnum() and b.lstrip()[0].isalnum()) for a, b in zip(lines, lines[1:], strict=False))
    assert any(t.rstrip().endswith(("/", ".", "-")) for t in lines)  # cut after a separator


@settings(max_examples=200)
@given(st.lists(st.text(alphabet="ab/.-,é", min_size=1, max_size=90), min_size=1, max_size=12),
       st.integers(min_value=20, max_value=100))
def test_wrap_keeps_every_character_and_fits_the_width(words, width):
    message = " ".join(words)
    lines = plain(wrap(line(message), width)).splitlines()
    assert all(len(t) <= max(width, 20) - 1 for t in lines)
    assert "".join(t.replace(" ", "") for t in lines) == message.replace(" ", "")


def test_every_line_the_shell_prints_fits_its_terminal():
    s = session(QUILT)
    printed = run_shell(s, "q11 f1" + ENTER + "moves" + ENTER + "help hint" + ENTER + "quit" + ENTER, columns=60)
    assert all(len(t) <= 59 for p in printed for t in p.splitlines())
    assert any("legal now:" in p and p.count("\n") > 1 for p in printed)


def test_batch_output_wraps_at_80_and_errors_stay_one_line():
    import io

    from musical_cli.batch import run_batch

    out, err = io.StringIO(), io.StringIO()
    s = session(QUILT, interactive=False)
    assert run_batch(["help hint\n", "q11 f1\n"], s, out, err) == 3
    assert all(len(t) <= 79 for t in out.getvalue().splitlines())
    assert len(err.getvalue().splitlines()) == 1 and err.getvalue().startswith("line 2: q11 f1:")


def test_the_toolbar_is_shortened_to_fit():
    s = session(QUILT, {"redeals": "2"})
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=Screen(24, 50), history=InMemoryHistory())
        bar = plain(shell.toolbar())
        assert len(bar) <= 50 and bar.startswith(" Indian Carpet deal 1")
        shell.output.size = Size(rows=24, columns=200)
        assert "'help' lists the commands" in plain(shell.toolbar())


# --- 3: help fits, rules page ----------------------------------------------------------------


@pytest.mark.parametrize(("game", "options", "name"), VARIANTS)
def test_help_fits_24_rows_moves_first(game, options, name):
    s = session(game, options)
    out = text(execute(s, "help"))
    rows = plain(wrap(line(out.rstrip("\n")), 80)).splitlines()
    assert len(rows) <= 22 and all(len(r) <= 79 for r in rows)
    assert rows[0] == f"Moves in {name}:"
    assert "undo [N]" in out and "help [COMMAND]" in out


def test_help_command_explains_one_and_help_of_a_move_letter():
    s = session(QUILT)
    assert "take back the last move" in text(execute(s, "help undo"))
    out = text(execute(s, "help q"))
    assert "qRC fN" in out and "leave" in out  # the quilt moves, and the command q
    assert "not a winning line" in text(execute(session(CALCULATION), "help hint"))


def test_rules_page_on_a_terminal():
    s = session(QUILT)
    printed = run_shell(s, "rules" + ENTER + "q" + "quit" + ENTER, paging=True)
    rules = plain(wrap(line(text(execute(s, "rules")).rstrip("\n")), 80)).splitlines()
    assert len(rules) > 23
    page = next(p for p in printed if p.startswith("Crazy Quilt (also"))
    assert page.splitlines() == rules[:23]  # a screenful less the question; q stopped it
    assert not any(rules[23] in p for p in printed)
    # space shows the next screenful
    printed = run_shell(session(QUILT), "rules" + ENTER + " " * 5 + "quit" + ENTER, paging=True)
    assert "\n".join(printed).count(rules[-1]) == 1


def test_no_paging_off_a_terminal():
    printed = run_shell(session(QUILT), "rules" + ENTER + "quit" + ENTER)  # DummyOutput: no tty
    assert any(p.count("\n") > 23 for p in printed)


# --- 4: the variants' names ------------------------------------------------------------------


@pytest.mark.parametrize(("game", "options", "name"), VARIANTS)
def test_the_variant_is_named_as_players_know_it(game, options, name):
    s = session(game, options)
    assert game.variant_title(s.rules) == name
    # a name that says its rules takes a comma before the deal
    assert plain(s.layout()).startswith(f"{name}{',' if ' with ' in name else ''} deal 1 ")
    printed = run_shell(s, "quit" + ENTER)
    assert printed[0].startswith(f"{name}, deal 1. ")


def test_variant_titles_beyond_the_named_variants():
    rules = QUILT.rules_from_options
    assert QUILT.variant_title(rules({"redeals": "3", "wrap": "yes"})) == "Crazy Quilt with 3 redeals and wrap"
    assert QUILT.variant_title(rules({"redeals": "0"})) == "Crazy Quilt with no redeal"
    assert QUILT.variant_title(rules({"reserves": "yes", "wrap": "yes"})) == "Persian Rug with wrap"
    assert MUSICAL.variant_title(MUSICAL.rules_from_options({"redeals": "unlimited"})) == "Musical with unlimited redeals"
    assert CALCULATION.variant_title(CALCULATION.rules_from_options({"piles": "3", "bases": "no"})) == \
        "Calculation with 3 piles and no bases"
    assert QUILT.variant_title() == "Crazy Quilt"


def test_the_records_transcripts_name_the_variant(tmp_path):
    from musical_cli.record import export, recorded_text, variant_name
    from musical_cli.store import Store

    store = Store.open(tmp_path / "record.sqlite")
    try:
        rules = {"redeals": "2", "wrap": "no", "reserves": "no"}
        game_id = store.new_game("crazy-quilt", rules, "5")
        store.save(game_id, keep=0, append=[("q78 f2", 0)], moves=1, result="in play")
        assert recorded_text(f"@{game_id}", store).startswith(f"# game @{game_id} of the record: Indian Carpet deal 5 (")
        (path,) = export(store.games(limit=10), store, tmp_path / "out")
        assert f"game @{game_id} of the record: Indian Carpet deal 5, started" in path.read_text(encoding="utf-8")
    finally:
        store.close()
    assert variant_name("no-such-game", {}) == "no-such-game"
    assert variant_name("crazy-quilt", {"redeals": "many"}) == "crazy-quilt (redeals many)"


# --- 5: help, completion and moves from the rules in hand ------------------------------------


def test_persian_rug_has_no_d_redeal_or_waste():
    s = session(QUILT, {"reserves": "yes"})
    out = text(execute(s, "help"))
    assert not re.search(r"^  (d|redeal|w fN|w \[TARGET\])\b", out, re.M)
    assert "rN fM" in out
    with pytest.raises(CommandError, match="Persian Rug has no move 'd'"):
        execute(s, "help d")
    completer = ShellCompleter(s)
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    names = [c.text for c in completer.get_completions(Document(""), CompleteEvent(completion_requested=True))]
    assert not {"d", "deal", "redeal", "w"} & set(names) and "undo" in names
    helps = [c.text for c in completer.get_completions(Document("help "), CompleteEvent(completion_requested=True))]
    assert "d" not in helps and "undo" in helps
    # Crazy Quilt itself keeps them
    out = text(execute(session(QUILT), "help"))
    assert re.search(r"^  d ", out, re.M) and "w fN" in out and "rN fM" not in out


def test_calculation_help_lists_no_redeal():
    out = text(execute(session(CALCULATION), "help"))
    assert "redeal" not in out and "w pN" in out


# --- 6: the quilt's marks --------------------------------------------------------------------


def test_the_quilt_marks_only_the_cards_that_can_move_now():
    from musical_cli.games.crazy_quilt.rules import QUILT as KIND

    s = session(QUILT)
    sources = {str(m.source) for m in QUILT.legal_moves(s.state) if isinstance(m, Transfer) and m.source.kind == KIND}
    assert sources == {"q78", "q81"}
    drawing = plain(s.layout()).splitlines()
    marked = {f"q{row[2]}{n + 1}" for row in drawing if re.match(r"  \d  ", row)
              for n in range(8) if row[5 + 6 * n] == "*"}
    assert marked == sources
    assert len(s.state.available_cells()) == 16  # the rules' "available": free, not all movable
    assert "* can move" in "\n".join(drawing)


# --- 7: Calculation counts the player's moves ------------------------------------------------


def placements(s: Session, n: int) -> None:
    """``n`` of the player's moves, each the first legal one."""
    for _ in range(n):
        execute(s, str(CALCULATION.legal_moves(s.state)[0]))


def test_calculation_counts_placements_not_turns():
    s = session(CALCULATION)
    assert s.moves == [DEAL] and s.move_count == 0
    assert " 0 moves " in plain(s.layout())
    placements(s, 25)
    assert s.move_count == 25 and " 25 moves " in plain(s.layout())
    assert len(s.moves) > 40  # the record keeps the turns too
    assert text(execute(s, "undo 20")) == "undid 20 moves\n"
    assert s.move_count == 5
    assert text(execute(s, "redo 3")).startswith("redid 3 moves")


def test_solve_play_turns_go_with_the_placement_before():
    s = session(CALCULATION, deal=3)
    execute(s, "w p1")
    execute(s, "solve play")
    assert s.outcome() is Outcome.WON
    assert len(s.steps) == s.move_count  # a step a placement: no lone turn to undo
    assert text(execute(s, "undo")) == "undid 1 move\n"


def test_the_records_step_numbers_still_replay():
    from musical_cli.record import Recorder

    s = session(CALCULATION)
    placements(s, 6)
    recorder = Recorder.__new__(Recorder)
    recorder.session, recorder._texts = s, {}
    line_ = recorder.line()
    assert len(line_) == len(s.moves)
    assert [step for _, step in line_][:1] == [-1]  # the first turn, before any step
    assert sorted({step for _, step in line_ if step >= 0}) == list(range(6))


def test_batch_mode_counts_as_the_shell_does():
    """The turn typed in batch mode is no move, as the shell's own turn is none."""
    s = session(CALCULATION, interactive=False)
    execute(s, "d; w p1")
    assert s.move_count == 1 and len(s.moves) == 2


# --- 8: Calculation's lost game --------------------------------------------------------------


def lost_calculation() -> Session:
    """A Calculation game played to a loss: every card to pile 1 unless a foundation takes it."""
    s = session(CALCULATION)
    while s.outcome() is Outcome.IN_PLAY:
        legal = CALCULATION.legal_moves(s.state)
        move = next((m for m in legal if m.target is not None and m.target.kind == "f"), None)
        execute(s, str(move) if move else "w p1")  # the waste always holds a card in play
    assert s.outcome() is Outcome.LOST
    return s


def test_the_lost_calculation_game_promises_only_hindsight():
    s = lost_calculation()
    s2 = session(CALCULATION)
    s2.start(s.game, s.deal, s.rules, tuple(s.moves[:-1]))
    reply = execute(s2, str(s.moves[-1]))
    message = text(reply)
    assert "in hindsight" in message and "finds where a win" not in message
    out = text(execute(s, "hint"))
    assert out.startswith("In hindsight (the game is lost, so every card has been seen):")
    assert "no move is left" not in out


def test_the_lost_musical_game_still_offers_the_hint(monkeypatch):
    from musical_cli.commands import announce_outcome

    s = session(MUSICAL)
    monkeypatch.setattr(s, "outcome", lambda: Outcome.LOST)  # the message alone
    assert "'hint' says whether a win was still possible, and where" in text(announce_outcome(s))


def test_a_loaded_calculation_game_undoes_placements():
    played = session(CALCULATION)
    placements(played, 10)
    s = session(CALCULATION)
    s.start(CALCULATION, s.deal, s.rules, tuple(played.moves), how="loaded")
    assert len(s.steps) == s.move_count == 10 and sum(s.steps) == len(s.moves) - 1  # the opening turn stays
    assert text(execute(s, "undo 3")) == "undid 3 moves\n"
    assert s.moves == played.moves[:len(s.moves)] and s.state == s.states[-1]
    assert str(s.moves[-1]) == "d"  # a placement and its turn went back together


# --- issue 52, edge 4: the title line, and the win screen, at 80x24 ----------------------------


def test_the_title_reads_well_and_wraps_between_its_parts():
    s = session(MUSICAL, {"redeals": "1"}, deal=928750127)
    s.mark(chosen="winnable")
    title = plain(s.layout()).splitlines()[:2]
    assert title == ["Musical with 1 redeal, deal 928750127 (dealt winnable)",
                     "  pass 1 of 2 · 0 moves · 44 to build"]
    q = session(QUILT, deal=885372831)
    q.mark(chosen="winnable")
    assert plain(q.layout()).splitlines()[:2] == ["Crazy Quilt deal 885372831 (dealt winnable)",
                                                  "  pass 1 of 2 · 0 moves · 96 to build"]
    # one line where it fits; a bar between the parts in ASCII
    assert plain(session(MUSICAL, deal=7).layout()).splitlines()[0] == "Musical deal 7 · pass 1 of 3 · 0 moves · 44 to build"
    a = Session(MUSICAL, DealNumber(928750127), MUSICAL.rules_from_options({"redeals": "1"}), ascii=True,
                interactive=True)
    a.mark(chosen="winnable")
    assert plain(a.layout()).splitlines()[1] == "  pass 1 of 2 | 0 moves | 44 to build"


@pytest.mark.parametrize(("options", "deal", "chosen"), [({}, 885372831, "winnable"), ({"reserves": "yes"}, 1, None)],
                         ids=["Crazy Quilt", "Persian Rug"])
def test_the_win_screen_leaves_the_typed_command_on_a_24_row_screen(options, deal, chosen):
    """The winning move's answer and the layout after it fit the 21 rows left by the command
    typed, the prompt and the toolbar; the win is said last, over the prompt."""
    solved = session(QUILT, options, deal)
    execute(solved, "solve play")
    s = session(QUILT, options, deal)
    s.start(s.game, s.deal, s.rules, tuple(solved.moves[:-1]))
    if chosen:
        s.mark(chosen=chosen)
    reply = execute(s, str(solved.moves[-1]))
    assert s.outcome() is Outcome.WON
    screen = plain(wrap(reply.out + s.layout(), 80)).splitlines()
    assert screen[-1].startswith(f"  You won deal {deal} in ")
    assert len(screen) <= 24 - 3, screen


# --- issue 52, edge 7: the loss message promises no win that may not exist --------------------


def test_the_loss_message_promises_no_win_and_says_what_the_hints_know():
    s = session(MUSICAL, {"redeals": "0"}, deal=2)
    said = text(execute(s, ";".join(["d"] * 44)))
    assert s.outcome() is Outcome.LOST
    assert "Deal 2 is lost after 44 moves. Type 'undo' to go back ('hint' says whether a win was " \
           "still possible, and where)" in said
    assert "finds where" not in said
    assert "even from its start" in text(execute(s, "hint"))
    execute(s, "undo")
    said = text(execute(s, "d"))  # lost again, and now the hints know the start is lost
    assert "Deal 2 is lost after 44 moves. It could not be won from its start either: type 'new'" in said
    assert "'undo'" not in said


# --- issue 52, edge 9: with Calculation's stock empty, nothing is hidden ------------------------


def test_calculation_s_hint_is_exact_once_the_stock_is_empty():
    from musical_cli.solver import blind_hint

    s = session(CALCULATION)
    while s.state.stock:
        assert s.outcome() is Outcome.IN_PLAY
        said = text(execute(s, "hint"))
        assert said.endswith("(from what you can see; the stock stays hidden)\n")
        execute(s, str(blind_hint(CALCULATION, s.state)))
    assert s.outcome() is Outcome.IN_PLAY and s.state.waste  # deal 1: the last card, to place
    said = text(execute(s, "hint"))
    assert said.startswith("hint: ") and "stays hidden" not in said
    assert "(a win in " in said  # the solver's own hint: every card has been seen
