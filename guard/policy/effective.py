"""The effective policy of one agent: its settings, where each came from, and what is read of them.

``load`` (the package) builds one from the layers of a policy; everything else reads it here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from .schema import TIERS


# No slots: a cached_property keeps its answer in the instance's __dict__.
@dataclass(frozen=True)
class Policy:
    """The effective policy of one agent: its settings, and where each came from.

    A value, compared by its fields like every record: two loads of one file are equal policies.
    """

    name: str
    data: dict[str, object]
    sources: dict[str, str] = field(default_factory=dict)
    agent: str | None = None
    # Repository-relative paths of `.agent-guard.yaml` and every work-tree file the
    # policy was read from: agents may never change them, whatever `paths.protected`
    # says (``paths.protected_finding``).  Filled by ``load`` for an agent's session;
    # a policy made for another purpose (a commit check judges people's commits) has none.
    own_files: tuple[str, ...] = ()
    # git's `core.ignorecase` for the repository: the allow-list (``paths.allow``) names paths as
    # the file system compares them, case-sensitively unless git says it ignores case.  (Protected
    # globs always ignore case: a protected name must not be reached by another spelling.)
    ignorecase: bool = False

    # Equal by value, as every record: two loads of one file say the same, and what is worked
    # out from a policy (its cached properties) depends on its fields alone, so either may stand
    # for the other: a commit check judged by an equal policy is the same check.  Hashed by the
    # fields that are not dicts (nothing changes `data` or `sources` after `load` built them):
    # equal policies hash alike, and a dict needs no freezing to be hashed.
    def __hash__(self) -> int:
        return hash((self.name, self.agent, self.own_files, self.ignorecase))

    def reporting_only_whitespace(self) -> Policy:
        """This policy with a whitespace check that fixes made one that only warns: the files must
        stay what the verify commands passed (``pipeline.plan.with_verdict``)."""
        levels = self.get("checks")
        if not isinstance(levels, dict) or levels.get("whitespace") != "fix":
            return self
        return replace(self, data={**self.data, "checks": {**levels, "whitespace": "warning"}})

    def get(self, dotted: str, default: object = None) -> object:
        node: object = self.data
        for key in dotted.split("."):
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    def source(self, dotted: str) -> str:
        """Where the value at `dotted` (or the nearest setting under it) was set."""
        if dotted in self.sources:
            return self.sources[dotted]
        for key, src in self.sources.items():
            if key.startswith(dotted + "."):
                return src
        return "built-in fallback"

    # A policy is a value: nothing changes `data` after it is built, so what is read
    # from it for every file of a large commit is worked out once per policy.
    @cached_property
    def _levels(self) -> dict[str, str]:
        return {}

    def level(self, check: str) -> str:
        levels = self._levels
        found = levels.get(check)
        if found is None:
            value = self.get(f"checks.{check}")
            found = levels[check] = value if isinstance(value, str) else "off"
        return found

    @property
    def tiers(self) -> tuple[str, ...]:
        value = self.get("locate.tiers")
        enabled = set(value) if isinstance(value, list) else set()
        return tuple(t for t in TIERS if t in enabled)

    @property
    def ledger_prefix(self) -> str:
        value = self.get("ledger.ref_prefix")
        prefix = value if isinstance(value, str) else "refs/agent-guard/"
        return prefix if prefix.endswith("/") else prefix + "/"

    def budget(self, scope: str) -> dict[str, int]:
        value = self.get(f"budget.{scope}")
        if not isinstance(value, dict):
            return {}
        return {k: v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}

    @property
    def max_file_bytes(self) -> int | None:
        value = self.get("budget.max_file_bytes")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _strings(self, dotted: str) -> tuple[str, ...]:
        value = self.get(dotted)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    @cached_property
    def protected_listed(self) -> tuple[str, ...]:
        """`paths.protected` alone (the list the last layer that set it gave)."""
        return self._strings("paths.protected")

    @cached_property
    def protected(self) -> tuple[str, ...]:
        """Every protected glob: `paths.protected`, then what `paths.protected_extra` adds."""
        return tuple(dict.fromkeys(self.protected_listed + self._strings("paths.protected_extra")))

    @cached_property
    def allow(self) -> tuple[str, ...]:
        return self._strings("paths.allow")

    @property
    def allow_create(self) -> bool:
        return self.get("paths.create", True) is not False

    @property
    def read_before_edit(self) -> bool:
        return self.get("read_before_edit", False) is True

    @property
    def read_protected(self) -> bool:
        """May agents read protected paths (``git agent-read``, ``guard.read``, MCP ``read_file``)?"""
        return self.get("read_protected", False) is True

    def excluded(self, check: str, path: str) -> bool:
        """Does `exclude.CHECK` keep `check` off `path` (globs as in ``paths``, case as git's core.ignorecase)?"""
        globs = self._excludes.get(check)
        if globs is None:
            globs = self._excludes[check] = self._strings(f"exclude.{check}")
        if not globs:
            return False
        from ..text.globs import first_match

        return first_match((path,), globs, self.ignorecase) is not None

    @cached_property
    def _excludes(self) -> dict[str, tuple[str, ...]]:
        return {}

    @property
    def skip_generated(self) -> bool:
        """Are lock files and generated files (``linguist-generated``, ``-diff``) left out of budgets?"""
        return self.get("budget.skip_generated", True) is not False

    @property
    def baseline(self) -> str | None:
        """The baseline file `check` reads (repository-relative), if the policy names one."""
        import posixpath

        value = self.get("baseline")
        return posixpath.normpath(value.replace("\\", "/")) if isinstance(value, str) and value.strip() else None

    @cached_property
    def placeholder_patterns(self) -> tuple[str, ...]:
        return self._strings("placeholder.patterns")

    @cached_property
    def placeholder_exempt(self) -> tuple[str, ...]:
        return self._strings("placeholder.exempt")

    @cached_property
    def markdown_suffixes(self) -> tuple[str, ...] | None:
        """The lowercased suffixes (".md") of files whose two trailing spaces are a Markdown
        line break, to keep; None: every file (``*``)."""
        value = self.get("whitespace.markdown_linebreak_ext", ["md", "markdown"])
        names = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        if "*" in names:
            return None
        return tuple("." + v.lower().lstrip(".") for v in names)
