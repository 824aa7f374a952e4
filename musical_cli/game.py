"""The protocol every game of the family follows, and the errors the engine raises.

A game is one module with one :class:`Game` object: it lays out a deal, lists the legal moves,
applies a move (returning a new state or raising :class:`IllegalMove`) and tells the outcome.
Notation, transcripts, the solver and the shell talk to this protocol, never to a game's insides.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from .cards import Card
from .deals import DealNumber, shuffled_deck
from .moves import Move


class Outcome(enum.Enum):
    IN_PLAY = "in play"
    WON = "won"
    LOST = "lost"

    def __str__(self) -> str:
        return self.value


class IllegalMove(ValueError):
    """A move the rules forbid in this position.

    ``reason`` may hold ``{}`` placeholders filled by ``cards``, so that the message can be given
    with suit symbols (``str(error)``) or ASCII codes (``error.text(ascii=True)``).
    """

    def __init__(self, move: Move, reason: str, legal: Sequence[Move], cards: Sequence[Card] = ()):
        self.move = move
        self.reason = reason
        self.legal = tuple(legal)
        self.cards = tuple(cards)
        super().__init__(self.text())

    def text(self, ascii: bool = False) -> str:
        why = self.reason.format(*(c.text(ascii) for c in self.cards))
        if self.legal:
            alternatives = "legal now: " + ", ".join(str(m) for m in self.legal)
        else:
            alternatives = "no move is legal now"
        return f"{self.move}: {why}; {alternatives}"

    def __str__(self) -> str:
        return self.text()


class Foundations:
    """What a state whose foundations build fixed rank sequences can say about them.

    A state class sets ``SEQUENCES`` (each foundation's ranks, base first) and has a
    ``foundations`` tuple of card tuples."""

    __slots__ = ()
    SEQUENCES: ClassVar[tuple[tuple[int, ...], ...]] = ()

    def needs(self, i: int) -> int | None:
        """The rank foundation i (1-based) takes next, or None when it is complete."""
        sequence = self.SEQUENCES[i - 1]
        height = len(self.foundations[i - 1])  # type: ignore[attr-defined]
        return None if height >= len(sequence) else sequence[height]

    def wanting(self, rank: int) -> tuple[int, ...]:
        """The foundations (1-based) whose next card has this rank."""
        return tuple(i for i in range(1, len(self.SEQUENCES) + 1) if self.needs(i) == rank)

    @property
    def complete(self) -> bool:
        """Every foundation is built to its end."""
        return all(len(f) == len(seq) for f, seq in zip(self.foundations, self.SEQUENCES, strict=True))  # type: ignore[attr-defined]


class RulesError(ValueError):
    """A rule option that the game does not have, or a value it cannot take."""


class Game(ABC):
    """One game of the family. Every method is pure: states and moves are values."""

    name: str  # the word used on the command line and in transcripts: "musical"
    title: str  # for people: "Musical"
    decks: int = 1
    # Whether the next card is turned up by itself once the waste card is placed (as PySolFC
    # does for Calculation); the interactive shell follows it, records and transcripts do not.
    auto_turn: bool = False
    # Whether hints must come from a player who cannot see the stock below its top card. In
    # Musical the whole stock has been seen after the first pass; in Calculation it never is.
    hint_is_blind: bool = False

    # --- rules -----------------------------------------------------------------------------
    @abstractmethod
    def default_rules(self) -> Any: ...

    @abstractmethod
    def rules_from_options(self, options: Mapping[str, str]) -> Any:
        """Rules from their text options (a transcript's header); unknown names are an error."""

    @abstractmethod
    def rules_options(self, rules: Any) -> dict[str, str]:
        """Every rule option as text, the inverse of :meth:`rules_from_options`."""

    # --- play ------------------------------------------------------------------------------
    @abstractmethod
    def layout(self, deck: Sequence[Card], rules: Any) -> Any:
        """The opening state from a shuffled deck (last element on top of the stock)."""

    def opening(self, deal: DealNumber, rules: Any = None) -> Any:
        return self.layout(shuffled_deck(deal, self.decks), self.default_rules() if rules is None else rules)

    @abstractmethod
    def legal_moves(self, state: Any) -> tuple[Move, ...]: ...

    @abstractmethod
    def apply(self, state: Any, move: Move) -> Any:
        """The state after ``move``; ``state`` is untouched. Raises :class:`IllegalMove`."""

    def outcome(self, state: Any) -> Outcome:
        """Won when every foundation is complete; lost when no move is left."""
        if state.complete:
            return Outcome.WON
        if not self.legal_moves(state):
            return Outcome.LOST
        return Outcome.IN_PLAY

    def _refuse(self, state: Any, move: Move, reason: str, *cards: Card):
        """Raise IllegalMove for ``move`` in ``state``, listing the legal moves."""
        raise IllegalMove(move, reason, self.legal_moves(state), cards)

    @abstractmethod
    def cards_to_build(self, state: Any) -> int:
        """How many cards are not yet on the foundations."""

    def play(self, state: Any, moves: Iterable[Move]) -> Any:
        for move in moves:
            state = self.apply(state, move)
        return state
