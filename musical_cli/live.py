"""The live coach: the verdict of the position in hand, searched for beside the prompt.

The shell calls :meth:`Coach.update` after each command; when the position has changed, the
search in progress is stopped (the advice layer's stop event; each game's search checks it at
its progress reports, Musical's C core too, since it reports through Python) and a new one
starts in a background thread, so that typing never waits. When the answer is ready the
toolbar is redrawn (``app.invalidate()``, safe from any thread). A move that turns a position
proven winnable into one proven lost is announced in one line, printed above the prompt.

In a game whose stock stays hidden (Calculation), the coach never reads the stock while the
game is in play: it gives the blind player's estimate, and says it is one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from prompt_toolkit.application import Application

from . import advice
from .advice import LOST, UNKNOWN, WON, Limit, Memory
from .commands import Session
from .deals import DealNumber
from .game import Game, Outcome
from .hand import Hand, Position, Rules
from .i18n import N_, _, pgettext
from .render import Fragments, plural

# One position's search: CPU seconds of the coach's thread (the prompt's thread is not counted).
LIVE_LIMIT = Limit(seconds=20.0)
# After a loss: real seconds for how far to undo, and the most one probe of it may take.
UNDO_SECONDS = 6.0
UNDO_PROBE = 2.0
# (translated where it is said)
LOST_MOVE = N_("that move lost the game: 'undo' takes it back")


def lost_now(back: int | None) -> str:
    """The line for a game found lost after a position the coach left undecided: which move lost
    it is not proven, but how far to undo may be (``back`` as advice.undo_to_winnable gives it:
    None when the deal is lost from its start, -1 when nothing earlier was proven in time)."""
    if back is None:
        return _("the game is lost now, and the deal could not be won even from its start")
    if back > 0:
        # TRANSLATORS: 'undo {back}' is a command as typed ("undo 3"): the word stays English.
        return _("the game is lost now: 'undo {back}' gets back to a position that can be won").format(back=back)
    return _("the game is lost now (no earlier position was proven winnable in time)")
RATER_PAUSE = 0.05  # seconds the rating's search waits at a time while the shell is busy


# A deal, for its rating: (the game's name, its rules, the deal number).
DealKey = tuple[str, Rules, DealNumber]


@dataclass
class _Snapshot:
    """The game in hand as the coach's search sees it (advice.Asker): the hand when the search
    began, the session's memory (verdicts never change, so they are shared), and a progress
    report that stops the search once the position has changed."""

    hand: Hand
    memory: Memory
    search_progress: Callable[[int, float], None] | None = field(default=None)

    def notify(self, event: str) -> None:
        pass


class _Cancelled(Exception):
    """Raised from a progress report: the position changed, this search is of no use."""


@dataclass(frozen=True)
class Live:
    """What the coach says of the position in hand."""

    kind: str  # "thinking", "won", "lost", "unknown", "estimate", "none"
    moves: int | None = None  # won: the length of the winning line found
    undo: int | None = None  # lost: the undo steps back to a winnable position, when known
    estimate: tuple[int, int] | None = None  # (wins, tries) of the blind player
    partial: bool = False  # the estimate is on its way: more tries to come

    def text(self) -> str:
        """Short: it shares the status line with the position's own status."""
        if self.kind == "thinking":
            # TRANSLATORS: the live coach's words in the status line, after the deal: keep them short.
            return _("coach: thinking...")
        if self.kind == "won":
            # no move left to make: the game is won ("winnable: 0 moves" said it oddly)
            if not self.moves:
                # TRANSLATORS: the live coach's verdict: the game is won.
                return pgettext("coach", "won")
            # TRANSLATORS: the live coach's verdict: the game can be won in {moves} ("12 moves").
            return _("winnable: {moves}").format(moves=plural(self.moves, "move"))
        if self.kind == "lost":
            if not self.undo:
                # TRANSLATORS: the live coach's verdict: the game can no longer be won.
                return pgettext("coach", "lost")
            # TRANSLATORS: the live coach's verdict: lost, and the command 'undo N' (as typed: the
            # word stays English) gets back to a position that wins.
            return _("lost: 'undo {undo}' wins").format(undo=self.undo)
        if self.kind == "estimate" and self.estimate is not None:
            wins, tries = self.estimate
            if not tries:
                return _("estimate: none yet")
            # how many deals it stands on: 30 tries leave it within 15 points or so either way
            # TRANSLATORS: the blind player's estimate: won {wins} of {tries} tries, {percent} per
            # cent; {more} is "..." while more tries are to come, else nothing.
            return _("estimate: {percent}% win ({wins} of {tries}{more})").format(
                percent=round(100 * wins / tries), wins=wins, tries=tries, more="..." if self.partial else "")
        if self.kind == "none":
            return _("coach: no solver")
        # TRANSLATORS: the live coach's verdict: the search decided nothing.
        return _("undecided")


class _Beside:
    """One search at a time in a background thread, stopped by its event when no longer wanted."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _begin(self, name: str, work: Callable[..., None], *args: Any) -> threading.Event:
        """Start ``work(*args, stop)`` in a new thread (the one before is cancelled first)."""
        self.cancel()
        self._stop = stop = threading.Event()
        self._thread = threading.Thread(target=work, args=(*args, stop), name=name, daemon=True)
        self._thread.start()
        return stop

    def cancel(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        """Until the search in progress ends (tests, and the shell on leaving)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)


class Coach(_Beside):
    """The background search for the shell's session. ``redraw()`` is called (from the coach's
    thread) when a verdict is ready; ``announce(text)`` when a move lost the game."""

    def __init__(self, session: Session, redraw: Callable[[], None], announce: Callable[[str], None],
                 limit: Limit = LIVE_LIMIT, thinks: bool = True):
        super().__init__()
        self.session = session
        # Whether it searches with the coach off too, unseen: the verdicts it proves are the
        # session's memory, where 'hint' finds them, so that a hint asked after a moment's
        # thought answers at once (a game whose stock stays hidden has nothing to find there).
        self.thinks = thinks
        self.redraw = redraw
        self.announce = announce
        self.limit = limit
        self.position: Position | None = None
        self.live: Live | None = None
        self._lock = threading.Lock()

    def status(self) -> str:
        """The toolbar's words ("" with the coach off)."""
        live = self.live
        return "" if live is None or not self.session.coach else live.text()

    def thinking(self) -> bool:
        live = self.live
        return live is not None and live.kind == "thinking"

    def update(self) -> None:
        """After a command: start on the new position, if there is one (or stop, coach off)."""
        s = self.session
        unseen = self.thinks and not s.game.hint_is_blind and "solver" in s.game.players
        if not s.coach and not unseen:
            self.cancel()
            self.position, self.live = None, None
            return
        if s.coach and not s.coached:
            s.mark(coached=True)  # a new deal with the coach still on is coached too
        if s.state is self.position:
            return
        self.cancel()
        previous = self.position
        hand = s.hand  # a frozen value: the player's next move makes another
        # the position before the last step, when the last step led here from the one shown
        moved = (bool(hand.steps) and len(hand.states) > hand.steps[-1]
                 and hand.states[-1 - hand.steps[-1]] is previous)
        self.position = hand.state
        self.live = Live("thinking")
        self._begin("musical-coach", self._work, _Snapshot(hand, s.memory), previous if moved else None)

    def _publish(self, stop: threading.Event, live: Live) -> bool:
        with self._lock:
            if stop.is_set():
                return False
            self.live = live
        self.redraw()
        return True

    def _work(self, snap: _Snapshot, previous: Position | None, stop: threading.Event) -> None:
        try:
            self._search(snap, previous, stop)
        except _Cancelled:
            pass
        except Exception as e:  # a bug must not end the shell; the toolbar says it
            self._publish(stop, Live("unknown"))
            del e

    def _search(self, snap: _Snapshot, previous: Position | None, stop: threading.Event) -> None:
        game, state = snap.hand.game, snap.hand.state
        if "solver" not in game.players:
            self._publish(stop, Live("none"))
            return
        if game.hint_is_blind:
            over = game.outcome(state)
            if over is not Outcome.IN_PLAY:  # the end is in sight of all: no estimate of it
                self._publish(stop, Live("won" if over is Outcome.WON else "lost"))
                return

            def partial(wins: int, tries: int) -> None:
                self._publish(stop, Live("estimate", estimate=(wins, tries), partial=True))

            got = game.blind_estimate(state, stopped=stop.is_set, partial=partial)
            self._publish(stop, Live("estimate", estimate=got))
            return
        verdict = snap.memory.solved.get(state)
        if verdict is None:
            verdict = advice.analyse(game, state, self.limit, stop=stop)
            if verdict.stopped:
                return
            advice.remember(snap.memory.solved, game, state, verdict)
        if verdict.result == WON:
            self._publish(stop, Live("won", moves=len(verdict.moves)))
            return
        if verdict.result != LOST:
            self._publish(stop, Live("unknown"))
            return
        if not self._publish(stop, Live("lost")):
            return
        # The move to here is said in a line when it lost a winnable game; when the position
        # before it was undecided, the loss is said once its undo is known (a player who does
        # not watch the status line learns it too), never again from a position proven lost.
        tell_later = False
        if previous is not None:
            before = snap.memory.solved.get(previous) or advice.analyse(
                game, previous, Limit(seconds=UNDO_PROBE), stop=stop)
            if stop.is_set():
                return
            if before.result == WON and self.session.coach:
                self.announce(_(LOST_MOVE))
            tell_later = before.result == UNKNOWN

        def cancel(nodes: int, seconds: float) -> None:
            if stop.is_set():
                raise _Cancelled

        snap.search_progress = cancel
        back, _exact = advice.undo_to_winnable(snap, UNDO_SECONDS, probe=UNDO_PROBE, start_probe=UNDO_PROBE,
                                               lost_here=True)
        if back is not None and back > 0:
            self._publish(stop, Live("lost", undo=back))
        if tell_later and not stop.is_set() and self.session.coach:
            self.announce(lost_now(back))


class Rater(_Beside):
    """The deal's difficulty rating (musical_cli.advice.rating), found beside the game for the
    player's record, so that ``stats`` can give the win rate of each band for every game
    played, not only for deals chosen by their rating. It is never shown while the game is in
    play (it would give the game away: "lost" says all, and in Calculation it reads the hidden
    stock): ``found(key, rating)`` hands it to the record, from this thread. A new deal stops the
    search in progress; a shell that leaves first leaves the game unrated (resumed, it is rated
    then)."""

    def __init__(self, found: Callable[[DealKey, str], None], busy: Callable[[], bool] = lambda: False):
        super().__init__()
        self.found = found
        # While ``busy()`` (a command running, the coach thinking) the search waits at its next
        # progress report: it is the player's CPU, and hint's budgets are real seconds.
        self.busy = busy
        self.key: DealKey | None = None

    def update(self, session: Session) -> None:
        """After a command: start on the deal in hand, if it is a new one and has bands."""
        key = (session.game.name, session.rules, session.deal)
        if session.difficulty is not None:
            # known (the deal was chosen by it, or resumed rated): handed over all the same, so
            # that the deal played again ('restart', 'new N') is rated too
            self.found(key, session.difficulty)
        if key == self.key:
            return
        self.cancel()
        self.key = key
        if session.difficulty is not None or session.rules not in session.game.difficulty_bands():
            return  # already known, or not calibrated
        self._begin("musical-rating", self._work, session.game, session.rules, session.states[0], key)

    def _work(self, game: Game, rules: Rules, start: Position, key: DealKey, stop: threading.Event) -> None:
        def give_way(nodes: int, seconds: float) -> None:
            while self.busy() and not stop.is_set():
                stop.wait(RATER_PAUSE)

        try:
            rating = advice.rating(game, rules, start, stop=stop, progress=give_way)
        except Exception:  # a bug must not end the shell; the game is left unrated
            return
        if rating is not None and not stop.is_set():
            self.found(key, rating)


class Printer(Protocol):
    """What prints above the prompt: the shell (its prompt, when prompt_toolkit draws one)."""

    @property
    def app(self) -> Application[Any] | None: ...

    def print(self, fragments: Fragments) -> None: ...


def announce(shell: Printer, fragments: Fragments) -> None:
    """Print ``fragments`` above the prompt from another thread: through the prompt's event
    loop (prompt_toolkit's run_in_terminal hides the prompt, prints, and draws it again). A
    verdict found quickly may come while the shell is between a command and its next prompt:
    it waits a moment for the prompt, so as not to print into it; while a command runs (or on a
    dumb terminal, with no prompt_toolkit) it is printed at once."""
    app = shell.app
    for _try in range(25):
        loop = None if app is None else app.loop
        if app is not None and app.is_running and loop is not None:
            from prompt_toolkit.application import run_in_terminal

            loop.call_soon_threadsafe(lambda: run_in_terminal(lambda: shell.print(fragments)))
            return
        if app is None:
            break
        time.sleep(0.02)
    shell.print(fragments)
