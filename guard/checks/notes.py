"""What a note written in place of code says: that code is left out, in any wording.

A model that elides code leaves a note where the code was: ``# rest of the code``,
``// body unchanged``, ``(same as above)``, ``[lines 2-4 unchanged]``, ``// 其余代码不变``.
No list of phrases covers the ways to say it, so the note is read for its meaning:
each word is given a concept, and a note is an elision when it speaks only of code
and of that code being kept, elsewhere, omitted or the same.

Concepts (``WORDS``: English, Spanish, Portuguese, French, German, Italian, Russian,
Chinese, Japanese, Korean; a trailing ``*`` makes a stem, ``_`` joins a phrase):

    CODE    what is elided: code, body, implementation, logic, method, lines... (a line range ``12-40``)
    NAME    an identifier: ``parse_args``, ``self.parse``, ``run()``
    REST    rest, remaining, other, everything (else)
    SAME    unchanged, untouched, intact, verbatim, as before, as is
    ALIKE   same, identical, ditto, as above (a comparison as often: ``same as parse()``)
    KEEP    keep, kept, leave, stays, retained (says little without an object)
    OMIT    omitted, elided, snipped, truncated, for brevity, left out, not shown
    LIST    etc., and so on (a list trailing off, as often as code)
    PLACE   existing, previous, original, above, below, elsewhere
    NONE/NOT + CHANGE/SHOWN    no changes, not modified (SAME); not shown, not repeated (OMIT)

The rule, on the words of a note (``elides``):

1. it is a whole phrase: it does not begin or end with a word that leaves a sentence
   open (``of an existing one``, ``is the same as``), does not end with a colon (a
   heading) and holds no exclamation or question;
2. every word is a concept or a small word (articles, prepositions, the verb "to be");
   at most two unknown words, each of which names code: the name after a code noun
   that takes one (``class Foo``), a word modifying a code noun (``rest of the view
   code``, ``remaining match arms``; not the first word, nor one after a pronoun:
   there it is a verb, ``skip lines``), or what REST names in a note that says it is
   kept (``rest of the defun unchanged``; BARE at most).  A word that says what code
   *does* (``sum``, ``cache``, ``return``, ``copied``, ``but``) makes the note an
   explanation, and so does a state said of a thing (``unchanged inputs``, ``the same
   block``, ``truncated versions``) or an instruction (``do not edit``);
3. it says code is left out: OMIT; SAME about CODE, REST or PLACE (``body unchanged``,
   ``no changes below``); ALIKE about REST (``the rest is the same``); KEEP about REST
   or PLACE (``keep the existing code``): FIRM;
4. or it says less: SAME, ALIKE or LIST alone or about code or a name (``unchanged``,
   ``same as above``, ``ditto for parse()``, ``etc.``), KEEP about code (``leave the
   import as is``), REST alone or with CODE (``the rest``, ``remaining code``), PLACE
   with CODE (``existing code``): BARE, a note that may as well head new code, or say
   something of the code around it; inside an ellipsis or brackets (``[existing
   code]``) the last two are FIRM.

Where the note stands (a comment or a line of prose replacing removed lines, and what
else the edit writes there) is judged by the placeholder check.  Notes are folded
first (``lookalikes.fold``), so look-alike letters and invisible characters change
nothing.

Speed and safety: a note is at most ``MAX_NOTE`` characters; one linear tokenizer
(bounded repetitions only), then a few passes over at most a few dozen words.  The
vocabulary is built on first use, the ASCII part of it without folding anything.
"""

from __future__ import annotations

from ..fs.kept import by_value
from ..text.lookalikes import fold
from ..text.regex import lazy

FIRM, BARE = "firm", "bare"
MAX_NOTE = 300

CODE, NAME, REST, SAME, ALIKE, KEEP, OMIT, LIST, PLACE, NONE, NOT, CHANGE, SHOWN, SMALL = (
    "code",
    "name",
    "rest",
    "same",
    "alike",
    "keep",
    "omit",
    "list",
    "place",
    "none",
    "not",
    "change",
    "shown",
    "small",
)
# The concepts a note that elides is made of (besides code nouns and small words).
SAYING = (REST, SAME, ALIKE, KEEP, OMIT, LIST, PLACE, CHANGE, SHOWN)
UNKNOWN, DOTS, OPEN, CLOSE, SEP = "unknown", "dots", "open", "close", "sep"
PUNCTUATION = (DOTS, OPEN, CLOSE, SEP)

# concept -> words, by language.  Stems end with `*`; phrases are words joined by `_`.
WORDS: dict[str, tuple[str, ...]] = {
    CODE: (
        # English
        "code codes body bodies implementation implementations impl impls logic function functions func funcs fn "
        "method methods class classes file files module modules section sections block blocks part parts portion "
        "portions line lines content contents stuff things definition definitions statement statements import "
        "imports test tests handler handlers branch branches arm arms clause clauses equation equations step steps "
        "routine routines procedure procedures member members getter getters setter setters helper helpers markup "
        "template templates component components script scripts query queries initialization constructor loop "
        "loops declaration declarations export exports hook hooks endpoint endpoints route routes schema migration "
        "migrations macro macros struct structs enum enums typedef typedefs prototype prototypes docstring "
        "docstrings comment comments documentation docs program source snippet region regions jsx html css",
        # Spanish, Portuguese, French, German, Italian
        "codigo codigos funcion funciones metodo metodos logica implementacion cuerpo clase archivo fichero modulo "
        "bloque linea lineas seccion parte funcao funcoes implementacao corpo arquivo bloco linha linhas secao "
        "fonction fonctions methode methodes logique implementation corps fichier bloc ligne lignes partie "
        "funktion funktionen methode methoden logik implementierung rumpf klasse datei modul zeile zeilen "
        "abschnitt teil codice funzione funzioni metodi implementazione riga righe sezione",
        # Russian
        "код кода коде коду функци* метод* логик* реализаци* тело тела класс* файл* модул* блок* строк* раздел* част*",
        # Chinese, Japanese, Korean
        "代码 代碼 程式码 程式碼 程序 逻辑 邏輯 实现 實現 函数 函數 函式 方法 类 類 文件 檔案 模块 模組 部分 内容 "
        "コード 処理 実装 関数 メソッド ロジック クラス ファイル 本体 "
        "코드 로직 구현 함수 메서드 메소드 클래스 파일 부분 본문",
    ),
    REST: (
        "rest remainder remaining other others everything leftover leftovers",
        "resto restante restantes demas otros otras otro otra demais outros outras reste restant restants autres autre "
        "rest restlich* ubrig* andere anderen anderer rimanente rimanenti altri altre",
        "остальн* прочи* други* оставш*",
        "其余 其餘 其他 其它 剩余 剩餘 剩下 残り その他 以降 나머지 기타 다른",
    ),
    SAME: (
        "unchanged unmodified unaltered unedited untouched intact unchanging verbatim "
        "as_before as_is as_it_is as_it_was as_they_are as_they_were as_previously as_previously_written as_written",
        "inalterado inalterada intacto intacta como_antes como_estaba inchange inchangee inchanges inchangees "
        "comme_avant tel_quel unverandert wie_bisher wie_vorher invariato invariata come_prima",
        "неизменн* как_было как_раньше как_есть",
        "不变 不變 照旧 照舊 如前 原样 原樣 不动 不動 未变 未變 そのまま 不変 変更なし 変更無し 그대로 변경없음",
    ),
    ALIKE: (
        "same identical ditto likewise as_above as_below as_shown as_shown_above as_shown_before the_same",
        "igual iguales mismo misma mismos identique identiques meme memes gleich identisch wie_oben uguale stesso "
        "stessa identico",
        "идентичн* аналогичн* то_же так_же",
        "相同 一样 一樣 同上 同じ 同様 동일 동일함 같음 같은",
    ),
    KEEP: (
        "keep keeps kept keeping retain retains retained preserve preserves preserved leave leaves alone stay stays "
        "stayed remain remains remained continues goes follows",
        "mantiene mantener mantenido mantenida mantem mantido mantida permanece conserve conservee garder garde "
        "gardent bleibt bleiben beibehalten erhalten mantenuto mantenuta",
        "сохран* оставл* оставить",
        "保持 保留 维持 維持 維持 保持 유지",
    ),
    OMIT: (
        "omitted elided snip snipped truncated abbreviated abridged brevity left_out",
        "omitido omitida omitidos omitidas ausgelassen weggelassen gekurzt omesso omessa omessi",
        "опущен* пропущен* сокращ*",
        "省略 此处省略 以下省略 생략",
    ),
    LIST: ("etc etcetera and_so_on so_on and_so_forth", "", "", ""),
    PLACE: (
        "existing exist exists previous previously prior original originally earlier above below before elsewhere "
        "already from_here_on from_here from_this_point_on after_this_point from_this_point onwards onward",
        "existente existentes anterior anteriores original originales previo previa antes arriba abajo acima abaixo "
        "existant existante existants precedent precedente originale avant dessus dessous "
        "bestehend* vorhanden* vorherig* bisherig* ursprunglich* vorher oben unten "
        "esistente precedente sopra sotto",
        "существующ* предыдущ* исходн* оригинальн* прежн* выше ниже раньше ранее",
        "原有 原来 原來 现有 現有 已有 之前 以前 以下 上面 下面 上文 前面 既存 元の 以前 前回 上記 기존 이전 원래",
    ),
    NONE: (
        "no without nothing none",
        "sin sem sans ohne kein keine keiner senza",
        "без нет",
        "无 無 没有 沒有 なし 無し ない 없음 없이",
    ),
    NOT: ("not never dont don", "nao pas nicht non", "не", "不 未 안"),
    CHANGE: (
        "change changes changed modification modifications modified edits edited alteration alterations altered "
        "differences touched",
        "cambio cambios modificado modificaciones alteracao alteracoes alterado mudanca mudancas modificacao "
        "modificacoes changement changements modifie anderung anderungen geandert modifiche modificato cambiamenti",
        "изменени* изменен* измен*",
        "改动 改動 修改 变化 變化 更改 变动 變動 変更 변경 수정",
    ),
    SHOWN: (
        "shown repeated included reproduced listed copied displayed written",
        "mostrado mostrada montre gezeigt mostrato",
        "показан*",
        "",
    ),
    SMALL: (
        "the a an of to in on at for from by with as is are was were be been being it its this that these those all "
        "any each every here there and or so also just still simply please else left like will would should can "
        "may must has have had them their our your my version versions revision for_clarity for_readability "
        "for_simplicity for_space to_save_space",
        "el la los las lo del de que es son se en con y o como al un una o os as e em com ao "
        "le les l du des d est sont et ou un une au aux der die das den dem ist sind wird werden von und oder wie "
        "hier ein eine il i gli della dei di che e sono come",
        "и в на по как это все всё то же так что",
        "的 了 之 等 处 處 此 这里 這裡 の は が を に で と も へ 은 는 이 가 을 를 의 도 에 와 과 로 으로 함 됨",
    ),
}

# One token at a time, left to right; no two repetitions can match the same text, so no backtracking.
_TOKEN = lazy(
    r"(?P<range>l?\d{1,7} {0,3}(?:-{1,3}|\.{2,3}|to|through|thru|until|till) {0,3}l?\d{1,7})"
    r"|(?P<dots>\.{2,}|(?:\. ){2,}\.)"
    r"|(?P<word>\w+(?:(?:\.|::)\w+)*(?:\(\))?)"
    r"|(?P<open>[\[(<{])|(?P<close>[\])>}])"
    r"|(?P<sep>[,;:!?]|\.(?!\S))"
)
# Scripts written without spaces between words (kana, CJK ideographs, Hangul): split by the
# vocabulary, longest first.  (Compared as numbers: a character class this wide is slow to compile,
# bench/README.md.)
_CJK = ((0x1100, 0x11FF), (0x3040, 0x30FF), (0x3130, 0x318F), (0x3400, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))


def _cjk(word: str) -> bool:
    return any(lo <= ord(c) <= hi for c in word for lo, hi in _CJK)


# The nouns `rest` and `remainder` ("the rest") right before a noun are an adjective ("REST API").
_NOUN_REST = ("rest", "remainder")
# Code nouns a name may follow: `class Foo`, `function bar`.
_NAMERS = frozenset(
    (
        "class function func fn method module struct enum file component macro hook route endpoint test handler "
        "helper procedure routine script template typedef prototype"
    ).split()
)
# Words a note cannot begin or end with: it is a piece of a sentence that goes on elsewhere.
_OPENING = frozenset(
    (
        "of to in on at for from by with and or so that which who whom whose them will would should have has had "
        "because than into onto then when if where while"
    ).split()
)
_CLOSING = frozenset(
    (
        "the a an of to in on at for from by with as is are was were be been and or so that this these those its "
        "their our your my will would should can may must has have had than if when into onto "
        "de del la el los las le les du des der die das den dem von und oder y o e et ou di della il и в на по"
    ).split()
)
_ARTICLES = frozenset("the a an this that these those each every any all".split())
# Base verbs: after `not` an instruction (`do not edit`), not a state (`not edited`).
_VERBS = frozenset("change modify edit alter touch show repeat include list copy".split())
_PRONOUNS = frozenset(("i", "we", "you", "they", "it", "he", "she", "one"))


class Vocabulary:
    """The folded vocabulary: words, stems and phrases by concept (`ascii`: only the entries written in ASCII,
    all an ASCII note can hold, built without folding anything)."""

    def __init__(self, ascii: bool) -> None:
        self.words: dict[str, str] = {}
        self.stems: list[tuple[str, str]] = []
        self.phrases: dict[tuple[str, ...], str] = {}
        self.cjk: dict[str, str] = {}
        self.longest_cjk = 1
        for concept, groups in WORDS.items():
            for entry in " ".join(groups).split():
                if ascii and not entry.isascii():
                    continue
                if "_" in entry:
                    self.phrases[tuple(fold(w) for w in entry.split("_"))] = concept
                    continue
                word = fold(entry.rstrip("*"))
                if entry.endswith("*"):
                    self.stems.append((word, concept))
                elif not word.isascii() and _cjk(word):
                    self.cjk.setdefault(word, concept)
                    self.longest_cjk = max(self.longest_cjk, len(word))
                else:
                    self.words.setdefault(word, concept)
        self.longest_phrase = max(map(len, self.phrases))
        self.starts = {p[0] for p in self.phrases}

    def concept(self, word: str) -> str:
        got = self.words.get(word)
        if got is not None:
            return got
        for stem, concept in self.stems:
            if word.startswith(stem):
                return concept
        return UNKNOWN


@by_value(2)
def vocabulary(ascii: bool = False) -> Vocabulary:
    return Vocabulary(ascii)


def triggers() -> list[str]:
    """Folded words one of which every elision note holds (what can make a note, not CODE or small words)."""
    voc = vocabulary()
    out = {w for w, c in voc.words.items() if c in SAYING}
    out.update(s for s, c in voc.stems if c in SAYING)
    out.update(w for w, c in voc.cjk.items() if c in SAYING)
    out.update(" ".join(p) for p, c in voc.phrases.items() if c != SMALL)
    return sorted(out)


def _split_cjk(word: str, voc: Vocabulary) -> list[tuple[str, str]]:
    """A run of CJK, kana or Hangul letters split into vocabulary words, longest first; the
    letters between them are one unknown word each run."""
    out: list[tuple[str, str]] = []
    i = 0
    unknown = ""
    while i < len(word):
        for n in range(min(voc.longest_cjk, len(word) - i), 0, -1):
            concept = voc.cjk.get(word[i : i + n])
            if concept is not None:
                break
        else:
            unknown += word[i]
            i += 1
            continue
        if unknown:
            out.append((UNKNOWN, unknown))
            unknown = ""
        out.append((concept, word[i : i + n]))
        i += n
    if unknown:
        out.append((UNKNOWN, unknown))
    return out


def tokens(note: str) -> list[tuple[str, str]] | None:
    """(concept, text) of each token of `note`, phrases joined; None for a note too long to be one."""
    text = fold(note)
    if len(text) > MAX_NOTE:
        return None
    voc = vocabulary(note.isascii())  # an ASCII note holds no word written in another script
    raw: list[tuple[str, str]] = []
    for m in _TOKEN().finditer(text):
        kind = m.lastgroup
        got = m.group()
        if kind == "range":
            raw.append((CODE, got))  # lines 12-40
        elif kind == "dots":
            raw.append((DOTS, got))
        elif kind == "sep":
            raw.append((SEP, got))
        elif kind == "open" or kind == "close":
            raw.append((OPEN if kind == "open" else CLOSE, got))
        elif not got.isalnum():
            raw.append((NAME, got))  # `parse_args`, `self.parse`, `run()`
        elif got.isdigit() or (len(got) == 1 and got.isascii()):
            raw.append((SMALL, got))  # a number, or a letter left of a contraction
        elif not got.isalpha():
            raw.append((UNKNOWN, got))  # letters and digits: `rfc7230`, `i386`, `v2`
        elif not got.isascii() and _cjk(got):
            raw.extend(_split_cjk(got, voc))
        else:
            raw.append((voc.concept(got), got))
    # Phrases: the longest run of words that is one, at each place.
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(raw):
        for n in range(min(voc.longest_phrase, len(raw) - i) if raw[i][1] in voc.starts else 1, 1, -1):
            concept = voc.phrases.get(tuple(t for _c, t in raw[i : i + n]))
            if concept is not None:
                out.append((concept, " ".join(t for _c, t in raw[i : i + n])))
                i += n
                break
        else:
            out.append(raw[i])
            i += 1
    return out


def _resolve(toks: list[tuple[str, str]]) -> list[str]:
    """The concepts of the words, read in context: negations, and words that describe a noun."""
    concepts = [c for c, _t in toks]
    texts = [t for _c, t in toks]
    n = len(concepts)
    for i, c in enumerate(concepts):
        if c not in (NONE, NOT):
            continue
        concepts[i] = SMALL
        # `no changes`, `not modified`, `変更なし`: the negated word is at most two words off.
        for j in (i + 1, i + 2, i - 1, i - 2):
            if 0 <= j < n and concepts[j] in (CHANGE, SHOWN):
                if c == NOT and texts[j] in _VERBS:
                    concepts[j] = UNKNOWN  # `do not edit`: an instruction
                else:
                    concepts[j] = SAME if concepts[j] == CHANGE else OMIT
                break
    for i, c in enumerate(concepts):
        after = concepts[i + 1] if i + 1 < n else None
        if c == CHANGE:
            concepts[i] = UNKNOWN  # `changes below`: a change, said of the new code
        elif c == SHOWN:
            # `shown below` points at code; `copied`, `written` say what the new code does.
            concepts[i] = SMALL if texts[i] == "shown" else UNKNOWN
        elif c == REST and texts[i] in _NOUN_REST and after in (CODE, NAME, UNKNOWN):
            concepts[i] = UNKNOWN  # `rest endpoint`
        elif c in (SAME, ALIKE, OMIT) and after in (CODE, NAME, UNKNOWN) and not texts[i].startswith("as "):
            # `unchanged inputs`, `the same block`, `truncated versions`: it describes a thing.
            concepts[i] = SMALL if c == ALIKE else UNKNOWN
        elif c == ALIKE and i + 2 < n and texts[i + 1] == "as" and (concepts[i + 2] in (NAME, UNKNOWN) or texts[i + 2].isdigit()):
            concepts[i] = SMALL  # `the same as parse()`: a comparison with a named thing
        elif (
            c in (SAME, ALIKE)
            and texts[i].startswith("as ")
            and any(k not in PUNCTUATION and k != SMALL for k in concepts[i + 1 :])
        ):
            concepts[i] = SMALL  # `as they are metaclass methods`: a reason, not a state
        elif c == PLACE and i + 1 < n and texts[i + 1] in _ARTICLES:
            concepts[i] = SMALL  # `before the first block`: a preposition
    return concepts


NAMED, MODIFIES, RESTED = "named", "modifies", "rested"


def _unknown_role(toks: list[tuple[str, str]], concepts: list[str], i: int, keeps: bool) -> str | None:
    """How the unknown word at `i` names code, or None: it follows a code noun that takes a name
    (``class Foo``: NAMED); it modifies a code noun at most two words on (``the view code``:
    MODIFIES), unless it is the note's first word or follows a pronoun, a code noun or a name,
    where it is a verb (``skip lines``, ``we drop lines``, ``implementation leaked files``); or it
    is what REST names (``rest of the defun``,
    ``other cases``) in a note that says it is kept (RESTED: the word may name anything)."""
    if i > 0 and concepts[i - 1] == CODE and toks[i - 1][1] in _NAMERS:
        return NAMED
    j = i + 1
    while j < len(concepts) and j <= i + 2 and concepts[j] == UNKNOWN:
        j += 1
    k = i - 1
    while k >= 0 and concepts[k] == UNKNOWN:
        k -= 1
    first = all(c in (DOTS, OPEN) for c in concepts[: k + 1])
    if (
        j < len(concepts)
        and concepts[j] == CODE
        and not first
        and toks[k][1] not in _PRONOUNS
        and concepts[k] not in (CODE, NAME)
    ):
        return MODIFIES
    if not keeps:
        return None
    k = i - 1
    while k >= 0 and concepts[k] == SMALL:
        k -= 1
    return RESTED if k >= 0 and concepts[k] == REST else None


def elides(note: str, words_needed: int = 1) -> str | None:
    """FIRM or BARE when `note` (a comment's text or a line of prose) says code is left out; else None.

    `words_needed`: how many words (not small ones) the note must have.
    """
    toks = tokens(note)
    if not toks:
        return None
    words = [t for c, t in toks if c not in PUNCTUATION]
    seps = [t for c, t in toks if c == SEP]
    if not words or words[0] in _OPENING or words[-1] in _CLOSING:
        return None  # `of an existing one`, `... the same as`: a piece of a sentence
    if toks[-1][1] == ":" or "!" in seps or "?" in seps:
        return None  # a heading for what follows, an exclamation, a question
    concepts = _resolve(toks)
    said = [c for c in concepts if c not in PUNCTUATION]
    if sum(1 for c in said if c != SMALL) < words_needed:
        return None
    has = set(said)
    keeps = bool(has & {SAME, ALIKE, KEEP, OMIT})
    unknown = [i for i, c in enumerate(concepts) if c == UNKNOWN]
    if len(unknown) > 2:
        return None
    roles = [_unknown_role(toks, concepts, i, keeps) for i in unknown]
    if None in roles:
        return None
    wrapped = (concepts[0] == OPEN and concepts[-1] == CLOSE) or DOTS in (concepts[0], concepts[-1])
    where = bool(has & {REST, PLACE})
    firm = (
        OMIT in has
        or (SAME in has and KEEP not in has and (where or CODE in has))
        or (ALIKE in has and REST in has)
        or (KEEP in has and where)
    )
    if firm:
        # `other retries stay the same`: what REST names is unknown, so it may be behaviour.
        return BARE if RESTED in roles else FIRM
    if has & {SAME, ALIKE, LIST} or (KEEP in has and has & {CODE, NAME}):
        return BARE  # `same as above`, `ditto for parse()`, `etc.`, `leave the module alone`
    if REST in has or (PLACE in has and CODE in has):
        return FIRM if wrapped else BARE
    return None
