"""``Report``: every evaluation of a run, and the figures derived from them.

An evaluation is one (sample, strategy) pair; a case is one sample with all its evaluations.
The report's ``pass_rate`` is the fraction of cases whose every check passed (see
:mod:`evalmark.report._cases`); ``check_pass_rate`` the fraction of single evaluations that
passed. Errors (the function under test raised, a strategy raised, a judge's reply could not
be read) are counted apart from failures and never count as passed. Results are stored one
column per strategy (see :class:`~evalmark.results._results.ResultColumn`), so a report of
100,000 samples costs a few arrays until someone reads its rows.

The report is a frozen value: data and figures (computed by :mod:`evalmark.report._figures`),
equal to another when their JSON documents are (:mod:`evalmark.report._state`, which also
says what pickling keeps). It imports no renderer and no gate. Output is
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

from evalmark.report._figures import ReportFigures
from evalmark.report._gate_result import GateResult
from evalmark.report._reading import decode, report_parts
from evalmark.report._state import pickle_state, same_state
from evalmark.report._values import (
    SampleRow,
    SampleUsage,
    SkippedSample,
    StoredValues,
    output_text_of,
    usage_of,
)
from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = ["Report"]


class Report(ReportFigures):
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
        "_tag_groups",
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
    _tag_groups: tuple[tuple[tuple[str, ...], ...], npt.NDArray[np.int64]] | None

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
        set_(self, "_tag_groups", None)  # made when a tag is first looked up

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"Report is immutable (cannot set {name!r}); use with_name(...) or with_gates(...)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (pickle_state(self),))

    def __eq__(self, other: object) -> bool:
        """Equal when the JSON documents are equal: name, samples, results, outputs, usage,
        metadata and gates, compared as JSON holds them (see :mod:`evalmark.report._state`;
        0.0 equals -0.0, a NaN in metadata equals a NaN). Reports are not hashable."""
        if not isinstance(other, Report):
            return NotImplemented
        return same_state(self, other)

    __hash__ = None  # type: ignore[assignment]  # equal reports may differ inside: unhashable

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
