"""The solvers' optional C cores: one switch, read where each game's solver imports its core.

A core (``games/GAME/_search.c``) is built by ``pip install`` where the machine has a C compiler,
and is optional: without it the install succeeds and the solver runs its pure-Python search, the
same search node for node (the reference, which the equality tests compare the core against).
``MUSICAL_PURE_PYTHON`` (non-empty) turns every core off.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def optional_core(package: str) -> ModuleType | None:
    """``package._search``, or None when it is not built or MUSICAL_PURE_PYTHON is set."""
    if os.environ.get("MUSICAL_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(f"{package}._search")
    except ImportError:  # no compiler when it was installed: the pure-Python search
        return None
