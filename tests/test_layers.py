"""The package's layers, by folder: no import climbs back up, and no import circle.

Each folder of guard/ (and each of the package's own files) sits in one layer; a module may
import from its own layer and those below, never above.  A new folder must be placed here: the
test fails on one it cannot place.  The imports are read from the source (``ast``), lazy ones
inside functions and those only for type checking included, so an import deferred for start-up
speed, or written for mypy alone, still cannot climb.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "guard"

# Bottom first.  A place is a folder of guard/ (everything under it), or one of the package's
# own files.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "foundations: values, errors, text, the file system",
        ["model.py", "errors.py", "bounds.py", "mappings.py", "jsonvalue.py", "text", "fs"],
    ),
    ("git: the only code that talks to it", ["repo"]),
    ("the work tree, the policy, the syntax of a file", ["tree", "policy", "syntax", "report"]),
    ("the ledger: turns as git keeps them, what agents read", ["record"]),
    ("the file an edit targets, and the repository opened for a call", ["files"]),
    ("an edit: parsed, located, checked", ["dialects", "structural", "reading", "locate", "checks"]),
    ("a turn verified", ["verify"]),
    ("one call, and the commit check", ["pipeline", "commit_check"]),
    ("what works on turns already made", ["turns"]),
    ("the edges: command line, adapters, the warm server, the API", ["cli", "adapters", "warm", "__init__.py", "__main__.py"]),
]


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


def _place(module: str) -> str:
    """The folder of guard/ a module is in, or the package's own file it is."""
    path = MODULES[module].relative_to(PACKAGE)
    return path.parts[0]


def _layer(module: str) -> int | None:
    place = _place(module) if module in MODULES else None
    return next((i for i, (_what, places) in enumerate(LAYERS) if place in places), None)


@functools.cache  # parsed when a test asks, not when the module is collected
def _imports() -> dict[tuple[str, str], set[str]]:
    """(importer, imported) -> how: "top" (runs when the module loads), "lazy" (in a function)."""
    out: dict[tuple[str, str], set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

        def visit(node: ast.AST, top: bool, typing_only: bool, name: str = name, here: list[str] = here) -> None:
            for child in ast.iter_child_nodes(node):
                at_top = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                typing = typing_only or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
                targets: list[str] = []
                if isinstance(child, ast.ImportFrom):
                    base = here[: len(here) - child.level + 1] if child.level else []
                    module = ".".join(base + ([child.module] if child.module else []))
                    for alias in child.names:
                        full = f"{module}.{alias.name}"
                        targets.append(full if full in MODULES else module)
                elif isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                for target in targets:
                    if target in MODULES and target != name:
                        how = "typing" if typing else "top" if at_top else "lazy"
                        out.setdefault((name, target), set()).add(how)
                visit(child, at_top, typing)

        visit(tree, True, False)
    return out


def test_every_module_has_a_layer() -> None:
    assert sorted(m for m in MODULES if _layer(m) is None) == []


def test_every_place_is_listed_once() -> None:
    places = [p for _what, listed in LAYERS for p in listed]
    assert len(places) == len(set(places))
    assert sorted(set(places)) == sorted({_place(m) for m in MODULES})


def test_no_import_climbs_back_up() -> None:
    climbs = []
    for (importer, imported), how in sorted(_imports().items()):
        a, b = _layer(importer), _layer(imported)
        if a is not None and b is not None and b > a:
            climbs.append(f"{importer} ({LAYERS[a][0]}) imports {imported} ({LAYERS[b][0]}), {'/'.join(sorted(how))}")
    assert climbs == []


def test_no_import_circle() -> None:
    """No circle of modules, whichever way each import is made (at load, lazily, for typing)."""
    graph: dict[str, set[str]] = {}
    for importer, imported in _imports():
        graph.setdefault(importer, set()).add(imported)
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    assert circles == []


@pytest.mark.parametrize("importer,imported", [("guard.repo.handle", "guard.pipeline.engine"), ("guard.model", "guard.cli")])
def test_the_rule_sees_a_climb(importer: str, imported: str) -> None:
    a, b = _layer(importer), _layer(imported)
    assert a is not None and b is not None and b > a
