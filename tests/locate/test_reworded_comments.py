"""A new comment next to a marker that rewords the comment the marker keeps there: replace, or add?

Held-out lazy snippets with no context on the marker's side put `# read settings` beside the
file's `# read config` instead of in its place.  One word renamed, added or dropped in a
comment, with another word in common, is read as a changed version of that line: the merge
refuses it as `ambiguous`, as it does a near copy of a code line (case folders
`*comment*replace_or_insert` in tests/cases_lazy/).
"""

from __future__ import annotations

import pytest

from guard.locate.pieces import _comment_reworded, _same_head

REWORDED = [
    ("# read settings", "# read config"),  # a word renamed
    ("# read", "# read config"),  # a word dropped
    ("# read the config", "# read config"),  # a word added
    ("// drop blank rows", "// drop empty rows"),
    ("/* keep a copy */", "/* keep the copy */"),
    ("* Returns the value.", "* Returns the cached value."),
    ("-- count rows", "-- count users"),
    ("; save registers", "; restore registers"),
    ("<!-- main menu -->", "<!-- side menu -->"),
    ("# Headers", "#  Headers sent"),
]
NOT_REWORDED = [
    ("# cached per process", "# read config"),  # no word in common
    ("# foo", "# bar"),  # one word each: nothing in common
    ("# read settings from disk", "# read config"),  # two words differ
    ("#include <stdlib.h>", "#include <stdio.h>"),  # not comments: preprocessor lines
    ("#!/bin/sh -e", "#!/bin/sh -x"),
    ("x = 1  # read config", "# read config"),  # code, with a comment after it
    ("read(config)", "read(settings)"),  # code: judged by the code rules
    ("# read config", "# read config."),  # punctuation only: not a word
]


@pytest.mark.parametrize("new,old", REWORDED)
def test_reworded(new: str, old: str) -> None:
    assert _comment_reworded(new, old) and _same_head("    " + new, "    " + old)


@pytest.mark.parametrize("new,old", NOT_REWORDED)
def test_not_reworded(new: str, old: str) -> None:
    assert not _comment_reworded(new, old)
