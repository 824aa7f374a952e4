"""The "thoughtful" Calculation solver: it sees the stock order and searches for a winning line.

:func:`solve_calculation` works from any position and answers ``"won"`` (with the line, engine
moves including every ``d``), ``"lost"`` (a proof: the whole restricted tree was searched) or
``"unknown"`` (the time budget ran out). It verifies nothing; the façade replays every line.
``Game.search`` adds the *witnesses*: a long search left undecided asks the blind player (which
never reads the stock) for a won game from the position (``blind.witness``).

The search
----------
Suits never matter, so a position is the four foundation heights, the ranks on each pile, the
waste rank and how far into the stock the deal has gone. It is searched depth first with

* a transposition table keyed on ranks, the piles canonicalised as a multiset (sorted), bounded in
  entries (two generations: when the young one is full it becomes the old one and the old one is
  dropped), so that a process stays well under 500 MB;
* limited-discrepancy iterations: the children of a node are ordered by a heuristic (foundation
  plays first, then a deal, then placing the waste card on a pile whose top is the card's
  successor on a foundation that still needs both, and so on); the k-th child costs k - 1
  discrepancies (at most ``MAX_STEP``), and iteration ``a`` allows ``a`` of them along a line.
  The table stores, for a failed node, the largest allowance it failed with, or "proved" when
  no child was cut off, which the next iteration trusts as a loss;
* sound restrictions and prunes, each argued below. Only these can turn a node into a "lost".

The normal form (why the restrictions are sound)
------------------------------------------------
*Dealing at once.* When the waste is empty and the stock is not, the deal may be made before
any pile play: a pile play never depends on the waste card, so any line that plays first and
deals later can deal first and play the same cards after. The search deals at once then; the
turned card is the node's waste card.

*Exchange.* Call a card ``c`` of rank ``r`` *available to* foundation X when it is the waste card
or a pile top and X wants ``r`` next. Each foundation takes each rank exactly once (i, 2i, .. 13i
mod 13 is a permutation for i = 1..4), so between the moment ``c`` is available to X and the
moment a line plays ``c`` to X, X takes nothing. Hence the play can be moved earlier, to that
moment: cards the line put on ``c``'s pile meanwhile go on the pile without ``c`` and come off in
the same order, and nothing else changes. The position after the original play is reached again.

*Declining.* Take, among the winning lines from a node, one that minimises the sum over its
foundation plays of the number of deals made before the play. In such a line, a card available
to X just before a deal is never played to X after that deal (moving it before the deal would be
legal and smaller). So at each deal (and at the placing of the very last card on a pile) every
pile top gets a *declined* mark for every foundation that wants it then, and the search never
plays a marked card to a marked foundation. A covered card keeps its marks. The marks are part
of the transposition key (a pile's key is its cards with their marks), so a stored "lost" is
lost *under those marks*, which is all the argument needs: by induction on the cards left, a
node with a winning line that respects its marks leads the search to a win. The canonical line
does all the plays of pairs available before the waste card is put on a pile first (they commute
with the placing), so "place on a pile" and "deal" are one step of the search.

*Forced plays* (the last copy of a rank a foundation wants now is played at once,
generalised). Let N be the foundations that still need rank ``r`` (as many as copies of ``r``
not yet built). If every foundation of N wants ``r`` now and ``c`` of rank ``r`` is available,
every winning line plays ``c`` to one of N, and the minimal line above does so before the next
deal; moved to the front of its burst of plays (no deal crossed, nothing in the burst touches
that foundation) it is still winning. So the node's only children are the plays of ``c`` to the
unmarked members of N; with one, the play is made at once without branching. If every member
of N is marked for ``c``, ``c`` can never be built: the node is lost.

Prunes
------
*Dead card.* When a card ``c`` of rank ``r`` is put on a pile, consider each foundation X that
still needs ``r`` and has not declined ``c``: X must first take every rank its sequence has
between its height and ``r``. If for one of those ranks ``q`` all copies not yet built (as many
as the foundations still needing ``q``) lie beneath ``c`` in that pile, X cannot take ``c``:
``c`` leaves a pile only to a foundation, so the ``q`` beneath stays covered until X has passed
``r``. When no X can take ``c``, it is never built: lost.

*Single-pile relaxation.* Cards leave a pile from the top, and the cards a foundation takes
arrive in its order, so a pile can only be cleared if its cards, read top down, split into at
most one chain per foundation, each rising along that foundation's sequence from where it stands
(declined foundations excluded). Reading bottom up, the chains reachable are kept as the Pareto
front of "each foundation's lowest position used so far" (cached per pile, independent of the
foundations); the pile can be cleared only if a front member is at or above every foundation's
height. A pile that cannot be cleared means a card is never built: lost. Checked when a card is
put on a pile and, for every pile, at each deal (foundations only rise, so the test only gets
stricter).

Not used, because they lose winnable positions: playing a pile top as soon as a
foundation wants it, and always sending a turned card to a foundation that wants it. The
heuristic *tries* those first; it never relies on them.

The C core
----------
``_search.c`` (:class:`_CoreSearch`, chosen by :func:`make_search`) is a transcription of
:meth:`_Search.dfs` with everything it calls, the free-stock relaxation on revisits included:
the same nodes in the same order, so the same verdict, line and node count, and the same
soundness arguments (the ones above). It is optional (built when the machine has a C compiler;
MUSICAL_PURE_PYTHON turns it off) and about 35 times faster (``bench/calculation.py --player
speed``). The same module plays the blind player's rollouts (``rollouts``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from ...cards import Card
from ...cores import optional_core
from ...moves import DEAL, F, Move, P, Transfer, W
from .rules import SEQUENCES, Calculation, CalculationRules, CalculationState

# The deals' difficulty bands (musical_cli.advice.rating): rules -> the most nodes of an easy
# deal's win, of a medium one's; thirds of the winnable deals, measured by bench/difficulty.py
# from the winnability rows' files (docs/difficulty.md).
DIFFICULTY_BANDS = {
    CalculationRules(4, True): (1_816, 14_210),  # deals 1-10,000
    CalculationRules(4, False): (5_964, 58_036),  # deals 1-10,000
    CalculationRules(3, True): (11_164, 109_498),  # deals 1-10,000
}
# How many of the deals the bands were calibrated on the measure proves lost (docs/difficulty.md):
# no deal of Calculation is known to be lost (docs/undecided-deals.md).
DIFFICULTY_LOST = {rules: 0 for rules in DIFFICULTY_BANDS}

# The C core (_search.c): the same search node for node (:class:`_CoreSearch`), many times faster.
# It is built when the machine has a C compiler and is optional; MUSICAL_PURE_PYTHON (non-empty)
# turns it off, as for Musical's. CORE is None when the search runs in Python.
CORE = optional_core(__package__)

__all__ = ["solve_calculation", "TABLE_ENTRIES", "MAX_STEP", "CORE", "make_search"]

TABLE_ENTRIES = 600_000  # per generation; two generations: about 300 MB at the very most
# The free-stock relaxation costs much more than a node: it is tried at every step once at most
# RELAX_STOCK stock cards are left, and on any node met again after failing once.
RELAX_STOCK = -1
RELAX_REVISITS = False
MAX_STEP = 100  # the discrepancy cost of later children: the k-th costs k - 1, up to this

COMPLETE = 13
SEQ: tuple[tuple[int, ...], ...] = SEQUENCES
# POS[x][r]: where rank r stands in foundation x's sequence (0 = the base).
POS: tuple[tuple[int, ...], ...] = tuple(
    tuple(seq.index(r) if r else -1 for r in range(14)) for seq in SEQ
)
# WANT[x][h]: the rank foundation x wants at height h (0 when complete).
WANT: tuple[tuple[int, ...], ...] = tuple(tuple(seq) + (0,) for seq in SEQ)

# A move of the search: its kind (M_PF, M_WF, M_WP, M_DEAL), then the pile and foundation
# indexes it names.
Step = tuple[int, ...]
# A node of the search: the foundations' heights, the piles (packed), the waste card's rank (0:
# none) and how many stock cards are turned.
Node = tuple[tuple[int, ...], tuple[int, ...], int, int]

NEVER = 1000
PROVED = 1 << 30  # a stored allowance meaning "lost whatever the allowance"
WON, LOST, CUT = 1, 0, -1

# Internal moves.
M_DEAL = 0  # the time step with the waste empty: marks, then deal
M_PF = 1  # (M_PF, pile, foundation)
M_WF = 2  # (M_WF, foundation)
M_WP = 3  # (M_WP, pile): marks, place, then deal

# Five-bit fields (four value bits and a guard bit) for the relaxation's fronts.
GUARD = sum(16 << (5 * x) for x in range(4))
TOP = sum(13 << (5 * x) for x in range(4))


class _Timeout(Exception):
    pass


def _bits(mask: int) -> list[int]:
    return [x for x in range(4) if mask >> x & 1]


_FRONTS: dict[int, tuple[int, ...]] = {0: (TOP,)}
FRONTS_LIMIT = 300_000


def front(pile: int) -> tuple[int, ...]:
    """The single-pile relaxation's Pareto front for ``pile`` (one byte a card, bottom in the
    high bytes: rank in the low nibble, declined foundations in the high one). Each member packs,
    in five-bit fields, the lowest position each foundation's chain has used (13: none)."""
    got = _FRONTS.get(pile)
    if got is not None:
        return got
    below = front(pile >> 8)
    card = pile & 255
    out: set[int] = set()
    for field, value in _EXTEND[card]:
        for s in below:
            if value < s & field:
                out.add(s & ~field | value)
    # Keep the Pareto front: drop every member another one dominates (>= in every field).
    kept: list[int] = []
    for s in sorted(out, reverse=True):
        for t in kept:
            if ((t | GUARD) - s) & GUARD == GUARD:
                break
        else:
            kept.append(s)
    result = tuple(kept)
    if len(_FRONTS) >= FRONTS_LIMIT:
        _FRONTS.clear()
        _FRONTS[0] = (TOP,)
    _FRONTS[pile] = result
    return result


# _EXTEND[card]: for each foundation the card (rank and declined marks, as in a pile byte) may go
# to, its field mask and its position there, shifted into the field.
_EXTEND: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((15 << 5 * x, POS[x][card & 15] << 5 * x) for x in range(4) if not card >> (4 + x) & 1)
    if 1 <= card & 15 <= 13 else ()
    for card in range(256)
)


def clearable(pile: int, hpack: int) -> bool:
    """Can ``pile`` be cleared at all with the foundations at ``hpack`` (heights in five-bit
    fields)? (The single-pile relaxation: a necessary condition.)"""
    for s in front(pile):
        if ((s | GUARD) - hpack) & GUARD == GUARD:
            return True
    return False


def clearable_on(pile: int, rank: int, hpack: int) -> bool:
    """``clearable(pile << 8 | rank, hpack)``, from the front of ``pile`` alone: the new card
    starts or extends a chain on a foundation that still needs it, below where that chain stood.
    (The front of the taller pile is left to be built if a card ever goes on it.)"""
    for field, value in _EXTEND[rank]:
        for s in front(pile):
            if value < s & field:
                if (((s & ~field | value) | GUARD) - hpack) & GUARD == GUARD:
                    return True
    return False


_RELAXED: dict[tuple[int, ...], bool] = {}
RELAXED_LIMIT = 300_000


def relaxed_winnable(h: tuple[int, ...], piles: tuple[int, ...]) -> bool:
    """The free-stock relaxation: could the piles be cleared if every card not on a pile (the
    stock and the waste) were at hand whenever a foundation wants it? Cards put on piles later
    only cover more, and the real moves are moves of this game, so False means lost.

    Searched depth first with a memo of positions, and three sound shortcuts: a pile top whose
    every needing foundation wants it now is played to one of them (the forced-play argument
    of the module docstring); a foundation wanting a rank of which no copy lies on a pile takes
    a free copy at once (the copies are interchangeable and there is one for every foundation
    still needing that rank); a foundation is never given a free copy while a pile top of that
    rank is playable to it (give it the pile's card, and the free copy to whoever took that
    card: same counts, a pile uncovered sooner)."""
    got = _RELAXED.get((h[0] | h[1] << 4 | h[2] << 8 | h[3] << 12, *sorted(piles)))
    if got is not None:
        return got
    counts = [0] * 14
    for p in piles:
        while p:
            counts[p & 15] += 1
            p >>= 8
    free = [0] * 14
    for r in range(1, 14):
        need = (POS[0][r] >= h[0]) + (POS[1][r] >= h[1]) + (POS[2][r] >= h[2]) + (POS[3][r] >= h[3])
        free[r] = need - counts[r]
    if _greedy_clears(h, piles, free):
        return True
    if len(_RELAXED) >= RELAXED_LIMIT:
        _RELAXED.clear()
    got = _relaxed(h, piles, free, counts)
    key = (h[0] | h[1] << 4 | h[2] << 8 | h[3] << 12, *sorted(piles))
    _RELAXED[key] = got
    return got


def clear_caches() -> None:
    """Empty the module's memos (fronts, relaxation verdicts). They are keyed by piles and
    heights, so a new deal reuses little of them: a run over many deals calls this between deals
    to keep a worker's memory flat."""
    _FRONTS.clear()
    _FRONTS[0] = (TOP,)
    _RELAXED.clear()
    if CORE is not None:
        CORE.clear_fronts()  # the core's own cache of fronts


def _greedy_clears(heights: tuple[int, ...], tops: tuple[int, ...], free: list[int]) -> bool:
    """A quick witness for the relaxation: give each foundation a pile top it may take, else a
    free copy, while any does; True if that builds everything."""
    h = list(heights)
    piles = list(tops)
    free = free[:]
    progressed = True
    while progressed:
        progressed = False
        for x in range(4):
            r = WANT[x][h[x]]
            while r:
                for j, p in enumerate(piles):
                    if p & 15 == r and not p >> (4 + x) & 1 and p:
                        piles[j] = p >> 8
                        break
                else:
                    if free[r] <= 0:
                        break
                    free[r] -= 1
                h[x] += 1
                r = WANT[x][h[x]]
                progressed = True
    return h[0] == COMPLETE and h[1] == COMPLETE and h[2] == COMPLETE and h[3] == COMPLETE


def _relaxed(heights: tuple[int, ...], piles: tuple[int, ...], free: list[int], counts: list[int]) -> bool:
    # Free copies first: they never hurt (see above); then forced pile plays; then branch.
    h = list(heights)
    took: list[int] = []
    while True:
        progressed = False
        for x in range(4):
            r = WANT[x][h[x]]
            while r and not counts[r] and free[r] > 0:
                free[r] -= 1
                took.append(r)
                h[x] += 1
                r = WANT[x][h[x]]
                progressed = True
        if not progressed:
            break
    try:
        if h[0] == COMPLETE and h[1] == COMPLETE and h[2] == COMPLETE and h[3] == COMPLETE:
            return True
        ht = tuple(h)
        key = (ht[0] | ht[1] << 4 | ht[2] << 8 | ht[3] << 12, *sorted(piles))
        got = _RELAXED.get(key)
        if got is not None:
            return got
        w = [WANT[x][h[x]] for x in range(4)]
        moves: list[tuple[int, int]] = []  # (foundation, pile index or -1 for a free copy)
        forced = None
        for j, p in enumerate(piles):
            if not p:
                continue
            r = p & 15
            marks = p >> 4 & 15
            need = ((POS[0][r] >= h[0]) | (POS[1][r] >= h[1]) << 1
                    | (POS[2][r] >= h[2]) << 2 | (POS[3][r] >= h[3]) << 3)
            if not need & ~marks:
                _RELAXED[key] = False
                return False
            want = (w[0] == r) | (w[1] == r) << 1 | (w[2] == r) << 2 | (w[3] == r) << 3
            if want == need:
                forced = [(x, j) for x in range(4) if need >> x & 1 and not marks >> x & 1]
                break
            if any(piles[i] == p for i in range(j)):
                continue
            for x in range(4):
                if want >> x & 1 and not marks >> x & 1:
                    moves.append((x, j))
        if forced is not None:
            moves = forced
        else:
            covered = {x for x, _ in moves}
            for x in range(4):
                r = w[x]
                if r and x not in covered and free[r] > 0:
                    moves.append((x, -1))
        ok = False
        for x, j in moves:
            hh = ht[:x] + (ht[x] + 1,) + ht[x + 1:]
            if j < 0:
                r = w[x]
                free[r] -= 1
                ok = _relaxed(hh, piles, free, counts)
                free[r] += 1
            else:
                p = piles[j]
                r = p & 15
                counts[r] -= 1
                ok = _relaxed(hh, piles[:j] + (p >> 8,) + piles[j + 1:], free, counts)
                counts[r] += 1
            if ok:
                break
        _RELAXED[key] = ok
        return ok
    finally:
        for r in took:
            free[r] += 1


def pack_heights(h: Sequence[int]) -> int:
    return h[0] | h[1] << 5 | h[2] << 10 | h[3] << 15


class _Search:
    def __init__(self, stock: tuple[int, ...], budget: float | None,
                 progress: Callable[[int, float], None] | None, max_nodes: int | None = None):
        self.stock = stock
        self.max_nodes = max_nodes
        # next_at[k][r]: how many deals from position k until a card of rank r turns up (NEVER
        # when none is left); the ordering heuristic's view of the future.
        nxt = [NEVER] * 14
        table = [tuple(nxt)]
        for i in range(len(stock) - 1, -1, -1):
            nxt = [v + 1 for v in nxt]
            nxt[stock[i]] = 1
            table.append(tuple(nxt))
        table.reverse()
        self.next_at = table
        self.relax_stock = RELAX_STOCK
        self.relax_revisits = RELAX_REVISITS
        self.n = len(stock)
        self.nodes = 0
        self.start = time.perf_counter()
        self.deadline = None if budget is None else self.start + budget
        self.progress = progress
        self.young: dict[tuple[int, ...], int] = {}
        self.old: dict[tuple[int, ...], int] = {}
        self.path: list[Step] = []

    # --- bookkeeping ----------------------------------------------------------------------------
    def tick(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise _Timeout
        now = time.perf_counter()
        if self.progress is not None:
            self.progress(self.nodes, now - self.start)  # KeyboardInterrupt propagates
        if self.deadline is not None and now >= self.deadline:
            raise _Timeout

    def lookup(self, key: tuple[int, ...]) -> int:
        got = self.young.get(key)
        if got is None:
            got = self.old.get(key, -1)
        return got

    def store(self, key: tuple[int, ...], allow: int) -> None:
        young = self.young
        if key not in young and len(young) >= TABLE_ENTRIES:
            self.old = young
            self.young = young = {}
        if young.get(key, -1) < allow:
            young[key] = allow

    # --- the search ------------------------------------------------------------------------------------
    def dfs(self, h: tuple[int, ...], piles: tuple[int, ...], wr: int, k: int, allow: int) -> int:
        self.nodes += 1
        if not self.nodes & 255:
            self.tick()
        path = self.path
        mark = len(path)
        # Forced plays, made at once while there is exactly one.
        while True:
            if h[0] == COMPLETE and h[1] == COMPLETE and h[2] == COMPLETE and h[3] == COMPLETE:
                return WON
            w0, w1, w2, w3 = WANT[0][h[0]], WANT[1][h[1]], WANT[2][h[2]], WANT[3][h[3]]
            forced: list[tuple[int, ...]] | None = None
            if wr:
                want = (w0 == wr) | (w1 == wr) << 1 | (w2 == wr) << 2 | (w3 == wr) << 3
                if want:
                    need = ((POS[0][wr] >= h[0]) | (POS[1][wr] >= h[1]) << 1
                            | (POS[2][wr] >= h[2]) << 2 | (POS[3][wr] >= h[3]) << 3)
                    if need == want:
                        forced = [(M_WF, x) for x in _bits(want)]
            if forced is None:
                for j, p in enumerate(piles):
                    if not p:
                        continue
                    r = p & 15
                    need = ((POS[0][r] >= h[0]) | (POS[1][r] >= h[1]) << 1
                            | (POS[2][r] >= h[2]) << 2 | (POS[3][r] >= h[3]) << 3)
                    free = need & ~(p >> 4 & 15)
                    if not free:
                        del path[mark:]
                        return LOST  # a card every foundation that needs it has declined
                    want = (w0 == r) | (w1 == r) << 1 | (w2 == r) << 2 | (w3 == r) << 3
                    if want == need:
                        forced = [(M_PF, j, x) for x in _bits(free)]
                        break
            if forced is None or len(forced) > 1:
                break
            move = forced[0]
            path.append(move)
            h, piles, wr, k = self.play(h, piles, wr, k, move)
        # The transposition table.
        key = (h[0] | h[1] << 4 | h[2] << 8 | h[3] << 12 | wr << 16 | k << 20, *sorted(piles))
        got = self.lookup(key)
        if got >= allow:
            del path[mark:]
            return LOST if got == PROVED else CUT
        if got >= 0 and self.relax_revisits and not relaxed_winnable(h, piles):
            # Searched before and failed: worth the relaxation's price now.
            del path[mark:]
            self.store(key, PROVED)
            return LOST
        if forced is not None:
            children = forced
        else:
            children = self.children(h, piles, wr, k, (w0, w1, w2, w3))
        cut = False
        base = len(path)
        for i, move in enumerate(children):
            cost = i if i < MAX_STEP else MAX_STEP
            if cost > allow:
                cut = True
                break
            child = self.step(h, piles, wr, k, move)
            if child is None:
                continue  # pruned: proved lost
            path.append(move)
            got = self.dfs(*child, allow - cost)
            if got == WON:
                return WON
            del path[base:]
            if got == CUT:
                cut = True
        del path[mark:]
        self.store(key, allow if cut else PROVED)
        return CUT if cut else LOST

    def play(self, h: tuple[int, ...], piles: tuple[int, ...], wr: int, k: int, move: Step) -> Node:
        """A foundation play (from a pile or the waste)."""
        if move[0] == M_PF:
            _, j, x = move
            piles = piles[:j] + (piles[j] >> 8,) + piles[j + 1:]
        else:
            x = move[1]
            wr = 0
        h = h[:x] + (h[x] + 1,) + h[x + 1:]
        return h, piles, wr, k

    def step(self, h: tuple[int, ...], piles: tuple[int, ...], wr: int, k: int,
             move: Step) -> Node | None:
        """The child after ``move``, or None when a prune proves it lost."""
        kind = move[0]
        if kind == M_PF or kind == M_WF:
            return self.play(h, piles, wr, k, move)
        # A time step: mark every pile top declined for the foundations that want it now.
        wants = (WANT[0][h[0]], WANT[1][h[1]], WANT[2][h[2]], WANT[3][h[3]])
        new = []
        for p in piles:
            if p:
                r = p & 15
                want = (wants[0] == r) | (wants[1] == r) << 1 | (wants[2] == r) << 2 | (wants[3] == r) << 3
                if want:
                    p |= want << 4
            new.append(p)
        hpack = h[0] | h[1] << 5 | h[2] << 10 | h[3] << 15
        if kind == M_WP:
            j = move[1]
            r = wr
            want = (wants[0] == r) | (wants[1] == r) << 1 | (wants[2] == r) << 2 | (wants[3] == r) << 3
            below = new[j]
            if self.dead(h, below, r, want):
                return None
            new[j] = below << 8 | want << 4 | r
            wr = 0
        for p in new:
            if p and not clearable(p, hpack):
                return None
        if self.n - k <= self.relax_stock and not relaxed_winnable(h, tuple(new)):
            return None
        if k < self.n:
            wr = self.stock[k]
            k += 1
        return h, tuple(new), wr, k

    def dead(self, h: tuple[int, ...], below: int, r: int, marks: int) -> bool:
        """Is a card of rank r with these marks, put on ``below``, never to be built?"""
        if not below:
            return False
        counts = [0] * 14
        p = below
        while p:
            counts[p & 15] += 1
            p >>= 8
        for x in range(4):
            if marks >> x & 1:
                continue
            hx = h[x]
            end = POS[x][r]
            if end < hx:
                continue  # x does not need r
            seq = SEQ[x]
            for pos in range(hx, end):
                q = seq[pos]
                c = counts[q]
                if c and c == ((POS[0][q] >= h[0]) + (POS[1][q] >= h[1])
                               + (POS[2][q] >= h[2]) + (POS[3][q] >= h[3])):
                    break  # every copy of q x still needs lies under the card
            else:
                return False  # x may take it
        return True

    def children(self, h: tuple[int, ...], piles: tuple[int, ...], wr: int, k: int,
                 wants: tuple[int, int, int, int]) -> list[Step]:
        """Every move worth trying, best first (the heuristic's order)."""
        plays: list[Step] = []
        for j, p in enumerate(piles):
            if not p:
                continue
            r = p & 15
            marks = p >> 4 & 15
            for x in range(4):
                if wants[x] == r and not marks >> x & 1:
                    if any(piles[i] == p for i in range(j)):
                        break  # the same pile again: the same children
                    plays.append((M_PF, j, x))
        if wr:
            for x in range(4):
                if wants[x] == wr:
                    plays.append((M_WF, x))
            return plays + self.places(h, piles, wr, k)
        if k < self.n:
            return plays + [(M_DEAL,)]
        return plays


    def places(self, h: tuple[int, ...], piles: tuple[int, ...], c: int, k: int) -> list[Step]:
        """The placings of the waste card (rank c), best first. The heuristic knows the stock:
        a foundation can reach a position no sooner than every rank before it is at hand (on a
        pile top now, or when the stock next turns one up; buried copies count as late). A
        placing costs nothing when the card goes right before the pile top on some foundation,
        else the delay it may cause: how much later the card can leave than the top is wanted."""
        avail = list(self.next_at[k])
        for r in range(1, 14):
            if avail[r] == NEVER:
                avail[r] = LATE  # only buried copies are left
        for p in piles:
            if p:
                avail[p & 15] = 0
        # reach[x][pos]: the earliest foundation x could take the card at pos.
        when = [NEVER] * 14
        for x in range(4):
            seq = SEQ[x]
            m = 0
            for pos in range(h[x], 13):
                r = seq[pos]
                if m < when[r]:
                    when[r] = m
                a = avail[r]
                if a > m:
                    m = a
        scored = []
        seen = set()
        for j, p in enumerate(piles):
            if p in seen:
                continue
            seen.add(p)
            if not p:
                cost = 0 if c == 13 else EMPTY
            else:
                t = p & 15
                cost = -1
                for x in range(4):
                    pc = POS[x][c]
                    if pc >= h[x] and POS[x][t] == pc + 1:
                        cost = 0
                        break
                if cost < 0:
                    if c == 13 and t == 13:
                        cost = 0
                    else:
                        delay = when[c] - when[t]
                        cost = 1 + (delay if delay > 0 else 0)
            scored.append((cost, j))
        scored.sort()
        return [(M_WP, j) for _, j in scored]


class _Core(Protocol):
    """What the search asks of the C core's search object (``CORE.Core``)."""

    def dfs(self, search: _Search, heights: bytes, piles: tuple[bytes, ...], wr: int, k: int,
            allow: int) -> int: ...

    def line(self) -> list[Step]: ...

    def tt_size(self) -> tuple[int, int]: ...


class _CoreSearch(_Search):
    """:class:`_Search` whose :meth:`dfs` runs in the C core: the same nodes in the same order,
    so the same verdict, line and node count (tests/test_calculation_core.py checks it). The
    core keeps its own transposition table (the same two generations of TABLE_ENTRIES), kept
    across calls as this class's dicts are; ``tick`` is this object's, called every 256 nodes.
    The free-stock relaxation on revisits (``relax_revisits``) is in the core too; on the last
    RELAX_STOCK stock cards it is not (:func:`make_search` gives the Python search then)."""

    def __init__(self, stock: tuple[int, ...], budget: float | None,
                 progress: Callable[[int, float], None] | None, max_nodes: int | None = None):
        super().__init__(stock, budget, progress, max_nodes)
        self.core: _Core | None = None

    def dfs(self, h: tuple[int, ...], piles: tuple[int, ...], wr: int, k: int, allow: int) -> int:
        if self.core is None:  # the number of piles is the position's
            assert CORE is not None, "make_search makes a _CoreSearch only where the core is built"
            self.core = CORE.Core(bytes(self.stock), len(piles), TABLE_ENTRIES, self.relax_revisits)
        packed = tuple(p.to_bytes((p.bit_length() + 7) >> 3, "big") for p in piles)
        got = self.core.dfs(self, bytes(h), packed, wr, k, allow)
        self.path[:] = self.core.line() if got == WON else ()
        return got

    def tt_size(self) -> tuple[int, int]:
        return self.core.tt_size() if self.core is not None else (0, 0)


def make_search(stock: tuple[int, ...], budget: float | None,
                progress: Callable[[int, float], None] | None = None, max_nodes: int | None = None,
                core: bool = True, relax: bool = False) -> _Search:
    """The search against this stock order: the C core's when it is built (and ``core``), else
    the Python one. ``relax``: the free-stock relaxation on revisits, as :class:`RankSolver`
    uses it."""
    if core and CORE is not None and RELAX_STOCK < 0:
        search: _Search = _CoreSearch(stock, budget, progress, max_nodes)
    else:
        search = _Search(stock, budget, progress, max_nodes)
    if relax:
        search.relax_stock = -1
        search.relax_revisits = True
    return search


LATE = 30  # the heuristic's guess of when a buried card is at hand
EMPTY = 3


def _ranks(cards: Iterable[Card]) -> tuple[int, ...]:
    return tuple(c.rank for c in cards)


def _engine_line(path: list[Step], root_waste: bool, root_deal: bool) -> tuple[Move, ...]:
    out: list[Move] = []
    if root_deal:
        out.append(DEAL)
    for move in path:
        kind = move[0]
        if kind == M_PF:
            out.append(Transfer(P(move[1] + 1), F(move[2] + 1)))
        elif kind == M_WF:
            out.append(Transfer(W, F(move[1] + 1)))
        elif kind == M_WP:
            out.append(Transfer(W, P(move[1] + 1)))
            out.append(DEAL)
        else:
            out.append(DEAL)
    # A step's deal is only made when the stock had a card: drop a trailing deal past the end.
    return tuple(out)


def solve_calculation(state: CalculationState, budget: float | None,
                      progress: Callable[[int, float], None] | None = None,
                      max_nodes: int | None = None, core: bool = True) -> tuple[str, tuple[Move, ...], int]:
    """Search ``state`` (any Calculation position) with the stock order known.

    Returns ``(result, moves, nodes)``: ``result`` is "won" (``moves`` is a winning line from
    ``state``, engine moves with every ``d``), "lost" (no line wins; ``moves`` is empty) or
    "unknown" (``budget`` seconds or ``max_nodes`` nodes ran out; None means no limit). ``progress(nodes, seconds)`` is
    called now and then; whatever it raises (KeyboardInterrupt to cancel) propagates.
    Deterministic: the same position always gives the same answer and line (budget permitting),
    with the C core or without (``core`` False: the Python search, the reference).
    """
    h = tuple(len(f) for f in state.foundations)
    stock = _ranks(state.stock)
    piles = []
    for pile in state.piles:
        p = 0
        for card in pile:
            p = p << 8 | card.rank
        piles.append(p)
    root_deal = False
    if state.waste:
        wr = state.waste[-1].rank
    elif stock:
        wr, stock = stock[0], stock[1:]
        root_deal = True
    else:
        wr = 0
    search = make_search(stock, budget, progress, max_nodes, core)
    try:
        got = _iterate(search, (h, tuple(piles), wr, 0))
    except _Timeout:
        return "unknown", (), search.nodes
    if got == WON:
        line = _engine_line(search.path, bool(state.waste), root_deal)
        return "won", _fix_deals(line, len(state.stock)), search.nodes
    return "lost", (), search.nodes


def _iterate(search: _Search, root: Node, allow: int = 0) -> int:
    """Limited-discrepancy iterations from ``root`` (starting with ``allow`` discrepancies) until
    a win or a proof of loss."""
    while True:
        search.path.clear()
        got = search.dfs(*root, allow)
        if got != CUT:
            return got
        allow += 1


class RankSolver:
    """Solves positions given by ranks against one known stock order, sharing one table (the
    blind player asks it about several options for each sampled order). Piles are rank tuples,
    bottom first; ``waste`` is a rank or 0 (then the next stock card is dealt first); the stock
    is top first. ``max_nodes`` bounds each question; past it the answer is "unknown"."""

    def __init__(self, stock: Iterable[int], max_nodes: int | None = None, lds: bool = True,
                 relax: bool = True, core: bool = True):
        self.stock = tuple(stock)
        self.allow = 0 if lds else PROVED - 1
        self.max_nodes = max_nodes
        # relax: the positions asked about are small and often lost: relax on revisits
        self.search = make_search(self.stock, None, None, max_nodes, core, relax)

    def solve(self, heights: Sequence[int], piles: Iterable[Sequence[int]], waste: int) -> str:
        search = self.search
        search.nodes = 0
        packed = []
        for pile in piles:
            p = 0
            for r in pile:
                p = p << 8 | r
            packed.append(p)
        k = 0
        if not waste and self.stock:
            waste, k = self.stock[0], 1
        try:
            got = _iterate(search, (tuple(heights), tuple(packed), waste, k), self.allow)
        except _Timeout:
            return "unknown"
        return "won" if got == WON else "lost"


def _fix_deals(line: tuple[Move, ...], stock: int) -> tuple[Move, ...]:
    """Keep only as many deals as the stock has cards (a placing step deals only if it can)."""
    out: list[Move] = []
    left = stock
    for move in line:
        if move == DEAL:
            if left == 0:
                continue
            left -= 1
        out.append(move)
    return tuple(out)


def search(state: CalculationState, budget: float | None,
           progress: Callable[[int, float], None] | None = None,
           nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
    """The game's hook (``Game.search``): :func:`solve_calculation`. (``Game.search`` then asks
    the blind player for a witness where this leaves a long search undecided: ``blind.witness``.)"""
    return solve_calculation(state, budget, progress, nodes)


def sure_move(game: Calculation, state: CalculationState) -> Move | None:
    """A move that keeps a winnable position winnable, read from what the player sees; None when
    neither rule holds. The shell's ``auto`` adds the visible rules of :mod:`.blind`.

    1. The deal, when the waste is empty (it is legal only then, with cards in the stock): the
       search's *dealing at once* (this module's docstring). The shell turns that card up by
       itself; batch mode does not.
    2. The only legal move up to the order of the piles: when every legal move leads to the same
       position but for which pile holds what, the first of them.

    The four (or three) piles are alike: the rules never tell one from another, so two positions
    that differ only in the order of the piles, or in the suits (which never matter), are won or
    lost alike, a line of one being a line of the other with the piles renamed. When every
    legal move leads to such a position, one of them keeps a winnable position winnable (some
    move does), and so they all do. The positions are compared by what the player sees: the
    foundations, the piles, the waste card, and how many cards the stock holds (no move here
    touches the stock, so it is the same after each): the stock stays hidden. This is the first
    card of every game that fits no foundation, with every pile empty: 'w p1' is as good as any
    placing. The only legal move is the case of one move."""
    legal = game.legal_moves(state)
    if DEAL in legal:
        return DEAL
    if len(legal) <= 1:
        return legal[0] if legal else None
    shapes = {_shape(game.apply(state, move)) for move in legal}
    return legal[0] if len(shapes) == 1 else None


def _shape(state: CalculationState) -> tuple:
    """A position by ranks, the piles in no order: what one move must match in another."""
    return (tuple((len(f), f[-1].rank if f else 0) for f in state.foundations),
            tuple(sorted(_ranks(pile) for pile in state.piles)), _ranks(state.waste), len(state.stock))
