"""The first ``hint`` in Crazy Quilt, Indian Carpet and Persian Rug: what it gives on positions of
random games, after 0, 2 and 5 seconds of the shell thinking beside the prompt.

    python bench/first_hint.py [--positions 300] [--think 0,2,5] [--variants quilt,carpet,rug]

For each rule set and each thinking time, the same positions (random legal prefixes of deals
1, 2, ..., as bench/crazy_quilt.py's hint figures take them): the live coach's search runs unseen
for the thinking time (musical_cli.live.Coach, as the shell runs it while the player reads the
layout), then one ``hint`` is asked. Printed: how often it names a move or proves the loss with
an undo count (the target: every position with a legal move), how often the move is proven (a
win found) or the undo count surely the least, the other answers, and the wall time of the hint
itself (median, worst). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import random
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

from crazy_quilt import VARIANTS, random_game  # bench/crazy_quilt.py, beside this file
from hints import say

from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT
from musical_cli.language import Session, lookup
from musical_cli.live import Coach


def kind(said: str) -> str:
    """The first hint's answer, in the issue's terms."""
    if said.startswith("hint:"):
        return "a move, a guess" if "a guess" in said else "a move, proven"
    if "cannot be won even from its start" in said:
        return "lost from the start"
    if "no win is possible" in said and "'undo" in said:
        if "a guess" in said:
            return "lost, undo N, a guess"
        return "lost, undo N, maybe not the least" if "a later one may be too" in said else "lost, undo N, the least"
    return "nothing: " + said[:60]


def run(variant: str, positions: int, think: float, seed: int) -> None:
    title, rules = VARIANTS[variant]
    rng = random.Random(seed)
    answers: Counter[str] = Counter()
    walls: list[float] = []
    movable = 0
    for k in range(positions):
        n = 1 + k % 1000
        _, moves = random_game(n, rng, rules)
        session = Session(CRAZY_QUILT, DealNumber(n), rules)
        session.start(CRAZY_QUILT, DealNumber(n), rules, tuple(moves))
        movable += bool(CRAZY_QUILT.legal_moves(session.state))
        if think:
            coach = Coach(session, lambda: None, lambda text: None)
            coach.update()
            coach.wait(think)
            coach.cancel()
            coach.wait()
        t0 = time.perf_counter()
        reply = lookup("hint").handler(session, [])
        walls.append(time.perf_counter() - t0)
        answers[kind("".join(text for _, text in reply.out).replace("\n", " "))] += 1
    whole = sum(v for a, v in answers.items() if a.startswith(("a move", "lost, undo", "lost from")))
    proven = sum(answers[a] for a in ("a move, proven", "lost, undo N, the least", "lost from the start"))
    say(f"{title}, {think:g} s of thinking, {positions} positions ({movable} with a legal move): a move or "
        f"a loss with its undo count {whole} ({100 * whole / positions:.0f}%); proven {proven} "
        f"({100 * proven / positions:.0f}%); hint's wall time median {statistics.median(walls):.2f} s, "
        f"worst {max(walls):.2f} s; {dict(sorted(answers.items()))}", 0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--think", default="0,2,5", help="seconds of thinking before the hint, comma-separated")
    parser.add_argument("--variants", default="quilt,carpet,rug")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for variant in args.variants.split(","):
        for think in (float(t) for t in args.think.split(",")):
            run(variant, args.positions, think, args.seed)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
