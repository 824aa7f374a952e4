"""The Calculation solver's C core (musical_cli/games/calculation/_search.c) against the Python
search it transcribes.

The core must explore the same nodes in the same order as ``_Search``: so on every position the
verdict, the winning line and the node count are the same, with or without a node limit, for
every rule set (4 piles, 3 piles, no bases), with a transposition table that rotates, and with a
progress callback that raises. The rest of the suite checks the Python search's verdicts against
brute force (tests/test_solve_calculation.py); this file carries that over to the core. Skipped
where the core is not built (no C compiler, or MUSICAL_PURE_PYTHON); CI sets
MUSICAL_REQUIRE_CORE so that a core that silently failed to build fails the run.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_solve_calculation import brute_force, end_positions, midgame, opening

import musical_cli
from musical_cli.game import Outcome
from musical_cli.games.calculation import solver as S  # noqa: N812
from musical_cli.games.calculation.rules import CALCULATION, CalculationRules

PACKAGE_PARENT = str(Path(musical_cli.__file__).resolve().parent.parent)
needs_core = pytest.mark.skipif(S.CORE is None, reason="the Calculation C core is not built here")
slow = pytest.mark.slow

RULES = [CalculationRules(), CalculationRules(piles=3), CalculationRules(bases=False)]
RULE_IDS = ["4-piles", "3-piles", "no-bases"]


def test_core_is_built_where_required():
    """CI builds with a compiler and sets MUSICAL_REQUIRE_CORE: the core must be there."""
    if not os.environ.get("MUSICAL_REQUIRE_CORE"):
        pytest.skip("MUSICAL_REQUIRE_CORE is not set")
    assert S.CORE is not None


def both(state, **kwargs):
    """The Python search's answer and the core's: (result, line, nodes) each."""
    return (S.solve_calculation(state, None, core=False, **kwargs),
            S.solve_calculation(state, None, core=True, **kwargs))


@needs_core
def test_make_search_chooses_the_core():
    assert type(S.make_search((1, 2), None)) is S._CoreSearch
    assert type(S.make_search((1, 2), None, core=False)) is S._Search
    assert type(S.make_search((1, 2), None, relax=True)) is S._CoreSearch


@needs_core
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
@pytest.mark.parametrize("limit, deals", [(3000, 12), pytest.param(30_000, 6, marks=slow)])
def test_openings_node_for_node(rules, limit, deals):
    seen = set()
    for n in range(1, deals + 1):
        py, core = both(opening(n, rules), max_nodes=limit)
        assert py == core, n
        seen.add(py[0])
    assert "won" in seen  # a won line was compared, not only node counts


@slow
@needs_core
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_midgame_positions_node_for_node(rules):
    """Positions of real games, reached by the placing heuristic, searched to the end or to a
    node limit; the waste card turned (the heuristic stops there)."""
    results = set()
    for n in range(1, 10):  # nine deals (once fifteen): the Python search is the slow half
        for left in (30, 12, 4):
            state = midgame(n, left, rules)
            if CALCULATION.outcome(state) is not Outcome.IN_PLAY:
                continue
            py, core = both(state, max_nodes=20_000)
            assert py == core, (n, left)
            results.add(py[0])
    assert {"won", "lost"} <= results


@needs_core
def test_lost_and_won_verdicts_near_the_end_agree_with_brute_force():
    """The core's verdicts on the end positions the Python search is checked on: the same, and
    brute force agrees (so a core proving "lost" is right where Python's is)."""
    lost = 0
    for n, left, state in end_positions()[::2]:
        py, core = both(state)
        assert py == core, (n, left)
        assert (core[0] == "won") == brute_force(state)
        lost += core[0] == "lost"
    assert lost >= 10


def random_position(seed: int, deal: int, rules: CalculationRules, moves: int):
    """A position of a real game after ``moves`` random legal moves (the waste turned or not)."""
    rng = random.Random(seed)
    state = opening(deal, rules)
    for _ in range(moves):
        if CALCULATION.outcome(state) is not Outcome.IN_PLAY:
            break
        state = CALCULATION.apply(state, rng.choice(CALCULATION.legal_moves(state)))
    return state


@slow
@needs_core
@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), deal=st.integers(1, 5000), rules=st.sampled_from(RULES),
       moves=st.integers(0, 90), limit=st.sampled_from([500, 5000]))
def test_random_positions_node_for_node(seed, deal, rules, moves, limit):
    state = random_position(seed, deal, rules, moves)
    py, core = both(state, max_nodes=limit)
    assert py == core


@slow
@needs_core
def test_a_rotating_table_node_for_node(monkeypatch):
    """A young generation of 40 entries rotates again and again: the same nodes, and the same
    table sizes at the end."""
    monkeypatch.setattr(S, "TABLE_ENTRIES", 40)
    for rules in RULES:
        for n in (3, 9):
            state = opening(n, rules)
            sizes = []
            for core in (False, True):
                search = S.make_search(tuple(c.rank for c in state.stock[1:]), None, None, 8000, core)
                root = (tuple(len(f) for f in state.foundations), (0,) * len(state.piles), state.stock[0].rank, 0)
                try:
                    got = S._iterate(search, root)
                except S._Timeout:
                    got = "unknown"
                tt = search.tt_size() if core else (len(search.young), len(search.old))
                sizes.append((got, search.nodes, tuple(search.path) if got == S.WON else None, tt))
            assert sizes[0] == sizes[1], (rules, n)
            assert 0 < sizes[0][3][0] <= 40 and sizes[0][3][1] == 40


@needs_core
def test_progress_is_called_alike_and_what_it_raises_propagates():
    class Stop(Exception):
        pass

    seen = []
    for core in (False, True):
        calls = []

        def progress(nodes, seconds, calls=calls):
            calls.append(nodes)
            if len(calls) == 5:
                raise Stop

        with pytest.raises(Stop):
            S.solve_calculation(opening(16), None, progress, core=core)
        seen.append(calls)
    assert seen[0] == seen[1] == [256, 512, 768, 1024, 1280]


@needs_core
def test_node_limit_and_budget():
    py, core = both(opening(16), max_nodes=1000)
    assert py == core and core[0] == "unknown" and core[2] == 1024  # checked every 256 nodes
    result, line, nodes = S.solve_calculation(opening(16), 0.01, core=True)
    assert result == "unknown" and line == () and nodes > 0


def test_musical_pure_python_turns_the_core_off(tmp_path):
    code = "from musical_cli.games.calculation import solver; print(solver.CORE is None)"
    # PYTHONPATH: the copy of the package these tests import (tests/test_core_build.py)
    env = {**os.environ, "MUSICAL_PURE_PYTHON": "1", "PYTHONPATH": PACKAGE_PARENT}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=60)
    assert p.stdout.split() == ["True"], p.stderr


# --- the blind player's rollouts in C ------------------------------------------------------------


@slow
@needs_core
@settings(max_examples=60)
@given(seed=st.integers(0, 10**6), deal=st.integers(1, 5000), rules=st.sampled_from(RULES),
       moves=st.integers(0, 100))
def test_rollouts_score_as_python(seed, deal, rules, moves):
    """The same games and scores as blind._rollout, summed in the same order (so the blind player
    makes the same choices with the core or without)."""
    from musical_cli.games.calculation import blind as B  # noqa: N812

    state = random_position(seed, deal, rules, moves)
    if CALCULATION.outcome(state) is not Outcome.IN_PLAY:
        return
    v = B.view_of(state)
    orders = B._shuffles(v, seed, 20)
    packed = [B._pack(p) for p in v.piles]
    python = sum(B._rollout(v.heights, packed, v.waste, order) for order in orders)
    core = S.CORE.rollouts(bytes(v.heights), tuple(bytes(p) for p in v.piles), v.waste,
                           [bytes(order) for order in orders], B.EMPTY_COST, B.DEPTH_COST, B.BUILT_SHARE)
    assert core == python


@needs_core
def test_rollouts_refuse_bad_input():
    with pytest.raises(ValueError):
        S.CORE.rollouts(bytes(4), (b"",) * 4, 0, [bytes([14])], 5.0, 0.5, 1.0)
    with pytest.raises(ValueError):
        S.CORE.rollouts(bytes(4), (b"",) * 4, 0, [bytes([1] * 53)], 5.0, 0.5, 1.0)


@slow
@needs_core
@pytest.mark.parametrize("deal, rules", [(2, CalculationRules()), (5, CalculationRules(piles=3)),
                                         (7, CalculationRules(bases=False))])
def test_blind_games_are_the_same_with_the_core(monkeypatch, deal, rules):
    from musical_cli.games.calculation import blind as B  # noqa: N812

    state = opening(deal, rules)
    with_core = B.blind_play(state, 0, 30)
    # Python's rollouts, and Python's end-game solver (RankSolver through make_search)
    monkeypatch.setattr(B, "ROLLOUT_CORE", None)
    monkeypatch.setattr(S, "CORE", None)
    assert B.blind_play(state, 0, 30) == with_core


@needs_core
def test_rank_solver_with_the_relaxation_node_for_node():
    """RankSolver (the blind player's end-game solver: the free-stock relaxation on revisits, one
    table for several questions) answers alike, in the same nodes, with the core and without."""
    from musical_cli.games.calculation import blind as B  # noqa: N812

    answers = set()
    for n, left, state in end_positions() + tuple((n, 8, midgame(n, 8)) for n in range(1, 13)):
        if CALCULATION.outcome(state) is not Outcome.IN_PLAY:
            continue
        v = B.view_of(state)
        stock = tuple(c.rank for c in state.stock)
        got = []
        for core in (False, True):
            solver = S.RankSolver(stock, 2000, core=core)
            assert type(solver.search) is (S._CoreSearch if core else S._Search)
            runs = []
            for option in B._options(v) or [(None, v.heights, v.piles, v.waste)]:
                _, h, piles, waste = option
                runs.append((solver.solve(h, piles, waste), solver.search.nodes))
            got.append(runs)
        assert got[0] == got[1], (n, left)
        answers.update(a for a, _ in got[0])
    assert {"won", "lost", "unknown"} <= answers
