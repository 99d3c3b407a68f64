"""Policies: which checks run at which level, budgets, protected paths, locate tiers.

A policy is a YAML file (``yaml.safe_load`` only) or one of the presets in
``guard/policies/``.  Layers stack through ``extends:`` (a preset name, or a path
relative to the extending file), base first; mappings merge key by key, lists and
scalars replace (but the ``ADDITIVE`` lists, ``paths.protected_extra``, add up).  A
user's file that says nothing about ``extends`` starts from the preset ``default``;
``extends: null`` starts from nothing.  Overrides under
``agents: {NAME: {...}}`` apply last, for that agent only.

Every layer is checked against ``SCHEMA`` on its own, so a message names the file
the mistake is in.  Each leaf of the effective policy remembers where its value
came from (``Policy.sources``), for ``show()`` and for findings that say which
setting they enforce.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, Union

from .regex import lazy

PRESET_DIR = Path(__file__).resolve().parent / "policies"
DEFAULT_FILE = ".agent-guard.yaml"

CHECK_NAMES = (
    "placeholder", "whitespace", "untracked", "not-utf8", "binary", "budget",
    "path-protected", "conflict-marker", "no-op", "syntax", "stale",
)
LEVELS = ("error", "warning", "off")
WHITESPACE_LEVELS = ("error", "warning", "fix", "off")
TIERS = ("offset", "recount", "trailing-whitespace", "indent", "unicode", "eol", "escape", "fuzz", "3way")
BUDGET_SCOPES = ("per_edit", "per_turn", "per_session")
BUDGET_KEYS = ("files", "lines_added", "lines_removed", "hunks", "bytes")
WHITESPACE_RULES = (
    "blank-at-eol", "space-before-tab", "indent-with-non-tab", "tab-in-indent",
    "blank-at-eof", "trailing-space", "cr-at-eol",
)


class PolicyError(Exception):
    """A policy that cannot be used: unreadable, not YAML, or not the schema (exit 2)."""


# --- schema -------------------------------------------------------------------------
# A schema node is a mapping of key -> node, or a validator returning what is wrong
# with a value (None when it is fine).
Validator = Callable[[object], Union[str, None]]
Node = Union[Validator, Mapping[str, "Node"]]


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else _scalar(value)


def _closest(word: str, choices: Iterable[str]) -> list[str]:
    """The choice spelled most like `word`, if any is close (for a hint after a mistake)."""
    import difflib  # here: only a mistake in a policy asks for it

    return difflib.get_close_matches(word, choices, n=1)


def _one_of(choices: tuple[str, ...]) -> Validator:
    def check(value: object) -> str | None:
        if (isinstance(value, str) and value in choices) or (value is False and "off" in choices):
            return None  # YAML 1.1 reads a bare `off` as false
        close = _closest(str(value), choices)
        tip = f"; did you mean '{close[0]}'?" if close else ""
        return f"expected one of {', '.join(choices)}, got {_show(value)}{tip}"
    return check


def _limit(value: object) -> str | None:
    # null is allowed so a layer can lift a limit it inherited (mappings merge).
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return None
    return f"expected a whole number >= 0 (or null for no limit), got {_show(value)}"


def _bool(value: object) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {_show(value)}"


def _extends(value: object) -> str | None:
    if value is None or (isinstance(value, str) and value.strip()):
        return None
    return f"expected a preset name or a path, got {_show(value)}"


def _str_list(item: Callable[[str], str | None]) -> Validator:
    def check(value: object) -> str | None:
        if not isinstance(value, list):
            return f"expected a list, got {_show(value)}"
        for i, v in enumerate(value):
            if not isinstance(v, str) or not v:
                return f"item {i}: expected a non-empty string, got {_show(v)}"
            problem = item(v)
            if problem:
                return f"item {i} ({v!r}): {problem}"
        return None
    return check


def _regex(text: str) -> str | None:
    try:
        re.compile(text)
    except re.error as e:
        return f"not a valid regular expression: {e}"
    return None


def _glob(text: str) -> str | None:
    if "\x00" in text or "\n" in text:
        return "a glob cannot hold NUL or newline"
    return None


def _tier(text: str) -> str | None:
    return _one_of(TIERS)(text)


def whitespace_rule_problem(rules: str) -> str | None:
    """What is wrong with a git-style whitespace rule list (None if nothing)."""
    for raw in rules.split(","):
        name = raw.strip()
        if not name:
            continue
        if name.startswith("tabwidth="):
            width = name[len("tabwidth="):]
            if not width.isdigit() or not 1 <= int(width) <= 63:
                return f"tabwidth must be a number from 1 to 63, got {width!r}"
            continue
        bare = name[1:] if name.startswith("-") else name
        if bare not in WHITESPACE_RULES:
            close = _closest(bare, WHITESPACE_RULES)
            tip = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(WHITESPACE_RULES)}, tabwidth=N)"
            return f"unknown whitespace rule {bare!r}{tip}"
    return None


def _rules(value: object) -> str | None:
    if not isinstance(value, str):
        return f"expected a comma-separated string such as 'blank-at-eol,space-before-tab', got {_show(value)}"
    return whitespace_rule_problem(value)


def _extension(text: str) -> str | None:
    if text == "*":
        return None
    if any(ch in text.lstrip(".") for ch in "/\\:*") or not text.lstrip("."):
        return "expected a file extension such as md (or * for every file)"
    return None


_REF_BAD = lazy(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock/")


def _ref_prefix(value: object) -> str | None:
    if not isinstance(value, str) or not value.startswith("refs/") or _REF_BAD().search(value):
        return f"expected a ref prefix such as 'refs/agent-guard/', got {_show(value)}"
    return None


_BUDGET: dict[str, Node] = {key: _limit for key in BUDGET_KEYS}

SETTINGS: dict[str, Node] = {
    "checks": {name: _one_of(WHITESPACE_LEVELS if name == "whitespace" else LEVELS) for name in CHECK_NAMES},
    "budget": {**{scope: _BUDGET for scope in BUDGET_SCOPES}, "max_file_bytes": _limit},
    "paths": {"protected": _str_list(_glob), "protected_extra": _str_list(_glob), "allow": _str_list(_glob),
              "create": _bool},
    "locate": {"tiers": _str_list(_tier)},
    "ledger": {"ref_prefix": _ref_prefix},
    "placeholder": {"patterns": _str_list(_regex), "exempt": _str_list(_regex)},
    "whitespace": {"rules": _rules, "markdown_linebreak_ext": _str_list(_extension)},
    "read_before_edit": _bool,
    "read_protected": _bool,
}
# Lists that add up across layers instead of replacing: what a team's policy adds to
# the protected paths, a later layer (a user's file, an agent's overrides) cannot drop.
ADDITIVE = ("paths.protected_extra",)
# `agents` and `extends` only at the top of a file (an agent's overrides hold SETTINGS).
TOP_KEYS = ("extends", *SETTINGS, "agents")
_AGENT_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


def _words(key: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[_\-\s]+", key.lower()) if w)


def _problems(data: object, schema: Mapping[str, Node], path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(dotted key, what is wrong) for every mistake in `data` against `schema`."""
    where = ".".join(path)
    if not isinstance(data, dict):
        yield where or "(top level)", f"expected a mapping, got {_show(data)}"
        return
    for key, value in data.items():
        dotted = ".".join((*path, str(key)))
        node = schema.get(key) if isinstance(key, str) else None
        if node is None:
            full = [".".join((*path, k)) for k in schema]
            # The same words in another order (`extra_protected`) first, then the closest spelling.
            close = [k for k in full if _words(k.rpartition(".")[2]) == _words(str(key))][:1] or \
                _closest(dotted, full)
            tip = f"did you mean '{close[0]}'?" if close else f"valid keys here: {', '.join(schema)}"
            yield dotted, f"unknown key; {tip}"
        elif isinstance(node, Mapping):
            yield from _problems(value, node, (*path, key))
        else:
            problem = node(value)
            if problem:
                yield dotted, problem


def _file_problems(data: object) -> list[tuple[str, str]]:
    if not isinstance(data, dict):
        return [("(top level)", f"a policy is a mapping of settings, got {_show(data)}")]
    top: dict[str, Node] = {"extends": _extends, **SETTINGS, "agents": lambda _v: None}
    found = list(_problems(data, top, ()))
    agents = data.get("agents")
    if agents is not None and not isinstance(agents, dict):
        found.append(("agents", f"expected a mapping of agent name -> settings, got {_show(agents)}"))
    elif isinstance(agents, dict):
        for name, over in agents.items():
            if not isinstance(name, str) or not _AGENT_NAME().fullmatch(name):
                found.append((f"agents.{name}", "an agent name is letters, digits and _.@+-"))
                continue
            if isinstance(over, dict) and "extends" in over:
                found.append((f"agents.{name}.extends", "extends belongs at the top of the file, not under an agent"))
                over = {k: v for k, v in over.items() if k != "extends"}
            found.extend(_problems(over, SETTINGS, ("agents", name)))
    return found


# --- layers -------------------------------------------------------------------------
class _Layer(NamedTuple):
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
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PolicyError(f"cannot read policy {label}: {reason}") from None
    return _parse_yaml(text, label, cache)


def _parse_yaml(text: str, label: str, cache: PolicyCache) -> object:
    data = _remembered(text, cache)
    if data is _NOT_REMEMBERED:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(e, "problem", None) or str(e)
            raise PolicyError(f"{label}: not valid YAML{at}: {problem}") from None
        _remember(text, data, cache)
    return {} if data is None else data


class PolicyCache(NamedTuple):
    """Where parsed policy texts are kept, as JSON, from one process to the next.

    Importing PyYAML costs a command ~13 ms (an `agent-guard check` or a CLI apply takes
    ~200), and a policy seldom changes.  An entry is found by the text's CRC and length
    and used only when the text it holds is the same; data that JSON cannot hold
    exactly is not kept.  A cache that cannot be read or written is ignored.  The
    program's edge chooses one (`of_user`, the default of `load`), or one with no
    folder: nothing kept.  ``tests/test_policy.py`` holds it to the parsed text.
    """

    folder: Path | None

    @classmethod
    def of_user(cls) -> PolicyCache:
        """The user's cache folder: ``$XDG_CACHE_HOME/agent-guard/policies``, else under ``~/.cache``."""
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        if not os.path.isabs(base):
            return cls(None)  # no home to speak of
        return cls(Path(base) / "agent-guard" / "policies")

    def path(self, text: str) -> Path | None:
        import zlib

        if self.folder is None:
            return None
        raw = text.encode("utf-8", "surrogatepass")
        return self.folder / f"{zlib.crc32(raw):08x}-{len(raw)}.json"


_NOT_REMEMBERED = object()


def _remembered(text: str, cache: PolicyCache | None = None) -> object:
    """The data `cache` (None: the user's) holds for `text`, else `_NOT_REMEMBERED`."""
    path = (cache or PolicyCache.of_user()).path(text)
    if path is None:
        return _NOT_REMEMBERED
    try:
        entry = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return _NOT_REMEMBERED
    if not isinstance(entry, dict) or entry.get("version") != 1 or entry.get("text") != text:
        return _NOT_REMEMBERED
    return entry.get("data")


def _remember(text: str, data: object, cache: PolicyCache | None = None) -> None:
    """Keep `data`, parsed from `text`, in `cache` (None: the user's)."""
    path = (cache or PolicyCache.of_user()).path(text)
    if path is None:
        return
    try:
        doc = json.dumps({"version": 1, "text": text, "data": data})
        if json.loads(doc)["data"] != data:
            return  # keys that are not strings, NaN...: not what YAML said, once through JSON
    except (TypeError, ValueError):
        return  # dates and the like
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(doc, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def _layer(spec: str, base_dir: Path, cache: PolicyCache, preset_ok: bool = True) -> _Layer:
    if preset_ok and _is_bare_name(spec):
        path = PRESET_DIR / f"{spec}.yaml"
        if not path.is_file():
            close = _closest(spec, presets())
            tip = f"; did you mean '{close[0]}'?" if close else f" (presets: {', '.join(presets())})"
            raise PolicyError(f"no policy preset named '{spec}'{tip}; a file needs a path such as ./{spec}.yaml")
        data = _read_yaml(path, f"preset {spec}", cache)
        return _checked(_Layer(f"preset:{spec}", f"preset {spec}", spec, {}, None, PRESET_DIR), data, root=True)
    path = (base_dir / spec).resolve()
    if not path.is_file():
        raise PolicyError(f"policy file {base_dir / spec} does not exist")
    data = _read_yaml(path, str(path), cache)
    return _checked(_Layer(str(path), str(path), path.name, {}, None, path.parent), data, root=False)


def _checked(layer: _Layer, data: object, root: bool) -> _Layer:
    problems = _file_problems(data)
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


def _chain(top: _Layer, cache: PolicyCache) -> list[_Layer]:
    """The layers from the root preset to `top`."""
    chain = [top]
    while chain[-1].parent is not None:
        layer = chain[-1]
        assert layer.parent is not None
        parent = _layer(layer.parent, layer.base_dir, cache)
        idents = [c.ident for c in chain]
        if parent.ident in idents:
            loop = [c.label for c in chain[idents.index(parent.ident):]] + [parent.label]
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


def _at(data: Mapping[str, object], path: tuple[str, ...]) -> object:
    node: object = data
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


@dataclass(frozen=True, eq=False)
class Policy:
    """The effective policy of one agent: its settings, and where each came from."""

    name: str
    data: dict[str, object]
    sources: dict[str, str] = field(default_factory=dict)
    agent: str | None = None
    # Repository-relative paths of `.agent-guard.yaml` and every work-tree file the
    # policy was read from: agents may never change them, whatever `paths.protected`
    # says (``paths.protected_finding``).  Filled by ``load`` for an agent's session;
    # a policy made for another purpose (a commit check judges people's commits) has none.
    own_files: tuple[str, ...] = ()

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

    @property
    def whitespace_rules(self) -> str:
        value = self.get("whitespace.rules")
        return value if isinstance(value, str) else "blank-at-eol,space-before-tab,blank-at-eof"


def _build(chain: list[_Layer], agent: str | None, own_files: tuple[str, ...] = ()) -> Policy:
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
    return Policy(name=name, data=data, sources=sources, agent=agent, own_files=own_files)


def _set(data: dict[str, object], sources: dict[str, str], path: tuple[str, ...], value: object, label: str) -> None:
    dotted = _dotted(path)
    additive = dotted in ADDITIVE or (len(path) > 2 and path[0] == "agents" and _dotted(path[2:]) in ADDITIVE)
    if additive and isinstance(value, list):
        had = _at(data, path)
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
def load(root: Path | None, spec: str | None = None, agent: str | None = None,
         cache: PolicyCache | None = None) -> Policy:
    """The effective policy: `spec` (preset name or path), else the repo's file, else `default`.

    Parsed texts are kept in `cache` (None: the user's, `PolicyCache.of_user`).
    """
    cache = cache or PolicyCache.of_user()
    if spec is None:
        own = root / DEFAULT_FILE if root is not None else None
        if own is not None and own.is_file():
            top = _layer(str(own), Path.cwd(), cache, preset_ok=False)
        else:
            top = _layer("default", PRESET_DIR, cache)
    elif _is_bare_name(spec) and (PRESET_DIR / f"{spec}.yaml").is_file():
        top = _layer(spec, PRESET_DIR, cache)
    elif _is_bare_name(spec) and not (Path.cwd() / spec).is_file():
        top = _layer(spec, PRESET_DIR, cache)  # names the closest preset in its error
    else:
        top = _layer(spec, Path.cwd(), cache, preset_ok=False)
    chain = _chain(top, cache)
    return _build(chain, agent, _own_files(root, chain))


def _own_files(root: Path | None, chain: list[_Layer]) -> tuple[str, ...]:
    """`.agent-guard.yaml`, and each file of `chain` that lies in the work tree, relative to `root`.

    Even a policy given with `--policy` keeps `.agent-guard.yaml` out of agents' reach: the
    next command without the option reads it.  A preset is a file too, inside the tree when
    agent-guard runs on its own checkout.
    """
    own = [DEFAULT_FILE]
    if root is not None:
        real_root = Path(os.path.realpath(root))
        for layer in chain:
            file = PRESET_DIR / f"{layer.ident[len('preset:'):]}.yaml" if layer.ident.startswith("preset:") else Path(layer.ident)
            real = Path(os.path.realpath(file))
            if real.is_relative_to(real_root) and real != real_root:
                own.append(real.relative_to(real_root).as_posix())
    return tuple(dict.fromkeys(own))


def load_committed(text: str, label: str, agent: str | None = None, cache: PolicyCache | None = None) -> Policy:
    """The policy a committed .agent-guard.yaml (`text`, named `label`) sets, where there is no
    work tree to read it or the files it extends from (a bare repository): it may extend presets only."""
    cache = cache or PolicyCache.of_user()
    top = _checked(_Layer(label, label, DEFAULT_FILE, {}, None, PRESET_DIR), _parse_yaml(text, label, cache), root=False)
    if top.parent is not None and not _is_bare_name(top.parent):
        raise PolicyError(f"{label}: extends {top.parent!r}: only a preset can be extended here, with no work tree "
                          "to read a file from; give the policy with --policy FILE")
    return _build(_chain(top, cache), agent)


def validate_file(path: Path, cache: PolicyCache | None = None) -> list[str]:
    """Every problem with one policy file (and the chain it extends); [] when it is valid."""
    cache = cache or PolicyCache.of_user()
    label = str(path.resolve())
    try:
        data = _read_yaml(path.resolve(), label, cache)
    except PolicyError as e:
        return [str(e)]
    problems = [f"{label}: {key}: {what}" for key, what in _file_problems(data)]
    if problems:
        return problems
    try:
        _chain(_layer(str(path.resolve()), Path.cwd(), cache, preset_ok=False), cache)
    except PolicyError as e:
        # Each problem names its file: a file's label (an absolute path, or "preset NAME")
        # starts the problems found in it; the rest are about this file's `extends`.
        return [ln if ln.startswith(("/", "preset ")) else f"{label}: extends: {ln}" for ln in str(e).splitlines()]
    return []


def _scalar(value: object) -> str:
    import yaml

    # Dump inside a one-item flow list so a plain scalar gets no document-end marker.
    text = yaml.safe_dump([value], default_flow_style=True, width=1 << 30, allow_unicode=True).strip()
    return text[1:-1]


def show(policy: Policy) -> str:
    """The effective policy as YAML, each setting followed by `# from: <source>`."""
    who = f" for agent {policy.agent}" if policy.agent else ""
    lines = [f"# effective policy: {policy.name}{who}"]
    if policy.own_files:
        lines.append("# always protected, whatever paths.protected says: git's own folders (.git, a separate "
                     f"git dir, core.hooksPath) and the policy's files ({', '.join(policy.own_files)})")

    def emit(node: Mapping[str, object], path: tuple[str, ...]) -> None:
        indent = "  " * len(path)
        for key, value in node.items():
            sub = (*path, key)
            if isinstance(value, dict) and value:
                lines.append(f"{indent}{_scalar(key)}:")
                emit(value, sub)
            else:
                lines.append(f"{indent}{_scalar(key)}: {_scalar(value)}  # from: {policy.source(_dotted(sub))}")

    emit(policy.data, ())
    return "\n".join(lines) + "\n"
