"""Markdown code fences in an agent's reply, and the file paths that label them.

Grammar accepted by :func:`extract` (CommonMark fenced code blocks, leniently)::

    opener  = indent marker info          marker = 3+ "`" | 3+ "~"
    body    = any lines, up to the closer (or to the end of the input)
    closer  = indent' same-char marker of at least the opener's length, then blanks

- ``indent`` is any run of spaces/tabs (replies nest fences in list items); a
  closer may be indented at most three columns more than its opener, and up to
  ``len(indent)`` leading blanks are removed from each body line, so a fence in
  a list item gives the same body as one at column 0.
- A backtick opener's info string may not contain a backtick (``` ```x``` ``` is
  inline code, not a fence).  A closer has no info string: inside a fence a line
  such as ```` ```python ```` is body text.
- Line terminators inside the body are kept as written (``\\r\\n`` stays), and
  only ``\\n`` ends a line, as for git.
- An unterminated last fence runs to the end of the input (``closer_line`` None):
  a truncated reply, which callers may refuse.

A fence's file path (:func:`fence_path`) comes from the info string
(```` ```python src/x.py ````, ```` ```src/x.py ````, ```` ```py title="x.py" ````,
```` ```python:src/x.py ````) or else from the last non-blank line before the
opener, when that line names a file alone (:func:`path_label`): ``src/x.py``,
`` `src/x.py` ``, ``src/x.py:``, ``# src/x.py``, ``**src/x.py**``,
``File: src/x.py`` and combinations of these.

No I/O; every function is linear in its input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.regex import lazy

_OPENER = lazy(r"(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)")
_CLOSER = lazy(r"(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})[ \t\r]*")

# Extension-less names a reply may label a fence with.
_BARE_NAMES = frozenset(
    """Makefile GNUmakefile Dockerfile Containerfile Jenkinsfile Vagrantfile Procfile Gemfile
    Rakefile Brewfile Pipfile Justfile Caddyfile Snakefile Tiltfile Earthfile Taskfile
    README LICENSE COPYING NOTICE AUTHORS CHANGELOG CODEOWNERS""".split()
)
# Characters that do not occur in the paths agents name but do occur in prose.
_NOT_IN_PATH = frozenset("<>\"|?*`',;!")
_LABEL_PREFIX = lazy(r"(?i)^(?:[*_]{1,2})?(?:file ?path|file ?name|file|path)\s*:\s*(?:[*_]{1,2}(?=\S))?\s*")
_NOTE = lazy(r"\s+\([^()]*\)$")
_LIST_BULLET = lazy(r"^(?:[-+*]|\d{1,3}[.)])\s+")
_INFO_KEY = lazy(r"""^(?:title|file|filename|path|name)=["']?(?P<value>[^"']+)["']?$""")
_INFO_COLON = lazy(r"^(?:[\w+#.-]*:)+(?P<path>[^:]+)$")

_PATCH_LINE = lazy(
    r"^(?:diff --git |\*\*\* Begin Patch|\*\*\* (?:Update|Add|Delete) File: |@@ -\d|--- \S.*\n\+\+\+ \S)",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Fence:
    info: str  # the info string, stripped: "", "python", "py title=\"x.py\""
    body: str  # the lines between opener and closer, terminators kept
    start_line: int  # 1-based line of the body's first line
    opener_line: int  # 1-based line of the opening fence
    preceding: str  # last non-blank line before the opener, stripped ("" if none)
    closer_line: int | None = None  # None: the input ended inside the fence


def split_lines(text: str) -> list[str]:
    """`text` cut after every "\\n", terminators kept (a CR stays in its line)."""
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def opener(line: str) -> tuple[str, str, str] | None:
    """(indent, marker, info) when `line` opens a fence, else None."""
    m = _OPENER().fullmatch(line.rstrip("\n"))
    if m is None:
        return None
    info = m["info"].strip()
    if m["marker"][0] == "`" and "`" in info:
        return None
    return m["indent"], m["marker"], info


def _closes(line: str, marker: str, indent: int) -> bool:
    m = _CLOSER().fullmatch(line.rstrip("\n"))
    return m is not None and m["marker"][0] == marker[0] and len(m["marker"]) >= len(marker) and len(m["indent"]) <= indent + 3


def _dedent(line: str, width: int) -> str:
    i = 0
    while i < width and i < len(line) and line[i] in " \t":
        i += 1
    return line[i:]


def extract(text: str) -> list[Fence]:
    """Every fenced block of `text`, in order (see the module doc for the grammar)."""
    if "```" not in text and "~~~" not in text:
        return []  # no opener: a fence marker is three backticks or tildes
    lines = split_lines(text)
    fences: list[Fence] = []
    preceding = ""
    i = 0
    while i < len(lines):
        found = opener(lines[i])
        if found is None:
            if lines[i].strip():
                preceding = lines[i].strip()
            i += 1
            continue
        indent, marker, info = found
        j = i + 1
        while j < len(lines) and not _closes(lines[j], marker, len(indent)):
            j += 1
        body_lines = lines[i + 1 : j]
        if indent:
            body_lines = [_dedent(line, len(indent)) for line in body_lines]
        closer = j + 1 if j < len(lines) else None
        fences.append(Fence(info, "".join(body_lines), i + 2, i + 1, preceding, closer))
        preceding = lines[j].strip() if j < len(lines) else preceding
        i = j + 1
    return fences


def looks_like_path(text: str, spaces: bool = False) -> bool:
    """Whether `text` is plausibly a file path an agent named (not prose, not code)."""
    if not text or len(text) > 1024 or text in (".", "..", "...") or "://" in text:
        return False
    if text[0] in "-+@=" or text[-1] in ".:" or not any(c.isalnum() for c in text):
        return False
    if any(c in _NOT_IN_PATH for c in text):
        return False
    if not spaces and any(c.isspace() for c in text):
        return False
    if spaces and (text != text.strip() or "\t" in text):
        return False
    return "/" in text or "\\" in text or "." in text or text in _BARE_NAMES


def _unwrap(text: str) -> tuple[str, bool]:
    """Strip one layer of label decoration; the flag says backticks were removed."""
    s = text.strip()
    s = _LIST_BULLET().sub("", s, count=1)
    if s.startswith("#"):
        return s.lstrip("#").strip(), False
    m = _LABEL_PREFIX().match(s)
    if m and m.end() < len(s):
        return s[m.end() :].strip(), False
    if s.endswith(":"):
        return s[:-1].rstrip(), False
    note = _NOTE().search(s)
    if note:  # "src/new.py (new file)"
        return s[: note.start()], False
    for wrap in ("**", "__", "*", "_", '"', "'"):
        if len(s) > 2 * len(wrap) and s.startswith(wrap) and s.endswith(wrap):
            return s[len(wrap) : -len(wrap)].strip(), False
    if len(s) > 2 and s.startswith("`") and s.endswith("`") and "`" not in s[1:-1]:
        return s[1:-1].strip(), True
    return s, False


def path_label(line: str) -> str | None:
    """The path named by a label line such as "**`src/x.py`**:", or None."""
    s = line.strip()
    quoted = False
    for _ in range(8):  # decoration layers models stack: heading, bold, code, colon
        nxt, ticked = _unwrap(s)
        quoted = quoted or ticked
        if nxt == s:
            break
        s = nxt
    return s if looks_like_path(s, spaces=quoted) else None


def path_in_info(info: str) -> str | None:
    """A path glued to a fence opener: "python src/x.py", "src/x.py", "py title=\\"x.py\\"",
    "python:src/x.py"; None for a bare language tag such as "python" or "c++"."""
    tokens = info.split()
    for token in tokens:
        m = _INFO_KEY().match(token)
        if m and looks_like_path(m["value"]):
            return m["value"]
    if not tokens or len(tokens) > 2:
        return None
    candidate = tokens[-1]
    m = _INFO_COLON().match(candidate)
    if m and not re.match(r"^[A-Za-z]:[\\/]", candidate):
        candidate = m["path"]
    has_sep = "/" in candidate or "\\" in candidate or "." in candidate.strip(".")
    attributes = candidate.startswith("{")  # pandoc's ```python {.numberLines}
    return candidate if has_sep and not attributes and looks_like_path(candidate) else None


def fence_path(fence: Fence) -> str | None:
    """The file a fence is labelled with: glued to its info string, else the line before it."""
    return path_in_info(fence.info) or path_label(fence.preceding)


def looks_like_patch(text: str) -> bool:
    """Whether `text` holds a unified diff or a Codex patch (line-start markers)."""
    return _PATCH_LINE().search(text) is not None
