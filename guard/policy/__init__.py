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
setting they enforce.  What a file may say is ``schema``'s.  A preset whose file is
the one shipped is read from ``presets_read`` (generated from it), without PyYAML.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ..fs.kept import ByStamps, ByValue, Stamps, by_value
from ..mappings import lookup
from .effective import Policy
from .presets_read import PRESETS
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
from .yamltext import parse_yaml

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
    text: str | None = None  # the file's text, when it was read from one (what ``_build``'s memo is keyed by)


def presets() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in PRESET_DIR.glob("*.yaml")))


def _is_bare_name(spec: str) -> bool:
    return "/" not in spec and "\\" not in spec and not spec.endswith((".yaml", ".yml"))


def _read_text(path: Path, label: str) -> str:
    from ..fs.filekind import NotRegular, read_regular

    try:
        # Never a plain open: a named pipe would hold it (and every command) until something wrote
        # to it.  Line ends stay as written: YAML reads CR LF and CR as line breaks itself.
        text = read_regular(path).decode("utf-8")
    except NotRegular as e:
        raise PolicyError(
            f"cannot read policy {label}: it is {e.what}, not a regular file; write the policy to a regular file"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PolicyError(f"cannot read policy {label}: {reason}") from None
    return text


def _read_yaml(path: Path, label: str) -> object:
    return parse_yaml(_read_text(path, label), label)


def _layer(spec: str, base_dir: Path, preset_ok: bool = True) -> _Layer:
    if preset_ok and _is_bare_name(spec):
        path = PRESET_DIR / f"{spec}.yaml"
        label = f"preset {spec}"
        try:
            text = _read_text(path, label)
        except PolicyError:
            if path.is_file():
                raise
            close = closest(spec, presets())
            tip = f"; did you mean '{close[0]}'?" if close else f" (presets: {', '.join(presets())})"
            raise PolicyError(f"no policy preset named '{spec}'{tip}; a file needs a path such as ./{spec}.yaml") from None
        body, parent = _preset_settings(spec, text, label)
        return _Layer(f"preset:{spec}", label, spec, body, parent, PRESET_DIR, text)
    path = (base_dir / spec).resolve()
    try:
        text = _read_text(path, str(path))
    except PolicyError:
        if path.exists():
            raise
        raise PolicyError(f"policy file {base_dir / spec} does not exist") from None
    body, parent = _settings(text, str(path), False)
    return _Layer(str(path), str(path), path.name, body, parent, path.parent, text)


def _preset_settings(name: str, text: str, label: str) -> tuple[dict[str, object], str | None]:
    """What preset `name`'s file, read as `text`, sets: its generated settings (``presets_read``)
    when `text` is the shipped file's, else ``_settings``' parse (a preset edited in a checkout)."""
    shipped = PRESETS.get(name)
    if shipped is not None and shipped[0] == text:
        return shipped[1], shipped[2]
    return _settings(text, label, True)


@by_value(64)
def _settings(text: str, label: str, root: bool) -> tuple[dict[str, object], str | None]:
    """What a policy file's text sets, validated, and the layer it extends (``_checked``).

    Every call reads its policy files again; only the parse of a text already parsed under the
    same label is reused: a function of its arguments alone, which no change can make stale
    (``tests/test_policy.py`` holds it to a fresh parse).  The settings are shared: nothing
    changes a layer's data (``_build`` copies what it takes)."""
    layer = _checked(_Layer("", label, "", {}, None, Path(".")), parse_yaml(text, label), root)
    return layer.data, layer.parent


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


def _chain(top: _Layer, parent_of: Callable[[_Layer], _Layer] | None = None) -> list[_Layer]:
    """The layers from the root preset to `top` (`parent_of` reads the layer a layer extends;
    by default from the file system)."""
    chain = [top]
    while chain[-1].parent is not None:
        layer = chain[-1]
        assert layer.parent is not None
        parent = parent_of(layer) if parent_of is not None else _layer(layer.parent, layer.base_dir)
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
    # Copies: a layer's data is shared by every policy built from its text (``_settings``), and
    # what is merged into this one must never reach it.
    node[path[-1]] = {} if isinstance(value, dict) else list(value) if isinstance(value, list) else value


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


_BUILT: ByValue[tuple[object, ...], Policy] = ByValue(32)


def _build(chain: list[_Layer], agent: str | None, own_files: tuple[str, ...] = (), ignorecase: bool = False) -> Policy:
    """The policy `chain` makes for `agent`: ``_merged``, reused for the same texts.

    A function of the layers' texts and names alone (a layer not read from a text, a pyproject
    table, is merged each time): like ``_settings``, it cannot go stale, since every call reads
    the files again and a changed text is another key."""
    if any(layer.text is None for layer in chain):
        return _merged(chain, agent, own_files, ignorecase)
    key = (tuple((x.ident, x.label, x.short, x.parent, x.base_dir, x.text) for x in chain), agent, own_files, ignorecase)
    found = _BUILT.get(key)
    if found is None:
        found = _merged(chain, agent, own_files, ignorecase)
        _BUILT.keep(key, found)
    return found


def _merged(chain: list[_Layer], agent: str | None, own_files: tuple[str, ...], ignorecase: bool) -> Policy:
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
    ignorecase: bool = False,
) -> Policy:
    """The effective policy: `spec` (preset name or path), else the repo's file (``.agent-guard.yaml``,
    else the ``[tool.agent-guard]`` table of its pyproject.toml), else `default`.

    `ignorecase`: git's `core.ignorecase` for the repository at `root` (``Policy.ignorecase``).

    Every call reads the files again, unless a fresh look at each file the answer was read from
    finds its stamp unchanged (``fs.kept``): a file named by `extends:` edited between two calls
    is read by the second (``tests/test_policy_fresh.py``).
    """
    key = (os.getcwd(), None if root is None else os.path.realpath(root), spec, agent, ignorecase, str(PRESET_DIR))
    kept = _LOADED.get(key)
    if kept is not None:
        return kept
    pol, chain = _load(root, spec, agent, ignorecase)
    _LOADED.keep(key, Stamps.now(_read_from(root, spec, chain)), pol)
    return pol


_LOADED: ByStamps[Policy] = ByStamps(16)  # the owner of the policies kept between calls (``load``)


def _read_from(root: Path | None, spec: str | None, chain: list[_Layer]) -> list[str]:
    """Every path whose file, or whose absence, `load` read for `chain`, as it was spelled: each
    is followed through its links again when looked at, so a link pointed elsewhere is a change."""
    files: list[str] = []
    if root is not None:
        files += [str(root / DEFAULT_FILE), str(root / "pyproject.toml")]
    if spec is not None:
        files.append(os.path.join(os.getcwd(), spec))  # a bare name is a file of the folder, if there is one
        if _is_bare_name(spec):
            files.append(os.path.join(PRESET_DIR, f"{spec}.yaml"))
    for layer in chain:
        if layer.ident.startswith("preset:"):
            files.append(os.path.join(PRESET_DIR, f"{layer.short}.yaml"))
        elif not layer.ident.startswith("pyproject:"):
            files.append(layer.ident)
        if layer.parent is not None:  # a bare name in `extends:` is a preset's (``_layer``)
            bare = _is_bare_name(layer.parent)
            files.append(os.path.join(PRESET_DIR, f"{layer.parent}.yaml") if bare else str(layer.base_dir / layer.parent))
    return files


def _load(root: Path | None, spec: str | None, agent: str | None, ignorecase: bool) -> tuple[Policy, list[_Layer]]:
    if spec is None:
        own = root / DEFAULT_FILE if root is not None else None
        if own is not None and os.path.lexists(own):  # a pipe or a broken link there is an error, not "none"
            top = _layer(str(own), Path.cwd(), preset_ok=False)
        else:
            top = (_in_pyproject(root) if root is not None else None) or _layer("default", PRESET_DIR)
    elif _is_bare_name(spec) and (PRESET_DIR / f"{spec}.yaml").is_file():
        top = _layer(spec, PRESET_DIR)
    elif _is_bare_name(spec) and not (Path.cwd() / spec).is_file():
        top = _layer(spec, PRESET_DIR)  # names the closest preset in its error
    else:
        top = _layer(spec, Path.cwd(), preset_ok=False)
    chain = _chain(top)
    pol = _build(chain, agent, _own_files(root, chain), ignorecase)
    return _with_baseline(pol), chain


def _in_pyproject(root: Path) -> _Layer | None:
    """The layer the ``[tool.agent-guard]`` table of `root`'s pyproject.toml sets, if it has one (``pyproject``)."""
    from ..fs.filekind import NotRegular, read_regular
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
        top = os.path.join(os.path.realpath(root), "")
        for layer in chain:
            if layer.ident.startswith("pyproject:"):
                continue  # its table is guarded, not the whole file (``pyproject``)
            if layer.ident.startswith("preset:"):
                # PRESET_DIR is resolved: only a preset file that is itself a link leads elsewhere.
                file = os.path.join(PRESET_DIR, f"{layer.ident[len('preset:') :]}.yaml")
                real = os.path.realpath(file) if os.path.islink(file) else file
            else:
                real = layer.ident  # read from its resolved path (``_layer``)
            if real.startswith(top):
                own.append(real[len(top) :].replace(os.sep, "/"))
    return tuple(dict.fromkeys(own))


def load_committed(
    text: str,
    label: str,
    agent: str | None = None,
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
    top = _checked(
        _Layer(f"commit:{DEFAULT_FILE}", label, DEFAULT_FILE, {}, None, Path(".")), parse_yaml(text, label), root=False
    )
    return _committed(top, agent, read, at, ignorecase)


def load_committed_table(
    data: bytes,
    label: str,
    agent: str | None = None,
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
    return _committed(top, agent, read, at, ignorecase)


def _committed(
    top: _Layer,
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
            return _layer(spec, PRESET_DIR)
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
            parse_yaml(found, where),
            root=False,
        )

    chain = _chain(top, parent_of)
    return _with_baseline(_build(chain, agent, tuple(dict.fromkeys(read_from)), ignorecase))


def validate_file(path: Path) -> list[str]:
    """Every problem with one policy file (and the chain it extends); [] when it is valid."""
    label = str(path.resolve())
    try:
        data = _read_yaml(path.resolve(), label)
    except PolicyError as e:
        return [str(e)]
    problems = [f"{label}: {key}: {what}" for key, what in file_problems(data)]
    if problems:
        return problems
    try:
        _chain(_layer(str(path.resolve()), Path.cwd(), preset_ok=False))
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
