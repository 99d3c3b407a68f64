"""The long checks the docs tell a reader to run work: each runs here, on a short budget.

The docs (README.md, the pages under docs/, CONTRIBUTING.md, bench/README.md) list the long
checks in a section named for them ("Running the long checks"), as `python bench/NAME.py`
commands run by hand.  `python bench/fuzz_long.py` once failed at once, `No module named
'test_fuzz'`: it looked in tests/ for a test that had moved to tests/dialects/, and no test ran
it.  Each command found there runs here with its smallest options (``SHORT``): the same code, a
budget of seconds, bounded in time.  A long check added to the docs must be given its short
budget here (the first test says so).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import checkout_env
from readme import SHELL, blocks

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"^python (bench/[\w.-]+\.py)\b", re.M)

# Each long check's smallest options: every phase it has, on a budget of seconds.
SHORT = {
    "bench/fuzz_long.py": ["--scale", "0.01"],  # 1,230 examples, every property
    "bench/crash_trials.py": ["--trials", "2", "--files", "4", "--no-points"],  # the named points: tests/worktree/test_crash.py
    "bench/concurrency_long.py": ["--procs", "2", "--ops", "3"],
}
# Kills and racing writers are the system tier's (pyproject.toml's markers); the fuzzer runs in-process.
SYSTEM = {"bench/crash_trials.py", "bench/concurrency_long.py"}


def long_checks() -> set[str]:
    """The scripts of the shell blocks in the docs' "long checks" sections."""
    found: set[str] = set()
    for page in PAGES:
        if page.is_file():
            for b in blocks(page):
                if b.lang in SHELL and "long check" in b.section.lower():
                    found.update(COMMAND.findall(b.text))
    return found


def test_every_long_check_of_the_docs_has_a_short_budget_here() -> None:
    found = long_checks()
    assert "bench/fuzz_long.py" in found, "no `python bench/fuzz_long.py` in a 'long checks' section of the docs"
    assert found == set(SHORT), f"give each long check its smallest options in SHORT: {sorted(found ^ set(SHORT))}"


@pytest.mark.parametrize("script", [pytest.param(s, marks=[pytest.mark.system] if s in SYSTEM else []) for s in sorted(SHORT)])
def test_each_long_check_runs_on_a_short_budget(script: str) -> None:
    r = subprocess.run(
        [sys.executable, script, *SHORT[script]],
        cwd=ROOT,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = f"python {script} {' '.join(SHORT[script])}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert r.returncode == 0, said
    assert "FAIL" not in r.stdout, r.stdout[-3000:]
