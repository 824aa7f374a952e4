"""Winnability statistics over many deals: solved in parallel, kept deal by deal, resumable.

Each deal is solved by :func:`musical_cli.solver.solve` (or played by the blind player), together
with the greedy strategy's result on the same deal. Where the deals run is one seam, the
``concurrent.futures.Executor`` interface: a local ``ProcessPoolExecutor`` (one process per core by
default; ``workers=1`` solves in this process, with no pool), or any executor given to
:func:`run_stats`, such as ``distributed.Client(...).get_executor()`` for a Dask cluster (see
:mod:`musical_cli.cluster`). Deals are submitted a few at a time (a bounded number in flight), so
a million-deal range never holds a million futures; a deal whose worker was lost is submitted
again, and a deal is counted once whatever happens.

Ctrl-C (SIGINT), pressed any number of times, only sets a flag (:func:`catching_interrupts`): the
loop notices it within a quarter of a second, the pending deals are cancelled, the local workers
give up the deal they are on (told through an event that the solver's progress callback checks)
and are joined (killed if they do not stop within seconds), and the report of what finished comes
back with ``interrupted=True``. No exception is ever raised at a random point of the shutdown.

With a results file (:class:`ResultsFile`), each finished deal is appended to it as one JSON line
and flushed at once; running again with the same file skips the deals it holds.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import signal
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Any

from .deals import DealNumber, DealNumberError
from .game import AnyGame, NotAvailable, RulesError
from .i18n import _, joined

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event

PLAYERS = ("solver", "blind")
RESULTS = ("won", "lost", "unknown")
RETRIES = 3  # a deal whose worker died (or that raised) is submitted again up to this many times
POLL = 0.25  # seconds between looks at the Ctrl-C flag while waiting for workers
STOP_GRACE = 5.0  # seconds the local workers get to stop after Ctrl-C before they are killed


@dataclass
class DealResult:
    deal: str  # the deal number's text: "17", "ms5"
    result: str  # "won" | "lost" | "unknown"
    seconds: float  # the solver's time on this deal
    nodes: int
    greedy_won: bool | None  # None: no greedy strategy here (the blind player, Calculation)
    moves: tuple[str, ...] = ()  # the winning line, when won


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

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% interval, as the Solvitaire study gives it: the Wilson interval's
        lower bound with every undecided deal counted as lost, its upper bound with every one
        counted as won. So the true rate over deals like these lies in it whatever the undecided
        deals turn out to be (at 95% confidence), and the interval narrows as they are decided."""
        low, _high = wilson(self.won, self.deals)
        _low, high = wilson(self.won + self.unknown, self.deals)
        return low, high

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            **{k: _json_value(v) for k, v in self.options.items()},
            "player": self.player,
            "deals": self.deals,
            "won": self.won,
            "lost": self.lost,
            "unknown": self.unknown,
            "interval": [round(v, 4) for v in self.interval],
            "greedy_won": self.greedy_won,
            "seconds": {"total": round(self.seconds_total, 3), "median": round(self.median, 3),
                        "p90": round(self.p90, 3), "max": round(self.max, 3)},
            # which deals, as the results files name them: the ones a later run may want again
            "lost_deals": [DealNumber.parse(r.deal).json for r in self.results if r.result == "lost"],
            "unknown_deals": [DealNumber.parse(r.deal).json for r in self.results if r.result == "unknown"],
        }


Z95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95% interval


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials, as fractions. Unlike the
    normal approximation it stays within [0, 1] and is not empty at k = 0 or k = n. With no trial
    nothing is known: (0, 1)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At k = 0 (or k = n) the bound is exactly 0 (1); rounding must not make it cross.
    low = 0.0 if k <= 0 else max(0.0, centre - half)
    high = 1.0 if k >= n else min(1.0, centre + half)
    return low, high


def _json_value(text: str) -> int | bool | str:
    if text.isdigit():
        return int(text)
    return {"yes": True, "no": False}.get(text, text)


def option_text(value: object) -> str:
    """The inverse of :func:`_json_value`: a rule option's text from its JSON form."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest-rank method; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered), math.ceil(round(q * len(ordered), 9))) - 1)
    return ordered[k]


def clear_caches() -> None:
    """Empty the memos that the games' modules keep between calls (each offers ``clear_caches``).
    Called after every deal, so that a worker's memory does not grow with the number of deals it
    has solved: the memos are keyed by positions, and a new deal reuses little
    of another's. Only modules already imported are visited: this imports nothing. The list of
    them is made again only when a module has been imported since (a sweep of sys.modules costs
    a tenth of a millisecond, as much as some deals)."""
    global _FORGETTERS
    if _FORGETTERS[0] != len(sys.modules):
        found = []
        for name, module in list(sys.modules.items()):
            if name.startswith("musical_cli.") and name != __name__ and module is not None:
                forget = getattr(module, "clear_caches", None)
                if callable(forget):
                    found.append(forget)
        _FORGETTERS = (len(sys.modules), tuple(found))
    for forget in _FORGETTERS[1]:
        forget()


_FORGETTERS: tuple[int, tuple[Callable[[], None], ...]] = (0, ())


def solve_deal(deal: DealNumber, rules: Hashable, budget: float | None,
               game: AnyGame, progress: Callable[[int, float], None] | None = None,
               player: str = "solver", nodes: int | None = None) -> DealResult:
    """One deal's line in the report. ``player`` "blind" plays the deal with the blind player
    (games whose hints are blind) instead of solving it: "won" or "lost" is then its result."""
    from .solver import solve

    try:
        state = game.opening(deal, rules)
        if player == "blind":
            start = time.perf_counter()
            won, played = game.blind_play(state, progress=progress)
            return DealResult(deal.text, "won" if won else "lost", time.perf_counter() - start, len(played),
                              None, tuple(str(m) for m in played) if won else ())
        solution = solve(game, state, budget, progress, nodes)
        try:
            greedy: bool | None = game.greedy_wins(state)
        except NotAvailable:  # no baseline strategy for this game
            greedy = None
        moves = tuple(str(m) for m in solution.moves) if solution.result == "won" else ()
        return DealResult(deal.text, solution.result, solution.seconds, solution.nodes, greedy, moves)
    finally:
        clear_caches()


# --- Ctrl-C ----------------------------------------------------------------------------------


class _Interrupts:
    """How many times SIGINT came while :func:`catching_interrupts` was in force."""

    def __init__(self) -> None:
        self.count = 0
        self.depth = 0

    @property
    def requested(self) -> bool:
        return self.count > 0

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1


INTERRUPTS = _Interrupts()


@contextlib.contextmanager
def catching_interrupts(then_ignore: bool = False) -> Iterator[_Interrupts]:
    """While in force (in the main thread), SIGINT only counts: no KeyboardInterrupt can land in
    the middle of a pool's shutdown, a file write or the report. Nested uses share one count,
    which the outermost resets. With ``then_ignore``, a run that was interrupted leaves SIGINT
    ignored rather than restoring the handler: the program is about to exit, and a press still
    coming must not turn into a traceback on the way out."""
    main = threading.current_thread() is threading.main_thread()
    if INTERRUPTS.depth == 0:
        INTERRUPTS.count = 0
    previous = signal.signal(signal.SIGINT, INTERRUPTS.handler) if main else None
    INTERRUPTS.depth += 1
    try:
        yield INTERRUPTS
    finally:
        INTERRUPTS.depth -= 1
        if main:
            signal.signal(signal.SIGINT, signal.SIG_IGN if then_ignore and INTERRUPTS.requested else previous)


class _Cancelled(Exception):
    pass


_STOP: Event | None = None  # in a worker process: the pool's stop event


def _init_worker(stop: Event) -> None:
    global _STOP
    _STOP = stop
    # Ctrl-C reaches the whole process group; the parent decides what to do about it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_requested(nodes: int, seconds: float) -> None:
    if _STOP is not None and _STOP.is_set():
        raise _Cancelled


def _interrupt_requested(nodes: int, seconds: float) -> None:
    if INTERRUPTS.requested:
        raise _Cancelled


def _pool_task(deal: DealNumber, rules: Hashable, budget: float | None, game: AnyGame,
               player: str = "solver", nodes: int | None = None) -> DealResult | None:
    """In a worker: the deal's result, or None when the parent asked to stop (the solver's
    progress callback, called every 0.15 s or so, notices)."""
    try:
        return solve_deal(deal, rules, budget, game, _stop_requested, player, nodes)
    except _Cancelled:
        return None


# --- the report -----------------------------------------------------------------------------


def summarise(results: list[DealResult], game: AnyGame, rules: Hashable, player: str, seconds: float,
              interrupted: bool = False) -> StatsReport:
    """The report on ``results`` (one per deal)."""
    times = [r.seconds for r in results]
    report = StatsReport(deals=len(results), results=results,
                         interrupted=interrupted)
    report.won = sum(r.result == "won" for r in results)
    report.lost = sum(r.result == "lost" for r in results)
    report.unknown = sum(r.result == "unknown" for r in results)
    report.greedy_won = sum(r.greedy_won is True for r in results)
    report.seconds_total = seconds
    if times:
        report.median = statistics.median(times)
        report.p90 = percentile(times, 0.9)
        report.max = max(times)
    report.game, report.player = game.name, player
    report.options = game.rules_options(rules)
    return report


# --- running the deals --------------------------------------------------------------------------


def run_stats(deals: list[DealNumber], rules: Hashable, workers: int | None = None,
              budget: float | None = 10.0, on_result: Callable[[DealResult], None] | None = None,
              *, game: AnyGame, player: str = "solver", executor: Executor | None = None,
              in_flight: int | None = None, nodes: int | None = None) -> StatsReport:
    """Solve every deal; ``report.deals`` counts the deals finished (all of them unless
    interrupted). ``on_result`` is called in this process for each finished deal.

    ``executor`` (a ``concurrent.futures.Executor``, for example a Dask client's) runs the deals
    instead of a local pool; it is not shut down here. ``in_flight`` bounds the deals submitted
    and not finished (default: twice the workers). ``nodes`` limits each deal's search as
    ``budget`` does (both may apply; with ``budget`` None, the results are the same on every
    machine)."""
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, workers)
    start = time.perf_counter()
    results: list[DealResult] = []

    def finished(result: DealResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    with catching_interrupts() as interrupts:
        try:
            if executor is not None:
                interrupted = _drive(lambda: executor, None, deals, (rules, budget, game, player, nodes), finished,
                                     in_flight or 2 * workers, interrupts)
            elif workers == 1 or len(deals) <= 1:
                interrupted = _run_here(deals, rules, budget, game, player, finished, interrupts, nodes)
            else:
                interrupted = _run_pool(deals, rules, min(workers, len(deals)), budget, game, player,
                                        finished, interrupts, in_flight, nodes)
        except KeyboardInterrupt:  # raised by on_result (or a handler not ours): stop all the same
            interrupted = True
        interrupted = interrupted or interrupts.requested
    order = {d.text: i for i, d in enumerate(deals)}
    results.sort(key=lambda r: order.get(r.deal, 0))
    return summarise(results, game, rules, player, time.perf_counter() - start, interrupted)


def _run_here(deals: Iterable[DealNumber], rules: Hashable, budget: float | None, game: AnyGame,
              player: str, finished: Callable[[DealResult], None], interrupts: _Interrupts,
              nodes: int | None = None) -> bool:
    for deal in deals:
        if interrupts.requested:
            return True
        try:
            result = solve_deal(deal, rules, budget, game, _interrupt_requested, player, nodes)
        except _Cancelled:
            return True
        finished(result)
    return False


def _run_pool(deals: list[DealNumber], rules: Hashable, workers: int, budget: float | None, game: AnyGame,
              player: str, finished: Callable[[DealResult], None], interrupts: _Interrupts,
              in_flight: int | None, nodes: int | None = None) -> bool:
    """Solve in local worker processes; True when interrupted. A pool broken by a worker's death
    (killed, out of memory) is replaced, and the deals it held are submitted again."""
    context = multiprocessing.get_context()
    before = {p.pid for p in multiprocessing.active_children()}
    stop = context.Event()
    pools: list[ProcessPoolExecutor] = []

    def new_pool() -> ProcessPoolExecutor:
        if pools:
            _close_pool(pools.pop(), stop, wait_for_workers=False)
        pools.append(ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                         initializer=_init_worker, initargs=(stop,)))
        return pools[-1]

    try:
        return _drive(new_pool, new_pool, deals, (rules, budget, game, player, nodes), finished,
                      in_flight or 2 * workers, interrupts)
    finally:
        stop.set()
        for pool in pools:
            _close_pool(pool, stop)
        # A worker of a pool that broke can outlive the pool's own clean-up (seen once in CI):
        # every process started during the run is ours, and none may be left behind.
        for process in multiprocessing.active_children():
            if process.pid not in before:
                process.join(STOP_GRACE / 5)
                if process.is_alive():
                    process.kill()
                    process.join(2.0)


def _close_pool(pool: ProcessPoolExecutor, stop: Event, wait_for_workers: bool = True) -> None:
    """Shut ``pool`` down without hanging: its queued deals are cancelled, its workers (told
    through ``stop`` to give up their deal) get a few seconds to exit, then are killed."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    stop.set()
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + (STOP_GRACE if wait_for_workers else 0.0)
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(2.0)
    pool.shutdown(wait=True)
    stop.clear()


def _drive(executor: Callable[[], Executor], replace: Callable[[], Executor] | None,
           deals: list[DealNumber], args: tuple[Any, ...], finished: Callable[[DealResult], None],
           in_flight: int, interrupts: _Interrupts) -> bool:
    """Keep at most ``in_flight`` deals submitted; hand each result to ``finished`` once. A deal
    whose future failed (its worker died) is submitted again, up to RETRIES times; a broken local
    pool is replaced through ``replace``. True when interrupted."""
    queue = deque(deals)
    running: dict[Future[DealResult | None], DealNumber] = {}
    tries: dict[str, int] = {}
    pool = executor()
    while queue or running:
        if interrupts.requested:
            for future in running:
                future.cancel()
            return True
        while queue and len(running) < in_flight:
            deal = queue.popleft()
            try:
                running[pool.submit(_pool_task, deal, *args)] = deal
            except BrokenProcessPool:
                queue.appendleft(deal)
                break
        done, _pending = wait(running, timeout=POLL, return_when=FIRST_COMPLETED)
        broken = False
        for future in done:
            deal = running.pop(future)
            if future.cancelled():
                queue.appendleft(deal)
                continue
            error = future.exception()
            if error is None:
                result = future.result()
                if result is not None:
                    finished(result)
                continue
            tries[deal.text] = tries.get(deal.text, 0) + 1
            if tries[deal.text] > RETRIES:
                # TRANSLATORS: {kind} is the Python exception's name ("MemoryError"), {error} its message, in English
                raise RuntimeError(_("deal {deal} failed {times} times, the last with {kind}: {error}").format(
                    deal=deal.text, times=RETRIES + 1, kind=type(error).__name__, error=error)) from error
            queue.appendleft(deal)
            broken = broken or isinstance(error, BrokenProcessPool)
        if broken:
            if replace is None:
                raise RuntimeError(_("the pool of workers broke down"))
            # Every deal the broken pool held fails; they all go back in the queue.
            for future, deal in running.items():
                future.cancel()
                queue.appendleft(deal)
            running.clear()
            pool = replace()
    return False


# --- the results file ----------------------------------------------------------------------------


class ResultsError(Exception):
    """A results file that cannot be used, and why (exit status 2)."""


def run_key(game: AnyGame, rules: Hashable, player: str) -> dict[str, Any]:
    """What a results line must agree on with the run that appends to it."""
    return {"game": game.name, "rules": {k: _json_value(v) for k, v in game.rules_options(rules).items()},
            "player": player}


def describe_key(key: dict[str, Any]) -> str:
    rules = ", ".join(f"{k} {option_text(v)}" for k, v in key["rules"].items())
    return f"{key['game']} ({rules}), {key['player']}"


def result_record(result: DealResult, key: dict[str, Any]) -> dict[str, Any]:
    """A finished deal as a results line (a JSON object)."""
    record = {"game": key["game"], "rules": key["rules"], "seed": DealNumber.parse(result.deal).json,
              "player": key["player"], "result": result.result}
    if result.result == "won":
        record["moves"] = list(result.moves)
    record.update({"nodes": result.nodes, "seconds": round(result.seconds, 4), "greedy": result.greedy_won})
    return record


def _deal_result(record: object) -> tuple[dict[str, Any], DealResult]:
    """(key, result) of one results line; ValueError saying what is wrong with it."""
    if not isinstance(record, dict):
        raise ValueError(_("not a JSON object"))
    missing = [k for k in ("game", "rules", "seed", "player", "result", "nodes", "seconds") if k not in record]
    if missing:
        # TRANSLATORS: {key} is a JSON key, quoted: 'seed'
        raise ValueError(_("no {key}").format(key=repr(missing[0])))
    game, rules, player, result = record["game"], record["rules"], record["player"], record["result"]
    if not isinstance(game, str) or not isinstance(rules, dict) or player not in PLAYERS:
        raise ValueError(_("bad 'game', 'rules' or 'player'"))
    if result not in RESULTS:
        # TRANSLATORS: {values} are the JSON values a result may take: "won, lost, unknown"
        raise ValueError(_("'result' must be one of {values}").format(values=", ".join(RESULTS)))
    try:
        deal = DealNumber.parse(record["seed"]) if isinstance(record["seed"], (int, str)) else None
    except DealNumberError as e:
        raise ValueError(str(e)) from None
    if deal is None:
        raise ValueError(_("bad 'seed'"))
    nodes, seconds, greedy = record["nodes"], record["seconds"], record.get("greedy")
    moves = record.get("moves", [])
    if (not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 0
            or not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0):
        raise ValueError(_("bad 'nodes' or 'seconds'"))
    if greedy not in (True, False, None) or not isinstance(moves, list) \
            or not all(isinstance(m, str) for m in moves):
        raise ValueError(_("bad 'greedy' or 'moves'"))
    key = {"game": game, "rules": rules, "player": player}
    return key, DealResult(deal.text, result, float(seconds), nodes, greedy, tuple(moves))


def read_results(path: str) -> tuple[list[tuple[int, dict[str, Any], DealResult]], int, bool]:
    """The lines of a results file as (line number, key, result); the length of its sound part;
    and whether its last line was torn (no line end: cut short by a kill mid-write; never
    trusted). FileNotFoundError when there is no such file; ResultsError for a line that is not
    a result (naming it)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise
    except OSError as e:
        # TRANSLATORS: {reason} is the system's, in English: "No such file or directory"
        raise ResultsError(_("cannot read {path}: {reason}").format(path=path, reason=e.strerror or e)) from None
    end = data.rfind(b"\n") + 1
    torn = end < len(data)
    out = []
    for number, raw in enumerate(data[:end].split(b"\n")[:-1], 1):
        if not raw.strip():
            continue
        try:
            key, result = _deal_result(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError) as e:
            why = _("not JSON") if isinstance(e, (UnicodeDecodeError, json.JSONDecodeError)) else str(e)
            raise ResultsError(_("{where}: not a results line ({why})").format(
                where=_line_of(path, number), why=why)) from None
        out.append((number, key, result))
    return out, end, torn


def merge_results(lines: Iterable[tuple[str, int, dict[str, Any], DealResult]]
                  ) -> tuple[dict[str, Any] | None, dict[str, DealResult]]:
    """One result per deal from (file, line, key, result) lines: the same deal twice counts
    once (a decided result over "unknown"); every line must be for one game, rules and player,
    and a deal both won and lost is an error, since the solver is deterministic and sound."""
    key: dict[str, Any] | None = None
    where: dict[str, str] = {}
    merged: dict[str, DealResult] = {}
    for path, number, k, result in lines:
        if key is None:
            key, first = k, _line_of(path, number)
        elif k != key:
            # TRANSLATORS: {where} and {first} are lines of results files ("a.jsonl, line 3"); {this} and
            # {that} say what a line is for: a game's name, its rule options and its player, as the file has them
            raise ResultsError(_("{where} is for {this}, but {first} is for {that}: one report covers one game, "
                                 "rules and player").format(where=_line_of(path, number), this=describe_key(k),
                                                            first=first, that=describe_key(key)))
        old = merged.get(result.deal)
        if old is None or old.result == "unknown":
            merged[result.deal] = result
            where[result.deal] = _line_of(path, number)
        elif result.result not in ("unknown", old.result):
            # TRANSLATORS: {old} and {new} are results as the files write them: won, lost; {first} and
            # {where} are lines of results files ("a.jsonl, line 3")
            raise ResultsError(_("deal {deal} is {old} in {first} but {new} in {where}: conflicting verdicts").format(
                deal=result.deal, old=old.result, first=where[result.deal], new=result.result,
                where=_line_of(path, number)))
    return key, merged


def _line_of(path: str, number: int) -> str:
    """A line of a results file, named: "a.jsonl, line 3"."""
    return _("{file}, line {n}").format(file=path, n=number)


class ResultsFile:
    """A results file being written: what it already holds (checked against the run), and an
    append that writes one line and flushes it."""

    def __init__(self, path: str, key: dict[str, Any]) -> None:
        self.path = path
        self.key = key
        self.torn = False  # its last line was cut short and is being redone
        self.results: dict[str, DealResult] = {}
        try:
            lines, end, self.torn = read_results(path)
        except FileNotFoundError:
            lines, end = [], 0
        for number, k, _result in lines:
            if k != key:
                # TRANSLATORS: {this} and {that} say what results are for: a game's name, its rule options
                # and its player, as the file has them
                raise ResultsError(_("{file} holds results for {this} (line {n}), not for {that}: give another "
                                     "--out file, or the options it was written with to resume it").format(
                    file=path, this=describe_key(k), n=number, that=describe_key(key)))
        _key, self.results = merge_results((path, n, k, r) for n, k, r in lines)
        try:
            self.file = open(path, "ab")  # noqa: SIM115 - closed by close()
            if self.torn:
                self.file.truncate(end)
        except OSError as e:
            # TRANSLATORS: {reason} is the system's, in English: "Permission denied"
            raise ResultsError(_("cannot write {path}: {reason}").format(path=path, reason=e.strerror or e)) from None

    def add(self, result: DealResult) -> None:
        line = json.dumps(result_record(result, self.key), ensure_ascii=False) + "\n"
        try:
            self.file.write(line.encode("utf-8"))  # one write call a line: a kill tears the last at most
            self.file.flush()
        except OSError as e:
            raise ResultsError(_("cannot write {path}: {reason}; the deals finished before are kept in it "
                                 "(run the same command again to go on)").format(
                path=self.path, reason=e.strerror or e)) from None
        old = self.results.get(result.deal)
        if old is None or old.result == "unknown":
            self.results[result.deal] = result

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()


def report_from_files(paths: list[str], games: dict[str, AnyGame]) -> StatsReport:
    """The report on what results files hold (nothing is solved)."""
    lines: list[tuple[str, int, dict[str, Any], DealResult]] = []
    for path in paths:
        try:
            got, _end, _torn = read_results(path)
        except FileNotFoundError:
            raise ResultsError(_("cannot read {path}: no such file").format(path=path)) from None
        lines.extend((path, n, k, r) for n, k, r in got)
    key, merged = merge_results(lines)
    if key is None:
        if len(paths) > 1:
            # TRANSLATORS: {files} are results files: "a.jsonl and b.jsonl"
            raise ResultsError(_("{files}: no results in them").format(files=joined(paths)))
        raise ResultsError(_("{file}: no results in it").format(file=paths[0]))
    game = games.get(key["game"])
    if game is None:
        # TRANSLATORS: {game} is the game's name the file gives, quoted
        raise ResultsError(_("{file}: results for {game}, a game this musical does not know").format(
            file=paths[0], game=repr(key["game"])))

    try:
        rules = game.rules_from_options({k: option_text(v) for k, v in key["rules"].items()})
    except RulesError as e:
        raise ResultsError(f"{paths[0]}: {e}") from None
    results = sorted(merged.values(), key=_deal_order)
    seconds = sum(r.seconds for r in results)
    return summarise(results, game, rules, key["player"], seconds)


def _deal_order(result: DealResult) -> tuple[int, int]:
    deal = DealNumber.parse(result.deal)
    return (deal.ms, deal.number)
