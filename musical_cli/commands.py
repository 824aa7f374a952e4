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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .deals import DealNumber
from .game import Game, IllegalMove, Outcome
from .moves import DEAL, Move
from .notation import NotationError, parse_move, resolve
from .render import Fragments, layout, line, plural
from .transcript import GameRecord, TranscriptError

HOW = ("player", "solver", "loaded")  # who played a game (Session.how)


class CommandError(ValueError):
    """A line that is not a command, or a command used wrongly."""


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
        self.width = 80  # columns to wrap long lines of moves at; the shell sets its terminal's
        # Told of every change ("start", "move", "undo", "redo", "hint"): the shell's recorder.
        self.listener: Callable[[str], None] | None = None
        self.recorder: Any = None  # the shell's Recorder (musical_cli.record), for its commands
        self.coach = False  # the live coach is on ('coach on', --coach): the shell shows its verdict
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
        self.steps: list[int] = [1] * len(moves) if steps is None else list(steps)
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
        self.chosen: str | None = None  # how the deal was chosen, for the layout's title: "winnable"
        if not moves:
            self._turn_up()
        self.notify("start")

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
        """Take back ``n`` steps (or as many as there are); how many moves that took back."""
        taken = 0
        for _ in range(min(n, len(self.steps))):
            count = self.steps.pop()
            self.undone.append(tuple(self.moves[-count:]))
            del self.moves[-count:]
            del self.states[-count:]
            taken += count
        if taken:
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
        done = 0
        while done < n and self.undone:
            step = self.undone.pop()
            for move in step:
                self._apply(move)
            self.steps.append(len(step))
            done += 1
        if done:
            self.notify("redo")
        return done

    def layout(self) -> Fragments:
        title = self.deal.text + (f" (dealt {self.chosen})" if self.chosen else "")
        return layout(self.game, self.state, title, len(self.moves), self.ascii)


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

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


REGISTRY: dict[str, Command] = {}
_BY_NAME: dict[str, Command] = {}


def command(name: str, usage: str, summary: str, aliases: tuple[str, ...] = (), details: str = "",
            arguments: Any = ()) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        cmd = Command(name, usage, summary, handler, aliases, details, arguments)
        REGISTRY[name] = cmd
        for n in cmd.names:
            _BY_NAME[n] = cmd
        return handler

    return register


def lookup(word: str) -> Command | None:
    return _BY_NAME.get(word.lower())


def count_arg(args: list[str], usage: str) -> int:
    if not args:
        return 1
    # isascii too: "²" and "٣" are digits to str.isdigit(), and int() refuses the first.
    if len(args) > 1 or not (args[0].isascii() and args[0].isdigit()) or int(args[0]) < 1:
        raise CommandError(f"usage: {usage} (N is a whole number from 1 up)")
    return int(args[0])


def no_args(args: list[str], usage: str) -> None:
    if args:
        raise CommandError(f"{usage} takes no argument; got {' '.join(args)!r}")


def after_move(session: Session, reply: Reply) -> Reply:
    reply.show = True
    verdict = session.outcome()
    if verdict is Outcome.WON:
        reply.say(f"You won deal {session.deal} in {plural(len(session.moves), 'move')}!"
                  + (" Type 'new' for another deal, or 'save' to keep this one." if session.interactive else ""),
                  "good")
    elif verdict is Outcome.LOST:
        reply.say("No move is left: the game is lost."
                  + (" Type 'undo' to go back ('hint' finds where a win was still possible), "
                     "or 'new' for another deal." if session.interactive else ""), "bad")
    return reply


def announce_outcome(session: Session) -> Reply:
    """What a move that ends the game says (nothing while the game goes on)."""
    return after_move(session, Reply())


def play_text(session: Session, text: str) -> Reply:
    session.play(parse_move(text))
    return after_move(session, Reply())


@command("help", "help [COMMAND]", "list the commands, or explain one", aliases=("?",),
         arguments=lambda session: sorted(REGISTRY))
def _help(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise CommandError("usage: help [COMMAND]")
    reply = Reply()
    if args:
        cmd = lookup(args[0])
        if cmd is None:
            raise CommandError(f"no command {args[0]!r}; type 'help' for the list")
        reply.say(cmd.usage, "label").say(f"  {cmd.summary}")
        if cmd.aliases:
            reply.say(f"  also: {', '.join(cmd.aliases)}")
        if cmd.details:
            reply.say(f"  {cmd.details}")
        return reply
    notation = session.game.notation
    width = max(len(u) for u in [c.usage for c in REGISTRY.values()] + [u for u, _ in notation])
    for cmd in REGISTRY.values():
        reply.say(f"  {cmd.usage:<{width}}  {cmd.summary}")
    if notation:
        reply.say(f"Moves in {session.game.title}:")
        for usage, meaning in notation:
            reply.say(f"  {usage:<{width}}  {meaning}")
    reply.say("Several commands on one line are separated by ';'. 'help COMMAND' tells more.")
    return reply


@command("quit", "quit", "leave (Ctrl-D does too)", aliases=("exit", "q"))
def _quit(session: Session, args: list[str]) -> Reply:
    return Reply(quit=True)


def split_line(text: str) -> list[str]:
    """The commands of one line: separated by ';', blank ones and '#' comments dropped."""
    text = text.split("#", 1)[0]
    return [part.strip() for part in text.split(";") if part.strip()]


def execute_one(session: Session, text: str) -> Reply:
    """Run one command. Raises CommandError, IllegalMove or another ValueError on a bad one."""
    words = text.split()
    cmd = lookup(words[0])
    if cmd is not None:
        return cmd.handler(session, words[1:])
    try:
        move = parse_move(text)
    except NotationError:
        raise CommandError(f"unknown command {text!r}; type 'help' for the list") from None
    session.play(move)
    return after_move(session, Reply())


def execute(session: Session, text: str) -> Reply:
    """Run a line of commands separated by ';', stopping at the first that fails (its error
    propagates; the commands before it stay done)."""
    reply = Reply()
    for part in split_line(text):
        reply.extend(execute_one(session, part))
        if reply.quit:
            break
    return reply


def error_text(error: Exception, ascii: bool = False) -> str:
    if isinstance(error, IllegalMove | TranscriptError):
        return error.text(ascii)
    return str(error)
