"""`agent-guard check`'s fast paths give the findings the plain paths give.

A large commit is decoded once and its new files' text is handed to the checks as
is (``checks.base.Blocks.prime``); marked comment lines are found in C; protected globs
are matched as one regex; command-line paths are resolved without pathlib; the
command skips the engine's imports.  Each of these is pinned here against the
straightforward way it replaced, on the same inputs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, journal_pending, python
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import commit_check
from guard import policy as policy_mod
from guard.checks import CheckInput, base, conflict, markers, phrases, placeholder, protected, whitespace
from guard.checks.comments import GENERIC, PHP, PYTHON, Syntax, syntax_for
from guard.cli.check import repo_paths
from guard.commit_check import changes
from guard.errors import UsageError
from guard.files import paths
from guard.files.workspace import Workspace
from guard.model import FileChange, Finding, Op
from guard.text import globs
from guard.text.textfile import NotText, decode
from guard.tree.diffs import make_change

DEFAULT = policy_mod.load(None, "default")

# Lines that trip one check or another, and lines that look close but do not.
LINES = [
    "def f(x):",
    "    return x",
    "",
    "    ",
    "x = 1   ",
    "y = 2\t",
    "\tindented = 3",
    "  \tmixed = 4",
    "        eight = 5",
    "# ... existing code ...",
    "    # rest of the function unchanged",
    "...",
    "…",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> branch",
    "||||||| base",
    "<<<<<<<",
    "======= not a marker",
    "# Look the request up in the table",
    "// other methods here",
    "/* ... */",
    "-- rest of the file unchanged",
    "# İstanbul: the rest is here",
    "# ẞ STRASSE … more",
    "x = 'a # b'  # keep existing code",
    "\r",
    "stray\rcarriage",
    "# the previous implementation",
    "café = 'über'",
]


def _changes_of(data: bytes, path: str = "m.py") -> FileChange:
    return changes.created(path, data, 0o100644)


def _findings(
    change: FileChange,
    policy: policy_mod.Policy = DEFAULT,
    attr=None,  # type: ignore[no-untyped-def]
    blocks: base.Blocks | None = None,
) -> list[Finding]:
    inp = CheckInput(
        (change,),
        commit_check.commit_policy(policy, whole=False),
        lambda _p: True,
        attr or (lambda _p, _n: None),
        None,
        blocks=blocks or base.Blocks(),
    )
    out: list[Finding] = []
    for check in (placeholder.check, whitespace.check, conflict.check, protected.check):
        out += check(inp, "error")
    return out


def _plain(change: FileChange, policy: policy_mod.Policy = DEFAULT, attr=None) -> list[Finding]:  # type: ignore[no-untyped-def]
    """The findings with the block built from change.added (nothing primed)."""
    return _findings(change, policy, attr)


def _primed(change: FileChange, data: bytes, policy: policy_mod.Policy = DEFAULT, attr=None) -> list[Finding]:  # type: ignore[no-untyped-def]
    blocks = base.Blocks()
    decoded = changes.text_of(data)
    if decoded is not None:
        blocks.prime(change, *decoded)
    return _findings(change, policy, attr, blocks)


# --- decoding a new file once -------------------------------------------------------------------
EDGES = [
    b"",
    b"\n",
    b"\n\n",
    b"a",
    b"a\n",
    b"a\nb",
    b"a\nb\n",
    b"a\n\n\n",
    b"a\r\nb\r\n",
    b"a\r\nb",
    b"a\rb\n",
    b"a\r\r\nb",
    b"\r\n",
    b"\r",
    b"\xef\xbb\xbfx\n",
    b"\xef\xbb\xbf",
    b"\xef\xbb\xbfa\r\nb\r\n",
    b"a\x00b\n",
    b"\xff\xfea\x00",
    b"caf\xc3\xa9\n",
    b"caf\xe9\n",
    b"x" * 9000 + b"\x00" + b"y" * 9000 + b"\n",
    b"line \n\tline\n",
    b"\x0c\x0b\x1c\n\xe2\x80\xa8\n",
]


@pytest.mark.parametrize("data", EDGES)
def test_text_of_is_decode(data: bytes) -> None:
    _same_as_decode(data)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b"a", b" ", b"\t", b"\r", b"\n", b"\r\n", b"\xef\xbb\xbf", b"\xc3\xa9", b"\xe9", b"\x00", b"...", b"#", b"<<<<<<<"]
        ),
        max_size=40,
    ).map(b"".join)
)
def test_text_of_is_decode_on_any_bytes(data: bytes) -> None:
    _same_as_decode(data)


def _same_as_decode(data: bytes) -> None:
    got = changes.text_of(data)
    try:
        text = decode(data)
    except NotText:
        assert got is None
        return
    assert got is not None
    block, lines = got
    assert lines == text.lines
    assert block == "\n".join(text.lines)


def _created_before(path: str, data: bytes, mode: int | None) -> FileChange:
    try:
        lines = decode(data).lines
    except NotText:
        lines = ()
    return FileChange(
        path=path,
        op=Op.CREATE,
        old_path=None,
        before=None,
        after=data,
        old_mode=None,
        new_mode=mode,
        added=tuple(zip(range(1, len(lines) + 1), lines)),
        hunks=1 if lines else 0,
    )


@pytest.mark.parametrize("data", EDGES)
def test_created_is_what_it_was(data: bytes) -> None:
    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    fast = changes.created("f.txt", data, 0o100644, texts)
    assert fast == _created_before("f.txt", data, 0o100644)
    # and its added lines are those of the diff nobody renders here
    assert fast.added == make_change("f.txt", Op.CREATE, None, data, new_mode=0o100644).added
    assert (id(fast) in texts) == (changes.text_of(data) is not None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "", "b c"]), max_size=12),
    st.integers(-15, 15),
    st.integers(-15, 15),
    st.sampled_from([None, 1, 2, -1]),
)
def test_numbered_lines_are_the_tuple_of_their_pairs(lines: list[str], i: int, j: int, step: int | None) -> None:
    from guard.model import NumberedLines

    lazy, pairs = NumberedLines(tuple(lines)), tuple(zip(range(1, len(lines) + 1), lines))
    assert len(lazy) == len(pairs) and bool(lazy) == bool(pairs)
    assert tuple(lazy) == pairs and list(lazy) == list(pairs)
    assert lazy == pairs and pairs == lazy and hash(lazy) == hash(pairs)
    assert lazy == NumberedLines(list(lines)) and lazy != pairs + ((99, "x"),)
    assert lazy[i:j:step] == pairs[i:j:step]
    if -len(pairs) <= i < len(pairs):
        assert lazy[i] == pairs[i]
    else:
        with pytest.raises(IndexError):
            lazy[i]
    assert (*lazy, (0, "z")) == (*pairs, (0, "z"))
    assert [n for n, _t in lazy] == list(range(1, len(lines) + 1))


# --- primed blocks: the same findings as blocks built from the added lines ---------------------
@pytest.mark.parametrize("path", ["m.py", "m.js", "m.c", "m.php", "m.md", "notes", "m.patch", "Makefile"])
def test_every_line_kind_primed_and_plain_agree(path: str) -> None:
    data = ("\n".join(LINES) + "\n").encode()
    for variant in (data, data.replace(b"\n", b"\r\n"), data.rstrip(b"\n"), data + b"\n\n  \n", b"\xef\xbb\xbf" + data):
        change = _changes_of(variant, path)
        assert _primed(change, variant) == _plain(change), (path, variant[:40])


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.sampled_from(LINES), max_size=30),
    eol=st.sampled_from(["\n", "\r\n"]),
    last=st.booleans(),
    path=st.sampled_from(["a.py", "a.ts", "a.sql", "a.txt", "a.rs"]),
)
def test_primed_and_plain_agree_on_any_mix(lines: list[str], eol: str, last: bool, path: str) -> None:
    data = (eol.join(lines) + (eol if last else "")).encode()
    change = _changes_of(data, path)
    assert _primed(change, data) == _plain(change)


def test_primed_blocks_agree_under_other_rules_and_patterns() -> None:
    pol = policy_mod.Policy(
        "test",
        {
            **DEFAULT.data,
            "whitespace": {"rules": "indent-with-non-tab,tab-in-indent,tabwidth=4"},
            "placeholder": {"patterns": [r"TODO\b", r"^\s*pass$", r"d$"], "exempt": [r"keep"]},
        },
        DEFAULT.sources,
    )
    data = ("\n".join(LINES + ["TODO: later", "    pass", "    # TODO keep"]) + "\n").encode()
    change = _changes_of(data)
    assert _primed(change, data, pol) == _plain(change, pol)

    def attr(path: str, name: str) -> str | bool | None:
        return {"whitespace": "space-before-tab,cr-at-eol", "conflict-marker-size": "3"}.get(name)

    data = b"<<< a\n=== \n>>> b\nx \t\n"
    change = _changes_of(data)
    found = _primed(change, data, attr=attr)
    assert found == _plain(change, attr=attr)
    assert {f.code for f in found} == {"conflict-marker", "whitespace"}


def test_a_primed_block_gives_back_the_lines_lazily() -> None:
    for data in (b"a\nb\n", b"a\r\nb", b"", b"\n", b"x \n\n"):
        change = _changes_of(data)
        decoded = changes.text_of(data)
        assert decoded is not None
        block = base.Added(change, decoded[0])  # without the lines: split back from the text
        plain = base.Added(change)
        assert list(block.texts) == list(plain.texts) and block.text == plain.text
        assert block.starts == plain.starts


# --- marked comment lines, found in C ------------------------------------------------------------
VOCAB_LOWER = phrases.VOCAB


def _candidates_before(change: FileChange, syntax: Syntax) -> list[int]:
    """`markers.candidates` spelled out, a Python turn per line: a line holding a comment mark
    whose lowercase text (or, for a line that is not ASCII, its folded text) holds a word of the
    vocabulary; a line of code that is only an ellipsis."""
    from guard.text.lookalikes import fold

    texts = [t for _n, t in change.added]
    found: set[int] = set()
    words = phrases._ASCII_VOCAB
    others = words + phrases._other_vocab()
    for i, t in enumerate(texts):
        if not any(mark in t for mark in syntax.marks) or len(t) > phrases.MAX_LINE:
            continue
        if any(w in t.lower() for w in words) or (not t.isascii() and any(w in fold(t) for w in others)):
            found.add(i)
    if syntax.code:
        for i, t in enumerate(texts):
            if markers._bare_dots(t, syntax):
                found.add(i)
    return sorted(found)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.sampled_from(LINES + ["İİ # OTHER", "x -- y ; z % w", "<!-- rest -->"]), max_size=25),
    syntax=st.sampled_from([PYTHON, PHP, GENERIC, syntax_for("a.js"), syntax_for("a.html"), syntax_for("a.ini")]),
)
def test_candidates_are_what_they_were(lines: list[str], syntax: Syntax) -> None:
    data = ("\n".join(lines) + "\n").encode()
    change = _changes_of(data)
    assert markers.candidates(change, syntax) == _candidates_before(change, syntax)


def test_the_large_patterns_compile_on_first_use_and_stay_attributes() -> None:
    assert isinstance(phrases.PHRASE, re.Pattern) and phrases.PHRASE.flags & re.IGNORECASE
    assert phrases.TIGHT.pattern.startswith(f"(?:{phrases.PHRASE.pattern})")
    assert phrases.LOOSE.fullmatch("your app logic goes here")
    assert phrases.judge("... existing code ...", True) == phrases.STRONG
    with pytest.raises(AttributeError):
        phrases.NOT_A_PATTERN  # noqa: B018


# --- whitespace needles -------------------------------------------------------------------------
def _suspects_before(change: FileChange, rules: whitespace.Rules) -> list[tuple[int, str]]:
    needles: list[str] = []
    if "blank-at-eol" in rules:
        needles += [" \n", "\t\n", "\r\n"]
    if "space-before-tab" in rules:
        needles.append(" \t")
    if "indent-with-non-tab" in rules:
        needles.append(" " * rules.tabwidth)
    if "tab-in-indent" in rules:
        needles.append("\t")
    if not needles:
        return []
    found = base.lines_containing(change, needles)
    last = len(change.added) - 1
    if "blank-at-eol" in rules and change.added and change.added[-1][1].endswith((" ", "\t", "\r")):
        found.append(last)
    return [change.added[i] for i in sorted(set(found))]


RULE_SPECS = [
    "",
    "blank-at-eol",
    "space-before-tab",
    "tab-in-indent",
    "indent-with-non-tab,tabwidth=2",
    "blank-at-eol,cr-at-eol",
    "trailing-space,space-before-tab,tab-in-indent",
    "blank-at-eof",
]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=20), spec=st.sampled_from(RULE_SPECS))
def test_whitespace_suspects_are_what_they_were(lines: list[str], spec: str) -> None:
    change = _changes_of(("\n".join(lines)).encode())
    rules = whitespace.parse_rules(spec, whitespace.Rules(frozenset()))
    assert whitespace._suspects(change, rules) == _suspects_before(change, rules)


def test_whitespace_rules_are_cached_per_spec_not_shared_wrongly() -> None:
    def inp(spec: str | None, core: str | None) -> CheckInput:
        data = dict(DEFAULT.data)
        data["whitespace"] = {"rules": spec} if spec is not None else {}
        return CheckInput((), policy_mod.Policy("t", data), lambda _p: True, lambda _p, _n: None, core)

    assert whitespace.rules_for("a", inp("tab-in-indent", None)).enabled == {"tab-in-indent"}
    assert whitespace.rules_for("a", inp("tab-in-indent", "-tab-in-indent,blank-at-eol")).enabled == {"blank-at-eol"}
    assert whitespace.rules_for("a", inp(None, None)) == whitespace.Rules()
    assert whitespace.rules_for("a", inp("", None)).enabled == frozenset()


# --- protected globs as one regex -------------------------------------------------------------
def _protected_before(path: str, policy: policy_mod.Policy) -> Finding | None:
    parts = [p for p in path.split("/") if p]
    if any(paths._is_dot_git(p) for p in parts):
        return paths._protected_git(path)[1]
    level = policy.level("path-protected")
    if level not in ("error", "warning"):
        return None
    fold = [__import__("unicodedata").normalize("NFKC", paths._IGNORABLE().sub("", p)).rstrip(". ") for p in parts]
    spellings = tuple(dict.fromkeys((path, "/".join(fold))))
    for pattern in policy.protected:
        if any(globs.matches(s, pattern) for s in spellings):
            return Finding(
                "path-protected",
                level,
                path,
                None,
                f"{path!r} matches the protected pattern {pattern!r} (paths.protected, from {policy.source('paths.protected')})",
                "agents may not change this path; leave it out of the edit, or ask the user to change it",
            )
    allow = policy.allow
    if allow and not any(globs.matches(path, pattern) for pattern in allow):
        return Finding(
            "path-protected",
            level,
            path,
            None,
            f"{path!r} is outside the allow-list ({', '.join(allow)}; paths.allow, from {policy.source('paths.allow')})",
            "edit only paths the allow-list names, or ask the user to widen paths.allow",
        )
    return None


PATHS = [
    "src/app.py",
    ".env",
    ".ENV",
    "a/.env.local",
    "keys/x.PEM",
    ".github/workflows/ci.yml",
    "docs/.g\u200cit/x",
    "GIT~1/config",
    "src/.e\u200bnv",
    ".ｅｎｖ",
    "src/id_rsa.pub",
    "src/id_rsa",
    "a/b/c.key",
    "x.key.txt",
    "lib/[weird].py",
    "lib/w.py",
    "src/.env.",
    "tests/a.py",
    "README.md",
]
POLICIES = [
    DEFAULT,
    policy_mod.Policy(
        "allow",
        {**DEFAULT.data, "paths": {"protected": ["**/*.pem", "lib/[a-", "secret?/**"], "allow": ["src/**", "lib/[a-", "tests/"]}},
    ),
    policy_mod.Policy("bad", {**DEFAULT.data, "paths": {"protected": ["[z-a]", ".env"], "allow": []}}),
    policy_mod.Policy("off", {**DEFAULT.data, "checks": {**DEFAULT.data["checks"], "path-protected": "off"}}),  # type: ignore[dict-item]
]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_protected_findings_are_what_they_were(policy: policy_mod.Policy) -> None:
    for path in PATHS:
        assert paths.protected_finding(path, policy) == _protected_before(path, policy), path


def test_policy_values_read_once_are_the_values() -> None:
    pol = policy_mod.load(None, "strict")
    for name in policy_mod.CHECK_NAMES + ("not-a-check",):
        value = pol.get(f"checks.{name}")
        assert pol.level(name) == (value if isinstance(value, str) else "off")
        assert pol.level(name) == pol.level(name)
    assert pol.protected == pol._strings("paths.protected")
    assert DEFAULT.level("whitespace") == "fix" and commit_check.commit_policy(DEFAULT, False).level("whitespace") == "warning"


# --- command-line paths ----------------------------------------------------------------------
def _repo_paths_before(root: Path, raw: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for p in raw:
        full = Path(os.path.abspath(p))
        real = Path(os.path.realpath(full.parent)) / full.name if full.name else Path(os.path.realpath(full))
        try:
            rel = real.relative_to(root)
        except ValueError:
            raise UsageError(f"{p} is outside the repository {root}; name paths inside it") from None
        out.append("" if str(rel) == "." else rel.as_posix())
    return tuple(out)


def test_repo_paths_are_what_they_were(repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write({"src/a.py": "x\n", "docs/b.md": "y\n"})
    (repo.root / "linked").symlink_to(repo.root / "src")
    (repo.root / "link.py").symlink_to(repo.root / "src" / "a.py")
    root = repo.root.resolve()
    monkeypatch.chdir(repo.root / "docs")
    given_paths = [
        "b.md",
        "../src/a.py",
        "../linked/a.py",
        "../link.py",
        ".",
        "..",
        "../src/",
        "../src//a.py",
        str(repo.root / "src" / "a.py"),
        "../docs/./b.md",
        "new/file.py",
    ]
    assert repo_paths(root, given_paths) == _repo_paths_before(root, given_paths)
    for outside in ("../..", str(tmp_path), "../../elsewhere.py"):
        with pytest.raises(UsageError) as fast:
            repo_paths(root, [outside])
        with pytest.raises(UsageError) as slow:
            _repo_paths_before(root, [outside])
        assert str(fast.value) == str(slow.value)


# --- whole checks: fast paths on and off --------------------------------------------------------
def _new_files() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for i in range(12):
        body = "\n".join(LINES[i:] + LINES[:i]) + "\n"
        files[f"pkg/m{i}.py"] = body.encode()
    files["pkg/crlf.py"] = ("\r\n".join(LINES) + "\r\n").encode()
    files["pkg/bom.js"] = b"\xef\xbb\xbf" + "\n".join(LINES).encode()
    files["pkg/nul.txt"] = b"text\n" * 2000 + b"\x00" + b"more\n" * 2000
    files["pkg/latin1.txt"] = "caf\u00e9 cr\u00e8me\n".encode("latin-1")
    files["pkg/utf16.txt"] = "hello\n".encode("utf-16")
    files["pkg/empty.txt"] = b""
    files["pkg/blank_end.py"] = b"x = 1\n\n\n"
    files[".env"] = b"SECRET=1\n"
    return files


def test_a_large_new_change_is_judged_the_same_with_and_without_the_fast_paths(
    repo: Repo, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.commit({"README.md": "start\n"})
    repo.write(_new_files())
    repo.git("add", "-A")
    fast = cli("check", "--json")
    monkeypatch.setattr(base.Blocks, "prime", lambda *_a: None)  # the checks build their own blocks, decode every file
    plain = cli("check", "--json")
    assert fast.code == plain.code == 1
    assert fast.json() == plain.json()
    found = {f["code"] for f in fast.json()["findings"]}  # type: ignore[union-attr]
    assert {"placeholder", "whitespace", "conflict-marker", "not-utf8", "path-protected", "budget"} <= found


def test_commits_of_a_range_and_whole_files_too(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    base_commit = repo.commit({"README.md": "start\n"})
    files = _new_files()
    repo.commit(dict(list(files.items())[:8]), "first half")
    tip = repo.commit(dict(list(files.items())[8:]), "second half")
    runs = [("--from-ref", base_commit, "--to-ref", tip), ("--all-files",), ("pkg/m1.py", "pkg/crlf.py")]
    fast = [cli("check", "--json", *args) for args in runs]
    monkeypatch.setattr(base.Blocks, "prime", lambda *_a: None)
    plain = [cli("check", "--json", *args) for args in runs]
    for f, p in zip(fast, plain):
        assert (f.code, f.json()) == (p.code, p.json())


# --- the command without the engine --------------------------------------------------------------
PATCH = (
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old\n+new\n"
)


def test_check_still_rolls_back_an_interrupted_write_first(repo: Repo) -> None:
    repo.commit({"a.txt": "one\ntwo\nthree\n", "b.txt": "old\n"})
    env = checkout_env({"AGENT_GUARD_CRASH_AT": "after-file:0"})
    r = subprocess.run(
        [sys.executable, "-m", "guard", "apply"],
        cwd=repo.root,
        input=PATCH.encode(),
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == -9, r.stderr
    journal = repo.root / ".git" / "agent-guard" / "journal.json"
    assert journal_pending(journal)
    assert repo.read("a.txt") != b"one\ntwo\nthree\n" or repo.read("b.txt") != b"old\n"
    r = subprocess.run([sys.executable, "-m", "guard", "check"], cwd=repo.root, capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert not journal_pending(journal)
    assert repo.read("a.txt") == b"one\ntwo\nthree\n" and repo.read("b.txt") == b"old\n"


def test_check_does_not_import_the_engine(repo: Repo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    repo.write({"b.py": "y = 2\n"})
    repo.git("add", "b.py")
    code = (
        "import sys; from guard.cli.commands import main\n"
        "try:\n    main(['check'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m in ('guard.pipeline.engine', 'guard.locate', 'guard.dialects', "
        "'guard.record.ledger', 'yaml', 'charset_normalizer', 'tree_sitter', 'mcp', 'hashlib')))"
    )
    # Nothing of the engine is imported, nor PyYAML: with no policy file, the preset `default` is
    # read from its generated settings (``policy.presets_read``).
    r = python(repo.root, "-c", code)
    assert "agent-guard check: the staged change (1 file, +1 -0)" in r.stdout, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout + r.stderr


def test_each_check_over_the_unit_finds_what_a_change_at_a_time_found(repo: Repo) -> None:
    # The judge runs every check once over all of a unit's changes; its findings must be
    # those (and in the order) of judging the changes one by one.
    repo.commit({"README.md": "start\n", "pkg/old.py": "def f():\n    return 1\n"})
    files = _new_files()
    files["pkg/old.py"] = "def f():\n    # ... rest of the code unchanged\n    return 1 \n"
    repo.write(files)
    repo.git("add", "-A")
    g = Workspace(repo.root)
    units, _extra, _notes = changes.staged_found(g.repo, frozenset())
    unit = replace(units[0], kind=changes.STAGED_MERGE)  # no budget: it is about the unit as a whole
    judge = commit_check._Judge(g.repo, g.policy())
    together = judge(unit)
    one_by_one = [
        f for c in unit.changes for f in judge(replace(unit, changes=(c,))) if f.code not in ("not-utf8", "binary")
    ]  # encoding findings come after the checks'
    checked = [f for f in together if f.code not in ("not-utf8", "binary")]
    assert [f.as_dict() for f in checked] == [f.as_dict() for f in one_by_one]
    assert {f.code for f in checked} >= {"placeholder", "whitespace", "conflict-marker"}
