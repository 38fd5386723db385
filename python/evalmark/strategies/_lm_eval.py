"""lm-evaluation-harness's ``exact_match`` (the Hugging Face ``evaluate`` metric it copies):
each regex of ``regexes-to-ignore`` removed from both texts, then optionally case and
punctuation dropped, then the texts compared exactly. No whitespace trimming, no other
normalization: not evalmark's ``exact-match``."""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = ["LmEvalExactMatch", "lm_eval_exact_match"]

_PUNCTUATION = str.maketrans("", "", string.punctuation)


def lm_eval_exact_match(
    prediction: str,
    reference: str,
    *,
    ignore_case: bool = False,
    ignore_punctuation: bool = False,
    regexes_to_ignore: Sequence[str] = (),
) -> bool:
    """Whether ``prediction`` equals ``reference`` the way lm-eval's ``exact_match`` decides."""
    for pattern in regexes_to_ignore:
        prediction = re.sub(pattern, "", prediction)
        reference = re.sub(pattern, "", reference)
    if ignore_case:
        prediction, reference = prediction.lower(), reference.lower()
    if ignore_punctuation:
        prediction = prediction.translate(_PUNCTUATION)
        reference = reference.translate(_PUNCTUATION)
    return prediction == reference


class LmEvalExactMatch:
    """lm-eval's ``exact_match`` of the answer against the sample's expected output."""

    def __init__(
        self,
        *,
        ignore_case: bool = False,
        ignore_punctuation: bool = False,
        regexes_to_ignore: Sequence[str] = (),
        name: str | None = None,
    ) -> None:
        self.ignore_case = ignore_case
        self.ignore_punctuation = ignore_punctuation
        self.regexes_to_ignore = tuple(regexes_to_ignore)
        self.name = name or "lm-eval-exact-match"

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """1 when the answer matches the target exactly (after the options), else 0."""
        answer = output_text(output, strategy=self.name, sample=sample)
        (target,) = expected_texts(sample, strategy=self.name)[:1]
        if lm_eval_exact_match(
            answer,
            target,
            ignore_case=self.ignore_case,
            ignore_punctuation=self.ignore_punctuation,
            regexes_to_ignore=self.regexes_to_ignore,
        ):
            return EvaluationResult.passing(1.0)
        return EvaluationResult.failing(0.0, f"{answer[:60]!r} is not {target[:60]!r}")
