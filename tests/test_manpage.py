"""The manual against the code. It is three pages, split as git's and SQLite's are: the command
(man/musical.1: the shell's commands, the subcommands, the options, the exit statuses), the file
formats (man/musical-formats.5) and the games (man/musical-games.7: their rules, word for word the
shell's rules text). Every shell command, subcommand, option and exit status is documented; each
page is clean under mandoc and groff, fits 80 columns and links the others; the package installs
them. The same three pages in Russian (man/ru/) are held to the same checks, in their own section
names, and their games' parts are word for word each game's rules.ru.txt."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from musical_cli import __version__, cli
from musical_cli.game import RulesError
from musical_cli.games import GAMES
from musical_cli.language import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "man"
PAGE = MAN / "musical.1"  # the command
FORMATS = MAN / "musical-formats.5"  # transcripts, results files, JSON, the record
GAMES_PAGE = MAN / "musical-games.7"  # the rules, notation and layouts of the games
PAGES = [PAGE, FORMATS, GAMES_PAGE]
RU = MAN / "ru"  # the manual in Russian: the same pages, installed under share/man/ru/
RU_PAGE, RU_FORMATS, RU_GAMES_PAGE = (RU / page.name for page in PAGES)
RU_PAGES = [RU_PAGE, RU_FORMATS, RU_GAMES_PAGE]
ALL_PAGES = PAGES + RU_PAGES
COMMAND_PAGES = [PAGE, RU_PAGE]  # the pages that must document every command, option and status
PYPROJECT = ROOT / "pyproject.toml"
README = ROOT / "README.md"
MAX_LINES = 1000  # a page longer than this is split again, not grown


# The English section names, as the Russian pages name them (as Debian's Russian manual does:
# НАЗВАНИЕ, СИНТАКСИС, ПАРАМЕТРЫ, КОД ВЫХОДА, СМОТРИТЕ ТАКЖЕ).
RUSSIAN = {
    "NAME": "НАЗВАНИЕ", "SYNOPSIS": "СИНТАКСИС", "DESCRIPTION": "ОПИСАНИЕ", "COMMANDS": "КОМАНДЫ",
    "BATCH MODE": "ПАКЕТНЫЙ РЕЖИМ", "SUBCOMMANDS": "ПОДКОМАНДЫ", "OPTIONS": "ПАРАМЕТРЫ",
    "EXIT STATUS": "КОД ВЫХОДА", "ENVIRONMENT": "ОКРУЖЕНИЕ", "SETTINGS": "НАСТРОЙКИ", "FILES": "ФАЙЛЫ",
    "EXAMPLES": "ПРИМЕРЫ", "SEE ALSO": "СМОТРИТЕ ТАКЖЕ", "TRANSCRIPTS": "ЗАПИСИ ПАРТИЙ",
    "RESULTS FILES": "ФАЙЛЫ РЕЗУЛЬТАТОВ", "JSON OUTPUT": "ВЫВОД JSON", "THE RECORD": "ЖУРНАЛ ПАРТИЙ",
    "GAMES": "ИГРЫ", "MOVE NOTATION": "НОТАЦИЯ ХОДОВ", "LAYOUTS": "РАСКЛАДКИ",
    "NUMBERED DEALS": "НУМЕРОВАННЫЕ РАСКЛАДЫ", "DIFFICULTY": "СЛОЖНОСТЬ",
    "WINNABILITY": "ВЫИГРЫШНЫЕ РАСКЛАДЫ",
}
# The games' names in Russian: the titles of their parts of ИГРЫ (musical-games(7) says why these).
RUSSIAN_TITLES = {"musical": "Мюзикл", "calculation": "Расчёт", "crazy-quilt": "Сумасшедшее лоскутное одеяло"}


def _russian(page: Path) -> bool:
    return page.parent == RU


def _heading(name: str, page: Path) -> str:
    """The English section ``name`` as ``page`` names it."""
    return RUSSIAN[name] if _russian(page) else name


def _title(game, page: Path) -> str:
    """The title of ``game``'s part of GAMES in ``page``'s language."""
    return RUSSIAN_TITLES[game.name] if _russian(page) else game.title


def _page_id(page: Path) -> str:
    return str(page.relative_to(MAN))


def _source(page: Path = PAGE) -> list[str]:
    return page.read_text(encoding="utf-8").splitlines()


def _unescape(text: str) -> str:
    """Roff text to plain words: ``\\-`` is a hyphen, ``\\&`` and ``\\%`` are nothing."""
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\%", "").replace("\\e", "\\")
    return re.sub(r"\\f[BIRP]", "", text)


def _arguments(line: str) -> list[str]:
    """The arguments of a macro line, with roff's double quotes."""
    words = re.finditer(r'"([^"]*)"|(\S+)', line)
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in words][1:]


def _section(name: str, page: Path = PAGE) -> list[str]:
    """The lines of ``.SH NAME`` up to the next ``.SH`` (``name`` in English, for every page)."""
    name = _heading(name, page)
    lines = _source(page)
    heads = [i for i, line in enumerate(lines) if line.startswith(".SH")]
    for i in heads:
        if " ".join(_arguments(lines[i])) == name:
            end = next((j for j in heads if j > i), len(lines))
            return lines[i + 1 : end]
    raise AssertionError(f"man/{_page_id(page)} has no section .SH {name!r}")


def _bold_words(line: str) -> set[str]:
    """Words set in bold on one line: ``\\fBword\\fR`` inline, or the arguments of .B / .BR / .BI /
    .RB / .IB (the bold ones; every argument of .B)."""
    words: set[str] = set(re.findall(r"\\fB(.*?)(?=\\f[RIP]|$)", line))
    if line.startswith("."):
        macro, args = line.split()[0][1:], _arguments(line)
        if macro == "B":
            words.add(" ".join(args))
        elif macro in ("BR", "BI", "RB", "IB"):
            start = 0 if macro[0] == "B" else 1
            words.update(args[start::2])
    return {_unescape(w).strip() for w in words if w.strip()}


def _tags(section: str, page: Path = PAGE) -> list[set[str]]:
    """For each ``.TP`` of a section, the bold words of its tag line."""
    lines = _section(section, page)
    return [_bold_words(lines[i + 1]) for i, line in enumerate(lines[:-1]) if line.strip() == ".TP"]


def _plain(lines: list[str]) -> str:
    """Lines of roff as the words a reader sees: the arguments of a font macro (.B, .BR, ...)
    run together as roff sets them, other requests dropped."""
    words = []
    for line in lines:
        if not line.startswith("."):
            words.append(line)
        elif re.match(r"\.(B|I) ", line):
            words.append(" ".join(_arguments(line)))
        elif re.match(r"\.(BR|RB|BI|IB|IR|RI) ", line):
            words.append("".join(_arguments(line)))
    return " ".join(_unescape(" ".join(words)).split())


def _entry(section: str, word: str, page: Path = PAGE) -> str:
    """The text of the ``.TP`` entry of a section whose tag has ``word`` in bold, as plain words."""
    lines = _section(section, page)
    for i, line in enumerate(lines[:-1]):
        if line.strip() == ".TP" and word in _bold_words(lines[i + 1]):
            end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith((".TP", ".PP", ".SS"))),
                       len(lines))
            return _plain(lines[i + 2:end])
    raise AssertionError(f"man/{_page_id(page)} has no .TP entry for {word} under {section}")


SECTIONS = {
    PAGE: ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "BATCH MODE", "SUBCOMMANDS", "OPTIONS",
           "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"],
    FORMATS: ["NAME", "DESCRIPTION", "TRANSCRIPTS", "RESULTS FILES", "JSON OUTPUT", "THE RECORD", "SEE ALSO"],
    GAMES_PAGE: ["NAME", "DESCRIPTION", "GAMES", "MOVE NOTATION", "LAYOUTS", "NUMBERED DEALS", "DIFFICULTY",
                 "WINNABILITY", "SEE ALSO"],
}


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_page_has_the_sections_users_look_for(page):
    english = PAGES[ALL_PAGES.index(page) % len(PAGES)]
    heads = {" ".join(_arguments(line)) for line in _source(page) if line.startswith(".SH")}
    wanted = {_heading(name, page) for name in SECTIONS[english]}
    assert wanted <= heads, f"man/{_page_id(page)} lacks the sections {sorted(wanted - heads)}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_a_translated_page_has_the_english_page_s_sections_in_order(page):
    """The Russian page is the English one section for section: the same .SH, in the same order."""
    english = [" ".join(_arguments(line)) for line in _source(page) if line.startswith(".SH")]
    russian = [" ".join(_arguments(line)) for line in _source(RU / page.name) if line.startswith(".SH")]
    assert [RUSSIAN.get(name, name) for name in english] == russian


def test_the_manual_is_the_pages_named():
    pages = sorted(path for path in MAN.rglob("*") if path.is_file())
    assert pages == sorted(ALL_PAGES), "a page of man/ is not checked by these tests"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_english_page_has_its_russian_page(page):
    russian = RU / page.name
    assert russian.is_file(), f"man/{page.name} has no Russian page man/ru/{page.name}"
    th = [_arguments(next(line for line in _source(p) if line.startswith(".TH")))[:2] for p in (page, russian)]
    assert th[0] == th[1], "the Russian page's .TH names another page"


@pytest.mark.parametrize("page", RU_PAGES, ids=_page_id)
def test_a_russian_page_says_it_is_utf8(page):
    """groff's preconv (run by man) reads the coding tag; without it, it may take the text for Latin-1."""
    assert any("-*- coding: UTF-8 -*-" in line for line in _source(page)[:2]), (
        f"man/{_page_id(page)} must say '-*- coding: UTF-8 -*-' in a comment on its first line (its second after tbl's)"
    )
    page.read_bytes().decode("utf-8")


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_a_page_stays_short(page):
    """The manual was one page of nearly 2,000 lines: a page past 1,000 is split again."""
    assert len(_source(page)) <= MAX_LINES, f"man/{_page_id(page)} has {len(_source(page))} lines"


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_a_page_s_name_and_section_are_its_file_s(page):
    th = next(line for line in _source(page) if line.startswith(".TH"))
    name, section = _unescape(" ".join(_arguments(th)[:2])).split()
    assert f"{name.lower()}.{section}" == page.name


def _name(page: Path) -> str:
    return f"{page.stem}({page.suffix[1:]})"


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_see_also_names_the_other_pages(page):
    see_also = _plain(_section("SEE ALSO", page))
    missing = [_name(p) for p in PAGES if p.name != page.name and _name(p) not in see_also]
    assert not missing, f"SEE ALSO of man/{_page_id(page)} does not name {missing}"


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_every_musical_page_referred_to_is_a_page(page):
    found = set(re.findall(r"\bmusical(?:-[a-z]+)?\(\d\)", _plain(_source(page))))
    assert found - {_name(page)}, f"man/{_page_id(page)} refers to no other page"
    assert found <= {_name(p) for p in PAGES}, (
        f"man/{_page_id(page)} refers to pages that are not in man/: {found}"
    )


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_shell_command_and_alias_has_an_entry(name, page):
    command = REGISTRY[name]
    documented = [tag for tag in _tags("COMMANDS", page) if command.name in tag]
    assert documented, f"shell command {command.name!r} has no .TP entry under COMMANDS in man/{_page_id(page)}"
    missing = [alias for alias in command.aliases if not any(alias in tag for tag in documented)]
    assert not missing, f"aliases {missing} of {command.name!r} are missing from its entry in man/{_page_id(page)}"


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
def test_no_entry_for_a_command_that_does_not_exist(page):
    known = {n for command in REGISTRY.values() for n in command.names}
    for tag in _tags("COMMANDS", page):
        assert tag & known, f"man/{_page_id(page)} documents {sorted(tag)}, which is not a shell command"


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
@pytest.mark.parametrize("name", cli.SUBCOMMANDS)
def test_every_subcommand_is_documented(name, page):
    headings = {
        _unescape(" ".join(_arguments(line))).split()[1]
        for line in _section("SUBCOMMANDS", page)
        if line.startswith(".SS") and _unescape(line).split()[1:2] == ["musical"]
    }
    assert name in headings, f"no '.SS musical {name}' under SUBCOMMANDS in man/{_page_id(page)}"
    synopsis = {
        _unescape(" ".join(_arguments(line))) for line in _section("SYNOPSIS", page) if line.startswith(".SY")
    }
    assert f"musical {name}" in synopsis, f"'musical {name}' is missing from the SYNOPSIS of man/{_page_id(page)}"


def test_subcommands_match_the_parser():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.SUBCOMMANDS)


EXIT_STATUSES = {
    name: value for name, value in vars(cli).items() if name.startswith("EXIT_") and isinstance(value, int)
}


def test_the_exit_statuses_are_found():
    assert {0, 1, 2, 3} <= set(EXIT_STATUSES.values())


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
@pytest.mark.parametrize("name", sorted(EXIT_STATUSES))
def test_every_exit_status_is_documented(name, page):
    documented = {word for tag in _tags("EXIT STATUS", page) for word in tag}
    assert str(EXIT_STATUSES[name]) in documented, (
        f"exit status {EXIT_STATUSES[name]} ({name}) has no .TP entry under EXIT STATUS in man/{_page_id(page)}"
    )


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
def test_no_exit_status_the_program_does_not_use(page):
    values = {str(v) for v in EXIT_STATUSES.values()}
    for tag in _tags("EXIT STATUS", page):
        assert tag <= values, (
            f"man/{_page_id(page)} documents exit status {sorted(tag - values)}, which cli.py lacks"
        )


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_the_page_names_this_version(page):
    th = next(line for line in _source(page) if line.startswith(".TH"))
    assert f"musical {__version__}" in _arguments(th), (
        f"update man/{_page_id(page)}'s .TH line to 'musical {__version__}'"
    )


LINTERS = {
    "mandoc": ["mandoc", "-Tlint", "-W", "warning"],
    "groff": ["groff", "-man", "-ww", "-z"],
}
# groff reads UTF-8 through preconv (-k, as man runs it), and checks Cyrillic against a device
# that has the glyphs (its default, PostScript, lacks them).
UTF8_LINTERS = {"mandoc": [], "groff": ["-k", "-Tutf8"]}


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
@pytest.mark.parametrize("tool", sorted(LINTERS))
def test_roff_is_clean(tool, page):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (Debian: apt-get install mandoc groff-base)")
    command = [*LINTERS[tool], *(UTF8_LINTERS[tool] if _russian(page) else []), str(page)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    output = (result.stdout + result.stderr).strip()
    assert output == "", f"{tool} complains about man/{_page_id(page)}:\n{output}"
    assert result.returncode == 0


def _pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def _installed_at(page: Path) -> str:
    """Where ``page`` goes under the prefix: share/man/man1, or share/man/ru/man1 in Russian."""
    return f"share/man/{'ru/' if _russian(page) else ''}man{page.suffix[1:]}"


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_the_package_installs_the_page(page):
    # `pip install .` puts the data files under sys.prefix; an editable install may not, so the
    # mapping in pyproject.toml is what is checked: each page in the directory of its section.
    data_files = _pyproject()["tool"]["setuptools"]["data-files"]
    where, source = _installed_at(page), f"man/{_page_id(page)}"
    assert source in data_files.get(where, []), (
        f"pyproject.toml must map {where} to {source} in [tool.setuptools.data-files]"
    )
    assert page.is_file()


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
def test_an_installed_page_is_this_page(page):
    installed = Path(sys.prefix) / _installed_at(page) / page.name
    if not installed.is_file():
        pytest.skip("the package is installed editable (no data files under sys.prefix)")
    assert installed.read_bytes() == page.read_bytes()


def test_readme_gives_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/musical" in text
    assert "python3 -m venv .venv && .venv/bin/pip install '.[test,cluster]' && .venv/bin/pytest -q" in text


def _subsection_paragraphs(section: str, title: str, page: Path = GAMES_PAGE) -> list[str]:
    """The paragraphs of ``.SS title`` in a section, as plain text with single spaces. Only
    ``.PP`` and ``.B`` may appear there: the text is the game's rules, word for word."""
    lines = _section(section, page)
    start = lines.index(f".SS {title}")
    paragraphs: list[list[str]] = [[]]
    for line in lines[start + 1:]:
        if line.startswith((".SS", ".SH")):
            break
        if line == ".PP":
            paragraphs.append([])
        elif line.startswith(".B "):
            paragraphs[-1].append(" ".join(_arguments(line)))
        elif line.startswith("."):
            raise AssertionError(f"{line!r} under .SS {title}: only .PP and .B belong in a game's rules")
        else:
            paragraphs[-1].append(line)
    return [" ".join(_unescape(" ".join(p)).split()) for p in paragraphs if p]


@pytest.mark.parametrize("name", list(GAMES))
def test_a_games_rules_are_the_man_pages_words(name):
    game = GAMES[name]
    shell = [" ".join(p.split()) for p in game.rules_text.split("\n\n") if p.strip()]
    assert shell == _subsection_paragraphs("GAMES", game.title)


def _russian_rules(game) -> str:
    """The game's rules.ru.txt, as the package holds it (what `rules` prints in Russian)."""
    from importlib import resources

    return resources.files(game.package).joinpath("rules.ru.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(GAMES))
def test_a_games_russian_rules_are_the_russian_man_pages_words(name):
    game = GAMES[name]
    shell = [" ".join(p.split()) for p in _russian_rules(game).split("\n\n") if p.strip()]
    page = _subsection_paragraphs("GAMES", RUSSIAN_TITLES[name], RU_GAMES_PAGE)
    assert shell == page
    assert len(page) == len(_subsection_paragraphs("GAMES", game.title)), "a paragraph of the rules is missing"


@pytest.mark.parametrize("name", list(GAMES))
def test_the_rules_are_given_in_the_language_in_use(name, monkeypatch):
    """`rules` in Russian reads rules.ru.txt; in English, or in a language the game has no rules
    in, rules.txt."""
    from importlib import resources

    import musical_cli.game

    game = GAMES[name]
    english = resources.files(game.package).joinpath("rules.txt").read_text(encoding="utf-8")
    for language, text in (("ru", _russian_rules(game)), ("en", english), ("fr", english)):
        monkeypatch.setattr(musical_cli.game, "language", lambda language=language: language)
        assert game.rules_text == text, language
    assert _russian_rules(game) != english


def test_every_game_has_its_russian_part_and_no_other():
    titles = [line[4:] for line in _section("GAMES", RU_GAMES_PAGE) if line.startswith(".SS ")]
    assert titles == [RUSSIAN_TITLES[name] for name in GAMES]


def test_the_package_ships_the_russian_rules():
    assert "*/rules.ru.txt" in _pyproject()["tool"]["setuptools"]["package-data"]["musical_cli.games"]


@pytest.mark.parametrize(("page", "words", "other"),
                         [(GAMES_PAGE, "Eight cards", "Nine cards"), (RU_GAMES_PAGE, "восемь карт", "девять карт")],
                         ids=["en", "ru"])
def test_the_check_sees_a_changed_word(page, words, other):
    game = GAMES["musical"]
    paragraphs = _subsection_paragraphs("GAMES", _title(game, page), page)
    assert words in paragraphs[1]
    assert paragraphs[1] != paragraphs[1].replace(words, other)  # the comparison reads the words themselves


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
@pytest.mark.parametrize("flag", list(cli.rule_flags()))
def test_every_rule_option_has_an_entry(flag, page):
    documented = {word for tag in _tags("OPTIONS", page) for word in tag}
    assert flag in documented, f"rule option {flag} has no .TP entry under OPTIONS in man/{_page_id(page)}"
    owners = [game for game, _ in cli.rule_flags()[flag]]
    games_page = RU_GAMES_PAGE if _russian(page) else GAMES_PAGE
    assert all(f".SS {_title(game, page)}" in _section("GAMES", games_page) for game in owners)


def _most_redeals() -> dict[str, int]:
    """For each game with a --redeals option, the most redeals its rules take: the MAX_REDEALS of
    its rules module, checked to be the limit its option's parser enforces."""
    limits = {}
    for game, option in cli.rule_flags()["--redeals"]:
        most = importlib.import_module(f"{game.package}.rules").MAX_REDEALS
        option.parse(str(most))
        with pytest.raises(RulesError, match=f"0 to {most}"):
            option.parse(str(most + 1))
        limits[game.title] = most
    return limits


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
def test_the_manual_states_the_redeals_limit_the_code_enforces(page):
    """Where --redeals is described, each game's part names the largest number it takes."""
    limits = _most_redeals()
    assert set(limits) == {"Musical", "Crazy Quilt"}
    if _russian(page):
        names = {"Musical": RUSSIAN_TITLES["musical"], "Crazy Quilt": RUSSIAN_TITLES["crazy-quilt"]}
        limits = {names[title]: most for title, most in limits.items()}
    entry = _entry("OPTIONS", "--redeals", page)
    for title, most in limits.items():
        said = entry.split(f"{title}:", 1)[1]
        said = re.split("|".join(f"{t}:" for t in limits if t != title), said)[0]
        wanted = f"от 0 до {most}" if _russian(page) else f"from 0 to {most}"
        assert wanted in said, f"man/{_page_id(page)}, OPTIONS, --redeals: {title} must say {wanted!r}"


def test_ci_installs_what_the_readme_says():
    """CI runs on a clean clone: each of its installs (with the compiler, and without) must
    install the extras the README's test command installs (the cluster tests need the cluster
    extra), no more and no less."""
    readme = re.findall(r"pip install '(\.\[[^\]]*\])' && \.venv/bin/pytest", README.read_text(encoding="utf-8"))
    ci = re.findall(r'"\$venv/bin/pip" install \'(\.\[[^\]]*\])\'', (ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert readme and len(ci) == 2 and set(ci) == set(readme[:1]), (readme, ci)


def test_every_musical_variable_the_program_reads_is_under_environment():
    """A MUSICAL_* variable read anywhere in the package (MUSICAL_PURE_PYTHON, ...) has its entry."""
    read = {
        name
        for path in (ROOT / "musical_cli").rglob("*.py")
        for name in re.findall(r"[\"'](MUSICAL_[A-Z_]+)[\"']", path.read_text(encoding="utf-8"))
    }
    for page in COMMAND_PAGES:
        documented = {word for tag in _tags("ENVIRONMENT", page) for word in tag}
        assert read and not read - documented, (_page_id(page), sorted(read - documented))


README_MAX_LINES = 200


def test_readme_is_a_newcomers_page():
    """The README is what a newcomer reads first: under 200 lines (the reference is the man page,
    the figures are in docs/)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, (
        f"README.md has {len(lines)} lines; keep it under {README_MAX_LINES} (details go to the man page or docs/)"
    )


def test_readme_links_lead_somewhere():
    """Every relative link of the README (the man page, docs/...) names a file of the tree."""
    targets = re.findall(r"\]\(([^)#\s]+)\)", README.read_text(encoding="utf-8"))
    local = [t for t in targets if "://" not in t]
    assert local, "the README links to no file (the man page, docs/)"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def _width(line: str) -> int:
    """Columns a line takes on a terminal (East Asian wide characters take two)."""
    import unicodedata

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in line)


# The page as a reader sees it at 80 columns: `MANWIDTH=80 man -l` runs preconv, tbl and groff
# with a line length of 78 (two columns of margin); mandoc is asked for the same width.
RENDERERS = {
    "groff": ["groff", "-k", "-t", "-man", "-Tutf8", "-rLL=78n", "-ww", "-P-cbou"],
    "mandoc": ["mandoc", "-Tutf8", "-O", "width=78"],
}


@pytest.mark.parametrize("page", ALL_PAGES, ids=_page_id)
@pytest.mark.parametrize("tool", sorted(RENDERERS))
def test_page_fits_80_columns(tool, page):
    """No warning (such as tbl's "table wider than line width") and no line over 80 columns: an
    example or a table that does not fit is cut or wrapped by the terminal."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (Debian: apt-get install mandoc groff-base)")
    result = subprocess.run([*RENDERERS[tool], str(page)], capture_output=True, timeout=60,
                            env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert result.returncode == 0
    warnings = result.stderr.decode("utf-8", "replace").strip()
    assert warnings == "", f"{tool} at 80 columns complains about man/{_page_id(page)}:\n{warnings}"
    text = re.sub(r".\x08", "", result.stdout.decode("utf-8"))  # overstrike bold, if any is left
    wide = [line for line in text.splitlines() if _width(line) > 80]
    assert not wide, f"lines wider than 80 columns in man/{_page_id(page)}:\n" + "\n".join(wide)


def test_the_record_s_schema_version_is_the_one_in_its_format():
    from musical_cli.store import SCHEMA_VERSION

    assert f"schema version {SCHEMA_VERSION}" in _plain(_section("THE RECORD", FORMATS))
    assert f"версия схемы {SCHEMA_VERSION}" in _plain(_section("THE RECORD", RU_FORMATS))
