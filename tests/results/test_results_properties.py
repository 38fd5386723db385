"""Properties of evaluation results over generated values: a result reads back from its
dictionary and its pickle; a column made from results gives them back row for row with their
scores, verdicts and error flags; and a column placed into a wider run keeps each row at its
index, the rows between holding the results given for them."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationFault, EvaluationResult
from evalmark.results._results import ResultColumn, place_column

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=10)
SCORE = st.floats(0.0, 1.0)
METADATA = st.dictionaries(TEXT, st.integers() | TEXT, max_size=2)
ERRORS = st.sampled_from([ValueError, KeyError, RuntimeError])
RESULTS = st.one_of(
    st.builds(EvaluationResult.passing, SCORE),
    st.builds(EvaluationResult.failing, SCORE, TEXT, METADATA),
    st.builds(
        EvaluationResult.from_error,
        st.sampled_from(["parse", "strategy", "function"]),
        st.builds(lambda kind, text: kind(text), ERRORS, TEXT),
    ),
)


@settings(max_examples=examples(150), deadline=None)
@given(RESULTS)
def test_a_result_reads_back_from_its_dict_and_its_pickle(result: EvaluationResult) -> None:
    back = EvaluationResult.from_dict(result.to_dict())
    assert back == result and back.verdict == result.verdict
    assert pickle.loads(pickle.dumps(result)) == result
    assert 0.0 <= result.score <= 1.0
    faulted = isinstance(result.error, EvaluationFault)
    assert result.is_error == (result.verdict == "error") == faulted
    assert not (result.passed and result.is_error)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(RESULTS, min_size=1, max_size=12))
def test_a_column_gives_back_its_results_row_for_row(results: list[EvaluationResult]) -> None:
    column = ResultColumn.from_results(results)
    assert list(column) == results
    assert column.scores.tolist() == [r.score for r in results]
    assert column.passed.tolist() == [r.passed for r in results]
    assert column.errored.tolist() == [r.is_error for r in results]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(RESULTS, min_size=1, max_size=6), st.data())
def test_a_placed_column_keeps_each_row_at_its_index(
    inner: list[EvaluationResult], data: st.DataObject
) -> None:
    width = data.draw(st.integers(len(inner), len(inner) + 5))
    rows = sorted(data.draw(st.permutations(range(width)))[: len(inner)])
    between = {i: data.draw(RESULTS) for i in range(width) if i not in rows}
    wide = place_column(ResultColumn.from_results(inner), width, np.array(rows), between)
    placed = list(wide)
    assert [placed[i] for i in rows] == inner
    assert {i: placed[i] for i in between} == between
