"""Where a verify command runs: confined to the checkout when the machine can, as it is otherwise.

The policy's ``verify_sandbox`` chooses (``auto``, the default: confined when a runner is there;
``required``: confined or not run; ``off``: never).  A runner starts the command in namespaces of
its own where the whole file system is read-only but for the checkout, a private ``/tmp`` and,
for the repository's pre-commit hooks, pre-commit's store of hook environments; the user's work
tree is not there at all (an empty folder covers it: only the object store inside its git dir
is shown again, read-only, for the checkout borrows its objects).  Two runners, the first found:

- ``bwrap`` (bubblewrap) on PATH;
- ``unshare`` (util-linux) where unprivileged user namespaces work: a short shell script in the
  new mount namespace binds the writable folders, then makes every other mount read-only; a
  mount it cannot make read-only stops it (exit 125) rather than run the command unconfined.

Each is tried once per program file on a trivial command (``_works``): ``auto`` falls back to none
when it fails.  What a confined command still may do: read what the user may read (their home,
other repositories), use the network, and write to the checkout (which ``Shadow.settle`` puts
back).  It is no sandbox against code that escapes namespaces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..fs.kept import ByStamps, Stamps

SETTINGS = ("auto", "required", "off")
NONE = "none"
_STOPPED = 125  # the unshare script's exit status when it could not confine the command


@dataclass(frozen=True, slots=True)
class Runner:
    """How commands run: the runner's name (``bwrap``, ``unshare``, or ``none``) and the program it is."""

    name: str
    program: str | None

    def wrap(
        self, argv: Sequence[str], work: Path, hidden: Path | None, shown: Path | None, writable: Sequence[Path]
    ) -> list[str]:
        """`argv` as this runner starts it in the checkout `work`: `hidden` (the user's work tree) covered,
        `shown` (the object store inside it) bound back read-only, `writable` folders writable too."""
        if self.name == "bwrap":
            return _bwrap(self.program or "bwrap", argv, work, hidden, shown, writable)
        if self.name == "unshare":
            return _unshare(self.program or "unshare", argv, work, hidden, shown, writable)
        return list(argv)


def setting(value: object) -> str:
    """The policy's ``verify_sandbox`` (YAML 1.1 reads a bare ``off`` as false)."""
    if value is False:
        return "off"
    return value if isinstance(value, str) and value in SETTINGS else "auto"


def choose(setting: str) -> Runner | str:
    """The runner for `setting` (``SETTINGS``), or why there is none when it is ``required``."""
    if setting == "off":
        return Runner(NONE, None)
    for name in ("bwrap", "unshare"):
        program = shutil.which(name)
        if program is not None and _works(name, program):
            return Runner(name, program)
    if setting == "required":
        return (
            "verify_sandbox is required, but no sandbox works here: bwrap (bubblewrap) is not on PATH, and "
            "unshare cannot make a user namespace (or is not there)"
        )
    return Runner(NONE, None)


_WORKS: ByStamps[bool] = ByStamps(4)  # (runner, program) -> whether it works, kept by the program's stamp


def _works(name: str, program: str) -> bool:
    """Does the runner start a trivial command, confined, on this machine?  (Asked once per program
    file: ``fs.kept``.)"""
    known = _WORKS.get((name, program))
    if known is None:
        stamps = Stamps.now([program])
        known = _tried(name, program)
        _WORKS.keep((name, program), stamps, known)
    return known


def _tried(name: str, program: str) -> bool:
    here = Path(os.path.realpath(os.getcwd()))
    argv = Runner(name, program).wrap(["/bin/sh", "-c", "exit 0"], here, None, None, ())
    try:
        proc = subprocess.run(argv, cwd=here, capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def pre_commit_store() -> Path:
    """Where pre-commit keeps its hook environments (``PRE_COMMIT_HOME``, else the user's cache)."""
    named = os.environ.get("PRE_COMMIT_HOME")
    if named and os.path.isabs(named):
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pre-commit"


def _bwrap(
    program: str, argv: Sequence[str], work: Path, hidden: Path | None, shown: Path | None, writable: Sequence[Path]
) -> list[str]:
    # Later mounts go over earlier ones; every source is read from the real file system.
    out = [program, "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    if hidden is not None:
        out += ["--tmpfs", str(hidden)]
        if shown is not None:
            out += ["--ro-bind", str(shown), str(shown)]
        out += ["--remount-ro", str(hidden)]
    for folder in (work, *writable):
        out += ["--bind", str(folder), str(folder)]
    return [*out, "--chdir", str(work), "--", *argv]


# Runs as root of a new user namespace, in a mount namespace of its own: $1 the checkout, $2 the
# folder to hide ('' for none), $3 the folder to show again in it (''), $4 how many more writable
# folders follow; then those, then the command.  Each folder to bind is held open first (fd 3 the
# checkout, 4 the folder shown, 5 on the others), as a new /tmp or the hiding may cover its path;
# every mount is then made read-only, and the folders bound back over it.  A mount point with an
# escaped character in /proc/self/mountinfo (a blank in its name) cannot be read back: it stops.
_SCRIPT = r"""
stop() { echo "agent-guard: the verify sandbox (unshare): $1" >&2; exit 125; }
work=$1 hide=$2 show=$3 n=$4; shift 4
exec 3<"$work" || stop "cannot open $work"
if [ -n "$show" ]; then exec 4<"$show" || stop "cannot open $show"; fi
i=5
while [ "$n" -gt 0 ]; do
  eval "exec $i<\"\$1\"" || stop "cannot open $1"; eval "w$i=\$1"; i=$((i+1)); n=$((n-1)); shift
done
last=$i
while read -r _id _parent _dev _root mp _rest; do
  case $mp in *\\*) stop "cannot read the mount point $mp";; esac
  mount -o remount,bind,ro "$mp" 2>/dev/null || stop "cannot make $mp read-only"
done < /proc/self/mountinfo
mount -t tmpfs tmpfs /tmp || stop "cannot mount /tmp"
if [ -d /dev/shm ]; then mount -t tmpfs tmpfs /dev/shm 2>/dev/null; fi
if [ -n "$hide" ]; then
  mkdir -p "$hide" 2>/dev/null; mount -t tmpfs -o mode=0755 tmpfs "$hide" || stop "cannot cover $hide"
fi
back() {
  mkdir -p "$2" 2>/dev/null
  mount --no-canonicalize --bind "/proc/self/fd/$1" "$2" && mount -o "remount,bind,$3" "$2" || stop "cannot bind $2"
}
if [ -n "$show" ]; then back 4 "$show" ro; fi
back 3 "$work" rw
i=5
while [ "$i" -lt "$last" ]; do eval "back $i \"\$w$i\" rw; exec $i<&-"; i=$((i+1)); done
if [ -n "$hide" ]; then mount -o remount,ro "$hide" || stop "cannot make $hide read-only"; fi
exec 3<&- 4<&-
cd "$work" || stop "cannot enter $work"
exec "$@"
"""


def _unshare(
    program: str, argv: Sequence[str], work: Path, hidden: Path | None, shown: Path | None, writable: Sequence[Path]
) -> list[str]:
    return [
        program,
        "--user",
        "--map-root-user",
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        _SCRIPT,
        "agent-guard-sandbox",
        str(work),
        "" if hidden is None else str(hidden),
        "" if shown is None else str(shown),
        str(len(writable)),
        *map(str, writable),
        *argv,
    ]


def stopped(code: int | None, runner: Runner) -> bool:
    """Did the runner itself refuse to start the command (it could not confine it)?"""
    return runner.name == "unshare" and code == _STOPPED
