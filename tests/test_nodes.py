"""A node limit (``solve --nodes``, ``stats --nodes``): every game's search stops at it, the answer
is the same on every run, and a position decided within it is decided as without it."""

from __future__ import annotations

import json

import pytest
from lines import run_main

from musical_cli.deals import DealNumber
from musical_cli.games import game_named
from musical_cli.solver import solve

# (game, rule options, a deal its search does not decide within a few thousand nodes)
HARD = [("musical", {"redeals": "1"}, 22), ("calculation", {}, 1), ("crazy-quilt", {}, 5)]
# Each search checks its limit every few hundred nodes at most (256 in Musical's and
# Calculation's, 64 in Crazy Quilt's and in Musical's local search); a second's worth of
# nodes past it means the limit was not read.
SLACK = 1_000


@pytest.mark.parametrize("name, options, deal", HARD)
def test_every_search_stops_at_the_node_limit(name, options, deal):
    game = game_named(name)
    state = game.opening(DealNumber(deal), game.rules_from_options(options))
    # the seconds only guard against a limit not read (the test then fails, not hangs): 3,000
    # nodes take milliseconds
    first = solve(game, state, budget=20.0, nodes=3_000)
    assert first.result == "unknown"
    assert 3_000 <= first.nodes < 3_000 + SLACK
    again = solve(game, state, budget=20.0, nodes=3_000)
    assert (again.result, again.nodes) == (first.result, first.nodes)


@pytest.mark.parametrize("name, options, deal", [("musical", {"redeals": "1"}, 24),
                                                 ("calculation", {}, 4), ("crazy-quilt", {}, 6)])
def test_a_deal_decided_within_the_limit_is_decided_as_without_it(name, options, deal):
    game = game_named(name)
    state = game.opening(DealNumber(deal), game.rules_from_options(options))
    free = solve(game, state, budget=None)
    capped = solve(game, state, budget=None, nodes=free.nodes + 1_000)
    assert free.result == "won"
    assert (capped.result, capped.moves, capped.nodes) == (free.result, free.moves, free.nodes)


def test_solve_nodes_gives_the_same_json_every_run(monkeypatch, capsys):
    outs = []
    for _ in range(2):
        status, out, err = run_main(["solve", "--seed", "22", "--redeals", "1", "--nodes", "3000", "--json"],
                                    "", monkeypatch, capsys)
        assert status == 4, err  # unknown
        got = json.loads(out)
        del got["seconds"]
        outs.append(got)
    assert outs[0] == outs[1]
    assert outs[0]["result"] == "unknown" and outs[0]["nodes"] >= 3000


def test_stats_nodes_counts_what_solve_says(monkeypatch, capsys, tmp_path):
    out_file = tmp_path / "r.jsonl"
    status, out, err = run_main(["stats", "--redeals", "1", "--nodes", "5000", "--workers", "1", "--json",
                                 "--out", str(out_file), "21-24"], "", monkeypatch, capsys)
    assert status == 0, err
    game = game_named("musical")
    rules = game.rules_from_options({"redeals": "1"})
    expected = [solve(game, game.opening(DealNumber(n), rules), budget=None, nodes=5000) for n in range(21, 25)]
    report = json.loads(out)
    for result in ("won", "lost", "unknown"):
        assert report[result] == sum(s.result == result for s in expected)
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(r["result"], r["nodes"]) for r in lines] == [(s.result, s.nodes) for s in expected]
    assert report["unknown"] > 0  # the limit is what left them undecided: a budget of 10 s decides more


@pytest.mark.parametrize("argv, words", [
    (["stats", "--game", "calculation", "--player", "blind", "--nodes", "100", "1"], "--nodes limits the solver"),
    (["stats", "--from", "x.jsonl", "--nodes", "100"], "--nodes goes with a run"),
    (["solve", "--seed", "1", "--nodes", "0"], "not a number of search nodes"),
    (["stats", "--nodes", "lots", "1"], "not a number of search nodes"),
])
def test_node_limit_usage_errors(argv, words, monkeypatch, capsys):
    status, out, err = run_main(argv, "", monkeypatch, capsys)
    assert status == 2
    assert words in err and "Traceback" not in err
