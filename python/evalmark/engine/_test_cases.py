"""Finished test cases (recorded traces, logged interactions) paired with samples for the
engine: :func:`pair_test_cases` gives the samples, the outputs and the cases that stand for an
error, ready for :func:`evalmark.engine._pipeline.run_samples`.

With samples, each sample is a case, its output the test case of the same name (the sample's
expectations filled into it where it has none); a sample with no test case, or whose case could
not be evaluated, is an error of every check; test cases no sample names are listed in the
report's metadata (``unmatched-test-cases``). Without samples, each test case is a case of its
own, named by its name (else ``case-N``), repeated names numbered (``name #2``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from evalmark.engine._pipeline import run_samples
from evalmark.engine._settings import RunSettings
from evalmark.errors import TraceError
from evalmark.report._model import Report
from evalmark.samples._case import TestCase
from evalmark.samples._samples import Parameters, Sample, Samples

__all__ = ["PairedCases", "pair_test_cases", "run_test_cases"]


@dataclass(frozen=True, slots=True)
class PairedCases:
    """What the engine runs: samples, one output each, the errors standing for missing
    outputs (by sample index), and the names of test cases no sample named."""

    samples: tuple[Sample, ...]
    outputs: list[Any]
    failed: dict[int, BaseException] = field(default_factory=dict)
    unmatched: tuple[str, ...] = ()


def _sample_of(name: str, case: TestCase | None) -> Sample:
    if case is None:
        return Sample(name=name, parameters=Parameters(("",)), expected_output="")
    return Sample(
        name=name,
        parameters=Parameters((case.input,)),
        expected_output=case.expected_output or "",
        context=case.context,
        tags=case.tags,
    )


def _with_expectations(case: TestCase, sample: Sample) -> TestCase:
    changes: dict[str, Any] = {}
    if case.expected_output is None and sample.expected_output:
        changes["expected_output"] = sample.expected_output
    if not case.context and sample.context:
        changes["context"] = sample.context
    if not case.tags and sample.tags:
        changes["tags"] = sample.tags
    return msgspec.structs.replace(case, **changes) if changes else case


def _named(cases: Iterable[TestCase]) -> dict[str, TestCase]:
    named: dict[str, TestCase] = {}
    for index, case in enumerate(cases, 1):
        if not isinstance(case, TestCase):
            raise TypeError(
                f"test case {index} is a {type(case).__name__}, not a TestCase; read traces "
                "with evalmark.traces.read or build TestCase(input, actual_output, ...)"
            )
        base = case.name or f"case-{index}"
        name, number = base, 1
        while name in named:
            number += 1
            name = f"{base} #{number}"
        named[name] = case
    return named


def pair_test_cases(
    cases: Iterable[TestCase],
    samples: Samples | Iterable[Sample] | None = None,
    unevaluable: Mapping[str, str] | None = None,
) -> PairedCases:
    """Pair test cases with samples by name (see the module's text). ``unevaluable`` maps
    case names to the reason they could not be evaluated; each is an error case."""
    named = _named(cases)
    reasons = dict(unevaluable or {})
    if samples is None:
        names = list(named) + [n for n in reasons if n not in named]
        chosen = tuple(_sample_of(n, named.get(n)) for n in names)
        outputs: list[Any] = [named.get(n) for n in names]
        failed: dict[int, BaseException] = {
            i: TraceError(reasons[n]) for i, n in enumerate(names) if n in reasons
        }
        return PairedCases(chosen, outputs, failed)
    chosen = tuple(samples)
    outputs, failed = [], {}
    for index, sample in enumerate(chosen):
        case = named.get(sample.name)
        if sample.name in reasons:
            failed[index] = TraceError(reasons[sample.name])
            outputs.append(None)
        elif case is None:
            failed[index] = TraceError(
                f"no test case named '{sample.name}' (for traces: no trace whose match "
                "attribute has this value); run `evalmark traces check` on the trace file"
            )
            outputs.append(None)
        else:
            outputs.append(_with_expectations(case, sample))
    wanted = {s.name for s in chosen}
    unmatched = tuple(sorted(n for n in named if n not in wanted))
    return PairedCases(chosen, outputs, failed, unmatched)


async def run_test_cases(
    cases: Iterable[TestCase],
    strategies: Sequence[object],
    *,
    samples: Samples | Iterable[Sample] | None = None,
    unevaluable: Mapping[str, str] | None = None,
    settings: RunSettings | None = None,
    name: str = "evaluation",
    metadata: Mapping[str, Any] | None = None,
) -> Report:
    """Apply the strategies to finished test cases, paired by name with ``samples`` when
    given (their expectations fill the cases'); a sample without its case, and each name of
    ``unevaluable`` (name -> reason), is an error case; cases no sample names are listed in
    the report's metadata ``unmatched-test-cases``."""
    paired = pair_test_cases(cases, samples, unevaluable)
    extra = dict(metadata or {})
    if paired.unmatched:
        extra["unmatched-test-cases"] = list(paired.unmatched)
    return await run_samples(
        paired.samples,
        strategies,
        outputs=paired.outputs,
        failed=paired.failed,
        settings=settings or RunSettings(),
        name=name,
        metadata=extra or None,
    )
