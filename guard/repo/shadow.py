"""A shadow checkout: a tree written out in a private folder, for commands to run on (guard/verify/).

The policy's ``verify`` commands run on an edit's result before anything is written, here and
never in the user's work tree.  The folder (``home``) is the user's, outside the work tree:
``$XDG_CACHE_HOME/agent-guard/verify/<hash of the git dir>/<agent>/`` (else under ``~/.cache``),
each folder mode 0700, refused when it belongs to someone else or others may write it
(``NotPrivate``).  Inside the work tree (``.git/agent-guard/verify/``, where it was once) a
command could climb out of it with ``..`` to the user's files; a checkout left there by an older
agent-guard is removed on the next use.  It holds:

- ``work/``: the checkout, and ``work/.git`` a repository of its own: its objects are the user's
  (``objects/info/alternates``), while its index, HEAD (the user's HEAD commit, detached), refs
  and config are its own.  A command that runs git there (pre-commit, a hook script, ``git
  diff --staged``) finds this repository, so nothing it does reaches the user's index or work
  tree through git.
- ``state.json``: the tree the checkout holds, and how far to trust it: ``clean`` (that tree,
  as written here), ``used`` (commands ran since: ``settle`` finds what they changed and puts it
  back), ``updating`` (an update was cut short: the checkout is written again from scratch).
- ``index.pristine``: a hard link to the checkout's index as last written here.  git replaces
  an index by renaming a new file over it, so when a command's git rewrites the index (``git
  diff`` refreshes it) the link still holds ours, and ``settle`` puts it back.
- ``folders``: the checkout's folders that hold tracked files, where the watch is set while
  commands run (made from the index when missing).
- ``lock``: held while one command uses the checkout (``Shadow`` is the lock's context manager).

Moving the checkout from one tree to the next writes only the files that differ: the changed
paths come from a walk of the folders that differ (``GitRepo.changed_files``), and only they go
through ``git update-index --index-info`` and ``git checkout-index``; git reads and writes the
index file whole, in C.  Not a split index (``core.splitIndex``): libgit2 (pygit2, agent-guard's
own commit check as a pre-commit hook) cannot read one.  The first use writes every file (``git
read-tree``, ``git checkout-index --all``).

Finding what a command left behind asks the kernel which entries it touched (``watch.py``, a
watch on every folder of the checkout, listed in ``folders``), then git about those paths only
(``git diff-files`` and ``git ls-files --others`` with literal pathspecs).  Where the kernel cannot
say (not Linux, the watch limit, a queue overflow) it costs what ``git status`` costs: every
file's metadata.

The plumbing runs with the user's global and system git configuration shut out: no filter driver,
hook or helper of theirs runs here, and files are written as git stores them (a file git-lfs
tracks is its pointer; line ends as the copied ``core.autocrlf``/``core.eol`` say).  Paths
`sealed` says the agent may not read are left out (git's skip-worktree bit): no command's output
can show them.  The user's environment is otherwise the commands' own (``command_environment``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from ..fs.filekind import read_regular
from .checkout_files import NotPrivate as NotPrivate
from .checkout_files import (
    clear,
    inside,
    is_folder,
    linked,
    nul_join,
    nul_split,
    parents,
    private,
    put,
    remove_path,
    remove_tree,
    rename_over,
)
from .checkout_files import home as home
from .errors import GitError
from .watch import Watch

if TYPE_CHECKING:
    from .handle import GitRepo

VERSION = 1
CHUNK = 10_000  # files written per step of a first checkout (each step is recorded)
WALK_EVERY = 32  # one settle in this many asks git about every file whatever the watch saw
_MANY_PATHS = 2000  # touched paths past which settle asks git about the whole checkout
_TIMEOUT = 1800  # seconds for one plumbing step: writing out a very large tree the first time
# Variables that tell git which repository, index or object store to use: a command run in the
# checkout must find the checkout's own repository, never the user's (an apply started from a
# git hook has GIT_INDEX_FILE and GIT_DIR set).
REPOSITORY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_QUARANTINE_PATH",
    "GIT_INDEX_VERSION",
)
# The user's settings that decide how files look when checked out, copied into the checkout's config.
_COPIED = (
    "core.autocrlf",
    "core.eol",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.filemode",
    "core.safecrlf",
)


def command_environment() -> dict[str, str]:
    """The user's environment for a command run in a checkout, less the variables that would point
    git at the user's repository (``REPOSITORY_VARIABLES``): nothing added."""
    return {k: v for k, v in os.environ.items() if k not in REPOSITORY_VARIABLES}


@dataclass(frozen=True, slots=True)
class Moved:
    """What ``Shadow.check_out`` did: the tree the checkout now holds, whether it was written from
    scratch, and how many files it wrote and removed."""

    tree: str
    populated: bool
    written: int
    removed: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Left:
    """What commands left in the checkout, which ``settle`` put back: tracked files they changed or
    deleted, and files git does not track (nor ignore) that they made; and whether git was asked
    about every file (``walked``) or only about those the watch saw touched."""

    changed: tuple[str, ...]
    made: tuple[str, ...]
    walked: bool


class Busy(GitError):
    """Another process holds the checkout (an agent's verify, or a hook of the same agent)."""


class NotReady(GitError):
    """The checkout is still being written for the first time, and the caller's time is up (taken up next time)."""


class Shadow:
    """An agent's shadow checkout of one repository (a resource: ``with Shadow(repo, agent) as s``)."""

    def __init__(self, repo: GitRepo, agent: str, until: float | None = None) -> None:
        """`until`: a ``time.monotonic()`` instant after which waiting for the lock gives up (``Busy``)."""
        self.repo = repo
        self.home = home(repo)
        self.folder = self.home / agent
        self._old = repo.gitdir / "agent-guard" / "verify" / agent  # where an older agent-guard kept it
        self.work = self.folder / "work"
        self.dotgit = self.work / ".git"
        self.until = until
        self._lock_fd = -1
        self._watch: Watch | None = None

    # ------------------------------------------------------------------ the lock

    def __enter__(self) -> Shadow:
        self._make()
        fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if self.until is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= self.until:
                            raise Busy(f"the shadow checkout {self.folder} is in use by another verify of this agent") from None
                        time.sleep(0.05)
        except BaseException:
            os.close(fd)
            raise
        self._lock_fd = fd
        return self

    def _make(self) -> None:
        """The folder, private from the cache's ``agent-guard`` down (the user's cache itself is theirs
        to keep); a checkout at the old place in the git dir goes."""
        chain = [self.folder, self.home]
        if self.home.parent.name == "verify" and self.home.parent.parent.name == "agent-guard":
            chain += [self.home.parent, self.home.parent.parent]
        chain[-1].parent.mkdir(parents=True, exist_ok=True)
        for folder in reversed(chain):
            private(folder)
        if self._old != self.folder and is_folder(self._old):
            remove_tree(self._old)

    def __exit__(self, *exc: object) -> None:
        self._unwatch()
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, object]:
        try:
            doc = json.loads(read_regular(self.folder / "state.json"))
        except (OSError, ValueError):
            return {}
        return doc if isinstance(doc, dict) and doc.get("version") == VERSION else {}

    def _save(self, **fields: object) -> None:
        doc = {**self.state(), **fields, "version": VERSION}
        put(self.folder / "state.json", json.dumps(doc).encode())

    def holds(self, tree: str, head: str | None) -> bool:
        """Does the checkout hold `tree`, with HEAD at `head`, exactly as written here?"""
        st = self.state()
        return st.get("state") == "clean" and st.get("tree") == tree and st.get("head") == head and self._intact()

    def running(self, pgid: int | None) -> None:
        """Say commands are about to change the checkout (and, once started, their process group).
        The first call also sets the watch that lets ``settle`` ask git about touched paths only."""
        if self._watch is None:
            self._watch = Watch(self.work, self.folders(), skip=frozenset({".git"}))
        self._save(state="used", pgid=pgid)

    def _unwatch(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def folders(self) -> list[str]:
        """The checkout's folders that hold tracked files (kept in ``folders``; made from the index when missing)."""
        kept = self.folder / "folders"
        try:
            listed = nul_split(read_regular(kept))
        except OSError:
            listed = None
        if listed is not None and all(map(inside, listed)):
            return listed
        # Missing, or not as written here (a command may write any file of the user's): made again.
        folders = parents(nul_split(self._git("ls-files", "-z")))
        self._keep_folders(folders, replace=True)
        return sorted(folders)

    def _keep_folders(self, folders: set[str], replace: bool = False) -> None:
        kept = self.folder / "folders"
        if not replace:
            try:
                known = set(nul_split(read_regular(kept)))
            except OSError:
                return  # made afresh from the index when next needed
            if folders <= known:
                return
            folders = folders | known
        put(kept, nul_join(sorted(folders)))

    def stray_group(self) -> int | None:
        """The process group a run cut short left behind, if it is still running in this checkout
        (Linux: its leader's folder is inside it); None when there is none or it cannot be told."""
        pgid = self.state().get("pgid")
        if not isinstance(pgid, int) or pgid <= 1 or self.state().get("state") != "used":
            return None
        try:
            cwd = os.readlink(f"/proc/{pgid}/cwd")
        except OSError:
            return None
        return pgid if Path(cwd) == self.work or self.work in Path(cwd).parents else None

    # ------------------------------------------------------------------ the index's tree

    def index_tree(self) -> str | None:
        """The tree of the user's index (what ``git commit`` would commit now), or None when it has
        unmerged paths.  Remembered by the index file's identity (git replaces the file to change
        it): asked again only when the index changed.  The user's index is read through a hard
        link, so ``git write-tree`` can never rewrite it."""
        index = self.repo.gitdir / "index"
        try:
            st = os.stat(index)
        except FileNotFoundError:
            return self.repo.empty_tree()  # no index yet: nothing staged
        # Not the change time: linking the file below changes it.  git replaces the index to change it
        # (a new file, renamed over it), so its identity, size and time say which index this is.
        key = [st.st_ino, st.st_size, st.st_mtime_ns]
        known = self.state().get("index")
        if isinstance(known, dict) and known.get("key") == key:
            kept = known.get("tree")
            if kept is None or isinstance(kept, str):
                return kept
        link = self.folder / f"index.read.{os.getpid()}"
        link.unlink(missing_ok=True)
        try:
            os.link(index, link)
        except OSError:
            shutil.copyfile(index, link)
        try:
            proc = self._run(["write-tree"], env=self._user_env(link), cwd=self.repo.root, check=False)
        finally:
            link.unlink(missing_ok=True)
        tree = proc.stdout.decode().strip() if proc.returncode == 0 else None
        self._save(index={"key": key, "tree": tree})
        return tree

    def user_files(self, pathspecs: Iterable[str]) -> list[str]:
        """The files of the user's work tree that `pathspecs` name: tracked, and not tracked (ignored
        ones too: a `.env`); [] when git cannot say."""
        env = {**self._user_env(self.repo.gitdir / "index"), "GIT_WORK_TREE": str(self.repo.root), "GIT_OPTIONAL_LOCKS": "0"}
        proc = self._run(["ls-files", "-z", "--cached", "--others", "--", *pathspecs], env=env, cwd=self.repo.root, check=False)
        return sorted(set(nul_split(proc.stdout))) if proc.returncode == 0 else []

    # ------------------------------------------------------------------ checking a tree out

    def check_out(self, tree: str, head: str | None, sealed: Callable[[str], bool], sealed_key: str) -> Moved:
        """Make the checkout hold `tree` (HEAD at the commit `head`), leaving out the paths `sealed`
        names: only the files that differ from what it holds are written (see the module doc).
        `sealed_key` says what decides `sealed` (a policy's protected globs): when it changes, the
        checkout is written again from scratch.

        Writing it from scratch goes ``CHUNK`` files at a time, each step recorded: a run cut short
        (the Claude Code hook's deadline on a large repository) is taken up where it stopped by the
        next one.  Past the lock's `until` it stops between steps and raises ``NotReady``."""
        started = time.monotonic()
        st = self.state()
        old = st.get("tree")
        written = removed = 0
        populated = False
        if not (isinstance(old, str) and st.get("sealed") == sealed_key and self._intact()):
            old = None
        elif st.get("state") == "populating":
            done = st.get("done")
            written, populated = self._fill(old, sealed, done if isinstance(done, int) else 0), True
        elif st.get("state") == "used":
            try:
                self.settle()
            except (GitError, OSError):
                old = None
        elif st.get("state") != "clean":
            old = None  # an update was cut short: what the files hold is not known
        if old is not None and old != tree:
            self._save(state="updating")
            try:
                written, removed = self._update(old, tree, sealed)
            except (GitError, OSError):
                old = None
        if old is None:
            self._start(tree, sealed_key)
            written, populated = self._fill(tree, sealed, 0), True
        self._set_head(head)
        self._keep_index()
        self._save(state="clean", tree=tree, head=head, sealed=sealed_key, pgid=None, done=None)
        return Moved(tree, populated, written, removed, time.monotonic() - started)

    def _intact(self) -> bool:
        """The checkout's repository is the one made here (a folder, not a link or a file a command put there)."""
        try:
            return all(stat.S_ISDIR(os.lstat(p).st_mode) for p in (self.work, self.dotgit, self.dotgit / "objects"))
        except OSError:
            return False

    def _start(self, tree: str, sealed_key: str) -> None:
        """An empty checkout whose index holds `tree` (no file written yet)."""
        self._save(state="populating", tree=None, sealed=sealed_key, done=0)
        (self.folder / "folders").unlink(missing_ok=True)
        if os.path.lexists(self.work):
            remove_tree(self.work)
        for sub in ("objects/info", "refs/heads", "refs/tags", "info"):
            (self.dotgit / sub).mkdir(parents=True, exist_ok=True)
        (self.dotgit / "objects" / "info" / "alternates").write_text(str(self.repo.commondir / "objects") + "\n")
        self._write_config()
        self._set_head(None)
        self._git("read-tree", tree)
        self._save(state="populating", tree=tree, done=0)

    def _fill(self, tree: str, sealed: Callable[[str], bool], done: int) -> int:
        """Write the files of the index (which holds `tree`) from the `done`-th on; how many were written."""
        listed = nul_split(self._git("ls-files", "-z"))
        hidden = [p for p in listed if sealed(p)]
        if hidden and done == 0:
            self._git("update-index", "-z", "--skip-worktree", "--stdin", input=nul_join(hidden))
        todo = [p for p in listed if not sealed(p)] if hidden else listed
        if done == 0:
            self._keep_folders(parents(todo), replace=True)
        written = 0
        while done < len(todo):
            if self.until is not None and time.monotonic() >= self.until:
                raise NotReady(
                    f"the shadow checkout is being written for the first time ({done:,} of {len(todo):,} files so far)"
                )
            chunk = todo[done : done + CHUNK]
            self._git("checkout-index", "--force", "-u", "-z", "--stdin", input=nul_join(chunk))
            done += len(chunk)
            written += len(chunk)
            self._save(state="populating", tree=tree, done=done)
        return written

    def _write_config(self) -> None:
        fmt = self.repo.config("extensions.objectformat")
        lines = ["[core]", f"\trepositoryformatversion = {1 if fmt else 0}", "\tbare = false", "\tlogallrefupdates = false"]
        for key in _COPIED:
            value = self.repo.config(key)
            if value is not None and "\n" not in value and '"' not in value and "\\" not in value:
                lines.append(f"\t{key.split('.', 1)[1]} = {value}")
        lines += [
            "\tsplitIndex = false",  # libgit2 cannot read a split index (see the module doc)
            "[index]",
            "\tversion = 4",
        ]  # paths prefix-compressed: a smaller file to read and write
        if fmt:
            lines += ["[extensions]", f"\tobjectformat = {fmt}"]
        put(self.dotgit / "config", ("\n".join(lines) + "\n").encode())

    def _set_head(self, head: str | None) -> None:
        # Detached at the user's HEAD commit: `git diff --staged` in the checkout shows what this result
        # adds to it, as the user's pre-commit hook would see it staged.
        put(self.dotgit / "HEAD", f"{head}\n".encode() if head else b"ref: refs/heads/main\n")

    def _update(self, old: str, new: str, sealed: Callable[[str], bool]) -> tuple[int, int]:
        if old == new:
            return 0, 0
        self._write_config()  # a command may have rewritten it (a filter of its own would run below)
        zero = "0" * len(new)
        gone: list[str] = []
        info: list[str] = []
        hidden: list[str] = []
        out: list[str] = []
        for c in self.repo.changed_files(old, new):
            if c.old_path and c.old_path != c.path:
                gone.append(c.old_path)
                info.append(f"0 {zero}\t{c.old_path}")
            if c.new is None:
                gone.append(c.path)
                info.insert(0, f"0 {zero}\t{c.path}")
                continue
            info.append(f"{c.new.mode:o} {c.new.oid}\t{c.path}")
            if sealed(c.path):
                hidden.append(c.path)
                gone.append(c.path)
            else:
                out.append(c.path)
        # Removals first, so a file may become a folder of the same name (and back).
        info.sort(key=lambda line: not line.startswith("0 "))
        if info:
            self._git("update-index", "-z", "--replace", "--index-info", input=nul_join(info))
        if hidden:
            self._git("update-index", "-z", "--skip-worktree", "--stdin", input=nul_join(hidden))
        for path in gone:
            remove_path(self.work, path)
        if out:
            self._keep_folders(parents(out))
            self._git("checkout-index", "--force", "-u", "-z", "--stdin", input=nul_join(out))
        return len(out), len(gone)

    def _keep_index(self) -> None:
        pristine = self.folder / "index.pristine"
        clear(pristine)
        try:
            os.link(self.dotgit / "index", pristine)
        except OSError:
            shutil.copyfile(self.dotgit / "index", pristine)

    # ------------------------------------------------------------------ after commands ran

    def settle(self) -> Left:
        """Put the checkout back to the tree it held before commands ran, and say what they had
        changed: the index as written here, tracked files as in it, files neither tracked nor ignored
        removed (ignored ones stay: caches such as .mypy_cache or __pycache__ make the next run faster).
        Only the paths the watch saw touched are looked at, when it saw everything (``watch.py``)."""
        touched = self._watch.touched() if self._watch is not None else None
        self._unwatch()
        if touched is not None and any(linked(self.work / p) for p in touched.files):
            # A file with a second name: a write through one name is an event for that name only, so
            # the other's change went unseen.  Ask git about everything.
            touched = None
        st = self.state()
        count = st.get("settled")
        count = count + 1 if isinstance(count, int) and count >= 0 else 1
        if count % WALK_EVERY == 0:
            touched = None  # now and then, what no watch can see (a link from outside; see watch.py)
        if not self._intact():
            raise GitError(f"the shadow checkout {self.work} was taken apart by a command")
        self._put_back_index()
        self._write_config()
        head = st.get("head")
        self._set_head(head if isinstance(head, str) else None)  # a command may have committed, or checked out
        # A command's own ignore rules never hide what it made.
        info = self.dotgit / "info"
        clear(info / "exclude" if is_folder(info) else info)  # a link is not followed: what it names is not ours
        paths = touched.paths() if touched is not None else None
        if paths is not None and len(paths) > _MANY_PATHS:
            paths = None  # as many as that: asking about each costs more than one walk
        changed, made = self._left(paths)
        for path in made:
            remove_path(self.work, path.rstrip("/"), prune=False)
        if changed:
            self._git("checkout-index", "--force", "-u", "-z", "--stdin", input=nul_join(changed))
            self._keep_index()
        self._save(state="clean", pgid=None, settled=count)
        return Left(tuple(changed), tuple(p.rstrip("/") for p in made), paths is None)

    def _left(self, paths: list[str] | None) -> tuple[list[str], list[str]]:
        """What git says commands left among `paths` (None: the whole checkout): tracked files that
        differ from the index, and files neither tracked nor ignored."""
        if paths == []:
            return [], []
        spec = [] if paths is None else ["--", *paths]
        changed = self._git("--literal-pathspecs", "diff-files", "--name-only", "--no-renames", "-z", *spec)
        made = self._git("--literal-pathspecs", "ls-files", "--others", "--directory", "--exclude-standard", "-z", *spec)
        return nul_split(changed), nul_split(made)

    def _put_back_index(self) -> None:
        pristine = self.folder / "index.pristine"
        index = self.dotgit / "index"
        try:
            same = os.stat(pristine).st_ino == os.stat(index).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            if not pristine.exists():
                raise GitError(f"the shadow checkout {self.work} has lost its index")
            tmp = self.dotgit / f"index.{os.getpid()}.tmp"
            clear(tmp)
            shutil.copyfile(pristine, tmp)
            rename_over(tmp, index)
            self._keep_index()

    # ------------------------------------------------------------------ running git

    def _plumbing_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k == "GIT_EXEC_PATH"}
        env.update(
            GIT_DIR=str(self.dotgit),
            GIT_WORK_TREE=str(self.work),
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
            GIT_OPTIONAL_LOCKS="0",
        )
        return env

    def _user_env(self, index: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k == "GIT_EXEC_PATH"}
        env.update(
            GIT_DIR=str(self.repo.gitdir),
            GIT_INDEX_FILE=str(index),
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
        )
        return env

    def _git(self, *args: str, input: bytes | None = None) -> bytes:
        return self._run(list(args), env=self._plumbing_env(), cwd=self.work, input=input).stdout

    def _run(
        self, args: list[str], env: dict[str, str], cwd: Path, input: bytes | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            proc = subprocess.run(
                ["git", *args],
                cwd=cwd,
                env=env,
                input=input,
                capture_output=True,
                timeout=_TIMEOUT,
                check=False,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} in the shadow checkout did not finish within {_TIMEOUT} s") from None
        except OSError as exc:
            raise GitError(f"cannot run git {args[0]}: {exc.strerror}") from None
        if check and proc.returncode != 0:
            said = proc.stderr.decode("utf-8", "replace").strip()[-2000:]
            raise GitError(f"git {args[0]} in the shadow checkout {self.work} failed: {said}")
        return proc
