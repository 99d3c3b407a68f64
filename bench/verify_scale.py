"""Does verifying an edit cost what the edit touched, or what the repository holds?  (run by hand)

Uses ``apply_scale``'s repositories (1,000 and 100,000 files, built once with ``ensure()`` into
``$TMPDIR/agent-guard-bench``), each cloned once beside them (``verify-<n>``: the same commit, so
the runs are paired on the same edit, and other benchmarks' resets of ``.git/agent-guard`` do not
take the shadow checkout away), and times, interleaved run by run:

- ``git agent-apply`` of the one-hunk patch and its reverse, alternating (every run changes the
  file), with no policy of verify commands: the floor;
- the same with ``--policy`` naming one verify command, ``true`` (it costs next to nothing, so what
  is left is the shadow checkout's cost), its cache emptied before each run so it really runs;
- in-process, the steps of one verify: the index's tree (asked afresh: the index changed), the
  result's tree, the checkout moved to it (one file differs from what it held), the command, and
  ``settle`` (what the command left, found and put back);
- once per repository, the first checkout (every file written).

Every run is checked: exit status 0, the target's bytes, and the checkout holding the result.

    python bench/verify_scale.py [--sizes 1000,100000] [--runs 15] [--dir DIR] [--first] [--sandbox off]

``--sandbox`` is the policy's ``verify_sandbox`` (default ``auto``: bwrap or unshare where one works);
``off`` runs the command unconfined, so each verify also notes the user's repository before it and
compares it after (``guard/verify/guarded.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_scale import TARGET, Sample, bench_env, ensure, fmt_ms, patches, run, stats, timed_run  # noqa: E402

AGENT = "bench-verify"
POLICY = "verify:\n  - {name: noop, run: 'true'}\n"


def clone(base: Path, n: int) -> Path:
    """`verify-<n>`: a clone of apply_scale's repository of n files (made once, kept)."""
    source = ensure(base, n, False)
    path = base / f"verify-{n}"
    ok = path / ".verify-ok"
    if not ok.exists():
        if path.exists():
            shutil.rmtree(path)
        t0 = time.perf_counter()
        run(["git", "clone", "-q", "--local", str(source), str(path)], base)
        subprocess.run(["git", "status", "--porcelain"], cwd=path, env=bench_env(), timeout=600, check=True, capture_output=True)
        ok.write_text(f"{n}\n")
        with (path / ".git" / "info" / "exclude").open("a") as fh:
            fh.write(".verify-ok\n")
        print(f"  cloned {path.name} in {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def reset(repo: Path, base: bytes) -> None:
    """The target back to its committed content, the agent's ledger ref gone; the shadow checkout kept."""
    (repo / TARGET).write_bytes(base)
    run(["git", "update-ref", "-d", f"refs/agent-guard/{AGENT}"], repo, check=False)
    shutil.rmtree(repo / ".git" / "agent-guard" / "verify" / "cache", ignore_errors=True)
    (shadow_folder(repo) / "touched.json").unlink(missing_ok=True)


def shadow_folder(repo: Path) -> Path:
    """The agent's shadow folder: in the user's cache (``shadow.home``), not in the work tree."""
    from guard.repo import GitRepo
    from guard.repo.shadow import home

    return home(GitRepo(repo)) / AGENT


def shadow_work(repo: Path) -> Path:
    return shadow_folder(repo) / "work"


def applies(policy: Path | None, p: bytes, r: bytes, base: bytes, after: bytes):  # type: ignore[no-untyped-def]
    cmd = ["git", "agent-apply", "--agent", AGENT, *(["--policy", str(policy)] if policy else [])]

    def one(repo: Path, i: int) -> Sample:
        patch, want = (p, after) if i % 2 == 0 else (r, base)
        shutil.rmtree(repo / ".git" / "agent-guard" / "verify" / "cache", ignore_errors=True)
        sample = timed_run(cmd, repo, patch)
        if (repo / TARGET).read_bytes() != want:
            raise RuntimeError(f"{' '.join(cmd)} did not apply (run {i} in {repo.name})")
        if policy and (shadow_work(repo) / TARGET).read_bytes() != want:
            raise RuntimeError(f"the shadow checkout does not hold the result (run {i} in {repo.name})")
        return sample

    return one


STEPS = ("index tree", "result tree", "check out", "watch", "command", "settle")


def steps(repo: Path, i: int, base: bytes, after: bytes) -> dict[str, float]:
    """One verify's steps in-process, timed (the index is touched first: its tree is asked afresh)."""
    from guard.files import redaction
    from guard.model import Op
    from guard.pipeline.engine import Guard
    from guard.repo.shadow import Shadow, command_environment
    from guard.tree.diffs import make_change
    from guard.verify import result, sealed_key
    from guard.verify.process import execute

    old, new = (base, after) if i % 2 == 0 else (after, base)
    os.utime(repo / ".git" / "index")  # a new stat: the index's tree is asked again
    subprocess.run(["git", "update-index", "--refresh", "-q"], cwd=repo, env=bench_env(), timeout=600, check=False)
    g = Guard(repo)
    pol = g.policy(AGENT)
    change = make_change(TARGET, Op.MODIFY, old, new, old_mode=0o100644, new_mode=0o100644)
    out: dict[str, float] = {}
    with Shadow(g.repo, AGENT) as s:
        t0 = time.perf_counter()
        s.index_tree()
        t1 = time.perf_counter()
        built = result.build(g.repo, s, f"refs/agent-guard/{AGENT}", AGENT, [change])
        t2 = time.perf_counter()
        moved = s.check_out(built.tree, built.head, lambda p: redaction.sealed(p, pol), sealed_key(pol))
        t3 = time.perf_counter()
        s.running(None)  # sets the watch settle reads
        t3w = time.perf_counter()
        ran = execute(["/bin/sh", "-c", "true"], str(s.work), command_environment(), 60)
        t4 = time.perf_counter()
        s.settle()
        t5 = time.perf_counter()
        if ran.code != 0 or moved.populated or (s.work / TARGET).read_bytes() != new:
            raise RuntimeError(f"in-process verify went wrong in {repo.name}: {ran}, {moved}")
    for name, (a, b) in zip(STEPS, ((t0, t1), (t1, t2), (t2, t3), (t3, t3w), (t3w, t4), (t4, t5))):
        out[name] = b - a
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "agent-guard-bench"))
    ap.add_argument("--first", action="store_true", help="also time the first checkout (every file), once per size")
    ap.add_argument("--sandbox", default="auto", choices=("auto", "required", "off"), help="the policy's verify_sandbox")
    args = ap.parse_args()
    import apply_scale

    env = bench_env()
    # This checkout's guard, in the commands too (the console scripts may belong to another install).
    env["PYTHONPATH"] = apply_scale.ENV["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    os.environ.clear()
    os.environ.update(env)
    sys.path.insert(0, env["PYTHONPATH"])  # and in-process (steps): not an installed guard
    base_dir = Path(args.dir)
    base_dir.mkdir(parents=True, exist_ok=True)
    repos = {int(n): clone(base_dir, int(n)) for n in args.sizes.split(",")}
    p, r, base, after = patches()
    policy = base_dir / "verify-policy.yaml"
    policy.write_text(f"verify_sandbox: {args.sandbox}\n{POLICY}")
    sizes = sorted(repos)

    if args.first:
        print("first checkout (every file written), once:")
        for n, repo in repos.items():
            reset(repo, base)
            shutil.rmtree(shadow_folder(repo), ignore_errors=True)
            sample = timed_run(["git", "agent-apply", "--agent", AGENT, "--check", "--policy", str(policy)], repo, p)
            work = shadow_work(repo)
            files = sum(1 for f in work.rglob("*") if f.is_file() and f.relative_to(work).parts[0] != ".git")
            print(f"  {n:>7,} files: {sample.wall:7.1f} s wall, {sample.cpu:7.1f} s cpu ({files:,} paths in the checkout)")

    rows = {
        "git agent-apply (no verify)": applies(None, p, r, base, after),
        "git agent-apply + verify 'true'": applies(policy, p, r, base, after),
    }
    results: dict[str, dict[int, list[Sample]]] = {}
    for name, one in rows.items():
        out: dict[int, list[Sample]] = {n: [] for n in repos}
        for repo in repos.values():
            reset(repo, base)
        for i in range(args.runs + 1):  # run 0 warms up (and makes the checkout, the first time)
            for n, repo in repos.items():
                sample = one(repo, i)
                if i:
                    out[n].append(sample)
        for repo in repos.values():
            reset(repo, base)
        results[name] = out

    print(f"median (p90) ms over {args.runs} runs; cpu = user+system of the command's processes")
    head = "".join(f" | {n:,} files wall | cpu" for n in sizes)
    print(f"{'':34}{head} | {sizes[-1]:,}/{sizes[0]:,} cpu")
    for name, out in results.items():
        cells = []
        for n in sizes:
            w, wp = stats([s.wall for s in out[n]])
            c, cp = stats([s.cpu for s in out[n]])
            cells.append(f" | {fmt_ms(w)} ({fmt_ms(wp).strip()}) | {fmt_ms(c)} ({fmt_ms(cp).strip()})")
        ratio = stats([s.cpu for s in out[sizes[-1]]])[0] / max(stats([s.cpu for s in out[sizes[0]]])[0], 1e-9)
        print(f"{name:34}{''.join(cells)} | {ratio:.2f}x")
    names = list(results)
    print(
        "verify's share (median cpu with verify minus without), per size: "
        + " / ".join(
            f"{n:,}: "
            f"{(stats([s.cpu for s in results[names[1]][n]])[0] - stats([s.cpu for s in results[names[0]][n]])[0]) * 1000:.0f} ms"
            for n in sizes
        )
    )
    inproc: dict[int, dict[str, list[float]]] = {n: {s: [] for s in STEPS} for n in repos}
    for i in range(args.runs + 1):
        for n, repo in repos.items():
            got = steps(repo, i, base, after)
            if i:
                for k, v in got.items():
                    inproc[n][k].append(v)
    for repo in repos.values():
        reset(repo, base)

    print("\nin-process steps of one verify, median (p90) ms wall:")
    print(f"{'':20}" + "".join(f" | {n:>16,} files" for n in sizes) + f" | {sizes[-1]:,}/{sizes[0]:,}")
    for step in STEPS:
        cells = []
        for n in sizes:
            m, q = stats(inproc[n][step])
            cells.append(f" | {fmt_ms(m)} ({fmt_ms(q).strip():>7})")
        ratio = stats(inproc[sizes[-1]][step])[0] / max(stats(inproc[sizes[0]][step])[0], 1e-9)
        print(f"{step:20}{''.join(cells)} | {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
