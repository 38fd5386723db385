"""Properties of ``evalmark tune --format json`` (exact figures, no simulation) for generated
suite sizes and flip rates, against a binomial oracle written here: each gate's chance of
failing the healthy and the regressed build is the exact k-of-n probability, a stricter gate
fails each build at least as often, a noisier judge fails the healthy build at least as often,
the regressed build fails every gate at least as often as the healthy one, and the same
arguments print the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
from math import comb
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.cli import main

CASES = st.integers(1, 40)
# no simulation, one judge call per check, a short search for the suite size that would do
FAST = ("--repeats", "1", "--max-cases", "50")
FLIPS = st.floats(0.0, 0.45).map(lambda f: round(f, 3))


def tune(*args: str) -> dict[str, Any]:
    """The JSON document ``evalmark tune --runs 0 --format json ARGS`` prints."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["tune", "--runs", "0", "--format", "json", *FAST, *args])
    assert code in (0, 1), err.getvalue()
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def binomial_at_least(n: int, p: float, k: int) -> float:
    """P(Binomial(n, p) >= k)."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


def gates(document: dict[str, Any], level: int = 0) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = document["levels"][level]["gates"]
    return found


@settings(max_examples=examples(15), deadline=None)
@given(CASES, FLIPS)
def test_the_healthy_build_fails_each_gate_with_the_binomial_probability(
    cases: int, flip: float
) -> None:
    for gate in gates(tune("--cases", str(cases), "--flip", str(flip))):
        passes = binomial_at_least(cases, 1 - flip, gate["min_passing"])
        assert gate["healthy_fails"] == pytest.approx(1 - passes, abs=1e-9), gate


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(2, 40), FLIPS)
def test_the_regressed_build_fails_each_gate_with_the_oracle_probability(
    cases: int, flip: float
) -> None:
    # one truly failing case passes only by a false pass; the others pass unless flipped
    for gate in gates(tune("--cases", str(cases), "--flip", str(flip))):
        k = gate["min_passing"]
        passes = flip * binomial_at_least(cases - 1, 1 - flip, k - 1) + (
            1 - flip
        ) * binomial_at_least(cases - 1, 1 - flip, k)
        assert gate["regressed_fails"] == pytest.approx(1 - passes, abs=1e-9), gate
        assert gate["miss"] == pytest.approx(1 - gate["regressed_fails"], abs=1e-12)


@settings(max_examples=examples(15), deadline=None)
@given(CASES, FLIPS)
def test_a_stricter_gate_fails_each_build_at_least_as_often(cases: int, flip: float) -> None:
    ordered = sorted(
        gates(tune("--cases", str(cases), "--flip", str(flip))), key=lambda g: g["min_passing"]
    )
    for lenient, strict in itertools.pairwise(ordered):
        assert lenient["healthy_fails"] <= strict["healthy_fails"] + 1e-12
        assert lenient["regressed_fails"] <= strict["regressed_fails"] + 1e-12


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(2, 40), FLIPS)
def test_the_regressed_build_fails_every_gate_at_least_as_often(cases: int, flip: float) -> None:
    for gate in gates(tune("--cases", str(cases), "--flip", str(flip))):
        assert gate["regressed_fails"] >= gate["healthy_fails"] - 1e-12, gate


@settings(max_examples=examples(15), deadline=None)
@given(CASES, FLIPS, FLIPS)
def test_a_noisier_judge_fails_the_healthy_build_at_least_as_often(
    cases: int, f1: float, f2: float
) -> None:
    low, high = sorted((f1, f2))
    if low == high:
        return
    document = tune("--cases", str(cases), "--flip", f"{low},{high}")
    calm = {g["min_passing"]: g["healthy_fails"] for g in gates(document, 0)}
    noisy = {g["min_passing"]: g["healthy_fails"] for g in gates(document, 1)}
    for k in calm.keys() & noisy.keys():
        assert calm[k] <= noisy[k] + 1e-12, k


@settings(max_examples=examples(8), deadline=None)
@given(CASES, FLIPS)
def test_the_same_arguments_print_the_same_bytes(cases: int, flip: float) -> None:
    args = ("--cases", str(cases), "--flip", str(flip))
    assert tune(*args) == tune(*args)


@settings(max_examples=examples(10), deadline=None)
@given(CASES, FLIPS)
def test_every_gate_figure_is_a_probability(cases: int, flip: float) -> None:
    document = tune("--cases", str(cases), "--flip", str(flip))
    assert document["cases"] == cases
    for gate in gates(document):
        for key in ("healthy_fails", "regressed_fails", "miss"):
            assert 0.0 <= gate[key] <= 1.0 + 1e-12, (key, gate)
        assert 0 <= gate["min_passing"] <= cases
