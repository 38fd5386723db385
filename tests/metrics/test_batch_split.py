"""Batches split across threads by bytes: the same results and errors at any worker count."""

from __future__ import annotations

import numpy as np
import pytest

import evalmark.metrics as em
from evalmark.errors import MetricInputError


def unequal_batch() -> tuple[list[str], list[str]]:
    """A few huge pairs among many tiny and empty ones, so a split by count is far from a
    split by bytes."""
    words = ["cat", "sat", "on", "the", "mat", "dog", "Ran", "été", "東京", "end."]
    exp, act = [], []
    for i in range(3000):
        if i % 997 == 5:
            size = 20_000
        elif i % 7 == 0:
            size = 0
        else:
            size = 1 + i % 9
        exp.append(" ".join(words[(i + k) % len(words)] for k in range(size)))
        act.append(" ".join(words[(i * 3 + k) % len(words)] for k in range(size // 2 + i % 3)))
    return exp, act


KERNELS = [
    lambda e, a, w: em.token_f1_batch(e, a, workers=w),
    lambda e, a, w: em.squad_exact_match_batch(e, a, workers=w),
    lambda e, a, w: em.rouge_n_batch(e, a, n=2, workers=w),
    lambda e, a, w: em.rouge_l_batch(e, a, workers=w),
    lambda e, a, w: em.gleu_batch(e, a, workers=w),
    lambda e, a, w: em.meteor_batch(e, a, workers=w),
    lambda e, a, w: em.bleu_batch(e, a, workers=w),
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_results_are_bit_identical_at_one_two_and_three_workers(kernel: object) -> None:
    exp, act = unequal_batch()
    runs = [np.asarray(kernel(exp, act, w)) for w in (1, 2, 3)]  # type: ignore[operator]
    assert runs[0].tobytes() == runs[1].tobytes() == runs[2].tobytes()


def test_meteor_row_by_row_equals_the_batch() -> None:
    # Word and stem ids are kept from row to row inside a thread: a row's score must not
    # depend on the rows before it.
    exp, act = unequal_batch()
    exp, act = exp[:400], act[:400]
    batch = em.meteor_batch(exp, act, workers=1)
    alone = [em.meteor(e, a) for e, a in zip(exp, act, strict=True)]
    assert np.asarray(batch).tobytes() == np.asarray(alone).tobytes()


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_lowest_too_long_row_is_named_at_any_worker_count(workers: int) -> None:
    exp, act = unequal_batch()
    with pytest.raises(MetricInputError) as info:
        em.token_f1_batch(exp, act, workers=workers, max_chars=50_000)
    assert "row 5" in str(info.value)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_non_str_row_is_named_at_any_worker_count(workers: int) -> None:
    exp, act = unequal_batch()
    act[2000] = 7  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="row 2000 of actual"):
        em.token_f1_batch(exp, act, workers=workers)


def test_a_list_of_target_lists_still_takes_the_best_target() -> None:
    got = em.token_f1_batch([["dog", "cat sat"], "cat"], ["cat sat", "cat"], workers=2)
    assert got.tolist() == [1.0, 1.0]
    rouge = em.rouge_n_batch([["x y", "a b"], "a b"], ["a b", "a b"], n=2, workers=2)
    assert rouge.tolist() == [1.0, 1.0]


def test_a_bad_version_is_refused_with_lists_of_targets_too() -> None:
    with pytest.raises(MetricInputError, match="version"):
        em.token_f1_batch([["a", "b"]], ["a"], version="v3")  # type: ignore[arg-type]
