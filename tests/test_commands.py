"""The command language without any UI: split_line, the registry, execute, undo/redo, new/restart,
help, and save/load."""

from __future__ import annotations

import importlib.util
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lines import winning_line

from musical_cli.commands import Unattended
from musical_cli.deals import DealNumber
from musical_cli.game import IllegalMove, Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.language import REGISTRY, CommandError, Session, execute, lookup, split_line
from musical_cli.moves import DEAL, REDEAL, F, Transfer, W
from musical_cli.render import plain

# Commands the shell must have, with their aliases (the advice and record commands are tested apart).
REQUIRED = {
    "d": ("deal",), "w": (), "redeal": (), "undo": (), "redo": (), "moves": (), "show": (),
    "new": (), "restart": (), "help": (), "quit": ("exit",), "save": (), "load": (),
}


def session(deal: int | str = 1, redeals: int | None = 2, interactive: bool = False) -> Session:
    return Session(MUSICAL, DealNumber.parse(deal), MusicalRules(redeals), interactive=interactive)


def text(reply) -> str:
    return plain(reply.out)


def snapshot(s: Session) -> tuple:
    """Everything a command may change."""
    return (s.game, s.deal, s.rules, tuple(s.states), tuple(s.moves), tuple(s.undone))


# Deal 1 from the top: J♦ 2♦ 9♥ ...; the foundations need 3, 6, 9, Q. After three deals the
# waste shows 9♥, which foundation 3 takes and nothing else does.
AT_9H = "d; d; d"


# --- split_line --------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "parts"), [
    ("d", ["d"]),
    ("d;d", ["d", "d"]),
    ("  d ;  w f2 ;redeal  ", ["d", "w f2", "redeal"]),
    ("d;;  ; d", ["d", "d"]),
    ("", []),
    ("   ", []),
    (";", []),
    ("# a comment", []),
    ("   # indented comment; d", []),
    ("d # deal one; d", ["d"]),
    ("d; w f3 # then play", ["d", "w f3"]),
    ("\td\t", ["d"]),
])
def test_split_line(line, parts):
    assert split_line(line) == parts


words = st.text(alphabet="abcdefwr0123456789 \t", min_size=0, max_size=8)


@given(st.lists(words, max_size=6), st.text(max_size=10))
def test_split_line_drops_blanks_and_everything_after_hash(parts, comment):
    line = ";".join(parts) + "#" + comment
    assert split_line(line) == [p.strip() for p in parts if p.strip()]


# --- the registry ------------------------------------------------------------------------------


def test_registry_holds_the_commands_of_the_issue():
    for name, aliases in REQUIRED.items():
        assert name in REGISTRY, name
        for alias in aliases:
            assert alias in REGISTRY[name].names, (name, alias)


def test_no_name_or_alias_is_shared_by_two_commands():
    names = [n for cmd in REGISTRY.values() for n in cmd.names]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_command_reachable_by_every_name_in_any_case(name):
    cmd = REGISTRY[name]
    assert cmd.name == name
    for n in cmd.names:
        assert lookup(n) is cmd
        assert lookup(n.upper()) is cmd
        assert lookup(n.capitalize()) is cmd
    assert cmd.usage.split()[0].startswith(name)
    assert cmd.summary


def test_lookup_of_unknown_words():
    for word in ("", "xyzzy", "wf2", "d;", "undo2"):
        assert lookup(word) is None


# --- moves through execute ---------------------------------------------------------------------


def test_d_deals_the_top_card():
    s = session()
    reply = execute(s, "d")
    assert s.moves == [DEAL]
    assert s.state.waste_top.code == "JD"
    assert len(s.state.stock) == 43
    assert reply.show and not reply.quit


@pytest.mark.parametrize("spelling", ["w f3", "wf3", "w3", "w 3", "W F3", "WF3", "w   f3", "w"])
def test_waste_to_foundation_in_every_spelling(spelling):
    s = session()
    execute(s, AT_9H)
    before = s.state
    execute(s, spelling)
    assert s.moves[-1] == Transfer(W, F(3))
    assert str(s.moves[-1]) == "w f3"  # 'w' alone is recorded completed
    assert s.state == MUSICAL.apply(before, Transfer(W, F(3)))
    assert [c.code for c in s.state.foundations[2]] == ["6H", "9H"]


@pytest.mark.parametrize("spelling", ["D", "Deal", "DEAL", " d "])
def test_deal_in_any_case(spelling):
    s = session()
    execute(s, spelling)
    assert s.moves == [DEAL]


def test_redeal_in_any_case():
    s = session()
    execute(s, ";".join(["d"] * 44))
    assert not s.state.stock
    execute(s, "REDEAL")
    assert s.moves[-1] == REDEAL
    assert len(s.state.stock) == 44 - sum(len(f) - 1 for f in s.state.foundations)
    assert s.state.redeals_used == 1


def test_several_commands_on_a_line():
    s = session()
    execute(s, "d; d ;d;w f3")
    assert [str(m) for m in s.moves] == ["d", "d", "d", "w f3"]


def test_a_failing_command_stops_the_line_and_keeps_what_came_before():
    s = session()
    with pytest.raises(IllegalMove) as e:
        execute(s, "d; d; w f2; d")
    assert [str(m) for m in s.moves] == ["d", "d"]
    assert "foundation 2 needs a 6" in str(e.value)
    assert "2♦" in str(e.value)


def test_illegal_move_is_a_value_error_with_the_engine_message():
    s = session()
    execute(s, "d")
    with pytest.raises(ValueError, match=r"w f2: foundation 2 needs a 6; the waste shows J♦; legal now: d"):
        execute(s, "w f2")


@pytest.mark.parametrize("interactive", [False, True])
def test_winning_says_so(interactive):
    s = session(2, interactive=interactive)
    *body, last = winning_line(2)
    execute(s, ";".join(body))
    assert s.outcome() is Outcome.IN_PLAY
    reply = execute(s, last)
    assert s.outcome() is Outcome.WON
    # the shell says it on the layout's last line, in place of the layout's own verdict
    said = text(reply) + (plain(s.layout()).splitlines()[-1] if interactive else "")
    assert reply.show and "won" in said.lower()
    assert f"{len(winning_line(2))} moves" in said
    if interactive:
        assert "'new'" in said  # the shell offers a new deal


def lose(s: Session):
    """Play greedily (a foundation move first, else deal) until the game is over; the last reply."""
    reply = None
    while s.outcome() is Outcome.IN_PLAY:
        reply = execute(s, str(MUSICAL.legal_moves(s.state)[0]))
    return reply


@pytest.mark.parametrize("interactive", [False, True])
def test_a_lost_position_says_no_move_is_left(interactive):
    s = session(1, redeals=0, interactive=interactive)
    reply = lose(s)
    assert s.outcome() is Outcome.LOST
    # the layout shown with the reply ends "No move is left: the game is lost."; the reply names
    # the deal and the count, not that line again
    assert reply.show and f"Deal {s.deal} is lost after " in text(reply) and "no move" not in text(reply).lower()
    if interactive:
        assert "'undo'" in text(reply)  # the shell suggests going back


# --- errors change nothing ---------------------------------------------------------------------

BAD = [
    "w f2",  # illegal: foundation 2 needs a 6
    "w",  # no foundation takes J♦
    "w f5", "w f0", "w p1", "p1 f2",
    "redeal",  # the stock is not empty
    "xyzzy", "d d", "d extra", "redeal now",
    "undo 0", "undo -1", "undo x", "undo 1 2",
    "redo",  # nothing to redo
    "redo 0",
    "new 0", "new abc", "new -3", "new 1 2",
    "restart now", "show x", "moves x",
    "help nothing", "help a b",
    "load", "load a b", "save a b",
    "solve nonsense",
]


@pytest.mark.parametrize("bad", BAD)
def test_a_bad_command_raises_and_changes_nothing(bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = session()
    execute(s, "d")
    before = snapshot(s)
    with pytest.raises(ValueError) as e:
        execute(s, bad)
    assert str(e.value)
    assert snapshot(s) == before


def test_unknown_command_is_a_command_error_naming_it():
    s = session()
    with pytest.raises(CommandError, match="xyzzy"):
        execute(s, "xyzzy")


def test_undo_with_nothing_to_undo():
    s = session()
    before = snapshot(s)
    with pytest.raises(CommandError):
        execute(s, "undo")
    assert snapshot(s) == before


@settings(max_examples=40)
@given(st.sampled_from(["w f2", "w", "redeal", "xyzzy", "undo 0", "new 0", "help nope"]),
       st.integers(0, 30), st.integers(1, 400))
def test_failing_commands_change_nothing_anywhere(bad, moves, deal):
    s = session(deal)
    for _ in range(moves):
        legal = MUSICAL.legal_moves(s.state)
        if not legal:
            break
        execute(s, str(legal[-1]))
    before = snapshot(s)
    try:
        execute(s, bad)
    except ValueError:
        assert snapshot(s) == before


# --- undo and redo -----------------------------------------------------------------------------


def test_undo_restores_the_exact_earlier_state():
    s = session()
    execute(s, AT_9H)
    earlier = s.state
    execute(s, "w f3")
    reply = execute(s, "undo")
    assert s.state == earlier
    assert s.state is earlier
    assert [str(m) for m in s.moves] == ["d", "d", "d"]
    assert "undid 1 move" in text(reply)
    assert reply.show


def test_undo_n_and_redo_n():
    s = session()
    states = [s.state]
    for cmd in ["d", "d", "d", "w f3", "d"]:
        execute(s, cmd)
        states.append(s.state)
    execute(s, "undo 3")
    assert s.state == states[2]
    assert len(s.moves) == 2
    execute(s, "redo")
    assert s.state == states[3]
    execute(s, "REDO 2")
    assert s.state == states[5]
    assert [str(m) for m in s.moves] == ["d", "d", "d", "w f3", "d"]
    with pytest.raises(CommandError):
        execute(s, "redo")


def test_undo_more_than_made_undoes_all():
    s = session()
    execute(s, "d; d")
    reply = execute(s, "undo 10")
    assert s.moves == []
    assert s.state == MUSICAL.opening(DealNumber(1))
    assert "2 moves" in text(reply)


def test_a_new_move_clears_redo():
    s = session()
    execute(s, AT_9H + "; w f3")
    execute(s, "u")
    assert s.undone
    execute(s, "d")  # a different move from the one undone
    assert not s.undone
    with pytest.raises(CommandError, match="nothing to redo"):
        execute(s, "redo")


def test_making_the_undone_move_again_keeps_the_rest_of_redo():
    s = session()
    execute(s, AT_9H + "; w f3; d")
    execute(s, "undo 2")
    execute(s, "w f3")  # the same move as the next redo: not a different future
    execute(s, "redo")
    assert [str(m) for m in s.moves] == ["d", "d", "d", "w f3", "d"]


@settings(max_examples=40)
@given(st.integers(1, 31999), st.data())
def test_undo_then_redo_walks_the_same_states(deal, data):
    s = session(deal)
    states = [s.state]
    for _ in range(data.draw(st.integers(1, 40), label="moves")):
        legal = MUSICAL.legal_moves(s.state)
        if not legal:
            break
        execute(s, str(data.draw(st.sampled_from(legal))))
        states.append(s.state)
    k = len(s.moves)
    if k == 0:
        return
    n = data.draw(st.integers(1, k), label="undo")
    execute(s, f"undo {n}")
    assert s.state == states[k - n]
    assert len(s.moves) == k - n
    execute(s, f"redo {n}")
    assert s.states == states


def test_moves_made_again_by_redo_are_taken_back_by_undo():
    """A step redo makes is a step again: undo takes it back whole (a placement and the card
    Calculation's shell turns up after it together), as often as the player goes back and forth."""
    s = session()
    execute(s, "d; d")
    execute(s, "undo 2; redo 2")
    reply = execute(s, "undo 2")
    assert "undid 2 moves" in text(reply) and s.moves == [] and s.state == MUSICAL.opening(DealNumber(1))
    execute(s, "redo 2; undo; undo; redo")
    assert [str(m) for m in s.moves] == ["d"]
    from musical_cli.games.calculation.rules import CALCULATION

    c = Session(CALCULATION, DealNumber(1), None, interactive=True)
    opening = c.state  # its first card turned up: undo never takes that back
    execute(c, "w p1")
    after_one = c.state
    execute(c, "w p2")
    for _ in range(2):
        execute(c, "undo 2; redo 2")
        execute(c, "undo")
        assert c.state == after_one and [str(m) for m in c.moves] == ["d", "w p1", "d"]
        execute(c, "undo")
        assert c.state == opening
        execute(c, "redo 2")


# --- new, restart, moves, show, quit ---------------------------------------------------------


def test_new_n_starts_that_deal():
    s = session()
    execute(s, "d; d")
    reply = execute(s, "new 5")
    assert s.deal == DealNumber(5)
    assert s.moves == [] and s.undone == []
    assert s.state == MUSICAL.opening(DealNumber(5))
    assert "deal 5" in text(reply)
    execute(s, "NEW MS7")
    assert s.deal == DealNumber(7, ms=True)


def test_new_keeps_the_rules():
    s = session(redeals=0)
    execute(s, "new 3")
    assert s.rules == MusicalRules(0)


def test_new_without_a_number_draws_one_and_says_which():
    s = session()
    reply = execute(s, "new")
    m = re.search(r"deal (\d+)", text(reply))
    assert m
    assert s.deal == DealNumber(int(m.group(1)))
    assert s.moves == []


def test_restart():
    s = session(4)
    execute(s, "d; d; undo")
    reply = execute(s, "restart")
    assert s.deal == DealNumber(4)
    assert s.moves == [] and s.undone == []
    assert s.state == MUSICAL.opening(DealNumber(4))
    assert "4" in text(reply)


def test_moves_lists_the_legal_moves():
    s = session()
    assert text(execute(s, "moves")).strip() == "legal: d"
    execute(s, AT_9H)
    listed = text(execute(s, "MOVES"))
    assert "w f3" in listed and "d" in listed
    assert s.moves == [DEAL] * 3  # listing moves plays nothing


def test_show_asks_for_the_layout():
    s = session()
    reply = execute(s, "show")
    assert reply.show and reply.asked
    layout = plain(s.layout())
    assert "A♣" in layout and "2♣" in layout and "44" in layout


def test_quit_and_its_aliases_stop_the_line():
    for word in ("quit", "exit", "QUIT", "q"):
        s = session()
        reply = execute(s, f"d; {word}; d")
        assert reply.quit
        assert s.moves == [DEAL]


# --- help ----------------------------------------------------------------------------------


def test_help_lists_every_command_and_move():
    # help fits 24 rows, so it lists the commands by usage ('help COMMAND' gives the
    # summary), and the move commands (d, w, redeal) as the game's moves.
    s = session()
    out = text(execute(s, "help"))
    assert len(out.splitlines()) <= 22  # a 24-row screen, less the prompt and the toolbar
    for cmd in REGISTRY.values():
        if cmd.plays:
            assert f"\n  {cmd.plays}" in out, cmd.name
        else:
            assert cmd.usage in out, cmd.name
    for usage, meaning in s.game.notation:
        assert re.search(rf"  {re.escape(usage)} +{re.escape(meaning)}\n", out), usage
    assert ";" in out  # says how to put several commands on a line


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_help_command_explains_it(name):
    cmd = REGISTRY[name]
    for n in cmd.names:
        out = text(execute(session(), f"help {n}"))
        assert cmd.usage in out
        assert cmd.summary in out
    assert text(execute(session(), f"HELP {name.upper()}")) == text(execute(session(), f"help {name}"))


def test_help_of_an_unknown_command():
    with pytest.raises(CommandError, match="nope"):
        execute(session(), "help nope")


# --- save and load -------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path):
    s = session(7)
    execute(s, "d; d; d; d; d; d")
    execute(s, "undo 2")  # undone moves are not saved
    path = tmp_path / "game.txt"
    reply = execute(s, f"save {path}")
    assert str(path) in text(reply)
    saved = path.read_text(encoding="utf-8")
    assert saved.splitlines()[0] == "format: musical-transcript 1"
    assert "deal: 7" in saved

    other = session(3, redeals=0)
    execute(other, "d")
    reply = execute(other, f"load {path}")
    assert str(path) in text(reply)
    assert other.deal == DealNumber(7)
    assert other.rules == s.rules
    assert other.moves == s.moves
    assert other.state == s.state
    assert other.states == s.states
    assert other.undone == []


def test_save_without_file_goes_to_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    s = session(12345)
    execute(s, "d; d")
    reply = execute(s, "save")
    saved = list(tmp_path.rglob("*"))
    saved = [p for p in saved if p.is_file()]
    assert len(saved) == 1
    path = saved[0]
    assert path.parent == tmp_path / "musical"
    assert "12345" in path.name
    assert str(path) in text(reply)
    other = session()
    execute(other, f"load {path}")
    assert other.deal == DealNumber(12345) and len(other.moves) == 2


def test_save_a_won_game_records_the_result(tmp_path):
    s = session(2)
    execute(s, ";".join(winning_line(2)))
    path = tmp_path / "won.txt"
    execute(s, f"save {path}")
    assert path.read_text(encoding="utf-8").splitlines()[-1] == "result: won"


def test_save_to_a_directory_is_an_error(tmp_path):
    s = session()
    execute(s, "d")
    before = snapshot(s)
    with pytest.raises(CommandError):
        execute(s, f"save {tmp_path}")
    assert snapshot(s) == before


BAD_FILES = {
    "missing": None,
    "garbage": b"hello world\n",
    "empty": b"",
    "not-utf8": b"format: musical-transcript 1\ngame: musical\ndeal: 1\n\xff\xfe\n",
    "illegal": b"format: musical-transcript 1\ngame: musical\ndeal: 1\nd\nw f2\n",
    "wrong-result": b"format: musical-transcript 1\ngame: musical\ndeal: 1\nd\nresult: won\n",
    "bad-deal": b"format: musical-transcript 1\ngame: musical\ndeal: 0\n",
    "bad-game": b"format: musical-transcript 1\ngame: chess\ndeal: 1\n",
    "bad-version": b"format: musical-transcript 99\ngame: musical\ndeal: 1\n",
    "huge": b"format: musical-transcript 1\ngame: musical\ndeal: 1\n" + b"# padding\n" * 120_000,
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_loading_a_bad_file_leaves_the_game_unchanged(kind, tmp_path):
    path = tmp_path / f"{kind}.txt"
    if BAD_FILES[kind] is not None:
        path.write_bytes(BAD_FILES[kind])
    s = session(9)
    execute(s, "d; d; d; undo")
    before = snapshot(s)
    with pytest.raises(CommandError) as e:
        execute(s, f"load {path}")
    assert str(path) in str(e.value)
    assert snapshot(s) == before


# --- hint / solve / auto (only once the solver exists) -------------------------------------
# The shell's hint and solve search for seconds (advice's *_BUDGET), as a player waits: they have
# no node limit. The positions asserted on here are decided in milliseconds; the tests of the
# budgets themselves replace the search (advice.decide) and count the seconds it was given.

needs_solver = pytest.mark.skipif(importlib.util.find_spec("musical_cli.solver") is None,
                                  reason="musical_cli/solver.py does not exist yet")


@needs_solver
@pytest.mark.parametrize("deal", [1, 2])
def test_hint_on_a_winnable_opening_names_a_legal_move(deal):
    s = session(deal)
    out = text(execute(s, "hint"))
    m = re.search(r"hint: (d|redeal|w f[1-4])\b", out)
    assert m, out
    assert m.group(1) in {str(mv) for mv in MUSICAL.legal_moves(s.state)}
    assert s.moves == []  # a hint plays nothing


@needs_solver
def test_solve_shows_a_line_that_wins():
    s = session(1)
    out = text(execute(s, "solve"))
    m = re.search(r"a win in (\d+) moves?:(.*)$", out.strip(), re.DOTALL)
    assert m, out
    assert s.moves == []  # showing plays nothing
    line = re.findall(r"w f[1-4]|redeal|d", m.group(2))
    assert len(line) == int(m.group(1))
    execute(s, ";".join(line))
    assert s.outcome() is Outcome.WON


@needs_solver
def test_solve_play_wins_and_undo_still_works():
    s = session(1)
    execute(s, "d")
    execute(s, "Solve play")
    assert s.outcome() is Outcome.WON
    n = len(s.moves)
    execute(s, "undo")
    assert len(s.moves) == n - 1 and s.outcome() is not Outcome.WON


@needs_solver
def test_hint_on_a_won_game():
    s = session(2)
    execute(s, ";".join(winning_line(2)))
    before = snapshot(s)
    assert "won" in text(execute(s, "hint"))
    assert snapshot(s) == before


@needs_solver
def test_auto_plays_legal_moves_only():
    s = session(1)
    opening = s.state
    execute(s, "auto")
    assert MUSICAL.play(opening, s.moves) == s.state


@needs_solver
def test_solve_play_in_any_case():
    s = session(2)
    execute(s, "SOLVE PLAY")
    assert s.outcome() is Outcome.WON


def _lost_session(seed: int = 3) -> Session:
    """Deal 2 (two redeals) along a winning line until 14 cards are left, then random moves
    until no win is left: a lost position whose game passed through winnable ones."""
    import random

    from musical_cli.solver import solve

    rng = random.Random(seed)
    s = session(2)
    for word in winning_line(2):
        if MUSICAL.cards_to_build(s.state) <= 14:
            break
        execute(s, word)
    while solve(MUSICAL, s.state, budget=None).result == "won":
        legal = MUSICAL.legal_moves(s.state)
        assert legal, f"won by chance with seed {seed}: pick another"
        plays = [m for m in legal if isinstance(m, Transfer)]
        execute(s, str(rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(legal)))
    return s


AGAIN = "type 'hint' again to search longer"


def _undo_count(out: str) -> int:
    m = re.search(r"'undo (\d+)' gets back to a position that can still be won", out)
    assert m, out
    return int(m.group(1))


def _winnable_after_undo(s: Session, n: int) -> bool:
    from musical_cli.solver import solve

    execute(s, f"undo {n}")
    return solve(MUSICAL, s.state, budget=None).result == "won"


@needs_solver
def test_hint_on_a_lost_position_says_how_far_to_undo():
    s = _lost_session()
    before = snapshot(s)
    out = text(execute(s, "hint"))
    assert "no win is possible from here" in out
    n = _undo_count(out)
    assert snapshot(s) == before  # a hint plays nothing
    assert _winnable_after_undo(s, n)


@needs_solver
def test_hint_on_a_deal_lost_from_its_start():
    s = session(1, redeals=0)  # no opening is winnable without a redeal
    execute(s, "d;d;d")
    out = text(execute(s, "hint"))
    assert "no win is possible from here" in out and "cannot be won even from its start" in out


@needs_solver
def test_hint_undecided_here_offers_a_winnable_earlier_position(monkeypatch):
    """When the solver cannot decide the current position quickly, hint says so and still
    names a position proven winnable, without the long search."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    s = _lost_session(8)
    real = commands.decide
    budgets = []

    def slow_here(session, state, budget):
        if state is session.state:
            budgets.append(budget)
            return Solution("unknown", (), 0, budget)
        return real(session, state, budget)

    monkeypatch.setattr(commands, "decide", slow_here)
    out = text(execute(s, "hint"))
    assert "undecided" in out
    assert budgets == [commands.HINT_BUDGET]  # no long search when a quick answer exists
    assert _winnable_after_undo(s, _undo_count(out))


@pytest.mark.parametrize("proven", ["at once", "searching longer", "never"])
def test_hint_undecided_here_is_lost_when_an_earlier_position_is_proven_lost(proven, monkeypatch):
    """The position in hand undecided, positions 0-28 of a 60-move game winnable and 29 proven
    lost (by the first hint's probe, or only by the long search of the second): then the
    position in hand, which follows 29, is lost too, and the count is exact. While 29 stays
    undecided, hint says it is undecided here (and the first offers to search longer)."""
    from musical_cli import advice as commands

    s = session(2)
    line = winning_line(2)[:60]
    execute(s, ";".join(line))

    def fake(session, state, budget):
        i = next(i for i, seen in enumerate(session.hand.states) if seen is state)
        quick = budget <= commands.HINT_BUDGET + commands.UNDO_BUDGET
        lost = i == 29 and (proven == "at once" or proven == "searching longer" and not quick)
        verdict = commands.Verdict(commands.WON if i <= 28 else commands.LOST if lost else commands.UNKNOWN)
        if verdict.decided:
            session.memory.solved[state] = verdict  # as the real decide keeps what it proves
        return verdict

    def whole(out: str) -> bool:
        if "no win is possible from here" not in out:
            return False
        assert "undecided" not in out and "a later one may be too" not in out and AGAIN not in out, out
        return True

    monkeypatch.setattr(commands, "decide", fake)
    out = text(execute(s, "hint"))
    assert _undo_count(out) == s.steps_back(60 - 28)
    assert whole(out) == (proven == "at once"), out
    if proven == "at once":
        assert s.memory.open is None  # the answer is whole: a second hint does not search longer
        return
    assert "undecided" in out and AGAIN in out, out
    out = text(execute(s, "hint"))  # the long search
    assert _undo_count(out) == s.steps_back(60 - 28)
    assert whole(out) == (proven == "searching longer"), out


@needs_solver
def test_hint_searches_longer_when_the_quick_search_finds_nothing(monkeypatch):
    """Nothing decided within the quick budgets: hint says so at once, and the same hint again
    searches with the long budgets and gives an undo count that leads to a winnable position;
    asked a third time, it repeats that answer without searching."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    s = _lost_session(10)
    real = commands.decide
    budgets = []

    def quick_fails(session, state, budget):
        budgets.append(budget)
        if budget <= commands.HINT_BUDGET + commands.UNDO_BUDGET:
            return Solution("unknown", (), 0, budget)
        return real(session, state, budget)

    monkeypatch.setattr(commands, "decide", quick_fails)
    out = text(execute(s, "hint"))
    assert "undecided" in out and AGAIN in out, out
    assert max(budgets) <= commands.HINT_BUDGET + commands.UNDO_BUDGET  # the first hint stays quick
    out = text(execute(s, "hint"))
    assert "no win is possible from here" in out
    assert max(budgets) > commands.HINT_BUDGET + commands.UNDO_BUDGET
    budgets.clear()
    assert text(execute(s, "hint")) == out and budgets == []  # a third time: the same answer at once
    assert _winnable_after_undo(s, _undo_count(out))


@needs_solver
def test_hint_gives_the_start_a_long_probe(monkeypatch):
    """A deal lost from its start whose start takes longer to prove lost than any other probe
    may (deal 409 takes about 6 s): the quick hint leaves it open, and the hint asked again
    gives the start more time and says the deal cannot be won, instead of giving up."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    s = session(1)
    execute(s, "d;d;d;d;d")
    start, here = s.states[0], s.state

    def fake(session, state, budget):
        if state is here:
            return Solution("lost", (), 0, 0.0)
        if state is start and budget > commands.LONG_HINT_BUDGET:
            return Solution("lost", (), 0, 6.0)
        return Solution("unknown", (), 0, budget)

    monkeypatch.setattr(commands, "decide", fake)
    out = text(execute(s, "hint"))
    assert "cannot be won" not in out and AGAIN in out, out
    out = text(execute(s, "hint"))
    assert "cannot be won even from its start" in out, out


class _FakeClock:
    """The clock the undo search reads, moved on by each solver call by what it was given:
    a solver that never decides in time, as on a slow machine, without waiting for it."""

    def __init__(self, monkeypatch):
        from musical_cli import advice as commands

        self.now = 0.0
        monkeypatch.setattr(commands.time, "monotonic", lambda: self.now)


@needs_solver
@pytest.mark.parametrize("here", ["lost", "unknown"])
def test_a_first_hint_spends_about_a_second_at_most(monkeypatch, here):
    """However little the solver decides, the first hint at a position gives it no more than
    HINT_BUDGET + UNDO_BUDGET seconds in all, and says that asking again searches longer."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    clock = _FakeClock(monkeypatch)
    s = session(1)
    execute(s, "d;d;d;d;d;d;d;d")
    spent = []

    def undecided(session, state, budget):
        spent.append(budget)
        clock.now += budget
        return Solution(here if state is session.state else "unknown", (), 0, budget)

    monkeypatch.setattr(commands, "decide", undecided)
    out = text(execute(s, "hint"))
    assert sum(spent) <= commands.HINT_BUDGET + commands.UNDO_BUDGET + 1e-9, spent
    assert len(spent) > 2  # the undo search probes more than the start
    assert AGAIN in out and "cannot be won" not in out, out
    spent.clear()
    execute(s, "hint")
    assert sum(spent) > commands.LONG_HINT_BUDGET  # asked again: the long search


@needs_solver
def test_a_first_hint_gives_how_far_to_undo_what_the_position_left(monkeypatch):
    """A position proven lost at once leaves its HINT_BUDGET to the search for how far to undo:
    the first hint's second is one budget, not two fixed halves."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    clock = _FakeClock(monkeypatch)
    s = session(1)
    execute(s, "d;d;d;d;d;d;d;d")
    spent = []

    def lost_here_at_once(session, state, budget):
        if state is session.state:
            return Solution("lost", (), 0, 0.0)
        spent.append(budget)
        clock.now += budget
        return Solution("unknown", (), 0, budget)

    monkeypatch.setattr(commands, "decide", lost_here_at_once)
    given = []
    undo = commands.undo_to_winnable
    monkeypatch.setattr(commands, "undo_to_winnable", lambda session, budget, **kw: (
        given.append(budget), undo(session, budget, **kw))[1])
    execute(s, "hint")
    assert given == [pytest.approx(commands.HINT_BUDGET + commands.UNDO_BUDGET)]
    # spent on probes, but for the last run-out's worth, which a probe from scratch cannot better
    assert commands.HINT_BUDGET + commands.UNDO_BUDGET - max(spent) <= sum(spent) <= given[0] + 1e-9, spent


@needs_solver
@pytest.mark.parametrize("between", ["d", "undo", "d; undo", "undo; redo"])
def test_hint_again_after_a_move_is_a_quick_hint_again(monkeypatch, between):
    """Only 'hint' typed again before any move searches longer: after a move, an undo or a
    redo the next hint is a quick one, even back at the same position."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    s = session(1)
    execute(s, "d;d;d")
    budgets = []

    def undecided(session, state, budget):
        budgets.append(budget)
        return Solution("unknown", (), 0, budget)

    monkeypatch.setattr(commands, "decide", undecided)
    assert AGAIN in text(execute(s, "hint"))
    execute(s, between)
    budgets.clear()
    out = text(execute(s, "hint"))
    assert max(budgets) <= commands.HINT_BUDGET + commands.UNDO_BUDGET, budgets
    assert AGAIN in out


@needs_solver
def test_a_long_hint_is_not_repeated_once_solve_has_decided_the_position(monkeypatch):
    """The third hint repeats the long search's answer, unless a verdict has been found here
    since ('solve' searches longer than the long hint)."""
    from musical_cli import advice as commands
    from musical_cli.solver import Solution

    s = session(1)
    execute(s, "d;d;d")
    real = commands.decide

    def only_solve_decides(session, state, budget):
        if state in session.memory.solved or budget >= commands.SOLVE_BUDGET:
            return real(session, state, budget)
        return Solution("unknown", (), 0, budget)

    monkeypatch.setattr(commands, "decide", only_solve_decides)
    execute(s, "hint")
    undecided = text(execute(s, "hint"))
    assert "undecided" in undecided
    assert text(execute(s, "hint")) == undecided
    assert "a win in" in text(execute(s, "solve"))
    assert text(execute(s, "hint")).startswith("hint: ")


@needs_solver
def test_a_quick_undo_count_that_may_not_be_the_latest_says_so(monkeypatch):
    """A quick hint whose undo search left a position after the one it names undecided says
    that a later one may be winnable too; the hint typed again searches longer and names the
    latest one."""
    import random

    from musical_cli import advice as commands
    from musical_cli.solver import Solution, solve

    rng = random.Random(1)  # a game that leaves the solver's line at once, and stays winnable long
    s = session(2)
    while solve(MUSICAL, s.state, budget=None).result == "won":
        legal = MUSICAL.legal_moves(s.state)
        plays = [m for m in legal if isinstance(m, Transfer)]
        execute(s, str(rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(legal)))
    out = text(execute(s, "hint"))
    assert "a later one may be too" not in out, out
    exact = _undo_count(out)
    s.memory.solved.clear()
    real = commands.decide
    slow = [True]  # the first hint's probes after the start do not finish in time

    def only_the_start_quickly(session, state, budget):
        if slow[0] and state is not session.hand.states[0] and state is not session.hand.state:
            return Solution("unknown", (), 0, budget)
        return real(session, state, budget)

    monkeypatch.setattr(commands, "decide", only_the_start_quickly)
    execute(s, "d; undo")  # a quick hint again
    out = text(execute(s, "hint"))
    assert "a later one may be too" in out and AGAIN in out, out
    assert _undo_count(out) > exact
    slow[0] = False
    out = text(execute(s, "hint"))
    assert "a later one may be too" not in out, out
    assert _undo_count(out) == exact


@needs_solver
def test_a_second_hint_reuses_the_verdicts_of_the_first(monkeypatch):
    """Each hint probes the same earlier positions; the session keeps the decided verdicts, so
    asking again in the same game gives the same answer without solving anything."""
    from musical_cli import solver

    s = _lost_session()
    first = text(execute(s, "hint"))
    calls = []
    real = solver.solve

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", counting)
    assert text(execute(s, "hint")) == first
    assert calls == []
    execute(s, "new 2")  # another game: nothing carried over
    execute(s, "hint")
    assert calls


# --- only a proven loss is reported as a loss ----------------------------------------------------


@pytest.fixture
def tiny_budgets(monkeypatch):
    """Budgets so small that the solver decides nothing hard (deal 125's start takes it far
    longer), as a loaded machine would make the real ones."""
    from musical_cli import advice as commands

    for name in ("HINT_BUDGET", "UNDO_BUDGET", "LONG_HINT_BUDGET", "SOLVE_BUDGET"):
        monkeypatch.setattr(commands, name, 1e-6)


def _undecided_not_lost(out: str) -> None:
    assert "cannot be won" not in out and "no win is possible" not in out, out
    assert "undecided" in out, out


@needs_solver
@pytest.mark.parametrize("how", ["no move made", "restart", "undo to the start", "new"])
def test_hint_never_calls_an_undecided_start_lost(tiny_budgets, how):
    s = session(125)  # winnable: `musical solve --seed 125` wins it
    if how == "restart":
        execute(s, "d; d; restart")
    elif how == "undo to the start":
        execute(s, "d; d; undo 2")
    elif how == "new":
        execute(s, "new 7; new 125")
    assert s.moves == []
    out = text(execute(s, "hint"))
    _undecided_not_lost(out)
    assert AGAIN in out and "earlier" not in out and "undo" not in out, out  # nothing to undo


@needs_solver
def test_hint_after_moves_never_calls_an_undecided_game_lost(tiny_budgets):
    s = session(125)
    execute(s, "d; d; d")
    _undecided_not_lost(text(execute(s, "hint")))


@needs_solver
@pytest.mark.parametrize("back", [None, 2])
def test_an_undecided_hint_wraps_as_one_sentence(tiny_budgets, monkeypatch, back):
    """At 80 columns each sentence of the undecided hint (the guess, then what to do) starts at
    the margin and its rest is indented as a continuation; with an undo count or without."""
    from musical_cli import advice
    from musical_cli.render import wrap

    if back is not None:
        monkeypatch.setattr(advice, "undo_to_winnable", lambda *a, **k: (back, False))
    s = session(125)
    execute(s, "d; d; d")
    reply = execute(s, "hint").out
    lines = plain(wrap(reply, 80)).splitlines()
    assert lines[0].startswith("hint: ") and "a guess" in lines[0] and len(lines) > 1, lines
    # each sentence of the reply is a line of its own; its rest, wrapped, is indented under it
    starts = [text.split("\n")[0][:20] for _, text in reply]
    assert all(len(t) < 80 for t in lines), lines
    assert all(t.startswith("  ") or any(t.startswith(start) for start in starts) for t in lines), lines
    assert back is None or f"'undo {back}' gets back" in " ".join(t.strip() for t in lines)


@needs_solver
def test_hint_at_a_start_proven_lost_still_says_so(tiny_budgets):
    s = session(1, redeals=0)  # proven lost at once, whatever the budget
    out = text(execute(s, "hint"))
    assert "cannot be won even from its start" in out, out


@pytest.mark.parametrize("command", ["undo", "redo"])
@pytest.mark.parametrize("count", ["²", "٣", "1²", "0", "-1", "x"])
def test_a_count_that_is_not_ascii_digits_gives_the_usage(command, count):
    # printf 'd\nundo ²\n' | musical --seed 1 printed "invalid literal for int() with base 10"
    s = session(1)
    execute(s, "d; undo; redo; d; undo")
    with pytest.raises(CommandError, match=rf"usage: {command} \[N\]"):
        execute(s, f"{command} {count}")


# --- a path that needs a home that is not there -----------------------------------------------------


@pytest.mark.parametrize("command", ["save", "load"])
def test_a_tilde_of_no_user_is_a_command_error(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = session(1)
    execute(s, "d")
    verb = "save to" if command == "save" else "read"
    with pytest.raises(CommandError, match=rf"cannot {verb} ~nosuchuser/x.txt: there is no user 'nosuchuser'"):
        execute(s, f"{command} ~nosuchuser/x.txt")
    assert list(tmp_path.iterdir()) == []  # no directory named '~nosuchuser' either


def test_save_without_a_file_and_without_a_home_says_so(monkeypatch):
    from musical_cli import files

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setattr(files, "home", lambda: None)
    s = session(1)
    with pytest.raises(CommandError, match=r"cannot save: there is no home directory .*save FILE"):
        execute(s, "save")


# --- a long line of moves, for a player to follow -------------------------------------------------


def _words_of(lines: list[str]) -> list[str]:
    """The moves of move_lines' output, labels dropped, read back by the move parser."""
    from musical_cli.notation import parse_move

    text = " ".join(re.sub(r"^\s*(pass \d+:)?", "", ln) for ln in lines)
    tokens, out = text.split(), []
    while tokens:
        word = tokens.pop(0)
        if word == "w" and tokens and re.fullmatch(r"[fp]\d+", tokens[0]):
            word += " " + tokens.pop(0)
        out.append(str(parse_move(word)))
    return out


@settings(max_examples=60)
@given(st.lists(st.sampled_from([DEAL, REDEAL, Transfer(W, F(1)), Transfer(W, F(4))]), max_size=200),
       st.integers(1, 200), st.integers(1, 3))
def test_move_lines_wrap_between_moves_a_pass_a_line(moves, width, first_pass):
    from musical_cli.language import move_lines

    class State:
        pass_number = first_pass

    lines = move_lines(State(), tuple(moves), width)
    assert _words_of(lines) == [str(m) for m in moves]
    assert all(len(ln) < max(width, 30) for ln in lines)
    labels = [int(m.group(1)) for ln in lines if (m := re.match(r"  pass (\d+): ", ln))]
    assert labels == list(range(first_pass, first_pass + len(labels)))
    assert len(labels) == (moves.count(REDEAL) + (0 if moves and moves[-1] == REDEAL else 1) if moves else 0)
    for ln in lines:  # a redeal ends its line
        assert "redeal" not in ln or ln.endswith("redeal")


@needs_solver
@pytest.mark.parametrize("width", [80, 40])
def test_solve_wraps_at_the_width_between_moves(width):
    s = session(1)
    s.front = Unattended(columns=width)
    out = text(execute(s, "solve")).splitlines()
    assert out[0] == "a win in 142 moves:"
    assert all(len(ln) < width for ln in out)
    assert [ln.split(":")[0].strip() for ln in out if "pass" in ln] == ["pass 1", "pass 2", "pass 3"]
    execute(s, ";".join(_words_of(out[1:])))
    assert s.outcome() is Outcome.WON


def test_save_counts_the_players_moves_apart_from_the_cards_the_game_turned_up(tmp_path):
    """Calculation turns its next card up by itself in the shell: the file has those 'd' lines,
    but 'save' tells the player their own moves, as the record counts them."""
    from musical_cli.games import game_named

    s = Session(game_named("calculation"), DealNumber(21), interactive=True)
    execute(s, "w p1")
    execute(s, "w p2")
    path = tmp_path / "g.txt"
    assert plain(execute(s, f"save {path}").out).strip() == f"saved 2 moves and 3 cards turned up to {path}"
    assert path.read_text().splitlines()[5:10] == ["d", "w p1", "d", "w p2", "d"]
    batch = Session(MUSICAL, DealNumber(21))
    execute(batch, "d")
    assert plain(execute(batch, f"save {path}").out).strip() == f"saved 1 move to {path}"


@needs_solver
def test_a_lost_hint_with_no_winnable_position_proven_still_guesses_how_far_to_undo(monkeypatch):
    """Where the position is proven lost and no earlier one proven winnable in time, the hint
    still names an undo: to the latest position not proven lost, said as a guess."""
    from musical_cli import advice

    s = session(2)
    line = winning_line(2)[:40]
    execute(s, ";".join(line))

    def fake(asker, state, budget):
        i = next(i for i, seen in enumerate(asker.hand.states) if seen is state)
        verdict = advice.Verdict(advice.LOST if i >= 30 else advice.UNKNOWN)
        if verdict.decided:
            asker.memory.solved[state] = verdict
        return verdict

    monkeypatch.setattr(advice, "decide", fake)
    out = text(execute(s, "hint"))
    assert "no win is possible from here" in out
    earliest = min(i for i, state in enumerate(s.states) if state in s.memory.solved)
    assert f"'undo {len(s.states) - earliest}' may get back" in out and "a guess" in out, out


@needs_solver
def test_following_the_hints_counts_down_by_one_with_no_search(monkeypatch):
    """A hint's line is remembered: the player who plays the hinted move is hinted the rest of
    the same line, one move shorter, without a new search (a new search may find a longer one)."""
    from musical_cli import advice

    s = session(1)
    first = text(execute(s, "hint"))
    count = int(re.search(r"a win in (\d+) more move", first).group(1))
    move = first.removeprefix("hint: ").split("  (")[0]

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(advice, "analyse", no_search)
    for _ in range(3):
        execute(s, move)
        said = text(execute(s, "hint"))
        assert f"a win in {count - 1} more move" in said, said
        count -= 1
        move = said.removeprefix("hint: ").split("  (")[0]
