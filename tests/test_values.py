"""The records that are not tuples: frozen, slotted dataclasses, equal by value.

Every dataclass of the package is held to it (each module is imported, so that a record no
other import happens to load is held too); a class with a ``cached_property`` keeps a
``__dict__`` for the property's answers, and so has no slots.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
import pkgutil
from functools import cached_property

import pytest

import guard
import guard.checks.whitespace
import guard.commit_check
import guard.policy
import guard.record.ledger
import guard.report
from guard.model import EditSet, FileEdit, Finding, Op


def _records() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(guard.__path__, "guard."):
        if info.name.rsplit(".", 1)[-1] == "__main__":  # runs the command line
            continue
        module = importlib.import_module(info.name)
        found += [
            v for v in vars(module).values() if isinstance(v, type) and v.__module__ == info.name and dataclasses.is_dataclass(v)
        ]
    return sorted(set(found), key=lambda c: (c.__module__, c.__qualname__))


RECORDS = _records()


def test_the_records_are_found() -> None:
    assert {Finding, guard.commit_check.CommitFinding, guard.policy.Policy, guard.record.ledger.Turn} <= set(RECORDS)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_record_is_frozen_and_slotted(cls: type) -> None:
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    cached = any(isinstance(v, cached_property) for v in vars(cls).values())
    assert ("__slots__" in vars(cls)) != cached, "slots, unless a cached_property needs a __dict__"


def _finding(**changes: object) -> Finding:
    f = Finding("stale", "error", "a.py", 3, "changed since read", "read it again")
    return dataclasses.replace(f, **changes)  # type: ignore[arg-type]


def test_a_record_is_immutable_equal_by_class_and_fields_and_hashed_by_them() -> None:
    f = _finding()
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.code = "x"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):  # TypeError before Python 3.12 (CPython gh-90562)
        f.extra = 1  # type: ignore[attr-defined]
    assert f == _finding() and hash(f) == hash(_finding()) and len({f, _finding()}) == 1
    assert f != _finding(line=4)
    other = guard.commit_check.CommitFinding("stale", "error", "a.py", 3, "changed since read", "read it again")
    assert f != other and other != f  # another class
    assert repr(f) == (
        "Finding(code='stale', severity='error', path='a.py', line=3, message='changed since read', hint='read it again')"
    )


def test_replace_copies_with_changed_fields() -> None:
    f = _finding()
    g = dataclasses.replace(f, message="gone")
    assert (g.message, g.code, f.message) == ("gone", "stale", "changed since read")
    c = guard.commit_check.CommitFinding("budget", "error", None, None, "too big", commit="abc", anchor="a.py")
    assert dataclasses.replace(c, line=2) == guard.commit_check.CommitFinding(
        "budget", "error", None, 2, "too big", commit="abc", anchor="a.py"
    )
    assert c.as_dict()["commit"] == "abc" and c.as_dict()["message"] == "too big"


def test_a_subclass_runs_its_base_s_post_init() -> None:
    f = Finding("c", "error", None, None, "x" * 100_000)
    c = guard.commit_check.CommitFinding("c", "error", None, None, "x" * 100_000, commit="abc")
    assert len(f.message) < 100_000 and c.message == f.message and c.commit == "abc"
    assert dataclasses.replace(f, code="d").message == f.message


def test_copy_deepcopy_and_pickle_keep_a_record() -> None:
    report = guard.report.Report("refused", "unified", findings=(_finding(),), extra={"check": {"files": 1}})
    for got in (copy.copy(report), copy.deepcopy(report), pickle.loads(pickle.dumps(report))):
        assert got == report and got is not report and got.as_dict() == report.as_dict()
    assert copy.copy(report).extra is report.extra and copy.deepcopy(report).extra is not report.extra
    c = guard.commit_check.CommitFinding("budget", "error", None, None, "too big", commit="abc")
    assert pickle.loads(pickle.dumps(c)) == c


def test_defaults_are_made_per_record_and_a_policy_keeps_its_cached_answers_out_of_its_value() -> None:
    a, b = guard.report.Report("applied", None), guard.report.Report("applied", None)
    assert a.extra == {} and a.extra is not b.extra
    p, q = guard.policy.Policy("p", {}), guard.policy.Policy("p", {})
    assert p.sources == {} and p.sources is not q.sources
    p.level("syntax")
    assert p == q and hash(p) == hash(q) and pickle.loads(pickle.dumps(p)) == p


def test_rules_answer_in_for_a_rule_and_are_a_cache_key() -> None:
    rules = guard.checks.whitespace.Rules()
    assert "blank-at-eol" in rules and "tab-in-indent" not in rules
    assert rules == guard.checks.whitespace.Rules() and hash(rules) == hash(guard.checks.whitespace.Rules())
    assert guard.checks.whitespace.parse_rules("tabwidth=4", rules).tabwidth == 4


def test_edit_sets_that_say_the_same_are_equal_however_they_were_read() -> None:
    files = (FileEdit("a.py", Op.MODIFY),)
    named, guessed = EditSet(files, "unified"), EditSet(files, "unified", detected=True)
    assert named == guessed and not named != guessed and hash(named) == hash(guessed)
    assert named != EditSet(files, "codex") and named != EditSet(files, "unified", ("recount",))
