"""Whether a folder can be inside a git repository at all, told without opening one.

Not in ``guard.repo``: importing that package imports pygit2, which is what this avoids.

A command run outside every repository only has to say so; importing pygit2 (and, for
the MCP server, its SDK) to find that out costs far more than looking (bench/README.md).
git finds a repository from a folder by looking, in it and each folder above, for a
`.git` (a folder or a file naming one) or for the folder itself being a bare repository
(a `HEAD` file beside an `objects` folder); ``$GIT_DIR`` names one outright.  When none
of those is there, no repository is: ``outside`` says so with the message ``GitRepo``
gives.  Anything else (one of them is there, whatever state it is in) is left to
``GitRepo``, which opens it as git would, so this never decides for git.
"""

from __future__ import annotations

import os


def not_found(start: str | os.PathLike[str]) -> str:
    """What `GitRepo` says when no repository holds `start`."""
    return f"not a git repository (or any parent up to /): {os.path.abspath(start)}"


def outside(start: str | os.PathLike[str] = ".") -> str | None:
    """``not_found``'s message when `start` is surely in no repository; None when it may be in one."""
    if os.environ.get("GIT_DIR"):
        return None
    path = os.path.abspath(start)
    if not os.path.isdir(path):
        return None  # the caller says what is wrong with the folder itself
    while True:
        if os.path.lexists(os.path.join(path, ".git")):
            return None
        if os.path.lexists(os.path.join(path, "HEAD")) and os.path.lexists(os.path.join(path, "objects")):
            return None  # a bare repository, or something git may take for one
        parent = os.path.dirname(path)
        if parent == path:
            return not_found(start)
        path = parent


def is_git_directory(folder: str | os.PathLike[str]) -> bool:
    """Whether git takes `folder` for a git directory, by its own rule (``is_git_directory`` in
    git's setup.c): a `HEAD`, and `objects` and `refs` it can enter (a folder, or any file with
    the execute bit: git only asks ``access(X_OK)``), or a `commondir` file that stands for them.
    HEAD's content is not judged: git would read a valid one, and a later write can make it valid."""
    path = os.fspath(folder)
    if not os.path.lexists(os.path.join(path, "HEAD")):
        return False
    if os.path.lexists(os.path.join(path, "commondir")):
        return True
    return all(os.access(os.path.join(path, name), os.X_OK) for name in ("objects", "refs"))


def git_directory_above(path: str | os.PathLike[str]) -> str | None:
    """The git directory that holds the file `path` (absolute), as its folders are spelled or with
    links resolved: a `.git` folder on the way, or any folder git takes for a git directory (a bare
    repository: the remote a user pushes to, whose `hooks/` git runs); None when there is none."""
    full = os.path.abspath(path)
    for spelling in dict.fromkeys((full, os.path.realpath(full))):
        folder = os.path.dirname(spelling)
        while True:
            if os.path.basename(folder).casefold() == ".git" and os.path.isdir(folder):
                return folder
            if os.path.isdir(folder) and is_git_directory(folder):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return None
