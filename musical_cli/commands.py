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
from dataclasses import dataclass, field
from typing import Any

from .deals import DealNumber
from .game import Game, IllegalMove, Outcome
from .moves import DEAL, Move
from .notation import NotationError, parse_move, resolve
from .render import Fragments, columns, layout, line, plural
from .transcript import GameRecord, TranscriptError

HOW = ("player", "solver", "loaded")  # who played a game (Session.how)


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


class Session:
    """One game in hand: the start, the moves made, the moves undone (for redo).

    Moves are grouped in *steps*, what one command did. In an ``interactive`` session (the shell)
    a game that turns its next card up by itself, as PySolFC does for Calculation, plays ``d``
    after the waste card is placed, and ``undo`` takes both back together; the record keeps every
    move. An interactive session also gives advice that would be noise in batch output.
    """

    def __init__(self, game: Game, deal: DealNumber, rules: Any = None, ascii: bool = False,
                 interactive: bool = False):
        self.ascii = ascii
        self.interactive = interactive
        self.progress: Callable[[int, float], None] | None = None  # set by the shell
        # A line of progress in other words than a search's (the review's); the shell's too.
        self.progress_text: Callable[[str], None] | None = None
        self.width = 80  # columns to wrap long lines of moves at; the shell sets its terminal's
        # Told of every change ("start", "move", "undo", "redo", "hint"): the shell's recorder.
        self.listener: Callable[[str], None] | None = None
        self.recorder: Any = None  # the shell's Recorder (musical_cli.record), for its commands
        # Asks the player a yes/no question (the shell's); None where nobody can answer (batch
        # mode, which keeps no record, so that nothing is lost by not asking).
        self.confirm: Callable[[str], bool] | None = None
        self.coach = False  # the live coach is on ('coach on', --coach): the shell shows its verdict
        self.coach_says: Callable[[], str] | None = None  # the shell's: the coach's verdict now
        self.start(game, deal, game.default_rules() if rules is None else rules)

    def start(self, game: Game, deal: DealNumber, rules: Any, moves: tuple[Move, ...] = (),
              steps: list[int] | None = None, undone: list[tuple[Move, ...]] | None = None,
              how: str = "player", coached: bool = False) -> None:
        """Begin ``deal`` (replaying ``moves``); on an illegal move nothing changes. ``steps`` and
        ``undone`` restore a game's undo and redo history (a resumed game); by default each move
        is one step and there is nothing to redo. ``how`` and ``coached`` say who plays the game,
        for the player's figures (a resumed game keeps its own)."""
        states = [game.opening(deal, rules)]
        for move in moves:
            states.append(game.apply(states[-1], move))
        self.game, self.deal, self.rules = game, deal, rules
        self.states = states
        self.moves: list[Move] = list(moves)
        # Every move made, in order, those later undone too: (ply, move, before, after), for the
        # review (musical_cli.advice.review), which names a losing move even once it is undone.
        self.trail: list[tuple[int, Move, Any, Any]] = [
            (i + 1, m, states[i], states[i + 1]) for i, m in enumerate(moves)]
        self.steps: list[int] = self._steps_of(moves) if steps is None else list(steps)
        self.undone: list[tuple[Move, ...]] = [] if undone is None else list(undone)
        # The solver's decided verdicts (won or lost) in this game: a verdict never changes, and
        # each hint probes the same earlier positions again (the start first).
        self.solved: dict[Any, Any] = {}
        self.hint_open: Any = None  # the position where the last hint left its answer open
        # a long hint's position, the verdict known there then, and its answer
        self.hint_kept: tuple[Any, Any, Fragments] | None = None
        # Whose game this is, for the player's figures (the record keeps it): "player" (played
        # from the deal; hints and auto do not change that), "solver" (any 'solve play'), or
        # "loaded" (from a transcript or @ID, with the moves it came with). ``coached``: the live
        # coach was on at some point. ``difficulty``: the deal's rating, when known.
        if how not in HOW:
            raise ValueError(f"unknown player {how!r}")
        self.how = how
        self.coached = coached
        self.difficulty: str | None = None
        self.chosen: str | None = None  # how the deal was chosen, for the layout's title: "winnable", "hard"
        if not moves:
            self._turn_up()
        elif not self.undone and self._turn_up() and self.steps:
            # A loaded line that ends on a placement (a transcript from batch mode, which turns
            # nothing up by itself): the shell turns the next card up, as after any placement,
            # with that move's step, so that the line the solver shows can be typed.
            self.steps[-1] += 1
        self.notify("start")

    def _steps_of(self, moves: tuple[Move, ...]) -> list[int]:
        """Undo steps for moves that come without them (a loaded game): one a move, a card the
        game turned up by itself going with the move before it (none before the first: undo
        never takes back the opening turn), as if the moves had been played here."""
        steps: list[int] = []
        for move in moves:
            if steps and not self.counts(move):
                steps[-1] += 1
            elif self.counts(move):
                steps.append(1)
        return steps

    def notify(self, event: str) -> None:
        if self.listener is not None:
            self.listener(event)

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def record(self) -> GameRecord:
        return GameRecord(self.game, self.deal, self.rules, tuple(self.moves))

    def outcome(self) -> Outcome:
        return self.game.outcome(self.state)

    def _apply(self, move: Move) -> None:
        before = self.state
        self.states.append(self.game.apply(before, move))
        self.moves.append(move)
        self.trail.append((len(self.moves), move, before, self.state))
        self.hint_open = None  # 'hint' again searches longer only if typed before any move

    def _turn_up(self) -> int:
        """Play ``d`` when the game turns its next card up by itself; how many moves that made."""
        if self.interactive and self.game.auto_turn and DEAL in self.game.legal_moves(self.state):
            self._apply(DEAL)
            return 1
        return 0

    def play(self, move: Move, turn_up: bool = True) -> Move:
        """Make one move as one step (resolving a short form); with ``turn_up``, also the
        automatic ``d`` that follows it in a game that turns its cards up by itself."""
        move = resolve(self.game, self.state, move)
        self._apply(move)
        count = 1 + (self._turn_up() if turn_up else 0)
        if count == 1 and self.steps and not self.counts(move):
            # A card turned up as a move of its own ('solve play', 'auto' play their lines' own
            # deals) goes with the move before it, as the shell's own turn-up does: 'undo' takes
            # back a placement, never a lone turn.
            self.steps[-1] += 1
            self.undone.clear()
            self.notify("move")
            return move
        self.steps.append(count)
        step = tuple(self.moves[-count:])
        # A different move makes the undone moves another future: redo no longer applies.
        if self.undone and self.undone[-1] == step:
            self.undone.pop()
        else:
            self.undone.clear()
        self.notify("move")
        return move

    def undo(self, n: int = 1) -> int:
        """Take back ``n`` steps (or as many as there are); how many of the player's moves
        (:meth:`counts`) that took back."""
        steps = min(n, len(self.steps))
        taken = 0
        for _ in range(steps):
            count = self.steps.pop()
            self.undone.append(tuple(self.moves[-count:]))
            taken += self.counted(self.moves[-count:])
            del self.moves[-count:]
            del self.states[-count:]
        if steps:
            self.hint_open = None
            self.notify("undo")
        return taken

    def steps_back(self, moves: int) -> int:
        """How many undo steps take back at least ``moves`` moves."""
        taken = steps = 0
        for count in reversed(self.steps):
            if taken >= moves:
                break
            taken += count
            steps += 1
        return steps

    def redo(self, n: int = 1) -> int:
        """Make again ``n`` steps taken back (or as many as there are); how many of the player's
        moves that made."""
        steps = made = 0
        while steps < n and self.undone:
            step = self.undone.pop()
            for move in step:
                self._apply(move)
            self.steps.append(len(step))
            steps += 1
            made += self.counted(step)
        if steps:
            self.notify("redo")
        return made

    def counts(self, move: Move) -> bool:
        """Whether ``move`` counts as one of the player's moves: every move but a card the game
        turned up by itself (in an interactive session of a game that does, every ``d``: the
        player never needs to type one, and 'solve play' plays the same turns). The record keeps
        every move all the same."""
        return not (self.interactive and self.game.auto_turn and move == DEAL)

    def counted(self, moves: Iterable[Move]) -> int:
        return sum(1 for m in moves if self.counts(m))

    @property
    def move_count(self) -> int:
        """The player's moves so far, as the status line, 'undo' and the verdict count them."""
        return self.counted(self.moves)

    @property
    def title(self) -> str:
        """The name of the game in hand as players know it: "Indian Carpet", "Calculation with 3 piles"."""
        return self.game.variant_title(self.rules)

    def in_play(self) -> bool:
        """Whether the game in hand is the player's and not over: a move made (undone or not),
        and neither won nor lost. Such a game is ended by 'new', 'restart', 'load' or 'resume'
        only with the player's word."""
        return bool(self.steps or self.undone) and self.outcome() is Outcome.IN_PLAY

    def layout(self) -> Fragments:
        # how the deal was chosen: "(dealt winnable)", or its rating when chosen by it
        chosen = "" if not self.chosen else " (dealt winnable)" if self.chosen == "winnable" else f" (rated {self.chosen})"
        deal = self.deal.text + chosen
        return layout(self.game, self.state, deal, self.move_count, self.ascii, self.title)


# ---------------------------------------------------------------------------------------------
# The registry


Handler = Callable[[Session, list[str]], Reply]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    details: str = ""
    # What completes after the name: a fixed list, a function of the session, or "path".
    arguments: tuple[str, ...] | Callable[[Session], list[str]] | str = ()
    # The move a move command makes ("d", "w", "redeal"): it exists only where the game in hand
    # has that move (Game.move_words), and help lists it with the moves.
    plays: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


REGISTRY: dict[str, Command] = {}
_BY_NAME: dict[str, Command] = {}


def command(name: str, usage: str, summary: str, aliases: tuple[str, ...] = (), details: str = "",
            arguments: Any = (), plays: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        cmd = Command(name, usage, summary, handler, aliases, details, arguments, plays)
        REGISTRY[name] = cmd
        for n in cmd.names:
            _BY_NAME[n] = cmd
        return handler

    return register


def lookup(word: str) -> Command | None:
    return _BY_NAME.get(word.lower())


MAX_COUNT = 2**63 - 1  # SQLite's largest integer; more of anything than there can ever be


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
        raise CommandError(f"usage: {usage} (N is a whole number from 1 up)")
    return n


def no_args(args: list[str], usage: str) -> None:
    if args:
        raise CommandError(f"{usage} takes no argument; got {' '.join(args)!r}")


def after_move(session: Session, reply: Reply) -> Reply:
    reply.show = True
    verdict = session.outcome()
    if verdict is Outcome.WON:
        reply.say(f"You won deal {session.deal} in {plural(session.move_count, 'move')}!"
                  + (" Type 'new' for another deal, or 'save' to keep this one." if session.interactive else ""),
                  "good")
    elif verdict is Outcome.LOST:
        # Where hints are blind, every card has been seen once the game is lost: only then can
        # 'hint' say (in hindsight) where a win was still possible.
        hint = ("'hint' says, in hindsight, where a win was still possible" if session.game.hint_is_blind
                else "'hint' finds where a win was still possible")
        # The layout's last line says "No move is left: the game is lost."; this says the rest.
        reply.say(f"Deal {session.deal} is lost after {plural(session.move_count, 'move')}."
                  + (f" Type 'undo' to go back ({hint}), or 'new' for another deal."
                     if session.interactive else ""), "bad")
    return reply


def moves_text(session: Session) -> str:
    """The game's moves in words, as the status line counts them ('2 moves'), and apart, in the
    shell of a game that turns its cards up by itself, the cards it turned ('and 3 cards turned
    up'): what 'save' and 'load' say."""
    turned = len(session.moves) - session.counted(session.moves)
    return plural(session.move_count, "move") + (f" and {plural(turned, 'card')} turned up" if turned else "")


def confirm_abandon(session: Session, doing: str) -> None:
    """Before a command that ends the game in hand (``doing``: what it does instead): ask the
    player when the game is in play; Declined when the answer is no. The default answer keeps the
    game: Enter, Ctrl-C or Ctrl-D is no."""
    if session.confirm is None or not session.in_play():
        return
    moves = plural(session.move_count, "move")  # as the status line counts them
    recorded = session.recorder is not None and getattr(session.recorder, "store", None) is not None
    own = session.how == "player" and not session.coached
    fate = ("it counts as abandoned" if own else "it is recorded as abandoned (counted apart from your own games)") \
        if recorded else "it is not recorded, so it cannot be resumed"
    if not session.confirm(f"Deal {session.deal} is in play ({moves}); {doing} ends it and {fate}. "
                           "End it? [y/N] "):
        raise Declined(f"kept deal {session.deal} in hand ({moves})")


def announce_outcome(session: Session) -> Reply:
    """What a move that ends the game says (nothing while the game goes on)."""
    return after_move(session, Reply())


def play_text(session: Session, text: str) -> Reply:
    session.play(parse_move(text))
    return after_move(session, Reply())


def applies(cmd: Command, session: Session) -> bool:
    """Whether ``cmd`` exists in the game in hand: a move command (``plays``) only where the
    game's notation under its rules has that move (Persian Rug has no ``d``, no ``redeal``)."""
    return not cmd.plays or cmd.plays in session.game.move_words(session.rules)


def commands_for(session: Session) -> list[Command]:
    """The commands of the game in hand, in the registry's order (help, completion)."""
    return [cmd for cmd in REGISTRY.values() if applies(cmd, session)]


@command("help", "help [COMMAND]", "list the commands, or explain one", aliases=("?",),
         details="Without COMMAND: the moves of the game in hand, then every command. "
                 "'help COMMAND' explains one; 'help' with a move's letter ('help w') explains "
                 "the moves that begin with it.",
         arguments=lambda session: sorted(c.name for c in commands_for(session)))
def _help(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise CommandError("usage: help [COMMAND]")
    notation = session.game.notation_for(session.rules)
    title = session.title
    reply = Reply()
    if args:
        word = args[0].lower()
        cmd = lookup(word)
        moves = [(u, m) for u, m in notation if _move_word(u) == word]
        if cmd is not None and applies(cmd, session):
            reply.say(cmd.usage, "label").say(f"  {cmd.summary}")
            if cmd.aliases:
                reply.say(f"  also: {', '.join(cmd.aliases)}")
            if cmd.details:
                reply.say(f"  {cmd.details}")
        if moves:
            reply.say(f"Moves in {title} that begin with {word}:", "label")
            _notation_lines(reply, moves)
        if not reply.out:
            if cmd is not None:
                raise CommandError(f"{title} has no move {word!r}; 'help' lists its moves")
            raise CommandError(f"no command {args[0]!r}; type 'help' for the list")
        return reply
    # Fits a 24-row screen: the moves one a line, the other commands in columns (their usage
    # only: 'help COMMAND' gives the rest).
    if notation:
        reply.say(f"Moves in {title}:", "label")
        _notation_lines(reply, notation)
    others = [cmd for cmd in commands_for(session) if not cmd.plays or not notation]
    reply.say("Commands ('help COMMAND' explains one):", "label")
    for text in columns([cmd.usage for cmd in others], session.width):
        reply.say(text)
    reply.say("Several commands on one line are separated by ';'.")
    return reply


def _move_word(usage: str) -> str:
    letters = len(usage) - len(usage.lstrip("abcdefghijklmnopqrstuvwxyz"))
    return usage[:letters]


def _notation_lines(reply: Reply, notation) -> None:
    width = max(len(u) for u, _ in notation)
    for usage, meaning in notation:
        reply.say(f"  {usage:<{width}}  {meaning}")


@command("quit", "quit", "leave (Ctrl-D does too)", aliases=("exit", "q"))
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
            usages = ", ".join(u for u, _ in session.game.notation_for(session.rules))
            raise CommandError(f"{e.text.strip()!r}: {e.why} (moves in {session.title}: {usages})") from None
        raise CommandError(f"unknown command {text!r}; type 'help' for the list") from None
    session.play(move)
    return after_move(session, Reply())


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
