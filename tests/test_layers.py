"""The package's layers: no import climbs back up, and no import circle at module level.

Each module sits in a layer; it may import from its own layer and those below, never above
(typing-only imports aside: they never run).  A layer is listed by module prefixes; the
longest prefix that names a module decides (``guard`` alone is the package's own file).  A new
module must be placed here: the test fails on one it cannot place.  The imports are read from
the source (``ast``), lazy ones inside functions included, so an import deferred for start-up
speed still cannot climb.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "guard"

LAYERS: list[tuple[str, list[str]]] = [
    (
        "foundations: values, errors, text, numbers",
        [
            "guard.errors",
            "guard.model",
            "guard.bounds",
            "guard.mappings",
            "guard.jsonvalue",
            "guard.text",
            "guard.fs",
        ],
    ),
    ("git: the only code that talks to it", ["guard.repo"]),
    (
        "the tree, the policy and the ledger as they are",
        [
            "guard.tree",
            "guard.files",
            "guard.syntax",
            "guard.policy",
            "guard.report",
            "guard.record",
            "guard.record.ledger",
            "guard.record.clones",
        ],
    ),
    (
        "an edit: parsed, targeted, located, checked",
        [
            "guard.dialects",
            "guard.structural",
            "guard.reading",
            "guard.locate",
            "guard.checks",
            "guard.files.target",
        ],
    ),
    (
        "a turn: staged, verified, rendered",
        [
            "guard.record.stage",
            "guard.record.sessions",
            "guard.record.snapshot",
            "guard.workspace",
            "guard.verify",
            "guard.report.render",
        ],
    ),
    (
        "the pipeline and the commit check",
        ["guard.pipeline", "guard.commit_check"],
    ),
    (
        "what works on turns already made",
        [
            "guard.turns",
        ],
    ),
    (
        "the edges: command line, adapters, the warm server, the API",
        ["guard.cli", "guard.adapters", "guard.warm", "guard", "guard.__main__"],
    ),
]


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


def _layer(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for i, (_what, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            below = prefix != "guard" and module.startswith(prefix + ".")  # `guard` is the package's own file only
            if (module == prefix or below) and (best is None or len(prefix) > best[1]):
                best = (i, len(prefix))
    return None if best is None else best[0]


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
                    if target in MODULES and target != name and not typing:
                        out.setdefault((name, target), set()).add("top" if at_top else "lazy")
                visit(child, at_top, typing)

        visit(tree, True, False)
    return out


def test_every_module_has_a_layer() -> None:
    assert sorted(m for m in MODULES if _layer(m) is None) == []


def test_no_import_climbs_back_up() -> None:
    climbs = []
    for (importer, imported), how in sorted(_imports().items()):
        a, b = _layer(importer), _layer(imported)
        if a is not None and b is not None and b > a:
            climbs.append(f"{importer} ({LAYERS[a][0]}) imports {imported} ({LAYERS[b][0]}), {'/'.join(sorted(how))}")
    assert climbs == []


def test_no_import_circle_at_module_level() -> None:
    graph: dict[str, set[str]] = {}
    for (importer, imported), how in _imports().items():
        if "top" in how:
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
