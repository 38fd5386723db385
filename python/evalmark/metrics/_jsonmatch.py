"""JSON match by meaning, and the canonical text of a JSON document."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from evalmark.metrics._args import Numbers, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core


def json_match(
    expected: str,
    actual: str,
    *,
    numbers: Numbers = "value",
    max_chars: int | None = None,
) -> bool:
    """Whether two JSON documents are equal by meaning (key order and spacing ignored)."""
    return _core.json_match(expected, actual, numbers, max_chars)


def json_match_batch(
    expected: Texts,
    actual: Texts,
    *,
    numbers: Numbers = "value",
    workers: int | None = None,
    max_chars: int | None = None,
) -> npt.NDArray[np.bool_]:
    """JSON match for each pair of a batch."""
    return _core.json_match_batch(
        texts_arg(expected), texts_arg(actual), numbers, resolve_workers(workers), max_chars
    )


def canonical_json(text: str, *, numbers: Numbers = "value") -> str:
    """The canonical text of a JSON document: equal texts exactly when the documents match."""
    return _core.canonical_json(text, numbers)
