"""Does the cost of an apply follow the edit or the repository?  (run by hand)

Builds two repositories with ``git fast-import`` (1,000 and 100,000 files of
Python-like text in nested folders, one commit, work tree checked out) that hold
the same target file, then times, end to end as a user runs them:

- ``git apply P`` / ``git apply R`` (a clean one-hunk patch and its reverse,
  alternating, so every run changes the file);
- ``git agent-apply P`` / ``R`` alternating: parse, locate, check, write the file
  and record the turn on the shadow ref: the "apply and record one turn" time;
- ``git agent-rollback`` after an (untimed) ``git agent-apply P``.

Every run is checked: exit status 0 and the target's bytes as expected.  Reports the
median (and p90) wall time of N runs and the scale ratio 100k/1k (target for
agent-guard: <= 1.3), for wall time and for the CPU time of the command's processes
(less disturbed by other load).  ``--profile`` adds an in-process breakdown (open,
check-only apply, full apply), fresh-handle probes (first attribute lookup, index
load, HEAD lookup) and the top functions under cProfile, for each repository, to show
what grows with the repository.  ``--what-if`` also times agent-apply with attribute
lookups answered without reading the index (the proposed fix, patched in at run time;
guard/ is not changed).

    python bench/apply_scale.py [--sizes 1000,100000] [--runs 21] [--dir DIR] [--rebuild] [--profile] [--what-if]

Repositories are cached in DIR (default: $TMPDIR/agent-guard-bench) between runs.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "src/app/core/engine.py"
TIMEOUT = 120

# The user's git configuration is shut out; identity and dates are fixed.
from scratch import GIT_ENV  # bench/, this script's folder, is on the import path


def bench_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_"))}
    env.update(GIT_ENV)
    # The console scripts next to this interpreter, not a version-manager shim in front
    # of them (a pyenv shim adds tens of milliseconds of bash to every call).
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # Bytecode cached as in a normal install, but outside the source tree (this sandbox
    # sets PYTHONDONTWRITEBYTECODE, which would recompile guard/ on every start).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    return env


ENV = bench_env()


def run(cmd: list[str], cwd: Path, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(cmd, cwd=cwd, input=input, capture_output=True, timeout=TIMEOUT, env=ENV, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:2000]}")
    return proc


# ---------------------------------------------------------------------- repositories

_WORDS = (
    "value",
    "result",
    "config",
    "items",
    "index",
    "buffer",
    "count",
    "name",
    "path",
    "node",
    "request",
    "response",
    "cache",
    "state",
    "token",
    "offset",
    "limit",
    "key",
    "data",
    "handler",
)


def _line_pool(rng: random.Random, n: int = 4000) -> list[str]:
    """Lines that look like Python source, with realistic lengths and indents."""
    pool = []
    for i in range(n):
        a, b, c = rng.choice(_WORDS), rng.choice(_WORDS), rng.choice(_WORDS)
        indent = " " * rng.choice((0, 4, 4, 8, 8, 8, 12, 16))
        shape = rng.randrange(8)
        if shape == 0:
            s = f"def {a}_{b}_{i}(self, {c}, {b}=None):"
        elif shape == 1:
            s = f"{a}_{i} = self.{b}.get({c!r}, {rng.randrange(1000)})"
        elif shape == 2:
            s = f"if {a} is not None and len({b}) > {rng.randrange(64)}:"
        elif shape == 3:
            s = f"return {a}({b}, {c}={rng.randrange(10)})"
        elif shape == 4:
            s = f"# {a} {b} {c}: keep the {a} in sync with the {c} ({i})"
        elif shape == 5:
            s = f"for {a} in self.{b}_{c}:"
        elif shape == 6:
            s = f"self.{a}[{b}] = {c}.{a}_{i}"
        else:
            s = ""
        pool.append((indent + s) if s else "")
    return pool


def target_text() -> bytes:
    """The file every patch edits: 400 lines, identical in every repository."""
    lines = ['"""Engine module (benchmark target)."""', ""]
    for i in range(1, 80):
        lines += [f"def step_{i}(state, value):", f"    state.total += value * {i}", f"    return state.total - {i}", "", ""][:5]
    return ("\n".join(lines[:400]) + "\n").encode()


def patches() -> tuple[bytes, bytes, bytes, bytes]:
    """(P, R, base content, patched content): a one-hunk patch in the middle and its reverse."""
    base = target_text()
    lines = base.decode().split("\n")[:-1]
    k = lines.index("def step_40(state, value):")
    old = lines[k + 1]
    new = "    state.total += value * 40 + 1  # patched"
    after_lines = lines[: k + 1] + [new] + lines[k + 2 :]
    after = ("\n".join(after_lines) + "\n").encode()
    start = k + 1 - 3  # 0-based first context line

    def hunk(a: str, b: str) -> bytes:
        ctx_before = lines[start : k + 1]
        ctx_after = lines[k + 2 : k + 5]
        body = [" " + x for x in ctx_before] + ["-" + a, "+" + b] + [" " + x for x in ctx_after]
        head = [f"diff --git a/{TARGET} b/{TARGET}", f"--- a/{TARGET}", f"+++ b/{TARGET}", f"@@ -{start + 1},7 +{start + 1},7 @@"]
        return ("\n".join(head + body) + "\n").encode()

    return hunk(old, new), hunk(new, old), base, after


def _layout(n: int) -> list[str]:
    """n paths in nested folders, about 20 files per leaf folder, three levels deep."""
    leaves = max(1, n // 20)
    fan = max(2, round(leaves ** (1 / 3) + 0.5))
    paths: list[str] = []
    i = 0
    while len(paths) < n:
        leaf = i // 20
        a, b, c = leaf // (fan * fan), (leaf // fan) % fan, leaf % fan
        ext = (".py", ".py", ".py", ".md", ".txt", ".json")[i % 6]
        paths.append(f"src/pkg{a:02d}/mod{b:02d}/sub{c:02d}/file{i:06d}{ext}")
        i += 1
    return paths


def build(path: Path, n: int) -> None:
    """A repository of n files (one of them TARGET), committed and checked out."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    run(["git", "init", "-q", "-b", "main"], path)
    rng = random.Random(n)
    pool = _line_pool(rng)
    t0 = time.perf_counter()
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None
    out = proc.stdin
    files = _layout(n - 1)
    total = 0
    for mark, name in enumerate(files, start=1):
        # Sizes: mostly 1-8 KB, a tail up to ~40 KB (line counts 20..1000).
        count = min(1000, max(20, int(rng.lognormvariate(4.4, 0.8))))
        body = f"# {name}\n" + "\n".join(rng.choices(pool, k=count)) + "\n"
        data = body.encode()
        total += len(data)
        out.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)) + data + b"\n")
    tdata = target_text()
    out.write(b"blob\nmark :%d\ndata %d\n" % (len(files) + 1, len(tdata)) + tdata + b"\n")
    msg = f"{n} files".encode()
    out.write(b"commit refs/heads/main\ncommitter Bench <bench@example.com> 1767225600 +0000\n")
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    for mark, name in enumerate(files, start=1):
        out.write(b"M 100644 :%d %s\n" % (mark, name.encode()))
    out.write(b"M 100644 :%d %s\n\n" % (len(files) + 1, TARGET.encode()))
    out.close()
    if proc.wait(timeout=600) != 0:
        raise RuntimeError("git fast-import failed")
    t1 = time.perf_counter()
    subprocess.run(["git", "reset", "--hard", "-q"], cwd=path, env=ENV, timeout=1800, check=True)
    subprocess.run(["git", "status", "--porcelain"], cwd=path, env=ENV, timeout=600, check=True, capture_output=True)
    t2 = time.perf_counter()
    (path / ".bench-ok").write_text(f"{n}\n")
    print(
        f"  built {path.name}: {n} files, {total / 1e6:.0f} MB of text; fast-import {t1 - t0:.1f} s, checkout {t2 - t1:.1f} s",
        flush=True,
    )


def ensure(base: Path, n: int, rebuild: bool) -> Path:
    path = base / f"repo-{n}"
    ok = path / ".bench-ok"
    if rebuild or not ok.exists() or ok.read_text().strip() != str(n):
        build(path, n)
    # .bench-ok is untracked; keep it out of `git status` noise.
    excl = path / ".git" / "info" / "exclude"
    if ".bench-ok" not in excl.read_text():
        with excl.open("a") as fh:
            fh.write(".bench-ok\n")
    return path


def reset(repo: Path, base: bytes) -> None:
    """Target back to its committed content, no shadow refs left."""
    (repo / TARGET).write_bytes(base)
    refs = run(["git", "for-each-ref", "--format=%(refname)", "refs/agent-guard/"], repo).stdout.decode().split()
    for r in refs:
        run(["git", "update-ref", "-d", r], repo)
    state = repo / ".git" / "agent-guard"
    if state.exists():
        shutil.rmtree(state)


# What-if for the proposed fix (nothing in guard/ is changed): answer GitRepo.attr from
# a second handle whose index is an empty one, so no attribute lookup reads the whole
# index.  libgit2 honours GIT_INDEX_FILE only on a handle opened with FROM_ENV, and
# reads it when it first loads the index, so the variable stays set for one lookup.
WHAT_IF_ATTR = """
import os, sys, pygit2
from pygit2.enums import RepositoryOpenFlag
from guard import repo as repo_mod

def attr(self, path, name):
    h = getattr(self, "_attr_handle", None)
    if h is None:
        saved = os.environ.get("GIT_INDEX_FILE")
        os.environ["GIT_INDEX_FILE"] = str(self.gitdir / "agent-guard-no-index")
        try:
            h = pygit2.Repository(str(self.root), RepositoryOpenFlag.FROM_ENV | RepositoryOpenFlag.NO_SEARCH)
            h.get_attr(path, name)
        finally:
            if saved is None:
                os.environ.pop("GIT_INDEX_FILE", None)
            else:
                os.environ["GIT_INDEX_FILE"] = saved
        self._attr_handle = h
    try:
        return h.get_attr(path, name)
    except pygit2.GitError:
        return None

repo_mod.GitRepo.attr = attr
from guard.cli.commands import main
main(["apply", *sys.argv[1:]])
"""


# ---------------------------------------------------------------------- timing
#
# The repositories are interleaved run by run (1k, 100k, 1k, 100k...), so load from
# other processes on the machine falls on both alike; besides wall time, the CPU
# time (user + system) of the command's process tree is recorded, which contention
# disturbs much less.


@dataclass
class Sample:
    wall: float
    cpu: float


def timed_run(cmd: list[str], cwd: Path, input: bytes | None = None) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run(cmd, cwd, input=input)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Sample(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def stats(xs: list[float]) -> tuple[float, float]:
    s = sorted(xs)
    return statistics.median(s), s[min(len(s) - 1, round(0.9 * (len(s) - 1)))]


def alternating(cmd: list[str], p: bytes, r: bytes, base: bytes, after: bytes) -> Callable[[Path, int], Sample]:
    """Run i applies P (even i) or R (odd i): every run really changes the file."""

    def one(repo: Path, i: int) -> Sample:
        patch, want = (p, after) if i % 2 == 0 else (r, base)
        sample = timed_run(cmd, repo, patch)
        if (repo / TARGET).read_bytes() != want:
            raise RuntimeError(f"{' '.join(cmd)} did not apply (run {i} in {repo.name})")
        return sample

    return one


def rollback_after_apply(p: bytes, base: bytes, after: bytes) -> Callable[[Path, int], Sample]:
    """An untimed `git agent-apply P`, then the timed `git agent-rollback` of that turn."""

    def one(repo: Path, i: int) -> Sample:
        run(["git", "agent-apply"], repo, input=p)
        if (repo / TARGET).read_bytes() != after:
            raise RuntimeError("git agent-apply did not apply")
        sample = timed_run(["git", "agent-rollback"], repo)
        if (repo / TARGET).read_bytes() != base:
            raise RuntimeError("git agent-rollback did not restore the file")
        return sample

    return one


def interleaved(
    repos: dict[int, Path], one: Callable[[Path, int], Sample], runs: int, base: bytes, r: bytes | None
) -> dict[int, list[Sample]]:
    out: dict[int, list[Sample]] = {n: [] for n in repos}
    for repo in repos.values():
        reset(repo, base)
    for i in range(runs + 1):  # run 0 is a warm-up
        for n, repo in repos.items():
            sample = one(repo, i)
            if i:
                out[n].append(sample)
    for repo in repos.values():
        if r is not None and (repo / TARGET).read_bytes() != base:
            run(["git", "apply"], repo, input=r)
        reset(repo, base)
    return out


def fmt_ms(x: float) -> str:
    return f"{x * 1000:8.1f}"


# ---------------------------------------------------------------------- profile


def profile(repo: Path, p: bytes, r: bytes, base: bytes, runs: int) -> None:
    """In-process: open, check-only, full apply; then cProfile of full applies."""
    import cProfile
    import io
    import pstats

    old_env = dict(os.environ)
    old_cwd = os.getcwd()
    os.environ.update(GIT_ENV)
    os.chdir(repo)
    try:
        from guard.pipeline.engine import Guard

        reset(repo, base)
        t0 = time.perf_counter()
        g = Guard(repo)
        t_open = time.perf_counter() - t0
        checks, fulls = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            rep = g.apply(p, check=True)
            checks.append(time.perf_counter() - t0)
            assert rep.status == "checked", rep.findings
        for i in range(runs):
            t0 = time.perf_counter()
            rep = g.apply(p if i % 2 == 0 else r)
            fulls.append(time.perf_counter() - t0)
            assert rep.status == "applied", rep.findings
        if runs % 2:
            g.apply(r)
        print(
            f"  {repo.name}: open Guard {t_open * 1000:.1f} ms; check-only apply median {stats(checks)[0] * 1000:.1f} ms; "
            f"full apply+record median {stats(fulls)[0] * 1000:.1f} ms (in-process, {runs} runs each)"
        )
        # What a fresh process pays once: the first lookups on a new repository handle.
        from guard.repo import GitRepo

        probes: dict[str, list[float]] = {
            "first attr() (libgit2 loads the whole index)": [],
            "second attr()": [],
            "tracked() (HEAD tree lookup)": [],
            "index load alone (fresh handle)": [],
        }
        for _ in range(7):
            h = GitRepo(repo)
            t0 = time.perf_counter()
            h.attr(TARGET, "binary")
            t1 = time.perf_counter()
            h.attr(TARGET, "diff")
            t2 = time.perf_counter()
            h.tracked(TARGET)
            t3 = time.perf_counter()
            probes["first attr() (libgit2 loads the whole index)"].append(t1 - t0)
            probes["second attr()"].append(t2 - t1)
            probes["tracked() (HEAD tree lookup)"].append(t3 - t2)
            h2 = GitRepo(repo)
            t4 = time.perf_counter()
            h2._repo.index  # noqa: B018 - the property reads the index file
            probes["index load alone (fresh handle)"].append(time.perf_counter() - t4)
        # Rollback reads a turn's changes with a tree-to-tree diff (history.turn_changes).
        tip = GitRepo(repo).ref("refs/agent-guard/agent")
        assert tip is not None
        for _ in range(7):
            h = GitRepo(repo)
            info = h.commit_info(tip)
            parent_tree = h.commit_tree(info.parents[0])
            t0 = time.perf_counter()
            changed = h.diff_trees(parent_tree, info.tree)
            probes.setdefault(f"diff_trees of one turn ({len(changed)} file changed)", []).append(time.perf_counter() - t0)
        size = (repo / ".git" / "index").stat().st_size
        print(f"  {repo.name}: fresh-handle probes, median of 7 (index file {size / 1e6:.1f} MB):")
        for label, xs in probes.items():
            print(f"    {label:<46} {statistics.median(xs) * 1000:8.2f} ms")
        prof = cProfile.Profile()
        prof.enable()
        for i in range(10):
            Guard(repo).apply(p if i % 2 == 0 else r)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
        print(f"  cProfile, 10 x (open Guard + full apply) in {repo.name}, top by cumulative time:")
        for line in buf.getvalue().splitlines():
            if line.strip() and ("{" in line or "/" in line or "ncalls" in line):
                print("    " + line[:160])
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
        reset(repo, base)


# ---------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "agent-guard-bench")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--profile", action="store_true", help="in-process breakdown, fresh-handle probes, cProfile")
    ap.add_argument(
        "--what-if",
        action="store_true",
        help="also time agent-apply with GitRepo.attr answered without reading the index (the proposed fix)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    p, r, base, after = patches()
    print(
        f"git {run(['git', '--version'], ROOT).stdout.decode().split()[-1]}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; {args.runs} timed runs per cell (+1 warm-up); "
        f"agent-guard at "
        f"{shutil.which('git-agent-apply', path=ENV['PATH'])}"
    )
    repos = {n: ensure(args.dir, n, args.rebuild) for n in sizes}
    cells = {
        "git apply": interleaved(repos, alternating(["git", "apply"], p, r, base, after), args.runs, base, r),
        "git agent-apply": interleaved(repos, alternating(["git", "agent-apply"], p, r, base, after), args.runs, base, None),
        "git agent-rollback": interleaved(repos, rollback_after_apply(p, base, after), args.runs, base, None),
    }
    if args.what_if:
        cmd = [sys.executable, "-c", WHAT_IF_ATTR]
        cells["what-if: agent-apply, attr() without index"] = interleaved(
            repos, alternating(cmd, p, r, base, after), args.runs, base, None
        )
    for metric in ("wall", "cpu"):
        print()
        title = "wall time" if metric == "wall" else "CPU time (user + system of the command's processes)"
        head = f"{title}: median / p90 ms".ljust(58) + "".join(f"{n:>12} files" for n in sizes)
        print(head)
        for label, per in cells.items():
            row = f"  {label}".ljust(58)
            meds = []
            for n in sizes:
                med, p90 = stats([getattr(x, metric) for x in per[n]])
                meds.append(med)
                row += f"{fmt_ms(med).strip()} / {fmt_ms(p90).strip()}".rjust(18)
            if len(sizes) == 2:
                row += f"   ratio {meds[1] / meds[0]:.2f}x"
            print(row)
    print("(git agent-apply is the time to apply *and record* one turn: the same command.)")
    print(f"load average after the runs: {os.getloadavg()[0]:.2f}")
    if len(sizes) == 2:
        for metric in ("wall", "cpu"):
            meds = [statistics.median(getattr(x, metric) for x in cells["git agent-apply"][n]) for n in sizes]
            ratio = meds[1] / meds[0]
            verdict = "OK" if ratio <= 1.3 else "MISSED"
            print(f"scale ratio git agent-apply {sizes[1]}/{sizes[0]} ({metric}): {ratio:.2f}x (target <= 1.3x): {verdict}")
    if args.profile:
        print()
        for repo in repos.values():
            profile(repo, p, r, base, 20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
