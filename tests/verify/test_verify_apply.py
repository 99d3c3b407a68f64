"""Verify before it lands (issue 26 §1): the policy's commands run on an edit's result, never on the user's tree.

Each test builds a real repository whose policy names real commands (small shell scripts), and
applies edits through the command line in-process or the Python API.  A refusal must leave the
repository byte for byte as it was (work tree, index, HEAD, refs); an apply must write exactly
the result the commands passed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import Repo, git

CALC = "def add(a, b):\n    return a + b\n\n\ndef twice(x):\n    return add(x, x)\n"
CHECK = 'for f in "$@"; do if grep -n BAD "$f"; then echo "$f: BAD is not allowed" >&2; exit 3; fi; done\n'


def patch(old: str, new: str, path: str = "src/calc.py") -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"


def twice_patch(new: str) -> str:
    return f"--- a/src/calc.py\n+++ b/src/calc.py\n@@ -4,3 +4,3 @@\n \n def twice(x):\n-    return add(x, x)\n+{new}\n"


def project(repo: Repo, policy: str, **files: str) -> Repo:
    repo.commit(
        {
            "src/calc.py": CALC,
            "check.sh": CHECK,
            ".agent-guard.yaml": policy,
            **{k.replace("__", "/").replace("_DOT_", "."): v for k, v in files.items()},
        }
    )
    return repo


def checkout(agent: str = "agent") -> Path:
    """The agent's shadow checkout: in the user's cache (the test's own HOME), never in the work tree."""
    [work] = (Path(os.environ["XDG_CACHE_HOME"]) / "agent-guard" / "verify").glob(f"*/{agent}/work")
    return work


def verify_runs(result) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    report = result.json()
    runs = report.get("verify")
    assert isinstance(runs, list), report
    return runs


def test_a_passing_command_lets_the_edit_land(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    index = (repo.root / ".git" / "index").read_bytes()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result
    runs = verify_runs(result)
    assert runs == [
        {
            "name": "no-bad",
            "status": "passed",
            "exit": 0,
            "seconds": runs[0]["seconds"],
            "cached": False,
            "command": "sh check.sh src/calc.py",
            "runner": runs[0]["runner"],
        }
    ]
    assert runs[0]["runner"] in ("bwrap", "unshare", "none")
    assert "verify: no-bad passed" in " ".join(result.json()["notes"])  # type: ignore[arg-type]
    assert repo.read("src/calc.py").endswith(b"return x + x\n")
    assert (repo.root / ".git" / "index").read_bytes() == index
    # The commands ran in the agent's shadow checkout, in the user's cache.
    assert (checkout() / "src" / "calc.py").read_bytes() == repo.read("src/calc.py")


def test_a_failing_command_refuses_the_edit_and_changes_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    before = repo.snapshot()
    result = cli("apply", "--json", input=twice_patch("    return add(x, x)  # BAD"))
    assert result.code == 1, result
    report = result.json()
    [finding] = report["findings"]  # type: ignore[misc]
    assert finding["code"] == "verify" and finding["severity"] == "error"
    assert finding["message"].startswith("'no-bad' (sh check.sh src/calc.py) failed with exit status 3")
    assert "src/calc.py: BAD is not allowed" in finding["message"]
    assert "6:    return add(x, x)  # BAD" in finding["message"]
    assert str(checkout()) in finding["hint"] and "nothing was written" in finding["hint"]
    assert verify_runs(result)[0]["status"] == "failed" and verify_runs(result)[0]["exit"] == 3
    assert repo.snapshot() == before
    # The same edit again: the answer is kept by (command, tree), so nothing runs a second time.
    again = cli("apply", "--json", input=twice_patch("    return add(x, x)  # BAD"))
    assert again.code == 1 and verify_runs(again)[0]["cached"] is True
    assert again.json()["findings"] == report["findings"]
    assert repo.snapshot() == before


def test_a_retry_of_the_same_result_runs_nothing(
    repo: Repo,
    cli,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = tmp_path / "count"
    monkeypatch.setenv("VERIFY_COUNT", str(count))
    # The command writes a file of the test's: it runs unconfined (a sandbox would give it a /tmp of its own).
    project(repo, 'verify_sandbox: off\nverify:\n  - {name: counted, run: "echo run >> \\"$VERIFY_COUNT\\""}\n')
    assert cli("apply", "--check", "--json", input=twice_patch("    return x + x")).code == 0
    assert cli("apply", "--check", "--json", input=twice_patch("    return x + x")).code == 0
    assert count.read_text() == "run\n"
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0 and verify_runs(result)[0]["cached"] is True
    assert count.read_text() == "run\n"
    # Another result: it runs.
    assert cli("apply", "--json", input=patch("def add(a, b):", "def add(a, b):  # sum")).code == 0
    assert count.read_text() == "run\nrun\n"


def test_a_command_past_its_timeout_is_stopped_with_its_children(
    repo: Repo,
    cli,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("VERIFY_PIDS", str(pids))
    project(
        repo,
        "verify_sandbox: off\n"
        'verify:\n  - {name: hangs, run: "sleep 60 & echo $! >> \\"$VERIFY_PIDS\\"; sleep 60", timeout: 1}\n',
    )
    before = repo.snapshot()
    started = time.monotonic()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    took = time.monotonic() - started
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert finding["code"] == "verify"
    assert "did not finish on this edit's result within its timeout of 1.0 s (verify[0].timeout)" in finding["message"]
    assert "stopped, with every process it started" in finding["message"]
    assert verify_runs(result)[0]["status"] == "timeout"
    assert took < 15, took
    assert repo.snapshot() == before
    pid = int(pids.read_text().split()[0])
    assert not _alive(pid), f"the command's child {pid} outlived its timeout"
    # A timeout is not kept: the next try runs the command again.
    pids.unlink()
    assert cli("apply", "--json", input=twice_patch("    return x + x")).code == 1
    assert pids.exists()


def test_what_a_command_leaves_running_is_stopped_when_it_ends(
    repo: Repo,
    cli,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("VERIFY_PIDS", str(pids))
    project(
        repo, 'verify_sandbox: off\nverify:\n  - {name: leaves-one, run: "sleep 60 & echo $! >> \\"$VERIFY_PIDS\\"; exit 0"}\n'
    )
    started = time.monotonic()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result
    assert time.monotonic() - started < 15
    assert not _alive(int(pids.read_text().split()[0]))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return "\nState:\tZ" not in state


FMT = (
    'for f in "$@"; do if grep -q "[a-z]+[a-z]" "$f"; then sed "s/\\([a-z]\\)+\\([a-z]\\)/\\1 + \\2/g" "$f" > "$f.t" '
    '&& mv "$f.t" "$f"; echo "reformatted $f"; s=1; fi; done; exit ${s:-0}\n'
)


def test_a_formatters_fix_is_taken_and_checked_again(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(
        repo,
        'verify:\n  - {name: format, run: "sh fmt.sh {files}", files: ["*.py"], fix: true}\n'
        '  - {name: no-bad, run: "sh check.sh {files}"}\n',
        fmt_DOT_sh=FMT,
    )
    result = cli("apply", "--json", input=twice_patch("    return x+x"))
    assert result.code == 0, result
    report = result.json()
    assert report["files"][0]["repairs"] == ["verify-fix"]  # type: ignore[index]
    assert repo.read("src/calc.py").endswith(b"    return x + x\n")
    assert [(r["name"], r["status"]) for r in verify_runs(result)] == [("format", "fixed"), ("no-bad", "passed")]
    # The report's diff and the turn are what was written: the formatted line.
    assert "+    return x + x\n" in report["diff"]  # type: ignore[operator]
    commit = report["turn"]["commit"]  # type: ignore[index]
    assert git(repo.root, "show", f"{commit}:src/calc.py").endswith("    return x + x\n")
    # --check says the same, and writes nothing.
    repo.git("checkout", "--", "src/calc.py")
    before = repo.snapshot()
    checked = cli("apply", "--check", "--json", input=twice_patch("    return x+x"))
    assert checked.code == 0 and checked.json()["files"][0]["repairs"] == ["verify-fix"]  # type: ignore[index]
    assert repo.snapshot() == before


def test_a_fix_that_breaks_a_check_is_refused(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # A "formatter" that writes a conflict marker: the policy's checks judge the fixed file again.
    bad = 'for f in "$@"; do printf "<<<<<<< ours\\n" >> "$f"; done; exit 1\n'
    project(repo, 'verify:\n  - {name: breaks, run: "sh bad.sh {files}", fix: true}\n', bad_DOT_sh=bad)
    before = repo.snapshot()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 1, result
    codes = [f["code"] for f in result.json()["findings"] if f["severity"] == "error"]  # type: ignore[union-attr]
    # Run again on its own output, it adds another marker: its changes never settle.
    assert codes == ["verify"], result
    assert "again when run on its own changes" in result.json()["findings"][0]["message"]  # type: ignore[index]
    assert repo.snapshot() == before


def test_a_fix_is_checked_by_the_policy(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # A formatter that settles on output the policy refuses: a conflict marker line, once.
    marker = (
        'for f in "$@"; do grep -q "^=======$" "$f" || { printf "<<<<<<< a\\n=======\\n>>>>>>> b\\n" >> "$f"; s=1; }; '
        "done; exit ${s:-0}\n"
    )
    project(repo, 'verify:\n  - {name: marks, run: "sh mark.sh {files}", fix: true}\n', mark_DOT_sh=marker)
    before = repo.snapshot()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 1, result
    errors = [f for f in result.json()["findings"] if f["severity"] == "error"]  # type: ignore[union-attr]
    assert [f["code"] for f in errors] == ["conflict-marker"] * len(errors) and errors, result
    assert repo.snapshot() == before


def test_without_fix_a_formatters_change_refuses_with_its_diff(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: format, run: "sh fmt.sh {files}", files: ["*.py"]}\n', fmt_DOT_sh=FMT)
    before = repo.snapshot()
    result = cli("apply", "--json", input=twice_patch("    return x+x"))
    assert result.code == 1, result
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert "'format' (sh fmt.sh src/calc.py) changed src/calc.py when run on this edit's result" in finding["message"]
    assert "-    return x+x\n    +    return x + x" in finding["message"]
    assert "fix: true in verify[0]" in finding["hint"]
    assert repo.snapshot() == before


def test_the_agents_earlier_turns_are_in_the_result(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # The check needs `half` (turn 1, never staged) to be defined where turn 2 uses it.
    uses = 'grep -q "def half" src/calc.py || { echo "half is not defined" >&2; exit 1; }\n'
    project(
        repo,
        'verify:\n  - {name: defined, run: "sh uses.sh", files: ["src/main.py"]}\n',
        uses_DOT_sh=uses,
        src__main_DOT_py="print(1)\n",
    )
    half = (
        "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,2 +1,6 @@\n+def half(x):\n+    return x / 2\n+\n+\n"
        " def add(a, b):\n     return a + b\n"
    )
    assert cli("apply", input=half).code == 0
    result = cli("apply", "--json", input=patch("print(1)", "print(half(4))", "src/main.py"))
    assert result.code == 0, result
    assert verify_runs(result)[0]["status"] == "passed"


def test_untracked_and_protected_files_are_not_there(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    probe = (
        'for f in notes.txt .env secrets/id.pem; do test -e "$f" && { echo "$f is here" >&2; exit 1; }; done; '
        "test -e src/calc.py\n"
    )
    project(
        repo,
        'verify:\n  - {name: probe, run: "sh probe.sh"}\n',
        probe_DOT_sh=probe,
        **{"_DOT_env": "SECRET=1\n", "secrets__id_DOT_pem": "KEY\n"},
    )
    repo.write({"notes.txt": "the user's own, untracked\n"})
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result


def test_files_are_handed_over_quoted_and_only_when_they_match(
    repo: Repo,
    cli,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    got = tmp_path / "got"
    monkeypatch.setenv("VERIFY_GOT", str(got))
    show = 'for f in "$@"; do printf "%s\\n" "$f" >> "$VERIFY_GOT"; test -f "$f" || exit 9; done\n'
    project(
        repo, 'verify_sandbox: off\nverify:\n  - {name: show, run: "sh show.sh {files}", files: ["*.txt"]}\n', show_DOT_sh=show
    )
    name = "odd $(name) 'x'.txt"
    edit = json.dumps({"path": name, "content": "hello\n"})
    result = cli("apply", "--json", "--format", "json", input=edit)
    assert result.code == 0, result
    assert got.read_text() == name + "\n"
    # No changed file matches its globs: not run at all.
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0
    assert verify_runs(result) == [{"name": "show", "status": "skipped", "reason": "no changed file matches its files (*.txt)"}]


def test_no_verify_section_runs_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"src/calc.py": CALC})
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0
    assert "verify" not in result.json()
    assert not (repo.root / ".git" / "agent-guard" / "verify").exists()


def test_output_is_escaped_and_bounded(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    noisy = (
        'i=0; while [ $i -lt 2000 ]; do printf "\\033[31mline %s\\033[0m \\033]0;title\\007\\r\\n" $i; i=$((i+1)); done; '
        'printf "%0500d\\n" 0; printf "\\001\\002 last\\n"; exit 1\n'
    )
    project(repo, 'verify:\n  - {name: noisy, run: "sh noisy.sh"}\n', noisy_DOT_sh=noisy)
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 1
    message = result.json()["findings"][0]["message"]  # type: ignore[index]
    lines = message.split("\n")[1:]
    assert len(lines) <= 40 and len(message.encode()) < 5000, message
    assert "\x1b" not in message and "\x07" not in message and "\r" not in message
    assert lines[-1] == "    \\x01\\x02 last" and lines[-3] == "    line 1999"


def test_nothing_a_command_does_reaches_the_users_repository(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # A command that stages, commits, stashes, resets and writes files: all in the checkout's own repository.
    rough = (
        "git add -A && git -c user.name=x -c user.email=x@y commit -qm mine && echo junk > src/calc.py && "
        "echo more > new.txt && git stash -q -u && git reset -q --hard HEAD~0 && echo changed > check.sh\n"
    )
    project(repo, 'verify:\n  - {name: rough, run: "sh rough.sh"}\n', rough_DOT_sh=rough)
    repo.write({"untracked.txt": "mine\n"})
    repo.git("add", "check.sh")  # something staged
    before = repo.snapshot()
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result
    after = repo.snapshot()
    assert after.pop("src/calc.py") != before.pop("src/calc.py")  # the edit, and nothing else
    after.pop("<refs>"), before.pop("<refs>")  # the agent's ledger ref moved
    assert after == before
    assert "stash" not in repo.git("for-each-ref")
    # The checkout is back to the result for the next edit: the command's traces are gone.
    work = checkout()
    assert not (work / "new.txt").exists() and (work / "check.sh").read_bytes() == repo.read("check.sh")


def _meanwhile(monkeypatch: pytest.MonkeyPatch, user_file: Path, times: int) -> None:
    """Someone else (the user, another tool) adds a line to `user_file` while the verify commands run,
    the first `times` verifies: once they are done, as agent-guard cannot tell a change made during
    them from the commands' own (it would put that back) unless it comes after."""
    import guard.verify

    real = guard.verify.run
    left = [times]

    def run(*args, **kwargs):  # type: ignore[no-untyped-def]
        verdict = real(*args, **kwargs)
        if left[0] > 0:
            left[0] -= 1
            with user_file.open("a") as fh:
                fh.write("# the user's line\n")
        return verdict

    monkeypatch.setattr(guard.verify, "run", run)


def test_the_edit_is_planned_again_after_the_commands(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # The commands run with the repository unlocked; meanwhile the user changes the file the edit
    # changes.  The edit is planned again on the new file, verified again, and written on top of it.
    project(repo, 'verify:\n  - {name: ok, run: "true"}\n')
    _meanwhile(monkeypatch, repo.root / "src" / "calc.py", 1)
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result
    assert repo.read("src/calc.py") == CALC.replace("add(x, x)", "x + x").encode() + b"# the user's line\n"


def test_an_edit_whose_file_keeps_changing_is_refused(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    project(repo, 'verify:\n  - {name: ok, run: "true"}\n')
    _meanwhile(monkeypatch, repo.root / "src" / "calc.py", 10)
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 1, result
    stale = [f for f in result.json()["findings"] if f["code"] == "stale"]  # type: ignore[union-attr]
    assert stale and "changed 3 times while the verify commands ran" in stale[0]["message"]
    assert b"x + x" not in repo.read("src/calc.py")


def test_the_python_api_verifies_too(repo: Repo) -> None:
    import guard

    project(repo, 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    report = guard.apply(twice_patch("    return add(x, x)  # BAD"), repo=repo.root, agent="api")
    assert report.status == "refused" and [f.code for f in report.findings] == ["verify"]
    assert guard.apply(twice_patch("    return x + x"), repo=repo.root, agent="api").status == "applied"


def test_the_index_with_conflicts_is_verified_on_head(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    from conftest import conflicted

    conflicted(repo)
    repo.write({".agent-guard.yaml": 'verify:\n  - {name: t, run: "true"}\n', "b.txt": "b\n"})
    result = cli("apply", "--json", "--format", "json", input=json.dumps({"path": "c.txt", "content": "c\n"}))
    assert result.code == 0, result
    assert "the index has unmerged paths: verified on HEAD's files instead" in result.json()["notes"]  # type: ignore[operator]


def test_the_stats_count_refusals_per_command(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project(
        repo,
        'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n'
        '  - {name: never, run: "exit 1", files: ["*.md"]}\n',
    )
    for i in range(3):
        assert cli("apply", input=twice_patch(f"    return add(x, x)  # BAD {i}")).code == 1
    assert cli("apply", input=twice_patch("    return x + x")).code == 0
    out = cli("stats", "--json").json()
    [agent] = out["agents"]  # type: ignore[misc]
    assert agent["by_verify"] == {"no-bad": 3} and agent["by_code"] == {"verify": 3}
    text = cli("stats").stdout
    assert "refused by the verify commands: no-bad 3" in text


def test_an_edit_no_command_concerns_is_written_in_one_pass(repo: Repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # No command's globs match the changed file: the verdict is known under the lock, so the
    # repository is not unlocked to run commands (none would run) and the edit is planned once.
    import guard.pipeline.apply
    import guard.verify

    project(repo, 'verify:\n  - {name: docs, run: "exit 1", files: ["*.md"]}\n')
    planned = []
    real_plan = guard.pipeline.apply.plan

    def plan(*args, **kwargs):  # type: ignore[no-untyped-def]
        planned.append(1)
        return real_plan(*args, **kwargs)

    def unlocked_run(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("verify.run called for an edit no command concerns")

    monkeypatch.setattr(guard.pipeline.apply, "plan", plan)
    monkeypatch.setattr(guard.verify, "run", unlocked_run)
    result = cli("apply", "--json", input=twice_patch("    return x + x"))
    assert result.code == 0, result
    assert planned == [1]
    assert verify_runs(result) == [{"name": "docs", "status": "skipped", "reason": "no changed file matches its files (*.md)"}]
    assert repo.read("src/calc.py").endswith(b"return x + x\n")


@pytest.mark.parametrize(
    "mischief,lands",
    [
        (
            "rm -f .git/config .git/HEAD .git/info/exclude ../state.json; mkdir .git/config .git/HEAD .git/info/exclude"
            " ../state.json",
            True,
        ),
        ("rm -f ../index.pristine; mkdir ../index.pristine", False),
    ],
    ids=["folders-in-the-git-dir", "folder-for-the-kept-index"],
)
def test_what_a_command_breaks_in_the_shadow_is_mended_or_refused_never_an_internal_error(
    repo: Repo, cli, mischief: str, lands: bool
) -> None:  # type: ignore[no-untyped-def]
    """A command (the agent's own tests, say) puts folders where the shadow keeps its files: settle
    puts its files back, or the edit is refused; never exit 3, and the next edit verifies again."""
    # Unconfined: a sandbox keeps the command from the shadow's own files beside the checkout.
    project(
        repo, 'verify_sandbox: off\nverify:\n  - {name: mess, run: "sh mess.sh", files: ["*.py"]}\n', mess_DOT_sh=mischief + "\n"
    )
    before = repo.snapshot()
    result = cli("apply", "--json", "--check", input=twice_patch("    return x + x"))
    assert result.code == (0 if lands else 1), result
    if not lands:
        [finding] = result.json()["findings"]
        assert finding["code"] == "verify" and "could not be prepared" in finding["message"], finding
    assert repo.snapshot() == before
    (repo.root / "mess.sh").write_text("true\n")
    repo.commit()
    again = cli("apply", "--json", "--check", input=twice_patch("    return x + x"))
    assert again.code == 0 and verify_runs(again)[0]["status"] == "passed", again
