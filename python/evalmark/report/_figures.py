"""The figures of a report (:class:`~evalmark.report.Report` inherits them): tallies of
evaluations and of cases, overall, per tag and per check, metric means, usage totals and
guardrail counts, all computed from the report's result columns when asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import contains
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evalmark.report._cases import CaseTally, case_tally
from evalmark.report._values import (
    GuardrailSummary,
    SampleUsage,
    Tally,
    tally_of,
    usage_means,
    usage_totals,
)

if TYPE_CHECKING:
    from evalmark.results._results import ResultColumn

__all__ = ["ReportFigures"]


class ReportFigures:
    """The figures of a report, computed from its result columns (a mixin of ``Report``)."""

    __slots__ = ()

    if TYPE_CHECKING:  # what the report provides
        name: str
        sample_tags: tuple[tuple[str, ...], ...]
        strategies: tuple[str, ...]
        _columns: Mapping[str, ResultColumn]

        def __len__(self) -> int: ...
        def column(self, strategy: str) -> ResultColumn: ...
        def _usage_map(self) -> Mapping[int, SampleUsage]: ...

        _tag_groups: tuple[tuple[tuple[str, ...], ...], npt.NDArray[np.int64]] | None

    def tally(self, *, tag: str | None = None, strategy: str | None = None) -> Tally:
        """The counts of the evaluations of the samples tagged ``tag`` (default: every sample)
        by ``strategy`` (default: every strategy); KeyError naming the known tags or
        strategies when one is unknown."""
        if strategy is not None:
            self.column(strategy)  # KeyError naming the known strategies
        mask = None
        if tag is not None:
            mask = self.tag_mask(tag)
            if not mask.any():  # a tag of the report is carried by a sample
                raise KeyError(
                    f"report {self.name!r} has no sample tagged {tag!r}; its tags are "
                    f"{', '.join(self.tags) or 'none'}"
                )
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
        mask = self.tag_mask(tag) if tag is not None else None
        if mask is not None and not mask.any():
            self.tally(tag=tag)  # KeyError naming the known tags
        columns = [self._columns[n] for n in (self.strategies if strategy is None else (strategy,))]
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
        return tuple(sorted(set(chain.from_iterable(self._groups()[0]))))

    def tag_mask(self, tag: str) -> npt.NDArray[np.bool_]:
        """Which samples carry ``tag``."""
        groups, group_of = self._groups()
        carried = np.fromiter(map(contains, groups, repeat(tag)), np.bool_, len(groups))
        found: npt.NDArray[np.bool_] = carried[group_of]
        return found

    def _groups(self) -> tuple[tuple[tuple[str, ...], ...], npt.NDArray[np.int64]]:
        """The distinct tag tuples of the samples, and each sample's position among them:
        read from the samples once (a report's samples do not change), so that a tag's
        mask is a lookup per distinct tuple rather than a test per sample."""
        found = self._tag_groups
        if found is None:
            at = {tags: k for k, tags in enumerate(dict.fromkeys(self.sample_tags))}
            group_of = np.fromiter(map(at.__getitem__, self.sample_tags), np.int64, len(self))
            found = (tuple(at), group_of)
            object.__setattr__(self, "_tag_groups", found)
        return found

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
