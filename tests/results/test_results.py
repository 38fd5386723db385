"""EvaluationResult and ResultColumn: constructors, immutability, round trips, lazy rows."""

from __future__ import annotations

import numpy as np
import pytest

from evalmark import EvaluationFault, EvaluationResult
from evalmark.report import Report, render_report
from evalmark.results._results import ResultColumn, place_column


def test_constructors() -> None:
    ok = EvaluationResult.passing(0.9)
    assert ok.passed is True and ok.score == 0.9 and ok.verdict == "pass"
    bad = EvaluationResult.failing(0.4, "too short")
    assert (bad.passed, bad.score, bad.explanation) == (False, 0.4, "too short")
    only_text = EvaluationResult.failing("empty answer")
    assert (only_text.passed, only_text.score, only_text.explanation) == (
        False,
        0.0,
        "empty answer",
    )
    assert EvaluationResult.from_bool(True) == EvaluationResult(True, 1.0)
    assert EvaluationResult.from_bool(False) == EvaluationResult(False, 0.0)
    assert EvaluationResult(True, 1, "x", {"k": 1}).metadata == {"k": 1}


def test_with_copies_and_immutability() -> None:
    base = EvaluationResult.failing(0.2, "a", {"x": 1})
    changed = base.with_explanation("b").with_metadata(y=2)
    assert base.explanation == "a" and dict(base.metadata) == {"x": 1}
    assert changed.explanation == "b" and dict(changed.metadata) == {"x": 1, "y": 2}
    with pytest.raises(AttributeError, match="immutable"):
        base.score = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        base.metadata["z"] = 3  # type: ignore[index]


@pytest.mark.parametrize("score", [-0.1, 1.5, float("nan"), float("inf")])
def test_scores_outside_the_unit_interval_are_refused(score: float) -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        EvaluationResult(True, score)


def test_passed_must_be_a_bool_and_score_a_number() -> None:
    with pytest.raises(TypeError):
        EvaluationResult(1, 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        EvaluationResult(True, True)


def test_errors_are_typed_and_round_trip() -> None:
    class Raw(ValueError):
        raw = "I cannot say"

    result = EvaluationResult.from_error("parse", Raw("unreadable"))
    assert result.verdict == "error" and result.is_error and not result.passed
    assert result.error == EvaluationFault("parse", "Raw", "unreadable", "I cannot say")
    back = EvaluationResult.from_dict(result.to_dict())
    assert back == result
    assert back.error is not None and back.error.exception is None  # not serialized


def test_column_is_lazy_and_overrides_win() -> None:
    calls: list[int] = []

    def explain(i: int, score: float, passed: bool) -> str:
        calls.append(i)
        return f"row {i}: {score}"

    override = EvaluationResult.from_error("strategy", RuntimeError("boom"))
    column = ResultColumn(
        np.array([0.1, 0.9, 0.5]), np.array([False, True, True]), explain, {2: override}
    )
    assert calls == []
    assert column[1] == EvaluationResult(True, 0.9, "row 1: 0.9")
    assert column[2] is override
    assert column.errored.tolist() == [False, False, True]
    assert column.passed.tolist() == [False, True, False]
    column[1]
    assert calls == [1]  # cached


def test_place_column_spreads_rows_and_keeps_explanations() -> None:
    inner = ResultColumn(np.array([0.25, 1.0]), np.array([False, True]), lambda i, s, p: f"i{i}")
    error = EvaluationResult.from_error("function", KeyError("x"))
    wide = place_column(inner, 3, np.array([0, 2]), {1: error})
    assert [r.explanation for r in wide] == ["i0", error.explanation, "i1"]
    assert wide.scores.tolist() == [0.25, 0.0, 1.0]
    assert wide.errored.tolist() == [False, True, False]


def test_results_pickle_and_copy() -> None:
    import copy
    import pickle

    result = EvaluationResult.failing(0.5, "half", {"k": [1, 2]}).with_metadata(x=1)
    assert pickle.loads(pickle.dumps(result)) == result
    assert copy.deepcopy(result) == result and copy.copy(result) == result
    error = EvaluationResult.from_error("parse", ValueError("bad reply"))
    assert pickle.loads(pickle.dumps(error)) == error


def test_a_column_without_an_explainer_reads_each_row_for_its_text() -> None:
    # explain=None says so explicitly: a subclass that makes its rows itself keeps their
    # explanations, errors included (one that passed an explainer of its own lost them once)
    rows = [
        EvaluationResult.failing(0.25, "too short"),
        EvaluationResult.from_error("strategy", RuntimeError("boom")),
        EvaluationResult.passing(1.0, "fine"),
    ]

    class Made(ResultColumn):
        __slots__ = ()

        def __getitem__(self, index: int) -> EvaluationResult:
            return rows[index]

    column = Made(np.array([0.25, 0.0, 1.0]), np.array([False, False, True]), None)
    column.errored = np.array([False, True, False])
    texts = [r.explanation for r in rows]
    assert texts[1] == "RuntimeError: boom"
    assert column.explanations([1, 0, 2]) == [texts[1], texts[0], texts[2]]
    assert column.export()[2] == texts
    assert column.plain([0, 1, 2]) == []  # no row is taken as plain: each is read whole
    report = Report(
        name="made", sample_names=["a", "b", "c"], sample_tags=[(), (), ()],
        columns={"Made": column}, outputs=["x", "y", "z"],
    )  # fmt: skip
    for fmt in ("markdown", "html"):
        assert "RuntimeError: boom" in render_report(report, fmt), fmt


def test_explanations_are_written_once_and_together() -> None:
    calls: list[list[float]] = []

    class Many:
        def __call__(self, index: int, score: float, passed: bool) -> str:
            raise AssertionError("rows are written together")

        def many(self, scores: list[float], passed: list[bool]) -> list[str]:
            calls.append(scores)
            return [f"{s} {p}" for s, p in zip(scores, passed, strict=True)]

    override = EvaluationResult.from_error("strategy", RuntimeError("boom"))
    column = ResultColumn(
        np.array([0.5, 0.25, 1.0, 0.75]),
        np.array([True, False, True, False]),
        Many(),
        {3: override},
    )
    assert column.explanations([1, 3, 0]) == ["0.25 False", override.explanation, "0.5 True"]
    assert calls == [[0.25, 0.5]]
    assert column.explanations([0, 1]) == ["0.5 True", "0.25 False"]
    assert column[1].explanation == "0.25 False" and calls == [[0.25, 0.5]]  # kept
    assert column.export()[2] == ["0.5 True", "0.25 False", "1.0 True", override.explanation]
    assert calls == [[0.25, 0.5], [1.0]]
