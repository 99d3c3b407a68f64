"""Deleting a folder's last file takes the folder away, as `git rm` and `git apply` do.

Before, a Codex `*** Delete File: x/y/f.txt` or a hashline `delete file` left `x/y/` behind.
The folders go inside the journaled write (a crash puts them back with the file), a rollback
brings them back with the file, a folder that still holds anything stays, and so does the
folder the command runs in (git no longer removes the current folder either).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Repo, python


def _hashline_delete(cli, cwd: Path, path: str) -> str:  # type: ignore[no-untyped-def]
    header = cli("read", path, cwd=cwd).stdout.splitlines()[0]
    return f"{header}\ndelete file\n"


DELETES = {
    "codex": lambda cli, cwd, path: f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n",
    "unified": lambda cli, cwd, path: (
        f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\n"
    ),
    "hashline": _hashline_delete,
}


@pytest.mark.parametrize("dialect", list(DELETES))
def test_the_emptied_folders_go_with_the_file(repo: Repo, cli, dialect: str) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"x/y/f.txt": "hi\n", "keep.txt": "k\n"})
    edit = DELETES[dialect](cli, repo.root, "x/y/f.txt")
    before = repo.snapshot()
    checked = cli("apply", "--check", input=edit)
    assert checked.code == 0 and "would remove the folders x/y/, x/, empty once the files are deleted" in checked.stdout
    assert repo.snapshot() == before and (repo.root / "x" / "y").is_dir()
    r = cli("apply", input=edit)
    assert r.code == 0 and "removed the folders x/y/, x/" in r.stdout, r
    assert not (repo.root / "x").exists()
    # git sees the same tree as after `git rm x/y/f.txt`.
    assert repo.git("status", "--porcelain") == " D x/y/f.txt\n"
    # Undone, the file comes back with its folders.
    assert cli("rollback").code == 0
    assert (repo.root / "x" / "y" / "f.txt").read_text() == "hi\n"


def test_a_folder_that_holds_anything_else_stays(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"x/y/f.txt": "hi\n", "x/other.txt": "o\n"})
    (repo.root / "x" / "y" / "notes.local").write_text("untracked\n")
    r = cli("apply", input=DELETES["codex"](cli, repo.root, "x/y/f.txt"))
    assert r.code == 0 and "removed the folder" not in r.stdout, r
    assert (repo.root / "x" / "y" / "notes.local").exists()
    (repo.root / "x" / "y" / "notes.local").unlink()
    r = cli("apply", input=DELETES["codex"](cli, repo.root, "x/other.txt"))
    assert r.code == 0 and "removed the folder x/y/" not in r.stdout  # y was empty before: not this delete's
    assert (repo.root / "x").is_dir()


def test_the_current_folder_stays(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"x/y/f.txt": "hi\n", "keep.txt": "k\n"})
    here = repo.root / "x" / "y"
    r = cli("apply", input=DELETES["codex"](cli, here, "f.txt"), cwd=here)
    assert r.code == 0 and "removed the folder" not in r.stdout, r
    assert here.is_dir() and not (here / "f.txt").exists()


def test_a_move_out_of_a_folder_empties_it(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"old/dir/f.txt": "hi\n", "keep.txt": "k\n"})
    edit = "*** Begin Patch\n*** Update File: old/dir/f.txt\n*** Move to: new/f.txt\n@@\n-hi\n+hello\n*** End Patch\n"
    r = cli("apply", input=edit)
    assert r.code == 0 and "removed the folders old/dir/, old/" in r.stdout, r
    assert not (repo.root / "old").exists() and (repo.root / "new" / "f.txt").read_text() == "hello\n"


def test_a_crash_after_the_folders_went_puts_them_back(repo: Repo) -> None:
    """Removed inside the journaled write: killed after their removal, the next command restores
    the file and its folders."""
    repo.commit({"x/y/f.txt": "hi\n", "keep.txt": "k\n"})
    before = repo.snapshot()
    patch = repo.root.parent / "delete.patch"
    patch.write_text(DELETES["codex"](None, repo.root, "x/y/f.txt"))
    r = python(repo.root, "-m", "guard", "apply", str(patch), env={"AGENT_GUARD_CRASH_AT": "after-dirs"})
    assert r.returncode != 0 and not (repo.root / "x").exists()
    assert python(repo.root, "-m", "guard", "log").returncode == 0  # any command recovers
    assert repo.snapshot() == before
