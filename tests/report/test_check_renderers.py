"""No control character of a committed name or line reaches a terminal raw, in any of `check`'s renderers.

Whoever commits chooses file names and lines, and `check --output-format github` is read by
a CI runner (and printed to a terminal when run by hand).  GitHub's workflow commands carry
`%`, CR and LF escaped as `%25`, `%0D`, `%0A` (in a property also `:` and `,` as `%3A`,
`%2C`); every other C0 or C1 control (ESC, BEL, DEL, CSI...) is shown as ``\\xNN``, as
the human text shows it.  JSON and SARIF escape them as JSON does (``\\u001b``), the same
string once parsed.  Held here on renderer values and on a real commit.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import Repo

from guard.commit_check import CommitFinding
from guard.model import Finding
from guard.report import Report, render

# Every C0 control but LF and TAB (the line ends between commands, and a harmless blank),
# DEL, and every C1 control: none may be printed raw.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NAME = "evil\x1b]0;title\x07\x1b[2J%:,\r\nx\x9b31m\x7f.py"


def _report(path: str, message: str, hint: str = "") -> Report:
    found = (Finding("whitespace", "warning", path, 3, message, hint),)
    return Report("checked", None, (), found, extra={"check": {"mode": "staged", "files": 1}})


def _commands(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith(("::error ", "::warning "))]


def test_github_escapes_a_name_as_github_documents() -> None:
    out = render.check(_report(NAME, "quoted 'a\x1bb'"), "github")
    assert not RAW.search(out), repr(out)
    (command,) = _commands(out)
    prop = command.split(" ", 1)[1].split("::", 1)[0]
    # CR and LF as GitHub unescapes them; `%`, `:` and `,` too; other controls made visible.
    assert prop.startswith("file=evil\\x1b]0;title\\x07\\x1b[2J%25%3A%2C%0D%0Ax\\x9b31m\\x7f.py,line=3,"), prop


def test_github_escapes_a_message_and_its_hint() -> None:
    out = render.check(_report("a.py", "line 'x\x1b[2Jy' 100%\rdone", "hint\x07 one\nhint two"), "github")
    assert not RAW.search(out), repr(out)
    (command,) = _commands(out)
    data = command.split("::", 2)[2]
    assert data == "line 'x\\x1b[2Jy' 100%25%0Ddone%0Ahint\\x07 one%0Ahint two", data


def test_github_anchor_of_a_finding_without_a_path_is_escaped() -> None:
    found = (CommitFinding("budget", "error", None, None, "too big", "", anchor=NAME),)
    out = render.check(Report("refused", None, (), found, extra={"check": {"mode": "staged"}}), "github")
    assert not RAW.search(out), repr(out)
    assert "file=evil\\x1b]0;title\\x07" in _commands(out)[0]


@pytest.mark.parametrize("renderer", ["json", "sarif"])
def test_json_and_sarif_print_no_control_raw_and_parse_back_exact(renderer: str) -> None:
    out = render.check(_report(NAME, "quoted 'a\x1b\x9bb\u202e'"), renderer)
    assert not RAW.search(out), repr(out)
    assert "\u202e" not in out  # a bidirectional override shows other text than it holds
    data: Any = json.loads(out)
    if renderer == "json":
        assert data["findings"][0]["path"] == NAME
        assert data["findings"][0]["message"] == "quoted 'a\x1b\x9bb\u202e'"
    else:
        assert data["runs"][0]["results"][0]["message"]["text"] == "quoted 'a\x1b\x9bb\u202e'"


def test_human_prints_no_control_raw() -> None:
    out = render.check(_report(NAME, "quoted 'a\x1b\x9bb'", "hint\x07"), "human", colour=False)
    assert not RAW.search(out), repr(out)


# --- a real commit ---------------------------------------------------------------------------
@pytest.mark.parametrize("renderer", ["human", "github", "json", "sarif"])
def test_a_committed_name_and_line_reach_no_terminal_raw(repo: Repo, cli, renderer: str) -> None:
    name = "bell\x07\x1b[31mred\x9b.py"
    base = repo.commit({"README.md": "start\n"})
    repo.commit({name: "x = '\x1b]52;c;aGk=\x07'  \n"}, message="names")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--output-format", renderer)
    assert result.code == 0, result
    assert not RAW.search(result.stdout), repr(result.stdout)
    if renderer in ("json", "sarif"):
        json.loads(result.stdout)
