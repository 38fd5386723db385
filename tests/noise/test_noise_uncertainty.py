"""Risk with uncertain rates: posterior mean and interval against scipy quadrature and draws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from evalmark.noise import (
    ErrorRates,
    JudgeRates,
    RateCounts,
    builds_from_counts,
    gate_risk,
    posterior_rows,
)
from evalmark.noise._gates import make_gates
from evalmark.noise._uncertainty import posterior_fail_risks


def test_healthy_risk_mean_and_interval_match_quadrature_and_beta_quantiles() -> None:
    """A healthy build depends on the false-fail rate only, and its risk rises with it: the
    interval's ends are the risk at the rate's posterior quantiles."""
    n, judged = 12, 2
    healthy, _ = builds_from_counts(n, judged)
    measured = JudgeRates(RateCounts(9, 90), RateCounts(4, 150))
    gates = make_gates(n, [1.0, 11 / 12, 10 / 12])
    posterior = stats.beta(4.5, 146.5)

    def risk(ff: float, k: int) -> float:
        return float(stats.binom.cdf(k - 1, n, (1 - ff) ** judged))

    for gate, result in zip(gates, posterior_fail_risks(healthy, measured, gates), strict=True):
        k = gate.min_passing
        mean, _ = integrate.quad(lambda f, k=k: risk(f, k) * posterior.pdf(f), 0, 1)
        assert result.mean == pytest.approx(mean, abs=2e-4)
        assert result.low == pytest.approx(risk(posterior.ppf(0.025), gate.min_passing), abs=2e-3)
        assert result.high == pytest.approx(risk(posterior.ppf(0.975), gate.min_passing), abs=2e-3)
        assert result.low <= result.mean <= result.high


def test_both_rates_uncertain_match_posterior_draws() -> None:
    _, regressed = builds_from_counts(20, 2, failing=4)
    measured = JudgeRates(RateCounts(6, 40), RateCounts(3, 80), 0.2)
    gates = make_gates(20, [1.0, 0.9, 0.85, 0.8])
    grid = posterior_fail_risks(regressed, measured, gates)
    rng = np.random.default_rng(11)
    draws = [
        [
            r.fails
            for r in gate_risk(regressed, ErrorRates(fp, ff, 0.2), [g.threshold for g in gates])
        ]
        for fp, ff in zip(rng.beta(6.5, 34.5, 3000), rng.beta(3.5, 77.5, 3000), strict=True)
    ]
    values = np.array(draws)
    for i, result in enumerate(grid):
        column = values[:, i]
        se = column.std(ddof=1) / np.sqrt(column.size)
        assert abs(result.mean - column.mean()) <= 4 * se + 1e-3
        assert result.low == pytest.approx(np.quantile(column, 0.025), abs=0.02)
        assert result.high == pytest.approx(np.quantile(column, 0.975), abs=0.02)


def test_posterior_rows_give_false_alarm_and_miss() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    measured = JudgeRates(RateCounts(5, 50), RateCounts(2, 100))
    gates = make_gates(12, [0.9])
    (row,) = posterior_rows(healthy, regressed, measured, gates, confidence=0.9)
    (fails,) = posterior_fail_risks(regressed, measured, gates, confidence=0.9)
    assert row.miss.mean == pytest.approx(1 - fails.mean)
    assert row.miss.low == pytest.approx(1 - fails.high) and row.miss.confidence == 0.9
    with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
        posterior_rows(healthy, regressed, measured, gates, confidence=1.5)
    with pytest.raises(ValueError, match="points must be a whole number"):
        posterior_fail_risks(healthy, measured, gates, points=1)


def test_more_data_narrows_the_interval() -> None:
    healthy, _ = builds_from_counts(12, 2)
    gates = make_gates(12, [0.9])
    (few,) = posterior_fail_risks(healthy, JudgeRates(RateCounts(1, 1), RateCounts(3, 100)), gates)
    (many,) = posterior_fail_risks(
        healthy, JudgeRates(RateCounts(1, 1), RateCounts(30, 1000)), gates
    )
    assert many.high - many.low < (few.high - few.low) / 2
