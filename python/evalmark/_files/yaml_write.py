"""Writing plain records as readable YAML: block style, keys in the given order, multi-line
text as literal blocks wherever YAML can hold it faithfully."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import yaml

from evalmark._files.yaml_read import STR_TAG

__all__ = ["dump_yaml"]


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings as literal blocks and keeps key order."""


_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and _block_safe(value):
        return dumper.represent_scalar(STR_TAG, value, style="|")
    if any(ch in value for ch in _YAML_BREAKS):
        # YAML reads these as line breaks unless they are escaped in double quotes.
        return dumper.represent_scalar(STR_TAG, value, style='"')
    return dumper.represent_scalar(STR_TAG, value)


def _block_safe(value: str) -> bool:
    # Literal blocks cannot hold trailing spaces on a line, tabs or most control characters
    # faithfully; fall back to a quoted scalar for those.
    return (
        not any(line != line.rstrip(" ") for line in value.split("\n"))
        and all(ch == "\n" or ch.isprintable() for ch in value)
        and not value.startswith(" ")
    )


_BlockDumper.add_representer(str, _represent_str)
_BlockDumper.add_representer(tuple, lambda d, v: d.represent_list(list(v)))
_BlockDumper.add_representer(Decimal, lambda d, v: d.represent_scalar(STR_TAG, str(v)))


def dump_yaml(records: Any) -> bytes:
    """Serialize plain records as block-style YAML (UTF-8, keys in the given order)."""
    text = yaml.dump(
        records,
        Dumper=_BlockDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return ("---\n" + text).encode("utf-8")
