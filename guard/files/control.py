"""Control files: what git, pre-commit and hook managers read as instructions, not as content.

An agent that writes one of these runs code on the user's machine later, or changes
what the checks see, without any check noticing in the edit itself:

- **a git directory inside the tree**: a folder that holds `HEAD`, `objects/` and
  `refs/` is a repository to git's discovery (``git rev-parse --git-dir`` from any
  folder below it finds it), and its `config` may name commands (`core.fsmonitor`)
  that `git status` run there executes.  Judged by that rule on the tree as the edit
  leaves it (``nested_findings``), whatever the folder is called, bare ones included;
- **files the repository's git configuration names** (``named_paths``): include
  targets, `core.attributesFile`, `core.excludesFile`, and every path inside the tree
  named by a command git runs (filters, diff and merge drivers, textconv,
  `core.fsmonitor`, `core.sshCommand`, editors, pagers, credential helpers, aliases);
- **fixed names** (``fixed_kind``): `.gitattributes` at any depth (it can switch the
  whitespace and conflict-marker checks off, mark files binary, attach filters),
  `.gitmodules`, pre-commit's `.pre-commit-config.yaml` and `.pre-commit-hooks.yaml`,
  and the configuration of other hook managers (lefthook, husky, overcommit);
- **agent harnesses' and editors' settings** (``harness_kind``), at any depth, since a
  harness or editor started in a sub-folder reads them there: the files Claude Code,
  Codex, Gemini CLI, Cursor, Copilot, OpenCode, Aider, Continue, Windsurf, Cline, Roo,
  Kiro, Zed, VS Code and dev containers read their hooks, permissions, MCP servers,
  tasks and commands from, and direnv's and mise's files, which run when a shell
  enters the folder.  Writing one switches the guard off in the next session
  (`"disableAllHooks": true`), or runs a command when the folder is opened.

Each is refused as `path-protected` in every preset, whatever `checks.path-protected`
says, as the policy's own files are.  A user who wants agents to edit one lists it
(a glob) under `paths.control_editable`; the message names that entry.  Reading them
is allowed: they are instructions, not secrets.  This module looks at the filesystem
(``lstat``) and at configuration entries handed to it, never at git itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from ..model import FileChange, Finding
from ..repo import EXEC
from ..text.globs import matches
from ..text.regex import lazy
from .paths import AT_COMMIT, fold_name

if TYPE_CHECKING:
    from ..policy import Policy
    from ..repo.config import ConfigEntry

SETTING = "paths.control_editable"

_ATTRIBUTES = (
    "git's attributes file: it sets how git and agent-guard's checks read files (whitespace rules, "
    "conflict-marker size, binary, and the filters and drivers git runs)"
)
_PRE_COMMIT = "pre-commit's configuration: pre-commit runs the commands its `entry:` lines name on every commit"
_HOOKS_OFFERED = "the hooks this repository offers to pre-commit: their `entry:` commands run in every repository that uses them"
_LEFTHOOK = "lefthook's configuration: its git hooks run the commands it names"
_HOOK_SCRIPTS = "a hook manager's script: git runs it on commits or pushes"

# Names (folded: lowercase, ignorable characters removed) that control something wherever they are.
_ANY_DEPTH = {
    ".gitattributes": _ATTRIBUTES,
    ".pre-commit-config.yaml": _PRE_COMMIT,
    ".pre-commit-config.yml": _PRE_COMMIT,
    ".pre-commit-hooks.yaml": _HOOKS_OFFERED,
    ".pre-commit-hooks.yml": _HOOKS_OFFERED,
}
# Names that control something at the top of the tree.
_AT_TOP = {
    ".gitmodules": "git's submodule list: it names the repositories git fetches and the commands `submodule.<name>.update` runs",
    ".overcommit.yml": "overcommit's configuration: its git hooks run the commands it names",
    ".overcommit.yaml": "overcommit's configuration: its git hooks run the commands it names",
}
_LEFTHOOK_NAME = lazy(r"\.?lefthook(?:-local)?\.(?:ya?ml|json|jsonc|toml)")
# Folders whose files a hook manager runs as hooks (husky: `.husky/pre-commit`).
_HOOK_FOLDERS = (".husky",)

# Agent harnesses and editors: what each reads its hooks, permissions, MCP servers, tasks or
# commands from.  Folders (folded names) whose every file counts, at any depth:
_HARNESS_FOLDERS = {
    ".claude": "Claude Code's project settings: its hooks (agent-guard's own among them), permissions, "
    "environment, MCP servers, and the commands, agents and skills it runs",
    ".codex": "Codex's project configuration: its hooks, sandbox and approval settings, MCP servers and prompts",
    ".gemini": "Gemini CLI's project settings: its hooks, tools, MCP servers and commands",
    ".cursor": "Cursor's project settings: its hooks, MCP servers and rules",
    ".copilot": "GitHub Copilot CLI's settings: its hooks (agent-guard's own among them), MCP servers and permissions",
    ".opencode": "OpenCode's project folder: its plugins (programs it loads), commands, agents and tools",
    ".continue": "Continue's project configuration: its MCP servers and commands",
    ".windsurf": "Windsurf's project settings: its hooks, workflows and rules",
    ".clinerules": "Cline's project rules and hooks",
    ".roo": "Roo Code's project settings: its MCP servers, modes and rules",
    ".kiro": "Kiro's project settings: its hooks, steering and MCP servers",
    ".amazonq": "Amazon Q's project settings: its MCP servers and rules",
    ".zed": "Zed's project settings: its tasks, language servers and context servers",
    ".vscode": "VS Code's workspace settings: its tasks (`runOn: folderOpen` runs one when the folder "
    "is opened), launch configurations, MCP servers and settings that name programs",
    ".devcontainer": "a dev container definition: its `postCreateCommand` and other lifecycle commands "
    "run when the container is built or started",
}
# Names (folded) that are a harness's settings wherever they are.
_HARNESS_FILES = {
    ".mcp.json": "an MCP server list (Claude Code and others start the commands it names)",
    "opencode.json": "OpenCode's configuration: its MCP servers, permissions, commands and plugins",
    "opencode.jsonc": "OpenCode's configuration: its MCP servers, permissions, commands and plugins",
    ".aider.conf.yml": "Aider's configuration: its `lint-cmd` and `test-cmd` run commands",
    ".aider.conf.yaml": "Aider's configuration: its `lint-cmd` and `test-cmd` run commands",
    ".devcontainer.json": "a dev container definition: its `postCreateCommand` and other lifecycle "
    "commands run when the container is built or started",
    ".envrc": "direnv's script: a shell runs it on entering the folder",
    "mise.toml": "mise's configuration: its tasks and `[hooks]` run commands (`enter` on entering the folder)",
    ".mise.toml": "mise's configuration: its tasks and `[hooks]` run commands (`enter` on entering the folder)",
    "mise.local.toml": "mise's configuration: its tasks and `[hooks]` run commands (`enter` on entering the folder)",
    ".mise.local.toml": "mise's configuration: its tasks and `[hooks]` run commands (`enter` on entering the folder)",
}
_WORKSPACE = "a VS Code workspace file: its tasks, launch configurations and settings, as `.vscode/` holds them"
_COPILOT_HOOKS = "GitHub Copilot's hooks: the coding agent runs the commands they name"
_COPILOT_SETTINGS = "GitHub Copilot CLI's repository settings: their hooks run commands, and can switch every hook off"

# git configuration keys (section.name, or section.*.name for any subsection) whose value
# is a file or folder git reads instructions from.
_PATH_KEYS = {
    "core.attributesfile": "the attributes file (core.attributesFile)",
    "core.excludesfile": "the excludes file (core.excludesFile)",
    "core.hookspath": "the hooks folder (core.hooksPath)",
    "init.templatedir": "the template folder git copies hooks from (init.templateDir)",
    "gpg.ssh.allowedsignersfile": "the allowed-signers file (gpg.ssh.allowedSignersFile)",
}
# Keys whose value is a command git (or a git command the user runs) executes: a path
# inside the tree that the command names is a script git runs.
_COMMAND_KEYS = frozenset(
    {
        "core.fsmonitor",
        "core.alternaterefscommand",
        "core.sshcommand",
        "core.editor",
        "core.pager",
        "core.askpass",
        "core.gitproxy",
        "sequence.editor",
        "diff.external",
        "gpg.program",
        "gpg.ssh.defaultkeycommand",
        "instaweb.httpd",
        "credential.helper",
        "interactive.difffilter",
        "uploadpack.packobjectshook",
        "sendemail.smtpserver",
        "sendemail.sendmailcmd",
        "sendemail.tocmd",
        "sendemail.cccmd",
        "sendemail.headercmd",
        "imap.tunnel",
        "web.browser",
        "diff.*.command",
        "diff.*.textconv",
        "merge.*.driver",
        "filter.*.clean",
        "filter.*.smudge",
        "filter.*.process",
        "credential.*.helper",
        "gpg.*.program",
        "pager.*",
        "alias.*",
        "difftool.*.cmd",
        "difftool.*.path",
        "mergetool.*.cmd",
        "mergetool.*.path",
        "man.*.cmd",
        "man.*.path",
        "browser.*.cmd",
        "browser.*.path",
        "remote.*.uploadpack",
        "remote.*.receivepack",
        "submodule.*.update",
        "trailer.*.command",
        "trailer.*.cmd",
        "sendemail.*.smtpserver",
        "sendemail.*.sendmailcmd",
        "sendemail.*.tocmd",
        "sendemail.*.cccmd",
        "sendemail.*.headercmd",
        "guitool.*.cmd",
    }
)
# Characters that end a word of a shell command (`a;b`, `a|b`, `$(a)`).
_SHELL_BREAK = lazy(r"[;&|()<>`$]+")


def _fold(name: str) -> str:
    return fold_name(name).casefold()


def fixed_kind(path: str) -> str | None:
    """What the control file at `path` is, by its name alone; None when it is none."""
    names = [_fold(p) for p in path.split("/") if p]
    if not names:
        return None
    last = names[-1]
    if last in _ANY_DEPTH:
        return _ANY_DEPTH[last]
    if len(names) == 1 and last in _AT_TOP:
        return _AT_TOP[last]
    if (len(names) == 1 or (len(names) == 2 and names[0] == ".config")) and _LEFTHOOK_NAME().fullmatch(last):
        return _LEFTHOOK
    if len(names) > 1 and names[0] in _HOOK_FOLDERS:
        return _HOOK_SCRIPTS
    return harness_kind(names)


# Outside every repository: the user's own settings that switch agent-guard off or change what git runs.
_GIT_CONFIG = "your git configuration: it names the commands git runs (hooks path, filters, pager...)"
_USER_FILES = {".claude.json": "Claude Code's user state: its MCP servers and project settings", ".gitconfig": _GIT_CONFIG}
_USER_GIT = ("config", "attributes", "ignore")  # ~/.config/git/*


def user_kind(path: str) -> str | None:
    """What the file at the absolute `path`, outside every repository, is when it is an agent
    harness's or git's own settings (``harness_kind``; `~/.claude.json`, `~/.gitconfig`,
    `~/.config/git/config`...); None for any other file."""
    names = [_fold(p) for p in path.split("/") if p]
    if not names:
        return None
    if names[-1] in _USER_FILES:
        return _USER_FILES[names[-1]]
    if len(names) >= 3 and names[-3:-1] == [".config", "git"] and names[-1] in _USER_GIT:
        return _GIT_CONFIG
    if len(names) >= 2 and names[-2] == "opencode" and names[-1] in ("opencode.json", "opencode.jsonc", "config.json"):
        return _HARNESS_FILES["opencode.json"]
    return harness_kind(names)


def harness_kind(names: Sequence[str]) -> str | None:
    """What the settings file at the folded path `names` are, when an agent harness or an editor
    reads hooks, permissions, servers, tasks or commands from it; None when it is none."""
    last = names[-1]
    if last in _HARNESS_FILES:
        return _HARNESS_FILES[last]
    if last.endswith(".code-workspace"):
        return _WORKSPACE
    for i, name in enumerate(names[:-1]):
        if name in _HARNESS_FOLDERS:
            return _HARNESS_FOLDERS[name]
        if name == ".github" and names[i + 1] == "hooks" and i + 2 < len(names):
            return _COPILOT_HOOKS
        if name == ".github" and names[i + 1] == "copilot" and i + 2 < len(names):
            return _COPILOT_SETTINGS
    return None


# --- paths the git configuration names ------------------------------------------------
def _key_pattern(key: str) -> str:
    """`filter.lfs.clean` -> `filter.*.clean`, `alias.lint` -> `alias.*`: the shapes the tables above use."""
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return f"{section}.*.{name}" if dot and sub else f"{section}.*"


def _command_words(command: str) -> Iterator[tuple[int, str]]:
    """The words of a shell command, with their place (0: the program), shell syntax split away."""
    import shlex

    text = command[1:] if command.startswith("!") else command  # an alias that runs a shell command
    try:
        words = shlex.split(text, comments=True, posix=True)
    except ValueError:
        words = text.split()
    place = 0
    for word in words:
        for piece in _SHELL_BREAK().split(word):
            if not piece:
                place = 0  # after `;` or `|` comes another program
                continue
            if any(c.isspace() for c in piece):  # `sh -c 'tools/x.sh arg'`: a command inside a word
                yield from _command_words(piece)
                continue
            yield place, piece
            place += 1


def _module_files(module: str) -> Iterator[str]:
    """The files `python -m module` runs from the top of the tree (git runs its commands there, and
    Python puts that folder first on its path): the module, or the package's `__main__`, and the
    `__init__.py` of every package on the way (``pkg.tools.conv`` -> ``pkg/__init__.py``,
    ``pkg/tools/__init__.py``, ``pkg/tools/conv.py``, ``pkg/tools/conv/__main__.py``...)."""
    names = [n for n in module.split(".") if n]
    if not names or not all(n.isidentifier() for n in names):
        return
    for i in range(1, len(names)):
        yield "/".join(names[:i]) + "/__init__.py"
    where = "/".join(names)
    yield where + ".py"
    yield where + "/__init__.py"
    yield where + "/__main__.py"


def _command_paths(command: str, root: Path) -> Iterator[str]:
    """The words of `command` that name a path: with a `/`, from `~`, an argument that names
    a file of the tree's top folder or looks like one (`python clean.py`), and the files of a
    module run with `-m` (``_module_files``)."""
    module_next = False
    for place, word in _command_words(command):
        if module_next and place > 0:
            module_next = False
            yield from _module_files(word)
            continue
        if place > 0 and word.startswith("-m") and not word.startswith("--"):
            if word == "-m":
                module_next = True
            else:
                yield from _module_files(word[2:])
            continue
        module_next = False
        for piece in (word, *word.split("=")[1:]):  # `--config=tools/x.cfg`
            if not piece or piece.startswith("-") or "%" in piece and "/" not in piece:
                continue
            if "/" in piece or piece.startswith("~"):
                yield piece
            elif place > 0 and ("." in piece.strip(".") or os.path.lexists(root / piece)):
                yield piece


def _inside(tops: Sequence[str], value: str, base: str) -> str | None:
    """`value` (a path as git reads it, relative to `base`) as a path relative to the root, if
    inside it; `tops`: the root's spellings (as given, and with links resolved)."""
    full = os.path.normpath(os.path.join(base, os.path.expanduser(value)))
    for candidate in dict.fromkeys((full, os.path.realpath(full))):
        for top in tops:
            if candidate.startswith(top + "/"):
                return candidate[len(top) + 1 :]
    return None


def named_paths(entries: Iterable[ConfigEntry], root: Path) -> dict[str, str]:
    """Every path inside the tree the configuration names, relative to `root`, with what names it.

    A folder named covers everything in it.  Paths inside git's own folders are left to
    ``paths.git_folder_finding``.
    """
    from ..repo.config import include_target, is_include

    found: dict[str, str] = {}
    base = str(root)
    tops = tuple(dict.fromkeys(t.rstrip("/") for t in (base, os.path.realpath(root))))

    def add(rel: str | None, what: str) -> None:
        if rel and not any(_fold(p) in (".git", "git~1") for p in rel.split("/")):
            found.setdefault(rel.rstrip("/"), what)

    for entry in entries:
        origin = f" ({entry.origin})" if entry.origin else " (git -c)"
        if is_include(entry.key):
            target = include_target(entry, root)
            if target is not None:
                add(_inside(tops, target, base), f"a git configuration file, included by {entry.key}{origin}")
            continue
        if entry.value is None:
            continue
        pattern = _key_pattern(entry.key)
        if entry.key in _PATH_KEYS:
            add(_inside(tops, entry.value, base), f"{_PATH_KEYS[entry.key]}{origin}")
        elif entry.key in _COMMAND_KEYS or pattern in _COMMAND_KEYS:
            if entry.key == "core.fsmonitor" and entry.value.strip().lower() in (
                "true",
                "false",
                "yes",
                "no",
                "on",
                "off",
                "1",
                "0",
                "",
            ):
                continue  # the built-in monitor, or none
            if pattern == "alias.*" and not entry.value.startswith("!"):
                continue  # a git command, not a program
            for word in _command_paths(entry.value, root):
                add(_inside(tops, word, base), f"a program git runs: {entry.key} = {entry.value!r}{origin}")
    return found


def named_kind(path: str, named: Mapping[str, str]) -> str | None:
    """What names `path` (or a folder above it) in the configuration, from ``named_paths``."""
    if not named:
        return None
    folded = "/".join(_fold(p) for p in path.split("/") if p)
    for place, what in named.items():
        key = "/".join(_fold(p) for p in place.split("/") if p)
        if folded == key or folded.startswith(key + "/"):
            return f"{place!r} is {what}" if folded != key else what
    return None


# --- the finding ----------------------------------------------------------------------
def editable(path: str, pol: Policy) -> bool:
    """Whether the user lets agents change the control file `path` (``paths.control_editable``)."""
    value = pol.get(SETTING)
    globs = [g for g in value if isinstance(g, str)] if isinstance(value, list) else []
    return any(matches(path, g) for g in globs)


def finding(
    path: str, what: str, pol: Policy, severity: str = "error", entry: str | None = None, committing: bool = False
) -> Finding | None:
    """`path-protected` for the control file `path` (`what` it is), unless the policy lets agents
    edit it; `entry`: the glob the message offers for that (default: the path itself); `committing`:
    for the person committing the change, not for an agent (``paths.protected_finding``)."""
    if editable(path, pol):
        return None
    setting = f"`paths: {{control_editable: [{(entry or path)!r}]}}`"
    if committing:
        return Finding(
            "path-protected",
            severity,
            path,
            None,
            f"{path!r} is {what}: a control file (what it says runs later, or changes what the checks see), kept from agents",
            f"{AT_COMMIT}. To let agents change it too, list it in .agent-guard.yaml under {SETTING}: {setting}",
        )
    return Finding(
        "path-protected",
        severity,
        path,
        None,
        f"{path!r} is {what}; agents may not change it (a control file: what it says runs later, or changes what the checks see)",
        f"leave it out of the edit. If the user wants agents to change it, they list it in .agent-guard.yaml "
        f"under {SETTING}: {setting}",
    )


def path_finding(path: str, named: Mapping[str, str], pol: Policy) -> Finding | None:
    """The refusal of an agent's write to `path` when it is a control file (fixed, or named by git's config)."""
    what = fixed_kind(path) or named_kind(path, named)
    return finding(path, what, pol) if what is not None else None


# --- git directories inside the tree --------------------------------------------------
class _After:
    """The tree as an edit leaves it, for the names git's discovery looks at in one folder."""

    def __init__(self, root: Path, changes: Sequence[FileChange]) -> None:
        self.root = root
        self.written: dict[str, bool] = {}  # folded path -> there after the edit
        self.executable: dict[str, bool] = {}  # folded path -> written with the execute bit
        self.folders: set[str] = set()  # folded folders the edit puts files in
        for c in changes:
            if c.old_path and c.old_path != c.path:
                self.written[self._key(c.old_path)] = False
            self.written[self._key(c.path)] = c.after is not None
            self.executable[self._key(c.path)] = c.after is not None and c.new_mode == EXEC
            if c.after is not None:
                parts = self._key(c.path).split("/")
                self.folders.update("/".join(parts[:i]) for i in range(1, len(parts)))

    @staticmethod
    def _key(path: str) -> str:
        return "/".join(_fold(p) for p in path.split("/") if p)

    def file(self, folder: str, name: str) -> bool:
        key = self._key(f"{folder}/{name}")
        if key in self.written:
            return self.written[key]
        return os.path.lexists(self.root / folder / name)

    def enterable(self, folder: str, name: str) -> bool:
        """Whether git can enter `folder/name` once the edit is written: a folder, or a file with the
        execute bit (git only asks ``access(X_OK)``)."""
        key = self._key(f"{folder}/{name}")
        if key in self.folders:
            return True
        if key in self.written:
            return self.executable[key]
        return os.access(self.root / folder / name, os.X_OK)


def git_dir_after(after: _After, folder: str) -> bool:
    """Whether git's discovery takes `folder` for a git directory once the edit is written.

    git's rule (`is_git_directory`, as ``discovery.is_git_directory`` reads it on disk): a
    `HEAD`, and `objects` and `refs` git can enter (folders, or files with the execute bit),
    or a `commondir` file that stands for them.  HEAD's content is not judged: git would read
    a valid one, and an edit can make it valid later.
    """
    if not after.file(folder, "HEAD"):
        return False
    return (after.enterable(folder, "objects") and after.enterable(folder, "refs")) or after.file(folder, "commondir")


def nested_findings(root: Path, changes: Sequence[FileChange], pol: Policy) -> list[Finding]:
    """`path-protected` for each change that writes into a folder git would take for a git
    directory once the edit is written (see ``git_dir_after``), unless the policy allows it."""
    after = _After(root, changes)
    out: list[Finding] = []
    verdict: dict[str, bool] = {}
    for c in changes:
        if c.after is None:
            continue
        parts = [p for p in c.path.split("/") if p]
        for i in range(len(parts) - 1, 0, -1):
            folder = "/".join(parts[:i])
            if folder not in verdict:
                verdict[folder] = git_dir_after(after, folder)
            if verdict[folder]:
                what = (
                    f"inside {folder + '/'!r}, a git directory once this edit is written (HEAD, objects/ and "
                    f"refs/): git takes that folder for a repository and runs the commands its config names"
                )
                found = finding(c.path, what, pol, entry=f"{folder}/**")
                if found is not None:
                    out.append(found)
                break
    return out
