"""The Musical solver's choice between its C core and its pure-Python search, and the build that
makes the core optional (setup.py).

The core (musical_cli/games/musical/_search.c) is built by ``pip install`` when the machine has a
C compiler; without one the install still succeeds and the solver falls back to its Python search.
``solver.CORE`` is the module in use, or None; a non-empty MUSICAL_PURE_PYTHON forces the
fallback. The choice is made once, at import, so each case runs in a fresh interpreter that
imports the same copy of the package as this test. CI runs this file where the core is built
(step 1) and where the compiler is disabled (step 2), so each check below runs in one or both.
"""

from __future__ import annotations

import importlib.util
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import musical_cli

CORE = "musical_cli.games.musical._search"
ROOT = Path(__file__).resolve().parent.parent
SOURCE = "musical_cli/games/musical/_search.c"
# The package's parent directory, so that a subprocess imports the copy these tests import.
PACKAGE_PARENT = str(Path(musical_cli.__file__).resolve().parent.parent)

BUILT = importlib.util.find_spec(CORE) is not None
needs_source = pytest.mark.skipif(not (ROOT / SOURCE).exists(),
                                  reason=f"no C core in this tree ({SOURCE})")
needs_core = pytest.mark.skipif(not BUILT, reason="the C core is not built here")

# Prints the module the solver chose, or None. BLOCK first makes the core unimportable, as it is
# after an install without a compiler, even where it is built.
CHOSEN = """
from musical_cli.games.musical import solver
print(solver.CORE.__name__ if solver.CORE is not None else None)
"""
BLOCK = f"""
import sys

class NoCore:
    def find_spec(self, name, path=None, target=None):
        if name == {CORE!r}:
            raise ImportError("no C core (as after an install without a compiler)")
        return None

sys.meta_path.insert(0, NoCore())
"""


def run_python(code: str, pure: str | None = None, input: str | None = None,
               tmp_path: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MUSICAL_PURE_PYTHON"}
    env["PYTHONPATH"] = PACKAGE_PARENT
    if pure is not None:
        env["MUSICAL_PURE_PYTHON"] = pure
    p = subprocess.run([sys.executable, "-c", code], input=input, capture_output=True, text=True,
                       encoding="utf-8", env=env, cwd=tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr
    return p


@needs_source
def test_the_core_is_chosen_exactly_when_it_is_built(tmp_path):
    assert run_python(CHOSEN, tmp_path=tmp_path).stdout.split() == [CORE if BUILT else "None"]


@needs_source
@needs_core
@pytest.mark.parametrize("value", ["1", "0", "yes"])
def test_a_non_empty_musical_pure_python_forces_the_fallback(tmp_path, value):
    assert run_python(CHOSEN, pure=value, tmp_path=tmp_path).stdout.split() == ["None"]


@needs_source
@needs_core
def test_an_empty_musical_pure_python_counts_as_unset(tmp_path):
    assert run_python(CHOSEN, pure="", tmp_path=tmp_path).stdout.split() == [CORE]


@needs_source
def test_without_the_core_the_solver_falls_back_and_wins(tmp_path):
    """As after an install without a compiler: the import fails, and solve still finds a win
    that verify accepts."""
    assert run_python(BLOCK + CHOSEN, tmp_path=tmp_path).stdout.split() == ["None"]
    # a node limit, not the default seconds: won in 44 nodes, on any machine
    solve = BLOCK + "from musical_cli.cli import main\nsys.exit(main(['solve', '--seed', '7', '--nodes', '200000']))\n"
    transcript = run_python(solve, tmp_path=tmp_path).stdout
    verify = "import sys\nfrom musical_cli.cli import main\nsys.exit(main(['verify', '-']))\n"
    assert run_python(verify, input=transcript, tmp_path=tmp_path).stdout.startswith("won in ")


def test_setup_py_declares_the_core_as_an_optional_extension(monkeypatch):
    """optional=True is what lets an install without a compiler succeed; and no flag that ties
    the build to the machine it ran on (-march=native), as wheels run on other machines."""
    setuptools = pytest.importorskip("setuptools")
    seen: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: seen.update(kw))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    assert set(seen) == {"ext_modules"}  # the metadata stays in pyproject.toml
    by_name = {ext.name: ext for ext in seen["ext_modules"]}
    assert by_name[CORE].sources == [SOURCE]
    for ext in by_name.values():
        assert ext.optional is True, ext.name
        flags = " ".join(ext.extra_compile_args + ext.extra_link_args)
        assert "-march" not in flags and "-mtune" not in flags


def test_ci_checks_every_core_that_setup_py_builds(monkeypatch):
    """.ci/run's list of cores and setup.py's are the same pairs: a core CI does not check could
    silently fail to build, and the suite would test its pure-Python fallback only."""
    setuptools = pytest.importorskip("setuptools")
    seen: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: seen.update(kw))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    built = {(ext.name, ext.sources[0]) for ext in seen["ext_modules"]}
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    listed = set(re.findall(r'^\s+"(musical_cli\S+) (\S+\.c)"$', ci.split("cores=(", 1)[1].split(")", 1)[0], re.M))
    assert listed == built


# --- the Crazy Quilt solver's core (musical_cli/games/crazy_quilt/_search.c), chosen the same way

QUILT_CORE = "musical_cli.games.crazy_quilt._search"
QUILT_SOURCE = "musical_cli/games/crazy_quilt/_search.c"
QUILT_BUILT = importlib.util.find_spec(QUILT_CORE) is not None
needs_quilt_source = pytest.mark.skipif(not (ROOT / QUILT_SOURCE).exists(),
                                        reason=f"no C core in this tree ({QUILT_SOURCE})")
needs_quilt_core = pytest.mark.skipif(not QUILT_BUILT, reason="the Crazy Quilt C core is not built here")
QUILT_CHOSEN = """
from musical_cli.games.crazy_quilt import solver
print(solver.CORE.__name__ if solver.CORE is not None else None)
"""
QUILT_BLOCK = BLOCK.replace(repr(CORE), repr(QUILT_CORE))


@needs_quilt_source
def test_the_quilt_core_is_chosen_exactly_when_it_is_built(tmp_path):
    assert run_python(QUILT_CHOSEN, tmp_path=tmp_path).stdout.split() == [QUILT_CORE if QUILT_BUILT else "None"]


@needs_quilt_source
@needs_quilt_core
@pytest.mark.parametrize("value", ["1", "0", "yes"])
def test_a_non_empty_musical_pure_python_forces_the_quilt_fallback(tmp_path, value):
    assert run_python(QUILT_CHOSEN, pure=value, tmp_path=tmp_path).stdout.split() == ["None"]


@needs_quilt_source
def test_without_the_quilt_core_the_solver_falls_back_and_wins(tmp_path):
    """As after an install without a compiler: the import fails, and the Crazy Quilt search
    still finds a win that replays (search() replays it itself)."""
    assert run_python(QUILT_BLOCK + QUILT_CHOSEN, tmp_path=tmp_path).stdout.split() == ["None"]
    solve = QUILT_BLOCK + """
from musical_cli.deals import DealNumber
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules
from musical_cli.games.crazy_quilt.solver import search
result, moves, nodes = search(CRAZY_QUILT.opening(DealNumber(1), CrazyQuiltRules(1)), None, nodes=50_000)
print(result, len(moves) > 0)
"""
    assert run_python(solve, tmp_path=tmp_path).stdout.split() == ["won", "True"]


def test_setup_py_declares_the_quilt_core():
    setuptools = pytest.importorskip("setuptools")
    seen: dict = {}
    real = setuptools.setup
    try:
        setuptools.setup = lambda **kw: seen.update(kw)
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
        finally:
            os.chdir(cwd)
    finally:
        setuptools.setup = real
    by_name = {ext.name: ext for ext in seen["ext_modules"]}
    assert by_name[QUILT_CORE].sources == [QUILT_SOURCE]
    assert by_name[QUILT_CORE].optional is True
