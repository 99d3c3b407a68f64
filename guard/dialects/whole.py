"""Whole files: each file's complete new content, in a fence labelled with its path.

Grammar::

    reply  = { prose | file }
    file   = path-label NL fence        -- or the path glued to the opener
    fence  = opener NL { line } closer  -- ``` or ~~~, 3+ characters (see fences.py)

The label is the last non-blank line before the opener, in any shape of
:func:`fences.path_label` (``src/x.py``, `` `src/x.py` ``, ``src/x.py:``,
``## src/x.py``, ``**src/x.py**``, ``File: src/x.py``), or the path glued to
the opener (```` ```python src/x.py ````, ```` ```src/x.py ````,
```` ```py title="src/x.py" ````).  Each file becomes an upsert,
``FileEdit(op=MODIFY, create_missing=True, content=body)``, with the body's line
terminators as written.

Refused: a fence with no path label (every fence of a whole-file reply is a
file), a fence never closed (a truncated reply would truncate the file), and the
same file given twice.

``parse(text, path=P)`` (``--format whole --path P``) takes the raw text as the
whole content of ``P``: no fence or label is looked for.
"""

from __future__ import annotations

from ..model import EditSet, FileEdit, Op, ParseError
from . import fences, jsonedit, searchreplace

NAME = "whole"

SHAPE = "path/to/file.py\n```python\nthe complete new content of the file\n```"


def _hint() -> str:
    return f"write each file as:\n{SHAPE}\nor pass --path P to take the whole input as the content of P"


def _file(fence: fences.Fence, seen: dict[str, int]) -> FileEdit:
    path = fences.fence_path(fence)
    if path is None:
        before = f"the line before it is {fence.preceding!r}" if fence.preceding else "nothing precedes it"
        raise ParseError(
            f"the fence at line {fence.opener_line} is not labelled with a file path ({before})",
            fence.opener_line,
            _hint(),
        )
    if fence.closer_line is None:
        raise ParseError(
            f"the fence for {path} opened at line {fence.opener_line} is never closed: the reply looks cut short",
            fence.opener_line,
            "send the whole file again, ending its fence with the opening marker",
            path,
        )
    if path in seen:
        raise ParseError(
            f"{path} is given whole twice, at lines {seen[path]} and {fence.opener_line}",
            fence.opener_line,
            "send each file once, with its final content",
            path,
        )
    seen[path] = fence.opener_line
    return FileEdit(path, Op.MODIFY, content=fence.body, create_missing=True, source_line=fence.opener_line)


def parse(text: str, path: str | None = None) -> EditSet:
    """Parse path-labelled fences, or with `path` take `text` as that file's content."""
    if path is not None:
        return EditSet(files=(FileEdit(path, Op.MODIFY, content=text, create_missing=True, source_line=1),), format=NAME)
    found = fences.extract(text)
    if not found:
        raise ParseError("no fenced file found in the input", 1, _hint())
    seen: dict[str, int] = {}
    return EditSet(files=tuple(_file(f, seen) for f in found), format=NAME)


def _other_dialect(text: str) -> bool:
    return fences.looks_like_patch(text) or searchreplace.detect(text) > 0 or jsonedit.detect(text) > 0


def detect(text: str) -> int:
    """20 when every fence is closed and labelled with a plausible path; 0 otherwise,
    and 0 whenever the text reads as a diff, a patch, SEARCH/REPLACE or JSON."""
    found = fences.extract(text)
    if not found or _other_dialect(text):
        return 0
    labelled = all(f.closer_line is not None and fences.fence_path(f) for f in found)
    return 20 if labelled else 0
