"""README.md as a new user follows it: the runnable sessions run, and print what the README shows.

The blocks marked ``<!-- runnable -->`` are ``console`` sessions.  They run one after
another in one shell, in a scratch folder with its own HOME and git configuration,
with this checkout's commands first on PATH.  Each ``$ `` line (with the lines of its
here-document, or the lines it continues with ``\\``) is one command; the lines below
it, up to the next ``$ ``, are its output, stdout and stderr together.  In the expected
output ``…`` stands for any text within a line, and a line holding only ``…`` for any
number of lines (commit ids and times differ from run to run).
"""

from __future__ import annotations

import difflib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conftest import GIT_ENV, command_env
from readme import SHELL, Block, blocks

ROOT = Path(__file__).resolve().parents[1]
WILD = "…"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]
    where: str


def steps(block: Block) -> list[Step]:
    lines = block.text.splitlines()
    out: list[Step] = []
    i = 0
    while i < len(lines):
        first = lines[i]
        where = f"{block.page}:{block.line + 1 + i}"
        assert first.startswith("$ "), f"{where}: a runnable block starts each command with '$ ': {first!r}"
        command = [first[2:]]
        i += 1
        heredoc = re.search(r"<<-?\s*(['\"]?)(\w+)\1\s*$", first)
        if heredoc:
            end = heredoc.group(2)
            while i < len(lines) and lines[i] != end:
                command.append(lines[i])
                i += 1
            assert i < len(lines), f"{where}: the here-document is not closed by {end}"
            command.append(lines[i])
            i += 1
        while command[-1].endswith("\\") and i < len(lines):
            command.append(lines[i])
            i += 1
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        out.append(Step("\n".join(command), tuple(expected), where))
    return out


def _pattern(expected: tuple[str, ...]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line == WILD:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*?".join(re.escape(piece) for piece in line.split(WILD)) + r"\n")
    return re.compile("".join(parts))


def matches(expected: tuple[str, ...], actual: str) -> bool:
    return _pattern(expected).fullmatch(actual) is not None


def test_the_wildcards() -> None:
    assert matches(("turn 1 of agent: … on refs/x",), "turn 1 of agent: 1a2b3c on refs/x\n")
    assert not matches(("turn 1 of agent: … on refs/x",), "turn 1 of agent: 1a2b3c\non refs/x\n")
    assert matches(("a", WILD, "d"), "a\nb\nc\nd\n") and matches(("a", WILD, "d"), "a\nd\n")
    assert not matches(("a", "d"), "a\nb\nd\n") and matches((), "")


def _runnable() -> list[Block]:
    return [b for b in blocks() if b.marker == "runnable"]


def test_every_shell_block_is_marked() -> None:
    for b in blocks():
        if b.lang in SHELL:
            assert b.marker == "runnable" or b.marker.startswith(("not run: ", "file: ")), (
                f"{b.where()}: mark the block <!-- runnable --> (and make it a console session) or <!-- not run: why -->"
            )
        if b.marker == "runnable":
            assert b.lang == "console", f"{b.where()}: a runnable block is a console session ($ command, output)"
    assert len(_runnable()) >= 4


def _environment(home: Path) -> dict[str, str]:
    env = command_env(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "TZ": "UTC",
            "LC_ALL": "C.UTF-8",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "TERM": "dumb",
            **GIT_ENV,
        }
    )
    for key in (
        "AGENT_GUARD_AGENT",
        "AGENT_GUARD_TURN",
        "AGENT_GUARD_POLICY",
        "AGENT_GUARD_DEBUG",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "PRE_COMMIT",
        "PYTHONPATH",
    ):
        env.pop(key, None)
    return env


def test_the_readme_sessions_print_what_the_readme_shows(tmp_path: Path) -> None:
    session = [step for block in _runnable() for step in steps(block)]
    script = ["set +e"]
    for k, step in enumerate(session):
        script += [f"printf '\\n@@step-{k}@@\\n'", step.command]
    script.append("printf '\\n@@step-end@@\\n'")
    home = tmp_path / "home"
    home.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script) + "\n"],
        cwd=scratch,
        env=_environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=120,
        check=False,
    )
    output = proc.stdout.decode("utf-8", "replace")
    chunks = re.split(r"\n@@step-(?:\d+|end)@@\n", output)
    assert chunks[0] == "" and len(chunks) == len(session) + 2, output
    wrong = []
    for step, actual in zip(session, chunks[1:]):
        if not matches(step.expected, actual):
            diff = difflib.unified_diff(list(step.expected), actual.splitlines(), "README", "ran", lineterm="")
            wrong.append(f"{step.where}: $ {step.command.splitlines()[0]}\n" + "\n".join(diff))
    assert not wrong, "the README shows other output than the commands print:\n\n" + "\n\n".join(wrong)


def test_the_set_up_demo_runs(tmp_path: Path) -> None:
    # The set-up's second half, after the install: examples/demo.sh on a throw-away repository.
    [setup] = [b for b in blocks() if b.page == "README.md" and "examples/demo.sh" in b.text]
    assert 'PATH="$PWD/.venv/bin:$PATH" sh examples/demo.sh' in setup.text
    home = tmp_path / "home"
    home.mkdir()
    env = dict(_environment(home), TMPDIR=str(tmp_path))
    proc = subprocess.run(
        ["sh", str(ROOT / "examples" / "demo.sh")], cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False
    )
    out = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, out
    for said in (
        "applied (unified): 1 file",
        "[offset, recount]",
        "(exit status 1: refused)",
        "applied (rollback): 1 file",
        "demo repository left in",
    ):
        assert said in out, out
