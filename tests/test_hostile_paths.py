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
import sys
from pathlib import Path
import pytest

from conftest import Repo, git, journal_pending
from guard import worktree
from guard.engine import Guard
from guard.history import rollback


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
    for text in ("filelink.txt\n```\n<<<<<<< SEARCH\nsecret\n=======\npwned\n>>>>>>> REPLACE\n```\n",
                 "--- a/filelink.txt\n+++ b/filelink.txt\n@@ -1 +1 @@\n-secret\n+pwned\n",
                 json.dumps({"file_path": "link/secret.txt", "old_string": "secret", "new_string": "pwned"})):
        r = cli("apply", "--json", input=text)
        assert r.code == 1 and r.json()["findings"][0]["code"] == "path-outside", r  # type: ignore[index]
    assert world.state() == before


def test_delete_and_rename_through_links(world: World, cli) -> None:  # type: ignore[no-untyped-def]
    before = world.state()
    edits = [
        "diff --git a/filelink.txt b/filelink.txt\ndeleted file mode 100644\n--- a/filelink.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-secret\n",
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
    real_commit = worktree.commit

    def swap_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        _swap_sub_for_link(world)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "commit", swap_then_commit)
    report = Guard(world.root).apply(TWO_FILES)
    _refused_as_swap(report)
    monkeypatch.setattr(worktree, "commit", real_commit)
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
    real_commit = worktree.commit

    def plant_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        (world.root / "fresh").symlink_to(world.outside)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "commit", plant_then_commit)
    report = Guard(world.root).apply(json.dumps({"file_path": "fresh/new.txt", "content": "pwned\n"}))
    _refused_as_swap(report)
    monkeypatch.undo()
    assert not (world.outside / "new.txt").exists()
    (world.root / "fresh").unlink()
    _assert_clean(world)
    assert world.state(objects=False) == before


def test_file_swapped_for_a_symlink_is_replaced_not_followed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step is a rename over the name: a planted link is replaced, its target untouched."""
    real_commit = worktree.commit

    def plant_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        (world.root / "sub" / "b.txt").unlink()
        (world.root / "sub" / "b.txt").symlink_to(world.outside / "b.txt")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(worktree, "commit", plant_then_commit)
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
    report = rollback(Guard(world.root), None, None, None)
    _refused_as_swap(report)
    monkeypatch.undo()
    assert (world.outside / "b.txt").read_text() == "b\n"
    _assert_clean(world)
    _unswap(world)
    assert world.state(objects=False) == applied
    assert rollback(Guard(world.root), None, None, None).status == "applied"
    assert (world.root / "sub" / "b.txt").read_text() == "b\n"


def _child(root: Path, args: list[str], data: str | None, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "guard", *args], cwd=root, input=data.encode() if data else None,
                          capture_output=True, env=dict(os.environ, **env), timeout=120, check=False)


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


