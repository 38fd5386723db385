"""The arguments every metric shares: option names, ``workers`` and text batches."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark.metrics._column import TextColumn, Texts
from evalmark.metrics._native import core as _core

Normalizer = Literal["squad", "none"]
SquadVersion = Literal["v2", "v1.1"]
Tokenizer = Literal["rouge", "unicode"]
Measure = Literal["fmeasure", "precision", "recall"]
Numbers = Literal["value", "strict"]
Stemmer = Literal["porter"]
BleuTokenizer = Literal["13a", "intl", "none", "char", "zh"]
Smooth = Literal["exp", "floor", "add-k", "none"]
FloatArray = npt.NDArray[np.float64]

MAX_WORKERS: int = _core.MAX_WORKERS
"""The most kernel threads a call may ask for."""


def resolve_workers(workers: int | None) -> int:
    """The thread count to use: ``workers`` if given, else ``EVALMARK_WORKERS``, else -1.

    The extension checks the value (the one place a thread count is checked): an int that is
    not -1 or 1 to ``MAX_WORKERS`` raises ``MetricInputError``, anything else ``TypeError``.
    """
    return _core.resolve_workers(workers)


def texts_arg(batch: Texts) -> Any:
    return batch._parts() if isinstance(batch, TextColumn) else batch


def bool_arg(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value
