"""The (expected, actual) text pairs of a batch of samples, shared by the metric strategies."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import StrategyError
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = ["TextPairs"]

FloatArray = npt.NDArray[np.float64]


class TextPairs:
    """The (expected, actual) text pairs of a batch, flattened over alternative expected outputs.

    ``owners[k]`` is the row of pair k; ``starts`` the first pair of each row that has pairs;
    ``bad`` maps a row whose texts could not be read to its error. Built once per batch and
    shared by every metric strategy of a scorer run (see :meth:`of`).
    """

    __slots__ = (
        "actual",
        "bad",
        "expected",
        "owners",
        "rows",
        "samples",
        "single",
    )

    _cache_lock = threading.Lock()
    _cache: tuple[object, object, str, TextPairs] | None = None

    def __init__(self, samples: Sequence[Sample], outputs: Sequence[Any], strategy: str) -> None:
        if len(samples) != len(outputs):
            raise ValueError(
                f"{strategy}: got {len(samples)} samples and {len(outputs)} outputs; "
                "pass one output per sample"
            )
        self.rows = len(samples)
        self.samples = samples
        self.bad: dict[int, StrategyError] = {}
        wanted = [sample.expected_output for sample in samples]
        if None not in wanted and set(map(type, outputs)) <= {str}:
            # The common case: one expected text per sample, text outputs.
            self.expected: list[str] = wanted  # type: ignore[assignment]
            self.actual: list[str] = list(outputs)
            self.owners = np.arange(self.rows, dtype=np.int64)
            self.single = True
            return
        expected: list[str] = []
        actual: list[str] = []
        owners: list[int] = []
        single = True
        for i, (sample, output) in enumerate(zip(samples, outputs, strict=True)):
            try:
                text = (
                    output
                    if type(output) is str
                    else output_text(output, strategy=strategy, sample=sample)
                )
                choices = expected_texts(sample, strategy=strategy, output=output)
            except StrategyError as exc:
                self.bad[i] = exc
                single = False
                continue
            if len(choices) == 1:
                expected.append(choices[0])
                actual.append(text)
                owners.append(i)
            else:
                single = False
                expected.extend(choices)
                actual.extend([text] * len(choices))
                owners.extend([i] * len(choices))
        self.expected = expected
        self.actual = actual
        self.owners = np.asarray(owners, dtype=np.int64)
        # single: exactly one pair per row, in row order, so pair scores are row scores.
        self.single = single

    @classmethod
    def of(cls, samples: Sequence[Sample], outputs: Sequence[Any], strategy: str) -> TextPairs:
        """The pairs of this batch, reused when the same sequences are passed again."""
        with cls._cache_lock:
            cached = cls._cache
            # Errors name the strategy: reuse only when there are none or it is the same.
            if (
                cached is not None
                and cached[0] is samples
                and cached[1] is outputs
                and (not cached[3].bad or cached[2] == strategy)
            ):
                return cached[3]
        pairs = cls(samples, outputs, strategy)
        with cls._cache_lock:
            cls._cache = (samples, outputs, strategy, pairs)
        return pairs

    @classmethod
    def clear_cache(cls) -> None:
        """Forget the cached batch (the scorer calls this at the end of a run)."""
        with cls._cache_lock:
            cls._cache = None

    def grouped(self) -> tuple[npt.NDArray[np.int64], list[list[str]], list[str]]:
        """The rows that have pairs, each row's expected texts together, and its output."""
        rows, starts = np.unique(self.owners, return_index=True)
        ends = [*starts[1:].tolist(), len(self.expected)] if len(starts) else []
        expected = [self.expected[i:j] for i, j in zip(starts.tolist(), ends, strict=True)]
        return rows.astype(np.int64), expected, [self.actual[i] for i in starts.tolist()]

    def row_scores(self, pair_scores: FloatArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """(best score of each row, whether the row has a score)."""
        if self.single:
            return pair_scores, np.ones(self.rows, dtype=np.bool_)
        scores = np.zeros(self.rows, dtype=np.float64)
        present = np.zeros(self.rows, dtype=np.bool_)
        if pair_scores.size:
            np.maximum.at(scores, self.owners, pair_scores)
            present[self.owners] = True
        return scores, present
