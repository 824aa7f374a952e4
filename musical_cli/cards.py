"""Cards as values: a rank and a suit, with ASCII and Unicode text forms that parse back.

ASCII codes are two characters, rank then suit (``AC``, ``TD``, ``QS``); the Unicode form uses
the suit symbols and ``10`` for ten (``A♣``, ``10♦``). :func:`Card.parse` reads either, in any
case, and also ``10`` for ``T`` in ASCII.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .i18n import _

RANK_CODES = "A23456789TJQK"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class CardParseError(ValueError):
    """Text that is not a card."""

    def __init__(self, text: str, why: str):
        self.text = text
        self.why = why
        # TRANSLATORS: {text} is what was typed; {why} what is wrong with it. The examples are cards
        # as they are typed in every language.
        super().__init__(_("{text!r} is not a card: {why} (examples: AC, TD, 10♦, Q♠)").format(text=text, why=why))


class Suit(enum.Enum):
    # Declared in the order of the unshuffled deck that PySolFC shuffles (musical-games(7), NUMBERED DEALS):
    # clubs, spades, hearts, diamonds.
    CLUBS = ("C", "♣", False)
    SPADES = ("S", "♠", False)
    HEARTS = ("H", "♥", True)
    DIAMONDS = ("D", "♦", True)

    def __init__(self, code: str, symbol: str, red: bool):
        self.code = code
        self.symbol = symbol
        self.red = red

    @classmethod
    def parse(cls, text: str, context: str | None = None) -> Suit:
        for suit in cls:
            # Compared letter by letter, not with upper(): "ſ".upper() is "S".
            if text in (suit.code, suit.code.lower(), suit.symbol):
                return suit
        # The outline symbols are what some fonts and keyboards produce; accept them too.
        outline = {"♧": cls.CLUBS, "♤": cls.SPADES, "♡": cls.HEARTS, "♢": cls.DIAMONDS}
        if text in outline:
            return outline[text]
        raise CardParseError(context if context is not None else text,
                             _("the suit must be one of C D H S or ♣ ♦ ♥ ♠"))


SUITS = tuple(Suit)


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. ``rank`` is 1 (ace) to 13 (king)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if isinstance(self.rank, bool) or not (isinstance(self.rank, int) and 1 <= self.rank <= 13):
            raise CardParseError(str(self.rank), _("the rank must be 1 (ace) to 13 (king)"))
        if not isinstance(self.suit, Suit):
            raise CardParseError(str(self.suit), _("the suit must be a Suit"))

    def sort_key(self) -> tuple[int, int]:
        """Rank first, then the deck's suit order (an Enum has no order of its own)."""
        return (self.rank, SUITS.index(self.suit))

    @property
    def code(self) -> str:
        """The two-character ASCII code: ``AC``, ``TD``, ``KS``."""
        return RANK_CODES[self.rank - 1] + self.suit.code

    @property
    def symbol(self) -> str:
        """The Unicode form: ``A♣``, ``10♦``."""
        return RANK_NAMES[self.rank - 1] + self.suit.symbol

    def text(self, ascii: bool = False) -> str:
        return self.code if ascii else self.symbol

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from any of its text forms (``AC``, ``ac``, ``10C``, ``TC``, ``10♣``)."""
        raw = text
        text = text.strip()
        if len(text) < 2:
            raise CardParseError(raw, _("too short; a card is a rank and a suit"))
        rank_text, suit_text = text[:-1], text[-1]
        return cls(parse_rank(rank_text, raw), Suit.parse(suit_text, raw))


def parse_rank(text: str, context: str | None = None) -> int:
    """A rank from its text: ``A``, ``2``..``10``, ``T``, ``J``, ``Q``, ``K`` (any case)."""
    t = text.strip().upper()
    if t == "10":
        return 10
    if len(t) == 1 and t in RANK_CODES:
        return RANK_CODES.index(t) + 1
    raise CardParseError(context if context is not None else text,
                         _("the rank must be one of A 2 3 4 5 6 7 8 9 10 (or T) J Q K"))


def rank_name(rank: int) -> str:
    return RANK_NAMES[rank - 1]


def a_rank(rank: int) -> str:
    """The rank with its article, for messages: 'a 5', 'an 8', 'an A'."""
    name = rank_name(rank)
    if name in ("A", "8"):
        # TRANSLATORS: a rank (A, 8) with its article, as a message says what a foundation needs
        # ("foundation 2 needs an 8"); a language without articles gives the rank alone
        return _("an {rank}").format(rank=name)
    # TRANSLATORS: a rank (2 ... 10, J, Q, K) with its article, as a message says what a foundation
    # needs ("foundation 2 needs a 5"); a language without articles gives the rank alone
    return _("a {rank}").format(rank=name)


def new_deck(decks: int = 1) -> list[Card]:
    """The unshuffled deck(s) in PySolFC's order: clubs, spades, hearts, diamonds; A..K in each."""
    one = [Card(rank, suit) for suit in SUITS for rank in range(1, 14)]
    return one * decks
