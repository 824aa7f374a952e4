"""The game in hand, driven through the command language only (``execute(session, text)``, as the
shell and batch mode drive it): a state machine types legal moves, ``undo N``, ``redo N``,
``new N`` and ``restart`` (answering the question a game in play asks), ``save`` and ``load``
in a temporary directory, and leaves the shell for a new one that types ``resume``. A plain model
keeps the game beside it: the moves, in the steps undo takes back, and the steps taken back,
for redo. After each step what the session says must be what the model says: the moves 'save'
writes are the model's, and replayed from the deal's opening they reach a position whose legal
moves are the ones 'moves' lists, with every card of the deal still in it; 'save' counts the
player's moves as the model does; and redo after undo gives back the game as it was.

Musical and Calculation, each in an interactive session (the shell's: Calculation turns its next
card up by itself after each placement, and undo takes both back together) and in one that is
not (batch mode's), and Crazy Quilt in the shell.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from musical_cli.cards import Card, new_deck
from musical_cli.commands import Unattended
from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games import game_named
from musical_cli.language import CommandError, Session, execute
from musical_cli.moves import DEAL
from musical_cli.record import Recorder
from musical_cli.render import plain
from musical_cli.transcript import read_transcript

# (game, interactive): the shell's session and batch mode's
SESSIONS = [("musical", True), ("musical", False), ("calculation", True), ("calculation", False),
            ("crazy-quilt", True)]
DEALS = st.integers(1, 40)


def cards_of(value) -> list[Card]:
    """Every card in a position (a dataclass of tuples of cards, whatever the game)."""
    if isinstance(value, Card):
        return [value]
    if isinstance(value, (tuple, list)):
        return [c for v in value for c in cards_of(v)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [c for f in dataclasses.fields(value) for c in cards_of(getattr(value, f.name))]
    return []


class Model:
    """The game in hand as a player sees it: the deal, the moves made before any step (the card
    the shell turns up at the start), the steps (what one command played), the steps undone."""

    def __init__(self, game, rules, deal: int, interactive: bool):
        self.game, self.rules, self.deal, self.interactive = game, rules, deal, interactive
        self.prefix: tuple = ()
        self.steps: list[tuple] = []
        self.redo: list[tuple] = []  # the next to redo last
        self.prefix = self._turned(self.opening())

    def opening(self):
        return self.game.opening(DealNumber(self.deal), self.rules)

    @property
    def moves(self) -> tuple:
        return self.prefix + tuple(m for step in self.steps for m in step)

    def position(self):
        return self.game.play(self.opening(), self.moves)

    def counts(self, move) -> bool:
        """A move the player made: in a game that turns its cards up by itself, a turn is none,
        the shell's own or typed through a pipe."""
        return not (self.game.auto_turn and move == DEAL)

    def _turned(self, state) -> tuple:
        """The card the shell turns up by itself in ``state``, if it does."""
        if self.interactive and self.game.auto_turn and DEAL in self.game.legal_moves(state):
            return (DEAL,)
        return ()

    def in_play(self) -> bool:
        return bool(self.steps or self.redo) and self.game.outcome(self.position()) is Outcome.IN_PLAY

    def play(self, move) -> None:
        after = self.game.apply(self.position(), move)
        step = (move, *self._turned(after))
        if len(step) == 1 and not self.counts(move) and self.steps:
            self.steps[-1] += step  # a turn of its own goes with the move before it
            self.redo.clear()
            return
        self.steps.append(step)
        if self.redo and self.redo[-1] == step:
            self.redo.pop()  # the move undone made again: the rest of the future stays
        else:
            self.redo.clear()

    def undo(self, n: int) -> int:
        taken = 0
        for _ in range(min(n, len(self.steps))):
            step = self.steps.pop()
            self.redo.append(step)
            taken += sum(map(self.counts, step))
        return taken

    def redone(self, n: int) -> int:
        made = 0
        for _ in range(min(n, len(self.redo))):
            step = self.redo.pop()
            self.steps.append(step)
            made += sum(map(self.counts, step))
        return made

    def start(self, deal: int) -> None:
        self.deal, self.steps, self.redo = deal, [], []
        self.prefix = self._turned(self.opening())

    def load(self, moves: tuple) -> None:
        """A game read from a transcript: each of the player's moves a step, a card the shell
        turned up with the move before it; nothing to redo."""
        self.prefix, self.steps, self.redo = (), [], []
        for move in moves:
            if self.steps and not self.counts(move):
                self.steps[-1] += (move,)
            elif self.counts(move):
                self.steps.append((move,))
            else:
                self.prefix += (move,)
        if not moves:
            self.prefix = self._turned(self.opening())
        elif turned := self._turned(self.position()):
            if self.steps:
                self.steps[-1] += turned
            else:
                self.prefix += turned


class SessionMachine(RuleBasedStateMachine):
    @initialize(which=st.sampled_from(SESSIONS), deal=DEALS)
    def open_the_shell(self, which, deal):
        name, interactive = which
        self.dir = Path(tempfile.mkdtemp(prefix="musical-session-"))  # (in memory: tests/conftest.py)
        self.game = game_named(name)
        self.model = Model(self.game, self.game.default_rules(), deal, interactive)
        self.warnings: list[str] = []
        self.recorder = None
        self.session = self.new_shell(deal)

    def new_shell(self, deal: int) -> Session:
        """A shell's session on ``deal`` (the record kept in the temporary directory), whose
        questions are answered by ``self.answer``; the shell before it, if any, has left."""
        if self.recorder is not None:
            self.recorder.close()
        session = Session(self.game, DealNumber(deal), self.model.rules, interactive=self.model.interactive)
        self.asked: list[str] = []
        self.answer = True

        def confirm(question: str) -> bool:
            self.asked.append(question)
            return self.answer

        session.front = Unattended(answer=confirm)
        self.recorder = Recorder.open(self.dir / "musical.sqlite3", offer=False)
        self.recorder.attach(session, self.warnings.append)
        return session

    def teardown(self):
        if getattr(self, "recorder", None) is not None:
            self.recorder.close()
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def say(self, line: str) -> str:
        return plain(execute(self.session, line).out).strip()

    def saved(self) -> tuple[object, str]:
        """The game in hand as 'save' writes it (read back), and what 'save' said."""
        path = self.dir / "check.txt"
        said = self.say(f"save {path}")
        return read_transcript(path.read_text(encoding="utf-8")), said

    # --- the rules ------------------------------------------------------------------------

    @precondition(lambda self: self.game.legal_moves(self.model.position()))
    @rule(data=st.data())
    def type_a_legal_move(self, data):
        move = data.draw(st.sampled_from(self.game.legal_moves(self.model.position())))
        self.say(str(move))
        self.model.play(move)

    @precondition(lambda self: self.game.legal_moves(self.model.position()))
    @rule(data=st.data(), k=st.integers(2, 6))
    def type_moves_on_one_line(self, data, k):
        """Moves typed as one line, separated by ';' (each its own step, as if typed apart)."""
        texts = []
        for _ in range(k):
            legal = self.game.legal_moves(self.model.position())
            if not legal:
                break
            move = data.draw(st.sampled_from(legal))
            texts.append(str(move))
            self.model.play(move)
        self.say("; ".join(texts))

    @rule(n=st.integers(1, 4))
    def undo(self, n):
        if not self.model.steps:
            try:
                self.say(f"undo {n}")
            except CommandError as e:
                assert "nothing to undo" in str(e)
            else:
                raise AssertionError("undo with no move made")
            return
        said = self.say(f"undo {n}")
        assert re.search(rf"\bundid {self.model.undo(n)} moves?\b", said), said

    @rule(n=st.integers(1, 4))
    def redo(self, n):
        if not self.model.redo:
            try:
                self.say(f"redo {n}")
            except CommandError as e:
                assert "nothing to redo" in str(e)
            else:
                raise AssertionError("redo with nothing undone")
            return
        said = self.say(f"redo {n}")
        assert re.search(rf"\bredid {self.model.redone(n)} moves?\b", said), said

    @precondition(lambda self: self.model.steps)
    @rule(n=st.integers(1, 6))
    def undo_then_redo_gives_the_game_back(self, n):
        n = min(n, len(self.model.steps))  # more would redo what was undone before, too
        before, _ = self.saved()
        legal = self.say("moves")
        self.say(f"undo {n}; redo {n}")
        after, _ = self.saved()
        assert after.record == before.record and self.say("moves") == legal

    def ended(self, line: str, answer: bool, then) -> None:
        """A command that ends the game in hand: asked exactly when the game is in play (the
        answer drawn), kept on no; ``then`` updates the model on yes."""
        in_play = self.model.in_play()
        self.answer = answer
        self.asked.clear()
        try:
            self.say(line)
        except CommandError as e:
            assert in_play and not answer and str(e).startswith(f"kept deal {self.model.deal} in hand"), e
        else:
            assert answer or not in_play
            then()
        assert len(self.asked) == in_play

    @rule(deal=DEALS, answer=st.booleans())
    def new(self, deal, answer):
        self.ended(f"new {deal}", answer, lambda: self.model.start(deal))

    @rule(answer=st.booleans())
    def restart(self, answer):
        self.ended("restart", answer, lambda: self.model.start(self.model.deal))

    @rule(answer=st.booleans())
    def save_then_load(self, answer):
        path = self.dir / "game.txt"
        self.say(f"save {path}")
        moves = self.model.moves
        self.ended(f"load {path}", answer, lambda: self.model.load(moves))

    @precondition(lambda self: self.model.in_play())
    @rule(deal=DEALS)
    def leave_and_resume_in_a_new_shell(self, deal):
        self.session = self.new_shell(deal)
        said = self.say("resume")
        assert said.startswith("resumed game @"), said
        assert self.asked == []  # the new shell's game was not in play: nothing to ask

    # --- what must hold after each step ---------------------------------------------------

    @invariant()
    def the_session_is_the_model(self):
        m = self.model
        transcript, said = self.saved()
        record = transcript.record
        assert (record.game, record.deal, record.rules) == (self.game, DealNumber(m.deal), m.rules)
        assert record.moves == m.moves
        # the position: the deal's opening replayed through the model's moves, as the session
        # has it (its legal moves), and every card of the deal in it
        position = m.position()
        assert transcript.final == position
        legal = self.game.legal_moves(position)
        assert self.say("moves") == ("legal: " + ", ".join(map(str, legal)) if legal else "no move is legal")
        assert Counter(cards_of(position)) == Counter(new_deck(self.game.decks))
        assert transcript.claimed in (None, self.game.outcome(position))
        # the player's moves as 'save' counts them (the status line's count)
        counted = sum(map(m.counts, m.moves))
        turned = len(m.moves) - counted
        count = f"{counted} move{'s' * (counted != 1)}"
        if turned:
            count += f" and {turned} card{'s' * (turned != 1)} turned up"
        assert said.startswith(f"saved {count} to "), (said, count)
        assert self.warnings == []


SessionMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                            suppress_health_check=[HealthCheck.too_slow])
TestSessionMachine = SessionMachine.TestCase
