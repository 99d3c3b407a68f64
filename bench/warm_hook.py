"""The warm hook path against the cold command hook, per edit (run by hand).

One edit, as Claude Code makes it: the PreToolUse hook (an Edit of one line of a 200-function
Python file), the file written, then the PostToolUse hook (which records the turn).  The two
hooks' round trip, per edit, in each way:

- ``cold``: `agent-guard hook claude-code` (the console script next to this interpreter), twice,
  with no server for it to ask;
- ``warm hook.py``: ``python -SI guard/warm/hook.py`` (what `agent-guard serve --settings` prints),
  twice, answered by a running `agent-guard serve`;
- ``warm console``: `agent-guard hook claude-code`, twice, answered by the same server;
- ``http``: two POSTs to the server's http form (``--http``), made from this process, as Claude
  Code makes them: no hook process at all;
- and the floors, per pair of processes: ``python -c pass``, ``python -S -c pass``,
  ``python -SI -c pass`` (each run twice per round, as a hook pair is).

Each way works in a repository of its own (same content), each edit changes the file (the line
and its reverse alternate) and is recorded.  The ways run interleaved, round by round, their
order rotating; each round's times are paired with the cold one's of the same round.  Wall time
per edit (median, quartiles, min-max), and CPU: user + system of the hook processes (a
``RUSAGE_CHILDREN`` difference) per edit, and the server's (the parent and its workers, live and
reaped) from /proc, as a mean per edit over the whole run.
Bytecode is cached under $TMPDIR/agent-guard-bench-pycache as a normal install caches it; the
user's git configuration and policy cache are shut out.

    python bench/warm_hook.py [--rounds 41] [--warmups 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOOK = ROOT / "guard" / "warm" / "hook.py"
LINE, CHANGED = b"    return x + 100\n", b"    return x + 100 + 1\n"


def base_env(work: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_", "PRE_COMMIT", "XDG_"))}
    e.update(GIT_ENV)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    e["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    e["PATH"] = str(BIN) + os.pathsep + e.get("PATH", "")
    e["PYTHONPATH"] = str(ROOT)
    e["HOME"] = str(work / "home")
    return e


def scratch_repo(path: Path, environ: dict[str, str]) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60, env=environ)
    (path / "a.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200)))
    subprocess.run(["git", "add", "a.py"], cwd=path, check=True, timeout=60, env=environ)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True, timeout=60, env=environ)


class Way:
    """One way of running the two hooks of an edit, in its own repository."""

    def __init__(
        self, label: str, repo: Path, call: Callable[[Path, bytes, dict[str, str]], tuple[int, bytes]], environ: dict[str, str]
    ) -> None:
        self.label, self.repo, self.call, self.environ = label, repo, call, environ
        self.count = 0
        self.walls: list[float] = []
        self.cpus: list[float] = []

    def edit(self) -> tuple[float, float]:
        """(wall, CPU of the hook processes) of one edit's two hooks."""
        a = self.repo / "a.py"
        text = a.read_bytes()
        old, new = (LINE, CHANGED) if LINE in text else (CHANGED, LINE)
        self.count += 1
        tool_input = {"file_path": str(a), "old_string": old.decode(), "new_string": new.decode()}
        pre, post = (
            json.dumps(
                {
                    "session_id": "bench",
                    "cwd": str(self.repo),
                    "hook_event_name": event,
                    "tool_name": "Edit",
                    "tool_use_id": f"toolu_{self.count}",
                    "tool_input": tool_input,
                    "prompt_id": f"{self.count:08x}",
                }
            ).encode()
            for event in ("PreToolUse", "PostToolUse")
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        status, said = self.call(self.repo, pre, self.environ)
        t1 = time.perf_counter()
        if status != 0 or said.strip():
            raise RuntimeError(f"{self.label}: the pre hook said {status} {said[:500]!r}")
        a.write_bytes(text.replace(old, new, 1))  # Claude Code writes the file (not timed)
        t2 = time.perf_counter()
        status, said = self.call(self.repo, post, self.environ)
        t3 = time.perf_counter()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if status != 0 or said.strip():
            raise RuntimeError(f"{self.label}: the post hook said {status} {said[:500]!r}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return (t1 - t0) + (t3 - t2), cpu


def process(argv: list[str]) -> Callable[[Path, bytes, dict[str, str]], tuple[int, bytes]]:
    def call(cwd: Path, payload: bytes, environ: dict[str, str]) -> tuple[int, bytes]:
        proc = subprocess.run(argv, cwd=cwd, env=environ, input=payload, capture_output=True, timeout=60, check=False)
        return proc.returncode, proc.stdout + proc.stderr

    return call


def http_call(port: int, token: str) -> Callable[[Path, bytes, dict[str, str]], tuple[int, bytes]]:
    def call(cwd: Path, payload: bytes, environ: dict[str, str]) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(
            "POST", "/claude-code", body=payload, headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        )
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return (0 if resp.status == 200 else resp.status), body

    return call


def floor(argv: list[str]) -> Callable[[Path, bytes, dict[str, str]], tuple[int, bytes]]:
    """Two runs of `argv`, as a hook pair is two processes."""
    run = process(argv)

    def call(cwd: Path, payload: bytes, environ: dict[str, str]) -> tuple[int, bytes]:
        return run(cwd, b"", environ)

    return call


def server_cpu(pid: int) -> float:
    """User + system seconds of the server: the parent, its workers, and the processes each has
    waited for (the git commands a worker ran), live and reaped (Linux /proc; clock ticks)."""

    def ticks(p: int) -> int:
        try:
            stat = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a worker that just ended: its time is the parent's now
            return 0
        return sum(int(stat[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime

    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return (ticks(pid) + sum(ticks(int(c)) for c in children)) / os.sysconf("SC_CLK_TCK")


def start_server(environ: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`agent-guard serve --http 0` in `environ`, once it listens; and the line it said so with."""
    server = subprocess.Popen(
        [sys.executable, "-m", "guard", "serve", "--http", "0"],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
    )
    assert server.stdout is not None
    ready = server.stdout.readline().decode()
    if "listening" not in ready:
        raise RuntimeError(f"the server did not start: {ready!r}")
    return server, ready


def quartiles(values: list[float]) -> tuple[float, float, float, float, float]:
    s = sorted(values)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    return s[0], q[0], q[1], q[2], s[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--warmups", type=int, default=3, help="rounds run first and not counted")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ag-warm-"))
    server: subprocess.Popen[bytes] | None = None
    try:
        (work / "home").mkdir()
        run_dir, no_server = work / "run", work / "run-none"
        run_dir.mkdir(mode=0o700)
        no_server.mkdir(mode=0o700)
        e = base_env(work)
        warm_env = dict(e, XDG_RUNTIME_DIR=str(run_dir))
        cold_env = dict(e, XDG_RUNTIME_DIR=str(no_server))
        server, ready = start_server(warm_env, work)
        port = int(ready.split("http://127.0.0.1:")[1].split("/")[0])
        token = (run_dir / "agent-guard" / "http-token").read_text().strip()
        guard_bin = str(BIN / "agent-guard")
        ways = []
        for label, call, environ in (
            ("cold: agent-guard hook claude-code", process([guard_bin, "hook", "claude-code"]), cold_env),
            ("warm: python -SI guard/warm/hook.py", process([sys.executable, "-SI", str(HOOK)]), warm_env),
            ("warm: agent-guard hook claude-code", process([guard_bin, "hook", "claude-code"]), warm_env),
            ("warm: http form (no hook process)", http_call(port, token), warm_env),
            ("floor: python -c pass (x2)", floor([sys.executable, "-c", "pass"]), e),
            ("floor: python -S -c pass (x2)", floor([sys.executable, "-S", "-c", "pass"]), e),
            ("floor: python -SI -c pass (x2)", floor([sys.executable, "-SI", "-c", "pass"]), e),
        ):
            repo = work / f"repo{len(ways)}"
            scratch_repo(repo, e)
            ways.append(Way(label, repo, call, environ))
        print(
            f"Python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} CPUs; load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.rounds} rounds (+{args.warmups} warm-up)"
        )
        cpu_before = 0.0
        for r in range(args.warmups + args.rounds):
            if r == args.warmups:
                cpu_before = server_cpu(server.pid)
            order = ways[r % len(ways) :] + ways[: r % len(ways)]
            for way in order:
                wall, cpu = way.edit()
                if r >= args.warmups:
                    way.walls.append(wall)
                    way.cpus.append(cpu)
        served = server_cpu(server.pid) - cpu_before
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        cold = ways[0]
        print(
            f"\n{'per edit (PreToolUse + PostToolUse)':<40} {'wall ms: median (quartiles; min-max)':<40} "
            f"{'cold/this':>9}  {'hook CPU ms':>11}"
        )
        for way in ways:
            lo, q1, med, q3, hi = quartiles([w * 1000 for w in way.walls])
            ratio = statistics.median(c / w for c, w in zip(cold.walls, way.walls))
            cpu = statistics.median(way.cpus) * 1000
            print(f"{way.label:<40} {med:6.1f} ({q1:5.1f}-{q3:5.1f}; {lo:5.1f}-{hi:6.1f}){'':5} {ratio:8.2f}x  {cpu:11.1f}")
        warm_edits = sum(len(w.walls) for w in ways[1:4])
        print(
            f"\nserver CPU (the server and its workers): {served * 1000:.0f} ms "
            f"for {warm_edits} edits, {served * 1000 / max(warm_edits, 1):.1f} ms per edit (10 ms clock ticks)"
        )
    finally:
        if server is not None:
            subprocess.run(
                [sys.executable, "-m", "guard", "serve", "--stop"],
                env=dict(base_env(work), XDG_RUNTIME_DIR=str(work / "run")),
                capture_output=True,
                timeout=30,
                check=False,
            )
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
