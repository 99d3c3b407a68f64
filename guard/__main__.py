from __future__ import annotations

from .cli.program import run

run()
