"""The blind Calculation player: it plays from what a player at the table can see.

It sees the foundations, every card of the waste piles, the waste card, how many cards the stock
holds and therefore the multiset of the cards not yet seen (all 52 less the visible ones). It
never reads the stock itself: :func:`view_of` is the only place that touches a state, and of the
stock it takes only the length. With the waste empty it simply turns the next card (``d``):
every pile play stays available with the card turned, so turning first only adds knowledge.

Choosing a move (:func:`blind_move`): the candidate moves are scored by Monte-Carlo over
shuffles of the unseen cards, with common random numbers (the same shuffles for every option):

* while many cards are unseen, each shuffle is played out by a fast placing heuristic (the
  rollout policy, :func:`_rollout`), scoring a win as 1 plus a share for every card built, so
  that options still separate when few rollouts win;
* once few are unseen (``PIMC_UNSEEN``), each shuffle is solved by the thoughtful solver
  (perfect-information Monte-Carlo), node-limited: an option scores the shuffles it wins;
* the rollouts are spent by successive halving, the better half of the options going on;
* a play that is provably never worse (:func:`safe_calculation_moves`) is made at once, and
  with nothing unseen the thoughtful solver plays the end exactly.

Everything is deterministic for a given view and seed: the shuffles come from a generator seeded
by the seed and the view, and the budgets are counts (rollouts, solver nodes), never seconds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ...cards import new_deck
from ...game import DIFFICULTY_NODES, Outcome
from ...moves import DEAL, F, Move, P, Place, Transfer, W
from .rules import CALCULATION, CalculationState
from .solver import CORE, POS, WANT, RankSolver, clearable_on, pack_heights, solve_calculation

__all__ = [
    "View", "view_of", "blind_move", "blind_play", "hint_calculation", "safe_calculation_moves",
    "heuristic_move", "clear_caches", "witness",
]

ROLLOUTS = 300  # shuffles played out per decision, by default
HALVING = 4  # they are spent in this many rounds, keeping the better half of the options each time
PIMC_UNSEEN = 8  # solve the shuffles exactly once at most this many cards are unseen
PIMC_SAMPLES = 12  # shuffles solved per decision then (scaled like ``rollouts``/ROLLOUTS)
PIMC_NODES = 1000  # solver nodes per option and shuffle; past them an option scores a half
HINT_ROLLOUTS = 60  # for the shell's hint: well under a second a move
BUILT_SHARE = 1.0  # a rollout scores (won) + BUILT_SHARE * built / 52


# --- what the player sees ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class View:
    """A position as the player sees it, by ranks (suits never matter)."""

    heights: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]  # ranks, bottom first
    waste: int  # the waste card's rank, 0 when the waste is empty
    stock: int  # how many cards the stock holds
    unseen: tuple[int, ...]  # unseen[r]: how many cards of rank r are not visible (index 0 unused)

    def key(self) -> str:
        return f"{self.heights}{self.piles}{self.waste}/{self.stock}"


def view_of(state: CalculationState) -> View:
    """The visible part of ``state``. Of the stock only its length is read."""
    unseen = [0] + [4] * 13
    for f in state.foundations:
        for card in f:
            unseen[card.rank] -= 1
    piles = tuple(tuple(card.rank for card in pile) for pile in state.piles)
    for pile in piles:
        for r in pile:
            unseen[r] -= 1
    waste = state.waste[-1].rank if state.waste else 0
    if waste:
        unseen[waste] -= 1
    return View(tuple(len(f) for f in state.foundations), piles, waste, len(state.stock), tuple(unseen))


# --- the placing heuristic (the rollout policy and the fallback) ------------------------------------------
#
# Piles are ints here, one byte a card (the rank), the top in the low byte, as in the solver,
# whose single-pile relaxation (``clearable_on``) the heuristic uses to refuse a placing that makes a
# pile impossible to clear. Played alone from the deal, the heuristic wins 273 of deals 1-2000
# (13.7%), 241 without that check. A decision plays tens of thousands of rollout cards, so the
# placing costs and the relaxation's verdicts are kept.

# SUCC[c][t]: the foundations on which rank t comes right after rank c.
SUCC: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << x for x in range(4) if c and t and POS[x][t] == POS[x][c] + 1) for t in range(14))
    for c in range(14)
)
EMPTY_COST = 5.0
DEPTH_COST = 0.5  # per card already on the pile
CACHE_LIMIT = 400_000  # entries per cache; a full cache is simply emptied


def _pack(pile: Sequence[int]) -> int:
    p = 0
    for r in pile:
        p = p << 8 | r
    return p


def _hkey(h: Sequence[int]) -> int:
    return h[0] | h[1] << 4 | h[2] << 8 | h[3] << 12


def _wait(h: Sequence[int], r: int) -> int:
    """How many cards the foundation that will want rank r soonest still takes before it."""
    best = 99
    for x in range(4):
        d = POS[x][r] - h[x]
        if 0 <= d < best:
            best = d
    return best


_COSTS: dict[int, tuple[float, ...]] = {}


def _costs(h: Sequence[int], c: int) -> tuple[float, ...]:
    """The cost (lower is better) of putting a card of rank c on a pile whose top has rank t,
    for t = 0 (an empty pile) to 13: nothing for a card that comes right before the top on a
    foundation that still needs it, or a king on kings; a little for a card wanted sooner than
    the top; much for burying a card wanted sooner."""
    key = _hkey(h) << 4 | c
    row = _COSTS.get(key)
    if row is not None:
        return row
    waits = [_wait(h, r) for r in range(14)]
    wc = waits[c]
    needing = sum(1 << x for x in range(4) if POS[x][c] >= h[x])
    succ = SUCC[c]
    out = [0.0 if c == 13 else EMPTY_COST]
    for t in range(1, 14):
        if succ[t] & needing or c == t == 13:
            out.append(0.0)
        else:
            wt = waits[t]
            out.append(1.0 + (wt - wc) * 0.1 if wc < wt else 10.0 + (wc - wt))
    if len(_COSTS) >= CACHE_LIMIT:
        _COSTS.clear()
    row = _COSTS[key] = tuple(out)
    return row


_CLEARABLE: dict[tuple[int, int], bool] = {}


def _best_pile(h: Sequence[int], piles: Sequence[int], c: int) -> int:
    """The pile to put a card of rank c on: the cheapest (a little more for every card already on
    the pile) whose pile stays clearable, ties to the first pile; else the cheapest."""
    row = _costs(h, c)
    costs = [row[p & 15] + DEPTH_COST * ((p.bit_length() + 7) >> 3) for p in piles]
    hpack = pack_heights(h)
    best = costs.index(min(costs))
    if _clearable_with(piles[best], c, hpack):  # nearly always: no need to sort
        return best
    for _, j in sorted(zip(costs, range(len(piles)), strict=True)):
        if _clearable_with(piles[j], c, hpack):
            return j
    return best


def _clearable_with(p: int, c: int, hpack: int) -> bool:
    if not p:
        return True
    key = (p << 8 | c, hpack)
    ok = _CLEARABLE.get(key)
    if ok is None:
        if len(_CLEARABLE) >= CACHE_LIMIT:
            _CLEARABLE.clear()
        ok = _CLEARABLE[key] = clearable_on(p, c, hpack)
    return ok


def _foundation_for(h: Sequence[int], piles: Sequence[int], r: int) -> int:
    """The foundation to play a card of rank r to, of those that want it: of the ones whose next
    card is on a pile top (or else of all), the one furthest behind, then the first."""
    xs = [x for x in range(4) if WANT[x][h[x]] == r]
    if len(xs) == 1:
        return xs[0]
    tops = [p & 15 for p in piles if p]
    ready = [x for x in xs if WANT[x][h[x] + 1] in tops]
    return min(ready or xs, key=lambda x: (h[x], x))


def _rollout(h: Sequence[int], piles: Sequence[int], waste: int, order: Sequence[int]) -> float:
    """Play the rest of the game by the heuristic with the stock in ``order``: the score is 1 for
    a win plus BUILT_SHARE for every card built (in 52nds)."""
    hh = list(h)
    pp = list(piles)
    n = len(pp)
    w0, w1, w2, w3 = WANT
    for c in (waste, *order, 0):  # 0: the stock is out, only plays are left
        # Play pile tops to foundations that want them, until none does.
        j = 0
        while j < n:
            p = pp[j]
            if p:
                t = p & 15
                if t == w0[hh[0]] or t == w1[hh[1]] or t == w2[hh[2]] or t == w3[hh[3]]:
                    hh[_foundation_for(hh, pp, t)] += 1
                    pp[j] = p >> 8
                    j = 0  # a play may free a card on an earlier pile
                    continue
            j += 1
        if not c:
            continue  # an empty waste (or the end)
        if c == w0[hh[0]] or c == w1[hh[1]] or c == w2[hh[2]] or c == w3[hh[3]]:
            hh[_foundation_for(hh, pp, c)] += 1
        else:
            j = _best_pile(hh, pp, c)
            pp[j] = pp[j] << 8 | c
    built = hh[0] + hh[1] + hh[2] + hh[3]
    return (1.0 if built == 52 else 0.0) + BUILT_SHARE * built / 52


# The C core's rollouts (solver.CORE.rollouts): _rollout's very games and scores, much faster. None
# when the core is not built or MUSICAL_PURE_PYTHON is set (then _rollout plays them).
ROLLOUT_CORE = CORE


# --- options ----------------------------------------------------------------------------------------------


# A move and the position it leads to: (the move, heights, piles, the waste card's rank or 0).
Option = tuple[Move, tuple[int, ...], tuple[tuple[int, ...], ...], int]


def _options(v: View) -> list[Option]:
    """The distinct legal moves, each with the position it leads to (heights, piles, waste)."""
    out: list[Option] = []
    h = v.heights
    seen_piles = set()
    for j, p in enumerate(v.piles):
        if not p or p in seen_piles:
            continue
        seen_piles.add(p)
        for x in range(4):
            if h[x] < 13 and WANT[x][h[x]] == p[-1]:
                hh = h[:x] + (h[x] + 1,) + h[x + 1:]
                pp = v.piles[:j] + (p[:-1],) + v.piles[j + 1:]
                out.append((Transfer(P(j + 1), F(x + 1)), hh, pp, v.waste))
    if v.waste:
        for x in range(4):
            if h[x] < 13 and WANT[x][h[x]] == v.waste:
                hh = h[:x] + (h[x] + 1,) + h[x + 1:]
                out.append((Transfer(W, F(x + 1)), hh, v.piles, 0))
        seen_piles = set()
        for j, p in enumerate(v.piles):
            if p in seen_piles:
                continue
            seen_piles.add(p)
            pp = v.piles[:j] + (p + (v.waste,),) + v.piles[j + 1:]
            out.append((Transfer(W, P(j + 1)), h, pp, 0))
    return out


def heuristic_move(v: View) -> Move | None:
    """The rollout policy's own choice in this view (pile plays first, then the waste card)."""
    h = v.heights
    piles = [_pack(p) for p in v.piles]
    for j, p in enumerate(v.piles):
        if p:
            if p[-1] in (WANT[0][h[0]], WANT[1][h[1]], WANT[2][h[2]], WANT[3][h[3]]):
                return Transfer(P(j + 1), F(_foundation_for(h, piles, p[-1]) + 1))
    if v.waste:
        if v.waste in (WANT[0][h[0]], WANT[1][h[1]], WANT[2][h[2]], WANT[3][h[3]]):
            return Transfer(W, F(_foundation_for(h, piles, v.waste) + 1))
        return Transfer(W, P(_best_pile(h, piles, v.waste) + 1))
    if v.stock:
        return DEAL
    return None


def _shuffles(v: View, seed: int, n: int) -> list[list[int]]:
    rng = random.Random(f"{seed}|{v.key()}")
    cards = [r for r in range(1, 14) for _ in range(v.unseen[r])]
    out = []
    for _ in range(n):
        rng.shuffle(cards)
        out.append(cards[:])
    return out


def blind_move(state: CalculationState, seed: int = 0, rollouts: int = ROLLOUTS) -> Move | None:
    """The blind player's next move in ``state`` (None when the game is over)."""
    if CALCULATION.outcome(state) is not Outcome.IN_PLAY:
        return None
    v = view_of(state)
    if not v.waste and v.stock:
        return DEAL
    if not v.waste and not v.stock:
        # Nothing is hidden any more: play the end exactly.
        result, line, _ = solve_calculation(state, None)
        if result == "won" and line:
            return line[0]
        return heuristic_move(v)
    safe = _safe_play(state)
    if safe is not None:
        return safe  # provably never worse (see safe_calculation_moves), for a blind player too
    options = _options(v)
    if len(options) == 1:
        return options[0][0]
    return _choose(v, options, seed, rollouts)


def _choose(v: View, options: list[Option], seed: int, rollouts: int) -> Move:
    """The option with the best total over shuffles of the unseen cards (common random numbers:
    every option still in the running meets the same shuffles), found by successive halving:
    every option gets the first batch of shuffles, the better half the next batch, and so on."""
    pimc = v.stock <= PIMC_UNSEEN
    n = max(1, rollouts * PIMC_SAMPLES // ROLLOUTS) if pimc else rollouts
    orders = _shuffles(v, seed, n)
    totals = [0.0] * len(options)
    alive = list(range(len(options)))
    packed = [[_pack(p) for p in o[2]] for o in options]
    batch = max(1, n // HALVING)
    done = 0
    while done < n:
        chunk = orders[done:done + batch]
        if pimc:
            for order in chunk:
                solver = RankSolver(order, PIMC_NODES)  # one table for all options
                for i in alive:
                    _, h, piles, waste = options[i]
                    got = solver.solve(h, piles, waste)
                    totals[i] += 1.0 if got == "won" else 0.5 if got == "unknown" else 0.0
        elif ROLLOUT_CORE is not None:
            # The same rollouts in C (the same scores, summed in the same order).
            stocks = [bytes(order) for order in chunk]
            for i in alive:
                _, h, piles, waste = options[i]
                totals[i] += ROLLOUT_CORE.rollouts(bytes(h), tuple(bytes(p) for p in piles), waste, stocks,
                                                   EMPTY_COST, DEPTH_COST, BUILT_SHARE)
        else:
            for i in alive:
                _, h, _, waste = options[i]
                totals[i] += sum(_rollout(h, packed[i], waste, order) for order in chunk)
        done += len(chunk)
        if len(alive) > 2 and done < n:
            alive.sort(key=lambda i: (-totals[i], i))
            alive = sorted(alive[:(len(alive) + 1) // 2])
    # Ties go to the heuristic's own choice, then to the first option.
    preferred = heuristic_move(v)
    best = max(alive, key=lambda i: (totals[i], options[i][0] == preferred, -i))
    return options[best][0]


def blind_play(state: CalculationState, seed: int = 0, rollouts: int = ROLLOUTS,
               progress: Callable[[int, float], None] | None = None) -> tuple[bool, tuple[Move, ...]]:
    """Play a whole game blind from ``state``: (won, the moves made). ``progress`` is called after
    every move with the moves made and the seconds spent; what it raises ends the game early."""
    moves: list[Move] = []
    start = time.perf_counter()
    while True:
        move = blind_move(state, seed, rollouts)
        if move is None:
            return CALCULATION.outcome(state) is Outcome.WON, tuple(moves)
        state = CALCULATION.apply(state, move)
        moves.append(move)
        if progress is not None:
            progress(len(moves), time.perf_counter() - start)


# The witnesses (Game.search): when a search given a node limit above WITNESS_AFTER and no time
# budget ends undecided, this player's games with these seeds are played from the position, and
# the first one won is the answer. Why: this player, which never reads the stock, wins deals the
# search does not win within 20,000,000 nodes (no bases, deals 1-1000: 6 of the 11 the search
# leaves undecided, with seeds 0-3; docs/calculation-solver.md), at under a second of CPU a game
# with the C core: its Monte-Carlo choices find lines the search's ordering ranks too low. A won
# game is a line, which the façade replays like any other; a lost one proves nothing, so "lost"
# and "unknown" stay the search's. Not at or below the difficulty measure's 3,000,000 nodes: the
# measure (the nodes the search needs) and its bands stay the search's. Not with a time budget
# either, even when the nodes ran out first: a budget promises an answer by then, and four games
# (a minute in pure Python) would break it; a node limit bounds work, not the wait, and is what
# the tables' rows use.
WITNESS_SEEDS = (0, 1, 2, 3)
WITNESS_AFTER = DIFFICULTY_NODES  # the measure's limit (Calculation's solver sets no other)


def witness(state: CalculationState, budget: float | None, nodes: int | None, used: int,
            progress: Callable[[int, float], None] | None = None) -> tuple[Move, ...] | None:
    """A won game from ``state`` after a search with these limits left it undecided in ``used``
    nodes: the moves of the first of WITNESS_SEEDS's games won, or None. None at once unless the
    search used up a node limit above WITNESS_AFTER with no time budget. ``progress`` hears
    ``used`` on the way (the witnesses add no node); what it raises ends them."""
    if budget is not None or nodes is None or nodes <= WITNESS_AFTER or used < nodes:
        return None
    told = None if progress is None else (lambda _moves, seconds: progress(used, seconds))
    for seed in WITNESS_SEEDS:
        won, moves = blind_play(state, seed, progress=told)
        if won:
            return moves
    return None


def clear_caches() -> None:
    """Empty the placing costs and clearability memos. Both hold up to CACHE_LIMIT entries of a
    few hundred bytes: kept across deals they made one worker of ``musical stats --player blind``
    grow to 500 MB and more; emptied between deals, a worker stays near its
    size after one deal. A deal refills them within its first moves."""
    _COSTS.clear()
    _CLEARABLE.clear()


def hint_calculation(state: CalculationState) -> Move | None:
    """A hint for the shell: the blind player's move with a modest budget (well under a second)."""
    return blind_move(state, 0, HINT_ROLLOUTS)


def safe_calculation_moves(state: CalculationState) -> tuple[Move, ...]:
    """Moves that provably never turn a winnable position into a lost one, for the shell's
    ``auto``; applied in order, each from the position the previous ones leave. Empty when
    nothing is provably safe. It reads no unseen card (only the visible ranks), and uses two
    rules, taking one move at a time until neither applies or the game is over:

    1. the only legal move (say, the deal when no pile top fits a foundation);
    2. a play of a rank r whose remaining copies (as many as the foundations that still need r)
       are *all* at hand, on pile tops or the waste, while *every* foundation still needing r
       wants it now: one of those cards to one of those foundations. Every win must play each of
       those copies to one of those foundations; each foundation takes nothing until its r comes
       (each rank appears once in a foundation's sequence), so each such play can be moved to
       now, and which copy goes where changes nothing but suits. With one copy left this is
       "the last copy of a rank a foundation wants now".

    Not used, because it is unsound: playing a pile top as soon as a foundation wants it (another
    foundation may need that very card later while the remaining copies lie buried).
    """
    out: list[Move] = []
    while CALCULATION.outcome(state) is Outcome.IN_PLAY:
        legal = CALCULATION.legal_moves(state)
        move = legal[0] if len(legal) == 1 else _safe_play(state)
        if move is None:
            break
        out.append(move)
        state = CALCULATION.apply(state, move)
    return tuple(out)


def _safe_play(state: CalculationState) -> Move | None:
    v = view_of(state)
    h = v.heights
    at_hand: dict[int, list[Place]] = {}
    if v.waste:
        at_hand.setdefault(v.waste, []).append(W)
    for j, pile in enumerate(v.piles):
        if pile:
            at_hand.setdefault(pile[-1], []).append(P(j + 1))
    for r, places in at_hand.items():
        needing = [x for x in range(4) if h[x] < 13 and POS[x][r] >= h[x]]
        wanting = [x for x in needing if WANT[x][h[x]] == r]
        if needing and wanting == needing and len(places) == len(needing):
            return Transfer(places[0], F(needing[0] + 1))
    return None


ESTIMATE_DEALS = 30  # orders of the unseen cards the blind player plays out, for the coach
ESTIMATE_BATCH = 5  # a partial estimate is handed on after each batch of that many


def blind_estimate(state: CalculationState, deals: int = ESTIMATE_DEALS, seed: int = 0,
                   stopped: Callable[[], bool] | None = None,
                   partial: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """The live coach's estimate, from what the player sees: of ``deals`` orders the unseen cards
    may lie in, how many the blind player (:func:`blind_play`, as strong as ``musical stats
    --player blind``) wins from here: (wins, deals).

    The stock is never read but for its length: the unseen cards are the deck less the cards in
    sight (which a player can work out), and each order is a shuffle of them, seeded by the view.
    Deterministic for a view and seed; an estimate, not a verdict. ``partial(wins, tried)`` hears
    of each batch of ESTIMATE_BATCH on the way (the coach shows it); when ``stopped()`` the
    estimate ends early with what it has: (wins, tried).

    (It once rolled the orders out with the placing heuristic alone, which wins about a tenth of
    the deals the blind player wins nine of: its 0% to 10% said little about the game in hand.)"""
    in_sight = {c for f in state.foundations for c in f} | {c for p in state.piles for c in p} | set(state.waste)
    unseen = [c for c in new_deck() if c not in in_sight]
    if len(unseen) != len(state.stock):
        raise ValueError(f"{len(unseen)} cards are out of sight but the stock holds {len(state.stock)}")
    rng = random.Random(f"estimate|{seed}|{view_of(state).key()}")
    wins = tried = 0
    while tried < deals and not (stopped is not None and stopped()):
        rng.shuffle(unseen)
        won, _ = blind_play(replace(state, stock=tuple(unseen)), seed)
        wins += won
        tried += 1
        if partial is not None and tried % ESTIMATE_BATCH == 0 and tried < deals:
            partial(wins, tried)
    return wins, tried
