"""Stub of the Rust extension ``evalmark._core``: the metric kernels and their definitions.

Every text is taken as a sequence of Unicode code points, lone surrogates included. Batch
functions release the GIL and run on ``workers`` threads (-1: every core); their results do not
depend on ``workers``.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError as MetricInputError

__version__: str
UNICODE_VERSION: str
"""The Unicode version of the case, whitespace and word tables (read off CPython 3.11)."""
ALPHANUMERIC_UNICODE_VERSION: str
"""The Unicode version of the letter-and-digit test of the ``"unicode"`` ROUGE tokenizer."""

def token_f1(expected: str, actual: str, normalizer: str = "squad") -> float:
    """Token F1, equal to the SQuAD v2.0 script's ``compute_f1(expected, actual)``.

    normalizer ``"squad"``: ``str.lower()``; drop ASCII punctuation (``string.punctuation``);
    replace each whole word a/an/the (words as Python's ``re`` sees them) by a space; split on
    whitespace (``str.split()``). ``"none"``: split on whitespace only. F1 of the two token
    multisets: p = common/len(actual), r = common/len(expected), 2pr/(p+r). Both empty: 1.0;
    one empty: 0.0; nothing in common: 0.0.
    """

def token_f1_batch(
    expected: Any, actual: Any, normalizer: str = "squad", workers: int = -1
) -> npt.NDArray[np.float64]:
    """``token_f1`` for each pair."""

def rouge_l(
    expected: str, actual: str, tokenizer: str = "rouge", measure: str = "fmeasure"
) -> float:
    """ROUGE-L, equal to ``RougeScorer(["rougeL"]).score(expected, actual)["rougeL"]``.

    tokenizer ``"rouge"``: ``str.lower()``, then tokens are maximal runs of ``[a-z0-9]``.
    ``"unicode"``: ``str.lower()``, then maximal runs of characters with the Unicode
    Alphabetic or Numeric property (as of ``ALPHANUMERIC_UNICODE_VERSION``). Unlike Python's
    ``str.isalnum`` this keeps combining vowel signs (Mn, Mc) inside words, so Devanagari or
    Thai words are not cut apart; circled letters such as Ⓐ count as letters too.
    lcs = longest common subsequence of the token sequences; precision = lcs/len(actual),
    recall = lcs/len(expected), fmeasure = 2pr/(p+r) (0.0 when p + r = 0). Either side without
    tokens: 0.0. Memory is linear in the input length.
    """

def rouge_l_batch(
    expected: Any,
    actual: Any,
    tokenizer: str = "rouge",
    measure: str = "fmeasure",
    workers: int = -1,
) -> npt.NDArray[np.float64]:
    """``rouge_l`` for each pair."""

def levenshtein_distance(a: str, b: str) -> int:
    """Unit-cost insert/delete/substitute edit distance over code points; equal to
    ``rapidfuzz.distance.Levenshtein.distance``."""

def levenshtein_similarity(a: str, b: str) -> float:
    """1 − distance / max(len a, len b); both empty: 1.0. Equal to
    ``rapidfuzz.distance.Levenshtein.normalized_similarity``."""

def levenshtein_distance_batch(
    expected: Any, actual: Any, workers: int = -1
) -> npt.NDArray[np.int64]:
    """``levenshtein_distance`` for each pair."""

def levenshtein_similarity_batch(
    expected: Any, actual: Any, workers: int = -1
) -> npt.NDArray[np.float64]:
    """``levenshtein_similarity`` for each pair."""

def cosine(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    """dot(a, b) / (‖a‖·‖b‖), accumulated in float64; a zero vector gives 0.0; NaN or
    infinity is an error."""

def cosine_batch(
    expected: npt.NDArray[Any], actual: npt.NDArray[Any], workers: int = -1
) -> npt.NDArray[np.float64]:
    """Cosine of row i with row i of two C-contiguous float32 or float64 matrices."""

def cosine_matrix(
    queries: npt.NDArray[Any], matrix: npt.NDArray[Any], workers: int = -1
) -> npt.NDArray[np.float64]:
    """Cosine of every row of ``queries`` with every row of ``matrix``: shape (len q, len m)."""

def json_match(expected: str, actual: str, numbers: str = "value") -> bool:
    """Whether two JSON (RFC 8259) documents are equal by meaning.

    Object key order is ignored at every depth, arrays compare in order, strings exactly after
    unescaping, true/false/null only equal themselves, duplicate keys: the last wins.
    numbers ``"value"``: equal by exact decimal value (1 == 1.0 == 1e0; no float rounding).
    ``"strict"``: as Python's ``json`` reads them: integers exact, other numbers as float64, and
    an integer never equals a float (1 != 1.0). Invalid ``actual``: False. Invalid ``expected``:
    ``MetricInputError`` with line and column.
    """

def json_match_batch(
    expected: Any, actual: Any, numbers: str = "value", workers: int = -1
) -> npt.NDArray[np.bool_]:
    """``json_match`` for each pair; an invalid expected document names its row."""

def canonical_json(text: str, numbers: str = "value") -> str:
    """Compact JSON with keys sorted and numbers canonical; two documents match exactly when
    their canonical texts are equal. With ``"strict"`` it equals
    ``json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    (lone surrogates are written as ``\\uXXXX`` escapes)."""
