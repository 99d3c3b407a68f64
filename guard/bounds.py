"""Every number a user or an agent hands agent-guard, and the range it must lie in: declared once, here.

A number out of its range is refused where it comes in, with the range named: a usage
error (exit 2) for a command-line option, an error result naming the argument for an MCP
tool, a ``parse-error`` for a line number in an edit, a policy error for a budget.  Never
a crash further in (``islice`` refuses counts past ``sys.maxsize``, ``timedelta`` ages past
999,999,999 days, ``setitimer`` seconds a C ``time_t`` cannot hold), and never a reading
nobody meant (``gc --keep -1`` kept no turn at all).  NaN, infinities and fractions where
a whole number is due are out of every range.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


@dataclass(frozen=True, slots=True)
class Bound:
    """An inclusive range; `whole`: only integers are in it."""

    low: float
    high: float
    whole: bool = True

    def range_text(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        return f"{kind} from {_num(self.low)} to {_num(self.high)}"

    def problem(self, value: object) -> str | None:
        """What is wrong with `value` for this range (None when it is in it), e.g. "must be a whole number
        from 1 to 1,000,000,000, not -1"."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be {self.range_text()}, not {value!r}"
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or (self.whole and not value.is_integer())):
            return f"must be {self.range_text()}, not {value!r}"
        if not self.low <= value <= self.high:
            return f"must be {self.range_text()}, not {_num(value)}"
        return None

    def read(self, text: str) -> int | float:
        """The number `text` spells, when it is in range; ``OutOfRange`` (a ValueError) naming the range otherwise.

        Plain decimal digits (a sign, and for a non-whole range a fraction), never more
        than the range's own digits plus a few: a 5,000-digit argument is not handed to int().
        """
        spelled = text.strip()
        if not (_WHOLE if self.whole else _DECIMAL).fullmatch(spelled):
            raise OutOfRange(f"must be {self.range_text()}, not {text!r}")
        digits = spelled.lstrip("+-").lstrip("0")
        if len(digits) > len(str(int(self.high))) + 20:
            raise OutOfRange(f"must be {self.range_text()}, not a number of {len(digits):,} digits")
        value: int | float = int(spelled) if self.whole else float(spelled)
        problem = self.problem(value)
        if problem is not None:
            raise OutOfRange(problem)
        return value


class OutOfRange(ValueError):
    """A number outside its `Bound` (the message says which range)."""


def _num(value: float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    text = f"{int(value):,}" if abs(value) < 10**30 else f"{value:.3g}"
    return text


# A line number: git's own limit on a diff's (numbers and counts below 2**31).
LINE = Bound(1, 2**31 - 1)
# How many turns to list (`log -n`, MCP `list_turns` limit), or to keep (`gc --keep`; 0 drops every one).
TURNS = Bound(1, 1_000_000_000)
KEEP = Bound(0, 1_000_000_000)
# Edits a dialect needs before `stats` recommends it.
EVENTS = Bound(1, 1_000_000_000)
# An age (`gc --older-than`, `stats --since`), in seconds: one second to a hundred years.
AGE_SECONDS = Bound(1, 100 * 366 * 86400)
# The Claude Code hook's own deadline, in seconds: more than nothing, at most a day.
DEADLINE_SECONDS = Bound(0.001, 86400, whole=False)
# How long one verify command may run (a policy's `verify[].timeout`), in seconds: a tenth of a second to a day.
VERIFY_SECONDS = Bound(0.1, 86400, whole=False)
# The port `agent-guard serve --http` listens on, on 127.0.0.1 (0: one the system picks).
PORT = Bound(0, 65535)
# How long `agent-guard serve --idle-exit` waits for a call before it ends, in seconds: a second to a year.
IDLE_SECONDS = Bound(1, 366 * 86400)
# A budget in a policy (files, lines, hunks, bytes): a C int64's range; null means no limit.
BUDGET = Bound(0, 2**63 - 1)
