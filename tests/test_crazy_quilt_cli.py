"""Crazy Quilt through the shared layers: the command line, batch mode with its exit
statuses and ``line N:`` for each kind of illegal move, transcripts, ``verify``, the shell
through pipe input and its completion, ``deal --json``."""

from __future__ import annotations

import json

import pytest
from lines import run_main, shell_text
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games import game_named
from musical_cli.language import Session
from musical_cli.notation import parse_move
from musical_cli.shell import ShellCompleter
from musical_cli.solver import solve
from musical_cli.transcript import GameRecord, format_transcript, read_transcript

QUILT = game_named("crazy-quilt")




def test_the_names_and_the_notation():
    assert game_named("quilt") is QUILT and game_named("Japanese-Rug") is QUILT
    for text, canonical in [("q34 f2", "q34 f2"), ("q34f2", "q34 f2"), ("Q34 W", "q34 w"), ("q34", "q34"),
                            ("r1 r2", "r1 r2"), ("q34 r2", "q34 r2"), ("r2 f5", "r2 f5"), ("w f5", "w f5")]:
        assert str(parse_move(text)) == canonical
        assert str(parse_move(str(parse_move(text)))) == canonical


def test_deal_json_has_the_issues_shape(monkeypatch, capsys):
    status, out, _ = run_main(["deal", "--game", "crazy-quilt", "--json", "1-2"], "", monkeypatch, capsys)
    assert status == 0
    first, second = (json.loads(line) for line in out.splitlines())
    # the layout, then the deal's rating (its rules have difficulty bands)
    assert list(first) == ["game", "seed", "foundations", "quilt", "stock", "difficulty"]
    assert first["foundations"] == ["AC", "AS", "AH", "AD", "KC", "KS", "KH", "KD"]
    assert len(first["quilt"]) == 8 and all(len(row) == 8 for row in first["quilt"])
    assert len(first["stock"]) == 32 and second["seed"] == 2
    status, out, _ = run_main(["deal", "--game", "crazy-quilt", "--reserves", "--json", "1"], "", monkeypatch, capsys)
    record = json.loads(out)
    assert record["stock"] == [] and [len(r) for r in record["reserves"]] == [4] * 8
    status, out, _ = run_main(["deal", "--game", "crazy-quilt", "--reserves", "1"], "", monkeypatch, capsys)
    assert status == 0 and "reserves 8" in out and "stock" not in out  # no line for the stock it has not


@pytest.mark.parametrize("script, line, why", [
    ("q45 f1", 1, "q45 is not available: the cards at q44 and q46 cover its short sides"),
    ("q11 f1", 1, "foundation 1 needs 2♣"),
    ("q11 w", 1, "the waste is empty"),
    ("d\nredeal", 2, "the stock still has 31 cards"),
    ("r1 f1", 1, "reserve"),
    ("q11", 1, "3♦ has nowhere to go now"),
])
def test_each_kind_of_illegal_move_names_its_line(script, line, why, monkeypatch, capsys):
    status, out, err = run_main(["--game", "crazy-quilt", "--seed", "1"], script + "\n", monkeypatch, capsys)
    assert status == 3 and err.startswith(f"line {line}: ") and why in err, err
    assert "legal now: " in err


def test_a_solved_game_round_trips_and_verifies(tmp_path, monkeypatch, capsys):
    rules = QUILT.rules_from_options({"redeals": "2"})
    record = GameRecord(QUILT, DealNumber(1), rules)
    solution = solve(QUILT, record.start(), budget=None, nodes=100_000)  # won in 184
    assert solution.result == "won"
    won = GameRecord(QUILT, DealNumber(1), rules, solution.moves)
    text = format_transcript(won, Outcome.WON)
    assert "game: crazy-quilt\ndeal: 1\nredeals: 2\nwrap: no\nreserves: no\n" in text
    assert read_transcript(text).record == won
    path = tmp_path / "quilt.txt"
    path.write_text(text, encoding="utf-8")
    status, out, _ = run_main(["verify", str(path)], "", monkeypatch, capsys)
    assert (status, out.strip()) == (0, f"won in {len(solution.moves)} moves")
    status, out, _ = run_main([], text, monkeypatch, capsys)  # piped in, the header chooses the game
    assert status == 0 and out.rstrip().endswith(f"won in {len(solution.moves)} moves")


def test_the_shell_plays_crazy_quilt_through_pipe_input():
    s = Session(QUILT, DealNumber(1), interactive=True)
    text = shell_text(s, "q78\rq45\rd\rrules\rquit\r")
    assert [str(m) for m in s.moves] == ["q78 f2", "d"]  # the short form took the one move of q78
    assert "q45 is not available" in text and "Crazy Quilt (also Quilt, Japanese Rug)" in text
    assert "Moves in" not in text  # rules, not help


def test_completion_offers_the_available_cells_and_their_targets():
    s = Session(QUILT, DealNumber(1), interactive=True)
    completer = ShellCompleter(s)

    def complete(text: str) -> list[str]:
        doc = Document(text, len(text))
        return [c.text for c in completer.get_completions(doc, CompleteEvent(completion_requested=True))]

    cells = [c for c in complete("q") if c[1:].isdigit()]
    assert cells == ["q78", "q81"]  # the two cards that can move now, and no other cell
    assert "quit" in complete("q")
    assert complete("q81 ") == ["f7"]
    assert complete("q45 ") == []


def test_a_flag_of_crazy_quilt_on_another_game_is_a_usage_error(monkeypatch, capsys):
    status, _, err = run_main(["--reserves", "--seed", "1"], "", monkeypatch, capsys)
    assert status == 2 and "--reserves is a rule option of crazy-quilt; this game is musical" in err
    status, _, err = run_main(["--game", "calculation", "--redeals", "2", "--seed", "1"], "", monkeypatch, capsys)
    assert status == 2 and "--redeals is a rule option of musical and crazy-quilt; this game is calculation" in err
