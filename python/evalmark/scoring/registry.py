"""The metrics `evalmark score` knows, by the name used on the command line and in output columns.

Each entry says which inputs it reads (two text columns, or two vector columns), the type of
its score column, and how to call the batch kernel of :mod:`evalmark.metrics`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark._files.problems import suggest

if TYPE_CHECKING:
    from evalmark.metrics import Measure, Normalizer, Numbers, Tokenizer

Kernel = Callable[[Any, Any, int | None], npt.NDArray[Any]]
InputKind = Literal["text", "vector"]
ScoreType = Literal["float64", "int64", "bool"]


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One scoring metric: its column name, inputs, score type and batch kernel."""

    name: str
    inputs: InputKind
    dtype: ScoreType
    description: str
    kernel: Kernel
    # The input whose content a kernel rejection is about (json_match only rejects `expected`).
    blame: Literal["expected", "actual", "both"] = "both"
    # Time n·m/64 for texts of n and m characters (LCS and edit distance); else linear.
    quadratic: bool = False

    def compute(self, expected: Any, actual: Any, workers: int | None) -> npt.NDArray[Any]:
        """Score a batch; the result has this metric's dtype and one entry per pair."""
        return np.asarray(self.kernel(expected, actual, workers), dtype=self.dtype)


def _token_f1(normalizer: Normalizer) -> Kernel:
    def run(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
        from evalmark.metrics import token_f1_batch

        return token_f1_batch(e, a, normalizer=normalizer, workers=workers)

    return run


def _rouge_l(tokenizer: Tokenizer, measure: Measure) -> Kernel:
    def run(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
        from evalmark.metrics import rouge_l_batch

        return rouge_l_batch(e, a, tokenizer=tokenizer, measure=measure, workers=workers)

    return run


def _levenshtein_similarity(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
    from evalmark.metrics import levenshtein_similarity_batch

    return levenshtein_similarity_batch(e, a, workers=workers)


def _levenshtein_distance(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
    from evalmark.metrics import levenshtein_distance_batch

    return levenshtein_distance_batch(e, a, workers=workers)


def _json_match(numbers: Numbers) -> Kernel:
    def run(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
        from evalmark.metrics import json_match_batch

        return json_match_batch(e, a, numbers=numbers, workers=workers)

    return run


def _rouge_n(n: int) -> Kernel:
    def run(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
        from evalmark.metrics import rouge_n_batch

        return rouge_n_batch(e, a, n=n, stemmer="porter", workers=workers)

    return run


def _rouge_lsum(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
    from evalmark.metrics import rouge_lsum_batch

    return rouge_lsum_batch(e, a, stemmer="porter", workers=workers)


def _bleu(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
    from evalmark.metrics import bleu_batch

    return bleu_batch(e, a, workers=workers)


def _chrf(word_order: int) -> Kernel:
    def run(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
        from evalmark.metrics import chrf_batch

        return chrf_batch(e, a, word_order=word_order, workers=workers)

    return run


def _cosine(e: Any, a: Any, workers: int | None) -> npt.NDArray[Any]:
    from evalmark.metrics import cosine_batch

    return cosine_batch(e, a, workers=workers)


_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec("token_f1", "text", "float64", "SQuAD token F1", _token_f1("squad")),
    MetricSpec(
        "token_f1_raw", "text", "float64", "token F1, whitespace split only", _token_f1("none")
    ),
    MetricSpec(
        "rouge_l",
        "text",
        "float64",
        "ROUGE-L F-measure",
        _rouge_l("rouge", "fmeasure"),
        quadratic=True,
    ),
    MetricSpec(
        "rouge_l_precision",
        "text",
        "float64",
        "ROUGE-L precision",
        _rouge_l("rouge", "precision"),
        quadratic=True,
    ),
    MetricSpec(
        "rouge_l_recall",
        "text",
        "float64",
        "ROUGE-L recall",
        _rouge_l("rouge", "recall"),
        quadratic=True,
    ),
    MetricSpec(
        "rouge_l_unicode",
        "text",
        "float64",
        "ROUGE-L F-measure over Unicode letters and digits",
        _rouge_l("unicode", "fmeasure"),
        quadratic=True,
    ),
    MetricSpec("rouge1", "text", "float64", "ROUGE-1 F-measure, Porter-stemmed", _rouge_n(1)),
    MetricSpec("rouge2", "text", "float64", "ROUGE-2 F-measure, Porter-stemmed", _rouge_n(2)),
    MetricSpec(
        "rouge_lsum",
        "text",
        "float64",
        "ROUGE-Lsum F-measure, Porter-stemmed",
        _rouge_lsum,
        quadratic=True,
    ),
    MetricSpec("bleu", "text", "float64", "sentence BLEU (sacrebleu's / 100)", _bleu),
    MetricSpec("chrf", "text", "float64", "sentence chrF (sacrebleu's / 100)", _chrf(0)),
    MetricSpec("chrf_pp", "text", "float64", "sentence chrF++ (sacrebleu's / 100)", _chrf(2)),
    MetricSpec(
        "levenshtein",
        "text",
        "float64",
        "Levenshtein similarity",
        _levenshtein_similarity,
        quadratic=True,
    ),
    MetricSpec(
        "levenshtein_distance",
        "text",
        "int64",
        "Levenshtein edit distance",
        _levenshtein_distance,
        quadratic=True,
    ),
    MetricSpec(
        "json_match",
        "text",
        "bool",
        "JSON equality, numbers by value",
        _json_match("value"),
        blame="expected",
    ),
    MetricSpec(
        "json_match_strict",
        "text",
        "bool",
        "JSON equality, 1 != 1.0",
        _json_match("strict"),
        blame="expected",
    ),
    MetricSpec("cosine", "vector", "float64", "cosine similarity of two vectors", _cosine),
)

METRICS: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}


def parse_metrics(text: str | list[str] | tuple[str, ...]) -> tuple[MetricSpec, ...]:
    """Resolve ``"token_f1,rouge_l"`` (or a list of names) to metric specs, in the given order.

    Raises ``ValueError`` naming an unknown or repeated metric and listing the known ones.
    """
    names = text.split(",") if isinstance(text, str) else list(text)
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise ValueError(f"no metric given; choose from: {', '.join(METRICS)}")
    specs: list[MetricSpec] = []
    for name in names:
        if name not in METRICS:
            meant = suggest(name, METRICS)
            hint = f" did you mean {meant!r}?" if meant else ""
            raise ValueError(f"unknown metric {name!r};{hint} choose from: {', '.join(METRICS)}")
        if any(spec.name == name for spec in specs):
            raise ValueError(f"metric {name!r} is given twice")
        specs.append(METRICS[name])
    return tuple(specs)
