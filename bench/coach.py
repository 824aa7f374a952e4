"""The coach's costs, in CPU seconds: the review of 20 recorded-style games of each game, and
how long the live verdict takes to appear over 300 positions of each game (median, 90th
percentile), with the machine's load.

    .venv/bin/python bench/coach.py                    # all three games, 20 games, 300 positions
    .venv/bin/python bench/coach.py --games 5 --positions 50 --game musical

A recorded-style game: the solver's winning line for a seeded number of moves, then a seeded
player that plays a card when it can (mostly), until the game ends or 150 moves: the kind of
game a player loses somewhere along the way. The positions for the live verdict are those of
these games. A verdict appears when the search decides or reaches the coach's limit
(musical_cli.live.LIVE_LIMIT): the time to a decided verdict and the share left undecided are
given apart. In Calculation the live coach gives the blind player's estimate, which appears
with its first batch of deals played out and is refined after: the first batch is timed at
every position, the whole estimate at every tenth.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from musical_cli.advice import Limit, analyse, review, trail_of
from musical_cli.deals import DealNumber
from musical_cli.games import GAMES
from musical_cli.live import LIVE_LIMIT
from musical_cli.moves import Transfer


def recorded_style(game, deal: int):
    rng = random.Random(f"coach|{game.name}|{deal}")
    start = game.opening(DealNumber(deal))
    line = analyse(game, start, Limit(seconds=5)).moves
    states, moves = [start], []
    follow = rng.randint(0, len(line)) if line else 0
    while game.legal_moves(states[-1]) and len(moves) < 150:
        if len(moves) < follow:
            move = line[len(moves)]
        else:
            legal = game.legal_moves(states[-1])
            plays = [m for m in legal if isinstance(m, Transfer)]
            move = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
        moves.append(move)
        states.append(game.apply(states[-1], move))
    return states, moves


def time_estimate(game, state, whole: bool) -> tuple[float, float]:
    """CPU seconds of this thread to the blind estimate's first batch, and to its end (the
    estimate stops at its first batch unless ``whole``)."""
    cpu = time.thread_time()
    first: list[float] = []

    def partial(wins: int, tries: int) -> None:
        if not first:
            first.append(time.thread_time() - cpu)

    game.blind_estimate(state, stopped=lambda: bool(first) and not whole, partial=partial)
    spent = time.thread_time() - cpu
    return (first[0] if first else spent), spent


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(GAMES), default=None)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--limit", type=float, default=LIVE_LIMIT.seconds,
                        help="CPU seconds for one live verdict (default the coach's)")
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    for name in args.game or list(GAMES):
        game = GAMES[name]
        games = [recorded_style(game, deal) for deal in range(1, args.games + 1)]
        took, lengths, losing, complete = [], [], 0, 0
        for states, moves in games:
            cpu, wall = time.thread_time(), time.monotonic()
            got = review(game, states[0], trail_of(states, moves))
            took.append((time.thread_time() - cpu, time.monotonic() - wall))
            lengths.append(len(moves))
            losing += bool(got.losing)
            complete += got.complete
        cpu_times = [c for c, _ in took]
        print(f"{game.title}: review of {len(games)} games ({min(lengths)}-{max(lengths)} moves): "
              f"CPU median {statistics.median(cpu_times):.2f} s, most {max(cpu_times):.2f} s, "
              f"real most {max(w for _, w in took):.2f} s; {complete} wholly decided, {losing} with a losing move named")
        rng = random.Random(f"positions|{name}")
        pool = [s for states, _ in games for s in states if game.legal_moves(s)]
        positions = [pool[rng.randrange(len(pool))] for _ in range(args.positions)]
        decided, undecided, whole = [], 0, []
        for k, state in enumerate(positions):
            cpu = time.thread_time()
            if game.hint_is_blind:
                # The estimate appears with its first batch (the status line shows it, then its
                # refinements): that is timed at every position, the whole estimate at a tenth.
                full = k % 10 == 0
                first, spent = time_estimate(game, state, whole=full)
                decided.append(first)
                if full:
                    whole.append(spent)
                continue
            got = analyse(game, state, Limit(seconds=args.limit))
            if got.decided:
                decided.append(time.thread_time() - cpu)
            else:
                undecided += 1
        what = "blind estimate (its first batch)" if game.hint_is_blind else "live verdict"
        if decided:
            print(f"{game.title}: {what} over {len(positions)} positions: {len(decided)} appeared, "
                  f"median {statistics.median(decided):.3f} s, 90th percentile {percentile(decided, 0.9):.3f} s "
                  f"of CPU time; {undecided} still undecided after {args.limit:g} s")
            if whole:
                print(f"{game.title}: the whole blind estimate over {len(whole)} of them: median "
                      f"{statistics.median(whole):.2f} s, 90th percentile {percentile(whole, 0.9):.2f} s of CPU time")
        else:
            print(f"{game.title}: {what}: all {undecided} positions undecided after {args.limit:g} s")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
