"""What a strategy kind is: :class:`StrategyKind` and the checkers of its options.

The registry of kinds is :mod:`evalmark.strategies._registry`; the built-in kinds are in
:mod:`evalmark.strategies._builtin_kinds`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "COMMON_OPTIONS",
    "JUDGED_OPTIONS",
    "Checker",
    "StrategyFactory",
    "StrategyKind",
    "check_choice",
    "check_fraction",
    "check_grade",
    "check_integer",
    "check_positive_int",
    "check_text",
    "option_schema",
]

Checker = Callable[[Any], str | None]
StrategyFactory = Callable[[Mapping[str, Any], Any], Any]


def _with_schema(schema: dict[str, Any]) -> Callable[[Checker], Checker]:
    """Attach the JSON Schema of the values a checker accepts (read by the suite schema)."""

    def attach(check: Checker) -> Checker:
        check.schema = schema  # type: ignore[attr-defined]
        return check

    return attach


def option_schema(check: Checker) -> dict[str, Any]:
    """The JSON Schema of the values ``check`` accepts (``{}``, anything, when it has none)."""
    return dict(getattr(check, "schema", {}))


# --------------------------------------------------------------------------- option checkers


@_with_schema({"type": "number", "minimum": 0, "maximum": 1})
def check_fraction(value: Any) -> str | None:
    """None when ``value`` is a number in [0, 1], else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "expected a number between 0 and 1"
    return None if 0.0 <= value <= 1.0 else f"expected a number between 0 and 1, got {value}"


@_with_schema({"type": "integer", "minimum": 1})
def check_positive_int(value: Any) -> str | None:
    """None when ``value`` is a whole number of at least 1, else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return "expected a whole number of at least 1"
    return None


@_with_schema({"type": "integer"})
def check_integer(value: Any) -> str | None:
    """None when ``value`` is an integer, else what is wrong."""
    return None if isinstance(value, int) and not isinstance(value, bool) else "expected an integer"


@_with_schema({"type": "string", "pattern": "\\S"})  # not only spaces, as the check asks
def check_text(value: Any) -> str | None:
    """None when ``value`` is a non-empty string, else what is wrong."""
    return None if isinstance(value, str) and value.strip() else "expected a non-empty string"


def check_choice(*allowed: str | int) -> Checker:
    """A checker accepting only the ``allowed`` values."""

    @_with_schema({"enum": list(allowed)})
    def check(value: Any) -> str | None:
        # as the schema's enum compares: a boolean equals only a boolean (0 is not false)
        if any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed):
            return None
        return "expected one of " + ", ".join(repr(a) for a in allowed)

    return check


@_with_schema({"type": "integer", "minimum": 1, "maximum": 5})
def check_grade(value: Any) -> str | None:
    """None when ``value`` is a whole grade from 1 to 5, else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        return "expected a whole grade from 1 to 5"
    return None


COMMON_OPTIONS: Mapping[str, Checker] = {"name": check_text}
JUDGED_OPTIONS: Mapping[str, Checker] = {
    "repeats": check_positive_int,
    "reducer": check_choice("majority", "all", "any", "mean"),
}


@dataclass(frozen=True, slots=True)
class StrategyKind:
    """A strategy a suite can name: its summary, its own options (besides ``name`` and, for
    judged kinds, ``repeats`` and ``reducer``), the judge prompt it uses, and its factory."""

    name: str
    summary: str
    factory: StrategyFactory = field(compare=False)
    options: Mapping[str, Checker] = field(default_factory=dict, compare=False)
    prompt: str | None = None

    @property
    def judged(self) -> bool:
        """True when a judge model decides this kind."""
        return self.prompt is not None

    @property
    def accepted(self) -> dict[str, Checker]:
        """Every option this kind accepts, with its checker."""
        return {**COMMON_OPTIONS, **(JUDGED_OPTIONS if self.judged else {}), **self.options}

    def build(self, options: Mapping[str, Any], judge: Any = None) -> Any:
        """The engine strategy for these options (``name`` defaults to the kind)."""
        given = dict(options)
        given["name"] = given.get("name") or self.name
        return self.factory(given, judge)
