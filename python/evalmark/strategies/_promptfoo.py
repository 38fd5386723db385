"""promptfoo's assertions, re-scored offline with promptfoo's own semantics.

An imported promptfoo test keeps its assertions verbatim in the sample's metadata
(``promptfoo-assert``: a list of ``{type, value, weight, threshold}``, and
``promptfoo-threshold``: the test's threshold). :class:`PromptfooAsserts` reads them back and
decides the test the way promptfoo does: each assertion scores 0 or 1 (``not-`` inverts it;
``bleu`` and ``rouge-n`` score their value);
the test's score is the weighted mean; the test passes when every assertion passes, or, when
the test sets a threshold, when the score reaches it.

Where promptfoo's meaning differs from evalmark's metric of the same name, this check follows
promptfoo: ``levenshtein``'s threshold is a maximum edit distance (default 5), not a
similarity; ``equals`` and ``contains`` compare the raw text, without evalmark's normalization;
``bleu`` is promptfoo's own BLEU (:func:`promptfoo_bleu`), not sacreBLEU's, and scores its
value (the assertion passes at ``threshold``, default 0.5; ``not-bleu`` scores 1 - BLEU);
``rouge-n`` is the js-rouge package's ROUGE-N that promptfoo calls
(:mod:`~evalmark.strategies._js_rouge`), passing at ``threshold`` (default 0.75).

``llm-rubric`` and ``not-llm-rubric`` are graded by the suite's judge when the check is given
``llm-rubric: judge`` (:mod:`~evalmark.strategies._promptfoo_rubric`); they score the grade's
score.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalmark.errors import JudgeParseError, StrategyError
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text
from evalmark.strategies._promptfoo_rubric import PROMPTFOO_JUDGED_TYPES, grade_rubric

__all__ = [
    "PROMPTFOO_ASSERT_TYPES",
    "PromptfooAsserts",
    "promptfoo_assert_passes",
    "promptfoo_assert_score",
    "promptfoo_bleu",
]

_LEVENSHTEIN_DEFAULT = 5.0
_BLEU_DEFAULT = 0.5
_ROUGE_DEFAULT = 0.75


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _equals(output: str, value: Any, threshold: float | None) -> bool:
    if isinstance(value, dict | list):
        try:
            return bool(json.loads(output) == value)
        except ValueError:
            return False
    return output == _text(value)


def _contains(output: str, value: Any, threshold: float | None) -> bool:
    return _text(value) in output


def _icontains(output: str, value: Any, threshold: float | None) -> bool:
    return _text(value).lower() in output.lower()


def _regex(output: str, value: Any, threshold: float | None) -> bool:
    return re.search(_text(value), output) is not None


def _is_json(output: str, value: Any, threshold: float | None) -> bool:
    try:
        json.loads(output)
    except ValueError:
        return False
    return True


def _contains_json(output: str, value: Any, threshold: float | None) -> bool:
    decoder = json.JSONDecoder()
    for start, char in enumerate(output):
        if char in "{[":
            try:
                decoder.raw_decode(output, start)
            except ValueError:
                continue
            return True
    return False


def _levenshtein(output: str, value: Any, threshold: float | None) -> bool:
    from evalmark.metrics import levenshtein_distance

    if not isinstance(value, str):  # promptfoo's assertion errors: it fails, even inverted
        raise ValueError("a levenshtein assertion needs a text value")

    limit = _LEVENSHTEIN_DEFAULT if threshold is None else threshold
    return levenshtein_distance(output, _text(value)) <= limit


def _words(text: str) -> list[str]:
    """promptfoo's BLEU tokens: lower case, trimmed, split on whitespace (an empty text is one
    empty token, as JavaScript splits it)."""
    return re.split(r"\s+", text.lower().strip())


def _grams(words: Sequence[str], n: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in range(len(words) - n + 1):
        gram = " ".join(words[i : i + n])
        counts[gram] = counts.get(gram, 0) + 1
    return counts


def promptfoo_bleu(candidate: str, references: str | Sequence[str]) -> float:
    """promptfoo's ``bleu`` score: whitespace tokens in lower case; for n = 1..4 the clipped
    n-gram precision against the reference that gives the most matches; a zero precision
    counts as 1e-7; the geometric mean with equal weights times the brevity penalty
    ``exp(1 - c/r)`` (1 when the candidate is longer), ``r`` the length of the reference
    closest to the candidate's (the first on a tie). ValueError for an empty candidate or no
    reference (promptfoo refuses them).

    promptfoo's brevity penalty divides the other way round from Papineni et al.'s
    ``exp(1 - r/c)``: a candidate shorter than the reference gets a penalty above 1, and the
    score can exceed 1. That is reproduced, so a verdict is promptfoo's; the check reports a
    test's score clipped to [0, 1] (promptfoo's own in the result's metadata)."""
    if isinstance(references, str):
        references = [references]
    if not candidate or not references:
        raise ValueError("bleu needs a non-empty output and at least one reference")
    words = _words(candidate)
    tokenized = [_words(reference) for reference in references]
    closest = len(tokenized[0])
    for other in tokenized[1:]:
        if abs(len(other) - len(words)) < abs(closest - len(words)):
            closest = len(other)
    log_sum = 0.0
    for n in range(1, 5):
        mine = _grams(words, n)
        total = sum(mine.values())
        best = 0
        for reference in tokenized:
            theirs = _grams(reference, n)
            best = max(best, sum(min(c, theirs.get(g, 0)) for g, c in mine.items()))
        precision = best / total if total else 0.0
        log_sum += 0.25 * math.log(precision or 1e-7)
    penalty = 1.0 if len(words) > closest else math.exp(1 - len(words) / closest)
    return penalty * math.exp(log_sum)


def _bleu(output: str, value: Any, threshold: float | None, negate: bool) -> tuple[bool, float]:
    references = [value] if isinstance(value, str) else value
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        return False, 0.0  # promptfoo wants a text or a list of texts, else errors: it fails
    try:
        score = promptfoo_bleu(output, references)
    except ValueError:  # promptfoo's assertion errors: it fails
        return False, 0.0
    limit = _BLEU_DEFAULT if threshold is None else threshold
    return (score >= limit) != negate, 1.0 - score if negate else score


def _rouge_n(output: str, value: Any, threshold: float | None, negate: bool) -> tuple[bool, float]:
    """promptfoo's ``rouge-n``: js-rouge's ``n(output, value, {})`` (ROUGE-1 F1 over Treebank
    tokens, case-sensitive), passing at ``threshold`` (default 0.75); ``not-rouge-n`` inverts
    the verdict and scores 1 - score. A value that is not text, or a blank output or value,
    is an error in promptfoo: the assertion fails."""
    from evalmark.strategies._js_rouge import js_rouge_n

    if not isinstance(value, str):
        return False, 0.0
    try:
        score = js_rouge_n(output, value)
    except ValueError:
        return False, 0.0
    limit = _ROUGE_DEFAULT if threshold is None else threshold
    return (score >= limit) != negate, 1.0 - score if negate else score


_SCORED: dict[str, Callable[[str, Any, float | None, bool], tuple[bool, float]]] = {
    "bleu": _bleu,
    "rouge-n": _rouge_n,
}

_CHECKS: dict[str, Callable[[str, Any, float | None], bool]] = {
    "equals": _equals,
    "contains": _contains,
    "icontains": _icontains,
    "regex": _regex,
    "is-json": _is_json,
    "contains-json": _contains_json,
    "levenshtein": _levenshtein,
}

PROMPTFOO_ASSERT_TYPES: frozenset[str] = frozenset(
    [*_CHECKS, *_SCORED, *(f"not-{t}" for t in [*_CHECKS, *_SCORED])]
)
"""The promptfoo assertion types this check re-scores (each also with ``not-``)."""


def promptfoo_assert_passes(kind: str, output: str, value: Any, threshold: float | None) -> bool:
    """Whether one promptfoo assertion of type ``kind`` passes on ``output``."""
    return promptfoo_assert_score(kind, output, value, threshold)[0]


def promptfoo_assert_score(
    kind: str, output: str, value: Any, threshold: float | None
) -> tuple[bool, float]:
    """One promptfoo assertion of type ``kind`` on ``output``: whether it passes and its score
    (1 or 0, but a metric's value for ``bleu`` and ``rouge-n``)."""
    negate = kind.startswith("not-")
    base = kind[4:] if negate else kind
    scored = _SCORED.get(base)
    if scored is not None:
        return scored(output, value, threshold, negate)
    check = _CHECKS.get(base)
    if check is None:
        raise StrategyError(f"promptfoo assertion type {kind!r} is not re-scored offline")
    try:
        ok = check(output, value, threshold) != negate
    except ValueError:  # promptfoo's assertion errors: it fails, inverted or not
        return False, 0.0
    return ok, 1.0 if ok else 0.0


class PromptfooAsserts:
    """The check of an imported promptfoo test: its assertions (sample metadata
    ``promptfoo-assert``) decided with promptfoo's semantics; the score is their weighted mean.
    ``judge`` (a chat model) grades the ``llm-rubric`` assertions; without one they are an
    error."""

    def __init__(self, *, name: str | None = None, judge: Any = None) -> None:
        self.name = name or "promptfoo-asserts"
        self.judge = judge

    def _assertion(
        self, sample: Sample, item: Mapping[str, Any], actual: str, grades: list[dict[str, Any]]
    ) -> tuple[bool, float]:
        """One assertion's verdict and score; a rubric's grade is added to ``grades``."""
        kind, threshold = item["type"], item.get("threshold")
        if kind not in PROMPTFOO_JUDGED_TYPES:
            return promptfoo_assert_score(kind, actual, item.get("value"), threshold)
        if self.judge is None:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has an {kind} assertion, which the judge "
                f"grades: give the check 'llm-rubric: judge' and the suite a judge"
            )
        ok, score, reason = grade_rubric(
            self.judge,
            kind,
            actual,
            item.get("value"),
            threshold,
            sample=sample.name,
            check=self.name,
            prompt=item.get("rubricPrompt"),
            variables=sample.metadata.get("promptfoo-vars"),
        )
        grades.append({"type": kind, "pass": ok, "score": score, "reason": reason})
        return ok, score

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Decide every assertion of the sample, then the test as promptfoo does."""
        asserts = sample.metadata.get("promptfoo-assert")
        if not isinstance(asserts, Sequence) or isinstance(asserts, str):
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no 'promptfoo-assert' list in its "
                "metadata; import the suite with `evalmark import promptfoo`"
            )
        actual = output_text(output, strategy=self.name, sample=sample)
        if not asserts:  # promptfoo passes a test without assertions
            return EvaluationResult.passing(1.0, "no assertions")
        total = weighted = 0.0
        failed: list[str] = []
        grades: list[dict[str, Any]] = []
        for item in asserts:
            if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
                raise StrategyError(f"{self.name}: sample '{sample.name}': bad assertion {item!r}")
            weight = float(item.get("weight", 1.0))
            try:
                ok, score_of_one = self._assertion(sample, item, actual, grades)
            except StrategyError:
                raise
            except Exception as exc:  # the judge failed or its reply holds no grade
                fault = EvaluationFault.from_exception(
                    "parse" if isinstance(exc, JudgeParseError) else "judge", exc
                )
                return EvaluationResult(False, 0.0, str(exc), error=fault)
            total += weight
            weighted += weight * score_of_one
            if not ok:
                failed.append(item["type"])
        raw = weighted / total if total else 1.0
        test_threshold = sample.metadata.get("promptfoo-threshold")
        passed = not failed if test_threshold is None else raw >= float(test_threshold)
        score = min(1.0, max(0.0, raw))  # promptfoo's bleu can exceed 1 (see promptfoo_bleu)
        explanation = f"{len(asserts) - len(failed)} of {len(asserts)} assertions pass" + (
            f"; failed: {', '.join(failed)}" if failed else ""
        )
        metadata: dict[str, Any] = {"failed": failed}
        if grades:
            metadata["llm-rubric"] = grades
        if score != raw:
            metadata["promptfoo-score"] = raw
        if passed:
            return EvaluationResult.passing(score, explanation, metadata)
        return EvaluationResult.failing(score, explanation, metadata)
