"""Repository states a user may be in when an agent edits: agent-guard works, or says clearly why not.

Empty repository (no HEAD yet), orphan branch, detached HEAD, a merge or a rebase
stopped on a conflict, a sparse checkout, a linked worktree, a bare repository,
and files with ``filter``, ``eol``, ``text``, ``-text`` and ``working-tree-encoding``
attributes.  In every state an apply touches the work tree and the shadow ref only:
HEAD, the index (conflict stages included) and git's own state files stay as they were.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, git
from conftest import guard as guard_child

HEAD_AND_INDEX = ("<HEAD>", "<index>")


def _edit(path: str, old: str, new: str) -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def _git_state(root: Path, names: tuple[str, ...]) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for name in names:
        p = root / ".git" / name
        if p.is_dir():
            out[name] = b"".join(
                sorted(f.relative_to(p).as_posix().encode() + b"=" + f.read_bytes() for f in p.rglob("*") if f.is_file())
            )
        else:
            out[name] = p.read_bytes() if p.exists() else None
    return out


def test_empty_repository(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False) == ""
    r = cli("apply", "--json", input=json.dumps({"file_path": "new.txt", "content": "hello\n"}))
    assert r.code == 0, r
    assert repo.read("new.txt") == b"hello\n"
    turn = r.json()["turn"]
    assert turn["ref"] == "refs/agent-guard/agent"  # type: ignore[index]
    # The ledger's first commit has no parent: there was no HEAD to fork from.
    assert repo.git("rev-list", "--count", "refs/agent-guard/agent").strip() == "1"
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False) == ""
    log = cli("log", "--json").json()
    assert [t["id"] for t in log["turns"]] == ["1"]  # type: ignore[index]
    assert cli("rollback", "--json").code == 0
    assert not (repo.root / "new.txt").exists()
    # A staged file counts as tracked before the first commit; an unstaged one does not.
    repo.write({"staged.txt": "x\n", "loose.txt": "y\n"})
    repo.git("add", "staged.txt")
    index = repo.snapshot()["<index>"]
    assert cli("apply", "--json", input=_edit("staged.txt", "x", "X")).code == 0
    r = cli("apply", "--json", input=_edit("loose.txt", "y", "Y"))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "untracked"  # type: ignore[index]
    assert repo.snapshot()["<index>"] == index


def test_orphan_branch(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "a\n"})
    repo.git("checkout", "-q", "--orphan", "fresh")
    before = repo.snapshot()
    assert cli("apply", "--json", input=_edit("a.txt", "a", "b")).code == 0
    after = repo.snapshot()
    assert repo.read("a.txt") == b"b\n"
    assert all(after[k] == before[k] for k in HEAD_AND_INDEX)


def test_detached_head(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    head = repo.commit({"a.txt": "one\n"})
    repo.git("checkout", "-q", "--detach")
    before = repo.snapshot()
    r = cli("apply", "--json", input=_edit("a.txt", "one", "two"))
    assert r.code == 0, r
    after = repo.snapshot()
    assert all(after[k] == before[k] for k in HEAD_AND_INDEX)
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert repo.git("symbolic-ref", "-q", "HEAD", check=False) == ""
    assert cli("rollback", "--json").code == 0
    assert repo.read("a.txt") == b"one\n"


def _conflicted_merge(repo: Repo) -> None:
    repo.commit({"a.txt": "a\nb\nc\n", "z.txt": "z\n"})
    repo.git("checkout", "-qb", "other")
    repo.commit({"a.txt": "a\nB-other\nc\n"})
    repo.git("checkout", "-q", "main")
    repo.commit({"a.txt": "a\nB-main\nc\n"})
    repo.git("merge", "other", check=False)
    assert (repo.root / ".git" / "MERGE_HEAD").exists()


MERGE_STATE = ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "index", "HEAD")


def test_during_a_merge(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _conflicted_merge(repo)
    conflicted = repo.read("a.txt").decode()
    assert "<<<<<<< HEAD" in conflicted
    state = _git_state(repo.root, MERGE_STATE)
    # An edit elsewhere in the conflicted file: the markers already there are not "added".
    r = cli("apply", "--json", input=_edit("a.txt", "a\n<<<<<<<", "A\n<<<<<<<"))
    assert r.code == 0, r
    assert repo.read("a.txt").decode().startswith("A\n<<<<<<< HEAD\n")
    # Adding markers (to this file or another) is refused, and changes nothing.
    before = repo.snapshot()
    for path, old, new in (
        ("z.txt", "z\n", "<<<<<<< ours\nz\n=======\nq\n>>>>>>> theirs\n"),
        ("a.txt", "c\n", "c\n<<<<<<< again\nx\n>>>>>>> again\n"),
    ):
        r = cli("apply", "--json", input=_edit(path, old, new))
        assert r.code == 1 and {f["code"] for f in r.json()["findings"]} == {"conflict-marker"}, r  # type: ignore[union-attr]
        assert repo.snapshot() == before
    # Resolving the conflict (dropping the markers) is an ordinary edit.
    current = repo.read("a.txt").decode()
    assert cli("apply", "--json", input=_edit("a.txt", current, "A\nB\nc\n")).code == 0
    assert _git_state(repo.root, MERGE_STATE) == state
    repo.git("add", "a.txt")
    repo.git("commit", "-q", "--no-edit")
    assert repo.git("log", "-1", "--format=%P").count(" ") == 1


def test_during_a_rebase(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "a\n", "z.txt": "z\n"})
    repo.git("checkout", "-qb", "topic")
    repo.commit({"a.txt": "topic\n"})
    repo.git("checkout", "-q", "main")
    repo.commit({"a.txt": "main\n"})
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "main", check=False)
    assert (repo.root / ".git" / "rebase-merge").is_dir()
    state = _git_state(repo.root, ("rebase-merge", "REBASE_HEAD", "index", "HEAD", "ORIG_HEAD"))
    assert cli("apply", "--json", input=_edit("z.txt", "z", "zz")).code == 0
    resolved = cli("apply", "--json", input=_edit("a.txt", repo.read("a.txt").decode(), "resolved\n"))
    assert resolved.code == 0, resolved
    assert _git_state(repo.root, ("rebase-merge", "REBASE_HEAD", "index", "HEAD", "ORIG_HEAD")) == state
    assert cli("rollback", "--json").code == 0
    assert "<<<<<<<" in repo.read("a.txt").decode()
    repo.git("rebase", "--abort")


def test_sparse_checkout(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"in/a.txt": "a\n", "out/b.txt": "b\n", "top.txt": "t\n"})
    repo.git("sparse-checkout", "set", "in")
    assert not (repo.root / "out").exists()
    before = repo.snapshot()
    for text in (
        _edit("out/b.txt", "b", "B"),
        "--- a/out/b.txt\n+++ b/out/b.txt\n@@ -1 +1 @@\n-b\n+B\n",
        "diff --git a/out/b.txt b/out/b.txt\ndeleted file mode 100644\n--- a/out/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
    ):
        r = cli("apply", "--json", input=text)
        assert r.code == 1, r
        f = r.json()["findings"][0]  # type: ignore[index]
        assert f["code"] == "missing" and "outside the sparse checkout" in f["message"], f
        assert "git sparse-checkout add out" in f["hint"]
    # A "new" file where git tracks one the checkout leaves out would shadow it.
    for text in (
        json.dumps({"file_path": "out/b.txt", "content": "shadow\n"}),
        "--- /dev/null\n+++ b/out/b.txt\n@@ -0,0 +1 @@\n+shadow\n",
    ):
        r = cli("apply", "--json", input=text)
        assert r.code == 1 and r.json()["findings"][0]["code"] == "exists", r  # type: ignore[index]
    assert repo.snapshot() == before
    # Inside the cone, and files git does not track at all, are ordinary.
    assert cli("apply", "--json", input=_edit("in/a.txt", "a", "A")).code == 0
    assert cli("apply", "--json", input=json.dumps({"file_path": "out/new.txt", "content": "n\n"})).code == 0
    assert repo.snapshot()["<index>"] == before["<index>"]


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_skip_worktree_bit_set_by_hand_in_each_index_version(repo: Repo, cli, version: str) -> None:  # type: ignore[no-untyped-def]
    """The bit git's `update-index --skip-worktree` sets, read in every index format git writes
    (version 2 cannot hold it: git moves to 3 when it sets it, unless told 4)."""
    repo.commit({"kept.txt": "k\n", "hidden.txt": "h\n"})
    repo.git("update-index", "--index-version", version)
    repo.git("update-index", "--skip-worktree", "hidden.txt")
    (repo.root / "hidden.txt").unlink()
    assert repo.git("ls-files", "-t", "hidden.txt").startswith("S "), "git did not set the bit"
    before = repo.snapshot()
    r = cli("apply", "--json", input="--- /dev/null\n+++ b/hidden.txt\n@@ -0,0 +1 @@\n+shadow\n")
    assert r.code == 1 and r.json()["findings"][0]["code"] == "exists", r  # type: ignore[index]
    assert "sparse" in r.json()["findings"][0]["message"], r  # type: ignore[index]
    assert repo.snapshot() == before
    # A path without the bit, absent from the work tree: an ordinary missing file.
    (repo.root / "kept.txt").unlink()
    r = cli("apply", "--json", input=_edit("kept.txt", "k", "K"))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "missing", r  # type: ignore[index]
    assert "sparse" not in r.json()["findings"][0]["message"], r  # type: ignore[index]


def _child(
    cwd: Path, args: list[str], data: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return guard_child(cwd, *args, input=data.encode() if data else None, env=env)


def test_linked_worktree(repo: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "one\n", "b.txt": "bee\n"})
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked), "-b", "feature")
    r = cli("apply", "--json", input=_edit("a.txt", "one", "two"), cwd=linked)
    assert r.code == 0, r
    assert (linked / "a.txt").read_text() == "two\n" and repo.read("a.txt") == b"one\n"
    # Each tree its own ledger (issue 39): the main tree lists the linked tree's turn only when asked.
    assert cli("log", "--json").json()["turns"] == []
    assert [t["id"] for t in cli("log", "--json", "--all-worktrees").json()["turns"]] == ["1"]  # type: ignore[index]
    assert [t["id"] for t in cli("log", "--json", cwd=linked).json()["turns"]] == ["1"]  # type: ignore[index]
    # A crash in the linked tree is recovered there, and only there.
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-bee\n+BEE\n"
    crashed = _child(linked, ["apply"], patch, {"AGENT_GUARD_CRASH_AT": "after-file:0"})
    assert crashed.returncode == -9
    assert (linked / "a.txt").read_text() == "three\n"
    assert _child(repo.root, ["log"]).returncode == 0
    assert (linked / "a.txt").read_text() == "three\n" and repo.read("a.txt") == b"one\n"
    assert _child(linked, ["log"]).returncode == 0
    assert (linked / "a.txt").read_text() == "two\n" and (linked / "b.txt").read_text() == "bee\n"
    assert cli("rollback", "--json", cwd=linked).code == 0
    assert (linked / "a.txt").read_text() == "one\n" and repo.read("a.txt") == b"one\n"


def test_bare_repository_is_a_clear_usage_error(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    for args, data in ((["apply", "--json"], _edit("a.txt", "a", "b")), (["log"], None), (["rollback"], None)):
        r = _child(bare, args, data)
        assert r.returncode == 2, (args, r)
        err = r.stderr.decode()
        assert "bare repository" in err and "working tree" in err, err
        assert "internal error" not in err


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    r = _child(tmp_path, ["apply"], _edit("a.txt", "a", "b"))
    assert r.returncode == 2 and b"not a git repository" in r.stderr


def test_run_from_inside_the_git_folder(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "a\n"})
    r = cli("apply", "--json", input=_edit("a.txt", "a", "b"), cwd=repo.root / ".git")
    assert r.code == 0, r
    assert repo.read("a.txt") == b"b\n"


# ---------------------------------------------------------------------- attributes


@pytest.fixture
def attributed(repo: Repo) -> Repo:
    repo.commit(
        {
            ".gitattributes": "*.up filter=upper\n*.crlf text eol=crlf\n*.lf text eol=lf\n*.auto text=auto\n"
            "*.dat -text\n*.u16 working-tree-encoding=UTF-16\n",
            "f.up": "hello\n",
            "w.crlf": b"a\r\nb\r\n",
            "n.lf": "a\nb\n",
            "t.auto": "a\nb\n",
            "x.dat": "a\nb\n",
        }
    )
    repo.git("config", "filter.upper.clean", "tr a-z A-Z")
    repo.git("config", "filter.upper.smudge", "cat")
    repo.write({"w.u16": "hi\n".encode("utf-16")})
    return repo


def test_filter_attribute_edits_work_tree_bytes_and_says_so(attributed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    index = attributed.snapshot()["<index>"]
    r = cli("apply", "--json", input=_edit("f.up", "hello", "world"))
    assert r.code == 0, r
    out = r.json()
    notes = out.get("notes") or []
    assert any("git filter 'upper'" in n and "work-tree" in n for n in notes), out  # type: ignore[union-attr]
    assert attributed.read("f.up") == b"world\n"
    assert attributed.snapshot()["<index>"] == index
    # git sees the change through its clean filter, as for any editor's write.
    assert "+WORLD" in attributed.git("diff", "f.up")


def test_eol_crlf_attribute_keeps_crlf(attributed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", "--json", input="--- a/w.crlf\n+++ b/w.crlf\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
    assert r.code == 0, r
    assert attributed.read("w.crlf") == b"a\r\nc\r\n"
    assert "eol" in r.json()["files"][0]["repairs"]  # type: ignore[index]
    assert attributed.git("status", "--porcelain", "w.crlf").startswith(" M")


@pytest.mark.parametrize("path", ["n.lf", "t.auto"])
def test_lf_files_stay_lf_under_a_crlf_patch(attributed: Repo, cli, path: str) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", "--json", input=f"--- a/{path}\r\n+++ b/{path}\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n")
    assert r.code == 0, r
    assert attributed.read(path) == b"a\nc\n"


def test_minus_text_is_binary(attributed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = attributed.snapshot()
    r = cli("apply", "--json", input=_edit("x.dat", "a", "q"))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "binary", r  # type: ignore[index]
    assert "-text" in r.json()["findings"][0]["message"]  # type: ignore[index]
    assert attributed.snapshot() == before


def test_utf16_working_tree_encoding_is_refused(attributed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = attributed.snapshot()
    r = cli("apply", "--json", input=_edit("w.u16", "hi", "ho"))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "not-utf8", r  # type: ignore[index]
    assert "utf-16" in r.json()["findings"][0]["message"].lower()  # type: ignore[index]
    assert attributed.snapshot() == before


# ---------------------------------------------------------------------- line ends of new files

# (id, .gitattributes, git config, path, content the agent sends, the bytes expected)
NEW_FILES = [
    ("auto-crlf", "* text=auto eol=crlf\n", {}, "a.txt", "one\ntwo\n", b"one\r\ntwo\r\n"),
    ("text-crlf", "*.txt text eol=crlf\n", {}, "b.txt", "one\r\ntwo\nthree", b"one\r\ntwo\r\nthree"),
    ("eol-crlf-alone", "*.txt eol=crlf\n", {}, "c.txt", "one\n", b"one\r\n"),
    ("eol-lf", "* text=auto eol=crlf\n*.sh text eol=lf\n", {}, "run.sh", "echo 1\r\necho 2\r\n", b"echo 1\necho 2\n"),
    ("auto-lone-cr", "* text=auto eol=crlf\n", {}, "d.txt", "one\rtwo\n", b"one\rtwo\n"),
    ("text-core-eol", "* text\n", {"core.eol": "crlf"}, "e.txt", "one\n", b"one\r\n"),
    ("autocrlf-true", "", {"core.autocrlf": "true"}, "f.txt", "one\ntwo\n", b"one\r\ntwo\r\n"),
    ("autocrlf-input", "", {"core.autocrlf": "input"}, "g.txt", "one\r\ntwo\r\n", b"one\ntwo\n"),
    ("nothing-said", "", {}, "h.txt", "one\r\ntwo\n", b"one\r\ntwo\n"),
    ("other-pattern", "*.md text eol=crlf\n", {}, "i.txt", "one\n", b"one\n"),
]


def _as_git_checks_out(repo: Repo, path: str) -> bytes:
    """What `git checkout` writes for `path` once it is added: the oracle."""
    repo.git("add", path)
    (repo.root / path).unlink()
    repo.git("checkout", "--", path)
    return repo.read(path)


@pytest.mark.parametrize("attrs,config,path,content,expected", [n[1:] for n in NEW_FILES], ids=[n[0] for n in NEW_FILES])
def test_a_new_file_gets_the_line_ends_git_would_check_out(
    repo: Repo,
    cli,
    attrs: str,
    config: dict[str, str],  # type: ignore[no-untyped-def]
    path: str,
    content: str,
    expected: bytes,
) -> None:
    repo.commit({".gitattributes": attrs, "keep.txt": "k\n"} if attrs else {"keep.txt": "k\n"})
    for key, value in config.items():
        repo.git("config", key, value)
    r = cli("apply", "--json", input=json.dumps({"file_path": path, "content": content}))
    assert r.code == 0, r
    assert repo.read(path) == expected
    assert ("eol" in r.json()["files"][0]["repairs"]) == (expected != content.encode()), r  # type: ignore[index]
    assert _as_git_checks_out(repo, path) == expected


def test_every_dialect_creates_with_the_attribute_s_line_ends(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({".gitattributes": "* text=auto eol=crlf\n", "keep.txt": "k\n"})
    creates = {
        "diff.txt": "--- /dev/null\n+++ b/diff.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n",
        "codex.txt": "*** Begin Patch\n*** Add File: codex.txt\n+one\n+two\n*** End Patch\n",
        "hash.txt": "[hash.txt]\ncreate\n+one\n+two\n",
        "sr.txt": "sr.txt\n```\n<<<<<<< SEARCH\n=======\none\ntwo\n>>>>>>> REPLACE\n```\n",
    }
    for path, text in creates.items():
        r = cli("apply", "--json", input=text)
        assert r.code == 0, (path, r)
        assert repo.read(path) == b"one\r\ntwo\r\n", path
    assert repo.git("status", "--porcelain", "--", "keep.txt") == ""


def test_an_existing_file_keeps_its_own_line_ends(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Only a file with no line end of its own yet (new, or empty) takes the attribute's."""
    repo.commit({".gitattributes": "* text=auto eol=crlf\n", "lf.txt": "a\n", "empty.txt": ""})
    assert cli("read", "lf.txt").code == 0 and cli("read", "empty.txt").code == 0
    r = cli(
        "apply",
        "--json",
        input=json.dumps([{"file_path": "lf.txt", "content": "a\nb\n"}, {"file_path": "empty.txt", "content": "x\ny\n"}]),
    )
    assert r.code == 0, r
    assert repo.read("lf.txt") == b"a\nb\n"  # its own LF, as before
    assert repo.read("empty.txt") == b"x\r\ny\r\n"
