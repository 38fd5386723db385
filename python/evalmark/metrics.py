"""Metric functions: scalar and batch forms over the Rust kernels in ``evalmark._core``.

Arguments are always ``(expected, actual)``. Batch forms take sequences of ``str`` (or a
:class:`TextColumn`), or 2-D arrays for vectors, and return 1-D numpy arrays. They release the
GIL and run on ``workers`` threads: ``-1`` every core, ``1`` serial, ``n`` that many; the default
comes from the ``EVALMARK_WORKERS`` environment variable, else ``-1``. Results are bit-identical
for every value of ``workers``. Text functions take ``max_chars``: a text with more code points
raises :class:`TextTooLongError`, whose ``rows`` lists the offending rows of a batch. The
definitions and the cost model are stated in ``evalmark/_core.pyi``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark import _core
from evalmark.errors import MetricInputError, TextTooLongError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MetricInputError",
    "TextColumn",
    "TextTooLongError",
    "bleu",
    "bleu_batch",
    "canonical_json",
    "chrf",
    "chrf_batch",
    "corpus_bleu",
    "corpus_chrf",
    "cosine",
    "cosine_batch",
    "cosine_matrix",
    "json_match",
    "json_match_batch",
    "levenshtein_distance",
    "levenshtein_distance_batch",
    "levenshtein_similarity",
    "levenshtein_similarity_batch",
    "rouge_l",
    "rouge_l_batch",
    "rouge_lsum",
    "rouge_lsum_batch",
    "rouge_n",
    "rouge_n_batch",
    "token_f1",
    "token_f1_batch",
]

Normalizer = Literal["squad", "none"]
Tokenizer = Literal["rouge", "unicode"]
Measure = Literal["fmeasure", "precision", "recall"]
Numbers = Literal["value", "strict"]
Stemmer = Literal["porter"]
BleuTokenizer = Literal["13a", "intl", "none"]
Smooth = Literal["exp", "floor", "add-k", "none"]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TextColumn:
    """A column of UTF-8 texts as one byte buffer plus offsets: row i is
    ``data[offsets[i]:offsets[i + 1]]``. Batch functions accept it in place of a list of ``str``,
    so Arrow data reaches the kernels without one Python string per row. The kernels read the
    two arrays in place while the GIL is released: do not write to them during a call."""

    data: npt.NDArray[np.uint8]
    offsets: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        data = np.ascontiguousarray(self.data, dtype=np.uint8).reshape(-1)
        offsets = np.ascontiguousarray(self.offsets, dtype=np.int64).reshape(-1)
        if offsets.size == 0:
            raise MetricInputError("a TextColumn needs n + 1 offsets for n rows, got none")
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "offsets", offsets)

    def __len__(self) -> int:
        return int(self.offsets.size - 1)

    @classmethod
    def from_strings(cls, texts: Sequence[str]) -> TextColumn:
        """Pack Python strings (encoded as UTF-8) into one buffer."""
        if isinstance(texts, str):
            raise TypeError("from_strings takes a sequence of str, got a single str")
        encoded = []
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"row {i}: expected str, got {type(t).__name__}")
            try:
                encoded.append(t.encode("utf-8"))
            except UnicodeEncodeError:
                raise MetricInputError(
                    f"row {i} holds a lone surrogate, which UTF-8 cannot store; "
                    "pass the list of str itself instead of a TextColumn"
                ) from None
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls(data, offsets)

    @classmethod
    def from_arrow(cls, array: pa.Array | pa.ChunkedArray) -> TextColumn:
        """Wrap a pyarrow ``string`` or ``large_string`` array (no nulls) without copying rows
        into Python objects."""
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
        if array.null_count:
            raise MetricInputError(
                f"the Arrow column has {array.null_count} null values; fill or drop them first"
            )
        if pa.types.is_string(array.type):
            offset_type: type[np.integer[Any]] = np.int32
        elif pa.types.is_large_string(array.type):
            offset_type = np.int64
        else:
            raise TypeError(f"expected an Arrow string column, got type {array.type}")
        _, offsets_buf, data_buf = array.buffers()
        n = len(array)
        offsets = np.frombuffer(offsets_buf, dtype=offset_type)[array.offset : array.offset + n + 1]
        data = (
            np.frombuffer(data_buf, dtype=np.uint8)
            if data_buf is not None
            else np.zeros(0, np.uint8)
        )
        return cls(data, offsets.astype(np.int64))

    def _parts(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        return (self.data, self.offsets)


Texts = Sequence[str] | TextColumn


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


def _texts(batch: Texts) -> Any:
    return batch._parts() if isinstance(batch, TextColumn) else batch


def _matrix(x: npt.ArrayLike, name: str) -> npt.NDArray[np.floating[Any]]:
    arr = np.asarray(x)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if arr.ndim != 2:
        raise MetricInputError(f"{name} must be 2-D (rows of vectors), got {arr.ndim}-D")
    return np.ascontiguousarray(arr)


def _vector(x: npt.ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise MetricInputError(f"{name} must be a 1-D vector, got {arr.ndim}-D")
    return np.ascontiguousarray(arr)


def token_f1(
    expected: str,
    actual: str,
    *,
    normalizer: Normalizer = "squad",
    max_chars: int | None = None,
) -> float:
    """Token F1 of ``actual`` against ``expected`` (SQuAD's ``compute_f1`` by default)."""
    return _core.token_f1(expected, actual, normalizer, max_chars)


def token_f1_batch(
    expected: Texts,
    actual: Texts,
    *,
    normalizer: Normalizer = "squad",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Token F1 for each pair of a batch."""
    return _core.token_f1_batch(
        _texts(expected), _texts(actual), normalizer, resolve_workers(workers), max_chars
    )


def rouge_l(
    expected: str,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    max_chars: int | None = None,
) -> float:
    """ROUGE-L of ``actual`` (prediction) against ``expected`` (target), as rouge-score;
    ``stemmer="porter"`` is rouge-score's ``use_stemmer=True``."""
    return _core.rouge_l(expected, actual, tokenizer, measure, stemmer, max_chars)


def rouge_l_batch(
    expected: Texts,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-L for each pair of a batch."""
    return _core.rouge_l_batch(
        _texts(expected),
        _texts(actual),
        tokenizer,
        measure,
        stemmer,
        resolve_workers(workers),
        max_chars,
    )


def levenshtein_distance(expected: str, actual: str, *, max_chars: int | None = None) -> int:
    """Unit-cost edit distance over Unicode code points."""
    return _core.levenshtein_distance(expected, actual, max_chars)


def levenshtein_similarity(expected: str, actual: str, *, max_chars: int | None = None) -> float:
    """1 − distance / max(len expected, len actual); 1.0 when both are empty."""
    return _core.levenshtein_similarity(expected, actual, max_chars)


def levenshtein_distance_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> npt.NDArray[np.int64]:
    """Levenshtein distance for each pair of a batch."""
    return _core.levenshtein_distance_batch(
        _texts(expected), _texts(actual), resolve_workers(workers), max_chars
    )


def levenshtein_similarity_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Levenshtein similarity for each pair of a batch."""
    return _core.levenshtein_similarity_batch(
        _texts(expected), _texts(actual), resolve_workers(workers), max_chars
    )


def cosine(expected: npt.ArrayLike, actual: npt.ArrayLike) -> float:
    """Cosine similarity of two vectors; 0.0 when either is zero."""
    return _core.cosine(_vector(expected, "expected"), _vector(actual, "actual"))


def _same_dtype(
    x: npt.NDArray[np.floating[Any]], y: npt.NDArray[np.floating[Any]]
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.floating[Any]]]:
    if x.dtype != y.dtype:
        return x.astype(np.float64), y.astype(np.float64)
    return x, y


def cosine_batch(
    expected: npt.ArrayLike, actual: npt.ArrayLike, *, workers: int | None = None
) -> FloatArray:
    """Cosine similarity of row i of ``expected`` with row i of ``actual``."""
    e, a = _same_dtype(_matrix(expected, "expected"), _matrix(actual, "actual"))
    return _core.cosine_batch(e, a, resolve_workers(workers))


def cosine_matrix(
    expected: npt.ArrayLike, actual: npt.ArrayLike, *, workers: int | None = None
) -> FloatArray:
    """Cosine similarity of every row of ``expected`` with every row of ``actual``: shape
    (len expected, len actual)."""
    e, a = _same_dtype(_matrix(expected, "expected"), _matrix(actual, "actual"))
    return _core.cosine_matrix(e, a, resolve_workers(workers))


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
        _texts(expected), _texts(actual), numbers, resolve_workers(workers), max_chars
    )


def canonical_json(text: str, *, numbers: Numbers = "value") -> str:
    """The canonical text of a JSON document: equal texts exactly when the documents match."""
    return _core.canonical_json(text, numbers)


# ---------------------------------------------------------------------------- ROUGE-N, ROUGE-Lsum


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def rouge_n(
    expected: str,
    actual: str,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-N of ``actual`` (prediction) against ``expected`` (target), as rouge-score's
    ``rouge{n}``; ``stemmer="porter"`` is its ``use_stemmer=True``."""
    return _core.rouge_n(expected, actual, n, tokenizer, stemmer, measure, max_chars)


def rouge_n_batch(
    expected: Texts,
    actual: Texts,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-N for each pair of a batch."""
    return _core.rouge_n_batch(
        _texts(expected),
        _texts(actual),
        n,
        tokenizer,
        stemmer,
        measure,
        resolve_workers(workers),
        max_chars,
    )


def rouge_lsum(
    expected: str,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-Lsum (summary-level LCS over newline-separated sentences), as rouge-score."""
    return _core.rouge_lsum(expected, actual, tokenizer, stemmer, measure, max_chars)


def rouge_lsum_batch(
    expected: Texts,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-Lsum for each pair of a batch."""
    return _core.rouge_lsum_batch(
        _texts(expected),
        _texts(actual),
        tokenizer,
        stemmer,
        measure,
        resolve_workers(workers),
        max_chars,
    )


# ---------------------------------------------------------------------------- BLEU, chrF

References = str | Sequence[str]
"""A row's references: one ``str``, or a sequence of them (multi-reference)."""
ReferenceBatch = Sequence[References] | TextColumn


def _references(expected: ReferenceBatch, actual: Texts) -> Any:
    """The references of a batch, refusing sacrebleu's stream layout with a hint."""
    if isinstance(expected, TextColumn):
        return expected._parts()
    if (
        not isinstance(expected, str)
        and isinstance(expected, Sequence)
        and len(expected) != len(actual)
        and len(expected) > 0
        and all(
            not isinstance(r, str) and isinstance(r, Sequence) and len(r) == len(actual)
            for r in expected
        )
    ):
        raise MetricInputError(
            f"expected has {len(expected)} rows for {len(actual)} hypotheses, each as long as "
            "actual: this looks like sacrebleu's reference streams (one list per reference); "
            "evalmark takes one entry per row (a str or a list of that row's references): "
            "pass list(zip(*streams))"
        )
    return expected


def _smooth_value(value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"smooth_value must be a number or None, got {type(value).__name__}")
    return float(value)


def bleu(
    expected: References,
    actual: str,
    *,
    tokenizer: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_chars: int | None = None,
) -> float:
    """Sentence BLEU of ``actual`` (the hypothesis) against ``expected`` (one reference or a
    list), in [0, 1]: sacrebleu's ``sentence_bleu(actual, refs).score / 100``."""
    return _core.bleu(
        expected,
        actual,
        tokenizer,
        _flag("lowercase", lowercase),
        smooth,
        _smooth_value(smooth_value),
        _flag("effective_order", effective_order),
        max_chars,
    )


def bleu_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    tokenizer: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Sentence BLEU for each row; row i's references are ``expected[i]``."""
    return _core.bleu_batch(
        _references(expected, actual),
        _texts(actual),
        tokenizer,
        _flag("lowercase", lowercase),
        smooth,
        _smooth_value(smooth_value),
        _flag("effective_order", effective_order),
        resolve_workers(workers),
        max_chars,
    )


def corpus_bleu(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    tokenizer: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Corpus BLEU in [0, 1]: sacrebleu's ``corpus_bleu`` / 100, with references given per row
    (``expected[i]`` for ``actual[i]``), not as sacrebleu's streams."""
    return _core.corpus_bleu(
        _references(expected, actual),
        _texts(actual),
        tokenizer,
        _flag("lowercase", lowercase),
        smooth,
        _smooth_value(smooth_value),
        _flag("effective_order", effective_order),
        resolve_workers(workers),
        max_chars,
    )


def _chrf_args(
    char_order: int,
    word_order: int,
    beta: int,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> tuple[int, int, int, bool, bool, bool]:
    return (
        char_order,
        word_order,
        beta,
        _flag("whitespace", whitespace),
        _flag("eps_smoothing", eps_smoothing),
        _flag("lowercase", lowercase),
    )


def chrf(
    expected: References,
    actual: str,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    max_chars: int | None = None,
) -> float:
    """Sentence chrF (``word_order=2``: chrF++) of ``actual`` against ``expected`` (one
    reference or a list), in [0, 1]: sacrebleu's ``sentence_chrf(actual, refs).score / 100``."""
    return _core.chrf(
        expected,
        actual,
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        max_chars,
    )


def chrf_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Sentence chrF for each row; row i's references are ``expected[i]``."""
    return _core.chrf_batch(
        _references(expected, actual),
        _texts(actual),
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        resolve_workers(workers),
        max_chars,
    )


def corpus_chrf(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Corpus chrF in [0, 1]: sacrebleu's ``corpus_chrf`` / 100, references given per row."""
    return _core.corpus_chrf(
        _references(expected, actual),
        _texts(actual),
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        resolve_workers(workers),
        max_chars,
    )
