"""The time that recording adds to a move in the shell: the Recorder's write after each move (one
SQLite transaction in WAL mode), over MOVES moves (default 1000) of games played move by move, a
new deal when one ends, with an undo now and then. Prints the median, 90th percentile and worst,
in milliseconds, and how many took over 2 ms, beside the time of the move itself without
recording (whose worst shows what the scheduler alone costs on a loaded machine), and the load
average. A WAL checkpoint (about 20 ms, an fsync) runs between games, not timed here.

    python bench/record.py [MOVES] [--dir DIR]

The record goes to a temporary directory (or DIR: put it on the file system that holds
$XDG_DATA_HOME to measure that disk). Target: under 2 ms a move.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from musical_cli.deals import DealNumber  # noqa: E402
from musical_cli.game import Outcome  # noqa: E402
from musical_cli.games.musical.rules import MUSICAL  # noqa: E402
from musical_cli.language import Session  # noqa: E402
from musical_cli.record import Recorder  # noqa: E402
from musical_cli.store import Store  # noqa: E402


def run(moves: int, directory: Path) -> tuple[list[float], list[float]]:
    session = Session(MUSICAL, DealNumber(1), None, interactive=True)
    recorder = Recorder(Store.open(directory / "musical.sqlite3"), offer=False)
    recorder.attach(session, lambda text: print("warning:", text, file=sys.stderr))
    listener = session.listener
    session.listener = None  # the recorder is told by hand below, so that its part can be timed
    recording: list[float] = []
    processor: list[float] = []  # CPU time of the same writes: what is left when no other process runs
    bare: list[float] = []

    def tell(event: str) -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        listener(event)
        recording.append(time.perf_counter() - start)
        processor.append(time.thread_time() - cpu)

    deal = 1
    while len(recording) < moves:
        if session.outcome() is not Outcome.IN_PLAY:
            deal += 1
            session.start(MUSICAL, DealNumber(deal), session.rules)
            listener("start")  # a 'new': the old game's result is final; not a move, not timed
            continue
        legal = MUSICAL.legal_moves(session.state)
        move = legal[-1] if len(session.moves) % 7 else legal[0]  # play to a foundation mostly
        start = time.perf_counter()
        session.play(move)
        bare.append(time.perf_counter() - start)
        tell("move")
        if len(session.moves) % 25 == 0:
            session.undo(1)
            tell("undo")  # an undo is a write too
    recorder.close()
    return recording[:moves], processor[:moves], bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("moves", nargs="?", type=int, default=1000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        recording, processor, bare = run(args.moves, Path(tmp))

    def ms(xs: list[float], q: float) -> float:
        return 1000 * statistics.quantiles(xs, n=100)[int(q) - 1] if q < 100 else 1000 * max(xs)

    print(f"recording a move ({len(recording)} writes, each one transaction):")
    print(f"  median {1000 * statistics.median(recording):.3f} ms, 90th percentile {ms(recording, 90):.3f} ms, "
          f"worst {1000 * max(recording):.3f} ms; {sum(x > 0.002 for x in recording)} over 2 ms")
    print(f"  CPU time of the same writes: median {1000 * statistics.median(processor):.3f} ms, "
          f"worst {1000 * max(processor):.3f} ms")
    print(f"the move itself, unrecorded: median {1000 * statistics.median(bare):.3f} ms, "
          f"worst {1000 * max(bare):.3f} ms")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
