"""The edit-outcome log: one line per decision, bounded, safe under concurrent writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from conftest import Repo
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.model import FileChange, Op, error, warning
from guard.report import Report, TurnRef, events

SECRET = "s3cret-token-value"


@settings(max_examples=2000, deadline=None)
@given(
    st.floats(-2e9, 4e9)
    | st.integers(-2 * 10**9, 4 * 10**9).flatmap(
        lambda s: st.sampled_from([0.0, 5e-7, -5e-7, 0.9999995, 0.0005, 0.9995]).map(lambda f: s + f)
    )
)
def test_timestamp_is_datetimes(when: float) -> None:
    dt = datetime.fromtimestamp(when, timezone.utc)
    assert events.timestamp(when) == dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _change(path: str, repairs: tuple[str, ...] = ()) -> FileChange:
    return FileChange(
        path,
        Op.MODIFY,
        None,
        f"{SECRET}\n".encode(),
        b"x\n",
        0o100644,
        0o100644,
        added=((1, "x"),),
        removed=((1, SECRET),),
        hunks=1,
        repairs=repairs,
        diff=f"-{SECRET}\n+x\n",
    )


def _event(i: int, agent: str = "a", pad: int = 0) -> dict[str, object]:
    return {
        "v": 1,
        "time": events.timestamp(1_767_225_600 + i),
        "kind": "apply",
        "agent": agent,
        "seq": i,
        "files": ["p" * pad] if pad else [],
        "status": "applied",
    }


# ---------------------------------------------------------------------- from_report


def test_from_report_applied_with_repairs_keeps_no_contents() -> None:
    report = Report(
        "applied",
        "unified",
        changes=(_change("a.py", ("recount", "offset")), _change("b.py", ("recount", "indent"))),
        findings=(warning("whitespace", "a.py", 3, "trailing space"),),
        turn=TurnRef("claude", "7", "c" * 40, "refs/agent-guard/claude"),
    )
    ev = events.from_report(events.Decision("apply", "claude", None, 321, 0.0123456789), report, now=1_767_225_600.5)
    assert ev == {
        "v": 1,
        "time": "2026-01-01T00:00:00.500Z",
        "kind": "apply",
        "agent": "claude",
        "turn": "7",
        "dialect": "unified",
        "status": "applied",
        "dry_run": False,
        "files": ["a.py", "b.py"],
        "nfiles": 2,
        "added": 2,
        "removed": 2,
        "repairs": ["recount", "offset", "indent"],
        "errors": [],
        "warnings": ["whitespace"],
        "size": 321,
        "duration": 0.012346,
    }
    assert SECRET not in json.dumps(ev)


def test_from_report_refused_lists_error_codes_and_paths_once() -> None:
    report = Report(
        "refused",
        None,
        findings=(
            error("not-found", "a.py", 4, "no match"),
            error("not-found", "a.py", 9, "no match"),
            error("parse-error", None, 1, "bad"),
            warning("placeholder", "b.py", 2, "elided"),
        ),
    )
    ev = events.from_report(events.Decision("apply", "gpt", "t1", 10, 0.5), report)
    assert (ev["status"], ev["dialect"], ev["turn"], ev["dry_run"]) == ("refused", None, "t1", False)
    assert ev["files"] == ["a.py", "b.py"] and ev["nfiles"] == 2
    assert ev["errors"] == ["not-found", "parse-error"] and ev["warnings"] == ["placeholder"]
    assert ev["repairs"] == [] and ev["added"] == 0


def test_from_report_dry_run_and_file_cap() -> None:
    changes = tuple(_change(f"f{i}.txt") for i in range(events.MAX_FILES + 5))
    ev = events.from_report(events.Decision("apply", "a", None, 1), Report("checked", "json", changes=changes))
    assert ev["dry_run"] is True
    assert len(ev["files"]) == events.MAX_FILES and ev["nfiles"] == events.MAX_FILES + 5


# ---------------------------------------------------------------------- append / read


def test_append_then_read_in_order_skipping_torn_lines(tmp_path: Path) -> None:
    for i in range(3):
        events.append(tmp_path, _event(i))
    log = tmp_path / "agent-guard" / "events.jsonl"
    with open(log, "ab") as fh:
        fh.write(b'{"v":1,"time":"2026-01-0')  # a write cut short by a crash or a full disk
        fh.write(b"\n[1, 2]\n")
    events.append(tmp_path, _event(3))
    got = events.read(tmp_path)
    assert [e["seq"] for e in got] == [0, 1, 2, 3]
    assert all(line.endswith("}") for line in log.read_text().splitlines()[:3])


def test_read_since_accepts_text_datetime_and_epoch(tmp_path: Path) -> None:
    for i in (0, 3600, 7200):
        events.append(tmp_path, _event(i))
    assert [e["seq"] for e in events.read(tmp_path, "2026-01-01T01:00:00Z")] == [3600, 7200]
    assert [e["seq"] for e in events.read(tmp_path, datetime(2026, 1, 1, 1, 30, tzinfo=timezone.utc))] == [7200]
    assert [e["seq"] for e in events.read(tmp_path, 1_767_225_600 + 1)] == [3600, 7200]
    assert events.read(tmp_path / "nowhere") == []


def test_rotation_bounds_the_log_and_keeps_the_newest(tmp_path: Path) -> None:
    max_bytes, keep = 2000, 2
    for i in range(200):
        events.append(tmp_path, _event(i, pad=50), max_bytes=max_bytes, keep=keep)
    d = tmp_path / "agent-guard"
    logs = sorted(p.name for p in d.glob("events*.jsonl"))
    assert logs == ["events.1.jsonl", "events.2.jsonl", "events.jsonl"]
    line = len(json.dumps(_event(199, pad=50), separators=(",", ":"))) + 1
    for p in d.glob("events*.jsonl"):
        assert p.stat().st_size < max_bytes + line, p
    seqs = [e["seq"] for e in events.read(tmp_path)]
    assert seqs == list(range(seqs[0], 200))  # a contiguous run of the newest, oldest first
    assert len(seqs) > 2 * (max_bytes // line)


_WRITER = """
import sys, time
from pathlib import Path
from guard.report import events
d, who, n, pad, max_bytes = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
(d / ("ready." + who)).touch()
while not (d / "go").exists():  # start together, so the writes really overlap
    time.sleep(0.001)
for i in range(n):
    events.append(d, {"v": 1, "time": events.timestamp(), "agent": who, "seq": i, "files": ["x" * pad]},
                  max_bytes=max_bytes, keep=10_000)
"""


def _writers(d: Path, procs: int, n: int, pad: int, max_bytes: int) -> None:
    running = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(d), f"w{k}", str(n), str(pad), str(max_bytes)]) for k in range(procs)
    ]
    try:
        deadline = time.monotonic() + 60
        while len(list(d.glob("ready.*"))) < procs and time.monotonic() < deadline:
            time.sleep(0.01)
        (d / "go").touch()
        for p in running:
            assert p.wait(timeout=120) == 0
    finally:
        for p in running:
            if p.poll() is None:
                p.kill()


def _check_all_lines(d: Path, procs: int, n: int) -> None:
    raw = b"".join(p.read_bytes() for p in (d / "agent-guard").glob("events*.jsonl"))
    lines = raw.splitlines()
    assert all(json.loads(line) for line in lines)  # no line was torn or interleaved
    got = sorted((e["agent"], e["seq"]) for e in map(json.loads, lines))
    assert got == sorted((f"w{k}", i) for k in range(procs) for i in range(n))
    in_order = [e["agent"] for e in events.read(d)]
    switches = sum(a != b for a, b in zip(in_order, in_order[1:]))
    assert switches >= procs  # the writers did run at the same time


def test_concurrent_writers_never_interleave_long_lines(tmp_path: Path) -> None:
    _writers(tmp_path, procs=4, n=150, pad=20_000, max_bytes=1 << 40)
    _check_all_lines(tmp_path, 4, 150)


def test_concurrent_writers_rotate_without_losing_or_doubling_events(tmp_path: Path) -> None:
    _writers(tmp_path, procs=4, n=1000, pad=100, max_bytes=8000)
    _check_all_lines(tmp_path, 4, 1000)
    assert len(events.read(tmp_path)) == 4000
    assert len(list((tmp_path / "agent-guard").glob("events.*.jsonl"))) > 10


# ---------------------------------------------------------------------- the engine logs every decision


def _log(repo: Repo) -> list[dict[str, object]]:
    return events.read(repo.root / ".git")


def test_every_apply_logs_one_event(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"f.txt": "one\ntwo\nthree\n"})
    good = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    recount = "--- a/f.txt\n+++ b/f.txt\n@@ -1,9 +1,9 @@\n one\n-TWO\n+2\n three\n"
    missing = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-nine\n+9\n three\n"
    assert cli("apply", "--agent", "claude", input=good).code == 0
    assert cli("apply", "--agent", "claude", "--check", input=recount).code == 0
    before = repo.snapshot()
    assert cli("apply", "--agent", "gpt", input=missing).code == 1
    assert repo.snapshot() == before
    log = _log(repo)
    assert [(e["agent"], e["kind"], e["status"], e["dialect"]) for e in log] == [
        ("claude", "apply", "applied", "unified"),
        ("claude", "apply", "checked", "unified"),
        ("gpt", "apply", "refused", "unified"),
    ]
    assert log[0]["repairs"] == [] and log[0]["turn"] is not None and log[0]["files"] == ["f.txt"]
    assert log[1]["repairs"] == ["recount"] and log[1]["dry_run"] is True
    assert log[2]["errors"] == ["not-found"] and log[2]["files"] == ["f.txt"]
    assert log[0]["size"] == len(good) and all(isinstance(e["duration"], float) for e in log)
    text = (repo.root / ".git" / "agent-guard" / "events.jsonl").read_text()
    assert "TWO" not in text and "nine" not in text  # paths and counts, never contents


def test_worktrees_share_one_log(repo: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"f.txt": "a\n"})
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "-b", "side")
    edit = json.dumps({"file_path": "f.txt", "old_string": "a\n", "new_string": "b\n"})
    assert cli("apply", "--agent", "w", input=edit, cwd=wt).code == 0
    assert [e["agent"] for e in _log(repo)] == ["w"]
    assert not (repo.root / ".git" / "worktrees" / "wt" / "agent-guard" / "events.jsonl").exists()


def test_an_unwritable_log_never_fails_an_apply(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"f.txt": "a\n"})
    (repo.root / ".git" / "agent-guard" / "events.jsonl").mkdir(parents=True)
    edit = json.dumps({"file_path": "f.txt", "old_string": "a\n", "new_string": "b\n"})
    assert cli("apply", input=edit).code == 0
    assert repo.read("f.txt") == b"b\n"


def test_record_swallows_os_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    events.record(blocker, events.Decision("check", "a", None), Report("checked", "unified"))  # no raise
    events.record(
        tmp_path,
        events.Decision("check", "a", None, 5, 0.1),
        Report("refused", "unified", findings=(error("stale", "x", 1, "m"),)),
    )
    (ev,) = events.read(tmp_path)
    assert (ev["kind"], ev["status"], ev["errors"], ev["size"]) == ("check", "refused", ["stale"], 5)
    assert os.path.exists(tmp_path / "agent-guard" / "events.lock")


def test_a_path_that_is_not_utf8_is_logged_and_read_back(tmp_path: Path) -> None:
    """git hands such a path over with lone surrogates: the log keeps it as a JSON escape."""
    event = {**_event(1), "paths": ["bad\udcff.txt"]}
    events.append(tmp_path, event)
    raw = (events.log_dir(tmp_path) / events.LOG).read_bytes()
    raw.decode("utf-8")  # the log stays UTF-8
    assert events.read(tmp_path)[-1]["paths"] == ["bad\udcff.txt"]
