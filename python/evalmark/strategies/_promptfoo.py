"""promptfoo's assertions, re-scored offline with promptfoo's own semantics.

An imported promptfoo test keeps its assertions verbatim in the sample's metadata
(``promptfoo-assert``: a list of ``{type, value, weight, threshold}``, and
``promptfoo-threshold``: the test's threshold). :class:`PromptfooAsserts` reads them back and
decides the test the way promptfoo does: each assertion scores 0 or 1 (``not-`` inverts it);
the test's score is the weighted mean; the test passes when every assertion passes, or, when
the test sets a threshold, when the score reaches it.

Where promptfoo's meaning differs from evalmark's metric of the same name, this check follows
promptfoo: ``levenshtein``'s threshold is a maximum edit distance (default 5), not a
similarity; ``equals`` and ``contains`` compare the raw text, without evalmark's normalization.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text

__all__ = ["PROMPTFOO_ASSERT_TYPES", "PromptfooAsserts", "promptfoo_assert_passes"]

_LEVENSHTEIN_DEFAULT = 5.0


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

    limit = _LEVENSHTEIN_DEFAULT if threshold is None else threshold
    return levenshtein_distance(output, _text(value)) <= limit


_CHECKS: dict[str, Callable[[str, Any, float | None], bool]] = {
    "equals": _equals,
    "contains": _contains,
    "icontains": _icontains,
    "regex": _regex,
    "is-json": _is_json,
    "contains-json": _contains_json,
    "levenshtein": _levenshtein,
}

PROMPTFOO_ASSERT_TYPES: frozenset[str] = frozenset(_CHECKS) | {f"not-{t}" for t in _CHECKS}
"""The promptfoo assertion types this check re-scores (each also with ``not-``)."""


def promptfoo_assert_passes(kind: str, output: str, value: Any, threshold: float | None) -> bool:
    """Whether one promptfoo assertion of type ``kind`` passes on ``output``."""
    negate = kind.startswith("not-")
    check = _CHECKS.get(kind[4:] if negate else kind)
    if check is None:
        raise StrategyError(f"promptfoo assertion type {kind!r} is not re-scored offline")
    return check(output, value, threshold) != negate


class PromptfooAsserts:
    """The check of an imported promptfoo test: its assertions (sample metadata
    ``promptfoo-assert``) decided with promptfoo's semantics; the score is their weighted mean."""

    def __init__(self, *, name: str | None = None) -> None:
        self.name = name or "promptfoo-asserts"

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
        for item in asserts:
            if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
                raise StrategyError(f"{self.name}: sample '{sample.name}': bad assertion {item!r}")
            weight = float(item.get("weight", 1.0))
            threshold = item.get("threshold")
            ok = promptfoo_assert_passes(
                item["type"], actual, item.get("value"), None if threshold is None else threshold
            )
            total += weight
            weighted += weight if ok else 0.0
            if not ok:
                failed.append(item["type"])
        score = weighted / total if total else 1.0
        test_threshold = sample.metadata.get("promptfoo-threshold")
        passed = not failed if test_threshold is None else score >= float(test_threshold)
        explanation = f"{len(asserts) - len(failed)} of {len(asserts)} assertions pass" + (
            f"; failed: {', '.join(failed)}" if failed else ""
        )
        metadata = {"failed": failed}
        if passed:
            return EvaluationResult.passing(score, explanation, metadata)
        return EvaluationResult.failing(score, explanation, metadata)
