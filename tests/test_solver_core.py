"""The C core (musical_cli/games/musical/_search.c) against the Python search it transcribes.

The core must explore the same nodes in the same order as ``Search``: so on every position the
verdict, the winning line and the node count are the same, with or without a node limit, with a
transposition table that rotates, with a clock whose side work adds nodes or raises. The rest of
the suite checks the Python search's verdicts against brute force; this file carries that over
to the core. Skipped where the core is not built (no C compiler, or MUSICAL_PURE_PYTHON);
CI sets MUSICAL_REQUIRE_CORE so that a core that silently failed to build fails the run.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_solver import near_end, opening, random_position

from musical_cli.game import Outcome
from musical_cli.games.musical import solver as S  # noqa: N812
from musical_cli.games.musical.rules import MUSICAL

needs_core = pytest.mark.skipif(S.CORE is None, reason="the C core is not built here")
slow = pytest.mark.slow


def test_core_is_built_where_required():
    """CI builds with a compiler and sets MUSICAL_REQUIRE_CORE: the core must be there."""
    if not os.environ.get("MUSICAL_REQUIRE_CORE"):
        pytest.skip("MUSICAL_REQUIRE_CORE is not set")
    assert S.CORE is not None


class SideClock(S.Clock):
    """A clock whose side work adds nodes (as the local search does) and that raises
    ``Stop`` at its ``stop_at``-th tick, to check that both searches tick alike."""

    class Stop(Exception):
        pass

    def __init__(self, stop_at: int | None = None):
        super().__init__(None, None)
        self.stop_at = stop_at
        self.seen: list[int] = []

        def side() -> None:
            self.nodes += 64
            self.seen.append(self.nodes)

        self.side = side
        self.schedule(3)

    def tick(self) -> None:
        if self.stop_at is not None and self.ticks + 1 >= self.stop_at:
            raise self.Stop
        super().tick()


def tt_sizes(search) -> tuple[int, int]:
    """The entries in the transposition table's two generations (young, old)."""
    if isinstance(search, S.CoreSearch):
        return search.core.tt_size()
    return len(search.tt), len(search.tt_old)


def both(state, limits=(3000,), clock=lambda: S.Clock(None, None), split=False, basic=False):
    """Run the Python search and the core from ``state`` with the node limits in turn (one
    search object each, so the transposition table is kept between runs); what each saw."""
    out = []
    for core in (False, True):
        c = clock()
        search = S.make_search(S.Position(state), c, core, basic)
        assert isinstance(search, S.CoreSearch) is core
        runs = []
        for limit in limits:
            try:
                got = search.run(limit, split=split)
            except SideClock.Stop:
                got = "stopped"
            runs.append((got, c.nodes, search.line() if got is True else None, tt_sizes(search)))
        out.append((runs, getattr(c, "seen", None)))
    return out


@needs_core
@pytest.mark.parametrize("redeals", [0, 1, 2, None])
@pytest.mark.parametrize("n", range(1, 7))
def test_same_search_from_the_opening(n, redeals):
    python, core = both(opening(n, redeals), limits=(300, 4000))
    assert python == core


@slow
@needs_core
@settings(max_examples=60, derandomize=True, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 10**6), moves=st.integers(0, 160),
       redeals=st.sampled_from([0, 1, 2, 3, None]))
def test_same_search_from_positions_of_real_games(n, seed, moves, redeals):
    state = random_position(n, seed, redeals, moves)
    if MUSICAL.outcome(state) is not Outcome.IN_PLAY:
        return
    python, core = both(state, limits=(2000,))
    assert python == core


@needs_core
@pytest.mark.parametrize("n,redeals", [(409, 2), (2, 2), (5, 1), (16, 1), (7, 2), (3, 0)])
def test_same_search_with_rule_6s_split(n, redeals):
    python, core = both(opening(n, redeals), limits=(200, 2500), split=True)
    assert python == core


@needs_core
def test_same_split_near_the_end_searched_to_the_end():
    for k in range(12):
        state = near_end(1 + k % 8, seed=17 * k + 3, cards_left=16 + k % 5, redeals=(1, 2)[k % 2])
        if MUSICAL.outcome(state) is not Outcome.IN_PLAY:
            continue
        python, core = both(state, limits=(None,), split=True)
        assert python == core


@needs_core
def test_same_verdicts_near_the_end_searched_to_the_end():
    """Positions the brute-force tests use, searched with no limit: the same verdict and line."""
    decided = set()
    for k in range(24):
        state = near_end(1 + k % 8, seed=31 * k + 5, cards_left=14 + k % 6, redeals=(0, 1, 2)[k % 3])
        if MUSICAL.outcome(state) is not Outcome.IN_PLAY:
            continue
        python, core = both(state, limits=(None,))
        assert python == core
        decided.add(python[0][0][0])
    assert decided == {True, False}


@needs_core
@pytest.mark.parametrize("n,redeals", [(3, 1), (8, 1), (5, 0), (409, 2)])
def test_same_search_with_rules_1_to_4_only(n, redeals):
    """bench/solver.py --basic, the check of losses without rules 5 to 7, is the same in both."""
    python, core = both(opening(n, redeals), limits=(3000,), basic=True)
    assert python == core
    assert python != both(opening(n, redeals), limits=(3000,))[0]


@slow
@needs_core
def test_same_search_when_the_table_rotates(monkeypatch):
    """A tiny table: generations rotate every few stores and entries are promoted from the old
    one, in both alike."""
    monkeypatch.setattr(S, "TT_MAX", 40)
    for n in (2, 3, 8):
        python, core = both(opening(n, 1), limits=(6000,))
        assert python == core


@needs_core
@pytest.mark.parametrize("stop_at", [None, 5])
def test_same_ticks_with_side_work_and_an_exception(stop_at):
    """Side work that adds nodes shifts the ticks alike; an exception from tick() comes out of
    the core as it does from Python, with the clock's node count the same."""
    python, core = both(opening(3, 1), limits=(5000, 5000), clock=lambda: SideClock(stop_at))
    assert python == core
    assert python[1], "the side work never ran"
    if stop_at:
        assert python[0][0][0] == "stopped"


@needs_core
@pytest.mark.parametrize("n,redeals", [pytest.param(2, 1, marks=slow), (4, 1), pytest.param(8, 1, marks=slow), (5, 2),
                                       (3, 0)])
def test_same_portfolio_answer(n, redeals):
    """The whole portfolio, local search included, on a node budget: the same answer when the
    local search's slices come at the same nodes (with the core they come CORE_SIDE_SCALE
    times fewer nodes apart, to keep the same share of the time)."""
    state = opening(n, redeals)
    for scale in sorted({1, *S.CORE_SIDE_SCALE}):
        python = S.solve_position(state, None, max_nodes=6000, core=False, side_scale=scale)
        core = S.solve_position(state, None, max_nodes=6000, core=True, side_scale=scale)
        assert python == core


@needs_core
def test_core_refuses_a_bad_position():
    with pytest.raises(ValueError):
        S.CORE.Core(bytes([14]), 0, bytes(4), 1, S.CoreSearch.NEED_BYTES, 1, 1, 100)
    with pytest.raises(ValueError):
        S.CORE.Core(bytes([1, 2]), 3, bytes(4), 1, S.CoreSearch.NEED_BYTES, 1, 1, 100)
