"""run_stats: counts and the JSON shape, in-process and with a pool, and Ctrl-C."""

from __future__ import annotations

import json

import pytest

from musical_cli.deals import DealNumber, parse_deal_range
from musical_cli.games.calculation.rules import CALCULATION
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.stats import DealResult, StatsReport, percentile, run_stats

DEALS = parse_deal_range("1-10")
# Each deal's node limit where results are asserted: far more than these deals take (under 1,000
# nodes each), and the same results on every machine.
NODES = 200_000


def check_report(rep: StatsReport, n: int, redeals) -> None:
    assert rep.deals == n == len(rep.results)
    assert rep.won + rep.lost + rep.unknown == n
    assert rep.greedy_won <= rep.won
    data = rep.to_json()
    # One shape for every game: the game, its rule options (from its declarations), the player.
    assert list(data) == ["game", "redeals", "player", "deals", "won", "lost", "unknown", "interval",
                          "greedy_won", "seconds", "lost_deals", "unknown_deals"]
    # the deals themselves, as numbers in the range's order, as many as counted
    for kind in ("lost", "unknown"):
        assert data[f"{kind}_deals"] == [int(r.deal) for r in rep.results if r.result == kind]
        assert len(data[f"{kind}_deals"]) == data[kind]
    assert (data["game"], data["player"]) == ("musical", "solver")
    assert list(data["seconds"]) == ["total", "median", "p90", "max"]
    assert data["deals"] == n
    assert data["redeals"] == ("unlimited" if redeals is None else redeals)
    assert (data["won"], data["lost"], data["unknown"], data["greedy_won"]) == (
        rep.won, rep.lost, rep.unknown, rep.greedy_won)
    assert all(isinstance(v, (int, float)) and v >= 0 for v in data["seconds"].values())
    assert data["seconds"]["median"] <= data["seconds"]["p90"] <= data["seconds"]["max"]
    assert [r.deal for r in rep.results] == [str(d.number) for d in DEALS[:n]]
    assert all(isinstance(r, DealResult) and r.result in ("won", "lost", "unknown") for r in rep.results)
    assert not rep.interrupted


@pytest.mark.parametrize("workers", [1, 2])
def test_two_redeals(workers):
    seen = []
    rep = run_stats(DEALS, MusicalRules(2), game=MUSICAL, workers=workers, budget=None, nodes=NODES,
                    on_result=seen.append)
    check_report(rep, 10, 2)
    assert rep.won == 10  # deals 1-10 are all won with two redeals
    assert sorted(r.deal for r in seen) == sorted(str(n) for n in range(1, 11))
    assert 0 < rep.greedy_won < 10


def test_zero_and_unlimited_redeals():
    rep = run_stats(DEALS[:5], MusicalRules(0), game=MUSICAL, workers=2, budget=None, nodes=NODES)
    check_report(rep, 5, 0)
    assert rep.lost == 5
    rep = run_stats(DEALS[:5], MusicalRules(None), game=MUSICAL, workers=1, budget=None, nodes=NODES)
    check_report(rep, 5, None)
    assert rep.won == 5 and rep.to_json()["redeals"] == "unlimited"


def test_budget_unknown_is_counted():
    # deal 2 with one redeal is far beyond a 10 ms budget (the time limit itself is tested here)
    rep = run_stats([DealNumber(2)], MusicalRules(1), game=MUSICAL, workers=1, budget=0.01)
    assert (rep.won, rep.lost, rep.unknown) == (0, 0, 1)


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_reports_what_finished(workers):
    seen = []

    def on_result(result):
        seen.append(result)
        if len(seen) == 2:
            raise KeyboardInterrupt

    deals = parse_deal_range("1-40")
    rep = run_stats(deals, MusicalRules(2), game=MUSICAL, workers=workers, budget=None, nodes=NODES,
                    on_result=on_result)
    assert rep.interrupted
    assert 2 <= rep.deals < 40
    assert rep.won + rep.lost + rep.unknown == rep.deals == len(rep.results)


def test_percentile():
    assert percentile([], 0.9) == 0.0
    assert percentile([3.0], 0.9) == 3.0
    values = [float(v) for v in range(1, 11)]
    assert percentile(values, 0.9) == 9.0
    assert percentile(values, 0.5) == 5.0
    assert percentile(values, 1.0) == 10.0


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_while_solving_long_deals(workers):
    """A real SIGINT while the workers are deep in hard deals: the run stops early (the workers
    give up their deal at their next progress check) and reports what finished."""
    import os
    import signal
    import threading

    # one redeal: seconds of search each; a time budget, not nodes, so that the deals last until
    # the Ctrl-C on any machine, however fast
    hard = [DealNumber(n) for n in (2, 16, 26, 46)]
    # (a shell leaves SIGINT ignored in background jobs: make sure it raises KeyboardInterrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        rep = run_stats(hard, MusicalRules(1), game=MUSICAL, workers=workers, budget=60)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert rep.interrupted
    assert rep.deals == len(rep.results) < len(hard)


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_while_the_blind_player_plays(workers):
    """Ctrl-C stops the blind player within a move, in a worker too. Ctrl-C is pressed every
    half second until the run returns, as a user would press it again: a single SIGINT was once
    lost in a loaded full run (Python drops a KeyboardInterrupt raised inside a finalizer, the
    likely cause). 200 deals, so that the run cannot end before the first press: on an idle
    machine the blind player takes a fifth of a second a deal here, and 4 deals with 2 workers
    were all played within the first half second."""
    import os
    import signal
    import threading

    deals = [DealNumber(n) for n in range(1, 201)]
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()

    def press():
        while not done.wait(0.5):
            os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    try:
        rep = run_stats(deals, CALCULATION.default_rules(), workers=workers, game=CALCULATION, player="blind")
    finally:
        done.set()
        presser.join()
        signal.signal(signal.SIGINT, previous)
    assert rep.interrupted
    assert rep.deals == len(rep.results) < len(deals)
    assert rep.to_json()["player"] == "blind"


def test_json_names_the_lost_and_unknown_deals():
    """--json names the deals lost and left undecided, as the results files write seeds (a
    number, or text), in the range's order: a longer run can be given just those."""
    results = [DealResult(deal, result, 0.1, 10, None)
               for deal, result in [("3", "won"), ("7", "unknown"), ("ms5", "lost"), ("12", "lost"), ("40", "unknown")]]
    data = StatsReport(deals=5, won=1, lost=2, unknown=2, results=results).to_json()
    assert data["lost_deals"] == [DealNumber.parse("ms5").json, 12]
    assert data["unknown_deals"] == [7, 40]
    assert json.loads(json.dumps(data)) == data


def test_the_report_wraps_between_words_at_80_columns_in_a_pipe(capsys):
    """Crazy Quilt's report has the longest lines (the interval's note, the greedy strategy's
    words): in a pipe each line stays within 80 columns, broken between words, its rest indented."""
    from musical_cli.cli import main

    assert main(["stats", "--game", "quilt", "--workers", "1", "--nodes", "2000", "1-2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines and all(len(line) <= 80 for line in lines), out
    words = out.split()
    assert "(Wilson;" in words and "dealing" in words  # whole words, none cut
    assert any(line.startswith("      ") for line in lines)  # a rest, indented under its line
