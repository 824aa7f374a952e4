"""The deals' difficulty for every game's calibrated rules (docs/difficulty.md): the bands each
game's solver carries, the measure they rest on, and the calibration read from stats files."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from musical_cli.advice import RATINGS, band_of, difficulty_measure, no_rated_deal, rating
from musical_cli.deals import DealNumber, parse_deal_range
from musical_cli.games import GAMES
from musical_cli.solver import solve

CALCULATION, QUILT, MUSICAL = GAMES["calculation"], GAMES["crazy-quilt"], GAMES["musical"]


def bench_difficulty():
    path = Path(__file__).parent.parent / "bench" / "difficulty.py"
    spec = importlib.util.spec_from_file_location("bench_difficulty", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_games_bands_are_rules_of_that_game_in_order(name):
    game = GAMES[name]
    for rules, (easy, medium) in game.difficulty_bands().items():
        assert isinstance(rules, game.rules_type)
        assert 0 <= easy <= medium < game.difficulty_nodes()
        assert no_rated_deal(game, rules, "hard") is None


def test_every_game_has_its_default_rules_rated():
    for game in GAMES.values():
        assert game.default_rules() in game.difficulty_bands(), game.title


@pytest.mark.parametrize("game, rules, deals", [
    (CALCULATION, CALCULATION.default_rules(), (1, 2, 3)),
    pytest.param(CALCULATION, CALCULATION.rules_type(4, False), (1, 2), marks=pytest.mark.slow),
    pytest.param(MUSICAL, MUSICAL.rules_type(1), (1, 2, 3), marks=pytest.mark.slow),
    (QUILT, QUILT.rules_type(redeals=1), (1, 2, 3)),
    (QUILT, QUILT.rules_type(reserves=True), (1, 2)),
])
def test_a_win_is_found_at_the_same_node_whatever_the_limit(game, rules, deals):
    """What bench/difficulty.py --from rests on: a node limit only stops a search, so a stats
    file run with a larger limit has each win at the node the measure finds it."""
    for d in deals:
        state = game.opening(DealNumber(d), rules)
        measured = difficulty_measure(game, state)
        larger = solve(game, state, budget=None, nodes=4 * game.difficulty_nodes())
        assert measured[0] in ("won", "lost") and measured == (larger.result, larger.nodes)


def test_a_calculation_deal_is_rated_by_its_bands():
    rules = CALCULATION.default_rules()
    bands = CALCULATION.difficulty_bands()[rules]
    seen = set()
    for d in range(1, 13):
        state = CALCULATION.opening(DealNumber(d), rules)
        result, nodes = difficulty_measure(CALCULATION, state)
        got = rating(CALCULATION, rules, state)
        assert got == (band_of(nodes, bands) if result == "won" else result) and got in RATINGS
        seen.add(got)
    assert len(seen) >= 2  # the bands cut these deals, not one band for all


def test_bands_not_calibrated_say_which_are():
    rules = QUILT.rules_type(redeals=1, wrap=True)
    assert rating(QUILT, rules, QUILT.opening(DealNumber(1), rules)) is None
    why = no_rated_deal(QUILT, rules, "easy")
    assert why.startswith("deals of Crazy Quilt with wrap are not rated; those of ") and "Indian Carpet" in why


def _row(seed, result, nodes, rules=None):
    return {"game": "calculation", "rules": rules or {"piles": 4, "bases": True}, "seed": seed,
            "player": "solver", "result": result, "nodes": nodes}


def test_each_game_has_its_own_measure_limit():
    # Crazy Quilt's search is the slow one: its limit is a tenth of the others' (its solver.py)
    assert MUSICAL.difficulty_nodes() == CALCULATION.difficulty_nodes() == 3_000_000
    assert QUILT.difficulty_nodes() == 300_000


def test_calibration_from_a_file(tmp_path):
    bench = bench_difficulty()
    limit = CALCULATION.difficulty_nodes()
    path = tmp_path / "c4.jsonl"
    rows = [_row(1, "won", 10), _row(2, "won", limit + 1), _row(3, "unknown", 4 * limit),
            _row(4, "lost", 99), _row(5, "won", 7, {"piles": 3, "bases": True})]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = bench.measured(CALCULATION, CALCULATION.default_rules(), parse_deal_range("1-4"), [str(path)])
    # a win beyond the measure's limit is undecided for it; another rule set's row is not read
    assert got == {1: ("won", 10), 2: ("unknown", limit + 1), 3: ("unknown", 4 * limit),
                   4: ("lost", 99)}
    with pytest.raises(SystemExit, match="lack 1 of the deals"):
        bench.measured(CALCULATION, CALCULATION.default_rules(), parse_deal_range("1-5"), [str(path)])
    path.write_text(json.dumps(_row(1, "unknown", 200_000)) + "\n")
    with pytest.raises(SystemExit, match="node limit below"):
        bench.measured(CALCULATION, CALCULATION.default_rules(), parse_deal_range("1"), [str(path)])


def test_a_rating_no_deal_has_is_refused_at_once():
    none = MUSICAL.rules_type(0)
    for wanted in ("easy", "medium"):
        assert "every win is rated hard" in no_rated_deal(MUSICAL, none, wanted)
    assert no_rated_deal(MUSICAL, none, "hard") is None and no_rated_deal(MUSICAL, none, "lost") is None


def test_a_search_for_a_rare_rating_gives_up_in_time(monkeypatch):
    from musical_cli import advice

    tried = []

    def numbers():
        tried.append(1)
        return DealNumber(len(tried))

    monkeypatch.setattr(advice, "rating", lambda game, rules, state, progress=None: "easy")
    # the search's time limit itself: seconds, not nodes
    assert advice.deal_rated(MUSICAL, MUSICAL.default_rules(), "lost", numbers, seconds=0.0) is None
    assert len(tried) == 1
    assert advice.deal_rated(MUSICAL, MUSICAL.default_rules(), "lost", numbers, attempts=5, seconds=60) is None
    assert len(tried) == 6


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_games_lost_deals_are_counted_for_its_bands(name):
    game = GAMES[name]
    assert set(game.difficulty_lost()) == set(game.difficulty_bands())


@pytest.mark.parametrize(("game", "options", "args"), [
    (CALCULATION, {}, []), (CALCULATION, {"piles": "3"}, ["--piles", "3"]),
    (CALCULATION, {"bases": "no"}, ["--no-bases"]), (QUILT, {"redeals": "2"}, ["--redeals", "2"])])
def test_a_lost_deal_where_none_is_known_is_refused_at_once(game, options, args, monkeypatch, capsys):
    """No deal of Calculation (nor of Indian Carpet) is known to be lost: '--difficulty lost'
    says so at once, and searches nothing."""
    from test_cli import cli

    from musical_cli import advice

    rules = game.rules_from_options(options)
    why = no_rated_deal(game, rules, "lost")
    assert why == (f"no deal of {game.variant_title(rules)} is known to be lost: the solver proved none lost "
                   "of the deals its ratings were calibrated on (docs/difficulty.md)")
    monkeypatch.setattr(advice, "deal_rated", lambda *a, **k: pytest.fail("searched"))
    status, _, err = cli(capsys, "--difficulty", "lost", "--game", game.name, *args)
    assert status == 2 and "is known to be lost" in err
    for wanted in ("easy", "medium", "hard"):
        assert no_rated_deal(game, rules, wanted) is None


def test_a_lost_deal_is_looked_for_where_some_are_known():
    for game, rules in ((MUSICAL, MUSICAL.default_rules()), (QUILT, QUILT.rules_type(redeals=1)),
                        (QUILT, QUILT.rules_type(reserves=True))):
        assert no_rated_deal(game, rules, "lost") is None


def test_a_search_for_a_rated_deal_tells_its_progress():
    from musical_cli import advice

    told: list[tuple[int, float]] = []
    got = advice.deal_rated(MUSICAL, MUSICAL.default_rules(), "lost", iter(DealNumber(n) for n in (1, 2, 3)).__next__,
                            attempts=3, progress=lambda rated, seconds: told.append((rated, seconds)))
    assert got is None  # deals 1-3 are won
    assert [rated for rated, _ in told][-3:] == [1, 2, 3]
    assert all(seconds >= 0 for _, seconds in told)


def test_calibration_reads_rules_as_stats_writes_them(tmp_path):
    bench = bench_difficulty()
    path = tmp_path / "m.jsonl"
    rows = [{"game": "musical", "rules": {"redeals": "unlimited"}, "seed": 1, "player": "solver", "result": "won",
             "nodes": 44},
            {"game": "musical", "rules": {"redeals": 2}, "seed": 1, "player": "solver", "result": "won", "nodes": 45}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = bench.measured(MUSICAL, MUSICAL.rules_type(None), parse_deal_range("1"), [str(path)])
    assert got == {1: ("won", 44)}


def test_calibration_from_a_file_uses_the_games_own_limit(tmp_path):
    # a Crazy Quilt file run at 3,000,000 nodes stands for its 300,000-node measure: a win found
    # beyond 300,000 is undecided for it, though Calculation's measure would take it
    bench = bench_difficulty()
    rules = {"redeals": 1, "wrap": False, "reserves": False}
    rows = [{"game": "crazy-quilt", "rules": rules, "seed": s, "player": "solver", "result": r, "nodes": n}
            for s, r, n in ((1, "won", 299_000), (2, "won", 400_000), (3, "unknown", 3_000_000))]
    path = tmp_path / "q1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = bench.measured(QUILT, QUILT.rules_type(redeals=1), parse_deal_range("1-3"), [str(path)])
    assert got == {1: ("won", 299_000), 2: ("unknown", 400_000), 3: ("unknown", 3_000_000)}


@pytest.mark.slow
def test_crazy_quilts_measure_stops_at_its_own_limit():
    # deal 175 at one redeal: undecided at 3,000,000 nodes too; rated in a tenth of the search
    rules = QUILT.rules_type(redeals=1)
    result, nodes = difficulty_measure(QUILT, QUILT.opening(DealNumber(175), rules))
    assert result == "unknown" and 300_000 <= nodes < 301_000  # the limit is checked every few nodes
    assert rating(QUILT, rules, QUILT.opening(DealNumber(175), rules)) == "unknown"
