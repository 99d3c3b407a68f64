"""pygit2, loaded whatever certificate files the environment names.

As it is imported, pygit2 hands OpenSSL's default certificate locations to libgit2: the file
and folder that ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` name, where they are set.  When that file
holds no certificate OpenSSL reads (an empty file, a DER file, a truncated bundle), the import
itself fails, and every agent-guard command with it: every hook denied, every apply an internal
error.  agent-guard never uses libgit2's network transports (fetch and push run git), so those
files mean nothing to it.  When the import fails with either variable set, it is done again
without them: the modules pygit2 had loaded are dropped (its compiled parts are kept: they load
once per process) and the variables are put back once the import is done, for git and everything
else to read as before.  If that import fails too, its error is raised.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

# pygit2's compiled modules: kept, since an extension module is initialised once per process.
_COMPILED = ("pygit2._pygit2", "pygit2._libgit2", "pygit2._libgit2.lib")


def load() -> ModuleType:
    """The pygit2 module, imported."""
    try:
        import pygit2
    except Exception:
        import ssl

        paths = ssl.get_default_verify_paths()
        names = [name for name in (paths.openssl_cafile_env, paths.openssl_capath_env) if name in os.environ]
        if not names:
            raise
        return _without(names)
    return pygit2


def _without(names: list[str]) -> ModuleType:
    for name in [m for m in sys.modules if (m == "pygit2" or m.startswith("pygit2.")) and m not in _COMPILED]:
        del sys.modules[name]
    saved = {name: os.environ.pop(name) for name in names}
    try:
        import pygit2
    finally:
        os.environ.update(saved)
    return pygit2
