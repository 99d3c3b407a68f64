"""Behaviour pinned by case folders: one parametrised test over tests/cases/<name>/.

The folder layout and what an applied or refused case must show are the harness's
(tests/casefolders.py, shared with tests/cases_lazy/).  A bug report becomes a new folder here.
"""

from __future__ import annotations

from pathlib import Path

import casefolders
import pytest
from conftest import Repo

CASES = Path(__file__).resolve().parent / "cases"
PREFIXES = ("unified-", "codex-", "sr-", "json-", "whole-", "contam-", "md-", "ast-", "hashline-")


def test_case_names() -> None:
    names = casefolders.names(CASES)
    assert names, f"no case folders under {CASES}"
    bad = [n for n in names if not n.startswith(PREFIXES)]
    assert not bad, f"case folders must be named {'|'.join(p + '<what>' for p in PREFIXES)}: {bad}"


@pytest.mark.parametrize("name", casefolders.names(CASES))
def test_case(name: str, repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    if name.startswith("ast-"):
        pytest.importorskip("ast_grep_py", reason="structural rewrites need the `structural` extra")
    casefolders.run(CASES / name, repo, cli)
