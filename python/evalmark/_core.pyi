"""Stub of the Rust extension ``evalmark._core``: the metric kernels and their definitions.

Every text is taken as a sequence of Unicode code points, lone surrogates included. Arguments
are ``(expected, actual)`` everywhere. Batch functions release the GIL and run on ``workers``
threads (-1: every core, at most ``MAX_WORKERS``); their results do not depend on ``workers``.

Cost, for texts of n and m code points: token F1, JSON match and tokenizing are O(n + m);
Levenshtein and the LCS of ROUGE-L are O(n·m/64) word operations (bit-parallel) and O(n + m)
memory. ``max_chars`` caps the code points of each text: a text over it raises
``TextTooLongError`` (naming each offending row) instead of being scored or truncated.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError as MetricInputError
from evalmark.errors import TextTooLongError as TextTooLongError

__version__: str
UNICODE_VERSION: str
"""The Unicode version of the case, whitespace and word tables (read off CPython 3.11)."""
ALPHANUMERIC_UNICODE_VERSION: str
"""The Unicode version of the letter-and-digit test of the ``"unicode"`` ROUGE tokenizer."""

MAX_WORKERS: int
"""The largest ``workers`` value a batch function accepts."""

def token_f1(
    expected: str, actual: str, normalizer: str = "squad", max_chars: int | None = None
) -> float:
    """Token F1, equal to the SQuAD v2.0 script's ``compute_f1(expected, actual)``.

    normalizer ``"squad"``: ``str.lower()``; drop ASCII punctuation (``string.punctuation``);
    replace each whole word a/an/the (words as Python's ``re`` sees them) by a space; split on
    whitespace (``str.split()``). ``"none"``: split on whitespace only. F1 of the two token
    multisets: p = common/len(actual), r = common/len(expected), 2pr/(p+r). Both empty: 1.0;
    one empty: 0.0; nothing in common: 0.0.
    """

def token_f1_batch(
    expected: Any,
    actual: Any,
    normalizer: str = "squad",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``token_f1`` for each pair."""

def rouge_l(
    expected: str,
    actual: str,
    tokenizer: str = "rouge",
    measure: str = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-L, equal to ``RougeScorer(["rougeL"]).score(expected, actual)["rougeL"]``.

    tokenizer ``"rouge"``: ``str.lower()``, then tokens are maximal runs of ``[a-z0-9]``.
    ``"unicode"``: ``str.lower()``, then maximal runs of characters with the Unicode
    Alphabetic or Numeric property (as of ``ALPHANUMERIC_UNICODE_VERSION``). Unlike Python's
    ``str.isalnum`` this keeps combining vowel signs (Mn, Mc) inside words, so Devanagari or
    Thai words are not cut apart; circled letters such as Ⓐ count as letters too.
    lcs = longest common subsequence of the token sequences; precision = lcs/len(actual),
    recall = lcs/len(expected), fmeasure = 2pr/(p+r) (0.0 when p + r = 0). Either side without
    tokens: 0.0. Time O(n·m/64) for n and m tokens; memory linear in the input length.
    """

def rouge_l_batch(
    expected: Any,
    actual: Any,
    tokenizer: str = "rouge",
    measure: str = "fmeasure",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``rouge_l`` for each pair."""

def levenshtein_distance(expected: str, actual: str, max_chars: int | None = None) -> int:
    """Unit-cost insert/delete/substitute edit distance over code points; equal to
    ``rapidfuzz.distance.Levenshtein.distance``. Time O(n·m/64) after the common prefix and
    suffix are stripped, memory O(n + m)."""

def levenshtein_similarity(expected: str, actual: str, max_chars: int | None = None) -> float:
    """1 − distance / max(len expected, len actual); both empty: 1.0. Equal to
    ``rapidfuzz.distance.Levenshtein.normalized_similarity``."""

def levenshtein_distance_batch(
    expected: Any, actual: Any, workers: int = -1, max_chars: int | None = None
) -> npt.NDArray[np.int64]:
    """``levenshtein_distance`` for each pair."""

def levenshtein_similarity_batch(
    expected: Any, actual: Any, workers: int = -1, max_chars: int | None = None
) -> npt.NDArray[np.float64]:
    """``levenshtein_similarity`` for each pair."""

def cosine(expected: npt.NDArray[np.float64], actual: npt.NDArray[np.float64]) -> float:
    """dot(e, a) / (‖e‖·‖a‖), accumulated in float64; a zero vector gives 0.0; NaN or
    infinity is an error."""

def cosine_batch(
    expected: npt.NDArray[Any], actual: npt.NDArray[Any], workers: int = -1
) -> npt.NDArray[np.float64]:
    """Cosine of row i with row i of two C-contiguous float32 or float64 matrices."""

def cosine_matrix(
    expected: npt.NDArray[Any], actual: npt.NDArray[Any], workers: int = -1
) -> npt.NDArray[np.float64]:
    """Cosine of every row of ``expected`` with every row of ``actual``: shape
    (len expected, len actual). A result too large to allocate raises ``MemoryError``."""

def json_match(
    expected: str, actual: str, numbers: str = "value", max_chars: int | None = None
) -> bool:
    """Whether two JSON (RFC 8259) documents are equal by meaning.

    Object key order is ignored at every depth, arrays compare in order, strings exactly after
    unescaping, true/false/null only equal themselves, duplicate keys: the last wins.
    numbers ``"value"``: equal by exact decimal value (1 == 1.0 == 1e0; no float rounding).
    ``"strict"``: as Python's ``json`` reads them: integers exact, other numbers as float64, and
    an integer never equals a float (1 != 1.0). Invalid ``actual``: False. Invalid ``expected``:
    ``MetricInputError`` with line and column.
    """

def json_match_batch(
    expected: Any,
    actual: Any,
    numbers: str = "value",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.bool_]:
    """``json_match`` for each pair; an invalid expected document names its row."""

def canonical_json(text: str, numbers: str = "value") -> str:
    """Compact JSON with keys sorted and numbers canonical; two documents match exactly when
    their canonical texts are equal. With ``"strict"`` it equals
    ``json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    (lone surrogates are written as ``\\uXXXX`` escapes)."""
