"""Reading YAML safely, with the line and column of every key and value.

The safe loader only: tags that would build Python objects are refused before anything is
constructed, and nothing here runs code from a data file. Before YAML sees the text, characters
YAML forbids (NUL and other control characters, U+FFFF) are reported with their line and
column; after parsing, the node tree is checked for unknown tags, doubled keys, aliases that
refer to themselves or expand enormously, and integers too long for Python to read.
"""

from __future__ import annotations

import contextlib
import re
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from evalmark._files.located import VALUE, Locator, PathKey, RawRecord, norm_key
from evalmark._files.source import LineIndex, Position, decode_text, strip_bom
from evalmark.errors import DataFileError, Problem

__all__ = ["STR_TAG", "checked_nodes", "nesting_problem", "read_yaml", "read_yaml_document"]

STR_TAG = "tag:yaml.org,2002:str"
_SAFE_TAGS = frozenset(t for t in SafeConstructor.yaml_constructors if t is not None)
_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
_NUMBER_TAGS = ("tag:yaml.org,2002:float", _INT_TAG)
_TEXT_TAGS = (STR_TAG, "tag:yaml.org,2002:null", _MERGE_TAG)
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
# The patterns by which YAML recognises plain numbers, booleans and dates, by tag.
_IMPLICIT: dict[str, re.Pattern[str]] = {
    tag: pattern
    for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values()
    for tag, pattern in resolvers
}
_SHORT = 4_000  # fewer characters than Python's limit on the digits of an integer
# Values that aliases may add beyond the nodes written in the file ("billion laughs").
_MAX_ALIAS_EXPANSION = 1_000_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed
# What YAML 1.1 allows in a stream (the same set PyYAML's reader checks).
_NOT_ALLOWED = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)

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


def read_yaml(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse a YAML list of records safely.

    ``text_keys`` are paths inside a record (such as ``("cost",)``; "*" matches any list
    index) whose numbers are kept as the text written in the file, for exact decimals: YAML
    would otherwise round them to floats.
    """
    loader, root, anchors = _compose(data, path, error)
    try:
        if root is None:
            raise error([Problem("the file is empty: write a list of records", path=path)])
        records = _yaml_records(root, path, error)
        for _, node in records:
            for pattern in text_keys:
                _keep_numbers_as_text(node, pattern)
        _check_node_tree(root, loader, path, error, anchors=anchors)
        for record, node in records:
            record.value = _construct(loader, node, path, error)
        return [record for record, _ in records]
    finally:
        loader.dispose()


def read_yaml_document(data: bytes, path: str, error: type[DataFileError]) -> RawRecord | None:
    """Parse one YAML document of any shape into a record that knows the position of every
    key and value (None for an empty document)."""
    loader, root, anchors = _compose(data, path, error)
    try:
        if root is None:
            return None
        _check_node_tree(root, loader, path, error, anchors=anchors)
        value = _construct(loader, root, path, error)
        start, found = _yaml_locator(root)(0)
        return RawRecord(value, 0, start, found)
    finally:
        loader.dispose()


@contextlib.contextmanager
def checked_nodes(
    data: bytes, path: str, error: type[DataFileError]
) -> Iterator[tuple[Any, yaml.Node | None]]:
    """The loader and the root node (None when empty) of a YAML document that passed every
    check above, for readers that report problems at nodes; the loader is disposed after.

    Data nested too deeply to construct is reported at its deepest point.
    """
    loader, root, anchors = _compose(data, path, error)
    try:
        if root is not None:
            _check_node_tree(root, loader, path, error, anchors=anchors)
        yield loader, root
    except RecursionError:
        raise error([nesting_problem(data, path)]) from None
    finally:
        loader.dispose()


def _compose(
    data: bytes, path: str, error: type[DataFileError]
) -> tuple[Any, yaml.Node | None, bool]:
    """The loader, the root node (None for an empty document) and whether the text may hold
    an anchor (so that a node may be reached twice)."""
    text = decode_text(strip_bom(data), path, error)
    bad = _NOT_ALLOWED.search(text)
    if bad is not None:
        raise error([_character_problem(text, bad.start(), path)])
    loader: Any = _LOADER(text)
    try:
        return loader, loader.get_single_node(), "&" in text
    except yaml.MarkedYAMLError as exc:
        loader.dispose()
        raise error([_yaml_problem(exc, path)]) from None
    except yaml.reader.ReaderError as exc:  # pragma: no cover - the check above comes first
        loader.dispose()
        raise error([_character_problem(text, exc.position, path)]) from None


def _construct(loader: Any, node: yaml.Node, path: str, error: type[DataFileError]) -> Any:
    try:
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise error([_yaml_problem(exc, path)]) from None


def _character_problem(text: str, offset: int, path: str) -> Problem:
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


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org") else tag


def _yaml_problem(exc: yaml.MarkedYAMLError, path: str) -> Problem:
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


def _yaml_records(
    root: yaml.Node, path: str, error: type[DataFileError]
) -> list[tuple[RawRecord, yaml.Node]]:
    if not isinstance(root, yaml.SequenceNode):
        line = root.start_mark.line + 1
        if isinstance(root, yaml.MappingNode):
            keys = [k.value for k, _ in root.value if isinstance(k, yaml.ScalarNode)]
            hint = (
                "the file holds a single mapping; make it a list by starting each record "
                "with '- ' (for example '- name: ...')"
            )
            if len(keys) == 1:
                hint = (
                    f"the file holds a mapping with the key '{keys[0]}'; write the list of "
                    "records at the top level instead"
                )
            raise error([Problem(f"expected a list of records: {hint}", path=path, line=line)])
        raise error(
            [Problem("expected a list of records, found a single value", path=path, line=line)]
        )
    records = []
    for index, node in enumerate(root.value):
        mark = node.start_mark
        record = RawRecord(None, index, (mark.line + 1, mark.column + 1), None, _yaml_locator(node))
        records.append((record, node))
    return records


def _mark_of(node: yaml.Node) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _problem_at(node: yaml.Node, message: str, path: str) -> Problem:
    line, column = _mark_of(node)
    return Problem(message, path=path, line=line, column=column)


def _check_node_tree(
    root: yaml.Node, loader: Any, path: str, error: type[DataFileError], *, anchors: bool
) -> None:
    """Refuse unsafe or unknown tags, doubled keys, unreadable scalars and aliases that refer
    to themselves or multiply the data, anywhere under ``root``.

    One pass over the nodes, in document order; only a file with aliases (a node reached
    twice) gets the second pass that looks for cycles and counts the expanded values.
    """
    seen: set[int] = set()
    shared = False
    stack: list[yaml.Node] = [root]
    push, pop, visit = stack.append, stack.pop, seen.add
    while stack:
        node = pop()
        if anchors:  # without an anchor no node can be reached twice: no need to remember
            if id(node) in seen:
                shared = True
                continue
            visit(id(node))
        tag = node.tag
        kind = type(node)
        if tag == STR_TAG and kind is yaml.ScalarNode:  # most nodes: nothing to check
            continue
        if tag not in _SAFE_TAGS and tag != _MERGE_TAG:
            raise error([_problem_at(node, _unsafe_tag_message(tag), path)])
        if isinstance(node, yaml.MappingNode):
            _check_keys(node, path, error)
            for key_node, value_node in reversed(node.value):
                push(value_node)
                push(key_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.ScalarNode) and tag not in _TEXT_TAGS:
            _check_scalar(node, loader, path, error)
    if shared:
        _check_aliases(root, path, error)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_aliases(root: yaml.Node, path: str, error: type[DataFileError]) -> None:
    """Refuse an alias inside the item it names, and aliases that expand the data enormously."""
    expanded: dict[int, int] = {}  # node id -> values it stands for, aliases expanded
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            expanded[id(node)] = 1 + sum(expanded[id(c)] for c in _children(node))
            continue
        if id(node) in on_path:
            message = (
                "an alias refers to the item that holds it; evalmark reads plain trees: repeat "
                "the data instead"
            )
            raise error([_problem_at(node, message, path)])
        if id(node) in expanded:
            continue
        on_path.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    if expanded[id(root)] - len(expanded) > _MAX_ALIAS_EXPANSION:
        message = (
            f"the aliases (*name) expand to {expanded[id(root)]:,} values, far more than the "
            "file writes out; repeat the data instead of nesting aliases"
        )
        raise error([_problem_at(root, message, path)])


def _check_keys(node: yaml.MappingNode, path: str, error: type[DataFileError]) -> None:
    first_line: dict[object, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            continue
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
        if key in first_line:
            message = (
                f"the key '{key}' appears twice (first at line {first_line[key]}); keep only one"
            )
            raise error([_problem_at(key_node, message, path)])
        first_line[key] = key_node.start_mark.line + 1


def _check_scalar(
    node: yaml.ScalarNode, loader: Any, path: str, error: type[DataFileError]
) -> None:
    """Build a number, date or other typed scalar once, to report the ones that cannot be.

    A plain number or boolean written the way YAML recognises it always builds (unless it is
    too long to read), so only the others are built here.
    """
    pattern = _IMPLICIT.get(node.tag)
    if (
        pattern is not None
        and len(node.value) <= _SHORT
        and node.tag != _TIMESTAMP_TAG
        and pattern.match(node.value)
    ):
        return
    try:
        loader.yaml_constructors[node.tag](loader, node)
        return
    except yaml.MarkedYAMLError as exc:
        raise error([_yaml_problem(exc, path)]) from None
    except Exception as exc:  # each constructor fails its own way (ValueError, KeyError...)
        limit = sys.get_int_max_str_digits()
        digits = sum(char.isdigit() for char in node.value)
        if node.tag == _INT_TAG and digits > limit > 0:
            message = (
                f"the number has {digits:,} digits, more than the {limit:,} Python "
                "reads as an integer; put it in quotes to keep it as text"
            )
        else:
            message = (
                f"'{node.value}' cannot be read as {_short_tag(node.tag)} ({exc}); put it in "
                "quotes to keep it as text"
            )
    raise error([_problem_at(node, message, path)])


def _unsafe_tag_message(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:python/"):
        return (
            f"the YAML tag '{_short_tag(tag)}' would build a Python object; evalmark loads "
            "YAML safely and never runs code from a data file: remove the tag and write "
            "plain data"
        )
    return (
        f"unsupported YAML tag '{_short_tag(tag)}'; evalmark reads plain YAML (strings, "
        "numbers, booleans, lists, mappings): remove the tag"
    )


def _keep_numbers_as_text(node: yaml.Node, pattern: PathKey) -> None:
    """Retag the numbers found at ``pattern`` ("*" = every list item) as strings."""
    if not pattern:
        if isinstance(node, yaml.ScalarNode) and node.tag in _NUMBER_TAGS:
            node.tag = STR_TAG
        return
    head, rest = pattern[0], pattern[1:]
    if head == "*" and isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _keep_numbers_as_text(item, rest)
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and norm_key(key_node.value) == head:
                _keep_numbers_as_text(value_node, rest)


def _yaml_locator(node: yaml.Node) -> Locator:
    """Positions of every key and value under ``node``, found when a problem is reported."""

    def locate(index: int) -> tuple[Position, dict[PathKey, Position]]:
        found: dict[PathKey, Position] = {}
        seen: set[int] = set()
        stack: list[tuple[yaml.Node, PathKey]] = [(node, ())]
        while stack:
            current, where = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            found.setdefault(where, _mark_of(current))
            if isinstance(current, yaml.MappingNode):
                for key_node, value_node in current.value:
                    if not isinstance(key_node, yaml.ScalarNode):
                        continue
                    child = (*where, norm_key(key_node.value))
                    found.setdefault(child, _mark_of(key_node))
                    found.setdefault((*child, VALUE), _mark_of(value_node))
                    stack.append((value_node, child))
            elif isinstance(current, yaml.SequenceNode):
                stack.extend((item, (*where, i)) for i, item in enumerate(current.value))
        return _mark_of(node), found

    return locate


def nesting_problem(data: bytes, path: str) -> Problem:
    """The problem for YAML nested deeper than can be checked, placed at its deepest point."""
    loader = _LOADER(strip_bom(data).decode("utf-8"))
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    deepest, at = 0, (1, 1)
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)] if root is not None else []
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > deepest and not isinstance(node, yaml.ScalarNode):
            deepest, at = depth, _mark_of(node)
        stack.extend((child, depth + 1) for child in _children(node))
    return Problem(
        f"the data is nested too deeply to read ({deepest:,} levels here); flatten it",
        path=path,
        line=at[0],
        column=at[1],
    )
