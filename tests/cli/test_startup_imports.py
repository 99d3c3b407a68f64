"""What the quick commands load (issue 19): no dataclass of ours, and nothing only dataclasses needs.

`git agent-apply` (a real apply, and ``--check``), `agent-guard hook claude-code` and
`agent-guard check` are held to within 1.15x of ``python -c "import pygit2"``
(``bench/startup.py``).  Creating a dataclass compiles its methods, ~0.4 ms a class at
every start; and ``import dataclasses`` brings ``inspect`` (with ast, dis, tokenize),
~5 ms, which pygit2 1.21 happens to import itself but an older or newer one need not.
So the records on these paths are ``guard.model.Value``s (a ``NamedTuple`` costs ~0.1 ms a
class; only the edit model and ``FileChange``, which the Python API hands out, are tuples),
and these tests keep a dataclass, or an internal tuple class, from creeping back: each runs a command in a child, as its console
script does, and reports as the process ends.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import Repo, checkout_env

# Modules that only `dataclasses` brings in on these paths.
_ONLY_FOR_DATACLASSES = ("dataclasses", "inspect", "ast", "dis", "tokenize")

_REPORT = """\
import json, os, sys
import pygit2  # what any pygit2 program loads is no cost of ours
loaded_by_pygit2 = set(sys.modules)
from guard.cli import program

real_exit = os._exit


def leave(status):
    new = sorted(set(WATCH) & (set(sys.modules) - loaded_by_pygit2))
    import dataclasses
    ours = [m for name, m in list(sys.modules.items()) if name == "guard" or name.startswith("guard.")]
    made = sorted(f"{m.__name__}.{k}" for m in ours for k, v in vars(m).items()
                  if isinstance(v, type) and v.__module__ == m.__name__ and dataclasses.is_dataclass(v))
    importers = sorted(m.__name__ for m in ours for v in vars(m).values()
                       if v is dataclasses or getattr(v, "__module__", None) == "dataclasses")
    tuples = sorted(f"{m.__name__}.{k}" for m in ours for k, v in vars(m).items()
                    if isinstance(v, type) and v.__module__ == m.__name__ and issubclass(v, tuple) and hasattr(v, "_fields"))
    print(json.dumps({"status": status, "new": new, "dataclasses": made, "importers": importers, "namedtuples": tuples}),
          file=sys.stderr)
    sys.stderr.flush()
    real_exit(status)


os._exit = leave
program.run(ARGS, prog=PROG, command=COMMAND)
"""


PUBLIC_TUPLES = {
    f"guard.model.{n}"
    for n in ("HunkLine", "Hunk", "Replace", "LineRange", "Snippet", "Rewrite", "FileEdit", "EditSet", "FileChange")
}


def _run(cwd: Path, args: list[str], command: str | None = None, stdin: bytes = b"") -> dict[str, object]:
    code = (
        _REPORT.replace("WATCH", repr(_ONLY_FOR_DATACLASSES))
        .replace("ARGS", repr(args))
        .replace("PROG", repr(f"git agent-{command}" if command else "agent-guard"))
        .replace("COMMAND", repr(command))
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, input=stdin, capture_output=True, env=checkout_env(), timeout=120, check=False
    )
    lines = r.stderr.decode(errors="replace").strip().splitlines()
    assert lines, r.stdout
    got: dict[str, object] = json.loads(lines[-1])
    return got


def _commands(repo: Repo, tmp_path: Path) -> list[tuple[str, list[str], str | None, bytes]]:
    repo.commit({"a.py": "def f(x):\n    return x + 1\n", "b.py": "B = 1\n"})
    patch = tmp_path / "p.diff"
    patch.write_text("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n")
    payload = {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_use_id": "toolu_1",
        "tool_input": {"file_path": str(repo.root / "b.py"), "old_string": "B = 1", "new_string": "B = 2"},
    }
    return [
        ("git agent-apply --check FILE", ["--check", str(patch)], "apply", b""),
        ("agent-guard hook claude-code", ["hook", "claude-code"], None, json.dumps(payload).encode()),
        ("git agent-apply FILE", [str(patch)], "apply", b""),
        ("agent-guard check", ["check"], None, b""),
    ]
