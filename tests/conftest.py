"""Real git repositories in tmp_path, with the user's git configuration shut out."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from guard.tree.worktree import journal_pending  # noqa: F401  (the tests' way to ask: is a write unfinished?)

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_TERMINAL_PROMPT": "0",
    # No `git maintenance run --auto` after each commit, merge and push (git -c, through the
    # environment): a second git process per commit, 4.5 ms of a commit's 8.7 ms here.
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
}


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: without the plugin (`-p no:xdist`) it is never asked
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """The workers `-n auto` (the suite's addopts) starts: one per core this process may run on,
    and one more.  About a sixth of a worker's time is spent waiting rather than computing: on the
    processes its tests start (git, agent-guard's commands, pip building pre-commit's environment),
    on the deadlines the fail-closed and verify tests wait out, on servers starting.  The extra
    worker runs tests in that time.  PYTEST_XDIST_AUTO_NUM_WORKERS still decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    return cores + 1


_FOLDERS = itertools.count()


def fresh_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A new empty folder `NAME-N` in this test process's base temporary folder.

    pytest's `mktemp` finds the next number by listing the whole base folder, which holds two
    folders per test run so far (thousands by the end of a worker's run: ~3 ms a listing, two per
    test, ~20 s of CPU in a full run); a count kept by the process needs none."""
    base = tmp_path_factory.getbasetemp()
    while True:
        path = base / f"{name}-{next(_FOLDERS)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's `tmp_path` (a new empty folder named for the test), made by `fresh_folder`."""
    return fresh_folder(tmp_path_factory, re.sub(r"[\W]", "_", request.node.name)[:30])


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = fresh_folder(tmp_path_factory, "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # parsed policies are kept there
    # The user's `agent-guard serve` socket lives there: a hook in a test asks no server but the test's own.
    run = home / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("AGENT_GUARD_AGENT", "AGENT_GUARD_TURN", "AGENT_GUARD_POLICY", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(key, raising=False)
    # The children a test starts (`python -m guard`, the console scripts, hooks) import agent-guard
    # from this checkout. With PYTHONDONTWRITEBYTECODE set (as in this sandbox, whose clone has no
    # __pycache__) each compiled every module again: ~0.2 s of CPU per child, a third of the suite.
    # They share one bytecode cache for the run instead, outside the checkout; Python checks each
    # cached file against its source's mtime and size as it does in __pycache__.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(run_folder(tmp_path_factory) / "pycache"))
    # libgit2 fixes its config search path on first use: point it at the empty home too.
    import pygit2

    empty = home / "no-config"
    empty.mkdir(exist_ok=True)
    for level in (pygit2.enums.ConfigLevel.GLOBAL, pygit2.enums.ConfigLevel.XDG, pygit2.enums.ConfigLevel.SYSTEM):
        pygit2.settings.search_path[level] = str(empty)


class Hung(BaseException):
    """What `alarm` raises by default: a BaseException, so no `except OSError` (an interrupted
    blocking call) or `except Exception` in the code under test can take it for an answer."""


@contextmanager
def alarm(seconds: int, message: str, error: type[BaseException] = Hung) -> Iterator[None]:
    """Raise `error(message)` in this process if the block runs `seconds` (SIGALRM: the main
    thread only; a blocking system call such as an open() on a FIFO is interrupted too)."""

    def stop(signum: int, frame: object) -> None:
        raise error(message)

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def git(cwd: Path, *args: str, input: bytes | None = None, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, timeout=60, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", errors="replace")


# Where pip put this environment's console scripts (`agent-guard`, `git-agent-apply`...).
# The README's test command does not activate the venv, so nothing puts it on PATH:
# a child that starts a command by name must be given it (`command_env`), or it finds
# some other install, or none (`.ci/run` hides every other one to catch that).
BIN = Path(sysconfig.get_path("scripts"))


def command_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a child that starts agent-guard's commands by name (`git agent-check`,
    `agent-guard`, a hook): this environment's console scripts first on PATH."""
    env = dict(os.environ)
    env.update(extra or {})
    env["PATH"] = str(BIN) + os.pathsep + env.get("PATH", os.defpath)
    return env


def checkout_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """`command_env`, with this checkout first on Python's import path too (for child processes)."""
    root = str(Path(__file__).resolve().parents[1])
    extra = dict(extra or {})
    path = extra.pop("PYTHONPATH", None) or root + os.pathsep + os.environ.get("PYTHONPATH", "")
    if extra.get("AGENT_GUARD_CRASH_AT"):
        path = CRASHPOINTS + os.pathsep + path  # the hook that kills the child there (not in the package)
    return command_env({**extra, "PYTHONPATH": path})


CRASHPOINTS = str(Path(__file__).resolve().parent / "crashpoints")


def python(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python ARGS` in `cwd`, importing this checkout, with text output (bounded in time)."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=checkout_env(env), timeout=120, check=False
    )


def guard(
    cwd: Path, *args: str, input: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """`python -m guard ARGS` in `cwd`: agent-guard from this checkout in a child process (bounded in time)."""
    return subprocess.run(
        [sys.executable, "-m", "guard", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=checkout_env(env),
        timeout=timeout,
        check=False,
    )


def command(
    cwd: Path, *args: str, input: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """`ARGS` (`git agent-check ...`, `git commit`, `agent-guard ...`) in `cwd`, as a user's shell
    runs it, with this checkout's commands first on PATH (bounded in time)."""
    return subprocess.run(
        list(args), cwd=cwd, input=input, capture_output=True, env=checkout_env(env), timeout=timeout, check=False
    )


_TEMPLATE: list[Path] = []  # the `.git` that `Repo` copies (set once per test process below)


@pytest.fixture(scope="session", autouse=True)
def empty_git_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What `git init -q -b main` writes, made once per test process, for `Repo` to copy.

    git's sample hooks (`hooks/*.sample`) and `description` are left out (git reads neither):
    15 of the ~50 files a small test leaves, written and deleted again for some 4000 repositories."""
    made = tmp_path_factory.mktemp("git-init")
    env = {**os.environ, **GIT_ENV, "HOME": str(made), "XDG_CONFIG_HOME": str(made / ".config")}
    subprocess.run(["git", "init", "-q", "-b", "main", "repo"], cwd=made, env=env, capture_output=True, timeout=60, check=True)
    dot_git = made / "repo" / ".git"
    for sample in (dot_git / "hooks").glob("*.sample"):
        sample.unlink()
    (dot_git / "description").unlink(missing_ok=True)
    _TEMPLATE.append(dot_git)
    yield
    _TEMPLATE.remove(dot_git)


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of this whole run: pytest's base temporary folder, or with pytest-xdist the one
    above each worker's own (what the workers share)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def run_lock(tmp_path_factory: pytest.TempPathFactory, name: str, timeout: float = 900) -> Iterator[None]:
    """Held by one test process of the run at a time (pytest-xdist's workers take turns): for what
    is built once per run and shared.  Gives up after `timeout` seconds."""
    import fcntl

    with open(run_folder(tmp_path_factory) / f"{name}.lock", "w") as held:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"waited {timeout} s for the lock on {name}", pytrace=False)
                time.sleep(0.2)
        yield


@pytest.fixture(scope="session")
def package_caches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pip's and virtualenv's caches for the tests that build a package environment (pre-commit's
    hook environments): one for the whole run, shared by pytest-xdist's workers too.  Each test's
    own HOME would give each build empty ones: everything downloaded and unpacked again."""
    base = run_folder(tmp_path_factory)
    caches = {"PIP_CACHE_DIR": base / "pip-cache", "VIRTUALENV_OVERRIDE_APP_DATA": base / "virtualenv-app-data"}
    for folder in caches.values():
        folder.mkdir(exist_ok=True)
    return {name: str(folder) for name, folder in caches.items()}


class Repo:
    """A scratch repository: write files, commit them, snapshot the tree."""

    def __init__(self, root: Path) -> None:
        self.root = root
        if _TEMPLATE and root.is_dir() and not os.path.lexists(root / ".git"):
            shutil.copytree(_TEMPLATE[0], root / ".git", symlinks=True)  # `git init`, without a process
        else:
            git(root, "init", "-q", "-b", "main")

    def write(self, files: dict[str, bytes | str]) -> None:
        for name, content in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode() if isinstance(content, str) else content)

    def commit(self, files: dict[str, bytes | str] | None = None, message: str = "commit") -> str:
        if files:
            self.write(files)
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        """HEAD's commit id: read from the git dir (the ref a commit just wrote is a loose file),
        or from `git rev-parse` when it is anywhere else."""
        gitdir = self.root / ".git"
        try:
            head = (gitdir / "HEAD").read_text()
            if head.startswith("ref: refs/"):
                head = (gitdir / head[5:].strip()).read_text()
        except (OSError, UnicodeDecodeError):
            head = ""
        head = head.strip()
        if _OID.fullmatch(head):
            return head
        return git(self.root, "rev-parse", "HEAD").strip()

    def git(self, *args: str, check: bool = True) -> str:
        return git(self.root, *args, check=check)

    def read(self, name: str) -> bytes:
        return (self.root / name).read_bytes()

    def snapshot(self) -> dict[str, object]:
        """Every file under the work tree (bytes and mode), the index file, HEAD and refs."""
        files: dict[str, object] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            if ".git" in dirnames:
                dirnames.remove(".git")
            for f in filenames:
                p = Path(dirpath) / f
                rel = p.relative_to(self.root).as_posix()
                files[rel] = (p.read_bytes() if not p.is_symlink() else b"->" + os.readlink(p).encode(), p.lstat().st_mode)
        gitdir = self.root / ".git"
        index = gitdir / "index"
        files["<index>"] = index.read_bytes() if index.exists() else None
        files["<HEAD>"] = (gitdir / "HEAD").read_bytes()
        refs = _refs(gitdir)
        if refs is None:
            refs = git(self.root, "for-each-ref", "--format=%(refname) %(objectname)", check=False)
        files["<refs>"] = refs
        return files


def _refs(gitdir: Path) -> str | None:
    """What `git for-each-ref --format='%(refname) %(objectname)'` prints, read from the ref files
    (a loose ref over its packed line; a symbolic ref as the id it leads to), or None for anything
    this does not read as git does (a linked worktree's git dir, an odd line): ask git then."""
    if (gitdir / "commondir").exists():
        return None
    found = _packed_refs(gitdir)
    loose = _loose_refs(gitdir)
    if found is None or loose is None:
        return None
    links = {name: text[5:] for name, text in loose.items() if text.startswith("ref: refs/")}
    found.update((name, text) for name, text in loose.items() if name not in links)
    for name, target in links.items():
        for _ in range(5):
            target = links.get(target, target)
        if target not in found:
            return None
        found[name] = found[target]
    return "".join(f"{name} {found[name]}\n" for name in sorted(found, key=os.fsencode))


_OID = re.compile(r"[0-9a-f]{40}")


def _packed_refs(gitdir: Path) -> dict[str, str] | None:
    try:
        packed = (gitdir / "packed-refs").read_text()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError):
        return None
    found: dict[str, str] = {}
    for line in packed.splitlines():
        if not line or line[0] in "#^":
            continue
        oid, _, name = line.partition(" ")
        if not _OID.fullmatch(oid) or not name.startswith("refs/"):
            return None
        found[name] = oid
    return found


def _loose_refs(gitdir: Path) -> dict[str, str] | None:
    """Each loose ref file under refs/: an id or `ref: TARGET`; None for anything else."""
    found: dict[str, str] = {}
    for dirpath, _dirnames, filenames in os.walk(gitdir / "refs"):
        for f in filenames:
            name = (Path(dirpath) / f).relative_to(gitdir).as_posix()
            if f.endswith(".lock"):
                continue  # not a ref to git either
            if any(part.startswith(".") for part in name.split("/")):
                return None  # a name git refuses: whatever it makes of it, it says
            try:
                text = (gitdir / name).read_text().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not (_OID.fullmatch(text) or text.startswith("ref: refs/")):
                return None
            found[name] = text
    return found


def conflicted(repo: Repo) -> None:
    """Leave `repo` in a merge stopped on a conflict in a.txt (unmerged index entries)."""
    repo.commit({"a.txt": "a\n"})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit({"a.txt": "side\n"})
    repo.git("checkout", "-q", "main")
    repo.commit({"a.txt": "main\n"})
    repo.git("merge", "side", check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repo]:
    root = tmp_path / "repo"
    root.mkdir()
    yield Repo(root)


class Result:
    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code = code
        self.stdout = stdout.decode("utf-8", errors="replace")
        self.stderr = stderr.decode("utf-8", errors="replace")

    def json(self) -> dict[str, object]:
        import json

        return json.loads(self.stdout)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Result(code={self.code}, stdout={self.stdout[:2000]!r}, stderr={self.stderr[:2000]!r})"


def run_cli(cwd: Path, *args: str, input: bytes | str | None = None, env: dict[str, str] | None = None) -> Result:
    """Run `agent-guard ARGS` in-process from `cwd`, as the console script would."""
    from click.testing import CliRunner

    from guard.cli.commands import main

    old = os.getcwd()
    os.chdir(cwd)
    try:
        runner = CliRunner()
        with runner.isolation(input=input, env=env) as streams:
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            out, err = streams[0].getvalue(), streams[1].getvalue()
    finally:
        os.chdir(old)
    return Result(code, out, err)


@pytest.fixture
def cli(repo: Repo):  # type: ignore[no-untyped-def]
    def call(*args: str, input: bytes | str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
        return run_cli(cwd or repo.root, *args, input=input, env=env)

    return call
