"""The `placeholder` check on real history: its false alarms on commits real developers made (run by hand).

Replays the newest ``--commits`` non-merge commits of HEAD's first-parent history of
each bare git directory given (merges and root commits are skipped) through the
`placeholder` check.  Each commit's changes are built the way ``agent-guard check
--from-ref A --to-ref B`` builds them (``commit_check.changes.file_changes`` over the
repository's ``diff_trees`` of parent and commit), text files only: a file that is
binary, not UTF-8, or over 1 MB on either side is skipped (counted).  Real commits
are honest edits, so every finding is a false alarm; each is listed with the changed
region it stands in (``--show``).

Two ways to send the changes to the check, with the default policy:

- one edit (always): all files of a commit in one ``CheckInput``, as a commit check
  judges it (committed, the new files' texts primed);
- one file (``--per-file``): each changed file alone, as an agent's one-file edit
  would be judged.

And, independently of agent-guard's check, the "shape candidates": changed regions
(a run of removed lines and the added lines at the same place, from the change's
line numbers) that remove two non-blank lines or more and put in their place only
non-blank lines that are comments of the file's language (``#``, ``//``, ``/*``,
``*``, ``--``, ``<!--``, ``{#``; a block comment or a triple-quoted string begun
there runs on), lines starting with a quote (strings, docstrings), or ``...`` /
``pass``.  Honest edits of that shape are what a rule judging the shape of a change
must not refuse; "code removed" counts those whose removed lines hold two such
lines that are code by the same test.  Regions that remove two lines or more and
add nothing are counted apart (pure deletions).

``--guard DIR`` measures another checkout of agent-guard (a git worktree of an older
commit, say) with this script: DIR goes first on ``sys.path``.  ``--json OUT`` writes
every finding as a JSON line, ``--candidates OUT`` the candidates' listing; ``{repo}``
in OUT is replaced by the repository's name, one file per repository.  The git
directories are only read (libgit2), never written.

    python bench/history_replay.py GITDIR [GITDIR ...] [--commits 600] [--whole-history] [--per-file]
        [--show] [--json OUT] [--candidates OUT] [--guard DIR]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pygit2  # noqa: E402

MAX_BYTES = 1 << 20  # files larger than this (either side) are skipped
SHOWN = 12  # lines of a region shown per side
JSON_LINES = 40  # lines of a region kept per side in --json
GITLINK, TREE = 0o160000, 0o040000

# --------------------------------------------------------------------------- agent-guard, as found


class Guard(NamedTuple):
    """What this script uses of the agent-guard checkout it measures (older ones lack some)."""

    where: str  # the guard package's folder
    placeholder: Any  # guard.checks.placeholder
    CheckInput: Any
    no_attr: Any
    policy: Any  # the default policy
    make_change: Any
    Op: Any
    file_changes: Any | None  # guard.commit_check.changes.file_changes
    reads: bool  # file_changes takes `read`
    GitRepo: Any | None
    Committed: Any | None
    Blocks: Any | None
    text_of: Callable[[bytes], Any]


def _optional(module: str, name: str) -> Any | None:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _text_of(data: bytes) -> tuple[str, tuple[str, ...]] | None:
    """``changes.text_of`` for checkouts without it: None for binary or non-UTF-8 bytes."""
    if b"\0" in data[:8000]:
        return None
    try:
        text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text, tuple(text.splitlines())


def load_guard(folder: str | None) -> Guard:
    """Import agent-guard from `folder` (a checkout), else from this script's checkout."""
    if folder is not None:
        sys.path.insert(0, str(Path(folder).resolve()))
    guard = importlib.import_module("guard")
    from guard.checks import placeholder
    from guard.checks.base import CheckInput, no_attr
    from guard.model import Op
    from guard.policy import load
    from guard.tree.diffs import make_change

    file_changes = _optional("guard.commit_check.changes", "file_changes")
    return Guard(
        where=str(Path(guard.__file__).resolve().parent),
        placeholder=placeholder,
        CheckInput=CheckInput,
        no_attr=no_attr,
        policy=load(None, "default"),
        make_change=make_change,
        Op=Op,
        file_changes=file_changes,
        reads=file_changes is not None and "read" in inspect.signature(file_changes).parameters,
        GitRepo=_optional("guard.repo", "GitRepo"),
        Committed=_optional("guard.checks.base", "Committed"),
        Blocks=_optional("guard.checks.base", "Blocks"),
        text_of=_optional("guard.commit_check.changes", "text_of") or _text_of,
    )


def _checkout(where: str) -> str:
    """The measured checkout's commit, and whether its guard/ differs from it."""
    root = str(Path(where).parent)
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "guard"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return "?"
    if head.returncode:
        return "not a git checkout"
    return head.stdout.strip() + (" + uncommitted changes under guard/" if dirty.stdout.strip() else "")


# --------------------------------------------------------------------------- commits and their changes


class Delta(NamedTuple):
    """One file's difference between two trees (``repo.TreeChange`` of any checkout, flattened)."""

    path: str
    old_path: str | None
    status: str  # A D M R
    old_oid: str | None
    old_mode: int | None
    new_oid: str | None
    new_mode: int | None


def _flat(d: Any) -> Delta:
    return Delta(
        d.path,
        d.old_path,
        d.status,
        d.old.oid if d.old else None,
        d.old.mode if d.old else None,
        d.new.oid if d.new else None,
        d.new.mode if d.new else None,
    )


def commits(repo: pygit2.Repository, n: int, whole: bool = False) -> list[pygit2.Commit]:
    """The newest `n` commits of HEAD's first-parent history that have exactly one parent; with
    `whole`, of all of HEAD's history, newest first by commit time (a project that merges its
    branches has most of its commits off the first-parent line)."""
    out: list[pygit2.Commit] = []
    if whole:
        for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TIME):
            if len(commit.parent_ids) == 1:
                out.append(commit)
                if len(out) == n:
                    break
        return out
    commit: Any = repo.head.peel(pygit2.Commit)
    while commit is not None and len(out) < n:
        parents = commit.parent_ids
        if len(parents) == 1:
            out.append(commit)
        commit = repo.get(parents[0]) if parents else None
    return out


def _pygit2_deltas(repo: pygit2.Repository, old_tree: pygit2.Tree, new_tree: pygit2.Tree) -> list[Delta]:
    """The deltas of two trees straight from libgit2 (checkouts without ``GitRepo``)."""
    diff = old_tree.diff_to_tree(new_tree)
    diff.find_similar()
    out: list[Delta] = []
    for d in diff.deltas:
        status = {"T": "M"}.get(d.status_char(), d.status_char())
        if status not in "ADMR":
            continue
        old = None if status == "A" else (str(d.old_file.id), int(d.old_file.mode))
        new = None if status == "D" else (str(d.new_file.id), int(d.new_file.mode))
        out.append(
            Delta(
                d.new_file.path if new else d.old_file.path,
                d.old_file.path if status == "R" else None,
                status,
                *(old or (None, None)),
                *(new or (None, None)),
            )
        )
    return out


class Built(NamedTuple):
    changes: tuple[Any, ...]  # FileChange
    texts: dict[int, Any]  # id(change) -> (block, lines) of new files, as the commit check keeps them
    skipped: int  # files not text, or too large


class Builder:
    """Builds each commit's changes as agent-guard's commit check does (its own functions where it has them)."""

    def __init__(self, g: Guard, gitdir: str) -> None:
        self.g = g
        self.repo = pygit2.Repository(gitdir)
        self.handle: Any = None
        if g.file_changes is not None and g.GitRepo is not None:
            try:
                self.handle = g.GitRepo(gitdir, bare_ok=True)
            except TypeError:  # an older GitRepo: no bare repositories
                self.handle = None
        self.how = "commit_check.changes.file_changes" if self.handle is not None else "diffs.make_change (older checkout)"

    def _blob(self, oid: str) -> bytes | None:
        try:
            kind, data = self.repo.odb.read(oid)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return bytes(data) if kind == pygit2.enums.ObjectType.BLOB else None

    def _text_blob(self, oid: str | None, blobs: dict[str, bytes]) -> bool:
        """Whether the blob `oid` (None: no side) is text under MAX_BYTES; kept in `blobs` if so."""
        if oid is None:
            return True
        data = self._blob(oid)
        if data is None or len(data) > MAX_BYTES or self.g.text_of(data) is None:
            return False
        blobs[oid] = data
        return True

    def build(self, commit: pygit2.Commit) -> Built:
        parent: Any = self.repo.get(commit.parent_ids[0])
        if self.handle is not None:
            raw = self.handle.diff_trees(str(parent.tree_id), str(commit.tree_id))
            flat = [_flat(d) for d in raw]
        else:
            raw, flat = None, _pygit2_deltas(self.repo, parent.tree, commit.tree)
        blobs: dict[str, bytes] = {}
        keep: list[int] = []
        skipped = 0
        for i, d in enumerate(flat):
            if GITLINK in (d.old_mode, d.new_mode):
                continue  # a submodule's commit: the commit check skips it too
            if self._text_blob(d.old_oid, blobs) and self._text_blob(d.new_oid, blobs):
                keep.append(i)
            else:
                skipped += 1
        texts: dict[int, Any] = {}
        if raw is not None:
            kept = [raw[i] for i in keep]
            if self.g.reads:
                changes = self.g.file_changes(self.handle, kept, frozenset(), texts, read=blobs.get)
            else:
                changes = self.g.file_changes(self.handle, kept, frozenset(), texts)
        else:
            changes = tuple(self._made(flat[i], blobs) for i in keep)
        return Built(tuple(changes), texts, skipped)

    def _made(self, d: Delta, blobs: dict[str, bytes]) -> Any:
        op = {"A": "CREATE", "D": "DELETE", "M": "MODIFY", "R": "RENAME"}[d.status]
        return self.g.make_change(
            d.path,
            getattr(self.g.Op, op),
            blobs.get(d.old_oid) if d.old_oid else None,
            blobs.get(d.new_oid) if d.new_oid else None,
            old_path=d.old_path,
            old_mode=d.old_mode,
            new_mode=d.new_mode,
        )


# --------------------------------------------------------------------------- the check, two ways


def check_commit(g: Guard, built: Built, label: str, oid: str) -> list[Any]:
    """The findings on all of a commit's changes in one input, as a commit check builds it."""
    extra: dict[str, Any] = {}
    if g.Blocks is not None:
        blocks = g.Blocks()
        for change in built.changes:
            decoded = built.texts.get(id(change))
            if decoded is not None:
                blocks.prime(change, *decoded)
        extra["blocks"] = blocks
    if g.Committed is not None:
        extra["committed"] = g.Committed(label, oid)
    try:
        inp = g.CheckInput(built.changes, g.policy, lambda _p: True, g.no_attr, None, **extra)
    except TypeError:  # an older CheckInput
        inp = g.CheckInput(built.changes, g.policy, lambda _p: True, g.no_attr, None)
    return list(g.placeholder.check(inp, "error"))


def check_file(g: Guard, change: Any) -> list[Any]:
    """The findings on one file's change alone, as an agent's one-file edit."""
    return list(g.placeholder.check(g.CheckInput((change,), g.policy, lambda _p: True, g.no_attr, None), "error"))


# --------------------------------------------------------------------------- changed regions and their shape


class Region(NamedTuple):
    old: int  # 1-based line of the first removed line (for none: the old line the new ones follow, + 1)
    new: int  # 1-based line of the first added line (for none: where the removed ones stood)
    removed: tuple[str, ...]
    added: tuple[str, ...]


def regions(change: Any) -> list[Region]:
    """The changed regions of `change`, from its removed and added line numbers: within one the
    removed lines run on in the old text and the added ones in the new, at the same place."""
    rem, add = change.removed, change.added
    if not rem and add and add[-1][0] - add[0][0] == len(add) - 1:  # one run of added lines (a new file)
        return [Region(add[0][0], add[0][0], (), tuple(t for _n, t in add))]
    out: list[Region] = []
    i = j = delta = 0
    while i < len(rem) or j < len(add):
        at_rem = rem[i][0] + delta if i < len(rem) else None
        at_add = add[j][0] if j < len(add) else None
        here = min(x for x in (at_rem, at_add) if x is not None)
        old = here - delta
        gone: list[str] = []
        new: list[str] = []
        if at_rem == here:
            while i < len(rem) and rem[i][0] == old + len(gone):
                gone.append(rem[i][1])
                i += 1
        if at_add == here:
            while j < len(add) and add[j][0] == here + len(new):
                new.append(add[j][1])
                j += 1
        delta += len(new) - len(gone)
        out.append(Region(old, here, tuple(gone), tuple(new)))
    return out


def region_at(found: Sequence[Region], line: int | None) -> Region | None:
    if line is None:
        return None
    for r in found:
        if r.new <= line < r.new + max(1, len(r.added)):
            return r
    return None


HASH, SLASH, DASH, HTML, JINJA = ("#",), ("//", "/*", "*"), ("--",), ("<!--",), ("{#",)
_MARKS: dict[str, tuple[str, ...]] = {}
for _suffixes, _marks in (
    (".py .pyi .pyx .sh .bash .zsh .fish .rb .pl .pm .r .yml .yaml .toml .cfg .ini .conf .cmake .mk .nix .ps1", HASH),
    (".tcl .jl .ex .exs .coffee .gitignore .gitattributes .dockerignore .editorconfig .env .flake8 .coveragerc", HASH),
    (".c .h .cc .cpp .cxx .hpp .hh .java .js .mjs .cjs .jsx .ts .tsx .mts .cts .go .rs .kt .kts .swift .cs", SLASH),
    (".scala .dart .proto .zig .groovy .gradle .json5 .jsonc .css .scss .less .sass .m .mm .d .v", SLASH),
    (".php", SLASH + HASH),
    (".sql .lua .hs .elm .ada .adb .ads", DASH),
    (".html .htm .jinja .jinja2 .j2 .xml .svg .xhtml", HTML + JINJA),
    (".vue .svelte", HTML + SLASH),
    (".md .markdown", HTML),
):
    for _suffix in _suffixes.split():
        _MARKS[_suffix] = _marks
_NAMES = {"Makefile": HASH, "Dockerfile": HASH, "CMakeLists.txt": HASH, "Justfile": HASH, "justfile": HASH}
PROSE = {".md", ".markdown", ".rst", ".txt", ".adoc"}  # no strings, docstrings or code: only their own comments count
ANY = HASH + SLASH + DASH + HTML


class Syntax(NamedTuple):
    marks: tuple[str, ...]
    quotes: bool  # a line starting with a quote is a string (a docstring)


def syntax(path: str) -> Syntax:
    name = path.rsplit("/", 1)[-1]
    suffix = os.path.splitext(name)[1] or (name if name.startswith(".") else "")
    if name in _NAMES:
        return Syntax(_NAMES[name], False)
    if suffix in PROSE:
        return Syntax(_MARKS.get(suffix, ()), False)
    return Syntax(_MARKS.get(suffix, ANY), True)


_STUB = re.compile(r"(?:\.\.\.|pass)\s*(?:(?:#|//).*)?")
_QUOTE = re.compile(r"[rRbBuUfF]{0,2}(\"\"\"|'''|[\"'`])")
_CLOSERS = {"/*": "*/", "<!--": "-->", "{#": "#}"}


def _one(s: str, syn: Syntax) -> tuple[bool, str | None]:
    """Whether the stripped line `s` is a stand-in line, and what closes what it opens (block comment, string)."""
    if _STUB.fullmatch(s):
        return True, None
    for mark in syn.marks:
        if s.startswith(mark):
            closer = _CLOSERS.get(mark)
            return True, closer if closer and closer not in s[len(mark) :] else None
    m = _QUOTE.match(s) if syn.quotes else None
    if m is None:
        return False, None
    # A triple quote with text after it opens a string that runs on; one alone may as well
    # close a string begun before the region, so it opens nothing.
    delim = m.group(1)
    return True, delim if len(delim) == 3 and s.count(delim) == 1 and s != m.group(0) else None


def stand_ins(lines: Iterable[str], syn: Syntax) -> list[bool]:
    """For each non-blank line: whether it is a comment, a string or docstring line, or a stub."""
    out: list[bool] = []
    closer: str | None = None
    for raw in lines:
        s = raw.strip()
        if not s:
            continue
        if closer is not None:
            out.append(True)
            if closer in s:
                closer = None
            continue
        ok, closer = _one(s, syn)
        out.append(ok)
    return out


class Shape(NamedTuple):
    candidate: bool  # >= 2 non-blank lines removed, only stand-in lines added (one at least)
    code: int  # non-blank removed lines that are not stand-in lines
    deletion: bool  # >= 2 non-blank lines removed, nothing non-blank added


def shape(r: Region, syn: Syntax) -> Shape:
    gone = stand_ins(r.removed, syn)
    if len(gone) < 2:
        return Shape(False, 0, False)
    new = stand_ins(r.added, syn)
    code = gone.count(False)
    return Shape(bool(new) and all(new), code, not new)


# --------------------------------------------------------------------------- the replay


def _clip(line: str, width: int = 160) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def trimmed(lines: Sequence[str], keep: int = SHOWN) -> list[str]:
    if len(lines) <= keep:
        return [_clip(t) for t in lines]
    head = keep - 3
    return [_clip(t) for t in lines[:head]] + [f"… {len(lines) - head - 2} more lines …"] + [_clip(t) for t in lines[-2:]]


def show_region(out: TextIO, r: Region | None, indent: str = "    ") -> None:
    if r is None:
        out.write(f"{indent}(no changed region at that line)\n")
        return
    out.write(f"{indent}@@ -{r.old},{len(r.removed)} +{r.new},{len(r.added)}\n")
    for t in trimmed(r.removed):
        out.write(f"{indent}- {t}\n" if not t.startswith("… ") else f"{indent}  {t}\n")
    for t in trimmed(r.added):
        out.write(f"{indent}+ {t}\n" if not t.startswith("… ") else f"{indent}  {t}\n")


class Totals:
    def __init__(self, name: str) -> None:
        self.name = name
        self.commits = self.files = self.skipped = self.hunks = self.regions = 0
        self.candidates = self.code_candidates = self.deletions = 0
        self.found = {"commit": 0, "file": 0}
        self.commits_found = {"commit": 0, "file": 0}
        self.build_s = 0.0
        self.check_s = {"commit": 0.0, "file": 0.0}
        self.elapsed = 0.0


class Commit(NamedTuple):
    oid: str
    subject: str


def repo_name(gitdir: str) -> tuple[str, str]:
    """(owner/name, name) of a mirror folder such as /work/.mirror/pallets+flask/repo."""
    p = Path(gitdir).resolve()
    base = p.parent.name if p.name in ("repo", ".git") else p.name.removesuffix(".git")
    full = base.replace("+", "/", 1)
    return full, full.rsplit("/", 1)[-1]


class Replay:
    def __init__(self, g: Guard, args: argparse.Namespace, out: TextIO) -> None:
        self.g, self.args, self.out = g, args, out
        self.json: TextIO | None = None
        self.listing: TextIO | None = None

    def report(self, t: Totals, mode: str, c: Commit, f: Any, found: list[Region]) -> None:
        t.found[mode] += 1
        r = region_at(found, f.line)
        if self.args.show:
            label = "one edit" if mode == "commit" else "one file"
            self.out.write(f"  finding [{label}] {t.name} {c.oid[:10]} {c.subject!r}\n    {f.path}:{f.line}: {f.message}\n")
            show_region(self.out, r, "      ")
        if self.json is not None:
            row = {
                "repo": t.name,
                "mode": mode,
                "commit": c.oid,
                "subject": c.subject,
                "path": f.path,
                "line": f.line,
                "code": f.code,
                "severity": f.severity,
                "message": f.message,
                "hint": f.hint,
                "removed": list(r.removed[:JSON_LINES]) if r else [],
                "added": list(r.added[:JSON_LINES]) if r else [],
            }
            self.json.write(json.dumps(row, ensure_ascii=False) + "\n")

    def candidate(self, t: Totals, c: Commit, path: str, r: Region, s: Shape) -> None:
        t.candidates += 1
        t.code_candidates += s.code >= 2
        text = f"  candidate {t.name} {c.oid[:10]} {c.subject!r}\n    {path} (removes {s.code} code lines)\n"
        for sink in (self.out if self.args.show else None, self.listing):
            if sink is not None:
                sink.write(text)
                show_region(sink, r, "      ")

    def shapes(self, t: Totals, c: Commit, change: Any, found: list[Region]) -> None:
        syn = syntax(change.path)
        for r in found:
            s = shape(r, syn)
            t.deletions += s.deletion
            if s.candidate:
                self.candidate(t, c, change.path, r, s)

    def one(self, t: Totals, builder: Builder, commit: pygit2.Commit) -> None:
        message = commit.message.strip()
        c = Commit(str(commit.id), message.splitlines()[0] if message else "")
        start = time.perf_counter()
        built = builder.build(commit)
        t.build_s += time.perf_counter() - start
        t.commits += 1
        t.files += len(built.changes)
        t.skipped += built.skipped
        t.hunks += sum(ch.hunks for ch in built.changes)
        by_path: dict[str, list[Region]] = {}
        for change in built.changes:
            found = by_path[change.path] = regions(change)
            t.regions += len(found)
            self.shapes(t, c, change, found)
        start = time.perf_counter()
        findings = check_commit(self.g, built, f"commit {c.oid[:10]} {c.subject!r}", c.oid)
        t.check_s["commit"] += time.perf_counter() - start
        t.commits_found["commit"] += bool(findings)
        for f in findings:
            self.report(t, "commit", c, f, by_path.get(f.path or "", []))
        if not self.args.per_file:
            return
        any_found = False
        for change in built.changes:
            start = time.perf_counter()
            alone = check_file(self.g, change)
            t.check_s["file"] += time.perf_counter() - start
            any_found = any_found or bool(alone)
            for f in alone:
                self.report(t, "file", c, f, by_path.get(f.path or "", []))
        t.commits_found["file"] += any_found

    def run(self, gitdir: str) -> Totals:
        full, short = repo_name(gitdir)
        t = Totals(full)
        start = time.perf_counter()
        builder = Builder(self.g, gitdir)
        picked = commits(builder.repo, self.args.commits, self.args.whole_history)
        self.out.write(f"== {full} ({gitdir}): {len(picked)} commits, changes built with {builder.how}\n")
        self.json = _open(self.args.json, short)
        self.listing = _open(self.args.candidates, short)
        try:
            for commit in picked:
                self.one(t, builder, commit)
        finally:
            for sink in (self.json, self.listing):
                if sink is not None:
                    sink.close()
        t.elapsed = time.perf_counter() - start
        return t


def _open(pattern: str | None, name: str) -> TextIO | None:
    """The output file `pattern` names for repository `name`; appended to when it names no repository."""
    if pattern is None:
        return None
    if "{repo}" in pattern:
        return open(pattern.replace("{repo}", name), "w", encoding="utf-8")
    return open(pattern, "a", encoding="utf-8")


def table(rows: Sequence[Totals], per_file: bool, out: TextIO) -> None:
    head = ["repo", "commits", "files", "skipped", "hunks", "regions", "candidates", "(code)", "deletions", "findings/edit"]
    head += ["findings/file"] if per_file else []
    head += ["build s", "check s", "total s"]
    lines = [head]
    for t in rows:
        row = [t.name, t.commits, t.files, t.skipped, t.hunks, t.regions, t.candidates, t.code_candidates, t.deletions]
        row += [f"{t.found['commit']} ({t.commits_found['commit']} commits)"]
        row += [f"{t.found['file']} ({t.commits_found['file']} commits)"] if per_file else []
        row += [f"{t.build_s:.1f}", f"{t.check_s['commit'] + t.check_s['file']:.1f}", f"{t.elapsed:.1f}"]
        lines.append([str(x) for x in row])
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    for r in lines:
        out.write("  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths))).rstrip() + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="+", metavar="GITDIR", help="bare git directories (only read)")
    ap.add_argument("--commits", type=int, default=600, help="newest non-merge first-parent commits per repository")
    ap.add_argument(
        "--whole-history",
        action="store_true",
        help="take the newest non-merge commits of all of HEAD's history, not its first parents",
    )
    ap.add_argument("--per-file", action="store_true", help="also check each changed file alone")
    ap.add_argument("--show", action="store_true", help="print every finding and every shape candidate")
    ap.add_argument("--json", metavar="OUT", help="write the findings as JSON lines ({repo}: one file per repository)")
    ap.add_argument("--candidates", metavar="OUT", help="write the shape candidates' listing ({repo}: one per repository)")
    ap.add_argument("--guard", metavar="DIR", help="measure the agent-guard checkout at DIR instead of this one")
    args = ap.parse_args()
    for gitdir in args.gitdirs:
        if not os.path.isdir(gitdir):
            ap.error(f"{gitdir} is not a folder")
    for pattern in (args.json, args.candidates):
        if pattern and "{repo}" not in pattern and os.path.exists(pattern):
            os.remove(pattern)  # one run's output: appended to repository by repository
    start = time.perf_counter()
    g = load_guard(args.guard)
    out = sys.stdout
    out.write(f"agent-guard: {g.where} ({_checkout(g.where)}), placeholder check at level error, default policy\n")
    replay = Replay(g, args, out)
    rows = [replay.run(gitdir) for gitdir in args.gitdirs]
    out.write("\n")
    table(rows, args.per_file, out)
    out.write(f"elapsed: {time.perf_counter() - start:.1f} s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
