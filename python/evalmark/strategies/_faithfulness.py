"""``Faithfulness``: is the answer supported by the retrieval context, claim by claim?

The answer's claims are its sentences (split after ``.``, ``!`` or ``?`` and at line breaks)
that hold at least one content word. A claim is supported when at least ``min_overlap`` of its
distinct content words appear in one passage of the context
(:func:`evalmark.models._lexical.overlap`). The context is the TestCase's retrieval context,
else its context, else the sample's. The score is the share of claims supported (1.0 for an
answer with no claim); the check passes at ``threshold``. Lexical only: a claim that negates
its passage with the same words counts as supported; use the judged ``faithfulness-judge`` for
meaning.
"""

from __future__ import annotations

import re
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.models._lexical import content_words, overlap
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import case_context, output_text

__all__ = ["Faithfulness", "claims_of"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def claims_of(text: str) -> list[str]:
    """The sentences of ``text`` that hold a content word, in order."""
    parts = (p.strip() for p in _SENTENCE_END.split(text))
    return [p for p in parts if p and content_words(p)]


class Faithfulness:
    """Share of the answer's claims supported by the context; see the module docstring."""

    def __init__(
        self, threshold: float = 0.5, *, min_overlap: float = 0.6, name: str | None = None
    ) -> None:
        for what, value in (("threshold", threshold), ("min_overlap", min_overlap)):
            if isinstance(value, bool) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{what} must be in [0, 1], got {value!r}")
        self.threshold = float(threshold)
        self.min_overlap = float(min_overlap)
        self.name = name or "Faithfulness"

    def _context(self, sample: Sample, output: Any) -> list[str]:
        retrieved = getattr(output, "retrieval_context", None)
        context = list(retrieved) if retrieved else list(case_context(sample, output))
        if not context:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no context to check the answer "
                "against; return a TestCase with retrieval-context or give the sample context"
            )
        return context

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Check each claim of the answer against the passages."""
        context = self._context(sample, output)
        claims = claims_of(output_text(output, strategy=self.name, sample=sample))
        metadata: dict[str, Any] = {"claims": len(claims), "passages": len(context)}
        if not claims:
            return EvaluationResult(
                self.threshold <= 1.0, 1.0, "the answer makes no claim to check", metadata
            )
        unsupported = [
            claim
            for claim in claims
            if max(overlap(claim, passage)[0] for passage in context) < self.min_overlap
        ]
        supported = len(claims) - len(unsupported)
        score = supported / len(claims)
        metadata["supported"] = supported
        text = f"{supported} of {len(claims)} claims supported by the context"
        if unsupported:
            text += "; unsupported: " + "; ".join(repr(c[:80]) for c in unsupported[:5])
        return EvaluationResult(score >= self.threshold, score, text, metadata)

    def __repr__(self) -> str:
        return (
            f"Faithfulness(threshold={self.threshold}, min_overlap={self.min_overlap}, "
            f"name={self.name!r})"
        )
