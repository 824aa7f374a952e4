"""The player's settings, kept between runs: ``$XDG_CONFIG_HOME/musical/config.toml``.

The file is TOML. It is written on the shell's first start with every setting present and
commented out at its default, each with a comment saying what it does and the values it takes;
a player removes a ``#`` to change one. Its keys come from the declarations: the general ones
from :data:`KEYS`, the rule options from the game registry (a table ``[rules.GAME]`` per game,
its keys the names of the game's :class:`~musical_cli.game.RuleOption`, as in transcripts).

A damaged file never stops a game: each thing wrong costs one line that names the file and the
key, and what would be right, and that setting keeps its default while the rest of the file
applies. Where there is no home, or the disk is read-only, the defaults apply without a word:
no setting of the player's is lost, since there can be no file.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from .files import NoHomeError, atomic_write, config_dir, home, read_limited
from .game import Game, RuleOption, RulesError
from .games import DEFAULT_GAME, GAMES, game_named
from .i18n import N_, _

if sys.version_info >= (3, 11):
    import tomllib
else:  # the standard library's tomllib is tomli, taken in at 3.11
    import tomli as tomllib

FILE_NAME = "config.toml"
# A settings file is a few hundred bytes; past this it is something else (and is not read whole).
MAX_BYTES = 64 * 1024
# Lines of bad TOML left out one by one before the file counts as not TOML at all.
MAX_BAD_LINES = 10

Color = Literal["auto", "on", "off"]
COLORS: tuple[Color, ...] = ("auto", "on", "off")
# The languages the messages can be shown in, besides "" (the environment's).
LANGUAGES = ("en", "ru")


@dataclass(frozen=True)
class Settings:
    """What ``musical`` starts the shell with, when the command line does not say."""

    game: str = DEFAULT_GAME.name  # the registry's name, never an alias
    coach: bool = False
    auto: bool = False  # safe moves play themselves
    ascii: bool = False
    color: Color = "auto"
    language: str = ""  # "" takes it from the environment
    # Per game, the rule options the file sets, as text (Game.rules_from_options takes them).
    rules: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: MappingProxyType({}))
    # The file they were read from, as shown to the player ("~/.config/..."); "" for none.
    source: str = ""

    def options_for(self, game: Game) -> dict[str, str]:
        """The rule options the file sets for ``game``, as text."""
        return dict(self.rules.get(game.name, {}))


class _Wrong(ValueError):
    """A value a key cannot take; the text says what it can."""


@dataclass(frozen=True)
class _Key:
    name: str
    # The file's comment, what it does: marked for the catalog, translated when it is written;
    # {games} and {aliases} stand for the games' names.
    help: str
    values: Callable[[], str]  # what it takes, in TOML: 'true or false', in the language in use
    default: bool | str
    check: Callable[[object], bool | str]  # the value, or _Wrong


def _true_or_false() -> str:
    # TRANSLATORS: true and false are TOML's words, the same in every language
    return _("true or false")


def _want(values: str) -> _Wrong:
    # TRANSLATORS: a value of the settings file is wrong; {values} are the ones it could be
    return _Wrong(_("want {values}").format(values=values))


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise _want(_true_or_false())
    return value


def _quoted(words: tuple[str, ...] | list[str], last: str = "or") -> str:
    """Values as TOML writes them, in a list that ends with "or" (``last`` "and": with "and")."""
    shown = [json.dumps(w) for w in words]
    if len(shown) == 1:
        return shown[0]
    some = ", ".join(shown[:-1])
    if last == "and":
        # TRANSLATORS: the end of a list of values: '"musical", "calculation" and "crazy-quilt"'
        return _("{some} and {last}").format(some=some, last=shown[-1])
    # TRANSLATORS: the end of a list of values: '"auto", "on" or "off"'
    return _("{some} or {last}").format(some=some, last=shown[-1])


def _game(value: object) -> str:
    try:
        if isinstance(value, str):
            return game_named(value).name
    except KeyError:
        pass
    raise _want(_quoted(list(GAMES)))


def _color(value: object) -> str:
    if value not in COLORS:
        raise _want(_quoted(COLORS))
    return str(value)


def _language(value: object) -> str:
    if value != "" and value not in LANGUAGES:
        raise _want(_quoted(("", *LANGUAGES)))
    return str(value)


def _aliases() -> str:
    return _quoted([a for g in GAMES.values() for a in g.aliases], "and")


KEYS: dict[str, _Key] = {k.name: k for k in (
    _Key("game", N_("The game 'musical' starts with, as --game: {games} (or their other names: {aliases})."),
         lambda: _quoted(list(GAMES)), DEFAULT_GAME.name, _game),
    _Key("coach", N_("The live coach, as --coach or the shell's 'coach on': the status line says "
                     "whether the game can still be won. true or false."),
         _true_or_false, False, _boolean),
    _Key("auto", N_("Safe moves play themselves: after each move of yours, the moves 'auto' would "
                    "play. true or false."),
         _true_or_false, False, _boolean),
    _Key("ascii", N_("Letters (AC, TD) instead of suit symbols, as --ascii: true or false. An ASCII "
                     "locale (LC_ALL=C) gets letters in any case."),
         _true_or_false, False, _boolean),
    _Key("color", N_('Colour: "auto" on a terminal that takes it, unless NO_COLOR is set; "on" there '
                     'even when NO_COLOR is set; "off" none. A pipe, and TERM=dumb, never get colour.'),
         lambda: _quoted(COLORS), "auto", _color),
    _Key("language", N_('The language of the messages: "" takes it from the environment (LANGUAGE, '
                        'LC_ALL, LC_MESSAGES, LANG); "en" English, "ru" Russian.'),
         lambda: _quoted(("", *LANGUAGES)), "", _language),
)}


def _key_help(key: _Key) -> str:
    """A key's comment in the file, in the language in use."""
    return _(key.help).format(games=_quoted(list(GAMES)), aliases=_aliases())



# --- rule options: their TOML form --------------------------------------------------------------


def _kind(option: RuleOption) -> type:
    """The TOML type an option's value is written as: a yes/no option is a boolean, a number an
    integer, anything else ("unlimited") a string."""
    if option.default.lower() in ("yes", "no"):
        return bool
    return int if option.default.isascii() and option.default.isdigit() else str


def _option_toml(option: RuleOption, text: str) -> str:
    kind = _kind(option)
    if kind is bool:
        return "true" if text.lower() == "yes" else "false"
    if kind is int and text.isascii() and text.isdigit():
        return text
    return json.dumps(text, ensure_ascii=False)


def _option_text(option: RuleOption, value: object) -> str:
    """A value of the file as the option's text; _Wrong when it is not of the option's type (a
    number may be written as a string, as the command line takes it: "2")."""
    if _kind(option) is bool:
        if isinstance(value, bool):
            return "yes" if value else "no"
        raise _want(_true_or_false())
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return str(value)
    # TRANSLATORS: {flag} is a rule option's flag ("--piles"), {help} what its value does
    raise _Wrong(_("want a value as {flag} takes: {help}").format(flag=option.option_flag, help=_(option.help)))


def _option_help(option: RuleOption) -> str:
    if option.metavar is None:  # a switch: its flag's help says what the flag's value does
        const = _option_toml(option, option.const or "yes")
        # TRANSLATORS: a rule option's comment in the settings file: "bases: true or false; false is
        # --no-bases: set out no A, 2, 3, 4; all 52 cards are dealt."
        return _("{name}: true or false; {value} is {flag}: {help}.").format(
            name=option.name, value=const, flag=option.option_flag, help=_(option.help))
    # TRANSLATORS: a rule option's comment in the settings file: "piles: as --piles: 4 waste piles (default), or 3."
    return _("{name}: as {flag}: {help}.").format(name=option.name, flag=option.option_flag, help=_(option.help))


def combine(game: Game, given: Mapping[str, str], preferred: Mapping[str, str]) -> tuple[Any, list[tuple[str, str]]]:
    """Rules from the options ``given`` (which must go together: RulesError), with each of the
    ``preferred`` ones not given added in the game's order where it goes with those before it;
    the rules, and the preferred options left out, each with why."""
    chosen = dict(given)
    rules = game.rules_from_options(chosen)
    left_out = []
    for option in game.options:
        if option.name in given or option.name not in preferred:
            continue
        trial = {**chosen, option.name: preferred[option.name]}
        try:
            rules = game.rules_from_options(trial)
        except RulesError as e:
            left_out.append((option.name, str(e)))
            continue
        chosen = trial
    return rules, left_out


# --- the file with its defaults ------------------------------------------------------------------


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, 78, initial_indent="# ", subsequent_indent="# ",
                         break_on_hyphens=False, break_long_words=False)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _bare(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def default_text() -> str:
    """The file as the first start writes it: every key at its default, commented out. Its
    comments are in the language in use, the player's (the keys and values are TOML's, the same
    in every language, so the file works under any)."""
    out = _comment(_("The settings of musical (patience: Musical, Calculation, Crazy Quilt). Every "
                     "setting is here at its default, commented out: remove its '#' to change it. "
                     "Words go in quotes, as the defaults show. An option given on the command "
                     "line wins over this file; batch mode (input "
                     "from a pipe or a file) and the subcommands read no settings. See musical(1), "
                     "SETTINGS."))
    for key in KEYS.values():
        out += ["", *_comment(_key_help(key)), f"# {key.name} = {_toml(key.default)}"]
    out += [""] + _comment(_("Each game's rule options, the words of its transcripts: used when that "
                             "game starts without the option's flag on the command line."))
    for game in GAMES.values():
        out += ["", f"[rules.{_bare(game.name)}]"]
        for option in game.options:
            out += [*_comment(_option_help(option)), f"# {option.name} = {_option_toml(option, option.default)}"]
    return "\n".join(out) + "\n"


# --- reading ------------------------------------------------------------------------------------


def settings_path() -> Path:
    """``$XDG_CONFIG_HOME/musical/config.toml``; NoHomeError when there is no home to put it in."""
    return config_dir() / FILE_NAME


def shown_path(path: Path) -> str:
    """The path as the player knows it: ``~/.config/musical/config.toml`` under the home."""
    base = home()
    if base is not None and base != Path(base.anchor):
        try:
            return str(Path("~") / path.relative_to(base))
        except ValueError:
            pass
    return str(path)


def _shown(value: object) -> str:
    """A value of the file, short, in TOML's words."""
    if isinstance(value, dict):
        # TRANSLATORS: a TOML table, where the settings file wants a value
        return _("a table")
    if isinstance(value, list):
        # TRANSLATORS: a TOML array, where the settings file wants a value
        return _("an array")
    text = _toml(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _close(word: str, known: list[str], prefix: str = "") -> str:
    match = difflib.get_close_matches(word, known, n=1)
    return _(" (did you mean {name}?)").format(name=prefix + match[0]) if match else ""



def _default_settings() -> str:
    # TRANSLATORS: the end of a line about the settings file when none of it is used
    return _("using the default settings")


def _loads(text: str, where: str, problems: list[str]) -> dict[str, Any]:
    """The document; a line that is not TOML is left out (and said), so the rest still counts.
    (TOML's own words, ``why``, come from tomllib, in English.)"""
    lines = text.split("\n")
    for _attempt in range(MAX_BAD_LINES):
        try:
            return tomllib.loads("\n".join(lines))
        except tomllib.TOMLDecodeError as e:
            message = str(e)
            why = re.sub(r" \(at (line \d+, column \d+|end of document)\)$", "", message)
            why = why[:1].lower() + why[1:]
            found = re.search(r"\(at line (\d+), column \d+\)$", message)
            n = int(found.group(1)) if found else 0
            if not 1 <= n <= len(lines) or not lines[n - 1].strip():
                break
            bad = lines[n - 1].strip()
            name, _equals, value = (part.strip() for part in bad.partition("="))
            key = KEYS.get(name)
            shown = bad if len(bad) <= 40 else bad[:37] + "..."
            if why.startswith("cannot overwrite a value"):
                wrong = _("{name} is set twice").format(name=name)
            elif not why.startswith("invalid value"):
                # TRANSLATORS: {why} is TOML's reason, in English: "invalid value"
                wrong = _("not TOML ({why})").format(why=why)
            elif key is not None:
                wrong = _("not TOML ({why}; {name} takes {values})").format(why=why, name=key.name,
                                                                          values=key.values())
            elif re.fullmatch(r"[A-Za-z][\w-]*", value):
                wrong = _("not TOML ({why}; a word goes in quotes: {line})").format(
                    why=why, line=f"{name} = {json.dumps(value)}")
            else:
                wrong = _("not TOML ({why})").format(why=why)
            # TRANSLATORS: {file} is the settings file, {line} the line's text, {wrong} what is wrong with it
            problems.append(_("{file}: line {n}: {line}: {wrong}; line ignored").format(
                file=where, n=n, line=shown, wrong=wrong))
            lines[n - 1] = ""
    else:
        why = _("too many lines that are not TOML")
    problems.append(_("{file}: not TOML ({why}); {default}").format(file=where, why=why,
                                                                   default=_default_settings()))
    return {}


def _read(path: Path, where: str, problems: list[str]) -> str | None:
    """The file's text; None when there is none, or it cannot be read (said in ``problems``)."""
    def cannot_read(e: OSError) -> str:
        # TRANSLATORS: {reason} is the system's, in English: "permission denied"
        return _("{file}: cannot read it ({reason}); {default}").format(
            file=where, reason=(e.strerror or str(e)).lower(), default=_default_settings())

    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        problems.append(cannot_read(e))
        return None
    if stat.S_ISDIR(mode):
        problems.append(_("{file}: a directory, not a settings file; {default}").format(
            file=where, default=_default_settings()))
        return None
    # a character device (/dev/null) reads as empty; a pipe or a socket would block the start
    if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
        problems.append(_("{file}: not a regular file; {default}").format(file=where, default=_default_settings()))
        return None
    try:
        data = read_limited(path, MAX_BYTES)
    except FileNotFoundError:
        return None
    except OSError as e:
        problems.append(cannot_read(e))
        return None
    if len(data) > MAX_BYTES:
        problems.append(_("{file}: over {size} KiB, too large for a settings file; {default}").format(
            file=where, size=MAX_BYTES // 1024, default=_default_settings()))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        # TRANSLATORS: {byte} is the position in the file of the first byte that is not UTF-8
        problems.append(_("{file}: not UTF-8 text (byte {byte}); {default}").format(
            file=where, byte=e.start + 1, default=_default_settings()))
        return None


def _rules_of(document: object, where: str, problems: list[str]) -> dict[str, Mapping[str, str]]:
    if not isinstance(document, dict):
        # TRANSLATORS: {value} is what the file gives ("a table", "3"), {table} a TOML table: "[rules.musical]"
        problems.append(_("{file}: rules = {value}: want a table per game, {table} ...; using the default rules")
                        .format(file=where, value=_shown(document), table=f"[rules.{DEFAULT_GAME.name}]"))
        return {}
    found: dict[str, Mapping[str, str]] = {}
    for name, table in document.items():
        path = f"rules.{_bare(name)}"
        game = GAMES.get(name)
        if game is None:
            try:
                # TRANSLATORS: {table} is a TOML table: "[rules.crazy-quilt]"
                hint = _(" (the table is {table})").format(table=f"[rules.{game_named(name).name}]")
            except KeyError:
                hint = _close(name, list(GAMES), "rules.")
            # TRANSLATORS: {key} is the table's name in the file ("rules.chess"), {name} the game it names
            problems.append(_("{file}: {key}: no game {name}{hint}; ignored").format(
                file=where, key=path, name=repr(name), hint=hint))
            continue
        if not isinstance(table, dict):
            # TRANSLATORS: {game} is a game's title ("Calculation"), {table} a TOML table: "[rules.calculation]"
            problems.append(_("{file}: {key} = {value}: want a table of {game}'s rule options, {table}; "
                              "using its default rules").format(file=where, key=path, value=_shown(table),
                                                                 game=_(game.title), table=f"[{path}]"))
            continue
        options: dict[str, str] = {}
        for key, value in table.items():
            option = game.option(key)
            if option is None:
                # TRANSLATORS: the rule options a game has, when it has none
                have = ", ".join(o.name for o in game.options) or _("none")
                problems.append(_("{file}: {key}: {game} has no rule option {name} (it has: {have}); ignored").format(
                    file=where, key=f"{path}.{_bare(key)}", game=_(game.title), name=repr(key), have=have))
                continue
            default = _using_default(_option_toml(option, option.default))
            try:
                options[key] = option.format(option.parse(_option_text(option, value)))
            except (_Wrong, RulesError) as e:
                # TRANSLATORS: {why} is what is wrong with the value, {default} is "using the default (4)"
                problems.append(_("{file}: {key} = {value}: {why}; {default}").format(
                    file=where, key=f"{path}.{_bare(key)}", value=_shown(value), why=e, default=default))
        combined, left_out = combine(game, {}, options)  # the defaults go together: this cannot raise
        for key, why in left_out:
            option = game.option(key)
            assert option is not None
            # TRANSLATORS: {table} is a TOML table ("[rules.crazy-quilt]"); {why} is why the option
            # does not go with the others; {default} is "using the default (no)"
            problems.append(_("{file}: {key} = {value}: not with the rest of {table} ({why}); {default}").format(
                file=where, key=f"{path}.{_bare(key)}", value=_option_toml(option, options.pop(key)),
                table=f"[{path}]", why=why, default=_using_default(_option_toml(option, option.default))))
        if options:
            found[name] = MappingProxyType(options)
    return found


def _using_default(value: str) -> str:
    # TRANSLATORS: {value} is a setting's default, as TOML writes it: "4", "false", "auto"
    return _("using the default ({value})").format(value=value)


def parse(text: str, where: str) -> tuple[Settings, list[str]]:
    """The settings a file's text gives, and a line for each thing wrong in it (``where`` names
    the file in them); whatever is wrong keeps its default, the rest applies."""
    problems: list[str] = []
    document = _loads(text, where, problems)
    values: dict[str, Any] = {}
    rules: dict[str, Mapping[str, str]] = {}
    for name, value in document.items():
        if name == "rules":
            rules = _rules_of(value, where, problems)
            continue
        key = KEYS.get(name)
        if key is None:
            owners = [f"[rules.{g.name}]" for g in GAMES.values() if g.option(name)]
            if owners:
                # TRANSLATORS: {tables} are TOML tables: "[rules.musical] or [rules.crazy-quilt]"
                hint = _(" (a rule option: it goes in {tables})").format(tables=_or(owners))
            else:
                hint = _close(name, [*KEYS, "rules"])
            problems.append(_("{file}: {key}: no such setting{hint}; ignored").format(
                file=where, key=_bare(name), hint=hint))
            continue
        try:
            values[name] = key.check(value)
        except _Wrong as e:
            problems.append(_("{file}: {key} = {value}: {why}; {default}").format(
                file=where, key=name, value=_shown(value), why=e, default=_using_default(_toml(key.default))))
    return Settings(**values, rules=MappingProxyType(rules), source=where), problems


def _or(words: list[str]) -> str:
    """Words joined by "or": "a or b", "a or b or c"."""
    joined = words[0] if words else ""
    for word in words[1:]:
        # TRANSLATORS: two TOML tables joined by "or": "[rules.musical] or [rules.crazy-quilt]"
        joined = _("{some} or {other}").format(some=joined, other=word)
    return joined


def load(path: Path | None = None, write: bool = True) -> tuple[Settings, list[str]]:
    """The player's settings (from ``path``, by default :func:`settings_path`), and a line for each
    thing wrong with the file. A missing file is written with the defaults, commented out, when
    ``write``; a file that cannot be written (a read-only disk), or no home, leaves the defaults."""
    if path is None:
        try:
            path = settings_path()
        except NoHomeError:
            return Settings(), []
    where = shown_path(path)
    problems: list[str] = []
    text = _read(path, where, problems)
    if text is None:
        if write and not problems:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, default_text())
            except OSError:
                pass  # the first start goes on: the file is a convenience
        return Settings(), problems
    settings, problems = parse(text, where)
    return settings, problems
