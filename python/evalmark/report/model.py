"""``Report``: every evaluation of a run, and the figures derived from them.

An evaluation is one (sample, strategy) pair. The report's ``score`` is the percentage of
evaluations that passed (0–100); errors (the function under test raised, a strategy raised, a
judge's reply could not be read) are counted apart from failures and never count as passed.
Results are stored one column per strategy (see :class:`~evalmark.data.results.ResultColumn`), so a
report of 100,000 samples costs a few arrays until someone reads its rows.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark._files.atomic import write_atomically
from evalmark.data.results import EvaluationResult, ResultColumn

if TYPE_CHECKING:
    from evalmark.report.baseline import Comparison

__all__ = [
    "GuardrailSummary",
    "Report",
    "SampleRow",
    "SampleUsage",
    "SkippedSample",
    "Summary",
    "output_text_of",
    "usage_of",
]


@dataclass(frozen=True, slots=True)
class SampleUsage:
    """What a TestCase returned by the function under test recorded about its call."""

    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost: Decimal | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; unset fields left out; cost as a decimal string."""
        out: dict[str, Any] = {}
        if self.latency_ms is not None:
            out["latency_ms"] = self.latency_ms
        if self.total_tokens is not None:
            out["tokens"] = {
                "input": self.input_tokens,
                "output": self.output_tokens,
                "total": self.total_tokens,
            }
        if self.cost is not None:
            out["cost"] = str(self.cost)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SampleUsage:
        """Read back :meth:`to_dict`."""
        tokens = data.get("tokens") or {}
        cost = data.get("cost")
        return cls(
            latency_ms=data.get("latency_ms"),
            input_tokens=tokens.get("input"),
            output_tokens=tokens.get("output"),
            total_tokens=tokens.get("total"),
            cost=Decimal(cost) if cost is not None else None,
        )


@dataclass(frozen=True, slots=True)
class SkippedSample:
    """A sample left out of the report (``errors="skip"``) and why."""

    name: str
    error: str


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts and pass percentage of a group of evaluations (all, one tag or one strategy).

    ``score`` is the percentage passed (0–100); ``mean`` the mean score of the results that are
    not errors (None when there are none)."""

    evaluations: int
    passed: int
    failed: int
    errors: int
    score: float
    mean: float | None

    @property
    def pass_rate(self) -> float:
        """Passed / evaluations, in [0, 1] (0.0 for no evaluations)."""
        return self.passed / self.evaluations if self.evaluations else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "evaluations": self.evaluations,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "score": self.score,
            "mean": self.mean,
        }


@dataclass(frozen=True, slots=True)
class GuardrailSummary:
    """Confusion counts of ACCEPT/REJECT decisions (REJECT is the positive class) and the rates
    derived from them; a rate with a zero denominator is None."""

    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int
    undecided: int

    @property
    def total(self) -> int:
        """Every decision counted, undecided included."""
        return (
            self.true_positive
            + self.false_positive
            + self.true_negative
            + self.false_negative
            + self.undecided
        )

    @staticmethod
    def _ratio(num: int, den: int) -> float | None:
        return num / den if den else None

    @property
    def accuracy(self) -> float | None:
        """Correct decisions / all decisions."""
        return self._ratio(self.true_positive + self.true_negative, self.total)

    @property
    def precision(self) -> float | None:
        """Rejections that were right / all rejections."""
        return self._ratio(self.true_positive, self.true_positive + self.false_positive)

    @property
    def recall(self) -> float | None:
        """Rejections made / rejections expected."""
        return self._ratio(self.true_positive, self.true_positive + self.false_negative)

    @property
    def false_positive_rate(self) -> float | None:
        """Wrong rejections / expected acceptances."""
        return self._ratio(self.false_positive, self.false_positive + self.true_negative)

    @property
    def false_negative_rate(self) -> float | None:
        """Missed rejections / expected rejections."""
        return self._ratio(self.false_negative, self.false_negative + self.true_positive)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: counts and rates."""
        return {
            "true_positive": self.true_positive,
            "false_positive": self.false_positive,
            "true_negative": self.true_negative,
            "false_negative": self.false_negative,
            "undecided": self.undecided,
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "false_positive_rate": self.false_positive_rate,
            "false_negative_rate": self.false_negative_rate,
        }


@dataclass(frozen=True, slots=True)
class SampleRow:
    """One sample of a report: its verdict over every strategy and the results.

    ``verdict`` is ``"error"`` if any result is an error, else ``"pass"`` when all passed, else
    ``"fail"``; ``score`` is the mean of the strategies' scores; ``explanation`` joins the
    explanations of the results that did not pass, each prefixed with its strategy."""

    name: str
    tags: tuple[str, ...]
    verdict: str
    score: float
    explanation: str
    results: Mapping[str, EvaluationResult]
    output: str | None
    usage: SampleUsage | None

    @property
    def passed(self) -> bool:
        """True when every strategy passed."""
        return self.verdict == "pass"


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def output_text_of(output: object) -> str | None:
    """The text shown for an output: a str itself, a TestCase's ``actual_output`` or a reply's
    ``text``, JSON for dicts and lists, else its ``repr`` (memory addresses removed, so the
    report's bytes do not change between runs). None stays None."""
    if output is None or type(output) is str:
        return output
    for attribute in ("actual_output", "text"):
        value = getattr(output, attribute, None)
        if isinstance(value, str):
            return value
    if isinstance(output, dict | list | tuple):
        try:
            return json.dumps(output, ensure_ascii=False, sort_keys=True, default=str)
        except (TypeError, ValueError):
            pass
    return _ADDRESS.sub("", repr(output))


def usage_of(output: object) -> SampleUsage | None:
    """Latency, tokens and cost recorded on an output (a TestCase), or None."""
    if output is None or type(output) is str:
        return None
    latency = getattr(output, "latency_ms", None)
    tokens = getattr(output, "token_usage", None)
    cost = getattr(output, "cost", None)
    if latency is None and tokens is None and cost is None:
        return None
    return SampleUsage(
        latency_ms=float(latency) if isinstance(latency, int | float) else None,
        input_tokens=getattr(tokens, "input", None),
        output_tokens=getattr(tokens, "output", None),
        total_tokens=getattr(tokens, "total", None),
        cost=cost if isinstance(cost, Decimal) else None,
    )


def _summary(
    passed: npt.NDArray[np.bool_], errored: npt.NDArray[np.bool_], scores: npt.NDArray[np.float64]
) -> Summary:
    total = int(passed.size)
    n_errors = int(errored.sum())
    n_passed = int((passed & ~errored).sum())
    ok = scores[~errored]
    return Summary(
        evaluations=total,
        passed=n_passed,
        failed=total - n_passed - n_errors,
        errors=n_errors,
        score=100.0 * n_passed / total if total else 0.0,
        mean=float(math.fsum(ok.tolist()) / ok.size) if ok.size else None,
    )


class Report:
    """The results of one evaluation run.

    Build one with :meth:`evalmark.Scorer.evaluate`; read one back with :meth:`from_json`.
    Figures: :attr:`summary` (and :attr:`score`, :attr:`passed`, :attr:`failed`,
    :attr:`errors`), :meth:`by_tag`, :meth:`by_strategy`, :meth:`metric_means`,
    :meth:`guardrails`, :meth:`rows`. Output: :meth:`to_markdown`, :meth:`to_json`,
    :meth:`to_html`, :meth:`to_junit_xml`, :meth:`format`, :meth:`write`. Gates:
    :meth:`require_pass_rate`, :meth:`compare`, :meth:`require_no_drop`.
    """

    __slots__ = (
        "_columns",
        "_outputs",
        "_usage",
        "metadata",
        "name",
        "sample_names",
        "sample_tags",
        "skipped",
        "strategies",
    )

    name: str
    sample_names: tuple[str, ...]
    sample_tags: tuple[tuple[str, ...], ...]
    strategies: tuple[str, ...]
    skipped: tuple[SkippedSample, ...]
    metadata: Mapping[str, Any]
    _columns: Mapping[str, ResultColumn]
    _outputs: tuple[Any, ...] | None
    _usage: Mapping[int, SampleUsage] | None

    def __init__(
        self,
        *,
        name: str,
        sample_names: Sequence[str],
        sample_tags: Sequence[tuple[str, ...]],
        columns: Mapping[str, ResultColumn],
        outputs: Sequence[Any] | None = None,
        usage: Mapping[int, SampleUsage] | None = None,
        skipped: Sequence[SkippedSample] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        count = len(sample_names)
        if len(sample_tags) != count:
            raise ValueError(f"got {count} sample names and {len(sample_tags)} tag tuples")
        for strategy, column in columns.items():
            if len(column) != count:
                raise ValueError(
                    f"strategy {strategy!r} has {len(column)} results for {count} samples"
                )
        if outputs is not None and len(outputs) != count:
            raise ValueError(f"got {len(outputs)} outputs for {count} samples")
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "sample_names", tuple(sample_names))
        set_(self, "sample_tags", tuple(sample_tags))
        set_(self, "strategies", tuple(columns))
        set_(self, "_columns", MappingProxyType(dict(columns)))
        set_(self, "_outputs", tuple(outputs) if outputs is not None else None)
        # usage None: read from the outputs when first needed.
        set_(self, "_usage", MappingProxyType(dict(usage)) if usage is not None else None)
        set_(self, "skipped", tuple(skipped))
        set_(self, "metadata", MappingProxyType(dict(metadata or {})))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Report is immutable (cannot set {name!r}); use with_name(...)")

    def __reduce__(self) -> tuple[Any, ...]:
        # Columns explain rows with closures, which do not pickle: go through the JSON form.
        return (Report.from_json, (self.to_json(),))

    def with_name(self, name: str) -> Report:
        """The same report under another name (results shared, nothing recomputed)."""
        return Report(
            name=name,
            sample_names=self.sample_names,
            sample_tags=self.sample_tags,
            columns=self._columns,
            outputs=self._outputs,
            usage=self._usage_map(),
            skipped=self.skipped,
            metadata=self.metadata,
        )

    # ------------------------------------------------------------------ access

    def __len__(self) -> int:
        """The number of samples."""
        return len(self.sample_names)

    def column(self, strategy: str) -> ResultColumn:
        """The results of one strategy, in sample order."""
        try:
            return self._columns[strategy]
        except KeyError:
            raise KeyError(
                f"report {self.name!r} has no strategy {strategy!r}; it has "
                f"{', '.join(self.strategies) or 'none'}"
            ) from None

    def result(self, sample: str, strategy: str) -> EvaluationResult:
        """The result of ``strategy`` on ``sample``."""
        return self.column(strategy)[self._index(sample)]

    def _index(self, sample: str) -> int:
        try:
            return self.sample_names.index(sample)
        except ValueError:
            raise KeyError(f"report {self.name!r} has no sample {sample!r}") from None

    def output(self, index: int) -> str | None:
        """The text of sample ``index``'s output (None when the function raised)."""
        return None if self._outputs is None else output_text_of(self._outputs[index])

    def _usage_map(self) -> Mapping[int, SampleUsage]:
        if self._usage is None:
            found: dict[int, SampleUsage] = {}
            for index, output in enumerate(self._outputs or ()):
                usage = usage_of(output)
                if usage is not None:
                    found[index] = usage
            object.__setattr__(self, "_usage", MappingProxyType(found))
        assert self._usage is not None
        return self._usage

    def usage(self, index: int) -> SampleUsage | None:
        """Latency, tokens and cost of sample ``index``, when its output was a TestCase."""
        return self._usage_map().get(index)

    def row(self, index: int) -> SampleRow:
        """Sample ``index`` with its results."""
        results = {name: self._columns[name][index] for name in self.strategies}
        values = list(results.values())
        if any(r.error is not None for r in values):
            verdict = "error"
        elif all(r.passed for r in values):
            verdict = "pass"
        else:
            verdict = "fail"
        explanation = "; ".join(
            f"{name}: {r.explanation}" if r.explanation else f"{name}: {r.verdict}"
            for name, r in results.items()
            if not r.passed
        )
        score = math.fsum(r.score for r in values) / len(values) if values else 0.0
        return SampleRow(
            name=self.sample_names[index],
            tags=self.sample_tags[index],
            verdict=verdict,
            score=score,
            explanation=explanation,
            results=MappingProxyType(results),
            output=self.output(index),
            usage=self.usage(index),
        )

    def rows(self) -> Iterator[SampleRow]:
        """Every sample with its results, in sample order."""
        return (self.row(i) for i in range(len(self)))

    def failing_rows(self) -> list[SampleRow]:
        """The samples with a failed or errored evaluation, in sample order."""
        bad = np.zeros(len(self), dtype=np.bool_)
        for column in self._columns.values():
            bad |= ~column.passed | column.errored
        return [self.row(int(i)) for i in np.flatnonzero(bad)]

    # ------------------------------------------------------------------ figures

    def _stack(
        self, mask: npt.NDArray[np.bool_] | None = None, strategies: Sequence[str] | None = None
    ) -> Summary:
        names = self.strategies if strategies is None else strategies
        if not names:
            empty = np.zeros(0, dtype=np.bool_)
            return _summary(empty, empty, np.zeros(0, dtype=np.float64))
        columns = [self._columns[n] for n in names]
        passed = np.concatenate([c.passed if mask is None else c.passed[mask] for c in columns])
        errored = np.concatenate([c.errored if mask is None else c.errored[mask] for c in columns])
        scores = np.concatenate([c.scores if mask is None else c.scores[mask] for c in columns])
        return _summary(passed, errored, scores)

    @property
    def summary(self) -> Summary:
        """Counts and score over every evaluation."""
        return self._stack()

    @property
    def score(self) -> float:
        """Percentage of evaluations that passed (0–100)."""
        return self.summary.score

    @property
    def pass_rate(self) -> float:
        """Fraction of evaluations that passed, in [0, 1]."""
        return self.summary.pass_rate

    @property
    def evaluations(self) -> int:
        """The number of evaluations (samples × strategies)."""
        return len(self) * len(self.strategies)

    @property
    def passed(self) -> int:
        """Evaluations that passed."""
        return self.summary.passed

    @property
    def failed(self) -> int:
        """Evaluations that failed (errors not included)."""
        return self.summary.failed

    @property
    def errors(self) -> int:
        """Evaluations that are errors."""
        return self.summary.errors

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag of the report's samples, sorted."""
        return tuple(sorted({tag for tags in self.sample_tags for tag in tags}))

    def tag_mask(self, tag: str) -> npt.NDArray[np.bool_]:
        """Which samples carry ``tag``."""
        return np.fromiter((tag in tags for tags in self.sample_tags), np.bool_, len(self))

    def by_tag(self) -> dict[str, Summary]:
        """A summary per tag, tags sorted."""
        return {tag: self.for_tag(tag) for tag in self.tags}

    def for_tag(self, tag: str) -> Summary:
        """The summary of the samples carrying ``tag``; KeyError naming the known tags."""
        if tag not in self.tags:
            raise KeyError(
                f"report {self.name!r} has no sample tagged {tag!r}; its tags are "
                f"{', '.join(self.tags) or 'none'}"
            )
        return self._stack(self.tag_mask(tag))

    def by_strategy(self) -> dict[str, Summary]:
        """A summary per strategy, in the order the strategies were given."""
        return {name: self._stack(strategies=(name,)) for name in self.strategies}

    def metric_means(self) -> dict[str, float | None]:
        """The mean score of each strategy (errors left out), then the means of latency (ms),
        total tokens and cost over the samples that recorded them."""
        means: dict[str, float | None] = {
            name: summary.mean for name, summary in self.by_strategy().items()
        }
        usage = self._usage_map()
        usages = [usage[i] for i in sorted(usage)]
        latency = [u.latency_ms for u in usages if u.latency_ms is not None]
        tokens = [float(u.total_tokens) for u in usages if u.total_tokens is not None]
        costs = [u.cost for u in usages if u.cost is not None]
        if latency:
            means["latency_ms"] = math.fsum(latency) / len(latency)
        if tokens:
            means["tokens"] = math.fsum(tokens) / len(tokens)
        if costs:
            means["cost"] = float(sum(costs, Decimal(0)) / len(costs))
        return means

    def totals(self) -> dict[str, float | str]:
        """Summed tokens and cost over the samples that recorded them (cost as a decimal
        string, exact)."""
        usage = self._usage_map()
        usages = [usage[i] for i in sorted(usage)]
        out: dict[str, float | str] = {}
        tokens = [u.total_tokens for u in usages if u.total_tokens is not None]
        costs = [u.cost for u in usages if u.cost is not None]
        if tokens:
            out["tokens"] = float(sum(tokens))
        if costs:
            out["cost"] = str(sum(costs, Decimal(0)))
        return out

    def guardrails(self) -> dict[str, GuardrailSummary]:
        """For each strategy whose results carry guardrail decisions, their confusion counts."""
        out: dict[str, GuardrailSummary] = {}
        for name in self.strategies:
            column = self._columns[name]
            counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0, "undecided": 0}
            seen = False
            for result in column.rows_with_metadata():
                decision = result.metadata.get("guardrail")
                if not isinstance(decision, Mapping):
                    continue
                seen = True
                expected, actual = decision.get("expected"), decision.get("actual")
                if actual not in ("ACCEPT", "REJECT"):
                    counts["undecided"] += 1
                elif actual == "REJECT":
                    counts["tp" if expected == "REJECT" else "fp"] += 1
                else:
                    counts["fn" if expected == "REJECT" else "tn"] += 1
            if seen:
                out[name] = GuardrailSummary(
                    counts["tp"], counts["fp"], counts["tn"], counts["fn"], counts["undecided"]
                )
        return out

    # ------------------------------------------------------------------ output

    def format(self, format: str, **options: Any) -> str:
        """The report rendered by the formatter named ``format`` (``markdown``, ``json``,
        ``html``, ``junit``, or one registered with :func:`register_formatter`)."""
        from evalmark.report.formatters import get_formatter

        return get_formatter(format).render(self, **options)

    def to_markdown(self, **options: Any) -> str:
        """A Markdown report (GitHub-flavoured: fit for a pull-request comment)."""
        return self.format("markdown", **options)

    def to_json(self, **options: Any) -> str:
        """The JSON report: every result, readable back with :meth:`from_json`."""
        return self.format("json", **options)

    def to_html(self, **options: Any) -> str:
        """A self-contained HTML page (no scripts, no network; outputs escaped)."""
        return self.format("html", **options)

    def to_junit_xml(self, **options: Any) -> str:
        """JUnit XML: one test case per (sample, strategy)."""
        return self.format("junit", **options)

    def write(self, path: str | Path, *, format: str | None = None, **options: Any) -> Path:
        """Write the report to ``path`` in ``format``, or the format its extension names
        (``.md``, ``.json``, ``.html``, ``.xml``). Returns the path."""
        from evalmark.report.formatters import formatter_for_path, get_formatter

        target = Path(path)
        formatter = get_formatter(format) if format is not None else formatter_for_path(target)
        text = formatter.render(self, **options)
        write_atomically(target, text.encode("utf-8"))
        return target

    @classmethod
    def from_json(cls, text: str | bytes) -> Report:
        """Read a report written by :meth:`to_json` (for baselines and suites)."""
        from evalmark.report.jsonreport import report_from_json

        return report_from_json(text)

    # ------------------------------------------------------------------ gates

    def require_pass_rate(
        self, minimum: float, *, tag: str | None = None, strategy: str | None = None
    ) -> Report:
        """Raise ``AssertionError`` unless at least ``minimum`` (a fraction in [0, 1]) of the
        evaluations passed — of every evaluation, of the samples tagged ``tag``, or of one
        ``strategy``. The message names the pass rate, the threshold and the failing cases with
        their explanations. Returns the report, so gates chain."""
        from evalmark.report.gates import require_pass_rate

        require_pass_rate(self, minimum, tag=tag, strategy=strategy)
        return self

    def compare(self, baseline: Report | str | Path) -> Comparison:
        """The differences from ``baseline`` (a Report, JSON text or a path to a JSON report)."""
        from evalmark.report.baseline import compare

        return compare(self, baseline)

    def require_no_drop(
        self, baseline: Report | str | Path, *, max_drop: float = 0.05
    ) -> Comparison:
        """Raise ``AssertionError`` when the pass rate, a tag's or a strategy's pass rate fell by
        more than ``max_drop`` (a fraction) from ``baseline``; returns the comparison."""
        comparison = self.compare(baseline)
        comparison.require_no_drop(max_drop=max_drop)
        return comparison

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Report(name={self.name!r}, samples={len(self)}, strategies={len(self.strategies)}, "
            f"score={s.score:.1f}, passed={s.passed}, failed={s.failed}, errors={s.errors})"
        )
