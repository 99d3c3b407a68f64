"""Structural rewrites: ast-grep patterns and templates, expanded into ordinary changes.

The ``structural`` dialect (``dialects/structural.py``) reads a rewrite -- a pattern, its
template, the files -- into ``model.Rewrite`` values without touching the repository.
The engine then expands them (``expansion``): the tracked files the globs name are read,
each is searched with ast-grep's Python binding (``matches``, the one module that imports
``ast_grep_py``, an optional dependency: the ``structural`` extra), the matches are filled
into the template as ast-grep's command line fills them (``template``), and every file
whose text changes becomes a ``FileEdit`` of ``LineRange`` changes that name the lines they
replace.  From there on a rewrite is an edit like any other.

- ``languages``: ast-grep's language names, their aliases and file extensions (data);
- ``template``: metavariables in a template, and how their text is indented (pure);
- ``matches``: ast-grep's Python binding: pattern errors, matches, the rewritten text;
- ``globs``: which tracked files a rewrite's paths name;
- ``expansion``: the engine's side, from ``Rewrite`` values to ``FileEdit`` values.
"""
