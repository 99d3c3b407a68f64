"""Verify tells the truth and shows nothing protected (issue 37 §3).

A hostile verify command (the agent's own test) may read the user's secrets and print them in
its failure, or write the user's work tree, hooks, config and refs behind agent-guard's back.
Each test here plays one such command against a real repository:

- a protected file's lines never come out in a finding, the JSON report or the hook's answer,
  whether the command climbs up from its folder or names the file's full path;
- the checkout lives outside the work tree, in a private folder of the user's;
- what a command changed in the user's repository is reported, its contents kept as blobs,
  and put back byte for byte (modes too).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, git

AGENT_GUARD = Path(sys.executable).with_name("agent-guard")
CALC = "def add(a, b):\n    return a + b\n\n\ndef twice(x):\n    return add(x, x)\n"
SECRET = "hunter2-s3cr3t-token-9f8e"
KEY = "MIIEowIBAAKCAQEAt3st-k3y-m4t3r1al"
EDIT = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -4,3 +4,3 @@\n \n def twice(x):\n-    return add(x, x)\n+    return x + x\n"


def project(repo: Repo, policy: str, files: dict[str, str]) -> Repo:
    repo.commit({"src/calc.py": CALC, ".agent-guard.yaml": policy, ".gitignore": ".env\n", **files})
    repo.write({".env": f"API_TOKEN={SECRET}\n"})
    return repo


def said(result) -> str:  # type: ignore[no-untyped-def]
    return result.stdout + result.stderr


# ---------------------------------------------------------------------- nothing protected is shown


CLIMB = 'd=..; i=0; while [ $i -lt 9 ]; do cat "$d/.env" 2>/dev/null; d="$d/.."; i=$((i+1)); done; echo climbed; exit 1\n'


def test_a_secret_up_the_folders_never_shows(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: climb, run: "sh climb.sh"}\n', {"climb.sh": CLIMB})
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    assert "climbed" in result.stdout  # the command ran, and its output is shown
    assert SECRET not in said(result)
    again = cli("apply", input=EDIT)  # the kept answer, as text
    assert again.code == 1 and "climbed" in said(again)
    assert SECRET not in said(again)


def test_the_hooks_answer_shows_no_secret(repo: Repo) -> None:
    project(repo, 'verify:\n  - {name: climb, run: "sh climb.sh"}\n', {"climb.sh": CLIMB})
    payload = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo.root / "src" / "calc.py"), "old_string": "add(x, x)", "new_string": "x + x"},
        "tool_use_id": "toolu_1",
    }
    denied = subprocess.run(
        [str(AGENT_GUARD), "hook", "claude-code"],
        input=json.dumps(payload),
        cwd=repo.root,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert denied.returncode == 2, denied
    assert "climbed" in denied.stderr
    assert SECRET not in denied.stdout + denied.stderr


def test_a_protected_file_named_by_its_full_path_is_redacted(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # Whether or not the command can reach the user's tree, no line of a protected file (here an
    # ignored .env and a tracked key) comes out in what agent-guard says.
    monkeypatch.setenv("USER_ROOT", str(repo.root))
    peek = 'cat "$USER_ROOT/.env" "$USER_ROOT/keys/deploy.pem"; echo "token is ${SECRET_PART:-}"; echo peeked; exit 1\n'
    project(
        repo,
        'verify:\n  - {name: peek, run: "sh peek.sh"}\n',
        {"peek.sh": peek, "keys/deploy.pem": f"-----BEGIN KEY-----\n{KEY}\n-----END KEY-----\n"},
    )
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    assert "peeked" in result.stdout
    assert SECRET not in said(result) and KEY not in said(result)


def test_the_redaction_of_a_command_that_reaches_the_secret(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # No sandbox: the command reads the file; its lines are replaced where they appear.
    monkeypatch.setenv("USER_ROOT", str(repo.root))
    peek = 'echo "before"; cat "$USER_ROOT/.env"; echo "x API_TOKEN=' + SECRET + ' y"; echo after; exit 1\n'
    project(repo, 'verify_sandbox: off\nverify:\n  - {name: peek, run: "sh peek.sh"}\n', {"peek.sh": peek})
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert SECRET not in said(result)
    assert "before" in finding["message"] and "after" in finding["message"]
    assert "[a line of .env: protected, not shown]" in finding["message"], finding


# ---------------------------------------------------------------------- where the checkout lives


def shadows(repo: Repo) -> Path:
    [found] = list((Path(os.environ["XDG_CACHE_HOME"]) / "agent-guard" / "verify").glob("*/agent"))
    return found


def test_the_checkout_is_outside_the_work_tree_and_private(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: ok, run: "true"}\n', {})
    old = repo.root / ".git" / "agent-guard" / "verify" / "agent"
    (old / "work").mkdir(parents=True)
    (old / "work" / "left.txt").write_text("an old checkout\n")
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 0, result
    assert not old.exists()  # the old place is cleaned up
    folder = shadows(repo)
    assert (folder / "work" / "src" / "calc.py").read_bytes() == repo.read("src/calc.py")
    for d in (folder, folder.parent, folder.parent.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


def test_a_checkout_folder_others_may_write_is_refused(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: ok, run: "true"}\n', {})
    assert cli("apply", "--check", input=EDIT).code == 0
    mine = shadows(repo).parent
    mine.chmod(0o777)
    before = repo.snapshot()
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert finding["code"] == "verify" and str(mine) in finding["message"] and "others may write" in finding["message"]
    assert repo.snapshot() == before
    if os.geteuid() == 0:
        mine.chmod(0o700)
        os.chown(mine, 65534, -1)
        refused = cli("apply", "--json", input=EDIT)
        assert refused.code == 1 and "belongs to uid 65534" in refused.json()["findings"][0]["message"]  # type: ignore[index]


def test_uninstall_takes_the_checkouts_away(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: ok, run: "true"}\n', {})
    assert cli("apply", input=EDIT).code == 0
    folder = shadows(repo).parent
    listed = cli("uninstall")
    assert f"would remove the folder {folder} (the verify commands' checkouts of this repository)" in listed.stdout, listed
    assert folder.is_dir()
    assert cli("uninstall", "--yes").code == 0
    assert not folder.exists()


# ---------------------------------------------------------------------- what a command changes is put back


TAMPER = """\
printf 'pwned\\n' > "$USER_ROOT/app.py"; chmod 644 "$USER_ROOT/app.py"
printf 'dropped\\n' > "$USER_ROOT/dropped.txt"
printf 'theirs\\n' >> "$USER_ROOT/notes.txt"
rm -f "$USER_ROOT/README.md"
printf '#!/bin/sh\\necho evil\\n' > "$USER_ROOT/.git/hooks/pre-commit"
printf '#!/bin/sh\\necho evil\\n' > "$USER_ROOT/.git/hooks/post-checkout"; chmod +x "$USER_ROOT/.git/hooks/post-checkout"
git config --file "$USER_ROOT/.git/config" alias.st '!sh -c evil'
git --git-dir="$USER_ROOT/.git" update-ref refs/heads/evil HEAD
git --git-dir="$USER_ROOT/.git" --work-tree="$USER_ROOT" add app.py
echo tampered
"""


def test_what_a_command_writes_in_the_users_repository_is_reported_and_put_back(
    repo: Repo,
    cli,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setenv("USER_ROOT", str(repo.root))
    project(
        repo,
        'verify_sandbox: off\nverify:\n  - {name: tamper, run: "sh tamper.sh"}\n',
        {"tamper.sh": TAMPER, "app.py": "print('app')\n", "README.md": "read me\n"},
    )
    (repo.root / "app.py").chmod(0o755)
    repo.commit()
    repo.write({"notes.txt": "the user's own, untracked\n"})
    hooks = repo.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    (hooks / "pre-commit").chmod(0o755)
    config = (repo.root / ".git" / "config").read_bytes()
    before = repo.snapshot()
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    errors = [f for f in result.json()["findings"] if f["severity"] == "error"]  # type: ignore[union-attr]
    assert [f["code"] for f in errors] == ["verify"], errors
    message = errors[0]["message"]
    for name in ("app.py", "dropped.txt", "notes.txt", "README.md", "pre-commit", "post-checkout", "refs/heads/evil"):
        assert name in message, (name, message)
    assert "config" in message and "index" in message and "put back" in message
    # Evidence: what the command wrote is kept as a blob the message names.
    blob = git(repo.root, "hash-object", "--stdin", input=b"pwned\n").strip()
    assert blob in message
    assert git(repo.root, "cat-file", "-p", blob) == "pwned\n"
    # And the user's repository is byte for byte as it was: files and modes, index, HEAD, refs, hooks, config.
    assert repo.snapshot() == before
    assert (repo.root / ".git" / "config").read_bytes() == config
    assert sorted(p.name for p in hooks.iterdir()) == ["pre-commit"]
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\necho mine\n"
    assert stat.S_IMODE((repo.root / "app.py").stat().st_mode) & 0o111


# ---------------------------------------------------------------------- the sandbox


def _runner() -> str:
    from guard.verify import sandbox

    found = sandbox.choose("auto")
    return found if isinstance(found, str) else found.name


confined = pytest.mark.skipif(_runner() == "none", reason="no sandbox here: no bwrap, and unshare cannot make a user namespace")

ESCAPE = """\
for f in "$USER_ROOT/app.py" "$USER_ROOT/.git/hooks/pre-commit" "$USER_ROOT/.git/config" ../escape.txt "$HOME/escape.txt"; do
  if echo x >> "$f" 2>/dev/null; then echo "wrote $f"; fi
done
if cat "$USER_ROOT/.env" 2>/dev/null; then echo "read the secret"; fi
if cat ../../../../../.env 2>/dev/null; then echo "climbed to the secret"; fi
touch inside.txt && echo "wrote the checkout"
echo scratch > /tmp/scratch && echo "wrote its /tmp"
exit 1
"""


@confined
def test_a_confined_command_changes_nothing_outside_its_checkout(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("USER_ROOT", str(repo.root))
    project(repo, 'verify_sandbox: required\nverify:\n  - {name: escape, run: "sh escape.sh"}\n', {"escape.sh": ESCAPE})
    repo.commit({"app.py": "print('app')\n"})
    before = repo.snapshot()
    config = (repo.root / ".git" / "config").read_bytes()
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    message = finding["message"]
    assert "wrote the checkout" in message and "wrote its /tmp" in message, message
    # (Under /tmp, as here, the folders above the checkout are the sandbox's own /tmp: what goes there is lost.)
    assert f"wrote {repo.root}" not in message and "read the secret" not in message and "climbed" not in message, message
    assert SECRET not in said(result)
    [run] = result.json()["verify"]  # type: ignore[misc]
    assert run["runner"] == _runner() and run["runner"] in ("bwrap", "unshare")
    assert f"verify: ran in {_runner()}" in " ".join(result.json()["notes"])  # type: ignore[arg-type]
    assert repo.snapshot() == before and (repo.root / ".git" / "config").read_bytes() == config
    assert not (Path(os.environ["HOME"]) / "escape.txt").exists()
    assert not (shadows(repo) / "escape.txt").exists()
    assert not (shadows(repo) / "work" / "inside.txt").exists()  # the checkout is put back too


def test_a_required_sandbox_that_is_not_there_refuses_clearly(
    repo: Repo,
    cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    project(repo, 'verify_sandbox: required\nverify:\n  - {name: ok, run: "true"}\n', {})
    monkeypatch.setenv("PATH", str(bin_dir))  # no bwrap, no unshare
    before = repo.snapshot()
    result = cli("apply", "--json", input=EDIT)
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert finding["code"] == "verify" and "verify_sandbox is required, but no sandbox works here" in finding["message"]
    assert "install bubblewrap" in finding["hint"]
    assert result.json()["verify"] == [{"name": "ok", "status": "skipped", "reason": "no sandbox"}]
    assert repo.snapshot() == before
    # auto runs it unconfined, and says so.
    (repo.root / ".agent-guard.yaml").write_text('verify:\n  - {name: ok, run: "true"}\n')
    repo.commit()
    landed = cli("apply", "--json", input=EDIT)
    assert landed.code == 0, landed
    assert landed.json()["verify"][0]["runner"] == "none"  # type: ignore[index]
    assert "verify: ran unconfined (no sandbox)" in landed.json()["notes"]  # type: ignore[operator]


def test_the_setting_reads_as_written() -> None:
    from guard.verify import sandbox

    assert [sandbox.setting(v) for v in ("auto", "required", "off", False, None, "bogus")] == [
        "auto",
        "required",
        "off",
        "off",
        "auto",
        "auto",
    ]
