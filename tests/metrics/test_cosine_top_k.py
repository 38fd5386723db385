"""cosine_top_k against a numpy argsort of the full cosine matrix, on random and tied inputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import evalmark.metrics as em
from evalmark.errors import MetricInputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import workload


def reference(q: np.ndarray, c: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row of the full matrix by score descending, ties to the lower index."""
    mat = em.cosine_matrix(q, c)
    k = min(k, c.shape[0])
    idx = np.zeros((q.shape[0], k), dtype=np.int64)
    for i, row in enumerate(mat):
        # lexsort's last key is the primary one; a stable sort on -score keeps index order
        idx[i] = np.lexsort((np.arange(len(row)), -row))[:k]
    return idx, np.take_along_axis(mat, idx, axis=1)


def check(q: np.ndarray, c: np.ndarray, k: int, workers: int | None = None) -> None:
    got_idx, got_score = em.cosine_top_k(q, c, k, workers=workers)
    want_idx, want_score = reference(q, c, k)
    assert got_idx.dtype == np.int64 and got_score.dtype == np.float64
    assert got_idx.shape == want_idx.shape
    assert got_idx.tolist() == want_idx.tolist()
    assert got_score.tobytes() == want_score.tobytes()


@given(
    st.integers(0, 12),
    st.integers(0, 40),
    st.integers(1, 20),
    st.integers(0, 45),
    st.sampled_from([np.float32, np.float64]),
    st.data(),
)
def test_random_inputs_equal_the_argsort_reference(
    n: int, m: int, d: int, k: int, dtype: type, data: st.DataObject
) -> None:
    elements = st.floats(-1e3, 1e3, width=32)
    q = data.draw(hnp.arrays(dtype, (n, d), elements=elements))
    c = data.draw(hnp.arrays(dtype, (m, d), elements=elements))
    check(q, c, k)


@given(
    st.integers(1, 6),
    st.integers(1, 300),
    st.integers(1, 50),
    st.integers(0, 2**32 - 1),
)
def test_ties_go_to_the_lower_index(n: int, m: int, k: int, seed: int) -> None:
    # choices drawn from a handful of directions (and the zero vector): most scores tie
    g = np.random.default_rng(seed)
    directions = np.vstack([np.zeros(4), g.integers(-2, 3, size=(3, 4))]).astype(np.float64)
    c = directions[g.integers(0, len(directions), size=m)] * g.choice([1.0, 2.0, 0.5], size=(m, 1))
    q = g.integers(-2, 3, size=(n, 4)).astype(np.float64)
    check(q, c, k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocks_and_threads_give_the_same_answer(dtype: type) -> None:
    # more rows and choices than one block of either: candidates are merged across blocks
    a, b = workload.vectors(700, 384, seed=5)
    q, c = a[:130].astype(dtype), b.astype(dtype)
    check(q, c, 10, workers=1)
    serial = em.cosine_top_k(q, c, 10, workers=1)
    for workers in (2, 3, -1, None):
        got = em.cosine_top_k(q, c, 10, workers=workers)
        assert got[0].tobytes() == serial[0].tobytes()
        assert got[1].tobytes() == serial[1].tobytes()


def test_k_larger_than_the_choices_gives_every_choice() -> None:
    q = np.eye(3)
    idx, score = em.cosine_top_k(q, np.eye(3)[::-1], 10)
    assert idx.tolist() == [[2, 0, 1], [1, 0, 2], [0, 1, 2]]
    assert score[:, 0].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("k", [-1, 1.5, True, "3"])
def test_a_bad_k_is_an_input_error(k: object) -> None:
    with pytest.raises(MetricInputError, match="k must be"):
        em.cosine_top_k(np.eye(2), np.eye(2), k)  # type: ignore[arg-type]


def test_non_finite_rows_are_named() -> None:
    bad = np.ones((3, 2))
    bad[1, 0] = np.nan
    with pytest.raises(MetricInputError, match="row 1 of choices"):
        em.cosine_top_k(np.ones((2, 2)), bad, 1)
    with pytest.raises(MetricInputError, match="row 1 of queries"):
        em.cosine_top_k(bad, np.ones((2, 2)), 1)
