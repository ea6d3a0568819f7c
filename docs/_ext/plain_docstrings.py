"""Renders loaderx's docstrings as the plain text they are written in.

The package's docstrings are written for `help()` (aligned tables, code
indented by hand, numpy-style asterisks), not as reStructuredText. This
hook keeps their first paragraph as prose, with reStructuredText's markup
characters escaped, and shows the rest as a literal block, exactly as
written, so no docstring renders wrong or warns.
"""

import re

_MARKUP = re.compile(r"([\\*`|_\[\]<>])")


def _escape(text):
    return _MARKUP.sub(r"\\\1", text)


def _plain(app, what, name, obj, options, lines):
    if not lines:
        return
    split = lines.index("") if "" in lines else len(lines)
    summary = [_escape(line) for line in lines[:split]]
    rest = lines[split:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    lines[:] = summary
    if rest:
        lines.extend(["", "::", ""] + ["    " + line for line in rest] + [""])


def setup(app):
    app.connect("autodoc-process-docstring", _plain)
    return {"parallel_read_safe": True}
