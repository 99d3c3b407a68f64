"""ast-grep's rewrite templates: which metavariables a template uses, and the text a match
makes of it.

ast-grep's Python binding finds matches but does not fill templates, so this module does
what its command line does (``ast-grep run --rewrite``; facts of ``crates/core/src/replacer``,
checked byte for byte against the command line by ``bench/structural_corpus.py``):

- **Metavariables.**  One to three ``$`` then a name of ``A``-``Z``, ``0``-``9`` and ``_``.
  Three ``$`` make a list (``$$$ARGS``); one or two, a single node (``$$A`` is ``A``).  A ``$``
  run without a name is text (``$(``, ``${``, a lone ``$``).
- **Text of a metavariable.**  A single one gives its node's text; a list gives the source
  from its first node's start to its last node's end (separators and comments between
  them included); a list that matched nothing gives nothing.
- **Indentation.**  Only spaces count, and only those that open a line (found in at most
  512 bytes before the point; further back, or past a tab, there is none).  A metavariable
  whose text spans lines is moved from the indentation of the line it starts on to that of
  the line it stands on in the template: lines after its first lose (or gain) the
  difference.  The filled template then gains, on every line after its first, the
  indentation of the line the match starts on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

LOOK_BACK = 512  # bytes before a point that ast-grep looks through for the start of its line
_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ_")


@dataclass(frozen=True, slots=True)
class Slot:
    """A metavariable in a template: its name, whether it is a list, where it is, its indentation."""

    name: str
    many: bool
    start: int  # index of its first `$` in the template
    end: int
    indent: int  # the spaces that open the template line it stands on


def indent_before(text: str, end: int) -> int:
    """The spaces that open the line `text[end]` is on, as ast-grep counts them: 0 when a
    character other than a space comes first, or when the line starts more than 512 bytes
    (of UTF-8) before `end`."""
    used = indent = 0
    i = end
    while i > 0:
        c = text[i - 1]
        used += 1 if c < "\x80" else len(c.encode("utf-8", "surrogatepass"))
        if used > LOOK_BACK:
            return 0
        if c == "\n":
            return indent
        indent = indent + 1 if c == " " else 0
        i -= 1
    return indent


def reindent(text: str, have: int, want: int) -> str:
    """`text` (lines after the first at indentation `have`) moved to indentation `want`."""
    if have == want or "\n" not in text:
        return text
    if have > want:
        cut = " " * (have - want)
        return "\n".join(line[len(cut) :] if line.startswith(cut) else line for line in text.split("\n"))
    pad = " " * (want - have)
    first, rest = text.split("\n", 1)
    return first + "\n" + "\n".join(pad + line for line in rest.split("\n"))


def _slot_at(template: str, at: int) -> Slot | None:
    """The metavariable whose first `$` is at `at`, or None when that `$` is text."""
    dollars = 1
    while dollars < 3 and template.startswith("$", at + dollars):
        dollars += 1
    start = at + dollars
    end = start
    while end < len(template) and template[end] in _NAME:
        end += 1
    if end == start:
        return None
    return Slot(template[start:end], dollars == 3, at, end, indent_before(template, at))


def slots(template: str) -> tuple[Slot, ...]:
    """Every metavariable of `template`, in order."""
    out: list[Slot] = []
    at = template.find("$")
    while at != -1:
        slot = _slot_at(template, at)
        if slot is None:
            at = template.find("$", at + 1)
            continue
        out.append(slot)
        at = template.find("$", slot.end)
    return tuple(out)


def pattern_names(pattern: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names a pattern may bind, read from its text: (single nodes, lists).

    A metavariable of a pattern is a whole token: one to three `$` and a name of capitals,
    digits and `_` that starts with a capital or `_`, with no identifier character or `$`
    on either side.  Names starting with `_` bind nothing (``$_``, ``$$$_REST``).  Written
    inside a string or a comment, a token is only text to ast-grep; the matches say so
    (``matches.unbound``)."""
    single: set[str] = set()
    many: set[str] = set()
    for name, dollars in _tokens(pattern):
        if not name.startswith("_"):
            (many if dollars == 3 else single).add(name)
    return frozenset(single), frozenset(many)


def _tokens(pattern: str) -> Iterator[tuple[str, int]]:
    i, n = 0, len(pattern)
    while i < n:
        if pattern[i] != "$" or (i and (pattern[i - 1].isalnum() or pattern[i - 1] in "_$")):
            i += 1
            continue
        j = i
        while j < n and pattern[j] == "$":
            j += 1
        dollars = j - i
        k = j
        while k < n and pattern[k] in _NAME:
            k += 1
        joined = k < n and (pattern[k].isalnum() or pattern[k] in "_$")
        if dollars <= 3 and k > j and pattern[j] in _FIRST and not joined:
            yield pattern[j:k], dollars
        i = k if k > i else i + 1


def mismatches(pattern: str, template: str) -> list[str]:
    """What is wrong with the metavariables `template` uses, given `pattern`: each a sentence
    (empty when every one is bound by the pattern, as a list where it is used as a list)."""
    single, many = pattern_names(pattern)
    out: list[str] = []
    seen: set[tuple[str, bool]] = set()
    for slot in slots(template):
        if (slot.name, slot.many) in seen:
            continue
        seen.add((slot.name, slot.many))
        written = ("$$$" if slot.many else "$") + slot.name
        if slot.name.startswith("_"):
            out.append(f"{written} binds nothing (a name starting with `_` matches without keeping the node)")
        elif slot.many and slot.name not in many:
            out.append(
                f"{written} is a list in `to` but "
                + (f"a single node in the pattern: write ${slot.name}" if slot.name in single else "not in the pattern")
            )
        elif not slot.many and slot.name not in single:
            out.append(
                f"{written} is a single node in `to` but "
                + (f"a list in the pattern: write $$${slot.name}" if slot.name in many else "not in the pattern")
            )
    return out


def fill(
    template: str,
    parsed: Sequence[Slot],
    source: str,
    start: int,
    single: Callable[[str], tuple[int, int] | None],
    many: Callable[[str], tuple[int, int] | None],
) -> str:
    """The text that replaces a match starting at `start` of `source`: `template` (whose
    metavariables are `parsed`) with each one's text put in, indented as ast-grep does.

    `single(name)` and `many(name)` give the span of `source` a metavariable matched (a list:
    from its first node's start to its last node's end), or None (nothing: an empty list)."""
    out: list[str] = []
    last = 0
    for slot in parsed:
        out.append(template[last : slot.start])
        last = slot.end
        span = (many if slot.many else single)(slot.name)
        if span is None:
            continue
        text = source[span[0] : span[1]]
        if "\n" in text:
            text = reindent(text, indent_before(source, span[0]), slot.indent)
        out.append(text)
    out.append(template[last:])
    return reindent("".join(out), 0, indent_before(source, start))
