"""What a note put in place of code says of it: that it is still somewhere (it points), or why
it went (it gives a reason).

A stand-in's note is a label, a pointer or a list of the steps it leaves out; a deletion's note
explains.  Both are read from words in English and other languages (``POINTS``, ``_REASON``
and their ``_ELSEWHERE`` twins, on the note without accents), from the shape of a sentence that
explains (``gives_reason``), and from ``notes``, which reads a note made of elision vocabulary
alone.  Notes are folded first (``lookalikes.fold``), so look-alike letters change nothing.
"""

from __future__ import annotations

import re
import unicodedata

from ..text.lookalikes import fold
from ..text.regex import lazy
from . import notes

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

POINTS = lazy(
    r"\b(?:unchanged|unmodified|untouched|intact|verbatim|as\s+(?:before|is|it\s+was|they\s+were|previously|above"
    r"|below|earlier|shown|written|in\s+v\d+)|as-is|identical|ditto|omit(?:s|ted)?|elid(?:e|ed|es)|elision|snip(?:ped)?"
    r"|brevity|abbreviated|abridged|truncated|not\s+shown|fill(?:ed)?\s+in|placeholder|etc|and\s+so\s+on"
    r"|(?:has|have|is|are)\s*(?:n't|\s+not)\s+(?:been\s+)?changed|left\s+out|leave\s+out|copy\s+(?:it|them)\s+(?:from|back)"
    r"|no\s+changes?\s+(?:to|in)\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:body|loop|code|rest|logic|notes|lines|function|method|block"
    r"|file)|nothing\s+(?:else\s+)?changes?"
    r"|lines?\s+\d+(?:\s*(?:-|–|—|to|through)\s*\d+)?|(?:from|as\s+in|see|like)\s+v\d+|v\d+\s+" + _CODE_NOUN + r""
    r"|rest\s+of|the\s+rest|remainder|same\s+as|(?:the\s+)?same" + _END + r"|(?:existing|remaining|previous|prior|original"
    r"|old|earlier|unchanged|same|usual)\s+(?:\w+\s+)?"
    + _CODE_NOUN
    + r"\b|(?:existing|remaining|previous|original)"
    + _END
    + r")\b|\.\.\.|…|\[\s*\]",
    re.IGNORECASE,
)

# The same in the other languages notes are written in (accents stripped, lower case).
POINTS_ELSEWHERE = lazy(
    r"\b(?:mesm[oa]s?|mism[oa]s?|igual(?:es)?|(?:de|como)\s+antes|sin\s+cambios?|sem\s+(?:alterac|mudanc)\w*|inalterad[oa]s?"
    r"|existentes?|rest(?:o|ante|antes)\b|meme|inchange\w*|comme\s+avant|existant\w*|unverandert|wie\s+(?:bisher|vorher)"
    r"|bestehende?\w*|invariat[oa]|come\s+prima|stess[oa]|esistent[ei]|omitid[oa]s?|omess[oa]|weggelassen|ausgelassen)\b"
    r"|без\s+изменени|как\s+раньше|остальн|существующ|不变|不變|同上|相同|省略|照旧|照舊|原样|原樣|そのまま|同じ|変更なし|생략|그대로|동일|기존",
)


def plain(text: str) -> str:
    """`text` in lower case without accents (`cálculo` -> `calculo`)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


# A note wrapped in an ellipsis: `... tax as before ...`, `…snip…`; or in brackets: `[skip check as before]`.
ELLIPSIS_NOTE = lazy(r"(?:\.{3}|…)[^\n]*\w[^\n]*(?:\.{3}|…)")
BRACKETED = lazy(r"\[[^\[\]]*\w[^\[\]]*\]|\([^()]*\w[^()]*\)|<[^<>]*\w[^<>]*>")


# The pointing words that stay pointers in a long note that explains: a placeholder, an old or
# existing thing, the rest of something are what a reason talks about as often.
STRONG = lazy(
    r"\b(?:unchanged|unmodified|untouched|intact|verbatim|as\s+(?:before|is|it\s+was|they\s+were)|as-is|identical"
    r"|ditto|same\s+as\s+(?:before|above|below|the\s+(?:original|old|previous))|omit(?:s|ted)?|elid(?:e|ed|es)|snip(?:ped)?"
    r"|brevity|abbreviated|truncated|not\s+shown|left\s+out|copy\s+(?:it|them)\s+(?:from|back)|fill(?:ed)?\s+in"
    r"|(?:has|have|is|are)\s*(?:n't|\s+not)\s+(?:been\s+)?changed|(?:previous|old|original|earlier)\s+version"
    r"|(?:as\s+in|like|see)\s+the\s+(?:original|old|previous|earlier)\b(?:\s+\w+)?"
    r"|no\s+changes?\s+(?:to|in)\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:body|loop|code|rest|logic|notes|lines|function|method|block"
    r"|file)|nothing\s+(?:else\s+)?changes?)\b|\.\.\.|…",
    re.IGNORECASE,
)


def points(note: str, before: str = "") -> bool:
    """The note points at where the code still is, or says it is left out, in words the old
    text `before` did not already hold (moving an old note is not writing one).  (A note that
    ``notes`` reads as saying less, ``# other helpers``, may head what follows it.)"""
    text = fold(note)
    low_before = fold(before).lower()
    for m in POINTS().finditer(text):
        if m.group().lower() not in low_before:
            return True
    flat, flat_before = plain(note), plain(before)
    if any(m.group() not in flat_before for m in POINTS_ELSEWHERE().finditer(flat)):
        return True
    return notes.elides(note) == notes.FIRM and " ".join(note.lower().split()) not in low_before


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
    r"|spam\w*|slow|expensive|twice|duplicated?|instead|per\s+(?:spec|rfc|policy)|incidents?)\b|#\d+|https?://"
    r"|\b\d{4}-\d{2}-\d{2}\b",  # a date: when, and so why
    re.IGNORECASE,
)

# The same in other languages, on the note in lower case without accents (``plain``): Spanish,
# Portuguese, French, German, Italian, Dutch, Swedish, Polish, Czech, Turkish, Indonesian, Russian,
# Chinese, Japanese, Korean.
_REASON_ELSEWHERE = lazy(
    r"\b(?:porque|ya\s+no|obsolet[oa]s?|eliminad[oa]s?|removid[oa]s?|movid[oa]s?|reemplazad[oa]s?|substituid[oa]s?"
    r"|weil|nicht\s+mehr|entfernt|veraltet|verschoben|ersetzt|parce\s+que|plus\s+(?:necessaire|utilise)|supprime"
    r"|obsolete|deplace|remplace|perche|non\s+piu|rimoss[oa]|spostat[oa]|sostituit[oa]|verwijderd|omdat|niet\s+meer"
    r"|overbodig|vervangen|borttagen|borttaget|eftersom|inte\s+langre|usunie\w*|poniewaz|juz\s+nie|odstranen\w*"
    r"|protoze|kaldirildi|cunku|artik|dihapus|karena|tidak\s+lagi)\b"
    r"|потому|больше\s+не|удален|устарел|перенесен|因为|不再|已删除|已移除|删除|移到|移至|弃用|廃止|不要|削除|移動|때문|더\s+이상|삭제|이동",
)

# A ticket a reason names: `INC-2291`, `OPS-311`.
_TICKET = lazy(r"\b[A-Z][A-Z0-9]+-\d+\b")

# A sentence that explains: a clause after a semicolon or a dash, a negation, a conjunction that
# gives a cause or a condition (a stand-in's words are a label, a pointer or a list of steps, and a
# colon heads a list as often as a reason).
_CLAUSE = lazy(
    r"\w;\s+\w|\s[—–]\s|\s--\s|\b(?:no|not|never|nothing|none|because|since|so|until|unless|when|once|although"
    r"|though|but|only)\b|n't\b",
    re.IGNORECASE,
)

_LABEL = lazy(r"\s*(?:todo|fixme|note|xxx|hack)\b\s*(?:\([^)]*\))?\s*:?", re.IGNORECASE)


def gives_reason(note: str) -> bool:
    """The note says why code goes, or where its work is done now: in its words (``_REASON``, a
    ticket), or as a sentence that explains (ten words or more, with a clause, a negation or a
    conjunction: ``_CLAUSE``)."""
    text = fold(note)
    if _REASON().search(text) or _TICKET().search(note) or _REASON_ELSEWHERE().search(plain(note)):
        return True
    rest = _LABEL().sub("", text, count=1)
    return len(re.findall(r"[^\W\d_]+", rest)) >= 10 and _CLAUSE().search(rest) is not None


# What a pointer at prose left out may hold besides the pointing words: small words, and nouns for
# the text itself (the docstring, the rest of the comment, the notes).
_FILLER = frozenset(
    (
        "the a an of is are was were be been see for to in this that these those it its here and or as so on with from "
        "all other others remaining old previous original prior same rest lines line docstring docstrings comment "
        "comments paragraph paragraphs text description docs documentation notes note section sections details "
        "version versions part parts content contents examples example list items args arguments parameters params "
        "options fields attributes returns raises usage below above earlier before keep keeps kept leave your here "
        "goes go put insert add actual real computation calculation calculations no op noop"
    ).split()
)

# A name in prose: a call, a member, a snake_case or camelCase word, markup, a constant.
NAMED = lazy(r"\w\(|\w\.\w|\w_\w|[a-z][A-Z]|<\w|`|\b[A-Z]{2,}_")


def only_points(said: str) -> bool:
    """The text says nothing but that text is left out: a pointing word (``POINTS``, or one of
    another language, ``POINTS_ELSEWHERE``), and besides them only filler (``_FILLER``, code
    nouns) or, in a note ``notes`` reads as firmly eliding, its own words."""
    text = fold(said).lower()
    if not re.search(r"[^\W\d_]", text) or text.rstrip().endswith(":"):
        return False  # an ellipsis alone, `[...]` (in prose, an example's "and so on"), a heading
    if NAMED().search(said):
        return False  # `The getIndex() is not changed.`: it says what a named thing does
    english = any(re.search(r"[^\W\d_]", m.group()) for m in POINTS().finditer(text))
    elsewhere = POINTS_ELSEWHERE().search(plain(said)) is not None
    if not (english or elsewhere):
        return False
    if notes.elides(said) == notes.FIRM:
        return True
    rest = POINTS_ELSEWHERE().sub(" ", POINTS().sub(" ", text))
    voc = notes.vocabulary()
    return all(w in _FILLER or voc.concept(w) == notes.CODE for w in re.findall(r"[^\W\d_]+", rest))


def short_pointer(said: str) -> bool:
    """A note of a few words that points in words (`warn as before`, `unchanged`; not `TODO: column
    list`, nor `Stack before: ... pylist`, whose one pointer is an ellipsis, nor one naming code)."""
    if not 1 <= len(re.findall(r"[^\W\d_]+", said)) <= 4 or NAMED().search(said):
        return False
    text = fold(said)
    # (Not `etc.`, `and so on`: in a short note they end a list, `# skip NIS entries etc.`.)
    return any(
        re.search(r"[^\W\d_]", m.group()) and m.group().lower() not in ("etc", "and so on") for m in POINTS().finditer(text)
    ) or bool(POINTS_ELSEWHERE().search(plain(said)))


# A pointer at text left out, not at behaviour: it names the text (the rest of the docstring, the
# remaining paragraphs), or a version of it (as before, the previous version), or is only a list
# trailing off (`Etc.`).
_AT_TEXT = lazy(
    r"\b(?:docstring|comment|docs?|documentation|text|paragraphs?|lines?|sections?|notes?|description|details"
    r"|examples?|version|original|previous(?:ly)?|prior|earlier|old)\b|\bas\s+(?:before|it\s+was|they\s+were|is)\b"
    r"|\bsame\s+as\s+before\b|\b(?:the\s+)?rest\b(?!\s+of\s+(?:the\s+)?(?:\w+\s+)?(?:is|are)\b)|omit|elide|snip|^\W*etc\W*$",
    re.IGNORECASE,
)


def at_text(said: str) -> bool:
    """The pointer is at the text left out (``_AT_TEXT``), or wrapped in brackets or an ellipsis,
    or in another language (``POINTS_ELSEWHERE``)."""
    text = said.strip()
    if BRACKETED().fullmatch(text) or ELLIPSIS_NOTE().fullmatch(text):
        return True
    return _AT_TEXT().search(fold(text)) is not None or POINTS_ELSEWHERE().search(plain(text)) is not None
