"""Policies: which checks run at which level, budgets, protected paths, locate tiers.

A policy is a YAML file (PyYAML's safe loader only) or one of the presets in
``guard/policies/``.  Layers stack through ``extends:`` (a preset name, or a path
relative to the extending file), base first; mappings merge key by key, lists and
scalars replace (but the ``ADDITIVE`` lists, ``paths.protected_extra``, add up).  A
user's file that says nothing about ``extends`` starts from the preset ``default``;
``extends: null`` starts from nothing.  Overrides under
``agents: {NAME: {...}}`` apply last, for that agent only.

Every layer is checked against ``SCHEMA`` on its own, so a message names the file
the mistake is in.  Each leaf of the effective policy remembers where its value
came from (``Policy.sources``), for ``show()`` and for findings that say which
setting they enforce.  What a file may say is ``schema``'s.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ..mappings import lookup
from .schema import (
    ADDITIVE,
    BUDGET_KEYS,
    BUDGET_SCOPES,
    CHECK_NAMES,
    LEVELS,
    SETTINGS,
    TIERS,
    WHITESPACE_LEVELS,
    WHITESPACE_RULES,
    PolicyError,
    closest,
    file_problems,
    scalar,
    whitespace_rule_problem,
)

PRESET_DIR = Path(__file__).resolve().parents[1] / "policies"
DEFAULT_FILE = ".agent-guard.yaml"

__all__ = [
    "ADDITIVE",
    "BUDGET_KEYS",
    "BUDGET_SCOPES",
    "CHECK_NAMES",
    "DEFAULT_FILE",
    "LEVELS",
    "PRESET_DIR",
    "SETTINGS",
    "TIERS",
    "WHITESPACE_LEVELS",
    "WHITESPACE_RULES",
    "load",
    "load_committed",
    "load_committed_table",
    "Policy",
    "PolicyCache",
    "PolicyError",
    "as_dict",
    "preset_about",
    "presets",
    "show",
    "validate_file",
    "whitespace_rule_problem",
]


# --- layers -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Layer:
    ident: str  # "preset:NAME" or the resolved path, for cycle detection
    label: str  # "preset default" or "/abs/path/.agent-guard.yaml"
    short: str  # "default" or ".agent-guard.yaml", for Policy.name
    data: dict[str, object]
    parent: str | None  # the `extends` value, None for a root
    base_dir: Path  # where a relative `extends` path is resolved


def presets() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in PRESET_DIR.glob("*.yaml")))


def _is_bare_name(spec: str) -> bool:
    return "/" not in spec and "\\" not in spec and not spec.endswith((".yaml", ".yml"))


def _read_yaml(path: Path, label: str, cache: PolicyCache) -> object:
    from ..files.filekind import NotRegular, open_regular

    try:
        # Never a plain open: a named pipe would hold it (and every command) until something wrote to it.
        with open(open_regular(path), encoding="utf-8") as fh:
            text = fh.read()
    except NotRegular as e:
        raise PolicyError(
            f"cannot read policy {label}: it is {e.what}, not a regular file; write the policy to a regular file"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PolicyError(f"cannot read policy {label}: {reason}") from None
    return _parse_yaml(text, label, cache)


def _parse_yaml(text: str, label: str, cache: PolicyCache) -> object:
    data = _remembered(text, cache)
    if data is _NOT_REMEMBERED:
        import yaml

        try:
            # libyaml's parser where PyYAML has it (the same safe constructors; ~9x faster than
            # the pure-Python one: 0.7 ms against 5.8 ms for the strict preset, paid by every
            # command whose parsed policies are not cached yet). It ends nesting past 1,000
            # levels with a YAMLError, as PyYAML ends it with a RecursionError below.
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(e, "problem", None) or str(e)
            raise PolicyError(f"{label}: not valid YAML{at}: {problem}") from None
        except RecursionError:  # pure-Python PyYAML composes and constructs one recursion level per nesting level
            raise PolicyError(f"{label}: {_TOO_DEEP}") from None
        except ValueError as e:  # an integer of thousands of digits (Python's limit on int digits)
            raise PolicyError(f"{label}: not a value a policy can hold: {e}") from None
        shape = _shape(data)
        if shape == "deep":  # libyaml reads up to 1,000 levels: what walks the policy later would recurse
            raise PolicyError(f"{label}: {_TOO_DEEP}")
        if shape == "large":
            raise PolicyError(
                f"{label}: more than {_MAX_NODES:,} values once its aliases (*name) are expanded; "
                "a policy is a few dozen settings"
            )
        _remember(text, data, cache)
    return {} if data is None else data


_MAX_NODES = 100_000
_MAX_DEPTH = 64
_TOO_DEEP = "nested too deeply to read (a policy is a few levels of mappings)"


def _shape(data: object) -> str | None:
    """What makes `data` too big to walk: "large" when it holds more than `_MAX_NODES` values,
    aliases counted each time they are used; "deep" when it nests more than `_MAX_DEPTH` levels.

    YAML's aliases share one value among many places: a few lines of anchors that each
    repeat the one before ten times stand for a billion values, which the cache's JSON and
    every walk of the policy would spell out.  Counted without recursion, up to the limit.
    """
    stack, seen = [(data, 1)], 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            return "large"
        if depth > _MAX_DEPTH:
            return "deep"
        if isinstance(item, dict):
            stack.extend((key, depth + 1) for key in item)
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            stack.extend((value, depth + 1) for value in item)
    return None


@dataclass(frozen=True, slots=True)
class PolicyCache:
    """Where parsed policy texts are kept, as JSON, from one process to the next.

    Importing PyYAML costs a command ~13 ms (an `agent-guard check` or a CLI apply takes
    ~200), and a policy seldom changes.  What a cache says decides what the guard checks, so
    it is trusted only where no agent can write: an entry is named by a BLAKE2b hash of the
    loader's version and the text, holds both, and is used only when they are exactly this
    loader's and this text (``_remembered``); the folder is used only when it lies in no git
    work tree (the guarded repository's included, through any symbolic link) and it, its
    parent and the entry belong to this user and no one else may write them (``_private``).
    Data that JSON cannot hold exactly is not kept.  A cache that cannot be read or written,
    or is not trusted, is ignored: the text is parsed.  The program's edge chooses one
    (`of_user`, the default of `load`), or one with no folder: nothing kept.
    ``tests/test_policy.py`` holds it to the parsed text.
    """

    folder: Path | None

    @classmethod
    def of_user(cls, root: Path | None = None) -> PolicyCache:
        """The user's cache folder: ``$XDG_CACHE_HOME/agent-guard/policies``, else under ``~/.cache``;
        none when that is inside the work tree at `root` or any other (``_in_a_work_tree``)."""
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        if not os.path.isabs(base):
            return cls(None)  # no home to speak of
        folder = Path(base) / "agent-guard" / "policies"
        return cls(None if _in_a_work_tree(folder, root) else folder)

    def path(self, text: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"{_key(text)}.json"


# What the loader makes of a text: bump it when that changes (normalisation, the YAML it reads),
# so entries another version of agent-guard kept are not taken for this one's.
LOADER = "3"  # 3: libyaml's parser, and nesting past 64 levels refused


def _key(text: str) -> str:
    """The hash that names `text`'s entry: of the loader's version and the text, exactly."""
    try:
        from _blake2 import blake2b  # hashlib's own builtin: ~0.5 ms, where hashlib loads OpenSSL (~6 ms)
    except ImportError:  # pragma: no cover - an interpreter without it
        from hashlib import blake2b

    h = blake2b(LOADER.encode() + b"\0" + text.encode("utf-8", "surrogatepass"), digest_size=32)
    return h.hexdigest()


def _in_a_work_tree(folder: Path, root: Path | None) -> bool:
    """Whether `folder` (as the file system resolves it, links and all) lies inside the work tree at
    `root`, or in any folder that holds a `.git`: a file there is one an agent working in that
    repository may write, and a planted entry would switch checks off."""
    real = Path(os.path.realpath(folder))
    if root is not None:
        tree = Path(os.path.realpath(root))
        if real == tree or tree in real.parents:
            return True
    return any(os.path.lexists(d / ".git") for d in (real, *real.parents))


def _private(st: os.stat_result) -> bool:
    """Owned by this user, and no one else may write it."""
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


_NOT_REMEMBERED = object()


def _remembered(text: str, cache: PolicyCache | None = None) -> object:
    """The data `cache` (None: the user's) holds for `text`, else `_NOT_REMEMBERED`."""
    import stat

    path = (cache or PolicyCache.of_user()).path(text)
    if path is None:
        return _NOT_REMEMBERED
    try:
        if not all(_private(os.stat(d)) for d in (path.parent, path.parent.parent)):
            return _NOT_REMEMBERED
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or not _private(st):
                return _NOT_REMEMBERED
            with os.fdopen(fd, "rb") as f:
                fd = -1
                entry = json.loads(f.read())
        finally:
            if fd >= 0:
                os.close(fd)
    except (OSError, ValueError):
        return _NOT_REMEMBERED
    if not isinstance(entry, dict) or entry.get("version") != 2 or entry.get("loader") != LOADER or entry.get("text") != text:
        return _NOT_REMEMBERED
    return entry.get("data")


def _remember(text: str, data: object, cache: PolicyCache | None = None) -> None:
    """Keep `data`, parsed from `text`, in `cache` (None: the user's)."""
    path = (cache or PolicyCache.of_user()).path(text)
    if path is None:
        return
    try:
        doc = json.dumps({"version": 2, "loader": LOADER, "text": text, "data": data})
        if json.loads(doc)["data"] != data:
            return  # keys that are not strings, NaN...: not what YAML said, once through JSON
    except (TypeError, ValueError):
        return  # dates and the like
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        for d in (path.parent.parent, path.parent):
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _private(os.stat(d)):
                return  # someone else's, or open to all: not a place to keep what decides the checks
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(doc)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return
    _prune(path.parent, path)


_CACHE_ENTRIES = 256  # a new entry beyond this many drops the least recently written half


def _prune(folder: Path, keep: Path) -> None:
    """Keep the cache folder small: every edited policy text leaves an entry behind.  `keep`: the
    entry just written."""
    try:
        entries = [
            (e.stat().st_mtime_ns, e.path)
            for e in os.scandir(folder)
            if e.name.endswith(".json") and e.is_file(follow_symlinks=False) and e.path != str(keep)
        ]
    except OSError:
        return
    if len(entries) < _CACHE_ENTRIES:
        return
    for _, old in sorted(entries)[: len(entries) + 1 - _CACHE_ENTRIES // 2]:
        try:
            os.unlink(old)
        except OSError:
            pass


def _layer(spec: str, base_dir: Path, cache: PolicyCache, preset_ok: bool = True) -> _Layer:
    if preset_ok and _is_bare_name(spec):
        path = PRESET_DIR / f"{spec}.yaml"
        if not path.is_file():
            close = closest(spec, presets())
            tip = f"; did you mean '{close[0]}'?" if close else f" (presets: {', '.join(presets())})"
            raise PolicyError(f"no policy preset named '{spec}'{tip}; a file needs a path such as ./{spec}.yaml")
        data = _read_yaml(path, f"preset {spec}", cache)
        return _checked(_Layer(f"preset:{spec}", f"preset {spec}", spec, {}, None, PRESET_DIR), data, root=True)
    path = (base_dir / spec).resolve()
    if not path.exists():
        raise PolicyError(f"policy file {base_dir / spec} does not exist")
    data = _read_yaml(path, str(path), cache)
    return _checked(_Layer(str(path), str(path), path.name, {}, None, path.parent), data, root=False)


def _checked(layer: _Layer, data: object, root: bool) -> _Layer:
    problems = file_problems(data)
    if problems:
        raise PolicyError("\n".join(f"{layer.label}: {key}: {what}" for key, what in problems))
    assert isinstance(data, dict)
    data = _normalised(data)
    # A user's file extends `default` unless it says otherwise; presets say so themselves.
    parent = data.get("extends", None if root else "default")
    assert parent is None or isinstance(parent, str)
    body = {k: v for k, v in data.items() if k != "extends"}
    return _Layer(layer.ident, layer.label, layer.short, body, parent, layer.base_dir)


def _normalised(data: dict[str, object]) -> dict[str, object]:
    """`checks: {x: off}` arrives as False (YAML 1.1); store the word."""

    def fix_checks(settings: object) -> object:
        if isinstance(settings, dict) and isinstance(settings.get("checks"), dict):
            checks = {k: ("off" if v is False else v) for k, v in settings["checks"].items()}
            return {**settings, "checks": checks}
        return settings

    out = fix_checks(data)
    assert isinstance(out, dict)
    agents = out.get("agents")
    if isinstance(agents, dict):
        out = {**out, "agents": {name: fix_checks(over) for name, over in agents.items()}}
    return out


def _chain(top: _Layer, cache: PolicyCache, parent_of: Callable[[_Layer], _Layer] | None = None) -> list[_Layer]:
    """The layers from the root preset to `top` (`parent_of` reads the layer a layer extends;
    by default from the file system)."""
    chain = [top]
    while chain[-1].parent is not None:
        layer = chain[-1]
        assert layer.parent is not None
        parent = parent_of(layer) if parent_of is not None else _layer(layer.parent, layer.base_dir, cache)
        idents = [c.ident for c in chain]
        if parent.ident in idents:
            loop = [c.label for c in chain[idents.index(parent.ident) :]] + [parent.label]
            raise PolicyError(f"extends cycle: {' -> '.join(loop)}; remove one of these `extends:`")
        chain.append(parent)
    return chain[::-1]


# --- merging ------------------------------------------------------------------------
def _leaves(data: Mapping[str, object], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    for key, value in data.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def _put(data: dict[str, object], path: tuple[str, ...], value: object) -> None:
    node = data
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    if isinstance(value, dict) and isinstance(node.get(path[-1]), dict):
        return  # an empty mapping adds nothing to one already there
    node[path[-1]] = list(value) if isinstance(value, list) else value


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


# No slots: a cached_property keeps its answer in the instance's __dict__.
@dataclass(frozen=True)
class Policy:
    """The effective policy of one agent: its settings, and where each came from.

    A value, compared by its fields like every record: two loads of one file are equal policies.
    """

    name: str
    data: dict[str, object]
    sources: dict[str, str] = field(default_factory=dict)
    agent: str | None = None
    # Repository-relative paths of `.agent-guard.yaml` and every work-tree file the
    # policy was read from: agents may never change them, whatever `paths.protected`
    # says (``paths.protected_finding``).  Filled by ``load`` for an agent's session;
    # a policy made for another purpose (a commit check judges people's commits) has none.
    own_files: tuple[str, ...] = ()
    # git's `core.ignorecase` for the repository: the allow-list (``paths.allow``) names paths as
    # the file system compares them, case-sensitively unless git says it ignores case.  (Protected
    # globs always ignore case: a protected name must not be reached by another spelling.)
    ignorecase: bool = False

    # Equal by value, as every record: two loads of one file say the same, and what is worked
    # out from a policy (its cached properties) depends on its fields alone, so either may stand
    # for the other: a commit check judged by an equal policy is the same check.  Hashed by the
    # fields that are not dicts (nothing changes `data` or `sources` after `load` built them):
    # equal policies hash alike, and a dict needs no freezing to be hashed.
    def __hash__(self) -> int:
        return hash((self.name, self.agent, self.own_files, self.ignorecase))

    def get(self, dotted: str, default: object = None) -> object:
        node: object = self.data
        for key in dotted.split("."):
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    def source(self, dotted: str) -> str:
        """Where the value at `dotted` (or the nearest setting under it) was set."""
        if dotted in self.sources:
            return self.sources[dotted]
        for key, src in self.sources.items():
            if key.startswith(dotted + "."):
                return src
        return "built-in fallback"

    # A policy is a value: nothing changes `data` after it is built, so what is read
    # from it for every file of a large commit is worked out once per policy.
    @cached_property
    def _levels(self) -> dict[str, str]:
        return {}

    def level(self, check: str) -> str:
        levels = self._levels
        found = levels.get(check)
        if found is None:
            value = self.get(f"checks.{check}")
            found = levels[check] = value if isinstance(value, str) else "off"
        return found

    @property
    def tiers(self) -> tuple[str, ...]:
        value = self.get("locate.tiers")
        enabled = set(value) if isinstance(value, list) else set()
        return tuple(t for t in TIERS if t in enabled)

    @property
    def ledger_prefix(self) -> str:
        value = self.get("ledger.ref_prefix")
        prefix = value if isinstance(value, str) else "refs/agent-guard/"
        return prefix if prefix.endswith("/") else prefix + "/"

    def budget(self, scope: str) -> dict[str, int]:
        value = self.get(f"budget.{scope}")
        if not isinstance(value, dict):
            return {}
        return {k: v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}

    @property
    def max_file_bytes(self) -> int | None:
        value = self.get("budget.max_file_bytes")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _strings(self, dotted: str) -> tuple[str, ...]:
        value = self.get(dotted)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    @cached_property
    def protected_listed(self) -> tuple[str, ...]:
        """`paths.protected` alone (the list the last layer that set it gave)."""
        return self._strings("paths.protected")

    @cached_property
    def protected(self) -> tuple[str, ...]:
        """Every protected glob: `paths.protected`, then what `paths.protected_extra` adds."""
        return tuple(dict.fromkeys(self.protected_listed + self._strings("paths.protected_extra")))

    @cached_property
    def allow(self) -> tuple[str, ...]:
        return self._strings("paths.allow")

    @property
    def allow_create(self) -> bool:
        return self.get("paths.create", True) is not False

    @property
    def read_before_edit(self) -> bool:
        return self.get("read_before_edit", False) is True

    @property
    def read_protected(self) -> bool:
        """May agents read protected paths (``git agent-read``, ``guard.read``, MCP ``read_file``)?"""
        return self.get("read_protected", False) is True

    def excluded(self, check: str, path: str) -> bool:
        """Does `exclude.CHECK` keep `check` off `path` (globs as in ``paths``, case as git's core.ignorecase)?"""
        globs = self._excludes.get(check)
        if globs is None:
            globs = self._excludes[check] = self._strings(f"exclude.{check}")
        if not globs:
            return False
        from ..files.paths import first_match

        return first_match((path,), globs, self.ignorecase) is not None

    @cached_property
    def _excludes(self) -> dict[str, tuple[str, ...]]:
        return {}

    @property
    def skip_generated(self) -> bool:
        """Are lock files and generated files (``linguist-generated``, ``-diff``) left out of budgets?"""
        return self.get("budget.skip_generated", True) is not False

    @property
    def baseline(self) -> str | None:
        """The baseline file `check` reads (repository-relative), if the policy names one."""
        import posixpath

        value = self.get("baseline")
        return posixpath.normpath(value.replace("\\", "/")) if isinstance(value, str) and value.strip() else None

    @cached_property
    def placeholder_patterns(self) -> tuple[str, ...]:
        return self._strings("placeholder.patterns")

    @cached_property
    def placeholder_exempt(self) -> tuple[str, ...]:
        return self._strings("placeholder.exempt")

    @cached_property
    def markdown_suffixes(self) -> tuple[str, ...] | None:
        """The lowercased suffixes (".md") of files whose two trailing spaces are a Markdown
        line break, to keep; None: every file (``*``)."""
        value = self.get("whitespace.markdown_linebreak_ext", ["md", "markdown"])
        names = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        if "*" in names:
            return None
        return tuple("." + v.lower().lstrip(".") for v in names)


def _build(chain: list[_Layer], agent: str | None, own_files: tuple[str, ...] = (), ignorecase: bool = False) -> Policy:
    data: dict[str, object] = {}
    sources: dict[str, str] = {}
    for layer in chain:
        for path, value in _leaves(layer.data):
            _set(data, sources, path, value, layer.label)
    agents = data.pop("agents", None)
    agent_sources = {k: v for k, v in sources.items() if k.startswith("agents.")}
    for key in agent_sources:
        del sources[key]
    if agent and isinstance(agents, dict) and isinstance(agents.get(agent), dict):
        for path, value in _leaves(agents[agent]):
            origin = agent_sources.get(_dotted(("agents", agent, *path)), "?")
            _set(data, sources, path, value, f"agents.{agent} in {origin}")
    name = chain[0].short
    for layer in chain[1:]:
        name = f"{layer.short}(extends {name})"
    return Policy(name=name, data=data, sources=sources, agent=agent, own_files=own_files, ignorecase=ignorecase)


def _set(data: dict[str, object], sources: dict[str, str], path: tuple[str, ...], value: object, label: str) -> None:
    dotted = _dotted(path)
    additive = dotted in ADDITIVE or (len(path) > 2 and path[0] == "agents" and _dotted(path[2:]) in ADDITIVE)
    if additive and isinstance(value, list):
        had = lookup(data, path)
        if isinstance(had, list) and had:
            value = had + [v for v in value if v not in had]
            if dotted in sources and label not in sources[dotted].split(" + "):
                label = f"{sources[dotted]} + {label}"
    below = [k for k in sources if k.startswith(dotted + ".")]
    if isinstance(value, dict):  # an empty mapping: record it only where nothing is
        if not below and dotted not in sources:
            sources[dotted] = label
    else:
        # A list or scalar replaces whatever was there, sources included.
        for key in below:
            del sources[key]
        sources[dotted] = label
    _put(data, path, value)


# --- public API ---------------------------------------------------------------------
def load(
    root: Path | None,
    spec: str | None = None,
    agent: str | None = None,
    cache: PolicyCache | None = None,
    ignorecase: bool = False,
    read: list[Path] | None = None,
) -> Policy:
    """The effective policy: `spec` (preset name or path), else the repo's file (``.agent-guard.yaml``,
    else the ``[tool.agent-guard]`` table of its pyproject.toml), else `default`.

    Parsed texts are kept in `cache` (None: the user's, `PolicyCache.of_user`, unless it lies in
    the work tree at `root` or another).  `ignorecase`: git's `core.ignorecase` for the
    repository at `root` (``Policy.ignorecase``).  `read`: a list the files the policy was read
    from are added to (every layer but the presets: its `extends:` chain, inside the tree or not).
    """
    cache = cache or PolicyCache.of_user(root)
    if spec is None:
        own = root / DEFAULT_FILE if root is not None else None
        if own is not None and os.path.lexists(own):  # a pipe or a broken link there is an error, not "none"
            top = _layer(str(own), Path.cwd(), cache, preset_ok=False)
        else:
            top = (_in_pyproject(root) if root is not None else None) or _layer("default", PRESET_DIR, cache)
    elif _is_bare_name(spec) and (PRESET_DIR / f"{spec}.yaml").is_file():
        top = _layer(spec, PRESET_DIR, cache)
    elif _is_bare_name(spec) and not (Path.cwd() / spec).is_file():
        top = _layer(spec, PRESET_DIR, cache)  # names the closest preset in its error
    else:
        top = _layer(spec, Path.cwd(), cache, preset_ok=False)
    chain = _chain(top, cache)
    if read is not None:
        read += [Path(layer.ident) for layer in chain if not layer.ident.startswith(("preset:", "pyproject:"))]
    pol = _build(chain, agent, _own_files(root, chain), ignorecase)
    return _with_baseline(pol)


def _in_pyproject(root: Path) -> _Layer | None:
    """The layer the ``[tool.agent-guard]`` table of `root`'s pyproject.toml sets, if it has one (``pyproject``)."""
    from ..files.filekind import NotRegular, read_regular
    from .pyproject import FILE, TABLE, has_table

    path = root / FILE
    try:
        data = read_regular(path)  # never waits on a pipe (a pipe there is no pyproject.toml)
    except (OSError, NotRegular):
        return None
    label = f"{path} {TABLE}"
    found = _table_in(data, str(path))
    if not has_table(found):
        return None
    return _checked(_Layer(f"pyproject:{path}", label, f"{FILE} {TABLE}", {}, None, root), found, root=False)


def _table_in(data: bytes, where: str) -> object:
    """The ``[tool.agent-guard]`` table of a pyproject.toml's bytes (``pyproject.table``); a file that
    names agent-guard but does not read as TOML is a PolicyError, never taken for one without it."""
    from .pyproject import TABLE, Unreadable, table

    try:
        return table(data)
    except Unreadable as exc:
        raise PolicyError(
            f"{where}: {exc}; it names agent-guard, so it may hold the policy ({TABLE}): "
            "fix the file, or put the policy in .agent-guard.yaml"
        ) from None


def _with_baseline(pol: Policy) -> Policy:
    """`pol` with its baseline file among its own files: a finding it lists passes `check`, so an
    agent that could write it could switch the commit check off for any line."""
    if pol.baseline is None or pol.baseline in pol.own_files:
        return pol
    return Policy(pol.name, pol.data, pol.sources, pol.agent, pol.own_files + (pol.baseline,), pol.ignorecase)


def _own_files(root: Path | None, chain: list[_Layer]) -> tuple[str, ...]:
    """`.agent-guard.yaml`, and each file of `chain` that lies in the work tree, relative to `root`.

    Even a policy given with `--policy` keeps `.agent-guard.yaml` out of agents' reach: the
    next command without the option reads it.  A preset is a file too, inside the tree when
    agent-guard runs on its own checkout.  (The baseline file is added by ``load``.)
    """
    own = [DEFAULT_FILE]
    if root is not None:
        real_root = Path(os.path.realpath(root))
        for layer in chain:
            if layer.ident.startswith("pyproject:"):
                continue  # its table is guarded, not the whole file (``pyproject``)
            file = (
                PRESET_DIR / f"{layer.ident[len('preset:') :]}.yaml" if layer.ident.startswith("preset:") else Path(layer.ident)
            )
            real = Path(os.path.realpath(file))
            if real.is_relative_to(real_root) and real != real_root:
                own.append(real.relative_to(real_root).as_posix())
    return tuple(dict.fromkeys(own))


def load_committed(
    text: str,
    label: str,
    agent: str | None = None,
    cache: PolicyCache | None = None,
    read: Callable[[str], str | None] | None = None,
    at: str = "",
    ignorecase: bool = False,
) -> Policy:
    """The policy a committed .agent-guard.yaml (`text`, named `label`) sets, read from the commit
    `at` (how messages name it), not from a work tree.

    It may extend presets and, given `read` (a repository path -> that file's text in the same
    commit, None when it holds no such file), files of the same commit, by a path relative to
    the extending file, as a checkout of the commit would read them.  A path that leaves the
    repository cannot be read from a commit: refused.  The policy's `own_files` are the
    repository paths it was read from.  (An index is read the same way, as the commit it will be.)
    """
    cache = cache or PolicyCache.of_user()
    top = _checked(
        _Layer(f"commit:{DEFAULT_FILE}", label, DEFAULT_FILE, {}, None, Path(".")), _parse_yaml(text, label, cache), root=False
    )
    return _committed(top, cache, agent, read, at, ignorecase)


def load_committed_table(
    data: bytes,
    label: str,
    agent: str | None = None,
    cache: PolicyCache | None = None,
    read: Callable[[str], str | None] | None = None,
    at: str = "",
    ignorecase: bool = False,
) -> Policy | None:
    """The policy the ``[tool.agent-guard]`` table of a committed pyproject.toml (`data`, named
    `label`) sets, read as ``load_committed`` reads a .agent-guard.yaml (its ``extends`` paths are
    relative to the repository's top, as on disk); None when the file has no table."""
    from .pyproject import FILE, TABLE, has_table

    found = _table_in(data, label)
    if not has_table(found):
        return None
    top = _checked(_Layer(f"commit:{FILE}", label, f"{FILE} {TABLE}", {}, None, Path(".")), found, root=False)
    return _committed(top, cache or PolicyCache.of_user(), agent, read, at, ignorecase)


def _committed(
    top: _Layer,
    cache: PolicyCache,
    agent: str | None,
    read: Callable[[str], str | None] | None,
    at: str,
    ignorecase: bool,
) -> Policy:
    """The policy `top` (a layer read from a commit) sets, with the layers it extends read by `read`."""
    import posixpath

    read_from = [DEFAULT_FILE]

    def parent_of(layer: _Layer) -> _Layer:
        spec = layer.parent
        assert spec is not None
        if _is_bare_name(spec) or not layer.ident.startswith("commit:"):
            return _layer(spec, PRESET_DIR, cache)
        if read is None:
            raise PolicyError(
                f"{layer.label}: extends {spec!r}: only a preset can be extended here, with no work "
                "tree to read a file from; give the policy with --policy FILE"
            )
        path = posixpath.normpath(posixpath.join(layer.base_dir.as_posix(), spec))
        if spec.startswith("/") or path == ".." or path.startswith("../"):
            raise PolicyError(
                f"{layer.label}: extends {spec!r}, which is outside the repository: a policy read "
                f"from a commit{f' ({at})' if at else ''} can extend a preset or a file of that commit; "
                "give the policy with --policy FILE"
            )
        found = read(path)
        if found is None:
            raise PolicyError(
                f"{layer.label}: extends {spec!r}, but {path} is not a file in "
                f"{at or 'that commit'}; commit it, or extend a preset"
            )
        read_from.append(path)
        where = f"{at}:{path}" if at else path
        return _checked(
            _Layer(f"commit:{path}", where, posixpath.basename(path), {}, None, Path(posixpath.dirname(path) or ".")),
            _parse_yaml(found, where, cache),
            root=False,
        )

    chain = _chain(top, cache, parent_of)
    return _with_baseline(_build(chain, agent, tuple(dict.fromkeys(read_from)), ignorecase))


def validate_file(path: Path, cache: PolicyCache | None = None) -> list[str]:
    """Every problem with one policy file (and the chain it extends); [] when it is valid."""
    cache = cache or PolicyCache.of_user()
    label = str(path.resolve())
    try:
        data = _read_yaml(path.resolve(), label, cache)
    except PolicyError as e:
        return [str(e)]
    problems = [f"{label}: {key}: {what}" for key, what in file_problems(data)]
    if problems:
        return problems
    try:
        _chain(_layer(str(path.resolve()), Path.cwd(), cache, preset_ok=False), cache)
    except PolicyError as e:
        # Each problem names its file: a file's label (an absolute path, or "preset NAME")
        # starts the problems found in it; the rest are about this file's `extends`.
        return [ln if ln.startswith(("/", "preset ")) else f"{label}: extends: {ln}" for ln in str(e).splitlines()]
    return []


def preset_about(name: str) -> str:
    """What preset `name` is for: the first sentence of the comment that opens its file."""
    try:
        text = (PRESET_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    except OSError:
        return ""
    said = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        said.append(line.lstrip("#").strip())
    about = " ".join(said).split(": ", 1)[-1]
    end = about.find(". ")
    return about[: end + 1] if end >= 0 else about


def as_dict(policy: Policy) -> dict[str, object]:
    """The effective policy as `policy show --json` prints it: its settings, where each came from
    (by dotted key), and the files it is read from, which agents may never change."""
    return {
        "version": 1,
        "name": policy.name,
        "agent": policy.agent,
        "settings": policy.data,
        "sources": dict(policy.sources),
        "own_files": list(policy.own_files),
    }


def show(policy: Policy) -> str:
    """The effective policy as YAML, each setting followed by `# from: <source>`."""
    who = f" for agent {policy.agent}" if policy.agent else ""
    lines = [f"# effective policy: {policy.name}{who}"]
    if policy.own_files:
        lines.append(
            "# always protected, whatever paths.protected says: git's own folders (.git, a separate "
            f"git dir, core.hooksPath) and the policy's files ({', '.join(policy.own_files)})"
        )
    lines.append(
        "# control files are protected too, unless paths.control_editable lists them: a folder an edit "
        "makes a git directory, files git's configuration names (includes, attributes and excludes files, "
        "the scripts of filters, drivers and other commands), .gitattributes, .gitmodules, the "
        "configuration of pre-commit and other hook managers, and agent harnesses' and editors' settings "
        "(.claude/, .mcp.json, .codex/, .gemini/, .cursor/, opencode.json, .vscode/, .devcontainer/, .envrc...)"
    )

    def emit(node: Mapping[str, object], path: tuple[str, ...]) -> None:
        indent = "  " * len(path)
        for key, value in node.items():
            sub = (*path, key)
            if isinstance(value, dict) and value:
                lines.append(f"{indent}{scalar(key)}:")
                emit(value, sub)
            elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
                # A list of mappings (`verify`): one item a line, as it would be written.
                lines.append(f"{indent}{scalar(key)}:  # from: {policy.source(_dotted(sub))}")
                lines.extend(f"{indent}  - {scalar(item)}" for item in value)
            else:
                lines.append(f"{indent}{scalar(key)}: {scalar(value)}  # from: {policy.source(_dotted(sub))}")

    emit(policy.data, ())
    return "\n".join(lines) + "\n"
