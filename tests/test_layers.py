"""The package's layers: imports point one way, so no two modules import each other (directly or
round a longer circle), imports inside functions included, but for a game's own parts that its
Game class imports when first asked for; the command registry imports none of the features that
register into it; and no shared module holds a game's name."""

from __future__ import annotations

import ast
import textwrap
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
        at_top = {t for t in eager[module] if t.startswith(game + ".")}
        assert not at_top, f"{module} imports its parts at its top: {at_top}"


# --- no shared module names a game -------------------------------------------------------------

# The names a shared module holds today that it must not (module: names), for the modules still
# to be changed to ask the game (or, for the program's own name, to say PROGRAM). The test fails
# on a name missing here and on one listed here that is gone, so that the list only shrinks.
KNOWN_NAMES: dict[str, set[str]] = {
    "cli.py": {"musical"},  # the program's name as argparse's prog and in --version: PROGRAM
    "i18n.py": {"musical"},  # the program's name as the gettext domain: PROGRAM
}
# The program's name is also the first game's: it has one home, which is no game's name.
PROGRAM_HOME = ("__init__.py", "PROGRAM")


def _word(text: str) -> str:
    return text.strip().lower().replace("_", "-").replace(" ", "-")


def game_names() -> set[str]:
    """Every name of every registered game, as :func:`_word` spells it: its name, its aliases,
    its title and its package's."""
    from musical_cli.games import GAMES

    names: set[str] = set()
    for game in GAMES.values():
        package = game.package.rpartition(".")[2]
        names |= {_word(n) for n in (game.name, *game.aliases, game.title, package) if n}
    return names


def names_held(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """(line, text) of each string literal (a whole one, or a whole piece of an f-string) and
    each identifier (a name, an attribute, a parameter, a keyword, a definition, an imported
    module or name) in ``path`` that is one of ``names``. Prose (docstrings, comments, messages)
    may speak of a game: a string that *is* a game's name is what code compares or looks up."""
    held: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.arg):
            words = [node.arg]
        elif isinstance(node, ast.keyword):
            words = [node.arg or ""]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words = [node.name]
        elif isinstance(node, ast.alias):
            words = [*node.name.split("."), node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words = (node.module or "").split(".")
        held += [(getattr(node, "lineno", 0), w) for w in words if w and _word(w) in names]
    return held


def _assignment_line(path: Path, name: str) -> int:
    """The line of the module-level assignment to ``name`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return next(node.lineno for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets))


def shared_modules() -> list[Path]:
    """The modules of the package outside the games' packages."""
    return sorted(p for p in PACKAGE.rglob("*.py") if (PACKAGE / "games") not in p.parents)


def test_a_games_name_is_seen_in_code_and_not_in_prose(tmp_path):
    names = game_names()
    assert {"musical", "betsy-ross", "calculation", "crazy-quilt", "quilt"} <= names
    source = tmp_path / "sample.py"
    source.write_text(textwrap.dedent('''
        """Musical, Calculation and Crazy Quilt are games; so is the quilt."""
        from .games.crazy_quilt.rules import CRAZY_QUILT
        from .games import calculation

        def turns(game, Calculation=None):  # a comment on musical
            f(quilt=1)
            return game.name == "calculation" or game.betsy_ross or f"musical {game}"
        TURNED = {"Crazy Quilt", "crazy quilt is not one word", "musical_cli"}
        '''), encoding="utf-8")
    assert sorted(names_held(source, names)) == sorted([
        (3, "crazy_quilt"), (3, "CRAZY_QUILT"), (4, "calculation"), (6, "Calculation"), (7, "quilt"),
        (8, "calculation"), (8, "betsy_ross"), (8, "musical "), (9, "Crazy Quilt")])


def test_no_shared_module_holds_a_games_name():
    names = game_names()
    found: dict[str, set[str]] = {}
    unexpected: list[str] = []
    for path in shared_modules():
        held = names_held(path, names)
        if path.name == PROGRAM_HOME[0]:
            assert getattr(musical_cli, PROGRAM_HOME[1]) == "musical"
            held.remove((_assignment_line(path, PROGRAM_HOME[1]), "musical"))
        found[path.name] = {_word(w) for _, w in held}
        unexpected += [f"{path.name}:{line}: {w!r}" for line, w in held
                       if _word(w) not in KNOWN_NAMES.get(path.name, set())]
    assert not unexpected, ("a shared module names a game; ask the game (the Game protocol) or the "
                            "registry instead:\n" + "\n".join(unexpected))
    gone = {m: names - found.get(m, set()) for m, names in KNOWN_NAMES.items() if names - found.get(m, set())}
    assert not gone, f"no longer held: take them out of KNOWN_NAMES: {gone}"
