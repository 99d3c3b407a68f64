"""Line ranges (hashline edits, resolved against the agent's read): replace lines start..end."""

from __future__ import annotations

from ..model import REMOVED, Finding, LineRange, error
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
    """Where one line range goes: its own lines, or the one place its expected lines moved to."""
    sp, repairs, finding = _place_range(fi, lr, path)
    if finding is not None:
        return Located.refusing(finding)
    return Located((sp,) if sp is not None else (), tuple(repairs))
