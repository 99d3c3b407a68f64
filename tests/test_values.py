"""The records that are not tuples (``guard.model.Value``): what a frozen dataclass gives them,
each field declared once.

A record's fields are its class's annotations; ``__slots__``, ``_fields``, ``__init__`` and the
rest are derived from them.  These tests import every module of the package, so that they hold
every ``Value`` class to that rule, not only the ones some other import happened to load.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import pickle
import pkgutil
import sys
import textwrap
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import pytest

import guard
import guard.checks.whitespace
import guard.commit_check
import guard.policy
import guard.report
from guard.model import EditSet, FileEdit, Finding, Op, Value, field


def _import_every_module() -> list[str]:
    """Import each module of the package; the names of those skipped for a dependency that is
    not installed (an optional one: the test says which)."""
    skipped = []
    for info in pkgutil.walk_packages(guard.__path__, "guard."):
        if info.name.rsplit(".", 1)[-1] == "__main__":  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if exc.name is None or exc.name == "guard" or exc.name.startswith("guard."):
                raise
            skipped.append(f"{info.name} (needs {exc.name})")
    return skipped


SKIPPED = _import_every_module()


def _classes(base: type = Value) -> list[type]:
    out = []
    for sub in base.__subclasses__():
        out += [sub, *_classes(sub)]
    return out


VALUES = sorted({c for c in _classes() if c.__module__.startswith("guard.")}, key=lambda c: (c.__module__, c.__qualname__))


def _declared() -> set[str]:
    """Every class of the package's sources that extends ``Value`` (or a class that does)."""
    top = Path(guard.__file__).parent
    bases: dict[str, tuple[str, set[str]]] = {}  # module.Class -> (Class, the names of its bases)
    for path in sorted(top.rglob("*.py")):
        module = ".".join(path.relative_to(top.parent).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(_module_tree(path)):
            if isinstance(node, ast.ClassDef):
                bases[f"{module}.{node.name}"] = (node.name, {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases})
    records = {"Value"}
    while True:  # a record may extend another (CommitFinding extends Finding)
        more = {name for name, those in bases.values() if those & records} - records
        if not more:
            return {full for full, (_name, those) in bases.items() if those & records}
        records |= more


def test_every_value_class_is_found() -> None:
    names = {f"{c.__module__}.{c.__qualname__}" for c in VALUES}
    skipped = {s.split(" ")[0] for s in SKIPPED}
    # Every record in the sources is among them: a class no other import loads is held to the rule too.
    assert {n for n in _declared() if n.rsplit(".", 1)[0] not in skipped} == names
    assert {
        "guard.model.Finding",
        "guard.commit_check.CommitFinding",
        "guard.policy.Policy",
        "guard.record.ledger.Turn",
        "guard.adapters.mcp_server.Tool",
    } <= names


@functools.cache
def _module_tree(path: Path) -> ast.Module:
    """A module's source, parsed once for every test here that reads it."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _class_body(cls: type) -> list[ast.stmt]:
    """The statements of `cls`'s class body, from its module's source parsed once
    (`inspect.getsource` parses the whole module again for each class it is asked about)."""
    if "<locals>" in cls.__qualname__:  # made inside a function: only inspect finds it
        return ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body  # type: ignore[attr-defined,no-any-return]
    node: ast.Module | ast.ClassDef = _module_tree(Path(inspect.getfile(sys.modules[cls.__module__])))
    for name in cls.__qualname__.split("."):
        node = next(n for n in node.body if isinstance(n, ast.ClassDef) and n.name == name)
    return node.body


def _own_fields(cls: type) -> list[str]:
    """The fields `cls`'s source declares: its annotated names that are not ``ClassVar``s."""
    body = _class_body(cls)
    return [
        st.target.id
        for st in body
        if isinstance(st, ast.AnnAssign)
        and isinstance(st.target, ast.Name)
        and not ast.unparse(st.annotation).startswith(("ClassVar", "typing.ClassVar"))
    ]


def _spelled(cls: type) -> list[str]:
    """What `cls`'s source assigns that the declaration derives: ``__slots__``, ``_fields``."""
    names = []
    for st in _class_body(cls):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name) and t.id in ("__slots__", "_fields", "_defaults")]
    return names


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_fields_are_declared_once(cls: type[Value]) -> None:
    own = _own_fields(cls)
    assert _spelled(cls) == [], f"{cls.__qualname__} spells what its annotations declare"
    base = cls.__mro__[1]
    assert cls._fields == getattr(base, "_fields", ()) + tuple(own)
    assert len(set(cls._fields)) == len(cls._fields)
    assert cls.__dict__["__slots__"] == tuple(own) + ("__dict__",) * any(
        isinstance(v, cached_property) for v in cls.__dict__.values()
    )
    # The constructor takes the fields, in order (callers pass them by position and by name).
    params = list(inspect.signature(cls).parameters)
    assert params == list(cls._fields)


def test_no_value_class_writes_its_own_init() -> None:
    # A field worked out from what was passed is `__post_init__`'s or a `field(default_factory=...)`'s.
    written = [c.__qualname__ for c in VALUES if any(getattr(st, "name", None) == "__init__" for st in _class_body(c))]
    assert written == []

    # Each class holds the generic __init__ until it is hot, then one written for its own fields.
    def derived(cls: type) -> bool:
        init = cls.__dict__["__init__"]
        return init is Value.__init__ or init.__code__.co_filename == f"<record {cls.__qualname__}>"

    assert [c.__qualname__ for c in VALUES if not derived(c)] == []


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_the_init_written_for_a_hot_class_takes_what_the_generic_one_takes(cls: type[Value]) -> None:
    written = guard.model._written_init(cls)
    assert written is not None, f"{cls.__qualname__} would keep the generic __init__"
    params = list(inspect.signature(written).parameters.values())[1:]
    assert [p.name for p in params] == list(cls._fields)
    assert {p.name: p.default for p in params if p.default is not inspect.Parameter.empty} == cls._defaults
    assert written.__qualname__ == f"{cls.__qualname__}.__init__"


def test_a_hot_class_makes_the_same_values_with_its_written_init() -> None:
    class Base(Value):
        x: int
        y: int = 0

    class Sub(Base):
        name: str = "origin"
        tags: list[str] = field(default_factory=list)

    class Post(Sub):
        def __post_init__(self) -> None:
            object.__setattr__(self, "name", self.name[:3])

    calls: list[tuple[tuple[object, ...], dict[str, object]]] = [
        ((1,), {}),
        ((1, 2), {}),
        ((1, 2, "abcdef"), {}),
        ((1, 2, "abcdef", ["t"]), {}),
        ((), {"x": 1, "tags": ["u"]}),
        ((1,), {"name": "zz"}),
    ]

    def made(cls: type[Value]) -> list[tuple[object, ...]]:
        out = []
        for args, kwargs in calls:
            try:
                value = cls(*args, **kwargs)
            except TypeError:  # Base takes at most two fields
                out.append(("TypeError",))
                continue
            out.append(value._values())
        return out

    before = {cls: made(cls) for cls in (Base, Sub, Post)}
    assert all(cls.__dict__["__init__"] is Value.__init__ for cls in (Base, Sub, Post))
    for _ in range(guard.model._HOT):
        Base(1)
    # Base's own __init__ is written out; its subclasses keep theirs, the generic one.
    assert Base.__dict__["__init__"] is not Value.__init__
    assert Sub.__dict__["__init__"] is Value.__init__ and Post.__dict__["__init__"] is Value.__init__
    for _ in range(guard.model._HOT):
        Sub(1), Post(1)
    assert Sub.__dict__["__init__"] is not Value.__init__ and Post.__dict__["__init__"] is not Sub.__dict__["__init__"]
    assert {cls: made(cls) for cls in (Base, Sub, Post)} == before
    assert Post(1, name="abcdef").name == "abc" and Sub(1).tags == [] and Sub(1).tags is not Sub(1).tags
    assert Sub(1, 2) == Sub(x=1, y=2, name="origin", tags=[])
    for bad in (lambda: Base(), lambda: Base(1, 2, 3), lambda: Base(1, x=2), lambda: Base(1, z=2)):
        with pytest.raises(TypeError):
            bad()
    # The generic __init__ counts a class once it is written: no other class's count moves.
    assert guard.model._made[Base] == guard.model._HOT


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
    assert repr(f) == (
        "Finding(code='stale', severity='error', path='a.py', line=3, message='changed since read', hint='read it again')"
    )


def test_replace_copies_with_changed_fields_and_refuses_unknown_ones() -> None:
    f = _finding()
    g = f._replace(message="gone")
    assert (g.message, g.code, f.message) == ("gone", "stale", "changed since read")
    with pytest.raises(TypeError, match="no field 'nope'"):
        f._replace(nope=1)
    c = guard.commit_check.CommitFinding("budget", "error", None, None, "too big", commit="abc", anchor="a.py")
    assert c._replace(line=2) == guard.commit_check.CommitFinding(
        "budget", "error", None, 2, "too big", commit="abc", anchor="a.py"
    )


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


class _Point(Value):
    x: int
    y: int = 0
    kind: ClassVar[str] = "point"  # a class variable, not a field


class _Named(_Point):
    name: str = "origin"
    tags: list[str] = field(default_factory=list)


class _Clipped(_Named):
    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name[:3])


class _Cached(Value):
    n: int

    @cached_property
    def square(self) -> int:
        return self.n * self.n


def test_a_record_is_made_from_its_annotations() -> None:
    assert _Point._fields == ("x", "y") and _Point.__slots__ == ("x", "y") and _Point.kind == "point"
    assert _Named._fields == ("x", "y", "name", "tags") and _Named.__slots__ == ("name", "tags")
    sig = inspect.signature(_Named).parameters
    assert list(sig) == ["x", "y", "name", "tags"] and (sig["y"].default, sig["name"].default) == (0, "origin")
    p = _Named(1, name="a")
    assert (p.x, p.y, p.name, p.tags) == (1, 0, "a", []) and p.tags is not _Named(1).tags
    assert _Named(1, 2, "b", ["t"]) == _Named(x=1, y=2, name="b", tags=["t"])
    assert _Point(1) != _Named(1, 0) and repr(_Point(1, 2)) == "_Point(x=1, y=2)"
    with pytest.raises(TypeError, match="missing argument: 'x'"):
        _Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes 2 arguments but 3 were given"):
        _Point(1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        _Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        _Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(AttributeError):
        p.extra = 1  # type: ignore[attr-defined]


def test_post_init_works_a_field_out_and_runs_for_subclasses_too() -> None:
    assert _Clipped(1, name="abcdef").name == "abc"
    assert _Clipped(1, name="abcdef")._replace(x=2) == _Clipped(2, name="abc")
    f = Finding("c", "error", None, None, "x" * 100_000)
    c = guard.commit_check.CommitFinding("c", "error", None, None, "x" * 100_000, commit="abc")
    assert len(f.message) < 100_000 and c.message == f.message and c.commit == "abc"


def test_a_class_with_cached_properties_keeps_them_out_of_its_value() -> None:
    a, b = _Cached(3), _Cached(3)
    assert a.square == 9 and a == b and hash(a) == hash(b) and "__dict__" in _Cached.__slots__
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a).square == 9
    with pytest.raises(AttributeError):
        a.n = 4  # type: ignore[misc]


def test_declarations_a_record_cannot_keep_are_refused() -> None:
    with pytest.raises(TypeError, match="shared by every value; use field"):

        class _Shared(Value):  # noqa: F841
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="without a default follows one with a default"):

        class _Order(Value):  # noqa: F841
            a: int = 0
            b: int  # type: ignore[misc]
