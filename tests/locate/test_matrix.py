"""The locate matrix: every tier times every dialect, and the refusals.

One edit intent per tier (the model's mistake the tier repairs), rendered in
each dialect that can carry it, applied with the CLI to a real repository.  An
applied cell must give the intended file byte for byte and report the tier as a
repair; the same cell with that tier switched off in the policy must be
refused with the work tree untouched.  The refusal cells make each tier find
two places (``ambiguous``, never the first of them), and put a removed line or
an invented context line where the file has none.

Cells a dialect cannot express are listed in ``NOT_APPLICABLE`` with the
reason, so the table stays complete: SEARCH/REPLACE and str_replace edits carry
no line numbers (``offset``, ``recount``) and no base (``3way``); str_replace
has no context lines (``fuzz``); hashline edits name lines, not text, so only
``offset`` (a moved read) and ``3way``-like re-anchoring apply to them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest
from conftest import Repo

DIALECTS = ("unified", "codex", "search-replace", "json", "hashline")
PATH = "src/app.py"

# A file with duplicate blocks (alpha/gamma are the same body), blank lines,
# `return` lines and a line with backslashes.
BASE = [
    "import os",
    "import re",
    "",
    'PATTERN = re.compile(r"\\d+\\s*")',
    "",
    "",
    "def alpha(x):",
    "    if x is None:",
    "        return 0",
    "    return x + 1",
    "",
    "",
    "def beta(items):",
    "    total = 0",
    "    for item in items:",
    "        total += item",
    "    return total",
    "",
    "",
    "def gamma(x):",
    "    if x is None:",
    "        return 0",
    "    return x + 1",
    "",
    "",
    "def delta(name):",
    '    message = "hello, " + name',
    "    print(message)",
    "    return message",
]

Line = tuple[str, str]  # (tag, text): " " context, "-" removed, "+" added


def _body(lines: Sequence[Line], side: str) -> list[str]:
    drop = "+" if side == "old" else "-"
    return [t for tag, t in lines if tag != drop]


# --------------------------------------------------------------------------- rendering


def render(
    dialect: str,
    lines: Sequence[Line],
    start: int,
    *,
    eol: str = "\n",
    counts: tuple[int, int] | None = None,
    base: str | None = None,
    tag: str | None = None,
) -> str:
    """The edit in one dialect; `start` is the 1-based old line of the first hunk line."""
    old, new = _body(lines, "old"), _body(lines, "new")
    if dialect == "unified":
        n_old, n_new = counts or (len(old), len(new))
        head = [f"diff --git a/{PATH} b/{PATH}", f"index {base}..0123456 100644"] if base else []
        head += [f"--- a/{PATH}", f"+++ b/{PATH}", f"@@ -{start},{n_old} +{start},{n_new} @@"]
        return "".join(h + "\n" for h in head) + "".join(tg + t + eol for tg, t in lines)
    if dialect == "codex":
        hdr = f"@@ -{start},{len(old)} +{start},{len(new)} @@" if counts is not None or start else "@@"
        body = "".join(tg + t + eol for tg, t in lines)
        return f"*** Begin Patch\n*** Update File: {PATH}\n{hdr}\n{body}*** End Patch\n"
    if dialect == "search-replace":
        return (
            f"{PATH}\n```python\n<<<<<<< SEARCH\n"
            + "".join(t + eol for t in old)
            + "=======\n"
            + "".join(t + eol for t in new)
            + ">>>>>>> REPLACE\n```\n"
        )
    if dialect == "json":
        return json.dumps({"file_path": PATH, "old_string": eol.join(old), "new_string": eol.join(new)})
    if dialect == "hashline":
        # Replace the removed lines (one contiguous run) by the added ones.
        first = next(i for i, (tg, _) in enumerate(lines) if tg != "+" and tg == "-")
        a = start + sum(1 for tg, _ in lines[:first] if tg != "+")
        b = a + sum(1 for tg, _ in lines if tg == "-") - 1
        rows = "".join("+" + t + eol for tg, t in lines if tg == "+")
        return f"[{PATH}#{tag}]\nreplace {a}..{b}\n{rows}"
    raise AssertionError(dialect)


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class Cell:
    name: str
    file: bytes  # the work tree file the edit meets
    edit: Callable[[str], str]  # dialect -> edit text
    after: bytes | None  # the intended result, or None for a refusal
    repairs: tuple[str, ...] = ()  # each must be reported (a subset check)
    error: str = ""  # the finding code of a refusal
    tier: str = ""  # the tier a policy may switch off to turn this into a refusal
    dialects: tuple[str, ...] = DIALECTS
    committed: bytes | None = None  # the committed version when it differs from `file` (3way)
    extra: dict[str, str] = field(default_factory=dict)


def _join(lines: Sequence[str], eol: str = "\n") -> bytes:
    return "".join(ln + eol for ln in lines).encode()


def _with(lines: Sequence[str], changes: dict[int, str | list[str]]) -> list[str]:
    """`lines` with 1-based line numbers replaced (a list replaces one line by several)."""
    out: list[str] = []
    for i, ln in enumerate(lines, 1):
        got = changes.get(i, ln)
        out += got if isinstance(got, list) else [got]
    return out


# The main intent: in beta, `total += item` becomes `total += item * 2` (line 16).
BETA = [
    (" ", "def beta(items):"),
    (" ", "    total = 0"),
    (" ", "    for item in items:"),
    ("-", "        total += item"),
    ("+", "        total += item * 2"),
    (" ", "    return total"),
]
BETA_START = 13
BETA_AFTER = _with(BASE, {16: "        total += item * 2"})


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


BASE_ID = _blob_id(_join(BASE))[:7]


def _map(lines: Sequence[Line], fn: Callable[[str], str], tags: str = " -+") -> list[Line]:
    return [(tg, fn(t) if tg in tags else t) for tg, t in lines]


def _cells() -> list[Cell]:
    cells: list[Cell] = []
    plain = _join(BASE)
    tag = _blob_id(plain)[:8]

    def simple(lines: Sequence[Line], start: int = BETA_START, **kw: object) -> Callable[[str], str]:
        return lambda d: render(d, lines, start, tag=tag, **kw)  # type: ignore[arg-type]

    cells.append(Cell("exact", plain, simple(BETA), _join(BETA_AFTER)))

    # offset: the line numbers are 5 off (a diff made against an older file).
    cells.append(
        Cell(
            "offset",
            plain,
            simple(BETA, BETA_START + 5),
            _join(BETA_AFTER),
            ("offset",),
            tier="offset",
            dialects=("unified", "codex"),
        )
    )

    # recount: the header's counts are wrong; or a stray blank context line at the end.
    cells.append(
        Cell(
            "recount",
            plain,
            lambda d: render(d, BETA, BETA_START, counts=(9, 2)),
            _join(BETA_AFTER),
            ("recount",),
            tier="recount",
            dialects=("unified",),
        )
    )
    stray = list(BETA) + [(" ", "")] * 1
    stray_before = _with(BASE, {17: ["    return total", "# end"], 18: [], 19: []})  # no blank after `return total`
    cells.append(
        Cell(
            "recount-stray-blank",
            _join(stray_before),
            simple(stray),
            _join(_with(stray_before, {16: "        total += item * 2"})),
            ("recount",),
            tier="recount",
            dialects=("unified", "codex"),
        )
    )

    # trailing-whitespace: the file has trailing blanks the model dropped ...
    ws_file = _with(BASE, {13: "def beta(items):  ", 14: "    total = 0\t", 16: "        total += item "})
    cells.append(
        Cell(
            "trailing-whitespace",
            _join(ws_file),
            simple(BETA),
            _join(_with(ws_file, {16: "        total += item * 2"})),
            ("trailing-whitespace",),
            tier="trailing-whitespace",
            dialects=DIALECTS[:4],
        )
    )
    # ... or the model added blanks the file lacks (added lines are cleaned by whitespace: fix).
    cells.append(
        Cell(
            "trailing-whitespace-added",
            plain,
            simple(_map(BETA, lambda t: t + "  ")),
            _join(BETA_AFTER),
            ("trailing-whitespace",),
            tier="trailing-whitespace",
            dialects=DIALECTS[:4],
        )
    )

    # indent: the model's lines are shifted uniformly; the new line is shifted back.
    cells.append(
        Cell(
            "indent-dedented",
            plain,
            simple(_map(BETA[1:], lambda t: t[4:]), BETA_START + 1),
            _join(BETA_AFTER),
            ("indent",),
            tier="indent",
            dialects=DIALECTS[:4],
        )
    )
    cells.append(
        Cell(
            "indent-deeper",
            plain,
            simple(_map(BETA, lambda t: "    " + t)),
            _join(BETA_AFTER),
            ("indent",),
            tier="indent",
            dialects=DIALECTS[:4],
        )
    )
    tabbed = [ln.replace("    ", "\t") for ln in BASE]
    tab_edit = [
        (" ", "\ttotal = 0"),
        (" ", "\tfor item in items:"),
        ("-", "\t\ttotal += item"),
        ("+", "\t\ttotal += item * 2"),
        (" ", "\treturn total"),
    ]
    cells.append(
        Cell(
            "indent-tabs",
            _join(tabbed),
            simple(_map(tab_edit, lambda t: t[1:]), BETA_START + 1),
            _join(_with(tabbed, {16: "\t\ttotal += item * 2"})),
            ("indent",),
            tier="indent",
            dialects=DIALECTS[:4],
        )
    )

    # unicode: the file has typographic characters the model wrote in ASCII ...
    uni_file = _with(BASE, {26: "def delta(name):\u00a0", 27: "    message = \u201chello,\u00a0\u201d + name  # \u2014"})
    uni_edit = [
        (" ", "def delta(name): "),
        (" ", '    message = "hello, " + name  # -'),
        ("-", "    print(message)"),
        ("+", "    print(message.upper())"),
        (" ", "    return message"),
    ]
    cells.append(
        Cell(
            "unicode-in-file",
            _join(uni_file),
            simple(uni_edit, 26),
            _join(_with(uni_file, {28: "    print(message.upper())"})),
            ("unicode",),
            tier="unicode",
            dialects=DIALECTS[:4],
        )
    )
    # ... or the model "prettified" quotes and dashes in every line it wrote, the new one too.
    pretty = [
        (" ", "def delta(name):"),
        (" ", "    message = \u201chello, \u201d + name"),
        ("-", "    print(message)"),
        ("+", "    print(message, \u201c\u2014\u201d)"),
        (" ", "    return message"),
    ]
    cells.append(
        Cell(
            "unicode-in-edit",
            plain,
            simple(pretty, 26),
            _join(_with(BASE, {28: '    print(message, "-")'})),
            ("unicode",),
            tier="unicode",
            dialects=DIALECTS[:4],
        )
    )

    # eol: an LF edit on a CRLF file, and a CRLF edit on an LF file.
    crlf = _join(BASE, "\r\n")
    cells.append(
        Cell("eol-lf-edit-crlf-file", crlf, simple(BETA), _join(BETA_AFTER, "\r\n"), ("eol",), tier="eol", dialects=DIALECTS[:4])
    )
    cells.append(
        Cell(
            "eol-crlf-edit-lf-file",
            plain,
            simple(BETA, eol="\r\n"),
            _join(BETA_AFTER),
            ("eol",),
            tier="eol",
            dialects=DIALECTS[:4],
        )
    )

    # escape: the model's text JSON-escaped once too often (doubled backslashes) ...
    ESC = [
        (" ", "import re"),
        (" ", ""),
        (" ", 'PATTERN = re.compile(r"\\d+\\s*")'),
        ("+", 'WORD = re.compile(r"\\w+")'),
        (" ", ""),
    ]
    esc_after = _with(BASE, {4: ['PATTERN = re.compile(r"\\d+\\s*")', 'WORD = re.compile(r"\\w+")']})
    cells.append(
        Cell(
            "escape-backslashes",
            plain,
            simple(_map(ESC, lambda t: t.replace("\\", "\\\\")), 2),
            _join(esc_after),
            ("escape",),
            tier="escape",
            dialects=DIALECTS[:4],
        )
    )
    # ... or its line breaks written as a literal `\n` (one line holding two).
    two = [("-", "    total = 0\\n    for item in items:"), ("+", "    total = 1\\n    for item in items:")]
    cells.append(
        Cell(
            "escape-newline",
            plain,
            simple(two, 14),
            _join(_with(BASE, {14: "    total = 1"})),
            ("escape",),
            tier="escape",
            dialects=("unified", "codex", "search-replace", "json"),
        )
    )

    # fuzz: a context line the file does not have (invented or misremembered).
    fuzzed = [
        (" ", "def beta(items):"),
        (" ", "    total = 0  # running sum"),
        (" ", "    for item in items:"),
        ("-", "        total += item"),
        ("+", "        total += item * 2"),
        (" ", "    return total"),
    ]
    cells.append(
        Cell(
            "fuzz-invented-context",
            plain,
            simple(fuzzed),
            _join(BETA_AFTER),
            ("fuzz",),
            tier="fuzz",
            dialects=("unified", "codex", "search-replace"),
        )
    )

    # 3way: the edit names its base; since then the file gained a line above and one of
    # the hunk's context lines changed.
    moved = _with(BASE, {1: ["import os", "import sys"]})
    changed = _with(moved, {15: "    total = 0  # running sum"})
    cells.append(
        Cell(
            "3way",
            _join(changed),
            lambda d: render(d, BETA, BETA_START, base=BASE_ID),
            _join(_with(changed, {17: "        total += item * 2"})),
            ("3way",),
            tier="3way",
            dialects=("unified",),
            committed=plain,
        )
    )
    # hashline: the file changed above the read lines since the read: re-anchored by offset.
    cells.append(
        Cell(
            "hashline-moved",
            _join(moved),
            simple(BETA),
            _join(_with(moved, {17: "        total += item * 2"})),
            ("offset",),
            dialects=("hashline",),
            committed=plain,
        )
    )
    return cells


def _refusals() -> list[Cell]:
    plain = _join(BASE)
    cells: list[Cell] = []
    # alpha and gamma hold the same lines 8-10 / 21-23.
    dup = [(" ", "    if x is None:"), ("-", "        return 0"), ("+", "        return -1"), (" ", "    return x + 1")]

    def simple(lines: Sequence[Line], start: int, **kw: object) -> Callable[[str], str]:
        return lambda d: render(d, lines, start, **kw)  # type: ignore[arg-type]

    four = ("unified", "codex", "search-replace", "json")
    cells.append(Cell("ambiguous-exact", plain, simple(dup, 40), None, error="ambiguous", dialects=four))
    # The hint points exactly at one of the two: that one is meant.
    cells.append(
        Cell(
            "hint-picks-duplicate",
            plain,
            simple(dup, 21),
            _join(_with(BASE, {22: "        return -1"})),
            dialects=("unified", "codex"),
        )
    )
    cells.append(Cell("hint-next-to-duplicate", plain, simple(dup, 20), None, error="ambiguous", dialects=("unified", "codex")))
    ws = _join(_with(BASE, {9: "        return 0 ", 22: "        return 0 "}))
    cells.append(Cell("ambiguous-trailing-whitespace", ws, simple(dup, 40), None, error="ambiguous", dialects=four))
    cells.append(Cell("ambiguous-indent", plain, simple(_map(dup, lambda t: t[4:]), 40), None, error="ambiguous", dialects=four))
    uni = _join(_with(BASE, {10: "    return x + 1  # \u2014", 23: "    return x + 1  # \u2014"}))
    cells.append(
        Cell(
            "ambiguous-unicode",
            uni,
            simple(_map(dup, lambda t: t + "  # -" if "x + 1" in t else t), 40),
            None,
            error="ambiguous",
            dialects=four,
        )
    )
    cells.append(Cell("ambiguous-eol", _join(BASE, "\r\n"), simple(dup, 40), None, error="ambiguous", dialects=four))
    esc = _join(_with(BASE, {10: '    return x + "\\n"', 23: '    return x + "\\n"'}))
    cells.append(
        Cell(
            "ambiguous-escape",
            esc,
            simple(_map([l if "x + 1" not in l[1] else (" ", '    return x + "\\\\n"') for l in dup], lambda t: t), 40),
            None,
            error="ambiguous",
            dialects=four,
        )
    )
    # Fuzz: a context line that is nowhere, next to a duplicated block.
    invented = [
        (" ", "def alpha_v2(x):"),
        (" ", "    if x is None:"),
        ("-", "        return 0"),
        ("+", "        return -1"),
        (" ", "    return x + 1"),
    ]
    cells.append(
        Cell(
            "ambiguous-fuzz-invented-context-next-to-duplicate",
            plain,
            simple(invented, 40),
            None,
            error="ambiguous",
            dialects=("unified", "codex", "search-replace"),
        )
    )
    # Fuzz never forgives a removed line: the file has no `return -2`.
    gone = [
        (" ", "def alpha(x):"),
        (" ", "    if x is None:"),
        ("-", "        return -2"),
        ("+", "        return -1"),
        (" ", "    return x + 1"),
    ]
    cells.append(Cell("removed-line-missing", plain, simple(gone, 7), None, error="not-found", dialects=four))
    gone2 = [
        (" ", "def beta(items):"),
        (" ", "    total = 0"),
        ("-", "    for item in item_list:"),
        ("+", "    for item in items:"),
        (" ", "        total += item"),
    ]
    cells.append(Cell("removed-line-misremembered", plain, simple(gone2, 13), None, error="not-found", dialects=four))
    # Too much invented: most context lines are not in the file.
    made_up = [
        (" ", "class Beta:"),
        (" ", "    # sums items"),
        (" ", "    @staticmethod"),
        (" ", "def beta(items):"),
        ("-", "    total = 0"),
        ("+", "    total = 1"),
        (" ", "    for i in items:"),
        (" ", "        yield i"),
    ]
    cells.append(
        Cell(
            "fuzz-mostly-invented",
            plain,
            simple(made_up, 10),
            None,
            error="not-found",
            dialects=("unified", "codex", "search-replace"),
        )
    )
    # Stale: the line the edit changes was changed since its base; the conflict is shown.
    conflicting = _with(BASE, {16: "        total += item or 0"})
    cells.append(
        Cell(
            "stale-conflict",
            _join(conflicting),
            simple(BETA, BETA_START, base=BASE_ID),
            None,
            error="stale",
            dialects=("unified",),
            committed=plain,
        )
    )
    # The index line names a blob the edit does not fit (copied from another diff): located as usual.
    wrong = _blob_id(b"something else\n")[:7]
    cells.append(
        Cell(
            "base-the-edit-does-not-fit",
            plain,
            simple(BETA, BETA_START, base=wrong),
            _join(BETA_AFTER),
            dialects=("unified",),
            committed=b"something else\n",
        )
    )
    return cells


CELLS = _cells()
REFUSALS = _refusals()

NOT_APPLICABLE = {
    "offset": "no line numbers in SEARCH/REPLACE or str_replace; hashline: see hashline-moved",
    "recount": "only unified headers carry counts (a stray blank also for Codex)",
    "3way": "only a git diff's index line names a base blob (hashline re-anchors by offset instead)",
    "fuzz": "str_replace has no context lines; hashline names lines",
    "text tiers": "hashline names lines by number: no text is matched",
}


def _params(cells: Sequence[Cell]) -> list[object]:
    return [pytest.param(c, d, id=f"{c.name}-{d}") for c in cells for d in c.dialects]


def _setup(repo: Repo, cell: Cell, dialect: str) -> None:
    repo.commit({PATH: cell.committed if cell.committed is not None else cell.file})
    if dialect == "hashline":
        import guard

        guard.read(PATH, str(repo.root), agent="agent")
    if cell.committed is not None:
        repo.write({PATH: cell.file})


def _policy(repo: Repo, tiers: Sequence[str]) -> str:
    path = repo.root.parent / "policy.yaml"
    path.write_text("extends: default\nlocate:\n  tiers: [" + ", ".join(tiers) + "]\n")
    return str(path)


ALL = ("offset", "recount", "trailing-whitespace", "indent", "unicode", "eol", "escape", "fuzz", "3way")


@pytest.mark.parametrize("cell,dialect", _params(CELLS))
def test_tier_applies(repo: Repo, cli, cell: Cell, dialect: str) -> None:  # type: ignore[no-untyped-def]
    _setup(repo, cell, dialect)
    res = cli("apply", "--json", "--format", dialect, input=cell.edit(dialect).encode())
    assert res.code == 0, res
    assert repo.read(PATH) == cell.after, res.json()["diff"]
    repairs = res.json()["files"][0]["repairs"]  # type: ignore[index]
    for r in cell.repairs:
        assert r in repairs, repairs


@pytest.mark.parametrize("cell,dialect", _params([c for c in CELLS if c.tier]))
def test_tier_switched_off_refuses(repo: Repo, cli, cell: Cell, dialect: str) -> None:  # type: ignore[no-untyped-def]
    _setup(repo, cell, dialect)
    before = repo.snapshot()
    # Fuzz goes too: it may rescue a cell another way (a context line it ignores), which is its job.
    pol = _policy(repo, [t for t in ALL if t not in (cell.tier, "fuzz")])
    res = cli("apply", "--json", "--format", dialect, "--policy", pol, input=cell.edit(dialect).encode())
    assert res.code == 1, res
    assert repo.snapshot() == before


@pytest.mark.parametrize("cell,dialect", _params(REFUSALS))
def test_refusal(repo: Repo, cli, cell: Cell, dialect: str) -> None:  # type: ignore[no-untyped-def]
    _setup(repo, cell, dialect)
    before = repo.snapshot()
    res = cli("apply", "--json", "--format", dialect, input=cell.edit(dialect).encode())
    if cell.after is not None:
        assert res.code == 0, res
        assert repo.read(PATH) == cell.after
        return
    assert res.code == 1, res
    codes = [f["code"] for f in res.json()["findings"] if f["severity"] == "error"]  # type: ignore[index,union-attr]
    assert cell.error in codes, res.json()["findings"]
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- more refusals, and the hints


def _apply(repo: Repo, cli, dialect: str, edit: str, file: bytes, committed: bytes | None = None):  # type: ignore[no-untyped-def]
    repo.commit({PATH: committed if committed is not None else file})
    if committed is not None:
        repo.write({PATH: file})
    before = repo.snapshot()
    res = cli("apply", "--json", "--format", dialect, input=edit.encode())
    if res.code != 0:
        assert res.code == 1, res
        assert repo.snapshot() == before
    return res


def _errors(res) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    return [f for f in res.json()["findings"] if f["severity"] == "error"]


def test_codex_anchor_names_the_function(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """`@@ def gamma(x):` picks gamma's copy of lines alpha has too: the first after it, inside it."""
    edit = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@ def alpha(x):\n     if x is None:\n-        return 0\n"
        "+        return -1\n     return x + 1\n*** End Patch\n"
    )
    res = _apply(repo, cli, "codex", edit, _join(BASE))
    assert res.code == 0, res
    assert repo.read(PATH) == _join(_with(BASE, {9: "        return -1"}))


def test_codex_anchor_that_is_not_unique_names_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    lines = _with(BASE, {7: "def alpha(x):  # twin", 20: "def alpha(x):  # twin"})
    edit = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@ def alpha(x):  # twin\n     if x is None:\n"
        "-        return 0\n+        return -1\n     return x + 1\n*** End Patch\n"
    )
    res = _apply(repo, cli, "codex", edit, _join(lines))
    # the first occurrence of the anchor is alpha; gamma's twin is another function with the same
    # header: the anchor names no one place, so the two copies stay ambiguous
    assert res.code == 1 and "ambiguous" in [f["code"] for f in _errors(res)]


def test_fuzz_never_skips_a_line_the_file_has_elsewhere(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """The edit's context says which `return 0`; that line is elsewhere, so this copy is not it."""
    lines = _with(BASE, {21: "    if x is not None:"})  # gamma no longer starts with `if x is None:`
    edit = render(
        "unified",
        [
            (" ", "def gamma(x):"),
            (" ", "    if x is None:"),
            ("-", "        return 0"),
            ("+", "        return -1"),
            (" ", "    return x + 1"),
        ],
        20,
    )
    res = _apply(repo, cli, "unified", edit, _join(lines))
    assert res.code == 1, res.json()["diff"]


def test_indent_refuses_a_copy_when_the_place_itself_changed(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """The lines are found only at another indent, and a near copy stands at their own: two places."""
    lines = BASE + [
        "",
        "",
        "class Box:",
        "    def beta(items):",
        "        total = 0",
        "        for item in items:",
        "            total += item  # sum",
        "        return total",
    ]
    edit = render(
        "search-replace",
        [
            (" ", "    def beta(items):"),
            (" ", "        total = 0"),
            (" ", "        for item in items:"),
            ("-", "            total += item"),
            ("+", "            total += item * 2"),
        ],
        1,
    )
    res = _apply(repo, cli, "search-replace", edit, _join(lines))
    assert res.code == 1 and "ambiguous" in [f["code"] for f in _errors(res)], res


def test_one_line_two_indent_steps_off_is_not_found(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    edit = json.dumps({"file_path": PATH, "old_string": "            total = 0", "new_string": "            total = 1"})
    res = _apply(repo, cli, "json", edit, _join(BASE))
    assert res.code == 1 and [f["code"] for f in _errors(res)] == ["not-found"], res


def test_text_copied_without_its_indent_keeps_it_in_new_lines(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """str_replace text that starts after a line's indent: the lines it adds get that indent too."""
    edit = json.dumps({"file_path": PATH, "old_string": "total = 0\n", "new_string": "total = 0\ncount = 0\n"})
    res = _apply(repo, cli, "json", edit, _join(BASE))
    assert res.code == 0, res
    assert repo.read(PATH) == _join(_with(BASE, {14: ["    total = 0", "    count = 0"]}))
    edit = json.dumps({"file_path": PATH, "old_string": "total = 0\n", "new_string": ""})
    res = _apply(repo, cli, "json", edit, _join(BASE))
    assert repo.read(PATH) == _join(_with(BASE, {14: []}))  # the whole line, not its indent left behind


def test_stale_next_to_the_change_is_a_conflict(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """git's merge rule: a line beside the change that changed since is a conflict, with or without the base."""
    current = _with(BASE, {15: "    for item in items:  # each"})
    for base in (BASE_ID, None):
        res = _apply(repo, cli, "unified", render("unified", BETA, BETA_START, base=base), _join(current), _join(BASE))
        (f,) = _errors(res)
        assert f["code"] == "stale" and f["line"] == 15, res
        assert repo.read(PATH) == _join(current)
        assert "# each" in str(f["hint"]) + str(f["message"])


def test_stale_conflict_shows_the_region(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    current = _with(BASE, {16: "        total += item or 0"})
    res = _apply(repo, cli, "unified", render("unified", BETA, BETA_START, base=BASE_ID), _join(current), _join(BASE))
    (f,) = _errors(res)
    assert f["code"] == "stale" and f["line"] == 16
    assert "16|         total += item or 0" in str(f["hint"])


def test_not_found_hint_shows_the_first_difference_visibly(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    lines = _with(BASE, {14: "    total = 0  ", 15: "    for item in items:\t# \u201cloop\u201d"})
    edit = render(
        "unified", [(" ", "    total = 0"), ("-", "    for item in items:  # loop"), ("+", "    for item in items:")], 14
    )
    res = _apply(repo, cli, "unified", edit, _join(lines, "\r\n"))
    (f,) = _errors(res)
    hint = str(f["hint"])
    assert f["code"] == "not-found" and f["line"] == 14
    assert "first difference at line 15" in hint
    assert "→" in hint and "<U+201C>" in hint and "␍" in hint and "··" in hint  # tab, non-ASCII, CR, trailing blanks
    assert "    14| " in hint and "    15| " in hint  # the closest region, with line numbers


def test_ambiguous_hint_lists_every_candidate(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    edit = render("search-replace", [("-", "        return 0"), ("+", "        return -1")], 1)
    res = _apply(repo, cli, "search-replace", edit, _join(BASE))
    (f,) = _errors(res)
    assert f["code"] == "ambiguous" and "lines 9, 22" in str(f["message"])
    assert "     9|         return 0" in str(f["hint"]) and "    22|         return 0" in str(f["hint"])
