"""A lazy snippet being merged, and where the pieces between its markers fit.

The refusals of a doubtful fit live here too: context that also fits a few lines
further off, blank or closing lines shown where the file has other lines, a new line
next to a marker that looks like a changed version of the line the marker keeps
there (a replacement, or an addition?  Code that is a near copy or has the same head;
a comment with one word renamed, added or dropped), new lines at an end of the file
with nothing of the file next to them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..model import Finding, Snippet, error
from ..text.regex import lazy
from ..text.wording import visible
from ..tree.diffs import similar
from .index import FileIndex, indent_width

LAZY_SLACK = 4  # lines a marker-free stretch may drop beyond the lines it shows
# A line that only closes something (`}`, `);`, `end`, blank) is too common to anchor on.
_CLOSERS = frozenset(("end", "fi", "done", "esac", "endif", "endfor", "endwhile", "wend", "loop", "next"))
_WORD = lazy(r"[^\W_]+")


def weak(line: str) -> bool:
    """A line that only closes something: punctuation, perhaps one closing keyword (`}`, `end`, `fi;`).

    (Counted word by word, not by a pattern with two stars around an optional word,
    which backtracks quadratically on a long line of punctuation.)
    """
    words = _WORD().finditer(line)
    first = next(words, None)
    return first is None or (first.group() in _CLOSERS and next(words, None) is None)


_DEFINES = lazy(
    r"\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w ]+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function\*?|fn|func|sub|interface|struct|enum|trait|module)\s+(\w+)"
)


_ASSIGNS = lazy(r"\s*(?:(?:let|const|var|my|local|auto)\s+)?([\w.$\[\]'\"]+)\s*(?::[^=]*)?(?<![=!<>])=(?![=>~])")


_EXITS = lazy(r"\s*(return|raise|throw|yield)\b")


def _same_head(new: str, old: str) -> bool:
    """`new` looks like a changed version of `old`: a replacement, not an addition beside it
    (same definition, same assignment target, both returns, or a near copy)."""
    if not new.strip() or not old.strip() or indent_width(new) != indent_width(old):
        return False
    for rx in (_DEFINES(), _EXITS(), _ASSIGNS()):
        a, b = rx.match(new), rx.match(old)
        if a and b and a.group(1) == b.group(1):
            return True
        if a or b:
            break
    # Otherwise a near copy (a name renamed, `operator_v2=` for `operator=`, or a value
    # changed) reads as a replacement as much as an addition: the doubt stands.
    mine, theirs = new.strip(), old.strip()
    return similar(mine, theirs, 0.8) or _one_word_renamed(mine, theirs) or _comment_reworded(mine, theirs)


_TOKEN = lazy(r"\w+|\S")


def _one_word_renamed(a: str, b: str) -> bool:
    """The same tokens but one word, which one of them extends (`node_v2,` for `node,`): a short line renamed."""
    ta, tb = _TOKEN().findall(a), _TOKEN().findall(b)
    if len(ta) != len(tb):
        return False
    differ = [(x, y) for x, y in zip(ta, tb) if x != y]
    if len(differ) != 1:
        return False
    x, y = differ[0]
    return len(min(x, y, key=len)) >= 3 and (x.startswith(y) or y.startswith(x))


# A line that is a comment: `#` then a blank (not `#include`, `#!`), `//`, `/*`, `*` in a block
# comment, `--` (SQL, Lua, Haskell), `;` (Lisp, assembly), `<!--`.
_COMMENT = lazy(r"(?:#(?![\w!\[])|//|/\*|\*(?:\s|$)|--\s|;|<!--)")
_WORD_TOKEN = lazy(r"\w+")


def _comment_reworded(a: str, b: str) -> bool:
    """Two comments that differ in one word, renamed (`# read settings` for `# read config`), added
    or dropped, with another word in common: the same note reworded, which a similarity ratio misses
    on a short line (one word of three is a third of it)."""
    if not (_COMMENT().match(a) and _COMMENT().match(b)):
        return False
    ta, tb = _TOKEN().findall(a), _TOKEN().findall(b)
    if len(ta) == len(tb):
        differ = [(x, y) for x, y in zip(ta, tb) if x != y]
        if len(differ) != 1 or not all(_WORD_TOKEN().fullmatch(t) for t in differ[0]):
            return False
    elif abs(len(ta) - len(tb)) == 1:
        long, short = (ta, tb) if len(ta) > len(tb) else (tb, ta)
        cut = next((k for k in range(len(short)) if long[k] != short[k]), len(short))
        if long[:cut] + long[cut + 1 :] != short or not _WORD_TOKEN().fullmatch(long[cut]):
            return False
    else:
        return False
    shared = {t for t in ta if _WORD_TOKEN().fullmatch(t)} & {t for t in tb if _WORD_TOKEN().fullmatch(t)}
    return bool(shared)


BLOCK_TRIES = 200_000  # line comparisons one snippet's search for unique runs of lines may spend


class Lazy:
    """One snippet being merged into one file."""

    __slots__ = ("fi", "snippet", "path", "keys", "skeys", "marker", "pairs", "block_tries", "_blocks")

    def __init__(self, fi: FileIndex, snippet: Snippet, path: str, keys: list[str], skeys: list[str], marker: list[bool]) -> None:
        self.fi = fi
        self.snippet = snippet
        self.path = path
        self.keys = keys  # the file's lines, normalised
        self.skeys = skeys  # the snippet's lines, normalised
        self.marker = marker
        self.pairs: dict[int, int] = {}  # snippet index -> file index
        self.block_tries = BLOCK_TRIES  # what the search for unique runs of lines may still spend
        self._blocks: dict[int, list[tuple[int, int]] | None] = {}

    def src(self, i: int) -> int:
        return self.snippet.source_line + i

    def show(self, i: int) -> str:
        return repr(visible(self.snippet.lines[i].strip())[:80])

    def file_line(self, p: int) -> str:
        return repr(visible(self.fi.text.lines[p].strip())[:80])

    def blocks(self, row: int) -> list[tuple[int, int]] | None:
        """The parsed constructs holding line `row` and the next, outermost first (None: no parse)."""
        if row not in self._blocks:
            from ..syntax import languages as parsers

            spans = None
            for lang in parsers.languages_for(self.path):
                spans = parsers.enclosing(lang, self.fi.text.encode(), row)
                if spans is not None:
                    break
            self._blocks[row] = None if spans is None else [(s.start, s.end) for s in spans]
        return self._blocks[row]


def nonblank(lz: Lazy, items: Sequence[int]) -> int:
    return sum(1 for i in items if lz.snippet.lines[i].strip())


def _first_nonblank(texts: Sequence[str], reverse: bool = False) -> str | None:
    for t in reversed(texts) if reverse else texts:
        if t.strip():
            return t
    return None


def doubt(lz: Lazy, piece: Sequence[int], kept: range, kept_before: bool) -> Finding | None:
    """New lines beside a kept stretch: refuse when a line that meets it looks like a changed kept line.

    The lines that meet are the first real lines on each side: a closing line or a
    blank between them (`}` shown as context, or the block's end) hides nothing, so
    they are looked past.
    """
    if not piece or not len(kept):
        return None
    lines = lz.fi.text.lines
    new = _first_nonblank([lz.snippet.lines[i] for i in piece], reverse=not kept_before)
    old = _first_nonblank([lines[p] for p in kept], reverse=kept_before)
    if new is None or old is None:
        return None
    at = next(p for p in (reversed(kept) if kept_before else kept) if lines[p] == old)
    i = next(i for i in piece if lz.snippet.lines[i] == new)
    if kept_before and _EXITS().match(old) and indent_width(new) == indent_width(old) and not _same_head(new, old):
        return error(
            "ambiguous",
            lz.path,
            at + 1,
            f"the new line {lz.show(i)} (snippet line {lz.src(i)}) would follow line {at + 1} {lz.file_line(at)}, "
            "which the marker before it keeps and which ends the block: it could never run",
            f"show line {at + 1} in the snippet, after the new lines if they go before it",
        )
    copied = _block_pairs(lz, piece, kept, kept_before)
    if copied:
        (k, at), (_k, last) = copied[0], copied[-1]
        return error(
            "ambiguous",
            lz.path,
            at + 1,
            f"the new lines from {lz.show(k)} (snippet line {lz.src(k)}) look like changed versions of lines "
            f"{at + 1}-{last + 1} of {lz.path}, which the marker keeps right beside them: do they replace those "
            "lines or join them?",
            "show the unchanged line before the changed ones (or after them) in the snippet, so the lines "
            "they replace are shown and no marker keeps them",
        )
    for i, at in _meeting(lz, piece, kept, kept_before):
        if _same_head(lz.snippet.lines[i], lines[at]):
            return error(
                "ambiguous",
                lz.path,
                at + 1,
                f"the new line {lz.show(i)} (snippet line {lz.src(i)}) meets a marker and looks like a changed "
                f"version of line {at + 1} {lz.file_line(at)}, which the marker keeps: does it replace that line or "
                "join it?",
                f"show line {at + 1} in the snippet if it stays; if it goes, show the unchanged lines on both sides "
                "of it and leave it out",
            )
    return None


_BLOCK_COPY = 6  # most lines of a block of new lines held against the kept lines beside it


def _block_pairs(lz: Lazy, piece: Sequence[int], kept: range, kept_before: bool) -> list[tuple[int, int]]:
    """The longest run of (snippet line, file line) pairs, two or more, in which the new lines that
    meet the kept stretch are, one for one and in order, changed versions of the kept lines they
    meet (`_same_head`): after the stretch, the first new lines against its last lines; before it,
    the last new lines against its first lines.  Blank lines are looked past on both sides."""
    lines = lz.fi.text.lines
    new = [i for i in piece if lz.snippet.lines[i].strip()]
    old = [p for p in kept if lines[p].strip()]
    best: list[tuple[int, int]] = []
    for k in range(2, min(len(new), len(old), _BLOCK_COPY) + 1):
        pairs = list(zip(new[:k], old[-k:])) if kept_before else list(zip(new[-k:], old[:k]))
        if all(_copy_of(lz.snippet.lines[i], lines[p]) and not weak(lines[p]) for i, p in pairs):
            best = pairs
    return best


def _copy_of(new: str, old: str) -> bool:
    """`new` is `old` changed (``_same_head``); two definitions only under one name, or where one
    name extends the other (`load_v2` for `load`): a definition under another name is another one."""
    a, b = _DEFINES().match(new), _DEFINES().match(old)
    if a and b:
        x, y = a.group(1), b.group(1)
        return x == y or (len(min(x, y, key=len)) >= 3 and (x.startswith(y) or y.startswith(x)))
    return _same_head(new, old)


_MEETING = 1  # real lines on each side of where new lines meet kept ones, past closing lines and blanks


def _meeting(lz: Lazy, piece: Sequence[int], kept: range, kept_before: bool) -> list[tuple[int, int]]:
    """(snippet line, file line) pairs that meet where the new lines join the kept stretch."""
    lines = lz.fi.text.lines
    side = list(piece) if kept_before else list(reversed(piece))
    mine = _real(side, lz.snippet.lines)
    theirs = _real(reversed(kept) if kept_before else kept, lines)
    return [(i, p) for i in mine for p in theirs]


def _real(order: Iterable[int], lines: Sequence[str]) -> list[int]:
    """The first `_MEETING` lines in `order` that are more than closing lines, and before them a line
    that is only a closing keyword, a word that may be a name too (`done,`, `end,`)."""
    out: list[int] = []
    for n in order:
        if not weak(lines[n]):
            out.append(n)
            if len(out) - (len(out) > 1 and weak(lines[out[0]])) >= _MEETING:
                break
        elif not out and _WORD().search(lines[n]):
            out.append(n)
    return out


def least_depth(lz: Lazy, items: Sequence[int]) -> int:
    return min((indent_width(lz.snippet.lines[i]) for i in items if lz.skeys[i].strip()), default=0)


def drops_quietly(lz: Lazy, shown: Sequence[int], lo: int, hi: int) -> bool:
    """Deleting file lines lo..hi beside the snippet lines `shown` is a reading that stands:
    none of them is shallower than those lines (it would cut into the code around them)."""
    depth = least_depth(lz, shown)
    return all(indent_width(x) >= depth for x in lz.fi.text.lines[lo:hi] if x.strip())


def place_block(lz: Lazy, piece: Sequence[int], lo: int, hi: int) -> tuple[int, int, int, int] | Finding | None:
    """Place a piece between two markers by the context at both its ends, as a block.

    Its lines need not be unique one by one: the piece is (q, head, r, tail) when its
    first `head` lines are the file's at q and its last `tail` at r, the lines between
    replaced (at most as many more than it shows as a marker-free stretch may drop),
    and no other place fits as many of its lines.  Both ends must hold a line that is
    more than a blank or a closing bracket (unless the piece is all context).
    """
    keys = lz.keys
    want = [lz.skeys[i] for i in piece]
    n = len(piece)
    reach = LAZY_SLACK + n

    def solid(ks: Sequence[str]) -> bool:
        return any(not weak(k) for k in ks)

    fits: list[tuple[int, int, int, int]] = []
    for q in range(lo, hi):
        if keys[q] != want[0]:
            continue
        head = 0
        while head < n and q + head < hi and keys[q + head] == want[head]:
            head += 1
        if not solid(want[:head]):
            continue
        if head == n:
            fits.append((q, head, q + head, 0))
            continue
        for tail in range(n - head, 0, -1):
            end = want[n - tail :]
            if not solid(end):
                continue
            found = [r for r in range(q + head, min(q + head + reach, hi - tail) + 1) if keys[r : r + tail] == end]
            if found:
                fits += [(q, head, r, tail) for r in found]
                break
    if not fits:
        return None
    best = max(h + t for _q, h, _r, t in fits)
    top = [f for f in fits if f[1] + f[3] == best]
    if len(top) > 1:
        # One that would not cut into shallower code may still stand out.
        quiet = [f for f in top if f[2] == f[0] + f[1] or drops_quietly(lz, piece, f[0] + f[1], f[2])]
        top = quiet if len(quiet) == 1 else top
    if len(top) > 1:
        i = piece[0]
        return error(
            "ambiguous",
            lz.path,
            top[0][0] + 1,
            f"the snippet lines {lz.src(piece[0])}-{lz.src(piece[-1])} (from {lz.show(i)}) fit {len(top)} places "
            f"of {lz.path}: lines {', '.join(str(f[0] + 1) for f in top[:10])}",
            "show an unchanged line next to them that occurs once in the file",
        )
    return top[0]


def reach_context(
    lz: Lazy, piece: Sequence[int], lo: int, hi: int, at_end: bool, separated: bool = False
) -> tuple[int, int] | Finding:
    """Context at the marker's end of a piece, which may meet the file a few lines off.

    `at_end`: the piece follows an anchor at `lo`; its last lines may be the file's
    lines at q..q+t for lo <= q <= lo + reach, the lines lo..q being deleted (reach: as
    many lines as a marker-free stretch may drop).
    Otherwise the piece precedes an anchor at `hi`; its first lines may be the file's
    lines at q..q+t ending at most `reach` lines before `hi`.  Returns (q, t), or
    (lo, 0) / (hi, 0) when nothing meets; the longest context wins, and must meet once.
    Closing lines and blanks count only right where the piece is: a few lines off
    they cannot tell a replacement from an addition, and a piece that ends with one
    the file does not have there is refused.
    """
    adjacent = lo if at_end else hi
    reach = LAZY_SLACK + len(piece)  # as far as a marker-free stretch may drop lines
    for t in range(len(piece), 0, -1):
        part = piece[len(piece) - t :] if at_end else piece[:t]
        want = [lz.skeys[i] for i in part]
        if at_end:
            starts = range(lo, min(lo + reach, hi - t) + 1)
        else:
            starts = range(max(lo, hi - t - reach), hi - t + 1)
            adjacent = hi - t
        hits = [q for q in starts if lz.keys[q : q + t] == want]
        if all(weak(k) for k in want):
            if adjacent not in hits:
                continue
            # Met further off too, the lines between would be replaced: a reading that
            # stands only when they are no shallower than the new lines.
            rest = piece[: len(piece) - t] if at_end else piece[t:]
            others = [q for q in hits if q != adjacent and drops_quietly(lz, rest, *((lo, q) if at_end else (q + t, hi)))]
            if others:
                return _weak_context(lz, piece, part, [adjacent, others[0]], adjacent)
            return adjacent, t
        if len(hits) > 1:
            # Several places: one that would not cut into shallower code may still stand out.
            quiet = [q for q in hits if q == adjacent or drops_quietly(lz, piece, *((lo, q) if at_end else (q + t, hi)))]
            hits = quiet if len(quiet) == 1 else hits
        if len(hits) > 1:
            i = part[0]
            return error(
                "ambiguous",
                lz.path,
                hits[0] + 1,
                f"the snippet line {lz.show(i)} (line {lz.src(i)}) matches lines "
                f"{', '.join(str(h + 1) for h in hits)} of {lz.path}, which the merge cannot tell apart",
                "show one more unchanged line next to it, one that occurs once in the file",
            )
        if hits:
            return hits[0], t
    edge = piece[-1] if at_end else piece[0]
    if weak(lz.skeys[edge]) and not (separated and not lz.skeys[edge].strip()):
        near = lo if at_end else hi - 1
        return error(
            "ambiguous",
            lz.path,
            near + 1,
            f"the new lines at snippet line {lz.src(piece[0])} {'end' if at_end else 'start'} with "
            f"{lz.show(edge) if lz.skeys[edge].strip() else 'a blank line'} next to a marker, but {lz.path} has "
            f"{lz.file_line(near)} there (line {near + 1}): which lines does the marker keep?",
            "show an unchanged line that occurs once in the file between the new lines and the marker",
        )
    return (lo, 0) if at_end else (hi, 0)


def _weak_context(lz: Lazy, piece: Sequence[int], part: Sequence[int], hits: list[int], adjacent: int) -> Finding:
    other = next(q for q in hits if q != adjacent)
    i = part[0]
    shown = lz.show(i) if lz.skeys[i].strip() else "blank lines"
    return error(
        "ambiguous",
        lz.path,
        other + 1,
        f"the new lines at snippet line {lz.src(piece[0])} meet the file at {shown}, which it has at line "
        f"{adjacent + 1} and again at line {other + 1}: the merge cannot tell whether the lines between are "
        "kept or replaced",
        "show an unchanged line that occurs once in the file next to the new lines (not a blank or a closing bracket)",
    )


def shared(lz: Lazy, piece: Sequence[int], at: int, stop: int, suffix: bool = False) -> int:
    """How many lines at the end of `piece` (`suffix`), or non-blank lines at its start, are the
    file's lines from `at` on (before `stop`)."""
    if suffix:
        for t in range(min(len(piece), stop - at), 0, -1):
            if all(lz.skeys[piece[len(piece) - t + j]] == lz.keys[at + j] for j in range(t)):
                return t
        return 0
    n = 0
    while n < len(piece) and at + n < stop and lz.skeys[piece[n]].strip() and lz.skeys[piece[n]] == lz.keys[at + n]:
        n += 1
    return n


def edge_finding(lz: Lazy, piece: Sequence[int], start: bool) -> Finding:
    """New lines at an end of the file that nothing there anchors: added, or replacing the end?"""
    n = len(lz.keys)
    at = 0 if start else n - 1
    side, show = ("start", "first") if start else ("end", "last")
    return error(
        "ambiguous",
        lz.path,
        at + 1,
        f"the new lines at snippet line {lz.src(piece[0])} go at the {side} of {lz.path} with a marker on their "
        f"other side and no unchanged line of the file next to them: are they added there, or do they replace "
        f"the {show} lines (from {lz.file_line(at)})?",
        f"show the {show} unchanged line(s) of the file next to them"
        + ("" if start else ", or a blank line before them if they are a new block added at the end"),
    )


def closes_outside(lines: Iterable[str]) -> bool:
    """The lines close a bracket they did not open (strings are not told apart: a rare misjudgement
    only refuses)."""
    depth = 0
    for line in lines:
        for ch in line:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    return True
    return False


def unplaced(lz: Lazy, piece: Sequence[int], before: int, after: int, pos: int, pb: int) -> Finding:
    counts = {}
    for i in piece:
        k = lz.skeys[i]
        if k.strip():
            counts[i] = sum(1 for p in range(pos, pb) if lz.keys[p] == k)
    dup = next((i for i, c in counts.items() if c > 1), None)
    first = dup if dup is not None else next(iter(counts), piece[0])
    if dup is not None:
        why = f"{lz.show(dup)} matches {counts[dup]} lines of the file there"
    else:
        why = f"none of its lines is in the file, so nothing anchors {lz.show(first)}"
    return error(
        "ambiguous",
        lz.path,
        pos + 1,
        f"the snippet lines {lz.src(piece[0])}-{lz.src(piece[-1])} between the markers at snippet lines "
        f"{lz.src(before)} and {lz.src(after)} could go anywhere in lines {pos + 1}-{pb} of {lz.path}: {why}",
        "show an unchanged line right before or after them that occurs once in the file",
    )


def outside(lz: Lazy, marker: int, pos: int, end: int, first: int, ib: int, pb: int) -> Finding:
    block = f"lines {pos + 1}-{end + 1}" if end >= pos else f"nothing after line {pos}"
    if pb >= len(lz.keys) and ib >= len(lz.snippet.lines):
        nxt, fix = "the end of the file", "end the snippet with a marker at the margin to keep them"
    else:
        nxt, fix = f"{lz.show(ib)} (line {pb + 1})", "show them, or put a marker for them at their indentation"
    return error(
        "placeholder",
        lz.path,
        first + 1,
        f"the marker at snippet line {lz.src(marker)} stands for the rest of its block ({block}), but "
        f"{lz.file_line(first)} (line {first + 1}) and what follows lie outside that block, before {nxt}, and the "
        "snippet does not show them: merged as written they would be lost or the new lines misplaced",
        fix,
    )
