"""Checks of a composed YAML node tree, made before anything is constructed.

Tags that would build Python objects or are unknown, doubled keys, typed scalars that cannot
be built (a date that is no date, an integer longer than Python reads) and aliases that refer
to the item holding them or expand the data enormously ("billion laughs") are refused, each
reported at its node.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from evalmark._files.yaml_problems import problem_at, short_tag, yaml_problem
from evalmark.errors import DataFileError

__all__ = ["NUMBER_TAGS", "STR_TAG", "check_node_tree", "children"]


STR_TAG = "tag:yaml.org,2002:str"
_SAFE_TAGS = frozenset(t for t in SafeConstructor.yaml_constructors if t is not None)
_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
NUMBER_TAGS = ("tag:yaml.org,2002:float", _INT_TAG)
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


def check_node_tree(
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
            raise error([problem_at(node, _unsafe_tag_message(tag), path)])
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


def children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes directly under ``node`` (keys and values of a mapping, items of a list)."""
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
            expanded[id(node)] = 1 + sum(expanded[id(c)] for c in children(node))
            continue
        if id(node) in on_path:
            message = (
                "an alias refers to the item that holds it; evalmark reads plain trees: repeat "
                "the data instead"
            )
            raise error([problem_at(node, message, path)])
        if id(node) in expanded:
            continue
        on_path.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children(node)))
    if expanded[id(root)] - len(expanded) > _MAX_ALIAS_EXPANSION:
        message = (
            f"the aliases (*name) expand to {expanded[id(root)]:,} values, far more than the "
            "file writes out; repeat the data instead of nesting aliases"
        )
        raise error([problem_at(root, message, path)])


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
            raise error([problem_at(key_node, message, path)])
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
        raise error([yaml_problem(exc, path)]) from None
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
                f"'{node.value}' cannot be read as {short_tag(node.tag)} ({exc}); put it in "
                "quotes to keep it as text"
            )
    raise error([problem_at(node, message, path)])


def _unsafe_tag_message(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:python/"):
        return (
            f"the YAML tag '{short_tag(tag)}' would build a Python object; evalmark loads "
            "YAML safely and never runs code from a data file: remove the tag and write "
            "plain data"
        )
    return (
        f"unsupported YAML tag '{short_tag(tag)}'; evalmark reads plain YAML (strings, "
        "numbers, booleans, lists, mappings): remove the tag"
    )
