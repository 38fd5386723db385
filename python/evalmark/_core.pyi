"""Stub of the Rust extension ``evalmark._core``: the metric kernels and their definitions.

Every text is taken as a sequence of Unicode code points, lone surrogates included. Arguments
are ``(expected, actual)`` everywhere. Batch functions release the GIL and run on ``workers``
threads (-1: every core, at most ``MAX_WORKERS``); their results do not depend on ``workers``.

Cost, for texts of n and m code points: token F1, JSON match and tokenizing are O(n + m);
Levenshtein and the LCS of ROUGE-L are O(n·m/64) word operations (bit-parallel) and O(n + m)
memory. ``max_chars`` caps the code points of each text: a text over it raises
``TextTooLongError`` (naming each offending row) instead of being scored or truncated.

Every call but the smallest (up to 64 KiB of text, done at once) runs on worker threads while
the calling thread checks for signals every 50 ms; the kernels look at a stop flag between
rows and every 2^16 word operations or so inside the O(n·m/64) loops. Ctrl-C thus raises
``KeyboardInterrupt`` within a fraction of a second, once every worker has stopped; a call
from a thread other than the main one cannot see signals (Python runs handlers there only).
Memory sized by the input is allocated fallibly: ``MemoryError`` naming the size, no abort.
"""

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, final

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
STUB_CRC32: int
"""``zlib.crc32`` of this stub as it was when the extension was built: the package refuses an
extension built from another version of it (a stale build)."""

def resolve_workers(workers: int | None = None) -> int:
    """The thread count a call uses: ``workers`` when given, else the ``EVALMARK_WORKERS``
    environment variable, else -1 (every core). Raises ``MetricInputError`` for a count that is
    not -1 or 1 to ``MAX_WORKERS`` (or a variable that is no integer), ``TypeError`` for a
    ``workers`` that is not an int."""

def work_done() -> int:
    """The word operations the O(n·m/64) kernels (Levenshtein, the LCS of ROUGE-L and
    ROUGE-Lsum) of this process have done so far, every call and thread together: a counter
    that only grows, read by progress displays while a long row is scored."""

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
    stemmer: str | None = None,
    max_chars: int | None = None,
) -> float:
    """ROUGE-L, equal to ``RougeScorer(["rougeL"]).score(expected, actual)["rougeL"]``.

    tokenizer ``"rouge"``: ``str.lower()``, then tokens are maximal runs of ``[a-z0-9]``.
    ``"unicode"``: ``str.lower()``, then maximal runs of characters with the Unicode
    Alphabetic or Numeric property (as of ``ALPHANUMERIC_UNICODE_VERSION``). Unlike Python's
    ``str.isalnum`` this keeps combining vowel signs (Mn, Mc) inside words, so Devanagari or
    Thai words are not cut apart; circled letters such as Ⓐ count as letters too.
    stemmer ``"porter"``: every token of four or more characters is replaced by its Porter stem
    as NLTK's ``PorterStemmer()`` gives it (mode ``NLTK_EXTENSIONS``), which is rouge-score's
    ``use_stemmer=True``; ``None``: no stemming.
    lcs = longest common subsequence of the token sequences; precision = lcs/len(actual),
    recall = lcs/len(expected), fmeasure = 2pr/(p+r) (0.0 when p + r = 0). Either side without
    tokens: 0.0. Time O(n·m/64) for n and m tokens; memory linear in the input length.
    """

def rouge_l_batch(
    expected: Any,
    actual: Any,
    tokenizer: str = "rouge",
    measure: str = "fmeasure",
    stemmer: str | None = None,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``rouge_l`` for each pair."""

def rouge_n(
    expected: str,
    actual: str,
    n: int = 1,
    tokenizer: str = "rouge",
    stemmer: str | None = None,
    measure: str = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-N, equal to ``RougeScorer([f"rouge{n}"], use_stemmer=stemmer == "porter")``'s
    score (rouge-score itself stops at n = 9; any n >= 1 is accepted here).

    Tokens as in ``rouge_l`` (tokenizer, stemmer). hits = sum over n-grams of min(count in
    expected, count in actual); precision = hits / max(n-grams of actual, 1), recall = hits /
    max(n-grams of expected, 1), fmeasure = 2pr/(p+r) (0.0 when p + r = 0).
    """

def rouge_n_batch(
    expected: Any,
    actual: Any,
    n: int = 1,
    tokenizer: str = "rouge",
    stemmer: str | None = None,
    measure: str = "fmeasure",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``rouge_n`` for each pair."""

def rouge_lsum(
    expected: str,
    actual: str,
    tokenizer: str = "rouge",
    stemmer: str | None = None,
    measure: str = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-Lsum, equal to ``RougeScorer(["rougeLsum"], use_stemmer=...)``'s score.

    Sentences are the non-empty pieces of ``text.split("\n")``, tokenized as in ``rouge_l``.
    For each expected sentence r, the union over actual sentences c of the positions of r on
    the longest common subsequence of (r, c) that rouge-score's table backtrack reads out; each
    token of r at such a position is a hit while both summaries still hold an unused copy of
    it. precision = hits / tokens(actual), recall = hits / tokens(expected), fmeasure =
    2pr/(p+r). Either side without tokens: 0.0. Without newlines this equals ``rouge_l``.
    """

def rouge_lsum_batch(
    expected: Any,
    actual: Any,
    tokenizer: str = "rouge",
    stemmer: str | None = None,
    measure: str = "fmeasure",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``rouge_lsum`` for each pair."""

def levenshtein_distance(
    expected: str,
    actual: str,
    weights: tuple[int, int, int] = (1, 1, 1),
    score_cutoff: int | None = None,
    max_chars: int | None = None,
) -> int:
    """Edit distance turning ``expected`` into ``actual`` over code points, an insertion,
    deletion and substitution costing ``weights``; above ``score_cutoff``, ``score_cutoff +
    1``. Equal to ``rapidfuzz.distance.Levenshtein.distance``. Unit weights: time O(n·m/64)
    after the common prefix and suffix are stripped; equal insert and delete costs with a
    substitution costing at least both: the Indel kernel; other weights: time O(n·m). Memory
    O(n + m)."""

def levenshtein_similarity(expected: str, actual: str, max_chars: int | None = None) -> float:
    """1 − distance / max(len expected, len actual); both empty: 1.0. Equal to
    ``rapidfuzz.distance.Levenshtein.normalized_similarity``."""

def levenshtein_distance_batch(
    expected: Any,
    actual: Any,
    weights: tuple[int, int, int] = (1, 1, 1),
    score_cutoff: int | None = None,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.int64]:
    """``levenshtein_distance`` for each pair."""

def levenshtein_similarity_batch(
    expected: Any, actual: Any, workers: int = -1, max_chars: int | None = None
) -> npt.NDArray[np.float64]:
    """``levenshtein_similarity`` for each pair."""

def levenshtein_normalized_distance(
    expected: str,
    actual: str,
    weights: tuple[int, int, int] = (1, 1, 1),
    score_cutoff: float | None = None,
    max_chars: int | None = None,
) -> float:
    """distance / the largest distance of texts of these lengths under ``weights``, one
    division; 0.0 when that is 0; above ``score_cutoff``, 1.0. Equal to
    ``rapidfuzz.distance.Levenshtein.normalized_distance``."""

def levenshtein_normalized_distance_batch(
    expected: Any,
    actual: Any,
    weights: tuple[int, int, int] = (1, 1, 1),
    score_cutoff: float | None = None,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``levenshtein_normalized_distance`` for each pair."""

def indel_distance(
    expected: str, actual: str, score_cutoff: int | None = None, max_chars: int | None = None
) -> int:
    """n + m − 2·LCS over code points (bit-parallel LCS, time O(n·m/64)); above
    ``score_cutoff``, ``score_cutoff + 1``. Equal to ``rapidfuzz.distance.Indel.distance``."""

def indel_distance_batch(
    expected: Any,
    actual: Any,
    score_cutoff: int | None = None,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.int64]:
    """``indel_distance`` for each pair."""

def indel_normalized_distance(
    expected: str, actual: str, score_cutoff: float | None = None, max_chars: int | None = None
) -> float:
    """Indel distance / (n + m); 0.0 for two empty texts; above ``score_cutoff``, 1.0."""

def indel_normalized_distance_batch(
    expected: Any,
    actual: Any,
    score_cutoff: float | None = None,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``indel_normalized_distance`` for each pair."""

def levenshtein_editops(
    expected: str, actual: str, max_chars: int | None = ...
) -> list[tuple[str, int, int]]:
    """RapidFuzz's ``Levenshtein.editops(expected, actual).as_list()``: time and memory
    O(n·m/64) time and n·m/4 bytes after the common prefix and suffix (at most 2^30 cells)."""

def levenshtein_opcodes(
    expected: str, actual: str, max_chars: int | None = ...
) -> list[tuple[str, int, int, int, int]]:
    """RapidFuzz's ``Levenshtein.opcodes(expected, actual).as_list()``: the alignment of
    ``levenshtein_editops`` as blocks covering both texts, "equal" blocks included."""

def item_texts(
    expected: list[Any], actual: list[Any], shared: bool, names: tuple[str, str], numbered: bool
) -> tuple[list[str], list[str]]:
    """The rows (texts or sequences of hashable items) as texts of codes: each distinct item a
    code point in order of first appearance, the surrogates skipped; items are equal as in
    RapidFuzz (a one-character str is its code point, -1 is -1, others their hash()). One code
    table per pair of rows, or with ``shared`` one for all rows; errors name the row's list
    (and its index when ``numbered``)."""

def levenshtein_cdist(
    queries: Any,
    choices: Any,
    weights: tuple[int, int, int] = ...,
    score_cutoff: int | None = None,
    workers: int = ...,
) -> npt.NDArray[np.int64]:
    """The (len queries, len choices) matrix of ``levenshtein_distance``, rows in parallel."""

def levenshtein_extract(
    query: str,
    choices: Any,
    limit: int | None,
    weights: tuple[int, int, int] = ...,
    score_cutoff: int | None = None,
    workers: int = ...,
    items: Any = None,
) -> list[tuple[Any, int, int]]:
    """The ``limit`` choices nearest to ``query`` (all with ``None``) as ``(items[j], distance,
    j)``, nearest first and equal distances by index, none past ``score_cutoff``; ``items``
    defaults to ``choices``. The cut-off tightens as the best fill up."""

def squad_exact_match(
    expected: str, actual: str, normalizer: str = "squad", max_chars: int | None = None
) -> bool:
    """SQuAD v2.0 ``compute_exact``: equal after ``normalize_answer`` (``"none"``: equal
    whitespace tokens). Time O(n + m)."""

def squad_exact_match_batch(
    expected: Any,
    actual: Any,
    normalizer: str = "squad",
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.bool_]:
    """``squad_exact_match`` for each pair."""

def bleu_statistics(
    expected: Any,
    actual: Any,
    tokenizer: str = "13a",
    lowercase: bool = False,
    workers: int = -1,
    max_chars: int | None = None,
    max_ngram_order: int = 4,
) -> npt.NDArray[np.int64]:
    """Each row's BLEU statistics, (n, 2 + 2·max_ngram_order): hypothesis length, reference
    length, clipped matches of orders 1 to max_ngram_order, hypothesis n-grams of the same
    orders (sacrebleu's layout)."""

def bleu_from_statistics(
    statistics: npt.NDArray[np.int64],
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
) -> float:
    """BLEU / 100 of the column sums of an (n, 2 + 2·m) statistics array, m the order the
    statistics were counted to (max_ngram_order <= m <= 10)."""

def bleu_row_scores(
    statistics: npt.NDArray[np.int64],
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
) -> npt.NDArray[np.float64]:
    """BLEU / 100 of each row of an (n, 10) statistics array (each row a sum, such as one
    bootstrap resample)."""

def chrf_statistics(
    expected: Any,
    actual: Any,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.int64]:
    """Each row's chrF statistics, (n, 3 * orders): per character order then word order,
    [hypothesis n-grams, reference n-grams, matches] of the reference kept (sacrebleu's
    layout)."""

def chrf_row_scores(
    statistics: npt.NDArray[np.int64],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    eps_smoothing: bool = False,
) -> npt.NDArray[np.float64]:
    """chrF / 100 of each row of a ``chrf_statistics`` array (each row a sum)."""

def wer(expected: str, actual: str, max_chars: int | None = None) -> float:
    """``jiwer.wer``: word edits / reference words (jiwer's default transforms); an empty
    reference gives the hypothesis's word count."""

def wer_batch(
    expected: Any, actual: Any, workers: int = -1, max_chars: int | None = None
) -> npt.NDArray[np.float64]:
    """``wer`` for each pair."""

def cer(expected: str, actual: str, max_chars: int | None = None) -> float:
    """``jiwer.cer``: character edits / reference characters, both texts stripped."""

def cer_batch(
    expected: Any, actual: Any, workers: int = -1, max_chars: int | None = None
) -> npt.NDArray[np.float64]:
    """``cer`` for each pair."""

def error_counts(
    expected: Any, actual: Any, unit: str, workers: int = ..., max_chars: int | None = ...
) -> npt.NDArray[np.int64]:
    """(errors, reference length, hypothesis length) of each pair in words (``unit="word"``)
    or characters (``"char"``), an (n, 3) array."""

def retrieval_measures_of(
    qrels: list[Any],
    runs: list[Any],
    kinds: list[str],
    cutoffs: list[int],
    relevance_level: int = 1,
    workers: int = -1,
) -> npt.NDArray[np.float64]:
    """trec_eval's measures of each query, a (queries, measures) matrix, read from dicts: row i
    ranks the dict ``runs[i]`` (document id to score, rounded to float32) by score descending,
    ties by document id descending (byte order), against the dict ``qrels[i]`` (document id to
    int judgment); judgments >= ``relevance_level`` are relevant. ``kinds[j]`` is ``P``,
    ``recall``, ``Rprec``, ``recip_rank``, ``map``, ``map_cut``, ``ndcg``, ``ndcg_cut`` or
    ``success`` with cutoff ``cutoffs[j]`` (>= 1 where the kind has one). O(n log n) per query
    of n documents; a NaN, bool or non-number score, or a non-int judgment, is an error."""

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

def cosine_top_k(
    queries: npt.NDArray[Any], choices: npt.NDArray[Any], k: int, workers: int = -1
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The ``min(k, len choices)`` highest cosines of each query row with the choice rows:
    (indices, scores), each row by score descending, ties to the lower index; the scores are
    the values ``cosine_matrix`` gives, computed a block at a time in bounded memory."""

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

REGEX_VERSION: str
"""The version of the ``regex`` module whose Unicode classes (``\\p{N}``, ``\\p{P}``,
``\\p{S}``) the ``"intl"`` BLEU tokenizer uses, as sacrebleu's does."""

def bleu(
    expected: Any,
    actual: str,
    tokenizer: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = 4,
    max_chars: int | None = None,
) -> float:
    """Sentence BLEU in [0, 1]: sacrebleu's ``sentence_bleu(actual, refs, ...).score / 100``
    (capped at 1.0, which float rounding of a perfect score exceeds by an ulp).

    expected: one reference (``str``) or a non-empty sequence of them. Each text is
    ``str.lower()``-ed when ``lowercase``, then ``rstrip()``-ed and tokenized; tokens are the
    pieces of ``str.split()``. tokenizer ``"13a"`` (mteval-v13a): remove ``<skipped>``, join
    ``-\\n``, ``\\n`` to space, unescape ``&quot; &amp; &lt; &gt;``, then cut out every ASCII
    symbol but ``' , - .``; cut ``.`` and ``,`` off unless preceded by a digit, then unless
    followed by one; cut ``-`` off after a digit. ``"intl"`` (mteval-v14): cut punctuation
    (\\p{P}) off a preceding non-number, then off a following non-number, then cut out every
    symbol (\\p{S}), classes as in ``REGEX_VERSION``. ``"none"``: whitespace split only.
    For n = 1..max_ngram_order (1 to 10): correct_n = sum over hypothesis n-grams of
    min(count, its largest count in any one reference), total_n = n-grams of actual. Brevity
    penalty exp(1 - r/h) when h < r (h = hypothesis tokens, r = the closest reference length,
    the shorter on a tie; 0 when h = 0).
    No match at any order: 0. smooth ``"exp"`` (the k-th order without a match gets precision
    1/(2^k total_n)), ``"floor"`` (smooth_value/total_n, default 0.1), ``"add-k"`` (adds
    smooth_value, default 1, to correct_n and total_n for n >= 2), ``"none"``. effective_order:
    average the log precisions only over orders with total_n > 0 (sacrebleu's default for
    sentences); else over all max_ngram_order orders, an empty order contributing log 0 as
    -9999999999.
    """

def bleu_batch(
    expected: Any,
    actual: Any,
    tokenizer: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = 4,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``bleu`` for each row: ``expected[i]`` (a ``str`` or a sequence of ``str``) holds row i's
    references, or expected is a text column (one reference per row)."""

def corpus_bleu(
    expected: Any,
    actual: Any,
    tokenizer: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
    workers: int = -1,
    max_chars: int | None = None,
) -> float:
    """Corpus BLEU in [0, 1]: the statistics of ``bleu`` summed over rows, then scored once;
    sacrebleu's ``corpus_bleu(actual, streams).score / 100`` where ``streams[k][i]`` is
    row i's k-th reference. No rows: 0.0."""

def chrf(
    expected: Any,
    actual: str,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    max_chars: int | None = None,
) -> float:
    """Sentence chrF in [0, 1] (chrF++ with ``word_order=2``): sacrebleu's
    ``CHRF(...).sentence_score(actual, refs).score / 100``.

    Texts are ``str.lower()``-ed when ``lowercase``. Character n-grams (orders
    1..char_order) of the text with every ``str.isspace`` character removed (kept when
    ``whitespace``); word n-grams (orders 1..word_order) of ``str.split()`` words, each word of
    two or more characters losing one trailing ASCII punctuation mark, or else one leading one,
    as a word of its own. Per order: hyp = n-grams of actual (0 when the reference has none of
    that order), ref = n-grams of the reference, match = the clipped overlap; precision =
    match/hyp and recall = match/ref averaged over the orders where both are non-zero;
    score = (1 + beta²)·P·R / (beta²·P + R), 0 when P + R = 0. ``eps_smoothing``: instead the
    mean over all orders of that per-order F (1e-16 for an undefined precision or recall). With
    several references the one scoring best is kept (the first on a tie).
    """

def chrf_batch(
    expected: Any,
    actual: Any,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``chrf`` for each row; ``expected[i]`` holds row i's references."""

def corpus_chrf(
    expected: Any,
    actual: Any,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int = -1,
    max_chars: int | None = None,
) -> float:
    """Corpus chrF in [0, 1]: each row's best-reference statistics summed, then scored once;
    sacrebleu's ``corpus_chrf`` / 100. No rows: 0.0."""

def gleu(
    expected: Any, actual: str, min_len: int = 1, max_len: int = 4, max_chars: int | None = None
) -> float:
    """Sentence GLEU as NLTK's ``sentence_gleu`` over whitespace tokens (``str.split()``):
    n-grams of orders ``min_len`` to ``max_len``; ``expected`` one reference or a sequence."""

def gleu_batch(
    expected: Any,
    actual: Any,
    min_len: int = 1,
    max_len: int = 4,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``gleu`` for each row; ``expected[i]`` holds row i's references."""

def corpus_gleu(
    expected: Any,
    actual: Any,
    min_len: int = 1,
    max_len: int = 4,
    workers: int = -1,
    max_chars: int | None = None,
) -> float:
    """NLTK's ``corpus_gleu``: the kept reference's matches and totals summed over rows, then
    divided once."""

def meteor(
    expected: Any,
    actual: str,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    max_chars: int | None = None,
) -> float:
    """METEOR as NLTK's ``meteor_score`` over whitespace tokens, lowercased, with exact and
    Porter-stem matches (no WordNet synonyms); the best over references."""

def meteor_batch(
    expected: Any,
    actual: Any,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    workers: int = -1,
    max_chars: int | None = None,
) -> npt.NDArray[np.float64]:
    """``meteor`` for each row; ``expected[i]`` holds row i's references."""

def bertscore_lists(
    expected: list[Any],
    actual: list[Any],
    workers: int = -1,
) -> npt.NDArray[np.float64] | None:
    """BERTScore (no idf) of each pair of token matrices, read in place: an (n, 3) array, or
    ``None`` when an item is not a C-contiguous float64 matrix with at least one row, the
    dimensions differ or the lists differ in length (then take the checked path). A row with
    NaN or infinity raises ``MetricInputError``."""

def bertscore_rows(
    expected: npt.NDArray[np.float64],
    expected_offsets: npt.NDArray[np.int64],
    actual: npt.NDArray[np.float64],
    actual_offsets: npt.NDArray[np.int64],
    expected_weights: npt.NDArray[np.float64],
    actual_weights: npt.NDArray[np.float64],
    workers: int = -1,
) -> npt.NDArray[np.float64]:
    """BERTScore precision, recall and F1 of each pair, an (n, 3) array. Pair i's token
    embeddings are rows ``offsets[i]:offsets[i + 1]`` of each side; one weight per token row.
    Greedy matching of unit-scaled rows: O(m·n·dim) per pair."""

def normalize_text_batch(
    texts: Any, ascii: bytes, table: dict[int, str], ascii_only: bool = True
) -> tuple[list[str | None], list[int], list[int]]:
    """The text strategies' normalizer over a batch, with the rule given per character: each
    character becomes its replacement (``ascii``: 128 bytes for the ASCII characters; ``table``:
    a non-ASCII code point to a ``str``), then runs of spaces become one and the ends are
    trimmed. Texts must already be in NFKC form. Returns ``(rows, pending, missing)``: a row is
    ``None`` and listed in ``pending`` when it is not ASCII and ``ascii_only`` is set, holds a
    lone surrogate, or holds a character ``table`` lacks; ``missing`` lists those characters'
    code points, sorted. Runs with the GIL held; O(total length)."""

def normalized_hits_batch(
    actual: Any,
    wanted: Any,
    owners: npt.NDArray[np.int64] | None,
    ascii: bytes,
    table: dict[int, str],
    contains: bool,
    ascii_only: bool = True,
) -> tuple[bytes, list[int], list[int]]:
    """For each pair ``k``, whether ``wanted[k]`` normalized by the rule (``ascii`` and
    ``table``, as :func:`normalize_text_batch` takes them; texts already in NFKC form) equals,
    or with ``contains`` occurs in, ``actual[owners[k]]`` normalized (``owners`` None:
    ``actual[k]``). Returns ``(hits, pending, missing)``: one byte a pair (1: a hit); the pairs,
    0 in ``hits``, left to the caller (a text that is not ASCII when ``ascii_only`` is set, one
    holding a lone surrogate, or a character ``table`` lacks); and those characters' code
    points, sorted. No normalized string is made; the comparisons run without the GIL;
    O(total length)."""

def inspect_match_batch(
    answers: Any,
    targets: Any,
    location: str,
    scorer: str,
    ignore_case: bool,
    chars: dict[int, tuple[str, bool]] | None = None,
) -> tuple[bytes, list[int], list[int]]:
    """For each pair ``k``, whether ``answers[k]`` matches ``targets[k]`` as inspect_ai's
    ``scorer`` (``"match"`` or ``"includes"``) decides at ``location`` (``"begin"``, ``"end"``,
    ``"any"`` or ``"exact"``; ``match`` only), case-folded when ``ignore_case``. The non-ASCII
    characters are ruled by ``chars``: a code point to ``(chr(c).casefold(), chr(c).isspace())``.
    Returns ``(hits, pending, missing)``: one byte a pair (1: a hit); the pairs (0 in ``hits``)
    left to the caller (a text with a lone surrogate, or with a character ``chars`` lacks, or
    any non-ASCII text when ``chars`` is None); and those characters' code points, sorted. No
    string is made; each pair is judged as it is read, in one pass with the GIL held;
    O(total length)."""

def fill_rows(
    forms: list[str],
    keys: list[int],
    columns: list[list[Any]],
    before: str = "",
    after: str = "",
) -> str | None:
    """Row ``r`` written by the form ``forms[keys[r]]``, whose k-th slot reads
    ``columns[k][r]``; rows joined by line feeds, the whole between ``before`` and ``after``.
    Slots: ``%s`` a text as it is (another value as ``str`` writes it), ``%C`` a text as a
    Markdown table cell, ``%H`` a text escaped for HTML, ``%.NR`` ``repr`` of a text cut to N
    characters with an ellipsis, ``%.Nf`` a number with N decimals, ``%.0s`` nothing; ``%%`` a
    percent sign. None when a text read holds a lone surrogate (so a text returned holds
    none). Runs with the GIL held; O(total length)."""

def fill_each(forms: list[str], keys: list[int], columns: list[list[Any]]) -> list[str] | None:
    """The rows of :func:`fill_rows`, one text each; None when a text read holds a lone
    surrogate."""

# The trace reader's fast path (evalmark.traces._fast).

@final
class RawSpan:
    """One span of an OTLP JSON request read by the fast path."""

    @property
    def trace_id(self) -> str:
        """The trace id (lower-case hex)."""

    def fields(self) -> tuple[Any, ...]:
        """The arguments of a ``Span``: ids, name, kind, times, attributes, events (none),
        status code and message, the resource's attributes."""

def otlp_json_spans(data: bytes) -> list[RawSpan] | None:
    """The spans of one OTLP JSON request, or None when it is not in the common form (the
    Python decoder reads it then, and reports what is wrong with it)."""

def assemble_trace(
    spans: list[Any], match: str | None = None, source: str | None = None
) -> tuple[str, str, list[tuple[str, str, str | None]], Any] | None:
    """One trace's spans as ``(trace_id, name, problems, case)``: ``case`` is a ``TestCase``
    (None for a trace that cannot be evaluated). None when the trace needs the Python
    assembler, a span is not a ``RawSpan``, or :func:`trace_setup` was not called."""

def trace_setup(
    known: list[str],
    prefixes: list[str],
    blanks: tuple[Any, Any, Any, Any],
    encode: Callable[[Any], bytes],
    text_of: Callable[[Any], str],
) -> None:
    """Hand the fast path the reader's known attribute keys and key prefixes, the blank
    ``(TestCase, ToolCall, ReasoningStep, TokenUsage)`` its values are copied from, and the
    function giving a value as text with the JSON encoder it uses. A later call replaces
    them."""

# evalmark score's JSONL fast path (evalmark.scoring._jsonl_fast).

def jsonl_text_columns(
    block: bytes,
    start: int,
    max_lines: int,
    max_bytes: int,
    first_line: int,
    expected: str,
    actual: str,
    id: str | None = None,
) -> tuple[
    int,
    int,
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint8],
        npt.NDArray[np.int64],
        list[str | int] | None,
    ]
    | None,
]:
    """The next chunk of the JSONL text ``block`` (whole lines) from byte ``start``, cut as
    ``jsonl_batches`` cuts it (``max_lines`` lines, blank ones counted, or ``max_bytes``):
    ``(end, lines, starts, ends, numbers, columns)``: where its last line ends, the lines
    passed, the byte spans and 1-based numbers of its non-blank lines, and the two text
    columns (UTF-8 data and offsets each) with the ids (None without ``id``), or None when a
    line must be read by msgspec (not an object with those fields and types, or a form the
    strict reader leaves to msgspec). Reads without the GIL."""

def csv_text_columns(
    block: bytes,
    start: int,
    max_records: int,
    max_bytes: int,
    first_line: int,
    width: int,
    expected: int,
    actual: int,
    id: int | None = None,
) -> (
    tuple[
        int,
        int,
        int,
        bool,
        npt.NDArray[np.int64],
        tuple[
            npt.NDArray[np.uint8],
            npt.NDArray[np.int64],
            npt.NDArray[np.uint8],
            npt.NDArray[np.int64],
            list[str] | None,
        ],
    ]
    | None
):
    """The next chunk of CSV records of ``block`` from byte ``start`` (line ``first_line``):
    up to ``max_records`` records (blank lines counted), fewer past ``max_bytes``. None when a
    record must be read by Python's ``csv`` module (anything but plain RFC 4180 records as
    wide as the header, ``width``, in UTF-8); else ``(end, next_line, records, cut, numbers,
    columns)``: where it ends, the line there, the records passed, whether a record ran past
    the block's end (read more, ask again), each non-blank record's first line, and the
    fields ``expected``, ``actual`` (UTF-8 data and offsets each) and ``id`` (None without).
    Reads without the GIL."""

# The inspect_ai log import's fast path (evalmark.interop._inspect_scan).

# what both inspect scans give: the header's fields as JSON text, then the columns
_InspectColumns: TypeAlias = tuple[
    dict[str, str],
    list[int | str],
    list[int | None],
    list[str],
    list[str],
    dict[str, list[str | None]],
]

def inspect_scan(data: bytes, header: Sequence[str]) -> _InspectColumns | None:
    """The common inspect_ai ``.json`` log whose bytes are ``data`` (the logs
    ``_inspect_common.read_common`` accepts), its own fields named ``header`` (at most 31:
    ``_inspect_log.HEADER``), as ``(header, ids, epochs, targets, completions, scores)``: the
    log's own fields present, as JSON text, then one item per sample in order
    (``scores``: per scorer any sample names, each sample's ``scores[name].value`` when a
    text, else None). None for any other log, and for a few common ones left to the general
    reading (a key repeated, nesting deeper than 64, an integer outside int64). Scans without
    the GIL, building nothing for skipped values."""

def inspect_eval_scan(data: bytes) -> _InspectColumns | None:
    """The common inspect_ai ``.eval`` log (a zip) whose bytes are ``data``, as
    :func:`inspect_scan` gives a ``.json`` log's; the header holds every field of
    ``header.json`` (and ``reductions.json``'s text as ``reductions`` when it has none).
    None for any other log: a zip that is not a plain one (a comment, data before it, an
    encrypted member, a method but stored or deflated, a name twice or not ASCII), a member
    read that is damaged, no ``header.json``, or a sample the ``.json`` scan leaves to the
    general reading. Reads without the GIL, the members inflated in parallel."""

# The promptfoo results import's fast path (evalmark.interop._promptfoo_scan).

def promptfoo_scan(
    data: bytes,
    shape: tuple[
        Sequence[str], Sequence[str], Sequence[str], Sequence[str], Sequence[str], Sequence[str]
    ],
) -> (
    tuple[
        dict[str, str],
        list[str],
        list[str],
        list[str],
        list[str | None],
        list[int] | None,
        list[int] | None,
        list[str],
    ]
    | None
):
    """The common promptfoo results file whose bytes are ``data`` (version 3, read through
    typed test cases by ``_promptfoo_results`` without refusing a row), of the ``shape``
    (the keys the document, the results body, a row, a test case and an assertion may hold,
    then the assertion types carried), as ``(kept, names, expected, types, providers,
    samples, builds, answers)``: the file's own fields present (``version`` among them), as
    JSON text;
    the samples in the order first seen, their names and expected outputs; the assertion types
    of their test cases; the providers' JSON texts in the order first seen (None: a row
    naming none); then per row its sample and its provider, as indexes into those (None: row
    ``i`` answers sample ``i``; one provider), and its answer. None for any other file, and
    for a few common ones left to the general reading (a key repeated, nesting deeper than
    64, an integer outside int64, an ``equals`` value that is not a text, no row). Scans
    without the GIL, building nothing for skipped values."""
