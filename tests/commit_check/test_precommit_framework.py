"""The `agent-guard` hook driven by the real pre-commit framework.

The hook repository is a snapshot of this checkout (its tracked and untracked,
not ignored files) committed to a scratch repository, so the test judges the code
as it stands, committed or not.  pre-commit builds the hook's environment from it
with `pip install .` (our dependencies come from the package index); that
environment is built once per run, in a PRE_COMMIT_HOME shared by the tests here
(and by pytest-xdist's workers, which take turns building it), and reused; builds
share pip's and virtualenv's caches.  Every test here uses that one environment.  None drives
`pre-commit try-repo`: it builds a new environment in a temporary store of its own each time (about
13 s of CPU), and runs the same manifest and hook as a config that points at the snapshot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from conftest import GIT_ENV, Repo, run_folder, run_lock

pytestmark = [pytest.mark.slow, pytest.mark.system]  # the system tier: pyproject.toml's markers

ROOT = Path(__file__).resolve().parents[2]
# Building the hook's environment installs packages: give it time, but not forever.
TIMEOUT = 600

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
LAZY = "def total(items):\n    # ... rest of the code unchanged\n"


def _source_files() -> list[str]:
    proc = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, timeout=60
    )
    if proc.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: cannot snapshot it as a hook repository")
    return sorted({name for name in proc.stdout.decode().split("\0") if name})


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_symlink():
        os.symlink(os.readlink(src), dst)
    elif src.is_file():
        shutil.copy2(src, dst)


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A committed snapshot of this checkout: (path, commit); one for the run (its workers share it)."""
    dest = run_folder(tmp_path_factory) / "hook-repo"
    made = dest.with_name("hook-repo.rev")  # written last: the snapshot is whole
    with run_lock(tmp_path_factory, "hook-repo"):
        if not made.is_file():
            dest.mkdir()
            made.write_text(_snapshot(dest))
    return dest, made.read_text()


def _snapshot(dest: Path) -> str:
    for name in _source_files():
        if os.path.lexists(ROOT / name):
            _copy(ROOT / name, dest / name)
    env = {**os.environ, **GIT_ENV, "HOME": str(dest)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, capture_output=True, timeout=120)
    return (
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, env=env, check=True, capture_output=True, timeout=60)
        .stdout.decode()
        .strip()
    )


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = run_folder(tmp_path_factory) / "pre-commit-home"  # pre-commit locks its store itself
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture
def env(pre_commit_home: Path, package_caches: dict[str, str]) -> Iterator[dict[str, str]]:
    out = dict(os.environ, **package_caches, PRE_COMMIT_HOME=str(pre_commit_home), PRE_COMMIT_COLOR="never")
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT", "GIT_INDEX_FILE", "AGENT_GUARD_POLICY"):
        out.pop(key, None)
    yield out


def run(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def pre_commit(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run(cwd, env, sys.executable, "-m", "pre_commit", *args)


def _config(hook_repo: tuple[Path, str], extra: str = "") -> str:
    path, rev = hook_repo
    return f"repos:\n  - repo: {path}\n    rev: {rev}\n    hooks:\n      - id: agent-guard\n{extra}"


@pytest.fixture(scope="session")
def hook_env(
    hook_repo: tuple[Path, str], pre_commit_home: Path, package_caches: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The hook's environment, built once: a failure here is this checkout failing to install."""
    scratch = tmp_path_factory.mktemp("install")
    env = {**os.environ, **GIT_ENV, **package_caches, "HOME": str(scratch), "PRE_COMMIT_HOME": str(pre_commit_home)}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=scratch, env=env, check=True, timeout=60)
    (scratch / ".pre-commit-config.yaml").write_text(_config(hook_repo))
    with run_lock(tmp_path_factory, "pre-commit-home"):  # a second worker finds it built
        proc = run(scratch, env, sys.executable, "-m", "pre_commit", "install-hooks")
    if proc.returncode != 0:
        log = pre_commit_home / "pre-commit.log"
        detail = log.read_text(errors="replace") if log.exists() else _out(proc)
        errors = [ln for ln in detail.splitlines() if "error" in ln.lower()][-15:]
        pytest.fail(
            "pre-commit could not install the hook from this checkout (`pip install .` failed):\n" + "\n".join(errors),
            pytrace=False,
        )


@pytest.fixture
def project(repo: Repo, hook_repo: tuple[Path, str], hook_env: None, env: dict[str, str]) -> Repo:
    """A repository that uses the hook through its .pre-commit-config.yaml, hooks installed."""
    repo.commit({"app.py": CODE, ".pre-commit-config.yaml": _config(hook_repo)}, message="start")
    installed = pre_commit(repo.root, env, "install")
    assert installed.returncode == 0, _out(installed)
    return repo


def _out(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def test_commit_with_placeholder_is_blocked_and_clean_commit_passes(project: Repo, env: dict[str, str]) -> None:
    start = project.git("rev-parse", "HEAD").strip()
    project.write({"app.py": LAZY})
    project.git("add", "app.py")
    blocked = run(project.root, env, "git", "commit", "-m", "lazy")
    assert blocked.returncode != 0, _out(blocked)
    assert "agent-guard" in _out(blocked) and "Failed" in _out(blocked)
    assert "app.py:2: placeholder: the added line '# ... rest of the code unchanged'" in _out(blocked)
    assert project.git("rev-parse", "HEAD").strip() == start

    project.write({"app.py": CODE.replace("return result", "return result + 0")})
    project.git("add", "app.py")
    passed = run(project.root, env, "git", "commit", "-m", "fine")
    assert passed.returncode == 0, _out(passed)
    assert "agent-guard" in _out(passed) and "Passed" in _out(passed)
    assert project.git("rev-parse", "HEAD").strip() != start


def test_range_run_in_ci_reports_the_bad_commit(project: Repo, env: dict[str, str]) -> None:
    base = project.git("rev-parse", "HEAD").strip()
    project.write({"app.py": LAZY})
    project.git("add", "app.py")
    assert run(project.root, env, "git", "commit", "-q", "--no-verify", "-m", "lazy edit").returncode == 0
    bad = project.git("rev-parse", "HEAD").strip()
    # The final state is fine: the hook passes it.  (With `env`: pre-commit's store there holds the
    # hook's environment; the caller's own PRE_COMMIT_HOME would be empty, and built again: 50 s.)
    project.write({"app.py": CODE + "\n\nLIMIT = 3\n"})
    project.git("add", "app.py")
    restored = run(project.root, env, "git", "commit", "-q", "-m", "restore and extend")
    assert restored.returncode == 0, _out(restored)
    ci_env = dict(env, CI="true")
    result = pre_commit(project.root, ci_env, "run", "--from-ref", base, "--to-ref", "HEAD", "--show-diff-on-failure")
    assert result.returncode == 1, _out(result)
    out = _out(result)
    assert "app.py:2: placeholder:" in out and f"(in commit {bad[:10]} 'lazy edit')" in out
    assert f"2 commits of {base[:10]}..HEAD: 1 error" in out
    # The same range on push, and the files as they now stand (clean) with --all-files.
    pushed = pre_commit(project.root, ci_env, "run", "--hook-stage", "pre-push", "--from-ref", base, "--to-ref", "HEAD")
    assert pushed.returncode == 1 and f"(in commit {bad[:10]} 'lazy edit')" in _out(pushed)
    whole = pre_commit(project.root, ci_env, "run", "--all-files")
    assert whole.returncode == 0, _out(whole)
    # Manual stage, limited by the file arguments pre-commit passes.
    manual = pre_commit(project.root, ci_env, "run", "--hook-stage", "manual", "--files", "app.py")
    assert manual.returncode == 0, _out(manual)


def test_all_files_checks_every_tracked_file(project: Repo, env: dict[str, str]) -> None:
    project.write({"old.py": LAZY})
    project.git("add", "old.py")
    assert run(project.root, env, "git", "commit", "-q", "--no-verify", "-m", "legacy").returncode == 0
    result = pre_commit(project.root, env, "run", "--all-files")
    assert result.returncode == 1, _out(result)
    assert "old.py:2: placeholder:" in _out(result)
    assert "3 tracked files, checked whole" in _out(result)


def test_policy_from_args_and_repository_file(project: Repo, env: dict[str, str], hook_repo: tuple[Path, str]) -> None:
    project.write({"app.py": CODE.replace("return result", "return result  ")})
    project.git("add", "app.py")
    # Default policy: whitespace is `fix`, so a commit reports a warning and passes.
    assert pre_commit(project.root, env, "run").returncode == 0
    config = _config(hook_repo, "        args: [--policy, strict]\n")
    project.write({".pre-commit-config.yaml": config})
    project.git("add", ".pre-commit-config.yaml")
    strict = pre_commit(project.root, env, "run")
    assert strict.returncode == 1 and "app.py:5: whitespace:" in _out(strict)
    # The repository's own .agent-guard.yaml, as committed, is the policy when no --policy is given.
    project.write(
        {
            ".pre-commit-config.yaml": config.replace("        args: [--policy, strict]\n", ""),
            ".agent-guard.yaml": "checks:\n  whitespace: error\n",
        }
    )
    project.git("add", "-A")
    project.git("commit", "-q", "--no-verify", "-m", "the policy", "--", ".pre-commit-config.yaml", ".agent-guard.yaml")
    own = pre_commit(project.root, env, "run")
    assert own.returncode == 1 and "app.py:5: whitespace:" in _out(own)


def test_installed_package_ships_the_presets(project: Repo, env: dict[str, str], pre_commit_home: Path) -> None:
    # The hook's environment is a plain `pip install .` of this checkout: every preset of
    # policies/ must load there by name (they ship as guard/policies/*.yaml package data).
    installed = sorted(pre_commit_home.glob("repo*/py_env-*/bin/agent-guard"))
    assert installed, f"no agent-guard in the hook environments under {pre_commit_home}"
    presets = sorted(p.stem for p in (ROOT / "policies").glob("*.yaml"))
    assert presets == ["default", "permissive", "strict"]
    for name in presets:
        shown = run(project.root, env, str(installed[0]), "policy", "show", "--policy", name)
        assert shown.returncode == 0 and shown.stdout.startswith("# effective policy: "), _out(shown)


def test_whitespace_warnings_show_when_the_hook_passes(project: Repo, env: dict[str, str]) -> None:
    # `whitespace: fix` (the default) never fails a commit, so its warnings must show on a pass.
    project.write({"app.py": CODE.replace("return result", "return result  ")})
    project.git("add", "app.py")
    passed = run(project.root, env, "git", "commit", "-m", "trailing blanks")
    assert passed.returncode == 0, _out(passed)
    assert "Passed" in _out(passed)
    assert "app.py:5: whitespace: trailing whitespace (blank-at-eol) in the added line '    return result··'" in _out(passed)
    # A clean commit says nothing beyond pre-commit's own lines.
    project.write({"app.py": CODE.replace("return result", "return result + 0")})
    project.git("add", "app.py")
    clean = run(project.root, env, "git", "commit", "-m", "clean")
    assert clean.returncode == 0 and "Passed" in _out(clean) and "agent-guard check" not in _out(clean), _out(clean)


def test_markdown_line_breaks_pass_and_other_trailing_blanks_warn(project: Repo, env: dict[str, str]) -> None:
    project.write({"README.md": "# Notes\nfirst line  \nsecond line\n", "notes.txt": "first line  \n"})
    project.git("add", "README.md", "notes.txt")
    result = run(project.root, env, "git", "commit", "-q", "-m", "notes")
    assert result.returncode == 0, _out(result)
    assert "README.md" not in _out(result)
    assert "notes.txt:1: whitespace: trailing whitespace (blank-at-eol)" in _out(result)


def test_all_files_checks_each_named_file_whole_even_when_staged(project: Repo, env: dict[str, str]) -> None:
    # A placeholder already committed (hooks skipped), then a clean staged change to the same file:
    # `run --all-files` checks the file whole, as the README says, and finds the old placeholder.
    project.write({"app.py": LAZY})
    project.git("add", "app.py")
    assert run(project.root, env, "git", "commit", "-q", "--no-verify", "-m", "legacy").returncode == 0
    project.write({"app.py": LAZY + "\n\nLIMIT = 3\n", "other.py": "x = 1\n"})
    project.git("add", "app.py", "other.py")
    whole = pre_commit(project.root, env, "run", "--all-files")
    assert whole.returncode == 1, _out(whole)
    assert "app.py:2: placeholder:" in _out(whole) and "3 tracked files, checked whole" in _out(whole)
    # The commit itself judges the staged change: the clean addition passes.
    committed = run(project.root, env, "git", "commit", "-m", "extend")
    assert committed.returncode == 0, _out(committed)
