"""Input nobody checked: each is refused (exit 1, a finding) or a usage error (exit 2), never an
internal error (exit 3), and the tree, index, HEAD and refs are left exactly as they were.

Each input goes through the CLI in-process (`agent-guard apply`, with and without `--json`), the
console program in a child process (`python -m guard apply`, what `git agent-apply` runs) and
the Python API (`guard.apply`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Repo, python

import guard

DEEP = "[" * 100_000
LONG = "9" * 5_000

# (id, the edit, the finding code that refuses it)
INPUTS = [
    ("nested-brackets", DEEP, "parse-error"),
    ("nested-objects", '{"a": ' * 20_000, "parse-error"),  # under the byte budget
    ("nested-in-a-tool-call", json.dumps({"name": "Edit", "arguments": '{"x": ' + DEEP + "}"}), "parse-error"),
    ("nested-in-a-fence", "```json\n" + DEEP + "\n```\n", "parse-error"),
    ("long-number-as-path", '{"file_path": ' + LONG + ', "content": "x\\n"}', "parse-error"),
    ("long-number-as-text", '{"file_path": "a.txt", "old_string": "one", "new_string": ' + LONG + "}", "parse-error"),
    ("long-negative-number", '{"file_path": "a.txt", "content": -' + LONG + "}", "parse-error"),
    ("long-number-as-line", '{"command": "insert", "path": "a.txt", "insert_line": ' + LONG + ', "new_str": "x"}', "parse-error"),
    ("surrogate-in-content", '{"file_path": "a.txt", "content": "\\ud800\\n"}', "parse-error"),
    ("surrogate-in-old-text", '{"file_path": "a.txt", "old_string": "one\\udfff", "new_string": "x"}', "parse-error"),
    ("surrogate-in-path", '{"file_path": "\\ud800.txt", "content": "x\\n"}', "parse-error"),
    ("surrogate-in-a-key", '{"file_path": "a.txt", "content": "x\\n", "\\udc00": 1}', "parse-error"),
    ("dot-git-backslash", '{"file_path": ".git\\\\config", "content": "x\\n"}', "path-protected"),
    ("dot-git-backslash-deep", '{"file_path": "x/.git\\\\hooks", "content": "x\\n"}', "path-protected"),
    ("dot-git-mixed-case-backslash", '{"file_path": ".gIt\\\\x", "content": "x\\n"}', "path-protected"),
    ("dot-git-ntfs-stream", '{"file_path": ".git::$INDEX_ALLOCATION/config", "content": "x\\n"}', "path-protected"),
    ("dot-git-backslash-diff", "--- /dev/null\n+++ b/x/.git\\hooks\n@@ -0,0 +1 @@\n+x\n", "path-protected"),
]
IDS = [i[0] for i in INPUTS]


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"a.txt": "one\ntwo\n"})
    return repo


def _codes(findings: list[dict[str, object]]) -> set[object]:
    return {f["code"] for f in findings if f["severity"] == "error"}


@pytest.mark.parametrize("text,code", [i[1:] for i in INPUTS], ids=IDS)
def test_bad_input_is_refused(project: Repo, cli, text: str, code: str) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    r = cli("apply", "--json", input=text)
    assert r.code == 1 and _codes(r.json()["findings"]) == {code}, r  # type: ignore[arg-type]
    r = cli("apply", input=text)
    assert r.code == 1 and f": {code}: " in r.stdout and not r.stderr, r
    report = guard.apply(text, repo=project.root)
    assert report.status == "refused" and {f.code for f in report.findings} == {code}, report.findings
    assert project.snapshot() == before


@pytest.mark.parametrize(
    "text,code",
    [i[1:] for i in INPUTS if i[0] in ("nested-brackets", "long-number-as-path", "surrogate-in-content", "dot-git-ntfs-stream")],
    ids=["nested-brackets", "long-number-as-path", "surrogate-in-content", "dot-git-ntfs-stream"],
)
def test_bad_input_is_refused_by_the_program(project: Repo, text: str, code: str) -> None:
    """The console program (a fresh interpreter, its own recursion limit and quick exit)."""
    before = project.snapshot()
    edit = project.root.parent / "edit.in"
    edit.write_text(text, encoding="utf-8")
    r = python(project.root, "-m", "guard", "apply", "--json", str(edit))
    assert r.returncode == 1, r.stderr
    assert _codes(json.loads(r.stdout)["findings"]) == {code}
    assert project.snapshot() == before


def test_lone_surrogates_through_the_python_api(project: Repo) -> None:
    """A str may hold what no UTF-8 input can: a lone surrogate, in the edit or in a path."""
    from guard.pipeline.hashline_read import Unreadable

    before = project.snapshot()
    for text, kw in (
        ("\ud800", {}),
        ('{"file_path": "a.txt", "content": "\udfff"}', {}),
        ("x\n", {"format": "whole", "path": "\ud800.txt"}),
        ("x\n", {"format": "whole", "path": "a\udcff"}),
    ):
        report = guard.apply(text, repo=project.root, **kw)
        assert report.status == "refused" and [f.code for f in report.findings] == ["not-utf8"], (text, report)
        json.loads(report.to_json())  # the report itself is valid output
    with pytest.raises(Unreadable) as raised:
        guard.read("\ud800.txt", repo=project.root)
    assert raised.value.finding.code == "not-utf8"
    assert project.snapshot() == before


# ---------------------------------------------------------------------- a ref lock left behind


def _lock(repo: Repo) -> Path:
    lock = repo.root / ".git" / "refs" / "agent-guard" / "agent.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    return lock


EDIT = json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "ONE"})


def _says_how_to_clear(finding: dict[str, object], lock: Path) -> None:
    assert finding["code"] == "stale" and finding["severity"] == "error"
    assert str(lock) in str(finding["message"])
    hint = str(finding["hint"])
    assert f"rm '{lock}'" in hint and "agent-guard" in hint and "running" in hint


def test_a_leftover_ref_lock_is_a_refusal_that_says_how_to_clear_it(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    lock = _lock(project)
    before = project.snapshot()
    r = cli("apply", "--json", input=EDIT)
    assert r.code == 1, r
    _says_how_to_clear(r.json()["findings"][0], lock)  # type: ignore[index]
    r = cli("apply", input=EDIT)
    assert r.code == 1 and f"rm '{lock}'" in r.stdout, r
    report = guard.apply(EDIT, repo=project.root)
    assert report.status == "refused"
    _says_how_to_clear(report.findings[0].as_dict(), lock)
    edit = project.root.parent / "edit.json"
    edit.write_text(EDIT)
    r = python(project.root, "-m", "guard", "apply", "--json", str(edit))
    assert r.returncode == 1, r.stderr
    _says_how_to_clear(json.loads(r.stdout)["findings"][0], lock)
    # `--check` records nothing, so the lock does not stand in its way.
    assert cli("apply", "--check", input=EDIT).code == 0
    assert project.snapshot() == before and lock.exists()
    # Cleared as the hint says, the same edit lands.
    lock.unlink()
    assert cli("apply", input=EDIT).code == 0
    assert project.read("a.txt") == b"ONE\ntwo\n"


def test_a_ref_lock_stops_a_rollback_the_same_way(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("apply", input=EDIT).code == 0
    lock = _lock(project)
    before = project.snapshot()
    r = cli("rollback", "--json")
    assert r.code == 1, r
    _says_how_to_clear(r.json()["findings"][0], lock)  # type: ignore[index]
    assert project.snapshot() == before
    lock.unlink()
    assert cli("rollback").code == 0 and project.read("a.txt") == b"one\ntwo\n"


def test_a_lock_taken_while_the_edit_is_written(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git command takes the ref's lock after the checks: the files are put back, and the apply is refused."""
    from guard.pipeline.engine import Guard
    from guard.tree import worktree

    before = project.snapshot()
    real = worktree.write

    def lock_then_commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        _lock(project)
        return real(*args, **kwargs)

    monkeypatch.setattr(worktree, "write", lock_then_commit)
    report = Guard(project.root).apply(EDIT)
    assert report.status == "refused" and [f.code for f in report.findings] == ["stale"], report.findings
    assert "agent.lock" in report.findings[0].message
    assert project.snapshot() == before
