"""Codex patches the Codex tests send (the hook's own tests and the real program's): one app.py,
a clean patch, an elided one, one onto a protected path and one that is no patch."""

SRC = (
    "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
CLEAN = (
    "*** Begin Patch\n*** Update File: app.py\n@@\n def mean(items):\n-    return total(items) / len(items)\n"
    "+    return total(items) / max(len(items), 1)\n*** Add File: notes/new.txt\n+hello\n*** End Patch\n"
)
PLACEHOLDER = (
    "*** Begin Patch\n*** Update File: app.py\n@@\n def total(items):\n-    n = 0\n+    # ... existing code ...\n*** End Patch\n"
)
PROTECTED = "*** Begin Patch\n*** Add File: .github/workflows/ci.yml\n+on: push\n*** End Patch\n"
MALFORMED = "*** Begin Patch\n*** Update File: app.py\nthis line is no patch line\n*** End Patch\n"
