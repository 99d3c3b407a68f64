"""The policy's verify commands, pinned by case folders (tests/cases_verify/, the harness of tests/casefolders.py).

Each folder's ``before/`` holds the policy (``.agent-guard.yaml`` with a ``verify`` list) and the
project's own scripts or ``.pre-commit-config.yaml``: a command that passes, one that fails, one
that runs past its timeout, a formatter whose fix is taken, and the repository's pre-commit hooks
refusing, passing and fixing.  A refused case leaves the repository byte for byte as it was.
"""

from __future__ import annotations

from pathlib import Path

import casefolders
import pytest
from conftest import Repo

CASES = Path(__file__).resolve().parents[1] / "cases_verify"


def test_the_cases_are_there() -> None:
    names = casefolders.names(CASES)
    for kind in (
        "passes",
        "fails",
        "times-out",
        "fix-taken",
        "pre-commit-hooks-run",
        "pre-commit-hooks-pass",
        "pre-commit-fix-taken",
    ):
        assert f"unified-verify-{kind}" in names, names


@pytest.mark.parametrize("name", casefolders.names(CASES))
def test_case(name: str, repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    casefolders.run(CASES / name, repo, cli)
