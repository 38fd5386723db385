"""One option of a metric function: its name, default and accepted values."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Option:
    """One keyword option of a metric function, with its default.

    ``choices`` lists the accepted values of a choice; otherwise ``kind`` says what the value
    is: a whole number of at least ``minimum``, a bool, a non-negative number, or ``weights``
    (three whole numbers >= 0, the costs of an insertion, a deletion and a substitution). An
    option whose default is ``None`` also accepts ``None``.
    """

    name: str
    default: object
    choices: tuple[object, ...] = ()
    kind: Literal["choice", "int", "bool", "number", "weights"] = "choice"
    minimum: int = 0

    def problem(self, value: object) -> str | None:
        """None when ``value`` is accepted, else what is wrong with it."""
        if self.kind == "choice":
            if any(value == c and type(value) is type(c) for c in self.choices):
                return None
            return "expected one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "bool":
            return None if isinstance(value, bool) else "expected true or false"
        if value is None and self.default is None:
            return None
        if self.kind == "weights":
            if (
                isinstance(value, tuple | list)
                and len(value) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
            ):
                return None
            return "expected three whole numbers of at least 0"
        if self.kind == "int":
            if isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum:
                return None
            return f"expected a whole number of at least {self.minimum}"
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value >= 0
        ):
            return None
        return "expected a number of at least 0"

    def wanted(self) -> str:
        """What a value must be, for messages: ``0, 1 or 2``, ``a whole number >= 1``."""
        if self.kind == "choice":
            shown = [repr(c) for c in self.choices if c is not None]
            return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
        if self.kind == "bool":
            return "True or False"
        if self.kind == "weights":
            return "three whole numbers >= 0"
        if self.kind == "int":
            return f"a whole number >= {self.minimum}" + (
                " or None" if self.default is None else ""
            )
        return "a number >= 0" + (" or None" if self.default is None else "")

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the values a suite file may give (``None`` is left out: it is
        the default, given by leaving the option out)."""
        if self.kind == "choice":
            return {"enum": [c for c in self.choices if c is not None]}
        if self.kind == "bool":
            return {"type": "boolean"}
        if self.kind == "weights":
            item = {"type": "integer", "minimum": 0}
            return {"type": "array", "items": item, "minItems": 3, "maxItems": 3}
        if self.kind == "int":
            return {"type": "integer", "minimum": self.minimum}
        return {"type": "number", "minimum": 0}
