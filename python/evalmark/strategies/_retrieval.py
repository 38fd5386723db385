"""``RetrievedSegments``: did a retriever return every segment it should have?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample

__all__ = ["RetrievedSegments"]


def _item_text(item: object) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        for key in ("text", "content", "page_content"):
            value = item.get(key)
            if isinstance(value, str):
                return value
        return None
    for attribute in ("text", "content", "page_content"):
        value = getattr(item, attribute, None)
        if isinstance(value, str):
            return value
    return None


def retrieved_items(output: Any, *, strategy: str, sample: Sample) -> list[str]:
    """The texts a retriever returned: a list of str (or of dicts/objects with ``text`` or
    ``content``), or a TestCase's ``retrieval_context``."""
    context = getattr(output, "retrieval_context", None)
    if isinstance(context, tuple):
        return list(context)
    if isinstance(output, str) or not isinstance(output, Sequence):
        raise StrategyError(
            f"{strategy}: sample '{sample.name}': expected the retrieved items as a list (or a "
            f"TestCase with retrieval-context), got {type(output).__name__}"
        )
    texts: list[str] = []
    for position, item in enumerate(output):
        text = _item_text(item)
        if text is None:
            raise StrategyError(
                f"{strategy}: sample '{sample.name}': retrieved item {position} is a "
                f"{type(item).__name__} without text; return strings or items with 'text'"
            )
        texts.append(text)
    return texts


class RetrievedSegments:
    """Every expected segment (``sample.expected_outputs``, or its ``expected_output``) must be
    contained, case-insensitively, in some retrieved item. Score = found / expected; passes
    when the score reaches ``threshold`` (default 1.0: all found). The explanation names the
    segments not found."""

    def __init__(self, threshold: float = 1.0, *, name: str | None = None) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"RetrievedSegments: threshold must be in [0, 1], got {threshold}")
        self.threshold = float(threshold)
        self.name = name or "RetrievedSegments"

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Look for each expected segment in the retrieved items."""
        wanted = sample.expected_outputs or (
            (sample.expected_output,) if sample.expected_output else ()
        )
        if not wanted:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' lists no expected segments; give "
                "expected-outputs: [segment, ...]"
            )
        items = [
            text.casefold() for text in retrieved_items(output, strategy=self.name, sample=sample)
        ]
        missing = [seg for seg in wanted if not any(seg.casefold() in item for item in items)]
        found = len(wanted) - len(missing)
        score = found / len(wanted)
        metadata: dict[str, Any] = {
            "found": found,
            "expected": len(wanted),
            "retrieved": len(items),
        }
        passed = score >= self.threshold
        if not missing:
            text = f"all {len(wanted)} expected segments retrieved"
        else:
            shown = "; ".join(repr(seg[:60]) for seg in missing[:10])
            text = f"{found} of {len(wanted)} expected segments retrieved; missing: {shown}"
            metadata["missing"] = missing
        return EvaluationResult(passed, score, text, metadata)
