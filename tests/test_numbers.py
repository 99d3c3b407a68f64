"""Numbers out of their range are usage errors that name the option and the range (``guard.bounds``).

Before: `gc --keep -1` removed every turn with exit 0, `log -n 99999999999999999999999`
and `stats --since 99999999999999999999d` ended in exit 3, `log -n -1` listed all turns but
one, MCP `list_turns` with `limit: 10**30` was an internal error, and a hashline line number
of 5,000 digits crashed the parser.  Every numeric option and argument is swept with what a
hostile caller writes: negative, zero where it means nothing, huge, 5,000 digits, 1e30,
NaN, infinity, fractions.  Each is refused where it comes in (exit 2 for an option, an error
result for an MCP argument, a `parse-error` for an edit, a policy error for a budget) and
nothing changes.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import Repo, checkout_env

HUGE = "99999999999999999999999"
DIGITS = "9" * 5000
HOSTILE = ["-1", HUGE, DIGITS, "1e30", "nan", "inf", "-inf", "1.5", "0x10", "", "abc"]

# (command words, option, the hostile values besides HOSTILE, words the error must hold)
OPTIONS: list[tuple[tuple[str, ...], str, list[str], str]] = [
    (("log",), "-n", ["0"], "from 1 to 1,000,000,000"),
    (("log",), "--max-count", ["0"], "from 1 to 1,000,000,000"),
    (("gc",), "--keep", [], "from 0 to 1,000,000,000"),
    (("stats",), "--min-events", ["0"], "from 1 to 1,000,000,000"),
    (
        ("read", "a.txt"),
        "--lines",
        ["0", "0:3", "3:1", "-1:3", f"1:{HUGE}", f"{HUGE}:", "1.5:2", f"1:{DIGITS}"],
        "from 1 to 2,147,483,647",
    ),
]
AGES: list[tuple[tuple[str, ...], str, str]] = [
    (("gc",), "--older-than", "from 1s to 100 years"),
    (("stats",), "--since", "from 1m to 100 years"),
]
AGE_VALUES = ["0d", "-1d", f"{HUGE}d", f"{DIGITS}d", "1e30d", "nand", "infd", "1.5d", "36601d", "5229w", "d", "7"]

# (`--lines -1` is `:1`, the first line: `-` separates A and B there as `:` does.)
CASES = [
    (cmd, opt, value, words)
    for cmd, opt, extra, words in OPTIONS
    for value in HOSTILE + extra
    if (opt, value) != ("--lines", "-1")
] + [(cmd, opt, value, words) for cmd, opt, words in AGES for value in AGE_VALUES]


@pytest.fixture
def project(repo: Repo, cli) -> Repo:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "one\ntwo\n"})
    for n in range(3):
        r = cli("apply", input=json.dumps({"file_path": "a.txt", "content": f"v{n}\n"}))
        assert r.code == 0, r
    return repo


@pytest.mark.parametrize("command,option,value,words", CASES, ids=[f"{' '.join(c)} {o} {v[:12]}" for c, o, v, _w in CASES])
def test_a_number_out_of_range_is_a_usage_error(
    project: Repo,
    cli,
    command: tuple[str, ...],
    option: str,  # type: ignore[no-untyped-def]
    value: str,
    words: str,
) -> None:
    before = project.snapshot()
    r = cli(*command, f"{option}={value}" if option.startswith("--") else option, *([] if option.startswith("--") else [value]))
    assert r.code == 2, r
    said = r.stdout + r.stderr
    assert words in said, said
    assert option.lstrip("-") in said or (option == "-n" and "--max-count" in said), said
    assert "internal" not in said and "Traceback" not in said
    assert project.snapshot() == before


def test_gc_keep_minus_one_keeps_every_turn(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """The issue's case: `gc --keep -1` removed every turn and said so with exit 0."""
    r = cli("gc", "--keep", "-1")
    assert r.code == 2 and "from 0 to 1,000,000,000" in r.stderr, r
    assert len(cli("log", "--json").json()["turns"]) == 3
    r = cli("gc", "--keep", "0")  # an explicit 0 still drops them all
    assert r.code == 0 and "removed every turn" in r.stdout, r


def test_in_range_values_still_work(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    assert len(cli("log", "-n", "2", "--json").json()["turns"]) == 2
    assert len(cli("log", "-n", "1000000000", "--json").json()["turns"]) == 3
    assert cli("read", "a.txt", "--lines", "1:2147483647").code == 0
    assert cli("stats", "--since", "36600d", "--min-events", "1000000000").code == 0
    assert cli("gc", "--older-than", "36600d").code == 0


@pytest.mark.parametrize("value", ["-1", "0", "99999999999", "1e30", "nan", "inf", DIGITS, "1.5.5", "86400.5"])
def test_hook_deadline_out_of_range_denies(repo: Repo, value: str) -> None:
    """The hook's own reader (no click) and click's agree: out of range, a usage error, which denies."""
    repo.commit({"a.txt": "one\n"})
    r = subprocess.run(
        [sys.executable, "-m", "guard", "hook", "claude-code", "--deadline", value],
        input=b"{}",
        cwd=repo.root,
        capture_output=True,
        env=checkout_env(),
        timeout=60,
        check=False,
    )
    assert r.returncode == 2 and b"--deadline" in r.stderr and b"from 0.001 to 86,400" in r.stderr, r


# MCP arguments, checked against the tools' schemas before any tool runs.
MCP_BAD = [
    ("list_turns", {"limit": 10**30}, "must be a whole number from 1 to 1,000,000,000, not a number of 31 digits"),
    ("list_turns", {"limit": 1_000_000_001}, "must be a whole number from 1 to 1,000,000,000, not 1,000,000,001"),
    ("list_turns", {"limit": 1e30}, "must be a whole number from 1 to 1,000,000,000, not the number 1e+30"),
    ("list_turns", {"limit": float("nan")}, "must be a whole number from 1 to 1,000,000,000, not the number nan"),
    ("list_turns", {"limit": float("inf")}, "must be a whole number from 1 to 1,000,000,000, not the number inf"),
    ("list_turns", {"limit": 0}, "must be a whole number from 1 to 1,000,000,000, not 0"),
    ("list_turns", {"limit": -1}, "must be a whole number from 1 to 1,000,000,000, not -1"),
    ("list_turns", {"limit": 2.5}, "must be a whole number from 1 to 1,000,000,000, not the number 2.5"),
    (
        "read_file",
        {"path": "a.txt", "start_line": 10**30},
        "must be a whole number from 1 to 2,147,483,647, not a number of 31 digits",
    ),
    ("read_file", {"path": "a.txt", "end_line": 2**31}, "must be a whole number from 1 to 2,147,483,647, not 2,147,483,648"),
    ("read_file", {"path": "a.txt", "start_line": 1e30}, "must be a whole number from 1 to 2,147,483,647, not the number 1e+30"),
    (
        "read_file",
        {"path": "a.txt", "end_line": float("-inf")},
        "must be a whole number from 1 to 2,147,483,647, not the number -inf",
    ),
    ("read_file", {"path": "a.txt", "start_line": 0}, "must be a whole number from 1 to 2,147,483,647, not 0"),
]


@pytest.mark.parametrize("tool,args,words", MCP_BAD, ids=[f"{t}-{a}" for t, a, _w in MCP_BAD])
def test_mcp_numbers_out_of_range_are_error_results(project: Repo, tool: str, args: dict[str, object], words: str) -> None:
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server
    from guard.pipeline.engine import Guard

    before = project.snapshot()
    r = mcp_server.Session(Guard(project.root), "agent").call(tool, args)
    name = next(iter(k for k in args if k != "path"))
    assert r.error and f"argument {name!r} {words}" in r.text, r.text
    assert "internal" not in r.text
    assert project.snapshot() == before


# Line numbers in edits: a refusal (`parse-error`) naming the range, never an internal error.
EDITS = [
    "replace 1..{n}",
    "replace {n}",
    "insert after {n}",
    "insert before {n}",
    "delete {n}..{n}",
    "PUT 1..{n}:",
]


@pytest.mark.parametrize("number", [HUGE, DIGITS, "2147483648"])
@pytest.mark.parametrize("op", EDITS)
def test_hashline_line_numbers_out_of_range_are_parse_errors(project: Repo, cli, op: str, number: str) -> None:  # type: ignore[no-untyped-def]
    head = cli("read", "a.txt").stdout.splitlines()[0]
    before = project.snapshot()
    body = "" if op.startswith("delete") else "+x\n"
    r = cli("apply", "--json", input=f"{head}\n{op.format(n=number)}\n{body}")
    assert r.code == 1, r
    [f] = r.json()["findings"]
    assert f["code"] == "parse-error" and "line numbers run from 1 to 2,147,483,647" in f["message"], f
    assert project.snapshot() == before


@pytest.mark.parametrize("value", ["-1", "1e30", "NaN", "Infinity", HUGE, DIGITS, "2147483648", "1.5", "true"])
def test_json_insert_line_out_of_range_is_a_parse_error(project: Repo, cli, value: str) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    r = cli("apply", "--json", input='{"command": "insert", "path": "a.txt", "insert_line": ' + value + ', "new_str": "x"}')
    assert r.code == 1, r
    [f] = r.json()["findings"]
    assert f["code"] == "parse-error" and "from 0 to 2,147,483,647" in f["message"], f
    assert project.snapshot() == before


@pytest.mark.parametrize("value", ["-1", HUGE, "1.0e+30", ".nan", ".inf", "-.inf", "1.5", "true", "'10'", "0x"])
@pytest.mark.parametrize("key", ["per_edit: {files: V}", "per_turn: {bytes: V}", "max_file_bytes: V"])
def test_budget_values_out_of_range_are_policy_errors(project: Repo, cli, key: str, value: str) -> None:  # type: ignore[no-untyped-def]
    (project.root / ".agent-guard.yaml").write_text("budget: {" + key.replace("V", value) + "}\n")
    r = cli("apply", "--json", input=json.dumps({"file_path": "a.txt", "content": "x\n"}))
    assert r.code == 2, r
    assert "from 0 to 9,223,372,036,854,775,807 (or null for no limit)" in r.stderr, r
