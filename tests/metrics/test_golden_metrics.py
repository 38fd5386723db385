"""evalmark pinned to golden/metrics/vectors.jsonl, whose values come from the references."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import evalmark.metrics as em
import oracles
from evalmark.errors import MetricInputError

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "metrics"
RAW = [json.loads(line) for line in (GOLDEN / "vectors.jsonl").read_text("utf-8").splitlines()]


def decode_text(value: Any) -> Any:
    """Texts with lone surrogates are stored as {"codepoints": [...]} (see make_vectors.py)."""
    if isinstance(value, dict) and "codepoints" in value:
        return "".join(map(chr, value["codepoints"]))
    return value


VECTORS = [
    {**r, "expected": decode_text(r["expected"]), "actual": decode_text(r["actual"])} for r in RAW
]
PAIRS = [json.loads(line) for line in (GOLDEN / "pairs.jsonl").read_text("utf-8").splitlines()]


def vector_id(i: int) -> str:
    rec = VECTORS[i]
    options = ",".join(f"{v}" for v in rec["kwargs"].values())
    return f"{i}-{rec['metric']}-{options}" if options else f"{i}-{rec['metric']}"


def check_text_metric(rec: dict[str, Any]) -> None:
    metric, kwargs, e, a, want = (
        rec["metric"],
        rec["kwargs"],
        rec["expected"],
        rec["actual"],
        rec["value"],
    )
    scalar = getattr(em, metric)
    batch = getattr(em, metric + "_batch")
    got = scalar(e, a, **kwargs)
    got_batch = batch([e], [a], **kwargs).tolist()[0]
    if metric == "rouge_l":  # rouge-score's value to 1e-12
        assert got == pytest.approx(want, abs=1e-12, rel=0)
        assert got_batch == pytest.approx(want, abs=1e-12, rel=0)
    else:  # SQuAD and rapidfuzz values bit for bit
        assert got == want
        assert got_batch == want
        assert type(got) is type(want)


@pytest.mark.parametrize("i", range(len(VECTORS)), ids=vector_id)
def test_golden_vector(i: int) -> None:
    rec = VECTORS[i]
    metric, kwargs = rec["metric"], rec["kwargs"]
    if metric == "cosine":
        dtype = np.dtype(kwargs["dtype"])
        x, y = np.array(rec["expected"], dtype=dtype), np.array(rec["actual"], dtype=dtype)
        assert em.cosine(x, y) == pytest.approx(rec["value"], abs=1e-6, rel=0)
        assert em.cosine_batch(x[None], y[None])[0] == pytest.approx(rec["value"], abs=1e-6)
        assert em.cosine_matrix(x[None], y[None])[0, 0] == pytest.approx(rec["value"], abs=1e-6)
    elif metric == "canonical_json":
        assert em.canonical_json(rec["expected"], **kwargs) == rec["value"]
    elif metric == "json_match" and rec["value"] == "MetricInputError":
        with pytest.raises(MetricInputError):
            em.json_match(rec["expected"], rec["actual"], **kwargs)
        with pytest.raises(MetricInputError):
            em.json_match_batch([rec["expected"]], [rec["actual"]], **kwargs)
    elif metric == "json_match":
        assert em.json_match(rec["expected"], rec["actual"], **kwargs) is rec["value"]
        got = em.json_match_batch([rec["expected"]], [rec["actual"]], **kwargs).tolist()
        assert got == [rec["value"]]
    else:
        check_text_metric(rec)


def test_golden_vectors_cover_every_metric() -> None:
    seen = {(r["metric"], tuple(sorted(r["kwargs"].items()))) for r in VECTORS}
    metrics = {m for m, _ in seen}
    assert metrics == {
        "token_f1",
        "rouge_l",
        "levenshtein_distance",
        "levenshtein_similarity",
        "cosine",
        "json_match",
        "canonical_json",
    }
    assert ("token_f1", (("normalizer", "none"),)) in seen
    assert ("rouge_l", (("measure", "recall"), ("tokenizer", "unicode"))) in seen
    assert ("json_match", (("numbers", "strict"),)) in seen


def test_golden_vectors_come_from_the_script() -> None:
    """The committed file is what make_vectors.py computes from the references today."""
    spec = importlib.util.spec_from_file_location("make_vectors", GOLDEN / "make_vectors.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fresh = module.build()
    assert len(fresh) == len(RAW)
    for new, old in zip(fresh, RAW, strict=True):
        new = json.loads(json.dumps(new))  # the same JSON round trip as the file
        if new["metric"] == "cosine":  # BLAS may round differently on another machine
            assert math.isclose(new.pop("value"), old["value"], rel_tol=0, abs_tol=1e-12)
            old = {k: v for k, v in old.items() if k != "value"}
        assert new == old


def test_pairs_file_is_well_formed() -> None:
    assert 40 <= len(PAIRS) <= 80
    for row in PAIRS:
        assert set(row) >= {"expected", "actual"}
        assert isinstance(row["expected"], str)
        assert isinstance(row["actual"], str)
    json_rows = [r for r in PAIRS if r["expected"].lstrip().startswith(("{", "["))]
    assert len(json_rows) >= 5
    for row in json_rows:
        oracles.parse_json_strict(row["expected"])


def test_pairs_file_scores_equal_references() -> None:
    exp = [r["expected"] for r in PAIRS]
    act = [r["actual"] for r in PAIRS]
    assert em.token_f1_batch(exp, act).tolist() == [
        oracles.squad_compute_f1(e, a) for e, a in zip(exp, act, strict=True)
    ]
    np.testing.assert_allclose(
        em.rouge_l_batch(exp, act),
        [oracles.rouge_l(e, a) for e, a in zip(exp, act, strict=True)],
        rtol=0,
        atol=1e-12,
    )
    assert em.levenshtein_distance_batch(exp, act).tolist() == [
        oracles.levenshtein_distance(e, a) for e, a in zip(exp, act, strict=True)
    ]
