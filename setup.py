# The metadata lives in pyproject.toml; this file only declares the Musical solver's C core, which
# pyproject.toml cannot do with setuptools 68. optional=True: when the compiler is missing or fails,
# setuptools warns and installs the rest, and the solver falls back to its pure-Python search.
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "musical_cli.games.musical._search",
            sources=["musical_cli/games/musical/_search.c"],
            optional=True,
        )
    ]
)
