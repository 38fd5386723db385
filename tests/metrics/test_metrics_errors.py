"""Every error the metric API promises: its type, its message, and that it is an Exception.

A panic that crosses from Rust arrives as pyo3's PanicException, a BaseException that
``except Exception`` does not catch; ``catch`` below fails the test on anything that is not an
Exception subclass.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import evalmark.metrics as em
from evalmark.errors import MetricInputError

TEXT_BATCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "token_f1_batch": em.token_f1_batch,
    "rouge_l_batch": em.rouge_l_batch,
    "levenshtein_distance_batch": em.levenshtein_distance_batch,
    "levenshtein_similarity_batch": em.levenshtein_similarity_batch,
    "json_match_batch": em.json_match_batch,
}
TEXT_SCALAR_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "token_f1": em.token_f1,
    "rouge_l": em.rouge_l,
    "levenshtein_distance": em.levenshtein_distance,
    "levenshtein_similarity": em.levenshtein_similarity,
    "json_match": em.json_match,
}
VECTOR_BATCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "cosine_batch": em.cosine_batch,
    "cosine_matrix": em.cosine_matrix,
}
ALL_BATCH = {**TEXT_BATCH_FUNCTIONS, **VECTOR_BATCH_FUNCTIONS}


def catch(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> BaseException:
    """Call ``fn`` expecting an error; fail unless the error is an ``Exception``."""
    try:
        fn(*args, **kwargs)
    except BaseException as exc:
        assert isinstance(exc, Exception), f"{type(exc).__name__} escaped: {exc}"
        return exc
    raise AssertionError(f"{getattr(fn, '__name__', fn)} raised nothing")


def names_row(message: str, row: int) -> bool:
    """The message names the row, counted from 0 or from 1 (the spec does not say which)."""
    return re.search(rf"\brow\D{{0,3}}({row}|{row + 1})\b", message, re.IGNORECASE) is not None


def text_args(n: int) -> list[str]:
    return ['{"a": 1}'] * n


def vector_args(n: int) -> np.ndarray:
    return np.ones((n, 4), dtype=np.float32)


# ---------------------------------------------------------------------------- batch lengths


@pytest.mark.parametrize("name", list(TEXT_BATCH_FUNCTIONS))
def test_unequal_text_batches(name: str) -> None:
    fn = TEXT_BATCH_FUNCTIONS[name]
    exc = catch(fn, text_args(3), text_args(2))
    assert isinstance(exc, MetricInputError)
    assert str(exc) == "expected batches of equal length, got 3 and 2"
    exc = catch(fn, [], text_args(1))
    assert str(exc) == "expected batches of equal length, got 0 and 1"
    exc = catch(fn, em.TextColumn.from_strings(text_args(2)), text_args(5))
    assert str(exc) == "expected batches of equal length, got 2 and 5"


def test_unequal_vector_batches() -> None:
    exc = catch(em.cosine_batch, vector_args(3), vector_args(2))
    assert isinstance(exc, MetricInputError)
    assert "3" in str(exc)
    assert "2" in str(exc)


# ---------------------------------------------------------------------------- workers


@pytest.mark.parametrize("name", list(ALL_BATCH))
@pytest.mark.parametrize("workers", [0, -2, -100])
def test_bad_workers_value(name: str, workers: int) -> None:
    fn = ALL_BATCH[name]
    if name in VECTOR_BATCH_FUNCTIONS:
        exc = catch(fn, vector_args(2), vector_args(2), workers=workers)
    else:
        exc = catch(fn, text_args(2), text_args(2), workers=workers)
    assert isinstance(exc, MetricInputError)
    assert "workers" in str(exc)
    assert str(workers) in str(exc)


@pytest.mark.parametrize("workers", [1.5, "2", [1]])
def test_bad_workers_type(workers: object) -> None:
    exc = catch(em.token_f1_batch, ["a"], ["a"], workers=workers)
    assert isinstance(exc, TypeError)


@pytest.mark.parametrize("env", ["0", "-2", "many"])
def test_bad_workers_environment(env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALMARK_WORKERS", env)
    exc = catch(em.token_f1_batch, ["a"], ["a"])
    assert isinstance(exc, ValueError)
    assert "EVALMARK_WORKERS" in str(exc)
    # an explicit argument does not consult the environment
    assert em.token_f1_batch(["a"], ["a"], workers=1).tolist() == [1.0]


def test_workers_is_keyword_only() -> None:
    exc = catch(em.levenshtein_distance_batch, ["a"], ["b"], 1)
    assert isinstance(exc, TypeError)


# ---------------------------------------------------------------------------- wrong types


@pytest.mark.parametrize("name", list(TEXT_BATCH_FUNCTIONS))
@pytest.mark.parametrize("bad", [1, None, b"bytes", 1.5, ["nested"]])
@pytest.mark.parametrize("side", [0, 1])
def test_non_str_element_names_the_row(name: str, bad: object, side: int) -> None:
    good = ['{"a": 1}'] * 5
    broken: list[object] = list(good)
    broken[3] = bad
    args = (broken, good) if side == 0 else (good, broken)
    if side == 0 and isinstance(bad, list) and name in ("token_f1_batch", "rouge_l_batch"):
        # A list in expected is that row's several targets.
        assert len(TEXT_BATCH_FUNCTIONS[name](*args)) == 5
        return
    if isinstance(bad, list | bytes) and name.startswith("levenshtein_"):
        # A list (or bytes) is a sequence of items, compared item by item as RapidFuzz does.
        assert len(TEXT_BATCH_FUNCTIONS[name](*args)) == 5
        return
    exc = catch(TEXT_BATCH_FUNCTIONS[name], *args)
    assert isinstance(exc, TypeError)
    assert names_row(str(exc), 3), str(exc)


@pytest.mark.parametrize("name", list(TEXT_BATCH_FUNCTIONS))
@pytest.mark.parametrize("bad", [None, 3, object()])
def test_non_sequence_batch(name: str, bad: object) -> None:
    exc = catch(TEXT_BATCH_FUNCTIONS[name], bad, ["a"])
    assert isinstance(exc, TypeError)


@pytest.mark.parametrize("name", list(TEXT_SCALAR_FUNCTIONS))
@pytest.mark.parametrize("bad", [None, 1, b"a", ["a"]])
def test_scalar_wrong_types(name: str, bad: object) -> None:
    fn = TEXT_SCALAR_FUNCTIONS[name]
    if isinstance(bad, list) and name in ("token_f1", "rouge_l"):
        assert fn(bad, "a") == 1.0  # a list of targets: the best one
        assert isinstance(catch(fn, [1], "a"), TypeError)
    elif isinstance(bad, list | bytes) and name.startswith("levenshtein_"):
        # A sequence of items: ["a"] and b"a" are "a" item by item, as in RapidFuzz.
        assert fn(bad, "a") == fn("a", bad) == (0 if name == "levenshtein_distance" else 1.0)
        return
    else:
        assert isinstance(catch(fn, bad, "a"), TypeError)
    assert isinstance(catch(fn, "a", bad), TypeError)
    assert isinstance(catch(em.canonical_json, bad), TypeError)


# ---------------------------------------------------------------------------- bad options


@pytest.mark.parametrize(
    ("fn", "kwargs", "bad"),
    [
        (em.token_f1, {"normalizer": "SQuAD2"}, "SQuAD2"),
        (em.token_f1_batch, {"normalizer": "nfkc"}, "nfkc"),
        (em.rouge_l, {"tokenizer": "whitespacey"}, "whitespacey"),
        (em.rouge_l, {"measure": "f1"}, "f1"),
        (em.rouge_l_batch, {"measure": "Precision"}, "Precision"),
        (em.rouge_l_batch, {"tokenizer": ""}, "''"),
        (em.json_match, {"numbers": "loose"}, "loose"),
        (em.json_match_batch, {"numbers": "exact"}, "exact"),
        (em.canonical_json, {"numbers": "float"}, "float"),
    ],
)
def test_bad_option_values(fn: Callable[..., Any], kwargs: dict[str, str], bad: str) -> None:
    is_batch = fn.__name__.endswith("_batch")
    args: tuple[Any, ...]
    if fn is em.canonical_json:
        args = ("1",)
    elif is_batch:
        args = (["1"], ["1"])
    else:
        args = ("1", "1")
    exc = catch(fn, *args, **kwargs)
    assert isinstance(exc, MetricInputError)
    assert bad.strip("'") in str(exc)


# ---------------------------------------------------------------------------- cosine


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_non_finite_names_the_row(bad: float, dtype: type) -> None:
    a = np.ones((6, 8), dtype=dtype)
    b = np.ones((6, 8), dtype=dtype)
    a[4, 2] = bad
    for args in ((a, b), (b, a)):
        exc = catch(em.cosine_batch, *args)
        assert isinstance(exc, MetricInputError)
        assert names_row(str(exc), 4), str(exc)
    exc = catch(em.cosine_matrix, b[:2], a)
    assert isinstance(exc, MetricInputError)
    assert names_row(str(exc), 4), str(exc)
    exc = catch(em.cosine_matrix, a, b[:3])
    assert names_row(str(exc), 4), str(exc)
    assert isinstance(catch(em.cosine, a[4], b[4]), MetricInputError)
    assert isinstance(catch(em.cosine, b[4], a[4]), MetricInputError)


@pytest.mark.parametrize("d", [1, 7, 8, 9, 15, 16, 17, 33, 383, 384, 385])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_non_finite_at_any_lane(d: int, where: str, dtype: type) -> None:
    # vectorised loops handle a tail apart from full lanes: a NaN must be seen in either
    col = {"first": 0, "middle": d // 2, "last": d - 1}[where]
    bad = np.ones((3, d), dtype=dtype)
    bad[1, col] = np.nan
    good = np.ones((3, d), dtype=dtype)
    assert names_row(str(catch(em.cosine_batch, good, bad)), 1)
    assert names_row(str(catch(em.cosine_matrix, good[:2], bad)), 1)
    assert isinstance(catch(em.cosine, good[0], bad[1]), MetricInputError)


def test_cosine_matrix_non_finite_against_an_empty_side() -> None:
    # no pair is ever scored, yet the NaN is still an error naming its row
    bad = np.ones((3, 4))
    bad[2, 1] = np.inf
    empty = np.zeros((0, 4))
    assert names_row(str(catch(em.cosine_matrix, bad, empty)), 2)
    assert names_row(str(catch(em.cosine_matrix, empty, bad)), 2)


def test_cosine_non_finite_in_other_dtype() -> None:
    a = np.ones((2, 3), dtype=np.float16)
    a[1, 0] = np.inf
    assert isinstance(catch(em.cosine_batch, a, np.ones((2, 3))), ValueError)


@pytest.mark.parametrize(
    ("fn", "a", "b"),
    [
        (em.cosine, np.ones(3), np.ones(4)),
        (em.cosine, np.ones((2, 3)), np.ones((2, 3))),
        (em.cosine, np.ones(()), np.ones(())),
        (em.cosine_batch, np.ones((2, 3)), np.ones((2, 4))),
        (em.cosine_batch, np.ones(3), np.ones(3)),
        (em.cosine_batch, np.ones((2, 3, 1)), np.ones((2, 3, 1))),
        (em.cosine_matrix, np.ones((2, 3)), np.ones((5, 4))),
        (em.cosine_matrix, np.ones(3), np.ones((5, 3))),
        (em.cosine_matrix, np.ones((2, 3, 1)), np.ones((2, 3))),
    ],
)
def test_cosine_shape_mismatch(fn: Callable[..., Any], a: np.ndarray, b: np.ndarray) -> None:
    exc = catch(fn, a, b)
    assert isinstance(exc, ValueError)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([["a", "b"]]),
        np.array([[None, 1.0]], dtype=object),
        [[1.0, "x"]],
        "not a vector",
        None,
    ],
)
def test_cosine_non_numeric(bad: object) -> None:
    exc = catch(em.cosine_batch, bad, np.ones((1, 2)))
    assert isinstance(exc, TypeError | ValueError)


# ---------------------------------------------------------------------------- JSON


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"a": 1,\n  }', 2, 3),
        ("[1, 2", 1, 6),
        ('{"a": NaN}', 1, 7),
        ("\n\n   Infinity", 3, 4),
        ("", 1, 1),
    ],
)
def test_invalid_expected_json_names_row_and_position(text: str, line: int, column: int) -> None:
    exc = catch(em.json_match, text, "1")
    assert isinstance(exc, MetricInputError)
    assert re.search(rf"\bline {line}\b", str(exc)), str(exc)
    assert "column" in str(exc)
    exc = catch(em.canonical_json, text)
    assert isinstance(exc, MetricInputError)
    assert re.search(rf"\bline {line}\b", str(exc)), str(exc)
    for numbers in ("value", "strict"):
        exp = ["1", "[]", text, "{}"]
        exc = catch(em.json_match_batch, exp, ["1", "[]", "2", "{}"], numbers=numbers)
        assert isinstance(exc, MetricInputError)
        assert names_row(str(exc), 2), str(exc)
        assert re.search(rf"\bline {line}\b", str(exc)), str(exc)
        assert "column" in str(exc)
        # An actual document with the very same bytes does not make the expected one valid.
        exc = catch(em.json_match_batch, exp, exp, numbers=numbers)
        assert isinstance(exc, MetricInputError)
        assert names_row(str(exc), 2), str(exc)
        assert re.search(rf"\bline {line}\b", str(exc)), str(exc)
    assert isinstance(catch(em.json_match, text, text), MetricInputError)


def test_invalid_actual_json_is_false_not_error() -> None:
    got = em.json_match_batch(["1", "[1]", "{}"], ["NaN", "[1,]", "{"], numbers="value")
    assert got.tolist() == [False, False, False]
    assert em.json_match("1", "Infinity") is False


def test_deeply_nested_json_does_not_crash() -> None:
    # A stack overflow aborts the interpreter; run it where an abort cannot take pytest down.
    code = (
        "import evalmark.metrics as em\n"
        "deep = '[' * 200000 + ']' * 200000\n"
        "for call in (lambda: em.json_match('1', deep), lambda: em.json_match(deep, deep),\n"
        "             lambda: em.canonical_json(deep),\n"
        "             lambda: em.json_match_batch([deep, '1'], [deep, '1'])):\n"
        "    try:\n"
        "        print(repr(call()))\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__, isinstance(exc, ValueError))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, proc.stdout
    assert lines[0] == "False"  # an actual too deep to parse is a failed answer
    for line in lines[1:]:
        assert line.endswith(" True") or line in ("True", "False") or line.startswith("'")


def test_huge_numbers_do_not_crash() -> None:
    big = "9" * 50_000
    assert em.json_match(big, big) is True
    assert em.json_match(big, big + ".0") is True
    assert em.json_match(big, big + ".0", numbers="strict") is False
    exponent = "9" * 25  # beyond any machine integer
    assert em.json_match("1e" + exponent, "10e" + exponent[:-1] + "8") is True
    assert em.json_match("1e-" + exponent, "0") is False
    assert em.json_match("0e" + exponent, "0") is True


# ---------------------------------------------------------------------------- TextColumn


def column_error(data: bytes, offsets: list[int]) -> BaseException:
    """The error of building a TextColumn, or of its first use if building is lazy."""

    def build_and_use() -> None:
        col = em.TextColumn(np.frombuffer(data, dtype=np.uint8), np.array(offsets, np.int64))
        em.token_f1_batch(col, ["x"] * (len(offsets) - 1))

    return catch(build_and_use)


@pytest.mark.parametrize("offsets", [[0, 4, 2], [0, 7], [-1, 2], [3, 2], [0, 2**40]])
def test_text_column_bad_offsets(offsets: list[int]) -> None:
    exc = column_error(b"abcdef", offsets)
    assert isinstance(exc, ValueError), offsets


def test_text_column_invalid_utf8_names_the_row() -> None:
    # row 1 ends inside the two bytes of "é"; row 2 starts inside them and holds a lone 0xff
    exc = column_error("ab\u00e9".encode() + b"\xff", [0, 1, 3, 5])
    assert isinstance(exc, ValueError)
    assert names_row(str(exc), 1), str(exc)


def test_text_column_from_strings_errors() -> None:
    assert isinstance(catch(em.TextColumn.from_strings, ["a", 1]), TypeError)
    assert isinstance(catch(em.TextColumn.from_strings, ["a", "\ud800"]), ValueError)


# ---------------------------------------------------------------------------- lone surrogates


@pytest.mark.parametrize("name", ["token_f1", "rouge_l", "json_match"])
def test_lone_surrogates_in_token_metrics_are_values_or_value_errors(name: str) -> None:
    fn = TEXT_SCALAR_FUNCTIONS[name]
    for args in (("\ud800", "a"), ('"\ud800"', '"\ud800"')):
        try:
            out = fn(*args)
        except BaseException as exc:
            assert isinstance(exc, ValueError), type(exc)
        else:
            assert isinstance(out, bool | float)
    batch = TEXT_BATCH_FUNCTIONS[name + "_batch"]
    rows = ['"ok"', '"x\udfff"'] if name == "json_match" else ["ok", "x\udfff"]
    try:
        batch(rows, rows[:1] * 2)
    except BaseException as exc:
        assert isinstance(exc, ValueError), type(exc)
        assert names_row(str(exc), 1), str(exc)


# ---------------------------------------------------------------------------- anything at all

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.binary(max_size=8),
    st.text(max_size=8),
    st.lists(st.text(max_size=4), max_size=3),
    st.lists(st.integers(), max_size=3),
    st.lists(st.lists(st.floats(), max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.builds(np.zeros, st.sampled_from([(0,), (2,), (2, 3), (0, 0), (1, 2, 3)])),
)
EVERYTHING = {
    **TEXT_SCALAR_FUNCTIONS,
    **ALL_BATCH,
    "cosine": em.cosine,
    "canonical_json": lambda a, b: em.canonical_json(a, numbers=b),
}


@given(st.sampled_from(sorted(EVERYTHING)), junk, junk)
def test_no_input_escapes_as_base_exception(name: str, a: object, b: object) -> None:
    try:
        EVERYTHING[name](a, b)
    except BaseException as exc:
        assert isinstance(exc, Exception), f"{name}: {type(exc).__name__}: {exc}"
