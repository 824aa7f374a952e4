"""The words people read, in their language: gettext catalogs for the package's domain.

Every message a person reads goes through :func:`_` (or :func:`ngettext` for counts, whose
forms differ by language: Russian has three; :func:`pgettext` where one English word means two
things). What programs read never does: the move notation, transcripts, JSON, results files and
exit statuses are the same in every language, so that a game saved under one replays under
another byte for byte.

The language is chosen as gettext chooses it, from LANGUAGE, LC_ALL, LC_MESSAGES and LANG (the
first one set), unless the settings file names one; the C and POSIX locales, and a language with
no catalog, give English without a word. The catalogs are compiled (``.mo``) inside the package,
under ``locale/LANG/LC_MESSAGES/``, so that an install needs no tool to read them; their sources
(``.po``) lie beside them, and docs/development.md says how to extract and compile them.
"""

from __future__ import annotations

import gettext as _gettext
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

DOMAIN = "musical"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_translation: _gettext.NullTranslations = _gettext.NullTranslations()
_language = "en"


def languages(environ: Mapping[str, str] | None = None) -> list[str]:
    """The languages the environment asks for, in order, as gettext reads them: the first of
    LANGUAGE (a colon-separated list), LC_ALL, LC_MESSAGES and LANG that is set; none for the C
    and POSIX locales."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            asked = [part for part in value.split(":") if part]
            out = []
            for language in asked:
                if language.split(".")[0] in ("C", "POSIX"):
                    break
                out.append(language)
            return out
    return []


def use(language: str = "", environ: Mapping[str, str] | None = None) -> str:
    """Show the messages in ``language`` ("ru"), or in the environment's when it is ""; the
    language in use is returned ("en" when no catalog serves: English needs none)."""
    global _translation, _language
    wanted = [language] if language else languages(environ)
    _translation = _gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=wanted or ["en"],
                                        fallback=True)
    _speak_to_argparse()
    _language = _translation.info().get("language", "en") or "en"
    return _language


def language() -> str:
    """The language the messages are shown in: "en", or one with a catalog ("ru")."""
    return _language


@contextmanager
def english() -> Iterator[None]:
    """Messages in English within it: for the words that go where programs read them (a JSON
    field that names a variant, a transcript's comment), which are the same in every language.
    It is for the command line's subcommands, which run no other thread."""
    global _translation, _language
    saved = _translation, _language
    _translation, _language = _gettext.NullTranslations(), "en"
    try:
        yield
    finally:
        _translation, _language = saved


def _(message: str) -> str:
    """``message`` in the language in use."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count ``n`` in the language in use."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the language in use, where ``context`` tells apart two meanings of it."""
    return _translation.pgettext(context, message)


def joined(words: Sequence[str]) -> str:
    """Words joined by "and", as the language joins them: "a and b", "a and b and c"."""
    out = words[0] if words else ""
    for word in words[1:]:
        # TRANSLATORS: two words (file names, games' names as --game takes them) joined by "and"
        out = _("{some} and {other}").format(some=out, other=word)
    return out


def N_(message: str) -> str:  # noqa: N802  (the name gettext's tools look for)
    """Marks a message for the catalog where it is written, to be translated where it is shown
    (a table of words built at import time, before the language is chosen)."""
    return message


def _speak_to_argparse() -> None:
    """argparse's own words ("usage:", its errors) come from the same catalog."""
    import argparse

    argparse._ = _translation.gettext  # type: ignore[attr-defined]
    argparse.ngettext = _translation.ngettext  # type: ignore[attr-defined]
