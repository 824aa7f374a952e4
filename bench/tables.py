#!/usr/bin/env python3
"""The winnability table: one ``musical stats`` command a row, each keeping its per-deal
results in its own ``--out`` file, and the table made from those files.

    python bench/tables.py --print                     # the commands, one a row
    python bench/tables.py --run m2 --range 1-10000    # run (or resume) a row
    python bench/tables.py --report                    # the table from the files there are

Every solver row has a node limit (``--nodes``), not a time budget: its figures are the same on
every machine however loaded, so that anyone can check a row by running its command (or part of
it: a range is resumable and files from several machines combine with ``--from``). The blind
player's effort is fixed (its rollouts), so its rows need no limit. ``--report`` says for each
row which deals its file holds: a row is only "1-10,000" when every one of them is there.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

NODES = 200_000  # a deal's search nodes: a fifth of a second of one core with Musical's C core
# Calculation's solver rows, with its C core: about 10 s of one core for a deal it cannot decide,
# the budget "decided" is measured at (in pure Python they would take 50 times as long); an
# undecided deal also plays up to four witness games (blind.witness).
CALCULATION_NODES = 20_000_000

# name: (what the row is, the rule and player flags)
ROWS = {
    "m2": ("Musical, 2 redeals", ["--redeals", "2"]),
    "m1": ("Musical, 1 redeal", ["--redeals", "1"]),
    "m0": ("Musical, 0 redeals", ["--redeals", "0"]),
    "c4": ("Calculation, 4 piles, solver", ["--game", "calculation"]),
    "c3": ("Calculation, 3 piles, solver", ["--game", "calculation", "--piles", "3"]),
    "c0": ("Calculation, no bases, solver", ["--game", "calculation", "--no-bases"]),
    # the same two at the difficulty measure's node limit: 1-10,000 in an hour or so of one core
    "c3-3M": ("Calculation, 3 piles, solver at 3,000,000 nodes", ["--game", "calculation", "--piles", "3"]),
    "c0-3M": ("Calculation, no bases, solver at 3,000,000 nodes", ["--game", "calculation", "--no-bases"]),
    "b4": ("Calculation, 4 piles, blind player", ["--game", "calculation", "--player", "blind"]),
    "b3": ("Calculation, 3 piles, blind player", ["--game", "calculation", "--piles", "3", "--player", "blind"]),
    "b0": ("Calculation, no bases, blind player", ["--game", "calculation", "--no-bases", "--player", "blind"]),
    "q1": ("Crazy Quilt, 1 redeal", ["--game", "crazy-quilt", "--redeals", "1"]),
    "q2": ("Indian Carpet (2 redeals)", ["--game", "crazy-quilt", "--redeals", "2"]),
    "qr": ("Persian Rug (reserves)", ["--game", "crazy-quilt", "--reserves"]),
    # at Crazy Quilt's difficulty measure's limit: 1-10,000 in about half an hour of both cores
    "q1-300k": ("Crazy Quilt, 1 redeal, at 300,000 nodes", ["--game", "crazy-quilt", "--redeals", "1"]),
}
# Rows with their own node limit: Crazy Quilt's search runs in its C core (docs/crazy-quilt-solver.md),
# where 3,000,000 nodes are about 4-10 s of one core (3 to 4 minutes in its Python search);
# Persian Rug needs 7,000,000 for every deal of 1-10,000 (deal 1148: won in 6,113,858).
ROW_NODES = {"q1": 3_000_000, "q2": 3_000_000, "qr": 7_000_000, "c3-3M": 3_000_000, "c0-3M": 3_000_000,
             "q1-300k": 300_000}


def command(name: str, deals: str = "1-10000", musical: str = "musical") -> list[str]:
    flags = ROWS[name][1]
    nodes = ROW_NODES.get(name, CALCULATION_NODES if "calculation" in flags else NODES)
    limit = [] if "blind" in flags else ["--nodes", str(nodes)]
    return [musical, "stats", deals, *flags, *limit, "--out", f"{name}.jsonl"]


def spans(numbers: list[int]) -> str:
    """1, 2, 3, 7 -> "1-3, 7"."""
    out: list[str] = []
    numbers = sorted(numbers)
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(f"{numbers[i]}" if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ", ".join(out)


def report(directory: Path, musical: str) -> None:
    # The interval is musical stats' (Wilson, 95%; unknown deals counted as lost, then as won).
    print("| game, rules, player | command | deals in the file | won | lost | unknown | 95% interval |")
    print("|---|---|---|---|---|---|---|")
    for name, (what, _) in ROWS.items():
        path = directory / f"{name}.jsonl"
        shown = " ".join(shlex.quote(a) for a in command(name))
        if not path.exists():
            print(f"| {what} | `{shown}` | not run | – | – | – | – |")
            continue
        got = subprocess.run([musical, "stats", "--from", str(path), "--json"], capture_output=True, text=True)
        if got.returncode != 0:
            print(f"| {what} | `{shown}` | {got.stderr.strip()} | | | | |")
            continue
        totals = json.loads(got.stdout)
        seeds = {json.loads(line)["seed"] for line in path.read_text().splitlines() if line.strip()}
        numbers = [s for s in seeds if isinstance(s, int)]
        share = 100 * totals["won"] / totals["deals"] if totals["deals"] else 0.0
        won = f"{totals['won']} ({share:.1f}%)" if share >= 0.1 or not share else f"{totals['won']} ({share:.2f}%)"
        unknown = "–" if "blind" in ROWS[name][1] else totals["unknown"]
        low, high = totals["interval"]
        print(f"| {what} | `{shown}` | {spans(numbers)} | {won} | {totals['lost']} | {unknown} "
              f"| {100 * low:.1f}–{100 * high:.1f}% |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=".", help="where the rows' files are (default: here)")
    ap.add_argument("--musical", default="musical", help="the musical command to run")
    ap.add_argument("--print", action="store_true", help="print each row's command")
    ap.add_argument("--run", action="append", choices=sorted(ROWS), help="run this row (repeatable)")
    ap.add_argument("--range", default="1-10000", help="the deals to run (default 1-10000)")
    ap.add_argument("--workers", default=None, help="passed to musical stats")
    ap.add_argument("--report", action="store_true", help="the table from the files in --dir")
    args = ap.parse_args(argv)
    directory = Path(args.dir)
    if args.print:
        for name in ROWS:
            print(" ".join(shlex.quote(a) for a in command(name)))
    for name in args.run or ():
        argv = command(name, args.range, args.musical)
        if args.workers:
            argv += ["--workers", args.workers]
        print("$", " ".join(shlex.quote(a) for a in argv), flush=True)
        status = subprocess.run(argv, cwd=directory).returncode
        if status not in (0, 130):
            return status
    if args.report:
        report(directory, args.musical)
    return 0


if __name__ == "__main__":
    sys.exit(main())
