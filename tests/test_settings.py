"""The player's settings file (musical_cli/settings.py): written commented on the first start,
read by the interactive shell only, the command line winning over it, and a damaged file costing
one line a fault while play goes on."""

from __future__ import annotations

import errno
import io
import os
import re
import sys
from pathlib import Path

import pytest

from musical_cli import cli, files, settings
from musical_cli.games import GAMES
from musical_cli.settings import KEYS, Settings, default_text, load, parse

# --- the file as the first start writes it -------------------------------------------------------


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    """The settings file's path under a fresh home (not yet written)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return tmp_path / "home" / ".config" / "musical" / "config.toml"


SHOWN = "~/.config/musical/config.toml"  # the file's name in the lines about it


def _uncommented(text: str) -> str:
    """The file with every setting's line taken out of its comment."""
    return re.sub(r"(?m)^# ([A-Za-z][\w-]* = )", r"\1", text)


def test_the_path_is_under_xdg_config_home_or_the_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "x"))
    assert settings.settings_path() == tmp_path / "x" / "musical" / "config.toml"
    for unset in ("", "relative"):  # the XDG spec: an empty or relative value is ignored
        monkeypatch.setenv("XDG_CONFIG_HOME", unset)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert settings.settings_path() == tmp_path / "home" / ".config" / "musical" / "config.toml"


def test_the_first_start_writes_the_file_commented_and_it_reads_back_as_the_defaults(config):
    got, problems = load()
    assert (got, problems) == (Settings(), [])
    text = config.read_text(encoding="utf-8")
    assert text == default_text()
    assert all(not line or line.startswith(("#", "[rules.")) for line in text.splitlines())
    again, problems = load()
    assert problems == [] and again == Settings(source=SHOWN)
    # every setting is there, at its default: taken out of its comment, nothing changes
    uncommented, problems = parse(_uncommented(text), "f")
    assert problems == []
    assert (uncommented.game, uncommented.coach, uncommented.auto, uncommented.ascii, uncommented.color,
            uncommented.language) == tuple(k.default for k in KEYS.values())
    for game in GAMES.values():
        assert game.rules_from_options(uncommented.options_for(game)) == game.default_rules()


def test_every_key_comes_from_the_declarations_with_a_comment(config):
    load()
    text = config.read_text(encoding="utf-8")
    document = settings.tomllib.loads(_uncommented(text))
    assert set(document) == set(KEYS) | {"rules"}
    assert set(document["rules"]) == set(GAMES)
    for name, game in GAMES.items():
        assert set(document["rules"][name]) == {o.name for o in game.options}
    # each setting's line has a comment above it, saying what it does
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"# [a-z-]+ = ", line):
            assert lines[i - 1].startswith("# ") and " = " not in lines[i - 1], line
    assert max(len(line) for line in lines) <= 80


def test_a_file_there_already_is_not_written(config):
    config.parent.mkdir(parents=True)
    config.write_text("coach = true\n", encoding="utf-8")
    got, problems = load()
    assert got.coach and problems == []
    assert config.read_text(encoding="utf-8") == "coach = true\n"


def test_values_set_in_the_file(tmp_path):
    got, problems = parse('game = "quilt"\ncoach = true\nauto = true\nascii = true\ncolor = "off"\n'
                          'language = "ru"\n[rules.crazy-quilt]\nredeals = 2\nwrap = true\n'
                          '[rules.musical]\nredeals = "Unlimited"\n', "f")
    assert problems == []
    assert (got.game, got.coach, got.auto, got.ascii, got.color, got.language) == (
        "crazy-quilt", True, True, True, "off", "ru")
    assert got.options_for(GAMES["crazy-quilt"]) == {"redeals": "2", "wrap": "yes"}
    assert got.options_for(GAMES["musical"]) == {"redeals": "unlimited"}


# --- through the command line ------------------------------------------------------------------


class _Terminal(io.StringIO):
    """Standard input or output as a terminal (cmd_play starts the shell only there)."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


@pytest.fixture
def shell(monkeypatch, capsys):
    """Run ``musical ARGS`` as at a terminal, with a shell that only keeps its session; returns
    (the session, the lines on standard error)."""
    import musical_cli.shell

    started = []

    class Shell:
        def __init__(self, session, **kwargs):
            started.append(session)

        def run(self) -> int:
            return 0

    monkeypatch.setattr(musical_cli.shell, "Shell", Shell)
    monkeypatch.setenv("MUSICAL_NO_RECORD", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)

    def run(*argv: str, status: int = 0):
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", _Terminal())
        monkeypatch.setattr(sys, "stdout", _Terminal())
        got = cli.main(["--seed", "1", *argv])
        err = capsys.readouterr().err
        assert got == status, err
        return (started.pop() if started else None), err.splitlines()

    return run


def _write(config: Path, text: str) -> None:
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


def test_the_shell_starts_with_the_files_settings(config, shell):
    _write(config, 'game = "calculation"\ncoach = true\nascii = true\n[rules.calculation]\npiles = 3\n')
    session, err = shell()
    assert err == []
    assert session.game.name == "calculation" and session.rules.piles == 3
    assert session.coach and session.ascii


def test_the_files_rules_apply_to_the_game_the_command_line_names(config, shell):
    _write(config, '[rules.crazy-quilt]\nwrap = true\n')
    session, _ = shell("--game", "quilt")
    assert session.game.name == "crazy-quilt" and session.rules.wrap


def test_the_command_line_wins(config, shell):
    _write(config, 'game = "calculation"\ncoach = true\nascii = true\n[rules.musical]\nredeals = 0\n'
                   '[rules.crazy-quilt]\nwrap = true\nreserves = true\n')
    session, _ = shell("--game", "musical", "--no-coach", "--no-ascii")
    assert (session.game.name, session.rules.redeals, session.coach, session.ascii) == ("musical", 0, False, False)
    session, _ = shell("--game", "musical", "--redeals", "1")
    assert session.rules.redeals == 1
    # a flag wins over the file's options it cannot go with; the others still apply
    session, _ = shell("--game", "quilt", "--redeals", "2")
    assert (session.rules.redeals, session.rules.wrap, session.rules.reserves) == (2, True, False)


def test_a_flag_of_another_game_than_the_files_says_where_the_game_came_from(config, shell):
    _write(config, 'game = "calculation"\n')
    _, err = shell("--redeals", "1", status=cli.EXIT_USAGE)
    assert "this game is calculation (the game of ~/.config/musical/config.toml; --game says another)" in err[-1]


def test_no_config_reads_no_file_and_writes_none(config, shell):
    _write(config, 'game = "calculation"\n')
    session, err = shell("--no-config")
    assert session.game.name == "musical" and err == []
    config.unlink()
    shell("--no-config")
    assert not config.exists()


def test_colour_off_and_on_say_it_as_no_color_does(config, shell, monkeypatch):
    _write(config, 'color = "off"\n')
    shell()
    assert os.environ.get("NO_COLOR") == "1"
    _write(config, 'color = "on"\n')
    shell()
    assert "NO_COLOR" not in os.environ
    monkeypatch.setenv("NO_COLOR", "1")
    _write(config, 'color = "auto"\n')
    shell()
    assert os.environ.get("NO_COLOR") == "1"


def test_batch_mode_reads_no_settings_and_writes_none(config, monkeypatch, capsys):
    """A script, or a transcript, plays the same whoever runs it: the file's game is not used."""
    _write(config, 'game = "calculation"\nascii = true\n[rules.musical]\nredeals = 0\n')
    monkeypatch.setattr(sys, "stdin", io.StringIO("show\n"))
    cli.main(["--seed", "1"])
    out = capsys.readouterr().out
    assert "Musical" in out and "Calculation" not in out and any(suit in out for suit in "♣♦♥♠")
    assert "redeals 2" in out or "2 redeals" in out or "pass 1 of 3" in out, out
    config.unlink()
    monkeypatch.setattr(sys, "stdin", io.StringIO("show\n"))
    cli.main(["--seed", "1"])
    assert not config.exists()


# --- damage: one line each, and play goes on -------------------------------------------------------

DAMAGED = [
    # (the file, the key the line names, what it says is right)
    ("coach = yes", "coach", "true or false"),  # not TOML
    ('coach = "yes"', "coach", "true or false"),  # a wrong type
    ('color = "always"', "color", '"auto", "on" or "off"'),  # a value it does not take
    ('game = "chess"', "game", '"musical", "calculation" or "crazy-quilt"'),
    ('language = "xx"', "language", '"en" or "ru"'),
    ("coch = true", "coch", "did you mean coach?"),  # an unknown key
    ("redeals = 1", "redeals", "[rules.musical] or [rules.crazy-quilt]"),
    ("[rules.musical]\nredeals = 300", "rules.musical.redeals", "from 0 to 255"),
    ("[rules.musical]\nredeal = 1", "rules.musical.redeal", "it has: redeals"),
    ("[rules.quilt]\nwrap = true", "rules.quilt", "[rules.crazy-quilt]"),
    ("[rules.calculation]\nbases = 3.5", "rules.calculation.bases", "true or false"),
    ("[rules.crazy-quilt]\nredeals = 2\nreserves = true", "rules.crazy-quilt.reserves", "Persian Rug"),
    ("ascii = false\nascii = true", "ascii", "set twice"),
]


@pytest.mark.parametrize(("text", "key", "right"), DAMAGED)
def test_each_fault_costs_one_line_naming_the_file_and_key_and_the_rest_applies(config, shell, text, key, right):
    # the good setting comes first: a table's keys must come after the top-level ones
    _write(config, f"auto = true\n{text}\n")
    session, err = shell()
    assert len(err) == 1, err
    assert err[0].startswith(f"musical: {SHOWN}: ")
    assert re.search(rf"(: |line \d+: ){re.escape(key)}\b", err[0]), err[0]
    assert right in err[0]
    assert session.game.name == "musical" and session.rules == session.game.default_rules()
    got, _ = load()
    assert got.auto  # the rest of the file applies


@pytest.mark.parametrize("damage", ["directory", "not UTF-8", "too large", "a pipe", "unreadable"])
def test_a_file_that_cannot_be_read_costs_one_line_and_the_defaults_apply(config, shell, monkeypatch, damage):
    config.parent.mkdir(parents=True)
    if damage == "directory":
        config.mkdir()
        said = "a directory"
    elif damage == "not UTF-8":
        config.write_bytes(b"coach = true\n# \xff\n")
        said = "not UTF-8"
    elif damage == "too large":
        config.write_text("# " + "x" * settings.MAX_BYTES + "\ncoach = true\n")
        said = "too large"
    elif damage == "a pipe":
        os.mkfifo(config)  # read, it would block the start for ever
        said = "not a regular file"
    else:
        config.write_text("coach = true\n")

        def refused(path, limit):
            raise PermissionError(errno.EACCES, "Permission denied")

        monkeypatch.setattr(settings, "read_limited", refused)
        said = "cannot read it (permission denied)"
    session, err = shell()
    assert len(err) == 1 and err[0].startswith(f"musical: {SHOWN}: ") and said in err[0], err
    assert not session.coach
    assert config.exists() and not config.is_file() or config.read_bytes().startswith((b"coach", b"# x"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission(config, shell):
    _write(config, "coach = true\n")
    config.chmod(0)
    session, err = shell()
    assert len(err) == 1 and "cannot read it" in err[0] and not session.coach


def test_bad_toml_leaves_out_its_line_only(config, shell):
    _write(config, 'coach = true\nascii = yes\ngame = "calculation"\n')
    session, err = shell()
    assert len(err) == 1 and "line 2: ascii = yes: not TOML" in err[0]
    assert session.coach and session.game.name == "calculation"


def test_toml_that_cannot_be_read_at_all_costs_one_line(config, shell):
    _write(config, 'coach = true\nlanguage = """en\n')
    session, err = shell()
    assert len(err) == 1 and "not TOML (unterminated string); using the default settings" in err[0]
    assert not session.coach


# --- no home, a read-only disk -----------------------------------------------------------------------


@pytest.fixture
def no_passwd_entry(monkeypatch):
    if files.pwd is not None:
        def missing(uid):
            raise KeyError(uid)

        monkeypatch.setattr(files.pwd, "getpwuid", missing)


def test_no_home_plays_with_the_defaults_without_a_word(shell, monkeypatch, no_passwd_entry):
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert load() == (Settings(), [])
    session, err = shell()
    assert err == [] and session.game.name == "musical"


def test_a_read_only_disk_starts_all_the_same(config, shell, monkeypatch):
    def read_only(path, text):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(settings, "atomic_write", read_only)
    session, err = shell()
    assert err == [] and session.game.name == "musical" and not config.exists()


def test_a_file_where_the_directory_should_be_starts_all_the_same(tmp_path, shell, monkeypatch):
    (tmp_path / "config").write_text("not a directory")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    session, err = shell()
    assert err == [] and session.game.name == "musical"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_a_directory_without_write_permission(config, shell):
    config.parent.parent.mkdir()
    config.parent.parent.chmod(0o500)
    try:
        session, err = shell()
    finally:
        config.parent.parent.chmod(0o700)
    assert err == [] and not config.exists()


# --- the program itself -----------------------------------------------------------------------------


def test_a_fresh_home_and_musical_writes_the_file_then_reads_it(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("XDG_") and k not in ("HOME", "MUSICAL_DEBUG", "NO_COLOR")}
    env.update(HOME=str(home), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", MUSICAL_NO_RECORD="1")

    def start() -> str:
        child = pexpect.spawn(sys.executable, ["-m", "musical_cli", "--seed", "3"], env=env, encoding="utf-8",
                              dimensions=(24, 80), timeout=20)
        child.expect_exact("musical>")
        seen = child.before
        child.sendline("quit")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, seen
        return seen

    start()
    written = home / ".config" / "musical" / "config.toml"
    assert written.read_text(encoding="utf-8") == default_text()
    written.write_text('game = "calculation"\n', encoding="utf-8")
    assert "Calculation" in start()


def test_the_manual_names_every_setting():
    """The SETTINGS section, on whichever page of man/ it is, has an entry for every key the file
    has: the general ones, a table per game, and each game's rule options."""
    man = Path(__file__).resolve().parent.parent / "man"
    sections = [re.split(r"(?m)^\.SH ", page.read_text(encoding="utf-8").split("\n.SH SETTINGS\n", 1)[1])[0]
                for page in sorted(p for p in man.iterdir() if p.is_file()) if "\n.SH SETTINGS\n" in page.read_text(encoding="utf-8")]
    assert len(sections) == 1
    entries = set(re.findall(r"(?m)^\.BI? \[?([\w\\.-]+)", sections[0].replace("\\-", "-")))
    missing = set(KEYS) - entries
    for name, game in GAMES.items():
        missing |= {f"rules.{name}"} - entries
        missing |= {o.name for o in game.options} - entries
    assert not missing, sorted(missing)


def test_the_suite_keeps_away_from_the_players_own_file(tmp_path_factory):
    """conftest.py points XDG_CONFIG_HOME into the run's own directory, for children too."""
    assert settings.settings_path().is_relative_to(tmp_path_factory.getbasetemp())


def test_a_damaged_setting_s_line_wraps_between_words_at_80_columns(terminal, terminal_env):
    """At a terminal the line a damaged setting costs wraps between words, its rest indented:
    nothing cut at 80 columns; and play goes on."""
    from terminal import PROMPT, screen_lines

    config = Path(terminal_env["XDG_CONFIG_HOME"]) / "musical"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('color = "always"\ncoach = maybe\n', encoding="utf-8")
    term = terminal("--seed", "1")
    _, before = term.until(PROMPT)
    said = [t for t in screen_lines(before) if t.strip()]
    assert any('"always"' in t for t in said) and all(len(t) <= 80 for t in said), said
    warned = [t for t in said if t.startswith("musical: ") or t.startswith("  ")]
    assert all(not t.endswith(('"', "or \"")) for t in warned), said  # a quoted word kept whole
    assert "Musical deal 1" in before
