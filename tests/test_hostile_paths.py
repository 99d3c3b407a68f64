"""Hostile paths, end to end: nothing an agent names may be written outside the work tree or into `.git`.

Every path is sent through the real CLI in each dialect that can spell it (JSON can
spell them all, NUL and newline included).  After each refusal the work tree, the
index, HEAD and the refs are byte for byte as before, the folder outside the
repository is untouched, and `.git` holds nothing new but agent-guard's own outcome
log.  Then the races: a folder swapped for a symbolic link *after* the edit was
checked and *before* (or while) it is written, in applies, rollbacks and crash
recovery.  Writes open folders one component at a time with ``O_NOFOLLOW`` and write
through folder descriptors, so the swap is caught at write time, the edit is undone
and refused with ``path-outside``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, git, journal_pending
from conftest import guard as guard_child

from guard.pipeline.engine import Guard
from guard.tree import worktree
from guard.turns.rollback import rollback


def _digest(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every entry under `folder` (links as their target), hashed; `skip` prefixes left out."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(folder).as_posix()
            if rel.startswith(skip):
                continue
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_file():
                out[rel] = hashlib.sha1(p.read_bytes()).hexdigest()
            else:
                out[rel] = "dir"
    return out


class World:
    """A repository with traps, and a folder outside it that must never change."""

    def __init__(self, repo: Repo, outside: Path) -> None:
        self.repo, self.outside, self.root = repo, outside, repo.root

    def state(self, objects: bool = True) -> tuple[object, ...]:
        """Work tree, index, HEAD, refs; the outside folder; `.git` but for agent-guard's own log
        (and, with `objects=False`, the object store, where a refused write may leave loose objects)."""
        skip = ("agent-guard", "logs") + (() if objects else ("objects",))
        return (self.repo.snapshot(), _digest(self.outside), _digest(self.root / ".git", skip=skip))


@pytest.fixture
def world(repo: Repo, tmp_path: Path) -> World:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text("secret\n")
    (outside / "b.txt").write_text("b\n")
    (outside / "sub" / "b.txt").write_text("b\n")
    repo.commit({"a.txt": "one\ntwo\nthree\n", "sub/b.txt": "b\n", "vendor/keep.txt": "k\n"})
    (repo.root / "link").symlink_to(outside)
    (repo.root / "sub" / "up").symlink_to("..")
    (repo.root / "filelink.txt").symlink_to(outside / "secret.txt")
    # A nested repository (what a checked-out submodule looks like from here).
    nested = repo.root / "vendor" / "lib"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / "x.c").write_text("int x;\n")
    return World(repo, outside)


# (id, path, finding codes that may refuse it)
OUT = ("path-outside",)
PROT = ("path-protected",)
HOSTILE = [
    ("dotdot", "../escape.txt", OUT),
    ("dotdot-deep", "sub/../../escape.txt", OUT),
    ("dotdot-many", "a/b/../../../../../../../../tmp/escape.txt", OUT),
    ("absolute-outside", "{outside}/escape.txt", OUT),
    ("absolute-etc", "/etc/agent-guard-escape", OUT),
    ("symlinked-parent", "link/escape.txt", OUT),
    ("symlinked-parent-deep", "link/sub/b.txt", OUT),
    ("symlink-to-dotdot", "sub/up/escape.txt", OUT),
    ("dotdot-through-symlink", "sub/up/../escape.txt", OUT),
    ("symlinked-file", "filelink.txt", OUT),
    ("dot-git", ".git/config", PROT),
    ("dot-git-hooks", ".git/hooks/pre-commit", PROT),
    ("dot-git-upper", ".GIT/HEAD", PROT),
    ("dot-git-mixed", ".gIt/info/exclude", PROT),
    ("dot-git-in-subfolder", "sub/.git/config", PROT),
    ("dot-git-upper-in-subfolder", "sub/.GIT/x", PROT),
    ("dot-git-file-in-subfolder", "sub/.git", PROT),
    ("dot-git-trailing-dot", ".git./hooks/post-checkout", PROT),
    ("dot-git-trailing-space", ".git /config", PROT),
    ("dot-git-fullwidth", ".\uff47\uff49\uff54/config", PROT),
    ("dot-git-fullwidth-dot", "\uff0egit/config", PROT),
    ("dot-git-zero-width", ".g\u200bit/config", PROT),
    ("dot-git-ntfs-short", "GIT~1/config", PROT),
    ("dot-git-via-dotdot", "sub/../.git/config", PROT),
    ("dot-git-absolute", "{root}/.git/config", PROT),
    ("dot-git-backslash", ".git\\config", PROT),
    ("dot-git-backslash-in-subfolder", "x/.git\\hooks", PROT),
    ("dot-git-mixed-backslash", ".gIt\\x", PROT),
    ("dot-git-ntfs-stream", ".git::$INDEX_ALLOCATION/config", PROT),
    ("dot-git-ntfs-data-stream", "sub/.git:$DATA", PROT),
    ("nested-repository", "vendor/lib/x.c", PROT),
    ("nested-repository-new", "vendor/lib/new.c", PROT),
    ("newline", "a\nb.txt", OUT),
    ("nul", "a\x00b.txt", OUT),
    ("carriage-return", "evil\r.txt", OUT),
    ("escape-sequence", "\x1b[2Jx.txt", OUT),
    ("name-256-bytes", "d/" + "x" * 256, OUT),
    ("path-over-path-max", ("y" * 200 + "/") * 21 + "z", OUT),
    ("path-300-deep", "d/" * 300 + "x", OUT),
    ("env-fullwidth", ".\uff45\uff4e\uff56", PROT),
    ("env-zero-width", ".e\u200bnv", PROT),
    ("env-upper", ".ENV", PROT),
    ("env-trailing-dot", ".env.", PROT),
    ("workflow-fullwidth", ".github/\uff57orkflows/ci.yml", PROT),
    ("policy-file", ".agent-guard.yaml", PROT),
]
IDS = [h[0] for h in HOSTILE]


def _spell(path: str, world: World) -> str:
    return path.format(outside=world.outside, root=world.root)


def _inputs(path: str) -> dict[str, str]:
    """The same create (or, for an existing target, overwrite) in every dialect that can carry `path`."""
    out = {"json": json.dumps({"file_path": path, "content": "pwned\n"})}
    if not any(c in path for c in "\n\r\x00"):
        out["unified"] = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n"
        out["codex"] = f"*** Begin Patch\n*** Add File: {path}\n+pwned\n*** End Patch\n"
        out["search-replace"] = f"{path}\n```\n<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE\n```\n"
    return out


@pytest.mark.parametrize("raw,codes", [h[1:] for h in HOSTILE], ids=IDS)
def test_hostile_path_is_refused_in_every_dialect(world: World, cli, raw: str, codes: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    path = _spell(raw, world)
    before = world.state()
    for dialect, text in _inputs(path).items():
        r = cli("apply", "--json", "--format", dialect, input=text.encode("utf-8", "surrogatepass"))
        assert r.code == 1, (dialect, r)
        found = {f["code"] for f in r.json()["findings"] if f["severity"] == "error"}  # type: ignore[union-attr]
        # A text dialect may already stop at the parser (a NUL or newline cannot be spelt there).
        if found == {"parse-error"}:
            # A text dialect may stop at the parser (SEARCH/REPLACE wants a plausible file
            # name); JSON spells every path, so there the path check itself must refuse.
            assert dialect != "json", found
        else:
            assert found & set(codes), (dialect, found)
        assert world.state() == before, dialect
    assert not (world.root.parent / "escape.txt").exists()


def test_modify_through_a_symlinked_file(world: World, cli) -> None:  # type: ignore[no-untyped-def]
    before = world.state()
    for text in (
        "filelink.txt\n```\n<<<<<<< SEARCH\nsecret\n=======\npwned\n>>>>>>> REPLACE\n```\n",
        "--- a/filelink.txt\n+++ b/filelink.txt\n@@ -1 +1 @@\n-secret\n+pwned\n",
        json.dumps({"file_path": "link/secret.txt", "old_string": "secret", "new_string": "pwned"}),
    ):
        r = cli("apply", "--json", input=text)
        assert r.code == 1 and r.json()["findings"][0]["code"] == "path-outside", r  # type: ignore[index]
    assert world.state() == before


def test_delete_and_rename_through_links(world: World, cli) -> None:  # type: ignore[no-untyped-def]
    before = world.state()
    edits = [
        "diff --git a/filelink.txt b/filelink.txt\ndeleted file mode 100644\n"
        "--- a/filelink.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-secret\n",
        "diff --git a/link/b.txt b/link/b.txt\ndeleted file mode 100644\n--- a/link/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
        "diff --git a/a.txt b/link/moved.txt\nsimilarity index 100%\nrename from a.txt\nrename to link/moved.txt\n",
        "diff --git a/a.txt b/../moved.txt\nsimilarity index 100%\nrename from a.txt\nrename to ../moved.txt\n",
        "diff --git a/link/b.txt b/c.txt\nsimilarity index 100%\nrename from link/b.txt\nrename to c.txt\n",
    ]
    for text in edits:
        r = cli("apply", "--json", input=text)
        assert r.code == 1, r
        assert {f["code"] for f in r.json()["findings"]} & {"path-outside", "parse-error"}, r  # type: ignore[union-attr]
    assert world.state() == before


def test_quoted_diff_names_with_control_characters(world: World, cli) -> None:  # type: ignore[no-untyped-def]
    """git C-quotes odd names in diff headers; unquoted, a newline or an escape is refused."""
    before = world.state()
    for name in ('"b/a\\nb.txt"', '"b/\\033[2Jx"', '"b/.git/config"', '"b/..\\057escape.txt"'):
        text = f"--- /dev/null\n+++ {name}\n@@ -0,0 +1 @@\n+pwned\n"
        r = cli("apply", "--json", input=text)
        assert r.code == 1, (name, r)
    assert world.state() == before


def test_a_long_but_legal_path_lands_inside(world: World, cli) -> None:  # type: ignore[no-untyped-def]
    """The limits refuse only what git itself could not see: 254 folders deep is fine."""
    path = "d/" * 254 + "x.txt"
    r = cli("apply", "--json", input=json.dumps({"file_path": path, "content": "deep\n"}))
    assert r.code == 0, r
    assert (world.root / path).read_text() == "deep\n"
    assert cli("rollback", "--json").code == 0
    assert not (world.root / path).exists()


def test_uninitialised_submodule_is_protected(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A clone without `submodule update` has an empty folder where git records a commit."""
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q", "-b", "main")
    (inner / "f.txt").write_text("inner\n")
    git(inner, "add", "-A")
    git(inner, "commit", "-qm", "inner")
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    (outer / "top.txt").write_text("top\n")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "outer")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    git(outer, "commit", "-qm", "submodule")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(outer), str(clone))
    assert (clone / "sub").is_dir() and not any((clone / "sub").iterdir())
    for cwd, path in ((outer, "sub/f.txt"), (outer, "sub/new.txt"), (clone, "sub/f.txt"), (clone, "sub/new.txt"), (clone, "sub")):
        r = cli("apply", "--json", input=json.dumps({"file_path": path, "content": "pwned\n"}), cwd=cwd)
        assert r.code == 1, (cwd.name, path, r)
        assert r.json()["findings"][0]["code"] in ("path-protected", "missing"), r  # type: ignore[index]
    assert not any((clone / "sub").iterdir())
    assert cli("apply", "--json", input=json.dumps({"file_path": "top.txt", "content": "ok\n"}), cwd=clone).code == 0


# ---------------------------------------------------------------------- races: swapped after the checks

TWO_FILES = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/sub/b.txt\n+++ b/sub/b.txt\n@@ -1 +1 @@\n-b\n+pwned\n"


def _swap_sub_for_link(world: World) -> None:
    os.rename(world.root / "sub", world.root.parent / "sub-moved")
    (world.root / "sub").symlink_to(world.outside)


def _unswap(world: World) -> None:
    (world.root / "sub").unlink()
    os.rename(world.root.parent / "sub-moved", world.root / "sub")


def _assert_clean(world: World) -> None:
    assert not journal_pending(world.root / ".git" / "agent-guard" / "journal.json")
    temps = [p for p in world.root.rglob("*") if worktree.TMP_MARK in p.name]
    temps += [p for p in world.outside.rglob("*") if worktree.TMP_MARK in p.name]
    assert not temps


def _refused_as_swap(report) -> None:  # type: ignore[no-untyped-def]
    assert report.status == "refused", report
    assert [f.code for f in report.findings] == ["path-outside"], report.findings
    assert "at write time" in report.findings[0].message


def test_parent_swapped_for_a_symlink_after_planning(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    before = world.state(objects=False)
    real_commit = worktree.write

    def swap_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        _swap_sub_for_link(world)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "write", swap_then_commit)
    report = Guard(world.root).apply(TWO_FILES)
    _refused_as_swap(report)
    monkeypatch.setattr(worktree, "write", real_commit)
    assert (world.outside / "b.txt").read_text() == "b\n"
    assert (world.root / "a.txt").read_text() == "one\ntwo\nthree\n"
    _assert_clean(world)
    _unswap(world)
    assert world.state(objects=False) == before
    # Nothing is wedged: the same edit lands once the folder is a folder again.
    assert Guard(world.root).apply(TWO_FILES).status == "applied"


def _swap_before_writing(world: World, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    real = worktree._write_one

    def write(root_fd: int, w: worktree.Write, created: list[str]) -> None:
        if w.path == target and not (world.root / "sub").is_symlink():
            _swap_sub_for_link(world)
        real(root_fd, w, created)

    monkeypatch.setattr(worktree, "_write_one", write)


def test_swap_between_two_files_undoes_the_first(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    before = world.state(objects=False)
    _swap_before_writing(world, monkeypatch, "sub/b.txt")
    report = Guard(world.root).apply(TWO_FILES)
    _refused_as_swap(report)
    monkeypatch.undo()
    # a.txt had been written when the swap was met: it is back to its old bytes.
    assert (world.root / "a.txt").read_text() == "one\ntwo\nthree\n"
    assert (world.outside / "b.txt").read_text() == "b\n"
    _assert_clean(world)
    _unswap(world)
    assert world.state(objects=False) == before


def test_new_folder_planted_as_a_symlink(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    before = world.state(objects=False)
    real_commit = worktree.write

    def plant_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        (world.root / "fresh").symlink_to(world.outside)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "write", plant_then_commit)
    report = Guard(world.root).apply(json.dumps({"file_path": "fresh/new.txt", "content": "pwned\n"}))
    _refused_as_swap(report)
    monkeypatch.undo()
    assert not (world.outside / "new.txt").exists()
    (world.root / "fresh").unlink()
    _assert_clean(world)
    assert world.state(objects=False) == before


def test_file_swapped_for_a_symlink_is_replaced_not_followed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step is a rename over the name: a planted link is replaced, its target untouched."""
    real_commit = worktree.write

    def plant_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        (world.root / "sub" / "b.txt").unlink()
        (world.root / "sub" / "b.txt").symlink_to(world.outside / "b.txt")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "write", plant_then_commit)
    report = Guard(world.root).apply(TWO_FILES)
    monkeypatch.undo()
    assert report.status == "applied", report.findings
    assert (world.outside / "b.txt").read_text() == "b\n"
    target = world.root / "sub" / "b.txt"
    assert not target.is_symlink() and target.read_text() == "pwned\n"
    _assert_clean(world)


def test_swap_during_a_rollback(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    g = Guard(world.root)
    assert g.apply(TWO_FILES).status == "applied"
    applied = world.state(objects=False)
    _swap_before_writing(world, monkeypatch, "sub/b.txt")
    report = rollback(Guard(world.root), None)
    _refused_as_swap(report)
    monkeypatch.undo()
    assert (world.outside / "b.txt").read_text() == "b\n"
    _assert_clean(world)
    _unswap(world)
    assert world.state(objects=False) == applied
    assert rollback(Guard(world.root), None).status == "applied"
    assert (world.root / "sub" / "b.txt").read_text() == "b\n"


def _child(root: Path, args: list[str], data: str | None, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return guard_child(root, *args, input=data.encode() if data else None, env=env)


def test_recovery_never_writes_through_a_swapped_folder(world: World) -> None:
    """Killed mid-write, then the folder is swapped: recovery restores what it safely can and moves on."""
    r = _child(world.root, ["apply"], TWO_FILES, {"AGENT_GUARD_CRASH_AT": "after-file:1"})
    assert r.returncode == -9, r.stderr
    assert (world.root / "sub" / "b.txt").read_text() == "pwned\n"
    _swap_sub_for_link(world)
    nxt = _child(world.root, ["log"], None, {})
    assert nxt.returncode == 0, nxt.stderr
    assert (world.outside / "b.txt").read_text() == "b\n"
    assert (world.root / "a.txt").read_text() == "one\ntwo\nthree\n"
    assert world.repo.git("for-each-ref", "refs/agent-guard/") == ""
    _assert_clean(world)
    # The moved folder is where the interrupted write left it (the swap took it out of our reach).
    assert (world.root.parent / "sub-moved" / "b.txt").read_text() == "pwned\n"


def test_read_refuses_a_symlink_without_following_it(world: World) -> None:
    with pytest.raises(worktree.UnsafePath):
        worktree.read(world.root, "filelink.txt")
    with pytest.raises(worktree.UnsafePath):
        worktree.read(world.root, "link/secret.txt")
    assert worktree.read(world.root, "a.txt")[0] == b"one\ntwo\nthree\n"


# ---------------------------------------------------------------------- git's own folders, wherever they are

HOOK = "#!/bin/sh\nexec agent-guard check\n"


@pytest.fixture
def plain(repo: Repo) -> Repo:
    """A repository without traps (users commit to it in these tests)."""
    repo.commit({"a.txt": "one\ntwo\nthree\n"})
    return repo


_OURS = ("agent-guard", "logs", "objects", "worktrees/linked/agent-guard", "worktrees/linked/logs")


def _state(root: Path, *git_dirs: Path, inner: str = ".git") -> tuple[object, ...]:
    """The work tree under `root` and each git dir (`inner`: the one inside the tree), but for
    agent-guard's own state, the object store (a refused write may leave loose objects) and reflogs."""
    return (_digest(root, skip=tuple(f"{inner}/{p}" for p in _OURS)), *(_digest(d, skip=_OURS) for d in git_dirs))


def _edits_of(path: str, old: str, new: str) -> list[tuple[str, str]]:
    """Every way an edit can touch `path` (holding `old`) or `new` (not there yet): create, write,
    modify, delete, rename away and onto."""
    lines = old.splitlines()
    return [
        ("create", f"--- /dev/null\n+++ b/{new}\n@@ -0,0 +1 @@\n+echo pwned\n"),
        ("whole", json.dumps({"file_path": path, "content": "echo pwned\n"})),
        ("modify", json.dumps({"file_path": path, "old_string": lines[0], "new_string": "echo pwned"})),
        (
            "delete",
            f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
            f"@@ -1,{len(lines)} +0,0 @@\n" + "".join(f"-{ln}\n" for ln in lines),
        ),
        ("rename-away", f"diff --git a/{path} b/moved.txt\nsimilarity index 100%\nrename from {path}\nrename to moved.txt\n"),
        ("rename-onto", f"diff --git a/a.txt b/{new}\nsimilarity index 100%\nrename from a.txt\nrename to {new}\n"),
    ]


def _all_refused(
    cli,
    root: Path,
    git_dirs: tuple[Path, ...],
    path: str,
    old: str,
    policy: str | None = None,  # type: ignore[no-untyped-def]
    inner: str = ".git",
    new: str | None = None,
) -> int:
    """Send every edit of `path` through the CLI (`--check` and for real) and the Python API: each is
    refused as `path-protected` alone, and nothing changes.  Returns how many edits were sent."""
    import guard

    before = _state(root, *git_dirs, inner=inner)
    sent = 0
    extra = ("--policy", policy) if policy else ()
    for name, text in _edits_of(path, old, new or path):
        for args in (("apply", "--json", "--check", *extra), ("apply", "--json", *extra)):
            r = cli(*args, input=text, cwd=root)
            assert r.code == 1, (path, name, r)
            codes = {f["code"] for f in r.json()["findings"] if f["severity"] == "error"}  # type: ignore[union-attr]
            assert codes == {"path-protected"}, (path, name, r)
            sent += 1
        # The API resolves a policy path from the caller's folder, as the CLI does.
        report = guard.apply(text, repo=root, policy=str(root / policy) if policy and "/" in policy else policy)
        assert report.status == "refused", (name, report)
        assert {f.code for f in report.findings if f.severity == "error"} == {"path-protected"}, (name, report)
        sent += 1
    assert _state(root, *git_dirs, inner=inner) == before, path
    return sent


def test_hooks_path_inside_the_tree_is_git_s(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """`core.hooksPath = .githooks`: git runs what is there, so no agent may change it (delete the
    pre-commit hook, add a `post-checkout` that runs on the next checkout), under any policy."""
    plain.commit({".githooks/pre-commit": HOOK})
    plain.git("config", "core.hooksPath", ".githooks")
    gitdir = plain.root / ".git"
    for policy in (None, "permissive"):
        _all_refused(cli, plain.root, (gitdir,), ".githooks/pre-commit", HOOK, policy, new=".githooks/post-checkout")
    # The same folder spelt as a case-folding filesystem would find it.
    _all_refused(cli, plain.root, (gitdir,), ".GitHooks/pre-commit", HOOK, new=".GITHOOKS/post-checkout")


def test_hooks_path_absolute_and_through_a_link(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Judged by the folder's real location: an absolute hooksPath, and one named through a symlink."""
    plain.commit({"tools/hooks/pre-commit": HOOK})
    gitdir = plain.root / ".git"
    plain.git("config", "core.hooksPath", str(plain.root / "tools" / "hooks"))
    _all_refused(cli, plain.root, (gitdir,), "tools/hooks/pre-commit", HOOK, new="tools/hooks/post-merge")
    (plain.root / "hooks-link").symlink_to("tools/hooks")
    plain.git("config", "core.hooksPath", "hooks-link")
    _all_refused(cli, plain.root, (gitdir,), "tools/hooks/pre-commit", HOOK, new="tools/hooks/post-merge")
    # Only the hooks folder: its neighbours stay editable.
    r = cli("apply", "--json", input=json.dumps({"file_path": "tools/other.sh", "content": "ok\n"}))
    assert r.code == 0, r


def test_separate_git_dir_inside_the_tree(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`git init --separate-git-dir` placed in the tree under another name (`meta/`): its hooks and its
    config (which can name a command: core.fsmonitor) are git's, even under `permissive`."""
    root = tmp_path / "sep"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--separate-git-dir", str(root / "meta"))
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "a")
    assert (root / ".git").is_file() and (root / "meta" / "HEAD").is_file()
    config = (root / "meta" / "config").read_text()
    for policy in (None, "permissive"):
        _all_refused(cli, root, (), "meta/config", config, policy, inner="meta", new="meta/hooks/post-commit")
        _all_refused(cli, root, (), "meta/hooks/pre-commit.sample", "#!/bin/sh\n", policy, inner="meta", new="meta/info/x")
        _all_refused(cli, root, (), "meta/HEAD", "ref: refs/heads/main\n", policy, inner="meta")
    assert not (root / "meta" / "hooks" / "post-commit").exists()
    assert "pwned" not in (root / "meta" / "config").read_text()


def test_linked_worktree_with_hooks_path(plain: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A linked worktree reads the shared config: its own `.githooks` is git's there too, and its
    git dir (under the main repository's) is out of reach from the main tree."""
    plain.commit({".githooks/pre-commit": HOOK})
    plain.git("config", "core.hooksPath", ".githooks")
    linked = tmp_path / "linked"
    plain.git("worktree", "add", "-q", str(linked), "-b", "side")
    _all_refused(cli, linked, (plain.root / ".git",), ".githooks/pre-commit", HOOK, new=".githooks/post-checkout")
    r = cli("apply", "--json", input=json.dumps({"file_path": "a.txt", "content": "linked\n"}), cwd=linked)
    assert r.code == 0 and (linked / "a.txt").read_text() == "linked\n", r


# ---------------------------------------------------------------------- the policy protects itself

TEAM = "extends: strict\npaths:\n  protected: ['.github/workflows/**']\n"


@pytest.mark.parametrize(
    "top",
    [
        # A user list replaces the preset's, and names no policy file.
        "extends: ./policies/team.yaml\npaths: {protected: []}\n",
        # Protection off, or a warning only: the policy files stay out of reach all the same.
        "extends: ./policies/team.yaml\nchecks: {path-protected: 'off'}\n",
        "extends: permissive\npaths: {protected: []}\n",
    ],
    ids=["empty-list", "check-off", "permissive"],
)
def test_the_policy_and_its_chain_are_always_protected(plain: Repo, cli, top: str) -> None:  # type: ignore[no-untyped-def]
    plain.commit({".agent-guard.yaml": top, "policies/team.yaml": TEAM, "policies/base.yaml": "extends: default\n"})
    gitdir = plain.root / ".git"
    _all_refused(cli, plain.root, (gitdir,), ".agent-guard.yaml", top)
    if "team" in top:
        _all_refused(cli, plain.root, (gitdir,), "policies/team.yaml", TEAM)
    # A file the chain does not read is an ordinary file (read first: `strict` wants it read).
    assert cli("read", "policies/base.yaml").code == 0
    r = cli("apply", "--json", input=json.dumps({"file_path": "policies/base.yaml", "content": "extends: strict\n"}))
    assert r.code == 0, r


def test_no_agent_creates_a_policy_file(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Without `.agent-guard.yaml` the preset `default` rules; an agent may not install its own."""
    before = plain.snapshot()
    for text in (
        json.dumps({"file_path": ".agent-guard.yaml", "content": "extends: permissive\n"}),
        json.dumps({"file_path": ".Agent-Guard.yaml", "content": "extends: permissive\n"}),
        "diff --git a/a.txt b/.agent-guard.yaml\nsimilarity index 100%\nrename from a.txt\nrename to .agent-guard.yaml\n",
    ):
        for policy in ((), ("--policy", "permissive")):
            r = cli("apply", "--json", *policy, input=text)
            assert r.code == 1 and r.json()["findings"][0]["code"] == "path-protected", r  # type: ignore[index]
    assert plain.snapshot() == before


def test_the_policy_named_on_the_command_line_is_protected(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """`--policy policies/team.yaml` reads that file and its chain: they are out of reach too."""
    plain.commit({"policies/team.yaml": "extends: ./base.yaml\n", "policies/base.yaml": "extends: strict\n"})
    gitdir = plain.root / ".git"
    _all_refused(cli, plain.root, (gitdir,), "policies/team.yaml", "extends: ./base.yaml\n", "policies/team.yaml")
    _all_refused(cli, plain.root, (gitdir,), "policies/base.yaml", "extends: strict\n", "policies/team.yaml")


def test_the_policy_through_the_mcp_server_and_the_hook(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server

    plain.commit({".agent-guard.yaml": "extends: ./policies/team.yaml\npaths: {protected: []}\n", "policies/team.yaml": TEAM})
    before = plain.snapshot()
    s = mcp_server.Session(Guard(plain.root), "model", require_read=False)
    for name, args in (
        ("write_file", {"path": "policies/team.yaml", "content": "extends: permissive\n"}),
        ("edit_file", {"path": ".agent-guard.yaml", "edits": [{"old_string": "team", "new_string": "x"}]}),
        ("apply_patch", {"patch": json.dumps({"file_path": "policies/team.yaml", "content": "x\n"})}),
    ):
        r = s.call(name, args)
        assert r.error and "path-protected" in r.text, (name, r.text)
    # Claude Code's hook asks the same engine: its answer is a denial (in whichever form it gives one).
    for tool, tool_input in (
        ("Write", {"file_path": str(plain.root / "policies/team.yaml"), "content": "extends: permissive\n"}),
        ("Edit", {"file_path": str(plain.root / ".agent-guard.yaml"), "old_string": "team", "new_string": "x"}),
    ):
        data = {
            "session_id": "s",
            "cwd": str(plain.root),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_1",
        }
        r = cli("hook", "claude-code", input=json.dumps(data))
        denied = r.code == 2 or (r.code == 0 and '"deny"' in r.stdout)
        assert denied and "path-protected" in r.stdout + r.stderr, (tool, r)
    assert plain.snapshot() == before


# ---------------------------------------------------------------------- reading secrets

SECRETS = {".env": "TOKEN=hunter2\n", "config/.env.production": "DB=postgres://u:p@h/db\n", "certs/site.key": "-----BEGIN-----\n"}


def _blob_stored(root: Path, content: str) -> bool:
    oid = git(root, "hash-object", "--stdin", input=content.encode()).strip()
    return subprocess.run(["git", "cat-file", "-e", oid], cwd=root, capture_output=True, timeout=60).returncode == 0


def _read_refused(repo: Repo, cli, path: str, content: str) -> int:  # type: ignore[no-untyped-def]
    """`git agent-read`, `guard.read` and MCP `read_file` refuse `path`: nothing shown, stored or recorded."""
    import guard
    from guard.pipeline.hashline_read import Unreadable

    pytest.importorskip("mcp")
    from guard.adapters import mcp_server

    before, stored = repo.snapshot(), _blob_stored(repo.root, content)
    r = cli("read", path)
    assert r.code == 1 and "path-protected" in r.stdout and content.strip() not in r.stdout + r.stderr, r
    with pytest.raises(Unreadable) as raised:
        guard.read(path, repo=repo.root)
    assert raised.value.finding.code == "path-protected" and raised.value.finding.hint
    m = mcp_server.Session(Guard(repo.root), "model").call("read_file", {"path": path})
    assert m.error and "path-protected" in m.text and content.strip() not in m.text, m.text
    assert _blob_stored(repo.root, content) == stored, path
    reads = repo.root / ".git" / "agent-guard" / "reads"
    assert not reads.exists() or all(path not in json.loads(f.read_text())["files"] for f in reads.iterdir())
    assert repo.snapshot() == before
    return 3


def test_protected_files_are_not_read(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    plain.commit({".githooks/pre-commit": HOOK, ".gitignore": ".env*\n*.key\n"})
    plain.write(SECRETS)  # ignored, as secrets are: their blobs are nowhere in git
    assert not any(_blob_stored(plain.root, content) for content in SECRETS.values())
    plain.git("config", "core.hooksPath", ".githooks")
    for path, content in SECRETS.items():
        _read_refused(plain, cli, path, content)
    _read_refused(plain, cli, ".githooks/pre-commit", HOOK)
    # The policy's own files: what it protects is for the user to know, not the agent.
    plain.commit({".agent-guard.yaml": "extends: ./policies/team.yaml\n", "policies/team.yaml": TEAM})
    _read_refused(plain, cli, "policies/team.yaml", TEAM)
    # Still unreadable when the policy only warns about edits to it.
    plain.commit({".agent-guard.yaml": "extends: permissive\n"})
    _read_refused(plain, cli, ".env", SECRETS[".env"])
    assert not any(_blob_stored(plain.root, content) for content in SECRETS.values())
    # An ordinary file is read, and its blob stored, as ever.
    r = cli("read", "a.txt")
    assert r.code == 0 and r.stdout.startswith("[a.txt#"), r
    assert _blob_stored(plain.root, "one\ntwo\nthree\n")


def test_read_protected_true_lets_agents_read_them(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """The policy may allow it; git's own folders stay out of reach even then."""
    plain.commit(
        {
            ".githooks/pre-commit": HOOK,
            "notes/private.md": "mine\n",
            ".agent-guard.yaml": "read_protected: true\npaths: {protected_extra: ['notes/**']}\n",
        }
    )
    plain.write(SECRETS)
    plain.git("config", "core.hooksPath", ".githooks")
    for path, content in {**SECRETS, "notes/private.md": "mine\n", ".agent-guard.yaml": "read_protected"}.items():
        r = cli("read", path)
        assert r.code == 0 and content.splitlines()[0] in r.stdout, (path, r)
    assert _blob_stored(plain.root, SECRETS[".env"])
    for path in (".githooks/pre-commit", ".git/config"):
        r = cli("read", path)
        assert r.code == 1 and "path-protected" in r.stdout, (path, r)
    # Readable is not editable.
    before = plain.snapshot()
    for path in (".env", "notes/private.md", ".agent-guard.yaml"):
        r = cli("apply", "--json", input=json.dumps({"file_path": path, "content": "x\n"}))
        assert r.code == 1 and r.json()["findings"][0]["code"] == "path-protected", r  # type: ignore[index]
    assert plain.snapshot() == before
