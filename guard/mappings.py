"""Reading nested mappings (parsed YAML, TOML, JSON) by a path of keys."""

from __future__ import annotations

from typing import Iterable


def lookup(data: object, keys: Iterable[str]) -> object:
    """The value at `keys` inside nested mappings, or None where a mapping or key is missing."""
    node = data
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node
