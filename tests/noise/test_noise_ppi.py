"""PPI and PPI++ means: against a direct NumPy transcription of the published formulas, and by
a seeded coverage simulation (2,000 runs at 95%)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import evalmark
from evalmark.noise._ppi import ppi_mean


def _transcribed(
    f_unl: np.ndarray, f_lab: np.ndarray, y: np.ndarray, alpha: float, tuned: bool
) -> tuple[float, float, float, float]:
    """Angelopoulos et al. (2023), mean estimation, and PPI++ (2023), written out with sums over
    the two disjoint sets of the papers: unlabelled verdicts, labelled verdicts and labels."""
    big_m, n = len(f_unl), len(y)
    fbar_unl = f_unl.sum() / big_m
    fbar_lab = f_lab.sum() / n
    ybar = y.sum() / n
    s2_unl = ((f_unl - fbar_unl) ** 2).sum() / (big_m - 1)
    if tuned:
        every = np.concatenate([f_unl, f_lab])
        s2_every = ((every - every.mean()) ** 2).sum() / (len(every) - 1)
        cov = ((y - ybar) * (f_lab - fbar_lab)).sum() / (n - 1)
        lam = cov / ((1 + n / big_m) * s2_every)
    else:
        lam = 1.0
    theta = ybar + lam * (fbar_unl - fbar_lab)  # PPI: fbar_unl - (fbar_lab - ybar)
    r = y - lam * f_lab
    s2_r = ((r - r.mean()) ** 2).sum() / (n - 1)
    half = stats.norm.ppf(1 - alpha / 2) * math.sqrt(s2_r / n + lam**2 * s2_unl / big_m)
    return theta, theta - half, theta + half, lam


@pytest.mark.parametrize("method", ["ppi", "ppi++"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_the_transcribed_formulas(method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.random(600) < 0.7
    flips = rng.random(600) < np.where(truth, 0.1, 0.25)
    judged = (truth ^ flips).astype(float)
    labelled = rng.choice(600, 80, replace=False)
    y, f_lab = truth[labelled].astype(float), judged[labelled]
    f_unl = np.delete(judged, labelled)
    got = ppi_mean(judged, f_lab, y, alpha=0.1, method=method)  # type: ignore[arg-type]
    theta, low, high, lam = _transcribed(f_unl, f_lab, y, 0.1, method == "ppi++")
    assert got.estimate == pytest.approx(theta, abs=1e-12)
    assert got.low == pytest.approx(max(low, 0.0), abs=1e-12)
    assert got.high == pytest.approx(min(high, 1.0), abs=1e-12)
    assert got.lam == pytest.approx(lam, abs=1e-12)
    assert evalmark.ppi_mean is ppi_mean


def test_ppi_with_a_perfect_judge_is_the_judges_mean_with_a_tiny_interval() -> None:
    judged = [1, 0, 1, 1] * 50
    got = ppi_mean(judged, judged[:20], judged[:20], method="ppi")
    assert got.estimate == pytest.approx(0.75)
    assert got.high - got.low < 0.13  # only the N cases' sampling error remains


@pytest.mark.parametrize("method", ["ppi", "ppi++"])
def test_coverage_by_simulation(method: str) -> None:
    """2,000 seeded worlds: N judged cases, n labelled; the 95% interval must cover the true
    pass rate in at least 94% of them."""
    rng = np.random.default_rng(32)
    sims, big_n, n, p = 2000, 1000, 300, 0.7
    truth = rng.random((sims, big_n)) < p
    err = rng.random((sims, big_n)) < np.where(truth, 0.1, 0.25)
    judged = (truth ^ err).astype(float)
    covered = 0
    for s in range(sims):
        got = ppi_mean(judged[s], judged[s, :n], truth[s, :n], method=method)  # type: ignore[arg-type]
        covered += got.low <= p <= got.high
    assert covered >= 1880, covered


def test_ppi_plus_plus_is_never_much_wider_than_the_labels_alone() -> None:
    rng = np.random.default_rng(5)
    truth = rng.random(1000) < 0.6
    judged = (truth ^ (rng.random(1000) < 0.45)).astype(float)  # a nearly useless judge
    got = ppi_mean(judged, judged[:100], truth[:100], method="ppi++")
    assert abs(got.lam) < 0.5
    assert got.high - got.low <= 1.02 * (got.classical_high - got.classical_low)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="0/1"):
        ppi_mean([0, 2], [1, 0], [1, 0])
    with pytest.raises(ValueError, match="labels has 1"):
        ppi_mean([0, 1, 1], [1, 0], [1])
    with pytest.raises(ValueError, match="not part of judged"):
        ppi_mean([0, 0, 0, 0, 0], [1, 1], [1, 0])
    with pytest.raises(ValueError, match="method"):
        ppi_mean([0, 1, 1], [1, 0], [1, 0], method="pp")  # type: ignore[arg-type]
