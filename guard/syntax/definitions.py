"""The definitions a source file holds: the names of its functions, classes and methods.

Used to tell a whole file from a snippet of one: a fenced block taken for a file's whole
new text that leaves out definitions the file has would delete them (``target``).  Read
with the file's grammar where there is one (Python's ``ast``, the tree-sitter grammars of
``languages``), else by a rule for any language: a line that starts, after modifiers such
as ``export`` or ``pub``, with a defining keyword (``def``, ``function``, ``fn``, ``func``,
``class``, ``struct``, ``module``...) names what it defines.

Names only, without the class they belong to: a snippet that moves a method out of its
class (an error-tolerant parse of a partial file) still shows it.  Nested functions
inside function bodies are not counted: the body is one definition's business.  Every
walk here is iterative and bounded in depth (``MAX_DEPTH``), so a file nested thousands
deep costs nothing more.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from typing import Any

from ..text.regex import lazy
from . import languages

MAX_DEPTH = 60  # syntax-tree levels below which no definition is looked for

# tree-sitter node types that define something callable (not descended into) ...
_FUNCTIONS = frozenset(
    (
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "function_definition",
        "method_declaration",
        "constructor_declaration",
        "function_item",
        "method",
        "singleton_method",
        "function_signature_item",
        "abstract_method_signature",
    )
)
# ... and types that hold definitions of their own (their bodies are walked for methods).
_CONTAINERS = frozenset(
    (
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "module",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "struct_declaration",
        "trait_declaration",
        "struct_item",
        "enum_item",
        "trait_item",
        "impl_item",
        "mod_item",
        "union_item",
        "class_specifier",
        "struct_specifier",
        "namespace_definition",
        "type_spec",
        "object_declaration",
    )
)
# A variable whose value is a function: `const f = () => {}`, `let g = function () {}`.
_FUNCTION_VALUES = frozenset(("arrow_function", "function_expression", "function", "generator_function"))

# Languages and file kinds that define nothing (a `def` or `class` in them is a word of text).
_NO_DEFINITIONS = frozenset(("json", "yaml", "toml", "css", "html"))
_PROSE = frozenset(
    (
        "md",
        "markdown",
        "mdx",
        "rst",
        "txt",
        "text",
        "adoc",
        "asciidoc",
        "org",
        "tex",
        "csv",
        "tsv",
        "xml",
        "svg",
        "ini",
        "cfg",
        "conf",
        "properties",
        "lock",
        "log",
    )
)

_DEFINING_LINE = lazy(
    r"[ \t]*(?:(?:export|default|public|private|protected|internal|static|async|abstract|final|override|virtual|"
    r"inline|extern|unsafe|sealed|open|pub(?:\([\w ]*\))?|local|global)[ \t]+)*"
    r"(?:def|function\*?|func|fn|sub|proc|class|struct|enum|trait|interface|module|impl|object|record|namespace|"
    r"defun|defn|defmacro)[ \t]+[*&]?(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)"
)


def names(path: str, before: str, after: str) -> tuple[Counter[str], Counter[str]]:
    """The definitions `before` and `after` (two versions of `path`) hold, read the same way for both:
    with the file's grammar when it reads `before` cleanly, else by the line rule."""
    langs = languages.languages_for(path)
    if set(langs) & _NO_DEFINITIONS or path.rsplit(".", 1)[-1].lower() in _PROSE:
        return Counter(), Counter()  # data and prose: nothing in them is a definition
    for language in langs:
        if not languages.available(language):
            continue
        if language == "python":
            old, new = _python(before), _python(after)
            if old is not None and new is not None:
                return old, new
            break
        got = _tree_names(language, before, require_clean=True)
        if got is not None:
            new_names = _tree_names(language, after, require_clean=False)
            if new_names is not None:
                return got, new_names
    return _line_names(before), _line_names(after)


def _python(text: str) -> Counter[str] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: Counter[str] = Counter()
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[child.name] += 1
            elif isinstance(child, ast.ClassDef):
                out[child.name] += 1
                if depth < MAX_DEPTH:
                    stack.append((child, depth + 1))
            elif isinstance(child, (ast.If, ast.Try, ast.With, ast.AsyncWith)) and depth < MAX_DEPTH:
                stack.append((child, depth + 1))  # `if TYPE_CHECKING:`, `try: import x` at the top
    return out


def _tree_names(language: str, text: str, require_clean: bool) -> Counter[str] | None:
    parser = languages.tree_parser(language)
    if parser is None:
        return None
    data = text.encode("utf-8", "surrogatepass")
    root = parser.parse(data).root_node
    if require_clean and root.has_error:
        return None
    out: Counter[str] = Counter()
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        for child in node.named_children:
            kind = child.type
            if kind in _FUNCTIONS:
                name = _name_of(child, data)
                if name:
                    out[name] += 1
                continue
            if kind in _CONTAINERS:
                name = _name_of(child, data)
                if name:
                    out[name] += 1
            elif kind == "variable_declarator":
                value = child.child_by_field_name("value")
                if value is not None and value.type in _FUNCTION_VALUES:
                    name = _name_of(child, data)
                    if name:
                        out[name] += 1
                continue
            elif (
                kind in _FUNCTION_VALUES
                or kind.endswith(("_expression", "statement_block", "compound_statement"))
                and kind != "expression_statement"
            ):
                continue  # a function's body, or an expression: its definitions are its own
            if depth < MAX_DEPTH:
                stack.append((child, depth + 1))
    return out


def _name_of(node: Any, data: bytes) -> str | None:
    """The name a definition node gives: its `name` field (a Rust impl: its `type`), or a C function's declarator."""
    name = node.child_by_field_name("name")
    if name is None and node.type == "impl_item":
        name = node.child_by_field_name("type")
    hops = 0
    target = node
    while name is None and hops < 8:
        target = target.child_by_field_name("declarator")
        if target is None:
            return None
        if target.type in (
            "identifier",
            "field_identifier",
            "qualified_identifier",
            "destructor_name",
            "operator_name",
            "type_identifier",
        ):
            name = target
        hops += 1
    if name is None:
        return None
    return data[name.start_byte : name.end_byte].decode("utf-8", "replace")[:200] or None


def _line_names(text: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for line in text.splitlines():
        m = _DEFINING_LINE().match(line)
        if m:
            out[m.group("name")] += 1
    return out
