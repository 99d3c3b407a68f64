"""ast-grep's Python binding (``ast-grep-py``, the ``structural`` extra): the one module
that imports it.

- ``problem``: why ast-grep will not take a pattern (more than one node, no node, a lone
  ``$$$LIST``, a selector that names no node of it), in its own words;
- ``rewrite``: one pattern's matches in a file's text, and the text with each replaced
  as ``ast-grep run --rewrite`` replaces it: the matches ``find_all`` gives, in its order
  (a match before the nodes inside it), each kept unless it starts before the end of the
  last one kept, its node's whole span replaced by the filled template.  The node can
  hold more than the pattern says: ast-grep's default matching skips a `;`, a comma, a
  comment, and whatever follows once the pattern is used up (`let $A = $B` matches all of
  `let a = 1, b = 2;`), all of which the replacement drops.  Such a match is named
  (``Rewritten.partial``): the same pattern does not match the node when nothing may be
  skipped (ast-grep's `cst` strictness);
- ``syntax_error``: where a pattern does not parse as code of its language (ast-grep
  takes such a pattern, and its error node matches anything: said when nothing matched).

Positions are the binding's: indexes of characters of the Python string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from . import template
from .languages import Language, pattern_source

if TYPE_CHECKING:
    from ast_grep_py import SgNode

INSTALL = "pip install 'ast-grep-py>=0.51' (the git-agent-guard[structural] extra)"


class Unavailable(Exception):
    """ast-grep's Python binding is not installed."""


def _binding() -> Any:
    try:
        import ast_grep_py
    except ImportError:
        raise Unavailable(INSTALL) from None
    return ast_grep_py


@dataclass(frozen=True, slots=True)
class Match:
    """One replacement: where the matched node is, its text, and what replaces it."""

    start: int
    end: int
    line: int  # 1-based line of its start
    text: str
    new: str


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A file's text after one pattern: the matches kept, the names `to` uses that a match left
    unbound, and the matches that hold more than the pattern says (``rewrite``)."""

    text: str
    matches: tuple[Match, ...]
    unbound: tuple[tuple[str, Match], ...] = ()  # ($NAME, the first match that did not bind it)
    partial: tuple[Match, ...] = ()


def rule(pattern: str, selector: str | None, strictness: str | None = None) -> dict[str, Any]:
    """The binding's rule for a pattern (with a selector: the pattern is context, the node of that
    kind inside it is matched; with a strictness: ast-grep's, instead of its default `smart`)."""
    if selector is None and strictness is None:
        return {"pattern": pattern}
    spec: dict[str, Any] = {"context": pattern, "selector": selector}
    if strictness is not None:
        spec["strictness"] = strictness
    return {"pattern": spec}


def _reason(exc: BaseException) -> str:
    """ast-grep's own sentence from its error chain (the last cause, without the backtrace)."""
    text = str(exc).split("\nStack backtrace:", 1)[0]
    causes = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not causes:
        return type(exc).__name__
    number, colon, said = causes[-1].partition(": ")
    return said if colon and number.isdigit() else causes[-1]


def problem(pattern: str, selector: str | None, lang: Language) -> str | None:
    """Why ast-grep refuses the pattern in `lang` (its own words), or None when it takes it."""
    binding = _binding()
    try:
        binding.SgRoot("", lang.name).root().find(**rule(pattern, selector))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # the binding's errors, a Rust panic among them, are no exceptions of ours
        return _as_written(_reason(exc), pattern, pattern_source(pattern, lang))
    return None


def _as_written(said: str, pattern: str, source: str) -> str:
    """ast-grep's words with each `quoted` piece of the pattern's parser source given back as the
    pattern spells it: its messages quote what its parser read, where each metavariable's `$` is the
    language's stand-in (``pattern_source``, one character for one, so a piece found at an index of
    the source is the pattern's text at that index)."""
    if source == pattern:
        return said
    pieces = said.split("`")
    for i in range(1, len(pieces), 2):  # the odd pieces are between backquotes
        at = source.find(pieces[i]) if pieces[i] else -1
        if at >= 0:
            pieces[i] = pattern[at : at + len(pieces[i])]
    return "`".join(pieces)


def syntax_error(pattern: str, lang: Language) -> tuple[int, int, str] | None:
    """Where `pattern` does not parse as `lang` (1-based line and column, the text there), or None.

    The text is the pattern's own, as the agent spelled it: the parser reads the pattern with each
    metavariable's `$` as the language's stand-in (``pattern_source``, one character for one), and
    an agent shown `def µF(` for the `def $F(` it wrote cannot tell what went wrong."""
    binding = _binding()
    source = pattern_source(pattern, lang)
    root = binding.SgRoot(source, lang.name).root()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind() == "ERROR":
            where = node.range()
            return where.start.line + 1, where.start.column + 1, pattern[where.start.index : where.end.index]
        stack.extend(reversed(node.children()))
    return None


def rewrite(
    text: str, lang: Language, pattern: str, selector: str | None, to: str, parsed: tuple[template.Slot, ...]
) -> Rewritten:
    """`text` with every match of the pattern replaced (see the module doc)."""
    binding = _binding()
    root = binding.SgRoot(text, lang.name).root()
    found = root.find_all(**rule(pattern, selector))
    if not found:
        return Rewritten(text, ())
    singles = tuple(dict.fromkeys(s.name for s in parsed if not s.many))
    whole = rule(pattern, selector, "cst")
    kept: list[Match] = []
    partial: list[Match] = []
    unbound: dict[str, Match] = {}
    pieces: list[str] = []
    last = 0
    for node in found:
        where = node.range()
        start, end = where.start.index, where.end.index
        if start < last:
            continue  # inside (or across) a match already replaced
        new = template.fill(to, parsed, text, start, *_lookups(node))
        match = Match(start, end, where.start.line + 1, text[start:end], new)
        for name in singles:
            if name not in unbound and node.get_match(name) is None:
                unbound[name] = match
        if not node.matches(**whole):
            partial.append(match)
        kept.append(match)
        pieces.append(text[last:start])
        pieces.append(new)
        last = end
    pieces.append(text[last:])
    return Rewritten("".join(pieces), tuple(kept), tuple(unbound.items()), tuple(partial))


def _lookups(node: SgNode) -> tuple[Callable[[str], tuple[int, int] | None], Callable[[str], tuple[int, int] | None]]:
    """What each metavariable of `node`'s match spans: a single node's, a list's."""
    return (lambda name: _span(node.get_match(name))), (lambda name: _list_span(node.get_multiple_matches(name)))


def _span(node: SgNode | None) -> tuple[int, int] | None:
    if node is None:
        return None
    where = node.range()
    return where.start.index, where.end.index


def _list_span(nodes: list[SgNode]) -> tuple[int, int] | None:
    if not nodes:
        return None
    return nodes[0].range().start.index, nodes[-1].range().end.index
