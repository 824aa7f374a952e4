#!/usr/bin/env python3
"""A stats worker's memory over many deals: for each game and player,
one worker process solves deals one after another through the same task as ``musical stats``
(``musical_cli.stats._pool_task``); its peak resident size (VmHWM, read in the worker) is printed
after the first deal and after the last, and should not grow with the number of deals.

    python bench/memory.py                       # every row, with the default counts (slow: blind)
    python bench/memory.py --only blind --deals 50
    python bench/memory.py --only musical-2 --deals 1000
    python bench/memory.py --deals 1000 --nodes 5000   # every solver row, a node cap a deal

Rows: musical-2, musical-1, musical-0 (the solver at 2, 1, 0 redeals), calculation (the solver,
4 piles), calculation-3 (3 piles), calculation-nobases, blind (the blind player, 4 piles),
quilt-1, quilt-2, quilt-rug (the Crazy Quilt solver at 1 and 2 redeals, and Persian Rug).
``--nodes N`` caps each deal's search at N nodes instead of the row's budget (the blind player
has no budget): memory that grows with the number of deals shows as well with small searches,
and a thousand deals then fit in minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from musical_cli.deals import DealNumber  # noqa: E402
from musical_cli.games.calculation.rules import CALCULATION  # noqa: E402
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT  # noqa: E402
from musical_cli.games.musical.rules import MUSICAL, MusicalRules  # noqa: E402
from musical_cli.stats import _pool_task  # noqa: E402

ROWS = {
    # name: (game, rules, player, default deals, budget)
    "musical-2": (MUSICAL, MusicalRules(2), "solver", 1000, 10.0),
    "musical-1": (MUSICAL, MusicalRules(1), "solver", 50, 2.0),
    "musical-0": (MUSICAL, MusicalRules(0), "solver", 1000, 10.0),
    "calculation": (CALCULATION, CALCULATION.default_rules(), "solver", 100, 2.0),
    "calculation-3": (CALCULATION, CALCULATION.rules_from_options({"piles": "3"}), "solver", 100, 2.0),
    "calculation-nobases": (CALCULATION, CALCULATION.rules_from_options({"bases": "no"}), "solver", 100, 2.0),
    "blind": (CALCULATION, CALCULATION.default_rules(), "blind", 50, None),
    "quilt-1": (CRAZY_QUILT, CRAZY_QUILT.default_rules(), "solver", 100, 2.0),
    "quilt-2": (CRAZY_QUILT, CRAZY_QUILT.rules_from_options({"redeals": "2"}), "solver", 100, 2.0),
    "quilt-rug": (CRAZY_QUILT, CRAZY_QUILT.rules_from_options({"reserves": "yes"}), "solver", 100, 2.0),
}


def peak_mb() -> tuple[int, int]:
    """In the worker: (peak resident MB, resident MB now), from /proc/self/status."""
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM:", "VmRSS:")):
                got[line.split(":")[0]] = int(line.split()[1]) // 1024
    return got["VmHWM"], got["VmRSS"]


def row(name: str, deals: int, nodes: int | None = None) -> None:
    game, rules, player, _, budget = ROWS[name]
    if nodes is not None and player == "solver":
        budget = None
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1) as pool:
        base = pool.submit(peak_mb).result()
        after: dict[int, tuple[int, int]] = {}
        for n in range(1, deals + 1):
            pool.submit(_pool_task, DealNumber(n), rules, budget, game, player, nodes).result()
            if n in (1, 10, deals) or n % 100 == 0:
                after[n] = pool.submit(peak_mb).result()
    marks = ", ".join(f"after {n}: peak {p} MB (now {r})" for n, (p, r) in sorted(after.items()))
    limit = f"{nodes} nodes" if nodes is not None and player == "solver" else \
        f"{budget:g} s" if budget is not None else "fixed effort"
    print(f"{name:20} {player:6} {limit} a deal; worker at start {base[0]} MB; {marks}; "
          f"{time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.1f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=sorted(ROWS), help="this row only (repeatable)")
    ap.add_argument("--deals", type=int, default=None, help="deals 1-N (default: the row's own count)")
    ap.add_argument("--nodes", type=int, default=None, help="search nodes a deal instead of the row's budget")
    args = ap.parse_args(argv)
    print(f"peak resident size of one stats worker; python {sys.version.split()[0]}")
    for name in args.only or ROWS:
        row(name, args.deals or ROWS[name][3], args.nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
