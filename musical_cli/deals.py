"""Deal numbers and the shuffled decks they name, exactly as PySolFC deals them (musical-games(7), NUMBERED DEALS).

A deal number is ``N`` (1 <= N <= 10**20) or ``msN`` (Microsoft FreeCell generator forced).
Numbers up to 31999 use the Microsoft generator, larger ones the Mersenne Twister as PySolFC
seeds it. pysol-cards holds both generators; its convenience ``shuffle()`` switches at 32000, one
number off from PySolFC, so the generator classes are used directly.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

# pysol_cards ships no type information (no py.typed): mypy takes these as untyped.
from pysol_cards.cards import ms_rearrange  # type: ignore[import-untyped]
from pysol_cards.random import LCRandom31, MTRandom  # type: ignore[import-untyped]

from .cards import Card, new_deck
from .i18n import _

# PySolFC's own bounds: the Microsoft generator takes 33-bit seeds, the Mersenne Twister 20 digits.
MS_MAX = LCRandom31.MAX_SEED
MT_MAX = MTRandom.MAX_SEED
MS_LIMIT = 31999  # the last plain number dealt by the Microsoft generator
MAX_RANGE = 10_000_000  # deals in one A-B range: far more than any run, far less than memory

_NUMBER = re.compile(r"(ms)?([0-9]+)", re.IGNORECASE)


class DealNumberError(ValueError):
    """Text that is not a deal number."""

    def __init__(self, text: str, why: str):
        self.text = text
        self.why = why
        # TRANSLATORS: {text} is what was given, {why} what is wrong with it
        super().__init__(_("{text!r} is not a deal number: {why}").format(text=text, why=why))


@dataclass(frozen=True, slots=True)
class DealNumber:
    """One shuffle, named for ever: ``DealNumber(1)``, ``DealNumber(5, ms=True)`` (``ms5``)."""

    number: int
    ms: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise DealNumberError(str(self.number), _("it must be a whole number"))
        top = MS_MAX if self.ms else MT_MAX
        if not 1 <= self.number <= top:
            raise DealNumberError(self.text, _from_1_to(top))

    @property
    def text(self) -> str:
        return f"ms{self.number}" if self.ms else str(self.number)

    def __str__(self) -> str:
        return self.text

    @property
    def json(self) -> int | str:
        """The JSON form: an integer, or the text ``msN`` for a forced Microsoft deal."""
        return self.text if self.ms else self.number

    @classmethod
    def parse(cls, text: str | int) -> DealNumber:
        if isinstance(text, int) and not isinstance(text, bool):
            return cls(text)
        raw = str(text)
        m = _NUMBER.fullmatch(raw.strip())
        if not m:
            digits = raw.strip().lstrip("-")
            if digits.isascii() and digits.isdigit():  # "²" and "٣" are digits too, to isdigit()
                raise DealNumberError(raw, _("deal numbers start at 1"))
            # TRANSLATORS: msN is a deal number as typed (ms5), which stays as it is
            raise DealNumberError(raw, _("use a whole number such as 1 or 31999, or msN"))
        ms = m.group(1) is not None
        if len(m.group(2).lstrip("0")) > len(str(MT_MAX)):
            # Checked before int(): Python refuses to convert more than 4300 digits.
            raise DealNumberError(raw, _from_1_to(MS_MAX if ms else MT_MAX))
        number = int(m.group(2))
        if number == 0:
            raise DealNumberError(raw, _("deal numbers start at 1; 0 is not a deal"))
        return cls(number, ms=ms)

    def successor(self) -> DealNumber:
        return DealNumber(self.number + 1, self.ms)


def parse_deal_range(text: str) -> list[DealNumber]:
    """``N`` or ``A-B`` (inclusive; plain numbers only) as a list of deal numbers."""
    raw = text.strip()
    if "-" in raw[1:]:
        a_text, b_text = raw.split("-", 1)
        a, b = DealNumber.parse(a_text), DealNumber.parse(b_text)
        if a.ms != b.ms:
            # TRANSLATORS: msN is a deal number as typed (ms5), which stays as it is
            raise DealNumberError(text, _("both ends of a range must be plain numbers or both msN"))
        if b.number < a.number:
            raise DealNumberError(text, _("a range runs from the smaller number to the larger"))
        if b.number - a.number >= MAX_RANGE:
            raise DealNumberError(text, _("a range holds at most {most:,} deals").format(most=MAX_RANGE))
        return [DealNumber(n, a.ms) for n in range(a.number, b.number + 1)]
    return [DealNumber.parse(raw)]


def _from_1_to(top: int) -> str:
    # TRANSLATORS: {top} is the largest deal number of its generator
    return _("it must be from 1 to {top}").format(top=top)


def shuffled_deck(deal: DealNumber, decks: int = 1) -> list[Card]:
    """The deck(s) as PySolFC shuffles them for ``deal``; the **last** element is the stock's top."""
    cards = new_deck(decks)
    if deal.ms or deal.number <= MS_LIMIT:
        rng = LCRandom31(deal.number)
        cards = ms_rearrange(cards)  # a no-op for two decks, as in PySolFC
    else:
        rng = MTRandom(deal.number)
    rng.reset()
    rng.shuffle(cards)
    return cards


def random_deal_number() -> DealNumber:
    """A fresh number for a game started without one (shown and recorded, so it can be replayed)."""
    return DealNumber(secrets.randbelow(10**9) + 1)
