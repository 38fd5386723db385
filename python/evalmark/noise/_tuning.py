"""Threshold tuning: how often each gate fails a healthy and a regressed build; which to pick.

For each noise level studied (a flip rate, ``ErrorRates`` or measured ``JudgeRates``) the report
holds the table of gates at the suite's current number of judge calls per check, the
recommended gate and the cases needed; when the errors are correlated, the same gates under
independent errors (what the simple model would have said); for each number of calls in
``repeats``, the best gate and its cost in judge calls; and, for measured rates, every risk's
posterior mean and interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalmark.noise._exact import RatesLike, check_repeats
from evalmark.noise._gates import Gate, make_gates, min_passing
from evalmark.noise._rates import ErrorRates, JudgeRates, as_error_rates, check_probability
from evalmark.noise._recommend import (
    GateRow,
    Recommendation,
    exact_rows,
    gate_row,
    informative,
    recommend,
)
from evalmark.noise._simulate import simulate_gates
from evalmark.noise._sizing import CasesNeeded, cases_needed, scaled_kind_counts
from evalmark.noise._suite import BuildTruth
from evalmark.noise._uncertainty import UncertainRow, posterior_rows

__all__ = [
    "CasesNeeded",
    "GateRow",
    "NoiseLevel",
    "Recommendation",
    "RepeatOption",
    "TuneReport",
    "cases_needed",
    "recommend",
    "scaled_kind_counts",
    "tune",
]


@dataclass(frozen=True, slots=True)
class RepeatOption:
    """Deciding each judged check by the majority of ``repeats`` calls: best gate and cost.

    ``judge_calls`` is the number of judge calls one run of the suite makes. ``independent_*``
    are the recommended gate's risks if errors were independent (None when they are).
    """

    repeats: int
    judge_calls: int
    recommendation: Recommendation
    cases_needed: CasesNeeded
    independent_false_alarm: float | None
    independent_miss: float | None
    uncertainty: UncertainRow | None


@dataclass(frozen=True, slots=True)
class NoiseLevel:
    """The tuning table, recommendation, suite size and the other views for one noise level.

    ``rates`` are the error rates studied (for measured counts, their posterior means, kept in
    ``measured``). ``rows`` are at ``repeats`` calls per check. ``independent_rows`` hold the
    same gates under independent errors when ``rates`` has overdispersion (else empty).
    ``cases_needed`` is the minimum when the suite meets the limits, else searched from the
    suite's size up. ``options`` has one entry per number of calls studied; ``choice`` is the
    cheapest that meets both limits (None when none does). ``uncertainty`` holds, for measured
    rates, each row's posterior risks.
    """

    rates: ErrorRates
    measured: JudgeRates | None
    repeats: int
    rows: tuple[GateRow, ...]
    omitted: int  # default gates left out: both builds fail them almost always or almost never
    recommendation: Recommendation
    cases_needed: CasesNeeded
    independent_rows: tuple[GateRow, ...] = ()
    options: tuple[RepeatOption, ...] = ()
    choice: RepeatOption | None = None
    uncertainty: tuple[UncertainRow, ...] = ()

    @property
    def flip_rate(self) -> float | None:
        """The flip rate when the level is the flip model (equal, independent rates), else None."""
        if self.rates.is_flip and self.rates.overdispersion == 0.0:
            return self.rates.false_pass
        return None


@dataclass(frozen=True, slots=True)
class TuneReport:
    """The result of ``tune``: one ``NoiseLevel`` per noise level studied."""

    cases: int
    judged_checks: int
    regressed_failing_cases: int
    runs: int
    seed: int
    max_false_alarm: float
    max_miss: float
    levels: tuple[NoiseLevel, ...]
    current_gate: float | None = None
    confidence: float = 0.95


def tune(
    healthy: BuildTruth,
    regressed: BuildTruth,
    noise: Sequence[RatesLike],
    *,
    thresholds: Sequence[float] | None = None,
    repeats: Sequence[int] = (),
    current_repeats: int = 1,
    current_gate: float | None = None,
    runs: int = 10_000,
    seed: int = 0,
    max_false_alarm: float = 0.05,
    max_miss: float = 0.05,
    max_cases: int = 5_000,
    confidence: float = 0.95,
    workers: int | None = None,
) -> TuneReport:
    """Tabulate each gate's false-alarm and catch probabilities for a healthy and regressed build.

    ``healthy`` and ``regressed`` are the true verdicts of the same suite (same cases, in the same
    order) for a good build and a broken one. ``noise`` lists the noise levels: flip rates,
    ``ErrorRates`` or measured ``JudgeRates``. For each: the exact probability that each gate
    fails each build with ``current_repeats`` judge calls per check, the simulated failure
    counts over ``runs`` seeded runs (``runs=0`` skips the simulation), the recommended gate,
    the smallest suite reaching ``max_false_alarm`` and ``max_miss``; the independent-errors
    comparison when the rates have overdispersion; for each number of calls in ``repeats``
    the best gate and its cost; and posterior intervals at ``confidence`` for measured rates.
    Default thresholds: "every case" and every other distinct gate except those both builds
    fail with probability below 0.00005, or above 0.99995 (``current_gate``, the suite's own
    threshold, is always shown).
    """
    if len(healthy) != len(regressed):
        raise ValueError(
            f"healthy and regressed must be builds of the same suite: they have {len(healthy)} "
            f"and {len(regressed)} cases"
        )
    if not noise:
        raise ValueError("noise must name at least one noise level, got none")
    models = [as_error_rates(item, "each noise level") for item in noise]
    false_alarm_target = check_probability(max_false_alarm, "max_false_alarm")
    miss_target = check_probability(max_miss, "max_miss")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 0:
        raise ValueError(f"runs must be an integer ≥ 0 (0 skips the simulation), got {runs!r}")
    if isinstance(max_cases, bool) or not isinstance(max_cases, int) or max_cases < 1:
        raise ValueError(f"max_cases must be a positive integer, got {max_cases!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    base = check_repeats(current_repeats)
    calls = sorted({check_repeats(k) for k in repeats})
    if current_gate is not None:
        current_gate = check_probability(current_gate, "current_gate")

    cases = len(healthy)
    all_gates = make_gates(cases, thresholds)
    keep = None if current_gate is None else min_passing(current_gate, cases)
    levels = []
    for item, model in zip(noise, models, strict=True):
        measured = item if isinstance(item, JudgeRates) else None
        exact = exact_rows(healthy, regressed, model, all_gates, base)
        shown: Sequence[int] = range(len(all_gates))
        if thresholds is None:
            shown = [
                i
                for i in shown
                if i == 0 or informative(*exact[i][:2]) or all_gates[i].min_passing == keep
            ]
        gates = [all_gates[i] for i in shown]
        healthy_counts, regressed_counts = (
            _simulated(build, model, gates, repeats=base, runs=runs, seed=seed, workers=workers)
            for build in (healthy, regressed)
        )
        rows = tuple(
            GateRow(
                all_gates[i],
                *exact[i][:2],
                healthy_counts[all_gates[i].min_passing],
                regressed_counts[all_gates[i].min_passing],
                exact[i][2],
            )
            for i in shown
        )
        independent_rows: tuple[GateRow, ...] = ()
        if model.overdispersion > 0.0:
            plain = exact_rows(healthy, regressed, model.independent, gates, base)
            independent_rows = tuple(gate_row(g, r) for g, r in zip(gates, plain, strict=True))
        options = tuple(
            _option(
                healthy,
                regressed,
                model,
                measured,
                k,
                all_gates,
                false_alarm_target,
                miss_target,
                max_cases,
                confidence,
            )
            for k in calls
        )
        meeting = [option for option in options if option.recommendation.meets]
        choice = min(meeting, key=lambda o: (o.judge_calls, o.repeats)) if meeting else None
        uncertainty: tuple[UncertainRow, ...] = ()
        if measured is not None:
            uncertainty = posterior_rows(
                healthy, regressed, measured, gates, repeats=base, confidence=confidence
            )
        recommendation = recommend(rows, false_alarm_target, miss_target)
        levels.append(
            NoiseLevel(
                rates=model,
                measured=measured,
                repeats=base,
                rows=rows,
                omitted=len(all_gates) - len(rows),
                recommendation=recommendation,
                cases_needed=cases_needed(
                    healthy,
                    regressed,
                    model,
                    false_alarm_target,
                    miss_target,
                    max_cases=max_cases,
                    repeats=base,
                    at_least=_sizing_from(recommendation, cases),
                ),
                independent_rows=independent_rows,
                options=options,
                choice=choice,
                uncertainty=uncertainty,
            )
        )
    return TuneReport(
        cases=cases,
        judged_checks=healthy.judged_checks,
        regressed_failing_cases=regressed.truly_failing_cases,
        runs=runs,
        seed=seed,
        max_false_alarm=false_alarm_target,
        max_miss=miss_target,
        levels=tuple(levels),
        current_gate=current_gate,
        confidence=confidence,
    )


def _option(
    healthy: BuildTruth,
    regressed: BuildTruth,
    model: ErrorRates,
    measured: JudgeRates | None,
    repeats: int,
    gates: Sequence[Gate],
    max_false_alarm: float,
    max_miss: float,
    max_cases: int,
    confidence: float,
) -> RepeatOption:
    exact = exact_rows(healthy, regressed, model, gates, repeats)
    rows = [gate_row(g, r) for g, r in zip(gates, exact, strict=True)]
    rec = recommend(rows, max_false_alarm, max_miss)
    independent_false_alarm = independent_miss = None
    uncertainty = None
    if rec.gate is not None:
        if model.overdispersion > 0.0:
            ((h, _, passes),) = exact_rows(
                healthy, regressed, model.independent, [rec.gate], repeats
            )
            independent_false_alarm, independent_miss = h, passes
        if measured is not None:
            (uncertainty,) = posterior_rows(
                healthy, regressed, measured, [rec.gate], repeats=repeats, confidence=confidence
            )
    return RepeatOption(
        repeats=repeats,
        judge_calls=repeats * healthy.judged_checks,
        recommendation=rec,
        cases_needed=cases_needed(
            healthy,
            regressed,
            model,
            max_false_alarm,
            max_miss,
            max_cases=max_cases,
            repeats=repeats,
            at_least=_sizing_from(rec, len(healthy)),
        ),
        independent_false_alarm=independent_false_alarm,
        independent_miss=independent_miss,
        uncertainty=uncertainty,
    )


def _sizing_from(recommendation: Recommendation, cases: int) -> int:
    """Where the search for the cases needed starts: at 1 (the minimum, which may be below the
    suite's size) when the suite meets the limits, else at the suite's size: a suite that
    misses them is told how far to grow, never to shrink."""
    return 1 if recommendation.meets else max(cases, 1)


def _simulated(
    suite: BuildTruth,
    rates: ErrorRates,
    gates: Sequence[Gate],
    *,
    repeats: int,
    runs: int,
    seed: int,
    workers: int | None,
) -> dict[int, int | None]:
    if runs == 0:
        return {gate.min_passing: None for gate in gates}
    result = simulate_gates(
        suite,
        rates,
        [g.threshold for g in gates],
        repeats=repeats,
        runs=runs,
        seed=seed,
        workers=workers,
    )
    return {sim.gate.min_passing: sim.failed for sim in result.gates}
