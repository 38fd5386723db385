"""Running a suite: build its judge, checks and application, evaluate, and apply its gate.

``run_suite`` returns a :class:`SuiteRun` holding one engine ``Report`` per evaluation of the
suite and the gate's verdict. The suite's ``pass-rate`` gate counts cases: a case (a sample of
one evaluation) passes when every one of its checks passes; that is the quantity ``evalmark
tune`` models, so a threshold tuned there means the same here. Checks are built by the strategy
registry (:mod:`evalmark.strategies._registry`), gates by :mod:`evalmark.gates._rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalmark.engine._pipeline import run_samples
from evalmark.engine._run import run_sync
from evalmark.engine._settings import Progress, RunSettings
from evalmark.errors import SuiteError
from evalmark.gates._rules import GateResult, check_budgets, check_cases, check_repeats
from evalmark.models._modes import RecordMode
from evalmark.report._model import Report
from evalmark.samples._samples import Sample, load_samples
from evalmark.strategies._registry import get_strategy_kind
from evalmark.suite._application import question_of, recorded_application_usage
from evalmark.suite._callables import import_callable
from evalmark.suite._conversation_run import run_conversations, selected_conversations
from evalmark.suite._identity import AnswerLog, AnswerSource, file_sha256, sources_of
from evalmark.suite._model import EvaluationSpec, GateSpec, JudgeSpec, StrategySpec, Suite
from evalmark.suite._preflight import check_runnable
from evalmark.suite._traces import run_traces, trace_cases

__all__ = [
    "GateResult",
    "SuiteRun",
    "build_judge",
    "build_strategy",
    "check_gate",
    "run_suite",
    "selected_samples",
    "verdict_rows",
]


@dataclass(frozen=True, slots=True)
class SuiteRun:
    """The outcome of one run of a suite."""

    suite: Suite
    build: str | None
    evaluations: tuple[EvaluationSpec, ...]  # those with samples selected, in suite order
    reports: tuple[Any, ...]  # evalmark.report.Report, one per evaluation run
    gates: tuple[GateResult, ...]
    # per report, what produced each case's answer, by sample name (for the run history)
    sources: tuple[Mapping[str, AnswerSource], ...] = ()

    @property
    def passed(self) -> bool:
        """True when every gate condition held."""
        return all(gate.passed for gate in self.gates)

    @property
    def cases(self) -> int:
        """The number of cases (samples over every evaluation)."""
        return sum(len(report) for report in self.reports)

    @property
    def passed_cases(self) -> int:
        """Cases whose every check passed."""
        return sum(row.passed for report in self.reports for row in report.rows())


# --------------------------------------------------------------------------- building blocks


def build_judge(spec: JudgeSpec, mode: RecordMode | str | None) -> Any:
    """The chat model behind the judged checks."""
    from evalmark.models import NoisyJudge, RuleJudge, record_replay

    if spec.kind == "rule":
        return RuleJudge(min_overlap=spec.min_overlap)
    if spec.kind == "noisy":
        inner = build_judge(spec.inner or JudgeSpec(), mode)
        return NoisyJudge(inner, spec.flip_rate, seed=spec.seed)
    assert spec.cassette is not None and spec.model is not None
    # The model is built even to replay: its id and default parameters are part of the keys.
    live = import_callable(spec.model, spec.base)()
    return record_replay(live, spec.cassette, mode, model_id=spec.model_id)


def build_strategy(spec: StrategySpec, judge: Any) -> Any:
    """The engine strategy a suite check names (built by the strategy registry)."""
    return get_strategy_kind(spec.kind).build(spec.options, judge)


def _function_under_test(
    evaluation: EvaluationSpec, build: str | None, mode: RecordMode | str | None
) -> tuple[Callable[..., Any], str | None]:
    app = evaluation.application
    if app.builds:
        if build is not None and build not in app.builds:
            raise SuiteError(
                f"evaluation {evaluation.name!r} records no build {build!r}; its builds: "
                f"{', '.join(app.build_names)}"
            )
        chosen = build if build is not None else app.build_names[0]
        return recorded_application_usage(app, chosen, mode), chosen
    assert app.function is not None
    return import_callable(app.function, app.base), None


def _sources(
    evaluation: EvaluationSpec,
    samples: Any,
    report: Any,
    used: str | None,
    log: AnswerLog | None,
) -> dict[str, AnswerSource]:
    """What produced each case's answer, by sample name (for the run history): the recordings
    a recorded build replayed, the cassette file of a conversation build, or the live model."""
    app = evaluation.application
    if log is not None:
        return sources_of(((s.name, question_of(s)) for s in samples), log)
    if used is not None:  # a conversation build: its cassette file as a whole
        source = AnswerSource(app.model_id, file_sha256(app.builds[used]), used)
    else:
        source = AnswerSource(app.model_id, None, None)
    return {row.name: source for row in report.rows()}


def _has_any(sample: Sample, tags: Sequence[str]) -> bool:
    return not tags or any(tag in sample.tags for tag in tags)


def _samples(evaluation: EvaluationSpec, tags: Sequence[str]) -> Any:
    """The evaluation's samples (or conversation cases) carrying any of its own tags (if it
    names some) and any of the run's ``tags`` (if given)."""
    if evaluation.conversations is not None:
        return selected_conversations(evaluation, tags)
    if evaluation.traces is not None:
        return trace_cases(evaluation, tags)
    samples = load_samples(*evaluation.samples)
    if not evaluation.tags and not tags:
        return samples
    return samples.filter(lambda s: _has_any(s, evaluation.tags) and _has_any(s, tags))


def selected_samples(suite: Suite, tags: Sequence[str] = ()) -> list[tuple[EvaluationSpec, Any]]:
    """Each evaluation with the samples a run with ``tags`` selects (evaluations left without
    samples dropped); ``SuiteError`` when no sample is selected."""
    selected = [(evaluation, _samples(evaluation, tags)) for evaluation in suite.evaluations]
    selected = [(evaluation, samples) for evaluation, samples in selected if len(samples)]
    if not selected:
        present = sorted({t for e in suite.evaluations for t in _tags_of(e)})
        wanted = ", ".join(tags) if tags else "the tags its evaluations name"
        raise SuiteError(
            f"{suite.path}: no sample of the suite carries {wanted}; the samples' tags are "
            f"{', '.join(present) or 'none'}"
        )
    return selected


# --------------------------------------------------------------------------- running


def run_suite(
    suite: Suite,
    *,
    build: str | None = None,
    mode: RecordMode | str | None = None,
    tags: Sequence[str] = (),
    concurrency: int | None = None,
    judge: Any = None,
    run_index: int = 0,
    progress: Progress | None = None,
) -> SuiteRun:
    """Run every evaluation of ``suite`` and apply its gate.

    ``build`` picks a recorded build (default: each evaluation's first), ``mode`` the cassette
    record mode, ``tags`` keeps the samples carrying any of them (an evaluation left without
    samples is not run), ``judge`` replaces the suite's
    judge (the noise tools pass a noisy one), ``run_index`` identifies the run to seeded judges,
    and ``progress(n, total)`` is called each time the application has answered n more of the
    run's ``total`` samples.
    """
    check_runnable(suite, build, mode)
    judge_model = (
        judge if judge is not None else (build_judge(suite.judge, mode) if suite.judged else None)
    )
    selected = selected_samples(suite, tags)
    total = sum(len(samples) for _, samples in selected)
    settings = RunSettings(
        concurrency if concurrency is not None else suite.concurrency,
        run_index=run_index,
        repeats=suite.repeats,
        k=suite.repeat_k,
    )
    counted = None if progress is None else _of_total(progress, total)
    reports = []
    sources: list[dict[str, AnswerSource]] = []
    chosen_build: str | None = None
    for evaluation, samples in selected:
        report, used, log = _run_evaluation(
            suite, evaluation, samples, build, mode, judge_model, settings, counted
        )
        chosen_build = chosen_build or used
        reports.append(report)
        sources.append(_sources(evaluation, samples, report, used, log))
    gates = check_gate(suite.gate, reports)
    # The run's gate travels beside its reports (SuiteRun.gates) and on each of them, so every
    # report the run writes shows it.
    gated = tuple(report.with_gates(gates) for report in reports)
    evaluations = tuple(evaluation for evaluation, _ in selected)
    return SuiteRun(suite, chosen_build, evaluations, gated, gates, tuple(sources))


def _run_evaluation(
    suite: Suite,
    evaluation: EvaluationSpec,
    samples: Any,
    build: str | None,
    mode: RecordMode | str | None,
    judge: Any,
    settings: RunSettings,
    progress: Progress | None,
) -> tuple[Report, str | None, AnswerLog | None]:
    """One evaluation of the suite through the engine: its report, the build used and, for a
    recorded build, the log of what answered each sample."""
    if evaluation.conversations is not None:
        report, used = run_conversations(
            evaluation,
            samples,
            build=build,
            mode=mode,
            judge=judge,
            settings=settings,
            suite_name=suite.name,
            progress=progress,
        )
        return report, used, None
    if evaluation.traces is not None:
        strategies = [build_strategy(spec, judge) for spec in evaluation.strategies]
        return run_traces(evaluation, samples, strategies, settings, suite.name), None, None
    function, used = _function_under_test(evaluation, build, mode)
    metadata: dict[str, Any] = (
        {"suite": suite.name, "build": used} if used is not None else {"suite": suite.name}
    )
    if suite.source:
        metadata["source"] = dict(suite.source)
    report = run_sync(
        run_samples(
            samples,
            [build_strategy(spec, judge) for spec in evaluation.strategies],
            application=function,
            settings=settings,
            name=evaluation.name,
            metadata=metadata,
            progress=progress,
        )
    )
    return report, used, getattr(function, "answer_log", None)


def _tags_of(evaluation: EvaluationSpec) -> set[str]:
    if evaluation.conversations is not None:
        return {t for c in evaluation.conversations.cases for t in c.tags}
    if evaluation.traces is not None and not evaluation.samples:
        return set()
    return set(load_samples(*evaluation.samples).tags)


def _of_total(progress: Progress, total: int) -> Progress:
    """``progress`` told the suite's ``total`` rather than one evaluation's."""
    return lambda answered, _: progress(answered, total)


def check_gate(gate: GateSpec, reports: Sequence[Any]) -> tuple[GateResult, ...]:
    """The suite gate's conditions checked against the reports, counting cases (see
    :func:`evalmark.gates._rules.check_cases`)."""
    return (
        check_cases(reports, pass_rate=gate.pass_rate, tags=gate.tags)
        + check_budgets(reports, gate.budgets)
        + check_repeats(reports, pass_at_k=gate.pass_at_k, pass_hat_k=gate.pass_hat_k)
    )


def verdict_rows(run: SuiteRun) -> list[tuple[str, str, bool, bool]]:
    """``(case, check, passed, judged)`` for every check of every case, for ``evalmark tune``."""
    rows: list[tuple[str, str, bool, bool]] = []
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        judged = {spec.label: spec.judged for spec in evaluation.strategies}
        prefix = f"{evaluation.name}/" if len(run.suite.evaluations) > 1 else ""
        for row in report.rows():
            for check, result in row.results.items():
                rows.append(
                    (prefix + row.name, check, bool(result.passed), judged.get(check, False))
                )
    return rows
