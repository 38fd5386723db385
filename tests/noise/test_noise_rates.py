"""Error rates, counts and their posteriors, the rates file, and the overdispersion estimate."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalmark.errors import DataFileError
from evalmark.noise import (
    ErrorRates,
    JudgeRates,
    RateCounts,
    estimate_overdispersion,
    read_rates,
    write_rates,
)
from evalmark.noise._rates import DEFAULT_JUDGE_RATES, rates_path


def test_flip_model_is_equal_rates() -> None:
    flip = ErrorRates.flip(0.03)
    assert flip == ErrorRates(0.03, 0.03) and flip.is_flip
    assert flip.label == "flip rate 0.03"
    lopsided = ErrorRates(0.1, 0.02, 0.25)
    assert not lopsided.is_flip
    assert lopsided.rate_for(True) == 0.02 and lopsided.rate_for(False) == 0.1
    assert lopsided.independent == ErrorRates(0.1, 0.02, 0.0)
    assert lopsided.label == "false pass 0.1, false fail 0.02, overdispersion 0.25"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"false_pass": -0.1, "false_fail": 0.1}, "false_pass must be a probability"),
        ({"false_pass": 0.1, "false_fail": 1.2}, "false_fail must be a probability"),
        ({"false_pass": 0.1, "false_fail": 0.1, "overdispersion": 2}, "overdispersion must"),
        ({"false_pass": "0.1", "false_fail": 0.1}, "false_pass must be a probability"),
        ({"false_pass": float("nan"), "false_fail": 0.1}, "false_pass must be a probability"),
    ],
)
def test_rates_are_checked_by_name(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ErrorRates(**kwargs)  # type: ignore[arg-type]


def test_counts_have_the_jeffreys_posterior() -> None:
    counts = RateCounts(3, 120)
    posterior = stats.beta(3.5, 117.5)
    assert counts.mean == pytest.approx(posterior.mean(), rel=1e-12)
    low, high = counts.interval(0.95)
    assert low == pytest.approx(posterior.ppf(0.025), rel=1e-9)
    assert high == pytest.approx(posterior.ppf(0.975), rel=1e-9)
    assert RateCounts(0, 50).mean > 0.0  # no errors seen is not a zero rate
    with pytest.raises(ValueError, match=r"errors \(5\) cannot exceed trials \(4\)"):
        RateCounts(5, 4)
    with pytest.raises(ValueError, match="trials must be a whole number"):
        RateCounts(1, -2)


def test_measured_rates_use_posterior_means() -> None:
    measured = JudgeRates(RateCounts(4, 40), RateCounts(3, 110), 0.2, source="calibration")
    assert measured.rates == ErrorRates(4.5 / 41, 3.5 / 111, 0.2)
    assert DEFAULT_JUDGE_RATES.rates.false_pass == pytest.approx(10.5 / 101)
    assert DEFAULT_JUDGE_RATES.rates.false_fail == pytest.approx(3.5 / 101)
    assert DEFAULT_JUDGE_RATES.overdispersion == 0.3
    assert "not a measurement" in DEFAULT_JUDGE_RATES.source


def test_rates_file_round_trips_and_is_written_atomically(tmp_path: Path) -> None:
    rates = JudgeRates(RateCounts(4, 40), RateCounts(3, 110), 0.2, source="judge calibrate x")
    target = rates_path(tmp_path / "suite")
    assert target == tmp_path / "suite" / ".evalmark" / "judge-rates.json"
    assert write_rates(target, rates) == target
    document = json.loads(target.read_text())
    assert document == {
        "format": "evalmark-judge-rates",
        "version": 1,
        "source": "judge calibrate x",
        "false_pass": {"errors": 4, "trials": 40},
        "false_fail": {"errors": 3, "trials": 110},
        "overdispersion": 0.2,
    }
    back = read_rates(target)
    assert back.false_pass == rates.false_pass and back.false_fail == rates.false_fail
    assert back.overdispersion == 0.2 and back.source == "judge calibrate x"
    assert back.path == str(target)
    assert sorted(p.name for p in target.parent.iterdir()) == ["judge-rates.json"]


def test_a_failed_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "rates.json"
    write_rates(target, DEFAULT_JUDGE_RATES)
    before = target.read_bytes()

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_rates(target, JudgeRates(RateCounts(1, 2), RateCounts(1, 2)))
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["rates.json"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "rates.json:1:2: not JSON"),
        ("[1, 2]", 'expected a JSON object with "format"'),
        ('{"format": "other"}', 'format: expected "evalmark-judge-rates"'),
        (
            '{"format": "evalmark-judge-rates", "false_fail": {"errors": 1, "trials": 9}}',
            'false_pass: missing; write "false_pass": {"errors": 3, "trials": 120}',
        ),
        (
            '{"format": "evalmark-judge-rates", "false_pass": {"errors": 9, "trials": 3},'
            ' "false_fail": {"errors": 1, "trials": 9}}',
            "false_pass: errors (9) cannot exceed trials (3)",
        ),
        (
            '{"format": "evalmark-judge-rates", "false_pass": 0.1,'
            ' "false_fail": {"errors": 1, "trials": 9}}',
            "false_pass: expected errors and trials",
        ),
        (
            '{"format": "evalmark-judge-rates", "false_pass": {"errors": 1, "trials": 9},'
            ' "false_fail": {"errors": 1, "trials": 9}, "overdispersion": 3}',
            "overdispersion: expected a number between 0 and 1 or null",
        ),
        (
            '{"format": "evalmark-judge-rates", "false_pass": {"errors": 1, "trials": 9},'
            ' "false_fail": {"errors": 1, "trials": 9}, "flip": 0.1}',
            "flip: unknown field",
        ),
    ],
)
def test_bad_rates_files_name_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rates.json"
    path.write_text(text)
    with pytest.raises(DataFileError) as info:
        read_rates(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_rates_file_is_a_data_file_error(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="no such rates file"):
        read_rates(tmp_path / "nope.json")


@pytest.mark.parametrize(("mean", "rho"), [(0.1, 0.3), (0.05, 0.1), (0.2, 0.6)])
def test_overdispersion_is_recovered_from_beta_binomial_counts(mean: float, rho: float) -> None:
    rng = np.random.default_rng(7)
    size = 1 / rho - 1
    theta = rng.beta(mean * size, (1 - mean) * size, 4000)
    calls = rng.integers(3, 8, 4000)
    errors = rng.binomial(calls, theta)
    estimate = estimate_overdispersion(zip(errors.tolist(), calls.tolist(), strict=True))
    assert estimate.mean == pytest.approx(mean, abs=0.01)
    assert estimate.overdispersion == pytest.approx(rho, abs=0.05)
    assert estimate.cases == 4000 and estimate.trials == int(calls.sum())


def test_independent_errors_give_overdispersion_near_zero() -> None:
    rng = np.random.default_rng(3)
    errors = rng.binomial(5, 0.1, 3000)
    estimate = estimate_overdispersion((int(e), 5) for e in errors)
    assert estimate.overdispersion < 0.02


def test_overdispersion_by_hand_and_its_errors() -> None:
    # two cases of two calls, one always wrong, one always right: every error sticks to a case
    assert estimate_overdispersion([(2, 2), (0, 2)]).overdispersion == 1.0
    # cases with one call carry no information on rho and are skipped
    with pytest.raises(ValueError, match="at least two cases with two or more calls"):
        estimate_overdispersion([(1, 1), (0, 1), (1, 3)])
    with pytest.raises(ValueError, match="cannot exceed trials"):
        estimate_overdispersion([(3, 2), (0, 2)])


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, '{"false_pass": ' + "9" * 5000 + "}"]
)
def test_hostile_documents_are_typed_errors(tmp_path: Path, text: str) -> None:
    from evalmark.errors import DataFileError

    path = tmp_path / "rates.json"
    path.write_text(text)
    with pytest.raises(DataFileError, match=r"rates\.json"):
        read_rates(path)
