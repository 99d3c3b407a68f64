"""Ranges that hold root commits, or whose tip shares no history with their base, and the null
base: every commit is checked, a root commit's files as added content (issue 23, section 2)."""

from __future__ import annotations

from typing import Any

from conftest import Repo

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
LAZY = "def total(items):\n    # ... rest of the code unchanged\n"


def found(result: Any) -> list[tuple[str, str | None, str | None]]:
    return [(f["code"], f["path"], f["commit"]) for f in result.json()["findings"]]


def _orphan(repo: Repo, files: dict[str, str], message: str = "new root") -> str:
    repo.git("checkout", "-q", "--orphan", "orphan")
    repo.git("rm", "-q", "-rf", "--cached", ".")
    for path in list(repo.root.iterdir()):
        if path.name != ".git" and path.is_file():
            path.unlink()
    return repo.commit(files, message=message)


def test_a_tip_with_no_history_in_common_with_the_base(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": CODE}, message="base")
    root = _orphan(repo, {"lib.py": "# ... existing code ...\n", "ok.py": "x = 1\n"})
    later = repo.commit({"ok.py": "x = 1\n# rest of the code unchanged\n"}, message="later")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1, result
    assert found(result) == [("placeholder", "lib.py", root), ("placeholder", "ok.py", later)]
    rows = result.json()["check"]["commits"]
    assert rows[0]["commit"] == root and rows[0]["root"] is True and rows[0]["added"] == 2
    assert (
        "1 root commit (no parent): every file in it is added content"
        in cli("check", "--from-ref", base, "--to-ref", "HEAD").stdout
    )


def test_a_root_commit_is_not_held_to_the_per_commit_budget(repo: Repo, cli) -> None:
    policy = "budget:\n  per_edit: {files: 2, lines_added: 5}\n  max_file_bytes: 100\n"
    base = repo.commit({"app.py": CODE, ".agent-guard.yaml": policy}, message="base")
    _orphan(repo, {f"f{n}.py": f"v = {n}\n" for n in range(10)}, message="import")
    assert cli("check", "--from-ref", base, "--to-ref", "HEAD").code == 0
    big = repo.commit({"big.txt": "x" * 200 + "\n"}, message="big")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and found(result) == [("budget", "big.txt", big)]


def test_root_commits_inside_a_range(repo: Repo, cli) -> None:
    # A history joined in by a merge of unrelated histories: its root is inside the range.
    base = repo.commit({"app.py": CODE}, message="base")
    root = _orphan(repo, {"vendored.py": LAZY})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "vendor", "orphan")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and found(result) == [("placeholder", "vendored.py", root)], result


def test_the_null_base_checks_everything_the_tip_reaches(repo: Repo, cli) -> None:
    first = repo.commit({"app.py": LAZY}, message="first")
    second = repo.commit({"app.py": CODE + "x = 1   \n"}, message="second")
    for null in ("0" * 40, "0" * 64):
        result = cli("check", "--from-ref", null, "--to-ref", "HEAD", "--json")
        assert result.code == 1, result
        assert found(result) == [("placeholder", "app.py", first), ("whitespace", "app.py", second)]
        assert [c["commit"] for c in result.json()["check"]["commits"]] == [first, second]
    human = cli("check", "--from-ref", "0" * 40, "--to-ref", "HEAD").stdout
    assert "note: --from-ref is the null id: every commit HEAD reaches was checked" in human
    assert "2 commits of 0000000000..HEAD" in human and "(`git rebase -i --root`)" in human
