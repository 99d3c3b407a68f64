"""A policy file's text read as YAML, safely: libyaml's safe loader where PyYAML has it, and
nothing that would make a later walk of the settings recurse too deep or spell out a billion
values (aliases of aliases)."""

from __future__ import annotations

from .schema import PolicyError


def parse_yaml(text: str, label: str) -> object:
    import yaml

    try:
        # libyaml's parser where PyYAML has it: the same safe constructors, several times faster
        # than the pure-Python one (bench/README.md).  It ends nesting past 1,000 levels with a
        # YAMLError, as PyYAML ends it with a RecursionError below.
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e)
        raise PolicyError(f"{label}: not valid YAML{at}: {problem}") from None
    except RecursionError:  # pure-Python PyYAML composes and constructs one recursion level per nesting level
        raise PolicyError(f"{label}: {_TOO_DEEP}") from None
    except ValueError as e:  # an integer of thousands of digits (Python's limit on int digits)
        raise PolicyError(f"{label}: not a value a policy can hold: {e}") from None
    shape = _shape(data)
    if shape == "deep":  # libyaml reads up to 1,000 levels: what walks the policy later would recurse
        raise PolicyError(f"{label}: {_TOO_DEEP}")
    if shape == "large":
        raise PolicyError(
            f"{label}: more than {MAX_NODES:,} values once its aliases (*name) are expanded; a policy is a few dozen settings"
        )
    return {} if data is None else data


MAX_NODES = 100_000
MAX_DEPTH = 64
_TOO_DEEP = "nested too deeply to read (a policy is a few levels of mappings)"


def _shape(data: object) -> str | None:
    """What makes `data` too big to walk: "large" when it holds more than `MAX_NODES` values,
    aliases counted each time they are used; "deep" when it nests more than `MAX_DEPTH` levels.

    YAML's aliases share one value among many places: a few lines of anchors that each
    repeat the one before ten times stand for a billion values, which
    every walk of the policy would spell out.  Counted without recursion, up to the limit.
    """
    stack, seen = [(data, 1)], 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            return "large"
        if depth > MAX_DEPTH:
            return "deep"
        if isinstance(item, dict):
            stack.extend((key, depth + 1) for key in item)
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            stack.extend((value, depth + 1) for value in item)
    return None
