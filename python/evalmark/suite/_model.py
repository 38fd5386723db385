"""The suite model: what a loaded suite file holds, and the checks a suite can name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.errors import SuiteError
from evalmark.gates._budgets import Budget, BudgetLimit
from evalmark.strategies._kinds import (
    COMMON_OPTIONS,
    JUDGED_OPTIONS,
    StrategyKind,
    check_fraction,
    check_integer,
    check_positive_int,
)
from evalmark.strategies._registry import STRATEGY_KINDS
from evalmark.suite._strategy_spec import StrategySpec

if TYPE_CHECKING:
    from evalmark.suite._conversations import ConversationsSpec

__all__ = [
    "COMMON_OPTIONS",
    "JUDGED_OPTIONS",
    "REPORT_FORMATS",
    "STRATEGY_KINDS",
    "SUITE_FILE",
    "ApplicationSpec",
    "EvaluationSpec",
    "GateSpec",
    "JudgeSpec",
    "ReportSpec",
    "StrategyKind",
    "StrategySpec",
    "Suite",
    "SuiteError",
    "TracesSpec",
    "check_fraction",
    "check_integer",
    "check_positive_int",
]

SUITE_FILE = "suite.yaml"
REPORT_FORMATS = ("md", "json", "html", "xml")
JudgeKindName = Literal["rule", "recorded", "noisy"]


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class TracesSpec:
    """The trace file of an evaluation, the span attribute naming its cases, and how many
    spans apart one trace's spans may lie in the file."""

    path: Path
    match: str | None = None
    window: int | None = None


@dataclass(frozen=True, slots=True)
class ApplicationSpec:
    """The application under test: recorded builds, a live function, or both.

    A recorded build is a cassette of the application's chat calls: for each sample the request
    is the ``system-prompt`` (if any) and the sample's first parameter as the user message, sent
    to ``model-id``. With a ``function`` as well, record modes other than ``replay`` call it to
    fill or rewrite a build's cassette.
    """

    builds: Mapping[str, Path]
    function: str | None
    model_id: str
    system_prompt: str | None
    base: Path
    # the suite file's line of "function", "builds" and of each "build:<name>", for errors
    lines: Mapping[str, int] = field(default_factory=dict)

    @property
    def build_names(self) -> tuple[str, ...]:
        """The recorded builds, in file order; the first is the default."""
        return tuple(self.builds)


@dataclass(frozen=True, slots=True)
class EvaluationSpec:
    """One evaluation of a suite: samples (or conversations, or recorded traces), the
    application and the checks applied to it."""

    name: str
    samples: tuple[Path | str, ...]  # a str is a source a sample loader claims
    tags: tuple[str, ...]
    application: ApplicationSpec
    strategies: tuple[StrategySpec, ...]
    conversations: ConversationsSpec | None = None
    traces: TracesSpec | None = None


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """The judge of the judged checks.

    ``rule``: :class:`~evalmark.models.RuleJudge` with ``min_overlap``. ``recorded``: replayed from
    ``cassette`` (and recorded from ``model``, a ``module:factory`` returning a chat model, in the
    record modes). ``noisy``: ``inner`` with its verdicts flipped at ``flip_rate`` (seeded).
    """

    kind: JudgeKindName = "rule"
    min_overlap: float = 0.6
    cassette: Path | None = None
    model: str | None = None
    model_id: str | None = None
    flip_rate: float = 0.0
    seed: int = 0
    inner: JudgeSpec | None = None
    base: Path = Path()
    # the suite file's line of "cassette" and "model", for errors found before a run
    lines: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GateSpec:
    """When a run fails: overall and per-tag pass rates, the largest drop from a baseline,
    budgets of recorded latency, tokens and cost, and pass@k / pass^k over repeated runs."""

    pass_rate: float | None = None
    tags: Mapping[str, float] = field(default_factory=dict)
    max_drop: float | None = None
    baseline: Path | None = None
    budgets: Mapping[Budget, BudgetLimit] = field(default_factory=dict)
    pass_at_k: float | None = None
    pass_hat_k: float | None = None


@dataclass(frozen=True, slots=True)
class ReportSpec:
    """Where the reports go and in which formats."""

    dir: Path | None = None
    formats: tuple[str, ...] = ("md", "json")


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded suite file."""

    path: Path
    name: str
    description: str
    evaluations: tuple[EvaluationSpec, ...]
    judge: JudgeSpec
    gate: GateSpec
    report: ReportSpec
    concurrency: int = DEFAULT_CONCURRENCY
    repeats: int = 1
    repeat_k: int | None = None
    judge_rates: Path | None = None  # a rates file: judged pass rates are shown corrected
    judge_certificate: Path | None = None  # a judge certificate the run requires
    source: Mapping[str, Any] = field(default_factory=dict)  # what `evalmark import` read

    @property
    def base(self) -> Path:
        """The folder paths in the suite are relative to."""
        return self.path.parent

    @property
    def build_names(self) -> tuple[str, ...]:
        """Every recorded build named by any evaluation, in order of first mention."""
        names: dict[str, None] = {}
        for evaluation in self.evaluations:
            names.update(dict.fromkeys(evaluation.application.build_names))
        return tuple(names)

    @property
    def judged(self) -> bool:
        """True when some check needs the judge."""
        turn_checks = [e.conversations.turn_strategies for e in self.evaluations if e.conversations]
        return any(s.uses_judge for e in self.evaluations for s in e.strategies) or any(
            s.uses_judge for checks in turn_checks for s in checks
        )


# --------------------------------------------------------------------------- strategy kinds
# The kinds a suite can name are the strategy registry's (one list for suites, schema and CLI).
