"""``Report``: every evaluation of a run, and the figures derived from them.

An evaluation is one (sample, strategy) pair; a case is one sample with all its evaluations.
The report's ``pass_rate`` is the fraction of cases whose every check passed (see
:mod:`evalmark.report._cases`); ``check_pass_rate`` the fraction of single evaluations that
passed. Errors (the function under test raised, a strategy raised, a judge's reply could not
be read) are counted apart from failures and never count as passed. Results are stored one
column per strategy (see :class:`~evalmark.results._results.ResultColumn`), so a report of
100,000 samples costs a few arrays until someone reads its rows.

The report is a frozen value: data and figures. It imports no renderer and no gate. Output is
:func:`~evalmark.report._output.render_report` and :func:`~evalmark.report._output.write_report`,
gates are the functions of :mod:`~evalmark.gates._rules` (their results travel beside the report,
or on a new report made by :meth:`Report.with_gates`), comparison is
:func:`~evalmark.report._comparison.compare`. Reading a JSON report back
(:mod:`~evalmark.report._reading`) is the one thing below it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from evalmark.report._cases import CaseTally, case_tally
from evalmark.report._gate_result import GateResult
from evalmark.report._reading import decode, report_parts
from evalmark.report._values import (
    GuardrailSummary,
    SampleRow,
    SampleUsage,
    SkippedSample,
    StoredValues,
    Tally,
    output_text_of,
    tally_of,
    usage_means,
    usage_of,
    usage_totals,
)
from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = ["Report"]


class Report:
    """The results of one evaluation run: a frozen value.

    Build one with :meth:`evalmark.Scorer.evaluate`; read one back with :meth:`from_json` or
    :meth:`read`. Figures: :attr:`pass_rate`, :attr:`check_pass_rate`, :attr:`summary` (and
    :attr:`passed`, :attr:`failed`, :attr:`errors`), :meth:`tally`, :meth:`by_tag`,
    :meth:`by_strategy`, :meth:`metric_means`, :meth:`guardrails`, :meth:`rows`. The gate
    conditions checked against it: :attr:`gates` (a new report with others:
    :meth:`with_gates`). Output, gates and comparison are functions of the report
    (``render_report``, ``write_report``, ``require_pass_rate``, ``compare``).
    """

    __slots__ = (
        "_columns",
        "_gates",
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
    _outputs: Sequence[Any] | None  # a tuple, or StoredValues
    _usage: Mapping[int, SampleUsage] | None
    _gates: tuple[GateResult, ...]

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
        gates: Sequence[GateResult] = (),
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
        kept = (StoredValues, type(None))  # not copied in; usage None: read from the outputs
        set_(self, "_outputs", outputs if isinstance(outputs, kept) else tuple(outputs))
        set_(self, "_usage", usage if isinstance(usage, kept) else MappingProxyType(dict(usage)))
        set_(self, "skipped", tuple(skipped))
        set_(self, "metadata", MappingProxyType(dict(metadata or {})))
        set_(self, "_gates", tuple(dict.fromkeys(gates)))  # in order, each condition once

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"Report is immutable (cannot set {name!r}); use with_name(...) or with_gates(...)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Columns explain rows with closures, which do not pickle: keep what the JSON report
        # keeps (results, output texts, usage), and rebuild the columns from the results.
        state = {
            "name": self.name,
            "sample_names": self.sample_names,
            "sample_tags": self.sample_tags,
            "columns": {name: list(column) for name, column in self._columns.items()},
            "outputs": [self.output(i) for i in range(len(self))],
            "usage": dict(self._usage_map()),
            "skipped": self.skipped,
            "metadata": dict(self.metadata),
            "gates": self._gates,
        }
        return (_unpickle, (state,))

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> Self:
        """Read back the JSON document as plain values (``report_document(report)``);
        :class:`~evalmark.errors.ReportFormatError` naming ``source`` (a file name, for
        messages) and the field when something is unreadable."""
        return cls(**report_parts(data, source))

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str | None = None) -> Self:
        """Read a JSON report (``render_report(report, "json")``; gates included). Raises
        :class:`~evalmark.errors.ReportFormatError` (a ``ValueError``) naming ``source``, and
        the line or field, when the text is not such a report."""
        return cls.from_dict(decode(text, source), source=source)

    @classmethod
    def read(cls, path: str | Path) -> Self:
        """Read the JSON report at ``path``; ``FileNotFoundError`` when there is none."""
        return cls.from_json(Path(path).read_bytes(), source=str(path))

    def _copy(self, name: str, gates: Sequence[GateResult], metadata: Any = None) -> Report:
        return Report(
            name=name,
            sample_names=self.sample_names,
            sample_tags=self.sample_tags,
            columns=self._columns,
            outputs=self._outputs,
            usage=self._usage_map(),
            skipped=self.skipped,
            metadata=self.metadata if metadata is None else metadata,
            gates=gates,
        )

    def with_name(self, name: str) -> Report:
        """The same report under another name (results shared, nothing recomputed)."""
        return self._copy(name, self._gates)

    def with_metadata(self, **values: Any) -> Report:
        """A new report: this one with ``values`` added to (or replacing) :attr:`metadata`."""
        return self._copy(self.name, self._gates, {**self.metadata, **values})

    @property
    def gates(self) -> tuple[GateResult, ...]:
        """The gate conditions checked against this report (by a suite run's gate, pytest's
        ``min_pass_rate``), in order; empty when none was. Rendered by every format and kept
        in the JSON report (its ``"gate"`` key)."""
        return self._gates

    def with_gates(self, gates: Sequence[GateResult]) -> Report:
        """A new report: this one with :attr:`gates` replaced by ``gates`` (in order, a
        condition given twice kept once). Results are shared, nothing is recomputed."""
        return self._copy(self.name, gates)

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
        try:
            index = self.sample_names.index(sample)
        except ValueError:
            raise KeyError(f"report {self.name!r} has no sample {sample!r}") from None
        return self.column(strategy)[index]

    def output(self, index: int) -> str | None:
        """The text of sample ``index``'s output (None when the function raised)."""
        return None if self._outputs is None else output_text_of(self._outputs[index])

    def _usage_map(self) -> Mapping[int, SampleUsage]:
        if self._usage is None:
            found: dict[int, SampleUsage] = {}
            outputs = self._outputs or ()
            if set(map(type, outputs)) - {str, type(None)}:  # a text or None records no usage
                for index, output in enumerate(outputs):
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
        return SampleRow.of(
            self.sample_names[index],
            self.sample_tags[index],
            {name: self._columns[name][index] for name in self.strategies},
            self.output(index),
            self.usage(index),
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

    def tally(self, *, tag: str | None = None, strategy: str | None = None) -> Tally:
        """The counts of the evaluations of the samples tagged ``tag`` (default: every sample)
        by ``strategy`` (default: every strategy); KeyError naming the known tags or
        strategies when one is unknown."""
        if strategy is not None:
            self.column(strategy)  # KeyError naming the known strategies
        mask = None
        if tag is not None:
            if tag not in self.tags:
                raise KeyError(
                    f"report {self.name!r} has no sample tagged {tag!r}; its tags are "
                    f"{', '.join(self.tags) or 'none'}"
                )
            mask = self.tag_mask(tag)
        return self._stack(mask, self.strategies if strategy is None else (strategy,))

    def _stack(self, mask: npt.NDArray[np.bool_] | None, names: Sequence[str]) -> Tally:
        if not names:
            empty = np.zeros(0, dtype=np.bool_)
            return tally_of(empty, empty, np.zeros(0, dtype=np.float64))
        columns = [self._columns[n] for n in names]
        passed = np.concatenate([c.passed if mask is None else c.passed[mask] for c in columns])
        errored = np.concatenate([c.errored if mask is None else c.errored[mask] for c in columns])
        scores = np.concatenate([c.scores if mask is None else c.scores[mask] for c in columns])
        return tally_of(passed, errored, scores)

    def cases(self, *, tag: str | None = None, strategy: str | None = None) -> CaseTally:
        """The cases (samples) tagged ``tag`` (default: all) judged by ``strategy`` (default:
        every strategy): a case passes when every one of those checks passed, and an error
        never passes (see :mod:`evalmark.report._cases`). KeyError for an unknown name."""
        if strategy is not None:
            self.column(strategy)  # KeyError naming the known strategies
        if tag is not None and tag not in self.tags:
            self.tally(tag=tag)  # KeyError naming the known tags
        columns = [self._columns[n] for n in (self.strategies if strategy is None else (strategy,))]
        mask = self.tag_mask(tag) if tag is not None else None
        return case_tally(
            [c.passed for c in columns], [c.errored for c in columns], len(self), mask
        )

    @property
    def summary(self) -> Tally:
        """Counts over every evaluation (sample × strategy), and their mean score."""
        return self._stack(None, self.strategies)

    @property
    def pass_rate(self) -> float:
        """The pass rate: the fraction of cases (samples) whose every check passed, in [0, 1]."""
        return self.cases().pass_rate

    @property
    def check_pass_rate(self) -> float:
        """The fraction of single evaluations (sample × check) that passed, in [0, 1]: with
        one check the same as :attr:`pass_rate`, with several at least as high."""
        return self.summary.check_pass_rate

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

    def by_tag(self) -> dict[str, Tally]:
        """A tally per tag, tags sorted."""
        return {tag: self.for_tag(tag) for tag in self.tags}

    def for_tag(self, tag: str) -> Tally:
        """The tally of the samples carrying ``tag``; KeyError naming the known tags."""
        return self.tally(tag=tag)

    def by_strategy(self) -> dict[str, Tally]:
        """A tally per strategy, in the order the strategies were given."""
        return {name: self._stack(None, (name,)) for name in self.strategies}

    def _usages(self) -> list[SampleUsage]:
        usage = self._usage_map()
        return [usage[i] for i in sorted(usage)]

    def metric_means(self) -> dict[str, float | None]:
        """The mean score of each strategy (errors left out), then the means of latency (ms),
        total tokens and cost over the samples that recorded them."""
        means: dict[str, float | None] = {n: t.mean for n, t in self.by_strategy().items()}
        return {**means, **usage_means(self._usages())}

    def totals(self) -> dict[str, float | str]:
        """Summed tokens and cost over the samples that recorded them (cost as a decimal
        string, exact)."""
        return usage_totals(self._usages())

    def guardrails(self, *, positive: str | None = None) -> dict[str, GuardrailSummary]:
        """For each strategy whose results carry guardrail decisions, their confusion counts
        (``positive`` overrides the positive class each strategy recorded; ACCEPT by default)."""
        out: dict[str, GuardrailSummary] = {}
        for name in self.strategies:
            found = GuardrailSummary.of_results(
                self._columns[name].rows_with_metadata(), positive=positive
            )
            if found is not None:
                out[name] = found
        return out

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Report(name={self.name!r}, samples={len(self)}, strategies={len(self.strategies)}, "
            f"pass_rate={self.pass_rate:.4g}, passed={s.passed}, failed={s.failed}, "
            f"errors={s.errors})"
        )


def _unpickle(state: dict[str, Any]) -> Report:
    columns = {
        name: ResultColumn.from_results(results) for name, results in state["columns"].items()
    }
    return Report(**{**state, "columns": columns})
