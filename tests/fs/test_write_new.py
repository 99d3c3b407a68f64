"""`filekind.write_new`: the temporary file a state file is renamed from is made anew, never written
through whatever stands at its name (a link to a file elsewhere, a stale file)."""

from __future__ import annotations

import os
from pathlib import Path

from guard.fs.filekind import write_new


def test_a_link_at_the_name_is_replaced_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("the user's file\n")
    name = tmp_path / ".state.json.123.tmp"
    name.symlink_to(elsewhere)
    write_new(name, b"{}")
    assert elsewhere.read_text() == "the user's file\n"
    assert not name.is_symlink() and name.read_bytes() == b"{}"
    assert os.stat(name).st_mode & 0o777 == 0o600


def test_a_stale_file_at_the_name_is_replaced(tmp_path: Path) -> None:
    name = tmp_path / "t"
    name.write_bytes(b"old, longer than the new")
    write_new(name, b"new")
    assert name.read_bytes() == b"new"
