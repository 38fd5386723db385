"""ROUGE-N, ROUGE-Lsum and stemmed ROUGE-L against rouge-score, value by value.

The reference is ``rouge_score.rouge_scorer.RougeScorer([...], use_stemmer=...)``; its stemmer
is NLTK's ``PorterStemmer()`` (mode NLTK_EXTENSIONS) on tokens longer than three characters.
Every figure is computed with the same floating-point operations in the same order, so the
comparisons are exact.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer
from rouge_score import rouge_scorer

import evalmark
import evalmark.metrics as em
import oracles
from evalmark.errors import MetricInputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import workload

ROOT = Path(__file__).resolve().parents[2]

MEASURES = ("precision", "recall", "fmeasure")
STEMMERS = (None, "porter")
# rouge-score scores about 500 pairs a second: the oracle comparisons take 2,000 of them
WORKLOAD_N = 2000

# Words that the stemmer changes, in several inflections, plus the tricky words and characters
# of the shared oracles (case, Unicode, punctuation, whitespace of every kind).
INFLECTED = [
    "running",
    "runs",
    "ran",
    "runner",
    "cats",
    "cat",
    "caresses",
    "ponies",
    "flies",
    "dies",
    "dying",
    "lied",
    "lying",
    "agreed",
    "feed",
    "generalization",
    "generalizations",
    "hopefully",
    "hopeful",
    "relational",
    "conditional",
    "rationally",
    "happiness",
    "happily",
    "connection",
    "connected",
    "connecting",
    "connects",
    "sky",
    "skies",
    "news",
    "innings",
    "proceed",
    "exceeded",
    "yyyy",
    "syzygy",
    "1990s",
    "mp3s",
    "COVID19",
    "Running",
    "RUNS",
    "Flies",
]
SEPARATORS = (" ", " ", " ", ", ", ". ", "\n", " \n ", "\t", "-", "'s ", "\u00e9 ", "\u3000")

text = oracles.text_strategy()
inflected_text = st.lists(
    st.tuples(st.sampled_from(INFLECTED), st.sampled_from(SEPARATORS)), max_size=30
).map(lambda parts: "".join(w + s for w, s in parts))
any_text = st.one_of(text, inflected_text)
# Several lines, for ROUGE-Lsum: sentences of words, some empty, some blank.
lines = st.lists(st.one_of(inflected_text, text, st.just(""), st.just("  ")), max_size=6).map(
    "\n".join
)

_SCORERS: dict[tuple[str, bool], Any] = {}


def reference(kind: str, stemmer: str | None, expected: str, actual: str) -> dict[str, float]:
    """rouge-score's precision, recall and F for ``kind`` ("rouge1", "rougeLsum", ...)."""
    key = (kind, stemmer is not None)
    if key not in _SCORERS:
        _SCORERS[key] = rouge_scorer.RougeScorer([kind], use_stemmer=stemmer is not None)
    s = _SCORERS[key].score(expected, actual)[kind]
    return {"precision": s.precision, "recall": s.recall, "fmeasure": s.fmeasure}


def ours(kind: str, stemmer: str | None, expected: str, actual: str) -> dict[str, float]:
    out = {}
    for m in MEASURES:
        if kind == "rougeL":
            out[m] = em.rouge_l(expected, actual, stemmer=stemmer, measure=m)  # type: ignore[arg-type]
        elif kind == "rougeLsum":
            out[m] = em.rouge_lsum(expected, actual, stemmer=stemmer, measure=m)  # type: ignore[arg-type]
        else:
            out[m] = em.rouge_n(expected, actual, n=int(kind[5:]), stemmer=stemmer, measure=m)  # type: ignore[arg-type]
    return out


def batch(kind: str, exp: list[str], act: list[str], **kw: Any) -> np.ndarray:
    if kind == "rougeL":
        return em.rouge_l_batch(exp, act, **kw)
    if kind == "rougeLsum":
        return em.rouge_lsum_batch(exp, act, **kw)
    return em.rouge_n_batch(exp, act, n=int(kind[5:]), **kw)


# ---------------------------------------------------------------------------- the stemmer


def test_porter_vectors_equal_the_installed_nltk() -> None:
    """The word/stem file the Rust stemmer is tested on is what this NLTK gives."""
    stemmer = PorterStemmer()
    rows = [
        line.split("\t")
        for line in (ROOT / "rust/metrics/testdata/porter_nltk.tsv").read_text().splitlines()
        if not line.startswith("#")
    ]
    assert len(rows) > 5000
    wrong = [(w, s, stemmer.stem(w)) for w, s in rows if stemmer.stem(w) != s]
    assert wrong == []


def test_rouge_score_stems_with_nltk_extensions() -> None:
    """The facts the kernel relies on: rouge-score's stemmer is NLTK's default mode, and only
    tokens longer than three characters are stemmed."""
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    stemmer = scorer._tokenizer._stemmer
    assert stemmer.mode == PorterStemmer.NLTK_EXTENSIONS
    assert scorer._tokenizer.tokenize("dies dying ies flies") == ["die", "die", "ies", "fli"]


@given(st.lists(st.sampled_from(INFLECTED), min_size=1, max_size=20))
def test_stemming_conflates_like_rouge_score(words: list[str]) -> None:
    # Each word against its NLTK stem: a hit exactly when rouge-score's tokens agree.
    for w in words:
        stem = PorterStemmer().stem(w.lower())
        assert (
            em.rouge_n(w, stem, stemmer="porter")
            == reference("rouge1", "porter", w, stem)["fmeasure"]
        )


# ---------------------------------------------------------------------------- against rouge-score


@given(any_text, any_text, st.sampled_from(["rouge1", "rouge2", "rouge3", "rouge4"]))
def test_rouge_n_equals_rouge_score(expected: str, actual: str, kind: str) -> None:
    for stemmer in STEMMERS:
        assert ours(kind, stemmer, expected, actual) == reference(kind, stemmer, expected, actual)


@given(lines, lines)
def test_rouge_lsum_equals_rouge_score(expected: str, actual: str) -> None:
    for stemmer in STEMMERS:
        got = ours("rougeLsum", stemmer, expected, actual)
        assert got == reference("rougeLsum", stemmer, expected, actual)


@given(any_text, any_text)
def test_stemmed_rouge_l_equals_rouge_score(expected: str, actual: str) -> None:
    assert ours("rougeL", "porter", expected, actual) == reference(
        "rougeL", "porter", expected, actual
    )


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("", ""),
        ("", "a"),
        ("a", ""),
        ("\n\n", "a\n"),
        ("...", "!!!"),
        ("The cat.\nThe dog.", "the dog\nthe cat"),
        ("a b c\na b c", "a b c"),
        ("a\u0130b K\u212a", "ai bk kk"),
        ("caf\u00e9 na\u00efve", "caf na ve"),
        ("running\r\nflies", "run\nfli"),
    ],
)
@pytest.mark.parametrize("kind", ["rouge1", "rouge2", "rouge9", "rougeL", "rougeLsum"])
def test_edge_cases_equal_rouge_score(expected: str, actual: str, kind: str) -> None:
    for stemmer in STEMMERS:
        assert ours(kind, stemmer, expected, actual) == reference(kind, stemmer, expected, actual)


@pytest.fixture(scope="module")
def text_workload() -> tuple[list[str], list[str]]:
    exp, act = workload.text_pairs(WORKLOAD_N, seed=11)
    # Every third pair as several lines, so ROUGE-Lsum sees real sentence structure.
    exp = [
        e.replace(". ", ".\n").replace(", ", ",\n") if i % 3 == 0 else e for i, e in enumerate(exp)
    ]
    act = [a.replace(", ", "\n") if i % 3 == 1 else a for i, a in enumerate(act)]
    return exp, act


@pytest.mark.parametrize("kind", ["rouge1", "rouge2", "rougeLsum", "rougeL"])
def test_workload_equals_rouge_score(text_workload: tuple[list[str], list[str]], kind: str) -> None:
    exp, act = text_workload
    scorer = rouge_scorer.RougeScorer([kind], use_stemmer=True)
    scores = [scorer.score(e, a)[kind] for e, a in zip(exp, act, strict=True)]
    for m in MEASURES:
        got = batch(kind, exp, act, stemmer="porter", measure=m).tolist()
        assert got == [getattr(s, m) for s in scores], m


# ---------------------------------------------------------------------------- long and repetitive


def test_lsum_of_single_lines_is_rouge_l() -> None:
    """Without newlines ROUGE-Lsum's union LCS is the LCS itself: equal to ROUGE-L, which makes
    texts far too long for rouge-score's quadratic Python table checkable."""
    rng = random.Random(3)
    vocab = [w.lower() for w in INFLECTED] + [f"w{i}" for i in range(300)]
    for size in (5_000, 40_000):
        e = " ".join(rng.choice(vocab) for _ in range(size))
        a = " ".join(rng.choice(vocab) for _ in range(size + 137))
        for stemmer in STEMMERS:
            for m in MEASURES:
                lsum = em.rouge_lsum(e, a, stemmer=stemmer, measure=m)  # type: ignore[arg-type]
                assert lsum == em.rouge_l(e, a, stemmer=stemmer, measure=m)  # type: ignore[arg-type]


def test_long_multiline_texts_equal_rouge_score() -> None:
    rng = random.Random(4)
    vocab = [w.lower() for w in INFLECTED[:20]]
    e = "\n".join(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 40))) for _ in range(60))
    a = "\n".join(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 40))) for _ in range(50))
    for kind in ("rouge1", "rouge2", "rougeLsum"):
        for stemmer in STEMMERS:
            assert ours(kind, stemmer, e, a) == reference(kind, stemmer, e, a)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("the " * 3000, "the " * 2000),
        ("a b " * 1500, "b a " * 1600),
        ("running " * 800 + "\n" + "runs " * 700, "run\n" * 900),
        ("x", "x " * 5000),
    ],
)
def test_pathological_repetition(expected: str, actual: str) -> None:
    for kind in ("rouge1", "rouge2", "rouge4"):
        for stemmer in STEMMERS:
            assert ours(kind, stemmer, expected, actual) == reference(
                kind, stemmer, expected, actual
            )
    for stemmer in STEMMERS:
        got = em.rouge_lsum(expected, actual, stemmer=stemmer)  # type: ignore[arg-type]
        if "\n" not in expected + actual:
            assert got == em.rouge_l(expected, actual, stemmer=stemmer)  # type: ignore[arg-type]
        else:
            assert got == reference("rougeLsum", stemmer, expected, actual)["fmeasure"]


def test_very_long_token_and_large_n() -> None:
    word = "ab" * 50_000 + "ing"
    assert em.rouge_n(word, word[:-3], stemmer="porter") == 1.0
    assert em.rouge_n(word, word[:-3]) == 0.0
    assert ours("rouge1", "porter", word, word[:-3]) == reference(
        "rouge1", "porter", word, word[:-3]
    )
    # rouge-score stops at n = 9; one 10-gram of two matches.
    e, a = "a b c d e f g h i j", "a b c d e f g h i j k"
    assert em.rouge_n(e, a, n=10, measure="recall") == 1.0
    assert em.rouge_n(e, a, n=10, measure="precision") == 0.5
    assert em.rouge_n(e, a, n=11) == 0.0


# ---------------------------------------------------------------------------- properties

BATCHES: dict[str, Callable[..., np.ndarray]] = {
    "rouge1": lambda e, a, **kw: em.rouge_n_batch(e, a, **kw),
    "rouge2_stem": lambda e, a, **kw: em.rouge_n_batch(e, a, n=2, stemmer="porter", **kw),
    "rouge3_unicode_recall": lambda e, a, **kw: em.rouge_n_batch(
        e, a, n=3, tokenizer="unicode", measure="recall", **kw
    ),
    "rougeLsum": lambda e, a, **kw: em.rouge_lsum_batch(e, a, **kw),
    "rougeLsum_stem_p": lambda e, a, **kw: em.rouge_lsum_batch(
        e, a, stemmer="porter", measure="precision", **kw
    ),
    "rougeL_stem": lambda e, a, **kw: em.rouge_l_batch(e, a, stemmer="porter", **kw),
}
SCALARS: dict[str, Callable[[str, str], float]] = {
    "rouge1": lambda e, a: em.rouge_n(e, a),
    "rouge2_stem": lambda e, a: em.rouge_n(e, a, n=2, stemmer="porter"),
    "rouge3_unicode_recall": lambda e, a: em.rouge_n(
        e, a, n=3, tokenizer="unicode", measure="recall"
    ),
    "rougeLsum": lambda e, a: em.rouge_lsum(e, a),
    "rougeLsum_stem_p": lambda e, a: em.rouge_lsum(e, a, stemmer="porter", measure="precision"),
    "rougeL_stem": lambda e, a: em.rouge_l(e, a, stemmer="porter"),
}


@pytest.mark.parametrize("name", BATCHES)
@given(pairs=st.lists(st.tuples(any_text, lines), max_size=12))
def test_batch_equals_scalar_and_stays_in_bounds(name: str, pairs: list[tuple[str, str]]) -> None:
    exp, act = [e for e, _ in pairs], [a for _, a in pairs]
    got = BATCHES[name](exp, act)
    assert got.dtype == np.float64 and got.shape == (len(pairs),)
    assert got.tolist() == [SCALARS[name](e, a) for e, a in pairs]
    assert ((got >= 0.0) & (got <= 1.0)).all()


@pytest.mark.parametrize("name", BATCHES)
def test_identity_and_empty(name: str) -> None:
    scalar = SCALARS[name]
    assert scalar("The cats were running home.", "The cats were running home.") == 1.0
    assert scalar("", "") == 0.0
    assert scalar("", "the cat") == 0.0
    out = BATCHES[name]([], [])
    assert out.shape == (0,) and out.dtype == np.float64


@pytest.mark.parametrize("name", BATCHES)
def test_workers_give_identical_bits(name: str) -> None:
    exp, act = workload.text_pairs(3000, seed=5)
    exp = [e.replace(", ", "\n") for e in exp]
    serial = BATCHES[name](exp, act, workers=1).tobytes()
    for w in (2, 3, -1, None):
        assert BATCHES[name](exp, act, workers=w).tobytes() == serial, w


def test_text_columns_equal_lists() -> None:
    exp, act = workload.text_pairs(500, seed=6)
    ce, ca = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
    for name, fn in BATCHES.items():
        assert fn(ce, ca).tobytes() == fn(exp, act).tobytes(), name


def test_threads_equal_serial() -> None:
    exp, act = workload.text_pairs(400, seed=8)
    jobs = [(name, k) for k in range(8) for name in BATCHES]
    serial = {(n, k): BATCHES[n](exp[k * 20 :], act[k * 20 :], workers=1) for n, k in jobs}
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(
            pool.map(lambda job: BATCHES[job[0]](exp[job[1] * 20 :], act[job[1] * 20 :]), jobs)
        )
    for job, got in zip(jobs, results, strict=True):
        assert got.tobytes() == serial[job].tobytes(), job


def test_exported_from_the_metrics_face_only() -> None:
    for name in ("rouge_n", "rouge_n_batch", "rouge_lsum", "rouge_lsum_batch"):
        assert name in em.__all__
        assert name not in evalmark.__all__


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: em.rouge_n(1, "a"), TypeError, "expected must be str, got int"),  # type: ignore[arg-type]
        (lambda: em.rouge_lsum("a", None), TypeError, "actual must be str, got NoneType"),  # type: ignore[arg-type]
        (lambda: em.rouge_n("a", "a", n=0), MetricInputError, "n must be"),
        (lambda: em.rouge_n("a", "a", n=-2), MetricInputError, "n must be"),
        (lambda: em.rouge_n("a", "a", n=True), TypeError, "n must be an int"),  # type: ignore[arg-type]
        (lambda: em.rouge_n("a", "a", n=2.0), TypeError, "n must be an int"),  # type: ignore[arg-type]
        (lambda: em.rouge_n("a", "a", stemmer="snowball"), MetricInputError, "stemmer"),  # type: ignore[arg-type]
        (lambda: em.rouge_l("a", "a", stemmer=1), TypeError, "stemmer"),  # type: ignore[arg-type]
        (lambda: em.rouge_lsum("a", "a", measure="f1"), MetricInputError, "measure"),  # type: ignore[arg-type]
        (lambda: em.rouge_n_batch(["a"], ["a", "b"]), MetricInputError, "got 1 and 2"),
        (lambda: em.rouge_lsum_batch(["a", 3], ["a", "b"]), TypeError, "row 1 of expected"),  # type: ignore[list-item]
        (lambda: em.rouge_n_batch("ab", ["a", "b"]), TypeError, "single str"),  # type: ignore[arg-type]
        (lambda: em.rouge_n_batch(["a"], ["b"], workers=0), MetricInputError, "workers"),
    ],
)
def test_bad_input_gets_a_clear_error(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()
