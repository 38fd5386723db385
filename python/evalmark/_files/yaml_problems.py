"""The problems a YAML file can have, worded for the person who wrote it: where (line and
column of the node or the parser's mark) and what to do (hints for PyYAML's common errors)."""

from __future__ import annotations

import unicodedata

import yaml

from evalmark._files.source import LineIndex, Position
from evalmark.errors import Problem

__all__ = ["character_problem", "mark_of", "problem_at", "short_tag", "yaml_problem"]


_YAML_HINTS = (
    ("found character '\\t'", "YAML indentation must use spaces, not tabs"),
    ("tab character", "YAML indentation must use spaces, not tabs"),
    ("mapping values are not allowed", "a plain value contains ': '; put it in quotes"),
    (
        "could not find expected ':'",
        "a key is missing its ':' or a multi-line value needs a block scalar (key: |)",
    ),
    ("found undefined alias", "every *alias needs an &anchor defined before it"),
    ("maximum nesting depth", "YAML is read at most 1,000 levels deep: flatten the data"),
)


def mark_of(node: yaml.Node) -> Position:
    """The 1-based line and column where ``node`` starts."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def problem_at(node: yaml.Node, message: str, path: str) -> Problem:
    """A problem at ``node``'s line and column."""
    line, column = mark_of(node)
    return Problem(message, path=path, line=line, column=column)


def character_problem(text: str, offset: int, path: str) -> Problem:
    """The problem for a character YAML does not allow, at ``offset`` in ``text``."""
    char = text[offset]
    code = ord(char)
    escape = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
    kind = "control character" if unicodedata.category(char) == "Cc" else "character"
    line, column = LineIndex(text)(offset)
    return Problem(
        f"the {kind} U+{code:04X} is not allowed in a YAML file; remove it, or write it as "
        f'the escape "{escape}" inside a double-quoted string',
        path=path,
        line=line,
        column=column,
    )


def short_tag(tag: str) -> str:
    """E.g. ``!!python/object`` for PyYAML's long form of a standard tag."""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org") else tag


def yaml_problem(exc: yaml.MarkedYAMLError, path: str) -> Problem:
    """The problem for a PyYAML parse error, at its mark, with a hint where one is known."""
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "unreadable YAML"
    if "expected a single document" in str(exc):
        message = (
            "malformed YAML: the file holds more than one document (a second '---'); "
            "put all records in one list"
        )
    else:
        message = f"malformed YAML: {problem}"
        if exc.context and exc.problem:
            message += f" ({exc.context}"
            if exc.context_mark is not None:
                message += f" at line {exc.context_mark.line + 1}"
            message += ")"
        for needle, hint in _YAML_HINTS:
            if needle in problem:
                message += f"; {hint}"
                break
    return Problem(
        message,
        path=path,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
    )
