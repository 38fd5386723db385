"""BERTScore equals the ``bert_score`` package's matching step on the same token embeddings.

The fixture holds numpy-drawn token embeddings and the scores that
``bert_score.utils.greedy_cos_idf`` gave for them in float64 (written by
``tools/bertscore_reference.py``, run in an environment with the package and torch). torch sums
the norms and cosines in its own order (BLAS), evalmark in dimension order, so the two agree to
rounding, not bit for bit: within 1e-12 relative, or 1e-14 absolute for a score near 0."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalmark.metrics import bertscore, bertscore_batch

FIXTURE = json.loads((Path(__file__).parent / "fixtures/bertscore_reference.json").read_text())
CASES: list[dict[str, Any]] = FIXTURE["cases"]


def _close(got: object, want: list[float]) -> bool:
    values = np.asarray(got, dtype=np.float64).tolist()
    return all(
        math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-14) for g, w in zip(values, want, strict=True)
    )


def _arrays(case: dict[str, Any], key: str) -> Any:
    return np.asarray(case[key], dtype=np.float64)


def test_the_fixture_covers_the_promised_shapes() -> None:
    dims = {len(c["expected"][0]) for c in CASES}
    lengths = {n for c in CASES for n in (len(c["expected"]), len(c["actual"]))}
    assert dims == {8, 64, 256}
    assert min(lengths) == 1 and max(lengths) == 40


@pytest.mark.parametrize("case", CASES, ids=[str(c["seed"]) for c in CASES])
def test_bertscore_equals_the_package(case: dict[str, Any]) -> None:
    ref, hyp = _arrays(case, "expected"), _arrays(case, "actual")
    assert _close(bertscore(ref, hyp), case["package"])
    idf = (_arrays(case, "idf_expected"), _arrays(case, "idf_actual"))
    assert _close(bertscore(ref, hyp, idf=idf), case["package_idf"])


def _by_dimension() -> list[list[dict[str, Any]]]:
    """The cases in batches of one dimension each (a batch's embeddings share one model)."""
    dims = sorted({len(c["expected"][0]) for c in CASES})
    return [[c for c in CASES if len(c["expected"][0]) == d] for d in dims]


def test_bertscore_batch_equals_the_package_row_by_row() -> None:
    for batch in _by_dimension():
        refs = [_arrays(c, "expected") for c in batch]
        hyps = [_arrays(c, "actual") for c in batch]
        idf = (
            [_arrays(c, "idf_expected") for c in batch],
            [_arrays(c, "idf_actual") for c in batch],
        )
        for workers in (1, 2):
            plain = bertscore_batch(refs, hyps, workers=workers)
            weighted = bertscore_batch(refs, hyps, idf=idf, workers=workers)
            for i, case in enumerate(batch):
                assert _close(plain[i], case["package"]), case["seed"]
                assert _close(weighted[i], case["package_idf"]), case["seed"]


def test_baseline_rescaling_equals_the_package() -> None:
    # The package reads its baseline file and casts the row to float32 before rescaling; given
    # that same row, evalmark's `baseline` gives its rescaled scores.
    base = FIXTURE["baseline"]["float32"]
    for batch in _by_dimension():
        refs = [_arrays(c, "expected") for c in batch]
        hyps = [_arrays(c, "actual") for c in batch]
        got = bertscore_batch(refs, hyps, baseline=base)
        for i, case in enumerate(batch):
            assert _close(got[i], case["package_rescaled"]), case["seed"]
        single = bertscore(refs[0], hyps[0], baseline=base)
        assert _close(single, batch[0]["package_rescaled"])


def test_a_zero_token_scores_where_the_package_gives_nan() -> None:
    # The package divides each token by its norm, so an all-zero token makes its P and R NaN
    # (and F 0, its NaN filled); evalmark gives that token cosine 0 with every other token.
    case = FIXTURE["zero_row"]
    assert case["package"] == [None, None, 0.0]
    ref, hyp = _arrays(case, "expected"), _arrays(case, "actual")
    assert not ref[1].any()
    norms = np.linalg.norm(ref, axis=1, keepdims=True)
    unit_ref = np.divide(ref, norms, out=np.zeros_like(ref), where=norms > 0)
    sim = (hyp / np.linalg.norm(hyp, axis=1, keepdims=True)) @ unit_ref.T
    p, r = sim.max(axis=1).mean(), sim.max(axis=0).mean()
    assert _close(bertscore(ref, hyp), [p, r, 2 * p * r / (p + r)])
