"""GLEU and METEOR against NLTK on the same whitespace tokens (``str.split()``), on NLTK's own
doctest examples and on generated sentences; METEOR with a WordNet stub that knows no synonyms
(NLTK's WordNet data is a download). BERTScore against a direct numpy transcription of the
``bert_score`` package's formula."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer
from nltk.translate.gleu_score import corpus_gleu as nltk_corpus_gleu
from nltk.translate.gleu_score import sentence_gleu
from nltk.translate.meteor_score import meteor_score

from evalmark.errors import MetricInputError
from evalmark.metrics import (
    bertscore,
    bertscore_batch,
    corpus_gleu,
    gleu,
    gleu_batch,
    meteor,
    meteor_batch,
)


class NoSynonyms:
    """A WordNet reader without a single synset: METEOR's synonym stage then matches nothing."""

    def synsets(self, word: str) -> list[Any]:
        return []


def nltk_meteor(refs: list[str], hyp: str, **options: float) -> float:
    return float(
        meteor_score([r.split() for r in refs], hyp.split(), wordnet=NoSynonyms(), **options)
    )


HYP1 = (
    "It is a guide to action which ensures that the military always obeys the commands of the party"
)
HYP2 = "It is to insure the troops forever hearing the activity guidebook that party direct"
REF1A = "It is a guide to action that ensures that the military will forever heed Party commands"
REF1B = (
    "It is the guiding principle which guarantees the military forces always being under the "
    "command of the Party"
)
REF1C = "It is the practical guide for the army always to heed the directions of the party"
HYP3 = "he read the book because he was interested in world history"
REF3 = "he was interested in world history because he read the book"

# Words with shared Porter stems, NLTK's irregular forms, mixed case and non-ASCII letters.
WORDS = [
    "the",
    "a",
    "of",
    "cat",
    "cats",
    "Cat",
    "running",
    "run",
    "runs",
    "ran",
    "generously",
    "generous",
    "happy",
    "happiness",
    "relational",
    "relate",
    "conditional",
    "conditioned",
    "dying",
    "die",
    "lying",
    "sky",
    "skies",
    "news",
    "fly",
    "flies",
    "dies",
    "hopping",
    "hoped",
    "connection",
    "connected",
    "connects",
    "Party",
    "party",
    "ΣΑΣ",
    "σας",
    "İstanbul",
    "straße",
    "Über",
    "über",
    ",",
    ".",
    "1",
    "12",
]
SENTENCES = st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join) | st.text(
    alphabet="ab cAB\t\u3000\x1c.é", max_size=16
)


def test_gleu_equals_nltk_on_its_examples() -> None:
    ref = "the cat is on the mat"
    assert gleu(ref, "the the the the the the the") == sentence_gleu(
        [ref.split()], ["the", "the", "the", "the", "the", "the", "the"]
    )
    for hyp in (HYP1, HYP2):
        assert gleu(REF1A, hyp) == sentence_gleu([REF1A.split()], hyp.split())
    refs, hyps = [[REF1A, REF1B, REF1C], [REF3]], [HYP1, HYP3]
    want = nltk_corpus_gleu([[r.split() for r in row] for row in refs], [h.split() for h in hyps])
    assert corpus_gleu(refs, hyps) == want
    assert round(want, 4) == 0.5673  # the doctest's value


def test_meteor_equals_nltk_on_its_examples() -> None:
    assert meteor(REF1A, HYP1) == nltk_meteor([REF1A], HYP1)
    assert round(meteor([REF1A, REF1B, REF1C], HYP1), 4) == 0.6944
    assert meteor("this is a cat", "non matching hypothesis") == 0.0


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.lists(SENTENCES, min_size=1, max_size=3), SENTENCES), max_size=6),
    st.integers(1, 3),
    st.integers(0, 3),
)
def test_gleu_equals_nltk(rows: list[tuple[list[str], str]], min_len: int, extra: int) -> None:
    max_len = min_len + extra
    refs = [r for r, _ in rows]
    hyps = [h for _, h in rows]
    tokens = [[r.split() for r in row] for row in refs]
    want = [
        sentence_gleu(t, h.split(), min_len=min_len, max_len=max_len)
        for t, h in zip(tokens, hyps, strict=True)
    ]
    got = gleu_batch(refs, hyps, min_len=min_len, max_len=max_len).tolist()
    assert got == want
    assert [gleu(r, h, min_len=min_len, max_len=max_len) for r, h in rows] == want
    assert corpus_gleu(refs, hyps, min_len=min_len, max_len=max_len) == nltk_corpus_gleu(
        tokens, [h.split() for h in hyps], min_len=min_len, max_len=max_len
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.lists(SENTENCES, min_size=1, max_size=3), SENTENCES), max_size=6))
def test_meteor_equals_nltk(rows: list[tuple[list[str], str]]) -> None:
    want = [nltk_meteor(r, h) for r, h in rows]
    got = meteor_batch([r for r, _ in rows], [h for _, h in rows]).tolist()
    assert got == want
    assert [meteor(r, h) for r, h in rows] == want


@settings(max_examples=100, deadline=None)
@given(
    st.lists(SENTENCES, min_size=1, max_size=2),
    SENTENCES,
    st.floats(0.0, 1.0),
    st.floats(0.5, 4.0),
    st.floats(0.0, 1.0),
)
def test_meteor_parameters_equal_nltk(
    refs: list[str], hyp: str, alpha: float, beta: float, gamma: float
) -> None:
    want = nltk_meteor(refs, hyp, alpha=alpha, beta=beta, gamma=gamma)
    assert meteor(refs, hyp, alpha=alpha, beta=beta, gamma=gamma) == want


STEMMER = PorterStemmer()  # NLTK's default mode, NLTK_EXTENSIONS, as meteor_score uses


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aeiouybcdglnrstz", min_size=1, max_size=12), st.text("aeiouysdlt"))
def test_stem_matches_are_nltks_porter_stems(word: str, suffix: str) -> None:
    other = word + suffix
    same = word == other or STEMMER.stem(word) == STEMMER.stem(other)
    assert (meteor(word, other) > 0) == same


def test_bad_options_are_typed_errors() -> None:
    with pytest.raises(MetricInputError, match="min_len"):
        gleu("a", "a", min_len=0)
    with pytest.raises(MetricInputError, match="min_len <= max_len"):
        gleu("a", "a", min_len=3, max_len=2)
    with pytest.raises(MetricInputError, match="alpha"):
        meteor("a", "a", alpha=2.0)
    with pytest.raises(TypeError, match="max_len"):
        gleu_batch(["a"], ["a"], max_len=2.5)  # type: ignore[arg-type]


def reference_bertscore(
    ref: np.ndarray, hyp: np.ndarray, w_ref: np.ndarray, w_hyp: np.ndarray
) -> tuple[float, float, float]:
    """bert_score's greedy_cos_idf on one pair: unit rows, cosine matrix, best match per token,
    idf-weighted means, harmonic mean."""
    r = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    h = hyp / np.linalg.norm(hyp, axis=1, keepdims=True)
    sim = h @ r.T
    precision = float((sim.max(axis=1) * (w_hyp / w_hyp.sum())).sum())
    recall = float((sim.max(axis=0) * (w_ref / w_ref.sum())).sum())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.booleans())
def test_bertscore_equals_the_formula(seed: int, rows: int, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(1, 20))
    refs = [rng.normal(size=(int(rng.integers(1, 9)), dim)) for _ in range(rows)]
    hyps = [rng.normal(size=(int(rng.integers(1, 9)), dim)) for _ in range(rows)]
    w_refs = [rng.uniform(0.1, 3.0, len(r)) if weighted else np.ones(len(r)) for r in refs]
    w_hyps = [rng.uniform(0.1, 3.0, len(h)) if weighted else np.ones(len(h)) for h in hyps]
    idf = (w_refs, w_hyps) if weighted else None
    got = bertscore_batch(refs, hyps, idf=idf)
    want = np.array(
        [reference_bertscore(*args) for args in zip(refs, hyps, w_refs, w_hyps, strict=True)]
    )
    np.testing.assert_allclose(got[:, :2], want[:, :2], rtol=1e-12, atol=1e-12)
    # F1 is ill-conditioned where P is near -R: check it is the harmonic mean of P and R.
    for p, r, f in got.tolist():
        assert f == (2 * p * r / (p + r) if p + r else 0.0)
    one = bertscore(refs[0], hyps[0], idf=None if idf is None else (w_refs[0], w_hyps[0]))
    assert list(one) == got[0].tolist()
    baseline = (0.2, 0.3, 0.25)
    rescaled = bertscore_batch(refs, hyps, idf=idf, baseline=baseline)
    np.testing.assert_allclose(rescaled, (got - baseline) / (1 - np.array(baseline)), rtol=1e-12)


def test_bertscore_of_the_same_tokens_is_one_and_bad_input_is_typed() -> None:
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    assert bertscore(x, x) == pytest.approx((1.0, 1.0, 1.0), rel=1e-15)
    with pytest.raises(MetricInputError, match="at least one row"):
        bertscore(np.zeros((0, 2)), x)
    with pytest.raises(MetricInputError, match="NaN"):
        bertscore(np.array([[np.nan, 1.0]]), x)
    with pytest.raises(MetricInputError, match="weight per token"):
        bertscore(x, x, idf=(np.ones(3), np.ones(2)))
    with pytest.raises(MetricInputError, match="dimension"):
        bertscore(x, np.ones((2, 3)))
