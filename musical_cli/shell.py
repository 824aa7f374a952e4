"""The interactive shell: a thin prompt_toolkit loop over :mod:`musical_cli.commands`."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.output import Output
from prompt_toolkit.shortcuts import print_formatted_text
from prompt_toolkit.styles import Style

from . import files
from .commands import REGISTRY, Session, error_text, execute
from .render import STYLE, Fragments, line, status

PROMPT_STYLE = Style.from_dict({**STYLE, "prompt": "bold", "bottom-toolbar": "noreverse bg:#303030 #d0d0d0"})


class ShellCompleter(Completer):
    """Command names first; then what the command takes (foundations, 'play', file names)."""

    def __init__(self, session: Session):
        self.session = session
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor.rsplit(";", 1)[-1].lstrip()
        words = text.split()
        if not words or (len(words) == 1 and not text.endswith(" ")):
            prefix = words[0].lower() if words else ""
            for cmd in REGISTRY.values():
                for name in cmd.names:
                    if name.startswith(prefix) and name.isalpha():
                        yield Completion(name, -len(prefix), display_meta=cmd.summary)
            return
        cmd = REGISTRY.get(words[0].lower()) or next(
            (c for c in REGISTRY.values() if words[0].lower() in c.names), None)
        if cmd is None:
            return
        prefix = "" if text.endswith(" ") else words[-1]
        if cmd.arguments == "path":
            sub = Document(prefix, len(prefix))
            yield from self.paths.get_completions(sub, event)
            return
        options = cmd.arguments(self.session) if callable(cmd.arguments) else cmd.arguments
        for option in options:
            if option.startswith(prefix.lower()):
                yield Completion(option, -len(prefix))


def _history() -> History:
    try:
        directory = files.state_dir()
        directory.mkdir(parents=True, exist_ok=True)
        return FileHistory(str(directory / "history"))
    except OSError:
        return InMemoryHistory()  # a read-only home must not stop play


class Shell:
    def __init__(self, session: Session, input=None, output: Output | None = None,
                 history: History | None = None, recorder=None):
        self.session = session
        self.recorder = recorder  # musical_cli.record.Recorder: the player's record, or None
        if not session.interactive:
            # A session handed to the shell is played interactively (advice, automatic turn-up).
            session.interactive = True
            if not session.moves:
                session.start(session.game, session.deal, session.rules)
        self.prompt = PromptSession(
            message=[("class:prompt", "musical> ")],
            completer=ShellCompleter(session),
            complete_while_typing=False,
            bottom_toolbar=self.toolbar,
            history=history if history is not None else _history(),
            style=PROMPT_STYLE,
            input=input,
            output=output,
        )
        self.output = self.prompt.output
        session.progress = self.progress
        self._last_progress = 0.0
        if recorder is not None:
            recorder.attach(session, lambda text: self.print(line(text, "bad")))

    def toolbar(self) -> FormattedText:
        s = self.session
        return FormattedText([("", " " + status(s.game, s.state, s.deal.text, len(s.moves))
                               + " · 'help' lists the commands ")])

    def print(self, fragments: Fragments) -> None:
        print_formatted_text(FormattedText(fragments), style=PROMPT_STYLE, output=self.output, end="")

    def progress(self, nodes: int, seconds: float) -> None:
        now = time.monotonic()
        if now - self._last_progress < 0.5:
            return
        self._last_progress = now
        self.output.write_raw(f"\rsearching: {nodes:,} positions, {seconds:.1f} s (Ctrl-C stops) ")
        self.output.flush()

    def _end_progress(self) -> None:
        if self._last_progress:
            self.output.write_raw("\r")
            self.output.erase_end_of_line()
            self.output.flush()
            self._last_progress = 0.0

    def run(self) -> int:
        try:
            return self._run()
        finally:
            if self.recorder is not None:
                self.recorder.close()

    def _run(self) -> int:
        s = self.session
        self.print(line(f"{s.game.title}, deal {s.deal}. Type 'help' for the commands, 'quit' to leave.", "dim"))
        if self.recorder is not None:
            for text, style in self.recorder.opening_lines():
                self.print(line(text, style))
        self.print(s.layout())
        while True:
            try:
                text = self.prompt.prompt()
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line, as in every shell
            except EOFError:
                break
            try:
                reply = execute(s, text)
            except KeyboardInterrupt:
                self._end_progress()
                self.print(line("cancelled", "bad"))
                continue
            except ValueError as e:
                self._end_progress()
                self.print(line(error_text(e, s.ascii), "error"))
                continue
            except Exception as e:  # a bug must not cost the player the game in hand
                self._end_progress()
                self.print(line(f"internal error: {type(e).__name__}: {e} (please report it); "
                                "the game goes on", "error"))
                continue
            self._end_progress()
            self.print(reply.out)
            if reply.show:
                self.print(s.layout())
            if reply.quit:
                break
        return 0


def history_path() -> Path:
    return files.state_dir() / "history"
