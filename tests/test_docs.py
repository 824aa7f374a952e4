"""The pages under docs/ and the README against the code: the winnability tables hold every row
that bench/tables.py runs, with its command, and every ``musical`` command the pages show is one
the parser takes (so an option renamed or dropped cannot leave a page telling people to type it)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

from musical_cli import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _tables():
    """bench/tables.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("bench_tables", ROOT / "bench" / "tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLES = _tables()


@pytest.mark.parametrize("row", sorted(TABLES.ROWS))
def test_every_table_row_is_in_the_docs_with_its_command(row):
    """In docs/winnability.md, or in a page of its own game under docs/ (the solver pages)."""
    what, _ = TABLES.ROWS[row]
    shown = " ".join(shlex.quote(a) for a in TABLES.command(row))
    lines = [line for page in sorted(DOCS.glob("*.md")) for line in page.read_text(encoding="utf-8").splitlines()
             if line.startswith(f"| {what} |")]
    assert lines, f"no table row under docs/ for {what!r} (bench/tables.py row {row}); see docs/winnability.md"
    assert any(f"`{shown}`" in line for line in lines), f"the row for {what!r} must give its command `{shown}`"


def _commands(page: Path) -> list[str]:
    """The ``musical ...`` commands of a page: in code spans, and in shell blocks after ``$ ``
    or on a line of their own; each part of a pipeline or a ``;`` list is one command, cut at a
    redirection."""
    text = page.read_text(encoding="utf-8")
    found: list[str] = []
    blocks = re.findall(r"```(?:sh)?\n(.*?)```", text, flags=re.S)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    candidates = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]  # spans wrap
    for block in blocks:
        candidates += [line.removeprefix("$ ") for line in block.splitlines()]
    for candidate in candidates:
        for part in re.split(r"\s*(?:\||;|&&)\s*", candidate):
            part = re.split(r"\s+[<>]", part)[0].strip()
            if re.match(r"(?:\.venv/bin/)?musical(?:\s|$)", part):
                found.append(part)
    return found


PLACEHOLDERS = {"N", "A-B", "FILE", "DIR", "K", "SUBCOMMAND", "..."}  # `musical deal N`: a pattern
SHOWN = [(page.relative_to(ROOT).as_posix(), command) for page in PAGES for command in _commands(page)
         if not PLACEHOLDERS & set(shlex.split(command))]


def test_the_pages_show_commands():
    assert len(SHOWN) > 20, SHOWN  # the extraction works: the pages are full of commands


@pytest.mark.parametrize(("page", "command"), SHOWN)
def test_every_command_shown_is_one_the_parser_takes(page, command):
    words = shlex.split(command)[1:]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.build_parser().parse_args(words)
        except SystemExit as exc:
            assert exc.code == 0, f"{page} shows `{command}`, which musical refuses:\n{err.getvalue()}"
