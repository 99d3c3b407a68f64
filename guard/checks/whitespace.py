"""`whitespace`: git's whitespace errors in added lines, and the fix `git apply --whitespace=fix` makes.

The rules are git's (see git-config ``core.whitespace``):

- ``blank-at-eol``: spaces or tabs at the end of a line (a CR too, unless ``cr-at-eol``);
- ``space-before-tab``: a space before a tab in the indent;
- ``indent-with-non-tab``: an indent with ``tabwidth`` or more spaces where a tab could be;
- ``tab-in-indent``: any tab in the indent;
- ``blank-at-eof``: blank lines added at the end of the file;
- ``trailing-space`` is short for blank-at-eol and blank-at-eof; ``cr-at-eol`` loosens
  blank-at-eol; ``tabwidth=N`` (default 8).

Which rules apply to a path: the policy's ``whitespace.rules`` (the listed rules, git's
default set blank-at-eol, space-before-tab, blank-at-eof when unset), changed by git's
``core.whitespace`` (names add, ``-name`` removes), unless the path's ``whitespace``
attribute says otherwise: set = every rule that does not loosen but tab-in-indent (as
git), unset = none, a value = that list applied to the base.

A CRLF file's added lines carry no CR (the terminator is kept apart), so CRLF is
never trailing whitespace; only a stray CR inside the line is.

Markdown: two spaces at the end of a line that holds text are a hard line break,
so in the files the policy's ``whitespace.markdown_linebreak_ext`` names (``md``
and ``markdown`` by default; ``*`` for every file) they are not trailing whitespace
and the fix keeps them, as pre-commit-hooks' trailing-whitespace does with
``--markdown-linebreak-ext``: other blanks before them go, and exactly two remain.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..fs.kept import by_value
from ..model import FileChange, Finding
from ..text.textfile import NotText, Text, decode
from ..text.wording import span, visible
from ..tree.diffs import changed_lines, diffed
from .base import Blocks, CheckInput, capped, lines_containing

DEFAULT = frozenset({"blank-at-eol", "space-before-tab", "blank-at-eof"})
# What `whitespace` set as a gitattribute turns on (git: all but the loosening rules and tab-in-indent).
ALL = frozenset({"blank-at-eol", "space-before-tab", "indent-with-non-tab", "blank-at-eof"})
_KNOWN = frozenset(
    {
        "blank-at-eol",
        "space-before-tab",
        "indent-with-non-tab",
        "tab-in-indent",
        "blank-at-eof",
        "cr-at-eol",
    }
)


@dataclass(frozen=True, slots=True)
class Rules:
    """The whitespace rules in force for one file (git's `core.whitespace` and `whitespace` attribute).

    (Not a tuple: ``"tab-in-indent" in rules`` asks for a rule, not a field.)
    """

    enabled: frozenset[str] = DEFAULT
    tabwidth: int = 8
    linebreak: bool = False  # keep a Markdown hard line break (two trailing spaces after text)

    def __contains__(self, name: object) -> bool:
        return name in self.enabled


@by_value(256)  # the same few specs for every file of a change
def parse_rules(spec: str, base: Rules) -> Rules:
    """Apply a git-style rule list (`a,-b,tabwidth=4`) to `base`; unknown names are ignored, as git does."""
    enabled = set(base.enabled)
    tabwidth = base.tabwidth
    for raw in spec.split(","):
        name = raw.strip()
        if not name:
            continue
        if name.startswith("tabwidth="):
            value = name[len("tabwidth=") :]
            if value.isdigit() and 1 <= int(value) <= 63:
                tabwidth = int(value)
            continue
        negate = name.startswith("-")
        bare = name[1:] if negate else name
        names = {"blank-at-eol", "blank-at-eof"} if bare == "trailing-space" else {bare} & _KNOWN
        if negate:
            enabled -= names
        else:
            enabled |= names
    if "indent-with-non-tab" in enabled and "tab-in-indent" in enabled:
        enabled.discard("tab-in-indent")  # git refuses the pair; the older rule wins
    return Rules(frozenset(enabled), tabwidth)


@by_value(64)
def _base_rules(spec: str | None, core_whitespace: str | None) -> Rules:
    """The policy's rules changed by git's core.whitespace, before a path's attribute."""
    base = parse_rules(spec, Rules(frozenset())) if spec is not None else Rules()
    if core_whitespace:
        base = parse_rules(core_whitespace, base)
    return base


def rules_for(path: str, inp: CheckInput) -> Rules:
    spec = inp.policy.get("whitespace.rules")
    base = _base_rules(spec if isinstance(spec, str) else None, inp.core_whitespace)
    attr = inp.attr(path, "whitespace")
    if attr is True:
        rules = Rules(ALL, base.tabwidth)
    elif attr is False:
        rules = Rules(frozenset(), base.tabwidth)
    elif isinstance(attr, str):
        rules = parse_rules(attr, base)
    else:
        rules = base
    suffixes = inp.policy.markdown_suffixes
    if suffixes is None or path.lower().endswith(suffixes):
        rules = replace(rules, linebreak=True)
    return rules


def _trimmed(body: str, rules: Rules) -> str:
    """`body` without its trailing blanks, a Markdown line break kept when the rules say so."""
    if rules.linebreak and body.endswith("  ") and not body.isspace():
        return body[:-2].rstrip(" \t\r") + "  "
    return body.rstrip(" \t\r")


def _indent_end(text: str, stop: int) -> int:
    i = 0
    while i < stop and text[i] in " \t":
        i += 1
    return i


def line_errors(text: str, rules: Rules) -> list[str]:
    """The rules an added line (without its terminator) breaks, blank-at-eof aside."""
    errors: list[str] = []
    stop = len(text)
    if "blank-at-eol" in rules:
        body = text[:-1] if "cr-at-eol" in rules and text.endswith("\r") else text
        if _trimmed(body, rules) != body:
            errors.append("blank-at-eol")
            stop = len(body.rstrip(" \t\r"))  # the trailing blanks are not also judged as indent
    end = _indent_end(text, stop)
    indent = text[:end]
    last_tab = indent.rfind("\t")
    if "space-before-tab" in rules and last_tab > 0 and " " in indent[:last_tab]:
        errors.append("space-before-tab")
    if "indent-with-non-tab" in rules and end - (last_tab + 1) >= rules.tabwidth:
        errors.append("indent-with-non-tab")
    if "tab-in-indent" in rules and last_tab >= 0:
        errors.append("tab-in-indent")
    return errors


def fix_line(text: str, rules: Rules) -> str:
    """The line as `git apply --whitespace=fix` would write it."""
    cr = ""
    if "cr-at-eol" in rules and text.endswith("\r"):
        cr, text = "\r", text[:-1]
    if "blank-at-eol" in rules:
        text = _trimmed(text, rules)
    end = _indent_end(text, len(text))
    indent, rest = text[:end], text[end:]
    last_tab = indent.rfind("\t")
    before_tab = "space-before-tab" in rules and last_tab > 0 and " " in indent[:last_tab]
    wide = "indent-with-non-tab" in rules and end - (last_tab + 1) >= rules.tabwidth
    if before_tab or wide:
        # Rewrite the indent up to its last tab (all of it for indent-with-non-tab):
        # each run of `tabwidth` spaces becomes a tab, shorter runs before a tab go.
        region = end if "indent-with-non-tab" in rules else last_tab + 1
        out: list[str] = []
        spaces = 0
        for ch in indent[:region]:
            if ch == "\t":
                out.append("\t")
                spaces = 0
            else:
                spaces += 1
                if spaces == rules.tabwidth:
                    out.append("\t")
                    spaces = 0
        indent = "".join(out) + " " * spaces + indent[region:]
    elif "tab-in-indent" in rules and last_tab >= 0:
        out = []
        column = 0
        for ch in indent[: last_tab + 1]:
            width = rules.tabwidth - column % rules.tabwidth if ch == "\t" else 1
            out.append(" " * width)
            column += width
        indent = "".join(out) + indent[last_tab + 1 :]
    return indent + rest + cr


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _trailing_blank_added(change: FileChange, lines: int) -> list[int]:
    """Line numbers of the blank lines the change adds at the very end of a file of `lines` lines."""
    found: list[int] = []
    k = len(change.added) - 1
    n = lines
    while n > 0 and k >= 0 and change.added[k][0] == n and not change.added[k][1].strip(" \t\r"):
        found.append(n)
        n -= 1
        k -= 1
    return found[::-1]


def _suspects(change: FileChange, rules: Rules, blocks: Blocks | None = None) -> list[tuple[int, str]]:
    """(line number, text) of the added lines that may break a per-line rule."""
    # A needle with a tab or a CR cannot hit a block without one, and finding out
    # costs a memchr, where each needle costs a full pass.
    blocks = blocks if blocks is not None else Blocks()  # one block for both passes below
    text = blocks.of(change).text
    tab, cr = "\t" in text, "\r" in text
    needles: list[str] = []
    if "blank-at-eol" in rules:
        needles += [" \n", *(["\t\n"] if tab else []), *(["\r\n"] if cr else [])]
    if "space-before-tab" in rules and tab:
        needles.append(" \t")
    if "indent-with-non-tab" in rules:
        needles.append(" " * rules.tabwidth)
    if "tab-in-indent" in rules and tab:
        needles.append("\t")
    found = lines_containing(change, needles, blocks) if needles else []
    last = len(change.added) - 1
    if "blank-at-eol" in rules and change.added and change.added[-1][1].endswith((" ", "\t", "\r")):
        found.append(last)  # the block's last line has no newline after it
    return [change.added[i] for i in sorted(set(found))]


_WHAT = {
    "blank-at-eol": "trailing whitespace",
    "space-before-tab": "a space before a tab in the indent",
    "indent-with-non-tab": "an indent of spaces where tabs belong",
    "tab-in-indent": "a tab in the indent",
}
_HINT = {
    "blank-at-eol": "remove the spaces or tabs at the end of the line",
    "space-before-tab": "indent with tabs only, or with spaces only",
    "indent-with-non-tab": "indent with tabs (this file's rules say so)",
    "tab-in-indent": "indent with spaces (this file's rules say so)",
}


def _shown(text: str, broken: list[str], limit: int = 100) -> str:
    """The line quoted with its blanks made visible (what the finding is about); a long one
    cut where it is not about: its middle for indent rules, its start for trailing blanks."""
    shown = visible(text, unicode=False)
    if len(shown) > limit:
        if "blank-at-eol" in broken:
            shown = "..." + shown[len(shown) - limit + 3 :]
        else:
            shown = shown[: limit - 3] + "..."
    legend = [what for mark, what in (("·", "· a space"), ("→", "→ a tab"), ("␍", "␍ a CR")) if mark in shown]
    return repr(shown) + (f" ({', '.join(legend)})" if legend else "")


def _text(change: FileChange) -> Text | None:
    if change.after is None:
        return None
    try:
        return decode(change.after)
    except NotText:
        return None


def _resent(change: FileChange, lines: dict[int, str], rules: Rules) -> list[int]:
    """The added lines among `lines` that the edit sent again without changing what they say (the
    text, blanks aside, of a line removed where they stand) and whose whitespace errors that line
    already had: the fix repairs what the edit writes, never what the file held.  (A line the
    edit sent again with trailing blanks the file's line did not have is the edit's to repair.)"""
    out = []
    for region in changed_lines(change):
        old: dict[str, list[str]] = {}
        for _n, t in region.removed:
            old.setdefault(" ".join(t.split()), []).append(t)
        for n, t in region.added:
            if n in lines:
                had = old.get(" ".join(t.split()), [])
                if any(set(line_errors(t, rules)) <= set(line_errors(o, rules)) for o in had):
                    out.append(n)
    return out


def problems(change: FileChange, rules: Rules, level: str, blocks: Blocks | None = None) -> list[Finding]:
    if change.after is None or not change.added or not rules.enabled:
        return []
    out: list[Finding] = []
    path = change.path
    if rules.enabled - {"blank-at-eof", "cr-at-eol"}:
        for number, text in _suspects(change, rules, blocks):
            broken = line_errors(text, rules)
            if broken:
                what = ", ".join(f"{_WHAT[r]} ({r})" for r in broken)
                out.append(
                    Finding(
                        "whitespace",
                        level,
                        path,
                        number,
                        f"{what} in the added line {_shown(text, broken)}",
                        "; ".join(_HINT[r] for r in broken),
                    )
                )
    if "blank-at-eof" in rules and not change.added[-1][1].strip(" \t\r"):
        # (Only a blank last added line can start such a run: counting lines is a pass.)
        blank = _trailing_blank_added(change, _line_count(change.after))
        if blank:
            out.append(
                Finding(
                    "whitespace",
                    level,
                    path,
                    blank[0],
                    f"blank lines added at the end of the file ({span(blank[0], blank[-1])}; blank-at-eof)",
                    "end the file with its last line of content",
                )
            )
    return out


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        findings.extend(problems(change, rules_for(change.path, inp), level, inp.blocks))
    return capped(findings)


def fix(change: FileChange, rules: Rules, blocks: Blocks | None = None) -> FileChange:
    """`change` with its added lines repaired as `git apply --whitespace=fix` does.

    Only added lines change; terminators, the BOM and every kept line stay as they
    were.  Returns `change` itself when there is nothing to fix.
    """
    if change.after is None or not change.added or not rules.enabled:
        return change
    fixes: dict[int, str] = {}
    if rules.enabled - {"blank-at-eof", "cr-at-eol"}:
        for number, line in _suspects(change, rules, blocks):
            fixed = fix_line(line, rules)
            if fixed != line:
                fixes[number] = fixed
        if fixes and change.removed:
            for number in _resent(change, fixes, rules):
                del fixes[number]
    blank = _trailing_blank_added(change, _line_count(change.after)) if "blank-at-eof" in rules else []
    if not fixes and not blank:
        return change
    text = _text(change)
    if text is None:
        return change
    lines = list(text.lines)
    eols = list(text.eols)
    for number, fixed in fixes.items():
        lines[number - 1] = fixed
    if blank:
        del lines[blank[0] - 1 :], eols[blank[0] - 1 :]
    new_text = Text(tuple(lines), tuple(eols), text.bom)
    made = change._replace(after=new_text.encode(), repairs=(*change.repairs, "whitespace-fix"))
    return diffed(made, after_text=new_text)
