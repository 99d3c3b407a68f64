"""Paths that are not regular files: a named pipe, a socket, a device, a link to one.

A FIFO in the tree used to hang `apply`, `read` and whole-file writes forever, the repository
lock held (every later command waited behind it); a socket ended in exit 3.  Now nothing
agent-guard reads is opened before it is known to be a regular file, and each such path is
refused with a finding that says what it is: `exists` where an edit would write a file,
`missing` where it reads or changes one (as for a folder).  Files agent-guard reads for
itself (the policy and its `extends:` chain, `pyproject.toml`, the `.gitattributes` git
reads) are held to the same rule: a usage error (exit 2) naming the file.

Every command runs under a deadline (`within`), so a hang fails the test instead of holding
it: in this process (the CLI as the console script runs it, the Python API, the MCP tool), or
in a child where the process is the subject (the hook, a kill mid-write).  The tree is
compared without opening anything but regular files.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from conftest import Hung, Repo, alarm, checkout_env, guard, run_cli

TIMEOUT = 30

SRC = "def area(w, h):\n    return w * h\n"


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_socket(path: Path) -> None:
    # A unix socket's address is short (108 bytes): bind by a relative name from its folder.
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        s = socket.socket(socket.AF_UNIX)
        s.bind(path.name)
        s.close()  # the socket file stays
    finally:
        os.chdir(here)


def make_link_to_fifo(path: Path) -> None:
    os.mkfifo(path.with_name(path.name + ".pipe"))
    os.symlink(path.name + ".pipe", path)


def make_char_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # what /dev/zero is
    except PermissionError:
        pytest.skip("making a device needs CAP_MKNOD")


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (make_fifo, "a named pipe (FIFO)"),
    "socket": (make_socket, "a socket"),
    "char-device": (make_char_device, "a character device"),
}


def state(root: Path) -> dict[str, object]:
    """Every entry of the work tree (.git's refs and index too), read without opening a special file."""
    out: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == root and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames + dirnames:
            p = Path(dirpath) / name
            st = p.lstat()
            rel = p.relative_to(root).as_posix()
            if stat.S_ISREG(st.st_mode):
                out[rel] = (p.read_bytes(), stat.S_IMODE(st.st_mode))
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            else:
                out[rel] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode))
    git = root / ".git"
    out["<index>"] = (git / "index").read_bytes() if (git / "index").exists() else None
    out["<refs>"] = subprocess.run(["git", "for-each-ref"], cwd=root, capture_output=True, timeout=TIMEOUT, check=False).stdout
    return out


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"shapes.py": SRC, "src/app.py": "X = 1\n", "README.md": "# demo\n"})
    return repo


def within(seconds: int = TIMEOUT) -> contextlib.AbstractContextManager[None]:
    """Fail what runs this long: an open() blocked on a FIFO is interrupted by the alarm."""
    return alarm(seconds, f"still running after {seconds} s: waiting on a special file?")


def test_the_deadline_interrupts_an_open_blocked_on_a_fifo(tmp_path: Path) -> None:
    make_fifo(tmp_path / "pipe")
    with pytest.raises(Hung), within(1):
        open(tmp_path / "pipe", "rb")  # no writer: blocks until the alarm


def run(repo: Repo, *args: str, edit: str | None = None) -> tuple[int, str, str]:
    """`agent-guard ARGS` in this process, as the console script runs it, under the deadline."""
    with within():
        r = run_cli(repo.root, *args, input=edit.encode() if edit is not None else None)
    return r.code, r.stdout, r.stderr


# The edits an agent sends to a path, in the dialects that can name it, and the code that refuses
# each when something other than a regular file is there.
EDITS: list[tuple[str, str, str]] = [
    ("unified-create", "--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+x\n", "exists"),
    ("unified-modify", "--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n", "missing"),
    ("unified-delete", "--- a/{p}\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "missing"),
    ("json-content", '{{"file_path": "{p}", "content": "x\\n"}}', "exists"),
    ("json-str-replace", '{{"file_path": "{p}", "old_string": "a", "new_string": "b"}}', "missing"),
    ("codex-update", "*** Begin Patch\n*** Update File: {p}\n@@\n-a\n+b\n*** End Patch\n", "missing"),
    ("codex-add", "*** Begin Patch\n*** Add File: {p}\n+x\n*** End Patch\n", "exists"),
    ("search-replace", "{p}\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n", "missing"),
    ("whole-fenced", "{p}\n```\nx\n```\n", "exists"),
]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name,template,code", EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_of_a_special_file_is_refused_without_waiting(
    project: Repo, kind: str, name: str, template: str, code: str
) -> None:
    make, what = KINDS[kind]
    make(project.root / "data.txt")
    before = state(project.root)
    status, out, err = run(project, "apply", "--json", edit=template.format(p="data.txt"))
    assert status == 1, (status, out, err)
    findings = json.loads(out)["findings"]
    assert [f["code"] for f in findings] == [code], findings
    assert f"{what}, not a regular file" in findings[0]["message"], findings
    assert state(project.root) == before


def test_a_link_to_a_fifo_is_refused_as_a_link(project: Repo) -> None:
    make_link_to_fifo(project.root / "data.txt")
    before = state(project.root)
    for template, _name, _code in [(e[1], e[0], e[2]) for e in EDITS]:
        status, out, _err = run(project, "apply", "--json", edit=template.format(p="data.txt"))
        assert status == 1 and {f["code"] for f in json.loads(out)["findings"]} == {"path-outside"}, out
    assert state(project.root) == before


@pytest.mark.parametrize("kind", list(KINDS) + ["link-to-fifo"])
def test_a_read_of_a_special_file_is_refused(project: Repo, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if kind == "link-to-fifo":
        make_link_to_fifo(project.root / "data.txt")
        want = "path-outside"
    else:
        KINDS[kind][0](project.root / "data.txt")
        want = "missing"
    before = state(project.root)
    status, out, err = run(project, "read", "data.txt")
    assert status == 1 and f": {want}: " in out and err == "", (status, out, err)
    if want == "missing":
        assert f"{KINDS[kind][1]}, not a regular file" in out
    # The Python API and the MCP tool read the same way.
    import guard
    from guard.adapters import mcp_server
    from guard.pipeline.engine import Guard
    from guard.pipeline.hashline_read import Unreadable

    monkeypatch.chdir(project.root)
    with within(), pytest.raises(Unreadable) as raised:
        guard.read("data.txt", repo=".")
    assert raised.value.finding.code == want, raised.value
    with within():
        answer = mcp_server.Session(Guard("."), "model").call("read_file", {"path": "data.txt"})
    assert answer.error and answer.data["findings"][0]["code"] == want, answer
    assert state(project.root) == before


@pytest.mark.parametrize("kind", ["fifo", "socket", "link-to-dev-zero", "folder"])
@pytest.mark.parametrize("where", ["own", "extends", "--policy"])
def test_a_policy_file_that_is_not_a_regular_file_is_a_usage_error(project: Repo, kind: str, where: str) -> None:
    name = ".agent-guard.yaml" if where == "own" else "team.yaml"
    path = project.root / name
    if kind == "link-to-dev-zero":
        os.symlink("/dev/zero", path)
        what = "a character device"
    elif kind == "folder":
        path.mkdir()
        what = "a folder"
    else:
        KINDS[kind][0](path)
        what = KINDS[kind][1]
    if where == "extends":
        (project.root / ".agent-guard.yaml").write_text("extends: ./team.yaml\n")
    args = ("--policy", name) if where == "--policy" else ()
    before = state(project.root)
    edit = json.dumps({"file_path": "shapes.py", "old_string": "w * h", "new_string": "h * w"})
    status, out, err = run(project, "apply", "--json", *args, edit=edit)
    assert status == 2, (status, out, err)
    assert json.loads(out)["findings"][0]["code"] == "usage"
    assert f"it is {what}, not a regular file" in err, err
    assert state(project.root) == before
    if where == "own":  # also where no edit runs: `check --all-files` reads the same policy
        status, _out, err = run(project, "check", "--all-files")
        assert status == 2 and f"it is {what}, not a regular file" in err, err
        # The staged check reads the policy the commit will hold (the index), never this file: no wait.
        status, _out, err = run(project, "check")
        assert status == 0, err
    if where == "--policy":
        status, _out, err = run(project, "policy", "check", name)
        said = "is a directory" if kind == "folder" else f"it is {what}, not a regular file"  # click's own words
        assert status == 2 and said in err, (status, err)


def _attributes_refused(project: Repo, words: str) -> None:
    """Every command that reads attributes is a usage error whose message holds `words`; nothing changes."""
    before = state(project.root)
    edit = json.dumps({"file_path": "src/app.py", "old_string": "X = 1", "new_string": "X = 2"})
    for args, stdin in (
        (("apply",), edit),
        (("apply", "--check"), edit),
        (("read", "src/app.py"), None),
        (("check", "--all-files"), None),
    ):
        status, _out, err = run(project, *args, edit=stdin)
        assert status == 2, (args, status, err)
        assert words in err, err
    assert state(project.root) == before


@pytest.mark.parametrize("folder", ["", "src/"])
@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_a_gitattributes_that_is_not_a_regular_file_is_a_usage_error(project: Repo, folder: str, kind: str) -> None:
    KINDS[kind][0](project.root / folder / ".gitattributes")
    _attributes_refused(
        project, f"{folder}.gitattributes ({project.root / folder / '.gitattributes'}) is {KINDS[kind][1]}, not a regular file"
    )


@pytest.mark.parametrize("folder", ["", "src/"])
@pytest.mark.parametrize("target", ["outside", "dangling"])
def test_a_gitattributes_that_is_a_link_is_a_usage_error(project: Repo, tmp_path: Path, folder: str, target: str) -> None:
    # git does not follow a .gitattributes link in the work tree (it reads the index's copy);
    # libgit2 does: a link to a file of `* -whitespace` elsewhere would turn checks off for
    # agent-guard alone.  Nothing reads attributes git's way past it, so it is refused.
    attrs = tmp_path / "elsewhere"
    if target == "outside":
        attrs.write_text("* -whitespace binary\n")
    os.symlink(attrs, project.root / folder / ".gitattributes")
    _attributes_refused(project, f"{folder}.gitattributes ({project.root / folder / '.gitattributes'}) is a symbolic link")


def test_a_fifo_pyproject_does_not_hold_the_syntax_check(project: Repo) -> None:
    make_fifo(project.root / "pyproject.toml")
    status, out, _err = run(
        project,
        "apply",
        "--json",
        "--check",
        edit=json.dumps({"file_path": "shapes.py", "old_string": "w * h", "new_string": "(w * h"}),
    )
    assert status == 0 and [f["code"] for f in json.loads(out)["findings"]] == ["syntax"], out


def test_the_claude_code_hook_denies_an_edit_of_a_fifo(project: Repo) -> None:
    make_fifo(project.root / "notes.ipynb")
    make_fifo(project.root / "data.txt")
    before = state(project.root)
    for tool, ti in (
        ("Write", {"file_path": str(project.root / "data.txt"), "content": "x\n"}),
        ("Edit", {"file_path": str(project.root / "data.txt"), "old_string": "a", "new_string": "b"}),
        ("NotebookEdit", {"notebook_path": str(project.root / "notes.ipynb"), "new_source": "x"}),
    ):
        data = json.dumps(
            {
                "session_id": "s",
                "cwd": str(project.root),
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": ti,
                "tool_use_id": f"toolu_{tool}",
            }
        )
        r = subprocess.run(
            [sys.executable, "-m", "guard", "hook", "claude-code"],
            input=data.encode(),
            cwd=project.root,
            capture_output=True,
            env=checkout_env(),
            timeout=TIMEOUT,
            check=False,
        )
        err = r.stderr.decode()
        assert r.returncode == 2 and "a named pipe (FIFO), not a regular file" in err, (tool, r)
    assert state(project.root) == before


def test_recovery_leaves_a_fifo_put_where_a_crashed_write_was(project: Repo) -> None:
    """A kill mid-write, then someone puts a pipe at the file: recovery neither reads nor replaces it."""
    edit = json.dumps({"file_path": "shapes.py", "old_string": "w * h", "new_string": "h * w"})
    r = guard(project.root, "apply", input=edit.encode(), env={"AGENT_GUARD_CRASH_AT": "after-file:0"}, timeout=TIMEOUT)
    assert r.returncode == -9, r
    (project.root / "shapes.py").unlink()
    make_fifo(project.root / "shapes.py")
    status, out, err = run(project, "log")
    assert status == 0, (out, err)
    assert stat.S_ISFIFO((project.root / "shapes.py").lstat().st_mode)


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_install_hook_over_a_special_file_does_not_wait(project: Repo, kind: str) -> None:
    """A pipe where the pre-commit hook goes (core.hooksPath in the tree) is another tool's: moved aside."""
    project.git("config", "core.hooksPath", "githooks")
    (project.root / "githooks").mkdir()
    KINDS[kind][0](project.root / "githooks" / "pre-commit")
    status, out, err = run(project, "install-hook")
    assert status == 0 and "installed the pre-commit hook" in out, (status, out, err)
    assert stat.S_ISREG((project.root / "githooks" / "pre-commit").stat().st_mode)
    assert not stat.S_ISREG((project.root / "githooks" / "pre-commit.agent-guard-previous").lstat().st_mode)


# agent-guard's own files in the git dir that an apply reads: a pipe a shell put at any of them
# would hold every later command (the write journal, the session, the agent's reads, the ledger's
# turn-id index, the event log).  Each is read as a regular file or not at all: as if it were
# missing (the journal's pipe is taken away, so the next write makes a journal again); the event
# log is not written through a pipe.
OWN_FILES = (
    "journal.json",
    "sessions/agent",
    "reads/agent.json",
    "turn-ids/refs/agent-guard/agent",
    "events.jsonl",
)


def test_a_pipe_at_one_of_agent_guards_own_files_is_not_waited_on(project: Repo) -> None:
    from guard.pipeline.engine import Guard

    def edit(old: str, new: str) -> str:
        return json.dumps({"file_path": "shapes.py", "old_string": old, "new_string": new})

    assert Guard(project.root).apply(edit("w * h", "h * w"), turn="t1").status == "applied"
    own = project.root / ".git" / "agent-guard"
    for name in OWN_FILES:
        (own / name).parent.mkdir(parents=True, exist_ok=True)
        (own / name).unlink(missing_ok=True)
        make_fifo(own / name)
    with within():
        report = Guard(project.root).apply(edit("h * w", "w * h"), turn="t2")  # a turn id: the index is asked
        assert report.status == "applied", report.findings
        assert Guard(project.root).apply(edit("w * h", "h * w"), check=True).status == "checked"
        assert run_cli(project.root, "stats", "--json").code == 0  # the event log read: the pipe holds none of it
    assert (project.root / "shapes.py").read_text() == SRC
    assert stat.S_ISREG((own / "journal.json").stat().st_mode)
