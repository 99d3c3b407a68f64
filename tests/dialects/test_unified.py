"""The unified-diff reader: every shape agents and tools write, and every refusal.

Each case is an input and the exact EditSet it must give (or the line and words of
its ParseError).  The corpus tests at the bottom read ../shared/corpora when it is
there and skip cleanly when it is not; no corpus data is copied here.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from guard.dialects import unified
from guard.model import EditSet, FileEdit, Hunk, HunkLine, Op, ParseError, PathBase

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


def L(*lines: str) -> str:
    """Input text from lines (each gets a "\\n"); line numbers are positions, from 1."""
    return "".join(line + "\n" for line in lines)


def hunk(
    *body: str,
    start: int | None,
    line: int,
    declared: tuple[int | None, int | None] | None = None,
    no_eol: str = "",
) -> Hunk:
    """A Hunk from tagged lines (" ctx", "-old", "+new"); `declared` defaults to the body's counts."""
    lines = tuple(HunkLine(spec[0], spec[1:]) for spec in body)
    if declared is None:
        declared = (sum(hl.tag != "+" for hl in lines), sum(hl.tag != "-" for hl in lines))
    return Hunk(
        lines=lines,
        old_start=start,
        declared_old=declared[0],
        declared_new=declared[1],
        at_eof=bool(no_eol),
        old_eof_newline=no_eol not in ("old", "both"),
        new_eof_newline=no_eol not in ("new", "both"),
        source_line=line,
    )


def edits(*files: FileEdit, repairs: tuple[str, ...] = ()) -> EditSet:
    return EditSet(files=files, format="unified", repairs=repairs)


def modify(path: str, *changes: Hunk, line: int, **kw: object) -> FileEdit:
    return FileEdit(path=path, op=Op.MODIFY, changes=changes, source_line=line, **kw)  # type: ignore[arg-type]


RECOUNT = ("recount",)

# ---------------------------------------------------------------------------- git headers

GIT_CASES = [
    pytest.param(
        L(
            "diff --git a/src/app.py b/src/app.py",
            "index 83db48f..bf269f4 100644",
            "--- a/src/app.py",
            "+++ b/src/app.py",
            "@@ -10,2 +10,2 @@ def main():",
            " a",
            "-b",
            "+c",
        ),
        edits(modify("src/app.py", hunk(" a", "-b", "+c", start=10, line=5), line=1, base="83db48f")),
        id="git-modify-index-base-section-text",
    ),
    pytest.param(
        L(
            "diff --git a/bin/run b/bin/run",
            "new file mode 100755",
            "index 0000000..1b2c3d4",
            "--- /dev/null",
            "+++ b/bin/run",
            "@@ -0,0 +1,2 @@",
            "+#!/bin/sh",
            "+echo hi",
        ),
        edits(FileEdit("bin/run", Op.CREATE, content="#!/bin/sh\necho hi\n", new_mode=0o100755, source_line=1)),
        id="git-create-executable-zero-base",
    ),
    pytest.param(
        L(
            "diff --git a/VERSION b/VERSION",
            "new file mode 100644",
            "--- /dev/null",
            "+++ b/VERSION",
            "@@ -0,0 +1 @@",
            "+1.0",
            "\\ No newline at end of file",
        ),
        edits(FileEdit("VERSION", Op.CREATE, content="1.0", new_mode=0o100644, source_line=1)),
        id="git-create-without-final-newline",
    ),
    pytest.param(
        L(
            "diff --git a/old.txt b/old.txt",
            "deleted file mode 100644",
            "index 3b18e51..0000000",
            "--- a/old.txt",
            "+++ /dev/null",
            "@@ -1,2 +0,0 @@",
            "-one",
            "-two",
        ),
        edits(
            FileEdit(
                "old.txt",
                Op.DELETE,
                changes=(hunk("-one", "-two", start=1, line=6),),
                base="3b18e51",
                old_mode=0o100644,
                source_line=1,
            )
        ),
        id="git-delete-keeps-hunks",
    ),
    pytest.param(
        L("diff --git a/empty b/empty", "deleted file mode 100644", "index e69de29..0000000"),
        edits(FileEdit("empty", Op.DELETE, base="e69de29", old_mode=0o100644, source_line=1)),
        id="git-delete-empty-file-no-hunks",
    ),
    pytest.param(
        L(
            "diff --git a/t/basic.sh b/t/basic.sh",
            "old mode 100644",
            "new mode 100755",
            "diff --git a/t/lib.sh b/t/lib.sh",
            "old mode 100755",
            "new mode 100644",
        ),
        edits(
            modify("t/basic.sh", line=1, old_mode=0o100644, new_mode=0o100755),
            modify("t/lib.sh", line=4, old_mode=0o100755, new_mode=0o100644),
        ),
        id="git-mode-only-changes",
    ),
    pytest.param(
        L(
            "diff --git a/docs/old.md b/docs/new.md",
            "similarity index 100%",
            "rename from docs/old.md",
            "rename to docs/new.md",
        ),
        edits(FileEdit("docs/new.md", Op.RENAME, old_path="docs/old.md", source_line=1)),
        id="git-pure-rename",
    ),
    pytest.param(
        L(
            "diff --git a/rpull.c b/ssh-pull.c",
            "similarity index 97%",
            "rename from rpull.c",
            "rename to ssh-pull.c",
            "index 6f5a3e4..c8a9b7d 100644",
            "--- a/rpull.c",
            "+++ b/ssh-pull.c",
            "@@ -1,2 +1,2 @@",
            "-#include <rpull.h>",
            "+#include <ssh.h>",
            " int x;",
        ),
        edits(
            FileEdit(
                "ssh-pull.c",
                Op.RENAME,
                old_path="rpull.c",
                changes=(hunk("-#include <rpull.h>", "+#include <ssh.h>", " int x;", start=1, line=8),),
                base="6f5a3e4",
                source_line=1,
            )
        ),
        id="git-rename-with-hunks",
    ),
    pytest.param(
        L(
            "diff --git a/ls-tree.c b/ls-tree.c",
            "dissimilarity index 82%",
            "index 1f2e3d4..5a6b7c8 100644",
            "--- a/ls-tree.c",
            "+++ b/ls-tree.c",
            "@@ -1,2 +1,2 @@",
            "-old one",
            "-old two",
            "+new one",
            "+new two",
        ),
        edits(
            modify(
                "ls-tree.c",
                hunk("-old one", "-old two", "+new one", "+new two", start=1, line=6),
                line=1,
                base="1f2e3d4",
            )
        ),
        id="git-dissimilarity-rewrite-is-modify",
    ),
    pytest.param(
        L(
            r'diff --git "a/sp\303\251cial \"x\"" "b/sp\303\251cial \"x\""',
            r'--- "a/sp\303\251cial \"x\""',
            r'+++ "b/sp\303\251cial \"x\""',
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ),
        edits(modify('spécial "x"', hunk("-a", "+b", start=1, line=4), line=1)),
        id="git-c-quoted-octal-path",
    ),
    pytest.param(
        L(
            r'diff --git "a/post\timage.txt" "b/post\timage.txt"',
            "new file mode 100644",
            "--- /dev/null",
            r'+++ "b/post\timage.txt"',
            "@@ -0,0 +1 @@",
            "+postimage",
        ),
        edits(FileEdit("post\timage.txt", Op.CREATE, content="postimage\n", new_mode=0o100644, source_line=1)),
        id="git-c-quoted-tab",
    ),
    pytest.param(
        L(
            "diff --git a/my docs/read me.txt b/my docs/read me.txt",
            "--- a/my docs/read me.txt",
            "+++ b/my docs/read me.txt\t",
            "@@ -1 +1 @@",
            "-x",
            "+y",
        ),
        edits(modify("my docs/read me.txt", hunk("-x", "+y", start=1, line=4), line=1)),
        id="git-unquoted-spaces-trailing-tab",
    ),
    pytest.param(
        L(
            "diff --git file2 file2",
            "index c337bf1..1cb02b9 100644",
            "--- file2",
            "+++ file2",
            "@@ -4,0 +5,1 @@ line24",
            "+line24n",
        ),
        edits(modify("file2", hunk("+line24n", start=5, line=5), line=1, base="c337bf1")),
        id="git-no-prefix",
    ),
    pytest.param(
        L("diff --git a/ls-tree.c b/ls-tree.c", "--- ls-tree.c", "+++ ls-tree.c", "@@ -1 +1 @@", "-a", "+b"),
        edits(modify("ls-tree.c", hunk("-a", "+b", start=1, line=4), line=1)),
        id="git-old-style-unprefixed-pair",
    ),
    pytest.param(
        L("diff --git i/x.py w/x.py", "--- i/x.py", "+++ w/x.py", "@@ -1 +1 @@", "-a", "+b"),
        edits(modify("x.py", hunk("-a", "+b", start=1, line=4), line=1)),
        id="git-mnemonic-prefixes",
    ),
    pytest.param(
        L("diff --git a/x.py b/x.py", "@@ -2,2 +2,2 @@", " keep", "-old", "+new"),
        edits(modify("x.py", hunk(" keep", "-old", "+new", start=2, line=2), line=1)),
        id="git-header-then-hunk-without-pair",
    ),
    pytest.param(
        L(
            "diff --git a/logo.png b/logo.png",
            "index 1914264..af00000 100644",
            "GIT binary patch",
            "literal 95",
            "zcmeAS@N?(olHy`uVBq!ia0vp^j3CU&3?x-=hn)ga%mF?ju0VQumF+E%TuG2$FoVOh",
            "",
            "literal 0",
            "HcmV?d00001",
            "",
        ),
        edits(modify("logo.png", line=1, base="1914264", binary=True)),
        id="git-binary-patch",
    ),
    pytest.param(
        L(
            "diff --git a/icon.gif b/icon.gif",
            "new file mode 100644",
            "index 0000000..7e5f1c2",
            "Binary files /dev/null and b/icon.gif differ",
        ),
        edits(FileEdit("icon.gif", Op.CREATE, new_mode=0o100644, binary=True, source_line=1)),
        id="git-binary-files-differ",
    ),
]

# ---------------------------------------------------------------------------- plain diff -u and wrappers

PLAIN_CASES = [
    pytest.param(
        L(
            "--- hello.c\t2024-01-01 10:00:00.000000000 +0100",
            "+++ hello.c\t2024-01-02 11:30:00.000000000 +0100",
            "@@ -1,2 +1,2 @@",
            " #include <stdio.h>",
            "-int main() {",
            "+int main(void) {",
        ),
        edits(modify("hello.c", hunk(" #include <stdio.h>", "-int main() {", "+int main(void) {", start=1, line=3), line=1)),
        id="plain-timestamps-cut-no-prefix-kept",
    ),
    pytest.param(
        L("--- a/src/x.c", "+++ b/src/x.c", "@@ -1 +1 @@", "-a", "+b"),
        edits(modify("src/x.c", hunk("-a", "+b", start=1, line=3), line=1)),
        id="plain-a-b-prefixes-stripped",
    ),
    pytest.param(
        L("--- src/x.c", "+++ src/x.c", "@@ -1 +1 @@", "-a", "+b"),
        edits(modify("src/x.c", hunk("-a", "+b", start=1, line=3), line=1)),
        id="plain-unprefixed-path-as-is",
    ),
    pytest.param(
        L(
            "--- post image.txt.orig\t2010-08-18 20:13:31 -0500",
            "+++ post image.txt\t2010-08-18 20:13:31 -0500",
            "@@ -1 +1 @@",
            "-preimage",
            "+postimage",
        ),
        edits(modify("post image.txt", hunk("-preimage", "+postimage", start=1, line=3), line=1)),
        id="plain-orig-suffix-and-spaces",
    ),
    pytest.param(
        L(
            "--- a/my file.txt 2024-01-01 10:00:00 +0000",
            "+++ b/my file.txt 2024-01-01 10:05:00 +0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ),
        edits(modify("my file.txt", hunk("-a", "+b", start=1, line=3), line=1)),
        id="plain-timestamp-after-space",
    ),
    pytest.param(
        L(
            "diff -ru old/src/x.c new/src/x.c",
            "--- old/src/x.c\t2024-01-01 10:00:00.000000000 +0000",
            "+++ new/src/x.c\t2024-01-01 10:05:00.000000000 +0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "Only in new: extra.txt",
            "diff -ru old/y.c new/y.c",
            "--- old/y.c\t2024-01-01 10:00:00.000000000 +0000",
            "+++ new/y.c\t2024-01-01 10:05:00.000000000 +0000",
            "@@ -3 +3 @@",
            "-c",
            "+d",
        ),
        edits(
            modify("src/x.c", hunk("-a", "+b", start=1, line=4), line=2),
            modify("y.c", hunk("-c", "+d", start=3, line=11), line=9),
        ),
        id="plain-diff-ru-two-trees",
    ),
    pytest.param(
        L("--- /dev/null", "+++ b/pkg/new.py", "@@ -0,0 +1,2 @@", "+import os", "+print(os.sep)"),
        edits(FileEdit("pkg/new.py", Op.CREATE, content="import os\nprint(os.sep)\n", source_line=1)),
        id="plain-dev-null-create",
    ),
    pytest.param(
        L("--- a/gone.py", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-x = 1", "-y = 2"),
        edits(FileEdit("gone.py", Op.DELETE, changes=(hunk("-x = 1", "-y = 2", start=1, line=3),), source_line=1)),
        id="plain-dev-null-delete",
    ),
    pytest.param(
        L(
            "Index: modified_file",
            "===================================================================",
            "--- modified_file\t(revision 191)",
            "+++ modified_file\t(working copy)",
            "@@ -1,2 +1,2 @@",
            " keep",
            "-old",
            "+new",
            "Index: removed_file",
            "===================================================================",
            "--- removed_file\t(revision 188)",
            "+++ removed_file\t(working copy)",
            "@@ -1,2 +0,0 @@",
            "-gone 1",
            "-gone 2",
            "Index: added_file",
            "===================================================================",
            "--- added_file\t(revision 0)",
            "+++ added_file\t(revision 0)",
            "@@ -0,0 +1,2 @@",
            "+new 1",
            "+new 2",
        ),
        edits(
            modify("modified_file", hunk(" keep", "-old", "+new", start=1, line=5), line=3),
            FileEdit("removed_file", Op.DELETE, changes=(hunk("-gone 1", "-gone 2", start=1, line=13),), source_line=11),
            FileEdit("added_file", Op.CREATE, content="new 1\nnew 2\n", source_line=18),
        ),
        id="svn-index-wrapper-and-zero-ranges",
    ),
    pytest.param(
        L(
            "diff -r 44299fd3d1a8 added_file",
            "--- /dev/null\tThu Jan 01 00:00:00 1970 +0000",
            "+++ b/added_file\tSun Oct 13 20:51:40 2013 -0300",
            "@@ -0,0 +1 @@",
            "+hello",
        ),
        edits(FileEdit("added_file", Op.CREATE, content="hello\n", source_line=2)),
        id="hg-diff-r",
    ),
    pytest.param(
        L(
            "=== modified file 'modified_file'",
            "--- modified_file\t2013-10-13 23:53:13 +0000",
            "+++ modified_file\t2013-10-13 23:53:26 +0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "",
            "=== removed file 'removed_file'",
            "--- removed_file\t2013-10-13 23:53:13 +0000",
            "+++ removed_file\t1970-01-01 00:00:00 +0000",
            "@@ -1 +0,0 @@",
            "-bye",
        ),
        edits(
            modify("modified_file", hunk("-a", "+b", start=1, line=4), line=2),
            FileEdit("removed_file", Op.DELETE, changes=(hunk("-bye", start=1, line=11),), source_line=9),
        ),
        id="bzr-wrapper",
    ),
    pytest.param(
        L(
            "Index: src/Foo.java",
            "===================================================================",
            "RCS file: /cvsroot/proj/src/Foo.java,v",
            "retrieving revision 1.6",
            "diff -u -r1.6 Foo.java",
            "--- src/Foo.java\t23 Jul 2001 17:51:45 -0000\t1.6",
            "+++ src/Foo.java\t17 May 2002 20:27:56 -0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ),
        edits(modify("src/Foo.java", hunk("-a", "+b", start=1, line=8), line=6)),
        id="cvs-wrapper-two-tabs",
    ),
    pytest.param(
        L(
            "--- js/StringLiteral.java(revision 5547)",
            "+++ js/StringLiteral.java(working copy)",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ),
        edits(modify("js/StringLiteral.java", hunk("-a", "+b", start=1, line=3), line=1)),
        id="svn-note-without-tab",
    ),
    pytest.param(
        L(
            "Binary files a/img/a.png and b/img/a.png differ",
            "Binary files /dev/null and b/img/new.png differ",
        ),
        edits(
            modify("img/a.png", line=1, binary=True),
            FileEdit("img/new.png", Op.CREATE, binary=True, source_line=2),
        ),
        id="plain-binary-files-lines",
    ),
]

# ---------------------------------------------------------------------------- junk, prose, fences, merging

JUNK_CASES = [
    pytest.param(
        L(
            "ceede59ea90cebad52ba9c8263fef3fb6ef17593 (from 368f99d57e8ed17243f2e164431449d48bfca2fb)",
            "Here is the fix:",
            "```diff",
            "cat > fix.patch <<'EOF'",
            "--- a/x.py",
            "+++ b/x.py",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "EOF",
            "```",
            "That should do it.",
        ),
        edits(modify("x.py", hunk("-a", "+b", start=1, line=7), line=5)),
        id="junk-before-and-after",
    ),
    pytest.param(
        L(
            "First, the model:",
            "```patch",
            "--- a/model.py",
            "+++ b/model.py",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "```",
            "Then the view, twice:",
            "```",
            "--- a/view.py",
            "+++ b/view.py",
            "@@ -5 +5 @@",
            "-c",
            "+d",
            "```",
            "and a later spot in the model:",
            "```diff",
            "--- a/model.py",
            "+++ b/model.py",
            "@@ -9 +9 @@",
            "-e",
            "+f",
            "```",
        ),
        edits(
            modify("model.py", hunk("-a", "+b", start=1, line=5), hunk("-e", "+f", start=9, line=21), line=3),
            modify("view.py", hunk("-c", "+d", start=5, line=13), line=11),
        ),
        id="fences-prose-and-same-path-merged-in-order",
    ),
    pytest.param(
        L(
            "--- a/x.py",
            "+++ b/x.py",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "Now the second change in the same file:",
            "@@ -20 +20 @@",
            "-c",
            "+d",
        ),
        edits(modify("x.py", hunk("-a", "+b", start=1, line=3), hunk("-c", "+d", start=20, line=7), line=1)),
        id="prose-between-hunks-of-one-file",
    ),
    pytest.param(
        L(
            "From 62ea0eaf Mon Sep 17 00:00:00 2001",
            "From: A U Thor <author@example.com>",
            "Subject: [PATCH] fix",
            "",
            "---",
            " x.c | 2 +-",
            " 1 file changed, 1 insertion(+), 1 deletion(-)",
            "",
            "diff --git a/x.c b/x.c",
            "--- a/x.c",
            "+++ b/x.c",
            "@@ -1,2 +1,2 @@",
            " int a;",
            "-int b;",
            "+long b;",
            "-- ",
            "2.43.0",
        ),
        edits(modify("x.c", hunk(" int a;", "-int b;", "+long b;", start=1, line=12), line=9)),
        id="format-patch-mail-and-signature",
    ),
    pytest.param(
        L(
            "A patch for IRFactory:",
            "---",
            "--- a/IRFactory.java",
            "+++ b/IRFactory.java",
            "@@ -10,2 +10,3 @@",
            "   break;",
            "+  case THIS:",
            "   default:",
            "---",
            "",
            "That is not enough for the other tests.",
        ),
        edits(modify("IRFactory.java", hunk("   break;", "+  case THIS:", "   default:", start=10, line=5), line=3)),
        id="markdown-rule-after-hunk",
    ),
]

# ---------------------------------------------------------------------------- hunk bodies and headers

HUNK_CASES = [
    pytest.param(
        L("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-test_done", "+test_done", "\\ No newline at end of file"),
        edits(modify("f", hunk("-test_done", "+test_done", start=1, line=3, no_eol="new"), line=1)),
        id="no-newline-new-side",
    ),
    pytest.param(
        L("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-test_done", "\\ No newline at end of file", "+test_done"),
        edits(modify("f", hunk("-test_done", "+test_done", start=1, line=3, no_eol="old"), line=1)),
        id="no-newline-old-side",
    ),
    pytest.param(
        L("--- a/frotz", "+++ b/frotz", "@@ -1,2 +1,3 @@", " a", "+c", " b", "\\ No newline at end of file"),
        edits(modify("frotz", hunk(" a", "+c", " b", start=1, line=3, no_eol="both"), line=1)),
        id="no-newline-after-context-both-sides",
    ),
    pytest.param(
        L(
            "diff --git a/w.txt b/w.txt",
            "--- a/w.txt",
            "+++ b/w.txt",
            "@@ -1,2 +1,2 @@ sect",
            " one",
            "-two",
            "+2",
            "diff --git a/n.txt b/n.txt",
            "new file mode 100644",
            "--- /dev/null",
            "+++ b/n.txt",
            "@@ -0,0 +1,2 @@",
            "+x",
            "+y",
        ).replace("\n", "\r\n"),
        edits(
            modify("w.txt", hunk(" one\r", "-two\r", "+2\r", start=1, line=4), line=1),
            FileEdit("n.txt", Op.CREATE, content="x\r\ny\r\n", new_mode=0o100644, source_line=8),
        ),
        id="crlf-body-keeps-cr-headers-do-not",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,1 +1,1 @@", " a", "-b", "+c", " d"),
        edits(modify("x", hunk(" a", "-b", "+c", " d", start=1, line=3, declared=(1, 1)), line=1), repairs=RECOUNT),
        id="counts-too-small-recounted",
    ),
    pytest.param(
        L(
            "--- a/x",
            "+++ b/x",
            "@@ -1,999 +1,999 @@",
            " a",
            "-b",
            "+c",
            "--- a/y",
            "+++ b/y",
            "@@ -7,3 +7,3 @@",
            " p",
            "-q",
            "+r",
            " s",
        ),
        edits(
            modify("x", hunk(" a", "-b", "+c", start=1, line=3, declared=(999, 999)), line=1),
            modify("y", hunk(" p", "-q", "+r", " s", start=7, line=9), line=7),
            repairs=RECOUNT,
        ),
        id="counts-too-large-stop-at-next-file",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -40,6 +40,6 @@", " a", " b", " c", "-d", "+e", "```"),
        edits(modify("x", hunk(" a", " b", " c", "-d", "+e", start=40, line=3, declared=(6, 6)), line=1), repairs=RECOUNT),
        id="stops-after-last-change-wrong-start-kept",
    ),
    pytest.param(
        L(
            "--- a/x",
            "+++ b/x",
            "@@ @@",
            "-a",
            "+b",
            "@@",
            "-c",
            "+d",
            "@@ ... @@",
            "-e",
            "+f",
            "@@ -? +? @@ def g():",
            "-g",
            "+h",
        ),
        edits(
            modify(
                "x",
                hunk("-a", "+b", start=None, line=3, declared=(None, None)),
                hunk("-c", "+d", start=None, line=6, declared=(None, None)),
                hunk("-e", "+f", start=None, line=9, declared=(None, None)),
                hunk("-g", "+h", start=None, line=12, declared=(None, None)),
                line=1,
            )
        ),
        id="headers-without-numbers",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,4 +1,4 @@", " a", "", "-b", "+c", " d"),
        edits(modify("x", hunk(" a", " ", "-b", "+c", " d", start=1, line=3), line=1)),
        id="blank-line-inside-is-empty-context",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "", "This changes b to c."),
        edits(modify("x", hunk(" a", "-b", "+c", start=1, line=3), line=1)),
        id="blank-then-prose-after-hunk-not-part",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,2 +1,2 @@", " a", "-b", "+c", ""),
        edits(modify("x", hunk(" a", "-b", "+c", start=1, line=3), line=1)),
        id="blank-at-end-of-input-not-part",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,3 +1,3 @@", " a", "-b", "+c", "", "Explanation follows."),
        edits(modify("x", hunk(" a", "-b", "+c", " ", start=1, line=3), line=1)),
        id="trailing-blank-kept-when-counts-need-exactly-it",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "", "-d", "+e"),
        edits(modify("x", hunk(" a", "-b", "+c", " ", "-d", "+e", start=1, line=3, declared=(2, 2)), line=1), repairs=RECOUNT),
        id="blank-inside-after-counts-met-continues",
    ),
    pytest.param(
        L("--- a/x", "+++ b/x", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "This line ends the hunk.", " not a hunk line"),
        edits(modify("x", hunk(" a", "-b", "+c", start=1, line=3), line=1)),
        id="non-body-line-ends-hunk",
    ),
    pytest.param(
        L(
            "diff --git a/x b/x",
            "--- a/x",
            "+++ b/x",
            "@@ -0,0 +1 @@",
            "+top",
            "@@ -5,0 +7,2 @@",
            "+after five",
            "+more",
            "@@ -9 +11 @@",
            "-nine",
            "+NINE",
        ),
        edits(
            modify(
                "x",
                hunk("+top", start=1, line=4),
                hunk("+after five", "+more", start=6, line=6),
                hunk("-nine", "+NINE", start=9, line=9, declared=(1, 1)),
                line=1,
            )
        ),
        id="old-start-of-insertions-and-omitted-counts",
    ),
]

OTHER_CASES = [
    pytest.param(
        L("diff --git a/x b/x", "@@ -1 +1 @@", "-a", "+b", "diff --git a/x b/x", "old mode 100644", "new mode 100755"),
        edits(modify("x", hunk("-a", "+b", start=1, line=2), line=1, old_mode=0o100644, new_mode=0o100755)),
        id="hunks-and-mode-for-one-path-merged",
    ),
    pytest.param(
        L(
            "diff --git a/a b/b",
            "similarity index 90%",
            "rename from a",
            "rename to b",
            "diff --git a/b b/b",
            "@@ -3 +3 @@",
            "-x",
            "+y",
        ),
        edits(FileEdit("b", Op.RENAME, old_path="a", changes=(hunk("-x", "+y", start=3, line=6),), source_line=1)),
        id="rename-then-modify-of-new-path-merged",
    ),
]


def _any_base(edits: EditSet) -> EditSet:
    """`edits` with every path read from the same place (test_path_base checks where)."""
    return edits._replace(files=tuple(f._replace(path_base=PathBase.HERE) for f in edits.files))


@pytest.mark.parametrize("text, expected", GIT_CASES + PLAIN_CASES + JUNK_CASES + HUNK_CASES + OTHER_CASES)
def test_parse(text: str, expected: EditSet) -> None:
    assert _any_base(unified.parse(text)) == expected


@pytest.mark.parametrize(
    "text, path, base",
    [
        # As git apply reads them: a `diff --git` patch names files from the top of the repository...
        (L("diff --git a/app.py b/app.py", "--- a/app.py", "+++ b/app.py", "@@ -1 +1 @@", "-a", "+b"), None, PathBase.ROOT),
        (L("diff --git app.py app.py", "--- app.py", "+++ app.py", "@@ -1 +1 @@", "-a", "+b"), None, PathBase.ROOT),
        # ... other diffs from the current folder (unless the name already starts with it) ...
        (L("--- a/app.py", "+++ b/app.py", "@@ -1 +1 @@", "-a", "+b"), None, PathBase.GUESS),
        (L("--- app.py.orig", "+++ app.py", "@@ -1 +1 @@", "-a", "+b"), None, PathBase.GUESS),
        # ... and a name given with --path is the agent's own.
        (L("@@ -1 +1 @@", "-a", "+b"), "app.py", PathBase.HERE),
    ],
)
def test_path_base(text: str, path: str | None, base: PathBase) -> None:
    assert [f.path_base for f in unified.parse(text, path=path).files] == [base]


def test_hunks_without_header_take_the_given_path() -> None:
    text = L("Change this:", "@@ -3,2 +3,2 @@", " keep", "-old", "+new")
    assert unified.parse(text, path="lib/x.py") == edits(
        modify("lib/x.py", hunk(" keep", "-old", "+new", start=3, line=2), line=2)
    )


def test_counts_that_agree_are_not_a_repair() -> None:
    assert unified.parse(L("--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b")).repairs == ()


# ---------------------------------------------------------------------------- refusals

ERROR_CASES = [
    pytest.param("", 1, "empty input", id="empty"),
    pytest.param("  \n\n\t\n", 1, "empty input", id="whitespace-only"),
    pytest.param(L("I changed the code as requested.", "All tests pass."), 1, "no unified diff", id="prose-only"),
    pytest.param(L("@@ -1 +1 @@", "-a", "+b"), 1, "no file header", id="hunk-without-header"),
    pytest.param(
        L("diff --git a/f b/f", "index 7898192..6178079 100644", "--- a/f", "@@ -1 +1 @@", "-a", "+b"),
        4,
        "expected a `+++",
        id="git-minus-without-plus",
    ),
    pytest.param(L("--- a/f", "@@ -1 +1 @@", "-a", "+b"), 2, "expected a `+++", id="plain-minus-without-plus"),
    pytest.param(L("diff --git a/f b/f", "--- a/f", "+++ b/f", "this is garbage"), 4, "followed by no hunk", id="only-garbage"),
    pytest.param(L("--- a/f", "+++ b/f"), 2, "followed by no hunk", id="header-at-end"),
    pytest.param(
        L("diff -u a/file b/file", "--- a/file", "+++ b/file", "@@ -98765432109876543210 +98765432109876543210 @@", "-a", "+b"),
        4,
        "too large",
        id="line-number-overflow",
    ),
    pytest.param(L("--- a/f", "+++ b/f", "@@ -2147483648 +1 @@", "-a", "+b"), 3, "too large", id="just-past-2-31"),
    pytest.param(L("diff --git a/f b/f", "old mode 10x644"), 2, "invalid mode", id="invalid-old-mode"),
    pytest.param(
        L("diff --git a/f b/f", "new file mode 1006444", "--- /dev/null", "+++ b/f", "@@ -0,0 +1 @@", "+a"),
        2,
        "invalid mode",
        id="invalid-new-file-mode",
    ),
    pytest.param(
        L("diff --git a/f b/f", "index 1234567..89abcde 10o644", "--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b"),
        2,
        "invalid mode",
        id="invalid-index-mode",
    ),
    pytest.param(
        L("diff --git a/pull b/fetch", "similarity index 87%", "copy from pull", "copy to fetch"),
        3,
        "copies are not supported",
        id="copy-refused",
    ),
    pytest.param(L("--- a/f", "+++ b/f", "@@ -1 +1 @@", "@@ -5 +5 @@", "-a", "+b"), 3, "has no body", id="hunk-without-body"),
    pytest.param(L("--- a/f", "+++ b/f", "@@ -1 +1 @@"), 3, "the input ends", id="truncated-after-header"),
    pytest.param(L("--- a/f", "+++ b/f", "@@ -1 +1 @@", "", ""), 3, "has no body", id="header-then-blank-lines"),
    pytest.param(L("--- a/f", "+++ b/f", "@@ -a,b +c,d @@", "-a", "+b"), 3, "unreadable hunk header", id="unreadable-header"),
    pytest.param(
        L("diff --git a/sub/one b/sub/other", "similarity index 100%", "rename from one", "rename to other"),
        1,
        "rename from one",
        id="rename-lines-disagree-with-header",
    ),
    pytest.param(
        L("diff --git a/x b/x", "--- a/y", "+++ b/y", "@@ -1 +1 @@", "-a", "+b"),
        1,
        "`--- a/y`",
        id="pair-disagrees-with-header",
    ),
    pytest.param(
        L("--- /dev/null", "+++ b/new.py", "@@ -0,0 +1,2 @@", " context", "+added"),
        3,
        "is a new file",
        id="create-with-context",
    ),
    pytest.param(L("--- a/old.py", "+++ /dev/null", "@@ -1 +1 @@", "-a", "+b"), 3, "is deleted, but", id="delete-adding-lines"),
    pytest.param(
        L("--- /dev/null", "+++ b/x", "@@ -0,0 +1 @@", "+a", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"),
        5,
        "two sections that disagree",
        id="create-and-modify-same-path",
    ),
    pytest.param(L("diff --git a/x b/x", "index 1234567..89abcde"), 1, "followed by no change", id="git-no-change"),
    pytest.param(
        L("--- a/x.py", "+++ b/x.py", "@@ -1,4 +1,4 @@", " a", "def f():", "-    return 1", "+    return 2"),
        5,
        "starts with none of",
        id="context-line-lost-its-space",
    ),
    pytest.param(L("--- /dev/null", "+++ /dev/null", "@@ -0,0 +0,0 @@", " x"), 1, "missing file name", id="both-sides-dev-null"),
]


@pytest.mark.parametrize("text, line, fragment", ERROR_CASES)
def test_refusal(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as caught:
        unified.parse(text)
    assert caught.value.line == line
    assert fragment in caught.value.message
    assert caught.value.hint, "every refusal says what is expected"


# ---------------------------------------------------------------------------- detect

DETECT_CASES = [
    pytest.param(L("diff --git a/x b/x", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"), 100, id="git"),
    pytest.param(L("--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"), 95, id="plain"),
    pytest.param(
        L("Sure:", "```diff", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b", "```", "Done."), 95, id="fenced-with-prose"
    ),
    pytest.param("--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", 95, id="crlf"),
    pytest.param(L("diff --git a/x b/x", "old mode 100644", "new mode 100755"), 90, id="git-mode-only"),
    pytest.param(L("@@ -1 +1 @@", "-a", "+b"), 40, id="bare-hunk"),
    pytest.param(L("*** Begin Patch", "*** Update File: x", "@@", "-a", "+b", "*** End Patch"), 0, id="codex"),
    pytest.param(L("x.py", "```", "<<<<<<< SEARCH", "a", "=======", "b", ">>>>>>> REPLACE", "```"), 0, id="search-replace"),
    pytest.param('{"edits": [{"path": "x", "old": "--- a", "new": "+++ b"}]}', 0, id="json"),
    pytest.param(L("Just prose.", "No diff here."), 0, id="prose"),
    pytest.param("", 0, id="empty"),
    pytest.param(
        L("--- a/doc.md", "+++ b/doc.md", "@@ -1 +1 @@", " *** Begin Patch", "-a", "+b"), 95, id="codex-marker-quoted-in-diff"
    ),
]


@pytest.mark.parametrize("text, score", DETECT_CASES)
def test_detect(text: str, score: int) -> None:
    assert unified.detect(text) == score


def test_name() -> None:
    assert unified.NAME == "unified"


# ---------------------------------------------------------------------------- size


@pytest.mark.slow
def test_large_patch_parses_in_linear_time() -> None:
    chunk = L(" context line that repeats", "-removed line", "+added line", " more context", "")
    parts = []
    for f in range(300):
        parts.append(L(f"diff --git a/f{f}.py b/f{f}.py", f"--- a/f{f}.py", f"+++ b/f{f}.py"))
        parts.extend(f"@@ -{k * 10 + 1},3 +{k * 10 + 1},3 @@\n" + chunk.replace("line", f"line {k}") for k in range(400))
    text = "".join(parts)  # about 10 MB
    started = time.perf_counter()
    parsed = unified.parse(text)
    elapsed = time.perf_counter() - started
    assert len(parsed.files) == 300 and sum(len(f.changes) for f in parsed.files) == 120_000
    assert elapsed < 20, f"{len(text) / 1e6:.0f} MB took {elapsed:.1f}s"


# ---------------------------------------------------------------------------- corpora (read in place, never copied)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def _stat(edit: FileEdit) -> tuple[int, int]:
    """Added/removed lines as git counts them: hunk lines, or a created file's lines."""
    if edit.op is Op.CREATE:
        content = edit.content or ""
        return content.count("\n") + (0 if content.endswith("\n") or not content else 1), 0
    lines = [hl for h in edit.changes if isinstance(h, Hunk) for hl in h.lines]
    return sum(hl.tag == "+" for hl in lines), sum(hl.tag == "-" for hl in lines)


def _corpus(name: str) -> Path:
    folder = CORPORA / name
    if not folder.is_dir():
        pytest.skip(f"corpus {folder} is absent")
    return folder


def _git_apply_cases() -> list[dict[str, object]]:
    cases = json.loads((_corpus("git-apply") / "cases.json").read_text(encoding="utf-8"))["cases"]
    assert isinstance(cases, list)
    return cases


def _is_patch(path: Path) -> bool:
    return path.is_file() and (path.suffix in (".diff", ".patch") or path.name.startswith("diff."))


COPY_PATCHES = {"t-apply-2.patch"}  # `copy from`/`copy to`: refused by design


def test_git_apply_corpus_every_patch_parses() -> None:
    root = _corpus("git-apply")
    folders = ("t4100", "t4101", "t4109", "t4110", "t4135", "derived")
    patches = sorted(p for sub in folders for p in (root / sub).rglob("*") if _is_patch(p))
    assert len(patches) >= 55
    for patch in patches:
        if patch.name in COPY_PATCHES:
            with pytest.raises(ParseError, match="copies are not supported"):
                unified.parse(_read(patch))
            continue
        parsed = unified.parse(_read(patch))
        assert parsed.files, patch
        assert unified.detect(_read(patch)) >= 90, patch


def test_git_apply_corpus_parse_stat() -> None:
    root = _corpus("git-apply")
    agree = 0
    stat_cases = [c for c in _git_apply_cases() if c["kind"] == "parse-stat"]
    assert len(stat_cases) == 18
    for case in stat_cases:
        text = _read(root / str(case["patch"]))
        want = case["files"]
        assert isinstance(want, list)
        if any(f["op"] == "copy" for f in want):
            with pytest.raises(ParseError, match="copies are not supported"):
                unified.parse(text)
            continue
        parsed = unified.parse(text)
        got = sorted((e.path, e.op.value, e.old_path, *_stat(e)) for e in parsed.files)
        expected = sorted((f["path"], f["op"], f["old_path"], f["added"], f["removed"]) for f in want)
        assert got == expected, case["id"]
        if str(case["id"]).endswith("-recount") and "t-apply-4" not in str(case["patch"]):
            assert parsed.repairs == ("recount",), case["id"]
        agree += 1
    assert agree == 16  # the 2 copy cases are refused


def test_git_apply_corpus_refusals_name_the_line() -> None:
    refusals = [c for c in _git_apply_cases() if c["kind"] == "refuse"]
    assert len(refusals) == 5
    for case in refusals:
        found = re.search(r":(\d+)", str(case["git_error"]))
        assert found
        with pytest.raises(ParseError) as caught:
            unified.parse(str(case["patch_text"]))
        assert caught.value.line == int(found.group(1)), case["id"]


def test_git_apply_corpus_apply_cases_name_their_files() -> None:
    root = _corpus("git-apply")
    for case in _git_apply_cases():
        if case["kind"] != "apply":
            continue
        if "patch_text" in case:  # t4135-inline-svn-delete: needs -p2, optional; refused at `@@ +1 0,0 @@`
            with pytest.raises(ParseError, match="unreadable hunk header"):
                unified.parse(str(case["patch_text"]))
            continue
        before, after = case["before"], case["after"]
        assert isinstance(before, dict) and isinstance(after, dict)
        for patch in case["patches"]:  # type: ignore[attr-defined]
            for edit in unified.parse(_read(root / patch)).files:
                assert edit.path in after or edit.path in before, (case["id"], edit.path)


# unidiff-samples: where agent-guard deliberately reads a file differently from expected.json.
UNIDIFF_DIVERGES = {
    # The third rename's `rename from/to` lines disagree with its `diff --git` line: refused.
    "git_rename.diff": "refused",
    # `diff -u -N original/added.txt new/added.txt`: a two-tree diff, stripped like git -p1.
    "debdiff.diff": {"new/added.txt": "added.txt"},
    # `src://`/`dst://` prefixes are stripped like `a/`/`b/`, leaving an absolute path the engine refuses.
    "git_filenames_with_spaces_prefix.diff": {"dst://foo bar/baz": "/foo bar/baz"},
    # Cut off inside its last hunk, without a final line break: refused as truncated.
    "sample2.diff": "truncated",
}
# Malformed in expected.json (counts disagree with the body, or a hunk cut short): read with `recount`.
UNIDIFF_RECOUNTED = {"sample1.diff", "sample6.diff", "sample7.diff"}


def test_unidiff_samples() -> None:
    root = _corpus("unidiff-samples")
    samples = json.loads((root / "expected.json").read_text(encoding="utf-8"))["samples"]
    assert len(samples) == 24
    for sample in samples:
        name = sample["file"]
        text = _read(root / name)
        if UNIDIFF_DIVERGES.get(name) == "refused":
            with pytest.raises(ParseError, match="rename from"):
                unified.parse(text)
            continue
        if UNIDIFF_DIVERGES.get(name) == "truncated":
            with pytest.raises(ParseError, match="cut off"):
                unified.parse(text)
            continue
        parsed = unified.parse(text)
        if name in UNIDIFF_RECOUNTED:
            assert sample["parse"] == "malformed" and parsed.repairs == ("recount",), name
            continue
        renamed = UNIDIFF_DIVERGES.get(name, {})
        assert isinstance(renamed, dict)
        got = [(e.path, e.op.value, e.old_path if e.op is Op.RENAME else None, e.binary) for e in parsed.files]
        expected = [
            (renamed.get(f["path"], f["path"]), f["op"], f["old_path"] if f["op"] == "rename" else None, bool(f.get("binary")))
            for f in sample["files"]
        ]
        assert got == expected, name
        for edit, want in zip(parsed.files, sample["files"]):
            if not edit.binary:
                assert _stat(edit) == (want["added"], want["removed"]), (name, edit.path)
