"""Turn the reST cross-reference roles of docstrings into links on the API pages.

The docstrings keep Sphinx's roles (``:class:`Report```, ``:func:`~evalmark.load_samples```),
which read well in ``help()``. mkdocstrings shows them raw, so the griffe extension
``tools/griffe_xrefs.py`` (named in mkdocs.yml) rewrites each docstring with :func:`convert`
while the API pages are built: a role becomes an optional autorefs reference, a link when the
target is documented on a page, plain code otherwise. This module has no dependency, so the
tests check the conversion without the docs toolchain.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

#: the roles written in evalmark's docstrings; any other ``:name:`...``` is left alone and
#: reported by :func:`raw_roles`.
ROLES = ("mod", "class", "func", "meth", "attr", "exc", "data", "obj", "const")

_ROLE = re.compile(
    r":(?:py:)?(?P<role>[a-z]+):`(?P<tilde>~?)(?P<body>[^`<]+?)\s*(?:<(?P<target>[^`>]+)>)?`"
)
_ANY_ROLE = re.compile(r"(?<![\w:]):(?:py:)?[a-z]+:`[^`]*`")


def convert(text: str, resolve: Callable[[str], str | None]) -> str:
    """Return ``text`` with each role of :data:`ROLES` replaced by an autorefs reference.

    ``resolve`` maps the name written in the role to the full dotted path of the object, or
    None when it names nothing known (then the role becomes plain inline code).
    """

    def one(match: re.Match[str]) -> str:
        role = match.group("role")
        if role not in ROLES:
            return match.group(0)
        explicit = match.group("target")
        name = (explicit or match.group("body")).strip().lstrip("~").removesuffix("()")
        if explicit:
            shown = match.group("body").strip()
        elif match.group("tilde"):
            shown = name.rsplit(".", 1)[-1]
        else:
            shown = match.group("body").strip()
        if role in ("func", "meth") and not explicit and not shown.endswith(")"):
            shown += "()"
        code = f"<code>{html.escape(shown)}</code>"
        full = resolve(name)
        if full is None:
            return code
        return f'<autoref identifier="{html.escape(full)}" optional>{code}</autoref>'

    return _ROLE.sub(one, text)


def raw_roles(text: str) -> list[str]:
    """Return the reST roles left in ``text`` (after :func:`convert`, there should be none)."""
    return _ANY_ROLE.findall(text)
