"""The batch path shared by the text strategies (``ExactMatch``, ``Contains``,
``ContainsFacts``): read every row's texts once, normalize them together, compare in one loop,
and return the rows ``evaluate`` returns, errors included."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = ["BatchText", "column_of", "excerpt", "matches", "read_rows", "row_by_row"]

Verdicts = npt.NDArray[np.bool_]


def excerpt(text: str, limit: int = 80) -> str:
    """``text`` quoted, cut to ``limit`` characters with an ellipsis."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class BatchText:
    """``evaluate_batch`` over a subclass's ``_bulk``; the engine takes it only while the class
    that defines ``_bulk`` also defines the ``evaluate`` in use (``batch``), and rows that the
    bulk path cannot handle as a whole go row by row."""

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


def read_rows(
    strategy: Any,
    samples: Sequence[Sample],
    outputs: Sequence[Any],
    fixed: tuple[str, ...] | None = None,
) -> tuple[list[str], list[tuple[str, ...]], dict[int, EvaluationResult]]:
    """Each row's output text and wanted texts (``fixed``, else its expected outputs), read as
    ``evaluate`` reads them (output first); a row that cannot be read gets its error result."""
    actual: list[str] = []
    wanted: list[tuple[str, ...]] = []
    bad: dict[int, EvaluationResult] = {}
    name = strategy.name
    for row, (sample, output) in enumerate(zip(samples, outputs, strict=True)):
        try:
            text = (
                output if type(output) is str else output_text(output, strategy=name, sample=sample)
            )
            choices = (
                fixed if fixed is not None else expected_texts(sample, strategy=name, output=output)
            )
        except StrategyError as exc:
            bad[row] = EvaluationResult.from_error("strategy", exc)
            text, choices = "", ()
        actual.append(text)
        wanted.append(choices)
    return actual, wanted, bad


def matches(
    got: list[str],
    wanted: list[tuple[str, ...]],
    normalize: Callable[[list[str]], list[str]],
    test: Callable[[str, str], bool],
) -> Verdicts:
    """Whether ``test(normalized wanted text, got[row])`` holds for any wanted text of a row
    (a row without wanted texts: False)."""
    if all(len(choices) == 1 for choices in wanted):
        flat = normalize([choices[0] for choices in wanted])
        return np.fromiter(map(test, flat, got), dtype=np.bool_, count=len(got))
    flat = normalize([text for choices in wanted for text in choices])
    passed = np.zeros(len(got), dtype=np.bool_)
    start = 0
    for row, choices in enumerate(wanted):
        end = start + len(choices)
        passed[row] = any(test(text, got[row]) for text in flat[start:end])
        start = end
    return passed


def column_of(
    passed: Verdicts, explain: Callable[[int], str], bad: dict[int, EvaluationResult]
) -> ResultColumn:
    """Score 1 and no explanation for a passing row, score 0 and ``explain(row)`` for a failing
    one; ``bad`` rows are their error results."""
    if bad:
        passed[list(bad)] = False

    def explanation(row: int, score: float, ok: bool) -> str:
        return "" if ok else explain(row)

    return ResultColumn(passed.astype(np.float64), passed, explanation, bad)
