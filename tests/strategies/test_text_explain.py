"""The text checks explain a whole column in one call, with the texts their rows write alone."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evalmark import Sample
from evalmark.results._results import ResultColumn
from evalmark.strategies import Contains, ContainsFacts, ExactMatch
from evalmark.strategies._text_batch import excerpt
from evalmark.strategies._text_explain import quoted

_WORDS = ["alpha", "Beta", "it's", 'say "hi"', "é", "🙂", "tab\there", "back\\slash", "\0", "%s"]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _samples(count: int, seed: int) -> tuple[list[Sample], list[object]]:
    rng = random.Random(seed)
    samples, outputs = [], []
    for i in range(count):
        answer = _text(rng, rng.choice([1, 3, 30]))  # 30 words: cut to 80 characters
        kind = i % 6
        if kind == 0:
            wanted: dict[str, object] = {"expected_outputs": (answer, _text(rng, 2))}
        elif kind == 1:
            wanted = {"expected_output": answer, "expected_facts": ("alpha", "zzz " * 30)}
        else:
            wanted = {"expected_output": answer, "expected_facts": tuple(_WORDS[: kind + 1])}
        samples.append(Sample(name=f"s{i}", parameters=(i,), **wanted))  # type: ignore[arg-type]
        outputs.append(answer if i % 4 == 0 else (None if i % 29 == 5 else _text(rng, 4)))
    return samples, outputs


@pytest.mark.parametrize("count", [1, 5, 63, 64, 300])
@pytest.mark.parametrize(
    "check",
    [ExactMatch(), ExactMatch(case=False), Contains(), Contains("it's é"), ContainsFacts()],
    ids=["exact", "exact-case", "contains", "contains-text", "facts"],
)
def test_a_column_writes_the_texts_its_rows_write(check: object, count: int) -> None:
    samples, outputs = _samples(count, seed=count)
    want = []
    for sample, output in zip(samples, outputs, strict=True):
        try:
            want.append(check.evaluate(sample, output).explanation)  # type: ignore[attr-defined]
        except Exception:
            want.append(None)
    column = check.evaluate_batch(samples, outputs)  # type: ignore[attr-defined]
    whole = column.export()[2]
    rows = [i for i, text in enumerate(want) if text is not None]
    assert [whole[i] for i in rows] == [want[i] for i in rows]
    again = check.evaluate_batch(samples, outputs)  # type: ignore[attr-defined]
    picked = rows[::-3]
    assert again.explanations(picked) == [want[i] for i in picked]
    fresh = check.evaluate_batch(samples, outputs)  # type: ignore[attr-defined]
    assert [fresh[i].explanation for i in rows] == [want[i] for i in rows]


def test_an_explainer_given_the_rows_writes_them_in_one_call() -> None:
    calls: list[list[int]] = []

    class Rows:
        def __call__(self, index: int, score: float, passed: bool) -> str:
            raise AssertionError("row by row")

        def many_rows(self, rows: list[int], scores: list[float], passed: list[bool]) -> list[str]:
            calls.append(list(rows))
            return [f"{r}:{s}:{p}" for r, s, p in zip(rows, scores, passed, strict=True)]

    scores = np.array([0.5, 1.0, 0.0, 0.25])
    column = ResultColumn(scores, scores > 0.3, Rows())
    assert column.explanations([3, 1, 3]) == ["3:0.25:False", "1:1.0:True", "3:0.25:False"]
    assert column.export()[2] == ["0:0.5:True", "1:1.0:True", "2:0.0:False", "3:0.25:False"]
    assert len(calls) == 2  # once per read, never row by row


_CHARS = ["a", " ", "'", '"', "\\", "\n", "\t", "\0", "\x7f", "\x85", "é", "\u200b", "\u2e3b"]
_CHARS += ["\ud800", "\udcff", "🙂", "\U000e0001", "…", "%", "{}"]


@pytest.mark.parametrize("seed", range(40))
def test_quoted_texts_are_their_excerpts(seed: int) -> None:
    rng = random.Random(seed)
    weights = [20, 5] + [1] * (len(_CHARS) - 2)
    texts = [
        "".join(rng.choices(_CHARS, weights, k=rng.choice([0, 1, 5, 79, 80, 81, 200])))
        for _ in range(rng.choice([0, 1, 2, 30, 300]))
    ]
    if seed % 3 == 0:  # few single quotes: the joined path with the quoted ones apart
        texts = [t.replace("'", "") if k % 7 else t for k, t in enumerate(texts)]
    if seed % 3 == 1:  # no separator, no single quote: every text in the joined repr
        texts = [t.replace("'", "").replace("\u2e3b", "") for t in texts]
    for limit in (80, 60):
        assert quoted(texts, limit) == [excerpt(t, limit) for t in texts]
