"""What merge commits cost a range check (run by hand).

Builds, with ``git fast-import``, a repository of ``--files`` files in 40 folders and a
history of ``--merges`` merges on main: each merges a topic commit (one file changed)
into a main commit (another file changed), and every fourth one merges two commits that
both changed the same file (its first line on main, its last on the topic), so git's
merge has to merge that file.  Every merge is clean.  Then times ``agent-guard check
--from-ref BASE --to-ref main`` over the whole history (3 commits per merge), run as a
user runs it, in a child process: wall time and CPU time (user + system), the median of
``--runs``.  ``--code DIR`` times the agent-guard checkout at DIR instead of this one
(another version, to compare).

    python bench/merge_range.py [--merges 200] [--files 2000] [--runs 5] [--code DIR]
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scratch import GIT_ENV

ROOT = Path(__file__).resolve().parents[1]


def _file(n: int, first: str = "", last: str = "") -> bytes:
    lines = [first or f"# module {n}"] + [f"value_{n}_{k} = {k}" for k in range(30)] + [last or f"END_{n} = True"]
    return ("\n".join(lines) + "\n").encode()


def _path(n: int) -> str:
    return f"pkg{n % 40:02d}/mod{n}.py"


def build(folder: Path, merges: int, files: int) -> str:
    """The repository, and its base commit's id."""
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True, env=env, timeout=60)
    out: list[bytes] = []
    mark = 0
    state = {n: _file(n) for n in range(files)}

    def blob(data: bytes) -> int:
        nonlocal mark
        mark += 1
        out.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
        return mark

    def commit(message: str, parents: list[int], changed: dict[int, bytes], stamp: int) -> int:
        nonlocal mark
        marks = {n: blob(data) for n, data in changed.items()}
        mark += 1
        msg = message.encode()
        head = b"commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n" % (
            mark,
            1_700_000_000 + stamp,
            len(msg),
            msg,
        )
        head += b"".join(b"%s :%d\n" % (b"from" if i == 0 else b"merge", p) for i, p in enumerate(parents))
        out.append(head + b"".join(b"M 100644 :%d %s\n" % (m, _path(n).encode()) for n, m in marks.items()) + b"\n")
        return mark

    base = commit("base", [], state, 0)
    tip = base
    for i in range(merges):
        shared = i % 4 == 3
        a = (2 * i) % files
        b = a if shared else (2 * i + 1) % files
        on_main = _file(b, first=f"# main {i}", last=state[b].decode().splitlines()[-1])
        on_topic = _file(a, first=state[a].decode().splitlines()[0], last=f"END_{a} = {i}")
        topic = commit(f"topic {i}", [tip], {a: on_topic}, 3 * i + 1)
        main = commit(f"main {i}", [tip], {b: on_main}, 3 * i + 2)
        merged = {a: _file(a, first=f"# main {i}", last=f"END_{a} = {i}")} if shared else {a: on_topic, b: on_main}
        state.update(merged)
        tip = commit(f"Merge topic {i}", [main, topic], merged, 3 * i + 3)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=folder, input=b"".join(out), check=True, env=env, timeout=600)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=folder, check=True, env=env, timeout=120)
    # git's own word: every merge is clean (nothing of its own beyond git's merge).
    own = subprocess.run(
        ["git", "log", "--merges", "--remerge-diff", "--format=", "-p", "main"],
        cwd=folder,
        capture_output=True,
        check=True,
        env=env,
        timeout=600,
    ).stdout
    assert own == b"", own[:500]
    return subprocess.run(
        ["git", "rev-list", "--max-parents=0", "main"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    ).stdout.strip()


def timed(folder: Path, base: str, code: Path) -> tuple[float, float, str]:
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(code)}
    env.pop("AGENT_GUARD_POLICY", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "guard", "check", "--from-ref", base, "--to-ref", "main"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"check failed ({proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merges", type=int, default=200)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--code", type=Path, default=ROOT, help="the agent-guard checkout to time")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-merge-range-"))
    atexit.register(shutil.rmtree, scratch, True)
    folder = scratch / "repo"
    base = build(folder, args.merges, args.files)
    timed(folder, base, args.code)  # warm the caches (bytecode, the policy's, the file system's)
    runs = [timed(folder, base, args.code) for _ in range(args.runs)]
    walls, cpus = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
    print(f"{args.merges} merges ({args.merges * 3} commits), {args.files} files; code: {args.code}")
    print(f"  wall: median {statistics.median(walls):.2f} s (min {walls[0]:.2f}, max {walls[-1]:.2f})")
    print(f"  cpu:  median {statistics.median(cpus):.2f} s (min {cpus[0]:.2f}, max {cpus[-1]:.2f})")
    print(f"  {runs[-1][2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
