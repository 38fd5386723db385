"""The figures docs/judges.md shows for corrected pass rates and PPI, recomputed here without
evalmark: the Rogan–Gladen formula by hand, the intervals by a Monte Carlo of the posteriors
(scipy), PPI and PPI++ by the papers' formulas. (tools/docs_outputs.py --check keeps the shown
outputs equal to what the commands print.)"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "judges.md").read_text(encoding="utf-8")
PCT = r"(\d+\.\d)%"


def _posterior_interval(k: int, n: int, fp: tuple[int, int], ff: tuple[int, int]) -> np.ndarray:
    rng = np.random.default_rng(7)
    draws = 1_000_000
    q = stats.beta(k + 0.5, n - k + 0.5).rvs(draws, random_state=rng)
    a = stats.beta(fp[0] + 0.5, fp[1] - fp[0] + 0.5).rvs(draws, random_state=rng)
    b = stats.beta(ff[0] + 0.5, ff[1] - ff[0] + 0.5).rvs(draws, random_state=rng)
    j = 1 - a - b
    pi = np.clip((q - a) / np.where(j > 0, j, 1), 0, 1)
    pi[j <= 0] = np.where(np.arange(int((j <= 0).sum())) % 2 == 0, 0.0, 1.0)
    return np.quantile(pi, [0.025, 0.975])


def _rogan_gladen(q: float, fp: float, ff: float) -> float:
    return min(max((q - fp) / (1 - fp - ff), 0.0), 1.0)


def test_the_corrected_table_of_the_run() -> None:
    head = re.search(
        r"corrected for the judge \(false pass (\d+)/(\d+), false fail (\d+)/(\d+)", PAGE
    )
    assert head is not None
    fp = (int(head[1]), int(head[2]))
    ff = (int(head[3]), int(head[4]))
    rows = re.findall(
        rf"^(relevancy|groundedness) +(\d+)/(\d+) +{PCT} +{PCT} +{PCT}–{PCT}$", PAGE, re.M
    )
    assert len(rows) == 2
    for _check, k, n, raw, corrected, low, high in rows:
        k, n = int(k), int(n)
        assert float(raw) == round(100 * k / n, 1)
        assert float(corrected) == round(
            100 * _rogan_gladen(k / n, fp[0] / fp[1], ff[0] / ff[1]), 1
        )
        mc_low, mc_high = _posterior_interval(k, n, fp, ff)
        assert abs(float(low) / 100 - mc_low) < 0.015 and abs(float(high) / 100 - mc_high) < 0.015


def test_the_python_figures_on_the_calibration_set() -> None:
    assert "# 0.5227 = 23/44" in PAGE and "# 0.8605" in PAGE
    assert round(_rogan_gladen(22 / 44, 4 / 21, 5 / 23), 4) == round(23 / 44, 4) == 0.5227
    assert round(_rogan_gladen(0.7, 4 / 21, 5 / 23), 4) == 0.8605
    shown = re.search(r"# 0\.5, 0\.5227, (0\.\d{4}), (0\.\d{4})", PAGE)
    assert shown is not None
    mc_low, mc_high = _posterior_interval(22, 44, (4, 21), (5, 23))
    assert abs(float(shown[1]) - mc_low) < 0.012 and abs(float(shown[2]) - mc_high) < 0.012


def test_the_ppi_figures() -> None:
    # golden/support/labels.jsonl: 3 of 6 labelled cases pass; the report's judge passes 10 of
    # 12, 4 of the 6 labelled (it passes one people failed) and all 6 others.
    shown = dict(
        (name, (float(a), float(b), float(c)))
        for name, a, b, c in re.findall(
            rf"^(PPI|PPI\+\+) .*?{PCT}, 95% interval {PCT}–{PCT}$", PAGE, re.M
        )
    )
    f_lab = np.array([1, 1, 1, 1, 0, 0.0])
    y = np.array([1, 1, 1, 0, 0, 0.0])
    f_unl = np.ones(6)
    every = np.concatenate([f_lab, f_unl])
    z = stats.norm.ppf(0.975)
    n, m = 6, 6
    for name, lam in (
        ("PPI", 1.0),
        ("PPI++", np.cov(y, f_lab)[0, 1] / ((1 + n / m) * every.var(ddof=1))),
    ):
        theta = y.mean() + lam * (f_unl.mean() - f_lab.mean())
        half = z * math.sqrt((y - lam * f_lab).var(ddof=1) / n + lam**2 * f_unl.var(ddof=1) / m)
        expected = [100 * min(max(v, 0), 1) for v in (theta, theta - half, theta + half)]
        assert shown[name] == tuple(round(v, 1) for v in expected)
    assert "PPI++ (λ = 0.660)" in PAGE
