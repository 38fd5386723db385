"""Metric strategies over the batch kernels of :mod:`evalmark.metrics`.

Each has a batch path: ``evaluate_batch`` makes one kernel call over every output and returns
a :class:`~evalmark.results._results.ResultColumn` whose explanations are written only when read.
A sample
with several ``expected_outputs`` is scored as the metric function scores a list of targets
when it takes one (multi-reference BLEU, rouge-score's ``score_multi``, the SQuAD max over
gold answers), else it scores the best of them. ``evaluate`` is the batch path on one row, so
both give identical numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

from evalmark import metrics
from evalmark._tracing._direct import recorded
from evalmark.errors import MetricInputError, StrategyError
from evalmark.metrics._args import Numbers
from evalmark.metrics._table import FUNCTIONS, MetricFunction
from evalmark.models import embedding_model
from evalmark.models._protocols import EmbeddingModel, as_embedding_rows, model_id_of
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._explanation import ThresholdExplanation
from evalmark.strategies._text_pairs import TextPairs

__all__ = [
    "JsonMatch",
    "LevenshteinSimilarity",
    "MetricStrategy",
    "RougeL",
    "SemanticSimilarity",
    "SquadExactMatch",
    "TextPairs",
    "TokenF1",
]

FloatArray = npt.NDArray[np.float64]


def _check_threshold(threshold: float, name: str) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise TypeError(f"{name}: threshold must be a number in [0, 1], got {threshold!r}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"{name}: threshold must be in [0, 1], got {threshold}")
    return float(threshold)


class MetricStrategy:
    """A strategy that passes when a metric score reaches ``threshold``.

    A subclass names its metric function of the table (``function``, from
    :data:`~evalmark.metrics._table.FUNCTIONS`) and a ``label`` for explanations; it then takes that
    function's options as keywords, with the table's defaults (``RougeN(n=2,
    stemmer="porter")`` scores as ``rouge_n_batch(..., n=2, stemmer="porter")``). A subclass
    with a metric of its own (``function`` None) implements :meth:`_kernel`.
    """

    label: ClassVar[str] = "score"
    # evaluate_batch is CPU work on its own inputs, mostly in a kernel that releases the GIL:
    # the engine may run it on a worker thread beside the run's other such checks
    _threaded_batch: ClassVar[bool] = True
    default_threshold: ClassVar[float] = 0.5
    function: ClassVar[MetricFunction | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        function = cls.__dict__.get("function")
        if function is not None and function.options:
            shown = ", ".join(f"{o.name}={o.default!r}" for o in function.options)
            cls.__doc__ = (
                f"{cls.__doc__ or ''}\n\n    Options of ``{function.name}`` (as "
                f":data:`~evalmark.metrics._table.FUNCTIONS` declares them, with their defaults): "
                f"{shown}."
            )

    def __init__(
        self,
        threshold: float | None = None,
        *,
        name: str | None = None,
        workers: int | None = None,
        **options: Any,
    ) -> None:
        self.name = name or type(self).__name__
        self.threshold = _check_threshold(
            self.default_threshold if threshold is None else threshold, self.name
        )
        self.workers = workers
        function = type(self).function
        if function is None:
            if options:
                raise TypeError(f"{self.name}: unexpected options {', '.join(options)}")
            self.options: dict[str, object] = {}
        else:
            self.options = {**function.defaults, **function.check(options, self.name)}
        for option, value in self.options.items():
            setattr(self, option, value)  # readable as attributes too: RougeN(n=2).n

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        function = type(self).function
        if function is None:
            raise NotImplementedError
        scores = function.batch(expected, actual, workers=self.workers, **self.options)
        return np.asarray(scores, dtype=np.float64)

    def _explain(self, index: int, score: float, passed: bool) -> str:
        relation = ">=" if passed else "<"
        return f"{self.label} {score:.3f} {relation} threshold {self.threshold:g}"

    def _pair_scores(self, pairs: TextPairs) -> FloatArray:
        return self._kernel(pairs.expected, pairs.actual)

    def evaluate_batch(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        """Score every output with one kernel call."""
        pairs = TextPairs.of(samples, outputs, self.name)
        overrides: dict[int, EvaluationResult] = {
            i: EvaluationResult.from_error("strategy", exc) for i, exc in pairs.bad.items()
        }
        function = type(self).function
        if not pairs.single and function is not None and function.targets == "many":
            # The function scores a row's targets together (multi-reference BLEU, ...).
            rows, expected, actual = pairs.grouped()
            scores = np.zeros(pairs.rows, dtype=np.float64)
            present = np.zeros(pairs.rows, dtype=np.bool_)
            if len(rows):
                grouped = function.batch(expected, actual, workers=self.workers, **self.options)
                scores[rows] = np.clip(np.asarray(grouped, dtype=np.float64), 0.0, 1.0)
                present[rows] = True
        else:
            pair_scores = np.asarray(self._pair_scores_checked(pairs, overrides), dtype=np.float64)
            scores, present = pairs.row_scores(np.clip(pair_scores, 0.0, 1.0))
        passed = present & (scores >= self.threshold)
        return ResultColumn(scores, passed, self._explainer(pairs), overrides)

    def _explainer(self, pairs: TextPairs) -> Callable[[int, float, bool], str]:
        if type(self)._explain is not MetricStrategy._explain:
            return self._explain
        return ThresholdExplanation(self.label, self.threshold)

    def _pair_scores_checked(
        self, pairs: TextPairs, overrides: dict[int, EvaluationResult]
    ) -> FloatArray:
        return self._pair_scores(pairs)

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Score one output (the batch path on one row)."""
        return self.evaluate_batch([sample], [output])[0]

    def _changed_options(self) -> str:
        function = type(self).function
        defaults = function.defaults if function is not None else {}
        return "".join(f", {k}={v!r}" for k, v in self.options.items() if defaults.get(k) != v)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(threshold={self.threshold:g}{self._changed_options()}, "
            f"name={self.name!r})"
        )


class TokenF1(MetricStrategy):
    """SQuAD token F1 of the output against the expected output; passes at ``threshold``."""

    label = "token F1"
    function = FUNCTIONS["token_f1"]


class SquadExactMatch(MetricStrategy):
    """Passes when the output is an expected answer after SQuAD's ``normalize_answer`` (the
    v2.0 script's ``compute_exact``; with several expected outputs, when it matches one)."""

    label = "exact match"
    default_threshold = 1.0
    function = FUNCTIONS["squad_exact_match"]


class RougeL(MetricStrategy):
    """ROUGE-L (as rouge-score) of the output; passes at ``threshold``."""

    label = "ROUGE-L"
    function = FUNCTIONS["rouge_l"]


class LevenshteinSimilarity(MetricStrategy):
    """Levenshtein similarity (1 − distance / longer length); passes at ``threshold``."""

    label = "Levenshtein similarity"
    default_threshold = 0.8
    function = FUNCTIONS["levenshtein_similarity"]


_BAD_ROW = re.compile(r"^row (\d+) of expected")
_WHERE = re.compile(r"\((line \d+, column \d+: .*)\)")


class JsonMatch(MetricStrategy):
    """Passes when the output is the expected JSON document by meaning (key order and spacing
    ignored; ``numbers="value"``: 1 == 1.0, ``"strict"``: 1 != 1.0). An expected document that
    is not JSON makes that row an error naming the sample."""

    label = "JSON match"
    default_threshold = 1.0
    function = FUNCTIONS["json_match"]

    def __init__(
        self,
        *,
        numbers: Numbers = "value",
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        super().__init__(1.0, name=name, workers=workers, numbers=numbers)
        self.numbers: Numbers = numbers

    def _pair_scores_checked(
        self, pairs: TextPairs, overrides: dict[int, EvaluationResult]
    ) -> FloatArray:
        expected = pairs.expected
        keep = np.arange(len(expected))
        while True:
            try:
                scores = self._kernel(
                    [expected[k] for k in keep] if len(keep) < len(expected) else expected,
                    [pairs.actual[k] for k in keep] if len(keep) < len(expected) else pairs.actual,
                )
                break
            except MetricInputError as exc:
                found = _BAD_ROW.match(str(exc))
                if found is None:
                    raise
                bad = int(keep[int(found.group(1))])
                row = int(pairs.owners[bad])
                where = _WHERE.search(str(exc))
                overrides[row] = EvaluationResult.from_error(
                    "strategy",
                    StrategyError(
                        f"{self.name}: sample '{pairs.samples[row].name}': the expected "
                        f"output is not valid JSON ({where.group(1) if where else exc}); "
                        "fix its expected-output"
                    ),
                )
                keep = keep[keep != bad]
        out = np.zeros(len(expected), dtype=np.float64)
        out[keep] = scores
        return out

    def _explainer(self, pairs: TextPairs) -> Callable[[int, float, bool], str]:
        def explain(index: int, score: float, passed: bool) -> str:
            if passed:
                return "the JSON documents match"
            if not pairs.single:
                return "the output is not the expected JSON document"
            try:
                got = metrics.canonical_json(pairs.actual[index], numbers=self.numbers)
            except MetricInputError as exc:
                return f"the output is not valid JSON: {exc}"
            wanted = metrics.canonical_json(pairs.expected[index], numbers=self.numbers)
            return f"the JSON documents differ: expected {_cut(wanted)}, got {_cut(got)}"

        return explain

    def __repr__(self) -> str:
        return f"JsonMatch(numbers={self.numbers!r}, name={self.name!r})"


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SemanticSimilarity(MetricStrategy):
    """Cosine similarity (or, with ``similarity="dot"``, the dot product) of the embeddings of
    the output and the expected output; passes at ``threshold``. The dot product suits models
    whose vectors are already unit length (then it equals the cosine); scores are clipped to
    [0, 1]. ``model`` is any embedding model or a name: the default, ``"hash"``
    (:class:`~evalmark.models.HashEmbedding`), is lexical and offline (it does not understand
    synonyms); ``"wordllama:l2_supercat_256"`` is a trained model, also offline
    (``evalmark[embeddings]``)."""

    label = "cosine similarity"
    default_threshold = 0.7
    _threaded_batch = False  # an embedding model does the work: it runs as before
    # Negative cosines count as 0.0: scores live in [0, 1].

    def __init__(
        self,
        threshold: float | None = None,
        *,
        model: EmbeddingModel | str | None = None,
        similarity: Literal["cosine", "dot"] = "cosine",
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"similarity must be 'cosine' or 'dot', got {similarity!r}")
        super().__init__(threshold, name=name, workers=workers)
        self.model: EmbeddingModel = embedding_model(model)
        self.similarity = similarity

    def _explain(self, index: int, score: float, passed: bool) -> str:
        text = super()._explain(index, score, passed)
        return text.replace(self.label, "dot product", 1) if self.similarity == "dot" else text

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        if not expected:
            return np.zeros(0, dtype=np.float64)
        texts = expected + actual
        source = f"{self.name}: embedding model {model_id_of(self.model)}"
        rows = as_embedding_rows(self.model.embed(texts), len(texts), source=source)
        if self.similarity == "dot":
            left = np.asarray(rows[: len(expected)], dtype=np.float64)
            right = np.asarray(rows[len(expected) :], dtype=np.float64)
            dots: FloatArray = np.clip(np.einsum("ij,ij->i", left, right), 0.0, 1.0)
            return dots
        return metrics.cosine_batch(
            rows[: len(expected)], rows[len(expected) :], workers=self.workers
        )

    def __repr__(self) -> str:
        return (
            f"SemanticSimilarity(threshold={self.threshold:g}, model={model_id_of(self.model)!r}, "
            f"similarity={self.similarity!r}, name={self.name!r})"
        )
