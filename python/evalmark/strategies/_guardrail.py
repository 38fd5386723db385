"""``Guardrail``: an ACCEPT/REJECT decision compared with the expected one.

Each result's metadata holds ``{"guardrail": {"expected": ..., "actual": ...}}``; the report
aggregates them into accuracy, precision, recall and the false-positive and false-negative
rates. ACCEPT is the positive class by default, as in the systems evalmark replaces
(``Guardrail(positive="REJECT")`` counts a rejection as the positive outcome instead); the
strategy records its positive class in the metadata so the report counts the same way.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import case_expected_output, output_text

__all__ = ["Decision", "Guardrail", "read_decision"]

Decision = Literal["ACCEPT", "REJECT"]
_WORD = re.compile(r"[A-Za-z]+")
_SYNONYMS: dict[str, Decision] = {
    "accept": "ACCEPT",
    "accepted": "ACCEPT",
    "allow": "ACCEPT",
    "allowed": "ACCEPT",
    "pass": "ACCEPT",
    "reject": "REJECT",
    "rejected": "REJECT",
    "block": "REJECT",
    "blocked": "REJECT",
    "deny": "REJECT",
    "denied": "REJECT",
}


def read_decision(value: object) -> Decision | None:
    """ACCEPT or REJECT from the first word of a text (accept/allow/pass, reject/block/deny),
    or from a bool (True = ACCEPT); None when it is neither."""
    if isinstance(value, bool):
        return "ACCEPT" if value else "REJECT"
    if not isinstance(value, str):
        return None
    word = _WORD.search(value)
    return _SYNONYMS.get(word.group(0).casefold()) if word else None


class Guardrail:
    """Passes when the output's decision equals the sample's ``expected_output`` (ACCEPT or
    REJECT). An output that is neither fails, naming what it said."""

    def __init__(self, *, positive: Decision = "ACCEPT", name: str | None = None) -> None:
        if positive not in ("ACCEPT", "REJECT"):
            raise ValueError(f"positive must be 'ACCEPT' or 'REJECT', got {positive!r}")
        self.positive: Decision = positive
        self.name = name or "Guardrail"

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Compare the decisions."""
        wanted = case_expected_output(sample, output)
        expected = read_decision(wanted or "")
        if expected is None:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' must have expected-output ACCEPT or "
                f"REJECT, got {wanted!r}"
            )
        raw = (
            output
            if isinstance(output, bool)
            else output_text(output, strategy=self.name, sample=sample)
        )
        actual = read_decision(raw)
        metadata = {
            "guardrail": {"expected": expected, "actual": actual, "positive": self.positive}
        }
        if actual is None:
            return EvaluationResult.failing(
                0.0, f"the output is neither ACCEPT nor REJECT: {str(raw)[:80]!r}", metadata
            )
        if actual == expected:
            return EvaluationResult.passing(1.0, f"{actual} as expected", metadata)
        return EvaluationResult.failing(0.0, f"expected {expected}, got {actual}", metadata)
