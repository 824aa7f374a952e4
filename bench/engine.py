"""Engine throughput: legal moves applied per second, and deals laid out per second.

    python bench/engine.py [--games N] [--deals N] [--seed S]

(a) Plays N complete games from random deal numbers, choosing a random legal move at each step
    (``random.Random(seed)``, so a run is repeatable), through the public engine API only:
    ``MUSICAL.opening``, ``legal_moves``, ``apply``, ``outcome``.
(b) Lays out deals 1..N (Microsoft generator), then N deals from 32000 up (Mersenne Twister),
    with ``MUSICAL.opening``.

It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

try:
    from musical_cli.deals import DealNumber
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from musical_cli.deals import DealNumber

from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL

MOVE_LIMIT = 10_000  # a safety net; with the default rules a game ends well before this


def bench_games(games: int, seed: int) -> None:
    rng = random.Random(seed)
    deals = [DealNumber(rng.randint(1, 10**9)) for _ in range(games)]
    outcomes: Counter[Outcome] = Counter()
    moves = 0
    lengths = []
    playing = 0.0  # time in legal_moves / apply / outcome, openings excluded
    start = time.perf_counter()
    for deal in deals:
        state = MUSICAL.opening(deal)
        t0 = time.perf_counter()
        n = 0
        while n < MOVE_LIMIT:
            legal = MUSICAL.legal_moves(state)
            if not legal:
                break
            state = MUSICAL.apply(state, rng.choice(legal))
            n += 1
        outcomes[MUSICAL.outcome(state)] += 1
        playing += time.perf_counter() - t0
        moves += n
        lengths.append(n)
    elapsed = time.perf_counter() - start
    print(f"(a) random games: {games} games, {moves} moves; {elapsed:.3f} s in all, "
          f"{playing:.3f} s playing")
    print(f"    {moves / playing:,.0f} legal moves applied per second (legal_moves + apply per move); "
          f"{games / elapsed:,.1f} complete games per second (openings included)")
    print(f"    moves per game: min {min(lengths)}, mean {moves / games:.1f}, max {max(lengths)}; "
          + ", ".join(f"{o}: {outcomes[o]}" for o in Outcome))


def bench_deals(label: str, numbers: range) -> None:
    start = time.perf_counter()
    for n in numbers:
        MUSICAL.opening(DealNumber(n))
    elapsed = time.perf_counter() - start
    print(f"    {label:<32} {len(numbers):>7} deals in {elapsed:.3f} s: "
          f"{len(numbers) / elapsed:,.0f} deals per second")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="random complete games (default 2000)")
    parser.add_argument("--deals", type=int, default=20000, help="deals per generator (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random move choices (default 1)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.deals < 1:
        parser.error("--games and --deals must be at least 1")

    print(f"Python {sys.version.split()[0]}; seed {args.seed}")
    bench_games(args.games, args.seed)
    print("(b) deals laid out (MUSICAL.opening):")
    bench_deals(f"1..{args.deals} (Microsoft)", range(1, args.deals + 1))
    bench_deals(f"32000..{32000 + args.deals - 1} (Mersenne)", range(32000, 32000 + args.deals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
