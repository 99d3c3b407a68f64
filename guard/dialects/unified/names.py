"""The file names of a unified diff: C-quoted names, timestamps and annotations, prefixes.

See the module doc of ``guard.dialects.unified`` (Paths) for what is stripped when.
"""

from __future__ import annotations

from ...text.regex import lazy

DEV_NULL = "/dev/null"
_MAX_HEADER = 4096  # a `diff --git` line longer than this is not split into names

_ESCAPES = {'"': 0x22, "\\": 0x5C, "a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
OCTAL = "01234567"

_DATE = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:[ \t]*(?:[+-]\d\d:?\d\d|Z|[A-Z]{2,5}))?"
_CTIME = (
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[ \t]+\d\d?[ \t]+\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[ \t]+[A-Z]{2,5})?[ \t]+\d{4}(?:[ \t]+[+-]\d{4})?"
)
_SVN = r"\((?:revision \d+|working copy|nonexistent|revision HEAD)\)"
_ANNOTATION_RE = lazy(rf"(?:[ \t]+(?:{_DATE}|{_CTIME})|[ \t]*{_SVN})[ \t]*$")


def _take_quoted(text: str) -> tuple[str, str] | None:
    """A C-quoted name at the start of `text` (git's quoting): (name, rest after the quote)."""
    out = bytearray()
    k, n = 1, len(text)
    while k < n:
        ch = text[k]
        if ch == '"':
            return out.decode("utf-8", "surrogateescape"), text[k + 1 :]
        if ch != "\\":
            out += ch.encode("utf-8", "surrogateescape")
            k += 1
            continue
        esc = text[k + 1 : k + 2]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            k += 2
        elif esc and esc in OCTAL:
            digits = text[k + 1 : k + 4]
            if len(digits) != 3 or any(d not in OCTAL for d in digits) or int(digits, 8) > 255:
                return None
            out.append(int(digits, 8))
            k += 4
        else:
            return None
    return None


def file_name(field_text: str) -> str:
    """The name in a `---`/`+++`/`Binary files` field, without timestamp or annotation."""
    if field_text.startswith('"'):
        quoted = _take_quoted(field_text)
        if quoted is not None and quoted[1][:1] in ("", " ", "\t"):
            return quoted[0]
    # A known timestamp at the end is cut first, so a name holding a TAB survives
    # (`post\timage.txt\t2010-08-18 ...`); else everything from the first TAB goes
    # (CVS writes `name\tDATE\tREVISION`).  Every annotation starts with a blank or a
    # parenthesis: a plain name needs no pattern.
    annotated = " " in field_text or "\t" in field_text or "(" in field_text
    found = _ANNOTATION_RE().search(field_text) if annotated else None
    if found:
        field_text = field_text[: found.start()]
    if not found:
        field_text = field_text.partition("\t")[0]
    return field_text.rstrip(" \t")


def name_token(text: str) -> str:
    """A whole field that is one name, quoted or not (`rename from`, second git name)."""
    if text.startswith('"'):
        quoted = _take_quoted(text)
        if quoted is not None and not quoted[1].strip():
            return quoted[0]
    return text


def strip1(name: str) -> str:
    return name.partition("/")[2]


def _same_rest(old: str, new: str) -> bool:
    """`old` and `new` are one path under two different top folders (`a/x b/x`)."""
    top_o, slash_o, rest_o = old.partition("/")
    top_n, slash_n, rest_n = new.partition("/")
    return bool(slash_o and slash_n and rest_o) and top_o != top_n and rest_o == rest_n


def _is_ab(old: str, new: str) -> bool:
    return old.startswith("a/") and new.startswith("b/") and len(old) > 2 and len(new) > 2


def git_header_names(rest: str) -> list[tuple[str, str]]:
    """Possible (old, new) splits of the names after `diff --git `, best first, prefixes kept."""
    if rest.startswith('"'):
        first = _take_quoted(rest)
        if first is None or not first[1].startswith(" "):
            return []
        return [(first[0], name_token(first[1][1:]))]
    at = rest.find(' "')
    while at != -1:
        second = _take_quoted(rest[at + 1 :])
        if second is not None and not second[1].strip():
            return [(rest[:at], second[0])]
        at = rest.find(' "', at + 1)
    if len(rest) > _MAX_HEADER:
        return []
    splits = [(rest[:k], rest[k + 1 :]) for k, ch in enumerate(rest) if ch == " "]
    best = [s for s in splits if s[0] == s[1] or _same_rest(*s)]
    best += [s for s in splits if _is_ab(*s) and s not in best]
    if not best and len(splits) == 1:
        best = splits
    return best


def git_strips(old: str, new: str) -> bool:
    """Whether the names of one `diff --git` line carry a prefix to strip."""
    return old != new and (_same_rest(old, new) or _is_ab(old, new))


def plain_names(old: str, new: str, tree_diff: bool) -> tuple[str, str]:
    """Strip the prefixes of a `---`/`+++` pair outside git (see the module doc)."""
    if old == DEV_NULL:
        return old, new[2:] if new.startswith("b/") else new
    if new == DEV_NULL:
        return old[2:] if old.startswith("a/") else old, new
    if _is_ab(old, new) or (tree_diff and _same_rest(old, new)):
        return strip1(old), strip1(new)
    return old, new


def pick(old: str, new: str) -> str:
    """The target of a plain modify whose names differ: like git, the shorter of x/x.orig."""
    if old != new and new.startswith(old):
        return old
    return new
