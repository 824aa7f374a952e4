"""The package's layers: imports point one way, so no two modules import each other (directly or
round a longer circle), imports inside functions included; and the command registry imports none
of the features that register into it."""

from __future__ import annotations

import ast
from pathlib import Path

import musical_cli

PACKAGE = Path(musical_cli.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Each module of the package and the package modules it imports, anywhere in its text."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
            found |= {t for t in targets if t in modules and t != name}
        graph[name] = found
    return graph


def _packages_of(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_circle():
    graph = imports()
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
