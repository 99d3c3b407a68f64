"""What every bench script's scratch repositories share: git isolated from the user.

No system or global config (a user's hooks, templates or signing never run), a fixed
identity, and no credential prompt.  The scripts run as ``python bench/NAME.py``, so
this folder is on their import path.
"""

from __future__ import annotations

import os

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}
