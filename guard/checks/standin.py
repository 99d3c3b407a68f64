"""Stand-ins: code an edit removes, with only lines that are not code put in its place.

A model that elides code deletes real lines and leaves where they were a line that does
no work: a comment (``# old loop``, ``// --snip--``), a docstring or string statement, a
bare ``...`` or ``pass``, a stub (``todo!()``, ``raise NotImplementedError``,
``panic("TODO")``), an HTML or SQL comment, an empty element (``<li>...</li>``).  Applied
as written, the code is gone, whatever the note says, so the rule judges the shape of
the change and not its words.  It judges the whole edit (every file of it), one changed
region at a time (the lines a region removes and the lines added where they stood):

- a region is a **stand-in** when it removes at least ``MIN_CODE`` lines of code and every
  line it adds is blank, only closes something (``}``, ``end``, ``</ul>``), or does no
  work (the kinds above; at least one such line);
- it is not one when the removed code is still written in the edit: **moved** (most of its
  lines are among the lines the edit adds, in any file), **commented out** (the new
  lines, or a block comment they open, hold it), or when every note it adds was already
  there (an old comment reworded beside a deletion);
- nor, unless its note points at where the code still is (``unchanged``, ``as before``,
  ``see the previous version``, ``rest of``, ``lines 2-7``, an ellipsis: ``points``),
  when the note says **why** the code goes (``no longer needed since the parser rejects
  them``, ``moved to tax.py``: ``gives_reason``), documents the definition right after
  it, or stands where whole definitions were removed (header and all: a deliberate
  deletion, not a body left out).

Code and not-code are told apart by the file's comment and string syntax
(``comments.Spans``); a file whose syntax is not known is not judged here (the phrase
and note rules of ``placeholder`` still are).  The old and new texts are lexed only for a
region that passes a cheap test of its added lines first (``_maybe``), so an edit that
writes code costs one pass over its regions.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from ..diffs import ChangedLines, changed_lines, similar
from ..model import FileChange, Finding
from ..text.lookalikes import fold
from ..text.regex import lazy
from ..text.textfile import NotText, decode
from . import notes
from .base import CheckInput, quote
from .comments import Spans, Syntax, body, syntax_for

MIN_CODE = 2  # lines of code a region must remove: one line replaced by a note is the phrase rules' to judge
MAX_REGION = 2000  # lines a region may add and still be judged (a stand-in is a few lines)
MAX_LINE = 1000  # characters of the longest line that may stand in for code (``placeholder.MAX_LINE``)
HINT = (
    "write the code in full, or leave those lines out of the edit; to delete code, remove it without "
    "a line in its place (a comment that stays may say why it goes)"
)

BLANK, CLOSER, COMMENT, STRING, EMPTY, STUB, CODE = "blank", "closer", "comment", "string", "empty", "stub", "code"
_DOES_NO_WORK = (COMMENT, STRING, EMPTY, STUB)
_WHAT = {COMMENT: "a comment", STRING: "a string", EMPTY: "a statement that does nothing", STUB: "a stub"}


# --------------------------------------------------------------------------- what a line is

# Only closes something, or ends a statement: brackets, `end`, shell's `fi`/`done`/`esac`, an end tag.
_CLOSER = lazy(r"(?:[)\]}>;,]|\bend\b|\bfi\b|\bdone\b|\besac\b|\bendif\b|</[\w:.-]+>|\s)+")
# A statement that does nothing: an ellipsis, `pass`, shell's `:`, a loop body that only goes on to
# the next item (`continue`, `next`), a value thrown away (`(void)lines;`, `_ = line`, `let _ = x;`),
# an element holding nothing but an ellipsis or a TODO (`<li>...</li>`), an ellipsis in brackets.
# (Not `None` or `nil`: as a block's last expression, in Rust or Ruby, it is the value it gives.)
_EMPTY = lazy(
    r"(?:\.\.\.|…|\. \. \.|pass|continue|next|[\[({]\s*(?:\.\.\.|…)\s*[\])}]|(?:\(void\)|void\s)\s*\w+|_\s*=\s*\w+"
    r"|let\s+_\s*=\s*\w+|<([\w:-]+)(?:\s[^<>]*)?>\s*(?:\.{2,}|…|TODO|TBD|FIXME)?\s*</\1\s*>)\s*[;,]?"
)
_SHELL_EMPTY = lazy(r"(?::|true)\s*;?")
_NOTHING = lazy(r"\s*(?:\.\.\.|…|pass|:|true|;)\s*")  # what did nothing where it was, too
# A stub, as a statement: Rust's `todo!()`/`unimplemented!()`, Kotlin's `TODO()`, a raise or throw of
# NotImplementedError, NotImplementedException, UnsupportedOperationException.  (Not `return
# NotImplemented`, Python's answer for an operator it does not support, nor a tuple naming the class.)
_STUB_NAME = lazy(
    r"(?:return\s+)?(?:(?:todo|unimplemented)!\s*[(\[{]|TODO\s*\(|(?:raise|throw)\s+(?:new\s+)?(?:[\w.\\]*[.\\])?"
    r"(?:NotImplemented(?:Error|Exception)|UnsupportedOperationException)\b)"
)
# A statement that fails on purpose: a stub when what it says is "not implemented" or "todo".
_FAILS = lazy(r"(?:raise|throw|panic|fatalError|abort|die|exit|assert|unreachable!?|process\.exit|echo)\b")
_RAISES = lazy(r"(?:raise|throw|panic|fatalError)\b")  # a statement whose work is to fail
_SAYS_STUB = lazy(
    r"\b(?:todo|fixme|tbd|not\s+(?:yet\s+)?implemented|unimplemented|implement\s+(?:me|later|this)"
    r"|fill\s+(?:it\s+)?in)\b",
    re.IGNORECASE,
)


def _maybe(text: str, syntax: Syntax) -> bool:
    """The cheap first test: the added line `text` may be a line that does no work (or only
    closes something, or be blank).  Lines of code fail it at once, most at their first
    character; a line inside a docstring or block comment may pass or not, and the lexer
    settles it for any region that has one line opening such a text."""
    if len(text) > MAX_LINE:
        return False  # a stand-in is a short line; a longer one is not judged, so no pattern runs long
    t = text.strip()
    if not t or t.startswith(syntax.marks) or t[0] in "\"'`*" or t[0] in syntax.quotes:
        return True
    cut = min((p for p in map(t.find, syntax.marks) if p > 0), default=-1)
    if cut > 0:
        t = t[:cut].rstrip()  # the code before a comment: `pass  # unchanged`, `; /* same */`
    if _CLOSER().fullmatch(t) or _EMPTY().fullmatch(t) or _SHELL_EMPTY().fullmatch(t):
        return True
    return bool(_STUB_NAME().match(t) or (_FAILS().match(t) and _SAYS_STUB().search(t)))


def _opens_text(text: str, syntax: Syntax) -> bool:
    """The line opens a text that may go on over the next lines: a triple-quoted or spanning
    string, or a block comment."""
    return (
        any(q * 3 in text for q in syntax.triple)
        or any(q in text for q in syntax.spanning)
        or any(o in text for o, _c in syntax.block)
    )


class _Lexed:
    """A text's lines, and where its comments and strings are up to a line: lexed when first
    asked for (most edits have no candidate region), and again only to reach further."""

    _AHEAD = 40  # lines lexed past the one asked for: the lines after a note say what it heads

    def __init__(self, data: bytes | None, syntax: Syntax) -> None:
        self.data = data
        self.syntax = syntax
        self._lines: tuple[str, ...] | None = None
        self._spans: Spans | None = None
        self._upto = -1

    def spans(self, upto: int) -> Spans:
        """The spans, lexed at least through line `upto` (1-based)."""
        if self._lines is None:
            self._lines = decode(self.data).lines if self.data is not None else ()
        if self._spans is None or upto > self._upto:
            self._upto = upto + self._AHEAD
            self._spans = Spans(self._lines, self.syntax, self._upto)
        return self._spans


def _kind(sp: Spans, i: int, python: bool) -> tuple[str, str]:
    """(kind, the text it says) of line `i` of `sp`: BLANK, CLOSER, COMMENT, STRING, EMPTY, STUB or CODE."""
    line = sp.lines[i]
    if not line.strip():
        return BLANK, ""
    if len(line) > MAX_LINE:
        return CODE, ""  # never a stand-in (``_maybe``), and never judged
    pieces = sp.pieces(i)
    said = " ".join(body(t) if k == "c" else t.strip(" \t\"'`") for k, t in pieces).strip()
    notes_said = " ".join(body(t) for k, t in pieces if k == "c").strip()
    if i == 0 and line.startswith("#!"):
        return CODE, ""  # a script's interpreter line
    code = " ".join(sp.residue(i).split())
    comment = any(k == "c" for k, _t in pieces)
    if code in ("", ";"):  # a comment, a string statement, or an empty statement with a note on it
        if comment:
            return COMMENT, said
        if pieces:
            return (STRING, said) if _string_statement(sp, i, python, said) else (CODE, said)
        return CLOSER, said
    if _CLOSER().fullmatch(code):
        return (CODE if any(k == "s" for k, _t in pieces) else CLOSER), said  # `"a",`: an item of data
    if _EMPTY().fullmatch(code) or (sp.syntax.name == "hash" and _SHELL_EMPTY().fullmatch(code)):
        written = line
        for _k, t in pieces:
            written = written.replace(t, " ", 1)
        if " ".join(written.split()) != code:
            return CODE, said  # the lexer lost its way in a string or regex before this line
        if code.startswith(("...", "…")) and _continues(sp, i):
            return CODE, said  # `...` among the parameters of a C prototype, or a call's arguments
        return EMPTY, said
    whole = line.strip()
    if _STUB_NAME().match(code) or (_FAILS().match(code) and _SAYS_STUB().search(whole)):
        return STUB, said
    return CODE, notes_said


def _continues(sp: Spans, i: int) -> bool:
    """The line before `i` with code leaves a list open (`,`, `(`): line `i` goes on with it."""
    k = i - 1
    while k >= 0:
        code = sp.residue(k).rstrip()
        if code.strip():
            return code.endswith((",", "(", "["))
        k -= 1
    return False


def _string_statement(sp: Spans, i: int, python: bool, said: str) -> bool:
    """Line `i`, which holds only (a piece of) a string, is a string statement: in Python a
    docstring or a string written as a statement (not an item of a list, an argument or an
    operand: the code before it on the line where it starts ends a statement); elsewhere, a
    string is data unless what it says is an elision note."""
    if not python:
        return bool(_EMPTY().fullmatch(said)) or notes.elides(said, 2) is not None
    start = i
    while start > 0 and not any(k == "s" for k, _e in sp.opens(start)):
        start -= 1
    first = sp.lines[start]
    if sp.residue(start)[: len(first) - len(first.lstrip())].strip() or sp.residue(start).strip():
        return False  # code before or after the string on its first line: `x = """...`
    k = start - 1
    while k >= 0:
        code = sp.residue(k).rstrip()
        if code.strip():
            return not code.endswith(("(", "[", "{", ",", "=", "+", "-", "*", "/", "%", "\\", "and", "or", "not", "in"))
        k -= 1
    return True


# --------------------------------------------------------------------------- what a note says

# Words that point at where the code still is (or say it is left out), new in a note: the
# rule of ``notes`` reads a note made of them alone; these also count inside a longer sentence.
# A word that may describe a thing (`same`, `existing`, `original`) counts where it ends the note or
# a clause, or names code (`existing logic`), not as a thing's adjective (`the same extension`).
_CODE_NOUN = (
    r"(?:code|logic|implementation|impl|body|bodies|loop|loops|version|versions|lines?|block|blocks|function|method"
    r"|steps?|computation|calculation|query|columns?|items?|entries|contents?|stuff|part|parts|section|handling"
    r"|processing|checks?|body|statements?|definitions?|fields?|markup|rows?|cases?|branch|branches|arms?|guards?"
    r"|validation|headers?|setup|calls?|conditions?|filters?|rules?|joins?|clauses?|imports?|logging)"
)
_END = r"(?=\s*(?:$|[.,;:!?)\]>}*/-]))"
_POINTS = lazy(
    r"\b(?:unchanged|unmodified|untouched|intact|verbatim|as\s+(?:before|is|it\s+was|they\s+were|previously|above"
    r"|below|earlier|shown|written|in\s+v\d+)|as-is|identical|ditto|omit(?:s|ted)?|elid(?:e|ed|es)|elision|snip(?:ped)?"
    r"|brevity|abbreviated|abridged|truncated|not\s+shown|fill(?:ed)?\s+in|placeholder|etc|and\s+so\s+on"
    r"|(?:has|have|is|are)\s*(?:n't|\s+not)\s+(?:been\s+)?changed|left\s+out|leave\s+out|copy\s+(?:it|them)\s+(?:from|back)"
    r"|lines?\s+\d+(?:\s*(?:-|–|—|to|through)\s*\d+)?|(?:from|in|of|see|like)\s+v\d+|v\d+\s+" + _CODE_NOUN + r""
    r"|rest\s+of|the\s+rest|remainder|same\s+as|(?:the\s+)?same" + _END + r"|(?:existing|remaining|previous|prior|original"
    r"|old|earlier|unchanged|same|usual)\s+(?:\w+\s+)?"
    + _CODE_NOUN
    + r"\b|(?:existing|remaining|previous|original)"
    + _END
    + r")\b|\.\.\.|…|\[\s*\]",
    re.IGNORECASE,
)
# Words that give a reason for a deletion, or say where the work is done now.
_REASON = lazy(
    r"\b(?:because|since|due\s+to|owing\s+to|so\s+that|as\s+of|no\s+longer|not\s+(?:needed|necessary|required|used"
    r"|supported)|needless|unneeded|unnecessary|unused|obsolete|deprecated|dead|redundant|superseded|replaced"
    r"|replaces?|moved|migrated|handled|happens|done\s+(?:by|in|upstream|elsewhere)|now|instead|in\s+favou?r\s+of"
    r"|removed|removes?|deleted|dropped|disabled|turned\s+off|gone|unsupported|upstream|covered\s+by|taken\s+care"
    r"|filtered|rejected|validated|guaranteed|ensures?|never|cannot|can't|workaround|until|once|re-?enable"
    r"|rather\s+than|already|any\s?more|retired|existed|nothing\s+(?:to|left|here)|no\s+need|not\s+here|so\s+(?:no|nothing|there)"
    r"|callers?|before\s+(?:they|it|we|this|calling|reaching|getting)|(?:does|do|did)\s*(?:n't|\s+not)\s+support"
    r"|yet|tracking|tracked|must\s*(?:n't|\s+not)|should\s*(?:n't|\s+not)|need\s*(?:n't|\s+not)|not\s+(?:wanted|allowed"
    r"|safe|useful|worth)|broke|breaks|broken|caused?|causes|crash\w*|bugs?|leak\w*|race|wrong|incorrect|noisy|noise"
    r"|spam\w*|slow|expensive|twice|duplicated?|instead|per\s+(?:spec|rfc|policy))\b|#\d+|https?://"
    # Spanish, Portuguese, French, German, Italian (folded), Russian, Chinese, Japanese, Korean
    r"|\b(?:porque|ya\s+no|obsolet[oa]|eliminad[oa]|removid[oa]|movid[oa]|reemplazad[oa]|substituid[oa]|weil"
    r"|nicht\s+mehr|entfernt|veraltet|verschoben|ersetzt|parce\s+que|plus\s+(?:necessaire|utilise)|supprime"
    r"|obsolete|deplace|remplace|perche|non\s+piu|rimoss[oa]|spostat[oa]|sostituit[oa])\b"
    r"|потому|больше\s+не|удал[её]н|устарел|перенес[её]н|因为|不再|已删除|已移除|删除|移到|移至|弃用|廃止|不要|削除|移動|때문|더\s+이상|삭제|이동",
    re.IGNORECASE,
)
# A definition's first line (or a decorator or attribute above one), or an import: a top-level item.
# Also JavaScript's `x.y = function` and a shell function's `name() {`; and `var`/`let`/`const` at
# the start of a line: a top-level binding (indented, it is a statement of a body).
_DEFINITION = lazy(
    r"\s*(?:@|#\[|#include\b|(?:(?:pub(?:\([\w:]+\))?|export|default|async|public|private|protected|internal"
    r"|static|final|abstract|override|open|inline|extern|unsafe|const)\s+)*(?:def|fn|func|function|class|struct|enum"
    r"|trait|impl|interface|type|module|mod|macro_rules!|object|record|namespace|package|sub|defun|defn|CREATE|import"
    r"|from|use|require)\b|[\w$.]+\s*=\s*(?:async\s+)?function\b|[\w-]+\s*\(\)\s*\{?\s*$)"
    r"|(?:var|let|const)\s"
)


# The same in the other languages notes are written in (accents stripped, lower case).
_POINTS_ELSEWHERE = lazy(
    r"\b(?:mesm[oa]s?|mism[oa]s?|igual(?:es)?|(?:de|como)\s+antes|sin\s+cambios?|sem\s+(?:alterac|mudanc)\w*|inalterad[oa]s?"
    r"|existentes?|rest(?:o|ante|antes)\b|meme|inchange\w*|comme\s+avant|existant\w*|unverandert|wie\s+(?:bisher|vorher)"
    r"|bestehende?\w*|invariat[oa]|come\s+prima|stess[oa]|esistent[ei]|omitid[oa]s?|omess[oa]|weggelassen|ausgelassen)\b"
    r"|без\s+изменени|как\s+раньше|остальн|существующ|不变|不變|同上|相同|省略|照旧|照舊|原样|原樣|そのまま|同じ|変更なし|생략|그대로|동일|기존",
)


def _plain(text: str) -> str:
    """`text` in lower case without accents (`cálculo` -> `calculo`)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def points(note: str, before: str = "") -> bool:
    """The note points at where the code still is, or says it is left out, in words the old
    text `before` did not already hold (moving an old note is not writing one).  (A note that
    ``notes`` reads as saying less, ``# other helpers``, may head what follows it.)"""
    text = fold(note)
    low_before = fold(before).lower()
    for m in _POINTS().finditer(text):
        if m.group().lower() not in low_before:
            return True
    plain, plain_before = _plain(note), _plain(before)
    if any(m.group() not in plain_before for m in _POINTS_ELSEWHERE().finditer(plain)):
        return True
    return notes.elides(note) == notes.FIRM and " ".join(note.lower().split()) not in low_before


# A ticket a reason names: `INC-2291`, `OPS-311`.
_TICKET = lazy(r"\b[A-Z][A-Z0-9]+-\d+\b")
# A sentence that explains: a clause after a colon or a semicolon, a negation, a conjunction that
# gives a cause or a condition (a stand-in's words are a label, a pointer or a list of steps).
_CLAUSE = lazy(
    r"\w[;:]\s+\w|\s[—–]\s|\s--\s|\b(?:no|not|never|nothing|none|because|since|so|until|unless|when|once|although"
    r"|though|but|only)\b|n't\b",
    re.IGNORECASE,
)
_LABEL = lazy(r"\s*(?:todo|fixme|note|xxx|hack)\b\s*(?:\([^)]*\))?\s*:?", re.IGNORECASE)


def gives_reason(note: str) -> bool:
    """The note says why code goes, or where its work is done now: in its words (``_REASON``, a
    ticket), or as a sentence that explains (ten words or more, with a clause, a negation or a
    conjunction: ``_CLAUSE``)."""
    text = fold(note)
    if _REASON().search(text) or _TICKET().search(note):
        return True
    rest = _LABEL().sub("", text, count=1)
    return len(re.findall(r"[^\W\d_]+", rest)) >= 10 and _CLAUSE().search(rest) is not None


# --------------------------------------------------------------------------- the rule


def _norm(text: str) -> str:
    return " ".join(text.split())


def _substantial(text: str) -> bool:
    """A line of code that says something by itself (not `}`, `return`, `else:`): worth finding again."""
    t = _norm(text)
    return len(t) >= 8 and not _CLOSER().fullmatch(t)


class Edit:
    """What the whole edit adds, for asking whether code a region removes is still written in it."""

    def __init__(self, changes: Sequence[FileChange]) -> None:
        self.changes = changes
        self._added: set[str] | None = None

    def added(self) -> set[str]:
        if self._added is None:
            self._added = {_norm(t) for c in self.changes for _n, t in c.added}
        return self._added


def _share(lines: Sequence[str], pool: set[str]) -> float:
    lines = [_norm(t) for t in lines if _substantial(t)]
    return sum(1 for t in lines if t in pool) / len(lines) if lines else 0.0


def findings(inp: CheckInput, level: str, known: dict[str, set[int]], exempt: re.Pattern[str] | None = None) -> list[Finding]:
    """`placeholder` findings for the stand-ins of the edit `inp` (``known``: lines already
    reported, by path; `exempt`: the policy's ``placeholder_exempt``, lines it matches stand in
    for nothing)."""
    edit = Edit(inp.changes)
    out: list[Finding] = []
    for change in inp.changes:
        if change.after is None or not change.removed or not change.added:
            continue
        syntax = syntax_for(change.path)
        if not syntax.lexed:
            continue
        candidates = [r for r in changed_lines(change) if _candidate(r, syntax)]
        if not candidates:
            continue
        try:
            new, old = _Lexed(change.after, syntax), _Lexed(change.before, syntax)
            for region in candidates:
                if any(n in known.get(change.path, ()) for n, _t in region.added):
                    continue
                found = _judge(change, region, new, old, edit, level)
                if found is not None and not (exempt is not None and any(exempt.search(t) for _n, t in region.added)):
                    out.append(found)
        except NotText:
            continue
    return out


def _candidate(region: ChangedLines, syntax: Syntax) -> bool:
    """The region may be a stand-in, by a look at its lines alone: it removes lines, and of what
    it adds, some line may do no work and the lines that may be code are few enough to be
    rewritten headers (or an ellipsis stands among them); or a line may point at prose left out
    (inside a docstring or block comment a line of prose looks like anything: the lexer decides)."""
    added = [t for _n, t in region.added if t.strip()]
    gone = sum(1 for _n, t in region.removed if t.strip())
    if not added or len(region.added) > MAX_REGION or not gone:
        return False
    if gone >= MIN_CODE:
        if any(_opens_text(t, syntax) for t in added):
            return True  # a docstring or block comment: its middle lines are prose
        maybe = [_maybe(t, syntax) for t in added]
        if all(maybe):
            return True
        if any(maybe) and (
            maybe.count(False) <= gone - MIN_CODE
            or any(
                len(t) <= MAX_LINE and (_STUB_NAME().match(t.strip()) or any(w in t.lower() for w in _PROSE_TRIGGERS))
                for t, m in zip(added, maybe)
                if m
            )
        ):
            return True
    return len(added) <= 3 and any(len(t) <= MAX_LINE and w in t.lower() for t in added for w in _PROSE_TRIGGERS)


def _judge(change: FileChange, region: ChangedLines, new: _Lexed, old: _Lexed, edit: Edit, level: str) -> Finding | None:
    python = syntax_for(change.path).name == "python"
    nsp = new.spans(region.added[-1][0])
    kinds = [(n, *_kind(nsp, n - 1, python)) for n, _t in region.added if n - 1 < len(nsp.lines)]
    doing_nothing = [(n, k, s) for n, k, s in kinds if k in _DOES_NO_WORK]
    pointing = [n for n, k, s in kinds if k == CODE and s and only_points(s)]
    if not doing_nothing and not pointing:
        return None
    osp = old.spans(change.removed[-1][0])
    removed = [(n, *_kind(osp, n - 1, python)) for n, _t in region.removed if n - 1 < len(osp.lines)]
    # (`continue` and a value thrown away do no work where an edit puts them; where it takes them
    # away, they did: a loop's `continue` skipped the rest of it.)
    code = [osp.lines[n - 1] for n, k, _s in removed if k == CODE or (k == EMPTY and not _NOTHING().fullmatch(osp.lines[n - 1]))]
    written = [(n, s) for n, k, s in kinds if k == CODE]
    code, new_code = _unpaired(code, [nsp.lines[n - 1] for n, _s in written])
    if new_code and (pointing or any(s and (_short_pointer(s) or only_points(s)) for _n, _k, s in doing_nothing)):
        # A note that points, beside lines that are the removed ones changed (`const rate = ...`
        # given a default) or lines of code whose own comment points (`_ = line  // unchanged`, not
        # a removed line changed, `#else /* c89, etc. */`): the note stands in for the rest.
        pointing = [n for n in pointing if _unpaired(code, [nsp.lines[n - 1]], loose=True)[1]]
        left, rest = _unpaired(code, [nsp.lines[n - 1] for n, _s in written if n not in pointing], loose=True)
        if not rest:
            code, new_code = left, []
            doing_nothing += [(n, COMMENT, s) for n, s in written if n in pointing]
    if not doing_nothing:
        return None  # only lines of code whose comment points, and they are the removed ones, changed
    if any(k == STUB for _n, k, _s in doing_nothing):
        if any(_RAISES().match(t.strip()) or _STUB_NAME().match(t.strip()) for _n, t in region.removed):
            return None  # a failure rewritten (its message, its type): no work lost
    if not code:
        return None if new_code else _pointer_in_prose(change, region, kinds, removed, level)
    if new_code or len(code) < MIN_CODE:
        # New code beside the note, or one line of code gone: whether the note stands for the
        # removed lines or heads the new ones (explains the one line's going) only its shape or its
        # words can say: an ellipsis (`// ... tax ...`, `<li>...</li>`), a stub, a note that only
        # points (`# logging as before`, `[skip check as before]`).
        old_lines = {_norm(t) for _n, t in region.removed}
        among_new = bool(new_code)
        numbers = frozenset(n for n, _t in region.added)
        doing_nothing = [
            (n, k, s)
            for n, k, s in doing_nothing
            if _elided(nsp, n - 1, k, s, among_new, numbers) and _norm(nsp.lines[n - 1]) not in old_lines
        ]
        if not doing_nothing:
            return None
    if _still_written(code, kinds, nsp, region, edit):
        return None
    old_notes = _old_notes(change, osp, python)
    note = " ".join(s for _n, k, s in doing_nothing if s)
    # A stub (`todo!()`, `raise NotImplementedError`) stands in for code whatever its message says,
    # and so does a note that points at where the code still is.
    if any(k == STUB for _n, k, _s in doing_nothing) or points(note, " ".join(old_notes)):
        return _finding(change, level, nsp, _shown(doing_nothing, old_notes), code, python)
    notes_only = all(k in (COMMENT, STRING) for _n, k, _s in doing_nothing)
    if notes_only and _kept(note, old_notes):
        return None  # an old comment, reworded or extended, beside a deletion
    if gives_reason(note) or (notes_only and (_heads_next(nsp, region, code) or _definitions(code))):
        return None
    return _finding(change, level, nsp, _shown(doing_nothing, old_notes), code, python)


def _shown(lines: list[tuple[int, str, str]], old_notes: list[str]) -> tuple[int, str, str]:
    """The line a finding names: the first stub, else the first note that points at the code,
    else the first line the old text did not hold."""
    old = " ".join(old_notes)
    seen = {_norm(o) for o in old_notes}
    return (
        next((line for line in lines if line[1] == STUB), None)
        or next((line for line in lines if line[2] and points(line[2], old)), None)
        or next((line for line in lines if _norm(line[2]) not in seen), lines[0])
    )


def _finding(change: FileChange, level: str, nsp: Spans, first: tuple[int, str, str], code: list[str], python: bool) -> Finding:
    number, kind, _said = first
    shown = nsp.lines[number - 1]
    what = _WHAT[kind]
    if kind == EMPTY:
        what = f"{quote(shown)}, a statement that does nothing"
    elif kind == STRING and python:
        what = "a docstring" if shown.lstrip().startswith(('"""', "'''")) else "a string"
    lines = f"{len(code)} lines of code" if len(code) != 1 else "1 line of code"
    return Finding(
        "placeholder",
        level,
        change.path,
        number,
        f"the edit removes {lines} here (the first: {quote(code[0], 60)}) and puts only {what} in their place "
        f"({quote(shown, 80)}): applied as written, that code is deleted",
        HINT,
    )


# Words a line that points at prose left out holds one of (a cheap first look, ``_candidate``).
_PROSE_TRIGGERS = (
    "...", "…", "unchang", "same", "rest", "remain", "omit", "elide", "snip", "before", "previous", "original",
    "etc", "see ", "old ", "as it was", "as is", "intact", "untouched", "verbatim", "ditto",
)  # fmt: skip
# What a pointer at prose left out may hold besides the pointing words: small words, and nouns for
# the text itself (the docstring, the rest of the comment, the notes).
_FILLER = frozenset(
    (
        "the a an of is are was were be been see for to in this that these those it its here and or as so on with from "
        "all other others remaining old previous original prior same rest lines line docstring docstrings comment "
        "comments paragraph paragraphs text description docs documentation notes note section sections details "
        "version versions part parts content contents examples example list items args arguments parameters params "
        "options fields attributes returns raises usage below above earlier before"
    ).split()
)


# A name in prose: a call, a member, a snake_case or camelCase word, markup, a constant.
_NAMED = lazy(r"\w\(|\w\.\w|\w_\w|[a-z][A-Z]|<\w|`|\b[A-Z]{2,}_")


def only_points(said: str) -> bool:
    """The text says nothing but that text is left out: a pointing word (``_POINTS``, or one of
    another language, ``_POINTS_ELSEWHERE``), and besides them only filler (``_FILLER``, code
    nouns) or, in a note ``notes`` reads as firmly eliding, its own words."""
    text = fold(said).lower()
    if not re.search(r"[^\W\d_]", text) or text.rstrip().endswith(":"):
        return False  # an ellipsis alone, `[...]` (in prose, an example's "and so on"), a heading
    if _NAMED().search(said):
        return False  # `The getIndex() is not changed.`: it says what a named thing does
    english = any(re.search(r"[^\W\d_]", m.group()) for m in _POINTS().finditer(text))
    elsewhere = _POINTS_ELSEWHERE().search(_plain(said)) is not None
    if not (english or elsewhere):
        return False
    if notes.elides(said) == notes.FIRM:
        return True
    rest = _POINTS_ELSEWHERE().sub(" ", _POINTS().sub(" ", text))
    voc = notes.vocabulary()
    return all(w in _FILLER or voc.concept(w) == notes.CODE for w in re.findall(r"[^\W\d_]+", rest))


def _pointer_in_prose(
    change: FileChange, region: ChangedLines, kinds: list[tuple[int, str, str]], removed: list[tuple[int, str, str]], level: str
) -> Finding | None:
    """A region that removes prose (docstring or comment lines) and puts, among the lines of prose
    it writes, one that only points at the rest (``... rest of the docstring unchanged ...``,
    ``Same as before.``, ``[unchanged]``): the removed lines are gone.  (A doctest's ``...`` is
    its own: an ellipsis after a ``>>>`` line is not judged.)"""
    old = [s for _n, k, s in removed if k in (COMMENT, STRING) and s.strip()]
    if not old or any(k not in (COMMENT, STRING, BLANK, CLOSER) for _n, k, _s in kinds):
        return None
    old_text = " ".join(old)
    for n, k, said in kinds:
        if k in (COMMENT, STRING) and only_points(said) and _norm(said) not in {_norm(o) for o in old}:
            if not _stands_alone(said, kinds, n):
                continue  # a line of a paragraph: `unchanged.` ends a sentence the line above began
            if not _at_text(said):
                continue  # `Everything else is left unchanged.`: what the code does, documented
            if not points(said, old_text) and notes.elides(said) is None:
                continue  # its pointing words were already there
            gone = [o for o in old if _norm(o) not in {_norm(s) for _m, _k, s in kinds}]
            if not gone:
                return None
            noun = "lines of prose" if len(gone) != 1 else "line of prose"
            return Finding(
                "placeholder",
                level,
                change.path,
                n,
                f"the edit removes {len(gone)} {noun} here (the first: {quote(gone[0], 60)}) and puts in their "
                f"place a line that only points at them ({quote(said, 80)}): applied as written, that text is deleted",
                HINT,
            )
    return None


# A pointer at text left out, not at behaviour: it names the text (the rest of the docstring, the
# remaining paragraphs), or a version of it (as before, the previous version), or is only a list
# trailing off (`Etc.`).
_AT_TEXT = lazy(
    r"\b(?:docstring|comment|docs?|documentation|text|paragraphs?|lines?|sections?|notes?|description|details"
    r"|examples?|version|original|previous(?:ly)?|prior|earlier|old)\b|\bas\s+(?:before|it\s+was|they\s+were|is)\b"
    r"|\bsame\s+as\s+before\b|\b(?:the\s+)?rest\b(?!\s+of\s+(?:the\s+)?(?:\w+\s+)?(?:is|are)\b)|omit|elide|snip|^\W*etc\W*$",
    re.IGNORECASE,
)


def _at_text(said: str) -> bool:
    """The pointer is at the text left out (``_AT_TEXT``), or wrapped in brackets or an ellipsis,
    or in another language (``_POINTS_ELSEWHERE``)."""
    text = said.strip()
    if _BRACKETED().fullmatch(text) or _ELLIPSIS_NOTE().fullmatch(text):
        return True
    return _AT_TEXT().search(fold(text)) is not None or _POINTS_ELSEWHERE().search(_plain(text)) is not None


def _stands_alone(said: str, kinds: list[tuple[int, str, str]], number: int) -> bool:
    """The note at line `number` is a sentence of its own, or wrapped (`[...]`, `(...)`, `... x ...`),
    not the end of one the line above began: it starts with a capital or a bracket or an ellipsis,
    and the line of prose the edit writes above it, if any, ends its sentence."""
    text = said.strip()
    if not text or not (text[0].isupper() or text[0] in "[(<{.…"):
        return False
    above = [s for n, k, s in kinds if n < number and k in (COMMENT, STRING) and s.strip()]
    return not above or above[-1].rstrip().endswith((".", "!", "?", ":"))


def _old_notes(change: FileChange, osp: Spans, python: bool) -> list[str]:
    """What the comments and strings among every line the change removes say (a diff may cut a
    reworded comment away from the code it stood beside)."""
    out = []
    for n, _t in change.removed:
        if n - 1 < len(osp.lines) and osp.pieces(n - 1):
            kind, said = _kind(osp, n - 1, python)
            if kind in (COMMENT, STRING) and said:
                out.append(said)
    return out


# A note wrapped in an ellipsis: `... tax as before ...`, `…snip…`; or in brackets: `[skip check as before]`.
_ELLIPSIS_NOTE = lazy(r"(?:\.{3}|…)[^\n]*\w[^\n]*(?:\.{3}|…)")
_BRACKETED = lazy(r"\[[^\[\]]*\w[^\[\]]*\]|\([^()]*\w[^()]*\)|<[^<>]*\w[^<>]*>")
_WORD = lazy(r"\w+")


def _in_new_definition(sp: Spans, i: int, added: frozenset[int]) -> bool:
    """Line `i` lies under a definition the edit adds (the first line above it, shallower, is
    an added definition's header)."""
    width = _width(sp.lines[i])
    k = i - 1
    while k >= 0 and k + 1 in added:
        line = sp.lines[k]
        if line.strip() and _width(line) < width:
            return bool(_DEFINITION().match(line))
        k -= 1
    return False


def _elided(sp: Spans, i: int, kind: str, said: str, among_new: bool, added: frozenset[int] = frozenset()) -> bool:
    """Line `i` marks an elision by its shape, or says nothing but that code is left out: a stub; a
    note in brackets or an ellipsis that points, standing alone (in a run of comments it goes on
    with a sentence: `# ... and near MIN ...`); an ellipsis standing alone where it cannot be code
    (`<li>...</li>`; a bare `...` but in Python and C, where it is) or with a note on it that points
    (`...  # unchanged`, `pass  # as before`).  Among new code (`among_new`) a comment that says so
    firmly (`# body unchanged`), not a sentence of prose; where it stands alone, any note that only
    points (`# logging as before`): among new lines a note that says less may head them."""
    line = sp.lines[i]
    if kind == STUB:
        # Beside new code a stub may be the body of a new definition (an abstract method).
        return not among_new or points(said) or not _in_new_definition(sp, i, added)
    if kind == EMPTY:
        if said and (only_points(said.strip(" []()<>{}")) or _short_pointer(said)):
            return True
        return ("..." in line or "…" in line) and (sp.syntax.bare_ellipsis or line.strip().startswith("<") or not sp.syntax.code)
    text = said.strip()
    if kind == COMMENT and not any(k == "c" for k, _end in sp.opens(i)):
        return False  # the rest of a comment begun above: a sentence that goes on
    if _ELLIPSIS_NOTE().fullmatch(text) and not _among_comments(sp, i):
        # An ellipsis is the mark of an elision: a short label in one stands in (`... existing
        # validation ...`), unless it goes on with a sentence (`... and near MIN ...`).
        inner = text.strip(" .…")
        words = re.findall(r"[^\W\d_]+", inner)
        if not words or words[0].lower() in _GOES_ON:
            return False
        return len(words) <= 6 or points(inner) or notes.elides(inner) is not None
    if _BRACKETED().fullmatch(text) and not _among_comments(sp, i):
        inner = text.strip(" []()<>{}")
        return points(inner) or notes.elides(inner) is not None
    if kind == COMMENT and _among_comments(sp, i):
        return False  # a line of a comment of several lines: part of what it explains
    if among_new:
        # (Quotes, brackets or operators in it: it names code, `Same for the other "methods"`.)
        plain = not re.search(r"[=;$@\\/\"`(){}\[\]<>]", text)
        return kind == COMMENT and plain and notes.elides(text) == notes.FIRM and not text.endswith(".")
    return only_points(text) or _short_pointer(text)


_GOES_ON = frozenset("and or but then plus so also which that while".split())


def _among_comments(sp: Spans, i: int) -> bool:
    """The lines with text next to line `i` (before or after) hold only comments."""
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(sp.lines) and not sp.lines[j].strip():
            j += step
        if 0 <= j < len(sp.lines) and not sp.residue(j).strip() and any(k == "c" for k, _t in sp.pieces(j)):
            return True
    return False


def _unpaired(removed: list[str], written: list[str], loose: bool = False) -> tuple[list[str], list[str]]:
    """The removed lines of code no written line rewrites, and the written lines that rewrite
    none (new code).  Only a definition's header is paired (a signature given new types, its body
    left out): other lines written again are a restructuring, and new code.  `loose` (beside a
    note that points): any line that is a changed copy of a removed one (most of its words)."""
    left = list(removed)
    new: list[str] = []
    for line in written:
        if loose or _DEFINITION().match(line):
            words = _WORD().findall(line)
            for k, old in enumerate(left):
                same_kind = loose or _DEFINITION().match(old)
                if same_kind and _norm(old) != _norm(line) and similar(words, _WORD().findall(old), 0.6):
                    del left[k]
                    break
            else:
                new.append(line)
        else:
            new.append(line)
    return left, new


def _short_pointer(said: str) -> bool:
    """A note of a few words that points in words (`warn as before`, `unchanged`; not `TODO: column
    list`, nor `Stack before: ... pylist`, whose one pointer is an ellipsis, nor one naming code)."""
    if not 1 <= len(re.findall(r"[^\W\d_]+", said)) <= 4 or _NAMED().search(said):
        return False
    text = fold(said)
    # (Not `etc.`: in a short comment it ends a list, `# skip NIS entries etc.`.)
    return any(re.search(r"[^\W\d_]", m.group()) and m.group().lower() != "etc" for m in _POINTS().finditer(text)) or bool(
        _POINTS_ELSEWHERE().search(_plain(said))
    )


def _still_written(code: list[str], kinds: list[tuple[int, str, str]], nsp: Spans, region: ChangedLines, edit: Edit) -> bool:
    """The removed code is still in the edit: moved (most of it among the lines the edit adds), or
    commented out (the new lines hold it, or open a block comment that goes on past the region)."""
    if _share(code, edit.added()) >= 0.5:
        return True
    if _share(code, {_norm(s) for _n, _k, s in kinds if s}) >= 0.5:
        return True
    last = region.added[-1][0] - 1
    for n, k, _s in kinds:
        if k == COMMENT and any(kind == "c" and end > last for kind, end in nsp.opens(n - 1)):
            return True  # `/*` opened here and closed below: the lines after it are commented out
    return False


def _kept(note: str, old_notes: list[str]) -> bool:
    """The note is an old one, reworded (most of its words are theirs) or extended (it holds one)."""
    if not old_notes:
        return False
    words = _WORD().findall(note.lower())
    if not words:
        return False
    plain = " ".join(words)
    old = [" ".join(_WORD().findall(o.lower())) for o in old_notes]
    if any(o and (o in plain or plain in o) for o in old):
        return True
    return similar(words, " ".join(old).split(), 0.6) or any(similar(words, o.split(), 0.6) for o in old)


_DOC_MARKS = ("/**", "///", "//!", "#:", "/*!", "* ", "*/")


def _heads_next(sp: Spans, region: ChangedLines, code: list[str]) -> bool:
    """The note heads the unchanged lines after it, not the ones it stands where: the next line
    with text is at the note's indentation (not shallower: a block that ends after a note had the
    note in place of its rest; not a closing line) and is a definition, or the note is set apart
    from it by a blank line (a section's heading), or is documentation by its syntax (``///``,
    ``/**``), or says more of the code after it than of the code removed."""
    notes = [t for _n, t in region.added if t.strip()]
    j = region.added[-1][0]  # the 0-based index of the line after the region
    apart = False
    while j < len(sp.lines) and not sp.lines[j].strip():
        j, apart = j + 1, True
    if j >= len(sp.lines) or not notes:
        return False
    after = sp.lines[j]
    if _width(after) != _width(notes[0]) or _CLOSER().fullmatch(after.strip()):
        return False
    if apart or _DEFINITION().match(after) or notes[0].lstrip().startswith(_DOC_MARKS):
        return True
    said = set(_stems(" ".join(notes)))
    following = set(_stems(" ".join(sp.lines[j : j + 3])))
    removed = set(_stems(" ".join(code)))
    return len(said & removed) < len(said & following)


def _stems(text: str) -> list[str]:
    """The words of `text` (identifiers split at `_` and case changes), cut to five letters."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", text)
    return [w.lower()[:5] for w in words if len(w) >= 3]


def _definitions(code: list[str]) -> bool:
    """Most of the removed lines of code are whole definitions (a header at the outermost
    indentation of the lines, the lines under it, and the lines at its depth that close it or go
    on with it: `) -> u64 {`, `}`): they went header and all, on purpose.  An elision keeps the
    header and leaves out the body."""
    if not code:
        return False
    depth = min(_width(t) for t in code)
    covered = 0
    inside = False
    for t in code:
        if _width(t) == depth and not t.lstrip().startswith((")", "}", "]", "end")):
            inside = bool(_DEFINITION().match(t))
        covered += inside
    return 2 * covered >= len(code)


def _width(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
