"""Move notation: every accepted spelling of a move parses to a value whose ``str`` is canonical.

Canonical: ``d``, ``redeal``, ``w f2``, ``w p3``, ``p1 f4``. Also accepted, in any case and with
any spacing: ``deal``, ``w2`` / ``w 2`` / ``wf2`` (a bare number after a source is a foundation),
``wp3``, ``p1f4``, and ``w`` alone ("to the one foundation that takes it"), completed by
:func:`resolve` against a position.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from .game import AnyGame, IllegalMove, State
from .i18n import _, pgettext
from .moves import DEAL, FOUNDATION, KIND_DIGITS, KIND_NAMES, REDEAL, WASTE, Move, Place, Transfer

_WORDS: dict[str, Move] = {"d": DEAL, "deal": DEAL, "redeal": REDEAL}


class NotationError(ValueError):
    """Text that is not a move in any game's notation. ``examples``: moves of the game in hand
    (:meth:`musical_cli.game.Game.move_examples`), which the message shows."""

    def __init__(self, text: str, why: str = "", examples: Sequence[str] = ()):
        self.text = text
        self.why = why or _("not a move")
        self.examples = tuple(examples)
        if self.examples:
            # TRANSLATORS: {text} is what was typed, {why} what is wrong with it; {examples} are
            # moves as they are typed in every language, as "d, w f2, redeal"
            message = _("{text!r}: {why} (moves look like {examples})").format(
                text=text.strip(), why=self.why, examples=", ".join(self.examples))
        else:
            # TRANSLATORS: {text} is what was typed, {why} what is wrong with it
            message = _("{text!r}: {why}").format(text=text.strip(), why=self.why)
        super().__init__(message)


def _place(text: str, squeezed: str, at: int) -> tuple[Place, int]:
    """The place whose letter is at ``squeezed[at]`` (a kind registered in moves.KIND_DIGITS,
    then exactly that many digits), and where the text goes on."""
    kind = squeezed[at]
    digits = KIND_DIGITS.get(kind)
    if digits is None:
        raise NotationError(text)
    number = squeezed[at + 1: at + 1 + digits]
    if number.isascii() and number.isdigit() and len(number) < digits and at + 1 + len(number) == len(squeezed):
        # 'q 7': a place that wants more digits than it got
        # TRANSLATORS: {kind} is a place's letter, as "q"; {digits} how many digits follow it; {guess}
        # the move begun, with an N for each digit missing, as "q7N"
        raise NotationError(text, _("{kind} is followed by {digits} digits; did you mean {guess}?").format(
            kind=kind, digits=digits, guess=f"{kind}{number}{'N' * (digits - len(number))}"))
    if len(number) != digits or (digits and not (number.isascii() and number.isdigit())):
        raise NotationError(text)
    return Place(kind, int(number) if digits else 0), at + 1 + digits


def parse_move(text: str, game: AnyGame | None = None, rules: Hashable | None = None) -> Move:
    """The move a text names. ``w`` alone gives ``Transfer(W, None)``, for :func:`resolve`.

    A transfer is a source place then, optionally, a target place; a bare digit as the target
    is a foundation (``w2`` is ``w f2``). Each place is a kind's letter and its digits.

    With the game in hand (and its rules), a :class:`NotationError` shows what its moves look
    like; without, it says only what is wrong."""
    try:
        return _parse_move(text)
    except NotationError as e:
        if game is None:
            raise
        raise NotationError(e.text, e.why, game.move_examples(rules)) from None


def _parse_move(text: str) -> Move:
    squeezed = "".join(text.split()).lower()
    if not squeezed:
        raise NotationError(text, pgettext("a move typed", "empty"))
    if squeezed in _WORDS:
        return _WORDS[squeezed]
    source, at = _place(text, squeezed, 0)
    if source.kind == FOUNDATION:
        raise NotationError(text, _("a card on a foundation stays there"))
    if source.kind != WASTE and source.index == 0:
        name = KIND_NAMES[source.kind]
        if "{}" in name:  # a place named with its index (a quilt cell, q34) is no count from 1
            raise NotationError(text)
        # TRANSLATORS: {name} is a kind of place, as "pile" or "reserve": "piles are numbered from 1"
        raise NotationError(text, _("{name}s are numbered from 1").format(name=_(name)))
    if at == len(squeezed):
        return Transfer(source)
    rest = squeezed[at:]
    if rest.isascii() and rest.isdigit() and len(rest) == KIND_DIGITS[FOUNDATION]:
        target = Place(FOUNDATION, int(rest))
    else:
        target, end = _place(text, squeezed, at)
        if end != len(squeezed):
            raise NotationError(text)
    if target.kind == WASTE and source.kind == WASTE:
        raise NotationError(text, _("the waste card is already on the waste"))
    if target.kind != WASTE and target.index == 0:
        raise NotationError(text, _("foundations and piles are numbered from 1"))
    return Transfer(source, target)


def format_move(move: Move) -> str:
    return str(move)


def resolve(game: AnyGame, state: State, move: Move) -> Move:
    """Complete a short form against a position: the game's own completion
    (:meth:`musical_cli.game.Game.resolve`) first; otherwise ``w`` alone becomes ``w fN`` when
    exactly one legal move plays that card to a foundation. Anything else is returned as it is."""
    if not (isinstance(move, Transfer) and move.target is None):
        return move
    completed = game.resolve(state, move)
    if completed != move:
        return completed
    legal = game.legal_moves(state)
    options = [m for m in legal if isinstance(m, Transfer) and m.source == move.source
               and m.target is not None and m.target.kind == FOUNDATION]
    if len(options) == 1:
        return options[0]
    if not options:
        # Let the engine say why (empty waste, no foundation wants the card, ...).
        game.apply(state, move)
    # TRANSLATORS: {moves} are the moves that take the card, as "w f1 or w f3"
    raise IllegalMove(move, _("more than one foundation takes it; choose {moves}").format(
        moves=pgettext("between moves", " or ").join(map(str, options))), legal)


def parse(game: AnyGame, state: State, text: str) -> Move:
    """Parse and complete a move in one step; a :class:`NotationError` shows the game's moves
    under the position's rules."""
    return resolve(game, state, parse_move(text, game, state.rules))
