"""Does a shell turn cost what the command changed, or what the tree holds?  (run by hand)

Uses ``apply_scale``'s repositories (1,000 and 100,000 files, built once into
``$TMPDIR/agent-guard-bench``) and times, interleaved run by run, as a user runs them:

- ``git status --porcelain`` (git's own walk of the tree's stat data: the floor);
- ``agent-guard run -- true`` (a command that changes nothing: snapshot, diff, no turn);
- ``agent-guard run -- sh -c 'edit one file'`` (one file changed each run, alternating
  two contents: snapshot, diff, one recorded and checked turn);
- the Claude Code hook around the same one-file command (PreToolUse + PostToolUse: two
  processes), the command run between them.

Reports medians and p90 of wall and CPU time (the command's processes), the 100k/1k
ratio, and each row against ``git status`` in the same repository.

    python bench/shell_turns.py [--sizes 1000,100000] [--runs 15] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_scale import TARGET, Sample, bench_env, ensure, fmt_ms, reset, stats, timed_run  # noqa: E402


def edit_command(i: int) -> list[str]:
    text = "# shell turn %d\n" % (i % 2)
    return ["sh", "-c", f"printf '{text}' >> {TARGET}"]


def hook_round(repo: Path, i: int) -> Sample:
    """PreToolUse + the command + PostToolUse, the two hook processes timed (the command's own time left out)."""
    ti = {"command": " ".join(edit_command(i)), "description": "bench"}

    def payload(event: str) -> bytes:
        return json.dumps(
            {
                "session_id": "bench",
                "cwd": str(repo),
                "hook_event_name": event,
                "tool_name": "Bash",
                "tool_input": ti,
                "tool_use_id": f"toolu_bench_{i}",
            }
        ).encode()

    a = timed_run(["agent-guard", "hook", "claude-code"], repo, payload("PreToolUse"))
    subprocess.run(edit_command(i), cwd=repo, check=True, timeout=60)
    b = timed_run(["agent-guard", "hook", "claude-code"], repo, payload("PostToolUse"))
    return Sample(a.wall + b.wall, a.cpu + b.cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "agent-guard-bench"))
    args = ap.parse_args()
    env = bench_env()
    os.environ.clear()
    os.environ.update(env)
    base_dir = Path(args.dir)
    base_dir.mkdir(parents=True, exist_ok=True)
    repos = {int(n): ensure(base_dir, int(n), False) for n in args.sizes.split(",")}
    originals = {n: (r / TARGET).read_bytes() for n, r in repos.items()}
    rows = {
        "git status --porcelain": lambda repo, i: timed_run(["git", "status", "--porcelain"], repo),
        "agent-guard run -- true": lambda repo, i: timed_run(["agent-guard", "run", "--", "true"], repo),
        "agent-guard run -- (one file)": lambda repo, i: timed_run(["agent-guard", "run", "--", *edit_command(i)], repo),
        "hook Bash, pre + post (one file)": hook_round,
    }
    results: dict[str, dict[int, list[Sample]]] = {}
    for name, one in rows.items():
        out: dict[int, list[Sample]] = {n: [] for n in repos}
        for n, repo in repos.items():
            reset(repo, originals[n])
        for i in range(args.runs + 1):  # run 0 warms up (and, for run/hook, fills the snapshot's memory)
            for n, repo in repos.items():
                sample = one(repo, i)
                if i:
                    out[n].append(sample)
        for n, repo in repos.items():
            reset(repo, originals[n])
        results[name] = out
    sizes = sorted(repos)
    print(f"median (p90) ms over {args.runs} runs; cpu = user+system of the command's processes")
    head = "".join(f" | {n:,} files wall | cpu" for n in sizes)
    print(f"{'':36}{head} | {sizes[-1]:,}/{sizes[0]:,} cpu")
    floor = {n: stats([s.cpu for s in results["git status --porcelain"][n]])[0] for n in sizes}
    for name, out in results.items():
        cells = []
        for n in sizes:
            w, wp = stats([s.wall for s in out[n]])
            c, cp = stats([s.cpu for s in out[n]])
            cells.append(f" | {fmt_ms(w)} ({fmt_ms(wp).strip()}) | {fmt_ms(c)} ({fmt_ms(cp).strip()})")
        ratio = stats([s.cpu for s in out[sizes[-1]]])[0] / max(stats([s.cpu for s in out[sizes[0]]])[0], 1e-9)
        print(f"{name:36}{''.join(cells)} | {ratio:.2f}x")
    print(
        "cpu minus git status's, per size: "
        + ", ".join(
            f"{name}: " + " / ".join(f"{(stats([s.cpu for s in out[n]])[0] - floor[n]) * 1000:.0f}" for n in sizes)
            for name, out in results.items()
            if name != "git status --porcelain"
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
