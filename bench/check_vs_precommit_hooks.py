"""`agent-guard check` against pre-commit-hooks on one large staged change (run by hand).

A scratch repository gets one commit, then a staged change of FILES new files with
LINES lines each (default 1,000 files, 200,000 added lines).  On that change, timed
as separate processes started the same way (`python -m ...`, no shell shims):

- `agent-guard check` (the staged change, as the pre-commit hook runs it, all files
  named): placeholder, conflict markers, whitespace, encoding, budget, protected paths;
- pre-commit-hooks' `trailing-whitespace` and `check-merge-conflict` (the latter with
  `--assume-in-merge`, without which it does nothing outside a merge) over the same
  files, each as one process, as pre-commit runs a hook on one partition;
- for reference, git's own `git diff --cached --check` (whitespace only, in C).

Each is run once untimed (it writes its bytecode), then REPEAT times; the best and
the median of wall and CPU time (user + system of the process) are printed.  Target:
agent-guard no slower than the two hooks together, though it does more.  Bytecode
is cached under $TMPDIR/agent-guard-bench-pycache (PYTHONPYCACHEPREFIX) for every
tool alike, as a normal install caches it, so no run pays for compiling sources.

Then the same two sides as users run them: ``pre-commit run --files ...`` with a
local configuration holding agent-guard's hook (``require_serial``, as this
repository's .pre-commit-hooks.yaml says: one process sees the whole commit), and
one holding the two pre-commit-hooks hooks (as their manifest declares them:
``types: [text]``, not serial, so pre-commit spreads their files over one process
per CPU), and one holding no hook (what pre-commit itself costs).  CPU time there
is the whole process tree's.

``--what-if`` also times agent-guard with ``GitRepo.read_blob`` replaced by what a
proposed change to guard/repo.py would do: read through the object database
(``odb.read``, not a lookup that makes a Blob object), and that with libgit2's
re-hash of every object it reads turned off too (git itself does not re-hash on
read); it checks that their output is the same.  Nothing in guard/ is changed by it.

    pip install pre-commit-hooks
    python bench/check_vs_precommit_hooks.py [--files 1000] [--lines 200] [--repeat 5]
        [--policy default] [--what-if] [--no-framework]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
}
for _key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "GIT_DIR", "PYTHONDONTWRITEBYTECODE"):
    ENV.pop(_key, None)
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")

# The proposed guard/repo.py read (see the module doc): `python -c WHAT_IF_READ {0|1} check ...`,
# the first argument 0 to also turn libgit2's re-hash on read off.
WHAT_IF_READ = """
import sys, pygit2
from guard import repo as repo_mod

pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, int(sys.argv.pop(1)))

def read_blob(self, oid):
    try:
        kind, data = self._repo.odb.read(oid)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return data if kind == pygit2.enums.ObjectType.BLOB else None

repo_mod.GitRepo.read_blob = read_blob
from guard.cli.commands import main
main(sys.argv[1:])
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, timeout=600)


def source_file(n: int, lines: int) -> str:
    """Plausible Python: functions, comments, strings; no whitespace errors, no markers."""
    out = [f'"""Module {n}: generated for the benchmark."""', "", "import os", ""]
    i = 0
    while len(out) < lines:
        out += [
            f"def handler_{n}_{i}(request, limit=10):",
            f"    # Look the request up in the table of module {n} and apply the limit.",
            f"    items = [x * {i % 7 + 1} for x in range(limit) if x % {i % 3 + 2} == 0]",
            f"    name = os.path.join('data', 'part-{n}-{i}.txt')",
            "    return {'name': name, 'count': len(items), 'total': sum(items)}",
            "",
        ]
        i += 1
    return "\n".join(out[:lines]) + "\n"


def make_repo(base: Path, files: int, lines: int) -> tuple[Path, list[str]]:
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("bench\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "start")
    names = []
    for n in range(files):
        name = f"pkg{n % 20:02d}/module_{n:04d}.py"
        path = repo / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(source_file(n, lines))
        names.append(name)
    git(repo, "add", "-A")
    return repo, names


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], cwd: Path, repeat: int) -> tuple[list[float], list[float], int, str, str]:
    """Wall and CPU (user + system) seconds of each run, the last exit status, output line and output."""
    walls, cpus = [], []
    subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, timeout=600, check=False)  # writes bytecode
    code, tail, out = 0, "", ""
    for _ in range(repeat):
        cpu, start = _cpu(), time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=600, check=False)
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
        code = proc.returncode
        out = proc.stdout + proc.stderr
        lines = out.strip().splitlines()
        tail = next((ln for ln in lines if ln.startswith("agent-guard check:")), lines[-1] if lines else "")
    return walls, cpus, code, tail, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--lines", type=int, default=200, help="lines per file")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--policy", default="default", help="agent-guard policy (preset or file)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch repository")
    ap.add_argument("--what-if", action="store_true", help="also time agent-guard with the proposed repo.py blob read")
    ap.add_argument("--no-framework", action="store_true", help="skip the runs through `pre-commit run`")
    args = ap.parse_args()
    try:
        import pre_commit_hooks  # noqa: F401
    except ImportError:
        print("pre-commit-hooks is not installed: pip install pre-commit-hooks", file=sys.stderr)
        return 2
    base = Path(tempfile.mkdtemp(prefix="agent-guard-bench-"))
    try:
        repo, names = make_repo(base, args.files, args.lines)
        total = args.files * args.lines
        print(
            f"staged change: {args.files:,} new files, {total:,} added lines "
            f"({sum((repo / n).stat().st_size for n in names) / 1e6:.1f} MB); best and median of {args.repeat} runs\n"
        )
        py = sys.executable
        runs = [
            ("agent-guard check", [py, "-m", "guard", "check", "--policy", args.policy, *names]),
            ("pre-commit-hooks trailing-whitespace", [py, "-m", "pre_commit_hooks.trailing_whitespace_fixer", *names]),
            (
                "pre-commit-hooks check-merge-conflict",
                [py, "-m", "pre_commit_hooks.check_merge_conflict", "--assume-in-merge", *names],
            ),
            ("git diff --cached --check (reference)", ["git", "diff", "--cached", "--check"]),
        ]
        what_ifs = {"what-if: repo.py reads via odb": "1", "what-if: odb, no re-hash on read": "0"}
        if args.what_if:
            for label, verify in what_ifs.items():
                runs.append((label, [py, "-c", WHAT_IF_READ, verify, "check", "--policy", args.policy, *names]))
        said = ""
        wall: dict[str, float] = {}
        cpu: dict[str, float] = {}
        outputs: dict[str, str] = {}
        print(f"{'':<42} {'wall best':>9} {'median':>8} {'cpu best':>9} {'median':>8}")
        for label, cmd in runs:
            walls, cpus, code, tail, outputs[label] = timed(cmd, repo, args.repeat)
            wall[label], cpu[label] = min(walls), min(cpus)
            print(
                f"{label:<42} {min(walls):8.3f}s {statistics.median(walls):7.3f}s {min(cpus):8.3f}s "
                f"{statistics.median(cpus):7.3f}s  exit {code}"
            )
            if label == "agent-guard check":
                said = tail
        print(f"  ({said})")
        if args.what_if:
            same = all(outputs[label] == outputs["agent-guard check"] for label in what_ifs)
            print(f"  what-if output {'identical to' if same else 'DIFFERENT from'} agent-guard check's")
        hooks = ("pre-commit-hooks trailing-whitespace", "pre-commit-hooks check-merge-conflict")
        ours = ["agent-guard check", *(what_ifs if args.what_if else ())]
        for what, table in (("wall", wall), ("cpu", cpu)):
            theirs = sum(table[h] for h in hooks)
            for label in ours:
                print(
                    f"{what}: {label} {table[label]:.3f}s vs the two hooks together {theirs:.3f}s: "
                    f"{'no slower' if table[label] <= theirs else 'slower'} ({table[label] / theirs:.2f}x)"
                )
        if not args.no_framework:
            framework(repo, names, args, base)
        return 0
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def _config(path: Path, hooks: list[dict[str, object]]) -> Path:
    """A pre-commit configuration of local hooks (JSON is YAML)."""
    import json

    path.write_text(json.dumps({"repos": [{"repo": "local", "hooks": hooks}]} if hooks else {"repos": []}, indent=1))
    return path


def framework(repo: Path, names: list[str], args: argparse.Namespace, base: Path) -> None:
    """Both sides through `pre-commit run --files`, as a commit runs them (see the module doc)."""
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        print("\n(pre-commit is not installed: the runs through the framework are skipped)")
        return
    py = sys.executable
    sides = {
        "pre-commit, no hook (its own cost)": [],
        "pre-commit: agent-guard": [
            {
                "id": "agent-guard",
                "name": "agent-guard",
                "entry": f"{py} -m guard check --policy {args.policy}",
                "language": "system",
                "require_serial": True,
            },
        ],
        "pre-commit: the two pre-commit-hooks": [
            {
                "id": "trailing-whitespace",
                "name": "trailing-whitespace",
                "types": ["text"],
                "language": "system",
                "entry": f"{py} -m pre_commit_hooks.trailing_whitespace_fixer",
            },
            {
                "id": "check-merge-conflict",
                "name": "check-merge-conflict",
                "types": ["text"],
                "language": "system",
                "entry": f"{py} -m pre_commit_hooks.check_merge_conflict --assume-in-merge",
            },
        ],
    }
    os.environ["PRE_COMMIT_HOME"] = str(base / "pre-commit-home")  # timed() passes ENV, a copy made before
    ENV["PRE_COMMIT_HOME"] = str(base / "pre-commit-home")
    print(f"\nthrough pre-commit ({os.cpu_count()} CPUs: a hook that is not serial runs as that many processes)")
    print(f"{'':<42} {'wall best':>9} {'median':>8} {'cpu best':>9} {'median':>8}")
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for i, (label, hooks) in enumerate(sides.items()):
        cfg = _config(base / f"pre-commit-{i}.yaml", hooks)
        cmd = [py, "-m", "pre_commit", "run", "--color", "never", "--config", str(cfg), "--files", *names]
        walls, cpus, code, _tail, out = timed(cmd, repo, args.repeat)
        wall[label], cpu[label] = min(walls), min(cpus)
        print(
            f"{label:<42} {min(walls):8.3f}s {statistics.median(walls):7.3f}s {min(cpus):8.3f}s "
            f"{statistics.median(cpus):7.3f}s  exit {code}"
        )
        if hooks and code not in (0, 1):
            print(out)
    ours, theirs = "pre-commit: agent-guard", "pre-commit: the two pre-commit-hooks"
    for what, table in (("wall", wall), ("cpu", cpu)):
        print(
            f"{what}: {ours} {table[ours]:.3f}s vs {theirs} {table[theirs]:.3f}s: "
            f"{'no slower' if table[ours] <= table[theirs] else 'slower'} ({table[ours] / table[theirs]:.2f}x)"
        )


if __name__ == "__main__":
    raise SystemExit(main())
