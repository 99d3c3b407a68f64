"""A work tree's watch: one process per large work tree that notes every path changed in it, so that
a shell turn asks git about those paths alone instead of walking the whole tree twice.

A shell turn (``record/snapshot.py``) lists what ``git status`` sees before and after the command.
On 100,000 files each list costs one full ``git status`` (about 0.3 s of CPU); with a watch it costs
a ``git status`` of the paths changed since the last list (``record/watched.py``).  The first turn
of a hook whose full list took longer than ``watched.START_AFTER`` starts the watch (``Remote.start``);
later turns ask it.

The watch (``Watcher``) holds an inotify watch (``fs/inotify.py``) on every folder of the work tree
but ``.git``, links not followed, and notes each changed entry's path with the number of the batch
of events it came in (``seq``).  Asked ``since GEN SEQ`` it first reads every event queued (the
kernel queues them as the change is made, so all of a finished command's are there), then answers
the paths noted after ``SEQ``, or ``all`` when it cannot say: another generation (the watch
restarted, its queue overflowed, it noted more than ``MAX_TOUCHED`` paths) or more than
``MAX_ANSWER`` paths.  A folder made or moved in is watched before its entries are read, and is
itself the changed path, so what was written in it before its watch began is still covered.

It listens on ``w-<digest of the work tree and git dir>.sock`` in the user's private runtime
folder (as the server's socket, ``client.runtime_dir``), answers only this user (peer credentials),
and ends when no one asked it for ``IDLE`` seconds, when its socket is not its own any more, when
the work tree goes, or when the tree has more folders than a quarter of the user's inotify watches (``inotify.SHARE``).

An answer that cannot be had (no watch, an error, a timeout) is "no watch": the caller walks the
whole tree, which is always right.  What a watch cannot see (a write through a shared memory map, a
network file system changed from another machine) it cannot report; the full walks it replaces did
see those.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import select
import socket
import subprocess
import sys
import time

from ..fs import inotify
from . import client

PROTOCOL = b"agent-guard-watch/1"
IDLE = 1800.0  # seconds without a question before the watch ends
MAX_TOUCHED = 50_000  # paths noted before the watch forgets them (the next answer is "all")
MAX_ANSWER = 2_000  # paths in one answer: past this, a full walk costs less than naming them to git
ASK_TIMEOUT = 2.0  # seconds a caller waits for an answer
RESTART_AFTER = 300.0  # seconds between starts of the watch of one tree (one that did not come up)
MAX_REPLY = 64 << 20


def socket_path(root: str, gitdir: str) -> str:
    """The watch's socket for the work tree at `root` with git dir `gitdir`."""
    digest = hashlib.sha256(os.fsencode(os.path.realpath(root)) + b"\0" + os.fsencode(os.path.realpath(gitdir))).hexdigest()
    folder = os.fsdecode(client.runtime_dir(os.environb, os.geteuid()))
    return os.path.join(folder, f"w-{digest[:12]}.sock")  # short: a socket's whole path has ~107 bytes


# ---------------------------------------------------------------------- the watch


class TooManyFolders(OSError):
    pass


class Watcher:
    """The watch of one work tree (see the module doc)."""

    def __init__(self, root: str, limit: int | None = None) -> None:
        self.root = os.path.realpath(root)
        self.limit = inotify.allowance() if limit is None else limit
        self.ino = inotify.Inotify()
        self.folders: dict[int, str] = {}  # watch -> folder, relative ("" is the top)
        self.watches: dict[str, int] = {}
        self.touched: dict[str, int] = {}
        self.gen = secrets.token_hex(8)
        self.seq = 0
        self.gone = False
        self._watch_tree("")

    @property
    def fd(self) -> int:
        return self.ino.fd

    def _watch_tree(self, top: str) -> None:
        """Watch the folder `top` and every folder below it (each watched before it is listed)."""
        todo = [top]
        while todo:
            rel = todo.pop()
            full = os.path.join(self.root, rel) if rel else self.root
            if len(self.watches) >= self.limit:
                raise TooManyFolders(errno.ENOSPC, f"more than {self.limit:,} folders to watch")
            try:
                wd = self.ino.add(full)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise TooManyFolders(errno.ENOSPC, "the user's inotify watches are used up") from None
                continue  # gone, or not a folder any more: its parent's event names it
            old = self.folders.get(wd)
            if old is not None and old != rel:
                self.watches.pop(old, None)
            self.folders[wd] = rel
            self.watches[rel] = wd
            try:
                with os.scandir(full) as entries:
                    for e in entries:
                        if e.name != ".git" and e.is_dir(follow_symlinks=False):
                            todo.append(os.path.join(rel, e.name) if rel else e.name)
            except OSError:
                continue

    def _unwatch_tree(self, top: str) -> None:
        below = top + "/"
        for rel in [r for r in self.watches if r == top or r.startswith(below)]:
            wd = self.watches.pop(rel)
            self.folders.pop(wd, None)
            self.ino.remove(wd)

    def _forget(self) -> None:
        """A new generation: every earlier answer's token now gets "all"."""
        self.gen = secrets.token_hex(8)
        self.touched.clear()

    def _rewatch(self) -> None:
        """Events were lost: forget, and watch every folder afresh."""
        self._forget()
        for wd in list(self.folders):
            self.ino.remove(wd)
        self.folders.clear()
        self.watches.clear()
        self._watch_tree("")

    def drain(self) -> None:
        """Note every event queued now."""
        events = self.ino.read()
        if not events:
            return
        self.seq += 1
        for ev in events:
            if ev.mask & inotify.OVERFLOW:
                self._rewatch()
                return
            folder = self.folders.get(ev.wd)
            if folder is None:
                continue  # a watch already ended
            if ev.mask & inotify.IGNORED:
                self.folders.pop(ev.wd, None)
                if self.watches.get(folder) == ev.wd:
                    del self.watches[folder]
                if folder == "":
                    self.gone = True
                continue
            if not ev.name:
                if folder == "" and ev.mask & (inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.UNMOUNT):
                    self.gone = True
                continue  # about a folder itself: its parent's event names it
            rel = os.path.join(folder, ev.name) if folder else ev.name
            self.touched[rel] = self.seq
            if ev.mask & inotify.ISDIR and ev.name != ".git":
                if ev.mask & (inotify.MOVED_FROM | inotify.DELETE):
                    self._unwatch_tree(rel)
                if ev.mask & (inotify.CREATE | inotify.MOVED_TO):
                    self._watch_tree(rel)
        if len(self.touched) > MAX_TOUCHED:
            self._forget()

    def since(self, gen: str, seq: int) -> tuple[str, int, list[str] | None]:
        """(generation, seq, the paths changed after `gen`/`seq`, or None: all of them may have)."""
        self.drain()
        if gen != self.gen or seq > self.seq:
            return self.gen, self.seq, None
        paths = [p for p, s in self.touched.items() if s > seq]
        if len(paths) > MAX_ANSWER:
            return self.gen, self.seq, None
        return self.gen, self.seq, paths

    def close(self) -> None:
        self.ino.close()


def _answer(w: Watcher, question: bytes) -> bytes:
    parts = question.split()
    if len(parts) != 3 or parts[0] != b"since" or not parts[2].isdigit():
        return b"error\n"
    gen, seq, paths = w.since(parts[1].decode("ascii", "replace"), int(parts[2]))
    head = b"%s %s %d\n" % (b"all" if paths is None else b"ok", gen.encode(), seq)
    return head + b"\0".join(os.fsencode(p) for p in (paths or ()))


def serve(root: str, path: str, idle: float = IDLE) -> str:
    """Watch `root` and answer on the socket `path` until idle, replaced or gone; why it ended."""
    uid = os.geteuid()
    w = Watcher(root)  # every folder watched before the first answer
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pending = path[: -len(".sock")] + ".new"  # no longer than the socket's name
    renamed = False
    try:
        try:
            os.unlink(pending)  # a watch that died while it started
        except FileNotFoundError:
            pass
        old = os.umask(0o177)
        try:
            listener.bind(pending)
        finally:
            os.umask(old)
        listener.listen(16)
        os.replace(pending, path)
        renamed = True
        mine = os.lstat(path).st_ino
        last = time.monotonic()
        while True:
            ready, _, _ = select.select([w.fd, listener.fileno()], [], [], 5.0)
            if w.fd in ready:
                w.drain()
            if listener.fileno() in ready:
                last = time.monotonic()
                conn, _ = listener.accept()
                with conn:
                    conn.settimeout(ASK_TIMEOUT)
                    try:
                        if client.peer_uid(conn) not in (uid, None):
                            continue
                        conn.sendall(_answer(w, conn.recv(200)))
                    except OSError:
                        pass
            if w.gone:
                return "the work tree is gone"
            if time.monotonic() - last > idle:
                return f"no question for {idle:.0f} s"
            try:
                if os.lstat(path).st_ino != mine:
                    return "its socket was replaced"
            except OSError:
                return "its socket was removed"
    finally:
        listener.close()
        w.close()
        try:
            if os.lstat(path).st_ino == mine:
                os.unlink(path)
        except (OSError, UnboundLocalError):
            pass
        if not renamed:
            try:
                os.unlink(pending)
            except OSError:
                pass


# ---------------------------------------------------------------------- the caller's side


class Remote:
    """The watch of one work tree as a caller asks it (``record.watched.Watch``)."""

    def __init__(self, root: str, gitdir: str) -> None:
        self.root = root
        self.path = socket_path(root, gitdir)
        self.name = hashlib.sha256(os.fsencode(self.path)).hexdigest()[:16]

    def since(self, token: str | None) -> tuple[str, tuple[str, ...] | None] | None:
        """(the new token, the paths changed since `token` or None for "all"), or None: no watch."""
        gen, _, seq = (token or "- 0").partition(" ")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(ASK_TIMEOUT)
                s.connect(self.path)
                if client.peer_uid(s) not in (os.geteuid(), None):
                    return None
                s.sendall(b"since %s %s\n" % (gen.encode("ascii", "replace"), (seq if seq.isdigit() else "0").encode()))
                chunks: list[bytes] = []
                size = 0
                while chunk := s.recv(1 << 16):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_REPLY:
                        return None
        except OSError:
            return None
        head, _, body = b"".join(chunks).partition(b"\n")
        parts = head.split()
        if len(parts) != 3 or parts[0] not in (b"ok", b"all") or not parts[2].isdigit():
            return None
        new = f"{parts[1].decode('ascii', 'replace')} {int(parts[2])}"
        if parts[0] == b"all":
            return new, None
        return new, tuple(os.fsdecode(p) for p in body.split(b"\0") if p)

    def start(self) -> str:
        """Start the watch in the background (not waited for), unless one was started lately; what was done."""
        folder = os.path.dirname(self.path)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            return f"no folder for the watch: {exc.strerror}"
        problem = client.folder_problem(os.fsencode(folder), os.geteuid())
        if problem is not None:
            return problem
        marker = self.path[: -len(".sock")] + ".started"
        try:
            if time.time() - os.lstat(marker).st_mtime < RESTART_AFTER:
                return "started lately"
        except FileNotFoundError:
            pass
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            os.close(fd)
            os.utime(marker)
            package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            subprocess.Popen(
                [sys.executable, "-c", _RUN, package_parent, self.root, self.path],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                cwd="/",
            )
        except OSError as exc:
            return f"cannot start the watch: {exc.strerror or exc}"
        return "started"


_RUN = (
    "import sys; sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if p]; "
    "from guard.warm.watch import main; main(sys.argv[1:])"
)


def main(argv: list[str]) -> None:
    """``python -c _RUN PARENT ROOT SOCKET``: the watch's process."""
    root, path = argv
    try:
        serve(root, path)
    except (OSError, ValueError):
        pass
