"""The manual against the code. It is three pages, split as git's and SQLite's are: the command
(man/musical.1: the shell's commands, the subcommands, the options, the exit statuses), the file
formats (man/musical-formats.5) and the games (man/musical-games.7: their rules, word for word the
shell's rules text). Every shell command, subcommand, option and exit status is documented; each
page is clean under mandoc and groff, fits 80 columns and links the others; the package installs
them."""

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
PYPROJECT = ROOT / "pyproject.toml"
README = ROOT / "README.md"
MAX_LINES = 1000  # a page longer than this is split again, not grown


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
    """The lines of ``.SH NAME`` up to the next ``.SH``."""
    lines = _source(page)
    heads = [i for i, line in enumerate(lines) if line.startswith(".SH")]
    for i in heads:
        if " ".join(_arguments(lines[i])) == name:
            end = next((j for j in heads if j > i), len(lines))
            return lines[i + 1 : end]
    raise AssertionError(f"man/{page.name} has no section .SH {name!r}")


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
    raise AssertionError(f"man/{page.name} has no .TP entry for {word} under {section}")


SECTIONS = {
    PAGE: ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "BATCH MODE", "SUBCOMMANDS", "OPTIONS",
           "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"],
    FORMATS: ["NAME", "DESCRIPTION", "TRANSCRIPTS", "RESULTS FILES", "JSON OUTPUT", "THE RECORD", "SEE ALSO"],
    GAMES_PAGE: ["NAME", "DESCRIPTION", "GAMES", "MOVE NOTATION", "LAYOUTS", "NUMBERED DEALS", "DIFFICULTY",
                 "WINNABILITY", "SEE ALSO"],
}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_has_the_sections_users_look_for(page):
    heads = {" ".join(_arguments(line)) for line in _source(page) if line.startswith(".SH")}
    wanted = set(SECTIONS[page])
    assert wanted <= heads, f"man/{page.name} lacks the sections {sorted(wanted - heads)}"


def test_the_manual_is_the_pages_named():
    assert sorted(MAN.iterdir()) == sorted(PAGES), "a page of man/ is not checked by these tests"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_stays_short(page):
    """The manual was one page of nearly 2,000 lines: a page past 1,000 is split again."""
    assert len(_source(page)) <= MAX_LINES, f"man/{page.name} has {len(_source(page))} lines"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_s_name_and_section_are_its_file_s(page):
    th = next(line for line in _source(page) if line.startswith(".TH"))
    name, section = _unescape(" ".join(_arguments(th)[:2])).split()
    assert f"{name.lower()}.{section}" == page.name


def _name(page: Path) -> str:
    return f"{page.stem}({page.suffix[1:]})"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_see_also_names_the_other_pages(page):
    see_also = _plain(_section("SEE ALSO", page))
    missing = [_name(p) for p in PAGES if p != page and _name(p) not in see_also]
    assert not missing, f"SEE ALSO of man/{page.name} does not name {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_musical_page_referred_to_is_a_page(page):
    found = set(re.findall(r"\bmusical(?:-[a-z]+)?\(\d\)", _plain(_source(page))))
    assert found - {_name(page)}, f"man/{page.name} refers to no other page"
    assert found <= {_name(p) for p in PAGES}, f"man/{page.name} refers to pages that are not in man/: {found}"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_shell_command_and_alias_has_an_entry(name):
    command = REGISTRY[name]
    documented = [tag for tag in _tags("COMMANDS") if command.name in tag]
    assert documented, f"shell command {command.name!r} has no .TP entry under COMMANDS in man/musical.1"
    missing = [alias for alias in command.aliases if not any(alias in tag for tag in documented)]
    assert not missing, f"aliases {missing} of {command.name!r} are missing from its entry in man/musical.1"


def test_no_entry_for_a_command_that_does_not_exist():
    known = {n for command in REGISTRY.values() for n in command.names}
    for tag in _tags("COMMANDS"):
        assert tag & known, f"man/musical.1 documents {sorted(tag)}, which is not a shell command"


@pytest.mark.parametrize("name", cli.SUBCOMMANDS)
def test_every_subcommand_is_documented(name):
    headings = {
        _unescape(" ".join(_arguments(line))).split()[1]
        for line in _section("SUBCOMMANDS")
        if line.startswith(".SS") and _unescape(line).split()[1:2] == ["musical"]
    }
    assert name in headings, f"no '.SS musical {name}' under SUBCOMMANDS in man/musical.1"
    synopsis = {
        _unescape(" ".join(_arguments(line))) for line in _section("SYNOPSIS") if line.startswith(".SY")
    }
    assert f"musical {name}" in synopsis, f"'musical {name}' is missing from the SYNOPSIS"


def test_subcommands_match_the_parser():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.SUBCOMMANDS)


EXIT_STATUSES = {
    name: value for name, value in vars(cli).items() if name.startswith("EXIT_") and isinstance(value, int)
}


def test_the_exit_statuses_are_found():
    assert {0, 1, 2, 3} <= set(EXIT_STATUSES.values())


@pytest.mark.parametrize("name", sorted(EXIT_STATUSES))
def test_every_exit_status_is_documented(name):
    documented = {word for tag in _tags("EXIT STATUS") for word in tag}
    assert str(EXIT_STATUSES[name]) in documented, (
        f"exit status {EXIT_STATUSES[name]} ({name}) has no .TP entry under EXIT STATUS in man/musical.1"
    )


def test_no_exit_status_the_program_does_not_use():
    values = {str(v) for v in EXIT_STATUSES.values()}
    for tag in _tags("EXIT STATUS"):
        assert tag <= values, (
            f"man/musical.1 documents exit status {sorted(tag - values)}, which cli.py lacks"
        )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_page_names_this_version(page):
    th = next(line for line in _source(page) if line.startswith(".TH"))
    assert f"musical {__version__}" in _arguments(th), f"update man/{page.name}'s .TH line to 'musical {__version__}'"


LINTERS = {
    "mandoc": ["mandoc", "-Tlint", "-W", "warning"],
    "groff": ["groff", "-man", "-ww", "-z"],
}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
@pytest.mark.parametrize("tool", sorted(LINTERS))
def test_roff_is_clean(tool, page):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (Debian: apt-get install mandoc groff-base)")
    result = subprocess.run([*LINTERS[tool], str(page)], capture_output=True, text=True, timeout=60)
    output = (result.stdout + result.stderr).strip()
    assert output == "", f"{tool} complains about man/{page.name}:\n{output}"
    assert result.returncode == 0


def _pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_package_installs_the_page(page):
    # `pip install .` puts the data files under sys.prefix; an editable install may not, so the
    # mapping in pyproject.toml is what is checked: each page in the directory of its section.
    data_files = _pyproject()["tool"]["setuptools"]["data-files"]
    where = f"share/man/man{page.suffix[1:]}"
    assert f"man/{page.name}" in data_files.get(where, []), (
        f"pyproject.toml must map {where} to man/{page.name} in [tool.setuptools.data-files]"
    )
    assert page.is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_an_installed_page_is_this_page(page):
    installed = Path(sys.prefix) / "share" / "man" / f"man{page.suffix[1:]}" / page.name
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


def test_the_check_sees_a_changed_word():
    game = GAMES["musical"]
    page = _subsection_paragraphs("GAMES", game.title)
    assert page[1] != page[1].replace("Eight", "Nine")  # the comparison reads the words themselves
    assert "Eight cards" in page[1]


@pytest.mark.parametrize("flag", list(cli.rule_flags()))
def test_every_rule_option_has_an_entry(flag):
    documented = {word for tag in _tags("OPTIONS") for word in tag}
    assert flag in documented, f"rule option {flag} has no .TP entry under OPTIONS in man/musical.1"
    owners = [game for game, _ in cli.rule_flags()[flag]]
    assert all(f".SS {game.title}" in _section("GAMES", GAMES_PAGE) for game in owners)


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


def test_the_manual_states_the_redeals_limit_the_code_enforces():
    """Where --redeals is described, each game's part names the largest number it takes."""
    limits = _most_redeals()
    assert set(limits) == {"Musical", "Crazy Quilt"}
    entry = _entry("OPTIONS", "--redeals")
    for title, most in limits.items():
        said = entry.split(f"{title}:", 1)[1]
        said = re.split("|".join(f"{t}:" for t in limits if t != title), said)[0]
        assert f"from 0 to {most}" in said, f"man/musical.1, OPTIONS, --redeals: {title} must say 'from 0 to {most}'"


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
    documented = {word for tag in _tags("ENVIRONMENT") for word in tag}
    assert read and not read - documented, sorted(read - documented)


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


# The page as a reader sees it at 80 columns: `MANWIDTH=80 man -l` runs tbl and groff with a line
# length of 78 (two columns of margin); mandoc is asked for the same width.
RENDERERS = {
    "groff": ["groff", "-t", "-man", "-Tutf8", "-rLL=78n", "-ww", "-P-cbou"],
    "mandoc": ["mandoc", "-Tutf8", "-O", "width=78"],
}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
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
    assert warnings == "", f"{tool} at 80 columns complains about man/{page.name}:\n{warnings}"
    text = re.sub(r".\x08", "", result.stdout.decode("utf-8"))  # overstrike bold, if any is left
    wide = [line for line in text.splitlines() if _width(line) > 80]
    assert not wide, f"lines wider than 80 columns in man/{page.name}:\n" + "\n".join(wide)


def test_the_record_s_schema_version_is_the_one_in_its_format():
    from musical_cli.store import SCHEMA_VERSION

    assert f"schema version {SCHEMA_VERSION}" in _plain(_section("THE RECORD", FORMATS))
