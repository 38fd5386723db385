"""Finding the JSON object in a model's reply, however it is wrapped.

Replies come fenced in ```` ```json ```` blocks, preceded by chatter, followed by remarks, with
braces in the prose around them. :func:`json_objects` finds every JSON object by a
brace-balanced scan that ignores braces inside string literals, fenced ones first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["json_object_texts", "json_objects"]

# A reply is scanned up to this many characters, and at most this many braces and quotes are
# examined over all the openings tried, so a pathological reply ("{{{{..." a megabyte long)
# costs a bounded time.
_SCAN_LIMIT = 1_000_000
_BUDGET = 1_000_000
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)
_SPECIAL = re.compile(r'["\\{}]')


def _closing(text: str, start: int, stop: int, budget: int) -> tuple[int, int]:
    """(the index of the brace closing the one at ``start`` or -1, the characters examined).
    Braces inside string literals do not count; a string that never closes ends the search."""
    depth = 0
    in_string = False
    skip = -1
    used = 0
    for match in _SPECIAL.finditer(text, start, stop):
        used += 1
        if used > budget:
            break
        position = match.start()
        if position < skip:
            continue
        ch = text[position]
        if in_string:
            if ch == "\\":
                skip = position + 2
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return position, used
    return -1, used


def _parsed_object(candidate: str) -> dict[str, Any] | None:
    try:
        value = json.loads(candidate)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _scan(text: str, offset: int) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(start, text, object) of every JSON object in ``text``, outermost first, left to right.
    An opening brace whose span does not parse is skipped and the next one is tried, so an
    object inside a brace of prose is still found."""
    text = text[:_SCAN_LIMIT]
    stop = text.rfind("}") + 1  # no object can start after the last closing brace
    budget = _BUDGET
    position = text.find("{", 0, stop)
    while position >= 0 and budget > 0:
        end, used = _closing(text, position, stop, budget)
        budget -= used
        if end >= 0:
            candidate = text[position : end + 1]
            value = _parsed_object(candidate)
            if value is not None:
                yield offset + position, candidate, value
                position = text.find("{", end + 1, stop)
                continue
        position = text.find("{", position + 1, stop)


def json_object_texts(text: str) -> Iterator[str]:
    """The text of every JSON object in ``text``: those inside code fences first, then every
    other one, left to right (see :func:`json_objects`)."""
    for _, candidate, _ in _objects(text):
        yield candidate


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in a reply, parsed: objects inside ```` ``` ```` fences first, then
    the others left to right. Found by a brace-balanced scan that ignores braces inside
    string literals; chatter, markdown and braces in prose around the object do not matter."""
    for _, _, value in _objects(text):
        yield value


def _objects(text: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    seen: set[int] = set()
    for fence in _FENCE.finditer(text):
        for found in _scan(fence.group(1), fence.start(1)):
            seen.add(found[0])
            yield found
    for found in _scan(text, 0):
        if found[0] not in seen:
            yield found
