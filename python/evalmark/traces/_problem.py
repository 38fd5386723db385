"""Why a trace cannot be evaluated: :class:`TraceProblem`, one reason of one trace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["REASONS", "Reason", "TraceProblem"]

Reason = Literal["no-genai-spans", "broken-parent-chain", "tool-call-without-result", "no-content"]
REASONS: tuple[str, ...] = (
    "no-genai-spans",
    "broken-parent-chain",
    "tool-call-without-result",
    "no-content",
)


@dataclass(frozen=True, slots=True)
class TraceProblem:
    """One reason a trace cannot be evaluated: the trace id, the case name it would have had
    (the ``match`` attribute's value, else the trace id), the reason (one of ``REASONS``), a
    message saying what to do, and the span concerned when there is one."""

    trace_id: str
    name: str
    reason: Reason
    message: str
    span_id: str | None = None

    def __str__(self) -> str:
        named = f" ({self.name})" if self.name != self.trace_id else ""
        return f"trace {self.trace_id}{named}: {self.reason}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready, unset fields left out."""
        out = {"trace-id": self.trace_id, "name": self.name, "reason": self.reason}
        out["message"] = self.message
        if self.span_id is not None:
            out["span-id"] = self.span_id
        return out
