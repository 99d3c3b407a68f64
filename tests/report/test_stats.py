"""`agent-guard stats` over a synthetic event log: every figure, every filter, every rendering."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from conftest import Repo

from guard.report import events
from guard.turns import stats

T0 = 1_767_225_600  # 2026-01-01T00:00:00Z
DAY = 86_400


def ev(
    agent: str,
    dialect: str | None,
    status: str,
    *,
    repairs: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
    warnings: tuple[str, ...] = (),
    size: int = 100,
    duration: float = 0.01,
    day: int = 0,
    kind: str = "apply",
    n: int = 1,
) -> Iterator[dict[str, Any]]:
    for i in range(n):
        yield {
            "v": 1,
            "time": events.timestamp(T0 + day * DAY + i),
            "kind": kind,
            "agent": agent,
            "turn": None,
            "dialect": dialect,
            "status": status,
            "dry_run": status == "checked",
            "files": ["a.py"],
            "nfiles": 1,
            "added": 1,
            "removed": 1,
            "repairs": list(repairs),
            "errors": list(errors),
            "warnings": list(warnings),
            "size": size,
            "duration": duration,
        }


def synthetic() -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = []
    # claude, days 0-1.  unified: 20 edits, 17 land (85%), 12 of them clean; and 1 dry run.
    for i in range(12):
        log += ev("claude", "unified", "applied", size=10 * (i + 1), duration=0.001 * (i + 1))
    for i in range(3):
        log += ev("claude", "unified", "applied", repairs=("recount",), size=130 + 10 * i, duration=0.013 + 0.001 * i)
    log += ev("claude", "unified", "applied", repairs=("recount", "offset"), size=160, duration=0.016)
    log += ev("claude", "unified", "applied", repairs=("indent",), size=170, duration=0.017)
    # A dry run (apply --check) that would apply: counted apart, in no other figure.
    log += ev("claude", "unified", "checked", repairs=("recount",), size=5000, duration=9.0)
    log += ev("claude", "unified", "refused", errors=("not-found",), size=180, duration=0.018, n=2)
    log[-1]["size"], log[-1]["duration"] = 190, 0.019
    log += ev("claude", "unified", "refused", errors=("stale", "budget"), size=200, duration=0.020)
    # search-replace: 25 edits, 20 land (80%).
    log += ev("claude", "search-replace", "applied", size=1000, duration=0.5, day=1, n=15)
    log += ev("claude", "search-replace", "applied", repairs=("trailing-whitespace",), size=1100, duration=0.5, day=1, n=5)
    log += ev(
        "claude",
        "search-replace",
        "refused",
        errors=("ambiguous",),
        warnings=("placeholder",),
        size=900,
        duration=0.4,
        day=1,
        n=5,
    )
    # auto-detection failed: no dialect.
    log += ev("claude", None, "refused", errors=("parse-error",), size=50, duration=0.002, day=1, n=2)
    # pre-commit checks: not edits in a dialect.
    log += ev("claude", "unified", "checked", kind="check", day=1, n=2)
    log += ev("claude", "unified", "refused", errors=("whitespace",), kind="check", day=1)
    # gpt, day 19: too few edits in any dialect for a recommendation.
    log += ev("gpt", "codex", "applied", size=300, duration=0.03, day=19, n=4)
    log += ev("gpt", "codex", "applied", repairs=("fuzz",), size=400, duration=0.04, day=19, n=4)
    log += ev("gpt", "codex", "refused", errors=("placeholder",), size=500, duration=0.05, day=19, n=2)
    log += ev("gpt", "whole", "applied", size=5000, duration=0.1, day=19, n=5)
    # gemini, day 31: two dialects land 90%; unified needs no repairs, so it wins the tie.
    log += ev("gemini", "unified", "applied", size=200, duration=0.02, day=31, n=18)
    log += ev("gemini", "unified", "refused", errors=("not-found",), size=200, duration=0.02, day=31, n=2)
    log += ev("gemini", "search-replace", "applied", size=300, duration=0.03, day=31, n=16)
    log += ev("gemini", "search-replace", "applied", repairs=("eol",), size=300, duration=0.03, day=31, n=2)
    log += ev("gemini", "search-replace", "refused", errors=("ambiguous",), size=300, duration=0.03, day=31, n=2)
    return log


NO_CLASSES = {c: {"edits": 0, "landed": 0, "refused": 0} for c in stats.CLASSES}
LINE, WS, DUP, LAZY, STALE = stats.CLASSES


def classes(**given: tuple[int, int]) -> dict[str, dict[str, int]]:
    names = {"line": LINE, "ws": WS, "dup": DUP, "lazy": LAZY, "stale": STALE}
    out = {c: dict(v) for c, v in NO_CLASSES.items()}
    for key, (landed, refused) in given.items():
        out[names[key]] = {"edits": landed + refused, "landed": landed, "refused": refused}
    return out


CLAUDE_UNIFIED = {
    "dialect": "unified",
    "tool": None,
    "tried": 20,
    "landed": 17,
    "clean": 12,
    "repaired": 5,
    "flagged": 0,
    "refused": 3,
    "dry_runs": 1,
    "landing_rate": 0.85,
    "clean_rate": 0.6,
    "by_repair": {"recount": 4, "indent": 1, "offset": 1},
    "by_code": {"not-found": 2, "budget": 1, "stale": 1},
    "by_flag": {},
    "by_verify": {},
    "classes": classes(line=(4, 2), ws=(1, 0), stale=(0, 1)),
    "median_size": 105,
    "median_duration": 0.0105,
}
CLAUDE_SR = {
    "dialect": "search-replace",
    "tool": None,
    "tried": 25,
    "landed": 20,
    "clean": 15,
    "repaired": 5,
    "flagged": 0,
    "refused": 5,
    "dry_runs": 0,
    "landing_rate": 0.8,
    "clean_rate": 0.6,
    "by_repair": {"trailing-whitespace": 5},
    "by_code": {"ambiguous": 5},
    "by_flag": {},
    "by_verify": {},
    "classes": classes(ws=(5, 0), dup=(0, 5), lazy=(0, 5)),
    "median_size": 1000,
    "median_duration": 0.5,
}
CLAUDE_UNKNOWN = {
    "dialect": "unknown",
    "tool": None,
    "tried": 2,
    "landed": 0,
    "clean": 0,
    "repaired": 0,
    "flagged": 0,
    "refused": 2,
    "dry_runs": 0,
    "landing_rate": 0.0,
    "clean_rate": 0.0,
    "by_repair": {},
    "by_code": {"parse-error": 2},
    "by_flag": {},
    "by_verify": {},
    "classes": classes(),
    "median_size": 50,
    "median_duration": 0.002,
}


def test_claude_every_figure() -> None:
    out = stats.aggregate(synthetic())
    claude = out["agents"][0]
    assert claude["agent"] == "claude"
    assert claude["dialects"] == [CLAUDE_SR, CLAUDE_UNIFIED, CLAUDE_UNKNOWN]  # most edits first
    assert {k: claude[k] for k in ("tried", "landed", "clean", "repaired", "refused", "dry_runs")} == {
        "tried": 47,
        "landed": 37,
        "clean": 27,
        "repaired": 10,
        "refused": 10,
        "dry_runs": 1,
    }
    assert claude["landing_rate"] == round(37 / 47, 4) and claude["clean_rate"] == round(27 / 47, 4)
    assert claude["by_repair"] == {"trailing-whitespace": 5, "recount": 4, "indent": 1, "offset": 1}
    assert claude["by_code"] == {"ambiguous": 5, "not-found": 2, "parse-error": 2, "budget": 1, "stale": 1}
    assert claude["classes"] == classes(line=(4, 2), ws=(6, 0), dup=(0, 5), lazy=(0, 5), stale=(0, 1))
    # 47 sizes: 20 unified (10..200), 25 search-replace (1000 x15, 1100 x5, 900 x5), 2 x 50 -> the 24th is 900.
    assert claude["median_size"] == 900
    assert claude["leans_on"] == [
        {"repair": "trailing-whitespace", "edits": 5, "share": round(5 / 37, 4), "class": WS},
        {"repair": "recount", "edits": 4, "share": round(4 / 37, 4), "class": LINE},
        {"repair": "indent", "edits": 1, "share": round(1 / 37, 4), "class": WS},
    ]
    assert claude["recommendation"] == {
        "dialect": "unified",
        "landing_rate": 0.85,
        "tried": 20,
        "compared": ["unified", "search-replace"],
    }
    assert claude["recommendation_note"] == "85% of 20 edits land (vs search-replace 80% of 25)"
    checks = claude["checks"]
    assert (checks["tried"], checks["landed"], checks["refused"], checks["by_code"]) == (3, 2, 1, {"whitespace": 1})
    assert checks["classes"] == classes(ws=(0, 1))


def test_gpt_too_few_edits_for_a_recommendation() -> None:
    gpt = next(a for a in stats.aggregate(synthetic())["agents"] if a["agent"] == "gpt")
    codex, whole = gpt["dialects"]
    assert (codex["dialect"], codex["tried"], codex["clean"], codex["repaired"], codex["refused"]) == ("codex", 10, 4, 4, 2)
    assert (codex["landing_rate"], codex["by_repair"], codex["by_code"]) == (0.8, {"fuzz": 4}, {"placeholder": 2})
    assert (codex["median_size"], codex["median_duration"]) == (400, 0.04)
    assert codex["classes"] == classes(line=(4, 0), lazy=(0, 2))
    assert (whole["dialect"], whole["tried"], whole["clean"], whole["landing_rate"]) == ("whole", 5, 5, 1.0)
    assert gpt["recommendation"] is None
    assert gpt["recommendation_note"] == "no dialect has 20 edits yet (most: codex with 10)"
    assert gpt["leans_on"] == [{"repair": "fuzz", "edits": 4, "share": round(4 / 13, 4), "class": LINE}]
    assert gpt["checks"] is None


def test_gemini_tie_goes_to_the_dialect_needing_fewer_repairs() -> None:
    gemini = next(a for a in stats.aggregate(synthetic())["agents"] if a["agent"] == "gemini")
    assert [(d["dialect"], d["landing_rate"], d["clean_rate"]) for d in gemini["dialects"]] == [
        ("search-replace", 0.9, 0.8),
        ("unified", 0.9, 0.9),
    ]
    assert gemini["recommendation"]["dialect"] == "unified"
    assert gemini["recommendation_note"] == (
        "90% of 20 edits land (vs search-replace 90% of 20); tied, and 90% land clean (vs 80%)"
    )


def test_recommendation_threshold_is_min_events() -> None:
    log = list(ev("a", "json", "applied", n=19)) + list(ev("a", "unified", "applied", n=20))
    log += ev("a", "unified", "refused", errors=("stale",))
    (a,) = stats.aggregate(log)["agents"]
    # json lands 100% but has 19 edits: only unified (20 of 21) is measured enough.
    assert a["recommendation"]["dialect"] == "unified"
    assert a["recommendation_note"] == "95% of 21 edits land (the only dialect with 20 edits)"
    (a,) = stats.aggregate(log, min_events=19)["agents"]
    assert a["recommendation"]["dialect"] == "json"
    assert stats.MIN_EVENTS == 20


def test_agent_filter_and_totals() -> None:
    out = stats.aggregate(synthetic(), agent="gpt")
    assert [a["agent"] for a in out["agents"]] == ["gpt"] and out["events"] == 15
    full = stats.aggregate(synthetic())
    assert [a["agent"] for a in full["agents"]] == ["claude", "gemini", "gpt"]
    assert full["events"] == 51 + 15 + 40
    assert full["first"] == "2026-01-01T00:00:00.000Z" and full["last"].startswith("2026-02-01T")


def test_classification_covers_every_contract_name() -> None:
    assert stats.CLASSES == {
        "line arithmetic and invented context": (
            "recount",
            "offset",
            "fuzz",
            "not-found",
            "line-numbers",
            "anchor",
            "empty-chunk",
            "context-prefix",
            "path-prefix",
        ),
        "whitespace drift": ("trailing-whitespace", "indent", "unicode", "eol", "escape", "whitespace", "whitespace-fix"),
        "duplicate ambiguity": ("ambiguous",),
        "lazy elision": ("placeholder",),
        "stale state": ("stale", "3way", "rollback-conflict"),
    }


def test_unknown_fields_and_odd_events_do_not_break_the_tally() -> None:
    log = [
        {"time": "2026-01-01T00:00:00Z", "agent": "x", "status": "applied", "repairs": "not-a-list", "size": "big"},
        {"time": "2026-01-01T00:00:01Z", "agent": "x", "dialect": "codex", "status": "refused"},
    ]
    (x,) = stats.aggregate(log)["agents"]
    assert [(d["dialect"], d["tried"], d["clean"], d["refused"]) for d in x["dialects"]] == [
        ("codex", 1, 0, 1),
        ("unknown", 1, 1, 0),
    ]
    assert x["median_size"] is None


def test_an_agent_with_only_checks() -> None:
    (a,) = stats.aggregate(ev("bot", "unified", "refused", errors=("stale",), kind="check"))["agents"]
    assert (a["agent"], a["tried"], a["dialects"], a["recommendation"]) == ("bot", 0, [], None)
    assert a["recommendation_note"] == "no edits yet"
    assert (a["checks"]["tried"], a["checks"]["by_code"]) == (1, {"stale": 1})
    assert "bot: 0 edits" in stats.render_text(stats.aggregate(ev("bot", None, "checked", kind="check")))


# ---------------------------------------------------------------------- the command


@pytest.fixture
def logged(repo: Repo) -> Repo:
    repo.commit({"README": "x\n"})
    for e in synthetic():
        events.append(repo.root / ".git", e)
    return repo


def test_cli_json_matches_aggregate(logged: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("stats", "--json")
    assert r.code == 0, r
    out = r.json()
    want = json.loads(json.dumps(stats.aggregate(synthetic())))
    assert out["agents"] == want["agents"] and out["events"] == 106
    assert out["min_events"] == 20 and out["since"] is None and out["agent"] is None
    assert out["agents"][0]["dialects"][1] == CLAUDE_UNIFIED


def test_cli_since_and_agent(logged: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("stats", "--json", "--since", "2026-01-15").json()
    assert [a["agent"] for a in out["agents"]] == ["gemini", "gpt"] and out["events"] == 55
    out = cli("stats", "--json", "--since", "2026-02-01T00:00:00Z", "--agent", "gemini").json()
    assert [(a["agent"], a["tried"]) for a in out["agents"]] == [("gemini", 40)]
    out = cli("stats", "--json", "--agent", "nobody").json()
    assert out["agents"] == [] and out["events"] == 0
    assert cli("stats", "--since", "7d").code == 0
    bad = cli("stats", "--since", "last tuesday")
    assert bad.code == 2 and "--since" in bad.stderr


def test_since_takes_dates_times_and_ages() -> None:
    from datetime import datetime, timedelta, timezone

    assert stats.parse_since("2026-01-15T00:00:00Z") == datetime(2026, 1, 15, tzinfo=timezone.utc)
    assert stats.parse_since("2026-01-15T02:00+02:00") == datetime(2026, 1, 15, tzinfo=timezone.utc)
    assert stats.parse_since("2026-01-15") == datetime(2026, 1, 15).astimezone()  # local midnight
    for text, delta in (
        ("30m", timedelta(minutes=30)),
        ("12h", timedelta(hours=12)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
    ):
        assert abs(datetime.now(timezone.utc) - delta - stats.parse_since(text)) < timedelta(seconds=60)
    with pytest.raises(ValueError):
        stats.parse_since("yesterday")


def test_cli_min_events(logged: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("stats", "--json", "--agent", "gpt", "--min-events", "10").json()
    assert out["agents"][0]["recommendation"]["dialect"] == "codex"
    assert cli("stats", "--min-events", "0").code == 2


def test_cli_text_table(logged: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("stats")
    assert r.code == 0, r
    lines = r.stdout.splitlines()
    assert lines[0] == "agent-guard stats: 106 events, 2026-01-01T00:00:00.000Z to 2026-02-01T00:00:17.000Z"
    i = lines.index("claude: 47 edits, 37 landed (79%), 10 refused; 1 dry run that would apply")
    claude = lines[i : lines.index("", i)]
    assert claude[1].split() == ["dialect", "tried", "clean", "repaired", "refused", "landed", "med.size", "med.time"]
    assert claude[2].split() == ["search-replace", "25", "15", "5", "5", "80%", "1000", "B", "500", "ms"]
    assert claude[3] == "    repaired by: trailing-whitespace 5"
    assert claude[4] == "    refused by:  ambiguous 5"
    assert claude[5].split() == ["unified", "20", "12", "5", "3", "85%", "105", "B", "10", "ms"]
    assert claude[6] == "    repaired by: recount 4, indent 1, offset 1"
    assert claude[7] == "    refused by:  not-found 2, budget 1, stale 1"
    assert claude[8] == "    dry runs:    1 would apply (not counted as edits)"
    assert claude[9].split() == ["unknown", "2", "0", "0", "2", "0%", "50", "B", "2.0", "ms"]
    assert claude[10] == "    refused by:  parse-error 2"
    assert claude[11] == (
        "  failure classes: line arithmetic and invented context 6 (4 landed, 2 refused); "
        "whitespace drift 6 (6 landed, 0 refused); duplicate ambiguity 5 (0 landed, 5 refused); "
        "lazy elision 5 (0 landed, 5 refused); stale state 1 (0 landed, 1 refused)"
    )
    assert claude[12] == (
        "  leans on: trailing-whitespace (5 of 37 landed edits, whitespace drift); "
        "recount (4 of 37 landed edits, line arithmetic and invented context); "
        "indent (1 of 37 landed edits, whitespace drift)"
    )
    assert claude[13] == "  recommended dialect: unified: 85% of 20 edits land (vs search-replace 80% of 25)"
    assert claude[14] == "  pre-commit checks: 3 run, 2 passed, 1 refused (whitespace 1)"
    assert "  recommended dialect: none yet: no dialect has 20 edits yet (most: codex with 10)" in lines
    gpt = lines[lines.index("gpt: 15 edits, 13 landed (87%), 2 refused") :]
    assert gpt[2].split() == ["codex", "10", "4", "4", "2", "80%", "400", "B", "40", "ms"]
    assert gpt[5].split() == ["whole", "5", "5", "0", "0", "100%", "4.9", "KB", "100", "ms"]


def test_cli_empty_log(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"README": "x\n"})
    r = cli("stats")
    assert r.code == 0 and "no edit events recorded yet" in r.stdout
    assert cli("stats", "--json").json()["agents"] == []


def test_cli_outside_a_repository(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("stats", cwd=tmp_path)
    assert r.code == 2 and "not a git repository" in r.stderr


def test_apply_then_stats_end_to_end(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"f.txt": "one\ntwo\n"})
    edit = json.dumps({"file_path": "f.txt", "old_string": "two\n", "new_string": "2\n"})
    missing = json.dumps({"file_path": "f.txt", "old_string": "nine\n", "new_string": "9\n"})
    assert cli("apply", "--agent", "claude", input=edit).code == 0
    assert cli("apply", "--agent", "claude", input=missing).code == 1
    (claude,) = cli("stats", "--json").json()["agents"]
    assert [(d["dialect"], d["tried"], d["clean"], d["refused"], d["by_code"]) for d in claude["dialects"]] == [
        ("json", 2, 1, 1, {"not-found": 1})
    ]


def test_a_flagged_change_lands_and_a_dry_run_is_only_a_dry_run() -> None:
    log = list(ev("a", "shell", "refused", errors=("placeholder",), n=2))
    log[0]["kept"] = True  # shell.on_violation: warn kept it; the second one was reverted
    log += ev("a", "unified", "checked", repairs=("recount",))  # apply --check: it wrote nothing
    log += ev("a", "unified", "applied")
    out = stats.aggregate(log)
    (a,) = out["agents"]
    figures = ("tried", "landed", "clean", "repaired", "flagged", "refused", "dry_runs")
    assert {k: a[k] for k in figures} == {
        "tried": 3,
        "landed": 2,
        "clean": 1,
        "repaired": 0,
        "flagged": 1,
        "refused": 1,
        "dry_runs": 1,
    }
    assert (a["by_flag"], a["by_code"], a["by_repair"]) == ({"placeholder": 1}, {"placeholder": 1}, {})
    assert a["classes"][LAZY] == {"edits": 2, "landed": 1, "refused": 1} and a["classes"][LINE]["edits"] == 0
    shell, unified = a["dialects"]
    assert (shell["dialect"], shell["landed"], shell["flagged"], shell["refused"]) == ("shell", 1, 1, 1)
    assert (unified["tried"], unified["landed"], unified["dry_runs"], unified["landing_rate"]) == (1, 1, 1, 1.0)
    text = stats.render_text(out)
    assert "a: 3 edits, 2 landed (67%, 1 flagged), 1 refused; 1 dry run that would apply" in text, text
    assert "    flagged by:  placeholder 1" in text and "    dry runs:    1 would apply (not counted as edits)" in text
    page = stats.render_html(out)
    assert "<p>3 edits, 2 landed (67%, 1 flagged), 1 refused; 1 dry run that would apply.</p>" in page


def test_a_kept_shell_change_and_a_dry_run_end_to_end(repo: Repo, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sys

    from conftest import command

    repo.commit({"m.py": "def f(x):\n    a = 1\n    b = 2\n    return a + b + x\n"})
    script = (
        "import pathlib; p = pathlib.Path('m.py'); "
        "p.write_text(p.read_text().replace('    a = 1\\n', '    # ... rest of the code unchanged ...\\n'))"
    )
    kept = command(repo.root, "agent-guard", "run", "--agent", "aider", "--", sys.executable, "-c", script)
    assert kept.returncode == 1 and b"changes stay" in kept.stderr, kept  # flagged, kept (shell.on_violation: warn)
    # A command that only reads (most Bash calls) is logged, and is no edit: counted nowhere.
    assert command(repo.root, "agent-guard", "run", "--agent", "aider", "--", "git", "status").returncode == 0
    edit = json.dumps({"file_path": "m.py", "old_string": "b = 2", "new_string": "b = 3"})
    assert cli("apply", "--agent", "aider", "--check", input=edit).code == 0
    (aider,) = cli("stats", "--json").json()["agents"]
    rows = {
        name: (d["tried"], d["landed"], d["flagged"], d["refused"], d["dry_runs"])
        for d in aider["dialects"]
        for name in [stats.name_of(d)]
    }
    assert rows == {"run": (1, 1, 1, 0, 0), "json": (0, 0, 0, 0, 1)}, rows
    page = tmp_path / "stats.html"
    assert cli("stats", "--html", str(page)).code == 0
    assert "1 edit, 1 landed (100%, 1 flagged), 0 refused; 1 dry run that would apply." in page.read_text()


def test_import_is_cheap() -> None:
    import subprocess
    import sys

    # The CLI imports guard.turns.stats at every start: it must not pull in git, the engine or the log.
    code = (
        "import sys, guard.turns.stats; "
        "print(sorted({'pygit2', 'guard.pipeline.engine', 'guard.report.events', 'html'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------- hook mode and the MCP server


def test_hook_tool_calls_count_once_under_their_tool_names(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    from adapters.test_claude_code import SRC, absolute, claude_writes, hook_command, payload

    repo.commit({"stats.py": SRC})

    def call(tool: str, ti: dict[str, Any], tid: str, writes: tuple[str, str] | None) -> int:
        """One tool call as Claude Code makes it: PreToolUse, then (if allowed) the write and PostToolUse."""
        pre = hook_command(repo.root, payload(repo, tool, ti, tool_use_id=tid))
        if pre.returncode != 0:
            return pre.returncode
        if writes is not None:
            claude_writes(repo, *writes)
        post = hook_command(repo.root, payload(repo, tool, ti, event="PostToolUse", tool_use_id=tid, response={}))
        assert (post.returncode, post.stderr) == (0, b""), post
        return 0

    edited = SRC.replace("s = 0", "s = 0.0")
    assert (
        call(
            "Edit",
            {"file_path": absolute(repo, "stats.py"), "old_string": "s = 0", "new_string": "s = 0.0"},
            "toolu_1",
            ("stats.py", edited),
        )
        == 0
    )
    assert (
        call("Edit", {"file_path": absolute(repo, "stats.py"), "old_string": "nowhere", "new_string": "x"}, "toolu_2", None) == 2
    )  # denied at PreToolUse
    assert (
        call("Write", {"file_path": absolute(repo, "pkg/new.py"), "content": "X = 1\n"}, "toolu_3", ("pkg/new.py", "X = 1\n"))
        == 0
    )
    multi = [{"old_string": "s += i", "new_string": "s += 2 * i"}]
    assert (
        call(
            "MultiEdit",
            {"file_path": absolute(repo, "stats.py"), "edits": multi},
            "toolu_4",
            ("stats.py", edited.replace("s += i", "s += 2 * i")),
        )
        == 0
    )
    assert call("Write", {"file_path": absolute(repo, ".env"), "content": "T=1\n"}, "toolu_5", None) == 2
    # A PreToolUse that passed but whose tool never wrote (no PostToolUse yet) is not counted.
    assert hook_command(
        repo.root,
        payload(
            repo,
            "Edit",
            {"file_path": absolute(repo, "stats.py"), "old_string": "return s", "new_string": "return s"},
            tool_use_id="toolu_6",
        ),
    ).returncode in (0, 2)

    (claude,) = cli("stats", "--json").json()["agents"]
    rows = {(d["tool"], d["dialect"]): (d["tried"], d["landed"], d["refused"], d["dry_runs"]) for d in claude["dialects"]}
    assert rows == {("Edit", None): (2, 1, 1, 0), ("Write", None): (2, 1, 1, 0), ("MultiEdit", None): (1, 1, 0, 0)}
    assert (claude["tried"], claude["landed"], claude["refused"], claude["dry_runs"]) == (5, 3, 2, 0)
    assert claude["by_code"] == {"not-found": 1, "path-protected": 1}
    assert claude["recommendation"] is None and "agent's own tools" in claude["recommendation_note"]
    text = cli("stats").stdout
    assert "claude: 5 edits, 3 landed (60%), 2 refused" in text, text
    assert "  tool " in text and "\n  Edit " in text and "unified" not in text and "json" not in text, text
    assert "recommended dialect: none: edits came through the agent's own tools" in text


def test_mcp_edits_count_under_the_mcp_tool_names(repo: Repo, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("mcp")
    from adapters.test_mcp_server import over_stdio, tool

    repo.commit({"a.py": "x = 1\n"})

    async def scenario(s: Any) -> None:
        await tool(s, "edit_file", path="a.py", edits=[{"old_string": "x = 1", "new_string": "x = 2"}])  # unread
        await tool(s, "read_file", path="a.py")
        await tool(s, "edit_file", path="a.py", edits=[{"old_string": "x = 1", "new_string": "x = 2"}])
        await tool(s, "write_file", path="b.py", content="y = 1\n")
        await tool(s, "apply_patch", patch="--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 2\n+x = 3\n", dry_run=True)

    over_stdio(repo.root, tmp_path / "server.log", scenario)
    (model,) = cli("stats", "--json").json()["agents"]
    rows = {d["tool"]: (d["tried"], d["landed"], d["refused"], d["dry_runs"]) for d in model["dialects"]}
    assert rows == {"edit_file": (2, 1, 1, 0), "write_file": (1, 1, 0, 0), "apply_patch": (0, 0, 0, 1)}, rows


def test_empty_state_says_how_events_get_recorded(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"README": "x\n"})
    out = cli("stats").stdout
    assert f"no edit events recorded yet (the log: {repo.root / '.git' / 'agent-guard' / 'events.jsonl'})" in out, out
    for way in (
        "git agent-apply",
        "Python API",
        "MCP server",
        "agent-guard hook claude-code",
        "PreToolUse",
        "PostToolUse",
        "git agent-check",
    ):
        assert way in out, (way, out)
