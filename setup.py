# The metadata lives in pyproject.toml; this file only declares the solvers' optional C cores, which
# pyproject.toml cannot do with setuptools 68. optional=True: when the compiler is missing or fails,
# setuptools warns and installs the rest, and each solver falls back to its pure-Python search.
from setuptools import Extension, setup

# (module, source): one line a core. .ci/run lists the same pairs.
CORES = [
    ("musical_cli.games.musical._search", "musical_cli/games/musical/_search.c"),
    ("musical_cli.games.calculation._search", "musical_cli/games/calculation/_search.c"),
    ("musical_cli.games.crazy_quilt._search", "musical_cli/games/crazy_quilt/_search.c"),
]
# What the three cores share (the table, its hash, the glue to Python): included by each, so a
# change to it rebuilds them all (depends). MANIFEST.in puts it in the sdist.
COMMON = "musical_cli/games/_core"
COMMON_HEADERS = [f"{COMMON}/search_common.h"]

setup(ext_modules=[Extension(name, sources=[source], include_dirs=[COMMON], depends=COMMON_HEADERS,
                             optional=True)
                   for name, source in CORES])
