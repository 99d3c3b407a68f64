"""One convention for the two output streams, in every command: the report on standard output
whatever it says (applied, refused, findings), and on standard error only what is not the report
(usage errors, internal errors, progress, the note that `apply` waits for input).  And -q/--quiet:
nothing unless something is wrong.

Before, `apply` and `rollback` printed a refusal on standard error with standard output empty,
`read` a file it could not show likewise, while `check` printed its findings on standard output.
"""

from __future__ import annotations

import json

from conftest import Repo, command

LAZY = json.dumps(
    {"file_path": "a.py", "old_string": "    return 1\n", "new_string": "    # ... existing code ...\n    return 2\n"}
)
CODE = "def f():\n    x = 0\n    return 1\n"


def _refusals(repo: Repo, cli):  # type: ignore[no-untyped-def]
    """Each command's refusal (exit 1), as the command line prints it."""
    repo.commit({"a.py": CODE})
    yield "apply", cli("apply", input=LAZY)
    yield "apply --check", cli("apply", "--check", input=LAZY)
    cli("apply", input=json.dumps({"file_path": "a.py", "old_string": "x = 0", "new_string": "x = 1"}))
    repo.write({"a.py": CODE.replace("x = 0", "x = 2")})
    yield "rollback", cli("rollback")
    repo.write({"a.py": CODE})
    yield "read", cli("read", "nope.py")
    repo.write({"a.py": CODE.replace("return 1", "return 1   ")})
    repo.git("add", "a.py")
    yield "check", cli("check", "--policy", "strict")


def test_a_refusal_is_the_report_on_standard_output(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    for name, r in _refusals(repo, cli):
        assert r.code == 1, (name, r)
        assert r.stdout and r.stderr == "", (name, r)
        assert (
            ": placeholder: " in r.stdout
            or ": rollback-conflict: " in r.stdout
            or ": missing: " in r.stdout
            or ": whitespace: " in r.stdout
        ), (name, r)


def test_usage_errors_go_to_standard_error(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": CODE})
    for args in (
        ("apply", "--format", "nope"),
        ("rollback",),
        ("check", "--from-ref", "nope", "--to-ref", "HEAD"),
        ("read", "a.py", "--lines", "x"),
        ("log", "--turn", "no such"),
    ):
        r = cli(*args, input="")
        assert r.code == 2 and r.stdout == "" and r.stderr, (args, r)


def test_the_programs_follow_it_too(repo: Repo) -> None:
    """The console programs (the click-free quick path included), not just the click commands."""
    repo.commit({"a.py": CODE})
    for argv in (["git", "agent-apply"], ["git", "agent-apply", "--check"], ["agent-guard", "apply", "--json"]):
        r = command(repo.root, *argv, input=LAZY.encode())
        assert r.returncode == 1 and b": placeholder: " in r.stdout or b'"placeholder"' in r.stdout, (argv, r)
        assert r.stderr == b"", (argv, r)


def test_quiet_prints_nothing_unless_something_is_wrong(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": CODE})
    edit = json.dumps({"file_path": "a.py", "old_string": "x = 0", "new_string": "x = 1"})
    for args in (("apply", "-q", "--check"), ("apply", "--quiet")):
        r = cli(*args, input=edit)
        assert r.code == 0 and r.stdout == r.stderr == "", (args, r)
    assert repo.read("a.py") == CODE.replace("x = 0", "x = 1").encode()
    refused = cli("apply", "-q", input=LAZY)
    assert refused.code == 1 and ": placeholder: " in refused.stdout, refused
    assert cli("rollback", "-q").stdout == ""
    assert repo.read("a.py") == CODE.encode()
    clean = cli("check", "-q")
    assert clean.code == 0 and clean.stdout == "", clean
    repo.write({"a.py": CODE.replace("return 1", "return 1   ")})
    repo.git("add", "a.py")
    found = cli("check", "-q", "--policy", "strict")
    assert found.code == 1 and found.stdout.startswith("a.py:3: whitespace: "), found
    assert "agent-guard check:" not in found.stdout  # the findings only, no summary
    assert cli("gc", "--keep", "5", "-q").stdout == ""
    assert cli("policy", "check", "-q", str(repo.root / "none.yaml")).code == 2
    (repo.root / "p.yaml").write_text("extends: strict\n")
    assert cli("policy", "check", "-q", str(repo.root / "p.yaml")).stdout == ""
    assert cli("uninstall", "-q").stdout == ""
