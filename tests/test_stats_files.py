"""``musical stats --out FILE`` (one JSON line per deal, resumable) and ``--from FILE``,
and the memory of a worker over many deals."""

from __future__ import annotations

import json

import pytest

from musical_cli.cli import main
from musical_cli.deals import DealNumber
from musical_cli.games.calculation import blind
from musical_cli.games.calculation import solver as solve_calculation
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.musical.rules import MUSICAL
from musical_cli.stats import DealResult, ResultsError, ResultsFile, merge_results, run_key, run_stats

FIELDS = ["game", "rules", "seed", "player", "result", "moves", "nodes", "seconds", "greedy"]
# Each deal's node limit where results are asserted (not the default's seconds): far more than
# these deals take (1,216 nodes at most), and the same results on every machine.
NODES = ("--nodes", "200000")


def lines(path) -> list[dict]:
    return [json.loads(t) for t in path.read_text().splitlines()]


def stats(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["stats", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_out_writes_one_line_per_deal(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    status, text, _ = stats(capsys, "1-12", "--workers", "2", "--out", str(out), "--json", *NODES)
    assert status == 0
    got = lines(out)
    assert sorted(r["seed"] for r in got) == list(range(1, 13))
    for r in got:
        assert list(r) == FIELDS  # all won at two redeals: every line has its moves
        assert (r["game"], r["rules"], r["player"], r["result"]) == ("musical", {"redeals": 2}, "solver", "won")
        assert isinstance(r["greedy"], bool) and r["nodes"] >= 0 and r["seconds"] >= 0
        # the line is the winning line: the engine plays it to a won game
        state = _replay(r)
        assert MUSICAL.outcome(state).name == "WON"
    report = json.loads(text)
    assert (report["deals"], report["won"]) == (12, 12)


def _replay(record: dict):
    from musical_cli.notation import parse

    state = MUSICAL.opening(DealNumber.parse(record["seed"]))
    for text in record["moves"]:
        state = MUSICAL.apply(state, parse(MUSICAL, state, text))
    return state


def test_lost_and_unknown_lines_have_no_moves(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    stats(capsys, "1-3", "--redeals", "0", "--workers", "1", "--out", str(out), *NODES)
    assert all(r["result"] == "lost" and "moves" not in r for r in lines(out))
    out2 = tmp_path / "u.jsonl"
    stats(capsys, "2", "--redeals", "1", "--nodes", "100", "--workers", "1", "--out", str(out2))
    assert [(r["result"], "moves" in r) for r in lines(out2)] == [("unknown", False)]


def test_resume_skips_finished_deals_and_reports_the_whole_range(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    stats(capsys, "1-5", "--workers", "1", "--out", str(out), *NODES)
    before = out.read_text()
    status, text, err = stats(capsys, "1-8", "--workers", "2", "--out", str(out), "--json", *NODES)
    assert status == 0
    assert out.read_text().startswith(before)  # appended, the old lines untouched
    assert sorted(r["seed"] for r in lines(out)) == list(range(1, 9))  # deals 1-5 not solved again
    assert "already holds 5 of these deals; 3 deals to go" in err
    assert json.loads(text)["deals"] == 8
    # Nothing left to do: the report still covers the range, from the file.
    status, text, err = stats(capsys, "1-8", "--out", str(out), "--json", *NODES)
    assert status == 0 and json.loads(text)["deals"] == 8 and json.loads(text)["won"] == 8
    assert out.read_text().count("\n") == 8


def test_a_torn_last_line_is_redone(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    stats(capsys, "1-3", "--workers", "1", "--out", str(out))
    whole = out.read_bytes()
    last = whole[:-1].rfind(b"\n") + 1
    # A kill in the middle of writing deal 3's line, then a resume.
    for cut in (len(whole) - 1, last + 20):  # without its line end: even a complete object is not trusted
        out.write_bytes(whole[:cut])
        status, text, err = stats(capsys, "1-3", "--workers", "1", "--out", str(out), "--json")
        assert status == 0, err
        assert "last line was cut short" in err
        assert out.read_bytes().count(b"\n") == 3 and out.read_bytes().endswith(b"\n")
        assert sorted(r["seed"] for r in lines(out)) == [1, 2, 3]
        assert json.loads(text)["deals"] == 3


def test_a_file_for_other_rules_game_or_player_is_refused(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    stats(capsys, "1-2", "--workers", "1", "--out", str(out))
    before = out.read_bytes()
    for other in (["--redeals", "1"], ["--game", "calculation"], ["--game", "calculation", "--player", "blind"]):
        status, text, err = stats(capsys, "1-2", "--workers", "1", "--out", str(out), *other)
        assert status == 2, err
        assert "holds results for musical (redeals 2), solver" in err and "Traceback" not in err
        assert text == ""
    assert out.read_bytes() == before


def test_a_corrupt_line_is_named(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    out.write_text('{"game": "musical"}\nnot json\n')
    status, _, err = stats(capsys, "1", "--out", str(out))
    assert status == 2 and f"{out}, line 1: not a results line (no 'rules')" in err
    status, _, err = stats(capsys, "--from", str(out))
    assert status == 2 and "line 1" in err


def test_unwritable_out_file(tmp_path, capsys):
    status, _, err = stats(capsys, "1", "--out", str(tmp_path))  # a directory
    assert status == 2 and "cannot read" in err


def test_from_reports_without_solving(tmp_path, capsys, monkeypatch):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    stats(capsys, "1-6", "--workers", "1", "--out", str(a), *NODES)
    stats(capsys, "4-9", "--workers", "1", "--out", str(b), *NODES)
    import musical_cli.solver

    monkeypatch.setattr(musical_cli.solver, "solve", None)  # solving anything would fail
    status, text, _ = stats(capsys, "--from", str(a), "--from", str(b), "--json")
    assert status == 0
    report = json.loads(text)
    assert (report["deals"], report["won"], report["redeals"]) == (9, 9, 2)  # 4-6 counted once
    status, text, _ = stats(capsys, "--from", str(a))
    assert status == 0 and "Musical (redeals 2), 6 deals (from " in " ".join(text.split()) + " "


def test_from_conflicting_verdicts_is_an_error(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    stats(capsys, "1-2", "--workers", "1", "--out", str(a), *NODES)
    record = lines(a)[0]
    record.update(result="lost")
    del record["moves"]
    b.write_text(json.dumps(record) + "\n")
    status, _, err = stats(capsys, "--from", str(a), "--from", str(b))
    assert status == 2
    assert f"deal {record['seed']} is won in {a}, line 1 but lost in {b}, line 1: conflicting verdicts" in err


def test_from_files_for_different_rules_is_an_error(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    stats(capsys, "1", "--workers", "1", "--out", str(a))
    stats(capsys, "1", "--workers", "1", "--redeals", "0", "--out", str(b))
    status, _, err = stats(capsys, "--from", str(a), "--from", str(b))
    assert status == 2 and "one report covers one game, rules and player" in err


def test_unknown_then_decided_counts_the_verdict():
    key = {"game": "musical", "rules": {"redeals": 1}, "player": "solver"}
    unknown = DealResult("2", "unknown", 0.01, 10, False)
    won = DealResult("2", "won", 3.0, 9999, False, ("d",))
    _, merged = merge_results([("a", 1, key, unknown), ("b", 1, key, won), ("c", 1, key, unknown)])
    assert merged["2"].result == "won"


@pytest.mark.parametrize("args", [["1", "--from", "x"], ["--from", "x", "--redeals", "1"],
                                  ["--from", "x", "--out", "y"], ["--from", "x", "--workers", "2"]])
def test_from_goes_alone(capsys, args):
    status, _, err = stats(capsys, *args)
    assert status == 2 and "not with --from" in err


def test_from_a_missing_or_empty_file(tmp_path, capsys):
    status, _, err = stats(capsys, "--from", str(tmp_path / "none.jsonl"))
    assert status == 2 and "no such file" in err
    (tmp_path / "e.jsonl").write_text("")
    status, _, err = stats(capsys, "--from", str(tmp_path / "e.jsonl"))
    assert status == 2 and "no results" in err


@pytest.fixture
def quick_blind(monkeypatch):
    """The blind player with a few rollouts a move: the same code, in a second or two a deal."""
    import functools

    monkeypatch.setattr(blind, "blind_play", functools.partial(blind.blind_play, rollouts=8))


def test_calculation_blind_lines(tmp_path, quick_blind):
    out = tmp_path / "r.jsonl"
    rules = CALCULATION.default_rules()
    key = run_key(CALCULATION, rules, "blind")
    assert key == {"game": "calculation", "rules": {"piles": 4, "bases": True}, "player": "blind"}
    file = ResultsFile(str(out), key)
    run_stats([DealNumber(1)], rules, workers=1, game=CALCULATION, player="blind", on_result=file.add)
    file.close()
    (r,) = lines(out)
    assert (r["player"], r["greedy"], r["rules"]) == ("blind", None, {"piles": 4, "bases": True})
    with pytest.raises(ResultsError, match="not for calculation"):
        ResultsFile(str(out), run_key(CALCULATION, CALCULATION.rules_from_options({"piles": "3"}), "blind"))


@pytest.mark.parametrize("player", ["blind", "solver"])
def test_caches_are_emptied_after_each_deal(player, quick_blind):
    """What would make the blind player's worker grow deal after deal: its memos and
    the Calculation solver's, kept across deals. They are emptied after each deal, whichever the
    player (bench/memory.py measures the worker's peak after 1 and after N deals)."""
    blind.blind_play(CALCULATION.opening(DealNumber(3)), rollouts=8)  # fills the memos
    assert blind._CLEARABLE or blind._COSTS
    rep = run_stats([DealNumber(1)], CALCULATION.default_rules(), workers=1, game=CALCULATION, player=player)
    assert rep.deals == 1
    assert not blind._COSTS and not blind._CLEARABLE
    assert not solve_calculation._RELAXED and len(solve_calculation._FRONTS) == 1


def test_the_report_names_the_variant_as_players_do(capsys):
    status, text, _ = stats(capsys, "1-2", "--workers", "1", "--game", "crazy-quilt", "--reserves", "--nodes", "100000")
    assert status == 0 and text.startswith("Persian Rug (redeals 1, wrap no, reserves yes), 2 deals\n")
    status, text, _ = stats(capsys, "1", "--workers", "1", "--game", "calculation", "--piles", "3", "--player", "blind")
    assert status == 0 and " ".join(text.split()).startswith(
        "Calculation with 3 piles (piles 3, bases yes), played by the blind player, 1 deal won ")  # wrapped at 80
