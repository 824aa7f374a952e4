"""People's words in their language (musical_cli.i18n): the catalogs complete, their placeholders
those of the English, every message a person reads marked for them, the language from the
environment, and what programs read the same in every language."""

from __future__ import annotations

import ast
import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from musical_cli import i18n
from musical_cli.render import plural

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "musical_cli"
CATALOGS = sorted(i18n.LOCALE_DIR.glob("*/LC_MESSAGES/musical.mo"))
PLACEHOLDER = re.compile(r"(?<!\{)\{(\w*)[^{}]*\}")


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.use("en")


def _catalog(path: Path) -> dict[str | tuple[str, int], str]:
    with open(path, "rb") as f:
        return gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]


def test_there_is_a_russian_catalog():
    assert [p.parent.parent.name for p in CATALOGS] == ["ru"]


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.parent.name)
def test_every_message_is_translated_with_the_same_placeholders(path):
    catalog = _catalog(path)
    plurals: dict[str, list[str]] = {}
    for key, text in catalog.items():
        if key == "":
            continue  # the header
        msgid, form = (key, None) if isinstance(key, str) else key
        assert text.strip(), f"{msgid!r} has no translation"
        if form is not None:
            plurals.setdefault(msgid, []).append(text)
            continue
        original = msgid.split("\x04")[-1]  # a context before \x04
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(original)), (msgid, text)
    for msgid, forms in plurals.items():
        for text in forms:
            assert set(PLACEHOLDER.findall(text)) <= set(PLACEHOLDER.findall(msgid)) | {"n"}, (msgid, text)


@pytest.mark.skipif(shutil.which("msgfmt") is None or shutil.which("xgettext") is None,
                    reason="GNU gettext's tools are not installed (CI installs them)")
def test_the_catalogs_hold_every_marked_message_and_are_compiled():
    """bash .ci/catalogs check: every message the sources mark is translated, msgfmt --check
    passes (placeholders), and each .mo is compiled from its .po."""
    done = subprocess.run(["bash", str(ROOT / ".ci" / "catalogs"), "check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("environ", "wanted"), [
    ({"LANGUAGE": "ru:en", "LANG": "en_US.UTF-8"}, ["ru", "en"]),
    ({"LC_ALL": "ru_RU.UTF-8", "LANG": "en_US.UTF-8"}, ["ru_RU.UTF-8"]),
    ({"LC_MESSAGES": "ru_RU.UTF-8"}, ["ru_RU.UTF-8"]),
    ({"LANG": "ru_RU.UTF-8"}, ["ru_RU.UTF-8"]),
    ({"LANG": "C"}, []), ({"LC_ALL": "POSIX", "LANG": "ru_RU.UTF-8"}, []), ({"LANG": "C.UTF-8"}, []),
    ({}, []),
])
def test_the_language_comes_from_the_environment_as_gettext_reads_it(environ, wanted):
    assert i18n.languages(environ) == wanted


def test_russian_counts_take_three_forms_and_english_two():
    assert i18n.use("ru") == "ru"
    assert [plural(n, "move") for n in (1, 2, 5, 11, 21, 22, 25)] == [
        "1 ход", "2 хода", "5 ходов", "11 ходов", "21 ход", "22 хода", "25 ходов"]
    assert i18n.use("") in ("en", "ru")
    i18n.use("en")
    assert [plural(n, "move") for n in (1, 2, 5)] == ["1 move", "2 moves", "5 moves"]


def test_a_language_without_a_catalog_is_english_without_a_word():
    assert i18n.use("fr") == "en"
    assert i18n._("hint") == "hint" and plural(3, "card") == "3 cards"
    assert i18n.use("", {"LANG": "de_DE.UTF-8"}) == "en"


def _musical(*args: str, lang: str, text: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env["LANG"] = lang
    return subprocess.run([sys.executable, "-m", "musical_cli", *args], input=text, capture_output=True,
                          text=True, env=env, encoding="utf-8")


def test_a_transcript_is_the_same_in_every_language_and_verifies_in_the_other():
    russian = _musical("solve", "--seed", "7", lang="ru_RU.UTF-8")
    english = _musical("solve", "--seed", "7", lang="en_US.UTF-8")
    assert russian.returncode == english.returncode == 0, russian.stderr
    assert russian.stdout == english.stdout  # byte for byte
    assert _musical("verify", "-", lang="en_US.UTF-8", text=russian.stdout).returncode == 0
    assert _musical("verify", "-", lang="ru_RU.UTF-8", text=english.stdout).returncode == 0


def test_a_game_saved_in_russian_replays_in_english(tmp_path):
    path = tmp_path / "game.txt"
    saved = _musical("--seed", "3", "--game", "calculation", lang="ru_RU.UTF-8", text=f"d\nw p1\nsave {path}\n")
    assert path.is_file(), saved.stdout + saved.stderr
    again = tmp_path / "again.txt"
    _musical("--seed", "3", "--game", "calculation", lang="en_US.UTF-8", text=f"d\nw p1\nsave {again}\n")
    assert path.read_bytes() == again.read_bytes()
    replayed = _musical("verify", str(path), lang="en_US.UTF-8")
    assert replayed.returncode == 1 and "legal, not won" in replayed.stdout


def test_russian_reaches_the_player():
    said = _musical("--seed", "1", lang="ru_RU.UTF-8", text="d\nw f9\n")
    assert re.search("[а-яё]", said.stderr + said.stdout, re.I), said.stderr + said.stdout
    assert said.returncode == 3


def test_json_is_the_same_in_every_language():
    russian = _musical("deal", "5", "--json", lang="ru_RU.UTF-8")
    english = _musical("deal", "5", "--json", lang="en_US.UTF-8")
    assert russian.returncode == 0 and russian.stdout == english.stdout


# --- every message a person reads is marked ------------------------------------------------------

# Calls whose first argument is words for a person: an exception's message, a reply's line, a
# line printed or written to standard error.
FOR_PEOPLE = {"say", "CommandError", "Declined", "UsageError", "FileError", "RecordError", "NotAvailable",
              "RulesError", "TranscriptError", "NotationError", "StoreError", "SettingsError", "print", "write"}
# Modules whose words are for programs (or not for a person): notation, transcripts, JSON, SQL.
PROGRAM_TEXT = {"musical_cli/i18n.py", "musical_cli/cluster.py"}


def _words(node: ast.AST) -> str | None:
    """The letters of a literal string (or an f-string's literal parts), if it has any."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    else:
        return None
    return text if re.search(r"[A-Za-z]{2,}", text) else None


def unmarked() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name in PROGRAM_TEXT:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            given = []
            if called in FOR_PEOPLE and node.args:
                given.append(node.args[0])
            if called == "_refuse" and len(node.args) > 2:  # an illegal move's reason
                given.append(node.args[2])
            # --help's words: an option's help, a parser's description and epilog
            given += [k.value for k in node.keywords if k.arg in ("help", "description", "epilog")]
            for first in given:
                if isinstance(first, ast.BinOp):  # "..." + "..."
                    first = first.left
                words = _words(first)
                if words is not None:
                    found.append(f"{name}:{node.lineno}: {words[:60]!r}")
    return found


def test_every_message_for_a_person_is_marked_for_translation():
    """A literal string given straight to a reply, an error or a print is a message nobody can
    translate: it must go through _() (or ngettext), whose result is what is given."""
    left = unmarked()
    assert not left, f"{len(left)} messages not marked for translation:\n" + "\n".join(left[:40])
