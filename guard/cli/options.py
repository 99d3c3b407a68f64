"""The options of `apply`, `check` and `hook claude-code`, declared once.

These three commands run on every edit, hook call or commit, so ``program`` reads their
arguments without click (``fast``).  Each option is written here once (its flags,
whether it takes a value, its default, its help), and both ways of reading derive from
that one declaration: ``commands.declared`` makes the click options (with the help,
the usage line and every message about a mistake), ``Command.read`` reads the plain
argument lists click would read the same way, and ``failure.json_wanted`` asks it
whether a failed command was asked for JSON.  An option added here is on both paths,
or on neither.

Importing this module must stay cheap (no click, no parser): what an option needs from a
heavier module (the renderers' names, a range, a default) is a ``Later``, looked up only
when the option is given.
"""

from __future__ import annotations

import os
import stat
from typing import Any, Sequence

# `apply --dialect`: "auto" and the names of ``dialects.DIALECTS``, spelled out here so that
# reading the arguments does not import the parsers (tests/cli/test_fast_reader.py).
DIALECT_CHOICES = (
    "auto",
    "unified",
    "codex",
    "search-replace",
    "json",
    "whole",
    "hashline",
    "hashline-json",
    "lazy",
    "structural",
)
ON_PASS = ("defer", "ask")  # `hook claude-code --on-pass`


class Later:
    """A value another module owns (`module`.`name`), imported only when an option needs it."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def get(self) -> Any:
        import importlib

        return getattr(importlib.import_module(self.module), self.name)


def resolved(value: object) -> Any:
    """`value`, or what it names when it is a ``Later``."""
    return value.get() if isinstance(value, Later) else value


class Option:
    """One option: the `key` its value is passed as, its `flags` (the first is its name in
    messages), `takes_value` (else a flag that sets `key` to `given`), its `default` and
    `help`.  A value may be held to `choices` or read as a number in `bound` (a
    ``guard.bounds.Bound``, whose range the help names where it says ``{range}``);
    `metavar` and `show_default` shape the help line."""

    __slots__ = ("key", "flags", "takes_value", "default", "help", "given", "choices", "bound", "metavar", "show_default")

    def __init__(
        self,
        key: str,
        flags: tuple[str, ...],
        takes_value: bool,
        default: object,
        help: str,
        *,
        given: object = True,
        choices: tuple[str, ...] | Later | None = None,
        bound: Later | None = None,
        metavar: str | None = None,
        show_default: bool = False,
    ) -> None:
        self.key, self.flags, self.takes_value, self.default, self.help = key, flags, takes_value, default, help
        self.given, self.choices, self.bound, self.metavar = given, choices, bound, metavar
        self.show_default = show_default

    def value(self, text: str) -> tuple[bool, object]:
        """(True, what `text` means for this option), or (False, None) when click must say what is wrong with it."""
        choices = resolved(self.choices)
        if choices is not None and text not in choices:
            return False, None
        if self.bound is not None:
            try:
                return True, self.bound.get().read(text)
            except ValueError:
                return False, None
        return True, text


class Positional:
    """A command's positional words: passed as `key`, one (or None) or `many` (a tuple).
    `files_only`: each names a file to read ("-": standard input), never a folder."""

    __slots__ = ("key", "many", "files_only")

    def __init__(self, key: str, many: bool = False, files_only: bool = False) -> None:
        self.key, self.many, self.files_only = key, many, files_only


class Command:
    """A command's declaration: its `options`, in the order its help lists them, and its
    positional words (None: it takes none)."""

    __slots__ = ("options", "positional", "_by_flag")

    def __init__(self, options: tuple[Option, ...], positional: Positional | None = None) -> None:
        self.options, self.positional = options, positional
        self._by_flag = {flag: option for option in options for flag in option.flags}

    def option(self, flag: str) -> Option | None:
        """The option `flag` spells, or None."""
        return self._by_flag.get(flag)

    def defaults(self) -> dict[str, Any]:
        """Every key as click passes it when no argument is given."""
        out: dict[str, Any] = {}
        for option in self.options:
            if option.key not in out or option.default is not None:
                out[option.key] = resolved(option.default)
        if self.positional is not None:
            out[self.positional.key] = () if self.positional.many else None
        return out

    def read(self, args: Sequence[str]) -> dict[str, Any] | None:
        """`args` as click reads them for this command, or None when click must read them.

        Plain words only: ``--name VALUE``, ``--name=VALUE``, flags, positional words, ``--``.
        Anything else (help, an unknown option, an option given twice, a value that looks
        like an option or that click would refuse, a FILE that cannot be read as one) is
        click's, which owns every message about a mistake in the arguments.
        """
        out = self.defaults()
        words: list[str] = []
        seen: set[str] = set()
        only_words = False
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if only_words or arg == "-" or not arg.startswith("-"):
                words.append(arg)
                continue
            if arg == "--":
                only_words = True
                continue
            name, eq, text = arg.partition("=")
            option = self._by_flag.get(name)
            if option is None or option.key in seen:
                return None  # unknown (help too), or given twice: click's to say
            if not option.takes_value:
                if eq:
                    return None
                out[option.key] = option.given
            else:
                if not eq:
                    if i >= len(args) or args[i].startswith("-"):
                        return None  # a missing value, or one that looks like an option
                    text = args[i]
                    i += 1
                ok, value = option.value(text)
                if not ok:
                    return None
                out[option.key] = value
            seen.add(option.key)
        return self._positional(words, out)

    def _positional(self, words: list[str], out: dict[str, Any]) -> dict[str, Any] | None:
        spec = self.positional
        if spec is None:
            return out if not words else None
        if spec.many:
            out[spec.key] = tuple(words)
            return out
        if len(words) > 1:
            return None
        word = words[0] if words else None
        out[spec.key] = word
        if spec.files_only and word is not None and word != "-":
            try:
                st = os.stat(word)
            except OSError:
                return out  # not there: reading it fails, and that is click's to say (``program``)
            if stat.S_ISDIR(st.st_mode) or not os.access(word, os.R_OK):
                return None  # click's FILE type refuses these itself
        return out

    def json_wanted(self, args: Sequence[str]) -> bool:
        """`args` ask for JSON output (an option of key `as_json`, or `renderer` given json), read
        as click reads them (an option's value is the next word, whatever it looks like) but
        leniently: they may be what click refused (a repeated --json still asks for JSON)."""
        i = 0
        while i < len(args) and args[i] != "--":
            name, eq, text = args[i].partition("=")
            i += 1
            option = self._by_flag.get(name)
            if option is None:
                continue
            if not option.takes_value:
                if option.key == "as_json" and not eq:
                    return True
                continue
            if not eq:
                text = args[i] if i < len(args) else ""
                i += 1
            if option.key == "renderer" and text == "json":
                return True
        return False


# Shared by the three commands.
_POLICY = Option("policy", ("--policy",), True, None, "Preset name or policy file (default: .agent-guard.yaml, else 'default').")

APPLY = Command(
    (
        Option(
            "dialect",
            ("--format", "--dialect"),
            True,
            "auto",
            "The edit's dialect (--dialect is the same option); auto detects it.",
            choices=DIALECT_CHOICES,
            show_default=True,
        ),
        Option("agent", ("--agent",), True, None, "Agent name (default: $AGENT_GUARD_AGENT, else 'agent')."),
        Option("turn", ("--turn",), True, None, "Turn id; applies with the same id form one turn (default: a new turn)."),
        _POLICY,
        Option("target", ("--path",), True, None, "With --format whole: the file the input replaces."),
        Option("check", ("--check",), False, False, "Decide and report; change nothing (no file, no ref)."),
        Option("as_json", ("--json",), False, False, "Print one JSON object instead of the report."),
        Option("show_diff", ("--diff",), False, False, "Also print the diff that was (or would be) written."),
        Option("quiet", ("-q", "--quiet"), False, False, "Print nothing unless the edit is refused."),
    ),
    Positional("file", files_only=True),
)

CHECK = Command(
    (
        Option(
            "mode", ("--staged",), False, None, "Check the staged change: HEAD against the index (the default).", given="staged"
        ),
        Option(
            "mode",
            ("--all-files",),
            False,
            None,
            "Check every tracked file whole, as staged (to adopt agent-guard on an existing repository).",
            given="all-files",
        ),
        Option(
            "from_ref",
            ("--from-ref",),
            True,
            None,
            "With --to-ref: check each commit of FROM..TO on its own, a merge "
            "on what it adds to git's merge of its parents (default: $PRE_COMMIT_FROM_REF; git's null id: every "
            "commit TO reaches).",
            metavar="REF",
        ),
        Option("to_ref", ("--to-ref",), True, None, "The end of the range (default: $PRE_COMMIT_TO_REF).", metavar="REF"),
        Option(
            "policy",
            ("--policy",),
            True,
            None,
            "Preset name or policy file (default: .agent-guard.yaml, else 'default'; for a range, the one committed at FROM).",
        ),
        Option(
            "renderer",
            ("--output-format", "--format"),
            True,
            None,
            "How to print the report: human (default), "
            "json, github (workflow annotations) or sarif (for code scanning).  --format is the older name.",
            choices=Later("guard.report.render", "RENDERERS"),
        ),
        Option("as_json", ("--json",), False, False, "Same as --output-format json."),
        Option("quiet", ("-q", "--quiet"), False, False, "Print the findings only: no summary, nothing when there are none."),
        Option(
            "baseline_out",
            ("--write-baseline",),
            True,
            None,
            "With --all-files: write today's findings to FILE "
            "(name it in the policy as baseline: FILE), so that later checks report only new ones; exits 0.",
            metavar="FILE",
        ),
    ),
    Positional("paths", many=True),
)

CLAUDE_CODE = Command(
    (
        Option("agent", ("--agent",), True, None, "Agent name (default: $AGENT_GUARD_AGENT, else 'claude')."),
        Option("turn", ("--turn",), True, None, "Turn id (default: one turn per user prompt, else one per tool call)."),
        _POLICY,
        Option(
            "on_pass",
            ("--on-pass",),
            True,
            "defer",
            "For an edit that passes: defer (no decision: Claude Code's "
            "permission rules apply) or ask (prompt the user every time). The hook never allows.",
            choices=ON_PASS,
            metavar="[defer|ask]",
            show_default=True,
        ),
        Option(
            "deadline",
            ("--deadline",),
            True,
            Later("guard.adapters.claude_code", "DEADLINE"),
            "Deny when the pre "
            "hook has not answered by then; keep it under the hook's timeout in Claude Code's settings (30 s in our "
            "snippet); {range}.",
            bound=Later("guard.bounds", "DEADLINE_SECONDS"),
            metavar="SECONDS",
            show_default=True,
        ),
    )
)

# The commands read without click, by the words that name them: the one place those words are
# written (``program.FAST`` runs each by them, ``failure`` finds its options by them).
COMMANDS: dict[tuple[str, ...], Command] = {("apply",): APPLY, ("check",): CHECK, ("hook", "claude-code"): CLAUDE_CODE}
