"""Behaviour pinned by case folders: one parametrised test over tests/cases/<name>/.

A case folder holds, as plain files (a reviewer reads them; bytes are exact):

- ``before/``      the tree committed into a fresh repository (absent: one empty commit);
- ``uncommitted/`` optional files written after that commit (an agent editing on top of
  uncommitted work, or a file git does not track);
- ``input``        the edit, byte for byte, fed to ``agent-guard apply --json`` on stdin;
- ``args``         optional extra CLI arguments, one per line (``--format`` / ``codex``);
- then either ``after/`` (the expected work tree, byte for byte and exec bit, .git excluded)
  with an optional ``repairs`` file (repair names, one per line; absent or empty means
  the edit needed none), or ``error`` (finding codes, one per line, each of which must be
  among the refusal's error findings).

An applied case must also leave HEAD, the index file and every branch alone, move the
agent's shadow ref to the reported turn commit, and report a ``diff`` that is a valid
patch of what was written (``git apply --check -R`` on the resulting tree).  A refused
case must leave the repository byte for byte as it was: work tree, index, HEAD, refs.

A bug report becomes a new folder here.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, Result

CASES = Path(__file__).resolve().parent / "cases"
PREFIXES = ("unified-", "codex-", "sr-", "json-", "whole-", "contam-", "md-")
_KNOWN = {"before", "uncommitted", "input", "args", "after", "repairs", "error"}


def _names() -> list[str]:
    if not CASES.is_dir():
        return []
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


def _executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


def _copy_tree(src: Path, dest: Path) -> None:
    for path in sorted(src.rglob("*")):
        if path.is_dir():
            continue
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
        mode = 0o755 if _executable(path) else 0o644
        os.chmod(target, mode)


def _tree(root: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under root but .git: content and exec bit."""
    out: dict[str, tuple[bytes, bool]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames and Path(dirpath) == root:
            dirnames.remove(".git")
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = (path.read_bytes(), _executable(path))
    return out


def _branches(repo: Repo) -> str:
    return repo.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags")


def _shadow_refs(snapshot: dict[str, object]) -> set[str]:
    refs = str(snapshot["<refs>"]).splitlines()
    return {ln for ln in refs if ln.startswith("refs/agent-guard/")}


def _error_codes(report: dict[str, object]) -> list[str]:
    findings = report.get("findings") or []
    assert isinstance(findings, list)
    return [f["code"] for f in findings if f.get("severity") == "error"]


def _layout(case: Path) -> None:
    """The folder is a well-formed case (a typo in a file name must not pass silently)."""
    entries = {p.name for p in case.iterdir()}
    unknown = entries - _KNOWN
    assert not unknown, f"{case.name}: unknown entries {sorted(unknown)}; allowed: {sorted(_KNOWN)}"
    assert (case / "input").is_file(), f"{case.name}: no input file"
    assert (case / "after").is_dir() != (case / "error").is_file(), f"{case.name}: give exactly one of after/ or error"
    if (case / "error").is_file():
        assert _lines(case / "error"), f"{case.name}: error lists no finding code"
        assert not (case / "repairs").exists(), f"{case.name}: repairs belongs to an applied case"


def test_case_names() -> None:
    names = _names()
    assert names, f"no case folders under {CASES}"
    bad = [n for n in names if not n.startswith(PREFIXES)]
    assert not bad, f"case folders must be named {'|'.join(p + '<what>' for p in PREFIXES)}: {bad}"


def _diff_applies_reversed(root: Path, diff: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "apply", "--check", "-R", "-"],
        cwd=root,
        input=diff.encode("utf-8"),
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("name", _names())
def test_case(name: str, repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    case = CASES / name
    _layout(case)
    if (case / "before").is_dir():
        _copy_tree(case / "before", repo.root)
    repo.commit(message="before")
    if (case / "uncommitted").is_dir():
        _copy_tree(case / "uncommitted", repo.root)
    head = repo.git("rev-parse", "HEAD").strip()
    branches = _branches(repo)
    snapshot = repo.snapshot()

    result: Result = cli("apply", "--json", *_lines(case / "args"), input=(case / "input").read_bytes())
    assert result.code in (0, 1), result
    report = result.json()

    if (case / "error").is_file():
        assert result.code == 1 and report["status"] == "refused", result
        codes = _error_codes(report)
        missing = [c for c in _lines(case / "error") if c not in codes]
        assert not missing, f"expected error codes {missing} among {codes}: {result}"
        assert repo.snapshot() == snapshot, "a refused edit changed the repository"
        for f in report["findings"]:  # type: ignore[union-attr]
            # Every rendering prints the finding's location before its message: once.
            assert not (f["path"] and f["line"] and f["message"].startswith(f"{f['path']}:{f['line']}")), f
        return

    assert result.code == 0 and report["status"] == "applied", result
    want, got = _tree(case / "after"), _tree(repo.root)
    assert sorted(got) == sorted(want), f"files differ: {result}"
    for path in want:
        assert got[path][0] == want[path][0], f"{path}: content differs\n got: {got[path][0]!r}\nwant: {want[path][0]!r}"
        assert got[path][1] == want[path][1], f"{path}: exec bit {got[path][1]}, expected {want[path][1]}"

    files = report["files"]
    assert isinstance(files, list)
    repairs = {r for f in files for r in f["repairs"]}
    assert repairs == set(_lines(case / "repairs")), f"repairs {sorted(repairs)}: {result}"

    # The ledger records the turn beside the user's state, never in it.
    after = repo.snapshot()
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert after["<HEAD>"] == snapshot["<HEAD>"]
    assert after["<index>"] == snapshot["<index>"], "the index file changed"
    assert _branches(repo) == branches
    turn = report["turn"]
    assert isinstance(turn, dict), result
    moved = _shadow_refs(after) - _shadow_refs(snapshot)
    assert moved == {f"{turn['ref']} {turn['commit']}"}, f"shadow refs {moved}: {result}"

    # The reported diff is a patch of what was written: it reverses cleanly.
    diff = report["diff"]
    assert isinstance(diff, str) and diff, f"an applied edit reports an empty diff: {result}"
    proc = _diff_applies_reversed(repo.root, diff)
    assert proc.returncode == 0, f"git apply --check -R: {proc.stderr.decode(errors='replace')}\n{diff}"
    _counts_agree(diff, files)


def _counts_agree(diff: str, files: list[dict[str, object]]) -> None:
    """The diff, read by an independent parser (unidiff), names the files and counts the report does."""
    from unidiff import PatchSet

    patch = PatchSet(diff)
    read = {(pf.path, pf.added, pf.removed) for pf in patch}
    said = {(f["path"], f["added"], f["removed"]) for f in files}
    assert read == said, f"the diff says {sorted(read)}, the report {sorted(said)}:\n{diff}"

