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

from evalmark.errors import PlotUnavailableError
from evalmark.noise._compare import (
    BuildComparison,
    McNemarResult,
    MeanDifference,
    cases_to_detect_pass_rate,
    cases_to_detect_score,
    clustered_mean_difference,
    compare_builds,
    mcnemar_exact,
    mcnemar_power,
    minimum_detectable_difference,
)
from evalmark.noise._estimate import FlipRateEstimate, estimate_flip_rate, wilson_interval
from evalmark.noise._exact import (
    GateRisk,
    case_pass_probabilities,
    every_gate_risk,
    fail_probabilities,
    gate_risk,
    passing_distribution,
    suite_distribution,
)
from evalmark.noise._from_suite import SuiteBuilds, builds_from_rows, pick_builds
from evalmark.noise._gates import Gate, make_gates, min_passing, parse_threshold
from evalmark.noise._plot import plot_tuning
from evalmark.noise._rates import (
    DEFAULT_JUDGE_RATES,
    RATES_FILE,
    ErrorRates,
    JudgeRates,
    OverdispersionEstimate,
    RateCounts,
    estimate_overdispersion,
    rates_path,
    read_rates,
    write_rates,
)
from evalmark.noise._render import render_text, report_to_dict
from evalmark.noise._simulate import GateSimulation, SimulatedGate, simulate_gates
from evalmark.noise._suite import BuildTruth, Case, Check, builds_from_counts
from evalmark.noise._tuning import (
    CasesNeeded,
    GateRow,
    NoiseLevel,
    Recommendation,
    RepeatOption,
    TuneReport,
    cases_needed,
    recommend,
    tune,
)
from evalmark.noise._uncertainty import RiskInterval, UncertainRow, posterior_rows

__all__ = [
    "DEFAULT_JUDGE_RATES",
    "RATES_FILE",
    "BuildComparison",
    "BuildTruth",
    "Case",
    "CasesNeeded",
    "Check",
    "ErrorRates",
    "FlipRateEstimate",
    "Gate",
    "GateRisk",
    "GateRow",
    "GateSimulation",
    "JudgeRates",
    "McNemarResult",
    "MeanDifference",
    "NoiseLevel",
    "OverdispersionEstimate",
    "PlotUnavailableError",
    "RateCounts",
    "Recommendation",
    "RepeatOption",
    "RiskInterval",
    "SimulatedGate",
    "SuiteBuilds",
    "TuneReport",
    "UncertainRow",
    "builds_from_counts",
    "builds_from_rows",
    "case_pass_probabilities",
    "cases_needed",
    "cases_to_detect_pass_rate",
    "cases_to_detect_score",
    "clustered_mean_difference",
    "compare_builds",
    "estimate_flip_rate",
    "estimate_overdispersion",
    "every_gate_risk",
    "fail_probabilities",
    "gate_risk",
    "make_gates",
    "mcnemar_exact",
    "mcnemar_power",
    "min_passing",
    "minimum_detectable_difference",
    "parse_threshold",
    "passing_distribution",
    "pick_builds",
    "plot_tuning",
    "posterior_rows",
    "rates_path",
    "read_rates",
    "recommend",
    "render_text",
    "report_to_dict",
    "simulate_gates",
    "suite_distribution",
    "tune",
    "wilson_interval",
    "write_rates",
]
