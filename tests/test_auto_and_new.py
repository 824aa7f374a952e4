"""Two commands of the shell's flow, through the command language: 'auto on|off' (the moves
proven safe play themselves after each move, and one 'undo' takes them back with it) and 'new
--game NAME' with the rule options (a change of game without leaving the shell)."""

from __future__ import annotations

import pytest
from prompt_toolkit.document import Document

from musical_cli import advice_commands
from musical_cli.commands import Declined, Unattended
from musical_cli.deals import DealNumber
from musical_cli.games import game_named
from musical_cli.language import CommandError, Session, execute
from musical_cli.moves import DEAL
from musical_cli.render import plain
from musical_cli.shell import ShellCompleter

MUSICAL = game_named("musical")
CALCULATION = game_named("calculation")
CRAZY_QUILT = game_named("crazy-quilt")


def run(s: Session, line: str) -> str:
    return plain(execute(s, line).out)


def shell_session(game=MUSICAL, deal: int = 1, rules=None) -> Session:
    return Session(game, DealNumber(deal), rules, interactive=True)


# --- auto on|off ----------------------------------------------------------------------------------


def test_auto_is_off_by_default():
    s = shell_session()
    assert s.auto is False
    assert "auto: " not in run(s, "d")
    assert s.moves == [DEAL]
    assert "auto is off" in run(s, "auto")  # 'auto' alone says so, with the moves it made


def test_auto_on_plays_the_safe_moves_after_a_move_and_one_undo_takes_them_back():
    # Deal 1 of Musical: J♦, then 2♦, fit no foundation (a deal is the only move), then 9♥,
    # which foundation 3 takes or not: a choice.
    s = shell_session()
    said = run(s, "auto on")
    assert "auto is on" in said and s.auto is True and s.moves == []  # nothing moves until a move
    said = run(s, "d")
    assert said.splitlines()[0] == "auto: d d"
    assert s.moves == [DEAL, DEAL, DEAL] and s.steps == [3] and s.move_count == 3
    assert run(s, "undo") == "undid 3 moves\n"
    assert s.moves == [] and s.state == s.states[0]
    assert run(s, "redo") == "redid 3 moves\n" and len(s.moves) == 3
    assert "auto is on" in run(s, "auto")
    run(s, "auto off")
    assert s.auto is False
    run(s, "undo; d")
    assert s.moves == [DEAL]


def test_auto_on_deals_on_crazy_quilt_s_empty_waste():
    s = shell_session(CRAZY_QUILT)
    run(s, "auto on")
    said = run(s, "q78 f2")
    assert said.startswith("auto: d\n")
    assert [str(m) for m in s.moves] == ["q78 f2", "d"] and s.steps == [2]
    run(s, "undo")
    assert s.moves == []


def test_auto_follows_the_move_commands_too():
    s = shell_session()
    run(s, "auto on; deal")  # 'deal' is the command, 'd' a move: both are followed
    assert len(s.moves) == 3 and s.steps == [3]


def test_auto_alone_plays_the_safe_moves_as_one_step():
    s = shell_session()
    said = run(s, "auto")
    assert said.splitlines()[0] == "auto: d d d"
    assert s.steps == [3]
    run(s, "undo")
    assert s.moves == []


def test_auto_in_calculation_reads_only_what_the_player_sees():
    # The first card of deal 1, J♦, fits no foundation and every pile is empty: any pile is as
    # good as another; the card the shell turns up next is not shown as a move.
    s = shell_session(CALCULATION)
    assert run(s, "auto").splitlines()[0] == "auto: w p1"
    assert [str(m) for m in s.moves] == ["d", "w p1", "d"] and s.move_count == 1
    run(s, "undo")
    assert [str(m) for m in s.moves] == ["d"]


def test_the_search_after_a_move_is_bounded_by_nodes(monkeypatch):
    """With no node to spend, auto plays only what the rules prove without a search."""
    monkeypatch.setattr(advice_commands, "AUTO_NODES", 0)
    s = shell_session()
    run(s, "auto on; d")
    assert len(s.moves) == 3  # the deals past J♦ and 2♦ need no search


def test_auto_on_says_what_is_wrong():
    s = shell_session()
    with pytest.raises(CommandError, match=r"usage: auto \[on\|off\]"):
        run(s, "auto maybe")
    assert s.auto is False


# --- new --game NAME and the rule options --------------------------------------------------------


def test_new_game_switches_game_with_its_default_rules():
    s = shell_session()
    assert run(s, "new --game crazy-quilt 7") == "Crazy Quilt, deal 7\n"
    assert s.game is CRAZY_QUILT and s.deal == DealNumber(7) and s.rules == CRAZY_QUILT.default_rules()
    assert run(s, "new --game quilt --reserves 5") == "Persian Rug, deal 5\n"  # an alias, a switch
    assert s.rules.reserves
    run(s, "new --game crazy-quilt 5")  # the game named: its defaults, not the rules in hand
    assert not s.rules.reserves


def test_new_game_with_rule_options_and_a_deal_number():
    s = shell_session()
    assert run(s, "new --game musical --redeals 1 5") == "Musical with 1 redeal, deal 5\n"
    assert s.rules.redeals == 1 and s.deal == DealNumber(5)
    run(s, "new --game calculation --piles 3")
    assert s.game is CALCULATION and s.rules.piles == 3
    run(s, "new --game=calculation --no-bases 4")
    assert s.rules.piles == 4 and s.rules.bases is False and s.deal == DealNumber(4)


def test_rule_options_without_game_change_the_rules_in_hand():
    s = shell_session(CRAZY_QUILT)
    run(s, "new --redeals 2 3")
    assert s.title == "Indian Carpet" and s.deal == DealNumber(3)
    run(s, "new --wrap 3")
    assert s.rules.redeals == 2 and s.rules.wrap  # Indian Carpet kept, wrap added
    assert run(s, "new 4") == "deal 4\n" and s.rules.wrap  # as before: the rules in hand


def test_new_game_asks_first_when_a_game_is_in_play():
    asked: list[str] = []
    s = Session(MUSICAL, DealNumber(3), interactive=True,
                front=Unattended(answer=lambda question: asked.append(question) or False))
    run(s, "d")
    with pytest.raises(Declined):
        run(s, "new --game crazy-quilt 7")
    assert "a new deal of Crazy Quilt (7) ends it" in asked[0]
    assert s.game is MUSICAL and s.deal == DealNumber(3) and s.moves == [DEAL]
    s.front = Unattended(answer=lambda question: True)
    run(s, "new --game crazy-quilt 7")
    assert s.game is CRAZY_QUILT


@pytest.mark.parametrize(("line", "says"), [
    ("new --game nope", "no game 'nope'; the games are musical, calculation, crazy-quilt"),
    ("new --game", "--game needs a game's name (musical, calculation, crazy-quilt)"),
    ("new --piles 3", "--piles is a rule option of calculation, not of Musical ('new --game calculation --piles' "
                      "changes game); Musical's are: --redeals K"),
    ("new --game crazy-quilt --piles 3", "--piles is a rule option of calculation, not of Crazy Quilt"),
    ("new --game musical --redeals lots", "redeals must be a whole number from 0 to 255, or 'unlimited'"),
    ("new --game calculation --piles 5", "Calculation has 4 waste piles, or 3 as a variant; not 5"),
    ("new --game calculation --bases", "(Calculation: --piles N, --no-bases)"),
    ("new --redeals", "--redeals needs a value: --redeals K"),
    ("new --colour", "'new' has no option '--colour'; it takes a deal number, --game NAME"),
    ("new 3 4", "one deal number at most"),
    ("new 3 --winnable", "new 3 deals deal 3; --winnable chooses a random deal"),
    ("new --game musical --game calculation", "--game is given twice"),
])
def test_new_says_what_was_wrong_and_what_would_be_right(line, says):
    s = shell_session()
    with pytest.raises(CommandError) as error:
        run(s, line)
    assert says in str(error.value)
    assert s.game is MUSICAL and s.deal == DealNumber(1)


def test_new_game_winnable_searches_the_game_named(monkeypatch):
    from musical_cli import advice

    asked = []

    def winnable(game, rules, numbers):
        asked.append((game, rules))
        return DealNumber(11)

    monkeypatch.setattr(advice, "winnable_deal", winnable)
    s = shell_session()
    said = run(s, "new --game crazy-quilt --reserves --winnable")
    assert said.startswith("Persian Rug, deal 11 (dealt winnable")
    assert asked == [(CRAZY_QUILT, CRAZY_QUILT.rules_from_options({"reserves": "yes"}))]


@pytest.mark.parametrize(("typed", "offered"), [
    ("new ", ["--game", "--winnable", "--difficulty", "--redeals"]),
    ("new --game ", ["musical", "calculation", "crazy-quilt"]),
    ("new --game c", ["calculation", "crazy-quilt"]),
    ("new --game crazy-quilt ", ["--winnable", "--difficulty", "--redeals", "--wrap", "--reserves"]),
    ("new --game calculation --p", ["--piles"]),
    ("new --game calculation --piles 3 ", ["--winnable", "--difficulty", "--no-bases"]),
    ("new --difficulty ", ["easy", "medium", "hard", "lost"]),
    ("new --redeals ", []),
    ("auto ", ["on", "off"]),
])
def test_tab_completes_new_s_options(typed, offered):
    completer = ShellCompleter(shell_session())
    assert [c.text for c in completer.get_completions(Document(typed), None)] == offered
