"""Text strategies: exact match, containment, expected facts."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = ["Contains", "ContainsFacts", "ExactMatch", "KeywordRelevance", "normalize_text"]

_SPACES = re.compile(r"\s+")


def normalize_text(text: str, *, case: bool = True, punctuation: bool = True) -> str:
    """NFKC, then (by default) case folded and punctuation dropped; runs of whitespace become one
    space and the ends are trimmed."""
    text = unicodedata.normalize("NFKC", text)
    if case:
        text = text.casefold()
    if punctuation:
        text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return _SPACES.sub(" ", text).strip()


def _excerpt(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class ExactMatch:
    """Passes when the output equals an expected output after normalization (case, punctuation
    and whitespace by default; turn each off with ``case=False`` / ``punctuation=False``)."""

    def __init__(self, *, case: bool = True, punctuation: bool = True, name: str | None = None):
        self.case = case
        self.punctuation = punctuation
        self.name = name or "ExactMatch"

    def _norm(self, text: str) -> str:
        return normalize_text(text, case=self.case, punctuation=self.punctuation)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Compare the normalized output with each expected output."""
        actual = output_text(output, strategy=self.name, sample=sample)
        wanted = expected_texts(sample, strategy=self.name, output=output)
        got = self._norm(actual)
        if any(self._norm(text) == got for text in wanted):
            return EvaluationResult.passing(1.0)
        return EvaluationResult.failing(
            f"output {_excerpt(actual)} does not match the expected {_excerpt(wanted[0])}"
            + (f" (nor {len(wanted) - 1} other accepted answers)" if len(wanted) > 1 else "")
        )


class Contains:
    """Passes when the output contains ``text`` (default: the sample's expected output, or any of
    its expected outputs). Case-insensitive unless ``case_sensitive=True``; whitespace runs are
    collapsed."""

    def __init__(
        self, text: str | None = None, *, case_sensitive: bool = False, name: str | None = None
    ):
        self.text = text
        self.case_sensitive = case_sensitive
        self.name = name or "Contains"

    def _norm(self, text: str) -> str:
        return normalize_text(text, case=not self.case_sensitive, punctuation=False)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Search the output for the wanted text."""
        actual = self._norm(output_text(output, strategy=self.name, sample=sample))
        wanted = (
            (self.text,)
            if self.text is not None
            else expected_texts(sample, strategy=self.name, output=output)
        )
        if any(self._norm(text) in actual for text in wanted):
            return EvaluationResult.passing(1.0)
        return EvaluationResult.failing(f"output does not contain {_excerpt(wanted[0])}")


class ContainsFacts:
    """Passes when every expected fact (``sample.expected_facts``, or ``facts``) appears in the
    output, compared after normalization. Score = facts found / facts expected; the explanation
    lists the missing facts."""

    def __init__(self, facts: tuple[str, ...] | None = None, *, name: str | None = None):
        self.facts = tuple(facts) if facts is not None else None
        self.name = name or "ContainsFacts"

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Look for each fact in the normalized output."""
        facts = self.facts if self.facts is not None else sample.expected_facts
        if not facts:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no expected facts; add expected-facts "
                "to the sample or pass facts=[...]"
            )
        actual = normalize_text(output_text(output, strategy=self.name, sample=sample))
        missing = [fact for fact in facts if normalize_text(fact) not in actual]
        score = (len(facts) - len(missing)) / len(facts)
        metadata = {"found": len(facts) - len(missing), "expected": len(facts)}
        if not missing:
            return EvaluationResult.passing(score, f"all {len(facts)} facts present", metadata)
        listed = "; ".join(_excerpt(fact, 60) for fact in missing)
        return EvaluationResult.failing(
            score,
            f"{len(missing)} of {len(facts)} expected facts missing: {listed}",
            {**metadata, "missing": missing},
        )


_WORDS = re.compile(r"\w+")


class KeywordRelevance:
    """The share of keywords (``keywords``, else the sample's ``keywords`` metadata) that occur
    in the output as whole words or word sequences, after normalization; passes at
    ``threshold``. The explanation lists the missing keywords."""

    def __init__(
        self,
        keywords: tuple[str, ...] | list[str] | None = None,
        *,
        threshold: float = 1.0,
        name: str | None = None,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"KeywordRelevance: threshold must be in [0, 1], got {threshold}")
        self.keywords = tuple(keywords) if keywords is not None else None
        self.threshold = float(threshold)
        self.name = name or "KeywordRelevance"

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Count the keywords present in the output."""
        keywords = self.keywords
        if keywords is None:
            raw = sample.metadata.get("keywords")
            keywords = (raw,) if isinstance(raw, str) else tuple(raw or ())
        if not keywords or not all(isinstance(k, str) and k.strip() for k in keywords):
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no keywords; pass keywords=[...] or "
                "add a 'keywords' list (of non-empty texts) to the sample's metadata"
            )
        words = _WORDS.findall(
            normalize_text(output_text(output, strategy=self.name, sample=sample))
        )
        padded = f" {' '.join(words)} "
        missing = [
            k for k in keywords if f" {' '.join(_WORDS.findall(normalize_text(k)))} " not in padded
        ]
        score = (len(keywords) - len(missing)) / len(keywords)
        metadata = {"found": len(keywords) - len(missing), "keywords": len(keywords)}
        if not missing:
            return EvaluationResult.passing(
                score, f"all {len(keywords)} keywords present", metadata
            )
        listed = "; ".join(_excerpt(k, 40) for k in missing)
        return EvaluationResult(
            score >= self.threshold,
            score,
            f"{len(missing)} of {len(keywords)} keywords missing: {listed}",
            {**metadata, "missing": missing},
        )
