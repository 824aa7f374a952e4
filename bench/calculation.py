"""Calculation benchmarks: the thoughtful solver and the blind player on numbered deals.

    python bench/calculation.py                       # solver, 4 piles, deals 1-200, 30 s a deal
    python bench/calculation.py --piles 3 --budget 10
    python bench/calculation.py --no-bases --range 1-100
    python bench/calculation.py --player blind        # blind player, deals 1-200
    python bench/calculation.py --player blind --range 1-2000
    python bench/calculation.py --player heuristic --range 1-2000   # the rollout policy alone
    python bench/calculation.py --player speed --range 1-40 --nodes 20000   # core vs Python

``--player speed`` runs the solver's search with the C core and in Python on the same deals,
each to the same node limit, checks that both give the same answers and node counts, and prints
positions (nodes) per CPU second for each. Times are CPU seconds (time.process_time), so a loaded
machine changes them little.

For many deals on several cores, `musical stats --game calculation --player blind --workers W`
gives the same figures.

Targets (never asserted in a test): thoughtful, 4 piles, deals 1-200: at least 97%
decided within 30 s a deal; blind player, deals 1-2000: above 80% won. Every "won" is replayed
through the engine before it is counted. One line a deal goes to stderr with --verbose.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from musical_cli.deals import parse_deal_range  # noqa: E402
from musical_cli.game import Outcome  # noqa: E402
from musical_cli.games.calculation.blind import ROLLOUTS, blind_play, heuristic_move, view_of  # noqa: E402
from musical_cli.games.calculation.rules import CALCULATION, CalculationRules  # noqa: E402
from musical_cli.games.calculation.solver import CORE, solve_calculation  # noqa: E402


def bench_speed(deals, rules: CalculationRules, nodes: int, verbose: bool) -> None:
    """Positions per CPU second with the C core and without it, on the same nodes."""
    if CORE is None:
        raise SystemExit("the C core is not built here (or MUSICAL_PURE_PYTHON is set): nothing to compare")
    cpu = {False: 0.0, True: 0.0}
    total = 0
    for deal in deals:
        state = CALCULATION.opening(deal, rules)
        got = {}
        for core in (True, False):
            start = time.process_time()
            got[core] = solve_calculation(state, None, max_nodes=nodes, core=core)
            cpu[core] += time.process_time() - start
        if got[True] != got[False]:
            raise SystemExit(f"core bug: deal {deal}: the core says {got[True][0]} in {got[True][2]} nodes, "
                             f"Python {got[False][0]} in {got[False][2]}")
        total += got[True][2]
        if verbose:
            print(f"deal {deal}: {got[True][0]}, {got[True][2]} nodes", file=sys.stderr, flush=True)
    print(f"solver speed, {rules.piles} piles, {'bases' if rules.bases else 'no bases'}, "
          f"deals {deals[0]}-{deals[-1]}, at most {nodes} nodes a deal: {total:,} nodes, the same in both")
    print(f"  C core: {total / max(cpu[True], 1e-9):,.0f} nodes per CPU second ({cpu[True]:.2f} s)")
    print(f"  Python: {total / max(cpu[False], 1e-9):,.0f} nodes per CPU second ({cpu[False]:.2f} s)")
    print(f"  the core is {cpu[False] / max(cpu[True], 1e-9):.1f} times faster")


def bench_solver(deals, rules: CalculationRules, budget: float | None, verbose: bool,
                 nodes: int | None = None) -> None:
    counts = {"won": 0, "lost": 0, "unknown": 0}
    undecided = []
    total = 0.0
    worst = 0.0
    nodes_total = 0
    for deal in deals:
        state = CALCULATION.opening(deal, rules)
        start = time.process_time()
        result, line, used = solve_calculation(state, budget, max_nodes=nodes)
        seconds = time.process_time() - start
        if result == "won" and CALCULATION.outcome(CALCULATION.play(state, line)) is not Outcome.WON:
            raise SystemExit(f"solver bug: the line for deal {deal} does not win")
        counts[result] += 1
        total += seconds
        nodes_total += used
        if result != "won":
            worst = max(worst, seconds)
        if result == "unknown":
            undecided.append(str(deal))
        if verbose:
            print(f"deal {deal}: {result} in {seconds:.2f} s of CPU, {used} nodes", file=sys.stderr, flush=True)
    n = len(deals)
    decided = counts["won"] + counts["lost"]
    print(f"thoughtful solver, {rules.piles} piles, {'bases' if rules.bases else 'no bases'}, "
          f"deals {deals[0]}-{deals[-1]}, budget {budget} s a deal"
          + (f", at most {nodes} nodes" if nodes else "") + f", {'the C core' if CORE else 'Python'}")
    print(f"  decided {decided}/{n} = {100 * decided / n:.1f}%: won {counts['won']}, lost {counts['lost']}, "
          f"unknown {counts['unknown']}")
    print(f"  CPU per deal: mean {total / n:.2f} s; {nodes_total / max(total, 1e-9):,.0f} nodes per CPU second")
    if undecided:
        print(f"  undecided: {' '.join(undecided)}")


def bench_blind(deals, rules: CalculationRules, rollouts: int, seed: int, verbose: bool) -> None:
    won = 0
    total = 0.0
    for i, deal in enumerate(deals, 1):
        state = CALCULATION.opening(deal, rules)
        start = time.process_time()
        result, moves = blind_play(state, seed, rollouts)
        seconds = time.process_time() - start
        if result and CALCULATION.outcome(CALCULATION.play(state, moves)) is not Outcome.WON:
            raise SystemExit(f"blind player bug: the game of deal {deal} does not win")
        won += result
        total += seconds
        if verbose:
            print(f"deal {deal}: {'won' if result else 'lost'} in {seconds:.2f} s of CPU; so far {won}/{i} "
                  f"= {100 * won / i:.1f}%", file=sys.stderr, flush=True)
    n = len(deals)
    print(f"blind player, {rules.piles} piles, {'bases' if rules.bases else 'no bases'}, "
          f"deals {deals[0]}-{deals[-1]}, {rollouts} rollouts, seed {seed}")
    print(f"  won {won}/{n} = {100 * won / n:.1f}%; CPU per deal: mean {total / n:.3f} s")


def bench_heuristic(deals, rules: CalculationRules) -> None:
    """The blind player's rollout policy playing alone, through the engine: the floor that the
    Monte-Carlo search builds on."""
    won = 0
    start = time.perf_counter()
    for deal in deals:
        state = CALCULATION.opening(deal, rules)
        while (move := heuristic_move(view_of(state))) is not None:
            state = CALCULATION.apply(state, move)
        won += CALCULATION.outcome(state) is Outcome.WON
    n = len(deals)
    seconds = time.perf_counter() - start
    print(f"placing heuristic alone, {rules.piles} piles, {'bases' if rules.bases else 'no bases'}, "
          f"deals {deals[0]}-{deals[-1]}")
    print(f"  won {won}/{n} = {100 * won / n:.1f}%; {1000 * seconds / n:.1f} ms a deal")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--player", choices=("solver", "blind", "heuristic", "speed"), default="solver")
    parser.add_argument("--range", default="1-200", help="deals A-B (default 1-200)")
    parser.add_argument("--piles", type=int, choices=(3, 4), default=4)
    parser.add_argument("--no-bases", action="store_true")
    parser.add_argument("--budget", type=float, default=30.0, help="solver seconds a deal (default 30)")
    parser.add_argument("--nodes", type=int, default=None,
                        help="solver nodes a deal (speed: default 20000)")
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS, help=f"blind player (default {ROLLOUTS})")
    parser.add_argument("--seed", type=int, default=0, help="blind player's seed (default 0)")
    parser.add_argument("--verbose", action="store_true", help="a line a deal on stderr")
    args = parser.parse_args(argv)
    deals = parse_deal_range(args.range)
    rules = CalculationRules(args.piles, not args.no_bases)
    if args.player == "solver":
        bench_solver(deals, rules, None if args.nodes else args.budget, args.verbose, args.nodes)
    elif args.player == "speed":
        bench_speed(deals, rules, args.nodes or 20_000, args.verbose)
    elif args.player == "heuristic":
        bench_heuristic(deals, rules)
    else:
        bench_blind(deals, rules, args.rollouts, args.seed, args.verbose)


if __name__ == "__main__":
    main()
