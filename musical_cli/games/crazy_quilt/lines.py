"""Persian Rug's winning lines planned again (``Game.shorter_line``): the same progress, the
reserve shuffles found anew, each as short as it can be.

The search (:mod:`.solver`) tries reserve-to-reserve moves last and goes depth first, so where
the cards it needs are not at hand its line wanders through hundreds of arrangements of the
reserves, each a move. Yet only a few things about the reserves matter to a line:

**The steps.** Cut a winning line into its *steps*, the moves that are not reserve to reserve
(a quilt card to a foundation, a quilt card onto a reserve, a reserve's top card to a
foundation), each after a *block* of reserve-to-reserve moves. Reserve-to-reserve moves change
nothing but the order of the reserves' cards; so a line that makes the same steps in the same
order keeps the quilt and the foundations the same as the old line's at every step, and the
reserves holding the same cards. A step is then legal whatever the reserves' order, except
that a reserve card must be on top of some reserve to leave it, and a quilt card put onto a
reserve needs one that is empty or whose top card is of its suit and one rank from it
(:func:`.rules.builds_on`). Which reserve does not matter: it is named when the step is made.

**The plan.** From the start, step by step: the fewest reserve-to-reserve moves to an
arrangement where the step can be made (an A* search, :meth:`_Planner.nearest`, guided by the
cards that must move off at least once), then the step. Arrangements that are the same piles on
other reserves are one (the moves of one are the other's, renamed). Among the nearest
arrangements, and among the reserves a quilt card can go onto, the one that buries the fewest
cards under cards needed later (a card above one that leaves the reserves first must move off
it: a move the plan will have to make).

**Keeping to the old line.** A plan that goes its own way can reach an arrangement where a step
cannot be made within reach (no empty reserve, tops that build only on each other). So the plan
keeps to the old line while it can: where its arrangement is the old line's (the same piles,
maybe on other reserves) it makes the old line's block, renamed, unless a shorter way to the
step exists; when it went its own way, it looks at every step whether it is back on the old
line's arrangement, and there it keeps the shorter of its way and the old line's since they
parted. When a step cannot be made within reach (the searches' budgets: STEP_BUDGET
arrangements for one step, BUDGET for the whole line), it goes back to where it parted from the old line and follows the old
line's block there. Nothing of this is trusted: :func:`musical_cli.lines.shorten` replays the
plan and keeps it only when it wins and is shorter.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...cards import Card
from ...moves import Move, Place, Transfer
from .rules import RESERVE, SUITS, CrazyQuiltState, R, cell_of

# Arrangements of the reserves the searches may reach for one line, and for one step; a search
# that runs out is a step that cannot be made within reach. On the 400 mid-game positions of
# bench/lines.py (seeds 1 and 2) a line's plan reached 67 arrangements on average, 780 at most.
BUDGET = 8_000
STEP_BUDGET = 2_000
# Nearest arrangements compared for the one that buries fewest cards.
CHOICES = 8
LATER = 1 << 30  # the step at which a card never needed again is needed

Arrangement = tuple[tuple[int, ...], ...]  # each reserve's cards, bottom first, as codes


class _Stuck(Exception):
    """No arrangement within reach lets the step be made."""


def _code(card: Card) -> int:
    return SUITS.index(card.suit) * 16 + card.rank


@dataclass(frozen=True)
class _Step:
    block: tuple[Move, ...]  # the old line's reserve-to-reserve moves before the step
    move: Move  # the step as the old line made it
    kind: str  # "qf": quilt to foundation, "qr": quilt onto a reserve, "rf": reserve to foundation
    card: int  # the card's code (0 for "qf")
    after: Arrangement  # the old line's reserves after the step


def _steps(state: CrazyQuiltState, moves: Sequence[Move]) -> list[_Step] | None:
    """The old line cut into steps; None when it ends with reserve-to-reserve moves (a won line
    never does). Only the reserves are followed, as codes: a quilt card is the one dealt to its
    cell (cards never go back to the quilt), and the line is a winning line, legal throughout."""
    steps = []
    block: list[Move] = []
    piles = [list(pile) for pile in _arrangement(state)]
    for move in moves:
        if not isinstance(move, Transfer) or move.target is None:
            return None
        source, target = move.source, move.target
        if source.kind == RESERVE:
            card = piles[source.index - 1].pop()
        else:
            cell = cell_of(source)
            dealt = None if cell is None else state.quilt[cell]
            if dealt is None:
                return None  # not a line from this position
            card = _code(dealt)
        if target.kind == RESERVE:
            piles[target.index - 1].append(card)
        if source.kind == RESERVE and target.kind == RESERVE:
            block.append(move)
            continue
        kind = "rf" if source.kind == RESERVE else "qr" if target.kind == RESERVE else "qf"
        steps.append(_Step(tuple(block), move, kind, 0 if kind == "qf" else card,
                           tuple(tuple(pile) for pile in piles)))
        block = []
    return None if block else steps


def _arrangement(state: CrazyQuiltState) -> Arrangement:
    return tuple(tuple(_code(c) for c in r) for r in state.reserves)


def _builds(card: int, below: int, wrap: bool) -> bool:
    """:func:`.rules.builds_on` on codes: one rank apart in a suit is a difference of 1 (a rank
    is 1-13 within its suit's 16 codes, so two suits' codes never differ by 1); a K and an A of
    a suit differ by 12, as do a 5 and the next suit's A."""
    gap = abs(card - below)
    return gap == 1 or (wrap and gap == 12 and card >> 4 == below >> 4)


def _shift(arr: Arrangement, i: int, j: int) -> Arrangement:
    """``arr`` after reserve i's top card goes onto reserve j (0-based)."""
    piles = list(arr)
    card = piles[i][-1]
    piles[i] = piles[i][:-1]
    piles[j] = piles[j] + (card,)
    return tuple(piles)


def _shuffles(arr: Arrangement, wrap: bool) -> list[tuple[int, int]]:
    """The reserve-to-reserve moves (i, j) from ``arr`` that reach another arrangement of piles:
    not a pile's only card onto an empty reserve, and onto the first empty reserve only."""
    tops = [pile[-1] if pile else 0 for pile in arr]
    empty = next((j for j, pile in enumerate(arr) if not pile), -1)
    out = []
    for i, card in enumerate(tops):
        if not card:
            continue
        for j, top in enumerate(tops):
            if top and _builds(card, top, wrap):
                out.append((i, j))
        if empty >= 0 and len(arr[i]) > 1:
            out.append((i, empty))
    return out


def _key(arr: Arrangement) -> Arrangement:
    return tuple(sorted(arr))


class _Planner:
    def __init__(self, state: CrazyQuiltState, steps: list[_Step]):
        self.wrap = state.rules.wrap
        self.steps = steps
        self.start = _arrangement(state)
        self.budget = BUDGET
        self.needed: dict[int, list[int]] = {}  # a card's code -> the steps that take it off a reserve
        for k, step in enumerate(steps):
            if step.kind == "rf":
                self.needed.setdefault(step.card, []).append(k)

    def need(self, card: int, now: int) -> int:
        """The first step from ``now`` on that takes a card of this code off the reserves."""
        at = self.needed.get(card, ())
        i = bisect.bisect_left(at, now)
        return at[i] if i < len(at) else LATER

    def buried(self, arr: Arrangement, now: int) -> tuple[int, int]:
        """How bad an arrangement is for the steps from ``now``: the cards lying above a card
        that leaves the reserves before them (each must move off it first), then the reserves
        that are not empty."""
        count = 0
        for pile in arr:
            needs = [self.need(c, now) for c in pile]
            for x, below in enumerate(needs):
                count += sum(1 for above in needs[x + 1:] if above > below)
        return count, sum(1 for pile in arr if pile)

    def nearest(self, arr: Arrangement, distance: Callable[[Arrangement], int], now: int,
                most: int | None) -> tuple[tuple[tuple[int, int], ...], Arrangement]:
        """The fewest reserve-to-reserve moves (at most ``most``; None: no limit) from ``arr`` to
        an arrangement at ``distance`` 0, the least buried of the nearest; _Stuck when there is
        none within the budgets. A* search (Hart, Nilsson and Raphael 1968): ``distance`` never
        says more than the moves still needed, and one move lowers it by one at most, so the
        first arrangement at distance 0 taken from the queue is a nearest one."""
        if distance(arr) == 0:
            return (), arr
        best: dict[Arrangement, int] = {_key(arr): 0}  # the fewest moves found to each
        queue: list[tuple[int, int, int, Arrangement, tuple[tuple[int, int], ...]]] = [
            (distance(arr), distance(arr), 0, arr, ())]
        found: list[tuple[tuple[tuple[int, int], ...], Arrangement]] = []
        spent = 0
        while queue:
            f, h, _, x, path = heapq.heappop(queue)
            if found and f > len(found[0][0]):
                break
            if h == 0:
                found.append((path, x))
                if len(found) >= CHOICES:
                    break
                continue
            if best[_key(x)] < len(path):
                continue  # reached again by fewer moves since it was queued
            moved = len(path) + 1
            for i, j in _shuffles(x, self.wrap):
                y = _shift(x, i, j)
                key = _key(y)
                if best.get(key, moved + 1) <= moved:
                    continue
                best[key] = moved
                spent += 1
                self.budget -= 1
                if self.budget < 0 or spent > STEP_BUDGET:
                    raise _Stuck
                left = distance(y)
                if most is not None and moved + left > most:
                    continue
                heapq.heappush(queue, (moved + left, left, spent, y, (*path, (i, j))))
        if found:
            return min(found, key=lambda got: self.buried(got[1], now))
        raise _Stuck

    def plan(self) -> list[Move]:
        """The line planned again (the module docstring)."""
        steps = self.steps
        out: list[Move] = []
        arr = self.start
        order = list(range(len(arr)))  # the old line's reserve i is the plan's order[i] while in step
        in_step = True
        parted: tuple[int, Arrangement, list[int], int] | None = None  # (step, arr, order, len(out))
        follow: set[int] = set()  # steps where the plan makes the old line's block
        k = 0
        while k < len(steps):
            step = steps[k]
            if in_step and (k in follow or self.budget <= 0 or not step.block):
                arr = self.follow_old(step, arr, order, out)
                k += 1
                continue
            try:
                shuffles, reached = self.nearest(arr, self.distance(step), k,
                                                 len(step.block) - 1 if in_step else None)
            except _Stuck:
                if in_step:
                    arr = self.follow_old(step, arr, order, out)
                    k += 1
                    continue
                assert parted is not None
                k, arr, order, cut = parted
                del out[cut:]
                follow.add(k)
                in_step, parted = True, None
                continue
            if in_step:
                parted = (k, arr, list(order), len(out))
                in_step = False
            out += [Transfer(R(i + 1), R(j + 1)) for i, j in shuffles]
            arr = self.make(step, reached, k, out)
            back = self.order_of(arr, step.after)
            if back is not None:
                assert parted is not None
                start, arr0, order0, cut = parted
                old = sum(len(s.block) + 1 for s in steps[start:k + 1])
                if len(out) - cut >= old:  # its own way was no shorter: the old line's, renamed
                    del out[cut:]
                    arr, order = arr0, order0
                    for s in steps[start:k + 1]:
                        arr = self.follow_old(s, arr, order, out)
                else:
                    order = back
                in_step, parted = True, None
            k += 1
        if not in_step:
            assert parted is not None
            start, arr0, order0, cut = parted
            old = sum(len(s.block) + 1 for s in steps[start:])
            if len(out) - cut >= old:
                del out[cut:]
                arr, order = arr0, order0
                for s in steps[start:]:
                    arr = self.follow_old(s, arr, order, out)
        return out

    def distance(self, step: _Step) -> Callable[[Arrangement], int]:
        """How far an arrangement is from one where ``step`` can be made, at least, in moves: 0
        where it can (a quilt card to a foundation always can); else the cards lying above the
        card that must leave a reserve, or above the highest card a quilt card could go onto
        (or in all, to empty a reserve), each of which must move off once."""
        card, wrap = step.card, self.wrap
        if step.kind == "rf":
            def above_card(arr: Arrangement) -> int:
                return min((len(pile) - 1 - i for pile in arr for i in range(len(pile) - 1, -1, -1)
                            if pile[i] == card), default=LATER)
            return above_card
        if step.kind == "qr":
            def above_a_place(arr: Arrangement) -> int:
                least = LATER
                for pile in arr:
                    i = len(pile) - 1
                    while i >= 0 and not _builds(card, pile[i], wrap):
                        i -= 1
                    least = min(least, len(pile) - 1 - i)  # len(pile) when none: empty it
                return least
            return above_a_place
        return lambda arr: 0

    def make(self, step: _Step, arr: Arrangement, now: int, out: list[Move]) -> Arrangement:
        """Make ``step`` from ``arr`` (where its goal holds), choosing the reserve; the new
        arrangement."""
        move = step.move
        assert isinstance(move, Transfer) and move.target is not None
        if step.kind == "qf":
            out.append(move)
            return arr
        if step.kind == "rf":
            i = next(i for i, pile in enumerate(arr) if pile and pile[-1] == step.card)
            out.append(Transfer(R(i + 1), move.target))
            piles = list(arr)
            piles[i] = piles[i][:-1]
            return tuple(piles)
        choices = []
        for j, pile in enumerate(arr):
            if not pile or _builds(step.card, pile[-1], self.wrap):
                piles = list(arr)
                piles[j] = pile + (step.card,)
                choices.append((self.buried(tuple(piles), now + 1), j, tuple(piles)))
        _, j, reached = min(choices)
        out.append(Transfer(move.source, R(j + 1)))
        return reached

    def follow_old(self, step: _Step, arr: Arrangement, order: list[int], out: list[Move]) -> Arrangement:
        """Make the old line's block and step, its reserves renamed by ``order``."""
        for move in (*step.block, step.move):
            assert isinstance(move, Transfer) and move.target is not None
            source, target = _renamed(move.source, order), _renamed(move.target, order)
            out.append(Transfer(source, target))
            piles = list(arr)
            if source.kind == RESERVE:
                card = piles[source.index - 1][-1]
                piles[source.index - 1] = piles[source.index - 1][:-1]
            else:
                card = step.card
            if target.kind == RESERVE:
                piles[target.index - 1] = piles[target.index - 1] + (card,)
            arr = tuple(piles)
        return arr

    @staticmethod
    def order_of(arr: Arrangement, old: Arrangement) -> list[int] | None:
        """Where each of the old line's reserves is in ``arr`` when ``arr`` is the old line's
        arrangement on other reserves; None when it is another."""
        if _key(arr) != _key(old):
            return None
        order: list[int] = []
        for pile in old:
            order.append(next(j for j, mine in enumerate(arr) if mine == pile and j not in order))
        return order


def _renamed(place: Place, order: list[int]) -> Place:
    return R(order[place.index - 1] + 1) if place.kind == RESERVE else place


def shorter_line(state: CrazyQuiltState, moves: tuple[Move, ...]) -> tuple[Move, ...] | None:
    """A shorter winning line from ``state`` than the winning line ``moves`` (Persian Rug: the
    module docstring), or None (not Persian Rug, or nothing shorter found). Not checked here:
    the caller replays it."""
    if not state.rules.reserves:
        return None
    steps = _steps(state, moves)
    if steps is None:
        return None
    out = _Planner(state, steps).plan()
    if len(out) >= len(moves):
        return None
    return tuple(out)

