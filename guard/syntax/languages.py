"""Source languages: does a text parse, where does it first fail, what encloses a line.

Python goes through ``ast`` (with the project's target version when known), JSON,
YAML and TOML through their standard parsers, and the common languages through
tree-sitter grammars from the per-language PyPI packages (the ``syntax`` extra
of git-agent-guard).  A grammar is imported the first time a file of its
language is parsed, so start-up pays for none of them; when its package is
missing the language is simply not parsed (``language_for`` says None).

The language-pack wheel is not used: it downloads grammars at run time, which
fails offline.  A tree-sitter parse fails when its tree holds ERROR or MISSING
nodes; the first one in document order is reported.

Lines and columns are 1-based; a column counts characters, not bytes.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..fs.kept import ByStamps, Stamps, by_value
from ..mappings import lookup
from ..text.regex import lazy
from .nesting import deepest
from .python import error as python_error
from .python import new_error as new_python_error


@dataclass(frozen=True, slots=True)
class Problem:
    """Where a text first fails to parse, and the parser's own words."""

    line: int
    column: int
    message: str
    language: str


# Language -> (module, function returning the grammar's language pointer).
GRAMMARS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "c_sharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "bash": ("tree_sitter_bash", "language"),
    "html": ("tree_sitter_html", "language"),
    "css": ("tree_sitter_css", "language"),
}

# Suffix -> languages tried in turn.  A `.h` header is C or C++: the file is held to
# whichever grammar accepted it before the edit.
_BY_SUFFIX: dict[str, tuple[str, ...]] = {}
for _langs, _suffixes in (
    (("python",), "py pyi pyw"),
    (("json",), "json"),
    (("yaml",), "yaml yml"),
    (("toml",), "toml"),
    (("javascript",), "js mjs cjs jsx"),
    (("typescript",), "ts mts cts"),
    (("tsx",), "tsx"),
    (("go",), "go"),
    (("rust",), "rs"),
    (("java",), "java"),
    (("c",), "c"),
    (("c", "cpp"), "h"),
    (("cpp",), "cc cpp cxx c++ hh hpp hxx h++ ipp"),
    (("c_sharp",), "cs"),
    (("ruby",), "rb rake gemspec"),
    (("php",), "php"),
    (("bash",), "sh bash"),
    (("html",), "html htm"),
    (("css",), "css"),
):
    for _suffix in _suffixes.split():
        _BY_SUFFIX[_suffix] = _langs
_BY_NAME: dict[str, tuple[str, ...]] = {"rakefile": ("ruby",), "gemfile": ("ruby",)}


def languages_for(path: str) -> tuple[str, ...]:
    """The languages `path` may be parsed as, by name; () for Markdown, text and the unknown."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    stem, dot, suffix = name.rpartition(".")
    return _BY_SUFFIX.get(suffix, ()) if dot and stem else ()


def available(language: str) -> bool:
    """Can this machine parse `language` (is its grammar package installed)?"""
    if language in ("python", "json", "yaml", "toml"):
        return True
    return _parser(language) is not None


@by_value(None)
def _parser(language: str) -> Any:
    """A tree-sitter parser for `language`, or None when tree-sitter or the grammar is missing."""
    spec = GRAMMARS.get(language)
    if spec is None:
        return None
    try:
        import tree_sitter

        grammar = importlib.import_module(spec[0])
        return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, spec[1])()))
    except (ImportError, AttributeError, ValueError, TypeError):
        # ValueError: a grammar built for an ABI this tree-sitter cannot load.
        return None


def tree_parser(language: str) -> Any:
    """A tree-sitter parser for `language`, or None when tree-sitter or its grammar is missing."""
    return _parser(language)


# --------------------------------------------------------------------------- first problem


def problem(language: str, data: bytes, python: tuple[int, int] | None = None) -> Problem | None:
    """The first parse error of `data` in `language`, or None when it parses (or cannot be parsed here)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if language == "python":
        return _as_problem(python_error(text, python))
    if language == "json":
        return _json(text)
    if language == "yaml":
        return _yaml(text)
    if language == "toml":
        return _toml(text)
    parser = _parser(language)
    if parser is None:
        return None
    root = parser.parse(data).root_node
    if not root.has_error:
        return None
    return _tree_problem(root, data, language)


def new_python_problem(before: bytes, after: bytes, python: tuple[int, int] | None = None) -> Problem | None:
    """The parse error an edit brings into a Python file that parsed, or None.

    None also when the original did not parse (the file is not held to it) or either
    side is not UTF-8.  Only the top-level statements the edit touched are parsed
    when that settles it (see ``guard.syntax.python``).
    """
    try:
        old = before.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        new = after.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _as_problem(new_python_error(old, new, python))


def _as_problem(err: tuple[int, int, str] | None) -> Problem | None:
    return None if err is None else Problem(err[0], err[1], err[2], "python")


def _json(text: str) -> Problem | None:
    from .. import jsonvalue  # here: only a JSON file's check reads JSON this way

    if not text.strip():
        return None  # an empty file is not a JSON document, but it is not broken by an edit either
    try:
        jsonvalue.loads(text)
    except json.JSONDecodeError as exc:
        return Problem(exc.lineno, exc.colno, exc.msg, "json")
    except RecursionError:
        return Problem(1, 1, "nested too deeply", "json")
    return None


def _yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml(text: str) -> Problem | None:
    import yaml  # here: most edits are to other files, and PyYAML is slow to import (bench/README.md)

    # Composing checks the syntax without constructing values, so application tags
    # (`!Ref`, `!!python/name`) are not errors.
    try:
        for _node in yaml.compose_all(text, Loader=_yaml_loader()):
            pass
    except RecursionError:  # PyYAML's own composer (no libyaml) recurses once per level
        return _too_deep(text, "yaml")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return Problem(line, column, " ".join(p for p in (exc.context, exc.problem) if p) or str(exc), "yaml")
    except yaml.YAMLError as exc:
        return Problem(1, 1, str(exc), "yaml")
    return None


_TOML_AT = lazy(r"\s*\(at line (\d+), column (\d+)\)$")


def _toml(text: str) -> Problem | None:
    import tomllib  # only when a TOML file is parsed: start-up does not pay for it

    try:
        tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per nested array or table
        return _too_deep(text, "toml")
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_AT().search(message)
        if m:
            return Problem(int(m.group(1)), int(m.group(2)), message[: m.start()], "toml")
        return Problem(1, 1, message, "toml")
    return None


def _too_deep(text: str, language: str) -> Problem:
    """The problem of a text nested deeper than `language`'s parser can follow: where it gets that deep."""
    line, column = deepest(text)
    return Problem(
        line, column, f"nested too deeply: more brackets open at once than the {language.upper()} parser follows", language
    )


def _first_error(node: Any) -> Any:
    """The leftmost ERROR or MISSING node under `node` (which has an error)."""
    while not (node.is_error or node.is_missing):
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:
            return node
    return node


def _tree_problem(root: Any, data: bytes, language: str) -> Problem:
    node = _first_error(root)
    row, col_bytes = node.start_point
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    column = len(data[line_start : line_start + col_bytes].decode("utf-8", errors="replace")) + 1
    if node.is_missing:
        message = f"missing {node.type!r}"
    else:
        shown = data[node.start_byte : node.end_byte].decode("utf-8", errors="replace").strip().split("\n")[0]
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        message = f"unexpected {shown!r}" if shown else "unexpected end of input"
    return Problem(row + 1, column, message, language)


# --------------------------------------------------------------------------- enclosing blocks


@dataclass(frozen=True, slots=True)
class Span:
    """A construct spanning several lines: rows [start, end], 0-based and inclusive."""

    start: int
    end: int


def enclosing(language: str, data: bytes, row: int) -> list[Span] | None:
    """The constructs that contain both line `row` and the line after it, outermost first.

    None when the file cannot be parsed as `language` here (no grammar, or the file
    has errors): callers then fall back on indentation.
    """
    if language == "python":
        tree = _python_tree(data)
        return None if tree is None else _python_enclosing(tree, row)
    root = _tree(language, data)
    if root is None:
        return None
    out: list[Span] = []
    node = root
    while True:
        for child in node.children:
            (r0, _c0), (r1, _c1) = child.start_point, child.end_point
            if r0 <= row < r1:
                out.append(Span(r0, r1))
                node = child
                break
        else:
            return out


@by_value(4)
def _tree(language: str, data: bytes) -> Any:
    """The root of `data`'s tree-sitter parse, or None (no grammar, or parse errors)."""
    parser = _parser(language)
    if parser is None:
        return None
    root = parser.parse(data).root_node
    return None if root.has_error else root


@by_value(4)
def _python_tree(data: bytes) -> ast.Module | None:
    try:
        text = data.decode("utf-8-sig")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _python_enclosing(tree: ast.Module, row: int) -> list[Span]:
    line = row + 1
    out: list[Span] = []
    node: ast.AST = tree
    while True:
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            last = getattr(child, "end_lineno", None)
            if first is None or last is None:
                continue
            # A decorated definition starts at its first decorator.
            decorators = getattr(child, "decorator_list", None) or []
            first = min([first] + [d.lineno for d in decorators])
            if first <= line < last:
                out.append(Span(first - 1, last - 1))
                node = child
                break
        else:
            return out


# --------------------------------------------------------------------------- the project's Python


_SPEC = lazy(r"(>=|~=|==|>)\s*(\d+)\.(\d+)")


def _lowest(spec: str) -> tuple[int, int] | None:
    """The oldest Python a `requires-python` specifier allows, e.g. '>=3.8,<4' -> (3, 8)."""
    found = [(int(m.group(2)), int(m.group(3))) for m in _SPEC().finditer(spec)]
    return max(found) if found else None


def _short(tag: str) -> tuple[int, int] | None:
    """'py38' or '3.8' -> (3, 8)."""
    m = re.fullmatch(r"py(\d)(\d+)|(\d+)\.(\d+)", tag.strip())
    if not m:
        return None
    major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return int(major), int(minor)


def _targets(data: dict[str, Any]) -> Iterator[tuple[int, int] | None]:
    requires = lookup(data, ("project", "requires-python"))
    yield _lowest(requires) if isinstance(requires, str) else None
    ruff = lookup(data, ("tool", "ruff", "target-version"))
    yield _short(ruff) if isinstance(ruff, str) else None
    black = lookup(data, ("tool", "black", "target-version"))
    if isinstance(black, list):
        versions = [v for v in (_short(t) for t in black if isinstance(t, str)) if v]
        yield min(versions) if versions else None
    mypy = lookup(data, ("tool", "mypy", "python_version"))
    yield _short(str(mypy)) if isinstance(mypy, (str, float)) else None


def python_target(root: Path | None) -> tuple[int, int] | None:
    """The oldest Python the project at `root` supports (pyproject.toml), if it says.

    Only a target older than the running interpreter narrows the parse: ``ast``
    cannot parse syntax newer than itself.
    """
    if root is None:
        return None
    path = str(root / "pyproject.toml")
    stamps = _TARGETS.get(path)
    if stamps is not None:
        return stamps[0]
    found = Stamps.now([path])  # before the read: a change during it is a change after it
    target = _target(path) if found.files[0][1] is not None else None
    _TARGETS.keep(path, found, (target,))
    return target


_TARGETS: ByStamps[tuple[tuple[int, int] | None]] = ByStamps(16)  # pyproject.toml -> its target, kept by its stamp


def _target(path: str) -> tuple[int, int] | None:
    import tomllib

    from ..fs.filekind import read_regular

    try:
        # A pipe there must not hold the check (read_regular never waits), nor nesting crash it.
        data = tomllib.loads(read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    for target in _targets(data):
        if target is not None and target[0] == 3:
            if target >= sys.version_info[:2]:
                return None
            return max(target, (3, 7))
    return None


# --------------------------------------------------------------------------- indentation that means something


def indentation_means(path: str, before: str, after: str) -> bool | None:
    """For a file whose indentation is its structure (Python, YAML): whether `after`, which differs
    from `before` only in how lines are indented, means something else.  True: both parse and the
    structure differs; False: it means the same (the lines merely moved) or `after` no longer
    parses where `before` did (it breaks); None: the language's indentation means nothing, or it
    cannot be told (`before` does not parse)."""
    langs = languages_for(path)
    if "python" in langs:
        old, _err = _python_dump(before)
        if old is None:
            return None
        new, _err = _python_dump(after)
        return new is not None and new != old
    if "yaml" in langs:
        import yaml

        try:
            old_nodes = [_shape(n) for n in yaml.compose_all(before, Loader=_yaml_loader())]
        except (yaml.YAMLError, RecursionError):
            return None
        try:
            new_nodes = [_shape(n) for n in yaml.compose_all(after, Loader=_yaml_loader())]
        except (yaml.YAMLError, RecursionError):
            return False
        return new_nodes != old_nodes
    return None


def _python_dump(text: str) -> tuple[str | None, str | None]:
    try:
        return ast.dump(ast.parse(text)), None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, str(exc)


def _shape(node: Any) -> Any:
    """A composed YAML node as plain values: what its indentation made it."""
    value = node.value
    if isinstance(value, list):
        return (node.tag, [(_shape(item[0]), _shape(item[1])) if isinstance(item, tuple) else _shape(item) for item in value])
    return (node.tag, value)
