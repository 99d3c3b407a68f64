"""Conformance over the public corpora in ../shared/corpora (skipped when absent).

One test per case, run by bench/conformance.py's runner: every case must pass or
diverge exactly as that runner's DIVERGENCES list says.  Cases in its KNOWN_BUGS list
(bugs in guard/ found by the corpora) are xfail(strict=True): fixing one makes the test
XPASS and fail, asking for the entry to be removed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def _runner() -> ModuleType:
    name = "agent_guard_bench_conformance"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "conformance.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _params() -> list[Any]:
    if not CORPORA.is_dir():
        return [pytest.param(None, id="no-corpora", marks=pytest.mark.skip(reason=f"{CORPORA} is absent"))]
    conf = _runner()
    out = []
    for case in conf.load_cases(CORPORA):
        bug = conf.KNOWN_BUGS.get(case.key)
        marks = [pytest.mark.xfail(strict=True, reason=f"known bug: {bug}")] if bug else []
        out.append(pytest.param(case, id=f"{case.corpus}/{case.id}", marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_corpus_case(case: Any) -> None:
    outcome = _runner().run_case(case)
    if outcome.status == "skip":
        pytest.skip(outcome.detail)
    assert outcome.status in ("pass", "divergence"), f"{case.corpus}/{case.id}: {outcome.detail}"
    assert "listed in KNOWN_BUGS but passes now" not in outcome.detail
