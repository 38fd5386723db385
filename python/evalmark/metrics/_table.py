"""The metric table: every metric evalmark computes, declared once.

A :class:`MetricFunction` is a public function pair of :mod:`evalmark.metrics` (``rouge_n`` and
``rouge_n_batch``) over one batch kernel of ``evalmark._core``: its options with their
defaults, the range of its scores and the reference it equals. A :class:`Metric` is a name for
one number: a function with some options fixed (``rouge1_stemmed`` is ``rouge_n`` with ``n=1``
and ``stemmer="porter"``). A name that is also a function's name fixes nothing, so ``rouge_l``
is the same number wherever it appears.

Everything that names a metric reads this table: the metric strategies and the suite kinds
(:mod:`evalmark.strategies`), and the ``evalmark score`` metric names (:mod:`evalmark.scoring`).
A test checks that the public functions' signatures and defaults are the ones declared here,
and that every name gives the same number through the function, its strategy, its suite kind
and ``evalmark score``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from evalmark.metrics._declare import Inputs, Metric, MetricFunction, ScoreType
from evalmark.metrics._option import Option

__all__ = [
    "FUNCTIONS",
    "METRICS",
    "Inputs",
    "Metric",
    "MetricFunction",
    "ScoreType",
    "metric_table_markdown",
]

_TOKENIZER = Option("tokenizer", "rouge", ("rouge", "unicode"))
_MEASURE = Option("measure", "fmeasure", ("fmeasure", "precision", "recall"))
_STEMMER = Option("stemmer", None, (None, "porter"))
_ROUGE_SCORE = "rouge_score's RougeScorer"
_UNIT = "[0, 1]"

_SQUAD_OPTIONS = (
    Option("normalizer", "squad", ("squad", "none")),
    Option("version", "v2", ("v2", "v1.1")),
)
TOKEN_F1 = MetricFunction(
    "token_f1",
    "_overlap",
    _SQUAD_OPTIONS,
    "SQuAD token F1",
    _UNIT,
    "the SQuAD v2.0 script's compute_f1 (the max over gold answers for a list); "
    "version='v1.1': the v1.1 script's f1_score",
    targets="many",
)
SQUAD_EXACT_MATCH = MetricFunction(
    "squad_exact_match",
    "_overlap",
    _SQUAD_OPTIONS,
    "SQuAD exact match of normalized answers",
    "True or False",
    "the SQuAD v2.0 script's compute_exact (the max over gold answers for a list); "
    "version='v1.1': the v1.1 script's exact_match_score",
    dtype="bool",
    targets="many",
)
ROUGE_L = MetricFunction(
    "rouge_l",
    "_overlap",
    (_TOKENIZER, _MEASURE, _STEMMER),
    "ROUGE-L (longest common subsequence of tokens)",
    _UNIT,
    f'{_ROUGE_SCORE}(["rougeL"])',
    quadratic=True,
    targets="many",
)
ROUGE_N = MetricFunction(
    "rouge_n",
    "_overlap",
    (Option("n", 1, kind="int", minimum=1), _TOKENIZER, _STEMMER, _MEASURE),
    "ROUGE-N (clipped n-gram overlap)",
    _UNIT,
    f'{_ROUGE_SCORE}(["rouge1"]), ["rouge2"], ...',
    targets="many",
)
ROUGE_LSUM = MetricFunction(
    "rouge_lsum",
    "_overlap",
    (_TOKENIZER, _STEMMER, _MEASURE, Option("split_summaries", False, kind="bool")),
    "ROUGE-Lsum (union LCS over newline-separated sentences)",
    _UNIT,
    f'{_ROUGE_SCORE}(["rougeLsum"]); split_summaries=True splits sentences by evalmark\'s '
    "rule (split_summaries), where rouge-score uses nltk's Punkt",
    quadratic=True,
    targets="many",
)
BLEU = MetricFunction(
    "bleu",
    "_reference",
    (
        Option("tokenize", "13a", ("13a", "intl", "none", "char", "zh")),
        Option("lowercase", False, kind="bool"),
        Option("smooth_method", "exp", ("exp", "floor", "add-k", "none")),
        Option("smooth_value", None, kind="number"),
        Option("effective_order", True, kind="bool"),
        Option("max_ngram_order", 4, tuple(range(1, 11))),
    ),
    "sentence BLEU, divided by 100",
    _UNIT,
    "sacrebleu's sentence_bleu(actual, [expected]).score / 100",
    targets="many",
)
CHRF = MetricFunction(
    "chrf",
    "_reference",
    (
        Option("char_order", 6, kind="int", minimum=1),
        Option("word_order", 0, (0, 1, 2)),
        Option("beta", 2, kind="int", minimum=1),
        Option("whitespace", False, kind="bool"),
        Option("eps_smoothing", False, kind="bool"),
        Option("lowercase", False, kind="bool"),
    ),
    "sentence chrF (word_order=2: chrF++), divided by 100",
    _UNIT,
    "sacrebleu's sentence_chrf(actual, [expected]).score / 100",
    targets="many",
)
_WEIGHTS = Option("weights", (1, 1, 1), kind="weights")
_COUNT_CUTOFF = Option("score_cutoff", None, kind="int")
_FRACTION_CUTOFF = Option("score_cutoff", None, kind="number")
LEVENSHTEIN_SIMILARITY = MetricFunction(
    "levenshtein_similarity",
    "_edit",
    (_WEIGHTS, _FRACTION_CUTOFF),
    "Levenshtein similarity, 1 - distance / longer length",
    _UNIT,
    "rapidfuzz.distance.Levenshtein.normalized_similarity",
    quadratic=True,
)
LEVENSHTEIN_DISTANCE = MetricFunction(
    "levenshtein_distance",
    "_edit",
    (_WEIGHTS, _COUNT_CUTOFF),
    "Levenshtein edit distance over code points",
    "a count of edits (a weighted cost), 0 or more",
    "rapidfuzz.distance.Levenshtein.distance",
    dtype="int64",
    quadratic=True,
)
LEVENSHTEIN_NORMALIZED_DISTANCE = MetricFunction(
    "levenshtein_normalized_distance",
    "_edit",
    (_WEIGHTS, _FRACTION_CUTOFF),
    "Levenshtein distance over its largest possible value",
    _UNIT,
    "rapidfuzz.distance.Levenshtein.normalized_distance",
    quadratic=True,
)
INDEL_DISTANCE = MetricFunction(
    "indel_distance",
    "_edit",
    (_COUNT_CUTOFF,),
    "insertions and deletions only (no substitution)",
    "a count of edits, 0 or more",
    "rapidfuzz.distance.Indel.distance",
    dtype="int64",
    quadratic=True,
)
INDEL_NORMALIZED_DISTANCE = MetricFunction(
    "indel_normalized_distance",
    "_edit",
    (_FRACTION_CUTOFF,),
    "Indel distance over the sum of the lengths",
    _UNIT,
    "rapidfuzz.distance.Indel.normalized_distance",
    quadratic=True,
)
_RATE = "0 or more (errors per reference unit; over 1 when the output adds much)"
WER = MetricFunction(
    "wer",
    "_wer",
    (),
    "word error rate",
    _RATE,
    "jiwer.wer(expected, actual)",
    quadratic=True,
)
CER = MetricFunction(
    "cer",
    "_wer",
    (),
    "character error rate",
    _RATE,
    "jiwer.cer(expected, actual)",
    quadratic=True,
)
JSON_MATCH = MetricFunction(
    "json_match",
    "_jsonmatch",
    (Option("numbers", "value", ("value", "strict")),),
    "JSON documents equal by meaning",
    "True or False",
    "json.dumps(json.loads(x), sort_keys=True) equality (numbers='strict')",
    dtype="bool",
    blame="expected",
)
GLEU = MetricFunction(
    "gleu",
    "_nlg",
    (
        Option("min_len", 1, kind="int", minimum=1),
        Option("max_len", 4, kind="int", minimum=1),
    ),
    "sentence GLEU over whitespace tokens (best reference)",
    _UNIT,
    "nltk.translate.gleu_score.sentence_gleu([e.split() for e in refs], actual.split())",
    targets="many",
)
METEOR = MetricFunction(
    "meteor",
    "_nlg",
    (
        Option("alpha", 0.9, kind="number"),
        Option("beta", 3.0, kind="number"),
        Option("gamma", 0.5, kind="number"),
    ),
    "METEOR over whitespace tokens, exact and Porter-stem matches (no WordNet synonyms)",
    _UNIT,
    "nltk.translate.meteor_score.meteor_score on str.split() tokens, with a WordNet that "
    "knows no synonyms",
    targets="many",
)
COSINE = MetricFunction(
    "cosine",
    "_vectors",
    (),
    "cosine similarity of two vectors",
    "[-1, 1]; 0.0 when either vector is zero",
    "numpy in float64",
    inputs="vector",
)

FUNCTIONS: Mapping[str, MetricFunction] = MappingProxyType(
    {
        f.name: f
        for f in (
            TOKEN_F1,
            SQUAD_EXACT_MATCH,
            ROUGE_L,
            ROUGE_N,
            ROUGE_LSUM,
            BLEU,
            CHRF,
            LEVENSHTEIN_SIMILARITY,
            LEVENSHTEIN_DISTANCE,
            LEVENSHTEIN_NORMALIZED_DISTANCE,
            INDEL_DISTANCE,
            INDEL_NORMALIZED_DISTANCE,
            WER,
            CER,
            JSON_MATCH,
            GLEU,
            METEOR,
            COSINE,
        )
    }
)
"""Every metric function, by its public name."""

_STEMMED = {"stemmer": "porter"}
_NONE = "—"


def _rouge(key: str, stemmed: bool = False) -> str:
    return f'RougeScorer(["{key}"]{", use_stemmer=True" if stemmed else ""})'


_METRICS: tuple[Metric, ...] = (
    Metric("token_f1", TOKEN_F1),
    Metric(
        "token_f1_raw",
        TOKEN_F1,
        {"normalizer": "none"},
        "token F1, whitespace split only",
        _NONE,
    ),
    Metric("squad_exact_match", SQUAD_EXACT_MATCH),
    Metric("rouge_l", ROUGE_L, {}, "ROUGE-L F-measure", f"{_rouge('rougeL')} F-measure"),
    Metric(
        "rouge_l_precision",
        ROUGE_L,
        {"measure": "precision"},
        "ROUGE-L precision",
        f"{_rouge('rougeL')} precision",
    ),
    Metric(
        "rouge_l_recall",
        ROUGE_L,
        {"measure": "recall"},
        "ROUGE-L recall",
        f"{_rouge('rougeL')} recall",
    ),
    Metric(
        "rouge_l_unicode",
        ROUGE_L,
        {"tokenizer": "unicode"},
        "ROUGE-L F-measure over Unicode letters and digits",
        _NONE,
    ),
    Metric(
        "rouge_l_stemmed",
        ROUGE_L,
        _STEMMED,
        "ROUGE-L F-measure, Porter-stemmed",
        _rouge("rougeL", True),
    ),
    Metric("rouge1", ROUGE_N, {"n": 1}, "ROUGE-1 F-measure", _rouge("rouge1")),
    Metric(
        "rouge1_stemmed",
        ROUGE_N,
        {"n": 1, **_STEMMED},
        "ROUGE-1 F-measure, Porter-stemmed",
        _rouge("rouge1", True),
    ),
    Metric("rouge2", ROUGE_N, {"n": 2}, "ROUGE-2 F-measure", _rouge("rouge2")),
    Metric(
        "rouge2_stemmed",
        ROUGE_N,
        {"n": 2, **_STEMMED},
        "ROUGE-2 F-measure, Porter-stemmed",
        _rouge("rouge2", True),
    ),
    Metric("rouge3", ROUGE_N, {"n": 3}, "ROUGE-3 F-measure", _rouge("rouge3")),
    Metric("rouge4", ROUGE_N, {"n": 4}, "ROUGE-4 F-measure", _rouge("rouge4")),
    Metric("rouge5", ROUGE_N, {"n": 5}, "ROUGE-5 F-measure", _rouge("rouge5")),
    Metric("rouge_lsum", ROUGE_LSUM, {}, "ROUGE-Lsum F-measure", _rouge("rougeLsum")),
    Metric(
        "rouge_lsum_stemmed",
        ROUGE_LSUM,
        _STEMMED,
        "ROUGE-Lsum F-measure, Porter-stemmed",
        _rouge("rougeLsum", True),
    ),
    Metric("bleu", BLEU, {}, "sentence BLEU (sacrebleu's / 100)"),
    Metric("chrf", CHRF, {}, "sentence chrF (sacrebleu's / 100)"),
    Metric(
        "chrf_pp",
        CHRF,
        {"word_order": 2},
        "sentence chrF++ (sacrebleu's / 100)",
        "sacrebleu's sentence_chrf(actual, [expected], word_order=2).score / 100",
    ),
    Metric("levenshtein_similarity", LEVENSHTEIN_SIMILARITY),
    Metric("levenshtein_distance", LEVENSHTEIN_DISTANCE),
    Metric("levenshtein_normalized_distance", LEVENSHTEIN_NORMALIZED_DISTANCE),
    Metric("indel_distance", INDEL_DISTANCE),
    Metric("indel_normalized_distance", INDEL_NORMALIZED_DISTANCE),
    Metric("wer", WER),
    Metric("cer", CER),
    Metric("json_match", JSON_MATCH, {}, "JSON equality, numbers by value", _NONE),
    Metric("json_match_strict", JSON_MATCH, {"numbers": "strict"}, "JSON equality, 1 != 1.0"),
    Metric("gleu", GLEU),
    Metric("meteor", METEOR),
    Metric("cosine", COSINE),
)

METRICS: Mapping[str, Metric] = MappingProxyType({m.name: m for m in _METRICS})
"""Every metric name, in the order ``evalmark score --help`` lists them."""


def metric_table_markdown() -> str:
    """The table of metric names as Markdown (docs/metrics.md holds this text)."""
    lines = [
        "| name | function and options | scores | equal to |",
        "|---|---|---|---|",
    ]
    for metric in METRICS.values():
        settings = ", ".join(f"{k}={v!r}" for k, v in metric.settings.items())
        call = f"`{metric.function.name}({settings})`" if settings else f"`{metric.function.name}`"
        lines.append(
            f"| `{metric.name}` | {call} | {metric.function.score_range} | {metric.reference} |"
        )
    return "\n".join(lines) + "\n"
