"""The engine's batch path for the text checks gives the bytes of the per-sample path.

ExactMatch, Contains and ContainsFacts are scored once per check over all samples; with their
batch path turned off they go one (sample, check) pair at a time through the engine's threads.
Over generated samples (several accepted answers, facts, missing expectations, outputs that are
not text) both give byte-identical reports, errors per sample included.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample, Scorer
from evalmark.engine._run import Run
from evalmark.report import render_report
from evalmark.strategies import Contains, ContainsFacts, ExactMatch, RougeL, TokenF1
from evalmark.strategies._text_batch import BatchText

WORDS = st.sampled_from(["Yes", "no", "Paris", "42", "the answer", "café", "naïve!", "A-B", " "])
TEXT = st.lists(WORDS, max_size=5).map(" ".join)
FACTS = st.lists(WORDS.filter(str.strip), max_size=3).map(tuple)
EXPECTED = st.one_of(
    TEXT.map(lambda t: {"expected_output": t}),
    st.lists(TEXT, min_size=1, max_size=3).map(lambda ts: {"expected_outputs": tuple(ts)}),
    st.just({}),
)
OUTPUT = st.one_of(TEXT, TEXT, st.none(), st.dictionaries(WORDS, WORDS, max_size=2), st.integers())
CASES = st.lists(st.tuples(EXPECTED, FACTS, OUTPUT), min_size=1, max_size=12)

CHECKS = (
    ExactMatch(),
    ExactMatch(case=False, punctuation=False, name="ExactStrict"),
    Contains(),
    Contains("yes", name="ContainsYes"),
    Contains(case_sensitive=True, name="ContainsCase"),
    ContainsFacts(),
    ContainsFacts(("paris", "42"), name="FactsGiven"),
    TokenF1(0.5),
    RougeL(0.5),
)


def samples_of(cases: list[tuple[dict[str, Any], tuple[str, ...], Any]]) -> list[Sample]:
    samples = []
    for i, (expected, facts, _) in enumerate(cases):
        if not expected and not facts:
            facts = ("fallback",)  # a sample needs some expectation
        samples.append(Sample(name=f"s{i}", parameters=[i], expected_facts=facts, **expected))
    return samples


def per_pair_and_batch(run: Any) -> tuple[str, str]:
    """The JSON report of ``run()`` with the text checks' batch path off, then on."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BatchText, "batch", False)
        one_by_one = render_report(run(), "json")
    return one_by_one, render_report(run(), "json")


@settings(max_examples=examples(150), deadline=None)
@given(CASES, st.sampled_from([1, 4]))
def test_the_batch_path_gives_the_bytes_of_the_per_pair_path(
    cases: list[tuple[dict[str, Any], tuple[str, ...], Any]], concurrency: int
) -> None:
    samples = samples_of(cases)
    outputs = [output for _, _, output in cases]

    def run() -> Any:
        return Scorer(concurrency).evaluate_outputs(samples, outputs, *CHECKS)

    one_by_one, batched = per_pair_and_batch(run)
    assert batched == one_by_one


@settings(max_examples=examples(60), deadline=None)
@given(CASES, st.sampled_from(["fail", "skip"]))
def test_a_function_raising_on_one_sample_gives_the_same_bytes_on_both_paths(
    cases: list[tuple[dict[str, Any], tuple[str, ...], Any]], errors: Any
) -> None:
    samples = samples_of(cases)
    outputs = [output for _, _, output in cases]

    def answer(index: int) -> Any:
        if index == len(samples) // 2:
            raise RuntimeError(f"no answer for {index}")
        return outputs[index]

    def run() -> Any:
        return Scorer(2, errors=errors).evaluate(samples, answer, *CHECKS)

    one_by_one, batched = per_pair_and_batch(run)
    assert batched == one_by_one


def test_the_text_checks_take_the_batch_path(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pairs(*args: Any) -> Any:
        raise AssertionError("a text check went through the per-pair path")

    monkeypatch.setattr(Run, "_each", no_pairs)
    samples = [
        Sample(name=f"s{i}", parameters=[i], expected_output="Paris", expected_facts=("paris",))
        for i in range(3)
    ]
    report = Scorer(4).evaluate_outputs(
        samples, ["Paris.", "paris is it", None], ExactMatch(), Contains(), ContainsFacts()
    )
    assert [r.passed for r in report.column("ExactMatch")] == [True, False, False]
    assert [r.passed for r in report.column("Contains")] == [True, True, False]
    assert [r.score for r in report.column("ContainsFacts")] == [1.0, 1.0, 0.0]
    assert report.column("ContainsFacts")[2].error is not None


def test_a_check_raising_on_every_row_in_bulk_still_gives_each_rows_error() -> None:
    samples = [Sample(name=f"s{i}", parameters=[i], expected_output="x") for i in range(3)]
    odd = Contains(5, name="ContainsFive")  # type: ignore[arg-type]
    odd_facts = ContainsFacts(("x", 5), name="FactsFive")  # type: ignore[arg-type]

    def run() -> Any:
        return Scorer(1).evaluate_outputs(samples, ["x", "y", "x"], odd, odd_facts)

    one_by_one, batched = per_pair_and_batch(run)
    assert batched == one_by_one
    assert all(r.error is not None for r in run().column("ContainsFive"))


def test_a_subclass_that_replaces_evaluate_is_evaluated_row_by_row() -> None:
    class Shouting(ExactMatch):
        def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
            return EvaluationResult.from_bool(str(output).isupper())

    samples = [Sample(name=f"s{i}", parameters=[i], expected_output="x") for i in range(2)]
    check = Shouting(name="Shouting")
    assert check.batch is False
    report = Scorer(1).evaluate_outputs(samples, ["X", "x"], check)
    assert [r.passed for r in report.column("Shouting")] == [True, False]
    assert [r.passed for r in check.evaluate_batch(samples, ["X", "x"])] == [True, False]
