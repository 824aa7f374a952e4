"""The interactive shell: a thin prompt_toolkit loop over :mod:`musical_cli.commands`."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.renderer import CPR_Support
from prompt_toolkit.shortcuts import print_formatted_text
from prompt_toolkit.styles import Style

from . import files, live
from .commands import commands_for
from .game import Outcome
from .i18n import _
from .language import Session, error_text, execute, lookup, move_sources, move_targets, said_before
from .render import STYLE, Fragments, fit, line, plural, search_progress, separator, status_parts, wrap
from .render import plain as plain_text

if TYPE_CHECKING:  # the record is opened once the prompt shows (SQLite is slow to start)
    from .live import DealKey
    from .record import Recorder

PROMPT = "musical> "  # the program's name: the same in every language
PROMPT_STYLE = Style.from_dict({**STYLE, "prompt": "bold", "bottom-toolbar": "noreverse bg:#303030 #d0d0d0"})


class ShellCompleter(Completer):
    """Command names, and the places a card can be moved from now (``q34``); then what the
    command takes (foundations, 'play', file names), or where that card can go now."""

    def __init__(self, session: Session):
        self.session = session
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor.rsplit(";", 1)[-1].lstrip()
        words = text.split()
        if not words or (len(words) == 1 and not text.endswith(" ")):
            prefix = words[0].lower() if words else ""
            for cmd in commands_for(self.session):
                for name in cmd.names:
                    if name.startswith(prefix) and name.isalpha():
                        yield Completion(name, -len(prefix), display_meta=cmd.summary_text)
            for source in move_sources(self.session):
                if source.startswith(prefix) and lookup(source) is None:
                    yield Completion(source, -len(prefix), display_meta=_("a card that can move now"))
            return
        found = lookup(words[0])
        if found is None:
            prefix = "" if text.endswith(" ") else words[-1].lower()
            if len(words) == 1 or (len(words) == 2 and prefix):
                for target in move_targets(self.session, words[0].lower()):
                    if target.startswith(prefix):
                        yield Completion(target, -len(prefix))
            return
        prefix = "" if text.endswith(" ") else words[-1]
        if found.arguments == "path":
            sub = Document(prefix, len(prefix))
            yield from self.paths.get_completions(sub, event)
            return
        options: Iterable[str]
        if found.completes is not None:  # what completes depends on the words before ('new --game')
            options = found.completes(self.session, words[1:len(words) - (1 if prefix else 0)])
        else:
            options = found.arguments(self.session) if callable(found.arguments) else found.arguments
        for option in options:
            if option.startswith(prefix.lower()):
                yield Completion(option, -len(prefix))


class _SessionSafeHistory(FileHistory):
    """A history file that a failure mid-session (a full disk, the file replaced by a
    directory) turns into a history for the session only, instead of a traceback after every
    command."""

    def load_history_strings(self) -> Iterable[str]:
        try:
            yield from list(super().load_history_strings())
        except OSError:
            return

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError:
            pass


def _history() -> tuple[History, str | None]:
    """The history file, checked up front (it can be created, written and read), or a history
    for the session only and one line saying why."""
    path = None
    try:
        directory = files.state_dir()
        path = directory / "history"
        directory.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
        with open(path, "rb") as f:
            f.read(1)
        return _SessionSafeHistory(str(path)), None
    except OSError as e:  # a read-only home, a directory in the file's place, no home at all
        why = (str(e) if path is None or isinstance(e, files.NoHomeError)
               # TRANSLATORS: {path}: the history file; {why}: the system's words (English).
               else _("cannot use {path}: {why}").format(path=path, why=e.strerror or e))
        # TRANSLATORS: {why}: why the file of the commands typed cannot be used.
        return InMemoryHistory(), _("The history is kept for this session only: {why}.").format(why=why)


YES = ("y", "yes", "д", "да")  # the answers that say yes, whatever the language of the messages
CLOCK_TICK = 1.0  # seconds between two drawings of the toolbar, whose clock shows seconds
PLAIN_COACH_WAIT = 0.5  # seconds a dumb terminal's prompt waits for the coach's verdict


class Shell:
    """The prompt over a session; it is the session's front (musical_cli.commands.Front): it
    asks the player's questions, shows a search's progress and knows the terminal's width."""

    def __init__(self, session: Session, input: Input | TextIO | None = None, output: Output | TextIO | None = None,
                 history: History | None = None, plain: bool = False, recorder: Recorder | None = None,
                 open_recorder: Callable[[], Recorder] | None = None):
        self.session = session
        self.recorder = recorder  # the player's record, or None
        # A session handed to the shell is played interactively (advice, automatic turn-up).
        session.go_interactive()
        self.warning: str | None = None
        if history is None and not plain:
            history, self.warning = _history()
        # plain: a dumb terminal, where prompt_toolkit would still send escape sequences; lines
        # are read as the terminal delivers them (its own line editing) and printed as plain text.
        self.plain = plain
        # plain mode reads and writes text files (the terminal's own line editing); otherwise
        # prompt_toolkit's input and output
        self._plain_in: TextIO = input if input is not None and not isinstance(input, Input) else sys.stdin
        self._plain_out: TextIO = output if output is not None and not isinstance(output, Output) else sys.stdout
        self.prompt: PromptSession | None = None
        self.pasted: list[str] = []  # whole lines of a paste, still to run
        self.pasted_tail = ""  # what followed a paste's last line break: the next line to edit
        self.paging: bool | None = None  # whether long answers page; None: on a terminal
        if not plain:
            self.prompt = PromptSession(
                key_bindings=self._paste_bindings(),
                message=[("class:prompt", PROMPT)],
                completer=ShellCompleter(session),
                complete_while_typing=False,
                bottom_toolbar=self.toolbar,
                refresh_interval=CLOCK_TICK,  # the clock in the toolbar ticks
                history=history,
                style=PROMPT_STYLE,
                input=input if isinstance(input, Input) else None,
                output=output if isinstance(output, Output) else None,
            )
            self.output = self.prompt.output
        session.front = self
        self.coach = live.Coach(session, self._redraw, self._announce)
        # each deal's rating, for the record only (never shown in play): found beside the game
        self.ratings: dict[DealKey, str] = {}
        self.running = False  # a command is running (the rater gives way)
        self.rater = live.Rater(self._rated, busy=lambda: self.running or self.coach.thinking())
        self._coached = None  # the position whose verdict a dumb terminal was last told
        self._last_progress = 0.0
        self._progress_width = 0  # of the progress line on the screen, which a shorter one covers
        if recorder is not None:
            self._attach(recorder)
        # open_recorder: made and attached once the first prompt is on the screen, rather than
        # before (opening SQLite is much of the time to the first prompt); no command can run
        # before, since it runs as the prompt's first drawing ends.
        self._open_recorder = open_recorder
        if open_recorder is not None and self.prompt is not None:
            self.prompt.app.after_render += self._record_from_now

    def _record_from_now(self, app: Application[Any]) -> None:
        opener, self._open_recorder = self._open_recorder, None
        if opener is None:
            return
        from prompt_toolkit.application import run_in_terminal

        self.recorder = opener()
        self._attach(self.recorder)
        said = self.recorder.opening_lines()  # why it cannot record, if it cannot
        if said:
            def tell() -> None:
                for text, style in said:
                    self.print(line(text, style))

            run_in_terminal(tell)

    def _attach(self, recorder: Recorder) -> None:
        recorder.ratings.update(self.ratings)  # those found before the record was opened
        recorder.attach(self.session, lambda text: self.print(line(text, "bad")))

    def _rated(self, key: DealKey, rating: str) -> None:
        """From the rater's thread: a deal's rating, for the record."""
        self.ratings[key] = rating
        recorder = self.recorder
        if recorder is not None:
            recorder.rated(key, rating)

    def toolbar(self) -> FormattedText:
        """The status line, a pointer to help and the game's active time, shortened from its
        end to fit the terminal (a toolbar that wraps pushes the prompt up and cuts itself): the
        clock is shown where the width allows, after the status line whole, and in the room the
        pointer to help leaves or cannot use."""
        s = self.session
        coach = self.coach.status()
        parts = status_parts(s.game, s.state, s.deal.text, s.move_count, s.title)
        # The coach's verdict right after the deal: the toolbar is shortened from its end.
        parts = [parts[0], coach, *parts[1:]] if coach else parts
        # TRANSLATORS: in the bottom toolbar, after the status line: 'help' is the command as typed.
        pointer = [] if coach else [_("'help' lists the commands")]
        width, sep = self._columns() - 2, separator(s.ascii)
        text = fit(parts + pointer, width, sep)
        clock = self.clock()
        whole = sep.join(parts)
        if clock and text.startswith(whole):
            if len(text) + len(sep) + len(clock) <= width:
                text += sep + clock
            elif text == whole and len(whole) + len(sep) + len(clock) <= width:
                text = whole + sep + clock
        return FormattedText([("", " " + text + " ")])

    def clock(self) -> str:
        """The game's active time as the record counts it ("time 4:05"), stopped once the game
        is over; "" before the record is opened (the first prompt)."""
        recorder = self.recorder
        if recorder is None:
            return ""
        # TRANSLATORS: the bottom toolbar's clock: the game's active time ("time 4:05").
        return _("time {clock}").format(clock=recorder.active.text(going=self.session.outcome() is Outcome.IN_PLAY))

    def _said_before(self, error: BaseException, position) -> None:
        """Before the error of a command that failed: what the commands before it on its line
        said and, when they moved, the layout they led to (a game they won or lost is said so
        there), and the coach's search on it."""
        done = said_before(error)
        self.show(done.out)
        if done.show:  # moves whose layout is not yet in what was said
            self.print(self.session.layout())
        if self.session.state is not position:
            self._beside()

    def _beside(self) -> None:
        """After a command: the coach's search on the position in hand, and the deal's rating
        for the record (none without a record: it would be of no use)."""
        self.coach.update()
        self._coach_line()
        recorder = self.recorder
        if (recorder is not None and recorder.store is not None) or (recorder is None and self._open_recorder):
            self.rater.update(self.session)

    def _toolbar_drawn(self) -> bool:
        """Whether the prompt draws its bottom toolbar: not on a terminal that does not answer
        the cursor-position request, where prompt_toolkit cannot tell the rows below the prompt
        and draws none."""
        if self.prompt is None:
            return False
        return self.prompt.app.renderer.cpr_support is not CPR_Support.NOT_SUPPORTED

    def _coach_line(self) -> None:
        """A dumb terminal, or one that does not answer the cursor-position request, has no
        status line: there the coach's verdict is a line of its own before the prompt, when the
        position changed. Most verdicts take milliseconds; one not
        ready within PLAIN_COACH_WAIT seconds is said to be coming, and 'coach' shows it."""
        if not self.session.coach:
            self._coached = None  # 'coach on' again tells the verdict again, even here
            return
        if (not self.plain and self._toolbar_drawn()) or self.coach.position is self._coached:
            return
        self._coached = self.coach.position
        deadline = time.monotonic() + PLAIN_COACH_WAIT
        while self.coach.thinking() and time.monotonic() < deadline:
            self.coach.wait(0.02)
        text = self.coach.status()
        if self.coach.thinking():
            # TRANSLATORS: after the coach's "coach: thinking...": 'coach' is the command as typed.
            text += _(" ('coach' shows the verdict when it is ready)")
        self.print(line(text, "hint"))

    def _redraw(self) -> None:
        """From the coach's thread: its verdict is ready."""
        if self.prompt is not None:
            self.prompt.app.invalidate()

    def _announce(self, text: str) -> None:
        """From the coach's thread: one line above the prompt (or after the command running)."""
        live.announce(self, line(text, "bad"))

    def print(self, fragments: Fragments) -> None:
        """Print, each line wrapped between words to the terminal's width."""
        fragments = wrap(fragments, self._columns())
        if self.plain:
            self._plain_out.write(plain_text(fragments))
            self._plain_out.flush()
            return
        print_formatted_text(FormattedText(fragments), style=PROMPT_STYLE, output=self.output, end="")

    def show(self, fragments: Fragments) -> None:
        """Print a command's answer; on a terminal, one longer than the screen (less a line for
        the question) a screenful at a time: space for the next, Enter for one more line, q to
        stop. Never in plain mode (a dumb terminal scrolls back itself); batch mode never
        comes here."""
        rows = self._rows()
        lines = _lines(wrap(fragments, self._columns()))
        if not self.pages() or len(lines) < rows:
            self.print(fragments)
            return
        shown = rows - 1
        self.print([f for text in lines[:shown] for f in text])
        while shown < len(lines):
            more = self.more(len(lines) - shown)
            if not more:
                break
            step = rows - 1 if more == "page" else 1
            self.print([f for text in lines[shown:shown + step] for f in text])
            shown += step

    def pages(self) -> bool:
        """Whether long answers page: on a terminal (prompt_toolkit's output is one), not in
        plain mode; ``paging`` decides when set (tests)."""
        if self.paging is not None:
            return self.paging
        if self.prompt is None:
            return False
        try:
            return os.isatty(self.output.fileno())
        except (OSError, ValueError, NotImplementedError):
            return False  # an output with no file (prompt_toolkit's DummyOutput)

    def more(self, left: int) -> str:
        """Ask whether to go on: "page" (space), "line" (Enter) or "" (q, Escape, Ctrl-C,
        Ctrl-D). The question is erased when answered."""
        bindings = KeyBindings()

        def answer(value: str):
            return lambda event: event.app.exit(result=value)

        for key in (" ", "f", "c-v"):
            bindings.add(key)(answer("page"))
        for key in ("enter", "j", "down"):
            bindings.add(key)(answer("line"))
        for key in ("q", "Q", "й", "Й", "escape", "c-c", "c-d"):  # (й: q on a Russian keyboard)
            bindings.add(key)(answer(""))
        bindings.add("<any>")(lambda event: None)
        # TRANSLATORS: the pager's question under a screenful: {lines} is "12 more lines"; the keys
        # are space (a screenful more), Enter (one line more) and q (stop; й too).
        question = _("-- {lines}: space for more, Enter for a line, q to stop --").format(
            lines=plural(left, "more line"))
        app: Application = Application(
            layout=Layout(Window(FormattedTextControl([("class:dim", question[: self._columns() - 1])]), height=1)),
            key_bindings=bindings, style=PROMPT_STYLE, erase_when_done=True, full_screen=False,
            input=self.prompt.input if self.prompt is not None else None, output=self.output)
        try:
            return app.run() or ""
        except (EOFError, KeyboardInterrupt):
            return ""

    def _paste_bindings(self) -> KeyBindings:
        """A paste of several lines (which a modern terminal brackets, and prompt_toolkit would
        insert into the one line being edited) runs line by line, as when each was typed; what
        follows its last line break is left to edit, as a shell does."""
        bindings = KeyBindings()

        @bindings.add(Keys.BracketedPaste)
        def _paste(event) -> None:
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            buffer = event.current_buffer
            if "\n" not in data:
                buffer.insert_text(data)
                return
            lines = data.split("\n")
            buffer.insert_text(lines[0])
            self.pasted = [text for text in lines[1:-1] if text.strip()]
            self.pasted_tail = lines[-1]
            buffer.validate_and_handle()

        return bindings

    def _drop_paste(self) -> None:
        left = len(self.pasted) + bool(self.pasted_tail.strip())
        if left:
            # TRANSLATORS: {lines}: the lines of a paste left unrun after a failing one ("3 lines").
            self.print(line(_("the rest of the paste was not run ({lines})").format(lines=plural(left, "line")),
                            "bad"))
        self.pasted = []
        self.pasted_tail = ""

    def _size(self) -> tuple[int, int]:
        """The terminal's columns and rows (80 by 24 when it cannot say)."""
        try:
            if self.prompt is not None:
                size = self.output.get_size()
                return size.columns or 80, size.rows or 24
            terminal = shutil.get_terminal_size()
            return terminal.columns, terminal.lines
        except (OSError, ValueError):
            return 80, 24

    def _columns(self) -> int:
        return self._size()[0]

    # --- the session's front (musical_cli.commands.Front) ----------------------------------------
    @property
    def columns(self) -> int:
        """Long lines of moves wrap between moves at the terminal's width."""
        return self._columns()

    @property
    def search_progress(self) -> Callable[[int, float], None] | None:
        return None if self.plain else self.progress

    @property
    def text_progress(self) -> Callable[[str], None] | None:
        return None if self.plain else self.progress_text

    def ask(self, question: str) -> bool:
        return self.confirm(question)

    def coach_status(self) -> str:
        return self.coach.status()

    @property
    def app(self) -> Application[Any] | None:
        """The prompt's application, where prompt_toolkit draws one (live.announce)."""
        return None if self.prompt is None else self.prompt.app

    def _rows(self) -> int:
        return self._size()[1]

    def read(self) -> str:
        """The next line typed (KeyboardInterrupt on Ctrl-C, EOFError at the end)."""
        if self.pasted:
            text = self.pasted.pop(0)
            self.print([("class:prompt", PROMPT), ("", text + "\n")])
            return text
        if self.prompt is not None:
            tail, self.pasted_tail = self.pasted_tail, ""
            return self.prompt.prompt(default=tail)
        self._plain_out.write(PROMPT)
        self._plain_out.flush()
        try:
            text = self._plain_in.readline()
        except KeyboardInterrupt:
            self._plain_out.write("\n")
            raise
        if not text:
            self._plain_out.write("\n")
            raise EOFError
        return text.rstrip("\r\n")

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question; only 'y' or 'yes' is yes, or the Russian 'д' or 'да' (Enter, Ctrl-C,
        Ctrl-D: no): the answer typed in the keyboard's own language is understood. What
        comes before the question's last sentence is printed first, wrapped to the width, so
        that the prompt itself stays short."""
        explanation, _stop, question = question.rstrip().rpartition(". ")
        question += " "
        if explanation:
            self.print(line(explanation + ".", "bad"))
        answer: str
        try:
            if self.prompt is not None:
                answer = PromptSession(message=[("class:prompt", question)], style=PROMPT_STYLE,
                                       input=self.prompt.input, output=self.output).prompt()
            else:
                self._plain_out.write(question)
                self._plain_out.flush()
                answer = self._plain_in.readline()
        except (KeyboardInterrupt, EOFError):
            return False
        return answer.strip().lower() in YES

    def farewell(self) -> None:
        """Leaving with a game in play: where it waits (or that it is not kept)."""
        s = self.session
        if not s.in_play():
            return
        recorder = self.recorder
        if recorder is not None and recorder.store is not None and recorder.game_id is not None:
            # TRANSLATORS: said on leaving the shell; 'musical --resume' is a command as typed.
            self.print(line(_("Deal {deal} is in play: 'musical --resume' goes on with it.").format(deal=s.deal),
                            "hint"))
        else:
            # TRANSLATORS: said on leaving the shell; 'save' and 'quit' are commands as typed.
            self.print(line(_("Deal {deal} was not recorded: it ends here ('save' before 'quit' keeps a game "
                              "as a file).").format(deal=s.deal), "bad"))

    def progress(self, nodes: int, seconds: float) -> None:
        self.progress_text(search_progress(nodes, seconds))

    def progress_text(self, text: str) -> None:
        """``text`` in place of the last progress line, twice a second at most."""
        now = time.monotonic()
        if now - self._last_progress < 0.5:
            return
        self._last_progress = now
        self.output.write_raw("\r" + text.ljust(self._progress_width))
        self._progress_width = max(self._progress_width, len(text))
        self.output.flush()

    def _end_progress(self) -> None:
        if self._last_progress and not self.plain:
            self.output.write_raw("\r")
            self.output.erase_end_of_line()
            self.output.flush()
            self._last_progress = 0.0
            self._progress_width = 0

    def run(self) -> int:
        try:
            return self._run()
        finally:
            self.coach.cancel()
            self.rater.cancel()
            if self.recorder is not None:
                self.recorder.close()

    def _run(self) -> int:
        s = self.session
        if self.warning:
            self.print(line(self.warning, "bad"))
        # TRANSLATORS: the shell's first line: {title} is the game's name ("Musical with 1 redeal"), {deal}
        # its deal number; 'help' and 'quit' are commands as typed.
        self.print(line(_("{title}, deal {deal}. Type 'help' for the commands, 'quit' to leave.").format(
            title=s.title, deal=s.deal), "dim"))
        if self.recorder is not None:
            for text, style in self.recorder.opening_lines():
                self.print(line(text, style))
        self.print(s.layout())
        self._beside()
        while True:
            try:
                text = self.read()
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line, as in every shell
            except EOFError:
                self.farewell()
                break
            self.running = True
            position = s.state
            try:
                reply = execute(s, text)
            except KeyboardInterrupt as e:
                self._end_progress()
                self._said_before(e, position)
                # TRANSLATORS: a command stopped by Ctrl-C.
                self.print(line(_("cancelled"), "bad"))
                self._drop_paste()
                continue
            except ValueError as e:
                self._end_progress()
                self._said_before(e, position)
                self.print(line(error_text(e, s.ascii), "error"))
                self._drop_paste()  # the pasted moves after a failing one were meant for another position
                continue
            except Exception as e:  # a bug must not cost the player the game in hand
                self._end_progress()
                self._said_before(e, position)
                # TRANSLATORS: {error} is the program's own words (English): "KeyError: 'x'".
                self.print(line(_("internal error: {error} (please report it); the game goes on").format(
                    error=f"{type(e).__name__}: {e}"), "error"))
                self._drop_paste()
                continue
            finally:
                self.running = False
            self._end_progress()
            self.show(reply.out)
            if reply.show:
                self.print(s.layout())
            self._beside()
            if reply.quit:
                self.farewell()
                break
        return 0


def _lines(fragments: Fragments) -> list[Fragments]:
    """Fragments as screen lines, each ending in its line feed."""
    out: list[Fragments] = [[]]
    for style, text in fragments:
        for piece in text.splitlines(keepends=True):
            out[-1].append((style, piece))
            if piece.endswith("\n"):
                out.append([])
    return [text for text in out if text]


def history_path() -> Path:
    return files.state_dir() / "history"
