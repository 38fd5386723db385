"""The binding's conventions: (expected, actual) names everywhere, options that check
themselves with the messages they always had, and typed errors for every bad ``workers``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import evalmark.metrics as em
from evalmark import _core
from evalmark.errors import MetricInputError, TextTooLongError

PAIR_FUNCTIONS = [
    "token_f1",
    "rouge_l",
    "levenshtein_distance",
    "levenshtein_similarity",
    "json_match",
    "cosine",
    "token_f1_batch",
    "rouge_l_batch",
    "levenshtein_distance_batch",
    "levenshtein_similarity_batch",
    "json_match_batch",
    "cosine_batch",
    "cosine_matrix",
]


@pytest.mark.parametrize("name", PAIR_FUNCTIONS)
@pytest.mark.parametrize("module", [em, _core], ids=["metrics", "_core"])
def test_first_two_parameters_are_expected_and_actual(name: str, module: Any) -> None:
    params = list(inspect.signature(getattr(module, name)).parameters)
    assert params[:2] == ["expected", "actual"], params


def test_levenshtein_and_cosine_by_keyword_and_by_position() -> None:
    assert em.levenshtein_distance(expected="kitten", actual="sitting") == 3
    assert em.levenshtein_distance("kitten", "sitting") == 3
    assert em.levenshtein_similarity(actual="ab", expected="abcd") == 0.5
    assert _core.levenshtein_distance(expected="ab", actual="b") == 1
    assert em.cosine(expected=[1.0, 0.0], actual=[1.0, 0.0]) == 1.0
    e, a = np.eye(2), np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 3.0]])
    got = em.cosine_matrix(expected=e, actual=a)
    assert got.shape == (2, 3)
    assert got.tobytes() == em.cosine_matrix(e, a).tobytes()
    assert got[0, 0] == 1.0
    assert got[1, 0] == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: _core.token_f1("a", "a", "SQuAD2"),
            'normalizer must be one of "squad", "none", got "SQuAD2"',
        ),
        (
            lambda: _core.rouge_l("a", "a", "rouge", "f1"),
            'measure must be one of "fmeasure", "precision", "recall", got "f1"',
        ),
        (
            lambda: _core.rouge_l_batch(["a"], ["a"], ""),
            'tokenizer must be one of "rouge", "unicode", got ""',
        ),
        (
            lambda: _core.json_match_batch(["1"], ["1"], "exact"),
            'numbers must be one of "value", "strict", got "exact"',
        ),
        (
            lambda: _core.canonical_json("1", "float"),
            'numbers must be one of "value", "strict", got "float"',
        ),
    ],
)
def test_bad_option_message(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(MetricInputError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("bad", [1, None, b"squad", ["squad"]])
def test_option_of_the_wrong_type_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="normalizer must be a str, one of"):
        _core.token_f1("a", "a", bad)
    with pytest.raises(TypeError, match="numbers must be a str"):
        _core.json_match_batch(["1"], ["1"], bad)


@pytest.mark.parametrize("workers", [2**70, -(2**70), 2**63, 1025, 10**30])
@pytest.mark.parametrize("layer", ["metrics", "_core"])
def test_huge_workers_is_a_typed_error_naming_the_value(workers: int, layer: str) -> None:
    with pytest.raises(MetricInputError) as info:
        if layer == "metrics":
            em.token_f1_batch(["a"], ["a"], workers=workers)
        else:
            _core.token_f1_batch(["a"], ["a"], "squad", workers)
    assert str(workers) in str(info.value)
    assert "workers" in str(info.value)


def test_huge_workers_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALMARK_WORKERS", str(2**70))
    with pytest.raises(MetricInputError, match=r"EVALMARK_WORKERS.*1180591620717411303424"):
        em.levenshtein_distance_batch(["a"], ["b"])


@pytest.mark.parametrize("workers", [True, 1.0, "2", None])
def test_core_workers_of_the_wrong_type(workers: object) -> None:
    with pytest.raises(TypeError, match="workers must be an int"):
        _core.cosine_batch(np.ones((1, 2)), np.ones((1, 2)), workers)


def test_max_workers_is_accepted() -> None:
    got = em.levenshtein_distance_batch(["ab", "b"], ["a", "b"], workers=_core.MAX_WORKERS)
    assert got.tolist() == [1, 0]


def test_error_classes() -> None:
    assert issubclass(TextTooLongError, MetricInputError)
    assert issubclass(MetricInputError, ValueError)
    assert TextTooLongError is _core.TextTooLongError
