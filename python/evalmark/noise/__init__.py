"""Judge noise and gates: exact gate risk, a seeded Monte Carlo, threshold tuning, judge rates.

A suite is modelled as cases of deterministic and judged checks with known true verdicts. A
judge errs in two ways, each with its own rate (``ErrorRates``): it passes a truly failing check
(false pass) or fails a truly passing one (false fail); the flip model is the case of equal
rates. Errors may cling to hard cases (``overdispersion``: each case's error probability is drawn
from a Beta distribution), a check may be decided by the majority of several calls
(``repeats``), and measured rates (``JudgeRates``: errors out of trials, read from a rates file)
carry their uncertainty.

``gate_risk`` gives the exact probability that each pass-rate gate fails a build,
``simulate_gates`` checks it by seeded simulation, ``tune`` compares a healthy and a regressed
build gate by gate (with the correlated, repeats and uncertainty views), ``posterior_rows``
gives risks with intervals, ``estimate_flip_rate`` and ``estimate_overdispersion`` measure a
judge, and ``compare_builds`` tells whether build B differs from build A beyond noise.
"""

from evalmark.noise._compare import compare_builds
from evalmark.noise._estimate import estimate_flip_rate
from evalmark.noise._exact import gate_risk
from evalmark.noise._rates import (
    ErrorRates,
    JudgeRates,
    RateCounts,
    estimate_overdispersion,
    read_rates,
    write_rates,
)
from evalmark.noise._simulate import simulate_gates
from evalmark.noise._suite import BuildTruth, Case, Check, builds_from_counts
from evalmark.noise._tuning import tune
from evalmark.noise._uncertainty import posterior_rows

__all__ = [
    "BuildTruth",
    "Case",
    "Check",
    "ErrorRates",
    "JudgeRates",
    "RateCounts",
    "builds_from_counts",
    "compare_builds",
    "estimate_flip_rate",
    "estimate_overdispersion",
    "gate_risk",
    "posterior_rows",
    "read_rates",
    "simulate_gates",
    "tune",
    "write_rates",
]
