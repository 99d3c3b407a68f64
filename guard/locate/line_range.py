"""Line ranges (hashline edits, resolved against the agent's read): replace lines start..end."""

from __future__ import annotations

from ..model import REMOVED, Finding, LineRange, error
from ..syntax.languages import indentation_means
from ..text.wording import plural, span
from .index import FileIndex, Sought, match_block, norm_fn
from .splice import Located, Splice


def _place_range(fi: FileIndex, lr: LineRange, path: str) -> tuple[Splice | None, list[str], Finding | None]:
    n = len(fi.keys)
    s, e = lr.start - 1, lr.end  # [s, e)
    eol = fi.text.dominant_eol()
    new = tuple((x[:-1], "\r\n") if x.endswith("\r") else (x, eol) for x in lr.new)
    if lr.expect is None:
        if s < 0 or e > n or e < s:
            return (
                None,
                [],
                error(
                    "not-found",
                    path,
                    lr.start,
                    f"{span(lr.start, lr.end)} {'is' if lr.start == lr.end else 'are'} outside {path} ({plural(n, 'line')})",
                    f"{path} has {plural(n, 'line')}",
                ),
            )
        return Splice(s, e, new, lr.source_line), [], None
    want = list(lr.expect)
    norm = norm_fn(frozenset({"eol"}))
    if 0 <= s and e <= n and [norm(k) for k in fi.keys[s:e]] == [norm(x) for x in want]:
        return Splice(s, e, new, lr.source_line), [], None
    if not want:
        return (
            None,
            [],
            error(
                "stale",
                path,
                lr.start,
                f"{path} changed since it was read and the insertion point cannot be re-anchored",
                "read the file again",
            ),
        )
    block = Sought(tuple(want), tuple(REMOVED for _ in want), None, False, ())
    starts = match_block(fi, block, frozenset({"eol"}), (0, n), False)
    if len(starts) == 1:
        return Splice(starts[0], starts[0] + len(want), new, lr.source_line), ["offset"], None
    return (
        None,
        [],
        error(
            "stale",
            path,
            lr.start,
            f"{path} changed since it was read: {span(lr.start, lr.end)} "
            f"no longer hold{'s' if lr.start == lr.end else ''} what was read"
            + (f" and that text now occurs {len(starts)} times" if starts else ""),
            "read the file again and redo the edit against the lines as they are now",
        ),
    )


def locate_range(fi: FileIndex, lr: LineRange, path: str) -> Located:
    """Where one line range goes: its own lines, or the one place its expected lines moved to.

    A range whose new lines are the lines it addresses, indented otherwise, changes nothing the
    agent meant: models that retype a line to change it and leave the change out send exactly
    that.  It is refused as ``no-op`` (``_reindented``), unless the new indentation is the
    file's and the old was not (a repair), or the file's indentation is its structure and the
    new structure parses and differs (a Python statement moved out of a block).
    """
    sp, repairs, finding = _place_range(fi, lr, path)
    if finding is not None:
        return Located.refusing(finding)
    if sp is not None:
        finding = _reindented(fi, sp, path)
        if finding is not None:
            return Located.refusing(finding)
    return Located((sp,) if sp is not None else (), tuple(repairs))


def _reindented(fi: FileIndex, sp: Splice, path: str) -> Finding | None:
    """A `no-op` finding when the splice only re-indents the lines it replaces (see ``locate_range``)."""
    old = list(fi.text.lines[sp.start : sp.end])
    new = [text for text, _eol in sp.new]
    if not old or len(old) != len(new) or old == new:
        return None
    if any(a.lstrip() != b.lstrip() for a, b in zip(old, new)):
        return None
    first = next(k for k, (a, b) in enumerate(zip(old, new)) if a != b)
    at = sp.start + first
    if _fits(fi, at, new[first]) and not _fits(fi, at, old[first]):
        return None  # the new indentation is the one the lines around it call for
    lines = list(fi.text.lines)
    after = "\n".join(lines[: sp.start] + new + lines[sp.end :])
    if indentation_means(path, "\n".join(lines), after):
        return None
    shown = old[first].strip()
    return error(
        "no-op",
        path,
        at + 1,
        f"the edit only re-indents {span(sp.start + 1, sp.end)} of {path}: {shown[:80]!r} is the text already there, "
        "so the change it was meant to make is missing",
        f"send the line{'s' if len(old) > 1 else ''} with the change you meant, indented as the file has "
        f"{'them' if len(old) > 1 else 'it'} ({_describe(old[first])})",
    )


def _width(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


_OPENS = ("{", "(", "[", ":", "=>", "->", " do", " then", "=")
_CLOSES = ("}", ")", "]", "end", "</")


def _fits(fi: FileIndex, at: int, line: str) -> bool:
    """`line`, standing at line `at` (0-based), is indented as the nearest lines with text around
    it call for: as deep as the one above or the one below, one step deeper than a line above
    that opens a block, or one step shallower where it closes one."""
    lines = fi.text.lines
    above = next((lines[k] for k in range(at - 1, -1, -1) if lines[k].strip()), None)
    below = next((lines[k] for k in range(at + 1, len(lines)) if lines[k].strip()), None)
    step = _step(lines)
    width = _width(line)
    wanted = set()
    if above is not None:
        wanted.add(_width(above))
        if above.rstrip().endswith(_OPENS):
            wanted.add(_width(above) + step)
        if line.lstrip().startswith(_CLOSES):
            wanted.add(_width(above) - step)
    if below is not None:
        wanted.add(_width(below))
    return width in wanted


def _step(lines: tuple[str, ...] | list[str]) -> int:
    """The file's indentation step: the commonest increase from one line with text to the next."""
    counts: dict[int, int] = {}
    last = None
    for line in lines[:2000]:
        if not line.strip():
            continue
        width = _width(line)
        if last is not None and width > last:
            counts[width - last] = counts.get(width - last, 0) + 1
        last = width
    return max(counts, key=lambda k: (counts[k], -k)) if counts else 4


def _describe(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    if not indent:
        return "no indentation"
    if set(indent) == {"\t"}:
        return plural(len(indent), "tab")
    if set(indent) == {" "}:
        return plural(len(indent), "space")
    return repr(indent)
