"""The one rule for what is kept between calls (``guard.fs.kept``), held to a fresh look."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from guard.fs import kept
from guard.fs.kept import ByStamps, Stamps


def _aged(path: Path, text: str) -> None:
    path.write_text(text)
    old = time.time_ns() - 10 * kept.RACY_NS
    os.utime(path, ns=(old, old))


def test_an_answer_is_given_again_while_its_files_are_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept, "RACY_NS", 0)
    f = tmp_path / "a"
    _aged(f, "one")
    store: ByStamps[str] = ByStamps(4)
    store.keep("k", Stamps.now([str(f), str(tmp_path / "missing")]), "answer")
    assert store.get("k") == "answer"
    assert store.get("other") is None


@pytest.mark.parametrize(
    "change",
    ["same size, mtime put back", "removed", "appeared", "replaced by another file", "variable set"],
)
def test_any_change_to_what_an_answer_was_read_from_drops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    monkeypatch.setattr(kept, "RACY_NS", 0)
    monkeypatch.delenv("AG_KEPT_TEST", raising=False)
    f, missing = tmp_path / "a", tmp_path / "b"
    _aged(f, "one")
    store: ByStamps[str] = ByStamps(4)
    store.keep("k", Stamps.now([str(f), str(missing)], env=["AG_KEPT_TEST"]), "answer")
    st = f.stat()
    if change == "same size, mtime put back":
        f.write_text("two")
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # only the change time tells
    elif change == "removed":
        f.unlink()
    elif change == "appeared":
        missing.write_text("")
    elif change == "replaced by another file":
        other = tmp_path / "c"
        other.write_text("two")
        os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(other, f)
    else:
        monkeypatch.setenv("AG_KEPT_TEST", "1")
    assert store.get("k") is None


def test_a_file_changed_within_the_racy_window_is_never_kept(tmp_path: Path) -> None:
    f = tmp_path / "a"
    f.write_text("one")  # just now: a later change in the same clock tick could keep its stamp
    store: ByStamps[str] = ByStamps(4)
    store.keep("k", Stamps.now([str(f)]), "answer")
    assert store.get("k") is None
    _aged(f, "one")  # its change time is still now: still racy
    store.keep("k", Stamps.now([str(f)]), "answer")
    assert store.get("k") is None


def test_the_oldest_answer_goes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept, "RACY_NS", 0)
    store: ByStamps[int] = ByStamps(2)
    for n in range(3):
        store.keep(n, Stamps.now([]), n)
    assert [store.get(n) for n in range(3)] == [None, 1, 2]


def test_nothing_outside_this_module_keeps_answers_its_own_way() -> None:
    """Every memo in guard/ goes through ``fs.kept`` (``by_value``, ``ByValue`` or ``ByStamps``), so
    each is under the rule: a stray ``lru_cache`` would be a cache with a rule of its own.  (A
    ``cached_property`` is not: it lives and dies with the one value it belongs to.)"""
    root = Path(kept.__file__).resolve().parents[1]
    stray = []
    for path in root.rglob("*.py"):
        if path.name == "kept.py" and path.parent.name == "fs":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in (
            r"lru_cache",
            r"functools\.cache\b",
            r"from functools import .*\bcache\b",
            r"OrderedDict",
            r"WeakValueDictionary",
        ):
            if re.search(needle, text):
                stray.append(f"{path.relative_to(root)}: {needle}")
    assert stray == []
