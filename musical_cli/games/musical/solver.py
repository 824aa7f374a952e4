"""The Musical search: exact winnability of any position, for any number of redeals.

Suits never matter, so everything here works on ranks. The position is read as one sequence
``seq`` of the cards still to build, in the order they come out of the stock: the waste bottom
first, then the stock top first. The first ``p`` of them are the waste (its top is ``seq[p-1]``);
dealing moves ``p`` on by one; a redeal sets ``p`` back to 0, since turning the waste over keeps
the order. Playing the waste top removes ``seq[p-1]``.

**The assignment view** (the key fact). Every rank occurs at most once in each
foundation's sequence, and each rank has exactly as many copies left as foundations still needing
it (44 cards for 44 slots). So a win is an *assignment*: every remaining card goes to one
foundation that needs its rank, a bijection per rank. For a fixed assignment A, playing each card
as soon as it is the waste top and its foundation wants it ("asap") is optimal. Exchange argument:
align any winning line W and asap(A) on the deal counter (pass k, card i of the original order).
By induction asap has played a superset of W's cards, so its waste is a subset of W's waste in the
same order, and every foundation is at least as high. When W plays its waste top c to A(c) = X,
either asap has played c already, or c lies in asap's (smaller) waste and is therefore its top;
X's slot for c can be filled by c alone, so asap's X is exactly at that slot and asap would have
played c at once, a contradiction. Hence asap(A) wins whenever some line with assignment A wins,
and it is deterministic given (seq, p, heights, A).

**The exhaustive search** follows asap(A) for all A at once. It deals until the waste top c is
wanted *now* by a foundation in c's *allowed set* (initially every foundation still needing its
rank), and branches: play c to one such X, or never play c to any foundation that wants it now
(remove them from its allowed set) and deal on. For every A consistent with the allowed sets the
path of asap(A) is one branch: if A(c) wants c now asap plays it there; otherwise A(c) stays
allowed. So the search is complete, and "lost" means that no assignment wins.

Pruning rules, each sound because it only removes branches on which no asap(A) of a winning A
can lie:

1. *Per-rank matching.* A is a bijection per rank between the remaining copies and the
   foundations still needing the rank, within the allowed sets. With at most 4 copies we
   enumerate the perfect matchings; no matching means lost; otherwise each copy's allowed set is
   cut down to the foundations it gets in *some* perfect matching (a winning A is one of them).
2. *No play in a whole pass.* If a pass that started with a redeal ends without a play, asap(A)
   is back in the same (seq, p=0, heights), so it would loop for ever: A does not win. This is
   also what bounds the search when redeals are unlimited (at most 44 passes with plays).
3. *Relaxed simulation.* A card leaves the waste top whenever *some* allowed foundation has
   reached (or passed) its slot, and then fills its slot on *every* allowed foundation; relaxed
   heights skip filled slots. By induction over the real moves (aligned on the deal counter),
   the relaxed remaining cards are a subset of any real line's remaining cards and the relaxed
   filled slots a superset of the real ones (a real play of top c to X finds c either already
   gone in the relaxation, its slot on X then filled since X was allowed, or on the relaxed top
   with X at or past that slot, so removable). If the relaxation cannot finish within the
   passes left (or has a pass without removal), no real line can: prune. With rule 1's
   allowed sets a card that only one foundation can take fills only that slot, so this also
   bounds the passes each foundation's own cards force.
4. *Transposition table*, keyed on ranks and allowed sets (never suits) of the sequence, ``p`` and
   the heights; the value is the largest number of redeals left with which the position was
   proved lost (fewer redeals are lost too). Only complete proofs are stored. Bounded: two
   generations of at most ``TT_MAX`` entries; when the young one is full the old one is dropped.
   Whether a play happened in the current pass (rule 2) is not in the key, and need not be: on
   the path of a winning asap(A) rule 2 never fires, so a stored loss never depended on it.
5. *Last pass: stuck above the missing card* (:meth:`Search.stuck_prune`). With no redeal left,
   a card c that goes onto the waste while its foundation X is below c's slot stays there until
   X reaches that slot, and nothing under c can be played before. If a slot of X under c's is
   still empty and every card that could fill it lies under c (none comes after c in the
   sequence), X can never take c: X leaves c's allowed set (then rule 1 again, and rule 3).
   Checked along the relaxation of rule 3, which is optimistic (the real heights are no higher
   and the real waste holds every card the relaxed one does), so a certificate found there holds
   in every real line.
   *5b, with redeals left* (at most ``STUCK_PASSES``): the same certificates on the relaxation's
   last pass. A card the relaxation still holds when its last pass begins is still there in
   every real line (rule 3's invariant), so it can only be played in the real last pass; it is
   dealt there at the same point of the original order, with the real heights no higher than
   the relaxed ones, and the cards after it in the real last pass are among the cards after it
   in today's sequence (the order never changes): "after c" is read in the whole sequence.

6. *Splitting on the slowest foundations* (:meth:`Search.run` with ``split``). Every winning assignment
   fills each slot of a foundation X with one copy of the slot's rank that still allows X; so
   trying, for one slot at a time, each such copy as *the* one (its set becomes {X}, the other
   copies lose X), then rules 1, 3 and 5, and at the end the search above, is complete in any
   order of the slots. Pinned cards make the relaxation of rule 3 exact for that foundation,
   which is what proves deals whose loss comes from two slow foundations competing for the
   same passes. The foundations split on are the two whose own cards need the most passes
   when each is taken at its first copy after the previous one; within a foundation the slot
   with the fewest copies that survive pinning goes first (fail first).

7. *Each foundation alone* (:meth:`Search.chains_ok`, with one redeal left: ``CHAIN_PASSES``, in
   a search that starts with at most one).
   Rule 3 lets a card that leaves for one foundation fill its slot on every allowed one, even
   on a foundation far below that slot, which then skips it later for free; this rule looks at
   one foundation X at a time instead. A card whose allowed set is {X} is *forced* (every
   winning A sends it to X, and by rule 1 no other copy of its rank allows X); one allowing X
   and others is *transparent*; the rest are ignored. Relaxed game R_X: forced cards sit on a
   waste of their own and block the candidates under them; a transparent card blocks nothing
   and X may take it when X reaches its slot, provided no forced card lies on it; X takes any
   such card as soon as it can (greedy is best here: a higher X only helps); when the passes
   left run out with X incomplete, or, in the last pass, a forced card lands on a forced card
   of a lower slot of X, R_X fails. Then no winning A passes here: along asap(A), aligned on
   the deal counter, by induction X's height in R_X is at least the real one and R_X's forced
   waste is part of the real waste (a forced card is pushed only when R_X's X is below its
   slot, so the real one is too; when the real X plays it from the real top, the forced cards
   dealt after it are gone from the real waste, so from R_X's, and R_X's X, at least as high
   and unable to pass that slot without it, is exactly there and plays it). A card the real
   X takes from the real top is, in R_X, dealt now, or already taken, or on R_X's waste under
   no forced card (one would lie on it in the real waste too); so R_X fills the slot no later.
   At a redeal both turn their wastes over, R_X keeping only the candidates for slots X has
   not passed, in the same order. So the real X is complete no sooner than R_X's. (In the
   last pass the rule cuts about 5% more nodes but costs about a fifth more time; with one
   redeal left it cuts where the search is widest: deal 16, the exhaustive search alone, from
   770,306 nodes to 373,939.)

The *local search* looks for a winning assignment directly: a move swaps the foundations of two
copies of a rank, the score is the number of cards asap plays, and after a while without a new
best it restarts, mostly from the best assignment so far kicked by a few random swaps (iterated
local search), else from a random one; a seeded ``random.Random``. It finds quickly most of the
wins the exhaustive search is slow to reach, and can never prove a loss.

*The portfolio* (:func:`solve_position`): a short exhaustive search (300 decisions), a short
local search (2000 assignments), then one exhaustive search to the end with slices of local
search run every so many nodes (more often the more redeals are left, since wins are then the
rule), less and less often as the search goes on (the wins it finds come early; a proof of loss
needs the exhaustive search to the end). With two redeals or more, after ``SPLIT_AFTER`` nodes
the exhaustive search gives way to rule 6, which proves the rare loss there far sooner. Slices
are counted in nodes, not seconds, so the answer and the line are the same on every run unless
the budget runs out. With unlimited
redeals every consistent position is won (any copy a foundation wants can be dealt round to the
top), and the first dive finds it.

*The C core* (``_search.c``, :class:`CoreSearch`): the exhaustive search above, rule 6's split
included, transcribed to C node for node: the same branches in the same order, the same
transposition table, the same node count and the same ticks of the clock, so the same verdict
and line; the tests compare the two on many positions, and the soundness arguments above are the
ones it relies on. It is about 60 times faster (1.4 million nodes a second here), which decides
every deal of 1-1000 at one redeal. It is built when the machine has a C compiler, else the
package installs without it and this module's Python search runs; ``MUSICAL_PURE_PYTHON=1``
turns it off. With it the local search (Python either way) runs ``CORE_SIDE_SCALE`` times fewer
nodes apart, to keep its share of the time.

Every line found is turned into engine moves and replayed by :mod:`musical_cli.solver` before
it is reported.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import accumulate, islice
from operator import or_

from ...cores import optional_core
from ...moves import DEAL, REDEAL, F, Move, Transfer, W
from .rules import FOUNDATION_SIZE, FOUNDATIONS, SEQUENCES, Musical, MusicalRules, MusicalState

# The deals' difficulty bands (musical_cli.advice.rating): rules -> the most nodes of an easy
# deal's win, of a medium one's; thirds of the winnable deals of 1-10,000, measured by
# bench/difficulty.py (docs/difficulty.md). With no redeal one deal of 10,000 is winnable
# (4975): too few to cut in thirds, so every win there is hard.
DIFFICULTY_BANDS = {
    MusicalRules(2): (49, 479),
    MusicalRules(1): (1_216, 11_151),
    MusicalRules(0): (0, 0),
}
# How many of the deals the bands were calibrated on the measure proves lost (docs/difficulty.md).
DIFFICULTY_LOST = {
    MusicalRules(2): 6,
    MusicalRules(1): 6_358,
    MusicalRules(0): 9_999,
}

# The C core (_search.c): the same exhaustive search node for node, many times faster. It is
# built when the machine has a C compiler and is optional; MUSICAL_PURE_PYTHON (non-empty) turns
# it off. CORE is None when the search runs in Python.
CORE = optional_core(__package__)

SLOTS = FOUNDATION_SIZE - 1  # 11 cards to build on each foundation
NEED = tuple(seq[1:] for seq in SEQUENCES)  # NEED[X][j]: rank of foundation X's j-th built card
# SLOT[X][r]: the index j with NEED[X][j] == r, or -1 when foundation X never takes rank r.
SLOT = tuple(tuple(need.index(r) if r in need else -1 for r in range(14)) for need in NEED)
BITS = tuple(tuple(x for x in range(FOUNDATIONS) if m >> x & 1) for m in range(16))
POPCOUNT = tuple(bin(m).count("1") for m in range(16))
UNLIMITED = 1 << 30  # redeals left when the rules allow any number
TT_MAX = 400_000  # entries per generation of the transposition table
SIDE_DECAY = 256  # ticks (of 256 nodes) after which the local search's share halves
STUCK_PASSES = 1  # rule 5b: the stuck certificates with at most this many redeals left
SPLIT_DEPTH = 2  # rule 6: the number of foundations split on
# rule 7 (each foundation's own chain) with these numbers of redeals left: in the last pass it
# cuts about 5% more nodes but costs about a fifth more time (deals 3, 6, 10, 16 at one redeal)
CHAIN_PASSES = (1,)
SPLIT_AFTER = 250_000  # nodes of chronological search before rule 6's split, with 2+ redeals
# The C core's nodes cost about a sixtieth of Python's, so with it the local search's slices
# (Python either way) come this many times fewer nodes apart, with 0, 1, 2+ redeals left. At one
# redeal the local search adds little beside the core (deals 1-200, 10 s each: 64 s of CPU in
# all with 16, 44 s with 64, 39 s with 256, 38 s without it; the same 58 wins); at two it still
# finds the odd win first (deal 890: 2.3 s with 16, 4.4 s with 64).
CORE_SIDE_SCALE = (64, 64, 16)

DEAL_MOVE = -1
REDEAL_MOVE = -2
# RS[code]: for a card code (rank << 4 | allowed mask), the (foundation, slot) pairs it may fill.
RS = tuple(
    tuple((x, SLOT[x][code >> 4]) for x in BITS[code & 15]) if 1 <= code >> 4 <= 13 else ()
    for code in range(14 * 16)
)


# Rule 3's bit-parallel tables (see Search.relaxed_ok): 12 bits per foundation.
ONES = sum(1 << 12 * x for x in range(FOUNDATIONS))
LOW = tuple(tuple(((1 << j) - 1) << 12 * x for j in range(SLOTS + 1)) for x in range(FOUNDATIONS))
ALL_SLOTS = sum(((1 << SLOTS) - 1) << 12 * x for x in range(FOUNDATIONS))
# BELOW[code]: the slots under the card's slot on each allowed foundation (rule 5).
BELOW = tuple(sum(((1 << s) - 1) << 12 * x for x, s in RS[code] if s >= 0) for code in range(14 * 16))
FIELD = tuple(0xFFF << 12 * x for x in range(FOUNDATIONS))
PV = tuple(sum(1 << (12 * x + s) for x, s in RS[code] if s >= 0) for code in range(14 * 16))


class Timeout(Exception):
    """The budget ran out."""


class Limit(Exception):
    """A search phase used up its node allowance (not the whole budget)."""


_MATCH_CACHE: dict[tuple[int, tuple[int, ...]], tuple[int, ...] | None] = {}
_UNMATCHED: tuple[int, ...] = (-1,)  # not in the memo (no answer of match() is this very tuple)


def clear_caches() -> None:
    """Empty the matching memo; a run over many deals calls this between deals."""
    _MATCH_CACHE.clear()


def match(need: int, masks: tuple[int, ...]) -> tuple[int, ...] | None:
    """Rule 1: the copies' allowed sets cut to the foundations each gets in some perfect matching
    of the copies onto the foundations in ``need``; None when there is no perfect matching."""
    key = (need, masks)
    try:
        return _MATCH_CACHE[key]
    except KeyError:
        pass
    k = len(masks)
    result: tuple[int, ...] | None
    if k != POPCOUNT[need]:
        result = None
    else:
        got = [0] * k

        def assign(i: int, used: int, chosen: list[int]) -> None:
            if i == k:
                for j, x in enumerate(chosen):
                    got[j] |= 1 << x
                return
            for x in BITS[masks[i] & need & ~used]:
                chosen.append(x)
                assign(i + 1, used | 1 << x, chosen)
                chosen.pop()

        assign(0, 0, [])
        result = tuple(got) if k == 0 or got[0] else None
    if len(_MATCH_CACHE) > 100_000:
        _MATCH_CACHE.clear()
    _MATCH_CACHE[key] = result
    return result


class Found(Exception):
    """The local search, run from inside the exhaustive search, found a winning line."""

    def __init__(self, line: list[int]):
        super().__init__()
        self.line = line


class Clock:
    """The budget, the node count and the progress callback, shared by all phases. The
    exhaustive search calls :meth:`tick` every 256 nodes; every ``side_every`` ticks ``side``
    (a slice of local search) runs, the period doubling every ``side_decay`` ticks (0: never)
    up to ``side_max``. Counted in nodes, not seconds, so that the same position always gets
    the same answer and line (when the budget does not run out)."""

    def __init__(self, budget: float | None, progress: Callable[[int, float], None] | None,
                 max_nodes: int | None = None):
        self.max_nodes = max_nodes
        self.start = time.perf_counter()
        self.deadline = None if budget is None else self.start + budget
        self.progress = progress
        self.nodes = 0
        self.next_report = self.start + 0.15
        self.side: Callable[[], None] | None = None
        self.side_every = 2
        self.side_decay = 0
        self.side_max = 2
        self.next_side = 2
        self.ticks = 0

    def schedule(self, every: int, decay: int = 0, most: int = 0) -> None:
        """Run ``side`` every ``every`` ticks, the period doubling every ``decay`` ticks (0:
        never) up to ``most``."""
        self.side_every = every
        self.side_decay = decay
        self.side_max = max(most, every)
        self.next_side = self.ticks + every

    def check(self) -> None:
        """Progress report, node limit and deadline."""
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise Timeout
        now = time.perf_counter()
        if self.progress is not None and now >= self.next_report:
            self.next_report = now + 0.15
            self.progress(self.nodes, now - self.start)
        if self.deadline is not None and now >= self.deadline:
            raise Timeout

    def tick(self) -> None:
        self.check()
        self.ticks += 1
        side = self.side
        if side is not None and self.ticks >= self.next_side:
            period = self.side_every
            if self.side_decay:
                period = min(self.side_max, period << min(self.ticks // self.side_decay, 16))
            self.next_side = self.ticks + period
            self.side = None  # no nesting
            try:
                side()
            finally:
                self.side = side


class Position:
    """A position read from a :class:`MusicalState`, in the search's terms."""

    def __init__(self, state: MusicalState):
        cards = state.waste + state.stock
        self.ranks = [c.rank for c in cards]
        self.n = len(cards)
        self.p = len(state.waste)
        self.heights = [len(f) - 1 for f in state.foundations]
        left = state.redeals_left
        self.redeals_left = UNLIMITED if left is None else max(left, 0)
        # need[r]: foundations still needing rank r.
        self.need = [0] * 14
        for x in range(FOUNDATIONS):
            for j in range(self.heights[x], SLOTS):
                self.need[NEED[x][j]] |= 1 << x
        self.copies: list[list[int]] = [[] for _ in range(14)]
        for i, r in enumerate(self.ranks):
            self.copies[r].append(i)


def split_order(pos: Position) -> list[int]:
    """Rule 6: the foundations to split on, the slowest first: by how many passes their own
    cards need when each is taken at its first copy dealt after the previous one."""
    chains = []
    for x in range(FOUNDATIONS):
        t = -1
        passes = 1
        for j in range(pos.heights[x], SLOTS):
            ids = pos.copies[NEED[x][j]]
            later = [i for i in ids if i > t]
            if later:
                t = later[0]
            else:
                passes += 1
                t = ids[0]
        chains.append((-passes, x))
    chains.sort()
    return [x for _, x in chains[:SPLIT_DEPTH]]


class Search:
    """The exhaustive search (rules 1 to 5) from one position; :meth:`run` can be called again
    (after a node limit) and keeps the transposition table."""

    def __init__(self, pos: Position, clock: Clock):
        self.pos = pos
        self.clock = clock
        self.tt: dict[bytes, int] = {}
        self.tt_old: dict[bytes, int] = {}
        self.relax = True  # rule 3 (off only to test the other rules without it; rule 5 runs it too)
        self.stuck = True  # rule 5
        self.stuck_passes = STUCK_PASSES  # rule 5 (5b) with at most this many redeals left
        # rule 7 with these numbers of redeals left; not in a search that starts with two or more
        # (deals 409 and 2409 at two redeals: the same nodes with it, so only its cost)
        self.chain_passes = CHAIN_PASSES if pos.redeals_left <= 1 else ()

    # -- setup ----------------------------------------------------------------------------
    def reset(self) -> bool:
        """Fresh search state; False when rule 1 already fails at the root."""
        pos = self.pos
        self.seq = list(range(pos.n))
        self.p = pos.p
        self.h = list(pos.heights)
        self.passes = pos.redeals_left
        self.pass_start = -1  # len(seq) when the current pass began with a redeal; -1 for the first
        self.need = list(pos.need)
        self.want = [0] * 14
        for x in range(FOUNDATIONS):
            if self.h[x] < SLOTS:
                self.want[NEED[x][self.h[x]]] |= 1 << x
        self.cm = [r << 4 | pos.need[r] for r in pos.ranks]
        self.live = [list(ids) for ids in pos.copies]  # the copies of each rank still to build
        self.moves: list[int] = []
        for r in range(1, 14):
            if self._restrict(r) is None:
                return False
        return True

    def _restrict(self, r: int) -> list[tuple[int, int]] | None:
        """Rule 1 for rank r; returns the undo list of (card, old code), or None when it fails
        (the codes are then left as they were)."""
        cm = self.cm
        ids = self.live[r]
        masks = tuple([cm[i] & 15 for i in ids])
        got = _MATCH_CACHE.get((self.need[r], masks), _UNMATCHED)
        if got is _UNMATCHED:
            got = match(self.need[r], masks)
        if got is None:
            return None
        if got == masks:
            return []
        undo = []
        for i, old, new in zip(ids, masks, got, strict=True):
            if old != new:
                undo.append((i, cm[i]))
                cm[i] = r << 4 | new
        return undo

    # -- rule 3 ---------------------------------------------------------------------------
    def relaxed_ok(self) -> bool:
        """Rule 3: can the relaxation finish within the passes left?

        Bit-parallel: foundation x owns bits 12x .. 12x+10 of ``g`` (one per slot, set when the
        slot is filled or below the real height) and a guard bit 12x+11 that stays clear.
        ``g ^ (g + ONES)`` then has, in each field, the bits of slots 0..first-unfilled: the
        slots each foundation has reached. A card's ``PV`` has the bits of its slot on each
        allowed foundation, so ``PV & reached`` says it can leave, and ``g |= PV`` fills them."""
        cm = self.cm
        h = self.h
        pv = [PV[cm[i]] for i in self.seq]
        g = LOW[0][h[0]] | LOW[1][h[1]] | LOW[2][h[2]] | LOW[3][h[3]]
        reached = g ^ (g + ONES)
        p = self.p
        stack = pv[:p]
        pop = stack.pop
        # the waste first: its top may leave at once, and then the next, ...
        while stack and stack[-1] & reached:
            g |= pop()
            reached = g ^ (g + ONES)
        todo = pv[p:]
        left = self.passes
        first = True
        while True:
            push = stack.append
            for v in todo:
                if v & reached:
                    g |= v
                    reached = g ^ (g + ONES)
                    while stack and stack[-1] & reached:
                        g |= pop()
                        reached = g ^ (g + ONES)
                else:
                    push(v)
            if not stack:
                return True
            if not first and len(stack) == len(todo):
                return False  # a whole pass without removal: stuck for ever
            if left <= 0:
                return False
            left -= 1
            first = False
            todo = stack
            stack = []
            pop = stack.pop

    # -- the search -----------------------------------------------------------------------
    def run(self, node_limit: int | None, split: bool = False) -> bool | None:
        """True (won, ``self.moves`` is the line), False (lost), None (node limit reached).
        With ``split``, rule 6 first pins which copy fills each slot of the foundations of
        :meth:`split_order`, and the search runs on each pinning."""
        if not self.reset():
            return False
        if self.relax and not self.relaxed_ok():
            return False
        self.limit = None if node_limit is None else self.clock.nodes + node_limit
        try:
            if split:
                order = self.split_order()
                self.unpinned = [list(range(self.h[x], SLOTS)) for x in order]
                return self._split(order, 0)
            return self._dfs()
        except Limit:
            return None

    def _key(self) -> bytes:
        cm = self.cm
        h = self.h
        return bytes([cm[i] for i in self.seq]) + bytes((self.p, h[0], h[1], h[2], h[3]))

    def _store(self, key: bytes) -> None:
        tt = self.tt
        if len(tt) >= TT_MAX:
            self.tt_old = tt
            self.tt = tt = {}
        tt[key] = self.passes

    def _dfs(self) -> bool:
        seq = self.seq
        cm = self.cm
        want = self.want
        moves = self.moves
        p0 = p = self.p
        passes0 = self.passes
        start0 = self.pass_start
        n_moves = len(moves)
        while True:
            if p:
                v = cm[seq[p - 1]]
                w = want[v >> 4]
                if w & v:
                    self.p = p
                    if self._decide(seq[p - 1], v >> 4, w):
                        return True
                    break
            if p < len(seq):
                p += 1
                moves.append(DEAL_MOVE)
                continue
            if not seq:
                self.p = p
                return True
            if self.passes <= 0 or self.pass_start == len(seq):
                break  # no redeal left, or rule 2
            self.passes -= 1
            self.pass_start = len(seq)
            moves.append(REDEAL_MOVE)
            p = 0
        self.p = p0
        self.passes = passes0
        self.pass_start = start0
        del moves[n_moves:]
        return False

    def stuck_prune(self) -> list[tuple[int, int]] | None:
        """Rule 5 in the last pass, 5b with at most ``stuck_passes`` redeals left (it includes
        rule 3's relaxation; 5b looks for certificates in the relaxation's last pass only, see
        :meth:`_stuck_cuts`). Run the relaxation; when
        card c goes onto the relaxed stack (at the start for the waste, when dealt for the stock)
        and an allowed foundation X has not reached c's slot, then in any real line in which c
        goes to X, c stays on the waste until X reaches its slot (the relaxation is optimistic,
        so X has not reached it either), and nothing under c can be played before. If some slot
        of X below c's is unfilled then and has no candidate card (rank right, X allowed) after
        c in the sequence, all its candidates are under c: X can never get there, and X leaves
        c's set. Repeated until nothing changes. Returns the undo list, or None when the position
        is lost (codes then restored)."""
        undo: list[tuple[int, int]] = []
        while True:
            cut = self._stuck_cuts()
            if cut is None:
                break
            if not cut:
                return undo
            cm = self.cm
            touched = set()
            for c, bit in cut:
                if cm[c] & bit:
                    undo.append((c, cm[c]))
                    cm[c] &= ~bit
                    touched.add(cm[c] >> 4)
            if not touched:
                return undo
            for r in touched:
                u = self._restrict(r)
                if u is None:
                    break
                undo.extend(u)
            else:
                continue
            break
        self._restore(undo)
        return None

    def _stuck_cuts(self) -> list[tuple[int, int]] | None:
        """Rule 5's certificates as (card, foundation bit); None when the relaxation fails.
        Bit-parallel like :meth:`relaxed_ok`, with ``BELOW[code]`` the slots under the card's
        slot on each allowed foundation.

        *Rule 5b* (redeals left): the relaxation first runs through the passes before the last
        one; the certificates are then looked for in its last pass only, on the cards it still
        holds. Such a card c is still there in every real line (the relaxed remaining cards are a
        subset of the real ones at the same point), so c can only be played in the last pass; it
        is dealt there at the same point of the original order, with the real heights no higher
        than the relaxed ones; the cards that come after it in the real last pass are among the
        cards after it in today's ``seq`` (the order never changes). So rule 5's argument holds."""
        cm = self.cm
        h = self.h
        seq = self.seq
        codes = list(map(cm.__getitem__, seq))
        pv = list(map(PV.__getitem__, codes))
        n = len(seq)
        # after[j]: the slots with a candidate after index j; a certificate for card j is a slot
        # in BELOW (under its slot on an allowed foundation), not filled, not in after[j].
        after = list(accumulate(reversed(pv), or_))
        after.reverse()
        after.append(0)
        g = LOW[0][h[0]] | LOW[1][h[1]] | LOW[2][h[2]] | LOW[3][h[3]]
        reached = g ^ (g + ONES)
        cut: list[int] = []  # card, then the certificate's slots
        p = self.p
        left = self.passes
        if left > 0:
            # rule 5b: the relaxation (as in relaxed_ok, on indexes) up to the last pass
            idx = list(range(p))
            ipop = idx.pop
            while idx and pv[idx[-1]] & reached:
                g |= pv[ipop()]
                reached = g ^ (g + ONES)
            todo: list[int] | range = range(p, n)
            first = True
            while True:
                push_i = idx.append
                for j in todo:
                    v = pv[j]
                    if v & reached:
                        g |= v
                        reached = g ^ (g + ONES)
                        while idx and pv[idx[-1]] & reached:
                            g |= pv[ipop()]
                            reached = g ^ (g + ONES)
                    else:
                        push_i(j)
                if not idx:
                    return []  # the relaxation wins before the last pass: no certificate
                if not first and len(idx) == len(todo):
                    return None  # a whole pass without removal (rule 3)
                left -= 1
                first = False
                todo = idx
                idx = []
                ipop = idx.pop
                if left <= 0:
                    break
            # the relaxed last pass: the waste is empty, the cards of todo are dealt in order
            return self._last_pass(todo, [], g, cut, seq, codes, pv, after)
        # the last pass: the waste first (its cards are on the waste now), then the stock
        ng = ~g
        for c, code, t in zip(seq[:p], codes, islice(after, 1, None), strict=False):
            m = BELOW[code] & ng & ~t
            if m:
                cut.append(c)
                cut.append(m)
        return self._last_pass(range(p, n), pv[:p], g, cut, seq, codes, pv, after)

    def _last_pass(self, todo: Sequence[int], stack: list[int], g: int, cut: list[int], seq: list[int],
                   codes: list[int], pv: list[int], after: list[int]) -> list[tuple[int, int]] | None:
        """The relaxation's last pass, the cards at indexes ``todo`` dealt in order onto the
        waste ``stack`` (values, top last), adding rule 5's certificates to ``cut``; None when
        the relaxation fails."""
        reached = g ^ (g + ONES)
        pop = stack.pop
        push = stack.append
        while stack and stack[-1] & reached:
            g |= pop()
            reached = g ^ (g + ONES)
        ng = ~g
        for j in todo:
            m = BELOW[codes[j]] & ng & ~after[j + 1]
            if m:
                cut.append(seq[j])
                cut.append(m)
            v = pv[j]
            if v & reached:
                g |= v
                reached = g ^ (g + ONES)
                while stack and stack[-1] & reached:
                    g |= pop()
                    reached = g ^ (g + ONES)
                ng = ~g
            else:
                push(v)
        if stack:
            return None
        return self._certificates(cut)

    def _certificates(self, cut: list[int]) -> list[tuple[int, int]]:
        """(card, foundation bit) pairs from _stuck_cuts' (card, slots) list."""
        cm = self.cm
        out = []
        for k in range(0, len(cut), 2):
            c = cut[k]
            m = cut[k + 1]
            for x in BITS[cm[c] & 15]:
                if m & FIELD[x]:
                    out.append((c, 1 << x))
        return out

    def _restore(self, undo: list[tuple[int, int]]) -> None:
        """Undo a list of (card, old code) changes, latest first."""
        cm = self.cm
        for i, old in reversed(undo):
            cm[i] = old

    def _bound(self) -> list[tuple[int, int]] | None:
        """Rules 3, 5 and 7 at the current position: None when they prove it lost, else the undo
        list of the allowed sets rule 5 cut."""
        if self.stuck and self.passes <= self.stuck_passes:
            undo = self.stuck_prune()
            if undo is not None and self.passes in self.chain_passes and not self.chains_ok():
                self._restore(undo)
                return None
            return undo
        if self.relax and not self.relaxed_ok():
            return None
        return []

    def chains_ok(self) -> bool:
        """Rule 7: can each foundation, on its own, fill its slots within the passes left?"""
        cm = self.cm
        codes = list(map(cm.__getitem__, self.seq))
        masks = {code & 15 for code in codes}
        h = self.h
        for x in range(FOUNDATIONS):
            # Without a forced card R_X has nothing that blocks: by the end of the pass every
            # candidate has been available, and by rule 1 each slot left has one, so it succeeds.
            if h[x] < SLOTS and 1 << x in masks and not self._chain_ok(x, h[x], codes):
                return False
        return True

    def _chain_ok(self, x: int, h: int, codes: list[int]) -> bool:
        """Rule 7 for foundation x, now at height h. Only x's candidates count (the cards whose
        allowed set holds x): one allowing x alone is *forced* and blocks the candidates under
        it; one allowing x and others is *transparent*: x may take it whenever no forced card
        lies on it, and it blocks nothing; every other card is gone at once. ``forced``: the
        slots of the forced cards on the waste, bottom first; ``segs[k]``: the slots of the
        transparent cards between forced card k and the one under it; ``avail``: those above
        the top forced card. ``rest``: the candidates on the waste in order (the next pass)."""
        bit = 1 << x
        slot_of = SLOT[x]
        p = self.p
        left = self.passes
        forced: list[int] = []
        segs: list[int] = []
        avail = 0
        rest: list[int] = []
        # the waste: already there, bottom first
        for code in codes[:p]:
            if code & bit:
                s = slot_of[code >> 4]
                if s >= h:
                    rest.append(code)
                    if code & 15 == bit:
                        forced.append(s)
                        segs.append(avail)
                        avail = 0
                    else:
                        avail |= 1 << s
        todo = [code for code in codes[p:] if code & bit]
        while True:
            # settle: the top forced card, or an available transparent one, fills slot h
            while True:
                if avail >> h & 1:
                    h += 1
                elif forced and forced[-1] == h:
                    forced.pop()
                    avail |= segs.pop()
                    h += 1
                else:
                    break
            for code in todo:
                s = slot_of[code >> 4]
                if s < h:
                    continue
                if s == h:
                    h += 1
                    while True:
                        if avail >> h & 1:
                            h += 1
                        elif forced and forced[-1] == h:
                            forced.pop()
                            avail |= segs.pop()
                            h += 1
                        else:
                            break
                    continue
                rest.append(code)
                if code & 15 == bit:
                    if not left and forced and forced[-1] < s:
                        return False  # the last pass: stuck above the only card for a slot below
                    forced.append(s)
                    segs.append(avail)
                    avail = 0
                else:
                    avail |= 1 << s
            if h >= SLOTS:
                return True
            if left <= 0:
                return False
            left -= 1
            todo = [code for code in rest if slot_of[code >> 4] >= h]
            forced = []
            segs = []
            avail = 0
            rest = []

    def _count(self) -> None:
        clock = self.clock
        clock.nodes += 1
        if not clock.nodes & 255:
            clock.tick()
            if self.limit is not None and clock.nodes >= self.limit:
                raise Limit

    def _decide(self, c: int, r: int, w: int) -> bool:
        self._count()
        key = self._key()
        got = self.tt.get(key)
        if got is None:
            got = self.tt_old.get(key)
            if got is not None:
                self.tt[key] = got
        if got is not None and got >= self.passes:
            return False
        probed = self._bound()
        if probed is None:
            self._store(key)
            return False
        cm = self.cm
        v = cm[c]
        # plays first (wins are found sooner that way), then "never"
        if any(self._play(c, r, x) for x in BITS[w & v]) or self._skip(c, r, w, v):
            return True
        if probed:
            self._restore(probed)
        self._store(key)
        return False

    def _play(self, c: int, r: int, x: int) -> bool:
        """The branch "play c (the waste top, rank r) to foundation x now"."""
        seq = self.seq
        cm = self.cm
        h = self.h
        want = self.want
        need = self.need
        moves = self.moves
        p = self.p
        bit = 1 << x
        del seq[p - 1]
        self.p = p - 1
        live = self.live[r]
        k = live.index(c)
        del live[k]
        hx = h[x]
        h[x] = hx + 1
        want[r] &= ~bit
        nr = NEED[x][hx + 1] if hx + 1 < SLOTS else 0
        want[nr] |= bit
        need[r] &= ~bit
        undo = self._restrict(r)
        if undo is not None:
            moves.append(x)
            if self._dfs():
                return True
            moves.pop()
            for i, old in undo:
                cm[i] = old
        need[r] |= bit
        want[nr] &= ~bit
        want[r] |= bit
        h[x] = hx
        live.insert(k, c)
        seq.insert(p - 1, c)
        self.p = p
        return False

    def _skip(self, c: int, r: int, w: int, v: int) -> bool:
        """The branch "never play c to the foundations that want it now" (then deal on)."""
        cm = self.cm
        cm[c] = v & ~w
        undo = self._restrict(r)
        if undo is not None:
            if self._dfs():
                return True
            for i, old in undo:
                cm[i] = old
        cm[c] = v
        return False

    def line(self) -> list[int]:
        return list(self.moves)

    # -- rule 6: splitting on the bottleneck foundations -----------------------------------
    def split_order(self) -> list[int]:
        return split_order(self.pos)

    def _pin(self, x: int, r: int, c: int) -> list[tuple[int, int]] | None:
        """Copy c (rank r) fills foundation x's slot for r: x becomes c's only foundation and
        leaves the other copies' sets; then rules 1, 3 and 5. The undo list, or None when that
        is lost (the codes then restored)."""
        self._count()
        cm = self.cm
        live = self.live[r]
        bit = 1 << x
        undo = [(i, cm[i]) for i in live]
        for i in live:
            cm[i] = r << 4 | bit if i == c else cm[i] & ~bit
        u = self._restrict(r)
        if u is not None:
            undo.extend(u)
            u = self._bound()
            if u is not None:
                undo.extend(u)
                return undo
        self._restore(undo)
        return None

    def _split(self, order: list[int], k: int) -> bool:
        """Rule 6. Every winning assignment fills each slot of foundation x with one copy of its
        rank that still allows x, so trying each such copy in turn is complete, in any order of
        the slots. The order is fail first: the slot of the current foundation with the fewest
        copies that survive pinning (a slot with none: lost). One foundation at a time, since a
        foundation's pins tighten the relaxation most when they make a whole chain."""
        unpinned = self.unpinned
        while k < len(order) and not unpinned[k]:
            k += 1
        if k == len(order):
            return self._dfs()
        x = order[k]
        bit = 1 << x
        cm = self.cm
        slots = unpinned[k]
        best = -1
        best_ok: list[int] = []
        for j in slots:
            r = NEED[x][j]
            ok = []
            for c in self.live[r]:
                if cm[c] & bit:
                    undo = self._pin(x, r, c)
                    if undo is not None:
                        ok.append(c)
                        self._restore(undo)
            if best < 0 or len(ok) < len(best_ok):
                best, best_ok = j, ok
                if len(ok) <= 1:
                    break
        at = slots.index(best)
        del slots[at]
        r = NEED[x][best]
        for c in best_ok:
            undo = self._pin(x, r, c)
            if undo is not None:
                if self._split(order, k):
                    return True
                self._restore(undo)
        slots.insert(at, best)
        return False


class CoreSearch:
    """:class:`Search` run by the C core (``CORE.Core``), rule 6's split included: it explores
    the same nodes in the same order, so the verdict, line and node count are the same (the
    tests check it)."""

    NEED_BYTES = bytes(r for need in NEED for r in need)

    def __init__(self, pos: Position, clock: Clock, basic: bool = False):
        self.pos = pos
        self.clock = clock
        assert CORE is not None, "a core search is made only where the core is built"
        self.core = CORE.Core(bytes(pos.ranks), pos.p, bytes(pos.heights), pos.redeals_left,
                              self.NEED_BYTES, -1 if basic else STUCK_PASSES,
                              not basic and pos.redeals_left <= 1 and 1 in CHAIN_PASSES, TT_MAX)

    def run(self, node_limit: int | None, split: bool = False) -> bool | None:
        got: bool | None = (self.core.run(self.clock, node_limit, bytes(split_order(self.pos))) if split
                            else self.core.run(self.clock, node_limit))
        return got

    def line(self) -> list[int]:
        line: list[int] = self.core.line()
        return line


def make_search(pos: Position, clock: Clock, core: bool = True,
                basic: bool = False) -> Search | CoreSearch:
    """The exhaustive search from ``pos``: the C core's when it is built (and ``core``), else
    the Python one. ``basic``: rules 1 to 4 only (no 5, 6 or 7), to check a loss again without
    the newer rules (bench/solver.py --basic)."""
    if core and CORE is not None:
        return CoreSearch(pos, clock, basic)
    search = Search(pos, clock)
    if basic:
        search.stuck, search.chain_passes = False, ()
    return search


class LocalSearch:
    """Hill climbing over assignments (each card to one foundation needing its rank)."""

    def __init__(self, pos: Position, clock: Clock, seed: int = 1):
        self.pos = pos
        self.clock = clock
        self.rng = random.Random(seed)
        # the copies of each rank with at least two: a move swaps the foundations of two
        self.groups = [pos.copies[r] for r in range(1, 14) if len(pos.copies[r]) >= 2]
        self.tgt = [0] * pos.n
        self.best = self.stale = 0
        self.elite: list[int] | None = None
        self.elite_score = -1
        self.ils = 0.7  # share of restarts from the best assignment so far, kicked by
        self.kick = 8  # this many random swaps (iterated local search); the rest are fresh
        self.score = -1

    def random_assignment(self) -> None:
        pos = self.pos
        tgt = self.tgt
        for r in range(1, 14):
            ids = pos.copies[r]
            if not ids:
                continue
            fs = list(BITS[pos.need[r]])
            self.rng.shuffle(fs)
            for i, x in zip(ids, fs, strict=False):
                tgt[i] = x << 4 | SLOT[x][r]

    def simulate(self, record: list[int] | None = None) -> int:
        """asap(A) for the assignment in ``tgt`` (card -> foundation << 4 | slot): the number of
        cards played (``pos.n`` means won); ``record`` gets the line's moves."""
        pos = self.pos
        tgt = self.tgt
        h = list(pos.heights)
        stack = list(range(pos.p))
        todo = list(range(pos.p, pos.n))
        pop = stack.pop
        left = pos.redeals_left
        first = True
        while True:
            n_before = len(stack) + len(todo)
            push = stack.append
            if record is None:
                while stack:
                    t = tgt[stack[-1]]
                    x = t >> 4
                    if h[x] != t & 15:
                        break
                    pop()
                    h[x] += 1
                for c in todo:
                    t = tgt[c]
                    x = t >> 4
                    if h[x] == t & 15:
                        h[x] += 1
                        while stack:
                            t = tgt[stack[-1]]
                            x = t >> 4
                            if h[x] != t & 15:
                                break
                            pop()
                            h[x] += 1
                    else:
                        push(c)
            else:
                while stack:
                    t = tgt[stack[-1]]
                    x = t >> 4
                    if h[x] != t & 15:
                        break
                    pop()
                    h[x] += 1
                    record.append(x)
                for c in todo:
                    record.append(DEAL_MOVE)
                    push(c)
                    while stack:
                        t = tgt[stack[-1]]
                        x = t >> 4
                        if h[x] != t & 15:
                            break
                        pop()
                        h[x] += 1
                        record.append(x)
            if not stack or (not first and len(stack) == n_before) or left <= 0:
                return pos.n - len(stack)
            left -= 1
            first = False
            todo = stack
            stack = []
            pop = stack.pop
            if record is not None:
                record.append(REDEAL_MOVE)

    def run(self, max_evals: int, restart_after: int = 300) -> list[int] | None:
        """A winning line, or None after ``max_evals`` simulations; the next call goes on from
        where this one stopped. Moves swap the foundations of two copies of a rank; a move is
        kept when no fewer cards get played; a restart from a random assignment after
        ``restart_after`` moves without a new best."""
        pos = self.pos
        if not self.groups:
            self.random_assignment()
            return self._line() if self.simulate() == pos.n else None
        rng = self.rng
        tgt = self.tgt
        groups = self.groups
        ranks = pos.ranks
        clock = self.clock
        best, stale, score = self.best, self.stale, self.score
        for k in range(max_evals):
            if score < 0 or stale >= restart_after:
                if self.elite is not None and rng.random() < self.ils:
                    tgt[:] = self.elite
                    for _ in range(self.kick):
                        ids = groups[rng.randrange(len(groups))]
                        a, b = rng.sample(ids, 2)
                        ta, tb = tgt[a], tgt[b]
                        r = ranks[a]
                        xa, xb = ta >> 4, tb >> 4
                        tgt[a] = xb << 4 | SLOT[xb][r]
                        tgt[b] = xa << 4 | SLOT[xa][r]
                else:
                    self.random_assignment()
                score = self.simulate()
                stale = 0
                if score == pos.n:
                    return self._line()
                best = score
            if not k & 63:
                clock.nodes += 64
                clock.check()
            ids = groups[rng.randrange(len(groups))]
            a, b = rng.sample(ids, 2)
            ta, tb = tgt[a], tgt[b]
            if ta == tb:
                continue
            r = ranks[a]
            xa, xb = ta >> 4, tb >> 4
            tgt[a] = xb << 4 | SLOT[xb][r]
            tgt[b] = xa << 4 | SLOT[xa][r]
            new = self.simulate()
            if new == pos.n:
                return self._line()
            if new >= score:
                if new > best:
                    best = new
                    stale = 0
                    if new > self.elite_score:
                        self.elite_score = new
                        self.elite = tgt[:]
                else:
                    stale += 1
                score = new
            else:
                tgt[a], tgt[b] = ta, tb
                stale += 1
        self.best, self.stale, self.score = best, stale, score
        return None

    def _line(self) -> list[int]:
        line: list[int] = []
        self.simulate(line)
        return line


def solve_position(state: MusicalState, budget: float | None,
                   progress: Callable[[int, float], None] | None = None,
                   seed: int = 1, max_nodes: int | None = None,
                   core: bool = True, side_scale: int | None = None) -> tuple[str, list[int], int]:
    """The portfolio. Returns (result, internal line, nodes); the line uses foundation indexes
    0..3, DEAL_MOVE and REDEAL_MOVE. A short exhaustive search, a short local search, then one
    exhaustive search to the end with slices of local search interleaved."""
    # The search recurses a few frames per decision (at most 44 plays and 176 "never"s).
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5_000))
    clock = Clock(budget, progress, max_nodes)
    pos = Position(state)
    if pos.n == 0:
        done = all(h == SLOTS for h in pos.heights)
        return ("won" if done else "lost"), [], 0
    search = make_search(pos, clock, core)
    local = LocalSearch(pos, clock, seed)
    try:
        got = search.run(300)
        if got is not None:
            return ("won" if got else "lost"), search.line(), clock.nodes
        line = local.run(2_000)
        if line is not None:
            return "won", line, clock.nodes

        def side() -> None:
            found = local.run(400)
            if found is not None:
                raise Found(found)

        clock.side = side
        # Wins are the rule with two redeals or more (about 99%), a third with one, none seen
        # with none: the local search's share of the time follows (a slice of 400 evaluations
        # is about 3 ms, 256 nodes about 5 ms: shares of about 40%, 25% and 10% at first).
        # The wins it finds come early (at one redeal, deals 1-200: all within 6 s, most within
        # a second), while a proof of loss needs the exhaustive search to the end: so the share
        # halves every SIDE_DECAY ticks (about 65,000 nodes), down to an eighth of the start.
        # (These are the Python search's figures; with the C core see CORE_SIDE_SCALE.)
        left = pos.redeals_left
        every = 1 if left >= 2 else 2 if left == 1 else 6
        if side_scale is None:
            side_scale = CORE_SIDE_SCALE[min(left, 2)] if isinstance(search, CoreSearch) else 1
        every *= side_scale
        clock.schedule(every, SIDE_DECAY * side_scale, 8 * every)
        if 2 <= left < UNLIMITED:
            # With two redeals or more, the wins the chronological search finds come within
            # SPLIT_AFTER nodes (deals 1-1000: at most 121,000); rule 6's split is what proves
            # the rare loss (deal 409: lost after 360,000 nodes of split, where the chronological
            # search is still undecided after 20 million).
            got = search.run(SPLIT_AFTER)
            if got is None:
                got = search.run(None, split=True)
        else:
            got = search.run(None)
        return ("won" if got else "lost"), search.line(), clock.nodes
    except Found as found:
        return "won", found.line, clock.nodes
    except Timeout:
        return "unknown", [], clock.nodes


# --- the game's hooks: search, sure moves, the greedy baseline ------------------------------------


def _engine_moves(line: list[int]) -> tuple[Move, ...]:
    """The search's internal line (foundation index 0..3, DEAL_MOVE, REDEAL_MOVE) as moves."""
    out: list[Move] = []
    for m in line:
        if m == DEAL_MOVE:
            out.append(DEAL)
        elif m == REDEAL_MOVE:
            out.append(REDEAL)
        else:
            out.append(Transfer(W, F(m + 1)))
    return tuple(out)


def search(state: MusicalState, budget: float | None,
           progress: Callable[[int, float], None] | None,
           nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
    result, line, nodes = solve_position(state, budget, progress, max_nodes=nodes)
    return result, (_engine_moves(line) if result == "won" else ()), nodes


def sure_move(game: Musical, state: MusicalState) -> Move | None:
    """The waste top c to the one foundation X that still needs c's rank, X wanting it now.
    Then c is the only copy left that X can take and every win plays c to X; by the exchange
    argument (this module's docstring) playing a card as soon as its foundation wants it is
    never worse, so some winning line, if any, starts with this play."""
    top = state.waste_top
    plays = [m for m in game.legal_moves(state) if isinstance(m, Transfer)]
    if top is None or len(plays) != 1:
        return None
    needing = [i for i in range(1, FOUNDATIONS + 1)
               if top.rank in SEQUENCES[i - 1][len(state.foundations[i - 1]):]]
    target = plays[0].target
    return plays[0] if target is not None and needing == [target.index] else None


def greedy_wins(game: Musical, state: MusicalState) -> bool:
    """The greedy strategy: play the waste top to the lowest-numbered foundation that takes it,
    else deal, else redeal. True if it wins."""
    while True:
        legal = game.legal_moves(state)
        if not legal:
            return state.complete
        plays = [(m.target.index, m) for m in legal if isinstance(m, Transfer) and m.target is not None]
        move = min(plays, key=lambda play: play[0])[1] if plays else legal[0]  # else DEAL or REDEAL
        state = game.apply(state, move)
        # With unlimited redeals greedy can cycle: a whole pass without a play is the same
        # position again, so it is stuck.
        if move == REDEAL and state.redeals_used > 0 and _greedy_stuck(game, state):
            return False


def _greedy_stuck(game: Musical, state: MusicalState) -> bool:
    """After a redeal: does a whole pass of greedy play make no play? (Then it never will.)"""
    probe = state
    while probe.stock:
        top = probe.waste_top
        if top is not None and probe.wanting(top.rank):
            return False
        probe = game.apply(probe, DEAL)
    top = probe.waste_top
    return not (top is not None and probe.wanting(top.rank))
