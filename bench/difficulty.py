"""The difficulty bands' calibration (docs/difficulty.md): the measure of every deal of a range,
then the thresholds that split the winnable deals into thirds, and how many deals each band gets.

    .venv/bin/python bench/difficulty.py 1-10000                          # Musical, 2 redeals
    .venv/bin/python bench/difficulty.py 1-10000 --game musical --rule redeals=1
    .venv/bin/python bench/difficulty.py 1-10000 --game calculation --from c4.jsonl

The measure (musical_cli.advice.difficulty_measure) is the number of search nodes the solver
needs to find a win, with a node limit only: the same figures on every machine, however loaded.
``--from FILE`` reads it from the per-deal files of ``musical stats --nodes N --out FILE`` (N at
least the measure's limit) instead of solving again: a search's path does not depend on its
node limit (the limit only stops it), so a win found within the measure's limit is found at the
same node, and a deal the file has as won beyond it, or unknown, is undecided for the measure.
"""

from __future__ import annotations

import argparse
import collections
import json
import time

from musical_cli.advice import band_of, difficulty_measure
from musical_cli.deals import parse_deal_range
from musical_cli.games import DEFAULT_GAME, game_named
from musical_cli.stats import option_text


def measured(game, rules, deals, files):
    """{deal number: (verdict, nodes)}: from the files, or by solving each deal."""
    if not files:
        return {deal.json: difficulty_measure(game, game.opening(deal, rules)) for deal in deals}
    wanted = {deal.json for deal in deals}
    limit = game.difficulty_nodes()
    got = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            for text in f:
                row = json.loads(text)
                if row.get("game") != game.name or row.get("player", "solver") != "solver":
                    continue
                options = {name: option_text(value) for name, value in row["rules"].items()}
                if game.rules_from_options(options) != rules or row["seed"] not in wanted:
                    continue
                result, nodes = row["result"], row.get("nodes") or 0
                if result == "unknown" and nodes < limit:
                    raise SystemExit(f"{path}: deal {row['seed']} was run with a node limit below "
                                     f"{limit:,} (or a time limit): it cannot stand for the measure")
                if nodes > limit:
                    result = "unknown"  # decided, but beyond the measure's limit
                got[row["seed"]] = (result, nodes)
    missing = len(wanted) - len(got)
    if missing:
        raise SystemExit(f"the files lack {missing} of the deals asked for")
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deals", help="A-B")
    parser.add_argument("--game", default=DEFAULT_GAME.name)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option, as a transcript's header has it (redeals=1, piles=3, bases=no)")
    parser.add_argument("--from", dest="files", action="append", default=[], metavar="FILE",
                        help="read the measure from 'musical stats --nodes N --out FILE' files")
    args = parser.parse_args()
    game = game_named(args.game)
    rules = game.rules_from_options(dict(option.split("=", 1) for option in args.rule))
    deals = parse_deal_range(args.deals)
    start = time.process_time()
    results = {"lost": 0, "unknown": 0}
    nodes = []
    for result, n in measured(game, rules, deals, args.files).values():
        if result == "won":
            nodes.append(n)
        else:
            results[result] += 1
    nodes.sort()
    where = f"from {', '.join(args.files)}" if args.files else f"{time.process_time() - start:.1f} s of CPU time"
    print(f"{game.variant_title(rules)}: deals {args.deals}, node limit {game.difficulty_nodes():,}; {where}")
    print(f"winnable {len(nodes)}, lost {results['lost']}, undecided {results['unknown']}")
    if len(nodes) >= 3:
        # the thresholds: the largest measure of the easiest third, of the middle third
        easy, medium = nodes[len(nodes) // 3 - 1], nodes[2 * len(nodes) // 3 - 1]
        print(f"thirds of the winnable deals end at {easy:,} and {medium:,} nodes")
        bands = game.difficulty_bands().get(rules)
        # ties (many deals won at the same count) make the thirds inexact: the bands' counts
        print(f"with {'the bands in use' if bands else 'those thirds as bands'}: " + shares(bands or (easy, medium), nodes))


def shares(bands: tuple[int, int], nodes: list[int]) -> str:
    counts = collections.Counter(band_of(n, bands) for n in nodes)
    return (f"easy up to {bands[0]:,} nodes, medium up to {bands[1]:,}: "
            + ", ".join(f"{b} {counts[b]} ({100 * counts[b] / len(nodes):.1f}%)" for b in ("easy", "medium", "hard")))


if __name__ == "__main__":
    main()
