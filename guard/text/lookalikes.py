"""Text as a reader sees it: look-alike letters and invisible characters folded away.

An agent (or a model copying from anywhere) can spell ``rest of the code`` with a
Cyrillic ``о``, a zero-width space inside ``code``, fullwidth or mathematical bold
letters, a soft hyphen or a right-to-left override.  A reader sees the same words; a
pattern written for ASCII sees none.  ``fold`` gives the text's skeleton, the form two
texts that look alike share, so that words are compared as they read:

- invisible characters go: format characters (zero-width space, joiners, bidi
  embeddings, overrides and isolates, soft hyphen, word joiner, byte-order mark,
  tags), variation selectors, the combining grapheme joiner, Hangul fillers;
- compatibility forms become their plain letters (NFKD: fullwidth ``ｃｏｄｅ``,
  mathematical ``𝐜𝐨𝐝𝐞``, ligatures, circled letters, superscripts) and accents go
  (``códe`` reads ``code``);
- letters of other scripts that look like Latin ones become those (Cyrillic ``о``,
  ``е``, ``а``, ``с``, ``р``; Greek ``α``, ``ο``, ``ν``; Armenian ``օ``; Latin small
  capitals and dotless ``ı``), dashes become ``-``, the ellipsis characters
  (``…``, ``⋯``, ``⋮``, ``︙``, runs of middle dots) become dots, and CJK brackets
  the ASCII ones;
- letters are lowercased.

The skeleton is for comparing, never for showing: a word of another language folds
the same way wherever it is written, so vocabularies are folded with the same
function.  ASCII text costs one ``str.isascii`` and ``str.lower``.
"""

from __future__ import annotations

from ..fs.kept import by_value
from .regex import lazy

# Format characters (Unicode category Cf) and other code points that render as nothing.
_INVISIBLE = lazy(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# Combining marks of the scripts the look-alikes come from (accents, and kana voicing marks).
_MARKS = lazy("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a]")

# Lowercase letters that look like a Latin letter, by script (applied after lowercasing).
_LETTERS = {
    "cyrillic": "аa вb еe ѐe ёe һh іi їi јj кk оo рp сc ѕs тt уy хx ӏl ԁd ԛq ԝw үy ҽe ɡg",
    "greek": "αa βb εe ηn ιi κk νv οo ρp τt υu χx γy ϲc ϳj ωw",
    "armenian": "օo սu ցg հh ոn",
    "latin": "ıi ȷj ɑa ɩi ɪi ʏy ᴀa ʙb ᴄc ᴅd ᴇe ꜰf ɢg ʜh ᴊj ᴋk ʟl ᴍm ɴn ᴏo ᴘp ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ᴢz",
}
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63"
_DOTS = "\u00b7\u2022\u2027\u2219\u22c5\u2e31\u30fb\uff65\u3002"  # one dot each: `···` reads `...`
_ELLIPSES = "\u22ee\u22ef\u22f0\u22f1\u1801\u2026"  # ⋮ ⋯ ⋰ ⋱ and the Mongolian one: `...`
_BRACKETS = {
    "【": "[",
    "】": "]",
    "〔": "[",
    "〕": "]",
    "「": "[",
    "」": "]",
    "『": "[",
    "』": "]",
    "〖": "[",
    "〗": "]",
    "〈": "<",
    "〉": ">",
    "《": "<",
    "》": ">",
    "«": "<",
    "»": ">",
    "‹": "<",
    "›": ">",
}


@by_value(1)
def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for pairs in _LETTERS.values():
        for pair in pairs.split():
            table[ord(pair[0])] = pair[1]
    table.update({ord(c): "-" for c in _DASHES})
    table.update({ord(c): "." for c in _DOTS})
    table.update({ord(c): "..." for c in _ELLIPSES})
    table.update({ord(k): v for k, v in _BRACKETS.items()})
    return table


def fold(text: str) -> str:
    """`text`'s skeleton: lowercased, with look-alikes and invisible characters folded (see the module doc)."""
    if text.isascii():
        return text.lower()
    import unicodedata  # here: only text that is not ASCII asks for it

    text = unicodedata.normalize("NFKD", _INVISIBLE().sub("", text))
    text = _MARKS().sub("", text).casefold().translate(_table())
    return unicodedata.normalize("NFC", text)


_MIXED = lazy(r"[a-zA-Z][^\W\d_a-zA-Z]|[^\W\d_a-zA-Z][a-zA-Z]")
# Fullwidth forms, enclosed and mathematical letters: Latin letters dressed up.
_DRESSED = lazy("[\uff01-\uff5e\u2460-\u24ff\U0001d400-\U0001d7ff\U0001f100-\U0001f1ff]")


def disguised(text: str) -> bool:
    """`text` hides its letters: an invisible character, dressed-up Latin letters, or a Latin
    letter beside a look-alike of another script in one word (``cоde`` with a Cyrillic ``о``).

    (Words of another language, accents and ellipsis characters are not disguises.)
    """
    if text.isascii():
        return False
    if _INVISIBLE().search(text) or _DRESSED().search(text):
        return True
    table = _table()
    return any(ord(c) in table for m in _MIXED().finditer(text) for c in m.group())
