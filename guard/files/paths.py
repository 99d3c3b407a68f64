"""Paths as agents write them -> repository-relative POSIX paths, or a finding.

An agent's path is untrusted input: it may climb out with ``..``, point through a
symlink, reach into ``.git`` (in any spelling a filesystem might fold to it) or into
a submodule.  ``resolve`` refuses all of these before anything reads or writes the
file; ``git_folder_finding`` refuses git's own folders wherever they are (the caller
asks git where), and ``protected_finding`` the policy's own files, its protected globs
and its allow-list (``read_finding``: what may not be read).  This module looks at the
filesystem (``lstat``) but never at git.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

from ..model import Finding, error
from ..policy import DEFAULT_FILE as DEFAULT_POLICY_FILE
from ..policy import Policy
from ..text.globs import first_match
from ..text.regex import lazy

# Code points some filesystems (HFS+) ignore in names, so `.g\u200cit` is `.git` there.
_IGNORABLE = lazy("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
# Half of a UTF-16 pair: JSON can spell it (`"\\ud800"`), UTF-8 cannot, and no file name holds it.
_SURROGATE = lazy("[\ud800-\udfff]")
# Longer paths than PATH_MAX are invisible to git's own commands (a file written there
# is lost to `git status`), and trees nest one recursion level per folder.
MAX_PATH_BYTES = 4095
MAX_DEPTH = 255


def fold_name(component: str) -> str:
    """A name as a filesystem that ignores, composes or trims characters may store it."""
    if component.isascii():  # nothing to ignore, and NFKC leaves ASCII as it is
        return component.rstrip(". ")
    import unicodedata  # here: only a name that is not ASCII asks for it

    return unicodedata.normalize("NFKC", _IGNORABLE().sub("", component)).rstrip(". ")


def _pieces(component: str) -> list[str]:
    """The names one component may stand for on some filesystem.

    Windows separates folders with `\\` too, and NTFS reads `name:stream` (`.git::$INDEX_ALLOCATION`
    is the folder `.git` itself); git refuses such names in its trees for the same reason.
    """
    if "\\" not in component and ":" not in component:
        return [component]
    return [piece.split(":", 1)[0] for piece in component.split("\\")]


def _is_dot_git(component: str) -> bool:
    # `git~1` is the 8.3 short name Windows may give `.git`.
    return any(fold_name(piece).casefold() in (".git", "git~1") for piece in _pieces(component))


def _folded(path: str) -> tuple[str, ...]:
    """`path`'s names as a filesystem that folds case and spelling may see them."""
    return tuple(fold_name(p).casefold() for p in path.split("/") if p)


def _outside(raw: str, what: str, hint: str) -> tuple[None, Finding]:
    return None, error("path-outside", raw, None, f"{raw!r}: {what}", hint)


def _protected_git(path: str) -> tuple[None, Finding]:
    return None, error(
        "path-protected",
        path,
        None,
        f"{path!r} is inside the repository's .git folder (or a name a filesystem folds to .git)",
        "agents may never change git's own files; edit files of the work tree only",
    )


def folder_of(root: Path, cwd: str | os.PathLike[str]) -> str:
    """`cwd` as a repository-relative folder ("" for the root): where relative paths start.

    `root` is the work tree's real path (``GitRepo.root``, resolved when the repository was
    opened).  A folder outside the work tree, or inside the git folder, counts as the root:
    git itself has no current folder there (`git add` refuses to run inside `.git`).
    """
    here, top = os.path.realpath(cwd), str(root)
    inside = top.rstrip("/") + "/"
    if not here.startswith(inside):
        return ""  # the root itself, or outside the work tree
    rel = here[len(inside) :]
    if any(_is_dot_git(p) for p in rel.split("/")):
        return ""
    return rel


def from_folder(folder: str, raw: str, guess: bool = False) -> str:
    """A path named from `folder` (see ``folder_of``) as a path from the root, for ``resolve``.

    Absolute paths are kept.  With `guess` (the names of a diff made outside git) a path
    that already starts with the folder is taken from the root, as ``git apply`` guesses.
    """
    if not folder or not raw or raw.startswith("/"):
        return raw
    if guess and (raw + "/").startswith(folder + "/"):
        return raw
    return f"{folder}/{raw}"


def start_rule(folder: str, git_diff: bool = False) -> str:
    """Where the relative paths of an edit started, for a hint (see ``from_folder``)."""
    if git_diff:
        return "a git diff names files from the top of the repository, as `git apply` reads it"
    if folder:
        return f"relative paths start from the current folder, {folder}/, as for git"
    return "relative paths start from the top of the repository"


def resolve(root: Path, raw: str) -> tuple[str | None, Finding | None]:
    """`raw` as a repository-relative POSIX path, or the finding that refuses it.

    In order: text that is no file name (``_not_a_name``); an absolute path made relative
    (``_relative``); its names, '..' resolved (``_names``); the length limits; git's own
    folders; then what the filesystem has on the way (``_check_filesystem``).
    """
    refused = _not_a_name(raw)
    if refused is not None:
        return refused
    real_root = os.path.realpath(root)
    rel = _relative(root, real_root, raw)
    if not isinstance(rel, str):
        return rel
    if rel.endswith("/"):
        return _outside(raw, "names a folder, not a file", "name the file inside that folder")
    parts = _names(real_root, raw, rel)
    if isinstance(parts, tuple):
        return parts
    if not parts:
        return _outside(raw, "names the repository root, not a file", "name a file inside the repository")
    path = "/".join(parts)
    size = len(path.encode("utf-8", "surrogateescape"))
    if size > MAX_PATH_BYTES or len(parts) > MAX_DEPTH:
        return _outside(
            raw,
            f"the path is {size:,} bytes and {len(parts)} names deep; the limits are "
            f"{MAX_PATH_BYTES:,} bytes and {MAX_DEPTH} names",
            "use a shorter path",
        )
    if any(_is_dot_git(c) for c in parts):
        return _protected_git(path)
    return _check_filesystem(real_root, raw, path, parts)


def _not_a_name(raw: str) -> tuple[None, Finding] | None:
    """The refusal of a path that is empty, or holds half a surrogate pair or a control character."""
    if not raw or not raw.strip():
        return _outside(raw, "the path is empty", "name a file of the repository, e.g. src/app.py")
    half = None if raw.isascii() else _SURROGATE().search(raw)
    if half:
        code = ord(half.group())
        # 0xDC80-0xDCFF: a byte that is not UTF-8, as Python decodes a file name or argument.
        what = (
            f"the byte 0x{code - 0xDC00:02X}, which is not UTF-8"
            if 0xDC80 <= code <= 0xDCFF
            else f"U+{code:04X}, half of a UTF-16 surrogate pair: no character, and no UTF-8"
        )
        return None, error(
            "not-utf8",
            raw.encode("utf-8", "backslashreplace").decode("utf-8"),
            None,
            f"the path holds {what} (at position {half.start()})",
            "write the file name as UTF-8 text (a JSON escape must give both halves of a pair, e.g. \\ud83d\\ude00)",
        )
    bad = _CONTROL.search(raw)
    if bad:
        return _outside(
            raw,
            f"the path holds a control character {bad.group()!r} at position {bad.start()}",
            "write the file name without NUL, newline or other control characters",
        )
    return None


def _relative(root: Path, real_root: str, raw: str) -> str | tuple[None, Finding]:
    """`raw` relative to the repository's top (an absolute path under it, by its real or its
    given name), or the refusal of an absolute path that is the root or outside it."""
    if not raw.startswith("/"):
        return raw
    for base in dict.fromkeys((real_root, os.path.abspath(root))):
        if raw == base or raw.rstrip("/") == base:
            return _outside(raw, "names the repository root, not a file", "name a file inside the repository")
        if raw.startswith(base.rstrip("/") + "/"):
            return raw[len(base.rstrip("/")) + 1 :]
    return _outside(
        raw,
        f"the absolute path is outside the repository {real_root}",
        f"name a file inside the repository: a relative path, or an absolute one under {real_root}",
    )


def _names(real_root: str, raw: str, rel: str) -> list[str] | tuple[None, Finding]:
    """The names of the relative path `rel`, `.` and empty ones dropped and `..` taken back
    (never above the top, nor back through a symbolic link); or the refusal."""
    parts: list[str] = []
    for comp in rel.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if not parts:
                return _outside(
                    raw, "'..' leaves the repository", "name a file inside the repository; '..' cannot climb above its top folder"
                )
            gone = parts.pop()
            # `a/..` means `.` only when `a` is a plain folder; through a symlink it does not.
            if os.path.islink(os.path.join(real_root, *parts, gone)):
                return _outside(
                    raw,
                    f"'..' follows the symbolic link {'/'.join([*parts, gone])!r}",
                    "name the file by its real location inside the repository, without '..' after the link",
                )
            continue
        if len(comp.encode("utf-8", "surrogateescape")) > 255:
            return _outside(raw, f"the name {comp[:40]!r}... is longer than 255 bytes", "use a shorter file name")
        parts.append(comp)
    return parts


def _check_filesystem(real_root: str, raw: str, path: str, parts: list[str]) -> tuple[str | None, Finding | None]:
    for i in range(len(parts)):
        prefix = "/".join(parts[: i + 1])
        full = os.path.join(real_root, *parts[: i + 1])
        last = i == len(parts) - 1
        try:
            is_link = os.path.islink(full)
        except OSError:
            is_link = False
        if is_link:
            target = os.readlink(full)
            which = "the file itself" if last else f"the folder {prefix!r}"
            return _outside(
                raw,
                f"{which} is a symbolic link (to {target!r})",
                "edit the file at its real location inside the repository, not through the link",
            )
        if not os.path.isdir(full):
            break  # nothing below a missing folder or a file can be a link or a submodule
        if os.path.lexists(os.path.join(full, ".git")):
            which = f"{prefix!r} is a submodule" if last else f"the folder {prefix!r} is a submodule"
            return None, error(
                "path-protected",
                path,
                None,
                f"{path!r}: {which} (it holds its own .git)",
                "edit the submodule in its own repository, not through this one",
            )
    return path, None


def git_folder_finding(path: str, folders: Mapping[str, str]) -> Finding | None:
    """`path-protected` when `path` lies in one of git's own folders inside the work tree.

    `folders` maps the real locations, relative to the root, of the repository's git dir,
    its common dir and `core.hooksPath` to what each is (``GitRepo.git_folders``):
    whatever they are called, git runs what is in them (hooks, commands their config names).
    """
    if not folders:
        return None
    names = _folded(path)
    for folder, what in folders.items():
        inside = _folded(folder)
        if names[: len(inside)] == inside:
            return error(
                "path-protected",
                path,
                None,
                f"{path!r} is inside {folder + '/'!r}, {what}: git runs what is in it (hooks, commands its config names)",
                "agents may never change git's own files; edit files of the work tree only",
            )
    return None


def _own_file(path: str, policy: Policy) -> str | None:
    """The policy file (`.agent-guard.yaml`, or one its `extends:` chain reads) that `path` is."""
    names = _folded(path)
    return next((own for own in policy.own_files if _folded(own) == names), None)


def _glob_pattern(path: str, parts: list[str], policy: Policy) -> tuple[str, str] | None:
    """The protected pattern `path` matches, and the setting it comes from."""
    # `.ｅｎｖ` or `.e\u200bnv` is `.env` to a filesystem that folds or ignores those
    # characters: a protected name must not be reachable by another spelling.
    spellings = tuple(dict.fromkeys((path, "/".join(fold_name(p) for p in parts))))
    pattern = first_match(spellings, policy.protected)
    if pattern is None:
        return None
    return pattern, "paths.protected" if pattern in policy.protected_listed else "paths.protected_extra"


# What a protected path means to the person committing it (``protected_finding``'s `committing`):
# at commit time `path-protected` is a warning, since people change such files on purpose.
AT_COMMIT = "this warning does not stop the commit: check that the change is one you meant"


def protected_finding(path: str, policy: Policy, committing: bool = False) -> Finding | None:
    """`path-protected` if git, the policy's own files, its globs or its allow-list keep agents off `path`.

    `committing`: the finding is for the person committing the change (``agent-guard check``), not
    for an agent: what it means for their commit, and the policy key that lets agents change it."""
    parts = [p for p in path.split("/") if p]
    if any(_is_dot_git(p) for p in parts):
        return _protected_git(path)[1]
    own = _own_file(path, policy)
    if own is not None:
        # Like .git, whatever the level: an agent that may rewrite the policy may switch it off.
        return error(
            "path-protected",
            path,
            None,
            f"{path!r} is {_policy_file_is(own)}: agents may never change the policy that guards them",
            "leave it out of the edit; the policy is the user's to change",
        )
    level = policy.level("path-protected")
    if level not in ("error", "warning"):
        return None
    glob = _glob_pattern(path, parts, policy)
    if glob is not None:
        pattern, setting = glob
        replaces = " (a list set in .agent-guard.yaml replaces the one it extends)" if setting == "paths.protected" else ""
        return Finding(
            "path-protected",
            level,
            path,
            None,
            f"{path!r} matches the protected pattern {pattern!r} ({setting}, from {policy.source(setting)})",
            f"the policy keeps agents off this path; {AT_COMMIT}. To let agents change it too, leave {pattern!r} out "
            f"of {setting}{replaces}"
            if committing
            else "agents may not change this path; leave it out of the edit, or ask the user to change it",
        )
    allow = policy.allow
    # A path the allow-list lets through must be the one it names: `SRC/evil.py` is not under
    # `src/**` where the file system tells case apart (git's core.ignorecase; Policy.ignorecase).
    if allow and first_match((path,), allow, policy.ignorecase) is None:
        return Finding(
            "path-protected",
            level,
            path,
            None,
            f"{path!r} is outside the allow-list ({', '.join(allow)}; paths.allow, from {policy.source('paths.allow')})",
            f"the policy lets agents change only the paths paths.allow names; {AT_COMMIT}. To let agents change it too, "
            "add it to paths.allow"
            if committing
            else "edit only paths the allow-list names, or ask the user to widen paths.allow",
        )
    return None


def read_finding(path: str, policy: Policy) -> Finding | None:
    """`path-protected` if `path` may not be read through agent-guard: a protected path (its globs,
    the policy's own files) is not served, nor stored in the object database, unless the policy
    says `read_protected: true`.  (The allow-list limits what agents change, not what they read.)"""
    parts = [p for p in path.split("/") if p]
    if any(_is_dot_git(p) for p in parts):
        return _protected_git(path)[1]
    if policy.read_protected:
        return None
    hint = (
        "leave it unread; if agents must read protected files, the user can set `read_protected: true` "
        "in the policy (.agent-guard.yaml)"
    )
    own = _own_file(path, policy)
    if own is not None:
        return error(
            "path-protected",
            path,
            None,
            f"{path!r} is {_policy_file_is(own)}, and protected files are not read through agent-guard",
            hint,
        )
    if policy.level("path-protected") not in ("error", "warning"):
        return None
    glob = _glob_pattern(path, parts, policy)
    if glob is None:
        return None
    pattern, setting = glob
    return error(
        "path-protected",
        path,
        None,
        f"{path!r} matches the protected pattern {pattern!r} ({setting}, from {policy.source(setting)}), "
        "and protected files are not read through agent-guard",
        hint,
    )


def _policy_file_is(own: str) -> str:
    if own == DEFAULT_POLICY_FILE:
        return "the repository's policy file"
    return "a policy file (read by the extends: chain of this repository's policy)"
