"""How a judge prompt fences user text: delimited blocks that the text itself cannot close.

Every value put into a judge prompt (a question, an answer, a document, a conversation) goes
into a block::

    <<<BEGIN OUTPUTS>>>
    ...
    <<<END OUTPUTS>>>

Any ``<<<`` inside the value is defused to ``< < <``, so an answer under test cannot end its
block early, open a block of its own or write text that reads as part of the instructions.
The blocks read back exactly (:func:`read_blocks`), which is how ``RuleJudge`` answers.
"""

from __future__ import annotations

import re

__all__ = ["block", "block_name", "defuse", "first_line_value", "read_blocks"]

_BLOCK = re.compile(r"^<<<BEGIN ([A-Z0-9_]+)>>>\n(.*?)\n<<<END \1>>>$", re.MULTILINE | re.DOTALL)
_NAME = re.compile(r"[^A-Za-z0-9]+")


def defuse(text: str) -> str:
    """``text`` with every ``<<<`` broken up, so it cannot open or close a block."""
    return text.replace("<<<", "< < <")


def block_name(variable: str) -> str:
    """The block name of a variable: ``reference_outputs`` -> ``REFERENCE_OUTPUTS``."""
    return _NAME.sub("_", variable).strip("_").upper()


def block(name: str, text: str) -> str:
    """``text``, defused, inside a block called ``name``."""
    return f"<<<BEGIN {name}>>>\n{defuse(text)}\n<<<END {name}>>>"


def read_blocks(text: str) -> dict[str, str]:
    """Every block of a rendered prompt, by name (a later block of the same name wins)."""
    return {match.group(1): match.group(2) for match in _BLOCK.finditer(text)}


def first_line_value(text: str, header: str) -> str | None:
    """What follows ``header`` on the first non-blank line of ``text``, or None."""
    first = text.lstrip().split("\n", 1)[0].strip()
    if not first.startswith(header):
        return None
    return first[len(header) :].strip()
