"""BERTScore's kernel, bit for bit: a scalar transcription of the order of its operations.

Each token row is divided by its norm (the square root of its squares summed in order), each
cosine is the sum in order over the dimensions of the products (no fused multiply-add), and the
weighted means sum in order. Any faster kernel (tiles, SIMD, threads) must keep these sums, so
its results equal this transcription exactly, on every machine."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.metrics import bertscore_batch


def _unit(rows: np.ndarray) -> list[list[float]]:
    out = []
    for row in rows.tolist():
        total = 0.0
        for v in row:
            total += v * v
        norm = math.sqrt(total)
        out.append([v / norm for v in row] if norm > 0.0 else row)
    return out


def _mean(values: list[float], weights: list[float]) -> float:
    total = 0.0
    for w in weights:
        total += w
    dot = 0.0
    for v, w in zip(values, weights, strict=True):
        dot += v * w
    return dot / total


def scalar_bertscore(
    ref: np.ndarray, hyp: np.ndarray, w_ref: np.ndarray, w_hyp: np.ndarray
) -> list[float]:
    """The kernel's arithmetic, one operation at a time, in Python floats (IEEE doubles)."""
    r, h = _unit(ref), _unit(hyp)
    best_h = [-math.inf] * len(h)
    best_r = [-math.inf] * len(r)
    for i, hv in enumerate(h):
        for j, rv in enumerate(r):
            sim = 0.0
            for a, b in zip(hv, rv, strict=True):
                sim += a * b
            best_h[i] = max(best_h[i], sim)
            best_r[j] = max(best_r[j], sim)
    p = _mean(best_h, w_hyp.tolist())
    rc = _mean(best_r, w_ref.tolist())
    return [p, rc, 0.0 if p + rc == 0.0 else 2.0 * p * rc / (p + rc)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_the_kernel_equals_its_scalar_transcription_bit_for_bit(seed: int, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(1, 40))
    rows = int(rng.integers(1, 5))
    refs = [rng.normal(size=(int(rng.integers(1, 21)), dim)) for _ in range(rows)]
    hyps = [rng.normal(size=(int(rng.integers(1, 21)), dim)) for _ in range(rows)]
    refs[0][0] = 0.0  # a zero token: its cosines are 0
    w_refs = [rng.uniform(0.1, 3.0, len(r)) if weighted else np.ones(len(r)) for r in refs]
    w_hyps = [rng.uniform(0.1, 3.0, len(h)) if weighted else np.ones(len(h)) for h in hyps]
    got = bertscore_batch(refs, hyps, idf=(w_refs, w_hyps) if weighted else None, workers=1)
    want = [scalar_bertscore(*a) for a in zip(refs, hyps, w_refs, w_hyps, strict=True)]
    assert got.tolist() == want
    threaded = bertscore_batch(refs, hyps, idf=(w_refs, w_hyps) if weighted else None, workers=2)
    assert threaded.tobytes() == got.tobytes()


def test_every_input_form_gives_the_same_bits() -> None:
    rng = np.random.default_rng(3)
    refs = [rng.normal(size=(int(rng.integers(1, 30)), 17)) for _ in range(40)]
    hyps = [rng.normal(size=(int(rng.integers(1, 30)), 17)) for _ in range(40)]
    arrays = bertscore_batch(refs, hyps)
    lists = bertscore_batch([r.tolist() for r in refs], [h.tolist() for h in hyps])
    strided = bertscore_batch([np.asfortranarray(r) for r in refs], [h[:, :] for h in hyps])
    assert arrays.tobytes() == lists.tobytes() == strided.tobytes()
    as32 = [r.astype(np.float32) for r in refs]
    widened = bertscore_batch([r.astype(np.float64) for r in as32], hyps)
    assert bertscore_batch(as32, hyps).tobytes() == widened.tobytes()
