"""The JSON report's column writer (report/render/json_rows.py) writes the bytes of the
reference path (the whole document as Python values through msgspec) on every report shape:
Unicode and escapes, NaN and infinities in metadata, big integers, nested metadata, errors,
usage, outputs that are not text, lazily built columns, empty reports, added document keys and
every indent."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest

import evalmark.report._render.json as json_render
from evalmark import Sample, Scorer, TestCase, TokenUsage
from evalmark.report import Report, render_report
from evalmark.report._render.json import reference_render, render
from evalmark.report._render.json_rows import layout_for, samples_template
from evalmark.report._values import SampleUsage, SkippedSample
from evalmark.results._results import EvaluationFault, EvaluationResult, ResultColumn
from evalmark.strategies import ContainsFacts, ExactMatch, Guardrail, LevenshteinSimilarity, TokenF1

INDENTS: list[Any] = [2, None, 0, 1, 4, 7, -1, True]
TEXTS = [
    "",
    "plain",
    'a "quoted" word',
    "back\\slash\\",
    'ends with a quote"',
    '","',
    "tab\tnew\nline\rcr\x00nul\x1funit\x7fdel",
    "café naïve Zürich straße",
    "東京 données",
    "emoji 😀 and Ω",
    "\u2028 line separator \u2029",
    "\ufeff bom",
]


def reports_agree(report_factory: Any, **options: Any) -> None:
    """Fresh reports (a report caches the rows it has read) render to the same text, and
    the column writer (not the reference path) wrote it whenever it takes the indent."""
    layout = layout_for(options.get("indent", 2))
    if layout is not None:
        assert samples_template(report_factory(), layout) is not None
    expected = reference_render(report_factory(), **options)
    assert render(report_factory(), **options) == expected
    assert render_report(report_factory(), "json", **options) == expected


def rich_report() -> Report:
    """A report built by hand with every kind of value a result and a row can hold."""
    rng = random.Random(7)
    count = 40
    names = [f"{TEXTS[i % len(TEXTS)]}#{i}" for i in range(count)]
    tags = [tuple(rng.sample(["a", "b", "ü", 'q"t'], rng.randint(0, 3))) for _ in range(count)]
    columns: dict[str, ResultColumn] = {}
    for strategy in ("first", 'sec"ond', "drittë"):
        results = []
        for _ in range(count):
            kind = rng.randrange(6)
            score = rng.choice([0.0, 1.0, 0.1, 1e-7, 0.3333333333333333, rng.random()])
            text = rng.choice(TEXTS)
            if kind == 0:
                results.append(EvaluationResult(score > 0.5, score, text))
            elif kind == 1:
                metadata = {
                    "nested": {"deep": [1, 2, {"z": (3, 4)}], "b": {"y", "x"}},
                    "nan": math.nan,
                    "inf": -math.inf,
                    "big": 2**80,
                    "neg": -(2**70),
                    "decimal": Decimal("0.10"),
                    "unicode 😀": text,
                    7: "int key",
                    "float": 1e22,
                }
                results.append(EvaluationResult(True, score, text, metadata))
            elif kind == 2:
                error = EvaluationFault("strategy", "ValueError", text, raw=rng.choice(TEXTS))
                results.append(EvaluationResult(False, 0.0, text, error=error))
            elif kind == 3:
                results.append(EvaluationResult(False, score))
            else:
                results.append(EvaluationResult(bool(kind % 2), score, text, {"k": [text]}))
        columns[strategy] = ResultColumn.from_results(results)
    outputs = [None if i % 7 == 3 else TEXTS[(i * 5) % len(TEXTS)] for i in range(count)]
    usage = {
        i: SampleUsage(
            latency_ms=12.5 * i if i % 2 else None,
            input_tokens=i,
            output_tokens=2**40 if i == 5 else 3,
            total_tokens=i + 3,
            cost=Decimal("0.0004") if i % 3 else None,
        )
        for i in range(0, count, 4)
    }
    return Report(
        name='rich 😀 "report"',
        sample_names=names,
        sample_tags=tags,
        columns=columns,
        outputs=outputs,
        usage=usage,
        skipped=[SkippedSample("gone", 'loader said "no"')],
        metadata={"run": {"nan": math.nan, "set": {3, 1}, "when": "naïve"}, "n": 10**30},
    )


@pytest.mark.parametrize("indent", INDENTS)
def test_rich_report_every_indent(indent: Any) -> None:
    reports_agree(rich_report, indent=indent)


@pytest.mark.parametrize("timestamp", [False, "2026-12-01T00:00:00Z", "naïve 😀"])
def test_timestamps(timestamp: str | bool) -> None:
    reports_agree(rich_report, timestamp=timestamp)
    reports_agree(rich_report, indent=None, timestamp=timestamp)


SAMPLES = [
    Sample(
        name=f"s{i}",
        parameters=[i],
        expected_output=TEXTS[i % len(TEXTS)] or "x",
        expected_facts=["x"],
        tags=["t"] if i % 2 else [],
    )
    for i in range(24)
]


def app(index: int) -> Any:
    """Text, TestCases with usage, dicts, None and exceptions."""
    if index % 6 == 0:
        return TestCase(
            str(index),
            TEXTS[index % len(TEXTS)],
            latency_ms=3.5,
            token_usage=TokenUsage(7, 2),
            cost="0.0001",
        )
    if index % 6 == 1:
        return {"answer": TEXTS[index % len(TEXTS)], "n": index}
    if index % 6 == 2:
        raise TimeoutError(f"slow 😀 {index}")
    if index % 6 == 3:
        return None
    return TEXTS[index % len(TEXTS)]


def scored_report() -> Report:
    """A report from the Scorer: lazy columns (rows of errors), metric explanations."""
    return Scorer().evaluate(
        SAMPLES,
        app,
        ExactMatch(),
        TokenF1(0.5),
        ContainsFacts(),
        LevenshteinSimilarity(0.3),
        name="s",
    )


def guardrail_report() -> Report:
    samples = [
        Sample(name=f"g{i}", parameters=[i], expected_output="ACCEPT" if i % 2 else "REJECT")
        for i in range(10)
    ]
    return Scorer().evaluate(
        samples, lambda i: "REJECT" if i % 3 else "ACCEPT", Guardrail(), name="g"
    )


@pytest.mark.parametrize("factory", [scored_report, guardrail_report])
@pytest.mark.parametrize("indent", [2, None, 3])
def test_scored_reports(factory: Any, indent: Any) -> None:
    reports_agree(factory, indent=indent)


def test_read_back_reports() -> None:
    """A report read from JSON holds str outputs and explicit usage."""
    text = reference_render(scored_report())
    reports_agree(lambda: Report.from_json(text))
    reports_agree(lambda: Report.from_json(reference_render(rich_report())), indent=None)


def plain_report(count: int, strategies: int, outputs: bool = True) -> Report:
    rng = np.random.default_rng(3)
    columns = {
        f"m{j}": ResultColumn(
            rng.random(count),
            rng.random(count) > 0.5,
            lambda i, score, ok: f"value {score:.3f} {'ok' if ok else 'low'} 東京",
        )
        for j in range(strategies)
    }
    return Report(
        name="plain",
        sample_names=[f"n{i}" for i in range(count)],
        sample_tags=[()] * count,
        columns=columns,
        outputs=[f"out {i}" for i in range(count)] if outputs else None,
    )


@pytest.mark.parametrize(
    ("count", "strategies", "outputs"),
    [(0, 0, True), (0, 2, True), (1, 0, True), (1, 1, False), (3, 0, False), (50, 1, True)],
)
def test_empty_and_small_reports(count: int, strategies: int, outputs: bool) -> None:
    for indent in (2, None):
        reports_agree(lambda: plain_report(count, strategies, outputs), indent=indent)


def test_rows_of_overridden_and_read_columns() -> None:
    def factory() -> Report:
        report = plain_report(30, 2)
        error = EvaluationResult.from_error("strategy", KeyError('missing "key"'))
        overridden = ResultColumn(
            np.full(30, 0.5),
            np.ones(30, dtype=np.bool_),
            lambda i, score, ok: "" if i % 4 else f"row {i}",
            overrides={3: error, 8: EvaluationResult(True, 0.75, "", {"why": "ok"})},
        )
        _ = overridden[5]  # a row already read sits in the cache
        return Report(
            name=report.name,
            sample_names=report.sample_names,
            sample_tags=report.sample_tags,
            columns={**{s: report.column(s) for s in report.strategies}, "over": overridden},
            outputs=[f"o{i}" for i in range(30)],
        )

    for indent in (2, None):
        reports_agree(factory, indent=indent)


@pytest.mark.parametrize("where", ["before", "after", "first", "last"])
def test_added_document_keys_are_spliced_around(monkeypatch: Any, where: str) -> None:
    """Another key in report_document (e.g. a gate) keeps the two paths equal."""
    original = json_render.report_document

    def with_gate(report: Report, *, with_samples: bool = True) -> dict[str, Any]:
        document = original(report, with_samples=with_samples)
        gate = {"passed": False, "rule": 'k of n "≥" t', "nan": None, "big": 2**65}
        items = list(document.items())
        at = [k for k, _ in items].index("samples")
        position = {"before": at, "after": at + 1, "first": 0, "last": len(items)}[where]
        items.insert(position, ("gate", gate))
        return dict(items)

    monkeypatch.setattr(json_render, "report_document", with_gate)
    for indent in (2, None, 4):
        expected = reference_render(rich_report(), indent=indent)
        assert '"gate"' in expected
        assert render(rich_report(), indent=indent) == expected


def test_only_samples_in_the_document(monkeypatch: Any) -> None:
    original = json_render.report_document

    def only_samples(report: Report, *, with_samples: bool = True) -> dict[str, Any]:
        return {"samples": original(report, with_samples=with_samples)["samples"]}

    monkeypatch.setattr(json_render, "report_document", only_samples)
    for indent in (2, None):
        assert render(rich_report(), indent=indent) == reference_render(
            rich_report(), indent=indent
        )


def test_a_lone_surrogate_is_kept_as_the_reference_keeps_it() -> None:
    def factory(where: str) -> Report:
        bad = "half \ud800 a pair"
        result = EvaluationResult(True, 1.0, bad if where == "explanation" else "x")
        return Report(
            name="r",
            sample_names=[bad if where == "name" else "n", "m"],
            sample_tags=[(), ()],
            columns={"s": ResultColumn.from_results([result, EvaluationResult(True, 1.0)])},
            outputs=[bad if where == "output" else "o", "p"],
        )

    for where in ("explanation", "name", "output"):
        text = reference_render(factory(where))
        assert render(factory(where)) == text
        assert "half \\\\ud800 a pair" in text  # written as the six characters \ud800


def test_unchecked_values_take_the_reference_path() -> None:
    """Values the writer does not template (a numpy verdict, a non-str explanation, NaN
    scores) still come out as the reference writes them."""

    def factory() -> Report:
        odd = [
            EvaluationResult._unchecked(True, math.nan, "nan score", MappingProxyType({}), None),
            EvaluationResult._unchecked(False, 0.5, "", MappingProxyType({}), None),
            EvaluationResult._unchecked(
                np.True_,  # type: ignore[arg-type]
                1.0,
                "numpy verdict",
                MappingProxyType({}),
                None,
            ),
        ]
        return Report(
            name="odd",
            sample_names=["a", "b", "c"],
            sample_tags=[(), ("x",), ()],
            columns={"s": ResultColumn.from_results(odd)},
        )

    for indent in (2, None):
        try:
            expected: str | type[BaseException] = reference_render(factory(), indent=indent)
        except Exception as exc:  # the reference may refuse a value; the writer must too
            expected = type(exc)
        if isinstance(expected, str):
            assert render(factory(), indent=indent) == expected
        else:
            with pytest.raises(expected):
                render(factory(), indent=indent)


def test_random_reports_agree() -> None:
    rng = random.Random(11)
    for round_ in range(25):
        count = rng.randint(0, 30)
        columns: dict[str, ResultColumn] = {}
        for j in range(rng.randint(0, 4)):
            results = [
                EvaluationResult(
                    rng.random() < 0.5,
                    rng.random(),
                    rng.choice(TEXTS),
                    {"r": rng.choice(TEXTS)} if rng.random() < 0.2 else None,
                )
                for _ in range(count)
            ]
            columns[f"c{j}{rng.choice(TEXTS)}"] = ResultColumn.from_results(results)
        outputs = [rng.choice([*TEXTS, None]) for _ in range(count)]

        report = Report(
            name=f"random {round_}",
            sample_names=[rng.choice(TEXTS) + str(i) for i in range(count)],
            sample_tags=[()] * count,
            columns=columns,
            outputs=outputs,
        )
        for indent in (2, None):
            assert render(report, indent=indent) == reference_render(report, indent=indent)
