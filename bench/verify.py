"""Transcript verification throughput: transcripts verified per second.

    python bench/verify.py [--deals N] [--seconds S] [--runs R] [--seed SEED]

Builds a set of transcripts: a random legal game on each of deals 1..N (moves chosen with
``random.Random(seed)``, so a run is repeatable; every game is played to its end, most are lost),
plus the won games a small depth-first search finds quickly among the first deals. Then:

(a) in process: ``read_transcript`` (parse, replay, check the result line) over the set, again
    and again for about S seconds;
(b) the command: ``musical verify FILE`` in a subprocess, R times, which adds the start-up of a
    Python process to every transcript.

It prints figures and asserts nothing; the default run takes about 15 seconds.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    from musical_cli.deals import DealNumber
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from musical_cli.deals import DealNumber

from musical_cli.game import Outcome
from musical_cli.games.musical.rules import FOUNDATION_SIZE, MUSICAL, SEQUENCES, MusicalRules
from musical_cli.moves import DEAL, REDEAL, F, Move, Transfer, W
from musical_cli.transcript import GameRecord, format_transcript, read_transcript


def random_game(deal: DealNumber, rng: random.Random) -> GameRecord:
    record = GameRecord(MUSICAL, deal, MusicalRules())
    state = record.start()
    moves: list[Move] = []
    while MUSICAL.outcome(state) is Outcome.IN_PLAY:
        move = rng.choice(MUSICAL.legal_moves(state))
        state = MUSICAL.apply(state, move)
        moves.append(move)
    return GameRecord(MUSICAL, deal, record.rules, tuple(moves))


def quick_win(deal: DealNumber, budget: int = 20_000) -> GameRecord | None:
    """A won game on ``deal`` if a depth-first search finds one within ``budget`` positions."""
    start = MUSICAL.opening(deal, MusicalRules())
    seen: set[tuple] = set()
    stack: list[tuple[bytes, bytes, tuple[int, ...], int, tuple[Move, ...]]] = [
        (bytes(c.rank for c in start.stock), b"", tuple(len(f) for f in start.foundations), 0, ())]
    while stack and len(seen) < budget:
        stock, waste, heights, used, path = stack.pop()
        if all(h == FOUNDATION_SIZE for h in heights):
            record = GameRecord(MUSICAL, deal, MusicalRules(), path)
            return record if MUSICAL.outcome(record.final()) is Outcome.WON else None
        key = (stock, waste, heights, used)
        if key in seen:
            continue
        seen.add(key)
        children = []
        if waste:
            for i in range(4):
                if heights[i] < FOUNDATION_SIZE and SEQUENCES[i][heights[i]] == waste[-1]:
                    h = heights[:i] + (heights[i] + 1,) + heights[i + 1:]
                    children.append((stock, waste[:-1], h, used, (*path, Transfer(W, F(i + 1)))))
        if stock:
            children.append((stock[1:], waste + stock[:1], heights, used, (*path, DEAL)))
        elif waste and used < 2:
            children.append((waste, b"", heights, used + 1, (*path, REDEAL)))
        stack.extend(reversed(children))  # plays first
    return None


def build(deals: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for n in range(1, deals + 1):
        record = random_game(DealNumber(n), rng)
        texts.append(format_transcript(record, MUSICAL.outcome(record.final())))
    for n in range(1, 41):
        won = quick_win(DealNumber(n))
        if won is not None:
            texts.append(format_transcript(won, Outcome.WON))
    return texts


def bench_in_process(texts: list[str], seconds: float) -> tuple[int, int, float]:
    verified = moves = 0
    start = time.perf_counter()
    while True:
        for text in texts:
            t = read_transcript(text)
            verified += 1
            moves += len(t.record.moves)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return verified, moves, elapsed


def bench_command(texts: list[str], runs: int) -> tuple[int, float]:
    exe = Path(sys.executable).with_name("musical")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "musical_cli"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, text in enumerate(texts[:runs]):
            path = Path(tmp) / f"game{k}.txt"
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        start = time.perf_counter()
        for path in paths:
            p = subprocess.run([*command, "verify", str(path)], capture_output=True)
            if p.returncode not in (0, 1):
                raise SystemExit(f"{path}: exit {p.returncode}: {p.stderr.decode()}")
        return len(paths), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300, help="random games on deals 1..N (default 300)")
    parser.add_argument("--seconds", type=float, default=5.0, help="in-process run time (default 5)")
    parser.add_argument("--runs", type=int, default=40, help="`musical verify` runs (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="random.Random seed (default 1)")
    args = parser.parse_args()

    start = time.perf_counter()
    texts = build(args.deals, args.seed)
    built = time.perf_counter() - start
    wins = sum(text.endswith("result: won\n") for text in texts)
    sizes = [len(text.encode()) for text in texts]
    lines = sum(text.count("\n") for text in texts)
    print(f"transcripts: {len(texts)} ({wins} won), {lines / len(texts):.0f} lines and "
          f"{sum(sizes) / len(sizes) / 1024:.1f} KiB on average; built in {built:.1f} s")

    # Random order so that the won transcripts are spread through the runs of the command.
    random.Random(args.seed).shuffle(texts)
    verified, moves, elapsed = bench_in_process(texts, args.seconds)
    print(f"read_transcript, in process: {verified / elapsed:,.0f} transcripts/s "
          f"({moves / elapsed:,.0f} moves/s, {1e3 * elapsed / verified:.2f} ms each; "
          f"{verified} in {elapsed:.1f} s)")
    runs, elapsed = bench_command(texts, args.runs)
    print(f"musical verify FILE, one process each: {runs / elapsed:.1f} transcripts/s "
          f"({1e3 * elapsed / runs:.0f} ms each; {runs} in {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
