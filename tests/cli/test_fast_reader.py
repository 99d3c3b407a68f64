"""`apply` and `hook claude-code` read without click (``guard/cli/fast.py``): as click reads them, or not at all.

Both readers come from one declaration (``guard/cli/options.py``): the click commands are
made from it, so they offer the same options; these tests hold the reading rules (repeats,
values that look like options, `--`) to click's.  The reader takes plain arguments only and
hands everything else to click, which owns the help and every usage error.  (The same for
`check`: tests/cli/test_cli_exit.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import Repo, checkout_env, python

from guard.cli import fast, options

APPLY_ARGVS = [
    [],
    ["p.diff"],
    ["-"],
    ["--check", "p.diff"],
    ["p.diff", "--json"],
    ["--json", "--diff", "--check"],
    ["--format", "codex"],
    ["--format=search-replace", "p.diff"],
    ["--agent", "claude", "--turn", "7"],
    ["--agent=", "p.diff"],
    ["--policy", "strict"],
    ["--policy=./p.yaml", "--check"],
    ["--path", "a.py"],
    ["--format", "whole", "--path=a.py", "p.diff"],
    ["missing.diff"],
    ["--", "-x"],
    ["--", "--json"],
    ["--turn", ""],
    ["--dialect", "codex"],
    ["--dialect=search-replace", "p.diff"],
    # Left to click (help, mistakes, repeats, values that look like options, a FILE click refuses):
    ["-h"],
    ["--help"],
    ["--format", "nope"],
    ["--format", "AUTO"],
    ["--format"],
    ["--agent", "--json"],
    ["--json", "--json"],
    ["--agent", "a", "--agent", "b"],
    ["--check=1"],
    ["--unknown"],
    ["-x"],
    ["--form", "codex"],
    ["a", "b"],
    ["p.diff", "--", "q"],
    ["d"],
    ["--", "d"],
]


@pytest.mark.parametrize("argv", APPLY_ARGVS, ids=[" ".join(a) or "(none)" for a in APPLY_ARGVS])
def test_apply_arguments_read_as_click_reads_them(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.cli import commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.diff").write_text("")
    (tmp_path / "d").mkdir()
    _same_as_click(fast.parse_apply(argv), commands.apply_cmd, "apply", argv)


HOOK_ARGVS = [
    [],
    ["--agent", "claude"],
    ["--turn=p1", "--policy", "strict"],
    ["--on-pass", "ask"],
    ["--on-pass=defer"],
    ["--deadline", "5"],
    ["--deadline=0.5"],
    ["--deadline", "12.25", "--agent", ""],
    ["--deadline", "1."],
    ["--deadline", ".5"],
    # Left to click (help, mistakes, repeats, spellings of numbers the reader does not take):
    ["-h"],
    ["--help"],
    ["--on-pass", "allow"],
    ["--on-pass", "nope"],
    ["--deadline", "0"],
    ["--deadline", "-1"],
    ["--deadline", "1e3"],
    ["--deadline", "inf"],
    ["--deadline", " 5"],
    ["--deadline", "x"],
    ["--deadline", "1.2.3"],
    ["--deadline", "٣"],
    ["--agent"],
    ["--agent", "a", "--agent", "b"],
    ["word"],
    ["--", "word"],
    ["--unknown"],
    ["--json"],
]


@pytest.mark.parametrize("argv", HOOK_ARGVS, ids=[" ".join(a) or "(none)" for a in HOOK_ARGVS])
def test_claude_code_arguments_read_as_click_reads_them(argv: list[str]) -> None:
    from guard.cli import adapters

    _same_as_click(fast.parse_claude_code(argv), adapters.claude_code_cmd, "claude-code", argv)


def _same_as_click(read: dict[str, Any] | None, command: click.Command, name: str, argv: list[str]) -> None:
    try:
        ctx = command.make_context(name, list(argv))
    except (click.exceptions.Exit, click.UsageError):
        assert read is None, argv  # help or a usage error: click's to say
        return
    if read is None:
        # Only a repeat (click: the last one wins), a dash-led value or a spelling of a
        # number the reader does not take may be left to click here.
        assert any(argv.count(o) > 1 for o in set(argv)) or "--agent" in argv or "--deadline" in argv, argv
        return
    assert read == ctx.params, argv


def _leave_code(*args: str) -> str:
    """A program run (``program.run``) that reports, as it ends, whether click was imported."""
    return (
        "import sys, os\nfrom guard.cli import program\n"
        "real_exit = os._exit\n"
        "def leave(status):\n    print('click' in sys.modules, status, file=sys.stderr)\n"
        "    sys.stderr.flush()\n    real_exit(status)\n"
        f"os._exit = leave\nprogram.run({list(args)!r})\n"
    )


def _click_loaded(stderr: str) -> bool:
    return stderr.strip().splitlines()[-1].split()[0] == "True"


def test_apply_without_click_imports_no_click_and_says_the_same(repo: Repo, tmp_path: Path) -> None:
    repo.commit({"a.py": "x = 1\n"})
    patch = tmp_path / "p.diff"
    patch.write_text("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    bad = tmp_path / "bad.diff"
    bad.write_text("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 7\n+x = 2\n")
    for args, click_loaded in (
        (["apply", "--check", str(patch)], False),
        (["apply", "--json", "--check", str(bad)], False),
        (["apply", "--check", str(tmp_path / "missing")], True),
        (["apply", "-h"], True),
    ):
        r = python(repo.root, "-c", _leave_code(*args))
        assert _click_loaded(r.stderr) == click_loaded, (args, r.stdout, r.stderr)
    # Same report, same status, with or without click: a pass, a refusal, JSON, a usage error.
    for args in (
        ["--check", str(patch)],
        ["--check", str(bad)],
        ["--json", "--check", str(bad)],
        ["--diff", "--check", str(patch)],
        ["--json", "--policy", "no-such-preset", str(patch)],
    ):
        quick = python(repo.root, "-m", "guard", "apply", *args)
        slow = python(repo.root, "-c", "from guard.cli.commands import main; main()", "apply", *args)
        assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr), args
    r = python(repo.root, "-m", "guard", "apply", "--json", str(patch))
    assert r.returncode == 0 and json.loads(r.stdout)["turn"]["ref"] == "refs/agent-guard/agent", r.stderr
    assert repo.read("a.py") == b"x = 2\n"


def test_claude_code_hook_without_click_imports_no_click_and_answers_the_same(repo: Repo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    payload = {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_use_id": "toolu_1",
        "tool_input": {"file_path": str(repo.root / "a.py"), "old_string": "x = 1", "new_string": "x = 2"},
    }
    r = _with_input(repo.root, json.dumps(payload).encode(), "-c", _leave_code("hook", "claude-code"))
    assert r.returncode == 0 and not _click_loaded(r.stderr.decode()), r.stderr
    denied = dict(
        payload, tool_input={"file_path": str(repo.root / "a.py"), "old_string": "x = 1", "new_string": "<<<<<<< HEAD\nx = 2"}
    )
    # Same answer, same status, with or without click: a pass, a denial, a payload it cannot read.
    for doc in (payload, denied, {"hook_event_name": 3}):
        data = json.dumps(doc).encode()
        quick = _with_input(repo.root, data, "-m", "guard", "hook", "claude-code")
        slow = _with_input(repo.root, data, "-c", "from guard.cli.commands import main; main()", "hook", "claude-code")
        assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr), doc
    assert quick.returncode == 2


def _with_input(cwd: Path, data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`python ARGS` in `cwd` with `data` on standard input, importing this checkout."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, input=data, capture_output=True, env=checkout_env(), timeout=120, check=False
    )


def _declared() -> list[tuple[options.Command, click.Command]]:
    from guard.cli import adapters, check, commands

    return [
        (options.APPLY, commands.apply_cmd),
        (options.CHECK, check.check_cmd),
        (options.CLAUDE_CODE, adapters.claude_code_cmd),
    ]


def test_the_click_commands_are_made_from_the_declaration() -> None:
    """Each quick command's click parameters are its declaration's, one for one and in order: the
    reader and click cannot offer different options, defaults or help."""
    from guard.dialects import DIALECTS

    for spec, command in _declared():
        params = [p for p in command.params if p.name != "version"]
        positional = [p for p in params if isinstance(p, click.Argument)]
        assert [p.name for p in positional] == ([spec.positional.key] if spec.positional else []), command.name
        opts = [p for p in params if isinstance(p, click.Option)]
        assert [tuple(p.opts) + tuple(p.secondary_opts) for p in opts] == [o.flags for o in spec.options], command.name
        for param, option in zip(opts, spec.options):
            assert param.name == option.key and param.help and param.help.startswith(option.help.split("{")[0])
            assert param.is_flag == (not option.takes_value), option.flags
            if option.given is not True and not option.takes_value:
                assert param.flag_value == option.given, option.flags
        assert spec.read([]) == command.make_context(command.name or "", []).params, command.name
    assert set(options.DIALECT_CHOICES) == {"auto", *DIALECTS}


JSON_ARGVS = {
    "apply": [
        ["--json"],
        ["--json", "p.diff"],
        ["p.diff", "--json"],
        ["--agent", "--json"],
        ["--agent=--json"],
        ["--check"],
        [],
        ["--", "--json"],
        ["--format", "json"],
        ["--json", "--json"],
        ["--json=1"],
    ],
    "check": [
        ["--json"],
        ["--output-format", "json"],
        ["--output-format=json"],
        ["--format", "json"],
        ["--format=json"],
        ["--format", "sarif"],
        ["--output-format", "github", "--json"],
        ["--policy", "json"],
        ["--", "--json"],
        ["a.py", "--format", "json"],
        ["--format"],
        ["--output-format", "jsonx"],
    ],
}


@pytest.mark.parametrize(
    "name,argv",
    [(n, a) for n, argvs in JSON_ARGVS.items() for a in argvs],
    ids=[f"{n} {' '.join(a)}" for n, argvs in JSON_ARGVS.items() for a in argvs],
)
def test_a_failure_answers_in_json_when_click_would_have_read_json(name: str, argv: list[str]) -> None:
    """``failure.json_wanted`` reads the same declaration: wherever click reads a request for JSON,
    it sees one (so a usage or internal error still prints one JSON object)."""
    from guard.cli.failure import json_wanted

    cmd = {command.name: command for _spec, command in _declared()}[name]
    wanted = json_wanted([name, *argv], None)
    assert wanted == json_wanted(argv, name), argv  # `agent-guard X ARGS` and `git agent-X ARGS`
    try:
        params = cmd.make_context(name, list(argv)).params
    except click.UsageError:
        return  # click refuses it; json_wanted reads leniently (a repeated --json still asks for JSON)
    assert wanted == bool(params["as_json"] or params.get("renderer") == "json"), (argv, params)


def test_reports_are_printed_as_click_printed_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """`emit` writes what click.echo wrote before it, on standard output whatever the outcome."""
    import io

    from guard.model import error
    from guard.report import Report
    from guard.report.render import human

    report = Report("refused", "unified", findings=(error("not-found", "a.py", 3, "no \x1b[31mred\x1b[0m line", "x"),))
    for as_json in (False, True):
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        assert fast.emit(report, as_json) == 1
        theirs = io.StringIO()
        click.echo(report.to_json() if as_json else human(report), file=theirs)
        assert out.getvalue() == theirs.getvalue() and err.getvalue() == ""
