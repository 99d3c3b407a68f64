"""Per-edit latency of a long-running guard (Python API, MCP server) next to one process per edit (CLI).

Builds a scratch repository of F files of 2,000 lines each (for every F in
--sizes), commits it, then makes sequential str_replace edits, each to a different
function of a 2,000-line file, and times each call:

- api: ``guard.apply(...)`` in this process (one cached ``Guard`` session);
- mcp: ``edit_file`` through an MCP client session to ``agent-guard mcp`` (a
  subprocess over stdio; the round trip includes JSON-RPC and the pipes);
- cli: ``agent-guard apply`` started once per edit (what a harness that shells
  out pays).

The first call of each path warms caches and is reported apart.  Target: api and
mcp median under 10 ms, flat across repository sizes.

    python bench/api_latency.py [--sizes 10,1000] [--lines 2000] [--edits 100] [--cli-edits 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

FUNC_LINES = 4  # lines per generated function


def build(root: Path, files: int, lines: int, policy: str | None) -> None:
    """`files` Python files of `lines` lines each, every line unique within its file, committed."""
    root.mkdir(parents=True)
    if policy:
        (root / ".agent-guard.yaml").write_text(policy)
    for k in range(files):
        d = root / f"pkg{k // 100}"
        d.mkdir(exist_ok=True)
        body = "".join(f"def f{k}_{i}(x):\n    y = x * {i}\n    return y + {k}\n\n" for i in range(lines // FUNC_LINES))
        (d / f"mod{k}.py").write_text(body)
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "scratch"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, timeout=600)


def edit_for(n: int, files: int) -> tuple[str, str, str]:
    """The n-th edit: (path, old, new), each on a function no earlier edit touched."""
    k, i = n % files, n // files
    return f"pkg{k // 100}/mod{k}.py", f"    y = x * {i}\n", f"    y = x * {i} + 1\n"


def summary(name: str, files: int, times: list[float], cpu: list[float] | None = None) -> dict[str, Any]:
    warm = times[1:] or times
    ms = sorted(t * 1000 for t in warm)
    row = {
        "path": name,
        "files": files,
        "edits": len(times),
        "first_ms": round(times[0] * 1000, 1),
        "median_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 2),
        "mean_ms": round(statistics.fmean(ms), 2),
        "cpu_median_ms": None,
    }
    if cpu:
        row["cpu_median_ms"] = round(statistics.median(c * 1000 for c in (cpu[1:] or cpu)), 2)
    return row


def timed(count: int, one: Callable[[int], None], cpu: list[float] | None = None) -> list[float]:
    """Wall time per call; with `cpu`, also this process's CPU time per call (immune to waiting
    for a busy machine's cores, not to fsync)."""
    out = []
    for n in range(count):
        c0, t0 = time.process_time(), time.perf_counter()
        one(n)
        out.append(time.perf_counter() - t0)
        if cpu is not None:
            cpu.append(time.process_time() - c0)
    return out


def bench_api(root: Path, files: int, edits: int, offset: int, cpu: list[float]) -> list[float]:
    import guard

    def one(n: int) -> None:
        path, old, new = edit_for(offset + n, files)
        r = guard.apply(json.dumps({"file_path": path, "old_string": old, "new_string": new}), repo=root, agent="api")
        assert r.status == "applied", r.findings

    return timed(edits, one, cpu)


def bench_mcp(root: Path, files: int, edits: int, offset: int) -> list[float]:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**GIT_ENV, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    params = StdioServerParameters(command=sys.executable, args=["-m", "guard", "mcp", "--agent", "mcp"], cwd=str(root), env=env)
    times: list[float] = []

    async def run() -> None:
        with anyio.fail_after(600):
            async with stdio_client(params, errlog=sys.stderr) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=120) as s:
                    await s.initialize()
                    for n in range(edits):
                        path, old, new = edit_for(offset + n, files)
                        if n == 0:
                            await s.call_tool("read_file", {"path": path, "start_line": 1, "end_line": 1})
                        t0 = time.perf_counter()
                        r = await s.call_tool("edit_file", {"path": path, "edits": [{"old_string": old, "new_string": new}]})
                        times.append(time.perf_counter() - t0)
                        if r.is_error:
                            # The read rule: a file this session has not read yet is read once, untimed.
                            await s.call_tool("read_file", {"path": path, "start_line": 1, "end_line": 1})
                            t0 = time.perf_counter()
                            r = await s.call_tool("edit_file", {"path": path, "edits": [{"old_string": old, "new_string": new}]})
                            times[-1] = time.perf_counter() - t0
                        assert not r.is_error, r.content

    anyio.run(run)
    return times


def bench_cli(root: Path, files: int, edits: int, offset: int) -> list[float]:
    env = {**os.environ, **GIT_ENV}

    def one(n: int) -> None:
        path, old, new = edit_for(offset + n, files)
        data = json.dumps({"file_path": path, "old_string": old, "new_string": new}).encode()
        p = subprocess.run(
            ["agent-guard", "apply", "--agent", "cli"], input=data, cwd=root, env=env, capture_output=True, timeout=120
        )
        assert p.returncode == 0, p.stderr

    return timed(edits, one)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10,1000", help="Comma-separated numbers of files in the repository.")
    ap.add_argument("--lines", type=int, default=2000, help="Lines per file.")
    ap.add_argument("--edits", type=int, default=100, help="Edits through the API and through MCP.")
    ap.add_argument("--cli-edits", type=int, default=15, help="Edits through the CLI (one process each).")
    ap.add_argument("--no-mcp", action="store_true", help="Skip the MCP server (no `mcp` package).")
    ap.add_argument(
        "--no-syntax", action="store_true", help="Turn the syntax check off (it parses the whole 2,000-line file on every edit)."
    )
    ap.add_argument("--json", action="store_true", help="Print the rows as JSON lines.")
    args = ap.parse_args()
    os.environ.update(GIT_ENV)
    rows = []
    for files in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="agent-guard-bench-") as tmp:
            root = Path(tmp) / "repo"
            t0 = time.perf_counter()
            build(root, files, args.lines, "checks:\n  syntax: off\n" if args.no_syntax else None)
            print(f"# {files} files x {args.lines} lines built in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
            cpu: list[float] = []
            rows.append(summary("api", files, bench_api(root, files, args.edits, 0, cpu), cpu))
            if not args.no_mcp:
                rows.append(summary("mcp", files, bench_mcp(root, files, args.edits, args.edits)))
            rows.append(summary("cli", files, bench_cli(root, files, args.cli_edits, 2 * args.edits)))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    if args.json:
        for r in rows:
            r["loadavg"] = load
            print(json.dumps(r))
        return
    print(f"# load average {load} on {os.cpu_count()} CPUs; syntax check {'off' if args.no_syntax else 'on'}")
    print(
        f"{'path':<5} {'files':>6} {'lines':>9} {'edits':>6} {'first ms':>9} {'median ms':>10} {'p90 ms':>8} "
        f"{'mean ms':>8} {'cpu median ms':>14}"
    )
    for r in rows:
        cpu_ms = "-" if r["cpu_median_ms"] is None else r["cpu_median_ms"]
        print(
            f"{r['path']:<5} {r['files']:>6} {r['files'] * args.lines:>9} {r['edits']:>6} {r['first_ms']:>9} "
            f"{r['median_ms']:>10} {r['p90_ms']:>8} {r['mean_ms']:>8} {cpu_ms:>14}"
        )


if __name__ == "__main__":
    main()
