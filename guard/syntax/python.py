"""Python syntax, checked edit by edit.

Parsing a whole module costs many times what one function does (bench/README.md), most of
it building the tree, while an edit usually touches one function.  So the check works from the module's *outline*:
the lines where its top-level statements start (a decorated one at its first
decorator).  At such a line Python's tokenizer is in its plain state: no bracket or
string open, no line continuation, indent zero.

When an edit's changes lie between two outline lines of the original, the text
before the first and from the second on is the original's, unchanged, and begins
and ends in that plain state.  The edited text then parses when the stretch between
them parses on its own; when that stretch does not, the whole text is parsed, so
the error and its line are the parser's own.  (If the original itself fails outside
the stretch, the file is not held to parsing: the same answer.)  A stretch holding
``from __future__``, which only the top of a module may have, is not judged alone.

Outlines are kept by the text they outline (``fs.kept.ByValue``; a large text by its hash): a
function of the text alone, so a kept one can never be stale.  The original's outline comes from a
previous edit in this process (the edited
text's outline follows from the original's and the stretch's, so a session's next
edit to the file is as cheap), from a full parse, or failing both from a lexer
(`_lexed`) that finds string literals, comments, brackets and continuations with
regular expressions, several times faster than a parse.  It may miss a start (a
statement that opens with a string or a bracket is not taken), which costs only a
longer stretch; on anything it does not follow (an unterminated string, a closing
bracket too many) it gives up and the whole text is parsed.

Errors are (line, column, message), 1-based, as ``SyntaxError`` gives them.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings

from ..fs.kept import ByValue
from ..text.regex import lazy

Error = tuple[int, int, str]
Target = tuple[int, int] | None

_KEY_SIZE = 1 << 17  # texts up to this many characters are their own keys (at most ~8 M chars held)
_STARTS: ByValue[str | bytes, tuple[int, ...]] = ByValue(32)  # digest -> outline (lexically plain lines)
_VERDICTS: ByValue[tuple[str | bytes, Target], tuple[Error | None]] = ByValue(32)  # whole-text parses


def _digest(text: str) -> str | bytes:
    """The key a text is remembered by: itself (a dict hashes a str once, fast), or a digest if large."""
    if len(text) <= _KEY_SIZE:
        return text
    import hashlib  # here: most texts are their own keys, and a command that never hashes need not import it

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def parse(text: str, target: Target = None) -> tuple[ast.Module | None, Error | None]:
    """The module's tree, or its first error; `target` is the oldest Python the project supports."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like are warnings, not errors
            if target is not None:
                return ast.parse(text, feature_version=target), None
            return ast.parse(text), None
    except SyntaxError as exc:
        return None, (exc.lineno or 1, exc.offset or 1, exc.msg)
    except ValueError as exc:  # NUL bytes
        return None, (1, 1, str(exc))
    except (RecursionError, MemoryError):  # absurd nesting: the parser's stack, or the tree's builder, ran out
        from .nesting import deepest

        return None, (*deepest(text), "nested too deeply for Python's parser (brackets, operators or calls nested hundreds deep)")


def _ast_starts(tree: ast.Module) -> list[int]:
    """0-based lines where the module's statements start at column 0 (after a `;` they do not)."""
    out = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", None) or []
        if node.col_offset == 0 or decorators:
            out.append(min([node.lineno] + [d.lineno for d in decorators]) - 1)
    return out


def error(text: str, target: Target = None, key: str | bytes | None = None) -> Error | None:
    """The first error of the whole text, or None when it parses; remembered."""
    k = (key or _digest(text), target)
    known = _VERDICTS.get(k)
    if known is not None:
        return known[0]
    tree, err = parse(text, target)
    _VERDICTS.keep(k, (err,))
    if tree is not None:
        _STARTS.keep(k[0], tuple(_ast_starts(tree)))
    return err


# --------------------------------------------------------------------------- the lexer

# A comment or a complete string literal: triple-quoted (across lines or not), or in
# single quotes (across lines only after a backslash).  Triple quotes are tried first:
# a single-quote pattern would take `""` for an empty string.
_LITERAL = lazy(
    r"#[^\n]*"
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"',
    re.DOTALL,
)
# How a triple-quoted f-string opens (prefix f, rf or fr in any case): its fields may
# hold strings in its own quotes (Python 3.12), which the lexer does not follow.
_F_TRIPLES = tuple(p + q for q in ('"""', "'''") for p in ("f", "F", "fr", "fR", "Fr", "FR"))
_CLAUSE = lazy(r"(?:else|elif|except|finally)\b")
_HEAD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_@")
_NOT_BRACKET = bytes(c for c in range(256) if chr(c) not in "()[]{}\n")


def _blank(m: re.Match[str]) -> str:
    # Blank lines between two markers, so the line after the literal does not look
    # like a line start either.
    return "\x00" + "\n" * m.group().count("\n") + "\x00"


def _lexed(text: str) -> list[int] | None:
    """0-based lines where a top-level statement starts, found by lexing; None when unsure."""
    if any(f in text for f in _F_TRIPLES):  # `in` is much faster than a regex search here
        return None
    skeleton = _LITERAL().sub("\x00", text)  # no Python call per literal: the common case
    if skeleton.count("\n") != text.count("\n"):
        skeleton = _LITERAL().sub(_blank, text)  # some literal spans lines: keep its lines
    if "'" in skeleton or '"' in skeleton:
        return None  # a quote that opens no complete literal
    lines = skeleton.split("\n")
    # Brackets that close on the line they open on are dropped, pair by pair; what is
    # left opens or closes across lines.
    brackets = skeleton.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET)
    while True:
        fewer = brackets.replace(b"()", b"").replace(b"[]", b"").replace(b"{}", b"")
        if len(fewer) == len(brackets):
            break
        brackets = fewer
    inside: set[int] = set()  # lines that start within brackets
    if brackets.strip(b"\n"):
        depth = 0
        for i, seg in enumerate(brackets.split(b"\n")):
            if depth:
                inside.add(i)
            if seg:
                depth += 2 * (seg.count(b"(") + seg.count(b"[") + seg.count(b"{")) - len(seg)
                if depth < 0:
                    return None
    out = []
    decorated = False
    for i in [i for i, ln in enumerate(lines) if ln[:1] in _HEAD]:
        ln = lines[i]
        if i in inside or _CLAUSE().match(ln):
            continue
        if i and lines[i - 1].rstrip("\r").endswith("\\"):
            continue  # a continued line
        if not decorated:  # the `def` under a decorator is not a start of its own
            out.append(i)
        decorated = ln[0] == "@"
    return out


def starts(text: str, key: str | bytes | None = None) -> tuple[int, ...] | None:
    """The text's outline: remembered, or lexed (and remembered); None when the lexer gives up."""
    k = key or _digest(text)
    got = _STARTS.get(k)
    if got is None:
        lexed = _lexed(text)
        if lexed is None:
            return None
        got = tuple(lexed)
        _STARTS.keep(k, got)
    return got


# --------------------------------------------------------------------------- an edit


def new_error(before: str, after: str, target: Target = None) -> Error | None:
    """The error `after` has where `before` parsed; None when it parses or `before` did not."""
    key = _digest(after)
    known = _VERDICTS.get((key, target))
    err = known[0] if known is not None else _stretch_error(before, after, target, key)
    if err is None:
        return None
    return err if error(before, target) is None else None


def _common_head(a: str, b: str, limit: int) -> int:
    """How many leading characters `a` and `b` share, up to `limit`: slices compared, halving."""
    if a[:limit] == b[:limit]:
        return limit
    lo, hi = 0, limit  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return lo


def _common_tail(a: str, b: str, limit: int) -> int:
    """How many trailing characters `a` and `b` share, up to `limit`."""
    la, lb = len(a), len(b)
    if a[la - limit :] == b[lb - limit :]:
        return limit
    lo, hi = 0, limit  # tails of length lo agree, of length hi do not
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
        lo += 1
    return lo


def _line_start(text: str, at: int, line: int, want: int) -> int:
    """Where line `want` of `text` starts, walking from offset `at`, where line `line` starts."""
    while line > want:
        at = text.rfind("\n", 0, at - 1) + 1
        line -= 1
    while line < want:
        at = text.index("\n", at) + 1
        line += 1
    return at


def _stretch_error(before: str, after: str, target: Target, key: str | bytes) -> Error | None:
    """None when the stretch the edit touched parses; else the whole text's error (or None)."""
    outline = None
    # A lone CR ends a line for Python, not for the split below.
    if all("\r" not in t or t.count("\r") == t.count("\r\n") for t in (before, after)):
        outline = starts(before)
    if not outline:
        return error(after, target, key)
    # Lines the two texts share at the start (p) and at the end (q), found on the
    # characters (memory compares) and counted by `str.count`: no list of lines.
    short = min(len(before), len(after))
    c = _common_head(before, after, short)
    e = _common_tail(before, after, short - c)
    p = before.count("\n", 0, c)
    q = before.count("\n", len(before) - e) if e else 0
    n_old = p + before.count("\n", c, len(before) - e) + q + 1
    n_new = p + after.count("\n", c, len(after) - e) + q + 1
    q = min(q, min(n_old, n_new) - p)
    # From the last start at or before the line above the first change (an insertion
    # at a start may belong to the statement above) to the first start after the
    # last change.
    i = bisect.bisect_right(outline, max(p - 1, 0)) - 1
    lo = outline[i] if i >= 0 else 0
    j = bisect.bisect_left(outline, max(n_old - q, lo + 1))
    hi_old = outline[j] if j < len(outline) else n_old
    shift = n_new - n_old
    hi = hi_old + shift
    at_p = after.rfind("\n", 0, c) + 1  # where line p starts (the texts agree up to c)
    begin = _line_start(after, at_p, p, lo)
    stretch = after[begin : _line_start(after, at_p, p, hi) if hi < n_new else len(after)]
    tree, _ = parse(stretch, target)
    if tree is None or (lo > 0 and any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in tree.body)):
        return error(after, target, key)
    kept = outline[: bisect.bisect_left(outline, lo)]
    moved = outline[j:] if not shift else tuple(x + shift for x in outline[j:])
    derived = (*kept, *(lo + x for x in _ast_starts(tree)), *moved)
    _STARTS.keep(key, derived)
    return None
