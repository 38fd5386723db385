"""The batch path shared by the text strategies (``ExactMatch``, ``Contains``,
``ContainsFacts``): read every row's texts once, compare them normalized in one native call,
and return the rows ``evaluate`` returns, errors included."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text
from evalmark.strategies._normalize import normalized_hits
from evalmark.strategies._text_pairs import TextPairs

__all__ = [
    "BatchText",
    "column_of",
    "excerpt",
    "output_texts",
    "pair_verdicts",
    "row_by_row",
]

Verdicts = npt.NDArray[np.bool_]


def excerpt(text: str, limit: int = 80) -> str:
    """``text`` quoted, cut to ``limit`` characters with an ellipsis."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class BatchText:
    """``evaluate_batch`` over a subclass's ``_bulk``; the engine takes it only while the class
    that defines ``_bulk`` also defines the ``evaluate`` in use (``batch``), and rows that the
    bulk path cannot handle as a whole go row by row."""

    # evaluate_batch is CPU work on its own inputs: the engine may run it on a worker thread
    # beside the run's other such checks
    _threaded_batch: ClassVar[bool] = True

    @property
    def batch(self) -> bool:
        """Whether the batch path gives what ``evaluate`` gives (not when it is replaced)."""
        owner = next(c for c in type(self).__mro__ if "_bulk" in c.__dict__)
        return getattr(type(self), "evaluate", None) is owner.__dict__.get("evaluate")

    def evaluate_batch(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        """``evaluate`` on every row, the texts of all rows normalized together."""
        if len(samples) != len(outputs):
            raise ValueError(
                f"{getattr(self, 'name', type(self).__name__)}: got {len(samples)} samples and "
                f"{len(outputs)} outputs; pass one output per sample"
            )
        if self.batch:
            try:
                return self._bulk(samples, outputs)
            except Exception:  # a value only evaluate can judge (e.g. a fact that is no text)
                pass
        return row_by_row(self, samples, outputs)

    def _bulk(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        raise NotImplementedError


def row_by_row(strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
    """Every row through ``strategy.evaluate``, an exception becoming the row's error."""
    results = []
    for sample, output in zip(samples, outputs, strict=True):
        try:
            results.append(strategy.evaluate(sample, output))
        except Exception as exc:
            results.append(EvaluationResult.from_error("strategy", exc))
    return ResultColumn.from_results(results)


Rows = tuple[Verdicts, TextPairs, dict[int, EvaluationResult]]


def pair_verdicts(
    strategy: Any,
    samples: Sequence[Sample],
    outputs: Sequence[Any],
    options: tuple[bool, bool],
    contains: bool,
) -> Rows:
    """For each row, whether its normalized output equals (with ``contains``: contains) one of
    its wanted texts normalized (its expected outputs, read as ``evaluate`` reads them, through
    the run's shared :class:`TextPairs`; ``options`` are the normalizer's case and
    punctuation); those pairs (a row's output and wanted texts, for its explanation); and the
    error results of the rows that could not be read."""
    pairs = TextPairs.of(samples, outputs, strategy.name)
    bad = {row: EvaluationResult.from_error("strategy", exc) for row, exc in pairs.bad.items()}
    case, punctuation = options
    hits = normalized_hits(
        pairs.actual, pairs.expected, case=case, punctuation=punctuation, contains=contains
    )
    if pairs.single:
        passed = hits
    else:
        passed = np.zeros(pairs.rows, dtype=np.bool_)
        np.logical_or.at(passed, pairs.owners, hits)
    return passed, pairs, bad


def output_texts(
    strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
) -> tuple[list[str], dict[int, EvaluationResult]]:
    """Each row's output text, read as ``evaluate`` reads it ("" for a row that cannot be read),
    and the error results of those rows."""
    if set(map(type, outputs)) <= {str}:
        return list(outputs), {}
    texts: list[str] = []
    bad: dict[int, EvaluationResult] = {}
    for row, (sample, output) in enumerate(zip(samples, outputs, strict=True)):
        try:
            texts.append(output_text(output, strategy=strategy.name, sample=sample))
        except StrategyError as exc:
            bad[row] = EvaluationResult.from_error("strategy", exc)
            texts.append("")
    return texts, bad


def column_of(
    passed: Verdicts, explain: Callable[[int, float, bool], str], bad: dict[int, EvaluationResult]
) -> ResultColumn:
    """Score 1 for a passing row and 0 for a failing one, explained by ``explain`` (a column's
    explainer: no text for a passing row); ``bad`` rows are their error results."""
    if bad:
        passed[list(bad)] = False
    return ResultColumn(passed.astype(np.float64), passed, explain, bad)
