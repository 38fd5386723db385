"""Several targets per row: the functions follow rouge-score's ``score_multi``, the SQuAD
script's max over gold answers and sacrebleu's multi-reference BLEU, and the strategies score a
sample's ``expected_outputs`` the same way (the issue's bugs 7 and 8)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU, CHRF

import evalmark as em
import oracles
from evalmark import metrics
from evalmark.strategies import Bleu, Chrf, RougeL, RougeLsum, RougeN, SquadExactMatch, TokenF1

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away", "An", "old", "."]


def sentence(rng: random.Random, most: int = 12) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))
    if rng.random() < 0.2:
        text = text.replace(" ", "\n", 1)
    return text


def target_sets(seed: int, rows: int) -> list[tuple[list[str], str]]:
    rng = random.Random(seed)
    return [([sentence(rng) for _ in range(rng.randint(1, 4))], sentence(rng)) for _ in range(rows)]


ROWS = target_sets(7, 400)
KEYS = {"rouge_n": "rouge2", "rouge_l": "rougeL", "rouge_lsum": "rougeLsum"}


@pytest.mark.parametrize("name", list(KEYS))
@pytest.mark.parametrize("measure", ["fmeasure", "precision", "recall"])
def test_rouge_with_several_targets_is_score_multi(name: str, measure: str) -> None:
    key = KEYS[name]
    scorer = rouge_scorer.RougeScorer([key])
    want = [getattr(scorer.score_multi(t, p)[key], measure) for t, p in ROWS]
    options = {"n": 2} if name == "rouge_n" else {}
    batch = getattr(metrics, f"{name}_batch")
    got = batch([t for t, _ in ROWS], [p for _, p in ROWS], measure=measure, **options)
    assert got.tolist() == want
    scalar = getattr(metrics, name)
    assert [scalar(t, p, measure=measure, **options) for t, p in ROWS[:40]] == want[:40]


def squad_max(golds: list[str], pred: str, metric: str) -> float:
    """The SQuAD v2.0 script's loop over gold answers."""
    answers = [g for g in golds if oracles.squad_normalize_answer(g)] or [""]
    if metric == "f1":
        return max(oracles.squad_compute_f1(g, pred) for g in answers)
    return max(
        float(oracles.squad_normalize_answer(g) == oracles.squad_normalize_answer(pred))
        for g in answers
    )


def test_token_f1_and_exact_match_take_the_best_gold_answer() -> None:
    rows = [*ROWS, (["", "Paris"], ""), (["a", "the"], ""), (["The cat."], "cat")]
    golds, preds = [t for t, _ in rows], [p for _, p in rows]
    f1 = [squad_max(t, p, "f1") for t, p in rows]
    exact = [squad_max(t, p, "exact") for t, p in rows]
    assert metrics.token_f1_batch(golds, preds).tolist() == f1
    assert metrics.squad_exact_match_batch(golds, preds).tolist() == [e == 1.0 for e in exact]
    assert metrics.token_f1(["", "Paris"], "") == 0.0  # the empty gold answer is dropped
    assert metrics.squad_exact_match(["nope", "The Eiffel Tower!"], "eiffel tower")


def test_exact_match_is_compute_exact_on_generated_answers() -> None:
    rng = random.Random(3)
    pieces = ["The", "a", "an", " ", "  ", "\t", "Ünïcode", "x,y", "(b)", "'", "théâtre", "AN"]
    golds = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    preds = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    want = [
        oracles.squad_normalize_answer(g) == oracles.squad_normalize_answer(p)
        for g, p in zip(golds, preds, strict=True)
    ]
    assert metrics.squad_exact_match_batch(golds, preds).tolist() == want
    assert sum(want) > 100


def test_a_row_without_targets_is_refused() -> None:
    with pytest.raises(em.errors.MetricInputError, match="row 1 of expected has no target"):
        metrics.rouge_l_batch([["a"], []], ["a", "b"])


def samples_of(rows: list[tuple[list[str], str]]) -> list[em.Sample]:
    return [
        em.Sample(name=f"s{i}", parameters=("q",), expected_outputs=tuple(t))
        for i, (t, _) in enumerate(rows)
    ]


def strategy_scores(strategy: object, rows: list[tuple[list[str], str]]) -> list[float]:
    results = strategy.evaluate_batch(samples_of(rows), [p for _, p in rows])  # type: ignore[attr-defined]
    return [float(results[i].score) for i in range(len(rows))]


def test_bleu_strategy_is_multi_reference_bleu() -> None:
    bleu = BLEU(effective_order=True)
    want = [bleu.sentence_score(p, t).score / 100 for t, p in ROWS]
    got = strategy_scores(Bleu(), ROWS)
    assert got == pytest.approx(want, abs=1e-12)
    best_single = [max(bleu.sentence_score(p, [r]).score / 100 for r in t) for t, p in ROWS]
    assert (
        sum(a != b for a, b in zip(want, best_single, strict=True)) > 10
    )  # the rows the bug got wrong


def test_chrf_strategy_is_multi_reference_chrf() -> None:
    chrf = CHRF()
    want = [chrf.sentence_score(p, t).score / 100 for t, p in ROWS]
    assert strategy_scores(Chrf(), ROWS) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("measure", ["precision", "recall"])
def test_rouge_strategies_follow_score_multi(measure: str) -> None:
    for strategy, key in (
        (RougeL(measure=measure), "rougeL"),
        (RougeN(n=1, measure=measure), "rouge1"),
        (RougeLsum(measure=measure), "rougeLsum"),
    ):
        scorer = rouge_scorer.RougeScorer([key])
        want = [getattr(scorer.score_multi(t, p)[key], measure) for t, p in ROWS]
        assert strategy_scores(strategy, ROWS) == want, key
        best = [max(getattr(scorer.score(r, p)[key], measure) for r in t) for t, p in ROWS]
        assert want != best  # the rows the bug got wrong


def test_squad_strategies_take_the_best_gold_answer() -> None:
    want_f1 = [squad_max(t, p, "f1") for t, p in ROWS]
    assert strategy_scores(TokenF1(), ROWS) == want_f1
    want_exact = [squad_max(t, p, "exact") for t, p in ROWS]
    assert strategy_scores(SquadExactMatch(), ROWS) == want_exact


def test_one_target_rows_and_lists_of_one_agree() -> None:
    golds = [t[0] for t, _ in ROWS]
    preds = [p for _, p in ROWS]
    for name in ("token_f1", "rouge_l", "rouge_n", "rouge_lsum", "squad_exact_match"):
        batch = getattr(metrics, f"{name}_batch")
        np.testing.assert_array_equal(batch(golds, preds), batch([[g] for g in golds], preds))


def test_a_text_too_long_names_the_rows_of_the_batch() -> None:
    expected = [["a", "bbbbbb"], ["c"], ["d", "e"]]
    actual = ["x", "yyyyyyy", "z"]
    for batch in (metrics.rouge_l_batch, metrics.token_f1_batch, metrics.squad_exact_match_batch):
        with pytest.raises(em.errors.TextTooLongError, match=r"rows 0, 1\)") as caught:
            batch(expected, actual, max_chars=5)
        assert caught.value.rows == (0, 1)
