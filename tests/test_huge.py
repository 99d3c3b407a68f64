"""Huge inputs: a 50 MB patch, a 1,000,000-line file, 10,000 hunks.

Each case runs the real CLI in a child process and reads the child's own peak
resident memory (``VmHWM`` from /proc, which, unlike ``ru_maxrss``, is not inherited
from the parent across exec).  Budgets refuse with a ``budget`` finding; with the
budgets lifted the same edits apply; nothing hangs (every child has a timeout) and
memory stays within the bounds the README states:

- edit input over ``budget.per_edit.bytes`` is refused before it is parsed, so its
  cost is reading it: about 40 MB + 1x the input;
- otherwise peak memory grows linearly, about 40 MB + 11x the edit input + 26x
  the size of the largest file the edit touches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import Repo

MB = 1024 * 1024
_RUN = (
    "import sys, runpy\n"
    "sys.argv = ['agent-guard'] + sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module('guard', run_name='__main__')\n"
    "finally:\n"
    "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "    sys.stderr.write(f'\\nVMHWM_KB={hwm}\\n')\n"
)
NO_LIMITS = """\
budget:
  per_edit:    {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  per_turn:    {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  per_session: {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  max_file_bytes: 1000000000
"""

# The system tier (pyproject.toml's markers).
pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc"),
]


@dataclass
class Run:
    code: int
    out: dict[str, object]
    seconds: float
    peak_mb: float
    stderr: str

    def codes(self) -> list[str]:
        return [f["code"] for f in self.out.get("findings", [])]  # type: ignore[union-attr]


def run(root: Path, args: list[str], data: bytes | None = None, timeout: float = 120) -> Run:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        cwd=root,
        input=data,
        capture_output=True,
        timeout=timeout,
        check=False,
        env=dict(os.environ),
    )
    seconds = time.monotonic() - started
    err = proc.stderr.decode("utf-8", "replace")
    peak = next((int(ln.split("=")[1]) for ln in err.splitlines() if ln.startswith("VMHWM_KB=")), 0) / 1024
    print(f"agent-guard {' '.join(args[:2])}: exit {proc.returncode}, {seconds:.2f} s, peak {peak:.0f} MB")
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except ValueError:
        out = {}
    return Run(proc.returncode, out, seconds, peak, err)


@pytest.fixture
def no_limits(tmp_path: Path) -> str:
    path = tmp_path / "no-limits.yaml"
    path.write_text(NO_LIMITS)
    return str(path)


def _big_patch(megabytes: int) -> bytes:
    line = b"+" + b"x" * 99 + b"\n"
    count = megabytes * 1_000_000 // len(line) + 1
    return b"--- /dev/null\n+++ b/huge.txt\n@@ -0,0 +1,%d @@\n" % count + line * count


def test_50_mb_patch_is_refused_before_it_is_parsed(repo: Repo) -> None:
    repo.commit({"a.txt": "one\n"})
    before = repo.snapshot()
    data = _big_patch(50)
    assert len(data) >= 50_000_000
    r = run(repo.root, ["apply", "--json"], data)
    assert r.code == 1, r.stderr
    assert r.codes() == ["budget"]
    assert "bytes of edit input" in r.out["findings"][0]["message"]  # type: ignore[index]
    assert r.seconds < 10, r.seconds
    assert r.peak_mb < 40 + 3 * 50, r.peak_mb  # measured: about 88 MB
    assert repo.snapshot() == before


@pytest.mark.slow
def test_50_mb_patch_under_no_limits_is_parsed_in_bounded_memory(repo: Repo, no_limits: str) -> None:
    repo.commit({"a.txt": "one\n"})
    before = repo.snapshot()
    r = run(repo.root, ["apply", "--json", "--check", "--policy", no_limits], _big_patch(50), timeout=300)
    assert r.code == 0, r.stderr
    assert r.out["status"] == "checked"
    assert r.peak_mb < 40 + 15 * 50, r.peak_mb  # measured: about 560 MB
    assert repo.snapshot() == before


def _million_lines(repo: Repo) -> bytes:
    data = b"".join(b"line %d\n" % i for i in range(1_000_000))
    repo.commit({"big.txt": data})
    return data


ONE_LINE = b"--- a/big.txt\n+++ b/big.txt\n@@ -500000,3 +500000,3 @@\n line 499999\n-line 500000\n+LINE 500000\n line 500001\n"


@pytest.mark.slow
def test_million_line_file(repo: Repo, no_limits: str) -> None:
    data = _million_lines(repo)
    before = repo.snapshot()
    refused = run(repo.root, ["apply", "--json"], ONE_LINE)
    assert refused.code == 1 and refused.codes() == ["budget"], refused.stderr
    assert "max_file_bytes" in refused.out["findings"][0]["message"]  # type: ignore[index]
    assert repo.snapshot() == before
    applied = run(repo.root, ["apply", "--json", "--policy", no_limits], ONE_LINE)
    assert applied.code == 0, applied.stderr
    assert repo.read("big.txt") == data.replace(b"\nline 500000\n", b"\nLINE 500000\n")
    size_mb = len(data) / MB
    for r in (refused, applied):
        assert r.seconds < 60, r.seconds
        assert r.peak_mb < 40 + 35 * size_mb, (r.peak_mb, size_mb)  # measured: about 310 MB for 11 MB
    back = run(repo.root, ["rollback", "--json", "--policy", no_limits])
    assert back.code == 0, back.stderr
    assert repo.read("big.txt") == data


def _many_hunks(count: int, spacing: int = 6) -> tuple[bytes, bytes, bytes]:
    lines = count * spacing
    before = b"".join(b"row %d\n" % i for i in range(lines))
    after = b"".join((b"ROW %d\n" if i % spacing == 0 else b"row %d\n") % i for i in range(lines))
    patch = b"--- a/many.txt\n+++ b/many.txt\n" + b"".join(
        b"@@ -%d +%d @@\n-row %d\n+ROW %d\n" % (k * spacing + 1, k * spacing + 1, k * spacing, k * spacing) for k in range(count)
    )
    return before, after, patch


def test_10000_hunks(repo: Repo, no_limits: str) -> None:
    before, after, patch = _many_hunks(10_000)
    repo.commit({"many.txt": before})
    snap = repo.snapshot()
    refused = run(repo.root, ["apply", "--json"], patch)
    assert refused.code == 1, refused.stderr
    assert set(refused.codes()) == {"budget"}
    assert any(
        "hunks" in f["message"] or "bytes of edit input" in f["message"]  # type: ignore[index]
        for f in refused.out["findings"]
    )  # type: ignore[union-attr]
    assert repo.snapshot() == snap
    applied = run(repo.root, ["apply", "--json", "--policy", no_limits], patch)
    assert applied.code == 0, applied.stderr
    assert repo.read("many.txt") == after
    for r in (refused, applied):
        assert r.seconds < 30, r.seconds
        assert r.peak_mb < 200, r.peak_mb  # measured: about 75 MB


def test_10000_hunks_over_identical_lines_do_not_go_quadratic(repo: Repo, no_limits: str) -> None:
    """Each hunk used to walk and sort every occurrence of its line in the file: 2,000
    hunks over 100,000 identical lines took 17 s, 10,000 over a million would take hours."""
    n, hunks = 100_000, 10_000
    repo.commit({"same.txt": b"}\n" * n})
    patch = b"--- a/same.txt\n+++ b/same.txt\n" + b"".join(
        b"@@ -%d,2 +%d,2 @@\n }\n-}\n+{\n" % (i * (n // hunks) + 1, i * (n // hunks) + 1) for i in range(hunks)
    )
    r = run(repo.root, ["apply", "--json", "--check", "--policy", no_limits], patch)
    assert r.code in (0, 1), r.stderr
    assert r.seconds < 30, r.seconds
    if r.code == 0:
        assert r.out["status"] == "checked"


def test_one_huge_line(repo: Repo, no_limits: str) -> None:
    line = b"x" * (8 * MB)
    repo.commit({"wide.txt": b"head\n" + line + b"\ntail\n"})
    patch = b"--- a/wide.txt\n+++ b/wide.txt\n@@ -1,3 +1,3 @@\n-head\n+HEAD\n " + line + b"\n tail\n"
    refused = run(repo.root, ["apply", "--json"], patch)
    assert refused.code == 1 and refused.codes() == ["budget"], refused.stderr
    applied = run(repo.root, ["apply", "--json", "--policy", no_limits], patch)
    assert applied.code == 0, applied.stderr
    assert repo.read("wide.txt") == b"HEAD\n" + line + b"\ntail\n"
    assert applied.seconds < 30 and applied.peak_mb < 40 + 30 * 8 * 2, applied.peak_mb
