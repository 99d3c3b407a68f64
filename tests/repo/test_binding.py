"""pygit2 loads whatever certificate files the environment names (``guard.repo.binding``).

pygit2 fails to import when ``SSL_CERT_FILE`` names a file with no certificate in it (libgit2
asks OpenSSL to load it as pygit2 is imported).  Before: every command ended in an internal
error and every hook denied.  Each case is a child process: pygit2 is imported once per process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Repo, guard, python


@pytest.fixture
def no_certificates(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "empty.pem"
    empty.write_bytes(b"")
    return {"SSL_CERT_FILE": str(empty)}


def test_pygit2_alone_fails_there(repo: Repo, no_certificates: dict[str, str]) -> None:
    # What the loader is for: if pygit2 stops failing here, this test says the loader can go.
    r = python(repo.root, "-c", "import pygit2", env=no_certificates)
    assert r.returncode != 0 and "certificate" in r.stderr, r


def test_apply_and_hook_work_with_a_file_of_no_certificates(repo: Repo, no_certificates: dict[str, str]) -> None:
    repo.commit({"a.txt": "one\n"})
    edit = json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "two"}).encode()
    r = guard(repo.root, "apply", "--json", input=edit, env=no_certificates)
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "applied", r
    assert repo.read("a.txt") == b"two\n"
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(repo.root),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo.root / "a.txt"), "old_string": "two", "new_string": "three"},
    }
    r = guard(repo.root, "hook", "claude-code", input=json.dumps(payload).encode(), env=no_certificates)
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r  # allowed: the checks ran and passed
    payload["tool_input"] = {"file_path": str(repo.root / "a.txt"), "old_string": "nowhere", "new_string": "three"}
    r = guard(repo.root, "hook", "claude-code", input=json.dumps(payload).encode(), env=no_certificates)
    assert r.returncode == 2 and b"a.txt: not-found:" in r.stderr and b"internal error" not in r.stderr, r


def test_the_variables_are_kept_for_everything_else(repo: Repo, no_certificates: dict[str, str]) -> None:
    code = (
        "import os, sys, guard.repo, pygit2\n"
        "print(os.environ.get('SSL_CERT_FILE'))\n"
        # the modules reloaded belong to the package that is loaded now, not to the one that failed
        "print(all(getattr(m, 'pygit2', pygit2) is pygit2 for n, m in sys.modules.items() if n.startswith('pygit2.')))\n"
        "print(pygit2.Repository('.').head.target)\n"
    )
    repo.commit({"a.txt": "one\n"})
    r = python(repo.root, "-c", code, env=no_certificates)
    assert r.returncode == 0, r
    assert r.stdout.splitlines() == [no_certificates["SSL_CERT_FILE"], "True", repo.head()]


def test_a_failure_with_no_certificate_variable_is_raised(repo: Repo) -> None:
    # Nothing to leave out: the import's own error, as pygit2 raised it (here: a module that is not pygit2).
    code = (
        "import os, sys\n"
        "for k in ('SSL_CERT_FILE', 'SSL_CERT_DIR'): os.environ.pop(k, None)\n"
        "sys.modules['pygit2'] = None\n"
        "from guard.repo import binding\n"
    )
    r = python(repo.root, "-c", code)
    assert r.returncode != 0 and "ModuleNotFoundError" in r.stderr, r
