"""A committed name or line cannot start a line, or a CI runner's command, in `check`'s output
(issue 23, section 5): the runner reads `::` at the start of a line (after blanks), and `##[`
(GitHub's older form) or `##vso[` (Azure Pipelines) anywhere in one."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import Repo

# Names a committer may give a file, each trying to forge a command or a line.
NAMES = [
    "x\n::error file=app.py,line=1::forged.py",
    "x\n::add-mask::hunter2",
    "x\r::warning::carriage.py",
    "x\r\n  ::error::indented.py",
    "x\n##[error]legacy.py",
    "z##[add-mask]inline.py",
    "y##vso[task.setvariable variable=A]1.py",
    "x\x85::notice::nel.py",
    "dir\n::error::folder/a.py",
]
# Added lines that quote the same (a finding shows the line it is about).
LINES = ["::error::line  ", "##[add-mask]secret  ", "  ::add-mask::x  ", "##vso[task.complete]done  "]
COMMAND = re.compile(r"^\s*::|##\[|##vso\[")


def _commit_names(repo: Repo) -> str:
    base = repo.commit({"README.md": "start\n"}, message="base")
    for name in NAMES:
        path = repo.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"value = 1  \n")  # a whitespace warning on each: its name is printed
    repo.write({"lines.txt": "".join(line + "\n" for line in LINES)})
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "names\n::error::from the body")
    tree = repo.git("ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0")
    assert set(NAMES) <= set(tree)  # git kept every name as written
    return base


def _lines(text: str) -> list[str]:
    # Every way a runner splits lines: LF, CR, CRLF.
    return re.split(r"\r\n|\r|\n", text)


@pytest.mark.parametrize("renderer", ["human", "github"])
def test_no_name_or_line_forges_a_command_or_a_line(repo: Repo, cli, renderer: str) -> None:
    base = _commit_names(repo)
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--format", renderer)
    assert result.code == 0, result
    lines = _lines(result.stdout)
    ours = [ln for ln in lines if ln.startswith(("::warning ", "::error "))] if renderer == "github" else []
    assert len(ours) == (len(NAMES) + len(LINES) if renderer == "github" else 0)
    for line in lines:
        if line in ours:
            assert "##[" not in line.split("::", 2)[2] and "##vso[" not in line.split("::", 2)[2]
            continue
        assert not COMMAND.search(line), line
    # Every name is still shown, on its one line, with what it hides made visible.
    if renderer == "human":
        assert "x\\x0a::error file=app.py,line=1::forged.py:1: whitespace:" in result.stdout
        assert "x\\x0d::warning::carriage.py:1:" in result.stdout
        assert "z#\\x23[add-mask]inline.py:1:" in result.stdout
        assert len([ln for ln in lines if ": whitespace: " in ln]) == len(NAMES) + len(LINES)
    else:
        files = {_unescape(m.group(1)) for ln in ours for m in [re.search(r"file=([^,]*),", ln)] if m}
        # Annotations point at the real files; a C1 control (NEL) GitHub has no escape for is shown, not sent.
        nel = "x\x85::notice::nel.py"
        assert files == (set(NAMES) - {nel}) | {"x\\x85::notice::nel.py", "lines.txt"}


def _unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@pytest.mark.parametrize("renderer", ["json", "sarif"])
def test_json_and_sarif_keep_every_name_exact(repo: Repo, cli, renderer: str) -> None:
    base = _commit_names(repo)
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--format", renderer)
    assert result.code == 0
    for line in _lines(result.stdout):
        assert not COMMAND.search(line), line
    data: Any = json.loads(result.stdout)
    if renderer == "json":
        assert {f["path"] for f in data["findings"]} == set(NAMES) | {"lines.txt"}
        assert {f["message"].split("'")[1].rstrip("·") for f in data["findings"] if f["path"] == "lines.txt"} == {
            line.rstrip() for line in LINES
        }
    else:
        from urllib.parse import unquote

        uris = {unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in data["runs"][0]["results"]}
        assert uris == set(NAMES) | {"lines.txt"}


def test_a_note_naming_a_path_stays_on_its_line(repo: Repo, cli) -> None:
    repo.commit({"README.md": "start\n"})
    missing = cli("check", "x\n::error::note.py")  # names nothing: a usage error that names it
    assert missing.code == 2 and "x\\x0a::error::note.py" in missing.stderr
    assert not any(COMMAND.search(line) for line in _lines(missing.stderr))
    repo.write({"x\n::error::note.py": "x = 1\n"})
    result = cli("check", "x\n::error::note.py")  # named, not in the index: a note says so
    assert result.code == 0
    assert "not in the index, so not checked: x\\x0a::error::note.py" in result.stdout
    assert not any(COMMAND.search(line) for line in _lines(result.stdout))
