"""Hunks (diffs, Codex chunks, SEARCH/REPLACE blocks): context, removed and added lines.

A hunk goes through the tiers as written, then (``recount``) without stray blank
context at its edges, decoded (``escape``), with context lines whose space the model
dropped put back; every form is tried without ``fuzz`` before any is tried with it.
Under ``fuzz`` a context line the file lacks was either misremembered (it stands for
the file's line there) or invented (it stands for nothing): both readings are looked
for, and readings that change different lines are ambiguous.  A splice placed under
``fuzz`` carries the edit's own view of the place, and git's merge rule decides
(``locate.rebase``).  The forms are made in ``hunk_forms``, the splice in ``hunk_splice``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ..model import ADDED, CONTEXT, REMOVED, Finding, Hunk, error
from ..text.wording import quoted
from .hunk_forms import Forms, bare_context, hunk_variants, without_invented
from .hunk_splice import splice_for_hunk, typography
from .index import (
    NORMALISERS,
    FileIndex,
    Match,
    Sought,
    ambiguous,
    anchor_floor,
    count_misses,
    indent_shift,
    needed,
    norm_fn,
    search,
)
from .splice import Located, Splice


@dataclass(frozen=True, slots=True)
class _Search:
    """Where and how one hunk is sought: the file, the tiers the policy allows, the lines it may
    be found in (`window`), the path findings name, and the drift the hunk before it measured."""

    fi: FileIndex
    tiers: Sequence[str]
    window: tuple[int, int]
    path: str
    drift: int


@dataclass(frozen=True, slots=True)
class _Reading:
    """One way a hunk fits the file: the match, the hunk matched (its variant less the context
    lines the file has nowhere), the lines left off, and where it came from: the form (before
    edge lines went), the variant (before invented lines went), and the tiers that made them."""

    match: Match
    hunk: Hunk
    off: int
    form: Hunk
    variant: Hunk
    tiers: tuple[str, ...]


def _place_hunk(s: _Search, h: Hunk) -> tuple[Splice | None, list[str], Finding | None]:
    """Place a hunk: every form and variant without fuzz (`_readings`), then with it; the
    best reading (`_best`) then passes the checks of the tiers it needed (`_placed`)."""
    fi, tiers, path = s.fi, s.tiers, s.path
    if not h.old_lines:
        return _locate_insertion(s, h)
    h = bare_context(h)
    forms = Forms(fi, h, tiers)
    # Every form and recount variant is tried without fuzz before any is tried with it:
    # dropping a stray blank or decoding an escape is a smaller liberty than ignoring a line.
    for fuzzy in (False, True) if "fuzz" in tiers else (False,):
        found = _readings(s, forms, fuzzy)
        if isinstance(found, Finding):
            return None, [], found
        if not found:
            continue
        best = _best(fi, found, path, h.source_line)
        if isinstance(best, Finding):
            return None, [], best
        return _placed(s, best, h.source_line)
    from .hints import not_found_hint

    want = h.old_lines
    line, hint_text = not_found_hint(fi, want, path)
    return (
        None,
        [],
        error(
            "not-found",
            path,
            line,
            f"the lines to change (hunk at input line {h.source_line}) are not in {path}",
            hint_text,
        ),
    )


def _readings(s: _Search, forms: Forms, fuzzy: bool) -> list[_Reading] | Finding:
    """The readings of the hunk: without fuzz, the first form and variant that fits; under
    fuzz, every one that does."""
    found: list[_Reading] = []
    for form, esc in forms:
        for variant, extra in hunk_variants(form, s.tiers):
            got = _try_hunk(s, variant, fuzzy)
            if isinstance(got, Finding):
                return got
            if got is not None:
                found.append(_Reading(*got, form, variant, tuple(esc + extra)))
                if not fuzzy:
                    break
        if found and not fuzzy:
            break
    return found


def _best(fi: FileIndex, found: list[_Reading], path: str, source_line: int) -> _Reading | Finding:
    """Under fuzz every reading counts: the one that leaves fewest lines off wins (doubled
    backslashes in a context line are a miss as written, a match decoded), and readings as
    good as each other must agree on what changes."""
    if len(found) == 1:
        return found[0]
    low = min(r.off for r in found)
    found = [r for r in found if r.off == low]
    places = {tuple((tag, k) for tag, k, _ in _effect(r.hunk, r.match.start)) for r in found}
    if len(places) > 1:
        return ambiguous(path, fi, sorted({r.match.start for r in found}), "fuzz", source_line)
    return found[0]


def _placed(s: _Search, r: _Reading, source_line: int) -> tuple[Splice | None, list[str], Finding | None]:
    """The splice of the best reading, once the tiers it needed found no second place:
    blank context dropped (`_blanks_elsewhere`), another line number (`_offset_rivals`),
    another indent (`_indent`)."""
    fi = s.fi
    m, variant = r.match, r.hunk
    if not m.fuzzy and variant.lines != r.form.lines:
        f = _blanks_elsewhere(s, r, source_line)
        if f is not None:
            return None, [], f
    repairs = list(r.tiers)
    if m.fuzzy:
        repairs.append("fuzz")
    repairs += list(m.fixed)
    repairs += needed(fi, m) if m.active else []
    if variant.old_start is not None and m.start != variant.old_start - 1:
        if "offset" not in s.tiers:
            return None, [], _misplaced(fi, variant, m.start, s.path)
        repairs.append("offset")
        f = _offset_rivals(s, m, variant.old_start - 1, source_line)
        if f is not None:
            return None, [], f
    shift = _indent_shift(fi, m)
    if shift == ("", ""):
        shift = None
    elif "indent" not in repairs:
        repairs.append("indent")  # (also when the shift is not uniform: the tier was needed)
    if shift is not None and not m.fuzzy:
        f = _indent_rivals(s, m, source_line)
        if f is not None:
            return None, [], f
    plain = typography(fi, m.start, m.size, m.block.old) if "unicode" in m.active else None
    if plain is not None and "unicode" not in repairs:
        repairs.append("unicode")
    return splice_for_hunk(fi, variant, m, shift, plain, r.variant if r.variant is not variant else None), repairs, None


def _blanks_elsewhere(s: _Search, r: _Reading, source_line: int) -> Finding | None:
    """Blank context dropped from the edges: where the lines as written (all but a changed
    context line) stand elsewhere, the blanks were no mistake there."""
    # (`likeness`, `hints`: imported where a loose match or a failure needs them.)
    from .likeness import lookalike, near_places, resembles, resembling

    fi, tiers, window, path = s.fi, s.tiers, s.window, s.path
    m, variant, form = r.match, r.hunk, r.form
    lead = next(k for k in range(len(form.lines)) if form.lines[k : k + len(variant.lines)] == variant.lines)
    whole = Sought(form.old_lines, tuple(hl.tag for hl in form.lines if hl.tag != ADDED), None, form.at_eof, ())
    lead_old = sum(1 for hl in form.lines[:lead] if hl.tag != ADDED)
    loosest = frozenset(t for t in tiers if t in NORMALISERS)
    wider = (max(0, window[0] - lead_old), window[1])
    rivals = {p + lead_old for p in near_places(fi, whole, loosest, wider)}
    # Or the lines as written stand, edited a little since, where the blanks are.
    rivals |= {p + lead_old for p in resembling(fi, whole, loosest, wider)}
    rivals |= {p + lead_old for p in lookalike(fi, whole.old, wider) if resembles(fi, whole, loosest, p)}
    if rivals - {m.start}:
        return ambiguous(path, fi, sorted(rivals | {m.start}), "recount", source_line)
    return None


def _offset_rivals(s: _Search, m: Match, at: int, source_line: int) -> Finding | None:
    """Found elsewhere, while the lines at its own line number (`at`) are these lines but for
    what the tiers forgive (a typographic space, a changed context line): two places."""
    fi = s.fi
    loosest = frozenset(t for t in s.tiers if t in NORMALISERS)
    from .likeness import near_places, resembles

    if (
        not m.fuzzy
        and at >= 0
        and (at in near_places(fi, m.block, loosest, (at, at + m.size)) or resembles(fi, m.block, loosest, at))
    ):
        return ambiguous(s.path, fi, sorted({m.start, at}), "offset", source_line)
    return None


def _indent_shift(fi: FileIndex, m: Match) -> tuple[str, str] | None:
    """The (remove, add) indent turning the edit's lines into the file's where the match found
    them: ("", "") when the same (or the indent tier was not needed), None when not uniform."""
    if "indent" not in m.active:
        return ("", "")
    norm, lines = norm_fn(m.active), fi.normed(m.active)
    same = [k for k in range(m.size) if lines[m.start + k] == norm(m.block.old[k])]
    return indent_shift([fi.keys[m.start + k] for k in same], [m.block.old[k] for k in same])


def _indent_rivals(s: _Search, m: Match, source_line: int) -> Finding | None:
    """Short blocks recur at other depths.  Found only at another indent, the lines may be a
    copy of the ones meant, which changed a little where they were: lines at the edit's own
    indent that differ in a context line or two are a second place."""
    from .likeness import lookalike, near_places

    fi, window = s.fi, s.window
    rivals = set(near_places(fi, m.block, m.active - {"indent"}, window)) | set(lookalike(fi, m.block.old, window))
    rivals -= {m.start}
    if rivals:
        return ambiguous(s.path, fi, sorted(rivals | {m.start}), "indent", source_line)
    return None


def _try_hunk(s: _Search, h: Hunk, fuzzy: bool) -> tuple[Match, Hunk, int] | Finding | None:
    """One hunk variant through the non-fuzzy tiers, or through fuzz: (match, hunk matched, lines off).

    The hunk matched is `h` itself or `h` less the context lines the file has nowhere.
    """
    fi, path = s.fi, s.path
    hint = None if h.old_start is None else h.old_start - 1
    block = Sought(h.old_lines, tuple(hl.tag for hl in h.lines if hl.tag != ADDED), hint, h.at_eof, h.anchors)
    m, finding = _search_drift(s, block, h.source_line, fuzzy)
    if finding is not None:
        return finding
    if not fuzzy:
        return None if m is None else (m, h, 0)
    # A context line the file lacks at that spot was either misremembered (it stands
    # for the file's line there: `m`) or invented (it stands for nothing: dropped).
    # Both readings are looked for; when they change different lines, the edit is
    # ambiguous, however unique each reading is on its own.
    found: list[tuple[Match, Hunk, int]] = [] if m is None else [(m, h, 0)]
    stripped = without_invented(h, fi)
    if stripped is not None:
        b2 = replace(
            block,
            old=stripped.old_lines,
            tags=tuple(hl.tag for hl in stripped.lines if hl.tag != ADDED),
            hint=None if stripped.old_start is None else stripped.old_start - 1,
        )
        m2, finding = _search_drift(s, b2, h.source_line, fuzzy)
        if finding is not None:
            return finding
        if m2 is not None:
            found.append((m2, stripped, len(h.lines) - len(stripped.lines)))
    # Context that is mostly invented or wrong describes some other file: a match on
    # the few lines left would be a guess, however unique.  At most a third may be off.
    found = [
        (m, hh, off)
        for m, hh, dropped in found
        if (off := dropped + count_misses(fi, m.block, m.active, m.start)) <= max(1, _context(hh, dropped) // 3)
    ]
    if len(found) == 2 and _effect(found[0][1], found[0][0].start) != _effect(found[1][1], found[1][0].start):
        if found[0][0].start != found[1][0].start:
            return ambiguous(path, fi, sorted({f[0].start for f in found}), "fuzz", h.source_line)
        return _two_readings(fi, found[0][0], path)
    return found[0] if found else None


def _two_readings(fi: FileIndex, m: Match, path: str) -> Finding:
    """One place, but a context line that differs there says two things: refuse, naming it.

    Read as a stale copy of the file's line, the new lines go on one side of that
    line; read as invented, on the other.
    """
    norm = norm_fn(m.active)
    lines = fi.normed(m.active)
    k = next((k for k, x in enumerate(m.block.old) if lines[m.start + k] != norm(x)), 0)
    at = m.start + k
    return error(
        "ambiguous",
        path,
        at + 1,
        f"the context line {quoted(m.block.old[k])!r} is not line {at + 1} as it is now, and the edit means "
        "different things whether it stands for that line or for nothing (the new lines go on either side of it)",
        f"line {at + 1} is {quoted(fi.keys[at])!r}; copy it as it is into the edit, or leave it out",
    )


def _context(h: Hunk, dropped: int) -> int:
    return sum(1 for hl in h.lines if hl.tag == CONTEXT and hl.text.strip()) + dropped


def _effect(h: Hunk, start: int) -> tuple[tuple[str, int, str], ...]:
    """What a hunk placed at `start` does: the file lines it removes, and what it adds before which line."""
    out: list[tuple[str, int, str]] = []
    k = start
    for hl in h.lines:
        if hl.tag == ADDED:
            out.append((ADDED, k, hl.text))
            continue
        if hl.tag == REMOVED:
            out.append((REMOVED, k, ""))
        k += 1
    return tuple(out)


def _search_drift(s: _Search, block: Sought, src: int, fuzzy: bool) -> tuple[Match | None, Finding | None]:
    fi, tiers, window, path = s.fi, s.tiers, s.window, s.path
    m, finding, _ = search(fi, block, tiers, window, path, src, fuzzy)
    if finding is not None and block.hint is not None and s.drift and not fuzzy:
        # The drift measured by the previous hunk may pick the candidate exactly.
        m2, _, _ = search(fi, replace(block, hint=block.hint + s.drift), tiers, window, path, src, fuzzy)
        if m2 is not None:
            return m2, None
    return m, finding


def _misplaced(fi: FileIndex, h: Hunk, start: int, path: str) -> Finding:
    assert h.old_start is not None
    return error(
        "not-found",
        path,
        h.old_start,
        f"the lines to change (hunk at input line {h.source_line}) are at line {start + 1} of {path}, "
        f"not at line {h.old_start} as the hunk header says, and this policy's locate tiers exclude `offset`",
        f"make the hunk start at line {start + 1}: the file has there:\n{start + 1:>6}| {quoted(fi.keys[start])}",
    )


def _locate_insertion(s: _Search, h: Hunk) -> tuple[Splice | None, list[str], Finding | None]:
    fi, path = s.fi, s.path
    t = fi.text
    n = len(t.lines)
    if h.anchors:
        floor = anchor_floor(fi, h.anchors, s.window[0], frozenset(NORMALISERS))
        if floor is None:
            from .hints import not_found_hint

            line, hint = not_found_hint(fi, h.anchors, path)
            return None, [], error("not-found", path, line, f"the anchor line {h.anchors[-1]!r} is not in {path}", hint)
        at = floor
    elif h.at_eof:
        at = n
    elif h.old_start is not None:
        at = h.old_start - 1
        if at < 0 or at > n:
            return (
                None,
                [],
                error(
                    "not-found",
                    path,
                    h.old_start,
                    f"the insertion point, line {h.old_start}, is past the end of {path} ({n} lines)",
                    "add context lines around the insertion so it can be located",
                ),
            )
    else:
        return (
            None,
            [],
            error(
                "ambiguous",
                path,
                None,
                "an insertion with no context lines and no line number could go anywhere",
                "include at least one unchanged line before or after the new lines",
            ),
        )
    eol = t.dominant_eol()
    if at > 0 and t.eols[at - 1]:
        eol = t.eols[at - 1]
    new = tuple((hl.text[:-1], "\r\n") if hl.text.endswith("\r") else (hl.text, eol) for hl in h.lines if hl.tag == ADDED)
    final = None if h.new_eof_newline or at != n else False
    return Splice(at, at, new, h.source_line, final), [], None


def locate_hunk(fi: FileIndex, h: Hunk, tiers: Sequence[str], window: tuple[int, int], path: str, drift: int) -> Located:
    """Where one hunk goes: at most one splice (an empty Located when it places nothing)."""
    sp, repairs, finding = _place_hunk(_Search(fi, tiers, window, path, drift), h)
    if finding is not None:
        return Located.refusing(finding)
    return Located((sp,) if sp is not None else (), tuple(repairs))
