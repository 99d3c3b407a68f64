"""What the turn-id index saves (issue 38: a cache kept only where a measured profile needs it).

An agent's ledger of N turns (one whole-file write each, ``Guard.apply`` with a named turn), then
``ledger.commits_of`` for an early turn's id: with the index file beside the ref (kept as of the
tip), and with it removed before each ask (what every ask would cost without it: a walk of the
whole ledger).  CPU time, median of 9 asks.  Run by hand:

    python bench/turn_index.py [--turns 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

UNLIMITED = "budget:\n  per_session: {files: null, lines_added: null, lines_removed: null, hunks: null, bytes: null}\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=1000)
    args = ap.parse_args()
    os.environ.update(GIT_ENV)
    from guard.pipeline.engine import Guard
    from guard.record import ledger

    tmp = Path(tempfile.mkdtemp(prefix="ag-turn-index-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        (repo / "a.txt").write_text("0\n")
        for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(["git", *argv], cwd=repo, check=True, timeout=60)
        policy = tmp / "policy.yaml"
        policy.write_text("extends: default\n" + UNLIMITED)
        g = Guard(repo, str(policy))
        started = time.monotonic()
        for i in range(1, args.turns + 1):
            report = g.apply(json.dumps({"file_path": "a.txt", "content": f"{i}\n"}), turn=f"t{i}")
            assert report.status == "applied", report.findings
        print(f"{args.turns} turns recorded in {time.monotonic() - started:.1f} s")
        ref = ledger.ref_name(g.policy().ledger_prefix, "agent")
        index = ledger._index_file(g.repo, ref)
        for label, drop in (("index kept", False), ("index removed before each ask", True)):
            cpu = []
            for _ in range(9):
                if drop:
                    index.unlink(missing_ok=True)
                t0 = time.process_time()
                found = ledger.commits_of(g.repo, ref, "agent", "t3", None)
                cpu.append((time.process_time() - t0) * 1e3)
                assert len(found) == 1, found
            print(f"{label}: commits_of('t3') median {statistics.median(cpu):.2f} ms CPU (min {min(cpu):.2f})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
