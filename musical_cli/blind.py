"""The blind Calculation player: it plays from what a player at the table can see.

It sees the foundations, every card of the waste piles, the waste card, how many cards the stock
holds and therefore the multiset of the cards not yet seen (all 52 less the visible ones). It
never reads the stock itself: :func:`view_of` is the only place that touches a state, and of the
stock it takes only the length. With the waste empty it simply turns the next card (``d``):
every pile play stays available with the card turned, so turning first only adds knowledge.

Choosing a move (:func:`blind_move`): the candidate moves are scored by Monte-Carlo over
shuffles of the unseen cards, with common random numbers (the same shuffles for every option):

* while many cards are unseen, each shuffle is played out by a fast placing heuristic (the
  rollout policy, :func:`_place` and :func:`_greedy`), scoring a win as 1 plus a small share for
  every card built, so that options still separate when few rollouts win;
* once few are unseen (``PIMC_UNSEEN``), each shuffle is solved exactly by the thoughtful solver
  (perfect-information Monte-Carlo): an option scores the shuffles it wins;
* with nothing unseen, the thoughtful solver plays the end exactly.

Everything is deterministic for a given view and seed: the shuffles come from a generator seeded
by the seed and the view, and the budgets are counts (rollouts, solver nodes), never seconds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .calculation import CALCULATION, SEQUENCES, CalculationState
from .game import Outcome
from .moves import DEAL, F, Move, P, Transfer, W
from .solve_calculation import RankSolver, clearable, pack_heights, solve_calculation

__all__ = [
    "View", "view_of", "blind_move", "blind_play", "hint_calculation", "safe_calculation_moves",
    "heuristic_move",
]

SEQ = SEQUENCES
POS: tuple[tuple[int, ...], ...] = tuple(tuple(seq.index(r) if r else -1 for r in range(14)) for seq in SEQ)
WANT: tuple[tuple[int, ...], ...] = tuple(tuple(seq) + (0,) for seq in SEQ)

ROLLOUTS = 64  # shuffles per decision by default
HINT_ROLLOUTS = 24
PIMC_UNSEEN = 12  # solve the shuffles exactly once at most this many cards are unseen
PIMC_NODES = 3000  # solver nodes per option and shuffle in that phase
PIMC_LDS = 1
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
# whose single-pile relaxation (``clearable``) the heuristic uses to refuse a placing that makes a
# pile impossible to clear.

# SUCC[c][t]: the foundations on which rank t comes right after rank c.
SUCC: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << x for x in range(4) if c and t and POS[x][t] == POS[x][c] + 1) for t in range(14))
    for c in range(14)
)
EMPTY_COST = 5.0


def _pack(pile: Sequence[int]) -> int:
    p = 0
    for r in pile:
        p = p << 8 | r
    return p


def _wait(h: Sequence[int], r: int) -> int:
    """How many cards the foundation that will want rank r soonest still takes before it."""
    best = 99
    for x in range(4):
        d = POS[x][r] - h[x]
        if 0 <= d < best:
            best = d
    return best


def _score(h: Sequence[int], c: int, p: int) -> float:
    """The cost of putting a card of rank c on pile p (an int); lower is better."""
    if not p:
        return 0.0 if c == 13 else EMPTY_COST
    t = p & 15
    succ = SUCC[c][t]
    if succ:
        for x in range(4):
            if succ >> x & 1 and POS[x][c] >= h[x]:
                return 0.0  # c then t, one after the other on foundation x
    if c == 13 and t == 13:
        return 0.0
    wc, wt = _wait(h, c), _wait(h, t)
    if wc < wt:
        return 1.0 + (wt - wc) * 0.1
    return 10.0 + (wc - wt)


def _best_pile(h: Sequence[int], piles: Sequence[int], c: int) -> int:
    """The pile to put a card of rank c on: the cheapest whose pile stays clearable."""
    scored = sorted((_score(h, c, p), j) for j, p in enumerate(piles))
    hpack = pack_heights(h)
    for _, j in scored:
        p = piles[j]
        if not p or clearable(p << 8 | c, hpack):
            return j
    return scored[0][1]


def _foundation_for(h: Sequence[int], piles: Sequence[int], xs: list[int]) -> int:
    """Of the foundations in xs (all wanting the same rank), the one to play to: one whose next
    card is on a pile top, else the first."""
    if len(xs) == 1:
        return xs[0]
    for x in xs:
        nxt = WANT[x][h[x] + 1]
        for p in piles:
            if p and p & 15 == nxt:
                return x
    return xs[0]


def _greedy(h: list[int], piles: list[int]) -> None:
    """Play pile tops to foundations that want them, until none does."""
    moved = True
    while moved:
        moved = False
        w0, w1, w2, w3 = WANT[0][h[0]], WANT[1][h[1]], WANT[2][h[2]], WANT[3][h[3]]
        for j, p in enumerate(piles):
            if p:
                t = p & 15
                if t == w0 or t == w1 or t == w2 or t == w3:
                    xs = [x for x in range(4) if WANT[x][h[x]] == t]
                    h[_foundation_for(h, piles, xs)] += 1
                    piles[j] = p >> 8
                    moved = True
                    break


def _place(h: list[int], piles: list[int], c: int) -> None:
    if c == WANT[0][h[0]] or c == WANT[1][h[1]] or c == WANT[2][h[2]] or c == WANT[3][h[3]]:
        xs = [x for x in range(4) if WANT[x][h[x]] == c]
        h[_foundation_for(h, piles, xs)] += 1
    else:
        j = _best_pile(h, piles, c)
        piles[j] = piles[j] << 8 | c


def _rollout(h: Sequence[int], piles: Sequence[int], waste: int, order: Sequence[int]) -> float:
    hh = list(h)
    pp = list(piles)
    if waste:
        _greedy(hh, pp)
        _place(hh, pp, waste)
    for c in order:
        _greedy(hh, pp)
        _place(hh, pp, c)
    _greedy(hh, pp)
    built = hh[0] + hh[1] + hh[2] + hh[3]
    return (1.0 if built == 52 else 0.0) + BUILT_SHARE * built / 52


# --- options ----------------------------------------------------------------------------------------------


def _options(v: View) -> list[tuple[Move, tuple[int, ...], tuple[tuple[int, ...], ...], int]]:
    """The distinct legal moves, each with the position it leads to (heights, piles, waste)."""
    out = []
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
            xs = [x for x in range(4) if h[x] < 13 and WANT[x][h[x]] == p[-1]]
            if xs:
                return Transfer(P(j + 1), F(_foundation_for(h, piles, xs) + 1))
    if v.waste:
        xs = [x for x in range(4) if h[x] < 13 and WANT[x][h[x]] == v.waste]
        if xs:
            return Transfer(W, F(_foundation_for(h, piles, xs) + 1))
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
    options = _options(v)
    if len(options) == 1:
        return options[0][0]
    return _choose(v, options, seed, rollouts)


def _choose(v: View, options, seed: int, rollouts: int) -> Move:
    orders = _shuffles(v, seed, rollouts)
    if v.stock <= PIMC_UNSEEN:
        totals = [0.0] * len(options)
        for order in orders:
            solver = RankSolver(order, PIMC_NODES, bool(PIMC_LDS))
            for i, (_, h, piles, waste) in enumerate(options):
                got = solver.solve(h, piles, waste)
                totals[i] += 1.0 if got == "won" else 0.5 if got == "unknown" else 0.0
    else:
        totals = [0.0] * len(options)
        for i, (_, h, piles, waste) in enumerate(options):
            packed = [_pack(p) for p in piles]
            totals[i] = sum(_rollout(h, packed, waste, order) for order in orders)
    # Ties go to the heuristic's own choice, then to the first option.
    preferred = heuristic_move(v)
    best = max(range(len(options)), key=lambda i: (totals[i], options[i][0] == preferred, -i))
    return options[best][0]


def blind_play(state: CalculationState, seed: int = 0, rollouts: int = ROLLOUTS) -> tuple[bool, tuple[Move, ...]]:
    """Play a whole game blind from ``state``: (won, the moves made)."""
    moves: list[Move] = []
    while True:
        move = blind_move(state, seed, rollouts)
        if move is None:
            return CALCULATION.outcome(state) is Outcome.WON, tuple(moves)
        state = CALCULATION.apply(state, move)
        moves.append(move)


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
    at_hand: dict[int, list] = {}
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
