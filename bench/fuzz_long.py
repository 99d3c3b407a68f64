"""The fuzz properties of tests/dialects/test_fuzz.py with a large example budget (run by hand).

Same strategies (random text and bytes, mutated case-folder inputs, token soups of
every dialect's keywords, odd Unicode and mixed line endings) and the same
properties: every dialect's ``detect``/``parse`` gives an int score and an
``EditSet`` or a ``ParseError``; the front door (``dialects.parse``) gives an edit
or ``parse-error`` findings; the engine, on a scratch repository, returns a Report
and never writes under ``--check``; a real apply is all or nothing.  Every example
runs under an alarm (a hang fails it).  Not derandomised: each seed explores anew.

Default budget: 10,000 examples per dialect parser (9), 10,000 for the front door
with ``auto``, 5,000 for detection, 15,000 engine checks and 3,000 engine applies:
123,000 in all.  ``--scale 0.1`` for a quick pass (tests/test_readme_long_checks.py runs
``--scale 0.01``).

    python bench/fuzz_long.py [--scale 1.0] [--seed 1] [--json]
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
import traceback
from pathlib import Path
from typing import Any, Callable

TESTS = Path(__file__).resolve().parents[1] / "tests"
# conftest (the scratch repository) is in tests/, the fuzz properties in tests/dialects/ (it once
# looked for them in tests/ alone, and failed at once: tests/test_readme_long_checks.py runs it).
sys.path[:0] = [str(TESTS), str(TESTS / "dialects")]

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path


def scratch_repo() -> Any:
    os.environ.update(GIT_ENV)
    for key in ("AGENT_GUARD_AGENT", "AGENT_GUARD_TURN", "AGENT_GUARD_POLICY", "GIT_DIR", "GIT_WORK_TREE"):
        os.environ.pop(key, None)
    home = Path(tempfile.mkdtemp(prefix="agent-guard-fuzz-"))
    os.environ["HOME"] = str(home)
    from conftest import Repo
    from test_fuzz import FILES

    root = home / "repo"
    root.mkdir()
    repo = Repo(root)
    repo.commit(FILES)
    return repo


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args(argv)

    import test_fuzz as tf
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    from guard import dialects
    from guard.pipeline.engine import Guard

    repo = scratch_repo()
    counts: dict[str, int] = {}
    failures: list[str] = []

    def budget(n: int) -> settings:
        return settings(
            max_examples=max(1, int(n * opts.scale)), deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )

    def run(name: str, prop: Callable[[], None]) -> None:
        counts[name] = 0
        started = time.monotonic()
        try:
            prop()
        except Exception:
            failures.append(f"{name}: {traceback.format_exc(limit=3)[-3000:]}")
        print(f"{name}: {counts[name]} examples, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    def parse_property(name: str) -> Callable[[], None]:
        @seed(opts.seed)
        @budget(10_000)
        @given(text=tf.ANY_INPUT)
        def prop(text: str) -> None:
            counts[f"parse[{name}]"] += 1
            tf._check_parse(name, text)

        return prop  # type: ignore[no-any-return]

    for name in sorted(dialects.DIALECTS):
        run(f"parse[{name}]", parse_property(name))

    @seed(opts.seed)
    @budget(10_000)
    @given(text=tf.ANY_INPUT)
    def front_door(text: str) -> None:
        counts["front-door[auto]"] += 1
        tf._check_front_door(text, "auto")

    run("front-door[auto]", front_door)

    @seed(opts.seed)
    @budget(5_000)
    @given(text=tf.ANY_INPUT)
    def detection(text: str) -> None:
        counts["detect"] += 1
        with tf.deadline():
            name, scores = dialects.detect(text)
        assert name is None or name in dialects.AUTO
        assert all(0 <= s <= 100 for s in scores.values())

    run("detect", detection)

    before = repo.snapshot()

    @seed(opts.seed)
    @budget(15_000)
    @given(
        data=st.one_of(tf.mutated_bytes(), st.binary(max_size=300), tf.token_soup().map(str.encode)),
        fmt=st.sampled_from(["auto", "auto", "auto", *sorted(dialects.DIALECTS)]),
    )
    def engine_check(data: bytes, fmt: str) -> None:
        counts["engine-check"] += 1
        with tf.deadline():
            report = Guard(repo.root).apply(data, format=fmt, check=True, path="a.txt" if fmt in ("whole", "lazy") else None)
        assert report.status in ("checked", "refused")
        assert repo.snapshot() == before

    run("engine-check", engine_check)

    applied = [0]

    @seed(opts.seed)
    @budget(3_000)
    @given(data=st.one_of(tf.mutated_bytes(tf.APPLY_SEEDS), tf.mutated_bytes(), tf.token_soup().map(str.encode)))
    def engine_apply(data: bytes) -> None:
        counts["engine-apply"] += 1
        snap = repo.snapshot()
        with tf.deadline():
            report = Guard(repo.root).apply(data)
        after = repo.snapshot()
        if report.status == "refused":
            assert after == snap
            return
        applied[0] += 1
        touched = {c.path for c in report.changes} | {c.old_path for c in report.changes if c.old_path}
        changed = {k for k in set(snap) | set(after) if snap.get(k) != after.get(k) and not k.startswith("<")}
        assert changed <= touched, (changed, touched)
        assert after["<index>"] == snap["<index>"] and after["<HEAD>"] == snap["<HEAD>"]
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo.root, check=True, timeout=60)
        subprocess.run(["git", "clean", "-qfd"], cwd=repo.root, check=True, timeout=60)
        subprocess.run(["git", "update-ref", "-d", report.turn.ref], cwd=repo.root, check=True, timeout=60)

    run("engine-apply", engine_apply)

    summary = {
        "examples": sum(counts.values()),
        "by_property": counts,
        "engine_applies_that_landed": applied[0],
        "failures": len(failures),
        "seed": opts.seed,
    }
    shutil.rmtree(Path(os.environ["HOME"]), ignore_errors=True)  # the scratch home made above
    for f in failures:
        print("FAIL", f)
    print(json.dumps(summary) if opts.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
