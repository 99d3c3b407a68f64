"""The one edit model every input dialect parses into.

Nothing after a parser knows which dialect an edit came in.  An ``EditSet`` is a
tuple of ``FileEdit`` values; each ``FileEdit`` carries the changes to make to one
file, expressed as one of four kinds of change:

- ``Hunk``: a block of tagged lines (`` `` context, ``-`` removed, ``+`` added), the
  unified-diff shape.  Unified diffs, Codex patches and SEARCH/REPLACE blocks use it.
- ``Replace``: a substring replacement (str_replace-style tools).  ``old`` need not
  start or end at a line boundary.
- ``LineRange``: replace the lines ``start..end`` (1-based, inclusive) of the file
  as it was read; ``end == start - 1`` inserts before ``start``.  Hash-anchored
  edits use it; ``expect`` holds the lines the agent saw there, for re-anchoring.
- ``Snippet``: the file as it should become, with unchanged stretches elided by
  marker lines (``// ... existing code ...``): the ``lazy`` dialect.  Which real
  lines are unchanged (anchors) and which are new is only known against the file,
  so the locator merges it (``locate.locate_snippet``).

A ``FileEdit`` may instead carry whole ``content``: with ``Op.CREATE`` the file must
not exist yet; with ``Op.MODIFY`` and ``create_missing`` it is an upsert (whole-file
writes).  Line terminators inside ``content`` and hunk lines are kept as written: a
line of a CRLF patch keeps its ``\r``, and the locator decides what that means.

An ``EditSet`` may also hold ``Rewrite`` values (the ``structural`` dialect): a pattern
and the files it is to be looked for in.  What it changes is only known against the
repository, so the engine expands each into ``FileEdit`` values of ``LineRange`` changes
(with the lines they replace as ``expect``) before anything else sees the edit.

After locating, each file's edit becomes a ``FileChange``: before/after bytes and
the added/removed lines.  Policy checks see only ``FileChange`` values.

The edit model and ``FileChange`` are ``NamedTuple``s (``x._replace(...)`` makes a
changed copy): callers of the Python API may unpack them.  ``Finding``, and the
records behind the API (splices, turns, texts, tree entries, ...), are ``Value``s:
the same immutable, comparable values, each declared by its annotated fields alone (a
commit check's findings extend ``Finding`` with the commit they are about).  Not
frozen dataclasses, nor ``NamedTuple``s where no caller needs a tuple: creating one
compiles its methods, ~0.4 and ~0.1 ms a class at the start of every command; a
``Value`` class compiles nothing when it is made (one generic ``__init__`` serves it until
it has made many values, ``_HOT``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from itertools import count
from typing import Any, ClassVar, NamedTuple, TypeVar, Union, dataclass_transform, overload

from .text.wording import clip_lines, printable


class Op(str, enum.Enum):
    MODIFY = "modify"
    CREATE = "create"
    DELETE = "delete"
    RENAME = "rename"


CONTEXT, REMOVED, ADDED = " ", "-", "+"


class PathBase(str, enum.Enum):
    """What a relative path in an edit is relative to (the README's "First apply" states the rule)."""

    HERE = "here"  # the current folder, as for `git add`: every path an agent names itself
    ROOT = "root"  # the repository root: `diff --git` patches, as `git apply` reads them
    GUESS = "guess"  # other diffs: the current folder, unless the path already starts with it (git apply's guess)


class HunkLine(NamedTuple):
    """One line of a hunk: its tag and its text."""

    tag: str  # CONTEXT, REMOVED or ADDED
    text: str  # without its line terminator (a CR of a CRLF patch may remain)


class Hunk(NamedTuple):
    """A block of tagged lines: context, removed and added (the unified-diff shape)."""

    lines: tuple[HunkLine, ...]
    # 1-based line of the first old line (for a hunk with no old lines: the line the
    # new lines go before, so unified `-5,0` gives 6); None when the input had none.
    old_start: int | None = None
    declared_old: int | None = None  # counts from the header as written (to report `recount`)
    declared_new: int | None = None
    anchors: tuple[str, ...] = ()  # lines that must be found, in order, before the hunk (Codex `@@ ctx`)
    at_eof: bool = False  # the hunk must end at the end of the file
    old_eof_newline: bool = True  # False: `\ No newline` followed the old side's last line
    new_eof_newline: bool = True
    source_line: int = 0  # line of the input where the hunk starts, for messages

    @property
    def old_lines(self) -> tuple[str, ...]:
        return tuple(hl.text for hl in self.lines if hl.tag != ADDED)

    @property
    def new_lines(self) -> tuple[str, ...]:
        return tuple(hl.text for hl in self.lines if hl.tag != REMOVED)


class Replace(NamedTuple):
    """A substring replacement (str_replace-style tools)."""

    old: str
    new: str
    replace_all: bool = False
    source_line: int = 0


# A line a change names by its hash as oh-my-pi's tools printed it: (line number, the hash as
# written, the names of the rules it may have been made with; ``guard.text.linehash.RULES``).
LineHash = tuple[int, str, tuple[str, ...]]


class LineRange(NamedTuple):
    """Replace lines `start..end` of the file as it was read (hash-anchored edits).

    Three fields name what only the file as read can say (``guard.reading.registers`` works them out
    before the range is located): `block`, the line whose syntax block the range is
    (``LineRange(N, N, new, block=N)`` replaces that block, ``LineRange(N + 1, N, new,
    block=N)`` inserts after it); `cut`, a register that keeps the lines the range removes;
    `paste`, a register whose lines are the range's new lines.  A register is named, or
    ``""``, the one unnamed register.
    """

    start: int  # 1-based first line replaced
    end: int  # inclusive; start - 1 for a pure insertion before `start`
    new: tuple[str, ...]  # replacement lines, without terminators
    expect: tuple[str, ...] | None = None  # the lines the agent saw at start..end
    source_line: int = 0
    block: int = 0  # not 0: the range is the syntax block opening on this line (or inserts after it)
    cut: str | None = None  # the register the removed lines are kept in
    paste: str | None = None  # the register whose lines are put in
    hashes: tuple[LineHash, ...] = ()  # lines the edit named by hash: each must hash so in the file as read


class Snippet(NamedTuple):
    """The file as it should become, unchanged stretches elided by marker lines (the lazy dialect)."""

    lines: tuple[str, ...]  # every line of the snippet, markers included, without terminators
    markers: tuple[int, ...]  # indexes into `lines` of the marker lines, ascending
    source_line: int = 0  # line of the input where lines[0] is


Change = Union[Hunk, Replace, LineRange, Snippet]


class Rewrite(NamedTuple):
    """A structural rewrite: every node of `language` matching `pattern` in the files `paths`
    names becomes `to` (ast-grep's patterns and templates: ``$NAME`` one node, ``$$$NAME``
    several).  Which files, and what each match is, is only known against the repository:
    the engine expands a rewrite into ordinary ``FileEdit`` values (``structural.expansion``)."""

    pattern: str
    to: str
    paths: tuple[str, ...]  # globs (or files, folders) as written, from the current folder
    language: str | None = None  # ast-grep's name; None: each file's, by its extension
    selector: str | None = None  # the node kind inside `pattern` to match (the rest is context)
    source_line: int = 0


class FileEdit(NamedTuple):
    """The changes to make to one file, or its whole new content."""

    path: str  # as written in the input, relative to `path_base` (validated later)
    op: Op
    old_path: str | None = None  # for RENAME (and a modify that moves)
    changes: tuple[Change, ...] = ()
    content: str | None = None  # whole new text for CREATE or a whole-file write
    base: str | None = None  # blob id (or prefix) the edit was made against; or LAST_SEEN
    old_mode: int | None = None
    new_mode: int | None = None
    binary: bool = False  # a binary patch: always refused
    create_missing: bool = False  # MODIFY of a missing file starts from empty and creates it
    source_line: int = 0
    repairs: tuple[str, ...] = ()  # bookkeeping the parser put right in this file's section
    path_base: PathBase = PathBase.HERE


# `FileEdit.base` of a line-anchored edit that names no version (oh-my-pi's JSON hashline
# calls): the file as the agent last read it (``git agent-read``, MCP ``read_file``) when a read
# is on record, else the file as it is now (``guard.reading.anchors``).
LAST_SEEN = "@seen"


def line_anchored(fe: FileEdit) -> bool:
    """Whether `fe` names lines of the file as the agent read it (a hashline edit: a base, and
    only ``LineRange`` changes without ``expect``), which ``anchors`` resolves against the read."""
    return (
        bool(fe.base)
        and fe.content is None
        and bool(fe.changes)
        and all(isinstance(c, LineRange) and c.expect is None for c in fe.changes)
    )


def ordered_changes(fe: FileEdit) -> bool:
    """Whether `fe`'s changes come in file order, each looked for after the one before.

    Hunks that carry context or line numbers are listed in file order (diffs, Codex
    chunks); bare SEARCH/REPLACE blocks and str_replace edits are not, so each of
    those must be unique in the whole file.
    """
    return any(
        isinstance(c, Hunk) and (c.old_start is not None or c.anchors or any(hl.tag == CONTEXT for hl in c.lines))
        for c in fe.changes
    )


class EditSet(NamedTuple):
    """One parsed edit: a FileEdit per file (and the structural rewrites to expand into more),
    and the dialect it came in."""

    files: tuple[FileEdit, ...]
    format: str
    repairs: tuple[str, ...] = ()  # repairs made while parsing (e.g. "recount")
    # The dialect was guessed (`auto`), not named by the caller: how it was read, not what it
    # says, so two edit sets that say the same are equal however they were read.
    detected: bool = False
    rewrites: tuple[Rewrite, ...] = ()  # applied in order, after nothing else (the engine expands them)

    def _said(self) -> tuple[object, ...]:
        return (self.files, self.format, self.repairs, self.rewrites)

    def __eq__(self, other: object) -> bool:
        return self._said() == other._said() if isinstance(other, EditSet) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._said() != other._said() if isinstance(other, EditSet) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._said())


_V = TypeVar("_V", bound="Value")
_T = TypeVar("_T")


class _Made:
    """A field's default made afresh for each value (what ``field`` gives)."""

    __slots__ = ("factory",)

    def __init__(self, factory: Callable[[], object]) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        return f"<{getattr(self.factory, '__qualname__', self.factory)}()>"


def field(*, default_factory: Callable[[], _T]) -> _T:
    """A default made afresh for each value, as ``dataclasses.field(default_factory=...)``:
    ``extra: dict[str, Any] = field(default_factory=dict)``."""
    return _Made(default_factory)  # type: ignore[return-value]


# How an annotation of a class variable reads: a string under ``from __future__ import
# annotations`` (only the name counts), else the object, whose str() says the same.
_CLASS_VAR = ("ClassVar", "typing.ClassVar")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class _Record(type):
    """Makes a ``Value`` class from its field declarations, as ``@dataclass(frozen=True, slots=True)``.

    The fields are the class's annotated names, in order, after its base class's (names annotated
    ``ClassVar`` are not fields).  From them: ``__slots__`` (with a ``__dict__`` too when the class
    has a ``cached_property``, which keeps its answer there), ``_fields``, the defaults, and the
    setters ``Value.__init__`` fills the slots with.  A default that a value could change (a list,
    dict or set) is refused: ``field(default_factory=...)`` makes one per value.

    No code is written and compiled for a class when it is made, as ``dataclasses`` does: that
    cost ~0.08 ms a class (~3 ms for the ~40 records a quick command creates before it starts;
    ``bench/README.md``).  Only a class that makes many values gets an ``__init__`` of its own
    (``_HOT``).
    """

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> _Record:
        own = [n for n, a in ns.get("__annotations__", {}).items() if not str(a).startswith(_CLASS_VAR)]
        fields: list[str] = []
        defaults: dict[str, object] = {}
        post_init = ns.get("__post_init__")
        for base in bases:
            if isinstance(base, _Record):
                fields += [n for n in base._fields if n not in fields]
                defaults.update(base._defaults)
                post_init = post_init or base._post_init
        fields += [n for n in own if n not in fields]
        for n in own:
            if n in ns:
                value = defaults[n] = ns.pop(n)  # a class attribute of that name would hide the slot
                if isinstance(value, (list, dict, set)):
                    raise TypeError(
                        f"{name}.{n}: a {type(value).__name__} default would be shared by every "
                        f"value; use field(default_factory={type(value).__name__})"
                    )
        required = [n for n in fields if n not in defaults]
        if required and fields.index(required[-1]) >= len(required):
            raise TypeError(f"{name}.{required[-1]}: a field without a default follows one with a default")
        dict_too = any([isinstance(v, cached_property) for v in ns.values()])
        ns["__slots__"] = (*own, "__dict__") if dict_too else tuple(own)
        ns["_fields"] = tuple(fields)
        ns["_defaults"] = defaults
        ns["_tails"] = {}
        ns["_post_init"] = post_init
        # Each class holds its own __init__: the generic one until the class is hot (`_made_by_hand`),
        # then one written for its fields, which its subclasses must not inherit.
        ns.setdefault("__init__", _made_by_hand)
        cls = super().__new__(mcs, name, bases, ns)
        # A value's own __setattr__ refuses; its slots' setters do not (and are the quickest way in).
        cls._setters = tuple([getattr(cls, n).__set__ for n in fields])
        return cls

    @property
    def __signature__(cls) -> Any:
        """What ``inspect.signature`` (and ``help``) show: the fields, in order, with their defaults."""
        import inspect

        def parameter(name: str) -> inspect.Parameter:
            default = cls._defaults.get(name, inspect.Parameter.empty)
            return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)

        return inspect.Signature([parameter(n) for n in cls._fields])

    _fields: tuple[str, ...]
    _defaults: dict[str, object]
    _setters: tuple[Callable[[Any, Any], None], ...]
    _post_init: Callable[[Any], None] | None


# How many values of a class the generic __init__ makes before the class gets one written for
# its fields.  Writing one costs ~0.08 ms; it saves ~0.8 us a value.  A command's start-up makes a
# few values of each of ~40 classes (those keep the generic one); a Guard session, the warm server
# and a large edit make thousands of a few (locate: Located, Match, Sought, Splice, ...).
_HOT = 32
_made: dict[type, int] = {}


def _made_by_hand(self: Value, *args: Any, **kwargs: Any) -> None:
    """Every record's first __init__: the fields in order, by position or name (mypy checks each
    class's own signature: ``dataclass_transform``).  Once a class has made `_HOT` values, it is
    given the same __init__ written out for its fields (`_written_init`)."""
    cls = type(self)
    made = _made.get(cls, 0) + 1
    _made[cls] = made
    if made == _HOT:
        written = _written_init(cls)
        if written is not None:
            type.__setattr__(cls, "__init__", written)
    if kwargs or len(args) != len(cls._fields):
        tail = None if kwargs else cls._tails.get(len(args))
        args = cls._bound(args, kwargs) if tail is None else args + tail
    for set_field, value in zip(cls._setters, args):
        set_field(self, value)
    if cls._post_init is not None:
        cls._post_init(self)


def _written_init(cls: _Record) -> Callable[..., None] | None:
    """An __init__ for `cls` that does what `_made_by_hand` does, written out for its fields:
    one parameter per field with its default, one slot setter call per field, then
    ``__post_init__``.  None (keep the generic one) when a field's name is one the written
    function uses itself.  Its errors for a call that does not fit are Python's own."""
    given: dict[str, object] = {}
    params, body = [], []
    for i, name in enumerate(cls._fields):
        given[f"_set_{i}"] = cls._setters[i]
        value = name
        if name in cls._defaults:
            default = cls._defaults[name]
            given[f"_default_{i}"] = default
            params.append(f"{name}=_default_{i}")
            if isinstance(default, _Made):
                given[f"_factory_{i}"] = default.factory
                value = f"_factory_{i}() if {name} is _default_{i} else {name}"
        else:
            params.append(name)
        body.append(f"    _set_{i}(self, {value})")
    if cls._post_init is not None:
        given["_post_init"] = cls._post_init
        body.append("    _post_init(self)")
    if ({"self", *given} & set(cls._fields)) or not body:
        return None
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), given)
    init: Any = given["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init  # type: ignore[no-any-return]


class Value(metaclass=_Record):
    """An immutable value that is not a tuple, declared by its fields: equal to a value of its
    own class with equal fields; hashed and shown by them.

    A subclass annotates its fields, with their defaults (``field(default_factory=...)`` for one
    made per value); a base class's come first; ``_Record`` derives the rest.  A class that must
    work a field out writes ``__post_init__`` (it may set a field with ``object.__setattr__``),
    which ``__init__`` calls last.  ``_replace``, copies and unpickling take the fields as they are.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, object]] = {}
    # The defaults of the fields after the first N, by N, once a call has passed N by position.
    _tails: ClassVar[dict[int, tuple[object, ...]]] = {}
    _setters: ClassVar[tuple[Callable[[Any, Any], None], ...]] = ()
    _post_init: ClassVar[Callable[[Any], None] | None] = None

    __init__ = _made_by_hand

    @classmethod
    def _bound(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Every field's value from what ``__init__`` was passed (the defaults for the rest), or
        the ``TypeError`` Python raises for a call that does not fit the fields."""
        fields, by_name = cls._fields, bool(kwargs)
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments but {len(args)} were given")
        values = list(args)
        for name in fields[len(args) :]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in cls._defaults:
                default = cls._defaults[name]
                values.append(default.factory() if isinstance(default, _Made) else default)
            else:
                raise TypeError(f"{cls.__name__}() missing argument: {name!r}")
        for name in kwargs:
            said = "got multiple values for argument" if name in fields else "got an unexpected keyword argument"
            raise TypeError(f"{cls.__name__}() {said} {name!r}")
        if not by_name and not any([isinstance(cls._defaults[n], _Made) for n in fields[len(args) :]]):
            # The next call with as many arguments, by position, takes these defaults as they are.
            cls._tails[len(args)] = tuple(values[len(args) :])
        return tuple(values)

    def _init(self, *values: object) -> None:
        for set_field, value in zip(self._setters, values):
            set_field(self, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def _replace(self: _V, **changes: object) -> _V:
        """A copy with the fields named in `changes` changed (``NamedTuple._replace``)."""
        unknown = changes.keys() - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        for name in self._fields:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        return new

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Value) and other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of an immutable {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of an immutable {type(self).__name__}")

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle would set the fields one by one, which __setattr__ refuses.
        return _rebuilt, (type(self), self._values())


def _rebuilt(cls: type[_V], values: tuple[Any, ...]) -> _V:
    """A `cls` with these field values (how a copied or unpickled ``Value`` is made)."""
    new = object.__new__(cls)
    new._init(*values)
    return new


class Finding(Value):
    """Why an edit is refused or warned about: code, severity, where, what, and what to do next."""

    code: str
    severity: str  # "error" | "warning"
    path: str | None
    line: int | None
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        # Every line a finding says is bounded (``wording.clip_lines``), whatever it quotes: a
        # file's 60 KB line, a path of 4,000 bytes.  Quotes of file lines are cut closer where
        # they are made, around what matters (``wording.clip``).
        object.__setattr__(self, "message", clip_lines(self.message))
        object.__setattr__(self, "hint", clip_lines(self.hint))

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
        }

    def __str__(self) -> str:
        """``path:line: code: message`` (what editors and terminals link; no line, no `:line`; a
        finding about the input as a whole, ``<input>``), then the hint's lines indented, printable."""
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {self.code}: {self.message}" + ("" if self.severity == "error" else " (warning)")
        if self.hint:
            text += "\n" + "\n".join("    " + ln for ln in self.hint.splitlines())
        return printable(text)


def error(code: str, path: str | None, line: int | None, message: str, hint: str = "") -> Finding:
    return Finding(code, "error", path, line, message, hint)


def warning(code: str, path: str | None, line: int | None, message: str, hint: str = "") -> Finding:
    return Finding(code, "warning", path, line, message, hint)


class NumberedLines(Sequence[tuple[int, str]]):
    """``((1, lines[0]), (2, lines[1]), ...)`` without the pairs: each is made when asked.

    Every line of a new file is an added line; a commit of 1,000 new files would
    otherwise hold 200,000 pairs that the checks mostly only count.  Equal to the
    tuple of its pairs, and hashed like it.
    """

    __slots__ = ("lines",)

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> tuple[int, str]: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[tuple[int, str], ...]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, str] | tuple[tuple[int, str], ...]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self.lines))
            return tuple(zip(range(start + 1, stop + 1, step), self.lines[i]))
        n = len(self.lines)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("line index out of range")
        return i + 1, self.lines[i]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return zip(count(1), self.lines)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NumberedLines):
            return list(self.lines) == list(other.lines)
        if isinstance(other, tuple):
            return len(other) == len(self.lines) and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"NumberedLines({len(self.lines)} lines)"


class FileChange(NamedTuple):
    """One file's located edit: what it was, what it becomes, and what changed."""

    path: str
    op: Op
    old_path: str | None
    before: bytes | None  # None when the file did not exist
    after: bytes | None  # None when the file is deleted
    old_mode: int | None
    new_mode: int | None
    # (1-based line in `after`, text without terminator): a tuple, or for a new file's
    # lines a `NumberedLines`, which makes each pair when asked.
    added: Sequence[tuple[int, str]] = ()
    removed: Sequence[tuple[int, str]] = ()  # (1-based line in `before`, text)
    hunks: int = 0
    repairs: tuple[str, ...] = ()
    diff: str = ""  # unified diff of before -> after, computed by us
    whole: bool = False  # the edit gave the whole new text (a whole-file write), not changes to the old


class ParseError(Exception):
    """A parser's refusal: becomes a `parse-error` finding at the edge of `dialects`.

    (Not a ``Value``: Python sets ``__traceback__`` on exceptions as they travel.)
    """

    def __init__(
        self, message: str, line: int | None = None, hint: str = "", path: str | None = None, read: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.hint = hint
        self.path = path
        # A file (as the edit named it) the agent should read first: parsers know no reader, so
        # `dialects.parse` puts the reader's own way to read it in front of the hint.
        self.read = read

    def __str__(self) -> str:
        return self.message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParseError) and (self.message, self.line, self.hint, self.path, self.read) == (
            other.message,
            other.line,
            other.hint,
            other.path,
            other.read,
        )

    __hash__ = Exception.__hash__
