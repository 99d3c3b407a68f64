"""`agent-guard stats --html`: one offline page whose charts a real browser draws.

The page is checked as text (self-contained: no script, no link, no URL), then
opened in headless Chromium (Debian's `chromium`; .ci/run installs it, and the
browser part skips where it is absent): `--dump-dom` must show one chart per agent
with a bar per outcome, and `--screenshot` must hold, in each bar colour, as many
pixels as the bars' rectangles cover.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from conftest import Repo

from guard.report import events
from guard.turns import stats

T0 = 1_767_225_600
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--disable-extensions",
    "--mute-audio",
]
WINDOW = (1280, 2400)


def _ev(
    agent: str,
    dialect: str,
    status: str,
    n: int,
    repairs: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
    kept: bool = False,
) -> Iterator[dict[str, Any]]:
    for i in range(n):
        yield {
            **({"kept": True} if kept else {}),
            "v": 1,
            "time": events.timestamp(T0 + i),
            "kind": "apply",
            "agent": agent,
            "dialect": dialect,
            "status": status,
            "files": ["a.py"],
            "repairs": list(repairs),
            "errors": list(errors),
            "warnings": [],
            "size": 100 + i,
            "duration": 0.01,
        }


def _log() -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = []
    log += _ev("claude", "unified", "applied", 14)
    log += _ev("claude", "unified", "applied", 4, repairs=("recount",))
    log += _ev("claude", "unified", "refused", 2, errors=("not-found",))
    log += _ev("claude", "search-replace", "applied", 6)
    log += _ev("claude", "search-replace", "refused", 3, errors=("ambiguous",))
    log += _ev("claude", "shell", "refused", 2, errors=("placeholder",), kept=True)  # flagged, kept
    log += _ev("claude", "unified", "checked", 1)  # a dry run
    log += _ev("gpt", "codex", "applied", 5, repairs=("fuzz",))
    log += _ev("gpt", "codex", "refused", 5, errors=("placeholder",))
    log += _ev("gemini <&>", "whole", "applied", 7)
    return log


# ---------------------------------------------------------------------- the page as text


@pytest.fixture
def page(repo: Repo, cli, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    repo.commit({"README": "x\n"})
    for e in _log():
        events.append(repo.root / ".git", e)
    out = tmp_path / "out" / "stats.html"
    out.parent.mkdir()
    r = cli("stats", "--html", str(out))
    assert r.code == 0, r
    assert f"wrote {out}" in r.stderr and "claude: 31 edits" in r.stdout
    return out


def test_page_is_self_contained(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    low = html.lower()
    for banned in ("<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import", "http:", "https:", "//"):
        assert banned not in low, banned
    assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html
    assert "gemini &lt;&amp;&gt;" in html and "gemini <&>" not in html  # names are escaped
    assert not list(page.parent.glob("*.tmp"))
    # The outcomes as the text says them: flagged changes landed, the dry run is counted apart.
    assert "<p>31 edits, 26 landed (84%, 2 flagged), 5 refused; 1 dry run that would apply.</p>" in html
    assert "counted apart, not as an edit" in html


def test_unwritable_html_target_is_a_usage_error(repo: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"README": "x\n"})
    r = cli("stats", "--html", str(tmp_path / "no" / "such" / "dir" / "p.html"))
    assert r.code == 2 and "cannot write" in r.stderr


# ---------------------------------------------------------------------- the page in a browser


class _Svg(HTMLParser):
    """Charts and their rectangles, as the browser's DOM has them."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "svg" and "chart" in a.get("class", "").split():
            self.charts.append({**a, "rects": []})
        elif tag == "rect" and self.charts:
            self.charts[-1]["rects"].append(a)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    assert CHROMIUM is not None
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    proc = subprocess.run(cmd, capture_output=True, timeout=180, check=False, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    return proc


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, bpp = 8, [], 0, 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and ctype in (2, 6), (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows: list[bytes] = []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for j, v in enumerate(line) if j % 4 != 3))
        prev = line
    return w, h, rows


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package `chromium`)")
def test_charts_render_in_headless_chromium(page: Path, tmp_path: Path) -> None:
    url = page.resolve().as_uri()
    dom = _chromium(tmp_path, "--dump-dom", url).stdout.decode("utf-8")
    parsed = _Svg()
    parsed.feed(dom)
    dialect_charts = [c for c in parsed.charts if "dialects" in c["class"].split()]
    assert [c["data-agent"] for c in dialect_charts] == ["claude", "gemini <&>", "gpt"]
    want = stats.aggregate(_log())
    for chart, agent in zip(dialect_charts, want["agents"]):
        bars = [
            (r["data-row"], r["class"].split()[1], int(r["data-count"]))
            for r in chart["rects"]
            if r.get("class", "").startswith("bar ")
        ]
        expected = [(d["dialect"], part, d[part]) for d in agent["dialects"] for part in stats.COLORS if d[part]]
        assert bars == expected
        assert all(int(r["width"]) > 0 and int(r["height"]) > 0 for r in chart["rects"])
    class_charts = [c for c in parsed.charts if "classes" in c["class"].split()]
    assert [c["data-agent"] for c in class_charts] == ["claude", "gpt"]  # gemini's edits all landed clean

    shot = tmp_path / "shot.png"
    _chromium(tmp_path, f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={shot}", url)
    w, h, rows = _png_pixels(shot.read_bytes())
    assert (w, h) == WINDOW
    counts = {color: 0 for color in stats.COLORS.values()}
    targets = {bytes.fromhex(c[1:]): c for c in counts}
    for row in rows:
        for x in range(0, len(row), 3):
            hit = targets.get(row[x : x + 3])
            if hit is not None:
                counts[hit] += 1
    area = {color: 0 for color in counts}
    for chart in parsed.charts:
        for r in chart["rects"]:
            area[r["fill"]] += int(r["width"]) * int(r["height"])
    for color, n in counts.items():
        assert area[color] > 0
        # Every rectangle is drawn, in its colour, and nothing else is: crisp edges, whole pixels.
        assert abs(n - area[color]) <= area[color] * 0.02, (color, n, area[color])
