"""Hashline edits: numbered-line changes to a file as ``git agent-read`` showed it.

``git agent-read PATH`` prints a header ``[PATH#TAG]`` and the file's lines as
``N:text``.  TAG is the first 8 hex digits of the git blob id of the content it
showed (the blob is stored in the object database at read time).  An edit names
lines by those numbers, under the same header, and applies only to that content.

Grammar (one op per line; keywords in any case; a trailing ``:`` is optional except where
a ``PUT`` without it means a paste)::

    edit     := { prose } section { section | prose }
    section  := header NL { op | blank }
    header   := "[" PATH "#" TAG "]"          TAG: 4 to 40 hex digits, as the read printed it
              | "[" PATH "]"                  only for `create`
    op       := "replace" AT NL body          replace lines A..B (inclusive), or block N*, with the body
              | "insert before" N NL body     insert the body before line N
              | "insert after" N NL body      insert it after line N (0: at the top; $: after the last line)
              | "insert after" N "*" NL body  insert it after the block that opens on line N
              | "delete" AT [ REG ]           delete lines A..B, or block N*; with REG, keep them there
              | "replace" AT REG              put REG's lines in place of A..B or of block N*
              | "insert before" N REG         put REG's lines before line N
              | "insert after" N ["*"] REG    put them after line N, or after block N
              | "delete file"                 delete PATH; takes no body; the section's only op
              | "move to" DEST                after the section's ops, move the file to DEST
              | "create" NL body              create PATH, which must not exist (header without a tag)
    AT       := RANGE | N "*"                 N*: the syntax block that opens on line N (guard/syntax/blocks.py)
    RANGE    := N [ ".." ( N | "$" ) ]        also N-M, N.=M, N:M, N,M; N alone is one line; $ the last
                                              (a "line"/"lines" before N or RANGE is allowed)
    REG      := "@" NAME | "@"                a register: NAME is a letter or "_", then letters,
                                              digits, "_", "." or "-"; "@" alone is the unnamed one
    body     := { "+" TEXT NL }               one row per new line: "+" alone is an empty line and
                                              "++x" the line "+x"; rows are never "-" or " " lines

Compatible spellings, so agents trained on oh-my-pi's hashline tools are understood::

    PUT AT:      = replace        PUT <N:   = insert before N     PUT >N:   = insert after N (PUT >$: at the end)
    PUT >N*:     = insert after block N                          CUT AT [@name] = delete (and keep)
    PUT AT @name / PUT <N @name / PUT >N @name / PUT >N* @name   = paste a register
    PUT <N / PUT >N  (no ':', no body) = paste the unlabeled cut written before it
    REM          = delete file    MV DEST   = move to DEST ("DEST" or 'DEST' when it holds spaces)
    SWAP RANGE:  = XCHG RANGE: = replace      DEL RANGE = delete
    INS.PRE N:   = insert before  INS.POST N: = insert after      INS.HEAD: / INS.TAIL: = at the top / end
    SWAP.BLK N:  = replace N*     DEL.BLK N = delete N*           INS.BLK N: = insert after N*
    replace block N / delete block N / insert after block N = the same with N*

and oh-my-pi's 4-hex-digit tags: any tag is a prefix of the blob id that agent
read, matched case-insensitively against that agent's read record.

Registers move lines within one edit, across sections and files: a named register
is filled once (a second cut of the name is refused) and may be pasted any number of
times after its cut; a paste written before its cut, or of a name never cut, is
refused.  An unlabeled paste takes the one unlabeled cut written before it that
nothing pasted yet (two pending: refused, name them).  A register lives for one
edit, so a move is one turn, checked and rolled back as one.  oh-my-pi's JSON
hashline calls (``{"path", "edits"}``) are read by ``hashline_json``, also under
``--format hashline``.

Meaning:

- Every line number refers to the file as read.  Ops in one section never shift
  each other and may come in any order; two ops touching the same lines, or
  inserting at the same place, are an ``overlap``.
- A blank line between two body rows is an empty line of the body (models drop
  the lone ``+``); blank lines after a body's last row only separate ops.
- Header, op and fence lines may carry surrounding blanks and a CR.  When every
  line of the input ends in CRLF the CR belongs to the transport and is dropped
  from body rows too; otherwise a body row keeps its CR (the locator makes that
  line CRLF).
- Tolerated around sections: prose before the first header, markdown fences (a
  fence line ends the current op; lines after a closing fence are prose until
  the next header), and ``*** Begin Patch`` / ``*** End Patch`` envelope lines.
- Sections naming the same path and tag merge into one; the same path under two
  tags is refused.

Mapping into the edit model (no I/O here; the engine side is ``guard/reading/registers.py``, which
works out blocks and registers from the file as read, then ``guard/reading/anchors.py``):
a section becomes ``FileEdit(path, MODIFY, base=TAG in lower case)`` (``RENAME`` to DEST,
``old_path=PATH``, with a move) whose
changes are ``LineRange`` values in the read's line numbers, with ``expect=None``:
``replace A..B`` -> ``LineRange(A, B, body)``, ``delete A..B`` -> ``LineRange(A,
B, ())``, ``insert before N`` -> ``LineRange(N, N-1, body)``, ``insert after N``
-> ``LineRange(N+1, N, body)``.  ``$`` is ``LAST`` (-1), because the parser does
not know the line count: ``A..$`` -> ``LineRange(A, LAST)``, ``insert after $`` ->
``LineRange(LAST+1, LAST)``.  ``delete file`` is ``FileEdit(path, DELETE,
base=TAG)`` with the one change ``LineRange(1, LAST, ())``: every line as read
goes, so the read must have shown them all.  ``create`` is ``FileEdit(path,
CREATE, content=body)``.  ``N*`` sets ``LineRange.block`` to N (``replace N*`` ->
``LineRange(N, N, body, block=N)``, ``insert after N*`` -> ``LineRange(N+1, N, body,
block=N)``); a cut sets ``cut``, a paste ``paste`` (the unlabeled register's pairs are
named ``@1``, ``@2``... by the parser) and has no body.  The engine loads the blob the agent read, refuses lines
the read never showed, and re-anchors onto the current file only when every
anchored line is unchanged and all moved by one offset; otherwise ``stale``.
"""

from __future__ import annotations

import re
from typing import Callable

from ..model import EditSet, FileEdit, LineRange, Op, ParseError
from ..text.regex import lazy

NAME = "hashline"

# `$`, the last line of the file as read, where the parser cannot know its number:
# `LineRange(A, LAST)` runs through the last line and `LineRange(LAST + 1, LAST)`
# inserts after it.  The engine side (guard/reading/anchors.py) puts in the line count.
LAST = -1

OPS_HELP = (
    "ops: replace A..B / insert before N / insert after N / delete A..B / delete file / create, "
    "each body row starting with '+' (oh-my-pi's PUT A..B: / PUT <N: / PUT >N: / CUT A..B / REM also work)"
)
SHAPE = "[src/app.py#1a2b3c4d]\nreplace 12..14\n+new line 12\n+new line 13\ninsert after 40\n+added line\ndelete 50..51"

_HEADER = lazy(r"\[(?P<inner>[^\[\]]+)\]")
_TAG = lazy(r"[0-9a-fA-F]{4,40}")
_SEP = r"\s*(?:\.\.\.?|\.=|-|\u2013|\u2026|:|,)\s*"
_RANGE = rf"(?P<a>\d+)(?:(?P<star>\*)|{_SEP}(?P<b>\d+|\$))?"
_REGISTER = r"(?:\s*(?P<at>@)(?P<reg>[A-Za-z_][\w.-]*)?)?"  # `@name`, or `@` alone: the unnamed register
_END = r"\s*(?P<colon>:)?"
_LINES = r"(?:lines?\s+)?"  # "replace line 3", "delete lines 4..6"
_BLOCK = r"(?P<blk>block\s+)?"  # "replace block 7", "delete block 3", "insert after block 5"
_OPS: tuple[tuple[Callable[[], re.Pattern[str]], str], ...] = tuple(
    (lazy(pattern, re.IGNORECASE), kind)
    for pattern, kind in (
        (rf"(?:(?P<put>put)|swap|xchg|replace)\s+{_BLOCK}{_LINES}{_RANGE}{_REGISTER}{_END}", "replace"),
        (rf"(?:delete|cut|del)\s+{_BLOCK}{_LINES}{_RANGE}{_REGISTER}{_END}", "delete"),
        (rf"(?:insert\s+before\s+{_LINES}|(?P<put>put)\s*<\s*|ins\.pre\s+)(?P<a>\d+){_REGISTER}{_END}", "before"),
        (
            rf"(?:insert\s+after\s+{_BLOCK}{_LINES}|(?P<put>put)\s*>\s*|ins\.post\s+)(?P<a>\d+|\$)(?P<star>\*)?"
            rf"{_REGISTER}{_END}",
            "after",
        ),
        # oh-my-pi's older block spellings: SWAP.BLK N (replace), DEL.BLK N (cut), INS.BLK[.POST] N (after).
        (rf"(?:swap|xchg)\.blk\s+(?P<a>\d+)(?P<blk>){_REGISTER}{_END}", "replace"),
        (rf"del\.blk\s+(?P<a>\d+)(?P<blk>){_REGISTER}{_END}", "delete"),
        (rf"ins\.blk(?:\.post)?\s+(?P<a>\d+)(?P<blk>){_REGISTER}{_END}", "after"),
        (rf"ins\.head{_END}", "head"),
        (rf"ins\.tail{_END}", "tail"),
        (rf"(?:delete\s+file|rem){_END}", "delete-file"),
        (rf"create{_END}", "create"),
        (r"(?:mv|move\s+to|rename\s+to)\s+(?P<dest>\S.*?)\s*", "move"),
    )
)
_BODY_OPS = frozenset({"replace", "insert", "create"})
_FENCE = lazy(r"(?:`{3,}|~{3,})[^`]*")
_ENVELOPE = lazy(r"\*\*\* (?:Begin|End) Patch")
_OTHER = lazy(r"^(?:diff --git |\*\*\* (?:Update|Add|Delete) File:|@@ -\d|<{5,9} SEARCH|>{5,9} REPLACE)", re.MULTILINE)
_READ_LINE = lazy(r"\d+:")
_JSON = lazy(r"\s*(?:\{|\[\s*\{)")


class _Op:
    """One op of a section as it is read: its kind, its lines, its body rows, its register."""

    __slots__ = ("kind", "a", "b", "line", "body", "blanks", "block", "reg", "colon", "put", "cut", "paste", "dest")

    def __init__(self, kind: str, a: int, b: int, line: int) -> None:
        self.kind = kind
        self.a = a
        self.b = b
        self.line = line  # input line of the op
        self.body: list[str] = []
        self.blanks = 0  # blank lines seen since the last body row
        self.block = 0  # the line whose syntax block the op names (`N*`)
        self.reg: str | None = None  # the `@name` written after the op ("" for `@` alone)
        self.colon = False  # the op promised body rows (`PUT >5:`)
        self.put = False  # spelled as oh-my-pi's PUT, whose colonless form pastes the unnamed register
        self.cut: str | None = None  # the register the removed lines go to (bound by `_bind_registers`)
        self.paste: str | None = None  # the register whose lines go in
        self.dest = ""  # `MV DEST`: where the file goes


class _Section:
    """One `[PATH#TAG]` section as it is read: its ops."""

    __slots__ = ("path", "tag", "line", "ops")

    def __init__(self, path: str, tag: str | None, line: int, ops: list[_Op] | None = None) -> None:
        self.path = path
        self.tag = tag
        self.line = line
        self.ops: list[_Op] = [] if ops is None else ops


def _header(line: str) -> tuple[str, str | None] | None:
    """(path, tag or None) when `line` is shaped like a section header."""
    m = _HEADER().fullmatch(line)
    if m is None:
        return None
    inner = m["inner"].strip()
    path, sep, tag = inner.rpartition("#")
    if not sep:
        return (inner, None) if inner and " " not in inner else None
    path, tag = path.strip(), tag.strip()
    if not path or not tag:
        return None
    return path, tag


def _kind(line: str) -> tuple[str, re.Match[str]] | None:
    for pattern, kind in _OPS:
        m = pattern().fullmatch(line)
        if m is not None:
            return kind, m
    return None


def _next_op(lines: list[str], i: int) -> str | None:
    """The kind of the op on the first meaningful line after line `i` (0-based), if any."""
    for ln in lines[i + 1 :]:
        bare = ln.strip()
        if bare and not _FENCE().fullmatch(bare):
            found = _kind(bare)
            return found[0] if found else None
    return None


# --------------------------------------------------------------------------- detect


def _in_labelled_fence(text: str) -> set[int]:
    """0-based lines inside fences labelled with a file path: whole-file content, not edits."""
    from . import fences

    inside: set[int] = set()
    total = text.count("\n") + 1
    for f in fences.extract(text):
        if fences.fence_path(f):
            end = f.closer_line - 1 if f.closer_line is not None else total
            inside.update(range(f.start_line - 1, end))
    return inside


def detect(text: str) -> int:
    """90 for a header followed by an op (70 for a create alone); 100 inside a Codex
    envelope (which the Codex dialect also claims: the tie asks for --format)."""
    if "[" not in text or text.lstrip()[:1] == "{" or _OTHER().search(text):
        return 0
    lines = [ln.strip() for ln in text.split("\n")]
    skip: set[int] | None = None
    best = 0
    for i, line in enumerate(lines):
        head = _header(line)
        if head is None:
            continue
        if skip is None:
            skip = _in_labelled_fence(text) if "```" in text or "~~~" in text else set()
        if i in skip:
            continue
        found = _next_op(lines, i)
        if found is None:
            continue
        if head[1] is not None and _TAG().fullmatch(head[1]):
            best = 90
            break
        if head[1] is None and found == "create":
            best = 70
    if best and any(_ENVELOPE().fullmatch(ln) for ln in lines):
        return 100
    return best


# --------------------------------------------------------------------------- parse


def parse(text: str, path: str | None = None) -> EditSet:
    """The EditSet of a hashline edit (`path` is unused: every section names its file)."""
    if _JSON().match(text):  # oh-my-pi's JSON calls are hashline too (``--format hashline``)
        from . import hashline_json

        return hashline_json.parse(text, path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and all(ln.endswith("\r") for ln in lines if ln):
        lines = [ln[:-1] if ln else ln for ln in lines]  # a CRLF transport, not CRLF content
    sections: list[_Section] = []
    section: _Section | None = None
    op: _Op | None = None
    in_fence = False
    for i, line in enumerate(lines):
        no = i + 1
        bare = line.strip()
        if line.startswith("+") and section is not None:
            _body_row(op, line[1:], bare, no)
            continue
        if not bare:
            if op is not None and op.body:
                op.blanks += 1
            continue
        opened = _section_at(lines, i, bare)
        if opened is not None:
            section = opened
            sections.append(section)
            op = None
            continue
        if _FENCE().fullmatch(bare):
            op = None
            if in_fence:
                section = None  # what follows a closing fence is prose until the next header
            in_fence = not in_fence
            continue
        if _ENVELOPE().fullmatch(bare):
            op = None
            continue
        added = _op_at(section, bare, no)
        if added is not None:
            op = added
    if not sections:
        raise ParseError(
            "no [PATH#TAG] section header found",
            1,
            f"copy the header line the read prints above the ops, e.g.\n{SHAPE}",
            read="PATH",
        )
    return EditSet(files=tuple(_file_edits(sections)), format=NAME)


def _section_at(lines: list[str], i: int, bare: str) -> _Section | None:
    """The section line i opens when it is a [PATH#TAG] header (untagged: before a `create`
    only); None when it is no header, or an untagged one no op follows (prose)."""
    head = _header(bare)
    if head is None:
        return None
    no = i + 1
    follows = _next_op(lines, i)
    tagged = head[1] is not None and _TAG().fullmatch(head[1]) is not None
    if tagged or (follows is not None and head[1] is not None) or follows == "create":
        return _Section(head[0], _check_tag(head[1], no), no)
    if follows is not None:
        raise ParseError(
            f"the header [{head[0]}] has no tag; only 'create' works without one",
            no,
            f"copy the header with its tag from the read's output, e.g. [{head[0]}#1a2b3c4d]",
            read=head[0],
        )
    return None


def _op_at(section: _Section | None, bare: str, no: int) -> _Op | None:
    """The op line `bare` (line `no`) adds to its section; None for prose before any header."""
    found = _kind(bare)
    if section is None:
        if found is None:
            return None  # prose around the edit
        raise ParseError(
            f"{_show(bare)} comes before any [PATH#TAG] header",
            no,
            f"start each file's ops with the header the read printed, e.g.\n{SHAPE}",
        )
    if found is None:
        raise ParseError(f"{_show(bare)} is not a hashline op", no, _hint_for(bare))
    op = _new_op(found[0], found[1], no)
    section.ops.append(op)
    return op


def _body_row(op: _Op | None, row: str, bare: str, no: int) -> None:
    if op is None:
        raise ParseError(f"the body row {_show(bare)} has no op above it", no, f"put an op line above the rows; {OPS_HELP}")
    if op.kind not in _BODY_OPS:
        raise ParseError(
            f"'{_verb(op.kind)}' takes no body rows",
            no,
            f"remove the '+' rows, or write 'replace {op.a}..{op.b}' to put new lines there",
        )
    if op.reg is not None:
        raise ParseError(
            f"'{_verb(op.kind)} ... @{op.reg}' pastes a register and takes no body rows",
            no,
            "remove the '+' rows, or drop the '@name' to write the rows there",
        )
    op.body.extend([""] * op.blanks)
    op.blanks = 0
    op.body.append(row)


def _show(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:77] + "...")


def _verb(kind: str) -> str:
    return kind.replace("-", " ")


def _check_tag(tag: str | None, no: int) -> str | None:
    if tag is None or _TAG().fullmatch(tag):
        return tag.lower() if tag else None
    raise ParseError(
        f"{tag!r} is not a tag: a tag is the 4 to 40 hex digits after '#' in the header the read printed",
        no,
        "copy the header line exactly as the read printed it, e.g. [src/app.py#1a2b3c4d]",
    )


def _hint_for(line: str) -> str:
    if line.startswith("-"):
        return (
            "hashline bodies hold only the new lines, each starting with '+'; the op's range names the lines "
            "that go away (write '+-text' for a new line that starts with '-')"
        )
    if line.startswith("@@") or line.startswith("*** "):
        return f"this is hashline, not a diff or a Codex patch; {OPS_HELP}"
    if _READ_LINE().match(line):
        return f"this looks like a read's numbered lines; an edit names the lines with ops instead:\n{SHAPE}"
    return f"{OPS_HELP}; e.g.\n{SHAPE}"


def _number(digits: str, no: int) -> int:
    """A line number as written (any count of digits; `\\d` takes other scripts' digits too), held to
    git's range: a 5,000-digit number is not handed to int(), which Python refuses past 4,300."""
    from ..bounds import LINE

    n = int(digits) if len(digits) <= 12 else int(LINE.high) + 1
    if n > LINE.high:
        shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits):,} digits)"
        raise ParseError(
            f"line number {shown} is out of range: line numbers run from 1 to {int(LINE.high):,}",
            no,
            "number lines as the read printed them",
        )
    return n


def _new_op(kind: str, m: re.Match[str], no: int) -> _Op:
    op = _op_lines(kind, m, no)
    groups = m.groupdict()
    op.colon = bool(groups.get("colon"))
    op.put = bool(groups.get("put"))
    if groups.get("at"):
        op.reg = groups.get("reg") or ""
    if groups.get("star") or groups.get("blk") is not None:
        if op.kind == "insert" and op.a == LAST + 1:
            raise ParseError("'$' is the last line, not a block", no, "name the block by its first line, e.g. 'PUT >12*:'")
        if groups.get("b"):
            raise ParseError(
                "a block is named by its first line alone",
                no,
                f"write '{op.a}*' for the block that opens on line {op.a}, or a plain range '{op.a}..{groups['b']}'",
            )
        op.block = op.a - 1 if op.kind == "insert" else op.a
    if kind == "move":
        dest = groups["dest"]
        if len(dest) >= 2 and dest[0] == dest[-1] and dest[0] in "\"'":
            dest = dest[1:-1]
        op.dest = dest
    return op


def _op_lines(kind: str, m: re.Match[str], no: int) -> _Op:
    groups = m.groupdict()
    if kind in ("replace", "delete"):
        a = _number(groups["a"], no)
        b = LAST if groups.get("b") == "$" else _number(groups["b"], no) if groups.get("b") else a
        if a < 1:
            raise ParseError("line numbers start at 1", no, "number lines as the read printed them")
        if b != LAST and b < a:
            raise ParseError(f"the range {a}..{b} ends before it starts", no, f"write it as {b}..{a}")
        return _Op(kind, a, b, no)
    if kind == "before":
        n = _number(groups["a"], no)
        if n < 1:
            raise ParseError("there is no line 0 to insert before", no, "write 'insert after 0' for the top of the file")
        return _Op("insert", n, n - 1, no)
    if kind == "after":
        if groups["a"] == "$":
            return _Op("insert", LAST + 1, LAST, no)
        n = _number(groups["a"], no)
        if n < 1 and (groups.get("star") or groups.get("blk") is not None):
            raise ParseError("blocks open on lines 1 and up", no, "name the block by its first line as the read numbered it")
        return _Op("insert", n + 1, n, no)
    if kind == "head":
        return _Op("insert", 1, 0, no)
    if kind == "tail":
        return _Op("insert", LAST + 1, LAST, no)
    return _Op(kind, 0, 0, no)


# --------------------------------------------------------------------------- registers


def _where(op: _Op) -> str:
    return f"line {op.line}"


def _bind_registers(sections: list[_Section]) -> None:
    """Pair every paste with the cut that fills it, in the order the ops are written.

    A named register is filled once (`CUT ... @name`) and pasted any number of times after;
    a `PUT` with no colon and no body (or `@` alone) pastes the one unlabeled cut written
    before it and not pasted yet.  Only the names are checked here: the lines are the file's,
    which the engine reads (``guard.reading.registers``).
    """
    named: dict[str, _Op] = {}
    unnamed: list[_Op] = []
    later = {op.reg: op for sec in sections for op in sec.ops if op.kind == "delete" and op.reg}
    pairs = 0
    for sec in sections:
        for op in sec.ops:
            if op.kind == "delete":
                if op.reg:
                    if op.reg in named:
                        raise ParseError(
                            f"the register @{op.reg} is cut twice ({_where(named[op.reg])} and here)",
                            op.line,
                            "give each cut its own name, e.g. @" + op.reg + "2",
                        )
                    named[op.reg] = op
                    op.cut = op.reg
                else:
                    unnamed.append(op)
                continue
            if op.kind not in ("replace", "insert"):
                continue
            anonymous = op.reg == "" or (op.reg is None and op.put and not op.colon and not op.body)
            if op.reg:
                if op.reg not in named:
                    if op.reg in later:
                        raise ParseError(
                            f"@{op.reg} is pasted before it is cut ({_where(later[op.reg])})",
                            op.line,
                            "put the 'CUT ... @" + op.reg + "' op above the paste",
                        )
                    known = ", ".join("@" + n for n in named) or "none"
                    raise ParseError(
                        f"unknown register @{op.reg}: no 'CUT ... @{op.reg}' comes before it in this edit",
                        op.line,
                        f"registers cut so far: {known}; registers hold lines only within one "
                        "edit, so cut and paste in the same call",
                    )
                op.paste = op.reg
            elif anonymous:
                if op.kind == "replace":
                    raise ParseError(
                        "pasting over lines needs a named register",
                        op.line,
                        "cut with 'CUT A.=B @name' and paste with 'PUT C.=D @name', or add '+' body rows",
                    )
                if not unnamed:
                    raise ParseError(
                        "nothing to paste: no unlabeled 'CUT' comes before this op in this edit",
                        op.line,
                        "put 'CUT A.=B' (or 'CUT N*') above it, name the register "
                        "('CUT ... @name' then 'PUT >N @name'), or add '+' body rows",
                    )
                if len(unnamed) > 1:
                    pending = ", ".join(_where(c) for c in unnamed)
                    raise ParseError(
                        f"{len(unnamed)} unlabeled cuts are pending ({pending}): this paste cannot tell which one it means",
                        op.line,
                        "name them: 'CUT ... @name' and 'PUT ... @name'",
                    )
                pairs += 1
                source = unnamed.pop()
                source.cut = op.paste = f"@{pairs}"  # no written name starts with '@'


# --------------------------------------------------------------------------- into the edit model


def _file_edits(sections: list[_Section]) -> list[FileEdit]:
    _bind_registers(sections)
    merged: dict[str, _Section] = {}
    for sec in sections:
        prev = merged.get(sec.path)
        if prev is None:
            merged[sec.path] = _Section(sec.path, sec.tag, sec.line, list(sec.ops))
        elif prev.tag != sec.tag:
            raise ParseError(
                f"{sec.path} appears under two tags (#{prev.tag} on line {prev.line}, #{sec.tag} here)",
                sec.line,
                "edit a file against one read: re-read it and use the latest header for every op",
            )
        else:
            prev.ops.extend(sec.ops)
    return [_file_edit(sec) for sec in merged.values()]


def _file_edit(sec: _Section) -> FileEdit:
    if not sec.ops:
        raise ParseError(
            f"the section [{sec.path}{'#' + sec.tag if sec.tag else ''}] has no op",
            sec.line,
            f"put ops under the header; {OPS_HELP}",
        )
    for op in sec.ops:
        if op.kind in _BODY_OPS and not op.body and op.paste is None:
            raise ParseError(f"'{_verb(op.kind)}' needs at least one '+' body row", op.line, _empty_hint(op))
    moves = [op for op in sec.ops if op.kind == "move"]
    ops = [op for op in sec.ops if op.kind != "move"]
    whole = [op for op in ops if op.kind in ("create", "delete-file")]
    if whole and len(sec.ops) > 1:
        raise ParseError(
            f"'{_verb(whole[0].kind)}' must be the only op for {sec.path}", whole[0].line, "send the other ops in a separate edit"
        )
    if len(moves) > 1:
        raise ParseError(
            f"{sec.path} is moved twice (line {moves[0].line} and here)", moves[1].line, "keep one 'MV DEST' per file"
        )
    if sec.tag is None:
        if not whole or whole[0].kind != "create":
            raise ParseError(
                f"the header [{sec.path}] has no tag; only 'create' works without one",
                sec.line,
                f"copy the header with its tag from the read's output, e.g. [{sec.path}#1a2b3c4d]",
                read=sec.path,
            )
        body = whole[0].body
        return FileEdit(sec.path, Op.CREATE, content="\n".join(body) + "\n", source_line=sec.line)
    if whole and whole[0].kind == "create":
        raise ParseError(
            f"'create' makes a new file, but [{sec.path}#{sec.tag}] names a version of an existing one",
            whole[0].line,
            f"write the header as [{sec.path}] to create it, or use replace/insert ops to change it",
        )
    if whole:  # every line of the file as read goes: the read must have shown them all
        gone = LineRange(1, LAST, (), None, whole[0].line)
        return FileEdit(sec.path, Op.DELETE, changes=(gone,), base=sec.tag, source_line=sec.line)
    changes = tuple(
        LineRange(
            op.a, op.b, tuple(op.body) if op.kind != "delete" else (), None, op.line, block=op.block, cut=op.cut, paste=op.paste
        )
        for op in ops
    )
    if moves:
        dest = moves[0].dest
        if dest == sec.path:
            raise ParseError(f"'MV {dest}' moves {sec.path} onto itself", moves[0].line, "name another path, or drop the MV")
        return FileEdit(dest, Op.RENAME, old_path=sec.path, changes=changes, base=sec.tag, source_line=sec.line)
    return FileEdit(sec.path, Op.MODIFY, changes=changes, base=sec.tag, source_line=sec.line)


def _empty_hint(op: _Op) -> str:
    at = f"{op.a}*" if op.block else f"{op.a}..{'$' if op.b == LAST else op.b}"
    if op.kind == "replace":
        return (
            f"write each new line as '+text' ('+' alone for an empty line); to delete the lines write "
            f"'delete {at}', to paste a register 'PUT {at} @name'"
        )
    if op.kind == "insert":
        return (
            "write each new line as '+text' ('+' alone for an empty line), or drop the ':' and name a register "
            "to paste ('PUT >N @name')"
        )
    return "write each line of the new file as '+text' ('+' alone for an empty line)"
