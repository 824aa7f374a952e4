"""The advice layer: what a position is worth, asked with a limit and answered with a value.

One question, :func:`analyse`: "what is this position?", asked with a :class:`Limit` (CPU
seconds of the thread that searches, search nodes, real seconds: any together) and answered
with a :class:`Verdict` (won with a line, lost, or undecided with how far the search looked),
as python-chess asks an engine ``analyse(board, Limit(...))``. A ``stop`` event ends a search
early (the live coach's next move); the answer is then undecided, never a guess.

On it: the hint's search for a move or for how far to undo (:func:`decide`,
:func:`undo_to_winnable` and their budgets, used by :mod:`.advice_commands`), and the review of a
game (:func:`review`): the same question asked of every position a game went through.

Everything here is pure computation: no printing, no terminal, no prompt_toolkit. The game in
hand is read through :class:`Asker`: its hand (:class:`musical_cli.hand.Hand`), the verdicts
known of it (:class:`Memory`), and a progress bar, which :class:`musical_cli.commands.Session`
and the live coach's snapshot both have; the commands import this module, never the reverse.

Every verdict rests on one fact: winnability only goes from yes to no along a game. A position
with a winnable successor is winnable, so every position before a winnable one is winnable and
every position after a lost one is lost; and a winning line from a position proves winnable
each later position the game reached by the same moves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from .game import Game, Outcome
from .hand import Hand, Played, Position
from .i18n import _, pgettext
from .lines import along
from .moves import Move

WON, LOST, UNKNOWN = "won", "lost", "unknown"


@dataclass(frozen=True)
class Limit:
    """How long a search may go on: ``seconds`` of CPU time of the thread that searches (what a
    loaded machine does not shorten), ``nodes`` search nodes (the same answer on every machine),
    ``wall`` real seconds (what a player waits). None: no limit of that kind; all None: none."""

    seconds: float | None = None
    nodes: int | None = None
    wall: float | None = None

    def __post_init__(self) -> None:
        for name in ("seconds", "nodes", "wall"):
            value = getattr(self, name)
            if value is not None and value < 0:
                # TRANSLATORS: {name} is seconds, nodes or wall (words of the program).
                raise ValueError(_("a limit's {name} must be 0 or more; not {value}").format(name=name, value=value))

    def __str__(self) -> str:
        parts = []
        if self.seconds is not None:
            parts.append(_("{seconds:g} s of CPU time").format(seconds=self.seconds))
        if self.nodes is not None:
            parts.append(_("{nodes:,} nodes").format(nodes=self.nodes))
        if self.wall is not None:
            parts.append(_("{seconds:g} s").format(seconds=self.wall))
        # TRANSLATORS: between the parts of a search's limit: "2 s of CPU time or 30 s".
        return _(" or ").join(parts) or _("no limit")


@dataclass(frozen=True)
class Verdict:
    """What a position is: ``result`` "won" (``moves``: a winning line from it, replayed by the
    engine before it is given), "lost" (proven), or "unknown" (the limit ran out, or the search
    was stopped: ``stopped``); ``nodes`` and ``seconds`` (CPU) say how far the search looked."""

    result: str
    moves: tuple[Move, ...] = ()
    nodes: int = 0
    seconds: float = 0.0
    limit: Limit = field(default_factory=Limit)
    stopped: bool = False

    @property
    def decided(self) -> bool:
        return self.result != UNKNOWN


class Stopped(Exception):
    """Raised inside a search to end it: its stop event was set."""


class _OutOfTime(Exception):
    """Raised inside a search: the limit's CPU seconds ran out."""


def analyse(game: Game, state: Any, limit: Limit = Limit(),
            progress: Callable[[int, float], None] | None = None,
            stop: threading.Event | None = None) -> Verdict:
    """What ``state`` is, within ``limit``. ``progress(nodes, seconds)`` is called now and then
    (whatever it raises propagates: KeyboardInterrupt cancels); when ``stop`` is set the search
    ends soon after (each game's search reports its progress every 0.15 s or so, which is where
    the CPU time and the stop event are checked) and the verdict is "unknown", ``stopped``.
    A game without a solver raises :class:`musical_cli.game.NotAvailable`."""
    from .solver import solve

    cpu = time.thread_time()
    seen = [0]

    def watch(nodes: int, seconds: float) -> None:
        seen[0] = nodes
        if stop is not None and stop.is_set():
            raise Stopped
        if limit.seconds is not None and time.thread_time() - cpu >= limit.seconds:
            raise _OutOfTime
        if progress is not None:
            progress(nodes, seconds)

    if stop is not None and stop.is_set():
        return Verdict(UNKNOWN, (), 0, 0.0, limit, stopped=True)
    try:
        solution = solve(game, state, budget=limit.wall, progress=watch, nodes=limit.nodes)
    except Stopped:
        return Verdict(UNKNOWN, (), seen[0], time.thread_time() - cpu, limit, stopped=True)
    except _OutOfTime:
        return Verdict(UNKNOWN, (), seen[0], time.thread_time() - cpu, limit)
    return Verdict(solution.result, solution.moves, solution.nodes, time.thread_time() - cpu, limit)


# --- the hint: a move from here, or how far to undo ---------------------------------------------

# hint answers within about a second: HINT_BUDGET for its own position, UNDO_BUDGET and what the
# position left of HINT_BUDGET for how far to undo. Wins are found in milliseconds, while a proof
# that a position early in the first pass is lost can take seconds (Crazy Quilt's tens of
# seconds). So when a second leaves the answer open (no verdict here, no earlier position proven
# winnable, or one that may not be the latest), hint says what it knows and says so; 'hint' typed
# again at the same position then searches on (LONG_HINT_BUDGET here, SOLVE_BUDGET for how far to
# undo), with a progress bar that Ctrl-C stops. These are real seconds (Limit.wall): they are what
# the player waits.
HINT_BUDGET = 0.5
UNDO_BUDGET = 0.4
LONG_HINT_BUDGET = 5.0
SOLVE_BUDGET = 30.0


def undo_budget(spent: float) -> float:
    """The first hint's seconds for how far to undo, after ``spent`` seconds on the position
    itself: UNDO_BUDGET and what the position left of HINT_BUDGET. The first hint's second is one
    budget, because most positions are decided in milliseconds while the proof an exact undo count
    needs is the slow part."""
    return UNDO_BUDGET + max(0.0, HINT_BUDGET - spent)


@dataclass
class Memory:
    """What the hints have learnt of the game in hand: the solver's decided verdicts (won or
    lost: a verdict never changes, and each hint probes the same earlier positions again, the
    start first), the position where the last hint left its answer open ('hint' again there
    searches longer), and a long hint's answer, kept while nothing new is known there."""

    solved: dict[Position, Verdict] = field(default_factory=dict)
    open: Position | None = None
    kept: tuple[Position, Verdict | None, list[tuple[str, str]]] | None = None

    def moved(self) -> None:
        """The position changed: 'hint' again searches longer only if typed before any move."""
        self.open = None


class Asker(Protocol):
    """What the hint's searches need of the game in hand."""

    @property
    def hand(self) -> Hand: ...

    @property
    def memory(self) -> Memory: ...

    @property
    def search_progress(self) -> Callable[[int, float], None] | None: ...

    def notify(self, event: str) -> None: ...


def decide(asker: Asker, state: Position, budget: float) -> Verdict:
    """``state`` of the game in hand, within ``budget`` real seconds, with the asker's progress
    bar; a decided verdict is kept in its memory (a verdict never changes), so that each hint's
    probes of the same earlier positions cost nothing the second time."""
    known = asker.memory.solved.get(state)
    if known is not None:
        remember(asker.memory.solved, asker.hand.game, state, known)
        return known
    verdict = analyse(asker.hand.game, state, Limit(wall=budget), progress=asker.search_progress)
    if verdict.decided:
        remember(asker.memory.solved, asker.hand.game, state, verdict)
        asker.notify("solved")
    return verdict


def remember(solved: dict[Position, Verdict], game: Game, state: Position, verdict: Verdict) -> None:
    """Keep a decided verdict; and of a win, the rest of its line as the verdict of the position
    after its first move (unless one as short is known there), so that a player who follows the
    hint is hinted the same line one move shorter, with no search: the counts go down by one."""
    if not verdict.decided:
        return
    solved[state] = verdict
    if verdict.result == WON and verdict.moves:
        after, rest = next(along(game, state, verdict.moves))
        there = solved.get(after)
        if there is None or (there.result == WON and len(there.moves) > len(rest)):
            solved[after] = replace(verdict, moves=rest)


def guess(game: Game, state: Position) -> Move | None:
    """The move a player would try where the search has proven nothing yet (None when no move is
    legal): one that wins at once, else one that does not lose at once, then the one that
    builds the most, then the one that leaves the most moves open; among equals the first the
    game lists. It is a guess, and said as one: the hint never calls it a winning move."""
    legal = game.legal_moves(state)
    if not legal:
        return None

    def score(move: Move) -> tuple[bool, bool, int, int]:
        after = game.apply(state, move)
        outcome = game.outcome(after)
        return (outcome is Outcome.WON, outcome is not Outcome.LOST, -game.cards_to_build(after),
                len(game.legal_moves(after)))

    return max(legal, key=score)  # max keeps the first of equals


# How far to undo: a probe gets FIRST_PROBE seconds at first; a position it leaves undecided is
# probed again with more only in its turn (undo_to_winnable's docstring). Near the boundary of a
# lost game both sides are usually cheap (in Crazy Quilt the last winnable position won in
# thousands of nodes, the next one proven lost in a handful), while other winnable positions and
# the opening can take seconds: of the first 122 positions of the hint benchmark, 15 whose first
# hint gave an undo count that "may not be the latest" had a boundary that 130,000 nodes decide
# on both sides (docs/solvers.md, "hint in the shell", has the variants measured).
FIRST_PROBE = 0.02


def undo_to_winnable(asker: Asker, budget: float = SOLVE_BUDGET, settle: float | None = None,
                     probe: float = LONG_HINT_BUDGET, start_probe: float = LONG_HINT_BUDGET,
                     lost_here: bool = False) -> tuple[int | None, bool]:
    """How many moves to undo to reach the latest position proven winnable within ``budget``
    seconds (and within ``settle`` seconds more once one is found, when given), and whether it is
    surely the latest (the position after it proven lost). None when even the start is proven
    lost, -1 when no position was proven winnable in time. ``probe``: the most one probe may take;
    ``start_probe``: the most the start's probe may take, or half of what is left if more.
    ``lost_here``: the current position is proven lost (when no move has been made, it is the
    start).

    Winnability only ever goes from yes to no along a game (a lost position's successors are lost
    too), so there is one boundary, between the latest position proven winnable and the earliest
    proven lost. A winning line from a probed position also proves winnable every later position
    the game reached by the same moves (they lie on that line). The probes narrow what lies
    between, and an undecided probe is read as neither winnable nor lost. Three kinds of probe
    take turns: the *walk*, the position just after the latest proven winnable (the start at
    first; a win there moves along its line, as a game that keeps to it stays winnable); the
    *edge*, the position just before the earliest proven lost (won there is the answer; lost
    moves the edge back, cheaply near the end of a lost game, and while it is lost the next
    edge lies twice as far back, galloping, until a probe does not prove a loss); and the
    *middle* of what lies between, among the positions that have run out least (bisection).
    A position probed again gets twice its last budget (FIRST_PROBE the first time), the edge at
    least half of what is left (no count is surely the latest until the edge is decided), and a
    new edge twice what the last edge ran out at (proofs get dearer going back). So cheap
    positions on both sides of the boundary decide it even where others are dear: a winnable
    position that takes seconds to win does not stop the search short of a boundary that
    milliseconds prove, as it would if an undecided probe were read as lost.
    (A walk or middle probe that falls on the edge counts as the edge's.) The answer is a position
    proven winnable, and surely the latest when the one after it is proven lost."""
    hand = asker.hand
    deadline = time.monotonic() + budget
    last = len(hand.states) - 1  # the position in hand: proven lost if lost_here, else undecided
    won_upto = -1  # the latest position proven winnable
    lost_from = last if lost_here else last + 1  # the earliest position proven lost
    given: dict[int, float] = {}  # the budget of the last probe of a position that ran out
    edge_first = FIRST_PROBE  # the edge's first probe (it grows as the edge's proofs do)
    stride = 1  # how far before the earliest lost position the edge's probe is (galloping)
    turn = 0
    while won_upto + 1 < lost_from:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        lo, hi = won_upto + 1, min(lost_from, last)  # between; the one in hand is the caller's
        if lo >= hi:
            break

        # The start decides the most (lost there is lost everywhere), but in a game like Crazy
        # Quilt it is often the hardest position of all: half of what is left, or start_probe.
        def cap(i: int, left: float = left) -> float:
            return min(max(start_probe, left / 2) if i == 0 else probe, left)

        # The turns of the docstring: the walk from the winnable side, the edge, the middle.
        edge = max(lo, hi - stride) if lost_from <= last else None
        middle = (lo + hi - 1) / 2
        unspent = [i for i in range(lo, hi) if given.get(i, 0.0) < cap(i)]
        if not unspent:
            break  # every position between has had all it may have
        picks = [lo if lo in unspent else None, edge if edge in unspent else None,
                 min(unspent, key=lambda i: (given.get(i, 0.0), abs(i - middle), i))]
        kind, mid = next((k % 3, pick) for k in range(turn, turn + 3) if (pick := picks[k % 3]) is not None)
        turn += 1
        if kind == 1 and mid in given:
            allowed = max(2 * given[mid], left / 2)  # no count is surely the latest without it
        else:
            allowed = max(edge_first if kind == 1 else FIRST_PROBE, 2 * given.get(mid, 0.0))
        allowed = min(allowed, cap(mid))
        solution = decide(asker, hand.states[mid], allowed)
        if solution.result == WON:
            # states[mid + k] is on the winning line while the game made the line's moves
            line = solution.moves
            k = 0
            # (not to the position in hand: a count names a position before it)
            while mid + k + 1 < hi and k < len(line) and hand.moves[mid + k] == line[k]:
                k += 1
            if won_upto < 0 and settle is not None:
                deadline = min(deadline, time.monotonic() + settle)
            won_upto = mid + k
            stride = 1
        elif solution.result == LOST:
            lost_from = mid
            if mid == edge:
                stride *= 2
        else:
            given[mid] = allowed
            if mid == edge:
                edge_first = max(edge_first, 2 * allowed)
                stride = 1  # back to the position just before the earliest lost
    exact = won_upto + 1 == lost_from <= last
    if won_upto < 0:
        return (None if lost_from == 0 else -1), exact
    return hand.steps_back(last - won_upto), exact


# --- the review: every position of a game ----------------------------------------------------

# A review answers within about 10 s for a 150-move game: REVIEW_LIMIT for the whole review,
# REVIEW_PROBE for one position (the start may take half of what is left: it decides the most).
REVIEW_LIMIT = Limit(seconds=8.0, wall=9.0)
REVIEW_PROBE = Limit(seconds=2.0)


@dataclass(frozen=True)
class Ply:
    """One move of a review: its number in the game (``ply``), the move, the position's verdict
    before and after it ("won", "lost", "unknown"), and whether it was taken back later."""

    ply: int
    move: Move
    before: str
    after: str
    undone: bool = False
    won: bool = False  # the move won the game (its "after" is then the win itself, not a winnable position)

    @property
    def lost_the_game(self) -> bool:
        """The move turned a position proven winnable into one proven lost."""
        return self.before == WON and self.after == LOST

    def record(self) -> dict[str, Any]:
        return {"ply": self.ply, "move": str(self.move), "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Review:
    """A game's review: each move made (``plies``, in the order made, moves later taken back
    included), the deal's verdict (``start``), whether every position the search was asked about
    was decided (``complete``: nothing left undecided) or the review was stopped early
    (``stopped``), and whether the solver read cards the player never saw (``read_stock``: a
    game whose stock stays hidden)."""

    plies: tuple[Ply, ...]
    start: str
    stopped: bool = False
    read_stock: bool = False
    nodes: int = 0
    seconds: float = 0.0

    @property
    def losing(self) -> tuple[Ply, ...]:
        """The moves that lost a winnable game: the first, and any later one after an undo."""
        return tuple(p for p in self.plies if p.lost_the_game)

    @property
    def lost_from_the_deal(self) -> bool:
        return self.start == LOST

    @property
    def complete(self) -> bool:
        return self.start != UNKNOWN and all(UNKNOWN not in (p.before, p.after) for p in self.plies)

    def in_steps(self, counts: Callable[[Move], bool]) -> Review:
        """The review as the shell of a game that turns its cards up by itself shows the game:
        each card turned up (a move ``counts`` says is not the player's) joined to the move
        before it, whose verdict after it then is (the two were one step: 'undo' takes both
        back), and the moves numbered as the status line counts them. A card turned up before
        any move, the opening's, is part of the deal."""
        plies: list[Ply] = []
        ends: list[int] = []  # the original ply of each row's last move
        counted = [0]  # counted[i]: the player's moves among the first i moves of the line in hand
        for p in self.plies:
            del counted[p.ply:]  # the line as it stood when this move was made (undos cut it)
            mine = counts(p.move)
            counted.append(counted[-1] + mine)
            if mine:
                plies.append(replace(p, ply=counted[-1]))
                ends.append(p.ply)
            elif plies and ends[-1] == p.ply - 1:
                plies[-1] = replace(plies[-1], after=p.after, won=plies[-1].won or p.won)
                ends[-1] = p.ply
        return replace(self, plies=tuple(plies))

    def summary(self) -> dict[str, Any]:
        return {"summary": True, "start": self.start, "lost_from_the_deal": self.lost_from_the_deal,
                "losing": [p.ply for p in self.losing], "moves": len(self.plies),
                "complete": self.complete, "stopped": self.stopped, "read_stock": self.read_stock,
                "nodes": self.nodes, "seconds": round(self.seconds, 3)}


def branches(start: Any, trail: Sequence[Played]) -> list[list[tuple[Move, Any]]]:
    """The lines a game went along, from the moves made in order with ``(ply, move, before,
    after)`` each (an undo shows as a move whose ply is not one more than the last): each line
    the moves and the positions they reached, the start first with no move; the line in hand
    last."""
    lines: list[list[tuple[Move, Any]]] = []
    path: list[tuple[Move, Any]] = [(None, start)]  # type: ignore[list-item]
    for ply, move, _before, after in trail:
        if ply < len(path):
            lines.append(path)
            path = path[:ply]
        path = [*path, (move, after)]
    lines.append(path)
    return lines


def review(game: Game, start: Any, trail: Sequence[Played],
           limit: Limit = REVIEW_LIMIT, probe: Limit = REVIEW_PROBE,
           known: dict[Any, Any] | None = None,
           progress: Callable[[int, int], None] | None = None) -> Review:
    """The verdict before and after each move of ``trail`` (the moves made in order, as
    :func:`branches` takes them; a transcript's moves are one line), within ``limit`` for the
    whole review and ``probe`` for one position. ``known``: verdicts already decided (the
    session's ``solved``), updated with the new ones. ``progress(positions decided, positions)``
    after each probe. Ctrl-C (KeyboardInterrupt) ends it with what it has: ``stopped``.

    Along each line, the positions proven winnable form a prefix and the ones proven lost a
    suffix (winnability only goes from yes to no), so only the boundary needs searching: the
    end first (a game won, or ended with no move, is decided there at no cost), then a forward
    walk on the winning lines the solver finds (each proves a stretch of the game winnable at
    once), then bisection between the last position proven winnable and the first proven lost.
    A position is said as decided only when a probe, or that order, proves it."""
    reviewer = _Reviewer(game, limit, probe, {} if known is None else known)
    lines = branches(start, trail)
    positions = {s for line in lines for _, s in line}

    def report() -> None:
        if progress is not None:
            progress(sum(reviewer.verdict_of(s) is not None for s in positions), len(positions))

    stopped = False
    try:
        for line in reversed(lines):  # the line in hand first: it is what the player asks about
            reviewer.settle(line, report)
    except KeyboardInterrupt:
        stopped = True
    # Each position's verdict inferred along its line; a position on two lines has one verdict.
    # (Positions are values: the same position reached twice is one position.)
    verdicts: dict[Any, str] = {}
    for line in lines:
        for (_move, s), v in zip(line, _infer([reviewer.verdict_of(s) for _move, s in line]), strict=True):
            if verdicts.get(s, UNKNOWN) == UNKNOWN:
                verdicts[s] = v
    in_hand = {s for _, s in lines[-1]}
    plies = tuple(Ply(ply, move, verdicts.get(before, UNKNOWN), verdicts.get(after, UNKNOWN),
                      undone=after not in in_hand, won=game.outcome(after) is Outcome.WON)
                  for ply, move, before, after in trail)
    return Review(plies, verdicts.get(start, UNKNOWN), stopped, game.hint_is_blind, reviewer.nodes,
                  time.thread_time() - reviewer.cpu)


class _Reviewer:
    """The review's probes: its limits, its clocks and the verdicts decided."""

    def __init__(self, game: Game, limit: Limit, probe: Limit, known: dict[Any, Any]):
        self.game, self.limit, self.probe, self.known = game, limit, probe, known
        self.cpu, self.wall = time.thread_time(), time.monotonic()
        self.nodes = 0

    def verdict_of(self, state: Any) -> str | None:
        got = self.known.get(state)
        return None if got is None else got.result

    def left(self, share: float = 0.0) -> Limit | None:
        """One probe's limit from what is left of the whole (None: nothing is left): the probe's
        own, or ``share`` of what is left when that is more."""
        limit = self.limit
        seconds = None if limit.seconds is None else limit.seconds - (time.thread_time() - self.cpu)
        wall = None if limit.wall is None else limit.wall - (time.monotonic() - self.wall)
        nodes = None if limit.nodes is None else limit.nodes - self.nodes
        if any(v is not None and v <= 0 for v in (seconds, wall, nodes)):
            return None

        def one(whole: float | None, own: float | None) -> float | None:
            if whole is None:
                return own
            return whole if own is None else min(whole, max(own, whole * share))

        got = Limit(one(seconds, self.probe.seconds), None, one(wall, self.probe.wall))
        nodes_one = one(nodes, self.probe.nodes)
        return Limit(got.seconds, None if nodes_one is None else int(nodes_one), got.wall)

    def ask(self, state: Any, share: float = 0.0) -> Verdict | None:
        """``state``'s verdict, searched for within one probe's limit; None when nothing is left."""
        got = self.known.get(state)
        if got is not None:
            return got
        budget = self.left(share)
        if budget is None:
            if self.game.outcome(state) is Outcome.IN_PLAY:
                return None
            budget = Limit()  # a finished game's verdict costs nothing
        got = analyse(self.game, state, budget)
        self.nodes += got.nodes
        if got.decided:
            self.known[state] = got
        return got

    def settle(self, line: list[tuple[Move, Any]], report: Callable[[], None]) -> None:
        """Probe the positions of one line until its boundary is found or nothing more can be."""
        states = [s for _, s in line]
        moves = [m for m, _ in line]
        n = len(states)
        tried: set[int] = set()  # probed without a verdict

        def probe(i: int) -> bool:
            # The start decides the most (lost there is lost everywhere) and is often the
            # hardest position: it may take half of what is left.
            got = self.ask(states[i], share=0.5 if i == 0 else 0.0)
            if got is None:
                return False
            if got.result == WON:
                # the positions the game reached by the line's own moves are on a winning line
                k = 0
                while i + k + 1 < n and k < len(got.moves) and moves[i + k + 1] == got.moves[k]:
                    k += 1
                    self.known.setdefault(states[i + k], Verdict(WON, tuple(got.moves[k:])))
            elif not got.decided:
                tried.add(i)
            report()
            return True

        if not probe(n - 1):
            return
        walk = 24  # forward probes, then bisection
        while True:
            got = [self.verdict_of(s) for s in states]
            won = max((i for i, v in enumerate(got) if v == WON), default=-1)
            lost = min((i for i, v in enumerate(got) if v == LOST), default=n)
            open_ = [i for i in range(won + 1, lost) if i not in tried]
            if not open_:
                return
            if walk > 0 and won + 1 not in tried:
                i = won + 1
                walk -= 1
            else:
                runs: list[list[int]] = []  # the middle of the widest run of untried positions
                for j in open_:
                    if runs and runs[-1][-1] == j - 1:
                        runs[-1].append(j)
                    else:
                        runs.append([j])
                widest = max(runs, key=len)
                i = widest[len(widest) // 2]
            if not probe(i):
                return


def _infer(verdicts: list[str | None]) -> list[str]:
    """Each position of a line from the verdicts proven on it: everything up to the last proven
    winnable is winnable, everything from the first proven lost is lost, the rest undecided."""
    won = max((i for i, v in enumerate(verdicts) if v == WON), default=-1)
    lost = min((i for i, v in enumerate(verdicts) if v == LOST), default=len(verdicts))
    if lost <= won:
        raise AssertionError("solver bug: a position proven lost before one proven winnable")
    return [WON if i <= won else LOST if i >= lost else UNKNOWN for i in range(len(verdicts))]


def trail_of(states: Sequence[Position], moves: Sequence[Move]) -> list[Played]:
    """One line's moves as a trail: (ply, move, before, after) each."""
    return [Played(i + 1, m, states[i], states[i + 1]) for i, m in enumerate(moves)]


# --- winnable deals on request ---------------------------------------------------------------

# A deal is taken when the solver proves it winnable within WINNABLE_LIMIT; undecided ones are
# skipped like lost ones. At most WINNABLE_ATTEMPTS deals are tried (rules under which hardly
# any deal is winnable, such as Musical without a redeal, end with a message, not a long wait).
WINNABLE_LIMIT = Limit(seconds=1.0, wall=2.0)
WINNABLE_ATTEMPTS = 40


def winnable_deal(game: Game, rules: Any, numbers: Callable[[], Any], limit: Limit = WINNABLE_LIMIT,
                  attempts: int = WINNABLE_ATTEMPTS) -> Any | None:
    """A deal number from ``numbers()`` (called for each try) whose opening the solver proves
    winnable under ``rules``; None when none of ``attempts`` tries is."""
    for _attempt in range(attempts):
        deal = numbers()
        if analyse(game, game.opening(deal, rules), limit).result == WON:
            return deal
    return None


def no_winnable_deal(game: Game, rules: Any, attempts: int = WINNABLE_ATTEMPTS) -> str:
    options = ", ".join(f"{k} {v}" for k, v in game.rules_options(rules).items())
    # TRANSLATORS: {game}: the game's name, with its rule options after it as typed ("Musical
    # (redeals 0)"); {attempts}: how many random deals were tried.
    return _("no deal proven winnable in {attempts} random deals of {game}: each was lost or undecided; "
             "try other rules, or a deal without --winnable").format(
        attempts=attempts, game=f"{game.title} ({options})" if options else game.title)


# --- difficulty --------------------------------------------------------------------------------

# A deal's rating: "lost" (proven), "unknown" (undecided within the node limit), else "easy",
# "medium" or "hard" by the measure below, against bands calibrated for each rule set on deals
# 1-10,000 (or, where said, fewer) so that each holds about a third of the winnable deals: each
# game's solver carries its bands (Game.difficulty_bands), and docs/difficulty.md gives the
# figures and the commands that make them (bench/difficulty.py).
# The measure: the search nodes the solver needs to find a win. It counts how much of the tree
# of plays must be looked at before a win turns up, so a deal whose wins are many and plain is
# easy, and one whose only wins are narrow is hard. A node limit only, never seconds: the same
# rating on every machine, however loaded. The limit is each game's (Game.difficulty_nodes):
# 3,000,000 nodes where the game's solver sets none.
RATE_AT_MOST = 10  # 'musical deal' rates at most this many deals at a time
RATINGS = ("easy", "medium", "hard", "lost", "unknown")


def rating_text(rating: str) -> str:
    """A rating (one of RATINGS, as typed and stored) in the words of the language, for a
    person to read; what is typed (``--difficulty hard``) stays English."""
    words = {
        # TRANSLATORS: a deal's difficulty rating, shown (what is typed stays English): "a deal
        # rated easy", "by difficulty: easy 3 of 5".
        "easy": lambda: pgettext("difficulty", "easy"),
        "medium": lambda: pgettext("difficulty", "medium"),
        "hard": lambda: pgettext("difficulty", "hard"),
        "lost": lambda: pgettext("difficulty", "lost"),
        # TRANSLATORS: a deal's difficulty rating: the solver decided nothing within its limit.
        "unknown": lambda: pgettext("difficulty", "unknown"),
    }
    return words[rating]() if rating in words else rating


def difficulty_measure(game: Game, state: Any, stop: threading.Event | None = None,
                       progress: Callable[[int, float], None] | None = None) -> tuple[str, int]:
    """(the verdict within the node limit, the nodes it took); ("unknown", nodes) when ``stop``
    is set before the end (a rating beside the game, no longer wanted). ``progress`` as for
    :func:`analyse` (it may wait: the count of nodes is the same)."""
    got = analyse(game, state, Limit(nodes=game.difficulty_nodes()), progress=progress, stop=stop)
    return got.result, got.nodes


def band_of(nodes: int, bands: tuple[int, int]) -> str:
    return "easy" if nodes <= bands[0] else "medium" if nodes <= bands[1] else "hard"


def rating(game: Game, rules: Any, state: Any, stop: threading.Event | None = None,
           progress: Callable[[int, float], None] | None = None) -> str | None:
    """The deal's rating (one of RATINGS), or None where the rules have no calibrated bands, or
    when ``stop`` was set before the search ended."""
    bands = game.difficulty_bands().get(rules)
    if bands is None:
        return None
    result, nodes = difficulty_measure(game, state, stop, progress)
    if stop is not None and stop.is_set():
        return None
    return band_of(nodes, bands) if result == WON else result


RATED_ATTEMPTS = 300  # random deals rated, at most, for a deal of a wanted rating
RATED_SECONDS = 20.0  # and real seconds: a rating that is rare (a lost deal of Crazy Quilt) is not searched for long


def deal_rated(game: Game, rules: Any, wanted: str, numbers: Callable[[], Any],
               attempts: int = RATED_ATTEMPTS, seconds: float = RATED_SECONDS,
               progress: Callable[[int, float], None] | None = None) -> Any | None:
    """A deal number from ``numbers()`` whose rating is ``wanted``; None after ``attempts``
    deals or ``seconds``, whichever comes first. ``progress(deals rated, seconds)`` is told now
    and then, during a deal's rating too (whatever it raises propagates: Ctrl-C stops)."""
    began = time.monotonic()
    end = began + seconds
    rated = 0

    def tell(_nodes: int = 0, _seconds: float = 0.0) -> None:
        if progress is not None:
            progress(rated, time.monotonic() - began)

    for _attempt in range(attempts):
        deal = numbers()
        if rating(game, rules, game.opening(deal, rules), progress=tell) == wanted:
            return deal
        rated += 1
        tell()
        if time.monotonic() >= end:
            break
    return None


def no_deal_rated(game: Game, rules: Any, wanted: str) -> str:
    """What to say when :func:`deal_rated` found none."""
    # TRANSLATORS: {wanted}: a difficulty rating (easy, medium, hard, lost); {game}: the game's
    # name; {attempts}: the most deals tried; {seconds}: the most seconds spent.
    return _("no {wanted} deal of {game} in {attempts} random deals or {seconds:.0f} s "
             "(docs/difficulty.md gives how many there are)").format(
        wanted=rating_text(wanted), game=game.variant_title(rules), attempts=RATED_ATTEMPTS, seconds=RATED_SECONDS)


def no_rated_deal(game: Game, rules: Any, wanted: str) -> str | None:
    """Why a deal of that rating cannot be dealt, or None when one can be looked for."""
    if wanted not in RATINGS[:4]:
        # TRANSLATORS: {ratings}: the difficulties as typed (easy, medium, hard, lost: English in
        # every language); {wanted!r}: what was typed instead.
        return _("a difficulty is one of {ratings}; not {wanted!r}").format(ratings=", ".join(RATINGS[:4]),
                                                                             wanted=wanted)
    calibrated = game.difficulty_bands()
    if rules not in calibrated:
        have = ", ".join(game.variant_title(r) for r in calibrated)
        if have:
            # TRANSLATORS: {game}: a game's name with its rules; {others}: the names of the rule
            # sets whose deals are rated.
            return _("deals of {game} are not rated; those of {others} are (docs/difficulty.md)").format(
                game=game.variant_title(rules), others=have)
        return _("deals of {game} are not rated (docs/difficulty.md)").format(game=game.variant_title(rules))
    if wanted in ("easy", "medium") and calibrated[rules][1] == 0:
        # TRANSLATORS: {wanted}: a difficulty rating (easy or medium).
        return _("no deal of {game} is {wanted}: so few are winnable that every win is rated hard").format(
            game=game.variant_title(rules), wanted=rating_text(wanted))
    if wanted == "lost" and game.difficulty_lost().get(rules) == 0:
        # A search would rate every deal it tries in vain (for 20 s), and say only that it found none.
        return _("no deal of {game} is known to be lost: the solver proved none lost of the deals its ratings "
                 "were calibrated on (docs/difficulty.md)").format(game=game.variant_title(rules))
    return None
