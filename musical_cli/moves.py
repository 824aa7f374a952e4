"""Moves as values, shared by every game of the family.

A move is a deal (``d``), a redeal (``redeal``), or a transfer of one card from a place to a
place (``w f2``: the waste's top to foundation 2; ``p1 f3``; ``w p2``). ``str(move)`` is the
canonical text; :mod:`musical_cli.notation` parses every accepted spelling back to the value.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds of place. The waste has no number; foundations and piles are numbered from 1.
WASTE = "w"
FOUNDATION = "f"
PILE = "p"
# English for each kind, for messages, and how many digits its index takes in the notation
# (the waste none). A game with places of its own (a quilt, reserves) registers their letters
# with register_kind; a name with "{}" takes the index there.
KIND_NAMES = {WASTE: "the waste", FOUNDATION: "foundation", PILE: "pile"}
KIND_DIGITS = {WASTE: 0, FOUNDATION: 1, PILE: 1}


def register_kind(letter: str, name: str, digits: int = 1) -> str:
    """Declare a kind of place (one lower-case letter), its English name and the digits of its
    index (``q34``: 2); returns the letter. Registering the same kind again is harmless."""
    if (len(letter) != 1 or not letter.isascii() or not letter.islower()
            or KIND_NAMES.get(letter, name) != name or KIND_DIGITS.get(letter, digits) != digits):
        raise ValueError(f"place kind {letter!r} is taken or not one lower-case letter")
    KIND_NAMES[letter] = name
    KIND_DIGITS[letter] = digits
    return letter


@dataclass(frozen=True, slots=True)
class Place:
    kind: str
    index: int = 0  # 1-based for foundations and piles; 0 for the waste

    def __str__(self) -> str:
        return self.kind if self.kind == WASTE else f"{self.kind}{self.index}"

    @property
    def name(self) -> str:
        """English for messages: 'the waste', 'foundation 2', 'pile 3'."""
        name = KIND_NAMES[self.kind]
        if self.kind == WASTE:
            return name
        return name.format(self.index) if "{}" in name else f"{name} {self.index}"


W = Place(WASTE)


def F(i: int) -> Place:  # noqa: N802 - reads like the notation
    return Place(FOUNDATION, i)


def P(i: int) -> Place:  # noqa: N802
    return Place(PILE, i)


@dataclass(frozen=True, slots=True)
class Deal:
    def __str__(self) -> str:
        return "d"


@dataclass(frozen=True, slots=True)
class Redeal:
    def __str__(self) -> str:
        return "redeal"


@dataclass(frozen=True, slots=True)
class Transfer:
    """One card from ``source`` to ``target``. A ``target`` of None is the short form ``w``
    ("wherever it fits"), which :func:`musical_cli.notation.resolve` completes against a state."""

    source: Place
    target: Place | None = None

    def __str__(self) -> str:
        return str(self.source) if self.target is None else f"{self.source} {self.target}"


Move = Deal | Redeal | Transfer

DEAL = Deal()
REDEAL = Redeal()
