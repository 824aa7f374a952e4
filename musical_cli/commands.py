"""The command language shared by the interactive shell and batch mode.

A :class:`Session` is the game in hand (a record plus undo/redo); :data:`REGISTRY` is the table of
commands, from which help, completion and the man page's list are all checked. ``execute`` runs one
line (commands separated by ``;``) and returns what to print; it does no I/O of its own except
through ``save`` and ``load``, and never touches prompt_toolkit.
"""

from __future__ import annotations

import shutil
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import files
from .deals import DealNumber, random_deal_number
from .game import Game, IllegalMove, Outcome
from .moves import DEAL, REDEAL, Move, Transfer
from .notation import NotationError, parse_move, resolve
from .render import Fragments, layout, line, plural
from .transcript import MAX_BYTES, GameRecord, TranscriptError, format_transcript, read_bytes


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
        self.start(game, deal, game.default_rules() if rules is None else rules)

    def start(self, game: Game, deal: DealNumber, rules: Any, moves: tuple[Move, ...] = (),
              steps: list[int] | None = None, undone: list[tuple[Move, ...]] | None = None) -> None:
        """Begin ``deal`` (replaying ``moves``); on an illegal move nothing changes. ``steps`` and
        ``undone`` restore a game's undo and redo history (a resumed game); by default each move
        is one step and there is nothing to redo."""
        states = [game.opening(deal, rules)]
        for move in moves:
            states.append(game.apply(states[-1], move))
        self.game, self.deal, self.rules = game, deal, rules
        self.states = states
        self.moves: list[Move] = list(moves)
        self.steps: list[int] = [1] * len(moves) if steps is None else list(steps)
        self.undone: list[tuple[Move, ...]] = [] if undone is None else list(undone)
        # The solver's decided verdicts (won or lost) in this game: a verdict never changes, and
        # each hint probes the same earlier positions again (the start first).
        self.solved: dict[Any, Any] = {}
        self.hint_open: Any = None  # the position where the last hint left its answer open
        # a long hint's position, the verdict known there then, and its answer
        self.hint_kept: tuple[Any, Any, Fragments] | None = None
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
        self.states.append(self.game.apply(self.state, move))
        self.moves.append(move)
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
        return layout(self.game, self.state, self.deal.text, len(self.moves), self.ascii)


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


def _count(args: list[str], usage: str) -> int:
    if not args:
        return 1
    # isascii too: "²" and "٣" are digits to str.isdigit(), and int() refuses the first.
    if len(args) > 1 or not (args[0].isascii() and args[0].isdigit()) or int(args[0]) < 1:
        raise CommandError(f"usage: {usage} (N is a whole number from 1 up)")
    return int(args[0])


def _no_args(args: list[str], usage: str) -> None:
    if args:
        raise CommandError(f"{usage} takes no argument; got {' '.join(args)!r}")


def _after_move(session: Session, reply: Reply) -> Reply:
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
    return _after_move(session, Reply())


def _move(session: Session, text: str) -> Reply:
    session.play(parse_move(text))
    return _after_move(session, Reply())


@command("d", "d", "deal: turn the stock's top card onto the waste", aliases=("deal",),
         details="Allowed while the stock has cards, when the rules allow it ('rules' says when). "
                 "In a game where the turned card must be placed at once, the shell turns the "
                 "next card up by itself, as PySolFC does.")
def _deal(session: Session, args: list[str]) -> Reply:
    _no_args(args, "d")
    return _move(session, "d")


def move_sources(session: Session) -> list[str]:
    """The places a card can be moved from now (``w``, ``p2``, ``q34``), in the legal moves' order."""
    sources = (str(m.source) for m in session.game.legal_moves(session.state) if isinstance(m, Transfer))
    return list(dict.fromkeys(sources))


def move_targets(session: Session, source: str) -> list[str]:
    """Where the card at ``source`` can go now."""
    return [str(m.target) for m in session.game.legal_moves(session.state)
            if isinstance(m, Transfer) and str(m.source) == source and m.target is not None]


def _targets(session: Session) -> list[str]:
    """After ``w``: where the waste card can go now; when it can go nowhere, every foundation
    and pile, so that the move typed is refused with its reason."""
    legal = move_targets(session, "w")
    if legal:
        return legal
    state = session.state
    return ([f"f{i}" for i in range(1, len(getattr(state, "foundations", ())) + 1)]
            + [f"p{j}" for j in range(1, len(getattr(state, "piles", ())) + 1)])


@command("w", "w [TARGET]", "play the waste card: to foundation N (w fN), or where the game allows",
         details="'w f2', 'wf2', 'w2' and 'w 2' are the same move. 'w' alone plays the card to the "
                 "one foundation that takes it; when several or none do, it says what would work. "
                 "The other targets are the game's ('help' lists its moves).",
         arguments=_targets)
def _waste(session: Session, args: list[str]) -> Reply:
    return _move(session, " ".join(["w", *args]))


@command("redeal", "redeal", "turn the waste over to become the stock again",
         details="Allowed when the stock is empty and the waste is not, as often as the game's "
                 "rules allow (the rule option --redeals); some games have no redeal.")
def _redeal(session: Session, args: list[str]) -> Reply:
    _no_args(args, "redeal")
    return _move(session, "redeal")


@command("undo", "undo [N]", "take back the last move (or the last N)", aliases=("u",))
def _undo(session: Session, args: list[str]) -> Reply:
    n = _count(args, "undo [N]")
    if not session.steps:
        raise CommandError("nothing to undo: no move has been made")
    done = session.undo(n)
    return Reply(show=True).say(f"undid {plural(done, 'move')}")


@command("redo", "redo [N]", "make again the last move taken back (or the last N)")
def _redo(session: Session, args: list[str]) -> Reply:
    n = _count(args, "redo [N]")
    if not session.undone:
        raise CommandError("nothing to redo")
    done = session.redo(n)
    return _after_move(session, Reply().say(f"redid {plural(done, 'move')}"))


@command("moves", "moves", "list the legal moves now")
def _moves(session: Session, args: list[str]) -> Reply:
    _no_args(args, "moves")
    legal = session.game.legal_moves(session.state)
    if not legal:
        return Reply().say("no move is legal")
    return Reply().say("legal: " + ", ".join(str(m) for m in legal))


@command("show", "show", "show the layout again", aliases=("s", "layout"))
def _show(session: Session, args: list[str]) -> Reply:
    _no_args(args, "show")
    return Reply(show=True, asked=True)


@command("new", "new [N]", "start a new deal: deal N, or a random one",
         details="The deal number is shown at once, so that the game can be replayed with --seed N.")
def _new(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise CommandError("usage: new [N]")
    deal = DealNumber.parse(args[0]) if args else random_deal_number()
    session.start(session.game, deal, session.rules)
    return Reply(show=True).say(f"deal {deal}")


@command("restart", "restart", "start this deal again from the beginning")
def _restart(session: Session, args: list[str]) -> Reply:
    _no_args(args, "restart")
    session.start(session.game, session.deal, session.rules)
    return Reply(show=True).say(f"deal {session.deal} restarted")


# The solver commands import it lazily: it is the heaviest module and the shell must start fast.
# hint answers within about a second: HINT_BUDGET for its own position, UNDO_BUDGET for how far
# to undo. Wins are found in milliseconds, while a proof that a position early in the first pass
# is lost can take seconds (Crazy Quilt's tens of seconds). So when a second leaves the answer
# open (no verdict here, no earlier position proven winnable, or one that may not be the latest),
# hint says what it knows and says so; 'hint' typed again at the same position then searches on
# (LONG_HINT_BUDGET here, SOLVE_BUDGET for how far to undo), with a progress bar that Ctrl-C stops.
HINT_BUDGET = 0.5
UNDO_BUDGET = 0.4
LONG_HINT_BUDGET = 5.0
SOLVE_BUDGET = 30.0
_AGAIN = "type 'hint' again to search longer"


def _solve(session: Session, state: Any, budget: float):
    from .solver import solve

    known = session.solved.get(state)
    if known is not None:
        return known
    solution = solve(session.game, state, budget=budget, progress=session.progress)
    if solution.result != "unknown":
        session.solved[state] = solution
        session.notify("solved")
    return solution


@command("hint", "hint", "the next move of a winning line from here",
         details="Where a player has seen the whole stock after the first pass, the solver sees it "
                 "too; when no win is left it says how many moves to undo to get back to one. "
                 "It answers within about a second; when that leaves the answer open it says so, "
                 "and 'hint' typed again before any move searches longer: up to 5 s for the "
                 "position, then up to 30 s for how far to undo (Ctrl-C stops it). "
                 "In a game whose stock stays hidden, the hint never reads the stock: it comes "
                 "from a player that knows only the cards seen.")
def _hint(session: Session, args: list[str]) -> Reply:
    _no_args(args, "hint")
    _need_player(session)
    session.notify("hint")
    if session.outcome() is Outcome.WON:
        return Reply().say("the game is won; nothing to hint")
    if session.game.hint_is_blind:
        from .solver import blind_hint

        move = blind_hint(session.game, session.state)
        if move is None:
            return Reply().say("no move is left: 'undo' to go back", "bad")
        return Reply().say(f"hint: {move}  (from what you can see; the stock stays hidden)", "hint")
    here = session.state
    kept = session.hint_kept
    # The long search's answer, while nothing new is known here ('solve' may have decided it).
    if kept is not None and kept[0] is here and session.solved.get(here) is kept[1]:
        return Reply(list(kept[2]))
    longer = session.hint_open is here
    session.hint_open = None
    if longer:
        reply = _long_hint(session)
        session.hint_kept = (here, session.solved.get(here), list(reply.out))
        return reply
    solution = _solve(session, here, HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    back, exact = _undo_to_winnable(session, UNDO_BUDGET, probe=UNDO_BUDGET, start_probe=0.0, lost_here=lost)
    if back is None:  # the start itself is lost, so is every later position
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    session.hint_open = here  # cleared below when the answer is whole
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            return reply.say(f"no earlier position was proven winnable yet: {_AGAIN}.", "bad")
        if exact:
            session.hint_open = None
            return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")
        return reply.say(f"'undo {back}' gets back to a position that can still be won, and a later "
                         f"one may be too: {_AGAIN}.", "hint")
    undecided = f"undecided: no win found from here within {HINT_BUDGET:g} s, and no loss proven"
    if not session.moves:
        return Reply().say(f"{undecided}: {_AGAIN}.", "bad")
    reply = Reply().say(f"{undecided};", "bad")
    if back < 0:
        return reply.say(f"nor an earlier position proven winnable yet: {_AGAIN}.", "bad")
    return reply.say(f"'undo {back}' gets back to a position that can still be won; or {_AGAIN}.", "hint")


def _long_hint(session: Session) -> Reply:
    """``hint`` asked again where a quick one left its answer open: the long budgets."""
    solution = _solve(session, session.state, LONG_HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    # The start may take most of a lost position's long budget (deal 409's start is proven lost
    # in about 6 s), only half of an undecided one's (Crazy Quilt's starts are often its hardest).
    back, exact = _undo_to_winnable(session, SOLVE_BUDGET if lost else LONG_HINT_BUDGET,
                                    settle=LONG_HINT_BUDGET, start_probe=LONG_HINT_BUDGET if lost else 0.0,
                                    lost_here=lost)
    if back is None:
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            return reply.say(f"the solver found no earlier position winnable within {SOLVE_BUDGET:g} s: "
                             "undo by hand, or 'new'.", "bad")
        later = "" if exact else " (a later one may be too: some positions stayed undecided)"
        return reply.say(f"'undo {back}' gets back to a position that can still be won{later}.", "hint")
    reply = Reply().say(f"undecided: no win found from here within {LONG_HINT_BUDGET:g} s, and no loss "
                        f"proven ('solve' searches up to {SOLVE_BUDGET:g} s).", "bad")
    if not session.moves:
        return reply
    if back < 0:
        return reply.say(f"No earlier position was proven winnable within {LONG_HINT_BUDGET:g} s either.", "bad")
    return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")


def _hint_move(solution: Any) -> Reply:
    return Reply().say(f"hint: {solution.moves[0]}  (a win in {plural(len(solution.moves), 'more move')})",
                       "hint")


def _need_player(session: Session, blind: bool = True) -> None:
    """A game with no solver (or, for hint and auto, no blind player) says so."""
    players = session.game.players
    if "solver" not in players and not (blind and "blind" in players):
        raise CommandError(f"{session.game.title} has no solver yet: no hint, solve or auto")


_LOST_FROM_START = "This deal cannot be won even from its start: try 'new'."


def _undo_to_winnable(session: Session, budget: float = SOLVE_BUDGET, settle: float | None = None,
                      probe: float = LONG_HINT_BUDGET, start_probe: float = LONG_HINT_BUDGET,
                      lost_here: bool = False) -> tuple[int | None, bool]:
    """How many moves to undo to reach the latest position proven winnable within ``budget``
    seconds (and within ``settle`` seconds more once one is found, when given), and whether it is
    surely the latest (every probe decided in time). None when even the start is proven lost, -1
    when nothing was proven either way in time. ``probe``: the most one probe may take;
    ``start_probe``: the most the start's probe may take, or half of what is left if more.
    ``lost_here``: the current position is proven lost (when no move has been made, it is the
    start).

    Winnability only ever goes from yes to no along a game (a lost position's successors are lost
    too), so there is one boundary, found by probing positions with the solver. A winning line
    from a probed position also proves winnable every later position the game reached by the
    same moves (they lie on that line). Proving a loss costs far more than finding a win (seconds
    against milliseconds early in a game), and only one loss needs proving, the position just
    after the boundary: so the probes walk forward, each at the first position not yet known to
    be winnable (the start, then where the game left the last winning line), for at most
    ``forward`` probes; then bisection over what is left (plain bisection when the start itself
    is undecided). An "unknown" counts as not winnable. The answer is the latest winnable
    position when no probe runs out of time, and a position proven winnable in any case."""
    deadline = time.monotonic() + budget
    last = len(session.states) - 1  # known lost
    lo, hi = 0, last  # the boundary lies in [lo, hi): states[hi] is not winnable
    best: int | None = None
    undecided: list[int] = []  # the positions probed without a verdict
    # None is a proof, so it needs one: the start probed and found lost, or the start is the
    # current position and the caller proved it lost. Undecided is never read as lost.
    start_lost = lost_here and last == 0
    forward = 24  # forward probes left
    while lo < hi:
        walking = forward > 0
        if walking:
            mid = lo
            forward -= 1
        else:
            mid = (lo + hi) // 2
        left = deadline - time.monotonic()
        if left <= 0:
            return (-1 if best is None else session.steps_back(last - best)), False
        # The start decides the most (lost there is lost everywhere), but in a game like Crazy
        # Quilt it is often the hardest position of all: half of what is left, or start_probe.
        cap = max(start_probe, left / 2) if mid == 0 else probe
        solution = _solve(session, session.states[mid], min(cap, left))
        result = solution.result
        if result == "won":
            # states[mid + k] is on the winning line while the game made the line's moves
            line = solution.moves
            k = 0
            while mid + k + 1 < hi and k < len(line) and session.moves[mid + k] == line[k]:
                k += 1
            if best is None and settle is not None:
                deadline = min(deadline, time.monotonic() + settle)
            best, lo = mid + k, mid + k + 1
        else:
            if result == "unknown":
                undecided.append(mid)
            if result == "unknown" and walking and mid == 0:
                forward = 0  # the start itself undecided: plain bisection, as before
                continue
            # "unknown" is treated as not winnable: the answer stays a position proven winnable,
            # perhaps earlier than the latest one.
            if result == "unknown" and best is None and mid == 0:
                return -1, False
            start_lost = start_lost or (mid == 0 and result == "lost")
            hi = mid
    # the answer is surely the latest unless a position after it was left undecided
    exact = not any(mid > (-1 if best is None else best) for mid in undecided)
    if best is None:
        return (None if start_lost else -1), exact
    return session.steps_back(last - best), exact


@command("solve", "solve [play]", "show a winning line from here, or play it with 'solve play'",
         arguments=("play",))
def _solve_cmd(session: Session, args: list[str]) -> Reply:
    args = [a.lower() for a in args]
    if args not in ([], ["play"]):
        raise CommandError("usage: solve [play]")
    _need_player(session, blind=False)
    solution = _solve(session, session.state, SOLVE_BUDGET)
    reply = Reply()
    if solution.result == "lost":
        return reply.say("no win is possible from here ('hint' says how far to undo)", "bad")
    if solution.result == "unknown":
        return reply.say(f"undecided: the solver ran out of its {SOLVE_BUDGET:g} s budget", "bad")
    if not solution.moves:
        return reply.say("the game is already won")
    if not args:
        reply.say(f"a win in {plural(len(solution.moves), 'move')}:", "hint")
        for text in move_lines(session.state, solution.moves, session.width):
            reply.say(text, "hint")
        return reply
    start = session.state
    for move in solution.moves:
        session.play(move, turn_up=False)  # the line already holds its own deals
    reply.say(f"played {plural(len(solution.moves), 'move')}:")
    for text in move_lines(start, solution.moves, session.width):
        reply.say(text)
    return _after_move(session, reply)


def move_lines(state: Any, moves: tuple[Move, ...], width: int = 80) -> list[str]:
    """A line of moves for a player to follow: one line a pass where the game has passes (a new
    line after each redeal, labelled with the pass it plays), each wrapped between moves, never
    inside one ('w' at the end of a screen line and 'f4' at the start of the next), to fit
    ``width`` columns."""
    groups: list[list[str]] = [[]]
    for move in moves:
        groups[-1].append(str(move))
        if move == REDEAL:
            groups.append([])
    if not groups[-1]:
        groups.pop()
    first = getattr(state, "pass_number", None)
    width = max(width, 30) - 1  # a line that fills the last column makes some terminals wrap
    out: list[str] = []
    for n, group in enumerate(groups):
        label = f"pass {first + n}: " if first is not None else ""
        lead = "  " + label
        current = lead
        for word in group:
            if current.strip() and len(current) + 1 + len(word) > width:
                out.append(current)
                current = "  " + " " * len(label)
            current += ("" if current.endswith(" ") else " ") + word
        out.append(current)
    return out


@command("auto", "auto", "make the moves the solver proves safe",
         details="Only moves that cannot turn a winnable position into a lost one.")
def _auto(session: Session, args: list[str]) -> Reply:
    _no_args(args, "auto")
    _need_player(session)
    from .solver import safe_moves

    moves = safe_moves(session.game, session.state)
    if not moves:
        return Reply().say("no move is provably safe here")
    for move in moves:
        session.play(move, turn_up=False)
    words = f"auto: {' '.join(str(m) for m in moves)}"
    if len(words) < session.width:
        return _after_move(session, Reply().say(words))
    reply = Reply().say(f"auto: {plural(len(moves), 'move')}:")
    for text in move_lines(session.states[-1 - len(moves)], moves, session.width):
        reply.say(text)
    return _after_move(session, reply)


def default_save_path(session: Session) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return files.data_dir() / f"{session.game.name}-deal-{session.deal}-{stamp}.txt"


@command("save", "save [FILE]", "save this game as a transcript",
         details="Without FILE, to the data directory ($XDG_DATA_HOME/musical), named after the deal. "
                 "Undone moves are not saved.",
         arguments="path")
def _save(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise CommandError("usage: save [FILE] (quote nothing; a file name has no spaces here)")
    given = args[0] if args else None
    text = format_transcript(session.record, session.outcome())
    try:
        path = files.expand_user(given) if given is not None else None
    except OSError as e:
        raise CommandError(f"cannot save to {given}: {e}") from None
    if path is None:
        try:
            path = default_save_path(session)
        except files.NoHomeError as e:
            raise CommandError(f"cannot save: {e}; name a file: save FILE") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.atomic_write(path, text)
    except OSError as e:
        raise CommandError(f"cannot save to {path}: {e.strerror or e}") from None
    return Reply().say(f"saved {plural(len(session.moves), 'move')} to {path}")


@command("load", "load FILE|@ID", "replace this game with the one in a transcript",
         details="'load @ID' loads game ID of the record ('history' lists them) as a new game.",
         arguments="path")
def _load(session: Session, args: list[str]) -> Reply:
    if len(args) != 1:
        raise CommandError("usage: load FILE|@ID")
    if args[0].startswith("@"):
        from .record import load_recorded

        return load_recorded(session, args[0])
    try:
        path = files.expand_user(args[0])
    except OSError as e:
        raise CommandError(f"cannot read {args[0]}: {e}") from None
    try:
        data = files.read_limited(path, MAX_BYTES)
    except OSError as e:
        raise CommandError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        transcript = read_bytes(data)
    except TranscriptError as e:
        raise CommandError(f"{path}: {e.text(session.ascii)}") from None
    record = transcript.record
    session.start(record.game, record.deal, record.rules, record.moves)
    return Reply(show=True).say(f"loaded deal {record.deal}, {plural(len(record.moves), 'move')}, from {path}")


@command("rules", "rules", "the rules of the game in hand",
         details="The same text as the game's part of the man page (musical(1), GAMES).")
def _rules(session: Session, args: list[str]) -> Reply:
    _no_args(args, "rules")
    reply = Reply()
    # rules.txt holds a paragraph a line, as the man page does; a terminal wants them wrapped.
    width = min(shutil.get_terminal_size((80, 24)).columns, 80) - 1
    for n, paragraph in enumerate(p for p in session.game.rules_text.split("\n\n") if p.strip()):
        if n:
            reply.say("")
        reply.say(textwrap.fill(" ".join(paragraph.split()), width, break_on_hyphens=False, break_long_words=False))
    return reply


# The record (issue 13): the shell's recorder does the work; see musical_cli/record.py.
@command("resume", "resume [@ID]", "go on with the unfinished game of the record (or game ID)",
         details="Resumes the game played last that is still in play and that no other running shell "
                 "holds, with its undo and redo history. The shell offers it at start.",
         arguments=lambda session: _resumable(session))
def _resume(session: Session, args: list[str]) -> Reply:
    from .record import resume_command

    return resume_command(session, args)


def _resumable(session: Session) -> list[str]:
    from .record import resumable

    return resumable(session)


@command("history", "history [N]", "the last N games of the record (10 by default), newest first")
def _history(session: Session, args: list[str]) -> Reply:
    from .record import history_command

    return history_command(session, args)


@command("record", "record", "this game's figures in the record: moves, undos, hints, time")
def _record(session: Session, args: list[str]) -> Reply:
    from .record import record_command

    return record_command(session, args)


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
    return _after_move(session, Reply())


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
