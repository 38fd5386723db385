"""Text strategies: exact match, containment, expected facts.

``ExactMatch``, ``Contains`` and ``ContainsFacts`` have a batch path (``evaluate_batch``): the
texts of every row are read once and compared normalized in one native call
(:func:`normalized_hits`); it gives the rows ``evaluate`` gives, errors included, in the same
order. A subclass that replaces ``evaluate`` is evaluated row by row (its ``batch`` is False).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text
from evalmark.strategies._normalize import normalize_text, normalized_hits
from evalmark.strategies._text_batch import (
    BatchText,
    column_of,
    excerpt,
    output_texts,
    pair_verdicts,
)
from evalmark.strategies._text_explain import FactsText, FixedFailure, PairFailure

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
        options = (self.case, self.punctuation)
        passed, pairs, bad = pair_verdicts(self, samples, outputs, options, contains=False)
        return column_of(passed, PairFailure(pairs, contains=False), bad)


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
        if self.text is None:
            options = (not self.case_sensitive, False)
            passed, pairs, bad = pair_verdicts(self, samples, outputs, options, contains=True)
            return column_of(passed, PairFailure(pairs, contains=True), bad)
        got, bad = output_texts(self, samples, outputs)
        passed = normalized_hits(
            got,
            [self.text] * len(got),
            case=not self.case_sensitive,
            punctuation=False,
            contains=True,
        )
        fixed = f"output does not contain {excerpt(self.text)}"
        return column_of(passed, FixedFailure(fixed), bad)


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

    def _facts_or_error(
        self, sample: Sample, bad: dict[int, EvaluationResult], row: int
    ) -> tuple[str, ...]:
        try:
            return self._facts(sample)
        except StrategyError as exc:
            bad[row] = EvaluationResult.from_error("strategy", exc)
            return ()

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Look for each fact in the normalized output."""
        facts = self._facts(sample)
        actual = normalize_text(output_text(output, strategy=self.name, sample=sample))
        return _facts_result(facts, [fact for fact in facts if normalize_text(fact) not in actual])

    def _bulk(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        bad: dict[int, EvaluationResult] = {}
        if self.facts:
            facts = [self.facts] * len(samples)
        else:
            facts = [s.expected_facts for s in samples]
            if not all(facts) or set(map(type, facts)) != {tuple}:  # rows _facts refuses
                facts = [self._facts_or_error(s, bad, row) for row, s in enumerate(samples)]
        texts, unread = output_texts(self, samples, outputs)
        for row, error in unread.items():
            if row not in bad:  # evaluate reads the facts first
                bad[row] = error
                facts[row] = ()
        counts_array = np.fromiter(map(len, facts), np.int64, len(facts))
        flat_facts = list(chain.from_iterable(facts))
        owners = np.repeat(np.arange(len(facts), dtype=np.int64), counts_array)
        found = normalized_hits(texts, flat_facts, owners, contains=True)
        ends = np.cumsum(counts_array)
        starts = ends - counts_array
        absent_flat = np.concatenate([[0], np.cumsum(~found, dtype=np.int64)])
        absent = (absent_flat[ends] - absent_flat[starts]).astype(np.float64)

        def missing(row: int) -> list[str]:
            first, end = int(starts[row]), int(ends[row])
            return [flat_facts[k] for k in range(first, end) if not found[k]]

        counts = counts_array.astype(np.float64)
        scores = np.divide(counts - absent, counts, out=np.zeros_like(counts), where=counts > 0)
        passed = (absent == 0) & (counts > 0)
        errored = np.zeros(len(facts), dtype=np.bool_)
        errored[list(bad)] = True

        def build(row: int) -> EvaluationResult:
            if row in bad:
                return bad[row]
            return _facts_result(facts[row], missing(row))

        def explain(row: int) -> str:
            if row in bad:
                return bad[row].explanation
            return _facts_text(facts[row], missing(row))

        bad_texts = {row: result.explanation for row, result in bad.items()}
        text = FactsText(flat_facts, found, starts, ends, bad_texts, explain)

        # the rows' metadata is counts of facts, never a guardrail decision: only error rows
        # are read for figures
        errors = list(bad.values())
        return ResultColumn.lazy(scores, passed, errored, build, lambda: errors, text)


def _facts_text(facts: tuple[str, ...], missing: list[str]) -> str:
    """ContainsFacts' explanation for a row with ``facts``, of which ``missing`` were not
    found."""
    if not missing:
        return f"all {len(facts)} facts present"
    listed = "; ".join(excerpt(fact, 60) for fact in missing)
    return f"{len(missing)} of {len(facts)} expected facts missing: {listed}"


def _facts_result(facts: tuple[str, ...], missing: list[str]) -> EvaluationResult:
    """ContainsFacts' result for a row with ``facts``, of which ``missing`` were not found."""
    score = (len(facts) - len(missing)) / len(facts)
    metadata = {"found": len(facts) - len(missing), "expected": len(facts)}
    if not missing:
        return EvaluationResult.passing(score, _facts_text(facts, missing), metadata)
    return EvaluationResult.failing(
        score, _facts_text(facts, missing), {**metadata, "missing": missing}
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
