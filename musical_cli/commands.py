"""The command registry shared by the interactive shell and batch mode.

A :class:`Session` is the game in hand (a record plus undo/redo); :data:`REGISTRY` is the table of
commands, from which help, completion and the man page's list are all checked. ``execute`` runs one
line (commands separated by ``;``) and returns what to print; it never touches prompt_toolkit.

This module is the registry only: the commands themselves live in feature modules that import it
and register into it with :func:`command` (:mod:`.play_commands`: the moves and the game in hand;
:mod:`.advice_commands`: hint, solve, auto; :mod:`.record_commands`: the player's record), and
nothing here imports them. :mod:`.language` imports the registry with every feature: the shell,
batch mode and the tests take the command language from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

from .advice import Memory, rating_text
from .deals import DealNumber
from .game import Game, IllegalMove, Outcome
from .hand import Hand, Listener, Played, Position, Rules
from .i18n import N_, _, ngettext
from .moves import Move
from .notation import NotationError, parse_move
from .render import Fragments, columns, layout, line, plural
from .transcript import GameRecord, TranscriptError


class CommandError(ValueError):
    """A line that is not a command, or a command used wrongly."""


class Declined(CommandError):
    """The player answered no: the command was not run (the rest of the line is not either)."""


@dataclass
class Reply:
    """What a command has to say: text to print, whether to show the layout, whether to leave."""

    out: Fragments = field(default_factory=list)
    show: bool = False  # the position changed: the shell shows the layout
    asked: bool = False  # the layout was asked for ('show'): batch mode prints it too
    quit: bool = False

    def say(self, text: str, style: str = "") -> Reply:
        self.out += line(text, style)
        return self

    def extend(self, other: Reply) -> Reply:
        self.out += other.out
        self.show = self.show or other.show
        self.asked = self.asked or other.asked
        self.quit = self.quit or other.quit
        return self


Progress = Callable[[int, float], None]  # a search's progress: (nodes, seconds)


class Front(Protocol):
    """What the one in front of a session lends its commands: the shell's hooks. Batch mode and
    the tests use :class:`Unattended`; the interactive shell is one too (musical_cli.shell)."""

    @property
    def columns(self) -> int:
        """The width long lines of moves and tables wrap at."""

    @property
    def search_progress(self) -> Progress | None:
        """Told of a long search's progress (a progress bar that Ctrl-C stops); None: not shown."""

    @property
    def text_progress(self) -> Callable[[str], None] | None:
        """A line of progress in other words than a search's (the review's); None: not shown."""

    def ask(self, question: str) -> bool | None:
        """The player's answer to a yes/no question; None where nobody can answer (batch mode,
        which keeps no record, so that nothing is lost by not asking)."""

    def coach_status(self) -> str:
        """The live coach's verdict now, as the status line shows it ("" when none)."""


@dataclass
class Unattended:
    """The front of a session nobody watches: batch mode, and the tests (``answer`` answers the
    questions a shell would ask)."""

    columns: int = 80
    search_progress: Progress | None = None
    text_progress: Callable[[str], None] | None = None
    answer: Callable[[str], bool] | None = None

    def ask(self, question: str) -> bool | None:
        return None if self.answer is None else self.answer(question)

    def coach_status(self) -> str:
        return ""


class Session:
    """The game in hand and what goes with it in a shell or a pipe.

    Three parts, each typed: ``hand``, the game as a frozen value (positions, moves, undo and
    redo: :class:`musical_cli.hand.Hand`), replaced by every change; ``memory``, what the hints
    have learnt of its positions (:class:`musical_cli.advice.Memory`); and ``front``, the hooks of
    whoever is in front of it (:class:`Front`). ``listener`` hears of every change. An
    ``interactive`` session (the shell) turns up by itself the next card of a game that does so
    (as PySolFC does for Calculation), and gives advice that would be noise in batch output.
    """

    def __init__(self, game: Game, deal: DealNumber, rules: Rules = None, ascii: bool = False,
                 interactive: bool = False, front: Front | None = None):
        self.ascii = ascii
        self.interactive = interactive
        self.front: Front = Unattended() if front is None else front
        self.listener: Listener | None = None
        self.coach = False  # the live coach is shown ('coach on', --coach)
        self.solver_won: Hand | None = None  # the hand 'solve play' won, for the words of the win
        self.auto = False  # the safe moves play themselves after each move ('auto on')
        self.memory = Memory()
        self.hand = Hand.begin(game, deal, game.default_rules() if rules is None else rules,
                               turns_up=interactive)
        self.notify("start")

    def start(self, game: Game, deal: DealNumber, rules: Rules, moves: tuple[Move, ...] = (),
              steps: list[int] | None = None, undone: list[tuple[Move, ...]] | None = None,
              how: str = "player", coached: bool = False) -> None:
        """Begin ``deal`` (replaying ``moves``); on an illegal move nothing changes. ``steps`` and
        ``undone`` restore a game's undo and redo history (a resumed game); ``how`` and
        ``coached`` say who plays the game, for the player's figures (:class:`Hand`)."""
        self.hand = Hand.begin(game, deal, rules, moves, steps, undone, turns_up=self.interactive,
                               how=how, coached=coached)
        self.memory = Memory()
        self.notify("start")

    def go_interactive(self) -> None:
        """Be played at a terminal from now on (the shell): a game not yet begun begins again,
        so that a card the game turns up by itself is turned."""
        if self.interactive:
            return
        self.interactive = True
        hand = self.hand
        if not hand.moves:
            self.start(hand.game, hand.deal, hand.rules, how=hand.how, coached=hand.coached)
        else:
            self.hand = replace(hand, turns_up=hand.game.auto_turn)

    def mark(self, *, how: str | None = None, coached: bool | None = None,
             chosen: str | None = None, difficulty: str | None = None) -> None:
        """Say more of the game in hand: who plays it, whether the coach was on, how the deal was
        chosen and its rating (None leaves a part as it is)."""
        changes: dict[str, str | bool] = {}
        if how is not None:
            changes["how"] = how
        if coached is not None:
            changes["coached"] = coached
        if chosen is not None:
            changes["chosen"] = chosen
        if difficulty is not None:
            changes["difficulty"] = difficulty
        self.hand = replace(self.hand, **changes)  # type: ignore[arg-type]

    def notify(self, event: str) -> None:
        if self.listener is not None:
            self.listener.event(event)

    # --- the hand's parts, read-only ------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.hand.game

    @property
    def deal(self) -> DealNumber:
        return self.hand.deal

    @property
    def rules(self) -> Rules:
        return self.hand.rules

    @property
    def state(self) -> Position:
        return self.hand.state

    @property
    def states(self) -> list[Position]:
        return list(self.hand.states)

    @property
    def moves(self) -> list[Move]:
        return list(self.hand.moves)

    @property
    def steps(self) -> list[int]:
        return list(self.hand.steps)

    @property
    def undone(self) -> list[tuple[Move, ...]]:
        return list(self.hand.undone)

    @property
    def trail(self) -> tuple[Played, ...]:
        return self.hand.trail

    @property
    def how(self) -> str:
        return self.hand.how

    @property
    def coached(self) -> bool:
        return self.hand.coached

    @property
    def chosen(self) -> str | None:
        return self.hand.chosen

    @property
    def difficulty(self) -> str | None:
        return self.hand.difficulty

    @property
    def record(self) -> GameRecord:
        return self.hand.record

    @property
    def title(self) -> str:
        """The name of the game in hand as players know it: "Indian Carpet", "Calculation with 3 piles"."""
        return self.hand.title

    @property
    def move_count(self) -> int:
        return self.hand.move_count

    @property
    def width(self) -> int:
        return self.front.columns

    @property
    def search_progress(self) -> Progress | None:
        return self.front.search_progress

    def outcome(self) -> Outcome:
        return self.hand.outcome()

    def counts(self, move: Move) -> bool:
        return self.hand.counts(move)

    def counted(self, moves: Iterable[Move]) -> int:
        return self.hand.counted(moves)

    def in_play(self) -> bool:
        """Whether the game in hand is the player's and not over; such a game is ended by 'new',
        'restart', 'load' or 'resume' only with the player's word."""
        return self.hand.in_play()

    def steps_back(self, moves: int) -> int:
        return self.hand.steps_back(moves)

    # --- changes --------------------------------------------------------------------------------
    def play(self, move: Move, turn_up: bool = True) -> Move:
        """Make one move as one step (resolving a short form); with ``turn_up``, also the
        automatic ``d`` that follows it in a game that turns its cards up by itself."""
        self.hand, move = self.hand.play(move, turn_up)
        self.memory.moved()
        self.notify("move")
        return move

    def play_on(self, moves: Iterable[Move]) -> None:
        """Make ``moves`` (as made, holding their own turned cards) part of the last step, so
        that one 'undo' takes them back with the move that led to them (:meth:`Hand.play_on`)."""
        before = self.hand
        self.hand = before.play_on(moves)
        if self.hand is not before:
            self.memory.moved()
            self.notify("move")

    def undo(self, n: int = 1) -> int:
        """Take back ``n`` steps (or as many as there are); how many of the player's moves
        (:meth:`counts`) that took back."""
        before = self.hand
        self.hand, taken = before.undo(n)
        if self.hand is not before:
            self.memory.moved()
            self.notify("undo")
        return taken

    def redo(self, n: int = 1) -> int:
        """Make again ``n`` steps taken back (or as many as there are); how many of the player's
        moves that made."""
        before = self.hand
        self.hand, made = before.redo(n)
        if self.hand is not before:
            self.memory.moved()
            self.notify("redo")
        return made

    def layout(self) -> Fragments:
        # how the deal was chosen: "(dealt winnable)", or its rating when chosen by it
        deal = self.deal.text
        if self.chosen == "winnable":
            # TRANSLATORS: the deal in the layout's title, dealt by 'new --winnable'; {deal} is its number.
            deal = _("{deal} (dealt winnable)").format(deal=deal)
        elif self.chosen:
            # TRANSLATORS: the deal in the layout's title, dealt by 'new --difficulty'; {rating} is
            # a difficulty word (easy, medium, hard, lost).
            deal = _("{deal} (rated {rating})").format(deal=deal, rating=rating_text(self.chosen))
        # The shell says a win on the layout's last line (after_move): one line, under the game.
        won = win_text(self) if self.interactive and self.outcome() is Outcome.WON else None
        return layout(self.game, self.state, deal, self.move_count, self.ascii, self.title, self.width, won)


# ---------------------------------------------------------------------------------------------
# The registry


Handler = Callable[[Session, list[str]], Reply]
Arguments = tuple[str, ...] | Callable[[Session], list[str]] | str
# What completes a command's next word, given the words typed after its name before that one.
Completes = Callable[[Session, list[str]], list[str]]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    details: str = ""
    # What completes after the name: a fixed list, a function of the session, or "path".
    arguments: Arguments = ()
    # The move a move command makes ("d", "w", "redeal"): it exists only where the game in hand
    # has that move (Game.move_words), and help lists it with the moves.
    plays: str = ""
    # Where what completes depends on the words before ('new --game NAME'): used instead of
    # ``arguments`` when given.
    completes: Completes | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def summary_text(self) -> str:
        """The summary in the language in use (help, the shell's completion menu)."""
        return _(self.summary)

    @property
    def details_text(self) -> str:
        """The details in the language in use ('help COMMAND'); "" when there are none."""
        return _(self.details) if self.details else ""


REGISTRY: dict[str, Command] = {}
_BY_NAME: dict[str, Command] = {}


def command(name: str, usage: str, summary: str, aliases: tuple[str, ...] = (), details: str = "",
            arguments: Arguments = (), plays: str = "", completes: Completes | None = None
            ) -> Callable[[Handler], Handler]:
    """Register a command. ``name``, ``aliases`` and the command words of ``usage`` are typed,
    so they stay English; ``summary`` and ``details`` are for people: mark them with ``N_()``
    (commands register at import time, before the language is chosen) and show them through
    :attr:`Command.summary_text` and :attr:`Command.details_text`."""

    def register(handler: Handler) -> Handler:
        cmd = Command(name, usage, summary, handler, aliases, details, arguments, plays, completes)
        REGISTRY[name] = cmd
        for n in cmd.names:
            _BY_NAME[n] = cmd
        return handler

    return register


def lookup(word: str) -> Command | None:
    return _BY_NAME.get(word.lower())


MAX_COUNT = 2**63 - 1  # SQLite's largest integer; more of anything than there can ever be


def usage_error(usage: str) -> CommandError:
    """The error of a command used wrongly: its usage line (``usage``: typed words, English)."""
    # TRANSLATORS: {usage} is a command's usage line, as typed ("solve [play]").
    return CommandError(_("usage: {usage}").format(usage=usage))


def whole_number(text: str) -> int | None:
    """A count typed by the player: ASCII digits only ("²" and "٣" are digits to str.isdigit(),
    and int() refuses the first), at least 1; a number past MAX_COUNT is MAX_COUNT (all there
    are: int() refuses thousands of digits, and SQLite any integer past it). None otherwise."""
    digits = text.lstrip("0")
    if not (text.isascii() and text.isdigit()) or not digits:
        return None
    return MAX_COUNT if len(digits) > 19 else min(int(digits), MAX_COUNT)


def count_arg(args: list[str], usage: str) -> int:
    if not args:
        return 1
    n = whole_number(args[0]) if len(args) == 1 else None
    if n is None:
        # TRANSLATORS: {usage} is a command's usage line, as typed ("undo [N]").
        raise CommandError(_("usage: {usage} (N is a whole number from 1 up)").format(usage=usage))
    return n


def no_args(args: list[str], usage: str) -> None:
    if args:
        # TRANSLATORS: {command} is a command as typed ("quit"); {words} what was typed after it, quoted.
        raise CommandError(_("{command} takes no argument; got {words}").format(
            command=usage, words=repr(" ".join(args))))


def after_move(session: Session, reply: Reply, by_solver: bool = False) -> Reply:
    """What a move says once made: the layout is shown, and a move that ends the game says so.
    ``by_solver``: the move was the end of the solver's line ('solve play').

    The shell's layout says a win on its last line, in place of its own verdict line
    (:meth:`Session.layout`): a win screen one line shorter, which Persian Rug's tall layout
    needs to fit 24 rows with the command typed above it."""
    reply.show = True
    verdict = session.outcome()
    if verdict is Outcome.WON:
        session.solver_won = session.hand if by_solver else None
        if not session.interactive:
            reply.say(win_text(session), "good")
    elif verdict is Outcome.LOST:
        # The layout's last line says "No move is left: the game is lost."; this says the rest.
        # 'hint' promises no win: there may have been none, which the hints may know already.
        start = session.memory.solved.get(session.hand.start)
        if start is not None and start.result == "lost":
            then = _("It could not be won from its start either: type 'new' for another deal.")
        elif session.game.hint_is_blind:
            # Where hints are blind, every card has been seen once the game is lost: only then
            # can 'hint' say (in hindsight) whether a win was still possible.
            then = _("Type 'undo' to go back ('hint' says, in hindsight, whether a win was still "
                     "possible, and where), or 'new' for another deal.")
        else:
            then = _("Type 'undo' to go back ('hint' says whether a win was still possible, and "
                     "where), or 'new' for another deal.")
        # TRANSLATORS: {deal} is the deal's number; {n} the moves made (a count of its own, for the
        # case the words after "after" take).
        lost = ngettext("Deal {deal} is lost after {n} move.", "Deal {deal} is lost after {n} moves.",
                        session.move_count).format(deal=session.deal, n=session.move_count)
        reply.say(lost + (" " + then if session.interactive else ""), "bad")
    return reply


def win_text(session: Session) -> str:
    """The win of the game in hand said as it happened: the player's own, the solver's ('solve
    play'), or a game the solver or a transcript played part of. Where the game is recorded, a
    win that is not the player's says that it counts apart, as the record counts it."""
    moves = plural(session.move_count, "move")
    deal = session.deal
    recorded = session.listener is not None and session.listener.keeps
    # A win not the player's, recorded, says so in the record's words ('record').
    if session.solver_won is session.hand:
        # TRANSLATORS: {deal} is the deal's number; {moves} a count of moves ("12 moves").
        text = (_("The solver won deal {deal} in {moves} ('solve play'): not counted as yours.") if recorded
                else _("The solver won deal {deal} in {moves} ('solve play')."))
    elif session.how == "solver":
        text = (_("Deal {deal} is won in {moves}, some the solver's: not counted as yours.") if recorded
                else _("Deal {deal} is won in {moves}, some the solver's."))
    elif session.how == "loaded":
        text = (_("Deal {deal} is won in {moves}, some loaded with the game: not counted as yours.")
                if recorded else _("Deal {deal} is won in {moves}, some loaded with the game."))
    # One line at 80 columns, so that a tall layout's win screen (Persian Rug's) fits 24 rows.
    elif session.interactive:
        # TRANSLATORS: one line under the layout, indented by 2: at most 77 columns with a deal of
        # 10 digits ("1000000000") and "100 moves", as the English.
        text = _("You won deal {deal} in {moves}! 'new' deals another; 'save' keeps it.")
    else:
        text = _("You won deal {deal} in {moves}!")
    return text.format(deal=deal, moves=moves)


def moves_text(session: Session) -> str:
    """The game's moves in words, as the status line counts them ('2 moves'), and apart, in the
    shell of a game that turns its cards up by itself, the cards it turned ('and 3 cards turned
    up'): what 'save' and 'load' say."""
    turned = len(session.moves) - session.counted(session.moves)
    moves = plural(session.move_count, "move")
    if not turned:
        return moves
    # TRANSLATORS: {moves} is a count of moves ("12 moves"); {n} the cards the game turned up by itself.
    return ngettext("{moves} and {n} card turned up", "{moves} and {n} cards turned up", turned).format(
        moves=moves, n=turned)


def confirm_abandon(session: Session, doing: str) -> None:
    """Before a command that ends the game in hand (``doing``: what it does instead): ask the
    player when the game is in play; Declined when the answer is no. The default answer keeps the
    game: Enter, Ctrl-C or Ctrl-D is no."""
    if not session.in_play():
        return
    moves = plural(session.move_count, "move")  # as the status line counts them
    recorded = session.listener is not None and session.listener.keeps
    own = session.how == "player" and not session.coached
    if not recorded:
        # TRANSLATORS: a question; {deal} is the deal's number, {moves} a count of moves ("12 moves"),
        # {doing} what ends the game, as the subject of "ends it" ("a new deal (123)", "restarting it",
        # "loading FILE", "resuming game @3"). The answer "[y/N]" follows it.
        question = _("Deal {deal} is in play ({moves}); {doing} ends it and it is not recorded, so it "
                     "cannot be resumed. End it?")
    elif own:
        # TRANSLATORS: as above; the game counts as the player's abandoned game.
        question = _("Deal {deal} is in play ({moves}); {doing} ends it and it counts as abandoned. "
                     "End it?")
    else:
        # TRANSLATORS: as above; the game was not the player's alone (the solver's, loaded, coached).
        question = _("Deal {deal} is in play ({moves}); {doing} ends it and it is recorded as abandoned "
                     "(counted apart from your own games). End it?")
    answer = session.front.ask(question.format(deal=session.deal, moves=moves, doing=doing) + " [y/N] ")
    if answer is False:
        # TRANSLATORS: the answer was no; {deal} is the deal's number, {moves} a count of moves.
        raise Declined(_("kept deal {deal} in hand ({moves})").format(deal=session.deal, moves=moves))


def announce_outcome(session: Session) -> Reply:
    """What a move that ends the game says (nothing while the game goes on)."""
    return after_move(session, Reply())


# What follows a move the player makes, before the verdict: a feature registers it here ('auto
# on' plays the moves proven safe, in musical_cli.advice_commands); each says what it did.
FOLLOW_UPS: list[Callable[[Session], Reply]] = []


def followed(session: Session) -> Reply:
    """What follows the player's move (:data:`FOLLOW_UPS`), said."""
    reply = Reply()
    for follow in FOLLOW_UPS:
        reply.extend(follow(session))
    return reply


def play_text(session: Session, text: str) -> Reply:
    session.play(parse_move(text))
    return after_move(session, followed(session))


def applies(cmd: Command, session: Session) -> bool:
    """Whether ``cmd`` exists in the game in hand: a move command (``plays``) only where the
    game's notation under its rules has that move (Persian Rug has no ``d``, no ``redeal``)."""
    return not cmd.plays or cmd.plays in session.game.move_words(session.rules)


def commands_for(session: Session) -> list[Command]:
    """The commands of the game in hand, in the registry's order (help, completion)."""
    return [cmd for cmd in REGISTRY.values() if applies(cmd, session)]


@command("help", "help [COMMAND]", N_("list the commands, or explain one"), aliases=("?",),
         details=N_("Without COMMAND: the moves of the game in hand, then every command. "
                    "'help COMMAND' explains one; 'help' with a move's letter ('help w') explains "
                    "the moves that begin with it."),
         arguments=lambda session: sorted(c.name for c in commands_for(session)))
def _help(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise usage_error("help [COMMAND]")
    notation = session.game.notation_for(session.rules)
    title = session.title
    reply = Reply()
    if args:
        word = args[0].lower()
        cmd = lookup(word)
        moves = [(u, m) for u, m in notation if _move_word(u) == word]
        if cmd is not None and applies(cmd, session):
            reply.say(cmd.usage, "label").say(f"  {cmd.summary_text}")
            if cmd.aliases:
                # TRANSLATORS: {aliases} are other names of a command, typed: "exit, q".
                reply.say("  " + _("also: {aliases}").format(aliases=", ".join(cmd.aliases)))
            if cmd.details:
                reply.say(f"  {cmd.details_text}")
        if moves:
            # TRANSLATORS: {title} is the game's name ("Musical with 1 redeal"); {word} a move's
            # letters, typed ("q").
            reply.say(_("Moves in {title} that begin with {word}:").format(title=title, word=word), "label")
            _notation_lines(reply, moves)
        if not reply.out:
            if cmd is not None:
                # TRANSLATORS: {title} is the game's name; {word} the word typed, quoted ('d').
                raise CommandError(_("{title} has no move {word}; 'help' lists its moves").format(
                    title=title, word=repr(word)))
            # TRANSLATORS: {word} is the word typed, quoted ('hlep').
            raise CommandError(_("no command {word}; type 'help' for the list").format(word=repr(args[0])))
        return reply
    # Fits a 24-row screen: the moves one a line, the other commands in columns (their usage
    # only: 'help COMMAND' gives the rest).
    if notation:
        # TRANSLATORS: {title} is the game's name ("Musical with 1 redeal").
        reply.say(_("Moves in {title}:").format(title=title), "label")
        _notation_lines(reply, notation)
    others = [cmd for cmd in commands_for(session) if not cmd.plays or not notation]
    reply.say(_("Commands ('help COMMAND' explains one):"), "label")
    for text in columns([cmd.usage for cmd in others], session.width):
        reply.say(text)
    reply.say(_("Several commands on one line are separated by ';'."))
    return reply


def _move_word(usage: str) -> str:
    letters = len(usage) - len(usage.lstrip("abcdefghijklmnopqrstuvwxyz"))
    return usage[:letters]


def _notation_lines(reply: Reply, notation) -> None:
    width = max(len(usage) for usage, _meaning in notation)
    for usage, meaning in notation:
        # the game's words for its moves, marked where the game defines them
        reply.say(f"  {usage:<{width}}  {_(meaning)}")


@command("quit", "quit", N_("leave (Ctrl-D does too)"), aliases=("exit", "q"))
def _quit(session: Session, args: list[str]) -> Reply:
    no_args(args, "quit")
    return Reply(quit=True)


def split_line(text: str) -> list[str]:
    """The commands of one line: separated by ';', blank ones and '#' comments dropped."""
    text = text.split("#", 1)[0]
    return [part.strip() for part in text.split(";") if part.strip()]


def execute_one(session: Session, text: str) -> Reply:
    """Run one command. Raises CommandError, IllegalMove or another ValueError on a bad one."""
    words = text.split()
    cmd = lookup(words[0])
    # A word that is both a command and the start of a move in the game in hand ('q' in Crazy
    # Quilt: quit, and every quilt move) is the command alone, the move with more after it.
    move_word = _move_word(words[0].lower()) in session.game.move_words(session.rules)
    if cmd is not None and (cmd.plays or not move_word or len(words) == 1):
        return cmd.handler(session, words[1:])
    try:
        move = parse_move(text)
    except NotationError as e:
        if move_word:
            usages = ", ".join(usage for usage, _meaning in session.game.notation_for(session.rules))
            # TRANSLATORS: {move} is the move typed, quoted; {why} what is wrong with it; {title} the
            # game's name; {usages} its moves' notation ("d, w fN, redeal").
            raise CommandError(_("{move}: {why} (moves in {title}: {usages})").format(
                move=repr(e.text.strip()), why=e.why, title=session.title, usages=usages)) from None
        # TRANSLATORS: {text} is what was typed, quoted.
        raise CommandError(_("unknown command {text}; type 'help' for the list").format(text=repr(text))) from None
    session.play(move)
    return after_move(session, followed(session))


def execute(session: Session, text: str) -> Reply:
    """Run a line of commands separated by ';', stopping at the first that fails (its error
    propagates, as does Ctrl-C; the commands before it stay done, and what they said is on the
    error: :func:`said_before`).

    What each command says comes in the line's order: a command that prints without moving
    ('moves', 'save') after commands that moved comes after the layout they led to, not above
    it (the layout is otherwise shown once, at the end). Batch mode shows no layout unasked."""
    reply = Reply()
    for part in split_line(text):
        before = session.layout() if reply.show and session.interactive else None
        try:
            got = execute_one(session, part)
        except BaseException as e:  # an error, Ctrl-C, or a bug: the commands before it stay done
            e.said_before = reply  # type: ignore[attr-defined]
            raise
        if before is not None and got.out and not got.show:
            reply.out += before
            reply.show = False
        reply.extend(got)
        if reply.quit:
            break
    return reply


def said_before(error: BaseException) -> Reply:
    """What the commands before the one that raised ``error`` said, on its line (:func:`execute`);
    an empty reply for an error from elsewhere."""
    return getattr(error, "said_before", None) or Reply()


def error_text(error: Exception, ascii: bool = False) -> str:
    if isinstance(error, IllegalMove | TranscriptError):
        return error.text(ascii)
    return str(error)
