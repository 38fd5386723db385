"""Paired bootstrap and approximate randomization equal sacrebleu's PairedTest for a seed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import evalmark.metrics as em
from evalmark.errors import MetricInputError
from evalmark.metrics._native import core

sacrebleu = pytest.importorskip("sacrebleu")
significance = pytest.importorskip("sacrebleu.significance")

WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "dog",
    "ran",
    "far",
    "away",
    "and",
    "then",
    "came",
    "back",
    "home",
]


def _systems(seed: int, n: int) -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(seed)

    def sent() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 14)))

    refs = [sent() for _ in range(n)]
    base = [sent() if rng.random() < 0.5 else r for r in refs]
    cand = [r if rng.random() < 0.55 else sent() for r in refs]
    return refs, base, cand


def _sacrebleu(
    monkeypatch: pytest.MonkeyPatch,
    test: str,
    name: str,
    refs: list[str],
    base: list[str],
    cand: list[str],
    seed: int,
    n: int,
) -> tuple[object, object]:
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    metric = sacrebleu.metrics.BLEU() if name == "bleu" else sacrebleu.metrics.CHRF()
    extra = {"n_ar_confidence": 1000} if test == "ar" else {}
    paired = significance.PairedTest(
        [("base", base), ("cand", cand)],
        {name: metric},
        [refs],
        test_type=test,
        n_samples=n,
        **extra,
    )
    _, scores = paired()
    (pair,) = [v for k, v in scores.items() if k != "System"]
    return pair[0], pair[1]


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
@pytest.mark.parametrize(
    ("test", "seed", "n"),
    [("bs", 12345, 1000), ("bs", 7, 300), ("ar", 12345, 10000), ("ar", 99, 2000)],
)
def test_equals_sacrebleu_for_the_same_seed(
    monkeypatch: pytest.MonkeyPatch, metric: str, test: str, seed: int, n: int
) -> None:
    refs, base, cand = _systems(seed, 150)
    want_base, want_cand = _sacrebleu(monkeypatch, test, metric, refs, base, cand, seed, n)
    fn = em.paired_bootstrap if test == "bs" else em.paired_approximate_randomization
    got = fn(refs, base, cand, metric=metric, resamples=n, seed=seed)  # type: ignore[arg-type]
    assert got.p_value == want_cand.p_value  # type: ignore[attr-defined]
    # sacrebleu sums the resampled statistics in float32, so its means and intervals carry
    # float32 rounding (about 1e-6 relative); the scores of the full corpus are exact.
    for ours, theirs in ((got.baseline, want_base), (got.candidate, want_cand)):
        assert ours.score * 100 == pytest.approx(theirs.score, abs=1e-9)  # type: ignore[attr-defined]
        assert ours.mean * 100 == pytest.approx(theirs.mean, rel=1e-5)  # type: ignore[attr-defined]
        assert ours.ci * 100 == pytest.approx(theirs.ci, rel=1e-4, abs=1e-5)  # type: ignore[attr-defined]
        assert ours.low <= ours.mean <= ours.high


def test_scores_equal_the_corpus_functions_and_a_system_against_itself() -> None:
    refs, base, cand = _systems(3, 80)
    got = em.paired_bootstrap(refs, base, cand, resamples=200, seed=1, tokenize="intl")
    assert got.baseline.score == pytest.approx(
        em.corpus_bleu(refs, base, tokenize="intl"), abs=1e-12
    )
    assert got.candidate.score == pytest.approx(
        em.corpus_bleu(refs, cand, tokenize="intl"), abs=1e-12
    )
    chrf = em.paired_approximate_randomization(
        refs, base, cand, metric="chrf", word_order=2, resamples=50
    )
    assert chrf.candidate.score == pytest.approx(
        em.corpus_chrf(refs, cand, word_order=2), abs=1e-12
    )
    same = em.paired_approximate_randomization(refs, base, base, resamples=100, seed=3)
    assert same.p_value == 1 / 101  # no trial differs by more than 0
    assert got == em.paired_bootstrap(refs, base, cand, resamples=200, seed=1, tokenize="intl")
    assert got.test == "paired_bootstrap" and got.resamples == 200 and got.seed == 1


def test_chrf_statistics_sum_to_corpus_chrf() -> None:
    refs, base, _ = _systems(5, 60)
    stats = core.chrf_statistics(refs, base, 6, 2)
    assert stats.shape == (60, 24)
    want = sacrebleu.metrics.CHRF(word_order=2)._extract_corpus_statistics(base, [refs])
    assert stats.tolist() == np.asarray(want).tolist()
    assert core.chrf_row_scores(stats.sum(0, keepdims=True), 6, 2)[0] == em.corpus_chrf(
        refs, base, word_order=2
    )


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: em.paired_bootstrap(["a"], ["a"], ["a", "b"]), MetricInputError, "baseline has 1"),
        (lambda: em.paired_bootstrap([], [], []), MetricInputError, "at least one row"),
        (
            lambda: em.paired_bootstrap(["a"], ["a"], ["b"], metric="ter"),
            MetricInputError,
            "metric",
        ),  # type: ignore[arg-type]
        (
            lambda: em.paired_bootstrap(["a"], ["a"], ["b"], resamples=0),
            MetricInputError,
            "resamples",
        ),
        (lambda: em.paired_bootstrap(["a"], ["a"], ["b"], seed=None), TypeError, "seed"),  # type: ignore[arg-type]
        (lambda: em.paired_bootstrap(["a"], ["a"], ["b"], beta=3), TypeError, "beta"),
    ],
)
def test_bad_input_is_a_typed_error(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]
