"""A shell turn's list of what git sees, from a watch of the tree, is what a fresh `git status` lists.

`record/watched.py` keeps the last list and asks git again only about the paths the tree's watch
(`warm/watch.py`) saw change.  Every step of random work on a real tree (``STEPS``: files written,
removed, made executable; folders made, moved, removed; ignore and attribute files; `git add`,
`git reset`, a commit, a `git status` that rewrites the index; a repository made inside; the
configuration changed) is followed by the list from the watch and a fresh `git status`: they must
be the same.  The watch's own process is tested over its socket.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from conftest import Repo, git

from guard.fs import kept
from guard.record import watched
from guard.repo import GitRepo
from guard.repo.status import dirty

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

from guard.warm import watch  # noqa: E402


class InProcess:
    """The watch of a tree asked directly (the socket aside), counting what it was asked."""

    def __init__(self, root: Path) -> None:
        self.w = watch.Watcher(str(root))
        self.name = "in-process"
        self.answers: list[tuple[str, ...] | None] = []
        self.starts = 0

    def since(self, token: str | None) -> tuple[str, tuple[str, ...] | None]:
        gen, _, seq = (token or "- 0").partition(" ")
        g, s, paths = self.w.since(gen, int(seq))
        got = None if paths is None else tuple(paths)
        self.answers.append(got)
        return f"{g} {s}", got

    def start(self) -> str:
        self.starts += 1
        return "started"


def listed(got: list) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    return {(d.path, d.kind) for d in got}


def _create(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    (rng.choice([root, *folders]) / f"new{n}.py").write_text(f"x = {n}\n")


def _mkdir_p(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    deep = root / f"d{n}" / "e" / "f"
    deep.mkdir(parents=True)
    (deep / "g.txt").write_text("g\n")
    (root / f"d{n}" / "h.txt").write_text("h\n")


def _move_folder(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    if folders:
        rng.choice(folders).rename(root / f"moved{n}")


def _remove_folder(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    if folders:
        shutil.rmtree(rng.choice(folders))


def _gitignore(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    (rng.choice([root, *folders]) / ".gitignore").write_text(rng.choice(["*.txt\n", "new*\n", "", "d*/\n"]))


def _commit(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", f"c{n}")


def _nested(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    sub = root / f"nested{n}"
    sub.mkdir()
    git(sub, "init", "-q")
    git(sub, "commit", "-q", "--allow-empty", "-m", "inside")


def _excludes(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    git(root, "config", "core.excludesFile", str(root.parent / f"ignore{n}"))
    (root.parent / f"ignore{n}").write_text("*.py\n" if n % 2 else "*.md\n")


def _write_and_back(rng: random.Random, root: Path, n: int, f: Path, folders: list[Path]) -> None:
    old = f.read_bytes()
    f.write_bytes(b"changed\n")
    f.write_bytes(old)


STEPS = {
    "create": _create,
    "append": lambda rng, root, n, f, folders: f.write_text(f.read_text() + f"# {n}\n"),
    "delete": lambda rng, root, n, f, folders: f.unlink(),
    "chmod": lambda rng, root, n, f, folders: f.chmod(0o644 if os.access(f, os.X_OK) else 0o755),
    "mkdir -p": _mkdir_p,
    "mv folder": _move_folder,
    "rm -r folder": _remove_folder,
    ".gitignore": _gitignore,
    "git add -A": lambda rng, root, n, f, folders: git(root, "add", "-A"),
    "commit": _commit,
    "git init inside": _nested,
    "excludesFile": _excludes,
    ".gitattributes": lambda rng, root, n, f, folders: (root / ".gitattributes").write_text(
        rng.choice(["*.txt text eol=crlf\n", "", "*.py -text\n"])
    ),
    # refreshes the index's stat data: git writes a new index with the same entries
    "git status": lambda rng, root, n, f, folders: git(root, "status", "--porcelain"),
    "git reset": lambda rng, root, n, f, folders: git(root, "reset", "-q"),
    "write, and back": _write_and_back,
}


def step(rng: random.Random, root: Path, n: int) -> str:
    """One random change of the tree; what it was."""
    files = [p for p in root.rglob("*") if ".git" not in p.relative_to(root).parts and p.is_file()]
    folders = [p for p in root.rglob("*") if ".git" not in p.relative_to(root).parts and p.is_dir()]
    name = rng.choice(list(STEPS)) if files else "create"
    STEPS[name](rng, root, n, rng.choice(files) if files else root, folders)
    return name


@pytest.fixture
def watching(repo: Repo, tmp_path: Path) -> Iterator[tuple[GitRepo, InProcess, Path]]:
    """The repository's handle, a watch of its tree asked in this process, and a folder for the kept list."""
    w = InProcess(repo.root)
    state = tmp_path / "state"
    state.mkdir()
    try:
        yield GitRepo(str(repo.root)), w, state
    finally:
        w.w.close()


@pytest.mark.parametrize("seed", range(8))
def test_the_watched_list_is_git_status_after_every_step(repo: Repo, watching, seed: int, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(kept, "RACY_NS", 0)  # the steps come faster than git's racy window: trust every stamp
    repo.commit({"a.py": "a\n", "src/b.py": "b\n", "src/deep/c.txt": "c\n", "docs/d.md": "d\n"})
    r, w, state = watching
    rng = random.Random(seed)
    done: list[str] = []
    for n in range(60):
        done.append(step(rng, repo.root, n))
        got = watched.dirty(r, state, w)
        assert listed(got) == listed(dirty(repo.root)), done
        assert len(got) == len(listed(got)), f"a path listed twice after {done}"
    # The watch spared the walks it could: some answers named paths, not "everything".
    assert any(a is not None for a in w.answers[1:])


def test_a_kept_list_is_used_only_with_the_same_index_and_inputs(repo: Repo, watching, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})
    monkeypatch.setattr(kept, "RACY_NS", 0)
    r, w, state = watching
    watched.dirty(r, state, w)
    (repo.root / "a.py").write_text("changed\n")
    assert listed(watched.dirty(r, state, w)) == {("a.py", "modified")}
    assert w.answers[-1] == ("a.py",)
    git(repo.root, "add", "a.py")  # a new index: git is asked about the entries it changed
    assert listed(watched.dirty(r, state, w)) == set()
    assert w.answers[-1] == ()
    git(repo.root, "config", "core.excludesFile", str(tmp_path / "nothing"))  # configuration changed
    (repo.root / "b.py").write_text("b\n")
    assert listed(watched.dirty(r, state, w)) == {("b.py", "untracked")}
    assert w.answers[-1] is None


def test_work_that_changes_no_rule_is_asked_of_the_watch_every_time(repo: Repo, watching, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n", "b.py": "b\n"})
    monkeypatch.setattr(kept, "RACY_NS", 0)
    r, w, state = watching
    watched.dirty(r, state, w)  # the first list: the whole tree
    for n in range(6):
        (repo.root / "a.py").write_text(f"a{n}\n")
        if n == 2:
            git(repo.root, "status", "--porcelain")  # a new index, the same entries
        if n == 4:
            git(repo.root, "add", "a.py")
        assert listed(watched.dirty(r, state, w)) == listed(dirty(repo.root))
    assert all(a is not None for a in w.answers[1:]), w.answers
    assert sorted(os.listdir(state)) == [watched.STATE.format("in-process")]  # nothing else left behind


def test_a_configuration_changed_within_gits_racy_window_is_not_trusted(repo: Repo, watching) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})  # its .git/config is younger than two seconds
    r, w, state = watching
    watched.dirty(r, state, w)
    (repo.root / "a.py").write_text("changed\n")
    assert listed(watched.dirty(r, state, w)) == {("a.py", "modified")}
    assert w.answers == [None, None]  # asked for everything, both times


def test_no_watch_is_a_whole_tree_list_and_a_slow_one_starts_the_watch(repo: Repo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})
    (repo.root / "b.py").write_text("b\n")
    r = GitRepo(str(repo.root))

    class Absent:
        name = "absent"
        starts = 0

        def since(self, token: str | None) -> None:
            return None

        def start(self) -> str:
            Absent.starts += 1
            return "started"

    assert listed(watched.dirty(r, tmp_path, Absent())) == {("b.py", "untracked")}
    monkeypatch.setattr(watched, "START_AFTER", 0.0)
    watched.dirty(r, tmp_path, Absent())
    assert Absent.starts == 1 and not (tmp_path / watched.STATE.format("absent")).exists()


def test_changed_paths_too_long_for_a_command_line_are_a_whole_tree_list(repo: Repo, watching, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})
    monkeypatch.setattr(kept, "RACY_NS", 0)
    monkeypatch.setattr(watched, "MAX_ARGS", 10)
    from guard.repo import status

    asked: list[object] = []
    real = status.dirty
    monkeypatch.setattr(status, "dirty", lambda root, paths=None: asked.append(paths) or real(root, paths))
    r, w, state = watching
    watched.dirty(r, state, w)
    (repo.root / "a-name-longer-than-ten.py").write_text("x\n")
    assert listed(watched.dirty(r, state, w)) == {("a-name-longer-than-ten.py", "untracked")}
    assert w.answers[-1] == ("a-name-longer-than-ten.py",) and asked == [None, None]  # git asked about everything


def test_a_state_file_that_is_not_ours_is_a_whole_tree_list(repo: Repo, watching) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})
    r, w, state = watching
    watched.dirty(r, state, w)
    doc = (state / watched.STATE.format("in-process")).read_text()
    (state / watched.STATE.format("in-process")).write_text(doc.replace('"dirty": []', '"dirty": [["x.py"]]'))
    (repo.root / "c.py").write_text("c\n")
    assert listed(watched.dirty(r, state, w)) == {("c.py", "untracked")}


def test_the_watch_process_answers_over_its_socket_and_ends_with_it(repo: Repo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a\n"})
    # A runtime folder of 80 bytes (a socket's path has about 107): the socket's name must be short.
    run = Path(tempfile.mkdtemp(prefix="ag-", dir="/tmp"))
    deep = run / ("r" * (80 - len(str(run)) - len("/agent-guard") - 1))
    deep.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    remote = watch.Remote(str(repo.root), str(repo.root / ".git"))
    assert len(os.fsencode(os.path.dirname(remote.path))) == 80
    assert remote.since(None) is None  # none runs yet
    assert remote.start() == "started"
    assert remote.start() == "started lately"
    deadline = time.monotonic() + 60  # a loaded machine: the process starts, watches, then listens
    first = None
    while first is None and time.monotonic() < deadline:
        time.sleep(0.05)
        first = remote.since(None)
    assert first is not None and first[1] is None  # a token it does not know: "everything"
    (repo.root / "a.py").write_text("changed\n")
    (repo.root / "new").mkdir()
    (repo.root / "new" / "b.py").write_text("b\n")
    second = remote.since(first[0])
    assert second is not None and {"a.py", "new"} <= set(second[1] or ()) <= {"a.py", "new", "new/b.py"}
    third = remote.since(second[0])
    assert third is not None and third[1] == ()
    os.unlink(remote.path)  # the watch ends when its socket is gone (it looks every 5 s)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-f", remote.path], capture_output=True, timeout=10)
        if found.returncode != 0:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the watch did not end when its socket was removed")
    shutil.rmtree(run, ignore_errors=True)


def test_a_tree_with_too_many_folders_is_not_watched(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}").mkdir()
    with pytest.raises(watch.TooManyFolders):
        watch.Watcher(str(tmp_path), limit=3)
