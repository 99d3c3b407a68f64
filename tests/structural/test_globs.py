"""Which files a rewrite's paths name (guard/structural/globs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.model import Finding
from guard.structural import globs

FILES = ["a.py", "src/a.py", "src/b.ts", "src/deep/c.ts", "src/deep/c.tsx", "lib/x.ts", "Docs/R.md"]


def pick(here: str, *raw: str, ignorecase: bool = False) -> dict[str, bool]:
    scopes = []
    for r in raw:
        for alt in globs.alternatives(r):
            sc = globs.scope(Path("/repo"), here, alt)
            assert not isinstance(sc, Finding), sc
            scopes.append(sc)
    return globs.selected(scopes, FILES, ignorecase)


@pytest.mark.parametrize(
    ("here", "raw", "want"),
    [
        ("", ["src/**/*.ts"], {"src/b.ts": False, "src/deep/c.ts": False}),
        ("", ["*.ts"], {"src/b.ts": False, "src/deep/c.ts": False, "lib/x.ts": False}),  # no slash: any depth
        ("", ["src/*.ts"], {"src/b.ts": False}),
        ("", ["src/**/*.{ts,tsx}"], {"src/b.ts": False, "src/deep/c.ts": False, "src/deep/c.tsx": False}),
        ("", ["a.py"], {"a.py": True}),  # a plain path is that file, not every a.py
        ("", ["src"], {"src/a.py": False, "src/b.ts": False, "src/deep/c.ts": False, "src/deep/c.tsx": False}),
        ("", ["src/deep/"], {"src/deep/c.ts": False, "src/deep/c.tsx": False}),
        ("src", ["a.py", "deep"], {"src/a.py": True, "src/deep/c.ts": False, "src/deep/c.tsx": False}),
        ("src", ["../a.py", "./b.ts"], {"a.py": True, "src/b.ts": True}),
        ("src/deep", [".."], {"src/a.py": False, "src/b.ts": False, "src/deep/c.ts": False, "src/deep/c.tsx": False}),
        ("", ["/repo/lib/x.ts"], {"lib/x.ts": True}),
        ("", ["docs/r.md"], {}),
    ],
)
def test_selected(here: str, raw: list[str], want: dict[str, bool]) -> None:
    assert pick(here, *raw) == want


def test_case_is_ignored_where_git_ignores_it() -> None:
    assert pick("", "docs/r.md", ignorecase=True) == {"Docs/R.md": True}
    assert pick("", "DOCS/*.MD", ignorecase=True) == {"Docs/R.md": False}


@pytest.mark.parametrize(
    ("here", "raw"), [("", "../x.py"), ("src", "../../x.py"), ("", "/etc/passwd"), ("", "src/../../x"), ("", "a/**/../b")]
)
def test_leaving_the_tree_is_refused(here: str, raw: str) -> None:
    sc = globs.scope(Path("/repo"), here, raw)
    assert isinstance(sc, Finding) and sc.code == "path-outside", sc


def test_a_dot_dot_inside_a_path_climbs_back() -> None:
    assert pick("", "src/deep/../a.py") == {"src/a.py": True}
    assert pick("src", "deep/../../a.py") == {"a.py": True}


def test_alternatives() -> None:
    assert globs.alternatives("a/{b,c{d,e}}/*.{x,y}") == ["a/b/*.x", "a/b/*.y", "a/cd/*.x", "a/cd/*.y", "a/ce/*.x", "a/ce/*.y"]
    assert globs.alternatives("no{brace") == ["no{brace"]
    assert len(globs.alternatives("{a,b}" * 20)) == globs.MAX_ALTERNATIVES
