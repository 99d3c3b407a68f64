"""``agent-guard stats``: what each agent and dialect gets right, from the event log.

Per agent and dialect: edits tried, applied clean, applied with repairs (by
repair), flagged (kept with errors), refused (by finding code), dry runs, median
size and duration; every repair and
finding counted under its failure class (CONTRACT.md, "Classification").  Per
agent: the repairs it leans on most (what its model gets wrong) and, once a
dialect has ``MIN_EVENTS`` edits, the dialect with the best landing rate.

An edit made through an agent's own tool (the Claude Code hook: ``Edit``,
``MultiEdit``, ``Write``...; the MCP server: ``edit_file``, ``write_file``,
``apply_patch``) is counted under that tool, not under the dialect agent-guard read
it as: the agent chose the tool, not a dialect, so tool rows take no part in the
dialect recommendation.  The hook logs each tool call once: denied at PreToolUse,
or landed when PostToolUse recorded it.

An edit *lands* when it was applied: clean, repaired, or *flagged*, a shell command's
change the checks found errors in that stays in the tree all the same (it was written
before it was judged: ``shell.on_violation: warn``; the event says ``kept``).  A dry run
(``apply --check``) that would apply wrote nothing: it is counted in ``dry_runs`` and in
nothing else, so an agent that checks an edit and then applies it is not counted twice
(a refused dry run looks like any refusal).  A shell command that changed nothing (a Bash
call that only read) is logged but is no edit: it is counted nowhere.  "By repair" counts landed edits, "by code"
refused ones and "by flag" flagged ones (error findings); a failure class counts every
edit that showed it, by repair, error or warning, split into landed and refused.  Pre-commit ``check`` events are tallied
per agent on their own: they are not an edit in a dialect, so they take no part in
the dialect figures.

The policy's verify commands (guard/verify/) are counted by name: ``by_verify`` says how
many refused edits each failed (or ran out of time on).  A ``verify`` refusal and a
``verify-fix`` repair belong to none of the five classes: they say what the repository's own
checks make of the code, not how the edit met the file.

Rendered three ways: a plain-text table, JSON (``--json``) and one static HTML
page (``--html FILE``) with inline SVG charts per agent (outcomes by dialect,
failure classes) and no script or network resource.
Its command line is guard/cli/stats.py.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable

from ..text.wording import plural

if TYPE_CHECKING:
    from datetime import datetime

CLASSES: dict[str, tuple[str, ...]] = {
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
CLASS_OF: dict[str, str] = {name: cls for cls, names in CLASSES.items() for name in names}

MIN_EVENTS = 20  # edits in one dialect before it can be recommended
EMPTY_LOG = ".git/agent-guard/events.jsonl"
HOW_LOGGED = (
    "every edit decision is logged there, applied or refused: `git agent-apply` (also with --check)",
    "and the Python API; the MCP server's edit_file, write_file and apply_patch; and the Claude Code",
    "hook (`agent-guard hook claude-code`): a denial at PreToolUse, a landed edit at PostToolUse.",
    "`git agent-check` logs one event per run. Edits an agent writes itself, around agent-guard, are not seen.",
)
LEANS_ON = 3  # repairs listed per agent
NO_DIALECT = "unknown"  # refused before any dialect was recognised (auto-detect failed)
COLORS = {"clean": "#2e7d32", "repaired": "#f0a030", "flagged": "#7b1fa2", "refused": "#c62828"}
LEGEND = (
    "clean: applied as sent; repaired: applied after a named repair; flagged: a command's change kept "
    "with errors (shell.on_violation: warn); refused: nothing changed",
    "a dry run (--check) that would apply wrote nothing: it is counted apart, not as an edit",
)


def _lands(ev: dict[str, Any]) -> bool:
    """A pre-commit check passed, or an edit was written (applied, or kept though refused)."""
    return ev.get("status") in ("applied", "checked") or ev.get("kept") is True


def _dry_run(ev: dict[str, Any]) -> bool:
    return ev.get("kind", "apply") == "apply" and ev.get("status") == "checked"


def _no_change(ev: dict[str, Any]) -> bool:
    """A shell command that changed nothing (every Bash call that only reads is logged): not an edit."""
    return ev.get("dialect") == "shell" and ev.get("status") == "applied" and not ev.get("nfiles") and not ev.get("files")


def _names(ev: dict[str, Any], key: str) -> list[str]:
    value = ev.get(key)
    return list(dict.fromkeys(str(v) for v in value)) if isinstance(value, list) else []


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _ranked(counts: dict[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


class Tally:
    """The outcome counts of a set of events (one dialect, or one agent's checks)."""

    __slots__ = (
        "tried",
        "clean",
        "repaired",
        "flagged",
        "refused",
        "dry_runs",
        "by_repair",
        "by_code",
        "by_flag",
        "by_verify",
        "classes",
        "sizes",
        "durations",
    )

    def __init__(self) -> None:
        self.tried = 0
        self.clean = 0
        self.repaired = 0
        self.flagged = 0
        self.refused = 0
        self.dry_runs = 0
        self.by_repair: dict[str, int] = {}
        self.by_code: dict[str, int] = {}
        self.by_flag: dict[str, int] = {}  # error code -> flagged edits it was found in
        self.by_verify: dict[str, int] = {}  # verify command -> refused edits it failed
        self.classes: dict[str, dict[str, int]] = {c: {"landed": 0, "refused": 0} for c in CLASSES}
        self.sizes: list[float] = []
        self.durations: list[float] = []

    def add(self, ev: dict[str, Any]) -> None:
        if _dry_run(ev):
            self.dry_runs += 1
            return
        if _no_change(ev):
            return
        self.tried += 1
        repairs, errors, warnings = _names(ev, "repairs"), _names(ev, "errors"), _names(ev, "warnings")
        ok = _lands(ev)
        if ok:
            if ev.get("kept") is True:
                self.flagged += 1
                for c in errors:
                    self.by_flag[c] = self.by_flag.get(c, 0) + 1
            elif repairs:
                self.repaired += 1
                for r in repairs:
                    self.by_repair[r] = self.by_repair.get(r, 0) + 1
            else:
                self.clean += 1
        else:
            self.refused += 1
            for c in errors:
                self.by_code[c] = self.by_code.get(c, 0) + 1
            for name in _names(ev, "verify"):
                self.by_verify[name] = self.by_verify.get(name, 0) + 1
        # A class counts an edit once, whatever mix of its repairs and findings showed it.
        for cls in dict.fromkeys(CLASS_OF[n] for n in repairs + errors + warnings if n in CLASS_OF):
            self.classes[cls]["landed" if ok else "refused"] += 1
        if isinstance(ev.get("size"), (int, float)):
            self.sizes.append(ev["size"])
        if isinstance(ev.get("duration"), (int, float)):
            self.durations.append(ev["duration"])

    @property
    def landed(self) -> int:
        return self.clean + self.repaired + self.flagged

    def as_dict(self) -> dict[str, Any]:
        return {
            "tried": self.tried,
            "landed": self.landed,
            "clean": self.clean,
            "repaired": self.repaired,
            "flagged": self.flagged,
            "refused": self.refused,
            "dry_runs": self.dry_runs,
            "landing_rate": _rate(self.landed, self.tried),
            "clean_rate": _rate(self.clean, self.tried),
            "by_repair": _ranked(self.by_repair),
            "by_code": _ranked(self.by_code),
            "by_flag": _ranked(self.by_flag),
            "by_verify": _ranked(self.by_verify),
            "classes": {c: {"edits": v["landed"] + v["refused"], **v} for c, v in self.classes.items()},
            "median_size": _median(self.sizes),
            "median_duration": _round(_median(self.durations), 6),
        }


def _dialect(ev: dict[str, Any]) -> str:
    return str(ev.get("dialect") or NO_DIALECT)


def _row(ev: dict[str, Any]) -> tuple[str | None, str | None]:
    """(tool, dialect) of the row an edit counts in: its tool's when it came through one."""
    tool = ev.get("tool")
    if isinstance(tool, str) and tool:
        return tool, None
    return None, _dialect(ev)


def name_of(row: dict[str, Any]) -> str:
    """A row's label: the tool, else the dialect."""
    return str(row.get("tool") or row.get("dialect") or NO_DIALECT)


def recommend(dialects: dict[str, dict[str, Any]], min_events: int) -> tuple[dict[str, Any] | None, str]:
    """The dialect with the best landing rate among those with ``min_events`` edits.

    Ties go to the higher clean rate (fewer repairs needed), then to more edits.
    Returns the pick (or None) and a sentence saying why.
    """
    able = {d: t for d, t in dialects.items() if d != NO_DIALECT and t["tried"] >= min_events}
    if not able:
        if not dialects:
            return None, "no edits yet"
        most = max(dialects.items(), key=lambda kv: (kv[1]["tried"], kv[0]))
        return None, f"no dialect has {plural(min_events, 'edit')} yet (most: {most[0]} with {most[1]['tried']})"
    order = sorted(able.items(), key=lambda kv: (-kv[1]["landing_rate"], -kv[1]["clean_rate"], -kv[1]["tried"], kv[0]))
    name, t = order[0]
    others = [f"{d} {_pct(o['landing_rate'])} of {o['tried']}" for d, o in order[1:]]
    why = f"{_pct(t['landing_rate'])} of {plural(t['tried'], 'edit')} land{'s' if t['tried'] == 1 else ''}"
    why += f" (vs {', '.join(others)})" if others else f" (the only dialect with {plural(min_events, 'edit')})"
    if len(order) > 1 and order[1][1]["landing_rate"] == t["landing_rate"]:
        o = order[1][1]
        if o["clean_rate"] != t["clean_rate"]:
            why += f"; tied, and {_pct(t['clean_rate'])} land clean (vs {_pct(o['clean_rate'])})"
        else:
            why += "; tied, and it has more edits" if o["tried"] != t["tried"] else "; tied: first by name"
    return {"dialect": name, "landing_rate": t["landing_rate"], "tried": t["tried"], "compared": [d for d, _ in order]}, why


def aggregate(events: Iterable[dict[str, Any]], agent: str | None = None, min_events: int = MIN_EVENTS) -> dict[str, Any]:
    """Every figure ``stats`` shows, as one JSON-ready value."""
    per: dict[str, dict[tuple[str | None, str | None], Tally]] = {}
    totals: dict[str, Tally] = {}
    checks: dict[str, Tally] = {}
    times: list[str] = []
    n = 0
    for ev in events:
        name = str(ev.get("agent") or "agent")
        if agent is not None and name != agent:
            continue
        n += 1
        times.append(str(ev.get("time", "")))
        per.setdefault(name, {})
        if ev.get("kind", "apply") == "apply":
            per[name].setdefault(_row(ev), Tally()).add(ev)
            totals.setdefault(name, Tally()).add(ev)
        else:
            checks.setdefault(name, Tally()).add(ev)
    agents = []
    for name in sorted(per):
        tallies = per[name]
        total = totals.get(name, Tally())
        rows = [
            {"dialect": d, "tool": tool, **t.as_dict()}
            for (tool, d), t in sorted(tallies.items(), key=lambda kv: (-kv[1].tried, kv[0][0] or kv[0][1] or ""))
        ]
        dialects = {str(r["dialect"]): r for r in rows if r["tool"] is None}
        pick, why = recommend(dialects, min_events)
        tools = [str(r["tool"]) for r in rows if r["tool"] is not None]
        if not dialects and tools:
            why = (
                f"edits came through the agent's own tools ({', '.join(tools)}), not in a dialect it writes: "
                "there is no dialect to recommend"
            )
        summary = total.as_dict()
        leans = [
            {"repair": r, "edits": c, "share": _rate(c, total.landed), "class": CLASS_OF.get(r)}
            for r, c in list(summary["by_repair"].items())[:LEANS_ON]
        ]
        agents.append(
            {
                "agent": name,
                **{
                    k: summary[k]
                    for k in (
                        "tried",
                        "landed",
                        "clean",
                        "repaired",
                        "flagged",
                        "refused",
                        "dry_runs",
                        "landing_rate",
                        "clean_rate",
                        "by_repair",
                        "by_code",
                        "by_flag",
                        "by_verify",
                        "classes",
                        "median_size",
                        "median_duration",
                    )
                },
                "dialects": rows,
                "leans_on": leans,
                "recommendation": pick,
                "recommendation_note": why,
                "checks": checks[name].as_dict() if name in checks else None,
            }
        )
    return {
        "version": 1,
        "events": n,
        "first": min(times) if times else None,
        "last": max(times) if times else None,
        "min_events": min_events,
        "classes": {c: list(names) for c, names in CLASSES.items()},
        "agents": agents,
    }


# ---------------------------------------------------------------------- text


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _bytes(n: float | None) -> str:
    if n is None:
        return "-"
    if n < 1024:
        return f"{n:.0f} B"
    return f"{n / 1024:.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


def _secs(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 0.01:
        return f"{s * 1000:.1f} ms"
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def _classes(classes: dict[str, dict[str, int]]) -> str:
    parts = [f"{c} {v['edits']} ({v['landed']} landed, {v['refused']} refused)" for c, v in classes.items() if v["edits"]]
    return "; ".join(parts) or "none"


def _outcome(a: dict[str, Any]) -> str:
    """``3 edits, 2 landed (67%, 1 flagged), 1 refused; 1 dry run that would apply``."""
    flagged = f", {a['flagged']} flagged" if a["flagged"] else ""
    dry = f"; {plural(a['dry_runs'], 'dry run')} that would apply" if a["dry_runs"] else ""
    return f"{plural(a['tried'], 'edit')}, {a['landed']} landed ({_pct(a['landing_rate'])}{flagged}), {a['refused']} refused{dry}"


def _row_details(d: dict[str, Any]) -> list[str]:
    """The lines under a dialect's (or tool's) row: what repaired, refused and flagged its edits."""
    out = [f"    repaired by: {_counts(d['by_repair'])}"] if d["by_repair"] else []
    if d["by_code"]:
        out.append(f"    refused by:  {_counts(d['by_code'])}")
    if d["by_flag"]:
        out.append(f"    flagged by:  {_counts(d['by_flag'])}")
    if d["dry_runs"]:
        out.append(f"    dry runs:    {d['dry_runs']} would apply (not counted as edits)")
    if d.get("by_verify"):
        out.append(f"    verify refused: {_counts(d['by_verify'])}")
    return out


def render_text(stats: dict[str, Any]) -> str:
    if not stats["agents"]:
        if stats.get("agent") or stats.get("since"):
            return "agent-guard stats: no events match --agent/--since\n"
        return f"agent-guard stats: no edit events recorded yet (the log: {stats.get('log') or EMPTY_LOG})\n" + "".join(
            f"  {line}\n" for line in HOW_LOGGED
        )
    out = [
        f"agent-guard stats: {plural(stats['events'], 'event')}, {stats['first']} to {stats['last']}",
        *(f"  {line}" for line in LEGEND),
        "",
    ]
    for a in stats["agents"]:
        out.append(f"{a['agent']}: {_outcome(a)}")
        if a["dialects"]:
            width = max(14, *(len(name_of(d)) for d in a["dialects"]))
            kinds = {"tool" if d["tool"] else "dialect" for d in a["dialects"]}
            label = "dialect/tool" if len(kinds) > 1 else kinds.pop()
            out.append(
                f"  {label:<{width}} {'tried':>6} {'clean':>6} {'repaired':>9} {'refused':>8} "
                f"{'landed':>7} {'med.size':>9} {'med.time':>9}"
            )
            for d in a["dialects"]:
                out.append(
                    f"  {name_of(d):<{width}} {d['tried']:>6} {d['clean']:>6} {d['repaired']:>9} "
                    f"{d['refused']:>8} {_pct(d['landing_rate']):>7} {_bytes(d['median_size']):>9} "
                    f"{_secs(d['median_duration']):>9}"
                )
                out += _row_details(d)
        out.append(f"  failure classes: {_classes(a['classes'])}")
        if a.get("by_verify"):
            out.append(f"  refused by the verify commands: {_counts(a['by_verify'])}")
        if a["leans_on"]:
            out.append(
                "  leans on: "
                + "; ".join(
                    f"{x['repair']} ({x['edits']} of {a['landed']} landed edits" + (f", {x['class']})" if x["class"] else ")")
                    for x in a["leans_on"]
                )
            )
        rec = a["recommendation"]
        if rec:
            out.append(f"  recommended dialect: {rec['dialect']}: {a['recommendation_note']}")
        elif a["dialects"] and all(d["tool"] for d in a["dialects"]):
            out.append(f"  recommended dialect: none: {a['recommendation_note']}")
        else:
            out.append(f"  recommended dialect: none yet: {a['recommendation_note']}")
        c = a["checks"]
        if c:
            out.append(
                f"  pre-commit checks: {c['tried']} run, {c['landed']} passed, {c['refused']} refused"
                + (f" ({_counts(c['by_code'])})" if c["by_code"] else "")
            )
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------- HTML

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:17px;margin:28px 0 6px}h3{font-size:14px;margin:14px 0 4px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,.l{text-align:left}.meta,.note{color:#555}
svg text{font:12px system-ui,sans-serif;fill:#222}
"""

_ROW, _BAR_H, _LABEL_W, _BAR_W = 26, 18, 260, 420
_OUTCOMES = tuple((name, color, name) for name, color in COLORS.items())
_CLASS_PARTS = (("landed", COLORS["repaired"], "repaired, landed"), ("refused", COLORS["refused"], "refused"))


def _chart(what: str, agent: str, rows: list[tuple[str, dict[str, Any], str]], parts: tuple[tuple[str, str, str], ...]) -> str:
    """Horizontal stacked bars, one per row, scaled to the longest; inline SVG, no script."""
    from html import escape

    most = max((sum(c.get(k, 0) for k, _, _ in parts) for _, c, _ in rows), default=1) or 1
    height = _ROW * len(rows) + 34
    width = _LABEL_W + _BAR_W + 130
    out = [
        f'<svg class="chart {what}" data-agent="{escape(agent)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" shape-rendering="crispEdges" '
        f'aria-label="{escape(agent)}: {what}">'
    ]
    for i, (label, counts, note) in enumerate(rows):
        y = 4 + i * _ROW
        out.append(f'<text x="0" y="{y + 13}">{escape(label)}</text>')
        x = _LABEL_W
        for key, color, name in parts:
            n = counts.get(key, 0)
            if not n:
                continue
            w = max(1, round(n / most * _BAR_W))
            out.append(
                f'<rect class="bar {key}" data-row="{escape(label)}" data-count="{n}" x="{x}" y="{y}" '
                f'width="{w}" height="{_BAR_H}" fill="{color}"><title>{escape(label)}: {n} {name}</title></rect>'
            )
            x += w
        out.append(f'<text x="{x + 8}" y="{y + 13}">{escape(note)}</text>')
    x, y = _LABEL_W, height - 16
    for key, color, name in parts:
        out.append(
            f'<rect class="key {key}" x="{x}" y="{y}" width="12" height="12" fill="{color}"></rect>'
            f'<text x="{x + 16}" y="{y + 11}">{escape(name)}</text>'
        )
        x += 40 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)


def _agent_html(a: dict[str, Any]) -> list[str]:
    from html import escape

    body = [
        f'<section class="agent" data-agent="{escape(a["agent"])}"><h2>{escape(a["agent"])}</h2>',
        f"<p>{escape(_outcome(a))}.</p>",
    ]
    rec = a["recommendation"]
    what = f"<strong>{escape(rec['dialect'])}</strong>: " if rec else "none yet: "
    body.append(f'<p class="note">Recommended dialect: {what}{escape(a["recommendation_note"])}</p>')
    if a["dialects"]:
        body.append("<h3>Outcomes by dialect</h3>")
        body.append(
            _chart(
                "dialects",
                a["agent"],
                [(name_of(d), d, f"{_pct(d['landing_rate'])} of {d['tried']} land") for d in a["dialects"]],
                _OUTCOMES,
            )
        )
        body.append(
            "<table><tr><th>dialect or tool</th><th>tried</th><th>clean</th><th>repaired</th><th>flagged</th>"
            '<th>refused</th><th>landed</th><th>dry runs</th><th>median size</th><th>median time</th><th class="l">'
            'repaired by</th><th class="l">refused by</th></tr>'
        )
        for d in a["dialects"]:
            cells = [
                name_of(d),
                d["tried"],
                d["clean"],
                d["repaired"],
                d["flagged"],
                d["refused"],
                _pct(d["landing_rate"]),
                d["dry_runs"],
                _bytes(d["median_size"]),
                _secs(d["median_duration"]),
            ]
            body.append(
                "<tr>"
                + "".join(f"<td>{escape(str(c))}</td>" for c in cells)
                + f'<td class="l">{escape(_counts(d["by_repair"]))}</td>'
                + f'<td class="l">{escape(_counts(d["by_code"]))}</td></tr>'
            )
        body.append("</table>")
    seen = [(c, v) for c, v in a["classes"].items() if v["edits"]]
    if seen:
        body.append("<h3>What goes wrong, by failure class</h3>")
        rows = [(c, v, f"{v['edits']} edit{'' if v['edits'] == 1 else 's'}") for c, v in seen]
        body.append(_chart("classes", a["agent"], rows, _CLASS_PARTS))
    if a.get("by_verify"):
        body.append(f'<p class="verify">Refused by the verify commands: {escape(_counts(a["by_verify"]))}.</p>')
    if a["leans_on"]:
        body.append(
            "<p>Leans on: "
            + escape("; ".join(f"{x['repair']} ({x['edits']} of {a['landed']} landed edits)" for x in a["leans_on"]))
            + "</p>"
        )
    c = a["checks"]
    if c:
        body.append(
            f"<p>Pre-commit checks: {c['tried']} run, {c['landed']} passed, {c['refused']} refused"
            + (f" ({escape(_counts(c['by_code']))})" if c["by_code"] else "")
            + ".</p>"
        )
    body.append("</section>")
    return body


def render_html(stats: dict[str, Any]) -> str:
    """One self-contained page: inline CSS and SVG, no script, nothing fetched."""
    from html import escape

    body = ["<h1>agent-guard: edit outcomes</h1>"]
    if stats["agents"]:
        body.append(
            f'<p class="meta">{stats["events"]} events, {escape(str(stats["first"]))} to '
            f"{escape(str(stats['last']))}. {escape('. '.join(line[0].upper() + line[1:] for line in LEGEND))}. "
            f"A dialect is recommended once it has {stats['min_events']} edits.</p>"
        )
    else:
        body.append(
            f'<p class="meta">No edit events recorded yet (the log: {escape(str(stats.get("log") or EMPTY_LOG))}). '
            f"{escape(' '.join(HOW_LOGGED))}</p>"
        )
    for a in stats["agents"]:
        body += _agent_html(a)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>agent-guard stats</title>"
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


# ---------------------------------------------------------------------- --since

_AGE = re.compile(r"(\d+)\s*([mhdw])")
_UNIT = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str) -> datetime:
    """``2026-01-31``, ``2026-01-31T12:00`` (local time unless it names a zone) or an age: 30m, 12h, 7d, 2w."""
    from datetime import datetime, timedelta, timezone

    from ..bounds import AGE_SECONDS, OutOfRange
    from ..report.events import parse_time

    m = _AGE.fullmatch(text.strip())
    if m:
        # Counted only when it can be in range: int() of a 5,000-digit count is refused by Python itself.
        seconds = int(m.group(1)) * _UNIT[m.group(2)] if len(m.group(1)) <= 12 else int(AGE_SECONDS.high) + 1
        if AGE_SECONDS.problem(seconds) is not None:
            raise OutOfRange(
                f"{text.strip()[:24]!r} is no age --since can go back: an age is from 1m to 100 years (36,600d, 5,228w)"
            )
        return datetime.now(timezone.utc) - timedelta(seconds=seconds)
    try:
        return parse_time(text)
    except (OverflowError, ValueError) as exc:
        if "out of range" in str(exc) or isinstance(exc, OverflowError):
            # A date at the very edge of the calendar, moved to another time zone: year 0 or 10000.
            raise OutOfRange(f"{text!r} is a date at the edge of the calendar: --since takes the years 2 to 9998") from None
        raise
