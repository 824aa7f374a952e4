#!/usr/bin/env python3
"""Solver benchmark: the Musical solver against its targets (below).

Prints, for each configuration run: won / lost / unknown counts, whether all were decided, the
greedy and solver win rates, time per deal (median, 90th percentile, max, total wall time),
and the peak resident memory (this process and its worker processes); then "hint" timing:
solve time on positions from real games (random legal prefixes) at 2 redeals.

    python bench/solver.py                  # moderate default run (a few minutes at most)
    python bench/solver.py --full           # every target: 2/0/1 redeals on deals 1-1000 (long)
    python bench/solver.py --range 1-1000 --redeals 1 --budget 10 --workers 2
    python bench/solver.py --hints 200 --no-deals
    python bench/solver.py --speedup        # deals 1-2000 at 2 redeals on 1 worker, then 2: the ratio
    python bench/solver.py --cpu --budget 10 --range 1-60 --redeals 1 --hints 0
                                            # one process, 10 s of CPU a deal, a line a deal
    python bench/solver.py --nodes 400000 --range 2 --hints 0    # a node cap instead
    python bench/solver.py --nodes 1000000 --exhaustive --range 16 --hints 0
                                            # the exhaustive search alone (proofs of loss)
    python bench/solver.py --nodes 100000000 --exhaustive --basic --range 1-1000 --hints 0
                                            # the same with rules 1-4 only: losses proven again
    python bench/solver.py --passes --nodes 400000 --range 3 --hints 0
                                            # the same, and where its nodes go (by pass)

Targets: 2 redeals, deals 1-200 all decided in under 5 s in total on one worker;
deals 1-1000 all decided with the default budget at 2 and 0 redeals; at least 90% decided at 1
redeal with a 10 s budget; hints under a second; under 500 MB resident.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from musical_cli.deals import DealNumber, parse_deal_range  # noqa: E402
from musical_cli.games.musical.rules import MUSICAL, MusicalRules, parse_redeals  # noqa: E402
from musical_cli.moves import Transfer  # noqa: E402
from musical_cli.solver import solve  # noqa: E402
from musical_cli.stats import StatsReport, percentile, run_stats  # noqa: E402

VERBOSE = False


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident set size in MB: this process, and the largest of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "   - "


def report(title: str, rep: StatsReport, wanted: int) -> None:
    n = rep.deals
    decided = rep.won + rep.lost
    print(f"\n== {title}")
    print(f"   deals {n}{' (interrupted)' if rep.interrupted else ''}; redeals {rep.to_json()['redeals']}")
    print(f"   won {rep.won} ({pct(rep.won, n)})  lost {rep.lost} ({pct(rep.lost, n)})  "
          f"unknown {rep.unknown} ({pct(rep.unknown, n)})  -> decided {decided}/{n} ({pct(decided, n)})"
          f"{'  ALL DECIDED' if decided == n == wanted else ''}")
    print(f"   win rate: solver {pct(rep.won, n)} (at least; unknowns not counted), "
          f"greedy {rep.greedy_won} ({pct(rep.greedy_won, n)})")
    print(f"   time per deal: median {rep.median:.3f} s, p90 {rep.p90:.3f} s, max {rep.max:.3f} s; "
          f"total {rep.seconds_total:.2f} s wall, {sum(r.seconds for r in rep.results):.2f} s summed")
    slow = sorted(rep.results, key=lambda r: -r.seconds)[:5]
    print("   slowest: " + ", ".join(f"{r.deal} ({r.result}, {r.seconds:.2f} s)" for r in slow))
    unknown = [r.deal for r in rep.results if r.result == "unknown"]
    if unknown:
        print(f"   unknown: {' '.join(unknown)}")
    own, children = peak_rss_mb()
    print(f"   peak RSS so far: this process {own:.0f} MB, largest worker {children:.0f} MB")
    sys.stdout.flush()


def run_deals(deals: list[DealNumber], redeals: int | None, budget: float | None, workers: int | None,
              title: str) -> StatsReport:
    done = [0]
    start = time.perf_counter()

    def tick(result) -> None:
        done[0] += 1
        if VERBOSE:
            print(f"{result.deal} {result.result} {result.seconds:.2f}s nodes={result.nodes} "
                  f"greedy={'won' if result.greedy_won else 'lost'}", file=sys.stderr, flush=True)
        elif sys.stderr.isatty():
            print(f"\r   {done[0]}/{len(deals)}  {time.perf_counter() - start:.0f} s", end="",
                  file=sys.stderr, flush=True)

    rep = run_stats(deals, MusicalRules(redeals), game=MUSICAL, workers=workers, budget=budget, on_result=tick)
    if sys.stderr.isatty():
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    report(title, rep, len(deals))
    return rep


def random_prefix(n: int, rng: random.Random, redeals: int | None = 2):
    """A position from a real game: a random legal prefix (mostly plays when one is legal,
    as a player would), of random length."""
    return random_game(n, rng, redeals)[0]


def random_game(n: int, rng: random.Random, redeals: int | None = 2):
    """random_prefix's position and the moves that lead to it."""
    state = MUSICAL.opening(DealNumber(n), MusicalRules(redeals))
    moves = []
    for _ in range(rng.randint(0, 140)):
        legal = MUSICAL.legal_moves(state)
        if not legal:
            break
        plays = [m for m in legal if isinstance(m, Transfer)]
        move = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        state = MUSICAL.apply(state, move)
    return state, moves


def node_capped(deals: list[DealNumber], redeals: int | None, nodes: int | None,
                budget: float | None, cpu: bool = False, exhaustive: bool = False,
                basic: bool = False) -> None:
    """Each deal solved in this process with at most ``nodes`` search nodes, or ``budget``
    seconds of this process's CPU time with ``cpu`` (load-independent budgets: on a shared
    machine wall seconds say little), one line per deal: result, nodes, CPU seconds. With
    ``exhaustive``, the exhaustive search alone (no local search, no time budget); with
    ``basic`` too, with pruning rules 1 to 4 only (a loss proven again without rules 5 to 7)."""
    import types

    from musical_cli.games.musical import solver as musical_solver

    cap_text = "no node cap" if nodes is None else f"at most {nodes} nodes a deal"
    if nodes is None:
        nodes = 1 << 62
    if cpu:
        # the solver's clock reads time.perf_counter: give it CPU time instead
        musical_solver.time = types.SimpleNamespace(perf_counter=time.process_time)

    class CappedClock(musical_solver.Clock):
        # checked every 256 nodes, so the cap is exact to that and the same on every run
        def check(self) -> None:
            if self.nodes >= nodes:
                raise musical_solver.Timeout
            super().check()

    musical_solver.Clock = CappedClock
    finder = [""]

    class NoticedLocalSearch(musical_solver.LocalSearch):
        # to say which part of the portfolio found each win
        def run(self, max_evals: int, restart_after: int = 300) -> list[int] | None:
            line = super().run(max_evals, restart_after)
            if line is not None:
                finder[0] = " (local search)"
            return line

    musical_solver.LocalSearch = NoticedLocalSearch

    budget_text = f"budget {budget} s of CPU" if cpu else "no time budget"
    if exhaustive:
        budget_text = "the exhaustive search alone, no time budget"
        if basic:
            budget_text += ", rules 1-4 only"
    print(f"\n== {len(deals)} deals, redeals {redeals}, {cap_text}, {budget_text}")
    counts = {"won": 0, "lost": 0, "unknown": 0}
    total = 0.0
    try:
        for deal in deals:
            state = MUSICAL.opening(deal, MusicalRules(redeals))
            finder[0] = ""
            start = time.process_time()
            if exhaustive:
                clock = musical_solver.Clock(None, None)
                try:
                    got = musical_solver.make_search(musical_solver.Position(state), clock, basic=basic).run(nodes)
                except musical_solver.Timeout:  # the capped clock's check, before run's own limit
                    got = None
                result, used = {True: "won", False: "lost", None: "unknown"}[got], clock.nodes
            else:
                result, _, used = musical_solver.solve_position(state, budget)
            seconds = time.process_time() - start
            total += seconds
            counts[result] += 1
            found = finder[0] if result == "won" else ""
            print(f"   {deal.text} {result}{found} nodes={used} {seconds:.2f}s", flush=True)
    except KeyboardInterrupt:
        print("   (interrupted)")
    print(f"   won {counts['won']}  lost {counts['lost']}  unknown {counts['unknown']}; "
          f"{total:.1f} s of CPU in all")


def _one_card_moved(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Is b the sequence a with exactly one card taken out and put back elsewhere?"""
    if len(a) != len(b) or a == b:
        return False
    i = 0
    while a[i] == b[i]:
        i += 1
    j = len(a) - 1
    while a[j] == b[j]:
        j -= 1
    return (a[i + 1:j + 1] == b[i:j] and a[i] == b[j]) or (a[i:j] == b[i + 1:j + 1] and a[j] == b[i])


def pass_profile(deals: list[DealNumber], redeals: int | None, nodes: int) -> None:
    """Where the exhaustive search's nodes go (no local search, at most ``nodes`` a deal), one
    line a deal: the nodes by redeals left, with the transposition-table hits and the cuts of
    rules 3, 5 and 7 among them; the last pass's subtrees (each begun by the redeal into the last
    pass: how many, their sizes); and the share of the last pass's nodes in subtrees whose first
    position is an earlier one's with one card (ranks and allowed sets) in another place. The CPU
    seconds include the probe's own bookkeeping."""
    from collections import Counter, defaultdict

    from musical_cli.games.musical import solver as ms

    class Probe(ms.Search):
        def __init__(self, pos: ms.Position, clock: ms.Clock):
            super().__init__(pos, clock)
            self.by_left: Counter = Counter()
            self.hits: Counter = Counter()
            self.cuts: Counter = Counter()
            self.subtrees: list[tuple[tuple, int]] = []  # (first position, nodes)
            self.inside = False

        def _decide(self, c: int, r: int, w: int) -> bool:
            left = self.passes
            self.by_left[left] += 1
            key = self._key()
            got = self.tt.get(key)
            if got is None:
                got = self.tt_old.get(key)
            if got is not None and got >= left:
                self.hits[left] += 1
            if left or self.inside or self.pass_start < 0:
                return super()._decide(c, r, w)
            self.inside = True
            first = (tuple(self.cm[i] for i in self.seq), tuple(self.h))
            start = self.clock.nodes
            try:
                return super()._decide(c, r, w)
            finally:
                self.inside = False
                self.subtrees.append((first, self.clock.nodes - start))

        def _bound(self) -> list[tuple[int, int]] | None:
            got = super()._bound()
            self.cuts[self.passes] += got is None
            return got

    print(f"\n== {len(deals)} deals, redeals {redeals}, the exhaustive search alone, at most {nodes} "
          "nodes a deal: where the nodes go")
    for deal in deals:
        state = MUSICAL.opening(deal, MusicalRules(redeals))
        clock = ms.Clock(None, None)
        search = Probe(ms.Position(state), clock)
        start = time.process_time()
        try:
            got = search.run(nodes)
        except KeyboardInterrupt:
            print("   (interrupted)")
            return
        seconds = time.process_time() - start
        result = {True: "won", False: "lost", None: "unknown"}[got]
        parts = ", ".join(f"{k}: {search.by_left[k]} (TT hits {search.hits[k]}, cut {search.cuts[k]})"
                          for k in sorted(search.by_left, reverse=True))
        sizes = sorted(n for _, n in search.subtrees)
        inside = sum(sizes)
        seen: dict[tuple, list[tuple]] = defaultdict(list)
        moved = 0
        for (codes, h), n in search.subtrees:
            group = seen[(tuple(sorted(codes)), h)]
            if any(_one_card_moved(old, codes) for old in group):
                moved += n
            group.append(codes)
        line = f"   {deal.text} {result} nodes={clock.nodes} {seconds:.2f}s; by redeals left {parts}"
        if sizes:
            line += (f"; last-pass subtrees {len(sizes)} holding {inside} nodes (median "
                     f"{statistics.median(sizes):g}, p90 {percentile(sizes, 0.9):g}, max {sizes[-1]}), "
                     f"{pct(moved, inside).strip()} of them in subtrees that begin where an earlier one "
                     "did with one card moved")
        print(line, flush=True)


def print_times(what: str, times: list[float], slow: list[str]) -> None:
    """Median, 90th percentile and max of ``times``, how many took a second or more, and the
    ``slow`` ones' descriptions."""
    over = sum(t >= 1.0 for t in times)
    print(f"   {what}: median {statistics.median(times):.4f} s, p90 {percentile(times, 0.9):.4f} s, "
          f"max {max(times):.3f} s; {over} of {len(times)} took a second or more")
    for line in slow:
        print(f"   slow: {line}")


def hint_commands(count: int, seed: int = 5, again: bool = False) -> None:
    """The shell's whole ``hint`` command (solve, then on a loss the search for how far to undo)
    on the same positions as :func:`hints`, with the shell's own budgets."""
    from hints import hint_command_figures

    from musical_cli.language import Session

    rng = random.Random(seed)

    def sessions():
        for k in range(count):
            n = 1 + k % 1000
            _, moves = random_game(n, rng)
            session = Session(MUSICAL, DealNumber(n), MusicalRules(2))
            session.start(MUSICAL, DealNumber(n), MusicalRules(2), tuple(moves))
            yield f"#{k} deal {n} after {len(moves)} moves", session

    print(f"\n== hint command timing: {count} positions from real games, 2 redeals "
          f"(load {os.getloadavg()[0]:.1f})")
    hint_command_figures(sessions(), again)


def hints(count: int, budget: float | None, seed: int = 5) -> None:
    rng = random.Random(seed)
    times: list[float] = []
    results: dict[str, int] = {}
    slow: list[str] = []
    for k in range(count):
        state = random_prefix(1 + k % 1000, rng)
        got = solve(MUSICAL, state, budget)
        times.append(got.seconds)
        results[got.result] = results.get(got.result, 0) + 1
        if got.seconds >= 1.0:
            slow.append(f"#{k} deal {1 + k % 1000} pass {state.pass_number} stock {len(state.stock)} "
                        f"waste {len(state.waste)} ({got.result}, {got.seconds:.2f} s)")
    print(f"\n== hint timing: {count} positions from real games (random legal prefixes), 2 redeals, "
          f"budget {budget} s")
    print(f"   results {results}")
    print_times("solve time", times, slow)
    own, children = peak_rss_mb()
    print(f"   peak RSS so far: this process {own:.0f} MB, largest worker {children:.0f} MB")


def speedup(deals: list[DealNumber], redeals: int | None, budget: float | None) -> None:
    """The local pool's gain: the same deals on one worker (in this process) and on two."""
    walls = {}
    for workers in (1, 2):
        load = os.getloadavg()[0]
        rep = run_stats(deals, MusicalRules(redeals), game=MUSICAL, workers=workers, budget=budget)
        walls[workers] = rep.seconds_total
        print(f"   workers {workers}: {rep.deals} deals in {rep.seconds_total:.1f} s wall "
              f"({sum(r.seconds for r in rep.results):.1f} s solving; won {rep.won}, lost {rep.lost}, "
              f"unknown {rep.unknown}); load average before {load:.2f}, after {os.getloadavg()[0]:.2f}",
              flush=True)
        if rep.interrupted:
            return
    print(f"== speedup, {len(deals)} deals at {redeals} redeals, budget {budget} s: "
          f"{walls[1] / walls[2]:.2f}x with two workers (the target is 1.8x; {os.cpu_count()} cores here, "
          "shared with whatever else runs: see the load averages)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--range", dest="ranges", action="append", help="deals, N or A-B (repeatable)")
    ap.add_argument("--redeals", action="append", help="redeal count(s): 0, 1, 2, unlimited (repeatable)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per deal (default 10)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    ap.add_argument("--hints", type=int, default=None, help="number of hint positions to time")
    ap.add_argument("--no-deals", action="store_true", help="only the hint timing")
    ap.add_argument("--again", action="store_true",
                    help="with --hint-command: where a hint leaves its answer open, time 'hint' again")
    ap.add_argument("--hint-command", action="store_true",
                    help="also time the shell's whole hint command on the same positions")
    ap.add_argument("--full", action="store_true", help="all targets on deals 1-1000 (long)")
    ap.add_argument("--nodes", type=int, default=None,
                    help="instead of run_stats: each deal in this process with at most this many "
                    "search nodes, one line a deal (for the --range and --redeals given)")
    ap.add_argument("--exhaustive", action="store_true",
                    help="with --nodes: the exhaustive search alone, without the local search")
    ap.add_argument("--basic", action="store_true",
                    help="with --exhaustive: pruning rules 1-4 only, to prove losses again without "
                         "rules 5-7")
    ap.add_argument("--passes", action="store_true",
                    help="with --nodes: the exhaustive search alone, and where its nodes go (by redeals "
                    "left, last-pass subtrees)")
    ap.add_argument("--cpu", action="store_true",
                    help="like --nodes, but --budget is seconds of CPU time (with --nodes: both)")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr as it finishes")
    ap.add_argument("--speedup", action="store_true",
                    help="deals 1-2000 (or --range) at two redeals (or --redeals) with one worker, then two: "
                         "the wall times and their ratio (two workers should take at most 1/1.8 of one's time)")
    args = ap.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose
    # Started in the background (nohup ... &), a shell leaves SIGINT ignored: make kill -INT (and
    # kill -TERM) stop the run early with the report of what finished, as Ctrl-C does.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)

    from musical_cli.games.musical import solver as musical_solver

    core = "the C core" if musical_solver.CORE is not None else "pure Python (no C core)"
    print(f"solver benchmark; python {sys.version.split()[0]}; Musical's search: {core}")
    if args.speedup:
        deals = [d for r in (args.ranges or ["1-2000"]) for d in parse_deal_range(r)]
        speedup(deals, parse_redeals((args.redeals or ["2"])[0]), args.budget)
        return 0
    if args.passes:
        deals = [d for r in (args.ranges or ["1-60"]) for d in parse_deal_range(r)]
        for text in args.redeals or ["1"]:
            pass_profile(deals, parse_redeals(text), args.nodes or 1_000_000)
    elif args.nodes is not None or args.cpu:
        deals = [d for r in (args.ranges or ["1-200"]) for d in parse_deal_range(r)]
        for text in args.redeals or ["1"]:
            node_capped(deals, parse_redeals(text), args.nodes, args.budget if args.cpu else None,
                        args.cpu, args.exhaustive and args.nodes is not None, args.basic)
    elif not args.no_deals:
        if args.ranges or args.redeals:
            deals = [d for r in (args.ranges or ["1-200"]) for d in parse_deal_range(r)]
            for text in args.redeals or ["2"]:
                k = parse_redeals(text)
                run_deals(deals, k, args.budget, args.workers,
                          f"{len(deals)} deals, redeals {text}, budget {args.budget} s, "
                          f"workers {args.workers or 'one per core'}")
        else:
            first = parse_deal_range("1-200")
            rep = run_deals(first, 2, args.budget, 1, "target: 2 redeals, deals 1-200, one worker")
            ok = rep.won + rep.lost == rep.deals and rep.seconds_total < 5
            print(f"   target (all decided, under 5 s total): {'met' if ok else 'NOT met'}")
            if args.full:
                thousand = parse_deal_range("1-1000")
                for k in (2, 0, 1):
                    run_deals(thousand, k, args.budget, args.workers,
                              f"target: {k} redeals, deals 1-1000, budget {args.budget} s")
            else:
                run_deals(first, 0, args.budget, args.workers, "0 redeals, deals 1-200")
    count = args.hints if args.hints is not None else (200 if args.full else 60)
    if count:
        hints(count, args.budget)
        if args.hint_command:
            hint_commands(count, again=args.again)
    return 0


if __name__ == "__main__":
    sys.exit(main())
