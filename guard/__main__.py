from __future__ import annotations

from .entry import run

run()
