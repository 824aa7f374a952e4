"""Crazy Quilt, with Indian Carpet (two redeals) and Persian Rug (reserves): the engine
(:mod:`.rules`), the view (:mod:`.view`) and the solver (:mod:`.solver`)."""

from __future__ import annotations

from .rules import CRAZY_QUILT, CrazyQuilt, CrazyQuiltRules, CrazyQuiltState

__all__ = ["CRAZY_QUILT", "CrazyQuilt", "CrazyQuiltRules", "CrazyQuiltState"]
