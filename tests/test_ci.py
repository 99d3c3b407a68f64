""".ci/run: the README's test command, under a PATH where only this venv's agent-guard is found."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import BIN, command, command_env
from readme import blocks

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("agent-guard", "git-agent-apply", "git-agent-check", "git-agent-log", "git-agent-rollback", "git-agent-read")


def _test_command() -> str:
    # The set-up's second command: a block of one line (the Development section's block lists it among others).
    said = [b.text.strip() for b in blocks() if b.lang == "sh"]
    [found] = [t for t in said if t.startswith(".venv/bin/python -m pytest") and "\n" not in t]
    return found


def test_ci_runs_exactly_the_readmes_test_command_then_the_rest() -> None:
    command_line = _test_command()
    assert command_line == ".venv/bin/python -m pytest -m 'not system'"
    script = (ROOT / ".ci" / "run").read_text()
    runs = [ln for ln in script.splitlines() if ".venv/bin/python -m pytest" in ln and not ln.lstrip().startswith("#")]
    # The README's command, then the tier it leaves out: together, every test.
    assert runs == [f'PATH="$tests_path" {command_line}', 'PATH="$tests_path" .venv/bin/python -m pytest -m system'], runs
    assert "install .venv python3 test,lint" in script  # the README's extra, and what CI lints with
    assert '"$1/bin/pip" install -q ".[$3]"' in script


def _clean_path(tmp_path: Path, path: str) -> tuple[str, str]:
    proc = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "clean_path.py"), str(tmp_path / "shadow")],
        env=dict(os.environ, PATH=path),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return proc.stdout.strip(), proc.stderr


def test_ci_path_hides_every_other_agent_guard(tmp_path: Path) -> None:
    # An earlier install next to other programs (as `pip install` as root leaves /usr/local/bin).
    earlier = tmp_path / "earlier-install"
    earlier.mkdir()
    for name in (*COMMANDS, "some-tool"):
        (earlier / name).write_text("#!/bin/sh\nexit 0\n")
        (earlier / name).chmod(0o755)
    git_dir = str(
        Path(
            subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, timeout=60, check=True).stdout.strip()
        ).parent
    )
    path, said = _clean_path(tmp_path, os.pathsep.join([str(earlier), str(BIN), git_dir]))
    for name in COMMANDS:
        found = subprocess.run(
            ["sh", "-c", f"command -v {name}"], env=dict(os.environ, PATH=path), capture_output=True, timeout=60
        )
        assert found.returncode != 0, (name, found.stdout)
    for name in ("some-tool", "git"):
        assert (
            subprocess.run(
                ["sh", "-c", f"command -v {name}"], env=dict(os.environ, PATH=path), capture_output=True, timeout=60
            ).returncode
            == 0
        ), name
    assert f"hiding {', '.join(sorted(COMMANDS))} in {earlier} from the tests" in said
    assert str(BIN) not in path.split(os.pathsep)


def test_commands_run_from_this_environment(repo) -> None:  # type: ignore[no-untyped-def]
    # Without the venv's bin on PATH, `git agent-check` is "not a git command" on a fresh machine.
    for name in COMMANDS:
        assert (BIN / name).is_file(), f"{name} is not installed in {BIN}: pip install -e '.[test]'"
    path = command_env()["PATH"].split(os.pathsep)
    assert path[0] == str(BIN)
    proc = command(repo.root, "git", "agent-check", "--json")
    assert proc.returncode == 0 and b'"status": "checked"' in proc.stdout, proc


def test_every_file_the_package_ships_is_in_the_checkout() -> None:
    """pyproject.toml's package data and data files name files that exist: a missing one
    (the `py.typed` the package data named but nobody had written) is silently left out."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    settings = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    named = [f"guard/{p}" for p in settings["package-data"]["guard"]]
    named += [p for files in settings["data-files"].values() for p in files]
    for pattern in named:
        assert list(root.glob(pattern)), f"pyproject.toml ships {pattern}, which the checkout does not have"
    assert (root / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "hooks/claude-code-settings.json" in settings["data-files"]["share/agent-guard"]


def test_test_files_the_docs_name_exist() -> None:
    """README, bench notes and docstrings point readers at test files: each must be there (files
    move when the tests are regrouped)."""
    import re

    root = Path(__file__).resolve().parents[1]
    docs = [root / "README.md", *root.glob("docs/*.md"), root / "CONTRIBUTING.md", root / "bench" / "README.md"]
    docs += [*root.glob("bench/*.py"), *root.glob("guard/**/*.py")]
    named = {m for doc in docs for m in re.findall(r"tests/[A-Za-z0-9_/]+\.py", doc.read_text(encoding="utf-8"))}
    assert named  # the pattern still finds what the docs say
    assert sorted(p for p in named if not (root / p).exists()) == []


def test_ci_legs_start_at_the_oldest_python_supported() -> None:
    """.ci/run's Pythons and the GitHub workflow's matrix begin where requires-python does, and
    .ci/run finds the pygit2 pin it installs the lowest of."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    oldest = project["requires-python"].removeprefix(">=")
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    [pythons] = re.findall(r'^PYTHONS="([0-9. ]+)"$', script, re.M)
    assert pythons.split()[0] == oldest
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    listed = ", ".join(f'"{v}"' for v in pythons.split())
    assert f"python: [{listed}]" in workflow
    [pin] = [d for d in project["dependencies"] if d.startswith("pygit2")]
    assert re.fullmatch(r"pygit2>=[0-9.]+,<[0-9.]+", pin), pin  # the shape .ci/run's sed reads
