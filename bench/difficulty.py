"""The difficulty bands' calibration (docs/difficulty.md): the measure of every deal of a range,
then the thresholds that split the winnable deals into thirds, and how many deals each band gets.

    .venv/bin/python bench/difficulty.py 1-10000                       # Musical, default rules
    .venv/bin/python bench/difficulty.py 1-200 --game calculation

The measure (musical_cli.advice.difficulty_measure) is the number of search nodes the solver
needs to find a win, with a node limit only: the same figures on every machine, however loaded.
"""

from __future__ import annotations

import argparse
import collections
import time

from musical_cli.advice import BANDS, DIFFICULTY_NODES, band_of, difficulty_measure
from musical_cli.deals import parse_deal_range
from musical_cli.games import DEFAULT_GAME, game_named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deals", help="A-B")
    parser.add_argument("--game", default=DEFAULT_GAME.name)
    args = parser.parse_args()
    game = game_named(args.game)
    rules = game.default_rules()
    deals = parse_deal_range(args.deals)
    start = time.process_time()
    results = {"lost": 0, "unknown": 0}
    nodes = []
    for deal in deals:
        result, n = difficulty_measure(game, game.opening(deal, rules))
        if result == "won":
            nodes.append(n)
        else:
            results[result] += 1
    nodes.sort()
    print(f"{game.title}, {', '.join(f'{k} {v}' for k, v in game.rules_options(rules).items())}: deals {args.deals}, "
          f"node limit {DIFFICULTY_NODES:,}; {time.process_time() - start:.1f} s of CPU time")
    print(f"winnable {len(nodes)}, lost {results['lost']}, undecided {results['unknown']}")
    if nodes:
        # the thresholds: the largest measure of the easiest third, of the middle third
        easy, medium = nodes[len(nodes) // 3 - 1], nodes[2 * len(nodes) // 3 - 1]
        print(f"thirds of the winnable deals end at {easy:,} and {medium:,} nodes")
        bands = BANDS.get(game.name)
        if bands is not None:
            counts = collections.Counter(band_of(n, bands) for n in nodes)
            print(f"with the bands in use (easy up to {bands[0]:,} nodes, medium up to {bands[1]:,}): "
                  + ", ".join(f"{b} {counts[b]} ({100 * counts[b] / len(nodes):.1f}%)" for b in ("easy", "medium", "hard")))


if __name__ == "__main__":
    main()
