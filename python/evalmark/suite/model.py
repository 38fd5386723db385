"""The suite model: what a loaded suite file holds, and the checks a suite can name."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evalmark.errors import SuiteError

__all__ = [
    "COMMON_OPTIONS",
    "JUDGED_OPTIONS",
    "REPORT_FORMATS",
    "STRATEGY_KINDS",
    "SUITE_FILE",
    "ApplicationSpec",
    "Checker",
    "EvaluationSpec",
    "GateSpec",
    "JudgeSpec",
    "ReportSpec",
    "StrategyKind",
    "StrategySpec",
    "Suite",
    "SuiteError",
]

SUITE_FILE = "suite.yaml"
REPORT_FORMATS = ("md", "json", "html", "xml")
JudgeKindName = Literal["rule", "recorded", "noisy"]


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class StrategySpec:
    """One check of a suite: its kind (``contains-facts``, ``relevancy``...) and options."""

    kind: str
    options: Mapping[str, Any]
    where: str

    @property
    def judged(self) -> bool:
        """True when a judge model decides this check."""
        return STRATEGY_KINDS[self.kind].prompt is not None

    @property
    def label(self) -> str:
        """The check's name in reports: its ``name`` option, else its kind."""
        name = self.options.get("name")
        return name if isinstance(name, str) else self.kind


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

    @property
    def build_names(self) -> tuple[str, ...]:
        """The recorded builds, in file order; the first is the default."""
        return tuple(self.builds)


@dataclass(frozen=True, slots=True)
class EvaluationSpec:
    """One evaluation of a suite: samples, the application and the checks applied to it."""

    name: str
    samples: tuple[Path, ...]
    tags: tuple[str, ...]
    application: ApplicationSpec
    strategies: tuple[StrategySpec, ...]


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


@dataclass(frozen=True, slots=True)
class GateSpec:
    """When a run fails: overall and per-tag pass rates, and the largest drop from a baseline."""

    pass_rate: float | None = None
    tags: Mapping[str, float] = field(default_factory=dict)
    max_drop: float | None = None
    baseline: Path | None = None


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
    concurrency: int = 4

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
        return any(s.judged for e in self.evaluations for s in e.strategies)


# --------------------------------------------------------------------------- strategy kinds

Checker = Callable[[Any], str | None]


def check_fraction(value: Any) -> str | None:
    """None when ``value`` is a number in [0, 1], else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "expected a number between 0 and 1"
    return None if 0.0 <= value <= 1.0 else f"expected a number between 0 and 1, got {value}"


def check_positive_int(value: Any) -> str | None:
    """None when ``value`` is a whole number of at least 1, else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return "expected a whole number of at least 1"
    return None


def check_integer(value: Any) -> str | None:
    """None when ``value`` is an integer, else what is wrong."""
    return None if isinstance(value, int) and not isinstance(value, bool) else "expected an integer"


def check_text(value: Any) -> str | None:
    """None when ``value`` is a non-empty string, else what is wrong."""
    return None if isinstance(value, str) and value.strip() else "expected a non-empty string"


def check_choice(*allowed: str) -> Checker:
    """A checker accepting only the ``allowed`` values."""

    def check(value: Any) -> str | None:
        if value in allowed:
            return None
        return "expected one of " + ", ".join(f"'{a}'" for a in allowed)

    return check


def check_grade(value: Any) -> str | None:
    """None when ``value`` is a whole grade from 1 to 5, else what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        return "expected a whole grade from 1 to 5"
    return None


@dataclass(frozen=True, slots=True)
class StrategyKind:
    """A strategy a suite can name: its options and, for judged checks, the judge prompt."""

    name: str
    summary: str
    options: Mapping[str, Checker] = field(default_factory=dict)
    prompt: str | None = None


COMMON_OPTIONS: dict[str, Checker] = {"name": check_text}
JUDGED_OPTIONS: dict[str, Checker] = {
    "repeats": check_positive_int,
    "reducer": check_choice("majority", "all", "any", "mean"),
}

STRATEGY_KINDS: Mapping[str, StrategyKind] = {
    kind.name: kind
    for kind in (
        StrategyKind("exact-match", "the output equals the expected output (normalized)"),
        StrategyKind("contains", "the output contains the expected output"),
        StrategyKind("contains-facts", "every expected fact appears in the output"),
        StrategyKind(
            "token-f1", "SQuAD token F1 against the expected output", {"threshold": check_fraction}
        ),
        StrategyKind(
            "rouge-l",
            "ROUGE-L F-measure against the expected output",
            {"threshold": check_fraction},
        ),
        StrategyKind(
            "levenshtein", "edit similarity to the expected output", {"threshold": check_fraction}
        ),
        StrategyKind(
            "semantic-similarity",
            "cosine of embeddings (offline hashing embedding)",
            {"threshold": check_fraction, "dim": check_positive_int, "seed": check_integer},
        ),
        StrategyKind(
            "json-match",
            "JSON equal to the expected output",
            {"numbers": check_choice("value", "strict")},
        ),
        StrategyKind(
            "retrieved-segments",
            "every expected segment is in a retrieved item",
            {"threshold": check_fraction},
        ),
        StrategyKind(
            "relevancy", "a judge: does the answer address the question?", prompt="relevancy"
        ),
        StrategyKind(
            "groundedness",
            "a judge: is the answer supported by the context?",
            prompt="groundedness",
        ),
        StrategyKind(
            "correctness",
            "a judge: does the answer agree with the reference?",
            prompt="correctness",
        ),
        StrategyKind(
            "rubric",
            "a judge: a 1-5 grade against the reference",
            {"min-grade": check_grade},
            prompt="rubric",
        ),
    )
}
