"""What an idle `agent-guard serve` costs while it waits (run by hand): memory and CPU.

A server is started in a runtime folder of its own (`serve --detach`), answers a few hook calls
(an Edit's pre and post hook, so that its workers have done real work), then waits with no call
for ``--seconds``.  Memory: the resident and the proportional set size (PSS: shared pages split
between the processes sharing them) of the parent and each worker, from /proc/PID/smaps_rollup.
CPU: user + system of every process of its session to start (and answer the two calls), and
over the wait (Linux /proc, 10 ms ticks).
This is what `--idle-exit` trades against one cold call and a server start after it.

    python bench/idle_server.py [--seconds 120]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claude_edit_cost import session_cpu
from scratch import GIT_ENV

ROOT = Path(__file__).resolve().parents[1]


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of `pid`, in KiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:] if ":" in line)
    return int(fields["Rss"].split()[0]), int(fields["Pss"].split()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=120)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ag-idle-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_", "XDG_", "PYTHON"))}
    env.update(GIT_ENV, PYTHONPATH=str(ROOT), HOME=str(work / "home"), XDG_RUNTIME_DIR=str(work / "run"))
    (work / "run").mkdir(mode=0o700)
    repo = work / "repo"
    try:
        subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True, timeout=60)
        (repo / "a.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200)))
        subprocess.run(["git", "add", "a.py"], cwd=repo, env=env, check=True, timeout=60)
        subprocess.run(["git", "commit", "-qm", "start"], cwd=repo, env=env, check=True, timeout=60)
        subprocess.run([sys.executable, "-m", "guard", "serve", "--detach"], env=env, cwd=work, check=True, timeout=120)
        for event in ("PreToolUse", "PostToolUse"):
            payload = {"session_id": "s", "cwd": str(repo), "hook_event_name": event, "tool_name": "Edit", "tool_use_id": "t1"}
            payload["tool_input"] = {"file_path": str(repo / "a.py"), "old_string": "x + 7\n", "new_string": "x + 8\n"}
            if event == "PostToolUse":
                (repo / "a.py").write_text((repo / "a.py").read_text().replace("x + 7\n", "x + 8\n"))
            hook = [sys.executable, "-SI", str(ROOT / "guard" / "warm" / "hook.py")]
            subprocess.run(hook, input=json.dumps(payload).encode(), cwd=repo, env=env, check=True, timeout=60)
        status = subprocess.run(
            [sys.executable, "-m", "guard", "serve", "--status"], env=env, capture_output=True, text=True, timeout=60
        )
        pid = int(status.stdout.split("running: pid ")[1].split(",")[0])
        workers = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        started = cpu = session_cpu(pid)
        time.sleep(args.seconds)
        cpu = session_cpu(pid) - cpu
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"CPU to start and answer the two calls: {started * 1000:.0f} ms (the server's session)")
        total_rss = total_pss = 0
        for label, p in [("parent", pid)] + [(f"worker {w}", w) for w in workers]:
            rss, pss = memory(p)
            total_rss, total_pss = total_rss + rss, total_pss + pss
            print(f"{label:<14} RSS {rss / 1024:6.1f} MiB  PSS {pss / 1024:6.1f} MiB")
        print(f"{'all':<14} RSS {total_rss / 1024:6.1f} MiB  PSS {total_pss / 1024:6.1f} MiB")
        print(f"CPU while idle: {cpu * 1000:.0f} ms in {args.seconds:g} s ({cpu * 1000 / args.seconds * 60:.0f} ms a minute)")
    finally:
        subprocess.run([sys.executable, "-m", "guard", "serve", "--stop"], env=env, capture_output=True, timeout=60, check=False)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
