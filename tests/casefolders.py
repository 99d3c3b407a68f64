"""The one harness for behaviour pinned by case folders (tests/cases/, tests/cases_lazy/).

A case folder holds, as plain files (a reviewer reads them; bytes are exact):

- ``before/``      the tree committed into a fresh repository (absent: one empty commit);
- ``read``         optional: files the agent reads with ``agent-guard read`` after that commit,
  one a line, a path and optionally its lines (``src/app.py 10:40``): what a hashline
  edit's tag names;
- ``uncommitted/`` optional files written after that commit (and the reads: an agent editing
  on top of uncommitted work, a file git does not track, a file changed since the edit's base);
- ``input``        the edit, byte for byte, fed to ``agent-guard apply --json`` on stdin;
- ``args``         optional extra CLI arguments, one per line (``--format`` / ``codex``);
- then either ``after/`` (the expected work tree, byte for byte and exec bit, .git excluded)
  with an optional ``repairs`` file (repair names, one per line; absent or empty means
  the edit needed none), or ``error``: finding codes, one per line, each of which must be
  among the refusal's error findings; a line that is not a finding code (it holds a
  blank) is text that the refusal's messages or hints must contain.

An applied case must also leave HEAD, the index file and every branch alone, move the
agent's shadow ref to the reported turn commit, and report a ``diff`` that is a valid
patch of what was written (``git apply --check -R`` on the resulting tree) whose files
and counts an independent parser (unidiff) reads as the report gives them.  A refused
case must leave the repository byte for byte as it was: work tree, index, HEAD, refs.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any, Callable, Sequence

from conftest import Repo, Result

KNOWN = {"before", "read", "uncommitted", "input", "args", "after", "repairs", "error"}
_CODE = re.compile(r"[a-z][a-z0-9-]*")


def names(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir())


def lines(path: Path) -> list[str]:
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
        os.chmod(target, 0o755 if _executable(path) else 0o644)


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


def _refs(snapshot: dict[str, object], *under: str) -> set[str]:
    """The snapshot's `refname id` lines for the refs under the given prefixes."""
    return {ln for ln in str(snapshot["<refs>"]).splitlines() if ln.startswith(under)}


def layout(case: Path) -> None:
    """The folder is a well-formed case (a typo in a file name must not pass silently)."""
    entries = {p.name for p in case.iterdir()}
    unknown = entries - KNOWN
    assert not unknown, f"{case.name}: unknown entries {sorted(unknown)}; allowed: {sorted(KNOWN)}"
    assert (case / "input").is_file(), f"{case.name}: no input file"
    assert (case / "after").is_dir() != (case / "error").is_file(), f"{case.name}: give exactly one of after/ or error"
    if (case / "error").is_file():
        assert any(_CODE.fullmatch(x) for x in lines(case / "error")), f"{case.name}: error lists no finding code"
        assert not (case / "repairs").exists(), f"{case.name}: repairs belongs to an applied case"


def run(case: Path, repo: Repo, cli: Callable[..., Result], args: Sequence[str] = ()) -> None:
    """Apply the case's input in a fresh repository and hold the outcome to the folder."""
    layout(case)
    if (case / "before").is_dir():
        _copy_tree(case / "before", repo.root)
    repo.commit(message="before")
    for line in lines(case / "read"):
        path, _, shown = line.partition(" ")
        read = cli("read", path, *(("--lines", shown.strip()) if shown.strip() else ()))
        assert read.code == 0, f"{case.name}: reading {line!r} failed: {read}"
    if (case / "uncommitted").is_dir():
        _copy_tree(case / "uncommitted", repo.root)
    head = repo.head()
    snapshot = repo.snapshot()

    result = cli("apply", "--json", *args, *lines(case / "args"), input=(case / "input").read_bytes())
    assert result.code in (0, 1), result
    report: dict[str, Any] = result.json()

    if (case / "error").is_file():
        assert result.code == 1 and report["status"] == "refused", result
        errors = [f for f in report["findings"] if f["severity"] == "error"]
        codes = [f["code"] for f in errors]
        wanted = lines(case / "error")
        missing = [c for c in wanted if _CODE.fullmatch(c) and c not in codes]
        assert not missing, f"expected error codes {missing} among {codes}: {result}"
        said = " ".join(f"{f['message']} {f['hint']}" for f in errors)
        for text in (x for x in wanted if not _CODE.fullmatch(x)):
            assert text in said, (text, said)
        assert repo.snapshot() == snapshot, "a refused edit changed the repository"
        for f in report["findings"]:
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
    repairs = {r for f in files for r in f["repairs"]}
    assert repairs == set(lines(case / "repairs")), f"repairs {sorted(repairs)}: {result}"

    # The ledger records the turn beside the user's state, never in it.
    after = repo.snapshot()
    assert repo.head() == head
    assert after["<HEAD>"] == snapshot["<HEAD>"]
    assert after["<index>"] == snapshot["<index>"], "the index file changed"
    assert _refs(after, "refs/heads/", "refs/tags/") == _refs(snapshot, "refs/heads/", "refs/tags/")
    turn = report["turn"]
    assert isinstance(turn, dict), result
    moved = _refs(after, "refs/agent-guard/") - _refs(snapshot, "refs/agent-guard/")
    assert moved == {f"{turn['ref']} {turn['commit']}"}, f"shadow refs {moved}: {result}"

    # The reported diff is a patch of what was written: it reverses cleanly, and reads as the report says.
    diff = report["diff"]
    assert isinstance(diff, str) and diff, f"an applied edit reports an empty diff: {result}"
    proc = subprocess.run(
        ["git", "apply", "--check", "-R", "-"],
        cwd=repo.root,
        input=diff.encode("utf-8"),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"git apply --check -R: {proc.stderr.decode(errors='replace')}\n{diff}"
    _counts_agree(diff, files)


def _counts_agree(diff: str, files: list[dict[str, Any]]) -> None:
    """The diff, read by an independent parser (unidiff), names the files and counts the report does."""
    from unidiff import PatchSet

    patch = PatchSet(diff)
    read = {(pf.path, pf.added, pf.removed) for pf in patch}
    said = {(f["path"], f["added"], f["removed"]) for f in files}
    assert read == said, f"the diff says {sorted(read)}, the report {sorted(said)}:\n{diff}"
