"""Regular expressions compiled on first use.

Each command runs a few of the package's patterns; compiled at import, all of them
cost every process milliseconds of its start-up (``bench/startup.py``).  ``lazy``
makes a pattern a function that compiles it on the first call and returns the same
compiled pattern after: ``_HEADER = lazy(r"...")`` where it is defined,
``_HEADER().match(line)`` where it is used (in a loop over lines, take
``match = _HEADER().match`` once before the loop).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Callable

from ..fs.kept import by_value


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """`pattern` (with `flags`) compiled when first asked for."""
    return by_value(1)(partial(re.compile, pattern, flags))
