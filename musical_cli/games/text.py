"""Each game's rules for people: ``rules.txt`` in the game's package, the same text as the
game's subsection of the man page's GAMES section (a test keeps the two the same)."""

from __future__ import annotations

from importlib.resources import files


def rules_text(package: str) -> str:
    return files(package).joinpath("rules.txt").read_text(encoding="utf-8")
