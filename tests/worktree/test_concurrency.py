"""Several processes applying at once: each lands or is refused, nothing is lost."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import Repo
from conftest import guard as guard_child

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

N = 8


def _apply(root: str, payload: str, agent: str) -> tuple[int, dict[str, object]]:
    proc = guard_child(Path(root), "apply", "--json", "--agent", agent, input=payload.encode())
    return proc.returncode, json.loads(proc.stdout or b"{}")


def test_disjoint_edits_to_one_file_all_land(repo: Repo) -> None:
    repo.commit({"f.txt": "".join(f"line {i}\n" for i in range(N))})
    payloads = [json.dumps({"file_path": "f.txt", "old_string": f"line {i}\n", "new_string": f"EDIT {i}\n"}) for i in range(N)]
    with ThreadPoolExecutor(N) as pool:
        results = list(pool.map(lambda i: _apply(str(repo.root), payloads[i], f"agent{i % 3}"), range(N)))
    assert all(code == 0 for code, _ in results), results
    assert (repo.root / "f.txt").read_text() == "".join(f"EDIT {i}\n" for i in range(N))
    # Every turn is on its agent's ref, each ref's chain intact.
    total = 0
    for a in range(3):
        log = repo.git("log", "--format=%H", f"refs/agent-guard/agent{a}", "--grep=Agent-Guard-Kind: turn")
        total += len(log.split())
    assert total == N


def test_conflicting_edits_one_lands_the_rest_refused(repo: Repo) -> None:
    repo.commit({"f.txt": "shared line\nother\n"})
    payloads = [
        json.dumps({"file_path": "f.txt", "old_string": "shared line\n", "new_string": f"winner {i}\n"}) for i in range(N)
    ]
    with ThreadPoolExecutor(N) as pool:
        results = list(pool.map(lambda i: _apply(str(repo.root), payloads[i], "same"), range(N)))
    codes = sorted(code for code, _ in results)
    assert codes == [0] + [1] * (N - 1), results
    refused = [out for code, out in results if code == 1]
    assert all(out["findings"][0]["code"] == "not-found" for out in refused)  # type: ignore[index]
    content = (repo.root / "f.txt").read_text()
    assert content.startswith("winner ") and content.endswith("\nother\n")
    turns = repo.git("log", "--format=%H", "refs/agent-guard/same", "--grep=Agent-Guard-Kind: turn").split()
    assert len(turns) == 1
