"""The package's layers: imports point one way, so no two modules import each other (directly or
round a longer circle), imports inside functions included, but for a game's own parts that its
Game class imports when first asked for; and the command registry imports none of the features
that register into it."""

from __future__ import annotations

import ast
from pathlib import Path

import musical_cli

PACKAGE = Path(musical_cli.__file__).resolve().parent
GAMES_PACKAGE = "musical_cli.games"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(hooks: bool = True) -> dict[str, set[str]]:
    """Each module of the package and the package modules it imports, anywhere in its text. With
    ``hooks`` False, without the imports inside a function of a game's rules module of another
    module of the same game (:func:`is_hook`)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]
        found: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lazy = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                for n in ast.walk(f)}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                origin = node.module or ""
                if node.level:
                    origin = f"{base}.{origin}" if origin else base
                targets = [origin] + [f"{origin}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            found |= {t for t in targets if t in modules and t != name
                      and (hooks or id(node) not in lazy or not is_hook(name, t))}
        graph[name] = found
    return graph


def is_hook(importer: str, imported: str) -> bool:
    """Whether ``importer`` is a game's rules module and ``imported`` another module of the same
    game: what its Game class imports inside the methods the Game protocol has it override (its
    view, its solver), the game's plug-in points. Those run when first called, long after both
    modules are loaded, so they make no circle at import time; every other import must point
    one way."""
    game, _, module = importer.rpartition(".")
    return (module == "rules" and game.rpartition(".")[0] == GAMES_PACKAGE
            and imported.startswith(game + ".") and imported != importer)


def _packages_of(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_circle():
    graph = imports(hooks=False)
    # A module importing its own package's __init__ (which only registers games) is no circle.
    edges = {m: {t for t in ts if t not in _packages_of(m)} for m, ts in graph.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                circle = path[path.index(t):] + [t]
                raise AssertionError("an import circle: " + " -> ".join(circle))
            if t not in state:
                visit(t)
        path.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_the_registry_imports_no_feature():
    graph = imports()
    features = {m for m in graph if m.endswith("_commands")}
    assert features >= {"musical_cli.play_commands", "musical_cli.advice_commands", "musical_cli.record_commands"}
    assert not graph["musical_cli.commands"] & (features | {"musical_cli.language", "musical_cli.record"})
    assert "musical_cli.commands" not in graph["musical_cli.record"]


def test_a_games_own_parts_are_imported_only_when_asked_for():
    """Start-up stays light: a game's rules module imports its view and its players inside the
    methods that use them, never at its top."""
    eager = imports(hooks=False)
    lazy = imports()
    rules = [m for m in lazy if m.startswith(GAMES_PACKAGE + ".") and m.endswith(".rules")]
    assert len(rules) >= 3
    for module in rules:
        game = module.rpartition(".")[0]
        assert any(t.startswith(game + ".") for t in lazy[module]), f"{module} imports none of its parts"
        assert not {t for t in eager[module] if t.startswith(game + ".")}, f"{module} imports its parts at its top"

