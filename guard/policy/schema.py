"""What a policy file may say: its keys, and what each value must be (``SETTINGS``).

A schema node is a mapping of key -> node, or a validator returning what is wrong
with a value (None when it is fine).  ``file_problems`` checks one file's layer on its
own, so a message names the file the mistake is in; an unknown key gets a "did you
mean" (the same words in another order first, then the closest spelling).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Iterator, Mapping, Union

from ..text.regex import lazy

CHECK_NAMES = (
    "placeholder",
    "whitespace",
    "untracked",
    "not-utf8",
    "binary",
    "budget",
    "path-protected",
    "conflict-marker",
    "no-op",
    "syntax",
    "stale",
)
LEVELS = ("error", "warning", "off")
WHITESPACE_LEVELS = ("error", "warning", "fix", "off")
TIERS = ("offset", "recount", "trailing-whitespace", "indent", "unicode", "eol", "escape", "fuzz", "3way")
BUDGET_SCOPES = ("per_edit", "per_turn", "per_session")
BUDGET_KEYS = ("files", "lines_added", "lines_removed", "hunks", "bytes")
WHITESPACE_RULES = (
    "blank-at-eol",
    "space-before-tab",
    "indent-with-non-tab",
    "tab-in-indent",
    "blank-at-eof",
    "trailing-space",
    "cr-at-eol",
)


class PolicyError(Exception):
    """A policy that cannot be used: unreadable, not YAML, or not the schema (exit 2)."""


Validator = Callable[[object], Union[str, None]]
Node = Union[Validator, Mapping[str, "Node"]]


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else scalar(value)


def closest(word: str, choices: Iterable[str]) -> list[str]:
    """The choice spelled most like `word`, if any is close (for a hint after a mistake)."""
    import difflib  # here: only a mistake in a policy asks for it

    return difflib.get_close_matches(word, choices, n=1)


def _one_of(choices: tuple[str, ...]) -> Validator:
    def check(value: object) -> str | None:
        if (isinstance(value, str) and value in choices) or (value is False and "off" in choices):
            return None  # YAML 1.1 reads a bare `off` as false
        close = closest(str(value), choices)
        tip = f"; did you mean '{close[0]}'?" if close else ""
        return f"expected one of {', '.join(choices)}, got {_show(value)}{tip}"

    return check


def _limit(value: object) -> str | None:
    # null is allowed so a layer can lift a limit it inherited (mappings merge).
    from ..bounds import BUDGET

    if value is None or BUDGET.problem(value) is None and isinstance(value, int):
        return None
    shown = _show(value) if not isinstance(value, int) or abs(value) < 10**30 else f"a number of {len(str(value)):,} digits"
    return f"expected {BUDGET.range_text()} (or null for no limit), got {shown}"


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
            width = name[len("tabwidth=") :]
            if not width.isdigit() or not 1 <= int(width) <= 63:
                return f"tabwidth must be a number from 1 to 63, got {width!r}"
            continue
        bare = name[1:] if name.startswith("-") else name
        if bare not in WHITESPACE_RULES:
            close = closest(bare, WHITESPACE_RULES)
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


def _baseline(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return (
            f"expected the path of a baseline file inside the repository, such as .agent-guard-baseline.json, got {_show(value)}"
        )
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or ".." in parts or "\x00" in value or "\n" in value:
        return f"expected a path inside the repository, from its top (no leading /, no ..), got {_show(value)}"
    return None


# A `verify` entry: a command to run on an edit's result before it is written (guard/verify/), or the
# one word `pre-commit` (the repository's own hooks).  Its keys, and what each must be.
VERIFY_KEYS = ("name", "run", "pre-commit", "files", "timeout", "fix")
PRE_COMMIT = "pre-commit"
_VERIFY_EXAMPLE = "{name: lint, run: 'ruff check {files}', files: ['*.py']}"


def _verify_entry(item: object) -> str | None:
    """What is wrong with one `verify` entry, checked in this order: its shape, its keys
    (``_entry_keys``), the command (``_entry_command``), the options (``_entry_options``)."""
    if item == PRE_COMMIT:
        return None
    if isinstance(item, str):
        return (
            f"a command is a mapping such as {_VERIFY_EXAMPLE}; the one word an entry may be is "
            f"'{PRE_COMMIT}' (the repository's .pre-commit-config.yaml hooks), got {_show(item)}"
        )
    if not isinstance(item, dict):
        return f"expected a mapping such as {_VERIFY_EXAMPLE}, or '{PRE_COMMIT}', got {_show(item)}"
    return _entry_keys(item) or _entry_command(item) or _entry_options(item)


def _entry_keys(item: dict[Any, Any]) -> str | None:
    """The keys: only those of `VERIFY_KEYS` (a misspelt one named with the closest)."""
    for key in item:
        if key not in VERIFY_KEYS:
            close = closest(str(key), VERIFY_KEYS)
            tip = f"did you mean '{close[0]}'?" if close else f"valid keys: {', '.join(VERIFY_KEYS)}"
            return f"unknown key {_show(key)}; {tip}"
    return None


def _entry_command(item: dict[Any, Any]) -> str | None:
    """The command: `run` and a `name`, or `pre-commit: true` (its name is optional)."""
    hooks = item.get(PRE_COMMIT, False)
    if not isinstance(hooks, bool):
        return f"{PRE_COMMIT}: expected true or false, got {_show(hooks)}"
    run = item.get("run")
    if hooks and run is not None:
        return f"give either run (a command) or {PRE_COMMIT}: true (the repository's hooks), not both"
    if not hooks:
        if not isinstance(run, str) or not run.strip() or "\x00" in run:
            return f"run: expected the command to run, such as 'ruff check {{files}}', got {_show(run)}"
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            return f"name: expected a short name for the command (findings and stats name it), got {_show(name)}"
    name = item.get("name", PRE_COMMIT)
    if not isinstance(name, str) or not name.strip() or len(name) > 64 or not name.isprintable():
        return f"name: expected a short name of at most 64 printable characters, got {_show(name)}"
    return None


def _entry_options(item: dict[Any, Any]) -> str | None:
    """The options: `files` (globs), `timeout` (seconds), `fix` (true or false)."""
    if "files" in item:
        problem = _str_list(_glob)(item["files"])
        if problem:
            return f"files: {problem}"
    if "timeout" in item:
        from ..bounds import VERIFY_SECONDS

        problem = VERIFY_SECONDS.problem(item["timeout"])
        if problem:
            return f"timeout (seconds) {problem}"
    if "fix" in item and not isinstance(item["fix"], bool):
        return f"fix: expected true or false, got {_show(item['fix'])}"
    return None


def _verify(value: object) -> str | None:
    if not isinstance(value, list):
        return f"expected a list of commands such as [pre-commit, {_VERIFY_EXAMPLE}], got {_show(value)}"
    seen: set[str] = set()
    for i, item in enumerate(value):
        problem = _verify_entry(item)
        if problem:
            return f"item {i}: {problem}"
        name = PRE_COMMIT if item == PRE_COMMIT else str(item.get("name", PRE_COMMIT)) if isinstance(item, dict) else ""
        if name in seen:
            return f"item {i}: the name {name!r} is used twice; give each command its own name"
        seen.add(name)
    return None


_BUDGET: dict[str, Node] = {key: _limit for key in BUDGET_KEYS}
# The checks a policy may switch off for some paths (`exclude`): not those that guard the
# repository itself (a protected path, an edit made against an old version).
EXCLUDABLE = tuple(name for name in CHECK_NAMES if name not in ("path-protected", "stale"))

SETTINGS: dict[str, Node] = {
    "checks": {name: _one_of(WHITESPACE_LEVELS if name == "whitespace" else LEVELS) for name in CHECK_NAMES},
    "budget": {**{scope: _BUDGET for scope in BUDGET_SCOPES}, "max_file_bytes": _limit, "skip_generated": _bool},
    "exclude": {name: _str_list(_glob) for name in EXCLUDABLE},
    "baseline": _baseline,
    "paths": {
        "protected": _str_list(_glob),
        "protected_extra": _str_list(_glob),
        "allow": _str_list(_glob),
        "create": _bool,
        "control_editable": _str_list(_glob),
    },
    "locate": {"tiers": _str_list(_tier)},
    "ledger": {"ref_prefix": _ref_prefix},
    "placeholder": {"patterns": _str_list(_regex), "exempt": _str_list(_regex)},
    "whitespace": {"rules": _rules, "markdown_linebreak_ext": _str_list(_extension)},
    "shell": {"on_violation": _one_of(("warn", "revert"))},
    "read_before_edit": _bool,
    "read_protected": _bool,
    "verify": _verify,
    # Where verify commands run (guard/verify/sandbox.py): confined when a runner works (auto), only
    # confined (required), or as the user's own processes (off).
    "verify_sandbox": _one_of(("auto", "required", "off")),
}
# Lists that add up across layers instead of replacing: what a team's policy adds to
# the protected paths, a later layer (a user's file, an agent's overrides) cannot drop.
ADDITIVE = ("paths.protected_extra",)
# `agents` and `extends` only at the top of a file (an agent's overrides hold SETTINGS).
TOP_KEYS = ("extends", *SETTINGS, "agents")
_AGENT_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


def _words(key: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[_\-\s]+", key.lower()) if w)


# Keys left out of the schema on purpose, and why.
_NOT_HERE = {
    "exclude.path-protected": "a protected path cannot be excluded from protection; to let agents change it, take it "
    "out of paths.protected (or its control-file entry into paths.control_editable)",
    "exclude.stale": "the stale check cannot be excluded: it keeps an edit made against an old version of a file "
    "from overwriting the newer one",
}


def _dotted_keys(schema: Mapping[str, Node], path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for key, node in schema.items():
        yield (*path, key)
        if isinstance(node, Mapping):
            yield from _dotted_keys(node, (*path, key))


def _suggestion(key: str, path: tuple[str, ...], schema: Mapping[str, Node]) -> str:
    """What an unknown `key` at `path` most likely meant: a key of the same words here (`extra_protected`),
    then one of the same words at another level (`protected_extra` at the top is `paths.protected_extra`),
    then the closest spelling here, then anywhere."""
    here = [(*path, k) for k in schema]
    # An agent's overrides hold the settings themselves: look among them, under that agent.
    top = path[:2] if path[:1] == ("agents",) else ()
    anywhere = [k for k in _dotted_keys(SETTINGS, top) if k not in here]
    words = _words(key)
    same = [k for k in here + anywhere if _words(k[-1]) == words]
    found = same[0] if same else None
    if found is None:
        spelled = closest(key, [k[-1] for k in here])
        found = next((k for k in here if spelled and k[-1] == spelled[0]), None)
    if found is None:
        spelled = closest(key, [k[-1] for k in anywhere])
        found = next((k for k in anywhere if spelled and k[-1] == spelled[0]), None)
    if found is None:
        return f"valid keys here: {', '.join(schema)}"
    where = (
        ""
        if found[:-1] == path
        else (
            f" ({found[-1]} goes under {'.'.join(found[:-1])}:)" if found[:-1] else f" ({found[-1]} goes at the top of the file)"
        )
    )
    return f"did you mean '{'.'.join(found)}'?{where}"


def _problems(data: object, schema: Mapping[str, Node], path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(dotted key, what is wrong) for every mistake in `data` against `schema`."""
    where = ".".join(path)
    if not isinstance(data, dict):
        yield where or "(top level)", f"expected a mapping, got {_show(data)}"
        return
    for key, value in data.items():
        dotted = ".".join((*path, str(key)))
        node = schema.get(key) if isinstance(key, str) else None
        if node is None and dotted in _NOT_HERE:
            yield dotted, _NOT_HERE[dotted]
        elif node is None:
            yield dotted, f"unknown key; {_suggestion(str(key), path, schema)}"
        elif isinstance(node, Mapping):
            yield from _problems(value, node, (*path, key))
        else:
            problem = node(value)
            if problem:
                yield dotted, problem


def file_problems(data: object) -> list[tuple[str, str]]:
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


def scalar(value: object) -> str:
    import yaml

    # Dump inside a one-item flow list so a plain scalar gets no document-end marker.
    # Keys in the order they were written (a verify entry reads name first, as its author put it).
    text = yaml.safe_dump([value], default_flow_style=True, width=1 << 30, allow_unicode=True, sort_keys=False).strip()
    return text[1:-1]
