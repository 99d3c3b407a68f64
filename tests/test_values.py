"""The records that are not tuples (``guard.model.Value``): what a frozen dataclass gave them.

Each sets its fields in ``__init__`` through ``Value._init``, in the order of ``_fields``;
nothing but these tests ties the two, so they hold every ``Value`` class to it.
"""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest

import guard.checks.whitespace
import guard.commit_check
import guard.policy
import guard.report
from guard.model import EditSet, FileEdit, Finding, Op, Value


def _classes(base: type = Value) -> list[type]:
    out = []
    for sub in base.__subclasses__():
        out += [sub, *_classes(sub)]
    return out


VALUES = sorted(_classes(), key=lambda c: c.__qualname__)


def test_every_value_class_is_found() -> None:
    names = {c.__qualname__ for c in VALUES}
    assert {"Finding", "CommitFinding", "Report", "Policy", "CheckInput", "Rules"} <= names, names


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: c.__qualname__)
def test_init_takes_the_fields_in_their_order(cls: type[Value]) -> None:
    params = list(inspect.signature(cls.__init__).parameters)[1:]
    assert params == list(cls._fields)
    assert len(set(cls._fields)) == len(cls._fields)


def _finding(**changes: object) -> Finding:
    f = Finding("stale", "error", "a.py", 3, "changed since read", "read it again")
    return f._replace(**changes) if changes else f


def test_a_value_is_immutable_equal_by_class_and_fields_and_hashed_by_them() -> None:
    f = _finding()
    with pytest.raises(AttributeError):
        f.code = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del f.hint
    assert f == _finding() and hash(f) == hash(_finding()) and len({f, _finding()}) == 1
    assert f != _finding(line=4)
    other = guard.commit_check.CommitFinding("stale", "error", "a.py", 3, "changed since read", "read it again")
    assert f != other and other != f  # another class, as a dataclass subclass compared
    assert f != ("stale", "error", "a.py", 3, "changed since read", "read it again")  # not a tuple
    assert repr(f) == ("Finding(code='stale', severity='error', path='a.py', line=3, "
                       "message='changed since read', hint='read it again')")


def test_replace_copies_with_changed_fields_and_refuses_unknown_ones() -> None:
    f = _finding()
    g = f._replace(message="gone")
    assert (g.message, g.code, f.message) == ("gone", "stale", "changed since read")
    with pytest.raises(TypeError, match="no field 'nope'"):
        f._replace(nope=1)
    c = guard.commit_check.CommitFinding("budget", "error", None, None, "too big", commit="abc", anchor="a.py")
    assert c._replace(line=2) == guard.commit_check.CommitFinding("budget", "error", None, 2, "too big",
                                                                  commit="abc", anchor="a.py")


def test_copy_deepcopy_and_pickle_keep_a_value() -> None:
    report = guard.report.Report("refused", "unified", findings=(_finding(),), extra={"check": {"files": 1}})
    for got in (copy.copy(report), copy.deepcopy(report), pickle.loads(pickle.dumps(report))):
        assert got == report and got is not report and got.as_dict() == report.as_dict()
    assert copy.copy(report).extra is report.extra and copy.deepcopy(report).extra is not report.extra


def test_defaults_are_made_per_value() -> None:
    a, b = guard.report.Report("applied", None), guard.report.Report("applied", None)
    assert a.extra == {} and a.extra is not b.extra
    p = guard.policy.Policy("p", {})
    assert p.sources == {} and p.sources is not guard.policy.Policy("q", {}).sources


def test_a_policy_is_equal_only_to_itself() -> None:
    p = guard.policy.Policy("p", {"checks": {}})
    assert p == p and p != guard.policy.Policy("p", {"checks": {}}) and hash(p) == hash(p)
    assert p._replace(name="q").name == "q" and p.name == "p"


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
