"""inspect_ai's text scorers ``match`` and ``includes``, re-scored offline with their
semantics (not evalmark's ``exact-match`` or ``contains``).

``match``: both texts trimmed of whitespace, case-folded unless ``ignore-case`` is false,
then whitespace and punctuation stripped from both ends, and the target found at
``location`` of the answer (``begin``, ``end``, ``any`` or ``exact``). ``includes``: the
target (case-folded unless ``ignore-case`` is false) is a substring of the answer. A sample
passes when one of its targets matches. inspect's numeric ``match`` is not reproduced.
"""

from __future__ import annotations

import string
from typing import Any

from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = ["INSPECT_LOCATIONS", "INSPECT_SCORERS", "InspectScorer", "inspect_match"]

INSPECT_SCORERS: tuple[str, ...] = ("match", "includes")
"""The inspect_ai scorers re-scored offline."""
INSPECT_LOCATIONS: tuple[str, ...] = ("begin", "end", "any", "exact")
"""Where inspect's ``match`` looks for the target."""

_EDGES = string.whitespace + string.punctuation


def inspect_match(
    answer: str,
    target: str,
    *,
    scorer: str = "match",
    location: str = "end",
    ignore_case: bool = True,
) -> bool:
    """Whether ``answer`` matches ``target`` as inspect_ai's ``scorer`` decides."""
    if scorer == "includes":
        if ignore_case:
            answer, target = answer.casefold(), target.casefold()
        return target in answer
    value, wanted = answer.strip(), target.strip()
    if ignore_case:
        value, wanted = value.casefold(), wanted.casefold()
    value, wanted = value.strip(_EDGES), wanted.strip(_EDGES)
    if location == "begin":
        return value.startswith(wanted)
    if location == "end":
        return value.endswith(wanted)
    if location == "exact":
        return value == wanted
    return wanted in value


class InspectScorer:
    """One inspect_ai text scorer (``match`` or ``includes``) against the sample's targets
    (its expected output or outputs)."""

    def __init__(
        self,
        scorer: str = "match",
        *,
        location: str = "end",
        ignore_case: bool = True,
        name: str | None = None,
    ) -> None:
        if scorer not in INSPECT_SCORERS:
            raise ValueError(f"scorer must be one of {', '.join(INSPECT_SCORERS)}")
        if location not in INSPECT_LOCATIONS:
            raise ValueError(f"location must be one of {', '.join(INSPECT_LOCATIONS)}")
        self.scorer = scorer
        self.location = location
        self.ignore_case = ignore_case
        self.name = name or "inspect-scorer"

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """1 (inspect's C) when the answer matches a target, else 0 (I)."""
        answer = output_text(output, strategy=self.name, sample=sample)
        targets = expected_texts(sample, strategy=self.name)
        for target in targets:
            if inspect_match(
                answer,
                target,
                scorer=self.scorer,
                location=self.location,
                ignore_case=self.ignore_case,
            ):
                return EvaluationResult.passing(1.0, f"{self.scorer}: C")
        return EvaluationResult.failing(0.0, f"{self.scorer}: I, no target matches")
