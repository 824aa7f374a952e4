"""Winning lines without their detours: :func:`shorten`, which the solver front
(:func:`musical_cli.solver.solve`) runs on every line it gives.

A search finds *a* winning line, not a short one: a depth-first search that tries last the moves
that change little (Persian Rug's reserve to reserve) wanders through hundreds of arrangements
before the one it needed, and each is a move of its line. :func:`shorten` takes the detours out
by three passes:

1. *Cycles* (:func:`cut_cycles`): a position reached twice; the moves between are cut.
2. *The game's own pass*, where its package has one (``Game.shorter_line``): a game that knows
   which of its moves only rearrange can plan the line again around the moves that make progress
   (Persian Rug: :mod:`musical_cli.games.crazy_quilt.lines`).
3. *Merges* (:func:`merge_transfers`): a card moved from x onto the pile y and later taken off y
   again to z (the next move that takes from y more than was put on it since) is moved from x
   to z once, or not at all when z is x (a move that a later move undoes).

Passes 2 and 3 go round again, with cycles cut again, while a round shortens the line (at most
ROUNDS rounds): the game's pass plans again around what the merges left.

**Soundness.** No pass is trusted: each change is replayed by the engine (``Game.apply``, which
raises on an illegal move). A merge is kept only when its replay reaches the very position the
old line had reached at the same point: from there on, the old line's moves are legal and win,
as they did. A cut cycle joins two equal positions (positions are values: equal positions have
the same moves and the same future). The game's line is kept only when its replay from the start
ends in a won position and it is shorter. And at the end :func:`shorten` replays the whole result
once more from the start, and returns the line it was given, unchanged, unless the result is
legal, wins and is no longer: a bug in a pass costs length, never a win.

It is deterministic: the passes go through the line in order, never iterate over a hashed
collection (sets and dicts are only asked whether they hold something), and the keys that tell
positions apart (:func:`_keys`) are made of the line's moves, numbered in the order they come,
not of strings, whose hashes change from one run to the next.

The cost (bench/lines.py measures it): the replays are linear in the line; cutting cycles
follows the moves once and compares only positions whose keys are equal; a merge replays the
few moves between the two moves it joins (at most MERGE_REACH), and is not tried again until
one of them changes; the game's pass has its own bound. On a Persian Rug line of 2,952 moves,
about 0.1 s of CPU in all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .game import Game, IllegalMove, Outcome
from .moves import FOUNDATION, Deal, Move, Transfer, W

# A merge looks this far ahead for the move that takes its card off again.
MERGE_REACH = 400
# Sweeps of the merge pass at most (each merge may let an earlier one happen; two or three
# sweeps find them all in practice).
MERGE_SWEEPS = 8
# Rounds of the three passes at most, while a round shortens the line: the game's pass plans
# again around what the merges left (Persian Rug: the second round takes a further 0-15% off
# the lines the first left longest; a third, hardly anything).
ROUNDS = 3


def replay(game: Game, state: Any, moves: Sequence[Move]) -> list[Any]:
    """Every position of the line, ``state`` first; IllegalMove when a move is illegal."""
    states = [state]
    for move in moves:
        state = game.apply(state, move)
        states.append(state)
    return states


def wins(game: Game, state: Any, moves: Sequence[Move]) -> bool:
    """Whether ``moves`` are legal from ``state`` and end in a won position."""
    try:
        return game.outcome(replay(game, state, moves)[-1]) is Outcome.WON
    except IllegalMove:
        return False


def cut_cycles(states: list[Any], moves: list[Move]) -> tuple[list[Any], list[Move]]:
    """The line with every stretch between two visits of one position cut out: from each
    position the line goes on from its last visit. ``states`` are the line's positions (one
    more than ``moves``).

    Hashing a position hashes every card of it, so positions are first told apart by a key
    that the moves alone give (:func:`_keys`), and only positions with the same key are
    compared: a cut needs the two positions equal (``==``), whatever the keys say."""
    keys = _keys(moves)
    members: dict[int, list[int]] = {}
    for i, key in enumerate(keys):
        members.setdefault(key, []).append(i)

    def last_visit(i: int) -> int:
        for j in reversed(members[keys[i]]):
            if j <= i:
                return i
            if states[j] == states[i]:
                return j
        return i

    i = last_visit(0)
    out_states, out_moves = [states[i]], []
    while i < len(moves):
        out_moves.append(moves[i])
        i = last_visit(i + 1)
        out_states.append(states[i])
    return out_states, out_moves


_STOCK = "stock"  # the place a deal takes from, in _keys


def _keys(moves: Sequence[Move]) -> list[int]:
    """A key for each position of the line, from its moves alone: equal positions mostly have
    equal keys, and positions with equal keys are almost always equal (:func:`cut_cycles`
    compares them before it cuts, so a wrong key costs a cut, or a comparison, never a win).

    Each place is followed as a pile: a transfer takes the source's top card onto the target,
    a deal the stock's top card onto the waste. A card is named by where it lay at the start
    (its place and how deep below the top), found when it is first taken; a position's key is
    a Zobrist hash (Zobrist 1970) of the cards that lie elsewhere than at the start: for each,
    a number for (place, height, card) XORed in, heights counted from each pile's height at the
    start. So the key goes back to what it was when the cards do, and two copies of one card
    (two decks) lying in each other's places give another key (a cycle missed, never one
    made up). A redeal, which turns the waste over, starts the count afresh on a new key
    (redeals are counted in the position: none is undone)."""
    height: dict[int, int] = {}  # each place's height, counted from its height at the start
    piles: dict[int, list[tuple[int, int]]] = {}  # the cards put on each place above its start
    taken: dict[int, int] = {}  # how many of each place's starting cards have been taken
    numbers: dict[Any, int] = {}  # each place, numbered in the order the line first names it
    key = 0
    keys = [key]

    def number(place: Any) -> int:
        return numbers.setdefault(place, len(numbers))

    def take(place: int) -> tuple[int, int]:
        nonlocal key
        level = height.get(place, 0) - 1
        height[place] = level
        pile = piles.get(place)
        if pile:
            card = pile.pop()
        else:
            depth = taken.get(place, 0)
            taken[place] = depth + 1
            card = (place, depth)  # the card that lay ``depth`` below the place's top
        key ^= hash((place, level, card))  # a tuple of ints: the same hash in every run
        return card

    def put(place: int, card: tuple[int, int]) -> None:
        nonlocal key
        level = height.get(place, 0)
        height[place] = level + 1
        piles.setdefault(place, []).append(card)
        key ^= hash((place, level, card))

    epoch = 0
    for move in moves:
        if isinstance(move, Transfer) and move.target is not None:
            put(number(move.target), take(number(move.source)))
        elif isinstance(move, Deal):
            put(number(W), take(number(_STOCK)))
        else:  # a redeal, or a move of unknown effect: a new count
            epoch += 1
            height.clear()
            piles.clear()
            taken.clear()
            key = hash((-1, epoch))
        keys.append(key)
    return keys


def _pushes(move: Move, place: Any) -> int | None:
    """What ``move`` does to the pile at ``place``: +1 a card put on it, -1 its top card taken,
    0 nothing; None when that is not known (a redeal turns the whole waste over)."""
    if isinstance(move, Transfer):
        return (move.target == place) - (move.source == place)
    if isinstance(move, Deal):
        return int(place == W)  # a deal turns the stock's top card onto the waste
    return None


def merge_transfers(game: Game, states: list[Any], moves: list[Move]) -> bool:
    """Pass 3 of the module docstring, in place, sweep after sweep until one changes nothing
    (at most MERGE_SWEEPS); whether anything changed.

    A transfer x -> y of a card c, and the move that next takes c off y to z: the first move
    after it that takes from y more cards than were put on y since (y is a pile: its top card
    leaves first). The two become one move x -> z, at the first move's place (c goes to z at
    once) or else at the second's (c waits at x until then); none, when z is x. Each is kept
    only if its replay rejoins the line (:meth:`_Merges.splice`), which is the proof. The rest
    only spares replays that cannot rejoin: the first way is not tried when a move between
    touches z, the second when one touches x (it takes the card under c, or puts one on c);
    nor is a merge tried again when nothing between has changed since it failed."""
    return _Merges(game, states, moves).run()


class _Merges:
    def __init__(self, game: Game, states: list[Any], moves: list[Move]):
        self.game, self.states, self.moves = game, states, moves
        self.clock = 0  # splices made so far
        self.placed = [0] * len(moves)  # the clock when each move was put where it is
        self.failed = [-1] * len(moves)  # the clock when a merge from each move last failed

    def run(self) -> bool:
        changed = False
        for _ in range(MERGE_SWEEPS):
            swept = False
            a = 0
            while a < len(self.moves):
                if self.merge_at(a):
                    swept = changed = True
                else:
                    a += 1
            if not swept:
                break
        return changed

    def merge_at(self, a: int) -> bool:
        """Merge ``moves[a]`` with the move that takes its card off again, if a merge rejoins."""
        moves = self.moves
        first = moves[a]
        if not isinstance(first, Transfer) or first.target is None or first.target.kind == FOUNDATION:
            return False  # nothing leaves a foundation
        x, y = first.source, first.target
        depth = 0  # cards put on c since
        x_touched = False
        touched: set[Any] = set()
        b = a + 1
        end = min(len(moves), a + 1 + MERGE_REACH)
        while True:
            if b >= end:
                return False
            move = moves[b]
            pushed = _pushes(move, y)
            if pushed is None:
                return False
            depth += pushed
            if depth < 0:
                break
            places = (move.source, move.target) if isinstance(move, Transfer) else (W,)
            touched.update(places)
            x_touched = x_touched or x in places
            b += 1
        second = moves[b]
        if not isinstance(second, Transfer) or second.target is None:
            return False
        if self.failed[a] >= max(self.placed[a:b + 1]):
            return False  # tried since anything here last changed
        z = second.target
        between = moves[a + 1:b]
        if z == x:
            done = not x_touched and self.splice(a, b + 1, between)
        else:
            done = ((z not in touched and self.splice(a, b + 1, [Transfer(x, z), *between]))
                    or (not x_touched and self.splice(a, b + 1, [*between, Transfer(x, z)])))
        if not done:
            self.failed[a] = self.clock
        return done

    def splice(self, a: int, b: int, new: list[Move]) -> bool:
        """Put ``new`` in place of ``moves[a:b]`` when, replayed from ``states[a]``, it reaches
        ``states[b]``, the position the old moves reached (so the rest of the line is unchanged
        and stays legal and winning); whether it did."""
        states = self.states
        s = states[a]
        reached = []
        try:
            for move in new:
                s = self.game.apply(s, move)
                reached.append(s)
        except IllegalMove:
            return False
        if s != states[b]:
            return False
        self.clock += 1
        self.moves[a:b] = new
        states[a + 1:b + 1] = reached
        self.placed[a:b] = [self.clock] * len(new)
        self.failed[a:b] = [-1] * len(new)
        return True


def shorten(game: Game, state: Any, moves: Sequence[Move],
            states: Sequence[Any] | None = None) -> tuple[Move, ...]:
    """A winning line from ``state`` without the detours of ``moves`` (the module docstring:
    what is taken out and why the result still wins). Never longer than ``moves``; ``moves``
    unchanged when they do not win from ``state``, or when no pass finds anything. ``states``:
    the line's positions, ``state`` first, when the caller has replayed it already."""
    given = tuple(moves)
    if states is None:
        try:
            states = replay(game, state, given)
        except IllegalMove:
            return given
    if len(states) != len(given) + 1 or game.outcome(states[-1]) is not Outcome.WON:
        return given
    positions, line = cut_cycles(list(states), list(given))
    for _ in range(ROUNDS):
        before = len(line)
        try:
            own = game.shorter_line(state, tuple(line))
        except Exception:  # a bug in the game's pass costs length, never the answer
            own = None  # (tests/test_lines.py calls the pass itself, where a bug shows)
        if own is not None and len(own) < len(line):
            try:
                replayed = replay(game, state, own)
            except IllegalMove:
                replayed = None
            if replayed is not None and game.outcome(replayed[-1]) is Outcome.WON:
                positions, line = cut_cycles(replayed, list(own))
        merge_transfers(game, positions, line)
        if len(line) >= before:
            break
        positions, line = cut_cycles(positions, line)
    out = tuple(line)
    if len(out) < len(given) and wins(game, state, out):
        return out
    return given


def along(game: Game, state: Any, moves: Sequence[Move]) -> Iterator[tuple[Any, tuple[Move, ...]]]:
    """Each position a line goes through after ``state``, with the rest of the line from it:
    (the position after the first move, moves[1:]), (after the second, moves[2:]), ... A player
    who follows a hint reaches the first of these; the rest of the line is the next hint, one
    move shorter, with no search."""
    for k, move in enumerate(moves):
        state = game.apply(state, move)
        yield state, tuple(moves[k + 1:])
