"""The Crazy Quilt search: exact winnability of any position of Crazy Quilt, Indian Carpet and
Persian Rug (the solver sees the stock, as in Musical), the safe moves for ``auto``, and the
greedy player that ``stats`` reports beside it.

**The position** is read into small values: a card is ``suit * 16 + rank`` (suits in the deck's
order), the quilt is a 64-bit occupancy mask over the fixed opening quilt (cards never come
back to the quilt, so which card lies in an occupied cell never changes), the waste and stock are
byte strings, each suit's two foundations two heights, and the redeals left. Persian Rug has
eight reserves (byte strings, bottom first) instead of stock and waste.

**The transposition key** is the whole of that: the waste and the
stock as card sequences (the waste is not a function of the rest: quilt cards put on it
interleave with dealt cards), the occupancy, the eight heights, the redeals left, and in Persian
Rug the reserves *sorted*: reserves are interchangeable, so two positions that are the same piles
in another order are one position (its moves are the same up to renumbering). The two copies of a
card have the same code, so a position reached by moving one copy or the other is one key: the
two copies are never searched as different cards.

**The search** is a reachability search over the positions: is a won position reachable? It is
run as iterative *limited-discrepancy search* (LDS): the children of a position are ordered by
the heuristic below, taking the k-th child (k = 0 first) spends k discrepancies, and iteration D
explores every line spending at most D (D = 0, 1, 2, ..., ``LDS_MAX``). Then a last iteration with
no limit, a plain depth-first search that marks every position it enters and never enters a marked
one again: it enters every position reachable from the start (the last position entered on a
path to a won one would have entered the next), so when it ends without a win the start is lost.
That holds even when the table of marks is cleared to bound memory (forgetting a mark only
repeats work; cycles, which only Persian Rug has, are cut by the set of positions on the current
line, which is never cleared). A position all of whose lines were explored (no discrepancy cut,
no child skipped on a mark that was not such a proof) is stored as *proven lost* and skipped by
every later iteration; an LDS iteration that cut nothing at all is itself a proof of loss.

Move ordering (with one step of lookahead): foundation moves
first (the waste or reserve top, then quilt cards); before the last pass then the quilt-to-waste
builds that make a quilt card available, the deal (or redeal), the other builds; in the last pass
the deal before the builds. Persian Rug: foundation moves, then quilt cards onto non-empty
reserves, onto the first empty reserve, then reserve to reserve. Within each group a move that
uncovers a card some foundation wants at once comes first (the foundations do not change on a
move that is not to a foundation, so what they want is known without applying it), then the
moves that make more quilt cards available. The lookahead is what makes Persian Rug easy (deals
1-20 all won at once, against 9 of 20 in 2 s without it).

**Pruning** (each rule removes only lines when another line that wins, if any wins, is kept):

1. *Safe foundation move* (not with ``wrap``). A card c of suit s is playable to foundation X
   (up or down of s) while the other foundation Y of s already holds c's rank (so c's twin is
   on Y, and X is the only place c can ever go): then c is played at once, as the only child.
   Proof (replay). The cards of s not on a foundation then each have one destination: ranks
   below Y's height... precisely, with up holding 1..u and down d..13 (d <= u + 1), every
   remaining card of rank <= u goes down and every one of rank >= d goes up, and none has a
   rank in both. Take any winning line W; build W' that plays c now and then follows W,
   keeping the invariant "W' is W with a set S of cards of s already on their destination
   foundations and missing from the waste, stock, quilt and reserves". Every move of W is
   legal in W' or skipped: a deal or a play of a card of S is skipped; W' has each pile of W
   minus S in the same order, so W's stock top, waste top and reserve tops are W''s unless they
   are in S; a quilt card of W is available in W' too (more cells are empty); a foundation of W'
   is its W counterpart plus cards of S, and cannot be past a card W plays there (the card of
   that rank on it would be a second card of the same rank on one foundation). The one move
   that may not replay is a build in W of a card b onto a card of S (on the waste or a
   reserve); b is of suit s and one rank from it, and by the destinations above b is then
   exactly what its destination foundation needs in W' (the card between is in S, the other
   copy of b's rank is already on a foundation), so W' plays b there instead and adds it to S.
   A redeal of W whose waste is all in S is skipped in W' (one more redeal left, never worse).
   W ends with every card on a foundation, so W' does. With ``wrap`` a K can take an A that
   its destination does not want yet, so the rule is off.
2. *Both foundations want the same card*: when up and down of s both need rank r and both
   copies are playable, playing one of them at once is safe: every win puts one copy on each,
   and after the second is played rule 1's invariant holds for both, by the same replay.
3. *The only legal move* is safe (every line goes through it).
4. *Last pass, a waste card stuck for ever* (no redeal left, not Persian Rug): a card c on the
   waste leaves it only as its top and only for a foundation, and no card under it leaves
   before it. If for each foundation that could take c some card it needs first (a rank between
   its height and c's) has every copy not on a foundation lying under c in the waste, c can
   never leave: the position is lost. (Tested by comparing verdicts with the rule on and off.)
5. *Persian Rug*: a reserve's only card is never moved to an empty reserve (the same position),
   and a card goes to the first empty reserve only (empty reserves are interchangeable).
6. *The relaxation* (:meth:`Search.relax_fails`; not Persian Rug), the rule that proves losses
   at one redeal. Read the waste (bottom first) and the stock (top first) as one sequence, as
   in Musical. A card may go to a foundation X (up or down of its suit) only while X still
   needs its rank: X is *allowed* for it when X's height now is below its rank's slot. The
   relaxed game: every quilt card is free (taken whenever a chain reaches it, never put on the
   waste); a card leaves the waste top when some allowed foundation has *reached or passed*
   its slot, and then fills its rank's slot on *every* allowed foundation; a relaxed height is
   the top of the run of filled slots from the real height. It is run eagerly (taking a card
   never stops another from being taken: filled slots only grow and the waste only shrinks),
   dealing the stock a card at a time, turning the relaxed waste over at the end of each pass
   while redeals are left. If cards remain at the end, the position is lost.
   Proof: align a real line with the relaxation on the deals of the *sequence's* cards (a quilt
   card the real line has put on the waste is dealt again after a redeal, and the relaxation
   does nothing then). Invariant, by induction over the real moves: each foundation's filled
   slots in the relaxation include its real ones, every card the relaxation still holds the real
   line still holds, and the relaxed waste is a subsequence, in order, of the real waste (so the
   relaxed stock, after a redeal, of the real stock). A real deal of a sequence card c: c is
   the real stock's top, so if the relaxation still holds c it is its stock's top too (every
   card before it in the relaxed stock would be before it in the real one). A build moves a
   quilt card, which the relaxation holds as free anyway. A real play of c to X: X needs c, so
   X was allowed for c at the start, and the relaxed X has filled every slot up to c's;
   if c is a quilt card, or a quilt card the real line built on the waste, the relaxation took
   it as soon as a chain reached it; if c is a sequence card still held, it is the relaxed top
   (no relaxed card lies above it that does not lie above it for real), so it leaves at once
   (eagerness). Either way c is gone from the relaxation and X's slot is filled there. So when
   the real line wins, the relaxation ends with no card left.
   Rule 6 is checked, while rule 7 is off (rule 7 proves all it proves: below), on every
   position the search enters, and on each child before the child is counted (below); two
   kinds of child are known to pass when their parent passed, and are not checked again
   (skipping a check only ever costs pruning): a foundation move of the last
   copy of a rank left to place (:meth:`Search.last_copy`) and a deal when the relaxation leaves
   the waste top in place before its first deal (:meth:`Search.top_stuck`); in both the child's
   relaxation is the parent's, step for step.

7. *The relaxation with the quilt's geometry* (:meth:`Search.geo_fails`; not Persian Rug).
   Rule 6's run (its slots, chains and eager order, the same sequence and passes) where a quilt
   card is no longer free from the start: it stays in its cell until it is *available* in the
   relaxed quilt (a short side touching an emptied cell or the edge), and then leaves it either
   for the foundations (when rule 6 would take it: it fills its slots) or *released* (free from
   then on, as every quilt card is in rule 6), when some card it builds onto may be the real
   waste top: the card of an emptied cell, or a sequence card that may have been dealt in the
   current pass (by their place in the sequence, every card before the next one the relaxation
   will deal: in the first pass the waste and the stock dealt so far; after a redeal the real
   stock also has the cards the relaxation took, among its own) of which some copy does not lie
   under the relaxed waste's top. If a card or a cell remains at the end, the position is lost.
   Proof: rule 6's alignment and invariant, plus "every cell the real line has emptied is empty
   in the relaxation". A real build of q onto the real top w: q is available for real, so in
   the relaxation (fewer cells are full); w is either a quilt card the real line built (its cell
   is empty in the relaxation) or a sequence card dealt in this pass. In the second case w lies
   before the next card the relaxation holds in the stock (the real stock of a pass is the
   sequence in its order, with built cards among it, and holds every card the relaxation holds),
   so it is counted as dealt, and the copy that is the real top does not lie under the relaxed
   top (a relaxed card above it would lie above it for real: the relaxed waste is a subsequence
   of the real one). Every test that lets a cell
   go only grows true within a drain (chains, emptied cells, and tops as the waste shrinks), and
   the relaxation drains to the fixed point after every deal, so it has released q (or taken
   it) by then. A real play of a quilt card from its cell: it is available and wanted, so the
   relaxation has taken it (or holds it free, released, and takes it as rule 6 does). So when
   the real line wins, no card and no cell is left.
   Checked on positions entered and on children before they count, but for one kind of child
   known to pass when its parent passed (:meth:`Search.geo_inherits`): a foundation
   move of the last copy of a rank left to place onto which no card left in the quilt builds;
   the parent's run, taking that card first, is then the child's run. It proves lost a fifth of
   the first-pass positions of deal 34 that rule 6 passes (a tenth in deal 50) and three
   quarters of the last-pass ones (a tenth).
   *Rule 7 proves every position rule 6 proves*, so while rule 7 is on rule 6 is not run
   (:meth:`Search.rules_fail`: rule 6 would be an eighth of the C search's time, and the
   positions it proves, a tenth of those it sees, rule 7 proves again). Proof: align
   the two runs on the deals of the sequence's cards; by induction, every card rule 7 has taken
   rule 6 has taken. A card fills the same slots in both (its rank's, on every foundation
   allowed for the rank), so rule 7's filled slots, its chains and its ``ok`` (the ranks that
   may leave now, which only grow with the slots) are within rule 6's, and rule 6's waste is a
   subsequence of rule 7's (rule 6 holds fewer cards, each dealt onto it in the same order). A
   quilt card rule 7 takes or releases is ``ok`` there when it is taken, so ``ok`` in rule 6,
   where it is free from the start: its rank is taken at the chain's reach (or its slots are
   already filled by its twin). A waste card rule 7 takes is its top and ``ok``: no card of
   rule 6's waste lies above it, so rule 6 takes it too (eagerness: each run drains to its fixed
   point). So a card rule 6 leaves at the end, rule 7 leaves too: on its waste or in a cell, or
   released and not ``ok``, which its last test counts. The C core checks this on every
   position it tests when built with ``-DRULE6_CHECK``; the suite checks it on positions of
   real games and synthetic ones.
   *Not sound, and not built*: keeping a released card out of a later pass until the cards
   dealt before its release have come out again (where the real card lies if it was built then):
   the real line may leave it in its cell and play it from there in that pass.

8. *A suit's own game* (:meth:`Search.suit_fails`, :func:`suit_won`; not Persian Rug). For a
   suit s, the game of s alone: the cards of the other suits are gone,
   the waste and the stock are their s cards in their order, the quilt's s cards are a *pool*
   any of which may go to a foundation whenever it is wanted there, with the same two
   foundations (the up one and the down one, each in its order: two copies of a rank, one
   for each), deals, and the redeals left. It is searched to the end (a small game: a suit has
   24 cards besides its bases; the verdicts are memoised, and the same in whatever position
   they arise). If some suit's game cannot be won, the position is lost.
   Proof: project a winning real line onto s, with the invariant "the projection's waste and
   stock are the real ones' s cards, those that were not in the quilt at the start, in their
   order; its pool the s cards from the quilt not on a foundation, wherever they lie; the
   foundations of s the same; redeals left at least the real ones". A real deal of an s card c:
   c is the real stock's top, so it is the projection's (its s cards are the real ones, minus
   the cards from the quilt, in order); a deal of another suit's card, a move of another suit's
   card, and a build (an s card from the quilt stays in the pool) are nothing. A real play of
   an s card to a foundation: from the quilt, or a quilt card built on the waste, it is a pool
   card, playable at any time; a sequence card is the real waste's top, so no card of the
   projection's waste lies above it. A redeal: the projection redeals too when its waste is
   not empty (the real stock is then the real waste in the same order, so the invariant holds);
   otherwise it keeps the redeal (more redeals left never stop a line). The real line places
   every card, so the projection places every s card: its game is won. Inside the search of a
   suit's game a card whose only destination wants it is played at once, by rule 1's argument
   (a pool card: nothing else in that game wants it or is blocked by it). Redeals past
   ``SUIT_PASSES_MAX`` (30) are counted as 30: a winning line of the suit's game redeals only
   after a pass in which a card left (else the next pass is the same), and there are 24 cards.
   It sees what rules 6 and 7 blur: the two copies of a rank go one to each foundation, and the
   order of a suit's cards in the waste and stock is kept exactly. It proves deal 117 lost at
   the opening (its clubs: 15 of the 32 stock cards), undecided after a billion nodes before,
   and a third of the positions that rules 4, 6 and 7 let through in deals 136 and 165.

9. *The joint game of the suits* (:meth:`Search.joint_fails`, :func:`joint_node`; not Persian
   Rug). Rule 8's game with every suit at once: the waste and the stock as
   they are (every suit, in their order), the quilt's cards a pool any of which may go to a
   foundation that wants it at any time, every card to one foundation (each in its order), deals
   and redeals, no builds. If it cannot be won, the position is lost. Proof: rule 8's projection
   with no suit dropped (the game's waste and stock are the real ones without the quilt cards
   built onto them, in their order; its pool the quilt's cards not on a foundation, wherever
   they lie; the foundations the same; redeals left at least the real ones), step by step as
   there. It is decided by branching on where cards go, not on moves:
   (a) *Rule 6 over the choices made.* With some cards' foundations fixed (such a card allowed on
   its own only, its twin not there), rule 6's relaxation over the cards as instances (the
   waste, the stock and the pool, each card filling its rank's slot on every foundation it is
   allowed) is an upper bound on every line of every completion of the choices: rule 6's proof,
   each card's allowed foundations still holding the one it goes to. If it leaves a card, no
   completion wins. If it clears everything and no card filled two slots, it *is* a line of
   the game (no slot was filled twice, so each card left when its one foundation had reached
   it, and filled that slot): the game is won. Else the first card x that filled two is
   branched on, x up and its twin down or the other way round; every completion is in one
   branch (one only when both are quilt cards: the two ways are the same cards in the same
   places).
   (b) *Backjumping.* A failed relaxation names the suits whose fixed pairs it needs: each
   suit's are dropped in turn and kept dropped while it still fails (the relaxation of fewer
   choices, so a bound on more completions). A branch whose failure does not need its own pair
   fails the other way round too (the same pairs above it), so that way is not searched; else
   the two failures' needs are joined, less the branch's own pair (which goes one way or the
   other: resolution).
   The test stops undecided (it proves nothing) past ``JOINT_CAP`` relaxations for branches or
   ``JOINT_DEPTH`` pairs on one branch. It sees at once what rules 6 to 8 each see apart: both
   copies placed exactly and the whole waste's order, a card of one suit over one that another
   needs. Tested against plain search of the joint game and of the whole game.
   (c) *When.* A test costs up to ``JOINT_CAP`` relaxations, dozens of positions' time, and most
   positions are settled by rules 4 and 6-8 or by a small subtree; tested on every position it
   slowed the search 25 times and left more deals undecided within 10 s. So it is spent where
   a proof pays: on a position once ``joint_after`` nodes have been spent below it in one entry
   (checked each time a child returns; a proof ends the position there, lost, and saves the rest
   of its subtree and every later iteration's), once per position while the table keeps its
   entry (``joint_passed``). The trigger backs off while the rule fails, a quarter more nodes
   after each test that proves nothing, up to ``JOINT_AFTER_MAX``, and returns to
   ``JOINT_AFTER`` at a proof: in a deal where the joint game cuts, it is tested often; where
   it does not, it costs about a test every 10,000 nodes. Where it is tested changes no
   verdict (a proof is a proof wherever it is made), only how soon one comes.

*Children proven lost do not count.* Before a child costs a discrepancy it is tested by the table
and rules 4, 6, 7 and 8; a child proven lost is passed over (it cannot lead to a win), so the k-th
*live* child costs k. The test is lazy: an iteration with d discrepancies left tests children only
until it has found d + 1 live ones.

*Restarts* (:func:`search`). The search's time to a win is heavy-tailed in its move
order: most deals are won within a few thousand nodes, but a winnable deal the order misjudges
early can stay undecided for tens of millions (deal 34 at one redeal: undecided at 40,000,000
nodes in the heuristic order, won in 89,289 in a perturbed one). So :func:`search` runs the
heuristic order to ``FIRST_RUN`` nodes and then restarts from the root in perturbed orders
(:func:`shuffled`, salt 1, 2, ...), each to a node limit of the Luby sequence (:func:`run_limits`),
until a run decides or the budget is spent. Sound: the order decides which line is found first,
never whether one exists (an iteration explores every child, in whatever order, and its loss
proof is the same argument); a restart keeps the table's PROVEN marks (a proof holds in any
order), and its other marks become CHECKED (what they say of rules 4, 6, 7 and 8 holds in any order;
a depth mark holds only for the order it was made in). A won line is replayed as always.

*The C core* (``_search.c``, :class:`CoreSearch`, chosen by :func:`make_search`): this search
transcribed to C, the same nodes in the same order (the same children, scores and stable sorts,
rules 1-9, the table cleared at ``TT_MAX`` entries, the clock's tick every ``CLOCK_EVERY``
nodes), so the same verdict, line and node count, which tests/test_crazy_quilt_core.py checks
on openings and positions of real games of every rule set; about 50 times as many positions a
CPU second. It is optional: the package installs without a compiler and this module's search
runs; ``MUSICAL_PURE_PYTHON=1`` turns it off. Its soundness is the arguments above.

Every "won" line is replayed by the engine before it is reported (``musical_cli.solver`` does,
and so does :func:`search` itself when called directly).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol

from ...cards import SUITS, Card
from ...cores import optional_core
from ...game import Outcome
from ...moves import DEAL, REDEAL, F, Move, Transfer, W
from .rules import (
    CELLS,
    CRAZY_QUILT,
    SHORT_NEIGHBOURS,
    CrazyQuilt,
    CrazyQuiltState,
    R,
    is_progress,
    place_of,
)

# The C core (_search.c): the same search node for node, many times faster. It is built when the
# machine has a C compiler and is optional; MUSICAL_PURE_PYTHON (non-empty) turns it off. CORE
# is None when the search runs in Python.
CORE = optional_core(__package__)

LDS_MAX = 3  # LDS iterations 0..LDS_MAX before the unlimited one
TT_MAX = 1_500_000  # marks kept before the table is cleared (about 400 MB at most)
INF = 1 << 30
DEPTH_MAX = 3_000  # moves in one line of the search (Persian Rug shuffles); deeper is undecided
# Positions between reads of the clock: a position costs up to ~200 µs here, so a budget is kept
# to about 10 ms (hint's one-second answer is a few budgets in a row).
CLOCK_EVERY = 64
PROVEN = INF + 1  # a mark: every line from here was explored, none wins
CHECKED = -2  # a mark: rules 4, 6, 7 and 8 do not prove this position lost; not explored yet

SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
NBA = tuple(0 if a is None else 1 << a for a, _ in SHORT_NEIGHBOURS)
NBB = tuple(0 if b is None else 1 << b for _, b in SHORT_NEIGHBOURS)
UP_DONE = bytes([13] * 4)
DOWN_DONE = bytes([1] * 4)

WASTE_SRC = -1
RES_SRC = 100  # a reserve j (0-based) as a source is RES_SRC + j


def _builds(card: int, below: int, wrap: bool) -> bool:
    if card >> 4 != below >> 4 or not (1 <= card & 15 <= 13 and 1 <= below & 15 <= 13):
        return False
    gap = abs((card & 15) - (below & 15))
    return gap == 1 or (wrap and gap == 12)


# TARGETS[wrap][t]: the cards that go onto a card t on the waste or a reserve.
TARGETS = {wrap: tuple(frozenset(c for c in range(64) if _builds(c, t, wrap)) for t in range(64))
           for wrap in (False, True)}


class Timeout(Exception):
    """The budget ran out."""


def code(card: Card) -> int:
    return SUIT_INDEX[card.suit] * 16 + card.rank


def card_of(c: int) -> Card:
    return Card(c & 15, SUITS[c >> 4])


def to_move(m: tuple) -> Move:
    """An internal move as an engine move."""
    kind = m[0]
    if kind == "d":
        return DEAL
    if kind == "r":
        return REDEAL
    src = m[1]
    source = W if src == WASTE_SRC else R(src - RES_SRC + 1) if src >= RES_SRC else place_of(src)
    if kind == "f":
        return Transfer(source, F(m[2] + 1))
    if kind == "b":
        return Transfer(source, W)
    return Transfer(source, R(m[2] + 1))  # "R": onto reserve m[2]


def _ok_bits(u: int, d: int, u0: int, d0: int) -> int:
    """Rule 6's ranks of one suit that may leave now: u0+1..u+1 (up) and d-1..d0-1 (down)."""
    return ((((2 << (u + 1)) - (2 << u0)) | ((1 << d0) - (1 << (d - 1)))) & 0x3FFE)


# HOSTS[wrap][c]: the cards (a bit by code) that card c can be built onto (the same relation
# both ways).
HOSTS = {wrap: tuple(sum(1 << t for t in range(64) if _builds(c, t, wrap)) for c in range(64))
         for wrap in (False, True)}


def _take_reached(p: int, u: int, d: int, um: int, dm: int, u0: int, d0: int) -> tuple[int, int, int, int, int]:
    """Rule 6's first step for one suit: take the pool cards (``p``, a bit by rank) that its
    chains reach (``u`` up, ``d`` down, from real heights ``u0`` and ``d0``; ``um`` and ``dm`` the
    filled slots), each taken card extending the chains. The same step inside the run of
    :meth:`Search.relax_fails` is written out in place: it is the search's innermost loop."""
    while p:
        if p >> (u + 1) & 1:
            r = u + 1
        elif p >> (d - 1) & 1:
            r = d - 1
        else:
            break
        p &= ~(1 << r)
        if r > u0:
            um |= 1 << r
            while um >> (u + 1) & 1:
                u += 1
        if r < d0:
            dm |= 1 << r
            while dm >> (d - 1) & 1:
                d -= 1
    return p, u, d, um, dm


# Rule 8's memo of the suits' games (a verdict is the game's own, so it is kept whatever the
# position it came from); cleared when it holds this many.
SUIT_MEMO_MAX = 500_000
# Redeals beyond this many change no suit's game: a winning line needs a pass only for a card
# to leave in it, and a suit has 24 cards besides its two bases (so more passes are the same).
SUIT_PASSES_MAX = 30


def suit_won(seq: bytes, k: int, pool: int, u: int, d: int, left: int, memo: dict) -> bool:
    """Rule 8's game of one suit, searched to the end: whether it can be won. ``seq`` is the
    suit's cards of the waste (bottom first, its first ``k``) and the stock (top first) as ranks;
    ``pool`` its quilt cards (two bits a rank, a count), which may go to a foundation at any
    time; ``u`` and ``d`` the heights of its up and down foundations; ``left`` the redeals left.
    A move plays the waste top or a pool card to a foundation that needs it, deals, or redeals
    (the waste turned over, as in the game). Every line ends (each move places a card or uses a
    deal or a redeal), so a memo of verdicts is the whole search."""
    key = (seq, k, pool, u, d, left)
    got = memo.get(key)
    if got is not None:
        return got
    # A card whose one destination wants it is played at once (rule 1's argument, in this
    # game): a pool card, whose twin is on the other foundation, or the waste top likewise.
    while True:
        if u < 13 and d <= u + 1 and pool >> 2 * (u + 1) & 3:
            pool -= 1 << 2 * (u + 1)
            u += 1
        elif d > 1 and u >= d - 1 and pool >> 2 * (d - 1) & 3:
            pool -= 1 << 2 * (d - 1)
            d -= 1
        elif k and seq[k - 1] == u + 1 and d <= u + 1:
            seq = seq[:k - 1] + seq[k:]
            k -= 1
            u += 1
        elif k and seq[k - 1] == d - 1 and u >= d - 1:
            seq = seq[:k - 1] + seq[k:]
            k -= 1
            d -= 1
        else:
            break
    won = u == 13 and d == 1
    if not won:
        kids = []
        if k:
            t = seq[k - 1]
            rest = seq[:k - 1] + seq[k:]
            if t == u + 1:
                kids.append((rest, k - 1, pool, u + 1, d, left))
            if t == d - 1:
                kids.append((rest, k - 1, pool, u, d - 1, left))
        if u < 13 and pool >> 2 * (u + 1) & 3:
            kids.append((seq, k, pool - (1 << 2 * (u + 1)), u + 1, d, left))
        if d > 1 and pool >> 2 * (d - 1) & 3:
            kids.append((seq, k, pool - (1 << 2 * (d - 1)), u, d - 1, left))
        if k < len(seq):
            kids.append((seq, k + 1, pool, u, d, left))
        elif k and left:
            kids.append((seq, 0, pool, u, d, left - 1))
        won = any(suit_won(*kid, memo) for kid in kids)
    memo[key] = won
    return won


# Rule 9: the relaxations one test may run for its branches (past it the test proves nothing),
# and the pairs one branch may fix. docs/crazy-quilt-solver.md has the measurements (a cap of
# 1,000 decided nothing more).
JOINT_CAP = 300
JOINT_DEPTH = 64
# Rule 9 tests a position only once this many nodes have been spent below it in one entry.
# Most positions are settled by rules 4 and 6-8 or by a small subtree, where rule 9's dozens of
# relaxations would cost more than they save; the positions that have cost this much are the ones
# whose proof is worth it. It only removes lost subtrees, so a win comes at the same node or
# sooner. The threshold backs off while the rule fails, up to JOINT_AFTER_MAX (module docstring).
JOINT_AFTER = 100
JOINT_AFTER_MAX = 10_000


def joint_relax(codes: list[int], n: int, nw: int, up: bytes, down: bytes, left: int,
                dest: list[int]) -> int:
    """Rule 9's relaxation: rule 6 over the cards as instances (``codes``: the waste bottom
    first, then the stock top first, ``n`` of them, ``nw`` on the waste; then the quilt's), with
    some foundations fixed (``dest[i]``, or -1): a card with a fixed foundation is allowed there
    only, and one whose twin is fixed on a foundation is not allowed there. 0: cards remain (no
    line of the fixed choices wins); -1: all clear with no card filling two slots (a line of the
    joint game); else 1 + the first card that filled two. The order of its takes is the quilt
    card of the lowest index that may leave, else the waste top (the C core's too)."""
    total = len(codes)
    npool = total - n
    fixed: dict[int, int] = {}
    for i in range(total):
        if dest[i] >= 0:
            fixed[codes[i]] = fixed.get(codes[i], 0) | 1 << dest[i]
    allow = [0] * total
    for i in range(total):
        if dest[i] >= 0:
            allow[i] = 1 << dest[i]
            continue
        c = codes[i]
        s, r = c >> 4, c & 15
        t = fixed.get(c, 0)
        a = 0
        if r > up[s] and not t >> s & 1:
            a |= 1 << s
        if r < down[s] and not t >> (4 + s) & 1:
            a |= 1 << (4 + s)
        allow[i] = a
    h = list(up) + list(down)
    filled = [0] * 8
    by = [[0] * 16 for _ in range(8)]  # by[f][r]: the quilt cards (a bit by index) of rank r allowed on f
    ready = 0  # the quilt cards that may leave (a chain has reached them)
    for k in range(npool):
        i = n + k
        c = codes[i]
        s, r = c >> 4, c & 15
        if allow[i] >> s & 1:
            by[s][r] |= 1 << k
            if h[s] >= r - 1:
                ready |= 1 << k
        if allow[i] >> (4 + s) & 1:
            by[4 + s][r] |= 1 << k
            if h[4 + s] <= r + 1:
                ready |= 1 << k
    gone = 0
    first = -1
    stack = list(range(nw))
    tail = list(range(nw, n))
    passes = left + 1
    t = -1
    while True:
        if t >= 0:
            stack.append(tail[t])  # a deal
        while True:  # drain: the lowest quilt card that may leave, else the top
            rd = ready & ~gone
            if rd:
                k = (rd & -rd).bit_length() - 1
                gone |= 1 << k
                i = n + k
            elif stack:
                i = stack[-1]
                c = codes[i]
                s, r = c >> 4, c & 15
                if not ((allow[i] >> s & 1 and h[s] >= r - 1) or (allow[i] >> (4 + s) & 1 and h[4 + s] <= r + 1)):
                    break
                stack.pop()
            else:
                break
            c = codes[i]
            s, r = c >> 4, c & 15
            a = allow[i]
            if a >> s & 1:
                filled[s] |= 1 << r
                while filled[s] >> (h[s] + 1) & 1:
                    h[s] += 1
                    ready |= by[s][h[s] + 1]
            if a >> (4 + s) & 1:
                f = 4 + s
                filled[f] |= 1 << r
                while h[f] > 1 and filled[f] >> (h[f] - 1) & 1:
                    h[f] -= 1
                    ready |= by[f][h[f] - 1]
            if first < 0 and a >> s & 1 and a >> (4 + s) & 1:
                first = i
        t += 1
        if t == len(tail):  # the stock is out: turn the relaxed waste over while redeals are left
            if not stack:
                break
            passes -= 1
            if not passes:
                break
            tail = stack
            stack = []
            t = 0
    if stack or gone != (1 << npool) - 1:
        return 0
    return -1 if first < 0 else 1 + first


class JointCap(Exception):
    """Rule 9's test ran past its cap (or its depth): it proves nothing."""


def joint_node(codes: list[int], twin: list[int], n: int, nw: int, up: bytes, down: bytes, left: int,
               dest: list[int], depth: int, suits: list[int], count: list[int]) -> tuple[bool, int]:
    """Rule 9's search of the joint game: (won, conflict). ``won`` False: no choice of the pairs
    not fixed in ``dest`` wins, and ``conflict`` has a bit for every depth of the branch whose
    fixed pair that failure needs (backjumping: a branch whose failure does not need its own pair
    fails the other way round too). Raises JointCap past the cap or the depth."""
    count[0] += 1
    if count[0] > JOINT_CAP:
        raise JointCap
    got = joint_relax(codes, n, nw, up, down, left, dest)
    if got < 0:
        return True, 0
    total = len(codes)
    if got == 0:
        # the suits whose fixed pairs the failure needs: each suit's dropped in turn, kept
        # dropped while the relaxation still fails
        d = list(dest)
        need = 0
        for t in range(4):
            dropped = False
            for i in range(total):
                if d[i] >= 0 and codes[i] >> 4 == t:
                    dropped = True
                    d[i] = -1
            if not dropped or joint_relax(codes, n, nw, up, down, left, d) == 0:
                continue
            need |= 1 << t
            for i in range(total):
                if codes[i] >> 4 == t:
                    d[i] = dest[i]
        return False, sum(1 << k for k in range(depth) if need >> suits[k] & 1)
    if depth >= JOINT_DEPTH:
        raise JointCap
    x = got - 1
    y = twin[x]
    s = codes[x] >> 4
    suits[depth] = s
    acc = 0
    for a in (s, 4 + s):
        d = list(dest)
        d[x] = a
        d[y] = 4 + s if a == s else s
        won, conflict = joint_node(codes, twin, n, nw, up, down, left, d, depth + 1, suits, count)
        if won:
            return True, 0
        if not conflict >> depth & 1:  # the failure holds whichever way this pair goes
            return False, conflict
        acc |= conflict
        if x >= n and y >= n:  # both in the quilt: the other way round is the same
            break
    return False, acc & ~(1 << depth)


class Search:
    """One search from one position. States are tuples: ``(occ, waste, stock, up, down, left)``
    or, in Persian Rug, ``(occ, reserves, up, down)``."""

    def __init__(self, state: CrazyQuiltState, budget: float | None = None,
                 progress: Callable[[int, float], None] | None = None, max_nodes: int | None = None,
                 salt: int = 0):
        self.max_nodes = max_nodes
        self.salt = salt  # 0: the heuristic order; else a restart's perturbation of it (shuffled)
        self.quilt = tuple(0 if c is None else code(c) for c in state.quilt)
        self.wrap = state.rules.wrap
        self.persian = state.rules.reserves
        self.safe = not self.wrap  # rules 1 and 2
        self.stuck_rule = True  # rule 4
        self.relax_rule = True  # rule 6
        self.geo_rule = True  # rule 7
        self.suit_rule = True  # rule 8
        self.joint_rule = True  # rule 9
        self.prefilter = True  # children proven lost are dropped before the order counts
        self.order = True  # the heuristic order (off: the engine's order, for tests)
        self.cost_index = True  # the k-th child spends k discrepancies (else 1)
        occ = sum(1 << c for c in range(CELLS) if state.quilt[c] is not None)
        up = bytes(len(state.foundations[i]) for i in range(4))
        down = bytes(14 - len(state.foundations[4 + i]) for i in range(4))
        if self.persian:
            self.root: tuple = (occ, tuple(bytes(code(c) for c in r) for r in state.reserves), up, down)
        else:
            self.root = (occ, bytes(code(c) for c in state.waste), bytes(code(c) for c in state.stock),
                         up, down, state.redeals_left)
        self.avail_cache: dict[int, tuple[int, ...]] = {}
        self.suit_pools: dict[int, tuple[int, ...]] = {}
        self.suit_memo: dict[tuple, bool] = {}
        self.pools: dict[int, tuple[int, ...]] = {}
        self.targets = TARGETS[self.wrap]
        self.hosts = HOSTS[self.wrap]
        self.tt: dict[bytes, int] = {}
        self.joint_passed: set[bytes] = set()  # keys of entries that rule 9 did not prove lost
        self.joint_after = JOINT_AFTER  # rule 9's trigger now (it backs off while it fails)
        self.path: set[bytes] = set()
        self.too_deep = False
        self.nodes = 0
        self.start = time.perf_counter()
        self.deadline = None if budget is None else self.start + budget
        self.progress = progress
        self.next_report = self.start + 0.15

    # -- the quilt --------------------------------------------------------------------------
    def avail(self, occ: int) -> tuple[int, ...]:
        got = self.avail_cache.get(occ)
        if got is None:
            got = tuple(c for c in range(CELLS) if occ >> c & 1 and (
                not NBA[c] or not occ & NBA[c] or not NBB[c] or not occ & NBB[c]))
            if len(self.avail_cache) > 200_000:
                self.avail_cache.clear()
            self.avail_cache[occ] = got
        return got

    def frees(self, occ: int, cell: int) -> int:
        """How many quilt cards become available when ``cell`` empties."""
        return len(self.avail(occ & ~(1 << cell))) - len(self.avail(occ)) + 1

    def _uncovers(self, occ: int, cell: int, av: tuple[int, ...]) -> tuple[int, int]:
        """For the move order: minus the wanted cards and minus all the cards that emptying
        ``cell`` makes available."""
        new = [x for x in self.avail(occ & ~(1 << cell)) if x not in av]
        quilt = self.quilt
        wanted = self.wanted
        return (-sum(quilt[x] in wanted for x in new), -len(new))

    def builds(self, card: int, below: int) -> bool:
        return card in self.targets[below]

    # -- keys -------------------------------------------------------------------------------
    def key(self, st: tuple) -> bytes:
        if self.persian:
            occ, reserves, up, down = st
            return occ.to_bytes(8, "little") + up + down + b"\xff".join(sorted(reserves))
        occ, waste, stock, up, down, left = st
        return occ.to_bytes(8, "little") + up + down + bytes((left, len(waste))) + waste + stock

    @staticmethod
    def won(st: tuple) -> bool:
        return st[-3 if len(st) == 6 else 2] == UP_DONE and st[-2 if len(st) == 6 else 3] == DOWN_DONE

    # -- moves ------------------------------------------------------------------------------
    def children(self, st: tuple) -> list[tuple[tuple, tuple]]:
        """(move, next state) pairs in the heuristic order; one pair when a move is safe."""
        return self._persian_children(st) if self.persian else self._children(st)

    def _foundation(self, st: tuple, sources: list[tuple[int, int]]) -> tuple[list, tuple | None]:
        """Foundation moves of (source, card) pairs: all of them, and a safe one or None."""
        if self.persian:
            up, down = st[2], st[3]
        else:
            up, down = st[3], st[4]
        wanted: dict[int, int] = {}  # card -> 1 (up wants it), 2 (down), 3 (both)
        for s in range(4):
            if up[s] < 13:
                wanted[s * 16 + up[s] + 1] = 1
            if down[s] > 1:
                c = s * 16 + down[s] - 1
                wanted[c] = wanted.get(c, 0) | 2
        self.wanted = wanted
        out: list[tuple[str, int, int]] = []
        pairs: set[int] = set()
        safe = self.safe
        for src, c in sources:
            w = wanted.get(c)
            if w is None:
                continue
            s, r = c >> 4, c & 15
            if w & 1:
                if safe and down[s] <= r:
                    return out, ("f", src, s)
                out.append(("f", src, s))
            if w & 2:
                if safe and up[s] >= r:
                    return out, ("f", src, 4 + s)
                out.append(("f", src, 4 + s))
            if w == 3 and safe:  # rule 2: the second copy of a card both foundations want
                if c in pairs:
                    return out, ("f", src, s)
                pairs.add(c)
        return out, None

    def _apply_foundation(self, st: tuple, m: tuple) -> tuple:
        _, src, dest = m
        if self.persian:
            occ, reserves, up, down = st
        else:
            occ, waste, stock, up, down, left = st
        s = dest & 3
        if dest < 4:
            up = up[:s] + bytes((up[s] + 1,)) + up[s + 1:]
        else:
            down = down[:s] + bytes((down[s] - 1,)) + down[s + 1:]
        if src == WASTE_SRC:
            return (occ, waste[:-1], stock, up, down, left)
        if src >= RES_SRC:
            j = src - RES_SRC
            reserves = reserves[:j] + (reserves[j][:-1],) + reserves[j + 1:]
            return (occ, reserves, up, down)
        occ &= ~(1 << src)
        return (occ, reserves, up, down) if self.persian else (occ, waste, stock, up, down, left)

    def _children(self, st: tuple) -> list[tuple[tuple, tuple]]:
        occ, waste, stock, up, down, left = st
        quilt = self.quilt
        av = self.avail(occ)
        top = waste[-1] if waste else 0
        sources = ([(WASTE_SRC, top)] if top else []) + [(c, quilt[c]) for c in av]
        plays, safe = self._foundation(st, sources)
        if safe is not None:
            return [(safe, self._apply_foundation(st, safe))]
        if self.order:
            plays.sort(key=lambda m: (-99, 0) if m[1] == WASTE_SRC else self._uncovers(occ, m[1], av))
        kids = [(m, self._apply_foundation(st, m)) for m in plays]
        freeing: list[tuple[tuple, tuple]] = []
        other: list[tuple[tuple, tuple]] = []
        if top:
            targets = self.targets[top]
            wanted = self.wanted
            avail = set(av)
            ranked: list[tuple[tuple[int, int], tuple, tuple]] = []
            for c in av:
                if quilt[c] in targets:
                    m = ("b", c)
                    nxt = (occ & ~(1 << c), waste + bytes((quilt[c],)), stock, up, down, left)
                    if not self.order:
                        other.append((m, nxt))
                        continue
                    new = [x for x in self.avail(nxt[0]) if x not in avail]
                    if new:
                        # One step ahead: builds that uncover a card a foundation wants first.
                        ranked.append(((-sum(quilt[x] in wanted for x in new), -len(new)), m, nxt))
                    else:
                        other.append((m, nxt))
            ranked.sort(key=lambda t: t[0])
            freeing = [(m, nxt) for _, m, nxt in ranked]
        turn: list[tuple[tuple, tuple]] = []
        if stock:
            turn.append((("d",), (occ, waste + stock[:1], stock[1:], up, down, left)))
        elif waste and left > 0:
            turn.append((("r",), (occ, b"", waste, up, down, left - 1)))
        if not self.order:
            return kids + freeing + other + turn
        if left > 0:
            return kids + freeing + turn + other
        return kids + turn + freeing + other

    def _persian_children(self, st: tuple) -> list[tuple[tuple, tuple]]:
        occ, reserves, up, down = st
        quilt = self.quilt
        av = self.avail(occ)
        sources = [(RES_SRC + j, r[-1]) for j, r in enumerate(reserves) if r] + [(c, quilt[c]) for c in av]
        plays, safe = self._foundation(st, sources)
        if safe is not None:
            return [(safe, self._apply_foundation(st, safe))]
        if self.order:
            plays.sort(key=lambda m: -99 if m[1] >= RES_SRC else -self.frees(occ, m[1]))
        kids = [(m, self._apply_foundation(st, m)) for m in plays]
        empty = next((j for j, r in enumerate(reserves) if not r), None)
        onto, to_empty = [], []
        for c in av:
            card = quilt[c]
            rest = occ & ~(1 << c)
            for j, r in enumerate(reserves):
                if r and self.builds(card, r[-1]):
                    onto.append((("R", c, j), (rest, reserves[:j] + (r + bytes((card,)),) + reserves[j + 1:],
                                               up, down)))
            if empty is not None:
                to_empty.append((("R", c, empty), (rest, reserves[:empty] + (bytes((card,)),) + reserves[empty + 1:],
                                                   up, down)))
        shuffles = []
        for j, r in enumerate(reserves):
            if not r:
                continue
            card = r[-1]
            for k, other in enumerate(reserves):
                if k == j or (not other and (k != empty or len(r) == 1)):
                    continue
                if other and not self.builds(card, other[-1]):
                    continue
                new = list(reserves)
                new[j] = r[:-1]
                new[k] = other + bytes((card,))
                shuffles.append((("R", RES_SRC + j, k), (occ, tuple(new), up, down)))
        if not self.order:
            return kids + onto + to_empty + shuffles
        # One step ahead: moves that uncover a card a foundation wants first (the foundations do
        # not change, so neither does what they want), then builds, empty reserves, shuffles.
        wanted = self.wanted
        avail = set(av)
        scored = []
        for rank, group in enumerate((onto, to_empty, shuffles)):
            for m, nxt in group:
                src = m[1]
                if src >= RES_SRC:
                    below = reserves[src - RES_SRC]
                    shows = 1 if len(below) > 1 and below[-2] in wanted else 0
                    score = (-shows, rank, 0)
                else:
                    new = [c for c in self.avail(nxt[0]) if c not in avail]
                    score = (-sum(quilt[c] in wanted for c in new), rank, -len(new))
                scored.append((score, m, nxt))
        scored.sort(key=lambda t: t[0])
        return kids + [(m, nxt) for _, m, nxt in scored]

    # -- rule 4 -----------------------------------------------------------------------------
    def stuck(self, st: tuple) -> bool:
        """Rule 4: in the last pass, some waste card can never leave the waste."""
        occ, waste, stock, up, down, left = st
        below = [0] * 64
        for c in waste:
            s, r = c >> 4, c & 15
            u, d = up[s], down[s]
            ok = False
            if u < r:  # up may still take it: every rank between must have a copy not under c
                ok = all(2 - (u >= k) - (d <= k) > below[s * 16 + k] for k in range(u + 1, r))
            if not ok and d > r:
                ok = all(2 - (u >= k) - (d <= k) > below[s * 16 + k] for k in range(r + 1, d))
            if not ok:
                return True
            below[c] += 1
        return False

    def pool_of(self, occ: int) -> tuple[int, ...]:
        """The ranks (a bit each) of each suit's cards in the quilt."""
        return self._by_suit(occ, self.pools, False)

    def _by_suit(self, occ: int, cache: dict[int, tuple[int, ...]], counts: bool) -> tuple[int, ...]:
        """Each suit's quilt cards in the cells of ``occ``: a bit a rank, or (``counts``, for
        rule 8) two bits a rank holding how many; kept in ``cache``."""
        got = cache.get(occ)
        if got is None:
            quilt = self.quilt
            p = [0, 0, 0, 0]
            o = occ
            while o:
                low = o & -o
                c = quilt[low.bit_length() - 1]
                if counts:
                    p[c >> 4] += 1 << 2 * (c & 15)
                else:
                    p[c >> 4] |= 1 << (c & 15)
                o ^= low
            got = tuple(p)
            if len(cache) > 200_000:
                cache.clear()
            cache[occ] = got
        return got

    def relax_fails(self, st: tuple) -> bool:
        """Rule 6: the relaxation (quilt cards free, a card fills its rank's slot on every
        foundation allowed to take it) cannot clear the waste and the stock in the passes left:
        the position is lost. Per suit, slots are bits by rank and a chain is the top of a
        foundation's run of filled slots (``uh`` up, ``dh`` down); ``ok`` has a bit for every
        card code the relaxation may take now."""
        occ, waste, stock, up, down, left = st
        pool = list(self.pool_of(occ))
        uh = list(up)
        dh = list(down)
        upm = [(2 << u) - 1 for u in up]  # ranks 0..u: the slots filled on each up foundation
        dnm = [0x7FFF ^ ((1 << d) - 1) for d in down]  # ranks d..14 on each down foundation
        ok = 0
        for s in range(4):
            u = u0 = up[s]
            d = d0 = down[s]
            p, u, d, um, dm = _take_reached(pool[s], u, d, upm[s], dnm[s], u0, d0)
            pool[s], uh[s], dh[s], upm[s], dnm[s] = p, u, d, um, dm
            # ranks u0+1..u+1 (up) and d-1..d0-1 (down) may leave now
            ok |= ((((2 << (u + 1)) - (2 << u0)) | ((1 << d0) - (1 << (d - 1)))) & 0x3FFE) << (16 * s)
        stack = list(waste)
        passes = left + 1
        tail = stock
        while True:
            for c in (None, *tail):
                if c is not None:
                    if not ok >> c & 1:
                        stack.append(c)
                        continue
                elif not stack or not ok >> stack[-1] & 1:
                    continue
                else:
                    c = stack.pop()
                while True:  # c leaves: fill its slots, extend the chains, then the next top
                    s, r = c >> 4, c & 15
                    u, d, u0, d0 = uh[s], dh[s], up[s], down[s]
                    um, dm, p = upm[s], dnm[s], pool[s]
                    while True:
                        if r > u0:
                            um |= 1 << r
                            while um >> (u + 1) & 1:
                                u += 1
                        if r < d0:
                            dm |= 1 << r
                            while dm >> (d - 1) & 1:
                                d -= 1
                        if p >> (u + 1) & 1:
                            r = u + 1
                        elif p >> (d - 1) & 1:
                            r = d - 1
                        else:
                            break
                        p &= ~(1 << r)
                    pool[s], uh[s], dh[s], upm[s], dnm[s] = p, u, d, um, dm
                    shift = 16 * s
                    ok = (ok & ~(0xFFFF << shift)) | (
                        ((((2 << (u + 1)) - (2 << u0)) | ((1 << d0) - (1 << (d - 1)))) & 0x3FFE) << shift)
                    if not stack or not ok >> stack[-1] & 1:
                        break
                    c = stack.pop()
            passes -= 1
            if not stack or not passes:
                break
            tail = bytes(stack)
            stack = []
        if stack:
            return True
        return any(pool[s] & ~(ok >> (16 * s)) for s in range(4))

    def geo_fails(self, st: tuple) -> bool:
        """Rule 7: the relaxation of rule 6 with the quilt's geometry kept. A quilt card leaves
        its cell only when it is available there, either to the foundations (when rule 6 would
        take it) or *released* (then free, as every quilt card is in rule 6) when a card it
        could be built onto may be the real waste top: the card of an emptied cell, or a dealt
        card of the sequence not lying under the relaxed waste's top. The sequence cards dealt
        in the current pass are those at its positions up to the one being dealt (a new pass
        starts with none). Slots, chains and ``ok`` are rule 6's."""
        occ, waste, stock, up, down, left = st
        quilt = self.quilt
        hosts = self.hosts
        seq = waste + stock
        uh = list(up)
        dh = list(down)
        upm = [(2 << u) - 1 for u in up]
        dnm = [0x7FFF ^ ((1 << d) - 1) for d in down]
        ok = 0
        for s in range(4):
            ok |= _ok_bits(up[s], down[s], up[s], down[s]) << (16 * s)
        pool = [0, 0, 0, 0]  # released quilt cards, a bit by rank
        o = occ  # the cells the relaxation has not emptied
        seen = 0  # the cards of the emptied cells (a bit by code)
        dealt = [0] * 64  # copies of a card dealt in this pass
        under = [0] * 64  # copies of a card in the relaxed waste below its top
        top_ok = 0  # the cards with a dealt copy not under the relaxed top (a bit by code)
        stack = list(range(len(waste)))  # positions in seq, bottom first
        for i, c in enumerate(waste):
            dealt[c] += 1
            if i < len(waste) - 1:
                under[c] += 1
        for c in set(waste):
            if dealt[c] > under[c]:
                top_ok |= 1 << c

        def take(c: int) -> None:
            nonlocal ok
            s, r = c >> 4, c & 15
            u, d, u0, d0 = uh[s], dh[s], up[s], down[s]
            um, dm, p = upm[s], dnm[s], pool[s]
            while True:
                if r > u0:
                    um |= 1 << r
                    while um >> (u + 1) & 1:
                        u += 1
                if r < d0:
                    dm |= 1 << r
                    while dm >> (d - 1) & 1:
                        d -= 1
                if p >> (u + 1) & 1:
                    r = u + 1
                elif p >> (d - 1) & 1:
                    r = d - 1
                else:
                    break
                p &= ~(1 << r)
            pool[s], uh[s], dh[s], upm[s], dnm[s] = p, u, d, um, dm
            shift = 16 * s
            ok = (ok & ~(0xFFFF << shift)) | (_ok_bits(u, d, u0, d0) << shift)

        def drain() -> None:
            # Everything eagerly, to the fixed point: within it every test only grows true
            # (chains, emptied cells, and the tops as the waste shrinks).
            nonlocal o, seen, top_ok
            while True:
                changed = True
                while changed:
                    changed = False
                    av = o
                    while av:
                        low = av & -av
                        av ^= low
                        x = low.bit_length() - 1
                        if NBA[x] and o & NBA[x] and NBB[x] and o & NBB[x]:
                            continue  # not available
                        q = quilt[x]
                        if ok >> q & 1:
                            o ^= low
                            seen |= 1 << q
                            take(q)
                            changed = True
                        elif hosts[q] & (seen | top_ok):
                            o ^= low
                            seen |= 1 << q
                            pool[q >> 4] |= 1 << (q & 15)
                            changed = True
                if not stack or not ok >> seq[stack[-1]] & 1:
                    return
                c = seq[stack.pop()]
                if stack:
                    t = seq[stack[-1]]
                    under[t] -= 1
                    top_ok |= 1 << t
                take(c)

        j = len(waste)  # the next position of seq whose card counts as dealt
        drain()
        passes = left + 1
        tail = list(range(len(waste), len(seq)))
        while True:
            # The real line may have dealt, in this pass, every card of the sequence before the
            # next one the relaxation holds: after a redeal the real stock has the cards the
            # relaxation took among its own (in the first pass the two stocks are the same).
            if tail and j < tail[0]:
                while j < tail[0]:
                    c = seq[j]
                    dealt[c] += 1
                    top_ok |= 1 << c  # none lies in the relaxed waste, which is empty
                    j += 1
                drain()
            for k, pos in enumerate(tail):
                limit = tail[k + 1] if k + 1 < len(tail) else len(seq)
                while j < limit:
                    c = seq[j]
                    dealt[c] += 1
                    if dealt[c] > under[c]:
                        top_ok |= 1 << c
                    j += 1
                c = seq[pos]
                if ok >> c & 1:
                    take(c)
                else:
                    if stack:
                        t = seq[stack[-1]]
                        under[t] += 1
                        if dealt[t] <= under[t]:
                            top_ok &= ~(1 << t)
                    stack.append(pos)
                drain()
            passes -= 1
            if not stack or not passes:
                break
            tail, stack = stack, []
            dealt = [0] * 64
            under = [0] * 64
            top_ok = 0
            j = 0
        if stack or o:
            return True
        return any(pool[s] & ~(ok >> (16 * s)) for s in range(4))

    # -- rule 8 -----------------------------------------------------------------------------
    def suit_fails(self, st: tuple) -> bool:
        """Rule 8: some suit's own game (the other suits' cards gone, its quilt cards a free
        pool: :func:`suit_won`) cannot be won, so neither can the position."""
        occ, waste, stock, up, down, left = st
        seqs = [bytearray(), bytearray(), bytearray(), bytearray()]
        for c in waste:
            seqs[c >> 4].append(c & 15)
        nw = [len(q) for q in seqs]
        for c in stock:
            seqs[c >> 4].append(c & 15)
        pools = self._by_suit(occ, self.suit_pools, True)
        memo = self.suit_memo
        if len(memo) > SUIT_MEMO_MAX:
            memo.clear()
        left = min(left, SUIT_PASSES_MAX)
        return any(not suit_won(bytes(seqs[s]), nw[s], pools[s], up[s], down[s], left, memo)
                   for s in range(4))

    def joint_fails(self, st: tuple) -> bool:
        """Rule 9: the joint game of the suits (the quilt a free pool, every card to one
        foundation) cannot be won, so neither can the position; undecided past ``JOINT_CAP``."""
        codes, twin = self.joint_cards(st)
        occ, waste, stock, up, down, left = st
        try:
            won, _ = joint_node(codes, twin, len(waste) + len(stock), len(waste), up, down, left,
                                [-1] * len(codes), 0, [0] * JOINT_DEPTH, [0])
        except JointCap:
            return False
        return not won

    def joint_cards(self, st: tuple) -> tuple[list[int], list[int]]:
        """Rule 9's instances: the codes of the waste (bottom first), the stock (top first) and
        the quilt's cards in the order of their cells; and each one's twin (the other copy's
        index, or -1)."""
        occ, waste, stock = st[0], st[1], st[2]
        quilt = self.quilt
        codes = list(waste) + list(stock)
        o = occ
        while o:
            low = o & -o
            codes.append(quilt[low.bit_length() - 1])
            o ^= low
        twin = [-1] * len(codes)
        seen: dict[int, int] = {}
        for i, c in enumerate(codes):
            if c in seen:
                twin[i], twin[seen[c]] = seen[c], i
            else:
                seen[c] = i
        return codes, twin

    # -- the search -------------------------------------------------------------------------
    def tick(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise Timeout
        now = time.perf_counter()
        if self.progress is not None and now >= self.next_report:
            self.next_report = now + 0.15
            self.progress(self.nodes, now - self.start)
        if self.deadline is not None and now >= self.deadline:
            raise Timeout

    def rules_fail(self, st: tuple, alive: bool = False, geo_ok: bool = False) -> bool:
        """Rules 4, 6, 7 and 8 on a position that is not Persian Rug's. Rule 6 runs only while
        rule 7 is off: rule 7 proves lost every position rule 6 does (the module docstring, rule
        7). ``alive``: rule 6 is known to pass; ``geo_ok``: rule 7 is (:meth:`geo_inherits`)."""
        return bool((self.stuck_rule and st[5] == 0 and st[1] and self.stuck(st))
                    or (self.geo_rule and not geo_ok and self.geo_fails(st))
                    or (self.relax_rule and not self.geo_rule and not alive and self.relax_fails(st))
                    or (self.suit_rule and self.suit_fails(st)))

    def dead(self, st: tuple, alive: bool = False, geo_ok: bool = False) -> bool:
        """Whether ``st`` is proven lost by the table or by rules 4, 6, 7 and 8 (marked so if newly;
        ``alive``: rule 6 is known to pass; ``geo_ok``: rule 7 is)."""
        key = self.key(st)
        mark = self.tt.get(key, -1)
        if mark == PROVEN:
            return True
        if mark >= 0:
            return False
        if self.rules_fail(st, alive, geo_ok):
            if len(self.tt) >= TT_MAX:
                self.clear_table()
            self.tt[key] = PROVEN
            return True
        if len(self.tt) >= TT_MAX:
            self.clear_table()
        self.tt[key] = CHECKED
        return False

    def clear_table(self) -> None:
        """Empty the transposition table (it holds ``TT_MAX`` entries), and what its entries
        say of rule 9."""
        self.tt.clear()
        self.joint_passed.clear()

    def last_copy(self, st: tuple, m: tuple) -> bool:
        """Whether foundation move ``m`` plays the last copy of its rank left to place (the
        other is on a foundation): then no card's allowed foundations change, the parent's
        relaxation (rule 6) takes that card at once, and so the child's relaxation is the
        parent's. A child of a position that rule 6 passed needs no check of its own."""
        src = m[1]
        c = st[1][-1] if src == WASTE_SRC else self.quilt[src]
        s, r = c >> 4, c & 15
        return not st[3][s] < r < st[4][s]

    def geo_inherits(self, st: tuple, m: tuple) -> bool:
        """Whether foundation move ``m``'s child passes rule 7 when ``st`` does: ``m`` plays the
        last copy of its rank left to place, and no card left in the quilt can be built onto it.
        Rule 7's run of ``st`` may take that card first (its drain reaches the same fixed point in
        any order: every test in it only grows true), and is then the child's run: the same
        cells, the same filled slots (the card fills its rank's slot on the foundation it goes to,
        the one allowed to take the rank, as the move does), the same waste; the foundations
        allowed for every card left are the same (only the card's rank changed, and none of it is
        left), and the card itself, which the parent's run counts as seen or dealt, could only
        matter to a quilt card built onto it, and there is none."""
        if not self.last_copy(st, m):
            return False
        src = m[1]
        c = st[1][-1] if src == WASTE_SRC else self.quilt[src]
        occ = st[0] if src == WASTE_SRC else st[0] & ~(1 << src)
        hosts, quilt = self.hosts, self.quilt
        while occ:
            low = occ & -occ
            if hosts[quilt[low.bit_length() - 1]] >> c & 1:
                return False
            occ ^= low
        return True

    def top_stuck(self, st: tuple) -> bool:
        """Whether rule 6's relaxation of ``st`` leaves the waste top where it is before its
        first deal (no chain reaches it once the pool cards they reach are taken). Then the
        relaxation of the child after the deal is the same run, step for step: the child has
        the same quilt and foundations, and its waste is the parent's with the dealt card on
        it, which is what the parent's run has after its first deal. So that child needs no
        check of its own when the parent passed."""
        occ, waste, stock, up, down, left = st
        if not waste:
            return True
        c = waste[-1]
        s, r = c >> 4, c & 15
        u = u0 = up[s]
        d = d0 = down[s]
        _, u, d, _, _ = _take_reached(self.pool_of(occ)[s], u, d, (2 << u) - 1, 0x7FFF ^ ((1 << d) - 1), u0, d0)
        return not ((r > u0 and u >= r - 1) or (r < d0 and d <= r + 1))

    def dfs(self, st: tuple, d: int, line: list, alive: bool = False,
            geo_ok: bool = False) -> tuple[bool, bool]:
        """(won, incomplete): won with ``line`` the moves; else whether any line was cut.
        ``alive``: rule 6 is known not to prove ``st`` lost; ``geo_ok``: rule 7 is."""
        self.nodes += 1
        start = self.nodes  # rule 9's trigger counts the nodes spent below st
        if not self.nodes % CLOCK_EVERY:
            self.tick()
        if self.won(st):
            return True, False
        if len(line) >= DEPTH_MAX:
            self.too_deep = True  # the unlimited iteration cannot prove a loss past this
            return False, True
        key = self.key(st)
        tt = self.tt
        mark = tt.get(key, -1)
        if mark >= d or key in self.path:
            return False, mark != PROVEN
        if len(tt) >= TT_MAX:
            self.clear_table()
        tt[key] = d
        if mark == -1 and not self.persian and self.rules_fail(st, alive, geo_ok):
            tt[key] = PROVEN
            return False, False
        kids = self.children(st)
        if self.salt and len(kids) > 1:
            kids = shuffled(kids, key, self.salt)
        # Children proven lost (rules 4, 6, 7 and 8, or the table) are passed over before they are
        # counted: a discrepancy is spent only on a child that may still win. Checked lazily:
        # an iteration with d discrepancies left looks at its first d + 1 live children only.
        check = self.prefilter and not self.persian and len(kids) > 1
        live = 0
        incomplete = False
        tested = not (self.joint_rule and JOINT_CAP > 0) or self.persian
        if self.persian:
            self.path.add(key)
        try:
            for m, nxt in kids:
                cost = live if self.cost_index else min(live, 1)
                if cost > d:
                    incomplete = True
                    break
                alive = not self.persian and self.relax_rule and not self.geo_rule and (
                    (m[0] == "f" and self.last_copy(st, m)) or (m[0] == "d" and self.top_stuck(st)))
                # st passed rule 7 (it was entered), and so does such a child
                kid_geo_ok = not self.persian and self.geo_rule and m[0] == "f" and self.geo_inherits(st, m)
                if check and self.dead(nxt, alive, kid_geo_ok):
                    continue
                live += 1
                line.append(m)
                won, cut = self.dfs(nxt, d - cost if d < INF else INF, line, alive, kid_geo_ok)
                if won:
                    return True, False
                line.pop()
                incomplete = incomplete or cut
                # Rule 9 is dear (up to JOINT_CAP relaxations): it is spent only on a position
                # that has already cost joint_after nodes (backing off while the rule fails),
                # whose proof saves the rest of its subtree and every later iteration's.
                if not tested and self.nodes - start >= self.joint_after:
                    tested = True
                    if key in self.joint_passed:
                        continue  # tested in an earlier entry
                    if self.joint_fails(st):
                        self.joint_after = JOINT_AFTER
                        incomplete = False
                        break
                    self.joint_after = min(JOINT_AFTER_MAX, self.joint_after + self.joint_after // 4)
                    if key in tt:  # not if the table was cleared below: the flag is its entry's
                        self.joint_passed.add(key)
        finally:
            if self.persian:
                self.path.discard(key)
        if not incomplete:
            tt[key] = PROVEN
        return False, incomplete

    def restart(self, salt: int) -> None:
        """Make the next :meth:`run` a restart in the order of ``salt``, keeping what this search
        has proved: a PROVEN mark holds in any order, and so does what every other mark says
        (rules 4, 6, 7 and 8 do not prove the position lost: it is entered only then), so those
        become CHECKED. An earlier order's depth marks would cut the new order's lines."""
        self.salt = salt
        self.too_deep = False
        tt = self.tt
        for key, mark in tt.items():
            if mark != PROVEN:
                tt[key] = CHECKED

    def run(self, lds: int = LDS_MAX) -> tuple[str, list]:
        """("won", internal moves) or ("lost", []); Timeout when the budget runs out."""
        limit = sys.getrecursionlimit()
        # One frame a move of the line: up to 104 plays and 32 deals a pass, and in Persian Rug
        # the reserve shuffles of a simple path, at most DEPTH_MAX in all.
        sys.setrecursionlimit(max(limit, 2 * DEPTH_MAX + 200))
        try:
            for d in [*range(lds + 1), INF]:
                line: list = []
                won, incomplete = self.dfs(self.root, d, line)
                if won:
                    return "won", line
                if not incomplete or (d == INF and not self.too_deep):
                    return "lost", []
            raise Timeout  # cut by depth: undecided
        finally:
            sys.setrecursionlimit(limit)


M64 = (1 << 64) - 1


def key_hash(key: bytes) -> int:
    """The core's hash of a transposition key (FNV-1a, then the high bits folded in)."""
    h = 1469598103934665603
    for b in key:
        h = ((h ^ b) * 1099511628211) & M64
    return h ^ (h >> 29)


def shuffled(kids: list, key: bytes, salt: int) -> list:
    """A restart's order of the children of the position with ``key``: each neighbouring pair,
    from the first, swapped when two bits of an xorshift stream are 0. The stream is seeded by
    the key and the salt, so a position has the same order each time it is entered (an LDS
    iteration's marks hold for the order they were made in)."""
    x = key_hash(key) ^ (salt * 0x9E3779B97F4A7C15 & M64)
    x = x or 1
    kids = list(kids)
    for i in range(len(kids) - 1):
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        if not x & 3:
            kids[i], kids[i + 1] = kids[i + 1], kids[i]
    return kids


class _Core(Protocol):
    """What the search asks of the C core's search object (``CORE.Core``)."""

    def run(self, tick: Callable[[int], None]) -> tuple[str, list[Any]] | None: ...

    def nodes(self) -> int: ...

    def restart(self, salt: int) -> None: ...


class CoreSearch(Search):
    """:class:`Search` run by the C core (``CORE.Core``): the same nodes in the same order, so
    the same verdict, line and node count (tests/test_crazy_quilt_core.py checks it). The core
    has the default rules only: with a switch of :class:`Search` turned off (as some tests
    do), :meth:`run` is the Python one. Its clock is this object's :meth:`Search.tick`, called
    every ``CLOCK_EVERY`` nodes, so budgets, node limits and progress reports are the same."""

    core = None  # the C search, made at the first run and kept through restarts
    NA = bytes(255 if a is None else a for a, _ in SHORT_NEIGHBOURS)
    NB = bytes(255 if b is None else b for _, b in SHORT_NEIGHBOURS)

    def defaults(self) -> bool:
        return (self.safe == (not self.wrap) and self.stuck_rule and self.relax_rule and self.geo_rule
                and self.suit_rule and self.prefilter
                and self.order and self.cost_index)

    def run(self, lds: int = LDS_MAX) -> tuple[str, list]:
        if not self.defaults():
            return super().run(lds)
        core = self.core
        if core is None:
            self.core = core = self.make_core(lds)

        def tick(nodes: int) -> None:
            self.nodes = nodes
            self.tick()

        try:
            got = core.run(tick)
        finally:
            self.nodes = core.nodes()
        if got is None:
            raise Timeout  # cut by depth: undecided
        return got

    def restart(self, salt: int) -> None:
        super().restart(salt)
        if self.core is not None:
            self.core.restart(salt)

    def core_settings(self, lds: int) -> dict[str, object]:
        """The C search's settings by the names ``CORE.Core`` takes them (keywords only): the
        game, the position, the search's limits and rule 9's."""
        if self.persian:
            occ, reserves, up, down = self.root
            piles, left = tuple(reserves), 0
        else:
            occ, waste, stock, up, down, left = self.root
            piles = (waste, stock)
        return dict(quilt=bytes(self.quilt), na=self.NA, nb=self.NB, wrap=self.wrap,
                    persian=self.persian, safe=self.safe,
                    occ=occ, up=up, down=down, piles=piles, left=left,
                    lds=lds, depth_max=DEPTH_MAX, clock_every=CLOCK_EVERY, tt_max=TT_MAX,
                    salt=self.salt,
                    joint_cap=JOINT_CAP if self.joint_rule and not self.persian else 0,
                    joint_after=JOINT_AFTER, joint_after_max=JOINT_AFTER_MAX)

    def make_core(self, lds: int) -> _Core:
        if CORE is None:
            raise RuntimeError("the C core is not built: the Python search runs instead")
        return CORE.Core(**self.core_settings(lds))


def make_search(state: CrazyQuiltState, budget: float | None = None,
                progress: Callable[[int, float], None] | None = None, max_nodes: int | None = None,
                core: bool = True, salt: int = 0) -> Search:
    """The search from ``state``: the C core's when it is built (and ``core``), else Python's."""
    if core and CORE is not None:
        return CoreSearch(state, budget, progress, max_nodes, salt)
    return Search(state, budget, progress, max_nodes, salt)


# Restarts (the module docstring says why and why they are sound). The later runs follow the Luby
# sequence (Luby, Sinclair and Zuckerman 1993: within a constant factor of the best fixed restart
# length whatever the distribution of run lengths, and growing without bound, so with no limit
# some run is long enough to prove a loss). The runs are short because the searches that matter
# most to a player are: hint's probes get under a second, about 150,000 nodes of the core, and
# with a first run of 300,000 nodes (and a unit of 150,000) they would never leave the heuristic
# order. Of 29 positions that hint's probes leave open, 150,000 nodes decide 11 with those runs
# and 20 with these (nine are winnable after all); deals 1-1000 at 3,000,000 nodes leave 13
# undecided, not 15, in two thirds of the nodes (docs/crazy-quilt-solver.md, "What was tried
# and did not pay"). A win within 20,000 nodes is the heuristic order's alone, so the deals the
# difficulty bands call easy or medium keep their node counts whatever comes after the first run.
FIRST_RUN = 20_000
RESTART_UNIT = 10_000


def luby(i: int) -> int:
    """The i-th term (i >= 1) of the Luby sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ... (2^(k-1)
    where i = 2^k - 1, else the term of i - 2^(k-1) + 1, for the k with 2^(k-1) <= i < 2^k)."""
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def run_limits():
    """The node limits of search()'s runs: run 0 (the heuristic order) and then restart i = 1, 2,
    ... (salt i)."""
    yield FIRST_RUN
    i = 1
    while True:
        yield RESTART_UNIT * luby(i)
        i += 1


def search(state: CrazyQuiltState, budget: float | None = 10.0,
           progress: Callable[[int, float], None] | None = None,
           nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
    """(result, moves, nodes): "won" with a winning line of engine moves (replayed here), "lost"
    when no line wins, "unknown" when ``budget`` seconds or ``nodes`` nodes (None: no limit) run
    out, over all the runs (see :func:`run_limits`); the nodes are the runs' together."""
    outcome = CRAZY_QUILT.outcome(state)
    if outcome is not Outcome.IN_PLAY:
        return ("won" if outcome is Outcome.WON else "lost"), (), 0
    s = make_search(state, budget, progress, None)
    for salt, length in enumerate(run_limits()):
        limit = length if nodes is None else min(length, nodes - s.nodes)
        if limit <= 0:
            return "unknown", (), s.nodes
        if salt:
            s.restart(salt)
        s.max_nodes = s.nodes + limit
        try:
            result, line = s.run()
        except Timeout:
            if s.nodes < s.max_nodes:  # the budget ran out, or a line was cut by depth
                return "unknown", (), s.nodes
            continue
        break
    moves = tuple(to_move(m) for m in line)
    if result == "won" and CRAZY_QUILT.outcome(CRAZY_QUILT.play(state, moves)) is not Outcome.WON:
        raise AssertionError("solver bug: the winning line does not win")
    return result, moves, s.nodes


# --- for the shell's auto and for stats ---------------------------------------------------


def sure_move(game: CrazyQuilt, state: CrazyQuiltState) -> Move | None:
    """A move that keeps a winnable position winnable, by a rule of the game's own, or None.
    The shell's ``auto`` adds the only legal move and the only move not proved lost by itself.

    1. A foundation move that rule 1 or 2 proves safe (never with ``wrap``: see the module's
       docstring).
    2. The deal, when the waste is empty and the stock is not (any rules; Persian Rug has no
       stock). With the waste empty nothing can be put on it, nothing played from it, and there
       is no redeal (the stock is not empty): the only other moves are quilt cards to the
       foundations. Those do not touch the stock nor the waste, and dealing changes neither the
       quilt nor the foundations, so each stays legal after the deal. Any winning line deals at
       some point (the stock's cards reach a foundation only through the waste), and before that
       deal it makes only such quilt-to-foundation moves: dealing first and then making them
       reaches the very position the line reaches after its deal, and it goes on from there.
       This is the deal at the start of every game of Crazy Quilt and Indian Carpet.
    """
    if state.complete:
        return None
    if not state.rules.wrap:
        s = Search(state)
        st = s.root
        if s.persian:
            sources = [(RES_SRC + j, r[-1]) for j, r in enumerate(st[1]) if r]
        else:
            sources = [(WASTE_SRC, st[1][-1])] if st[1] else []
        sources += [(c, s.quilt[c]) for c in s.avail(st[0])]
        _, safe = s._foundation(st, sources)
        if safe is not None:
            return to_move(safe)
    if not state.waste and state.stock:
        return DEAL
    return None


def safe_moves(state: CrazyQuiltState, limit: int = 500) -> tuple[Move, ...]:
    """Moves from ``state`` that provably never lose winnability: the only legal move (not a
    reserve-to-reserve shuffle, which could go round for ever), and the safe foundation moves of
    rules 1 and 2 (:func:`sure_move`). Stops where none holds."""
    out: list[Move] = []
    game = CRAZY_QUILT
    while len(out) < limit and game.outcome(state) is Outcome.IN_PLAY:
        legal = game.legal_moves(state)
        move = None
        if len(legal) == 1 and is_progress(legal[0]):
            move = legal[0]
        else:
            move = sure_move(game, state)
        if move is None:
            break
        out.append(move)
        state = game.apply(state, move)
    return tuple(out)


def greedy_move(state: CrazyQuiltState) -> Move | None:
    """The greedy player's move: a foundation move (the first the engine lists), else a quilt
    card onto the waste (in Persian Rug onto a non-empty reserve, else onto an empty one), else
    the deal, else the redeal; never reserve to reserve (it could go round for ever). None when
    it has no move."""
    legal = CRAZY_QUILT.legal_moves(state)
    transfers = [(m, m.target) for m in legal if isinstance(m, Transfer) and m.target is not None]
    for m, target in transfers:
        if target.kind == "f":
            return m
    for m, target in transfers:
        if target.kind == "w" or (target.kind == "r" and m.source.kind == "q"
                                  and state.reserves[target.index - 1]):
            return m
    for m, target in transfers:
        if target.kind == "r" and m.source.kind == "q":
            return m
    return next((m for m in legal if not isinstance(m, Transfer)), None)


def greedy_wins(game: CrazyQuilt, state: CrazyQuiltState) -> bool:
    """Whether the greedy player (:func:`greedy_move`) wins from ``state`` (the baseline that
    ``stats`` reports beside the solver; ``game`` is the Game object, as the hook passes it)."""
    while True:
        move = greedy_move(state)
        if move is None:
            return state.complete
        state = CRAZY_QUILT.apply(state, move)


# The measure's node limit (Game.difficulty_nodes): a tenth of the other games' 3,000,000,
# because this search is the slow one (about 120,000 nodes a CPU second deep in a one-redeal
# deal, with the core): at 3,000,000 a deal it cannot decide cost 25 s to rate, and a row of
# 10,000 deals four hours of both cores. At 300,000 it costs 2.5 s, and of deals 1-484 at one
# redeal the limit leaves undecided 3 of the 419 that 3,000,000 nodes win (docs/difficulty.md).
DIFFICULTY_NODES = 300_000

# The deals' difficulty bands (musical_cli.advice.rating): rules -> the most nodes of an easy
# deal's win, of a medium one's; thirds of the winnable deals, measured by bench/difficulty.py
# from the winnability rows' files (docs/difficulty.md). They are this search's node counts: a
# change to the search is a new calibration.
DIFFICULTY_BANDS = {
    CRAZY_QUILT.rules_type(redeals=1): (317, 1_579),  # deals 1-10,000; rule 9 keeps them
    CRAZY_QUILT.rules_type(redeals=2): (184, 199),  # Indian Carpet, deals 1-10,000, with rule 8
    CRAZY_QUILT.rules_type(reserves=True): (118, 554),  # Persian Rug, deals 1-10,000, the shorter runs
}
# How many of the deals the bands were calibrated on the measure proves lost (docs/difficulty.md):
# where none is, no deal is known to be lost, and a lost deal is not searched for.
DIFFICULTY_LOST = {
    CRAZY_QUILT.rules_type(redeals=1): 16,
    CRAZY_QUILT.rules_type(redeals=2): 0,
    CRAZY_QUILT.rules_type(reserves=True): 6,
}
