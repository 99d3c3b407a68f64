"""Syntax blocks: the multi-line constructs of a file, each named by the line that opens it.

A hashline block op (``PUT 12*:``, ``PUT >12*:``, ``CUT 12*``) names a block by its
first line; this module says where each block ends.  A line opens a block when a syntax
node spanning more than one line starts at its first non-blank character; when several
do, the outermost is the block (``export function f() {`` is the whole export).  Read:

- Python with ``ast``: every statement, clause (``except``, ``case``) and expression
  node; a decorated definition opens on its first decorator (its ``def`` line still
  opens the undecorated definition).
- the languages of ``languages.GRAMMARS`` with their tree-sitter grammars: every named
  node that is not the whole file, holds no parse error and is not inside one.
  Decorators and attributes written before an item (TypeScript and JavaScript
  ``@decorator`` lines in a class body, Rust ``#[...]`` lines) open the item with them.
- Markdown headings (ATX ``#`` lines and setext underlines, outside fenced code): a
  heading's block runs to the last non-blank line before the next heading of the same
  or a higher level, so it holds its deeper headings and their text.

A block never takes the blank lines after it.  Any other file has no blocks to name:
``Unreadable`` says why (no grammar installed, or the file does not parse).
"""

from __future__ import annotations

import ast
import warnings
from typing import Any, Sequence

from ..text.regex import lazy
from . import languages

# Nodes written before the item they belong to, as siblings of it.
_PREFIXES = frozenset(("decorator", "attribute_item"))
_MARKDOWN = frozenset(("md", "markdown", "mdx"))
_ATX = lazy(r" {0,3}(#{1,6})(?:[ \t].*|)")
_SETEXT = lazy(r" {0,3}(=+|-+)[ \t]*")
_FENCE = lazy(r" {0,3}(`{3,}|~{3,})")


class Unreadable(Exception):
    """The file's blocks cannot be read: no grammar for its kind, or it does not parse."""


def spans(path: str, lines: Sequence[str]) -> dict[int, int]:
    """Every block of the file `path` holding `lines`: its opening line -> its last line (1-based)."""
    suffix = path.rsplit("/", 1)[-1].rpartition(".")[2].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix in _MARKDOWN:
        return _markdown(lines)
    langs = languages.languages_for(path)
    if "python" in langs:
        return _python("\n".join(lines))
    for language in langs:
        parser = languages.tree_parser(language)
        if parser is not None:
            return _tree(parser, lines, language)
    if langs:
        raise Unreadable(
            f"the {langs[0]} grammar is not installed here (install agent-guard with its syntax extra: git-agent-guard[syntax])"
        )
    name = path.rsplit("/", 1)[-1]
    raise Unreadable(f"agent-guard reads syntax blocks in Python, Markdown and {_grammar_names()}, not in {name!r}")


def _grammar_names() -> str:
    return ", ".join(sorted(languages.GRAMMARS))


def enclosing(found: dict[int, int], line: int) -> tuple[int, int] | None:
    """The innermost block holding `line` that opens above it."""
    best: tuple[int, int] | None = None
    for start, end in found.items():
        if start < line <= end and (best is None or start > best[0]):
            best = (start, end)
    return best


def nearest(found: dict[int, int], line: int, count: int = 5) -> list[int]:
    """The opening lines nearest `line`, in file order."""
    return sorted(sorted(found, key=lambda s: (abs(s - line), s))[:count])


# --------------------------------------------------------------------------- Python


def _python(text: str) -> dict[int, int]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError as exc:
        raise Unreadable(f"it does not parse as Python (line {exc.lineno}: {exc.msg})") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise Unreadable(f"it does not parse as Python ({type(exc).__name__})") from None
    lines = text.split("\n")
    found: dict[int, int] = {}
    for node in ast.walk(tree):
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        col = getattr(node, "col_offset", None)
        if first is None or last is None or col is None:
            continue
        if _opens_line(lines, first, col):
            _note(found, first, last)
        decorators = getattr(node, "decorator_list", None)
        # A decorator's `@` is one character before its expression.
        if decorators and _opens_line(lines, decorators[0].lineno, decorators[0].col_offset - 1):
            _note(found, decorators[0].lineno, last)
    return found


def _opens_line(lines: list[str], line: int, col: int) -> bool:
    """Whether UTF-8 byte column `col` of `line` (1-based) is where its first non-blank character is."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    indent = len(text) - len(text.lstrip())
    return col == len(text[:indent].encode("utf-8")) and indent < len(text)


def _note(found: dict[int, int], first: int, last: int) -> None:
    if last > first and last > found.get(first, first):
        found[first] = last


# --------------------------------------------------------------------------- tree-sitter


def _tree(parser: Any, lines: Sequence[str], language: str) -> dict[int, int]:
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    root = parser.parse(data).root_node
    indents = [len(ln.encode("utf-8", "surrogatepass")) - len(ln.lstrip().encode("utf-8", "surrogatepass")) for ln in lines]
    found: dict[int, int] = {}
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        children = node.named_children
        for i, child in enumerate(children):
            if child.is_error or child.type == "ERROR":
                continue  # nothing inside a part that does not parse is a block
            row, col = child.start_point
            if not child.has_error and row < len(indents) and col == indents[row]:
                last = _last_row(child)
                if child.type in _PREFIXES:
                    item = next((c for c in children[i + 1 :] if c.type not in _PREFIXES), None)
                    if item is not None and not item.has_error:
                        last = max(last, _last_row(item))
                _note(found, row + 1, last + 1)
            stack.append(child)
    return found


def _last_row(node: Any) -> int:
    row, col = node.end_point
    return int(row) if col > 0 or row == node.start_point[0] else int(row) - 1


# --------------------------------------------------------------------------- Markdown


def _markdown(lines: Sequence[str]) -> dict[int, int]:
    headings: list[tuple[int, int]] = []  # (line, level)
    fence: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE().match(line)
        if m is not None:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :].strip():
                fence = None
            continue
        if fence is not None:
            continue
        atx = _ATX().fullmatch(line)
        if atx is not None:
            headings.append((i + 1, len(atx.group(1))))
            continue
        under = _SETEXT().fullmatch(line)
        if (
            under is not None
            and i > 0
            and lines[i - 1].strip()
            and not _ATX().fullmatch(lines[i - 1])
            and (i < 2 or not lines[i - 2].strip())
            and not lines[i - 1].startswith((" " * 4, "\t"))
        ):
            headings.append((i, 1 if under.group(1)[0] == "=" else 2))
    found: dict[int, int] = {}
    for k, (start, level) in enumerate(headings):
        stop = next((h for h, lv in headings[k + 1 :] if lv <= level), len(lines) + 1)
        last = stop - 1
        while last > start and not lines[last - 1].strip():
            last -= 1
        _note(found, start, last)
    return found
