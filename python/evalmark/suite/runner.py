"""Running a suite: build its judge, checks and application, evaluate, and apply its gate.

``run_suite`` returns a :class:`SuiteRun` holding one engine ``Report`` per evaluation of the
suite and the gate's verdict. The suite's ``pass-rate`` gate counts cases: a case (a sample of
one evaluation) passes when every one of its checks passes; that is the quantity ``evalmark
tune`` models, so a threshold tuned there means the same here.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalmark.data.samples import Sample, Samples, load_samples
from evalmark.errors import SuiteError
from evalmark.models import RecordMode
from evalmark.suite.application import import_callable, recorded_application
from evalmark.suite.model import EvaluationSpec, GateSpec, JudgeSpec, StrategySpec, Suite

__all__ = [
    "GateResult",
    "SuiteRun",
    "build_judge",
    "build_strategy",
    "check_gate",
    "run_suite",
    "verdict_rows",
]

Progress = Callable[[int, int], None]  # (samples just answered, samples in the run)


@dataclass(frozen=True, slots=True)
class GateResult:
    """One condition of the gate: what it asked, what the run got, and whether it held.

    ``unit`` is ``"rate"`` for pass rates (at least ``required``) and ``"count"`` for the
    errored cases (at most ``required``).
    """

    label: str
    required: float
    actual: float
    passed: bool
    detail: str = ""
    unit: Literal["rate", "count"] = "rate"


@dataclass(frozen=True, slots=True)
class SuiteRun:
    """The outcome of one run of a suite."""

    suite: Suite
    build: str | None
    evaluations: tuple[EvaluationSpec, ...]  # those with samples selected, in suite order
    reports: tuple[Any, ...]  # evalmark.report.Report, one per evaluation run
    gates: tuple[GateResult, ...]

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
    """The engine strategy a suite check names."""
    from evalmark import strategies as s

    options = dict(spec.options)
    name = options.pop("name", None) or spec.kind
    kind = spec.kind
    if kind == "exact-match":
        return s.ExactMatch(name=name)
    if kind == "contains":
        return s.Contains(name=name)
    if kind == "contains-facts":
        return s.ContainsFacts(name=name)
    if kind == "token-f1":
        return s.TokenF1(options.get("threshold"), name=name)
    if kind == "rouge-l":
        return s.RougeL(options.get("threshold"), name=name)
    if kind == "levenshtein":
        return s.Levenshtein(options.get("threshold"), name=name)
    if kind == "semantic-similarity":
        from evalmark.models import HashEmbedding

        model = HashEmbedding(dim=options.get("dim", 256), seed=options.get("seed", 0))
        return s.SemanticSimilarity(options.get("threshold"), model=model, name=name)
    if kind == "json-match":
        return s.JsonMatch(numbers=options.get("numbers", "value"), name=name)
    if kind == "retrieved-segments":
        return s.RetrievedSegments(options.get("threshold", 1.0), name=name)
    return _judged_strategy(kind, options, judge, name)


def _judged_strategy(kind: str, options: dict[str, Any], judge: Any, name: str) -> Any:
    from evalmark.models.prompts import PROMPTS
    from evalmark.strategies import JudgeStrategy

    extra: dict[str, Any] = {}
    if "min-grade" in options:
        extra["min_grade"] = options["min-grade"]
    if "repeats" in options:
        extra["repeats"] = options["repeats"]
    if "reducer" in options:
        extra["reducer"] = options["reducer"]
    return JudgeStrategy(judge, PROMPTS[kind], name=name, **extra)


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
        return recorded_application(app, chosen, mode), chosen
    assert app.function is not None
    return import_callable(app.function, app.base), None


def _has_any(sample: Sample, tags: Sequence[str]) -> bool:
    return not tags or any(tag in sample.tags for tag in tags)


def _samples(evaluation: EvaluationSpec, tags: Sequence[str]) -> Samples:
    """The evaluation's samples carrying any of its own tags (if it names some) and any of the
    run's ``tags`` (if given)."""
    samples = load_samples(*evaluation.samples)
    if not evaluation.tags and not tags:
        return samples
    return samples.filter(lambda s: _has_any(s, evaluation.tags) and _has_any(s, tags))


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
    from evalmark.engine.scorer import Scorer

    if build is not None and build not in suite.build_names:
        known = ", ".join(suite.build_names) or "none (the suite has no recorded builds)"
        raise SuiteError(f"{suite.path}: no build named {build!r}; the suite records: {known}")
    judge_model = (
        judge if judge is not None else (build_judge(suite.judge, mode) if suite.judged else None)
    )
    selected = [(evaluation, _samples(evaluation, tags)) for evaluation in suite.evaluations]
    selected = [(evaluation, samples) for evaluation, samples in selected if len(samples)]
    if not selected:
        present = sorted({t for e in suite.evaluations for t in load_samples(*e.samples).tags})
        wanted = ", ".join(tags) if tags else "the tags its evaluations name"
        raise SuiteError(
            f"{suite.path}: no sample of the suite carries {wanted}; the samples' tags are "
            f"{', '.join(present) or 'none'}"
        )
    total = sum(len(samples) for _, samples in selected)
    reports = []
    chosen_build: str | None = None
    workers = concurrency if concurrency is not None else suite.concurrency
    for evaluation, samples in selected:
        function, used = _function_under_test(evaluation, build, mode)
        chosen_build = chosen_build or used
        if progress is not None:
            function = _counting(function, progress, total)
        strategies = [build_strategy(spec, judge_model) for spec in evaluation.strategies]
        scorer = Scorer(concurrency=workers, run_index=run_index)
        metadata = (
            {"suite": suite.name, "build": used} if used is not None else {"suite": suite.name}
        )
        report = scorer.evaluate(
            samples, function, *strategies, name=evaluation.name, metadata=metadata
        )
        reports.append(report)
    gates = check_gate(suite.gate, reports)
    evaluations = tuple(evaluation for evaluation, _ in selected)
    return SuiteRun(suite, chosen_build, evaluations, tuple(reports), gates)


def _counting(function: Callable[..., Any], progress: Progress, total: int) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(function):

        async def acounted(*args: Any) -> Any:
            try:
                return await function(*args)
            finally:
                progress(1, total)

        acounted.__name__ = getattr(function, "__name__", "application")
        return acounted

    def counted(*args: Any) -> Any:
        try:
            return function(*args)
        finally:
            progress(1, total)

    counted.__name__ = getattr(function, "__name__", "application")
    return counted


def _case_rate(rows: Iterable[Any]) -> tuple[int, int]:
    rows = list(rows)
    return sum(row.passed for row in rows), len(rows)


def check_gate(gate: GateSpec, reports: Sequence[Any]) -> tuple[GateResult, ...]:
    """The gate's conditions, checked against the reports (case pass rates). A case that ended
    in an error (the application or a judge raised) always fails the gate: an error says
    nothing about the application's quality, so a pass rate around it cannot be trusted."""
    results: list[GateResult] = []
    all_rows = [row for report in reports for row in report.rows()]
    errored = [row.name for row in all_rows if row.verdict == "error"]
    if errored:
        listed = ", ".join(errored[:5]) + (
            f" and {len(errored) - 5} more" if len(errored) > 5 else ""
        )
        results.append(
            GateResult("errors", 0, len(errored), False, f"errored: {listed}", unit="count")
        )
    if gate.pass_rate is not None:
        passed, total = _case_rate(all_rows)
        actual = passed / total if total else 0.0
        results.append(
            GateResult(
                "pass rate",
                gate.pass_rate,
                actual,
                _at_least(actual, gate.pass_rate),
                f"{passed} of {total} cases pass every check",
            )
        )
    for tag, required in gate.tags.items():
        passed, total = _case_rate(row for row in all_rows if tag in row.tags)
        if total == 0:
            results.append(GateResult(f"tag {tag}", required, 0.0, False, "no case has this tag"))
            continue
        actual = passed / total
        results.append(
            GateResult(
                f"tag {tag}",
                required,
                actual,
                _at_least(actual, required),
                f"{passed} of {total} cases tagged {tag} pass every check",
            )
        )
    return tuple(results)


def _at_least(actual: float, required: float) -> bool:
    # 9/10 against 0.9 must pass although 9/10 is 0.8999999999999999 in binary.
    return actual >= required or math.isclose(actual, required, rel_tol=1e-12)


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
