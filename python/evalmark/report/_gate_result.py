"""``GateResult``: one condition of a gate, checked: what it asked, what the run got, and
whether it held. A plain frozen value, so a report can carry the conditions checked against it
(:meth:`~evalmark.report._model.Report.with_gates`) without knowing any gate rule; the rules are in
:mod:`evalmark.gates._rules`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["GateResult"]


@dataclass(frozen=True, slots=True)
class GateResult:
    """One condition of the gate: what it asked, what the run got, and whether it held.

    ``unit`` is ``"rate"`` for pass rates (at least ``required``) and ``"count"`` for the
    errored cases (at most ``required``).
    """

    label: str
    required: float
    actual: float
    passed: bool
    detail: str = ""
    unit: Literal["rate", "count"] = "rate"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, in a fixed key order."""
        return {
            "label": self.label,
            "actual": self.actual,
            "required": self.required,
            "unit": self.unit,
            "passed": self.passed,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateResult:
        """Read back :meth:`to_dict`; ``KeyError``, ``TypeError`` or ``ValueError`` naming
        the field when it is not such a condition."""
        label, detail, unit = data["label"], data.get("detail", ""), data.get("unit", "rate")
        if not isinstance(label, str) or not isinstance(detail, str):
            raise TypeError("label and detail must be strings")
        if unit not in ("rate", "count"):
            raise ValueError(f"unit must be 'rate' or 'count', got {unit!r}")
        numbers = {key: data[key] for key in ("actual", "required")}
        for key, value in numbers.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{key} must be a number, got {value!r}")
        passed = data["passed"]
        if not isinstance(passed, bool):
            raise TypeError(f"passed must be true or false, got {passed!r}")
        return cls(label, numbers["required"], numbers["actual"], passed, detail, unit)
