"""The protocol every game of the family follows, and the errors the engine raises.

A game is one package under :mod:`musical_cli.games` with one :class:`Game` object. The object
carries its names, its rule options and its notation as class data, and answers every question
the shared layers ask: it lays out a deal, lists the legal moves, applies a move (returning a new
state or raising :class:`IllegalMove`) and tells the outcome; through methods its class
overrides, which import the package's other modules only when asked (so that the engine stays
light), it draws its layout, gives its opening as a record, and solves, hints and plays.
Notation, transcripts, the solver front, rendering, the shell and the command line talk to this
protocol, never to a game's insides, and never branch on a game's name.
"""

from __future__ import annotations

import enum
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeAlias, TypeVar

from .cards import Card
from .deals import DealNumber, shuffled_deck
from .i18n import N_, _, language, ngettext, pgettext
from .moves import KIND_NAMES, WASTE, Move, Place

# The difficulty measure's node limit for a game whose solver sets none (Game.difficulty_nodes).
DIFFICULTY_NODES = 3_000_000


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
            # TRANSLATORS: {move} is the move refused (in the notation: "w f2"), {why} the reason,
            # {moves} the legal moves, as "d, w f1".
            return _("{move}: {why}; legal now: {moves}").format(
                move=self.move, why=why, moves=", ".join(str(m) for m in self.legal))
        # TRANSLATORS: {move} is the move refused (in the notation: "w f2"), {why} the reason.
        return _("{move}: {why}; no move is legal now").format(move=self.move, why=why)

    def __str__(self) -> str:
        return self.text()


class Foundations:
    """What a state whose foundations build fixed rank sequences can say about them.

    A state class sets ``SEQUENCES`` (each foundation's ranks, base first) and has a
    ``foundations`` tuple of card tuples."""

    __slots__ = ()
    SEQUENCES: ClassVar[tuple[tuple[int, ...], ...]] = ()
    foundations: tuple[tuple[Card, ...], ...]  # the state class's field

    def needs(self, i: int) -> int | None:
        """The rank foundation i (1-based) takes next, or None when it is complete."""
        sequence = self.SEQUENCES[i - 1]
        height = len(self.foundations[i - 1])
        return None if height >= len(sequence) else sequence[height]

    def wanting(self, rank: int) -> tuple[int, ...]:
        """The foundations (1-based) whose next card has this rank."""
        return tuple(i for i in range(1, len(self.SEQUENCES) + 1) if self.needs(i) == rank)

    @property
    def complete(self) -> bool:
        """Every foundation is built to its end."""
        return all(len(f) == len(seq) for f, seq in zip(self.foundations, self.SEQUENCES, strict=True))


class RulesError(ValueError):
    """A rule option that the game does not have, or a value it cannot take."""


class NotAvailable(NotImplementedError):
    """What a game does not offer (a solver, a greedy baseline, a blind player): the message
    says so in words a user can read."""


def parse_yes_no(name: str) -> Callable[[str], bool]:
    """A parser for a yes/no rule option's text."""

    def parse(text: str) -> bool:
        t = text.strip().lower()
        if t in ("yes", "true", "1", "on"):
            return True
        if t in ("no", "false", "0", "off"):
            return False
        # TRANSLATORS: {name} is a rule option's name ("bases", "wrap"), which stays English,
        # as do "yes" and "no", the values it is given as.
        raise RulesError(_("{name} must be yes or no; not {text!r}").format(name=name, text=text))

    return parse


def yes_no(value: bool) -> str:
    return "yes" if value else "no"


@dataclass(frozen=True)
class RuleOption:
    """One rule option, declared as data. The command line builds its flag from it, a
    transcript's header and ``deal``/``stats`` records name it, help and the man page check
    list it. ``field`` is the attribute of the game's rules value that holds it.

    A switch (``metavar`` None) takes no value on the command line: the flag sets ``const``."""

    name: str  # the word in transcripts and JSON: "redeals"
    help: str  # one line for --help: what it changes and its values; marked N_(), shown with _()
    default: str  # the value's text when not given
    parse: Callable[[str], Any]  # text to value; raises RulesError with the values allowed
    format: Callable[[Any], str] = str  # value to text, the inverse of parse
    flag: str = ""  # the command-line flag; "--" + name when empty
    metavar: str | None = "VALUE"
    const: str | None = None  # a switch's value when its flag is given
    field: str = ""  # the rules attribute; name (with "-" as "_") when empty

    @property
    def option_flag(self) -> str:
        return self.flag or f"--{self.name}"

    @property
    def attribute(self) -> str:
        return self.field or self.name.replace("-", "_")


class State(Protocol):
    """What the shared layers need of a game's position: the rules it is played under (a
    transcript's header, the variant's title) and whether every foundation is built (the
    default :meth:`Game.outcome`). Everything else about it is the game's own."""

    @property
    def rules(self) -> Hashable: ...

    @property
    def complete(self) -> bool: ...


# A game's own position and rules types: each Game subclass names its own
# (``class Musical(Game[MusicalState, MusicalRules])``), so that its methods take and return its
# own values; the registry holds games of every kind (:data:`AnyGame`).
StateT = TypeVar("StateT", bound=State)
RulesT = TypeVar("RulesT", bound=Hashable)


def _example(usage: str) -> str:
    """A move of a notation's usage: each upper-case letter ("pN fM") stands for a number, and
    takes the next of 2, 3, 4... ("p2 f3")."""
    numbers = iter("23456789")
    return re.sub(r"[A-Z]", lambda _letter: next(numbers), usage)


# The names of moves.KIND_NAMES's places, for people: marked here, as moves.py gives them in
# English; a game that registers a kind of its own marks its name with N_() where it registers it.
PLACE_NAMES = (N_("the waste"), N_("foundation"), N_("pile"))


def place_name(place: Place) -> str:
    """``place.name`` in the language in use: "the waste", "foundation 2", "quilt cell q34"."""
    name = _(KIND_NAMES[place.kind])
    if place.kind == WASTE:
        return name
    return name.format(place.index) if "{}" in name else f"{name} {place.index}"


# The reasons for refusing a move that the games with a stock, a waste and numbered foundations
# share, in the language in use.

def stock_still_has(cards: int) -> str:
    """A redeal refused while the stock still has ``cards``."""
    return ngettext("the stock still has {n} card; redeal only when it is empty",
                    "the stock still has {n} cards; redeal only when it is empty", cards).format(n=cards)


def no_redeal_left(redeals: int | None) -> str:
    """A redeal refused once the rules' ``redeals`` are used up."""
    # TRANSLATORS: {redeals} is how many redeals the rules allow in all: 0, 1, 2 ...
    return _("no redeal is left (the rules allow {redeals})").format(redeals=redeals)


def no_foundation(i: int, last: int) -> str:
    """A foundation ``i`` past the game's ``last``."""
    # TRANSLATORS: {i} is a foundation's number that the game does not have; {last} the number of
    # its last foundation
    return _("there is no foundation {i}; the foundations are f1 to f{last}").format(i=i, last=last)


def not_a_foundation(place: Place, last: int) -> str:
    """A place that is no foundation where one must be, in a game whose last foundation is ``last``."""
    # TRANSLATORS: {place} is a place of the notation, as "pile 2" or "the waste"; {last} the number
    # of the game's last foundation
    return _("{place} is not a foundation; they are f1 to f{last}").format(place=place_name(place), last=last)


def for_people(notation: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """A notation's moves with what each does in the language in use (the usage stays as it is
    written: it is the notation)."""
    return tuple((usage, _(meaning)) for usage, meaning in notation)


class ForPeople:
    """A game's class attribute that people read (its ``title``, its ``greedy_text``): written in
    English, marked with N_() where the game gives it, and read in the language in use. Game
    wraps each such string of its subclasses in one (``Game.__init_subclass__``), so that every
    layer that shows ``game.title`` shows it translated."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __get__(self, instance: object, owner: type | None = None) -> str:
        return _(self.message)


Progress = Callable[[int, float], None]  # (search nodes, seconds) now and then


class Game(ABC, Generic[StateT, RulesT]):
    """One game of the family. Every method is pure: states and moves are values.

    What a game's package adds (its view, its solver, its blind player) comes through methods
    the game's class overrides, each importing its module when first called, so that the engine
    stays light; the methods here say what each one is, and raise :class:`NotAvailable` (or
    answer that there is nothing) for a game that lacks it."""

    name: str  # the word used on the command line and in transcripts: "musical"
    title: str  # for people: "Musical", marked N_(); read in the language in use (ForPeople)
    aliases: tuple[str, ...] = ()  # other names a user may type: "betsy-ross"
    decks: int = 1
    # The rule options, as data; ``rules_type`` is the frozen dataclass that holds their values
    # (one attribute per option) and checks them.
    options: ClassVar[tuple[RuleOption, ...]] = ()
    rules_type: type[RulesT]
    # The moves, for help: (the notation, what it does), in the game's own words.
    notation: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Who can play a deal for ``stats``: "solver" (sees the stock), "blind" (sees what a player
    # sees). Empty: the game has no solver.
    players: ClassVar[tuple[str, ...]] = ()
    # Whether a baseline strategy (``greedy_wins``) is reported beside the solver in ``stats``,
    # and what it does, after "won by".
    has_greedy: ClassVar[bool] = False
    greedy_text: ClassVar[str] = N_("the greedy strategy")  # read as title is (ForPeople)
    # Whether the next card is turned up by itself once the waste card is placed (as PySolFC
    # does for Calculation); the interactive shell follows it, records and transcripts do not.
    auto_turn: bool = False
    # Whether hints must come from a player who cannot see the stock below its top card. In
    # Musical the whole stock has been seen after the first pass; in Calculation it never is.
    hint_is_blind: bool = False
    # The game's package, where its rules for people are (rules.txt).
    package: ClassVar[str] = ""

    # The class attributes for people, read in the language in use (ForPeople).
    FOR_PEOPLE: ClassVar[tuple[str, ...]] = ("title", "greedy_text")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute in cls.FOR_PEOPLE:
            # the value as the class (or the nearest class above it) gives it, not as read
            given = next((k.__dict__[attribute] for k in cls.__mro__ if attribute in k.__dict__), None)
            if isinstance(given, str):
                setattr(cls, attribute, ForPeople(given))

    # --- rules -----------------------------------------------------------------------------
    def default_rules(self) -> RulesT:
        return self.rules_type()

    def option(self, name: str) -> RuleOption | None:
        return next((o for o in self.options if o.name == name), None)

    def rules_from_options(self, options: Mapping[str, str]) -> RulesT:
        """Rules from their text options (a transcript's header); unknown names are an error."""
        unknown = sorted(name for name in options if self.option(name) is None)
        if unknown:
            # TRANSLATORS: what a game has of rule options when it has none
            have = ", ".join(o.name for o in self.options) or pgettext("rule options", "none")
            # TRANSLATORS: {title} is the game's name ("Musical"); {option} a rule option's name
            # that stays English, as do those {have} lists ("redeals, wrap").
            raise RulesError(_("{title} has no rule option {option!r}; it has: {have}").format(
                title=self.title, option=unknown[0], have=have))
        values = {o.attribute: o.parse(options[o.name]) for o in self.options if o.name in options}
        return self.rules_type(**values)

    def rules_options(self, rules: RulesT) -> dict[str, str]:
        """Every rule option as text, the inverse of :meth:`rules_from_options`."""
        return {o.name: o.format(getattr(rules, o.attribute)) for o in self.options}

    def variant_title(self, rules: RulesT | None = None) -> str:
        """The name players know the game by under ``rules``: "Indian Carpet", "Persian Rug",
        "Calculation with 3 piles", "Musical with 1 redeal"; the title under the default rules.
        The shell's title and status line, ``record`` and the record's transcripts use it, as
        may any table of games. A game whose variants have names of their own says them (its
        view's ``variant_title``); this one says the title."""
        return self.title

    # --- notation --------------------------------------------------------------------------
    def notation_for(self, rules: RulesT | None = None) -> tuple[tuple[str, str], ...]:
        """The moves under ``rules`` (help, completion and which move commands the shell
        offers): all of ``notation`` unless the game's variants lack some (Persian Rug has no
        stock: no ``d``, no ``w fN``); what each move does is in the language in use."""
        return for_people(self.notation)

    def move_words(self, rules: RulesT | None = None) -> frozenset[str]:
        """The words the moves begin with under ``rules``: each usage's leading lower-case
        letters ("d", "redeal", "w", "q" for "qRC fN"). A command word that is also one of
        these, followed by more, is read as a move (``q 7`` in Crazy Quilt is a quilt move,
        not ``quit``)."""
        words = (re.match(r"[a-z]+", usage) for usage, _meaning in self.notation_for(rules))
        return frozenset(m.group() for m in words if m)

    def move_examples(self, rules: RulesT | None = None) -> tuple[str, ...]:
        """Moves as they are written under ``rules``, for the errors that say what a move looks
        like: each usage of :meth:`notation_for` with numbers for its letters ("pN fM" gives
        "p2 f3"). Each is a move's canonical text."""
        return tuple(_example(usage) for usage, _meaning in self.notation_for(rules))

    # --- play ------------------------------------------------------------------------------
    @abstractmethod
    def layout(self, deck: Sequence[Card], rules: RulesT) -> StateT:
        """The opening state from a shuffled deck (last element on top of the stock)."""

    def opening(self, deal: DealNumber, rules: RulesT | None = None) -> StateT:
        return self.layout(shuffled_deck(deal, self.decks), self.default_rules() if rules is None else rules)

    @abstractmethod
    def legal_moves(self, state: StateT) -> tuple[Move, ...]: ...

    @abstractmethod
    def apply(self, state: StateT, move: Move) -> StateT:
        """The state after ``move``; ``state`` is untouched. Raises :class:`IllegalMove`."""

    def outcome(self, state: StateT) -> Outcome:
        """Won when every foundation is complete; lost when no move is left."""
        if state.complete:
            return Outcome.WON
        if not self.legal_moves(state):
            return Outcome.LOST
        return Outcome.IN_PLAY

    def _refuse(self, state: StateT, move: Move, reason: str, *cards: Card) -> NoReturn:
        """Raise IllegalMove for ``move`` in ``state``, listing the legal moves."""
        raise IllegalMove(move, reason, self.legal_moves(state), cards)

    @abstractmethod
    def cards_to_build(self, state: StateT) -> int:
        """How many cards are not yet on the foundations."""

    def play(self, state: StateT, moves: Iterable[Move]) -> StateT:
        for move in moves:
            state = self.apply(state, move)
        return state

    def resolve(self, state: StateT, move: Move) -> Move:
        """Complete a short form the game accepts (``w`` alone) against a position; a move that
        needs nothing is returned as it is. :func:`musical_cli.notation.resolve` calls it."""
        return move

    # --- what its package adds: text, view, players --------------------------------------------
    @property
    def rules_text(self) -> str:
        """The rules for people, the same text as the game's subsection of musical-games(7), GAMES:
        in the language in use where the game has them in it (``rules.ru.txt`` beside
        ``rules.txt``, as the manual in that language has them), else in English."""
        if not self.package:
            raise NotAvailable(_("no rules text for {title}").format(title=self.title))
        from importlib import resources  # here, not at start-up: only 'rules' reads the text

        package = resources.files(self.package)
        translated = package.joinpath(f"rules.{language()}.txt")
        return (translated if translated.is_file() else package.joinpath("rules.txt")).read_text(encoding="utf-8")

    def draw(self, state: StateT, ascii: bool = False) -> list[tuple[str, str]]:
        """The layout as styled fragments (see :mod:`musical_cli.render`), below the status line."""
        raise NotAvailable(_("{title} cannot be drawn").format(title=self.title))

    def part_label(self, key: str, row: int | None = None) -> str:
        """A part of the opening record (one of its keys: "foundations", "stock") as ``musical
        deal`` names it for people; ``row``: the number of a row of a part made of rows
        ("reserves 3"). A game with parts of its own names them in its class; a part no one
        names is named by its key."""
        if row is not None:
            if key == "reserves":
                # TRANSLATORS: one of Persian Rug's reserves, as 'musical deal' labels it: "reserves 3".
                return pgettext("layout", "reserves {row}").format(row=row)
            return f"{self.part_label(key)} {row}"
        parts = {
            # TRANSLATORS: the parts of the opening layout, as 'musical deal' labels them (12 columns at most).
            "signs": lambda: pgettext("layout", "signs"),
            "foundations": lambda: pgettext("layout", "foundations"),
            "stock": lambda: pgettext("layout", "stock"),
            "waste": lambda: pgettext("layout", "waste"),
            "reserves": lambda: pgettext("layout", "reserves"),
        }
        return parts[key]() if key in parts else key

    def opening_record(self, deal: DealNumber, state: StateT) -> dict[str, Any]:
        """The opening as plain data (``musical deal --json``): "game", "seed", then the
        layout's parts, cards as ASCII codes; a stock top first."""
        raise NotAvailable(_("{title} has no opening record").format(title=self.title))

    def search(self, state: StateT, budget: float | None, progress: Progress | None,
               nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
        """Decide ``state``: ("won", the line, nodes), ("lost", (), nodes) or ("unknown", (),
        nodes) when ``budget`` seconds or ``nodes`` search nodes (None: no limit) run out. A node
        limit gives the same answer on every machine, however loaded; a game's search
        (:meth:`own_search`) counts its nodes as it likes, checking the limit at least every few
        hundred. :func:`musical_cli.solver.solve` checks a win by replay before anyone hears of it.

        Where the search leaves ``state`` undecided, a game may offer a *witness*
        (:meth:`witness`): another player whose won game is the answer, a line like any other
        (a lost one proves nothing, so "lost" and "unknown" are the search's alone). The game
        says when it offers one; Calculation's takes up to a few seconds of CPU past the node
        limit, and never follows a time budget."""
        start = time.perf_counter()
        result, moves, used = self.own_search(state, budget, progress, nodes)
        if result == "unknown":
            # the seconds go on from the search's, as a progress line shows them
            told = None if progress is None else (
                lambda n, _seconds: progress(n, time.perf_counter() - start))
            line = self.witness(state, budget, nodes, used, told)
            if line is not None:
                return "won", line, used
        return result, moves, used

    def own_search(self, state: StateT, budget: float | None, progress: Progress | None,
                   nodes: int | None = None) -> tuple[str, tuple[Move, ...], int]:
        """The game's solver (:meth:`search` says what it answers), without the witness."""
        raise NotAvailable(_("{title} has no solver yet").format(title=self.title))

    def witness(self, state: StateT, budget: float | None, nodes: int | None, used: int,
                progress: Progress | None = None) -> tuple[Move, ...] | None:
        """A won game from ``state`` after a search with these limits left it undecided in
        ``used`` nodes (:meth:`search`); None when the game offers no witness, or finds none."""
        return None

    def shorter_line(self, state: StateT, moves: tuple[Move, ...]) -> tuple[Move, ...] | None:
        """A winning line from ``state`` shorter than the winning line ``moves``, by what the game
        knows of its own moves, or None where it knows nothing to shorten.
        :func:`musical_cli.lines.shorten` calls it and replays what it gives: a line that does not
        win, or is not shorter, is not used."""
        return None

    def difficulty_bands(self) -> Mapping[RulesT, tuple[int, int]]:
        """The deals' difficulty bands, per rule set: rules -> (the most search nodes the win of
        an easy deal takes, of a medium one), calibrated on the solver's measure
        (:func:`musical_cli.advice.difficulty_measure`) over deals 1-10,000, or 1-1000 where
        docs/difficulty.md says so.
        They belong to the game's solver (``solver.DIFFICULTY_BANDS``): a change to its search
        changes the nodes, and so the bands. Empty where none are calibrated."""
        return {}

    def difficulty_lost(self) -> Mapping[RulesT, int]:
        """Per rule set with bands, how many of the deals they were calibrated on the measure
        proves lost (the game's ``solver.DIFFICULTY_LOST``): 0 where no deal is known to be
        lost. Empty where none are calibrated."""
        return {}

    def difficulty_nodes(self) -> int:
        """The node limit of the difficulty measure (:func:`musical_cli.advice.difficulty_measure`)
        for this game: its solver's ``DIFFICULTY_NODES``, or this module's DIFFICULTY_NODES where
        the solver sets none. A game's own limit is sized to its search's speed, so that rating a
        deal the solver cannot decide costs a few seconds of CPU; the bands are calibrated at it."""
        return DIFFICULTY_NODES

    def sure_move(self, state: StateT) -> Move | None:
        """A move that provably keeps a winnable position winnable, by a rule of the game's own
        (argued where it is written); None when the game knows none here. ``auto`` also takes
        the only legal move, and the only move the solver does not prove lost."""
        return None

    def greedy_wins(self, state: StateT) -> bool:
        """Whether the game's baseline strategy wins from ``state`` (``stats``)."""
        raise NotAvailable(_("{title} has no baseline strategy").format(title=self.title))

    def blind_hint(self, state: StateT) -> Move | None:
        """For a game whose hint must not read the stock (``hint_is_blind``): the next move of a
        player who sees only what the player sees; None when the game is over."""
        raise NotAvailable(_("{title} has no blind player").format(title=self.title))

    def blind_safe_moves(self, state: StateT) -> tuple[Move, ...]:
        """``auto`` for a game whose stock stays hidden: moves safe on the visible cards alone."""
        raise NotAvailable(_("{title} has no blind player").format(title=self.title))

    def blind_estimate(self, state: StateT, stopped: Callable[[], bool] | None = None,
                       partial: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """The live coach's estimate for a game whose stock stays hidden: (wins, tries) of the
        blind player, which knows only the cards seen, over orders the unseen cards may lie in;
        ``partial(wins, tries)`` on the way, and an early end (with what it has) once ``stopped()``."""
        raise NotAvailable(_("{title} has no blind player").format(title=self.title))

    def blind_play(self, state: StateT, progress: Progress | None = None) -> tuple[bool, tuple[Move, ...]]:
        """The blind player's whole game from ``state``: (won, its moves)."""
        raise NotAvailable(_("{title} has no blind player").format(title=self.title))


# A game of any kind, as the shared layers hold it (the registry, a record, the shell): its
# positions and rules are its own types, which those layers hand back to it without looking
# inside, but for what State says.
AnyGame: TypeAlias = Game[Any, Any]
