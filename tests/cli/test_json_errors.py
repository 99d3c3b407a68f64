"""A usage error under ``--json`` still prints one JSON object on standard output (CONTRACT.md).

Whether the arguments asked for JSON is read from the command's own click options
(``failure.json_wanted``): where click reads a request for JSON there is one, and where click
refuses the arguments they are read leniently (a repeated --json still asks for JSON).  The
same for `agent-guard X ARGS` and `git agent-X ARGS`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# (command, arguments, JSON asked for): each run outside any repository, so each is a usage error.
CASES = [
    ("apply", ["--json"], True),
    ("apply", ["--json", "p.diff"], True),
    ("apply", ["p.diff", "--json"], True),
    ("apply", ["--agent", "--json"], False),  # click reads an agent named --json
    ("apply", ["--agent=--json"], False),
    ("apply", ["--check"], False),
    ("apply", [], False),
    ("apply", ["--", "--json"], False),  # a FILE named --json
    ("apply", ["--format", "json"], False),  # the edit's dialect, not the output
    ("apply", ["--json", "--json"], True),
    ("apply", ["--json=1"], False),  # click refuses it
    ("apply", ["--format", "nope", "--json"], True),  # click refuses the dialect; JSON was asked
    ("check", ["--json"], True),
    ("check", ["--output-format", "json"], True),
    ("check", ["--output-format=json"], True),
    ("check", ["--format", "json"], True),
    ("check", ["--format=json"], True),
    ("check", ["--format", "sarif"], False),
    ("check", ["--output-format", "github", "--json"], True),  # the command refuses the pair
    ("check", ["--policy", "json"], False),
    ("check", ["--", "--json"], False),
    ("check", ["a.py", "--format", "json"], True),
    ("check", ["--format"], False),
    ("check", ["--output-format", "jsonx"], False),
    ("log", ["--json"], True),
    ("log", ["--agent", "--json"], False),
    ("log", ["--json", "--bogus"], True),
    ("show", ["7", "--json"], True),
    ("rollback", ["--json"], True),
    ("session", ["--json"], True),
    ("read", ["a.py", "--json"], True),
    ("stats", ["--json"], True),
    ("policy show", ["--json", "--bogus"], True),
    ("policy list", ["--json", "--bogus"], True),
    ("gc", ["--keep", "1"], False),
]


def _run(cwd: Path, args: list[str], prog: str = "agent-guard", command: str | None = None) -> tuple[int, str, str]:
    """`main` in-process from `cwd`, with empty standard input: (status, stdout, stderr)."""
    from click.testing import CliRunner

    from guard.cli.commands import main

    old = os.getcwd()
    os.chdir(cwd)
    try:
        with CliRunner().isolation(input="") as streams:
            try:
                main(args, prog=prog, command=command)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            return code, streams[0].getvalue().decode(), streams[1].getvalue().decode()
    finally:
        os.chdir(old)


@pytest.mark.parametrize("name,args,wanted", CASES, ids=[f"{n} {' '.join(a)}" for n, a, _ in CASES])
def test_a_usage_error_answers_in_json_when_json_was_asked(tmp_path: Path, name: str, args: list[str], wanted: bool) -> None:
    words = name.split()
    runs = {
        f"agent-guard {name}": _run(tmp_path, [*words, *args]),
        f"git agent-{name}": _run(tmp_path, [*words[1:], *args], prog=f"git agent-{words[0]}", command=words[0]),
        f"agent-guard -C . {name}": _run(tmp_path, ["-C", ".", *words, *args]),
    }
    for how, (code, out, err) in runs.items():
        assert code == 2 and err, (how, code, out, err)
        if wanted:
            doc = json.loads(out)  # one object, nothing else
            assert doc["status"] == "error" and [f["code"] for f in doc["findings"]] == ["usage"], (how, doc)
            assert doc["files"] == [] and doc["findings"][0]["message"], (how, doc)
        else:
            assert out == "", (how, out)


# An option given last without its value: click's parser refuses it without the command's
# context, so it printed the error alone.  It must show the usage lines, as an unknown option does.
MISSING_VALUE = [("log", "--turn"), ("log", "--agent"), ("stats", "--since"), ("check", "--format"), ("policy show", "--policy")]


@pytest.mark.parametrize("name,option", MISSING_VALUE, ids=[f"{n} {o}" for n, o in MISSING_VALUE])
def test_an_option_without_its_value_shows_the_usage_lines(tmp_path: Path, name: str, option: str) -> None:
    words = name.split()
    for prog, command, path, given in (
        ("agent-guard", None, f"agent-guard {name}", words),
        (f"git agent-{words[0]}", words[0], f"git agent-{name}", words[1:]),
        ("agent-guard", None, f"agent-guard {name}", ["-C", ".", *words]),
    ):
        code, out, err = _run(tmp_path, [*given, option], prog=prog, command=command)
        bogus = _run(tmp_path, [*given, "--bogus"], prog=prog, command=command)[2]
        assert (code, out) == (2, ""), (path, code, out, err)
        assert err.startswith(f"Usage: {path} [OPTIONS]"), (path, err)
        assert err.splitlines()[:3] == bogus.splitlines()[:3], (path, err, bogus)
        assert err.endswith(f"\n\nError: Option '{option}' requires an argument.\n"), (path, err)
    code, out, err = _run(tmp_path, [*words, "--json", option])
    assert code == 2 and json.loads(out)["findings"][0]["hint"] == f"see `agent-guard {name} --help`", out
