"""Judge noise and gates: exact gate risk, a seeded Monte Carlo, threshold tuning, flip rates.

A suite is modelled as cases of deterministic and judged checks with known true verdicts; a judged
check is reported wrongly with its flip probability. ``gate_risk`` gives the exact probability that
each pass-rate gate fails a build, ``simulate_gates`` checks it by seeded simulation, ``tune``
compares a healthy and a regressed build gate by gate, and ``estimate_flip_rate`` measures a real
judge's flip rate from repeated verdicts.
"""

from evalmark.errors import PlotUnavailableError
from evalmark.noise.estimate import FlipRateEstimate, estimate_flip_rate, wilson_interval
from evalmark.noise.exact import GateRisk, case_pass_probabilities, gate_risk, passing_distribution
from evalmark.noise.gates import Gate, make_gates, min_passing, parse_threshold
from evalmark.noise.plot import plot_tuning
from evalmark.noise.render import render_text, report_to_dict
from evalmark.noise.simulate import GateSimulation, SimulatedGate, simulate_gates
from evalmark.noise.suite import Case, Check, Suite, builds_from_counts
from evalmark.noise.tuning import (
    CasesNeeded,
    GateRow,
    NoiseLevel,
    Recommendation,
    TuneReport,
    cases_needed,
    recommend,
    tune,
)

__all__ = [
    "Case",
    "CasesNeeded",
    "Check",
    "FlipRateEstimate",
    "Gate",
    "GateRisk",
    "GateRow",
    "GateSimulation",
    "NoiseLevel",
    "PlotUnavailableError",
    "Recommendation",
    "SimulatedGate",
    "Suite",
    "TuneReport",
    "builds_from_counts",
    "case_pass_probabilities",
    "cases_needed",
    "estimate_flip_rate",
    "gate_risk",
    "make_gates",
    "min_passing",
    "parse_threshold",
    "passing_distribution",
    "plot_tuning",
    "recommend",
    "render_text",
    "report_to_dict",
    "simulate_gates",
    "tune",
    "wilson_interval",
]
