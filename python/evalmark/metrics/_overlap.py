"""Token F1, exact match and the ROUGE family (ROUGE-L, ROUGE-N, ROUGE-Lsum), as SQuAD and
rouge-score.

Each takes one target per row or a list of them: token F1 and exact match keep the best
target, as the SQuAD script does over gold answers (gold answers that normalize to nothing
are left out unless all do); ROUGE follows rouge-score's ``score_multi`` (the target of best
F-measure, and its precision or recall for those measures).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import (
    FloatArray,
    Measure,
    Normalizer,
    SquadVersion,
    Stemmer,
    Tokenizer,
    bool_arg,
    resolve_workers,
    texts_arg,
)
from evalmark.metrics._column import Texts
from evalmark.metrics._multi import Flat, TargetBatch, Targets, one_row, plain_first, score_multi
from evalmark.metrics._native import core as _core
from evalmark.metrics._sentences import split_rows, split_targets
from evalmark.metrics._sentences import split_summaries as _split

BoolArray = npt.NDArray[np.bool_]


def _normalizes_empty(
    texts: list[str], normalizer: Normalizer, workers: int, max_chars: int | None
) -> BoolArray:
    """Whether each text normalizes to nothing (no token left)."""
    return np.asarray(
        _core.squad_exact_match_batch(texts, [""] * len(texts), normalizer, workers, max_chars)
    )


def _squad_best(
    expected: TargetBatch,
    actual: Texts,
    name: str,
    kernel: str,
    normalizer: Normalizer,
    workers: int,
    max_chars: int | None,
    version: SquadVersion = "v2",
) -> FloatArray:
    """The best score of each row over its gold answers. As the SQuAD v2.0 script: with the
    SQuAD normalizer, answers that normalize to nothing count only when all of a row's do. As
    v1.1's: every answer counts, and token F1 is 0 when either side has no token."""
    flat = Flat(expected, actual, name)  # type: ignore[arg-type]
    run = getattr(_core, kernel)
    with flat.rows_named(name):
        scores = np.asarray(
            run(flat.expected, flat.actual, normalizer, workers, max_chars), dtype=np.float64
        )
    if version == "v1.1":
        if kernel == "token_f1_batch" and len(flat.expected):
            both = _normalizes_empty(flat.expected, normalizer, workers, max_chars)
            both &= _normalizes_empty(flat.actual, normalizer, workers, max_chars)
            scores = np.where(both, 0.0, scores)
    elif normalizer == "squad" and len(flat.expected):
        empty = _normalizes_empty(flat.expected, normalizer, workers, max_chars)
        answered = np.zeros(len(flat.starts), dtype=np.bool_)
        np.logical_or.at(answered, flat.owners, ~empty)
        scores = np.where(empty & answered[flat.owners], -1.0, scores)
    return flat.best(scores)


def _version(version: object) -> SquadVersion:
    if version not in ("v2", "v1.1"):
        raise MetricInputError(f'version must be "v2" or "v1.1", got {version!r}')
    return version


def token_f1(
    expected: Targets,
    actual: str,
    *,
    normalizer: Normalizer = "squad",
    version: SquadVersion = "v2",
    max_chars: int | None = None,
) -> float:
    """Token F1 of ``actual`` against ``expected`` (SQuAD's ``compute_f1`` by default); a
    list of gold answers scores the best, as the SQuAD script does. ``version="v1.1"``
    follows the v1.1 script (``f1_score``: 0 when either side has no token; every gold answer
    counts)."""
    if isinstance(expected, str) and _version(version) == "v2":
        return _core.token_f1(expected, actual, normalizer, max_chars)
    return float(
        token_f1_batch(
            one_row(expected),
            [actual],
            normalizer=normalizer,
            version=version,
            workers=1,
            max_chars=max_chars,
        )[0]
    )


def token_f1_batch(
    expected: TargetBatch,
    actual: Texts,
    *,
    normalizer: Normalizer = "squad",
    version: SquadVersion = "v2",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Token F1 for each row of a batch (row i's gold answers: ``expected[i]``, a str or a
    list)."""
    threads = resolve_workers(workers)

    def multi() -> FloatArray:
        return _squad_best(
            expected, actual, "token_f1", "token_f1_batch", normalizer, threads, max_chars, version
        )

    if _version(version) != "v2":
        return multi()
    return plain_first(
        expected,
        lambda rows: _core.token_f1_batch(rows, texts_arg(actual), normalizer, threads, max_chars),
        multi,
    )


def squad_exact_match(
    expected: Targets,
    actual: str,
    *,
    normalizer: Normalizer = "squad",
    version: SquadVersion = "v2",
    max_chars: int | None = None,
) -> bool:
    """Whether ``actual`` is ``expected`` after SQuAD's ``normalize_answer`` (the v2.0 script's
    ``compute_exact``; ``normalizer="none"``: equal whitespace tokens); a list of gold answers
    matches when one does, as the script takes the best. ``version="v1.1"``: the v1.1
    script's ``exact_match_score``, where gold answers that normalize to nothing count too."""
    _version(version)  # exact match is the same per pair; v1.1 differs over gold answers
    if isinstance(expected, str):
        return _core.squad_exact_match(expected, actual, normalizer, max_chars)
    return bool(
        squad_exact_match_batch(
            one_row(expected),
            [actual],
            normalizer=normalizer,
            version=version,
            workers=1,
            max_chars=max_chars,
        )[0]
    )


def squad_exact_match_batch(
    expected: TargetBatch,
    actual: Texts,
    *,
    normalizer: Normalizer = "squad",
    version: SquadVersion = "v2",
    workers: int | None = None,
    max_chars: int | None = None,
) -> BoolArray:
    """SQuAD exact match for each row of a batch (``expected[i]``: a str or a list)."""
    threads = resolve_workers(workers)
    _version(version)

    def multi() -> BoolArray:
        best = _squad_best(
            expected,
            actual,
            "squad_exact_match",
            "squad_exact_match_batch",
            normalizer,
            threads,
            max_chars,
            version,
        )
        return best > 0.5

    return plain_first(
        expected,
        lambda rows: _core.squad_exact_match_batch(
            rows, texts_arg(actual), normalizer, threads, max_chars
        ),
        multi,
    )


def rouge_l(
    expected: Targets,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    max_chars: int | None = None,
) -> float:
    """ROUGE-L of ``actual`` (prediction) against ``expected`` (a target, or a list scored as
    rouge-score's ``score_multi``); ``stemmer="porter"`` is rouge-score's ``use_stemmer=True``."""
    if isinstance(expected, str):
        return _core.rouge_l(expected, actual, tokenizer, measure, stemmer, max_chars)
    return _one(
        rouge_l_batch,
        expected,
        actual,
        tokenizer=tokenizer,
        measure=measure,
        stemmer=stemmer,
        max_chars=max_chars,
    )


def rouge_l_batch(
    expected: TargetBatch,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-L for each row of a batch (``expected[i]``: a target or a list of them)."""
    threads = resolve_workers(workers)

    def run(e: object, a: object, m: str) -> FloatArray:
        return _core.rouge_l_batch(e, a, tokenizer, m, stemmer, threads, max_chars)

    return _rows(expected, actual, "rouge_l", measure, run)


def rouge_n(
    expected: Targets,
    actual: str,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-N of ``actual`` (prediction) against ``expected`` (a target, or a list scored as
    ``score_multi``), as rouge-score's ``rouge{n}``; ``stemmer="porter"`` is its
    ``use_stemmer=True``."""
    if isinstance(expected, str):
        return _core.rouge_n(expected, actual, n, tokenizer, stemmer, measure, max_chars)
    return _one(
        rouge_n_batch,
        expected,
        actual,
        n=n,
        tokenizer=tokenizer,
        stemmer=stemmer,
        measure=measure,
        max_chars=max_chars,
    )


def rouge_n_batch(
    expected: TargetBatch,
    actual: Texts,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-N for each row of a batch (``expected[i]``: a target or a list of them)."""
    threads = resolve_workers(workers)

    def run(e: object, a: object, m: str) -> FloatArray:
        return _core.rouge_n_batch(e, a, n, tokenizer, stemmer, m, threads, max_chars)

    return _rows(expected, actual, "rouge_n", measure, run)


def rouge_lsum(
    expected: Targets,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
    split_summaries: bool = False,
) -> float:
    """ROUGE-Lsum (summary-level LCS over newline-separated sentences), as rouge-score; a list
    of targets is scored as ``score_multi``. ``split_summaries=True`` first puts each sentence
    on a line of its own (:func:`~evalmark.metrics.split_summaries`'s rule)."""
    if bool_arg("split_summaries", split_summaries):
        expected, actual = split_targets(expected), _split(actual)
    if isinstance(expected, str):
        return _core.rouge_lsum(expected, actual, tokenizer, stemmer, measure, max_chars)
    return _one(
        rouge_lsum_batch,
        expected,
        actual,
        tokenizer=tokenizer,
        stemmer=stemmer,
        measure=measure,
        max_chars=max_chars,
    )


def rouge_lsum_batch(
    expected: TargetBatch,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
    split_summaries: bool = False,
) -> FloatArray:
    """ROUGE-Lsum for each row of a batch (``expected[i]``: a target or a list of them);
    ``split_summaries=True`` puts each sentence of both sides on a line of its own first."""
    threads = resolve_workers(workers)
    if bool_arg("split_summaries", split_summaries):
        expected, actual = split_rows(expected, actual)

    def run(e: object, a: object, m: str) -> FloatArray:
        return _core.rouge_lsum_batch(e, a, tokenizer, stemmer, m, threads, max_chars)

    return _rows(expected, actual, "rouge_lsum", measure, run)


def _rows(
    expected: TargetBatch,
    actual: Texts,
    name: str,
    measure: str,
    run: Callable[[object, object, str], FloatArray],
) -> FloatArray:
    return plain_first(
        expected,
        lambda rows: run(rows, texts_arg(actual), measure),
        lambda: score_multi(expected, actual, name, measure, run),  # type: ignore[arg-type]
    )


def _one(batch: Callable[..., FloatArray], expected: Targets, actual: str, **options: Any) -> float:
    return float(batch(one_row(expected), [actual], workers=1, **options)[0])
