"""Property tests of the locator: whatever the tiers do, never the wrong lines.

Hypothesis draws a file full of repeated lines (blank lines, ``}``, ``return x``,
the same assignment at several indents), an edit of one to three hunks placed
anywhere (often next to duplicates), renders it in a dialect, and injects the
model mistakes the tiers exist for, several at once: wrong line numbers and
counts, stray blank context, dropped or added trailing blanks, a uniform indent
shift, typographic quotes, the other line ending, doubled backslashes, and an
invented context line.  Sometimes it corrupts a removed line instead.

Then, on the locator and splicer alone (no git: thousands of examples):

1. An edit whose removed lines are not in the file is never applied.
2. An applied edit changes only lines it removes, and adds only lines it adds
   (compared loosely: the tiers may have matched them loosely), and every
   other line keeps its exact bytes.
3. When the edit's place is unambiguous (its lines, compared as loosely as any
   tier compares, occur once in the file, and its literal text nowhere else),
   an applied edit gives exactly the intended file, byte for byte.

``AG_PROPERTY_EXAMPLES`` raises the number of examples (default 1000; the
derandomised run is the same on every machine); ``AG_PROPERTY_RANDOM=1`` draws
fresh ones, to hunt.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from guard import dialects
from guard.locate import ALL_TIERS, apply_splices, locate_changes, unescape
from guard.locate import UNICODE as _UNICODE
from guard.model import ordered_changes as _ordered
from guard.text.textfile import decode

EXAMPLES = int(os.environ.get("AG_PROPERTY_EXAMPLES", "1000"))
RANDOM = bool(os.environ.get("AG_PROPERTY_RANDOM"))  # a fresh random run (hunting), not the fixed one
PATH = "f.c"
DIALECTS = ("unified", "codex", "search-replace", "json")

# Few distinct lines, many repeats: the locator's hardest inputs.
VOCAB = (
    "",
    "",
    "",
    "}",
    "}",
    "    }",
    "return x;",
    "    return x;",
    "        return x;",
    "\treturn x;",
    "x = 1;",
    "    x = 1;",
    "if (a) {",
    "    if (a) {",
    "} else {",
    "// note",
    'puts("hi");',
    '    s = "a" + t;',
    'p = "C:\\\\tmp\\n";',
    "    y -= 2;",
    "\t\tbreak;",
)
NEW = ("x = 2;", "    return y;", "", "}", 'puts("bye");', "    z = 'q' - 1;", 'q = "\\\\d";', "\tcontinue;")


@dataclass
class Hunk:
    start: int  # 0-based first old line in the file
    before: list[str]  # context lines before the change (file text)
    removed: list[str]
    added: list[str]
    after: list[str]

    @property
    def old(self) -> list[str]:
        return self.before + self.removed + self.after

    @property
    def size(self) -> int:
        return len(self.old)


@dataclass
class Case:
    lines: list[str]
    eol: str
    hunks: list[Hunk]
    dialect: str
    mistakes: list[str] = field(default_factory=list)
    corrupt: bool = False


# --------------------------------------------------------------------------- generation


@st.composite
def cases(draw: st.DrawFn) -> Case:
    n = draw(st.integers(4, 40))
    uniq = iter(range(10**6))
    lines = [draw(st.sampled_from(VOCAB)) if draw(st.integers(0, 9)) < 7 else f"u{next(uniq)} = f({n});" for _ in range(n)]
    # File-level features the tiers must look through.
    if draw(st.booleans()):
        for i in draw(st.lists(st.integers(0, n - 1), max_size=4)):
            if lines[i]:
                lines[i] += draw(st.sampled_from(("  ", "\t", " ")))
    if draw(st.integers(0, 4)) == 0:
        for i in draw(st.lists(st.integers(0, n - 1), max_size=3)):
            lines[i] = lines[i].replace('"a"', "\u201ca\u201d").replace("note", "note \u2014 ok")
    eol = "\r\n" if draw(st.integers(0, 4)) == 0 else "\n"
    dialect = draw(st.sampled_from(DIALECTS))
    # One to three hunks in file order with at least one line between them.
    hunks: list[Hunk] = []
    pos = 0
    for _ in range(draw(st.integers(1, 3))):
        if pos >= n:
            break
        start = draw(st.integers(pos, n - 1))
        k1 = draw(st.integers(0, 3))
        m = draw(st.integers(0, 3))
        k2 = draw(st.integers(0, 3))
        if start + k1 + m + k2 > n:
            k1, m, k2 = 0, min(1, n - start), 0
        added = [draw(st.sampled_from(NEW + VOCAB)) for _ in range(draw(st.integers(0, 3)))]
        if m == 0 and (not added or k1 + k2 == 0):
            if start + k1 + 1 + k2 > n:
                break
            m = 1
        seg = lines[start : start + k1 + m + k2]
        if not any(x.strip() for x in seg):
            continue  # blank lines only: nothing a careful human would call a place
        h = Hunk(start, seg[:k1], seg[k1 : k1 + m], added, seg[k1 + m :])
        if dialect == "json" and h.removed == h.added:
            continue
        hunks.append(h)
        pos = start + h.size + 1
    if not hunks:
        hunks = [Hunk(0, [], [lines[0] or "x"], ["changed();"], [])]
        lines[0] = lines[0] or "x"
    case = Case(lines, eol, hunks, dialect)
    for mistake in (
        "offset",
        "recount",
        "stray-blank",
        "trailing-drop",
        "trailing-add",
        "indent",
        "unicode",
        "eol",
        "escape",
        "fuzz",
    ):
        if draw(st.integers(0, 5)) == 0:
            case.mistakes.append(mistake)
    case.corrupt = draw(st.integers(0, 7)) == 0 and any(h.removed for h in hunks)
    case.mistakes.append(f"seed{draw(st.integers(0, 999))}")
    return case


# --------------------------------------------------------------------------- the model's rendering


def _prettify(s: str) -> str:
    out, opened = [], False
    for ch in s:
        if ch == '"':
            out.append("\u201d" if opened else "\u201c")
            opened = not opened
        elif ch == "'":
            out.append("\u2019")
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class Rendered:
    text: str
    removed_lines: list[str]  # the removed lines as the model wrote them (to judge property 1)


def _model_lines(case: Case, h: Hunk, seed: int) -> list[tuple[str, str]]:
    """(tag, text) lines as the model writes them, mistakes included."""
    lines = [(" ", t) for t in h.before] + [("-", t) for t in h.removed] + [("+", t) for t in h.added]
    lines += [(" ", t) for t in h.after]
    mistakes = case.mistakes
    if "fuzz" in mistakes and any(tg == " " and t.strip() for tg, t in lines):
        ctx = [i for i, (tg, t) in enumerate(lines) if tg == " " and t.strip()]
        i = ctx[seed % len(ctx)]
        if seed % 2:
            lines[i] = (" ", f"invented_{seed}();")  # misremembered
        else:
            lines.insert(i + (seed // 2) % 2, (" ", f"invented_{seed}();"))  # made up
    if "stray-blank" in mistakes:
        lines.append((" ", ""))
    if case.corrupt and h.removed:
        i = next(i for i, (tg, _) in enumerate(lines) if tg == "-")
        lines[i] = ("-", lines[i][1] + " /* gone */")

    def each(fn, tags: str = " -+") -> None:  # type: ignore[no-untyped-def]
        for i, (tg, t) in enumerate(lines):
            if tg in tags:
                lines[i] = (tg, fn(t))

    if "trailing-drop" in mistakes:
        each(lambda t: t.rstrip(" \t"))
    if "trailing-add" in mistakes:
        each(lambda t: t + " " if t.strip() else t, " -")
    if "unicode" in mistakes:
        each(_prettify)
    if "escape" in mistakes:
        each(lambda t: t.replace("\\", "\\\\"))
    if "indent" in mistakes:
        each(lambda t: "    " + t if t.strip() else t)
    return lines


def render(case: Case) -> str:
    seed = int(next(m for m in case.mistakes if m.startswith("seed"))[4:])
    eol = case.eol
    if "eol" in case.mistakes:
        eol = "\n" if eol == "\r\n" else "\r\n"
    d = case.dialect
    out: list[str] = []
    delta = 0
    for n, h in enumerate(case.hunks):
        lines = _model_lines(case, h, seed + n)
        old = [t for tg, t in lines if tg != "+"]
        new = [t for tg, t in lines if tg != "-"]
        start = max(1, h.start + 1 + (((seed % 7) - 3 or 2) if "offset" in case.mistakes else 0))
        if d == "unified":
            counts = (len(old), len(new)) if "recount" not in case.mistakes else (len(old) + 2, max(0, len(new) - 1))
            s_old = start if old else start - 1
            out.append(f"@@ -{s_old},{counts[0]} +{max(0, s_old + delta)},{counts[1]} @@\n")
            out += [tg + t + eol for tg, t in lines]
        elif d == "codex":
            out.append(f"@@ -{start},{len(old)} +{max(1, start + delta)},{len(new)} @@\n" if seed % 3 else "@@\n")
            out += [tg + t + eol for tg, t in lines]
        elif d == "search-replace":
            out.append(
                f"{PATH}\n<<<<<<< SEARCH\n"
                + "".join(t + eol for t in old)
                + "=======\n"
                + "".join(t + eol for t in new)
                + ">>>>>>> REPLACE\n"
            )
        else:
            # Whole lines when the change ends the hunk (a deletion takes its line break),
            # else as Claude copies them: without the last line break.
            end = "" if h.after else eol
            out.append(json.dumps({"old_string": eol.join(old) + end, "new_string": eol.join(new) + (end if new else "")}))
        delta += len(new) - len(old)
    if d == "unified":
        return f"--- a/{PATH}\n+++ b/{PATH}\n" + "".join(out)
    if d == "codex":
        return f"*** Begin Patch\n*** Update File: {PATH}\n" + "".join(out) + "*** End Patch\n"
    if d == "search-replace":
        return "".join(out)
    return json.dumps({"file_path": PATH, "edits": [json.loads(x) for x in out]})


# --------------------------------------------------------------------------- oracles


def loose(s: str) -> str:
    return s.rstrip("\r").translate(_UNICODE).strip(" \t")


def looser(s: str) -> str:
    """`loose`, and blind to backslashes: a new line may keep the model's doubled ones."""
    return loose(s).replace("\\", "")


def _loose_model(s: str) -> list[str]:
    return [loose(x) for x in unescape(s).split("\n")]


def intended(case: Case) -> bytes:
    out: list[str] = []
    pos = 0
    for h in case.hunks:
        out += case.lines[pos : h.start + len(h.before)]
        out += h.added
        pos = h.start + len(h.before) + len(h.removed)
    out += case.lines[pos:]
    return "".join(x + case.eol for x in out).encode()


def unambiguous(case: Case, edit: str) -> bool:
    """Each hunk's true lines occur once in the file, compared as loosely as any tier compares,
    and its literal text (as the model wrote it) is at no other place either."""
    keys = [loose(x) for x in case.lines]
    flat = "".join(x + case.eol for x in case.lines)
    for h in case.hunks:
        want = [loose(x) for x in h.old]
        hits = [p for p in range(len(keys) - len(want) + 1) if keys[p : p + len(want)] == want]
        if hits != [h.start]:
            return False
        if case.dialect == "json":
            # str_replace matches substrings: a partial first or last line elsewhere counts.
            nw = len(want)
            for p in range(len(keys) - nw + 1):
                if p == h.start:
                    continue
                if nw == 1:
                    if want[0] and want[0] in keys[p]:
                        return False
                elif (
                    keys[p].endswith(want[0]) and keys[p + 1 : p + nw - 1] == want[1:-1] and keys[p + nw - 1].startswith(want[-1])
                ):
                    return False
    if case.dialect == "json":
        # Its literal text, with the file's line endings or with LF, only at its own place.
        lf = flat.replace("\r\n", "\n")
        for h, e in zip(case.hunks, json.loads(edit)["edits"]):
            for hay, old in ((flat, e["old_string"]), (lf, e["old_string"].replace("\r\n", "\n"))):
                own = sum(len(x) + len(case.eol if hay is flat else "\n") for x in case.lines[: h.start])
                at = hay.find(old)
                while at >= 0:
                    if at != own:
                        return False
                    at = hay.find(old, at + 1)
    return True


def _sides(case: Case) -> tuple[list[str], list[str]]:
    """The lines the edit may take away and bring, as the model wrote them (compared `looser`).

    SEARCH/REPLACE and str_replace edits have no context: every line of their old
    text is theirs to take away, every line of their new text to bring.
    """
    seed = int(next(m for m in case.mistakes if m.startswith("seed"))[4:])
    bare = case.dialect in ("search-replace", "json")
    gone: list[str] = []
    came: list[str] = []
    for n, h in enumerate(case.hunks):
        for tg, t in _model_lines(case, h, seed + n):
            parts = [looser(x) for x in unescape(t).split("\n")] + [looser(t)]
            if tg == "-" or (bare and tg == " "):
                gone += parts
            if tg == "+" or (bare and tg == " "):
                came += parts
    return gone, came


def _unseen(case: Case) -> bool:
    """A mistake changed the new lines, but none of the real old lines the model wrote shows it.

    Quotes made typographic, backslashes doubled or lines shifted in the new lines can
    only be undone when the copied lines show the same change against the file.
    """
    seed = int(next(m for m in case.mistakes if m.startswith("seed"))[4:])
    for n, h in enumerate(case.hunks):
        lines = _model_lines(case, h, seed + n)
        shown = [t for tg, t in lines if tg != "+" and "invented_" not in t]
        new = [t for tg, t in lines if tg == "+"]
        signs = {
            "unicode": (
                any(c in x for x in shown for c in "\u201c\u201d\u2019"),
                any(c in x for x in new for c in "\u201c\u201d\u2019"),
            ),
            "escape": (any("\\\\" in x for x in shown), any("\\" in x for x in new)),
            "indent": (any(x.strip() for x in shown), any(x.strip() for x in new)),
        }
        if any(m in case.mistakes and changed and not seen for m, (seen, changed) in signs.items()):
            return True
    return False


# --------------------------------------------------------------------------- the property


def _apply(case: Case, edit: str) -> tuple[bytes | None, list[str], list[str]]:
    edits, findings = dialects.parse(edit, case.dialect, PATH)
    assert edits is not None, (findings, edit)
    text = decode("".join(x + case.eol for x in case.lines).encode())
    fe = edits.files[0]
    out = locate_changes(text, fe.changes, ALL_TIERS, PATH, _ordered(fe))
    if out.findings:
        return None, [], [f.code for f in out.findings]
    new, _ = apply_splices(text, out.splices)
    return new.encode(), out.repairs, []


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(cases())
def test_never_the_wrong_lines(case: Case) -> None:
    edit = render(case)
    before = "".join(x + case.eol for x in case.lines).encode()
    got, repairs, codes = _apply(case, edit)
    event(f"{case.dialect}: {'refused ' + ','.join(sorted(set(codes))) if got is None else 'applied'}")
    if case.corrupt:
        # 1. A removed line the file does not have: never applied.
        assert got is None, (edit, repairs)
        return
    if got is None:
        return  # a refusal is always safe
    # 2. Only removed lines go, only added lines come; everything else keeps its bytes.
    # (Alignment-free: a diff may pair repeated lines either way.)
    old = before.decode().split("\n")
    new = got.decode().split("\n")
    removed, added = _sides(case)
    touchable = set(removed) | set(added)
    if case.dialect == "json":
        # str_replace cuts lines: what is left of a line that held the old text may stay.
        cut = {looser(x) for x in old if any(k and k in looser(x) for k in removed)}
        pieces = {k for x in new for k in [looser(x)] if any(c.startswith(k) or c.endswith(k) for c in cut)}
        touchable |= cut | pieces | {k for x in new for k in [looser(x)] if any(a and a in k for a in added)}
    assert [x for x in old if looser(x) not in touchable] == [x for x in new if looser(x) not in touchable], (edit, repairs)
    for key in touchable - (set() if case.dialect != "json" else cut | pieces):
        lost = sum(looser(x) == key for x in old) - sum(looser(x) == key for x in new)
        assert lost <= removed.count(key) and -lost <= added.count(key), (edit, repairs, key, lost)
    typographic = any(ord(c) in _UNICODE for h in case.hunks for x in h.old for c in x)
    if "unicode" in case.mistakes and typographic:
        return  # which of the model's typographic quotes did it mean? the file uses both
    if _unseen(case):
        return  # the model's new lines are off in a way its old lines give no sign of
    if "trailing-drop" in case.mistakes and any(
        r != a and r.rstrip(" \t") == a.rstrip(" \t") for h in case.hunks for r in h.removed for a in h.added
    ):
        return  # the change was to trailing blanks, and the model dropped them from its copy
    if unambiguous(case, edit):
        event("checked byte for byte")
        assert got == intended(case), (edit, repairs, got, intended(case), case)
