#!/usr/bin/env python3
"""Crazy Quilt benchmark: engine throughput, and solver and greedy figures per variant.

    python bench/crazy_quilt.py                          # deals 1-50, 2 s a deal, every variant
    python bench/crazy_quilt.py --range 1-200 --budget 10 --variants quilt
    python bench/crazy_quilt.py --games 20 --no-deals    # engine throughput only
    python bench/crazy_quilt.py --hints 100 --no-deals   # solve time on positions from real games

(a) Engine: random legal games (``random.Random(seed)``) through the public API only
    (``legal_moves`` + ``apply``), legal moves applied per second, for each variant.
(b) For each variant (quilt: Crazy Quilt, 1 redeal; carpet: Indian Carpet, 2 redeals; rug:
    Persian Rug) and each deal of the range, one solver run with the budget (one process, one
    deal at a time): won / lost / unknown, the greedy player's wins, and the time per deal
    (median and 90th percentile, over all deals and over the decided ones), peak memory.
(c) With ``--hints N``: solve time from N positions of real games (random legal prefixes of
    random deals), median and worst, at 1 redeal, as ``hint`` would face them.

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
from pathlib import Path

try:
    from musical_cli.deals import DealNumber
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from musical_cli.deals import DealNumber

from musical_cli.deals import parse_deal_range
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules
from musical_cli.games.crazy_quilt.solver import greedy_wins, search
from musical_cli.stats import percentile

VARIANTS = {
    "quilt": ("Crazy Quilt (1 redeal)", CrazyQuiltRules(1)),
    "carpet": ("Indian Carpet (2 redeals)", CrazyQuiltRules(2)),
    "rug": ("Persian Rug (reserves)", CrazyQuiltRules(reserves=True)),
}


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
        print(f"(a) {title:27} {games} random games, {moves} moves: "
              f"{moves / playing:,.0f} legal moves applied per second")


def bench_deals(deals: list[DealNumber], budget: float, variants: list[str]) -> None:
    for key in variants:
        title, rules = VARIANTS[key]
        counts = {"won": 0, "lost": 0, "unknown": 0}
        greedy = 0
        times: list[float] = []
        decided: list[float] = []
        nodes = 0
        undecided = []
        start = time.perf_counter()
        for deal in deals:
            state = CRAZY_QUILT.opening(deal, rules)
            greedy += greedy_wins(CRAZY_QUILT, state)
            t0 = time.perf_counter()
            result, _, n = search(state, budget)
            dt = time.perf_counter() - t0
            nodes += n
            counts[result] += 1
            times.append(dt)
            if result != "unknown":
                decided.append(dt)
            else:
                undecided.append(str(deal))
        wall = time.perf_counter() - start
        n = len(deals)
        print(f"\n(b) {title}: deals {deals[0]}-{deals[-1]} ({n}), budget {budget:g} s a deal")
        print(f"    solver: won {counts['won']}, lost {counts['lost']}, unknown {counts['unknown']} "
              f"({100 * (counts['won'] + counts['lost']) / n:.1f}% decided); greedy won {greedy} "
              f"({100 * greedy / n:.1f}%)")
        print(f"    time a deal: median {statistics.median(times):.3f} s, 90th percentile "
              f"{percentile(times, 0.9):.3f} s; decided ones: median "
              f"{statistics.median(decided) if decided else 0:.3f} s, 90th percentile {percentile(decided, 0.9):.3f} s")
        print(f"    {nodes:,} positions in {wall:.1f} s ({nodes / wall:,.0f} a second); peak memory {peak_mb():.0f} MB")
        if undecided:
            print(f"    undecided: {' '.join(undecided)}")


def bench_hints(count: int, seed: int, budget: float) -> None:
    rng = random.Random(seed)
    times = []
    results = {"won": 0, "lost": 0, "unknown": 0}
    for _ in range(count):
        state = CRAZY_QUILT.opening(DealNumber(rng.randint(1, 10**9)), CrazyQuiltRules(1))
        for _ in range(rng.randint(0, 120)):
            legal = CRAZY_QUILT.legal_moves(state)
            if not legal:
                break
            state = CRAZY_QUILT.apply(state, rng.choice(legal))
        t0 = time.perf_counter()
        result, _, _ = search(state, budget)
        times.append(time.perf_counter() - t0)
        results[result] += 1
    print(f"\n(c) hints: {count} positions from random games at 1 redeal, budget {budget:g} s: "
          f"median {statistics.median(times):.3f} s, worst {max(times):.3f} s; {results}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--range", default="1-50", help="deal numbers, A-B (default 1-50)")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds a deal (default 2)")
    parser.add_argument("--variants", default="quilt,carpet,rug", help="quilt, carpet, rug (comma-separated)")
    parser.add_argument("--games", type=int, default=10, help="random games for the engine figure")
    parser.add_argument("--hints", type=int, default=0, help="positions for the hint timing")
    parser.add_argument("--no-deals", action="store_true", help="skip (b)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    if args.games:
        bench_engine(args.games, args.seed)
    if not args.no_deals:
        bench_deals(parse_deal_range(args.range), args.budget, [v.strip() for v in args.variants.split(",")])
    if args.hints:
        bench_hints(args.hints, args.seed, 1.0)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
