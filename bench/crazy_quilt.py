#!/usr/bin/env python3
"""Crazy Quilt benchmark: engine throughput, and solver and greedy figures per variant.

    python bench/crazy_quilt.py                          # deals 1-50, 2 s a deal, every variant
    python bench/crazy_quilt.py --range 1-200 --budget 10 --variants quilt
    python bench/crazy_quilt.py --games 20 --no-deals    # engine throughput only
    python bench/crazy_quilt.py --hints 300 --no-deals   # solve time on positions from real games
    python bench/crazy_quilt.py --cpu --budget 10 --range 1-200 --variants quilt --games 0 --each
    python bench/crazy_quilt.py --hints 300 --hint-command --no-deals --games 0 [--again]
    python bench/crazy_quilt.py --speed 20000 --range 1-20 --no-deals --games 0
    python bench/crazy_quilt.py --boundaries 80 --limit 5000000 --no-deals --games 0
    python bench/crazy_quilt.py --anatomy 200000 --range 117 --no-deals --games 0
    python bench/crazy_quilt.py --schedules 40 --seed 0 --probe 300000 --limit 150000 --no-deals --games 0

(a) Engine: random legal games (``random.Random(seed)``) through the public API only
    (``legal_moves`` + ``apply``), legal moves applied per second, for each variant.
(b) For each variant (quilt: Crazy Quilt, 1 redeal; carpet: Indian Carpet, 2 redeals; rug:
    Persian Rug) and each deal of the range, one solver run with the budget (one process, one
    deal at a time): won / lost / unknown, the greedy player's wins, and the time per deal
    (median and 90th percentile, over all deals and over the decided ones), peak memory.
(c) With ``--hints N``: solve time from N positions of real games (random legal prefixes of
    deals 1, 2, ..., mostly plays when one is legal, as a player would), median, 90th
    percentile and worst, at 1 redeal, as ``hint`` would face them; with ``--hint-command`` also
    the shell's whole ``hint`` command (its own budgets, and on a loss the search for how far to
    undo) on the same positions, and what kind of answer it gave; with ``--again`` also the
    second ``hint`` where the first left its answer open (the long search).

(d) With ``--speed NODES``: the C core and the Python search on the same nodes (each deal of the
    range searched to NODES nodes by both, every variant), CPU seconds of each and positions a
    CPU second, and whether they agreed (verdict and node count). Needs the core built.
(e) With ``--boundaries N``: how far the loss proofs are from an exact ``hint``. In each of the
    first N games of (c) that is lost where it stops, the last position proven winnable (probes
    of ``--probe`` nodes, walking forward along winning lines and then bisecting, as ``hint``
    does), and then the search on the position after it, to ``--limit`` nodes: proven lost (with
    its nodes), found winnable after all (a probe was too short), or undecided, with the stock
    cards the first pass still had there (an undecided one named by its game, ``#k``, its deal and
    the move into it). An exact undo count needs that position proven lost.
(f) With ``--anatomy NODES``: where the Python search spends its nodes at 1 redeal: each deal of
    the range searched to NODES nodes, the positions it entered by pass and by stock cards left,
    and how many of them are distinct: as positions, and as placements (which quilt cells are
    full, the stock cards left and the foundations' heights; in the first pass these fix which
    cards lie on the waste, not their order). Entered over distinct is what the iterations
    repeat; distinct positions over placements is what the orders of the waste (and, in the
    last pass, of the stock) add.
(g) With ``--schedules N``: the restarts' run lengths on the positions that matter to ``hint``.
    In each of the first N games of (c) lost where it stops (not won within 100,000 nodes), the
    position after the last one that probes of ``--probe`` nodes in the heuristic order alone
    prove winnable (as in (e), but the same positions whatever the schedule); each searched to
    ``--limit`` nodes with each schedule of runs (the first run's nodes, the restarts' unit):
    how many are decided, won and lost.

``--cpu``: budgets and times in CPU seconds of this process (the solver's clock is given
``time.process_time``), so that a loaded machine does not change the figures; ``--each``: one
line a deal. Positions a second are the solver's nodes (each position its search enters)
over its CPU seconds.

It prints figures and asserts nothing; say how loaded the machine was when quoting them.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

try:
    from musical_cli.deals import DealNumber
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from musical_cli.deals import DealNumber

from hints import say  # bench/hints.py, beside this file

from musical_cli.deals import parse_deal_range
from musical_cli.games.crazy_quilt import solver as quilt_solver
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules
from musical_cli.games.crazy_quilt.solver import greedy_wins, search
from musical_cli.stats import percentile

VARIANTS = {
    "quilt": ("Crazy Quilt (1 redeal)", CrazyQuiltRules(1)),
    "carpet": ("Indian Carpet (2 redeals)", CrazyQuiltRules(2)),
    "rug": ("Persian Rug (reserves)", CrazyQuiltRules(reserves=True)),
}


CLOCK = time.perf_counter  # what the times below are read with (--cpu: time.process_time)


def use_cpu_clock() -> None:
    """Budgets and times in CPU seconds of this process: the solver reads ``time.perf_counter``
    through its module's ``time``, so give it ``time.process_time`` instead; and the shell's
    ``hint`` its deadlines from ``time.monotonic`` (the first hint's second, how far to undo),
    which would otherwise stay real seconds, so that the hint figures moved with the machine's
    load (181 of 300 beside another process, 187 alone, the same code)."""
    global CLOCK
    import types

    from musical_cli import advice, advice_commands
    from musical_cli.games.crazy_quilt import solver as quilt_solver

    quilt_solver.time = types.SimpleNamespace(perf_counter=time.process_time)
    cpu = types.SimpleNamespace(monotonic=time.process_time, thread_time=time.thread_time,
                                perf_counter=time.process_time)
    advice.time = advice_commands.time = cpu
    CLOCK = time.process_time


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_engine(games: int, seed: int) -> None:
    for title, rules in VARIANTS.values():
        rng = random.Random(seed)
        moves = 0
        playing = 0.0
        for _ in range(games):
            state = CRAZY_QUILT.opening(DealNumber(rng.randint(1, 10**9)), rules)
            t0 = time.perf_counter()
            for _ in range(2000):  # Persian Rug can shuffle reserves for ever
                legal = CRAZY_QUILT.legal_moves(state)
                if not legal:
                    break
                state = CRAZY_QUILT.apply(state, rng.choice(legal))
                moves += 1
            playing += time.perf_counter() - t0
        say(f"(a) {title:27} {games} random games, {moves} moves: "
            f"{moves / playing:,.0f} legal moves applied per second", 0)


def bench_deals(deals: list[DealNumber], budget: float, variants: list[str], each: bool = False) -> None:
    for key in variants:
        title, rules = VARIANTS[key]
        counts = {"won": 0, "lost": 0, "unknown": 0}
        greedy = 0
        times: list[float] = []
        decided: list[float] = []
        nodes = 0
        undecided = []
        solving = 0.0
        for deal in deals:
            state = CRAZY_QUILT.opening(deal, rules)
            greedy += greedy_wins(CRAZY_QUILT, state)
            t0 = CLOCK()
            result, _, n = search(state, budget)
            dt = CLOCK() - t0
            solving += dt
            nodes += n
            counts[result] += 1
            times.append(dt)
            if result != "unknown":
                decided.append(dt)
            else:
                undecided.append(str(deal))
            if each:
                print(f"    {deal} {result} nodes={n} {dt:.2f} s", flush=True)
        n = len(deals)
        unit = "CPU s" if CLOCK is time.process_time else "s"
        print()
        say(f"(b) {title}: deals {deals[0]}-{deals[-1]} ({n}), budget {budget:g} {unit} a deal", 0)
        say(f"solver: won {counts['won']}, lost {counts['lost']}, unknown {counts['unknown']} "
            f"({100 * (counts['won'] + counts['lost']) / n:.1f}% decided); greedy won {greedy} "
            f"({100 * greedy / n:.1f}%)")
        say(f"time a deal: median {statistics.median(times):.3f} {unit}, 90th percentile "
            f"{percentile(times, 0.9):.3f}; decided ones: median "
            f"{statistics.median(decided) if decided else 0:.3f}, 90th percentile {percentile(decided, 0.9):.3f}")
        say(f"{nodes:,} positions in {solving:.1f} {unit} of solving ({nodes / max(solving, 1e-9):,.0f} a second); "
            f"peak memory {peak_mb():.0f} MB")
        if undecided:
            say(f"undecided: {' '.join(undecided)}")


def random_game(n: int, rng: random.Random, rules: CrazyQuiltRules) -> tuple:
    """A position from a real game of deal n and the moves that lead to it: a random legal
    prefix of random length, mostly foundation plays and builds when one is legal."""
    state = CRAZY_QUILT.opening(DealNumber(n), rules)
    moves = []
    for _ in range(rng.randint(0, 150)):
        legal = CRAZY_QUILT.legal_moves(state)
        if not legal:
            break
        plays = [m for m in legal if getattr(m, "target", None) is not None]
        move = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        state = CRAZY_QUILT.apply(state, move)
    return state, moves


def bench_hints(count: int, seed: int, budget: float, command: bool, again: bool = False) -> None:
    rules = CrazyQuiltRules(1)
    times = []
    results = {"won": 0, "lost": 0, "unknown": 0}
    games = hint_games(count, seed)
    for state, _ in games:
        t0 = CLOCK()
        result, _, _ = search(state, budget)
        times.append(CLOCK() - t0)
        results[result] += 1
    unit = "CPU s" if CLOCK is time.process_time else "s"
    print()
    say(f"(c) hints: {count} positions from real games at 1 redeal, solver budget {budget:g} {unit}: "
        f"median {statistics.median(times):.3f}, 90th percentile {percentile(times, 0.9):.3f}, "
        f"worst {max(times):.3f} {unit}; {results}", 0)
    if not command:
        return
    from hints import hint_command_figures

    from musical_cli.language import Session

    def sessions():
        for k, (_, moves) in enumerate(games):
            n = 1 + k % 1000
            session = Session(CRAZY_QUILT, DealNumber(n), rules)
            session.start(CRAZY_QUILT, DealNumber(n), rules, tuple(moves))
            yield f"#{k} deal {n} after {len(moves)} moves", session

    hint_command_figures(sessions(), again)
    print(f"    peak memory {peak_mb():.0f} MB")


def hint_games(count: int, seed: int) -> list[tuple]:
    """(c)'s games: random prefixes of deals 1, 2, ... at 1 redeal, from ``random.Random(seed)``."""
    rng = random.Random(seed)
    rules = CrazyQuiltRules(1)
    return [random_game(1 + k % 1000, rng, rules) for k in range(count)]


def game_states(k: int, state, moves: list) -> list:
    """Every position of (c)'s game ``k`` (``state`` where it stops), from its deal's opening."""
    states = [CRAZY_QUILT.opening(DealNumber(1 + k % 1000), state.rules)]
    for move in moves:
        states.append(CRAZY_QUILT.apply(states[-1], move))
    return states


def last_winnable(states: list, moves: list, probe: int) -> int | None:
    """The index of the last position of ``states`` proven winnable by probes of ``probe`` nodes
    (walking forward along each winning line found, then bisecting); None when the start's probe
    finds no win. The position after it is the one an exact undo count needs proven lost."""
    lo, hi, best = 0, len(states) - 1, None
    while lo < hi:
        mid = lo if best is None else (lo + hi) // 2
        result, line, _ = search(states[mid], None, nodes=probe)
        if result == "won":
            k = 0  # the game's later positions on the same line are winnable too
            while mid + k + 1 < hi and k < len(line) and moves[mid + k] == line[k]:
                k += 1
            best, lo = mid + k, mid + k + 1
        elif best is None:
            return None
        else:
            hi = mid
    return best


def bench_boundaries(count: int, seed: int, probe: int, limit: int) -> None:
    kinds = {"won here": 0, "start not won": 0, "lost": 0, "won after all": 0, "undecided": 0}
    proofs, undecided = [], []
    for k, (state, moves) in enumerate(hint_games(count, seed)):
        states = game_states(k, state, moves)
        if search(states[-1], None, nodes=probe)[0] == "won":
            kinds["won here"] += 1
            continue
        best = last_winnable(states, moves, probe)
        if best is None:
            kinds["start not won"] += 1
            continue
        after = states[best + 1]
        result, _, nodes = search(after, None, nodes=limit)
        left = len(after.stock) if after.redeals_used == 0 else 0
        if result == "lost":
            kinds["lost"] += 1
            proofs.append((nodes, left))
        elif result == "won":
            kinds["won after all"] += 1
        else:
            kinds["undecided"] += 1
            # which game, and the move into the boundary, so that a later stop can aim at it
            undecided.append((left, f"#{k} (deal {1 + k % 1000}, move {best + 1} {moves[best]})"))
    print()
    say(f"(e) boundaries: {count} games of (c), probes of {probe:,} nodes, the position after the "
        f"last winnable one searched to {limit:,} nodes: {kinds}", 0)
    if proofs:
        say("proven lost (nodes, first-pass stock cards left): "
            + ", ".join(f"{n:,} ({s})" for n, s in sorted(proofs)))
    if undecided:
        say("undecided (first-pass stock cards left): "
            + ", ".join(f"{where} ({left})" for left, where in sorted(undecided)))


SCHEDULES = ((300_000, 150_000), (50_000, 25_000), (20_000, 10_000), (5_000, 5_000))


def bench_schedules(count: int, seed: int, probe: int, limit: int) -> None:
    first, unit = quilt_solver.FIRST_RUN, quilt_solver.RESTART_UNIT
    try:
        quilt_solver.FIRST_RUN = probe  # a probe is the heuristic order alone
        found = []
        for k, (state, moves) in enumerate(hint_games(count, seed)):
            states = game_states(k, state, moves)
            if search(states[-1], None, nodes=100_000)[0] == "won":
                continue
            best = last_winnable(states, moves, probe)
            if best is not None:
                found.append(states[best + 1])
        print()
        say(f"(g) schedules: {len(found)} positions after the last winnable one in {count} games of (c) "
            f"(probes of {probe:,} nodes, the heuristic order), each searched to {limit:,} nodes:", 0)
        for first_run, restart_unit in SCHEDULES:
            quilt_solver.FIRST_RUN, quilt_solver.RESTART_UNIT = first_run, restart_unit
            t0 = time.process_time()
            got = Counter(search(after, None, nodes=limit)[0] for after in found)
            say(f"first run {first_run:,}, unit {restart_unit:,}: decided {got['won'] + got['lost']} "
                f"(won {got['won']}, lost {got['lost']}), {time.process_time() - t0:.1f} CPU s")
    finally:
        quilt_solver.FIRST_RUN, quilt_solver.RESTART_UNIT = first, unit


def bench_anatomy(deals: list[DealNumber], nodes: int) -> None:
    class Counted(quilt_solver.Search):
        """The Python search, counting the positions it enters by (pass, stock cards left), and
        the distinct positions and placements of each pass."""

        def dfs(self, st, d, line, alive=False, geo_ok=False):
            occ, _, stock, up, down, left = st
            where[(left, len(stock))] += 1
            seen[left].add(self.key(st))
            placed[left].add((occ, len(stock), up, down))
            return super().dfs(st, d, line, alive, geo_ok)

    for deal in deals:
        where: Counter = Counter()
        seen: dict[int, set] = {0: set(), 1: set()}
        placed: dict[int, set] = {0: set(), 1: set()}
        s = Counted(CRAZY_QUILT.opening(deal, CrazyQuiltRules(1)), None, None, nodes)
        try:
            result = s.run()[0]
        except quilt_solver.Timeout:
            result = "undecided"
        print()
        say(f"(f) deal {deal}, 1 redeal, the Python search to {nodes:,} nodes: {result} in {s.nodes:,}", 0)
        for left, name in ((1, "first pass"), (0, "last pass")):
            by_stock = sorted(((n, v) for (lft, n), v in where.items() if lft == left), reverse=True)
            total = sum(v for _, v in by_stock)
            if not total:
                say(f"{name}: 0 positions")
                continue
            say(f"{name}: {total:,} positions, of which distinct {len(seen[left]):,}, placements "
                f"{len(placed[left]):,}")
            say("by stock cards left: " + " ".join(f"{n}:{v:,}" for n, v in by_stock), 8)


def bench_speed(deals: list[DealNumber], nodes: int, variants: list[str]) -> None:
    if quilt_solver.CORE is None:
        print("\n(d) speed: no C core here (not built, or MUSICAL_PURE_PYTHON)")
        return
    for key in variants:
        title, rules = VARIANTS[key]
        cpu = {False: 0.0, True: 0.0}
        count = {False: 0, True: 0}
        agree = 0
        for deal in deals:
            state = CRAZY_QUILT.opening(deal, rules)
            got = {}
            for core in (False, True):
                s = quilt_solver.make_search(state, None, None, nodes, core)
                t0 = time.process_time()
                try:
                    result = s.run()
                except quilt_solver.Timeout:
                    result = "unknown"
                cpu[core] += time.process_time() - t0
                count[core] += s.nodes
                got[core] = (result, s.nodes)
            agree += got[False] == got[True]
        py = count[False] / max(cpu[False], 1e-9)
        c = count[True] / max(cpu[True], 1e-9)
        print()
        say(f"(d) {title}: deals {deals[0]}-{deals[-1]}, up to {nodes:,} nodes each: Python "
            f"{count[False]:,} positions in {cpu[False]:.2f} CPU s ({py:,.0f} a second), C core "
            f"{count[True]:,} in {cpu[True]:.3f} CPU s ({c:,.0f} a second): {c / max(py, 1e-9):.0f} times; "
            f"the same verdict and nodes on {agree} of {len(deals)}", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--range", default="1-50", help="deal numbers, A-B (default 1-50)")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds a deal (default 2)")
    parser.add_argument("--variants", default="quilt,carpet,rug", help="quilt, carpet, rug (comma-separated)")
    parser.add_argument("--games", type=int, default=10, help="random games for the engine figure")
    parser.add_argument("--hints", type=int, default=0, help="positions for the hint timing")
    parser.add_argument("--no-deals", action="store_true", help="skip (b)")
    parser.add_argument("--hint-command", action="store_true", help="also time the shell's whole hint command")
    parser.add_argument("--again", action="store_true",
                        help="with --hint-command: where a hint leaves its answer open, time 'hint' again")
    parser.add_argument("--cpu", action="store_true", help="budgets and times in CPU seconds of this process")
    parser.add_argument("--each", action="store_true", help="one line a deal")
    parser.add_argument("--speed", type=int, default=0, metavar="NODES",
                        help="(d): the C core against the Python search, NODES nodes a deal")
    parser.add_argument("--boundaries", type=int, default=0, metavar="N",
                        help="(e): the position after the last winnable one, in N games of (c)")
    parser.add_argument("--schedules", type=int, default=0, metavar="N",
                        help="(g): those positions under each schedule of restarts, in N games of (c)")
    parser.add_argument("--probe", type=int, default=1_000_000, help="with --boundaries, --schedules: nodes a probe")
    parser.add_argument("--limit", type=int, default=5_000_000,
                        help="with --boundaries: nodes for the proof; with --schedules: nodes a search")
    parser.add_argument("--anatomy", type=int, default=0, metavar="NODES",
                        help="(f): the Python search's positions by pass and stock, NODES nodes a deal")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.cpu:
        use_cpu_clock()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    if args.games:
        bench_engine(args.games, args.seed)
    if not args.no_deals:
        bench_deals(parse_deal_range(args.range), args.budget, [v.strip() for v in args.variants.split(",")],
                    args.each)
    if args.speed:
        bench_speed(parse_deal_range(args.range), args.speed, [v.strip() for v in args.variants.split(",")])
    if args.hints:
        bench_hints(args.hints, args.seed, 1.0, args.hint_command, args.again)
    if args.boundaries:
        bench_boundaries(args.boundaries, args.seed, args.probe, args.limit)
    if args.schedules:
        bench_schedules(args.schedules, args.seed, args.probe, args.limit)
    if args.anatomy:
        bench_anatomy(parse_deal_range(args.range), args.anatomy)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
