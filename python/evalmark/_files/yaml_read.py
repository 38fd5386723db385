"""Reading YAML safely, with the line and column of every key and value.

The safe loader only: tags that would build Python objects are refused before anything is
constructed, and nothing here runs code from a data file. Before YAML sees the text, characters
YAML forbids (NUL and other control characters, U+FFFF) are reported with their line and
column; after parsing, the node tree is checked for unknown tags, doubled keys, aliases that
refer to themselves or expand enormously, and integers too long for Python to read
(:mod:`evalmark._files.yaml_nodes`); problems are worded by :mod:`evalmark._files.yaml_problems`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import yaml

from evalmark._files.located import VALUE, Locator, PathKey, RawRecord, norm_key
from evalmark._files.source import Position, decode_text, strip_bom
from evalmark._files.yaml_nodes import NUMBER_TAGS, STR_TAG, check_node_tree, children
from evalmark._files.yaml_problems import character_problem, mark_of, yaml_problem
from evalmark.errors import DataFileError, Problem

__all__ = ["STR_TAG", "checked_nodes", "nesting_problem", "read_yaml", "read_yaml_document"]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed
# What YAML 1.1 allows in a stream (the same set PyYAML's reader checks).
_NOT_ALLOWED = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
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
        check_node_tree(root, loader, path, error, anchors=anchors)
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
        check_node_tree(root, loader, path, error, anchors=anchors)
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
            check_node_tree(root, loader, path, error, anchors=anchors)
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
        raise error([character_problem(text, bad.start(), path)])
    loader: Any = _LOADER(text)
    try:
        return loader, loader.get_single_node(), "&" in text
    except yaml.MarkedYAMLError as exc:
        loader.dispose()
        raise error([yaml_problem(exc, path)]) from None
    except yaml.reader.ReaderError as exc:  # pragma: no cover - the check above comes first
        loader.dispose()
        raise error([character_problem(text, exc.position, path)]) from None


def _construct(loader: Any, node: yaml.Node, path: str, error: type[DataFileError]) -> Any:
    try:
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise error([yaml_problem(exc, path)]) from None


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


def _keep_numbers_as_text(node: yaml.Node, pattern: PathKey) -> None:
    """Retag the numbers found at ``pattern`` ("*" = every list item) as strings."""
    if not pattern:
        if isinstance(node, yaml.ScalarNode) and node.tag in NUMBER_TAGS:
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
            found.setdefault(where, mark_of(current))
            if isinstance(current, yaml.MappingNode):
                for key_node, value_node in current.value:
                    if not isinstance(key_node, yaml.ScalarNode):
                        continue
                    child = (*where, norm_key(key_node.value))
                    found.setdefault(child, mark_of(key_node))
                    found.setdefault((*child, VALUE), mark_of(value_node))
                    stack.append((value_node, child))
            elif isinstance(current, yaml.SequenceNode):
                stack.extend((item, (*where, i)) for i, item in enumerate(current.value))
        return mark_of(node), found

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
            deepest, at = depth, mark_of(node)
        stack.extend((child, depth + 1) for child in children(node))
    return Problem(
        f"the data is nested too deeply to read ({deepest:,} levels here); flatten it",
        path=path,
        line=at[0],
        column=at[1],
    )
