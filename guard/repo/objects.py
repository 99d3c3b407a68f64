"""A repository's blobs, through libgit2: their ids, their writes and their reads.

libgit2 hashes with collision-detecting SHA-1 (a collision attack's object is refused,
not taken for the one it imitates), writes objects as it has been reviewed to write
them, and re-hashes every object it reads against its id.  agent-guard's job is
integrity, so it keeps all three: nothing here hashes, writes or reads another way.
"""

from __future__ import annotations

import pygit2


def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob."""
    return str(pygit2.hash(data))


def write_blob(repo: pygit2.Repository, data: bytes) -> str:
    """Store `data` as a blob (libgit2 writes nothing when the object is there already); its id."""
    return str(repo.create_blob(data))


def read_blob(repo: pygit2.Repository, oid: str) -> bytes | None:
    """A blob's bytes by full or abbreviated id, or None when absent/ambiguous/not a blob (or when
    what is stored under the id does not hash to it)."""
    if len(oid) == 40:
        # Straight from the object database: no object wrapper (a check reads thousands).
        try:
            kind, data = repo.odb.read(oid)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return bytes(data) if kind == pygit2.enums.ObjectType.BLOB else None
    try:
        obj = repo.revparse_single(oid)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    if not isinstance(obj, pygit2.Blob):
        return None
    return bytes(obj.data)
