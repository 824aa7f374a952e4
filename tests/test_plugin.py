"""A game is a plug-in behind the protocol: a toy game defined here, that no shared
module names, plays through batch mode, a transcript round trip, ``verify``, the shell (pipe
input) and the command line, its rule flags built from its own declarations."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from lines import run_main, shell_text

from musical_cli import cli, games
from musical_cli.cards import Card, Suit
from musical_cli.deals import DealNumber
from musical_cli.game import Foundations, Game, Outcome, RuleOption, RulesError, parse_yes_no, yes_no
from musical_cli.language import Session, execute
from musical_cli.moves import DEAL, REDEAL, Deal, F, Move, Redeal, Transfer, W
from musical_cli.render import card, plain, plural
from musical_cli.transcript import GameRecord, format_transcript, read_transcript

SHARED = Path(__file__).resolve().parent.parent / "musical_cli"


def _redeals(text: str) -> int:
    if not (text.strip().isascii() and text.strip().isdigit()):
        raise RulesError(f"redeals must be a whole number; not {text!r}")
    return int(text)


@dataclass(frozen=True, slots=True)
class SoloRules:
    redeals: int = 12
    open: bool = False


@dataclass(frozen=True, slots=True)
class SoloState(Foundations):
    SEQUENCES = (tuple(range(1, 14)),)

    rules: SoloRules
    foundations: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]  # top first
    waste: tuple[Card, ...] = ()  # top last
    redeals_used: int = 0


class Solo(Game):
    """Thirteen clubs, one foundation from A to K, a waste, redeals."""

    name = "solo"
    title = "Solo"
    options = (
        RuleOption("redeals", "how many times the waste may be turned over (default 12)", "12", _redeals,
                   metavar="K"),
        RuleOption("open", "deal the stock face up", "no", parse_yes_no("open"), yes_no, metavar=None,
                   const="yes"),
    )
    rules_type = SoloRules
    notation = (("d", "deal"), ("w f1", "play the waste card"), ("redeal", "turn the waste over"))

    def layout(self, deck: Sequence[Card], rules: SoloRules) -> SoloState:
        clubs = [c for c in deck if c.suit is Suit.CLUBS]
        return SoloState(rules, ((),), tuple(reversed(clubs)))

    def legal_moves(self, state: SoloState) -> tuple[Move, ...]:
        moves: list[Move] = []
        if state.waste and state.needs(1) == state.waste[-1].rank:
            moves.append(Transfer(W, F(1)))
        if state.stock:
            moves.append(DEAL)
        elif state.waste and state.redeals_used < state.rules.redeals:
            moves.append(REDEAL)
        return tuple(moves)

    def apply(self, state: SoloState, move: Move) -> SoloState:
        if move not in self.legal_moves(state):
            self._refuse(state, move, "Solo does not allow it now")
        if isinstance(move, Deal):
            return SoloState(state.rules, state.foundations, state.stock[1:], state.waste + state.stock[:1],
                             state.redeals_used)
        if isinstance(move, Redeal):
            return SoloState(state.rules, state.foundations, state.waste, (), state.redeals_used + 1)
        return SoloState(state.rules, (state.foundations[0] + state.waste[-1:],), state.stock, state.waste[:-1],
                         state.redeals_used)

    def cards_to_build(self, state: SoloState) -> int:
        return 13 - len(state.foundations[0])

    @property
    def rules_text(self) -> str:
        return "Solo: thirteen clubs.\n\nBuild the foundation from A to K.\n"

    def draw(self, state: SoloState, ascii: bool = False):
        top = state.foundations[0][-1] if state.foundations[0] else None
        waste = state.waste[-1] if state.waste else None
        return ([("class:label", "  foundation ")] + card(top, ascii) + [("class:label", "  waste ")]
                + card(waste, ascii) + [("", f"  stock {plural(len(state.stock), 'card')}\n")])

    def opening_record(self, deal: DealNumber, state: SoloState):
        return {"game": self.name, "seed": deal.json, "stock": [c.code for c in state.stock]}


SOLO = Solo()


@pytest.fixture(autouse=True)
def solo():
    games.register(SOLO)
    yield SOLO
    games.unregister(SOLO)


def greedy_line(state: SoloState) -> list[Move]:
    line: list[Move] = []
    while SOLO.legal_moves(state):
        move = SOLO.legal_moves(state)[0]  # a play first, then the deal or the redeal
        line.append(move)
        state = SOLO.apply(state, move)
    assert SOLO.outcome(state) is Outcome.WON
    return line




def test_no_shared_module_names_a_game_or_branches_on_one():
    for path in SHARED.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "game.name ==" not in text and "game.name !=" not in text, path.name
        assert not re.search(r"from \.games\.\w+", text), f"{path.name} imports a game's package"


def test_batch_mode_plays_the_toy_game_to_a_win(monkeypatch, capsys):
    line = greedy_line(SOLO.opening(DealNumber(5)))
    status, out, err = run_main(["--game", "solo", "--seed", "5"], "\n".join(map(str, line)) + "\nshow\n",
                                monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert "foundation K♣" in out and "The foundation is complete: won!" in out
    assert out.rstrip().endswith(f"won in {len(line)} moves")


def test_an_illegal_toy_move_names_the_line(monkeypatch, capsys):
    status, out, err = run_main(["--game", "solo", "--seed", "5"], "d\nredeal\n", monkeypatch, capsys)
    assert status == 3
    assert err.startswith("line 2: redeal: Solo does not allow it now; legal now: ")


def test_a_toy_transcript_round_trips_and_verifies(tmp_path, monkeypatch, capsys):
    deal = DealNumber(7)
    rules = SOLO.rules_from_options({"redeals": "12", "open": "yes"})
    line = tuple(greedy_line(SOLO.opening(deal, rules)))
    record = GameRecord(SOLO, deal, rules, line)
    text = format_transcript(record, Outcome.WON)
    assert text.startswith("format: musical-transcript 1\ngame: solo\ndeal: 7\nredeals: 12\nopen: yes\n")
    again = read_transcript(text)
    assert again.record == record and SOLO.outcome(again.final) is Outcome.WON
    path = tmp_path / "solo.txt"
    path.write_text(text, encoding="utf-8")
    status, out, err = run_main(["verify", str(path)], "", monkeypatch, capsys)
    assert (status, out.strip()) == (0, f"won in {len(line)} moves")
    # and piped in, the header chooses the game by itself
    status, out, err = run_main([], text, monkeypatch, capsys)
    assert status == 0 and out.rstrip().endswith(f"won in {len(line)} moves")


def test_the_shell_plays_the_toy_game_through_pipe_input():
    s = Session(SOLO, DealNumber(3), interactive=True)
    text = shell_text(s, "d\rrules\rhint\rhelp\rquit\r")
    assert [str(m) for m in s.moves] == ["d"]
    assert "Solo, deal 3" in text and "stock 12 cards" in text
    assert "Build the foundation from A to K." in text
    assert "Solo has no solver yet" in text
    assert "Moves in Solo:" in text and "play the waste card" in text


def test_the_toy_games_flags_come_from_its_declarations(monkeypatch, capsys):
    status, out, err = run_main(["--game", "solo", "--seed", "1", "--open", "--redeals", "3"], "show\n",
                                monkeypatch, capsys)
    assert status == 1
    s = Session(SOLO, DealNumber(1))
    execute(s, "d")
    assert "--open" in cli.build_parser().format_help()
    status, out, err = run_main(["--open", "--seed", "1"], "", monkeypatch, capsys)
    assert status == 2 and "--open is a rule option of solo; this game is musical" in err
    status, out, err = run_main(["--game", "solo", "--piles", "3", "--seed", "1"], "", monkeypatch, capsys)
    assert status == 2 and "--piles is a rule option of calculation; this game is solo" in err


def test_a_game_without_a_solver_says_so_cleanly(monkeypatch, capsys):
    status, out, err = run_main(["solve", "--game", "solo", "--seed", "1"], "", monkeypatch, capsys)
    assert (status, err) == (2, "musical: Solo has no solver yet\n")
    status, out, err = run_main(["stats", "--game", "solo", "1-3"], "", monkeypatch, capsys)
    assert (status, err) == (2, "musical: Solo has no solver yet\n")
    status, out, err = run_main(["deal", "--game", "solo", "--json", "2"], "", monkeypatch, capsys)
    assert status == 0 and out.startswith('{"game": "solo", "seed": 2, "stock": [')


def test_rules_prints_the_game_in_hands_rules():
    calculation = games.game_named("calculation")
    reply = execute(Session(calculation, DealNumber(1)), "rules")
    assert plain(reply.out).split() == calculation.rules_text.split()
    assert max(len(line) for line in plain(reply.out).splitlines()) < 80
    assert "four waste piles" in " ".join(plain(reply.out).split())
    assert games.game_named("Broken-Intervals") is calculation
