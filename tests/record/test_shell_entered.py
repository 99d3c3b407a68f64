"""Which folders a shell command enters, read from its text before it runs (``entered``), and
the policy a shell turn is judged by, carried from one hook process to the other (issue 37 §2).

``entered`` errs towards more folders, never fewer: each row is a command run from /p, the
folders it enters, and whether one of them cannot be known before it runs.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import replace

import pytest
from conftest import Repo

from guard.record import entered
from guard.turns import shell

ROWS = [
    ("make test", (), False),
    ("cd repo && make", ("/p/repo",), False),
    ("cd ./repo/ && make", ("/p/repo",), False),
    ('cd "my repo" && make', ("/p/my repo",), False),
    ("cd /abs/repo; make", ("/abs/repo",), False),
    ("cd repo\nmake", ("/p/repo",), False),
    ("(cd repo && make)", ("/p/repo",), False),
    ("(cd a && (cd b)); cd c", ("/p/a", "/p/a/b", "/p/c"), False),
    ("echo go | (cd repo && make)", ("/p/repo",), False),
    ("false || cd repo && make", ("/p/repo",), False),
    ("make & cd repo", ("/p/repo",), False),
    ("cd repo; cd ../other", ("/p/repo", "/p/other"), False),
    ("cd repo > /dev/null 2>&1 && make", ("/p/repo",), False),
    ("cd -P -- repo", ("/p/repo",), False),
    ("if true; then cd repo; fi", ("/p/repo",), False),
    ("X=1 env -i bash -lc 'cd repo && make'", ("/p/repo",), False),
    ("bash -c 'cd a; sh -c \"cd b\"'", ("/p/a", "/p/a/b"), False),
    ("builtin cd repo", ("/p/repo",), False),
    ("pushd repo && make && popd; cd z", ("/p/repo", "/p/z"), False),
    ("git -C repo status", ("/p/repo",), False),
    ("git -c x.y=1 -C repo -C sub status", ("/p/repo/sub",), False),
    ("git --work-tree=../t status", ("/t",), False),
    ("git status", (), False),
    ("cd ~/src", ("/home/u/src",), False),
    ("cd", ("/home/u",), False),
    ('cd "$(git rev-parse --show-toplevel)"', (), True),
    ("cd $DIR && make", (), True),
    ("cd `pwd`", (), True),
    ("cd repo*", (), True),
    ("cd -", (), True),
    ("popd", (), True),
    ("cd ~other/x", (), True),
    ("cd 'unclosed", (), True),
    ("# cd repo\nmake", ("/p/repo",), False),  # a comment is read too: more folders, never fewer
]


@pytest.mark.parametrize(("command", "folders", "unknown"), ROWS, ids=[r[0] for r in ROWS])
def test_the_folders_a_command_enters(command: str, folders: tuple[str, ...], unknown: bool) -> None:
    assert entered.entered(command, "/p", home="/home/u") == entered.Entered(folders, unknown)


def test_from_an_unknown_folder_only_absolute_ones_are_known() -> None:
    assert entered.entered("cd repo; cd /abs", None) == entered.Entered(("/abs",), True)


def test_a_policy_is_carried_exactly_or_not_at_all(repo: Repo) -> None:
    """What the hook keeps between its two processes comes back as the same policy; one JSON cannot
    carry exactly (a date, which no schema-checked policy holds) is refused, never approximated."""
    from guard.pipeline.engine import Guard

    repo.commit({".agent-guard.yaml": "shell: {on_violation: revert}\npaths: {protected_extra: ['deploy/**']}\n"})
    g = Guard(repo.root)
    before = shell.begin(g, "claude")
    try:
        back = shell.Before.from_json(json.loads(json.dumps(before.as_json())))
        assert back == before and shell.on_violation(back.policy) == "revert"
        odd = replace(before, policy=replace(before.policy, data={**before.policy.data, "x": datetime.date(2026, 1, 1)}))
        with pytest.raises(shell.Uncarried):
            odd.as_json()
    finally:
        from guard.record import snapshot

        snapshot.discard(before.snapshot)
