"""The checks of OpenAI Evals' basic eval classes, re-scored offline with their semantics.

``Match``: the answer starts with one of the ideal answers. ``Includes``: the answer contains
one (case-sensitive unless ``ignore-case``). ``FuzzyMatch``: after OpenAI Evals' normalization
(lower case, punctuation and the articles a/an/the removed, whitespace collapsed) one of the
two texts contains the other; two empty texts match, one empty text does not; each result
also records the class's second metric, ``f1_score`` (metadata: the best token F1 of the
normalized answer against an ideal answer). ``JsonMatch``: the answer parses as JSON that
matches one of the ideal answers parsed as JSON component by component: objects on the union
of their keys, arrays of one length element by element, other values by ``==`` (``1`` matches
``1.0``), and a ``null`` or a missing key never matches; an ideal answer that is not JSON is
an error of the sample, as it is in OpenAI Evals. These differ from
evalmark's ``exact-match``, ``contains`` and ``fuzzy`` metrics, hence their own kind.

The hosted Evals API's ``string_check`` grader is the class ``string_check:OPERATION``:
``eq`` the answer equals the reference, ``ne`` it differs, ``like`` it contains the reference,
``ilike`` it contains it ignoring case; no normalization (not even trimming).

Its ``text_similarity`` grader with ``evaluation_metric: fuzzy_match`` is the class
``text_similarity:fuzzy_match``: the score is rapidfuzz's ``fuzz.WRatio`` of the answer and the
reference after rapidfuzz's ``utils.default_process`` (lower case, non-alphanumerics to spaces,
trimmed), divided by 100, and the check passes when it reaches ``threshold`` (the grader's
``pass_threshold``). This is not evalmark's ``levenshtein-similarity``, hence a class here.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from evalmark.errors import OptionalDependencyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = [
    "OPENAI_EVALS_CLASSES",
    "OpenAIEvalsMatch",
    "openai_f1_score",
    "openai_fuzzy_normalize",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def openai_fuzzy_normalize(text: str) -> str:
    """OpenAI Evals' normalization for ``FuzzyMatch``: lower case, no punctuation, no
    articles, single spaces."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _fuzzy(answer: str, ideal: str, ignore_case: bool) -> bool:
    a, b = openai_fuzzy_normalize(answer), openai_fuzzy_normalize(ideal)
    if not a or not b:
        return a == b
    return a in b or b in a


def _match(answer: str, ideal: str, ignore_case: bool) -> bool:
    return answer.startswith(ideal)


def _includes(answer: str, ideal: str, ignore_case: bool) -> bool:
    return ideal.lower() in answer.lower() if ignore_case else ideal in answer


def _json_match(sampled: Any, correct: Any) -> bool:
    """OpenAI Evals' ``json_match``: component by component; ``None`` never matches."""
    if sampled is None or correct is None:
        return False
    if isinstance(sampled, Mapping):
        if not isinstance(correct, Mapping):
            return False
        return all(_json_match(sampled.get(k), correct.get(k)) for k in {*sampled, *correct})
    if isinstance(sampled, list):
        if not isinstance(correct, list) or len(sampled) != len(correct):
            return False
        return all(_json_match(a, b) for a, b in zip(sampled, correct, strict=True))
    return bool(sampled == correct)


def _json(answer: str, ideal: str, ignore_case: bool) -> bool:
    correct = json.loads(ideal)  # OpenAI Evals lets a bad ideal answer raise: the sample errors
    try:
        sampled = json.loads(answer)
    except ValueError:
        return False
    return _json_match(sampled, correct)


def openai_f1_score(answer: str, ideals: list[str]) -> float:
    """OpenAI Evals' ``f1_score`` metric of ``FuzzyMatch``: the best, over the ideal answers,
    token F1 of the normalized answer against the normalized ideal (0 without a common
    token)."""
    best = 0.0
    mine = openai_fuzzy_normalize(answer).split()
    for ideal in ideals:
        theirs = openai_fuzzy_normalize(ideal).split()
        same = sum((Counter(mine) & Counter(theirs)).values())
        if same:
            precision, recall = same / len(mine), same / len(theirs)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def _never(answer: str, reference: str, ignore_case: bool) -> bool:
    return False


def _equal(answer: str, reference: str, ignore_case: bool) -> bool:
    return answer == reference


def _not_equal(answer: str, reference: str, ignore_case: bool) -> bool:
    return answer != reference


def _like(answer: str, reference: str, ignore_case: bool) -> bool:
    return reference in answer


def _ilike(answer: str, reference: str, ignore_case: bool) -> bool:
    return reference.lower() in answer.lower()


_CLASSES: dict[str, Callable[[str, str, bool], bool]] = {
    "Match": _match,
    "Includes": _includes,
    "FuzzyMatch": _fuzzy,
    "JsonMatch": _json,
    # The hosted Evals API's string_check grader, one class per operation.
    "string_check:eq": _equal,
    "string_check:ne": _not_equal,
    "string_check:like": _like,
    "string_check:ilike": _ilike,
}


def _fuzzy_ratio(answer: str, reference: str) -> float:
    from rapidfuzz import fuzz, utils  # checked when the check is made (_needs_rapidfuzz)

    return float(fuzz.WRatio(answer, reference, processor=utils.default_process)) / 100.0


def _needs_rapidfuzz() -> None:
    try:
        import rapidfuzz  # noqa: F401
    except ImportError:
        raise OptionalDependencyError(
            "rapidfuzz", "fuzzy", "OpenAI's fuzzy_match grader (text_similarity:fuzzy_match)"
        ) from None


# Scored classes: a score in [0, 1] that passes at the check's threshold.
_SCORED: dict[str, Callable[[str, str], float]] = {"text_similarity:fuzzy_match": _fuzzy_ratio}
OPENAI_EVALS_CLASSES: tuple[str, ...] = (*_CLASSES, *_SCORED)
"""The OpenAI Evals classes re-scored offline."""


class OpenAIEvalsMatch:
    """One OpenAI Evals basic class (``Match``, ``Includes``, ``FuzzyMatch``, ``JsonMatch``)
    against the sample's ideal answers (its expected output or outputs)."""

    def __init__(
        self,
        eval_class: str,
        *,
        ignore_case: bool = False,
        name: str | None = None,
        threshold: float = 1.0,
    ) -> None:
        if eval_class not in OPENAI_EVALS_CLASSES:
            raise ValueError(
                f"unknown OpenAI Evals class {eval_class!r}; the classes are "
                f"{', '.join(OPENAI_EVALS_CLASSES)}"
            )
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.compare = _CLASSES.get(eval_class, _never)  # a scored class compares by its score
        self.scored = _SCORED.get(eval_class)
        if self.scored is _fuzzy_ratio:
            _needs_rapidfuzz()
        self.threshold = threshold
        self.eval_class = eval_class
        self.ignore_case = ignore_case
        self.name = name or f"openai-evals-{eval_class}"

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Pass when the answer matches any ideal answer the class's way."""
        answer = output_text(output, strategy=self.name, sample=sample)
        ideals = expected_texts(sample, strategy=self.name)
        if self.scored is not None:
            score = max(self.scored(answer, ideal) for ideal in ideals)
            verdict = f"{self.eval_class}: {score:.4f} against threshold {self.threshold}"
            if score >= self.threshold:
                return EvaluationResult.passing(score, verdict)
            return EvaluationResult.failing(score, verdict)
        try:
            if self.eval_class == "JsonMatch":  # OpenAI Evals parses every ideal answer first
                for ideal in ideals:
                    json.loads(ideal)
            matched = any(self.compare(answer, ideal, self.ignore_case) for ideal in ideals)
        except ValueError as exc:  # JsonMatch: an ideal answer that is not JSON
            return EvaluationResult.from_error(
                "strategy",
                exc,
                explanation=f"{self.eval_class}: sample '{sample.name}' has an ideal answer "
                f"that is not JSON ({exc}); fix the sample",
            )
        metadata = (
            {"f1_score": openai_f1_score(answer, list(ideals))}
            if self.eval_class == "FuzzyMatch"
            else None
        )
        if matched:
            return EvaluationResult.passing(1.0, f"{self.eval_class}: matches", metadata)
        return EvaluationResult.failing(
            0.0, f"{self.eval_class}: no ideal answer matches", metadata
        )
