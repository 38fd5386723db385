"""The arguments every metric shares: option names, ``workers`` and text batches."""

from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._native import core as _core
from evalmark.metrics.column import TextColumn, Texts

Normalizer = Literal["squad", "none"]
Tokenizer = Literal["rouge", "unicode"]
Measure = Literal["fmeasure", "precision", "recall"]
Numbers = Literal["value", "strict"]
Stemmer = Literal["porter"]
BleuTokenizer = Literal["13a", "intl", "none"]
Smooth = Literal["exp", "floor", "add-k", "none"]
FloatArray = npt.NDArray[np.float64]

MAX_WORKERS: int = _core.MAX_WORKERS
"""The most kernel threads a call may ask for."""


def resolve_workers(workers: int | None) -> int:
    """The thread count to use: ``workers`` if given, else ``EVALMARK_WORKERS``, else -1."""
    source = "workers"
    if workers is None:
        env = os.environ.get("EVALMARK_WORKERS", "").strip()
        if not env:
            return -1
        source = "EVALMARK_WORKERS"
        try:
            workers = int(env)
        except ValueError:
            raise MetricInputError(
                f"EVALMARK_WORKERS must be an integer (-1 for all cores), got {env!r}"
            ) from None
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int, got {type(workers).__name__}")
    if workers == 0 or workers < -1 or workers > _core.MAX_WORKERS:
        raise MetricInputError(
            f"{source} must be -1 (all cores) or a thread count from 1 to {_core.MAX_WORKERS},"
            f" got {workers}"
        )
    return workers


def texts_arg(batch: Texts) -> Any:
    return batch._parts() if isinstance(batch, TextColumn) else batch


def bool_arg(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value
