"""A suggestion put in the agent's own dialect: one writer per dialect, in a plain dict.

Each writer turns the files of a suggestion (``Rewrite``: each file's text now and the text
the suggestion makes of it) into an edit in its dialect, or None when the dialect cannot say
it.  The edit is made against the file *as it is*, so it needs no repair to land:

- ``unified``: ``git diff``'s own diff (``diffs.diffed``), three lines of context,
  true line numbers, paths from the top of the repository (``diff --git``);
- ``codex``: a ``*** Begin Patch`` envelope, three lines of context a chunk, more where the
  chunk's old lines would stand twice in the file;
- ``search-replace``: a block per change, the path before its fence, as few lines of context
  as make its SEARCH text stand once in the file;
- ``json``: str_replace objects (``file_path``, ``old_string``, ``new_string``; several
  changes as ``edits``, several files as an array), each old text standing once in the file,
  or ``content`` where the agent sent the whole file;
- ``whole``: the whole new text in a fence under its path;
- ``hashline``: the ops under ``[PATH#TAG]`` headers (a re-anchored file's under its
  current tag, with their lines' numbers now).

Every line keeps its terminator's CR where the file has CRLF, so the text is the file's.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Sequence

from ...model import FileChange, LineRange, Op
from ...tree import diffs
from .rewrite import Rewrite

MOST_CONTEXT = 12  # lines of context a chunk may need to stand once in the file
Group = tuple[int, int, int, int]  # before[a0:a1] becomes after[b0:b1], context included


def _keyed(lines: Sequence[str], eols: Sequence[str]) -> list[str]:
    return [ln + e for ln, e in zip(lines, eols)]


def _groups(r: Rewrite, least: int, once: Callable[[list[str]], bool]) -> list[Group] | None:
    """The changes from `r.before` to `r.after`, each with the context that makes its old lines
    stand `once` in the file (at least `least` lines, one where it has no old line), changes whose
    context would meet made one; None when some change cannot be made to stand once."""
    bk, ak = _keyed(r.before.lines, r.before.eols), _keyed(r.after.lines, r.after.eols)
    ops = [(a0, a1, b0, b1) for _t, a0, a1, b0, b1 in diffs.opcodes(bk, ak)]
    if not ops:
        return None
    n = len(bk)
    chunks: list[list[Group]] = [[op] for op in ops]
    while True:
        sized: list[tuple[list[Group], int]] = []
        for chunk in chunks:
            a0, a1 = chunk[0][0], chunk[-1][1]
            c = max(least, 1 if a0 == a1 else 0)
            while c <= MOST_CONTEXT and not once(bk[max(0, a0 - c) : min(n, a1 + c)]):
                c += 1
            if c > MOST_CONTEXT:
                return None
            sized.append((chunk, c))
        joined: list[tuple[list[Group], int]] = []  # chunks whose context would overlap, as one; their end
        for chunk, c in sized:
            lo, hi = max(0, chunk[0][0] - c), min(n, chunk[-1][1] + c)
            if joined and lo < joined[-1][1]:
                joined[-1] = (joined[-1][0] + chunk, max(hi, joined[-1][1]))
            else:
                joined.append((list(chunk), hi))
        if len(joined) == len(chunks):
            break
        chunks = [j[0] for j in joined]
    groups: list[Group] = []
    for chunk, c in sized:
        a0, a1 = max(0, chunk[0][0] - c), min(n, chunk[-1][1] + c)
        b0 = chunk[0][2] - (chunk[0][0] - a0)
        b1 = chunk[-1][3] + (a1 - chunk[-1][1])
        groups.append((a0, a1, b0, b1))
    return groups


def _occurs(lines: list[str], block: list[str]) -> int:
    """How often `block` stands, as whole lines, in `lines` (2 meaning: more than once)."""
    if not block:
        return 2
    found = 0
    first = block[0]
    size = len(block)
    for p in range(len(lines) - size + 1):
        if lines[p] == first and lines[p : p + size] == block:
            found += 1
            if found > 1:
                break
    return found


def _once_in(keys: list[str]) -> Callable[[list[str]], bool]:
    return lambda block: _occurs(keys, block) == 1


def _line(text: str, eol: str) -> str:
    """A line as a dialect's body row holds it: its CR kept where the file has CRLF."""
    return text + ("\r" if eol == "\r\n" else "")


# ---------------------------------------------------------------------- the writers


def unified(files: Sequence[Rewrite]) -> str | None:
    out = []
    for r in files:
        if r.whole:
            return None
        out.append(
            diffs.diffed(
                FileChange(r.path, Op.MODIFY, None, r.before.encode(), r.after.encode(), None, None),
                before_text=r.before,
                after_text=r.after,
            ).diff
        )
    return "".join(out)


def codex(files: Sequence[Rewrite]) -> str | None:
    out = ["*** Begin Patch\n"]
    for r in files:
        keys = _keyed(r.before.lines, r.before.eols)
        groups = None if r.whole else _groups(r, 3, _once_in(keys))
        if groups is None:
            return None
        out.append(f"*** Update File: {r.shown}\n")
        for a0, a1, b0, b1 in groups:
            out.append("@@\n")
            ops = diffs.opcodes(keys[a0:a1], _keyed(r.after.lines[b0:b1], r.after.eols[b0:b1]))
            i = 0
            for _t, x0, x1, y0, y1 in ops:
                out += [" " + _line(r.before.lines[a0 + k], r.before.eols[a0 + k]) + "\n" for k in range(i, x0)]
                out += ["-" + _line(r.before.lines[a0 + k], r.before.eols[a0 + k]) + "\n" for k in range(x0, x1)]
                out += ["+" + _line(r.after.lines[b0 + k], r.after.eols[b0 + k]) + "\n" for k in range(y0, y1)]
                i = x1
            out += [" " + _line(r.before.lines[a0 + k], r.before.eols[a0 + k]) + "\n" for k in range(i, a1 - a0)]
    out.append("*** End Patch\n")
    return "".join(out)


def _fence(body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def search_replace(files: Sequence[Rewrite]) -> str | None:
    out = []
    for r in files:
        keys = _keyed(r.before.lines, r.before.eols)
        groups = None if r.whole else _groups(r, 0, _once_in(keys))
        if groups is None:
            return None
        for a0, a1, b0, b1 in groups:
            old = "".join(_line(r.before.lines[k], r.before.eols[k]) + "\n" for k in range(a0, a1))
            new = "".join(_line(r.after.lines[k], r.after.eols[k]) + "\n" for k in range(b0, b1))
            fence = _fence(old + new)
            out.append(f"{r.shown}\n{fence}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n{fence}\n")
    return "\n".join(out)


def _json_file(r: Rewrite) -> dict[str, object] | None:
    if r.whole:
        return {"file_path": r.shown, "content": r.after.encode().decode("utf-8")}
    keys = _keyed(r.before.lines, r.before.eols)
    flat = "".join(keys)
    groups = _groups(r, 0, lambda block: flat.count("".join(block)) == 1 if block else False)
    if groups is None:
        return None
    after = _keyed(r.after.lines, r.after.eols)
    edits = [{"old_string": "".join(keys[a0:a1]), "new_string": "".join(after[b0:b1])} for a0, a1, b0, b1 in groups]
    if len(edits) == 1:
        return {"file_path": r.shown, **edits[0]}
    return {"file_path": r.shown, "edits": edits}


def json_edit(files: Sequence[Rewrite]) -> str | None:
    objs = [_json_file(r) for r in files]
    if any(o is None for o in objs):
        return None
    return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False)


def whole(files: Sequence[Rewrite]) -> str | None:
    out = []
    for r in files:
        if not r.whole:
            return None
        body = r.after.encode().decode("utf-8")
        if body and not body.endswith("\n"):
            return None  # a fence's body ends with a line break: the file would gain one
        fence = _fence(body)
        out.append(f"{r.shown}\n{fence}\n{body}{fence}\n")
    return "\n".join(out)


def hashline(files: Sequence[Rewrite]) -> str | None:
    from ...dialects.hashline import LAST

    out = []
    for r in files:
        if r.ops is None or r.tag is None:
            return None
        out.append(f"[{r.shown}#{r.tag}]\n")
        for c in r.ops:
            out.append(_op(c, LAST))
    return "".join(out)


def _op(c: LineRange, last: int) -> str:
    def num(x: int) -> str:
        return "$" if x == last else str(x)

    if c.end == c.start - 1 or (c.start == last + 1 and c.end == last):
        head = "insert after $" if c.end == last else f"insert after {c.end}"
    elif not c.new:
        head = f"delete {num(c.start)}" if c.start == c.end else f"delete {num(c.start)}..{num(c.end)}"
    else:
        head = f"replace {num(c.start)}" if c.start == c.end else f"replace {num(c.start)}..{num(c.end)}"
    return head + "\n" + "".join("+" + x + "\n" for x in c.new)


WRITERS: dict[str, Callable[[Sequence[Rewrite]], str | None]] = {
    "unified": unified,
    "codex": codex,
    "search-replace": search_replace,
    "json": json_edit,
    "whole": whole,
    "hashline": hashline,
}
