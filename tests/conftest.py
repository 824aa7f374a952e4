"""Shared test configuration: Hypothesis profiles, and a factory of hand-built positions.

``default`` keeps the suite quick on a laptop; ``ci`` (loaded when the environment variable CI is
set) runs more examples. Select another explicitly with ``--hypothesis-profile NAME``.
"""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from musical_cli.cards import Card, new_deck
from musical_cli.cli import ascii_locale
from musical_cli.games.musical.rules import SEQUENCES, MusicalRules, MusicalState

settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# Temporary files (tmp_path, and the children's) in memory where the system has a memory file
# system: the record, 'save' and the results files sync the disk at every move or deal, which on
# a busy disk is most of those tests' time. A TMPDIR already set is kept.
if "TMPDIR" not in os.environ and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
    os.environ["TMPDIR"] = "/dev/shm"
    tempfile.tempdir = None  # read TMPDIR again

# The program prints ASCII in the C locale (cli.ascii_locale); the tests expect the suit symbols
# unless they set a locale of their own, so a machine whose tests run under LANG=C or LC_ALL=C
# runs them in C.UTF-8, as a bare one (no locale at all) does already.
if ascii_locale(os.environ):
    os.environ["LC_ALL"] = "C.UTF-8"


@pytest.fixture(autouse=True, scope="session")
def _settings_of_our_own(tmp_path_factory):
    """The player's settings file (musical_cli/settings.py) in a directory of the run's own: the
    shell started by a test, in this process or as a child, neither reads the real
    ~/.config/musical/config.toml (whose game or coach would change what the test sees) nor
    writes one there. A test that wants the file under a home of its own unsets XDG_CONFIG_HOME."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


def pytest_terminal_summary(terminalreporter):
    """Which search the Musical, Crazy Quilt and Calculation solvers ran: their C cores or the pure-Python
    fallbacks (an install without a compiler; ``python -m pytest``, which imports the package from
    the source tree, where ``pip install .`` leaves no compiled module), even with -q."""
    from musical_cli.games.calculation import solver as calculation
    from musical_cli.games.crazy_quilt import solver as quilt_solver
    from musical_cli.games.musical import solver

    for name, module in (("musical", solver), ("crazy quilt", quilt_solver), ("calculation", calculation)):
        core = getattr(module, "CORE", None)
        if core is not None:
            line = f"{name} solver tested: its C core ({core.__file__})"
        elif os.environ.get("MUSICAL_PURE_PYTHON"):
            line = f"{name} solver tested: pure Python (MUSICAL_PURE_PYTHON is set)"
        else:
            line = f"{name} solver tested: pure Python (no C core importable here)"
        terminalreporter.write_line(line)


# --- hand-built positions --------------------------------------------------------------------


def build_position(
    heights: tuple[int, int, int, int] = (1, 1, 1, 1),
    waste: tuple[int, ...] = (),
    *,
    rest: str = "stock",
    redeals_used: int = 0,
    rules: MusicalRules | None = None,
) -> MusicalState:
    """A Musical position built by hand from one full deck, every card used exactly once.

    ``heights``: how many cards each foundation holds (1 = the base only, 12 = complete), built
    along its sequence. ``waste``: ranks of cards on top of the waste, bottom first. The cards
    left over go to the stock (``rest="stock"``) or under the given waste cards (``rest="waste"``).
    """
    pool: list[Card] = new_deck()

    def take(rank: int) -> Card:
        for i, card in enumerate(pool):
            if card.rank == rank:
                return pool.pop(i)
        raise AssertionError(f"no card of rank {rank} left to build this position")

    signs = tuple(take(r) for r in (1, 2, 3, 4))
    foundations = tuple(tuple(take(r) for r in SEQUENCES[i][:h]) for i, h in enumerate(heights))
    on_top = tuple(take(r) for r in waste)
    if rest == "stock":
        stock, waste_cards = tuple(pool), on_top
    elif rest == "waste":
        stock, waste_cards = (), tuple(pool) + on_top
    else:
        raise ValueError(rest)
    return MusicalState(rules if rules is not None else MusicalRules(), signs, foundations,
                        stock, waste_cards, redeals_used)


@pytest.fixture(scope="session")
def position():
    """The :func:`build_position` factory."""
    return build_position


# --- the real program in a pseudo-terminal (tests/terminal.py) ---------------------------------


@pytest.fixture
def terminal_env(tmp_path):
    """The environment of the children :func:`terminal` starts (HOME and the XDG directories in
    the test's temporary directory): a test may change it before it starts one."""
    from terminal import child_env

    return child_env(tmp_path)


@pytest.fixture
def terminal(terminal_env):
    """Starts ``musical ARGS`` (keyword arguments: more environment) in a
    :class:`terminal.Terminal` at 80x24 (or ``size``: rows, columns), waiting up to ``timeout``
    seconds for each output expected; every child started is closed when the test ends."""
    from terminal import COLUMNS, ROWS, TIMEOUT, Terminal, spawn

    started: list = []

    def start(*args: str, size: tuple[int, int] = (ROWS, COLUMNS), timeout: float = TIMEOUT, **extra_env: str):
        term = Terminal(spawn(*args, env={**terminal_env, **extra_env}, size=size, timeout=timeout))
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()
