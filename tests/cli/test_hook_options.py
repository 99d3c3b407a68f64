"""`hook claude-code`'s options as the warm server reads them (``cli.adapters.hook_options``): the
command's own click reading, or None, with nothing printed, where the command must say something
itself (help, a mistake)."""

from __future__ import annotations

from typing import Any

import pytest

from guard.adapters.claude_code import DEADLINE

DEFAULTS: dict[str, Any] = {"agent": None, "turn": None, "policy": None, "on_pass": "defer", "deadline": DEADLINE}

READ = [
    ([], {}),
    (["--agent=claude", "--turn=p1"], {"agent": "claude", "turn": "p1"}),
    (["--policy", "strict", "--on-pass=ask"], {"policy": "strict", "on_pass": "ask"}),
    (["--deadline=5"], {"deadline": 5.0}),
    (["--deadline=0.25", "--agent", "a", "--agent", "b"], {"deadline": 0.25, "agent": "b"}),  # as click: the last wins
]

LEFT_TO_THE_COMMAND = [
    ["-h"],
    ["--help"],
    ["--on-pass=allow"],
    ["--on-pass=nope"],
    ["--deadline=0"],
    ["--deadline=x"],
    ["--bogus"],
    ["word"],
]


@pytest.mark.parametrize("words,given", READ, ids=[" ".join(w) or "(none)" for w, _ in READ])
def test_options_are_read_as_the_command_reads_them(words: list[str], given: dict[str, Any]) -> None:
    from guard.cli.adapters import hook_options

    assert hook_options(words) == {**DEFAULTS, **given}


@pytest.mark.parametrize("words", LEFT_TO_THE_COMMAND, ids=" ".join)
def test_help_and_mistakes_are_left_to_the_command(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from guard.cli.adapters import hook_options

    assert hook_options(words) is None
    assert capsys.readouterr() == ("", "")
