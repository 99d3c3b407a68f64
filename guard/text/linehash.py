"""Per-line hashes as oh-my-pi's hashline tools printed them: ``LINE:HH`` and ``LINE#ID`` anchors.

oh-my-pi's edit tool shows every line of a read as ``12:a3|text`` (later ``12#ZP:text``) and
takes edits that name lines by those anchors; the hash says which line the model meant.  The
rule changed over the tool's history, so each rule here is named for the revisions of
``packages/coding-agent/src/patch/hashline.ts`` that used it (gtrak/oh-my-pi, the fork that
holds the published benchmark runs; ``LINE#ID`` from theerud/oh-my-pi, a later fork):

========== ================================================================ =====================
name       digest of the line (its CR removed; "stripped": every whitespace  revisions
           character removed, JavaScript's ``\\s``)
========== ================================================================ =====================
seeded64   xxHash64 of the line as it is, seed = its line number, low byte    62239f60 .. b823dcae
           as 2 hex digits                                                    (2026-02-10)
stripped64 xxHash64 of the stripped line, seed 0, low byte as 2 hex digits    9ecaa43e .. c713d134
base36     xxHash32 of the stripped line modulo 36**2, 2 base-36 digits       0eeff762 .. 08c2fde7
base36x3   xxHash32 of the stripped line modulo 36**3, 3 base-36 digits       77424cc7 .. a7334877
hex32      xxHash32 of the stripped line modulo 256, 2 hex digits             27d15915 .. c0d6bd83
           (the rule of every run from 2026-02-11 06:42 UTC on)               (2026-02-11 .. 18)
line-id    xxHash32 of the stripped line, seed 0 when it holds a letter or    theerud/oh-my-pi
           digit (Unicode L or N) else its line number; the low byte as two   2885bb0d
           letters of ``ZPMQVRWSNKTXJBYH`` (high nibble first)
========== ================================================================ =====================

xxHash32 and xxHash64 are the reference algorithms (github.com/Cyan4973/xxHash, doc/
xxhash_spec.md) over the line's UTF-8 bytes, as ``Bun.hash`` computes them; written here in
Python so that no dependency is needed for a 2-digit check.  A hash is a check of which line
the model meant, never a way to find one: nothing here places a line by its hash.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_P32 = (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1)
_P64 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def xxh32(data: bytes, seed: int = 0) -> int:
    """The 32-bit xxHash of `data`."""
    p1, p2, p3, p4, p5 = _P32
    n, i = len(data), 0
    if n >= 16:
        v = [(seed + p1 + p2) & _M32, (seed + p2) & _M32, seed & _M32, (seed - p1) & _M32]
        while i + 16 <= n:
            for k in range(4):
                lane = int.from_bytes(data[i + 4 * k : i + 4 * k + 4], "little")
                v[k] = (_rotl32((v[k] + lane * p2) & _M32, 13) * p1) & _M32
            i += 16
        acc = (_rotl32(v[0], 1) + _rotl32(v[1], 7) + _rotl32(v[2], 12) + _rotl32(v[3], 18)) & _M32
    else:
        acc = (seed + p5) & _M32
    acc = (acc + n) & _M32
    while i + 4 <= n:
        acc = (_rotl32((acc + int.from_bytes(data[i : i + 4], "little") * p3) & _M32, 17) * p4) & _M32
        i += 4
    while i < n:
        acc = (_rotl32((acc + data[i] * p5) & _M32, 11) * p1) & _M32
        i += 1
    acc ^= acc >> 15
    acc = (acc * p2) & _M32
    acc ^= acc >> 13
    acc = (acc * p3) & _M32
    return acc ^ (acc >> 16)


def _round64(acc: int, lane: int) -> int:
    return (_rotl64((acc + lane * _P64[1]) & _M64, 31) * _P64[0]) & _M64


def xxh64(data: bytes, seed: int = 0) -> int:
    """The 64-bit xxHash of `data`."""
    p1, p2, p3, p4, p5 = _P64
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + p1 + p2) & _M64, (seed + p2) & _M64, seed & _M64, (seed - p1) & _M64]
        while i + 32 <= n:
            for k in range(4):
                v[k] = _round64(v[k], int.from_bytes(data[i + 8 * k : i + 8 * k + 8], "little"))
            i += 32
        acc = (_rotl64(v[0], 1) + _rotl64(v[1], 7) + _rotl64(v[2], 12) + _rotl64(v[3], 18)) & _M64
        for lane in v:
            acc = ((acc ^ _round64(0, lane)) * p1 + p4) & _M64
    else:
        acc = (seed + p5) & _M64
    acc = (acc + n) & _M64
    while i + 8 <= n:
        acc ^= _round64(0, int.from_bytes(data[i : i + 8], "little"))
        acc = (_rotl64(acc, 27) * p1 + p4) & _M64
        i += 8
    if i + 4 <= n:
        acc ^= (int.from_bytes(data[i : i + 4], "little") * p1) & _M64
        acc = (_rotl64(acc, 23) * p2 + p3) & _M64
        i += 4
    while i < n:
        acc ^= (data[i] * p5) & _M64
        acc = (_rotl64(acc, 11) * p1) & _M64
        i += 1
    acc ^= acc >> 33
    acc = (acc * p2) & _M64
    acc ^= acc >> 29
    acc = (acc * p3) & _M64
    return acc ^ (acc >> 32)


# JavaScript's `\s` (what `line.replace(/\s+/g, "")` removes): not Python's, which also takes
# \x1c-\x1f and leaves U+FEFF.
_JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
_NIBBLES = "ZPMQVRWSNKTXJBYH"
_DIGITS36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _stripped(line: str) -> bytes:
    return _utf8(_JS_SPACE.sub("", line))


def _base36(n: int, width: int) -> str:
    out = ""
    while n:
        n, d = divmod(n, 36)
        out = _DIGITS36[d] + out
    return out.rjust(width, "0")


def _significant(text: str) -> bool:
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


def _line_id(number: int, line: str) -> str:
    bare = _JS_SPACE.sub("", line)
    byte = xxh32(_utf8(bare), 0 if _significant(bare) else number) & 0xFF
    return _NIBBLES[byte >> 4] + _NIBBLES[byte & 0xF]


# Rule name -> digest(line number, line text without its terminator).
RULES: dict[str, Callable[[int, str], str]] = {
    "seeded64": lambda number, line: f"{xxh64(_utf8(line), number) & 0xFF:02x}",
    "stripped64": lambda number, line: f"{xxh64(_stripped(line)) & 0xFF:02x}",
    "base36": lambda number, line: _base36(xxh32(_stripped(line)) % 36**2, 2),
    "base36x3": lambda number, line: _base36(xxh32(_stripped(line)) % 36**3, 3),
    "hex32": lambda number, line: f"{xxh32(_stripped(line)) & 0xFF:02x}",
    "line-id": _line_id,
}


def digest(rule: str, number: int, line: str) -> str:
    """The hash `rule` gives line `number` (1-based) holding `line` (a CR at its end is not hashed)."""
    return RULES[rule](number, line[:-1] if line.endswith("\r") else line)


def matches(rules: tuple[str, ...], number: int, line: str, written: str) -> bool:
    """Whether `written` is what one of `rules` gives that line (letters in either case)."""
    return any(digest(rule, number, line).lower() == written.lower() for rule in rules)


def anchor(rule: str, number: int, line: str) -> str:
    """The anchor oh-my-pi printed for that line under `rule`: ``12:a3``, or ``12#ZP`` for line-id."""
    return f"{number}{'#' if rule == 'line-id' else ':'}{digest(rule, number, line)}"
