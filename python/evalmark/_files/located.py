"""Records that remember where they came from: the value read from a file, with the line and
column of the record and of every key and value inside it, for problem reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalmark._files.source import Position

__all__ = ["Locator", "PathKey", "RawRecord", "matches_text_key", "norm_key"]

PathKey = tuple[str | int, ...]
Locator = Callable[[int], tuple[Position, dict[PathKey, Position]]]
VALUE = "\0value"  # appended to a key's path: where the key's value starts, not the key


def norm_key(part: str | int) -> str | int:
    """A path part as positions are stored: snake_case keys in their kebab-case spelling."""
    return part.replace("_", "-") if isinstance(part, str) else part


@dataclass(slots=True)
class RawRecord:
    """One item of a data file before validation, with where it and its parts start.

    Positions are found lazily for JSON (only when a problem is reported), eagerly for YAML.
    """

    value: Any
    index: int  # 0-based position among the file's records
    start: Position | None = None
    found: dict[PathKey, Position] | None = None
    locator: Locator | None = None

    def _locate(self) -> tuple[Position, dict[PathKey, Position]]:
        if self.start is None or self.found is None:
            assert self.locator is not None
            self.start, self.found = self.locator(self.index)
        return self.start, self.found

    @property
    def line(self) -> int:
        """The 1-based line where the record starts."""
        return (self.start or self._locate()[0])[0]

    @property
    def column(self) -> int:
        """The 1-based column where the record starts."""
        return (self.start or self._locate()[0])[1]

    @property
    def positions(self) -> dict[PathKey, Position]:
        """Where each key and value inside the record starts, by path."""
        return self._locate()[1]

    def position(self, path: PathKey, *, of_value: bool = False) -> Position:
        """The line and column of the key at ``path`` (or of its value with ``of_value``),
        falling back to the nearest enclosing item that has a known position."""
        positions = self.positions
        key = tuple(norm_key(p) for p in path)
        if of_value and (*key, VALUE) in positions:
            return positions[(*key, VALUE)]
        while key:
            found = positions.get(key)
            if found is not None:
                return found
            key = key[:-1]
        return self.line, self.column


def matches_text_key(where: PathKey, text_keys: frozenset[PathKey]) -> bool:
    """True if ``where`` matches one of the patterns ("*" stands for any list index)."""
    for pattern in text_keys:
        if len(pattern) == len(where) and all(
            p == w or (p == "*" and isinstance(w, int)) for p, w in zip(pattern, where, strict=True)
        ):
            return True
    return False
