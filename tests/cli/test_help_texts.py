"""Every ``evalmark ... --help`` text is free of formatting leftovers.

argparse %-formats the help of an argument but prints a parser's description and epilog as
written, so ``95%%`` there reaches the reader doubled; an f-string missing its ``f`` leaves
``{name}``; a string continued over two source lines can double a space. Each subcommand's
help, recursively, is checked for these.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from evalmark.cli import build_parser


def _parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Yield (command line, parser) for ``evalmark`` and every subcommand under it."""
    todo = [("evalmark", build_parser())]
    while todo:
        name, parser = todo.pop(0)
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {sub}", p) for sub, p in action.choices.items()]


def _choices(parser: argparse.ArgumentParser) -> set[str]:
    """The ``{a,b}`` spellings argparse itself prints for the choices of the arguments."""
    return {
        "{" + ",".join(map(str, action.choices)) + "}"
        for action in parser._actions
        if action.choices is not None
    }


# a str.format field: {name}, {0}, {name!r}, {name:>8}; not a YAML mapping like {prompt: NAME}
_FIELD = re.compile(r"\{[A-Za-z_0-9][\w.]*(?:![rsa])?(?::[^\s{}]*)?\}")
_DOUBLE_SPACE = re.compile(r"\S {2,}\S")

COMMANDS = sorted(_parsers(), key=lambda item: item[0])


def test_every_subcommand_is_checked() -> None:
    names = {name for name, _ in COMMANDS}
    assert {"evalmark run", "evalmark history flaky", "evalmark judge calibrate"} <= names
    assert len(names) >= 20


@pytest.mark.parametrize(("command", "parser"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_help_text_has_no_formatting_leftovers(
    command: str, parser: argparse.ArgumentParser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    text = parser.format_help()  # raises on a lone % in an argument's help
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{command} --help, line {number}: {line.strip()!r}"
        if "%%" in line or "%(" in line:
            problems.append(f"{where}: a %-escape printed as written")
        fields = set(_FIELD.findall(line)) - _choices(parser)
        if fields:
            problems.append(f"{where}: unreplaced {sorted(fields)}")
        # prose (a line of the description or epilog, or an argument's help, which argparse
        # refills) never has two spaces inside; tables and option columns are indented
        prose = line if not line.startswith(" ") else ""
        if _DOUBLE_SPACE.search(prose):
            problems.append(f"{where}: a doubled space")
        if line != line.rstrip():
            problems.append(f"{where}: trailing blanks")
    for action in parser._actions:
        if action.help and _DOUBLE_SPACE.search(action.help):
            problems.append(f"{command} {action.dest}: a doubled space in the help")
    assert problems == []
