"""Retrieval measures equal to trec_eval (as ``pytrec_eval.RelevanceEvaluator`` runs it).

A query's run ``{doc: score}`` is ranked by score descending, ties broken by document id
descending (trec_eval's order). A document is relevant when its judgment in the qrels
``{doc: relevance}`` is at least ``relevance_level``; unjudged documents are not relevant.
nDCG's gain is the judgment (0 for judgments at or below 0), discounted by log2(rank + 1),
over the ideal ranking of the judged documents. Measures with a cutoff divide as trec_eval
does: ``P_k`` by k even when the run is shorter, ``recall_k`` and ``map_cut_k`` by the number of
relevant documents. A query without relevant documents scores 0 on every measure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from evalmark.errors import MetricInputError
from evalmark.metrics._args import FloatArray, resolve_workers
from evalmark.metrics._native import core as _core

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]

DEFAULT_MEASURES = ("ndcg_cut_10", "map", "recip_rank", "P_5", "recall_10")

# trec_eval's default cutoffs for a measure named without one (``P`` means ``P_5`` ... ``P_1000``).
_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
_PLAIN = frozenset({"Rprec", "recip_rank", "map", "ndcg"})
_NAME = re.compile(r"(?P<kind>[A-Za-z_]+?)(?:[_.](?P<cuts>\d+(?:,\d+)*))?")


def _parse(metrics: Iterable[str]) -> tuple[list[str], list[str], list[int]]:
    """Each measure's result key, trec_eval kind and cutoff (0 for none), in the given order."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    keys: list[str] = []
    kinds: list[str] = []
    cuts: list[int] = []
    for name in metrics:
        found = _NAME.fullmatch(name) if isinstance(name, str) else None
        kind = found["kind"] if found else ""
        if found and kind in _PLAIN and found["cuts"] is None:
            pairs = [(kind, kind, 0)]
        elif found and kind in _CUTOFFS:
            given = found["cuts"]
            ks = [int(k) for k in given.split(",")] if given else list(_CUTOFFS[kind])
            pairs = [(f"{kind}_{k}", kind, k) for k in ks]
        else:
            known = ", ".join(sorted(_PLAIN | {f"{k}_<k>" for k in _CUTOFFS}))
            raise MetricInputError(f"unknown retrieval measure {name!r}; known: {known}")
        for key, kind_, k in pairs:
            if kind_ in _CUTOFFS and k < 1:
                raise MetricInputError(f"retrieval measure {name!r} needs a cutoff of 1 or more")
            if key not in keys:
                keys.append(key)
                kinds.append(kind_)
                cuts.append(k)
    if not keys:
        raise MetricInputError("metrics names no retrieval measure")
    return keys, kinds, cuts


def _matrix(
    qrels: Sequence[Mapping[str, int]],
    runs: Sequence[Mapping[str, float]],
    kinds: list[str],
    cuts: list[int],
    relevance_level: int,
    workers: int | None,
) -> FloatArray:
    # The kernel reads each query's dict itself. trec_eval ranks by single-precision scores
    # (1.0 and 1.0 + 1e-9 tie, as 0 and 1e-300 do), so the kernel rounds scores to float32.
    return _core.retrieval_measures_of(
        [_dict(row, i, "qrels") for i, row in enumerate(qrels)],
        [_dict(row, i, "run") for i, row in enumerate(runs)],
        kinds,
        cuts,
        relevance_level,
        resolve_workers(workers),
    )


def _dict(row: object, i: int, what: str) -> object:
    if type(row) is dict or not isinstance(row, Mapping):
        return row  # a mapping of another type is copied; anything else is refused by the kernel
    return dict(row)


def retrieval_metrics(
    qrels: Qrels,
    run: Run,
    metrics: Iterable[str] = DEFAULT_MEASURES,
    *,
    relevance_level: int = 1,
    workers: int | None = None,
) -> dict[str, dict[str, float]]:
    """trec_eval's measures of ``run`` against ``qrels``: the dict
    ``pytrec_eval.RelevanceEvaluator(qrels, metrics, relevance_level).evaluate(run)`` returns.

    ``qrels`` is ``{query: {doc: relevance}}``, ``run`` is ``{query: {doc: score}}``; the
    result is ``{query: {measure: value}}`` for the queries of ``run`` that ``qrels`` judges
    (other queries are skipped, as trec_eval does). Measures: ``P_k``, ``recall_k``, ``Rprec``,
    ``recip_rank``, ``map``, ``map_cut_k``, ``ndcg``, ``ndcg_cut_k``, ``success_k``; ``P`` alone
    means trec_eval's cutoffs (``P_5`` ... ``P_1000``), and ``P.5`` is ``P_5``.
    """
    keys, kinds, cuts = _parse(metrics)
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping):
        raise TypeError("qrels and run must be mappings of query id to {doc: value}")
    queries = [q for q in run if qrels.get(q)]
    values = _matrix(
        [qrels[q] for q in queries],
        [run[q] for q in queries],
        kinds,
        cuts,
        relevance_level,
        workers,
    )
    return {
        q: dict(zip(keys, row, strict=True))
        for q, row in zip(queries, values.tolist(), strict=True)
    }


def retrieval_metrics_batch(
    qrels: Sequence[Mapping[str, int]],
    runs: Sequence[Mapping[str, float] | Sequence[str]],
    metrics: Iterable[str] = DEFAULT_MEASURES,
    *,
    relevance_level: int = 1,
    workers: int | None = None,
) -> dict[str, FloatArray]:
    """The measures of each query of a batch: row i scores ``runs[i]`` against ``qrels[i]``.

    A run is ``{doc: score}`` or a ranked list of document ids (first is best). Returns
    ``{measure: array}`` with one value per row; a row whose qrels judge nothing relevant scores
    0, as trec_eval scores a judged query without relevant documents.
    """
    keys, kinds, cuts = _parse(metrics)
    if len(qrels) != len(runs):
        raise MetricInputError(
            f"expected batches of equal length, got {len(qrels)} qrels and {len(runs)} runs"
        )
    ranked = [run if isinstance(run, Mapping) else _ranked(run, i) for i, run in enumerate(runs)]
    values = _matrix(qrels, ranked, kinds, cuts, relevance_level, workers)
    return {key: np.ascontiguousarray(values[:, j]) for j, key in enumerate(keys)}


def _ranked(docs: Sequence[str], row: int) -> dict[str, float]:
    if isinstance(docs, str):
        raise TypeError(f"run {row} must be a list of document ids, got a single str")
    scores = {doc: float(len(docs) - i) for i, doc in enumerate(docs)}
    if len(scores) != len(docs):
        raise MetricInputError(f"run {row} lists a document id twice")
    return scores
