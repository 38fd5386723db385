"""Text strategies: exact match, containment, expected facts.

``ExactMatch``, ``Contains`` and ``ContainsFacts`` have a batch path (``evaluate_batch``): the
texts of every row are read once, normalized together (:func:`normalize_texts`) and compared
in one loop; it gives the rows ``evaluate`` gives, errors included, in the same order. A
subclass that replaces ``evaluate`` is evaluated row by row (its ``batch`` is False).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text
from evalmark.strategies._normalize import normalize_text, normalize_texts
from evalmark.strategies._text_batch import BatchText, column_of, excerpt, matches, read_rows

__all__ = ["Contains", "ContainsFacts", "ExactMatch", "KeywordRelevance", "normalize_text"]


class ExactMatch(BatchText):
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
            f"output {excerpt(actual)} does not match the expected {excerpt(wanted[0])}"
            + (f" (nor {len(wanted) - 1} other accepted answers)" if len(wanted) > 1 else "")
        )

    def _bulk(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        actual, wanted, bad = read_rows(self, samples, outputs)

        def normalize(texts: list[str]) -> list[str]:
            return normalize_texts(texts, case=self.case, punctuation=self.punctuation)

        passed = matches(normalize(actual), wanted, normalize, str.__eq__)

        def explain(row: int) -> str:
            choices = wanted[row]
            return (
                f"output {excerpt(actual[row])} does not match the expected "
                f"{excerpt(choices[0])}"
                + (f" (nor {len(choices) - 1} other accepted answers)" if len(choices) > 1 else "")
            )

        return column_of(passed, explain, bad)


class Contains(BatchText):
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
        return EvaluationResult.failing(f"output does not contain {excerpt(wanted[0])}")

    def _bulk(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        fixed = (self.text,) if self.text is not None else None
        actual, wanted, bad = read_rows(self, samples, outputs, fixed)

        def normalize(texts: list[str]) -> list[str]:
            return normalize_texts(texts, case=not self.case_sensitive, punctuation=False)

        passed = matches(normalize(actual), wanted, normalize, _inside)

        def explain(row: int) -> str:
            return f"output does not contain {excerpt(wanted[row][0])}"

        return column_of(passed, explain, bad)


def _inside(part: str, whole: str) -> bool:
    return part in whole


class ContainsFacts(BatchText):
    """Passes when every expected fact (``sample.expected_facts``, or ``facts``) appears in the
    output, compared after normalization. Score = facts found / facts expected; the explanation
    lists the missing facts."""

    def __init__(self, facts: tuple[str, ...] | None = None, *, name: str | None = None):
        self.facts = tuple(facts) if facts is not None else None
        self.name = name or "ContainsFacts"

    def _facts(self, sample: Sample) -> tuple[str, ...]:
        facts = self.facts if self.facts is not None else sample.expected_facts
        if not facts:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no expected facts; add expected-facts "
                "to the sample or pass facts=[...]"
            )
        return tuple(facts)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Look for each fact in the normalized output."""
        facts = self._facts(sample)
        actual = normalize_text(output_text(output, strategy=self.name, sample=sample))
        return _facts_result(facts, [fact for fact in facts if normalize_text(fact) not in actual])

    def _bulk(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        facts: list[tuple[str, ...]] = []
        texts: list[str] = []
        bad: dict[int, EvaluationResult] = {}
        for row, (sample, output) in enumerate(zip(samples, outputs, strict=True)):
            try:
                own = self._facts(sample)
                text = (
                    output
                    if type(output) is str
                    else output_text(output, strategy=self.name, sample=sample)
                )
            except StrategyError as exc:
                bad[row] = EvaluationResult.from_error("strategy", exc)
                own, text = (), ""
            facts.append(tuple(own))
            texts.append(text)
        got = normalize_texts(texts)
        if self.facts is not None:
            shared = normalize_texts(list(self.facts))
            wanted = [shared] * len(facts)
        else:
            flat = normalize_texts([fact for own in facts for fact in own])
            ends = np.cumsum([len(own) for own in facts]).tolist()
            wanted = [flat[end - len(own) : end] for own, end in zip(facts, ends, strict=True)]
        missing = [
            [fact for fact, norm in zip(own, norms, strict=True) if norm not in text]
            for own, norms, text in zip(facts, wanted, got, strict=True)
        ]
        counts = np.array([len(own) for own in facts], dtype=np.float64)
        absent = np.array([len(m) for m in missing], dtype=np.float64)
        scores = np.divide(counts - absent, counts, out=np.zeros_like(counts), where=counts > 0)
        passed = (absent == 0) & (counts > 0)
        errored = np.zeros(len(facts), dtype=np.bool_)
        errored[list(bad)] = True

        def build(row: int) -> EvaluationResult:
            if row in bad:
                return bad[row]
            return _facts_result(facts[row], missing[row])

        return ResultColumn.lazy(scores, passed, errored, build)


def _facts_result(facts: tuple[str, ...], missing: list[str]) -> EvaluationResult:
    """ContainsFacts' result for a row with ``facts``, of which ``missing`` were not found."""
    score = (len(facts) - len(missing)) / len(facts)
    metadata = {"found": len(facts) - len(missing), "expected": len(facts)}
    if not missing:
        return EvaluationResult.passing(score, f"all {len(facts)} facts present", metadata)
    listed = "; ".join(excerpt(fact, 60) for fact in missing)
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
        listed = "; ".join(excerpt(k, 40) for k in missing)
        return EvaluationResult(
            score >= self.threshold,
            score,
            f"{len(missing)} of {len(keywords)} keywords missing: {listed}",
            {**metadata, "missing": missing},
        )
