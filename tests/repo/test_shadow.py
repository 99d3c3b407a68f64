"""The shadow checkout (guard/repo/shadow.py): a tree written out inside the git dir, moved by the files that differ.

Every test holds the checkout's files to what git says the tree holds (``git ls-tree`` and
``git cat-file``), and the user's index, HEAD and work tree to what they were.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import Repo, git

from guard.repo import Entry, GitRepo
from guard.repo import shadow as shadow_mod
from guard.repo.shadow import NotReady, Shadow


def _never(_path: str) -> bool:
    return False


def unstaged(work: Path) -> str:
    """What the checkout's files hold that its index does not (changes, files git does not track)."""
    return git(work, "diff", "--name-only") + git(work, "ls-files", "--others", "--exclude-standard")


def tree_files(repo: Repo, tree: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for line in git(repo.root, "ls-tree", "-r", "-z", tree).split("\0"):
        if not line:
            continue
        meta, path = line.split("\t", 1)
        oid = meta.split()[2]
        out[path] = subprocess.run(
            ["git", "cat-file", "blob", oid], cwd=repo.root, capture_output=True, timeout=60, check=True
        ).stdout
    return out


def work_files(work: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(work):
        if Path(dirpath) == work and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(work).as_posix()] = p.read_bytes()
    return out


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"a.txt": "a\n", "src/b.py": "B = 1\n", "src/deep/c.py": "C = 1\n", ".gitignore": "*.log\n"})
    return repo


def _at_head(repo: Repo) -> tuple[GitRepo, str, str]:
    """The repository's handle, its HEAD commit and that commit's tree."""
    g = GitRepo(repo.root)
    head = g.head_commit()
    assert head is not None
    return g, head, g.commit_tree(head)


def with_change(g: GitRepo, base: str, changes: dict[str, bytes | None]) -> str:
    return g.build_tree(base, {p: None if d is None else Entry(g.write_blob(d), 0o100644) for p, d in changes.items()})


def test_first_use_writes_the_tree_and_a_repository_of_its_own(project: Repo) -> None:
    g, head, tree = _at_head(project)
    before = project.snapshot()
    with Shadow(g, "claude") as s:
        moved = s.check_out(tree, head, _never, "k")
        assert moved.populated and moved.written == 4
        assert work_files(s.work) == tree_files(project, tree)
        assert s.work == shadow_mod.home(g) / "claude" / "work"  # outside the work tree: no parent of it is
        assert not s.work.resolve().is_relative_to(project.root.resolve())
        # git run in the checkout finds the checkout's repository: never the user's index or work tree.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_DIR")}
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--git-dir"],
            cwd=s.work / "src",
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.split()
        assert top == [str(s.work), str(s.work / ".git")]
        assert git(s.work, "rev-parse", "HEAD").strip() == head
        assert git(s.work, "status", "--porcelain") == ""  # the user's HEAD holds the tree
    assert project.snapshot() == before


def test_the_next_tree_writes_only_the_files_that_differ(project: Repo) -> None:
    g = GitRepo(project.root)
    head = g.head_commit()
    assert head is not None
    t1 = g.commit_tree(head)
    t2 = with_change(g, t1, {"src/b.py": b"B = 2\n"})
    # A file becomes a folder, a folder a file, a file goes, a new one comes.
    t3 = with_change(g, t2, {"a.txt": None, "a.txt/inner.txt": b"in\n", "src/deep": None, "src/deep/c.py": None})
    t3 = with_change(g, t3, {"src/deep": b"now a file\n", "new/one.txt": b"1\n"})
    with Shadow(g, "claude") as s:
        s.check_out(t1, head, _never, "k")
        untouched = (s.work / "src" / "deep" / "c.py").stat().st_mtime_ns, (s.work / ".gitignore").stat().st_ino
        moved = s.check_out(t2, head, _never, "k")
        assert (moved.populated, moved.written, moved.removed) == (False, 1, 0)
        assert work_files(s.work) == tree_files(project, t2)
        assert (s.work / "src" / "deep" / "c.py").stat().st_mtime_ns == untouched[0]
        moved = s.check_out(t3, head, _never, "k")
        assert not moved.populated
        assert work_files(s.work) == tree_files(project, t3)
        assert (s.work / ".gitignore").stat().st_ino == untouched[1]
        assert unstaged(s.work) == ""
        assert git(s.work, "diff", "--staged", "--name-only").split() == [
            "a.txt",
            "a.txt/inner.txt",
            "new/one.txt",
            "src/b.py",
            "src/deep",
            "src/deep/c.py",
        ]
        moved = s.check_out(t1, head, _never, "k")
        assert work_files(s.work) == tree_files(project, t1)
        assert git(s.work, "status", "--porcelain") == ""


def test_settle_puts_back_what_commands_changed(project: Repo) -> None:
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        s.running(None)
        (s.work / "a.txt").write_text("changed\n")
        (s.work / "src" / "b.py").unlink()
        (s.work / "made.txt").write_text("new\n")
        (s.work / "build").mkdir()
        (s.work / "build" / "x.o").write_text("obj\n")
        (s.work / "debug.log").write_text("ignored, kept\n")
        # A command's own git: it stages and commits in the checkout's repository.
        git(s.work, "add", "-A")
        git(s.work, "commit", "-q", "-m", "a command committed")
        left = s.settle()
        assert set(left.changed) == {"a.txt", "src/b.py"}
        assert set(left.made) == {"made.txt", "build"}
        files = work_files(s.work)
        assert files.pop("debug.log") == b"ignored, kept\n"  # ignored files stay: a cache is welcome
        assert files == tree_files(project, tree)
        assert git(s.work, "write-tree").strip() == tree  # the index as written here, not as the command left it
        assert git(s.work, "rev-parse", "HEAD").strip() == head  # not the command's commit
        assert s.holds(tree, head)


def test_a_run_cut_short_is_settled_by_the_next_use(project: Repo) -> None:
    g = GitRepo(project.root)
    head = g.head_commit()
    assert head is not None
    t1 = g.commit_tree(head)
    t2 = with_change(g, t1, {"src/b.py": b"B = 2\n"})
    with Shadow(g, "claude") as s:
        s.check_out(t1, head, _never, "k")
        s.running(12345)  # then the process died: the state says commands ran
        (s.work / "a.txt").write_text("left by a killed command\n")
    with Shadow(g, "claude") as s:
        moved = s.check_out(t2, head, _never, "k")
        assert not moved.populated
        assert work_files(s.work) == tree_files(project, t2)


def test_sealed_paths_are_left_out(project: Repo) -> None:
    project.commit({".env": "SECRET=1\n", "keys/id.pem": "key\n"})
    g, head, tree = _at_head(project)

    def sealed(p: str) -> bool:
        return p == ".env" or p.endswith(".pem")

    with Shadow(g, "claude") as s:
        s.check_out(tree, head, sealed, "sealed")
        files = work_files(s.work)
        assert ".env" not in files and "keys/id.pem" not in files and "a.txt" in files
        assert unstaged(s.work) == ""
        t2 = with_change(g, tree, {".env": b"SECRET=2\n", "keys/other.pem": b"k2\n"})
        s.check_out(t2, head, sealed, "sealed")
        assert not {".env", "keys/other.pem", "keys/id.pem"} & set(work_files(s.work))
        # Another rule for what is sealed: the checkout is written again, by the new rule.
        moved = s.check_out(t2, head, _never, "none")
        assert moved.populated and work_files(s.work)[".env"] == b"SECRET=2\n"


def test_a_first_checkout_cut_short_goes_on_where_it_stopped(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    project.commit({f"many/f{i:03d}.txt": f"{i}\n" for i in range(50)})
    g, head, tree = _at_head(project)
    monkeypatch.setattr(shadow_mod, "CHUNK", 10)
    calls = 0
    real = Shadow._git

    def slow(self: Shadow, *args: str, input: bytes | None = None) -> bytes:
        nonlocal calls
        if args[0] == "checkout-index":
            calls += 1
            if calls == 3:
                self.until = time.monotonic() - 1  # the deadline passes during the third step
        return real(self, *args, input=input)

    monkeypatch.setattr(Shadow, "_git", slow)
    with Shadow(g, "claude", until=time.monotonic() + 60) as s:
        with pytest.raises(NotReady, match="30 of 54 files"):
            s.check_out(tree, head, _never, "k")
    with Shadow(g, "claude") as s:
        moved = s.check_out(tree, head, _never, "k")
        assert moved.populated and moved.written == 24
        assert work_files(s.work) == tree_files(project, tree)


def test_the_index_tree_is_read_without_touching_the_index(project: Repo) -> None:
    project.write({"a.txt": "staged\n"})
    project.git("add", "a.txt")
    project.write({"a.txt": "not staged\n"})
    index = project.root / ".git" / "index"
    st, data = index.stat(), index.read_bytes()
    g = GitRepo(project.root)
    with Shadow(g, "claude") as s:
        tree = s.index_tree()
        asked: list[list[str]] = []
        run = s._run
        s._run = lambda args, *a, **k: (asked.append(args), run(args, *a, **k))[1]  # type: ignore[method-assign]
        assert s.index_tree() == tree  # remembered by the index file's identity
        assert asked == []  # (reading it through a link changes its ctime: that is not a new index)
    after = index.stat()
    assert index.read_bytes() == data and (after.st_ino, after.st_mtime_ns) == (st.st_ino, st.st_mtime_ns)
    assert tree_files(project, tree)["a.txt"] == b"staged\n"
    assert tree == git(project.root, "write-tree").strip()  # (which itself rewrites the index: its cached trees)


def test_an_index_with_conflicts_has_no_tree(repo: Repo) -> None:
    from conftest import conflicted

    conflicted(repo)
    with Shadow(GitRepo(repo.root), "claude") as s:
        assert s.index_tree() is None


def test_a_held_checkout_is_busy_for_a_caller_with_a_deadline(project: Repo) -> None:
    g = GitRepo(project.root)
    with Shadow(g, "claude"):
        with pytest.raises(shadow_mod.Busy):
            with Shadow(g, "claude", until=time.monotonic() + 0.3):
                pass
        with Shadow(g, "other", until=time.monotonic() + 0.3):
            pass  # each agent has its own


# ---------------------------------------------------------------- settle by what the kernel saw (watch.py)


def _rewrite(work: Path, path: str, data: str) -> None:
    (work / path).write_text(data)


def _act_touch(work: Path, outside: Path) -> None:
    os.utime(work / "src" / "b.py", ns=(1, 1))


def _act_exclude(work: Path, outside: Path) -> None:
    (work / "hidden.py").write_text("made, then hidden by the command's own ignore rule\n")
    (work / ".git" / "info").mkdir(exist_ok=True)
    (work / ".git" / "info" / "exclude").write_text("hidden.py\n")


def _act_folder_for_file(work: Path, outside: Path) -> None:
    (work / "a.txt").unlink()
    (work / "a.txt").mkdir()
    (work / "a.txt" / "inner").write_text("x\n")


def _act_remake_folder(work: Path, outside: Path) -> None:
    import shutil

    shutil.rmtree(work / "src" / "deep")
    (work / "src" / "deep").mkdir()
    (work / "src" / "deep" / "c.py").write_text("C = 'remade, changed'\n")


def _act_link_to_folder(work: Path, outside: Path) -> None:
    import shutil

    shutil.rmtree(work / "src" / "deep")
    outside.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, work / "src" / "deep")


ACTIONS = {
    "nothing": lambda w, o: None,
    "rewrite a deep file": lambda w, o: _rewrite(w, "src/deep/c.py", "C = 2\n"),
    "same bytes written again": lambda w, o: _rewrite(w, "src/b.py", "B = 1\n"),
    "a file removed": lambda w, o: (w / "src" / "b.py").unlink(),
    "a file made": lambda w, o: _rewrite(w, "src/new.py", "N = 1\n"),
    "an ignored file made": lambda w, o: _rewrite(w, "src/run.log", "kept\n"),
    "a folder made with files": lambda w, o: ((w / "gen" / "x").mkdir(parents=True), _rewrite(w, "gen/x/y.py", "Y = 1\n")),
    "a folder removed": lambda w, o: __import__("shutil").rmtree(w / "src" / "deep"),
    "a folder renamed": lambda w, o: os.rename(w / "src" / "deep", w / "src" / "moved"),
    "a folder removed and made again": _act_remake_folder,
    "a file renamed": lambda w, o: os.rename(w / "a.txt", w / "src" / "a2.txt"),
    "mode changed": lambda w, o: os.chmod(w / "src" / "b.py", 0o755),
    "stat only": _act_touch,
    "a folder where a file was": _act_folder_for_file,
    "a link where a folder was": _act_link_to_folder,
    "hidden by info/exclude": _act_exclude,
    "a second name": lambda w, o: os.link(w / "src" / "b.py", w / "alias"),
}


def _settled(
    project: Repo, act: object, watched: bool, monkeypatch: pytest.MonkeyPatch, outside: Path
) -> tuple[object, dict[str, bytes], bool]:
    g, head, tree = _at_head(project)
    if not watched:
        monkeypatch.setattr(shadow_mod.Watch, "touched", lambda self: None)  # as where the kernel cannot say
    with Shadow(g, "claude" if watched else "walk") as s:
        s.check_out(tree, head, _never, "k")
        s.running(None)
        act(s.work, outside)  # type: ignore[operator]
        left = s.settle()
        files = work_files(s.work)
        files.pop("src/run.log", None)
        return left, files, s.holds(tree, head)


@pytest.mark.parametrize("name", list(ACTIONS))
def test_settle_by_the_watch_finds_what_a_full_walk_finds(
    project: Repo, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not shadow_mod.Watch(project.root, ()).active:
        pytest.skip("no inotify here: settle always walks")
    g = GitRepo(project.root)
    tree = g.commit_tree(g.head_commit() or "")
    expected = tree_files(project, tree)
    seen, files, holds = _settled(project, ACTIONS[name], True, monkeypatch, tmp_path / "o1" / "d")
    assert files == expected and holds
    assert seen.walked == (name == "a second name")  # type: ignore[attr-defined]
    walked, files, holds = _settled(project, ACTIONS[name], False, monkeypatch, tmp_path / "o2" / "d")
    assert files == expected and holds
    assert walked.walked  # type: ignore[attr-defined]
    # Writing the same bytes or linking moves b.py's mtime or ctime, which git compares to the
    # second: whether a settle calls b.py changed (and puts back the same bytes) depends on the
    # clock, not on the watch, so b.py is left out of the comparison there.
    clock = {"src/b.py"} if name in ("same bytes written again", "a second name") else set()
    assert set(seen.changed) - clock == set(walked.changed) - clock  # type: ignore[attr-defined]
    assert seen.made == walked.made  # type: ignore[attr-defined]


def test_a_write_through_a_second_name_is_found(project: Repo) -> None:
    """A command links a checkout file under a new name and writes through it: the kernel reports
    the new name only, so settle asks git about everything and puts the first name's file back."""
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        s.running(None)
        os.link(s.work / "src" / "b.py", s.work / "src" / "alias.py")
        with open(s.work / "src" / "alias.py", "a") as fh:
            fh.write("# changed through the other name\n")
        left = s.settle()
        assert left.walked and left.changed == ("src/b.py",) and left.made == ("src/alias.py",)
        assert work_files(s.work) == tree_files(project, tree)


def test_without_the_folder_list_settle_still_sees_every_folder(project: Repo) -> None:
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        (s.folder / "folders").unlink()
        s.running(None)
        (s.work / "src" / "deep" / "c.py").write_text("changed\n")
        left = s.settle()
        assert left.changed == ("src/deep/c.py",) and not left.walked
        assert (s.folder / "folders").exists()
        assert work_files(s.work) == tree_files(project, tree)


def test_one_settle_in_so_many_walks_everything(project: Repo) -> None:
    """What no watch sees (a write through a link made from outside the checkout) is found by the
    walk that every WALK_EVERY-th settle makes."""
    g, head, tree = _at_head(project)
    outside = project.root.parent / "outside-link"
    walks = []
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        os.link(s.work / "src" / "b.py", outside)
        outside.write_text("written through a name the watch does not see\n")
        for _ in range(shadow_mod.WALK_EVERY):
            s.running(None)
            left = s.settle()
            walks.append(left.walked)
            if left.walked:
                assert left.changed == ("src/b.py",)
        assert walks == [False] * (shadow_mod.WALK_EVERY - 1) + [True]
        assert work_files(s.work) == tree_files(project, tree)


def test_a_folder_list_a_command_rewrote_is_made_again(project: Repo, tmp_path: Path) -> None:
    """A command that writes `..` paths into the folder list cannot make the next settle watch, or ask
    git about, anything outside the checkout: the list is made again from the index."""
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        (s.folder / "folders").write_bytes(b"../../..\0src\0")
        s.running(None)
        (s.work / "src" / "deep" / "c.py").write_text("changed\n")
        left = s.settle()
        assert left.changed == ("src/deep/c.py",) and not left.walked
        assert sorted(filter(None, (s.folder / "folders").read_bytes().split(b"\0"))) == [b"src", b"src/deep"]
        assert work_files(s.work) == tree_files(project, tree)


def test_the_checkout_index_is_one_libgit2_reads(project: Repo) -> None:
    """A command in the checkout may read its index through libgit2 (agent-guard's own commit check
    as a pre-commit hook does): after a first fill and an update, pygit2 reads it."""
    import pygit2

    g, head, t1 = _at_head(project)
    t2 = with_change(g, t1, {"src/b.py": b"B = 2\n", "new.txt": b"n\n"})
    with Shadow(g, "claude") as s:
        for tree in (t1, t2):
            s.check_out(tree, head, _never, "k")
            paths = sorted(e.path for e in pygit2.Index(str(s.dotgit / "index")))
            assert paths == sorted(tree_files(project, tree))


def test_links_a_command_left_in_the_checkouts_git_dir_are_replaced_not_written_through(project: Repo, tmp_path: Path) -> None:
    """A command swaps the checkout's `.git/config` and `HEAD` for links to files outside, and its
    `.git/info` for a link to a folder outside: settle writes its own files in their place and
    leaves what the links named untouched."""
    outside = tmp_path / "outside"
    (outside / "info").mkdir(parents=True)
    for name, text in {"config": "[user]\n\tname = kept\n", "HEAD": "kept\n", "info/exclude": "kept\n"}.items():
        (outside / name).write_text(text)
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        s.running(None)
        for name in ("config", "HEAD"):
            (s.dotgit / name).unlink()
            os.symlink(outside / name, s.dotgit / name)
        import shutil

        shutil.rmtree(s.dotgit / "info")
        os.symlink(outside / "info", s.dotgit / "info")
        s.settle()
        assert not any(os.path.islink(s.dotgit / n) for n in ("config", "HEAD", "info"))
        assert (s.dotgit / "HEAD").read_text() == f"{head}\n"
        assert s.holds(tree, head)
    assert {n: (outside / n).read_text() for n in ("config", "HEAD", "info/exclude")} == {
        "config": "[user]\n\tname = kept\n",
        "HEAD": "kept\n",
        "info/exclude": "kept\n",
    }


def test_folders_a_command_left_where_the_shadows_own_files_go_are_replaced(project: Repo) -> None:
    """A command puts folders where settle writes (`.git/config`, `HEAD`, `index`, `info/exclude`):
    settle removes them and writes its own files, as git would find them."""
    g, head, tree = _at_head(project)
    with Shadow(g, "claude") as s:
        s.check_out(tree, head, _never, "k")
        s.running(None)
        for path in (
            s.dotgit / "config",
            s.dotgit / "HEAD",
            s.dotgit / "index",
            s.dotgit / "info" / "exclude",
        ):
            path.unlink(missing_ok=True)
            (path / "inside").mkdir(parents=True)
        s.settle()
        assert (s.dotgit / "HEAD").read_text() == f"{head}\n"
        assert all((s.dotgit / n).is_file() for n in ("config", "index")) and not (s.dotgit / "info" / "exclude").exists()
        assert s.holds(tree, head)
