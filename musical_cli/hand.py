"""The game in hand as a value: the deal, the positions reached, the moves, undo and redo.

A :class:`Hand` is frozen, as the engine's states are: every change (a move, an undo, a redo)
returns a new hand, so that a search beside the prompt can keep the hand it was given while the
player goes on, and a test can compare two hands with ``==``. The command layer's
:class:`musical_cli.commands.Session` holds the current hand and replaces it; nothing here prints,
asks or searches.

Moves are grouped in *steps*, what one command did. In a hand that *turns cards up* (the
interactive shell, in a game whose next card is turned up by itself once the waste card is
placed, as PySolFC does for Calculation) ``d`` is played after the waste card is placed, and
``undo`` takes both back together; the record keeps every move.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from .deals import DealNumber
from .game import Game, Outcome
from .i18n import _
from .moves import DEAL, Move
from .notation import resolve
from .transcript import GameRecord

# A game's position: a frozen, hashable value of the game's own state class. The protocol in
# musical_cli.game does not constrain it further; the hand only stores, compares and hashes it.
Position = Any
# A game's rules: the frozen dataclass of its rule options (Game.rules_type).
Rules = Any

# Who played a game, for the player's figures: "player" (played from the deal; hints and auto do
# not change that), "solver" (any 'solve play'), or "loaded" (from a transcript or @ID, with the
# moves it came with).
HOW = ("player", "solver", "loaded")


def counts(game: Game, move: Move) -> bool:
    """Whether ``move`` counts as one of the player's moves in ``game``: every move but the turn
    of a card in a game that turns its cards up by itself (in the shell the player never types
    it; a game read from a pipe or a transcript, which types it, counts alike)."""
    return not (game.auto_turn and move == DEAL)


def players_moves(game: Game, moves: Iterable[Move]) -> int:
    """How many of ``moves`` count as the player's (:func:`counts`)."""
    return sum(1 for m in moves if counts(game, m))


class Listener(Protocol):
    """Told of every change to a hand ("start", "move", "undo", "redo", "hint",
    "solved"), as a session sees them: the shell's record (musical_cli.record.Recorder)."""

    def event(self, what: str) -> None: ...

    @property
    def keeps(self) -> bool:
        """Whether what it is told is kept (a game left can be resumed)."""


class Played(NamedTuple):
    """One move made, with the positions before and after it: the review names a losing move
    even once it is undone, so every move made is kept, in order."""

    number: int  # 1-based, the length of the game once it was made
    move: Move
    before: Position
    after: Position


@dataclass(frozen=True)
class Hand:
    """One game in hand: its start, the moves made (in steps), the steps undone (for redo)."""

    game: Game
    deal: DealNumber
    rules: Rules
    states: tuple[Position, ...]  # the opening, then the position after each move
    moves: tuple[Move, ...] = ()
    steps: tuple[int, ...] = ()  # how many moves each step (one command) made
    undone: tuple[tuple[Move, ...], ...] = ()  # the steps taken back, the latest last
    trail: tuple[Played, ...] = ()  # every move made, those later undone too
    turns_up: bool = False  # the game's next card is turned up by itself (the shell)
    how: str = "player"  # who plays it (HOW)
    coached: bool = False  # the live coach was on at some point
    difficulty: str | None = None  # the deal's rating, when known
    chosen: str | None = None  # how the deal was chosen, for the title: "winnable", "hard"

    def __post_init__(self) -> None:
        if self.how not in HOW:
            # TRANSLATORS: who played a game, as the program names it: {how!r} and {players} (player,
            # solver, loaded) stay English.
            raise ValueError(_("unknown player {how!r}; one of {players}").format(how=self.how, players=", ".join(HOW)))

    # --- making one ----------------------------------------------------------------------------
    @classmethod
    def begin(cls, game: Game, deal: DealNumber, rules: Rules, moves: tuple[Move, ...] = (),
              steps: Iterable[int] | None = None, undone: Iterable[tuple[Move, ...]] | None = None,
              turns_up: bool = False, how: str = "player", coached: bool = False) -> Hand:
        """``deal`` with ``moves`` replayed (IllegalMove on one the rules refuse). ``steps`` and
        ``undone`` restore a game's undo and redo history (a resumed game); by default each move
        is one step, a card the game turned up by itself going with the move before it, and
        nothing is undone."""
        states = [game.opening(deal, rules)]
        for move in moves:
            states.append(game.apply(states[-1], move))
        trail = tuple(Played(i + 1, m, states[i], states[i + 1]) for i, m in enumerate(moves))
        hand = cls(game, deal, rules, tuple(states), tuple(moves), (), tuple(undone or ()), trail,
                   turns_up=turns_up and game.auto_turn, how=how, coached=coached)
        hand = replace(hand, steps=tuple(steps) if steps is not None else hand._steps_of(moves))
        if not moves:
            return hand._turn_up()[0]
        if not hand.undone:
            turned, count = hand._turn_up()
            if count and turned.steps:
                # A loaded line that ends on a placement (a transcript from batch mode, which
                # turns nothing up by itself): the shell turns the next card up, as after any
                # placement, with that move's step, so that the line the solver shows can be typed.
                return replace(turned, steps=(*turned.steps[:-1], turned.steps[-1] + 1))
            return turned
        return hand

    def _steps_of(self, moves: Iterable[Move]) -> tuple[int, ...]:
        """Undo steps for moves that come without them: one a move, a card the game turned up
        by itself going with the move before it (none before the first: undo never takes back
        the opening turn)."""
        steps: list[int] = []
        for move in moves:
            if steps and not self.counts(move):
                steps[-1] += 1
            elif self.counts(move):
                steps.append(1)
        return tuple(steps)

    # --- what it is ----------------------------------------------------------------------------
    @property
    def state(self) -> Position:
        return self.states[-1]

    @property
    def start(self) -> Position:
        return self.states[0]

    @property
    def record(self) -> GameRecord:
        return GameRecord(self.game, self.deal, self.rules, self.moves)

    def outcome(self) -> Outcome:
        return self.game.outcome(self.state)

    @property
    def title(self) -> str:
        """The name of the game as players know it: "Indian Carpet", "Calculation with 3 piles"."""
        return self.game.variant_title(self.rules)

    def counts(self, move: Move) -> bool:
        """Whether ``move`` counts as one of the player's moves (:func:`counts`); the record
        keeps every move all the same."""
        return counts(self.game, move)

    def counted(self, moves: Iterable[Move]) -> int:
        return players_moves(self.game, moves)

    @property
    def move_count(self) -> int:
        """The player's moves so far, as the status line, 'undo' and the verdict count them."""
        return self.counted(self.moves)

    def in_play(self) -> bool:
        """Whether the game is the player's and not over: a move made (undone or not), and
        neither won nor lost."""
        return bool(self.steps or self.undone) and self.outcome() is Outcome.IN_PLAY

    def steps_back(self, moves: int) -> int:
        """How many undo steps take back at least ``moves`` moves."""
        taken = steps = 0
        for count in reversed(self.steps):
            if taken >= moves:
                break
            taken += count
            steps += 1
        return steps

    # --- changes: each returns a new hand ------------------------------------------------------
    def _apply(self, move: Move) -> Hand:
        before = self.state
        after = self.game.apply(before, move)
        number = len(self.moves) + 1
        return replace(self, states=(*self.states, after), moves=(*self.moves, move),
                       trail=(*self.trail, Played(number, move, before, after)))

    def _turn_up(self) -> tuple[Hand, int]:
        """``d`` played when the game turns its next card up by itself; how many moves that made."""
        if self.turns_up and DEAL in self.game.legal_moves(self.state):
            return self._apply(DEAL), 1
        return self, 0

    def play(self, move: Move, turn_up: bool = True) -> tuple[Hand, Move]:
        """One move as one step (a short form resolved against the position; IllegalMove when the
        rules refuse it), with ``turn_up`` also the ``d`` that follows it in a hand that turns
        cards up; the new hand and the move as made."""
        move = resolve(self.game, self.state, move)
        hand = self._apply(move)
        count = 1
        if turn_up:
            hand, turned = hand._turn_up()
            count += turned
        if count == 1 and hand.steps and not hand.counts(move):
            # A card turned up as a move of its own ('solve play', 'auto' play their lines' own
            # deals) goes with the move before it, as the shell's own turn-up does: 'undo' takes
            # back a placement, never a lone turn.
            return replace(hand, steps=(*hand.steps[:-1], hand.steps[-1] + 1), undone=()), move
        step = hand.moves[-count:]
        # A different move makes the undone moves another future: redo no longer applies.
        undone = hand.undone[:-1] if hand.undone and hand.undone[-1] == step else ()
        return replace(hand, steps=(*hand.steps, count), undone=undone), move

    def play_on(self, moves: Iterable[Move]) -> Hand:
        """``moves`` (as made: no short forms) added to the last step, as the moves 'auto on'
        plays after the player's: one 'undo' takes them back with the move that led to them
        (a step of their own when there is none). The moves hold their own turned cards. The
        moves taken back are forgotten: they followed the step as it was."""
        hand = self
        for move in moves:
            hand = hand._apply(move)
        count = len(hand.moves) - len(self.moves)
        if not count:
            return self
        steps = (*hand.steps[:-1], hand.steps[-1] + count) if hand.steps else (count,)
        return replace(hand, steps=steps, undone=())

    def undo(self, n: int = 1) -> tuple[Hand, int]:
        """``n`` steps taken back (or as many as there are): the new hand, and how many of the
        player's moves that took back."""
        steps = min(n, len(self.steps))
        if not steps:
            return self, 0
        keep = len(self.moves)
        undone = list(self.undone)
        for count in reversed(self.steps[-steps:]):
            undone.append(self.moves[keep - count:keep])
            keep -= count
        hand = replace(self, states=self.states[:keep + 1], moves=self.moves[:keep],
                       steps=self.steps[:-steps], undone=tuple(undone))
        return hand, self.counted(self.moves[keep:])

    def redo(self, n: int = 1) -> tuple[Hand, int]:
        """``n`` steps taken back made again (or as many as there are): the new hand, and how
        many of the player's moves that made."""
        hand, made = self, 0
        for _step in range(min(n, len(self.undone))):
            step = hand.undone[-1]
            for move in step:
                hand = hand._apply(move)
            hand = replace(hand, steps=(*hand.steps, len(step)), undone=hand.undone[:-1])
            made += self.counted(step)
        return hand, made
