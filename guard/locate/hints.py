"""What a `not-found` refusal shows: the closest region of the file, and the first line that differs."""

from __future__ import annotations

from typing import Sequence

from ..text.wording import quoted
from .index import MAX_CANDIDATES, NORMALISERS, FileIndex, norm_fn


def _closest(fi: FileIndex, want: Sequence[str]) -> tuple[int, int] | None:
    """The file window most like `want`: (start, matching lines). Cheap: only anchors on lines that exist."""
    loose = fi.positions(frozenset(NORMALISERS))
    norm = norm_fn(frozenset(NORMALISERS))
    starts: dict[int, int] = {}
    for k, line in enumerate(want):
        nl = norm(line)
        if not nl.strip():
            continue
        for p in loose.get(nl, ())[:MAX_CANDIDATES]:
            starts[p - k] = starts.get(p - k, 0) + 1
    if not starts:
        return None
    best = max(starts.items(), key=lambda kv: (kv[1], -abs(kv[0])))
    return best


def not_found_hint(fi: FileIndex, want: Sequence[str], path: str) -> tuple[int | None, str]:
    found = _closest(fi, want)
    if found is None:
        first = want[0] if want else ""
        return None, (
            f"none of the lines to change occur in {path} (first: {quoted(first)!r}); re-read the file and copy the lines exactly"
        )
    start, _score = found
    start = max(0, start)
    keys = fi.keys
    lines = []
    first_diff: str | None = None
    # The first line that differs beyond what the tiers forgive, else the first that differs at all.
    loose = norm_fn(frozenset(NORMALISERS))
    for same in (lambda a, b: loose(a) == loose(b), lambda a, b: a == b):
        for k, line in enumerate(want):
            p = start + k
            actual = keys[p] if 0 <= p < len(keys) else None
            if first_diff is None and (actual is None or not same(actual, line)):
                if actual is None:
                    first_diff = f"line {p + 1}: the file ends before {quoted(line)!r}"
                else:
                    first_diff = f"line {p + 1}: expected {quoted(line)!r}, file has {quoted(actual)!r}"
    lo, hi = max(0, start - 2), min(len(keys), start + len(want) + 2)
    for p in range(lo, hi):
        lines.append(f"{p + 1:>6}| {quoted(keys[p])}")
    hint = "closest region in the file:\n" + "\n".join(lines)
    if first_diff:
        hint = f"first difference at {first_diff}\n" + hint
    return start + 1, hint
