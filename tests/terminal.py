"""The real program in a pseudo-terminal, for the tests that drive it through pexpect: the child's
environment, one way to start it (at 80x24, the size the program promises to fit), a
:class:`Terminal` that answers prompt_toolkit's cursor-position requests as a real terminal
does, and the screen reader (:func:`screen_lines`, :func:`screen_text`) that turns what the
child wrote into the lines a person would see.

The ``terminal`` fixture (tests/conftest.py) starts ``musical ARGS`` in a Terminal and closes
every child it started when the test ends.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Mapping

import pytest

pexpect = pytest.importorskip("pexpect")

ROWS, COLUMNS = 24, 80
PROMPT = "musical>"
MORE = "space for more"  # the pager's question
MORE_RU = "q — хватит --"  # the pager's question in Russian (its end)
TIMEOUT = 15  # seconds for one expected output; the searches asserted on are limited in nodes
CPR_REQUEST = "\x1b[6n"
LINE_READ = "\x1b[?2004l"  # prompt_toolkit turns bracketed paste off once the line is read
# Escape sequences (CSI and the like), then what is left is text and line ends.
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x07")
SGR = re.compile(r"\x1b\[([0-9;]*)m")
# What a child inherits and must not: debugging output, a colour, pager or record choice of the
# machine (a test that wants one sets it).
UNSET = ("MUSICAL_DEBUG", "NO_COLOR", "PROMPT_TOOLKIT_COLOR_DEPTH", "PAGER", "MUSICAL_NO_RECORD")


def sigint_default() -> None:
    """A pexpect child's preexec_fn: SIGINT's default. A test run started in the background by a
    shell without job control (`pytest &`) inherits SIGINT ignored, and an ignored signal stays
    ignored across exec: the ^C a test sends would be lost, as it once was."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def child_env(home=None, keep: tuple[str, ...] = (), **extra: str) -> dict[str, str]:
    """This process's environment for a child, without :data:`UNSET` (but ``keep``), on an xterm;
    with ``home`` (a directory), HOME and the XDG directories under it, so that the child reads
    and writes no file of the machine's user; then ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET or k in keep}
    env["TERM"] = "xterm"
    if home is not None:
        env.update(HOME=str(home / "home"), XDG_STATE_HOME=str(home / "state"), XDG_DATA_HOME=str(home / "data"),
                   XDG_CONFIG_HOME=str(home / "config"))
    env.update(extra)
    return env


def spawn(*args: str, env: Mapping[str, str] | None = None, stdout: os.PathLike | str | None = None,
          stderr: str | None = None, timeout: float = TIMEOUT, size: tuple[int, int] = (ROWS, COLUMNS),
          python: tuple[str, ...] = ("-m", "musical_cli")) -> pexpect.spawn:
    """``musical ARGS`` (``python`` -m musical_cli, or other arguments to Python) on a pseudo-terminal
    of ``size`` (rows, columns), with SIGINT at its default. ``stdout``: a file for standard output
    instead of the terminal; ``stderr``: a shell redirection of standard error ("/dev/null")."""
    env = dict(child_env() if env is None else env)
    if stdout is None and stderr is None:
        return pexpect.spawn(sys.executable, [*python, *args], env=env, encoding="utf-8", dimensions=size,
                             timeout=timeout, preexec_fn=sigint_default)
    words = " ".join([f'"{sys.executable}"', *python, *args])
    redirect = (f' > "{stdout}"' if stdout is not None else "") + (f" 2>{stderr}" if stderr is not None else "")
    return pexpect.spawn("/bin/sh", ["-c", f"exec {words}{redirect}"], env=env, encoding="utf-8", dimensions=size,
                         timeout=timeout, preexec_fn=sigint_default)


class Terminal:
    """A child in a pseudo-terminal that answers prompt_toolkit's cursor-position requests
    (ESC[6n) as a real terminal does (the cursor on its last row). Unanswered, each prompt waits
    a second for the reply, and the bottom toolbar is never drawn. ``log`` holds everything the
    child wrote; ``seen`` what came before each pattern waited for by :meth:`until`."""

    def __init__(self, child: pexpect.spawn):
        self.child = child
        self.log = io.StringIO()
        child.logfile_read = self.log
        self.seen: list[str] = []
        self.rows = child.getwinsize()[0]

    def _answer(self) -> None:
        self.child.send(f"\x1b[{self.rows};1R")

    def expect(self, pattern, exact: bool = True) -> str:
        """Wait for ``pattern`` (a string, a regular expression with ``exact=False``, or
        pexpect.EOF); what came before it (since the previous match)."""
        seen = []
        while True:
            if pattern is pexpect.EOF:
                i = self.child.expect([pexpect.EOF, re.escape(CPR_REQUEST)])
            elif exact:
                i = self.child.expect_exact([pattern, CPR_REQUEST])
            else:
                i = self.child.expect([pattern, re.escape(CPR_REQUEST)])
            seen.append(self.child.before)
            if i == 0:
                return "".join(seen)
            self._answer()

    def until(self, *patterns: str) -> tuple[int, str]:
        """Wait for one of ``patterns`` (exact strings); which, and what came before it."""
        before = []
        while True:
            i = self.child.expect_exact([*patterns, CPR_REQUEST])
            before.append(self.child.before)
            if i < len(patterns):
                text = "".join(before)
                self.seen.append(text)
                return i, text
            self._answer()

    def sendline(self, text: str) -> None:
        self.child.sendline(text)

    def run(self, command: str) -> str:
        """Type ``command`` at the prompt; what it printed up to the next prompt, through the
        pager's pages (a space for each)."""
        self.child.send(command + "\r")
        self.until(LINE_READ)  # the line as typed is redrawn (with the prompt) before the answer
        out = []
        while True:
            i, text = self.until(PROMPT, MORE, MORE_RU)
            out.append(text)
            if i == 0:
                return "".join(out)
            self.child.send(" ")

    def finish(self) -> int:
        """Wait for the child to end; its exit status."""
        self.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.close(force=True)


def screen_lines(raw: str) -> list[str]:
    """The terminal lines of raw output: split at line ends, carriage returns and the cursor's
    moves back or erasures (the pager erases its question and writes over it), escapes dropped."""
    return re.split(r"\r\n|\n|\r", ESCAPE.sub("", re.sub(r"\x1b\[[0-9]*[DJG]", "\r", raw)))


def screen_text(raw: str) -> str:
    """The words of raw output, escapes dropped and every run of blanks and line ends one space:
    text the shell wrapped between words at the terminal's width, read as one line."""
    return " ".join(ESCAPE.sub("", raw).split())


def colour_codes(raw: str) -> set[str]:
    """The colour parameters of every SGR escape sequence (bold, reset and the like left out)."""
    found = set()
    for params in SGR.findall(raw):
        parts = params.split(";")
        i = 0
        while i < len(parts):
            p = parts[i]
            if p in ("38", "48"):
                found.add(";".join(parts[i:i + 3]))
                i += 3
                continue
            if p.isdigit() and (30 <= int(p) <= 37 or 40 <= int(p) <= 47 or 90 <= int(p) <= 107):
                found.add(p)
            i += 1
    return found
