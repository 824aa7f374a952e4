#!/usr/bin/env python3
"""Line-length benchmark: the solver's winning lines from mid-game positions, in moves for each
card left, before and after :func:`musical_cli.lines.shorten`, and the time shortening takes.

    python bench/lines.py                        # Persian Rug 100 positions, the others 20 each
    python bench/lines.py --rug 300 --others 0   # Persian Rug alone
    python bench/lines.py --nodes 500000 --seed 2 --each

For each game: positions from random games (``random.Random(seed)``: a deal number and a number
of moves, then that many random legal moves from the deal, a move that changes something other
than the order of Persian Rug's reserves taken seven times in ten when there is one, as a player
would), keeping those the solver proves winnable within ``--nodes`` search nodes (a node limit:
the same positions and lines on every machine); positions already lost or undecided are
skipped. Then the solver's own line (``solve(..., short=False)``) and the shortened one, in moves
for each card left to build: max, median, mean; and the CPU seconds :func:`shorten` took on each
line (median, max, and on the longest line). Every shortened line is replayed to a win here too.

It prints figures and asserts nothing; the times are CPU seconds of this process (say how loaded
the machine was when quoting them).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from musical_cli.deals import DealNumber  # noqa: E402
from musical_cli.game import Game, Outcome  # noqa: E402
from musical_cli.games.calculation.rules import CALCULATION  # noqa: E402
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules, is_progress  # noqa: E402
from musical_cli.games.musical.rules import MUSICAL, MusicalRules  # noqa: E402
from musical_cli.lines import shorten, wins  # noqa: E402
from musical_cli.solver import solve  # noqa: E402


def position(game: Game, rules, deal: int, moves: int, rng: random.Random):
    """The position after ``moves`` random legal moves from ``deal``; None when the game ends
    before."""
    state = game.opening(DealNumber(deal), rules)
    for _ in range(moves):
        if game.outcome(state) is not Outcome.IN_PLAY:
            return None
        legal = game.legal_moves(state)
        progress = [m for m in legal if is_progress(m)]
        state = game.apply(state, rng.choice(progress if progress and rng.random() < 0.7 else legal))
    return state if game.outcome(state) is Outcome.IN_PLAY else None


def figures(values: list[float]) -> str:
    return f"max {max(values):.2f}, median {statistics.median(values):.2f}, mean {statistics.mean(values):.2f}"


def bench(title: str, game: Game, rules, count: int, most_moves: int, nodes: int, seed: int,
          each: bool) -> None:
    rng = random.Random(seed)
    before: list[float] = []
    after: list[float] = []
    seconds: list[float] = []
    longest = (0, 0, 0.0)  # moves before, after, seconds
    skipped = tries = 0
    while len(before) < count and tries < 20 * count:
        tries += 1
        deal, moves = rng.randint(1, 10**9), rng.randint(0, most_moves)
        state = position(game, rules, deal, moves, random.Random(rng.getrandbits(32)))
        if state is None:
            skipped += 1
            continue
        got = solve(game, state, budget=None, nodes=nodes, short=False)
        if got.result != "won":
            skipped += 1
            continue
        t0 = time.process_time()
        line = shorten(game, state, got.moves)
        dt = time.process_time() - t0
        if not wins(game, state, line) or len(line) > len(got.moves):
            raise AssertionError(f"deal {deal} after {moves} moves: the shortened line does not win")
        left = game.cards_to_build(state)
        before.append(len(got.moves) / left)
        after.append(len(line) / left)
        seconds.append(dt)
        if len(got.moves) > longest[0]:
            longest = (len(got.moves), len(line), dt)
        if each:
            print(f"    deal {deal} after {moves} moves: {left} cards left, {len(got.moves)} -> "
                  f"{len(line)} moves, {dt:.3f} CPU s", flush=True)
    print(f"{title}: {len(before)} positions (skipped {skipped} lost, undecided within {nodes:,} "
          f"nodes, or ended), moves for each card left")
    if not before:
        return
    print(f"    the solver's line: {figures(before)}")
    print(f"    shortened:         {figures(after)}")
    print(f"    shortening: median {statistics.median(seconds):.4f} CPU s, max {max(seconds):.3f}; "
          f"the longest line, {longest[0]} moves -> {longest[1]}, in {longest[2]:.3f} CPU s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rug", type=int, default=100, help="Persian Rug positions (default 100)")
    parser.add_argument("--others", type=int, default=20,
                        help="positions of each other game (default 20)")
    parser.add_argument("--nodes", type=int, default=200_000, help="the solver's node limit a position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--each", action="store_true", help="one line a position")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    runs = [("Persian Rug", CRAZY_QUILT, CrazyQuiltRules(reserves=True), args.rug, 80),
            ("Crazy Quilt", CRAZY_QUILT, CrazyQuiltRules(1), args.others, 80),
            ("Indian Carpet", CRAZY_QUILT, CrazyQuiltRules(2), args.others, 80),
            ("Musical (2 redeals)", MUSICAL, MusicalRules(2), args.others, 40),
            ("Calculation", CALCULATION, CALCULATION.default_rules(), args.others, 40)]
    for title, game, rules, count, most in runs:
        if count:
            bench(title, game, rules, count, most, args.nodes, args.seed, args.each)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
