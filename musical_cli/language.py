"""The command language: the registry (:mod:`.commands`) with every feature registered into it.

The shell, batch mode and the tests import it from here; importing a feature is what makes its
commands exist, in the order help lists them.
"""

from __future__ import annotations

from . import advice_commands, play_commands, record_commands  # noqa: F401  (they register)
from .commands import (  # noqa: F401  (the language's public names)
    REGISTRY,
    CommandError,
    Reply,
    Session,
    announce_outcome,
    error_text,
    execute,
    execute_one,
    lookup,
    said_before,
    split_line,
)
from .play_commands import move_lines, move_sources, move_targets  # noqa: F401
