"""Winnability statistics over many deals, solved in parallel processes.

Each deal is solved by :func:`musical_cli.solver.solve` in a worker process of a
``concurrent.futures.ProcessPoolExecutor`` (one per core by default; ``workers=1`` solves in this
process, with no pool), together with the greedy strategy's result on the same deal. Ctrl-C stops
early: pending deals are cancelled, the workers give up the deal they are on (they are told through
an event that the solver's progress callback checks), and the report of what finished comes back
with ``interrupted=True``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import statistics
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from .deals import DealNumber
from .game import Game, NotAvailable


@dataclass
class DealResult:
    deal: str  # the deal number's text: "17", "ms5"
    result: str  # "won" | "lost" | "unknown"
    seconds: float  # the solver's time on this deal
    nodes: int
    greedy_won: bool


@dataclass
class StatsReport:
    deals: int
    game: str = ""
    options: dict[str, str] = field(default_factory=dict)  # the rule options, as text
    player: str = "solver"
    won: int = 0
    lost: int = 0
    unknown: int = 0
    greedy_won: int = 0
    seconds_total: float = 0.0  # wall-clock time of the whole run
    median: float = 0.0  # solver seconds per deal
    p90: float = 0.0
    max: float = 0.0
    results: list[DealResult] = field(default_factory=list)
    interrupted: bool = False

    def to_json(self) -> dict:
        return {
            "game": self.game,
            **{k: _json_value(v) for k, v in self.options.items()},
            "player": self.player,
            "deals": self.deals,
            "won": self.won,
            "lost": self.lost,
            "unknown": self.unknown,
            "greedy_won": self.greedy_won,
            "seconds": {"total": round(self.seconds_total, 3), "median": round(self.median, 3),
                        "p90": round(self.p90, 3), "max": round(self.max, 3)},
        }


def _json_value(text: str):
    if text.isdigit():
        return int(text)
    return {"yes": True, "no": False}.get(text, text)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest-rank method; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered), math.ceil(round(q * len(ordered), 9))) - 1)
    return ordered[k]


PLAYERS = ("solver", "blind")


def solve_deal(deal: DealNumber, rules: Any, budget: float | None,
               game: Game, progress: Callable[[int, float], None] | None = None,
               player: str = "solver") -> DealResult:
    """One deal's line in the report. ``player`` "blind" plays the deal with the blind player
    (games whose hints are blind) instead of solving it: "won" or "lost" is then its result."""
    from .solver import solve

    state = game.opening(deal, rules)
    if player == "blind":
        start = time.perf_counter()
        won, moves = game.blind_play(state, progress=progress)
        return DealResult(deal.text, "won" if won else "lost", time.perf_counter() - start, len(moves), False)
    solution = solve(game, state, budget, progress)
    try:
        greedy = game.greedy_wins(state)
    except NotAvailable:  # no baseline strategy for this game
        greedy = False
    return DealResult(deal.text, solution.result, solution.seconds, solution.nodes, greedy)


class _Cancelled(Exception):
    pass


_STOP = None  # in a worker process: the pool's stop event


def _init_worker(stop) -> None:
    global _STOP
    _STOP = stop
    # Ctrl-C reaches the whole process group; the parent decides what to do about it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_requested(nodes: int, seconds: float) -> None:
    if _STOP is not None and _STOP.is_set():
        raise _Cancelled


def _pool_task(deal: DealNumber, rules: Any, budget: float | None, game: Game,
               player: str = "solver") -> DealResult | None:
    """In a worker: the deal's result, or None when the parent asked to stop (the solver's
    progress callback, called every 0.15 s or so, notices)."""
    try:
        return solve_deal(deal, rules, budget, game, _stop_requested, player)
    except _Cancelled:
        return None


def _summarise(deals: int, results: list[DealResult], seconds: float, interrupted: bool) -> StatsReport:
    times = [r.seconds for r in results]
    report = StatsReport(deals=deals, results=results, interrupted=interrupted)
    report.won = sum(r.result == "won" for r in results)
    report.lost = sum(r.result == "lost" for r in results)
    report.unknown = sum(r.result == "unknown" for r in results)
    report.greedy_won = sum(r.greedy_won for r in results)
    report.seconds_total = seconds
    if times:
        report.median = statistics.median(times)
        report.p90 = percentile(times, 0.9)
        report.max = max(times)
    return report


def run_stats(deals: list[DealNumber], rules: Any, workers: int | None = None,
              budget: float | None = 10.0, on_result: Callable[[DealResult], None] | None = None,
              *, game: Game, player: str = "solver") -> StatsReport:
    """Solve every deal; ``report.deals`` counts the deals finished (all of them unless
    interrupted). ``on_result`` is called in this process for each finished deal."""
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, workers)
    start = time.perf_counter()
    results: list[DealResult] = []
    interrupted = False

    def finished(result: DealResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    if workers == 1 or len(deals) <= 1:
        try:
            for deal in deals:
                finished(solve_deal(deal, rules, budget, game, player=player))
        except KeyboardInterrupt:
            interrupted = True
    else:
        interrupted = _run_pool(deals, rules, workers, budget, game, finished, player)
    order = {d.text: i for i, d in enumerate(deals)}
    results.sort(key=lambda r: order.get(r.deal, 0))
    report = _summarise(len(results), results, time.perf_counter() - start, interrupted)
    report.game, report.player = game.name, player
    report.options = game.rules_options(rules)
    return report


def _run_pool(deals: list[DealNumber], rules: Any, workers: int, budget: float | None,
              game: Game, finished: Callable[[DealResult], None], player: str = "solver") -> bool:
    """Solve in a pool; True when interrupted by Ctrl-C. On Ctrl-C the pending deals are
    cancelled and the workers are told (through an event) to give up the deal they are on, so
    the pool shuts down in a fraction of a second without killing anything."""
    context = multiprocessing.get_context()
    stop = context.Event()
    pool = ProcessPoolExecutor(max_workers=min(workers, len(deals)), mp_context=context,
                               initializer=_init_worker, initargs=(stop,))
    pending: set[Future] = set()
    interrupted = False
    try:
        pending = {pool.submit(_pool_task, deal, rules, budget, game, player) for deal in deals}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                if result is not None:
                    finished(result)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        stop.set()
        for future in pending:
            future.cancel()
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except KeyboardInterrupt:  # a second Ctrl-C while the workers wind down
            pool.shutdown(wait=False, cancel_futures=True)
            interrupted = True
    return interrupted
