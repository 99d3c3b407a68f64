"""The cycle collector is paused in one place (``guard.collector``), and always for a bounded span."""

from __future__ import annotations

import gc
import os
import types
import weakref
from pathlib import Path

from guard.collector import Paused
from guard.warm.server import Server


def test_paused_puts_the_collector_back_as_it_found_it() -> None:
    assert gc.isenabled()
    with Paused():
        assert not gc.isenabled()
        with Paused(collect=True):  # nested: the inner block finds it off and leaves it off
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    try:
        with Paused():
            raise ValueError("a command that failed")
    except ValueError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with Paused():
            pass
        assert not gc.isenabled()  # a caller that had turned it off keeps it off
    finally:
        gc.enable()


def test_only_a_process_that_ends_keeps_it_off() -> None:
    try:
        with Paused(process_ends=True):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


_ALIVE: "weakref.WeakSet[_Cycle]" = weakref.WeakSet()  # a weak reference is cleared only when the object is freed


class _Cycle:
    def __init__(self) -> None:
        self.me = self
        self.data = [object() for _ in range(10)]
        _ALIVE.add(self)


def test_a_long_running_server_collects_between_calls(tmp_path: Path) -> None:
    """A warm worker answers thousands of calls: the collector is off during each (as the command
    hook runs) and on between them, so the cycles calls leave do not pile up."""
    during: list[bool] = []

    def answer(conn: object, kind: str) -> None:
        during.append(gc.isenabled())
        for _ in range(2_000):
            _Cycle()  # garbage only the collector frees

    worker = types.SimpleNamespace(_answer=answer, folder=tmp_path)
    env, mask = dict(os.environb), os.umask(0o022)
    os.umask(mask)
    here = os.getcwd()
    gc.collect()
    calls = 6  # each call collects the whole test process (~0.25 s here); the property is per call
    try:
        counts = []
        for _ in range(calls):
            Server._call(worker, None, "unix", env, mask)  # type: ignore[arg-type]
            assert gc.isenabled()
            counts.append(len(_ALIVE))  # not gc.get_objects(): the test process holds millions of objects
    finally:
        os.chdir(here)
    assert during == [False] * calls
    assert max(counts) == 0, counts  # each call's cycles were collected before the next call
