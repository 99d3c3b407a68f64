"""The apply pipeline: one call, parsed, planned, verified and landed (``apply``).

``call`` holds what a call is about, built at each edge; ``plan`` works out and checks the
changes of an edit, file by file (``file_change``); ``land`` writes them and records the turn.
"""
