"""Properties of the metric kernels: bounds, identity, symmetry, batch == scalar, workers."""

from __future__ import annotations

import random
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import evalmark
import evalmark.metrics as em
import oracles
from evalmark.errors import MetricInputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import workload

text = oracles.text_strategy()
text_with_surrogates = oracles.text_strategy(surrogates=True)
pairs_of_text = st.lists(st.tuples(text, text), max_size=25)
MEASURES = ("precision", "recall", "fmeasure")
# Where "letters and digits" is read two ways: marks and symbols (str.isalnum and Rust's
# Alphabetic property differ), and code points this Python's Unicode database leaves unassigned
# but the newer tables of the Rust standard library assign (U+13460, say).
AMBIGUOUS = ("Mn", "Mc", "Me", "So", "Cn")
WORKERS = (1, 2, 3, -1, None)

TEXT_BATCHES: dict[str, Callable[..., Any]] = {
    "token_f1_squad": lambda e, a, **kw: em.token_f1_batch(e, a, **kw),
    "token_f1_none": lambda e, a, **kw: em.token_f1_batch(e, a, normalizer="none", **kw),
    "rouge_l_f": lambda e, a, **kw: em.rouge_l_batch(e, a, **kw),
    "rouge_l_p_unicode": lambda e, a, **kw: em.rouge_l_batch(
        e, a, tokenizer="unicode", measure="precision", **kw
    ),
    "rouge_l_r": lambda e, a, **kw: em.rouge_l_batch(e, a, measure="recall", **kw),
    "levenshtein_distance": lambda e, a, **kw: em.levenshtein_distance_batch(e, a, **kw),
    "levenshtein_similarity": lambda e, a, **kw: em.levenshtein_similarity_batch(e, a, **kw),
}
TEXT_SCALARS: dict[str, Callable[[str, str], Any]] = {
    "token_f1_squad": em.token_f1,
    "token_f1_none": lambda e, a: em.token_f1(e, a, normalizer="none"),
    "rouge_l_f": em.rouge_l,
    "rouge_l_p_unicode": lambda e, a: em.rouge_l(e, a, tokenizer="unicode", measure="precision"),
    "rouge_l_r": lambda e, a: em.rouge_l(e, a, measure="recall"),
    "levenshtein_distance": em.levenshtein_distance,
    "levenshtein_similarity": em.levenshtein_similarity,
}
BATCH_DTYPES = {
    "levenshtein_distance": np.int64,
    "json_value": np.bool_,
    "json_strict": np.bool_,
}


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal dtype, shape and bytes (stricter than ==: tells -0.0 from 0.0)."""
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def json_texts(n: int, seed: int) -> tuple[list[str], list[str]]:
    exp, act = workload.json_pairs(n, seed=seed)
    # add some broken actual answers: invalid JSON in actual must give False, not an error
    act = [a[: len(a) // 2] if i % 7 == 3 else a for i, a in enumerate(act)]
    return exp, act


# ---------------------------------------------------------------------------- API shape


def test_exported_from_the_metrics_face_only() -> None:
    names = [
        "token_f1",
        "token_f1_batch",
        "rouge_l",
        "rouge_l_batch",
        "levenshtein_distance",
        "levenshtein_similarity",
        "levenshtein_distance_batch",
        "levenshtein_similarity_batch",
        "cosine",
        "cosine_batch",
        "cosine_matrix",
        "json_match",
        "json_match_batch",
        "canonical_json",
        "TextColumn",
    ]
    for name in names:  # one face: the metrics are not repeated at the top level
        assert name in em.__all__, name
        assert name not in evalmark.__all__, name
    assert issubclass(MetricInputError, ValueError)


def test_scalar_return_types() -> None:
    assert type(em.token_f1("a b", "b c")) is float
    assert type(em.rouge_l("a b", "b c")) is float
    assert type(em.levenshtein_distance("ab", "b")) is int
    assert type(em.levenshtein_similarity("ab", "b")) is float
    assert type(em.cosine([1.0, 2.0], [2.0, 1.0])) is float
    assert type(em.json_match("1", "1")) is bool
    assert type(em.canonical_json("[1]")) is str


@pytest.mark.parametrize("name", [*TEXT_BATCHES, "json_value", "json_strict"])
def test_empty_in_empty_out(name: str) -> None:
    fn = TEXT_BATCHES.get(name) or (
        lambda e, a: em.json_match_batch(e, a, numbers=name.removeprefix("json_"))
    )
    out = fn([], [])
    assert isinstance(out, np.ndarray)
    assert out.shape == (0,)
    assert out.dtype == BATCH_DTYPES.get(name, np.float64)


@pytest.mark.parametrize("d", [0, 1, 384])
def test_cosine_empty_shapes(d: int) -> None:
    empty = np.zeros((0, d), dtype=np.float32)
    three = np.ones((3, d), dtype=np.float32)
    assert em.cosine_batch(empty, empty).shape == (0,)
    assert em.cosine_matrix(empty, three).shape == (0, 3)
    assert em.cosine_matrix(three, empty).shape == (3, 0)
    assert em.cosine_matrix(empty, empty).shape == (0, 0)


def test_zero_dimension_vectors_are_zero_vectors() -> None:
    z = np.zeros((2, 0), dtype=np.float64)
    assert em.cosine_batch(z, z).tolist() == [0.0, 0.0]
    assert em.cosine(np.zeros(0), np.zeros(0)) == 0.0


# ---------------------------------------------------------------------------- bounds, identity


@given(text, text)
def test_bounds(expected: str, actual: str) -> None:
    for normalizer in ("squad", "none"):
        assert 0.0 <= em.token_f1(expected, actual, normalizer=normalizer) <= 1.0
    for tokenizer in ("rouge", "unicode"):
        for measure in MEASURES:
            score = em.rouge_l(expected, actual, tokenizer=tokenizer, measure=measure)
            assert 0.0 <= score <= 1.0
    d = em.levenshtein_distance(expected, actual)
    assert abs(len(expected) - len(actual)) <= d <= max(len(expected), len(actual))
    assert 0.0 <= em.levenshtein_similarity(expected, actual) <= 1.0


@given(text_with_surrogates)
def test_identity(x: str) -> None:
    assert em.levenshtein_distance(x, x) == 0
    assert em.levenshtein_similarity(x, x) == 1.0
    if any("\ud800" <= c <= "\udfff" for c in x):
        return  # the token metrics are not asked to take lone surrogates
    assert em.token_f1(x, x) == 1.0  # equal token lists, empty ones included, score 1
    assert em.token_f1(x, x, normalizer="none") == 1.0
    for tokenizer in ("rouge", "unicode"):
        tokens = oracles.rouge_tokens(x) if tokenizer == "rouge" else oracles.unicode_tokens(x)
        if tokenizer == "unicode" and any(unicodedata.category(c) in AMBIGUOUS for c in x):
            continue  # marks and symbols: "letters and digits" is read two ways
        for measure in MEASURES:
            want = 1.0 if tokens else 0.0
            assert em.rouge_l(x, x, tokenizer=tokenizer, measure=measure) == want


@given(text, text)
def test_symmetry(a: str, b: str) -> None:
    assert em.levenshtein_distance(a, b) == em.levenshtein_distance(b, a)
    assert em.levenshtein_similarity(a, b) == em.levenshtein_similarity(b, a)
    # F1 is symmetric as a number; the float arithmetic may differ by an ulp.
    assert em.token_f1(a, b) == pytest.approx(em.token_f1(b, a), abs=1e-15)
    assert em.rouge_l(a, b) == pytest.approx(em.rouge_l(b, a), abs=1e-15)
    # Precision and recall are not symmetric, but each is the other seen from the other side.
    assert em.rouge_l(a, b, measure="precision") == em.rouge_l(b, a, measure="recall")


def test_rouge_precision_recall_not_symmetric() -> None:
    # lcs 2 of 2 expected tokens and 4 actual tokens
    assert em.rouge_l("a b", "a x b y", measure="precision") == 0.5
    assert em.rouge_l("a b", "a x b y", measure="recall") == 1.0
    assert em.rouge_l("a x b y", "a b", measure="precision") == 1.0


# no magnitudes whose squares underflow: there a non-zero vector has a zero float64 norm
moderate = st.one_of(st.just(0.0), st.floats(1e-6, 1e6), st.floats(-1e6, -1e-6))
float_vectors = st.integers(1, 32).flatmap(
    lambda d: st.tuples(
        hnp.arrays(np.float64, d, elements=moderate),
        hnp.arrays(np.float64, d, elements=moderate),
    )
)


@given(float_vectors)
def test_cosine_bounds_identity_symmetry(pair: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = pair
    c = em.cosine(a, b)
    assert -1.0 - 1e-9 <= c <= 1.0 + 1e-9
    assert c == pytest.approx(em.cosine(b, a), abs=1e-12)
    if np.any(a != 0):
        assert em.cosine(a, a) == pytest.approx(1.0, abs=1e-9)
        assert em.cosine(a, -a) == pytest.approx(-1.0, abs=1e-9)
        assert em.cosine(a, 3.5 * a) == pytest.approx(1.0, abs=1e-9)
    mat = em.cosine_matrix(np.stack([a, b]), np.stack([a, b]))
    np.testing.assert_allclose(mat, mat.T, rtol=0, atol=1e-12)


@given(oracles.json_doc_strategy(), st.integers(0, 2**32 - 1))
def test_json_identity_and_canonical_form(doc: object, seed: int) -> None:
    x = oracles.render_json(doc, random.Random(seed), respell=True, decoys=True)
    for numbers in ("value", "strict"):
        assert em.json_match(x, x, numbers=numbers) is True
        canon = em.canonical_json(x, numbers=numbers)
        # The canonical text is JSON for the same document and its own canonical form.
        assert em.json_match(x, canon, numbers=numbers) is True
        assert em.json_match(canon, x, numbers=numbers) is True
        assert em.canonical_json(canon, numbers=numbers) == canon


@given(oracles.json_doc_strategy(), oracles.json_doc_strategy(), st.integers(0, 2**32 - 1))
def test_json_symmetry_for_valid_documents(a: object, b: object, seed: int) -> None:
    rng = random.Random(seed)
    x, y = oracles.render_json(a, rng, respell=True), oracles.render_json(b, rng, respell=True)
    for numbers in ("value", "strict"):
        assert em.json_match(x, y, numbers=numbers) is em.json_match(y, x, numbers=numbers)


# ---------------------------------------------------------------------------- batch == scalar


@given(pairs_of_text)
def test_text_batch_equals_scalar(pairs: list[tuple[str, str]]) -> None:
    exp = [e for e, _ in pairs]
    act = [a for _, a in pairs]
    for name, batch in TEXT_BATCHES.items():
        got = batch(exp, act)
        want = [TEXT_SCALARS[name](e, a) for e, a in pairs]
        assert got.dtype == BATCH_DTYPES.get(name, np.float64), name
        assert got.tolist() == want, name
        assert batch(tuple(exp), tuple(act)).tolist() == want, name


@given(st.lists(st.tuples(text_with_surrogates, text_with_surrogates), max_size=15))
def test_levenshtein_batch_equals_scalar_with_surrogates(pairs: list[tuple[str, str]]) -> None:
    exp = [e for e, _ in pairs]
    act = [a for _, a in pairs]
    assert em.levenshtein_distance_batch(exp, act).tolist() == [
        em.levenshtein_distance(e, a) for e, a in pairs
    ]
    assert em.levenshtein_similarity_batch(exp, act).tolist() == [
        em.levenshtein_similarity(e, a) for e, a in pairs
    ]


@pytest.mark.parametrize("numbers", ["value", "strict"])
def test_json_batch_equals_scalar(numbers: str) -> None:
    exp, act = json_texts(400, seed=1)
    got = em.json_match_batch(exp, act, numbers=numbers)
    assert got.dtype == np.bool_
    assert got.tolist() == [
        em.json_match(e, a, numbers=numbers) for e, a in zip(exp, act, strict=True)
    ]


@given(
    st.integers(0, 8),
    st.integers(0, 8),
    st.integers(1, 16),
    st.sampled_from([np.float32, np.float64]),
    st.data(),
)
def test_cosine_batch_and_matrix_equal_scalar(
    n: int, m: int, d: int, dtype: type, data: st.DataObject
) -> None:
    elements = st.floats(-1e3, 1e3, width=32)
    q = data.draw(hnp.arrays(dtype, (n, d), elements=elements))
    r = data.draw(hnp.arrays(dtype, (n, d), elements=elements))
    mm = data.draw(hnp.arrays(dtype, (m, d), elements=elements))
    assert em.cosine_batch(q, r).tolist() == [em.cosine(q[i], r[i]) for i in range(n)]
    mat = em.cosine_matrix(q, mm)
    for i in range(n):
        assert mat[i].tolist() == [em.cosine(q[i], mm[j]) for j in range(m)]


def test_cosine_accepts_layouts() -> None:
    g = np.random.default_rng(4)
    a = g.standard_normal((20, 64))
    b = g.standard_normal((20, 64))
    want = em.cosine_batch(a, b)
    assert same_bits(em.cosine_batch(np.asfortranarray(a), np.asfortranarray(b)), want)
    big = g.standard_normal((40, 128))
    big[::2, ::2] = a
    view = big[::2, ::2]  # a non-contiguous view equal to a
    assert same_bits(em.cosine_batch(view, b), want)
    assert same_bits(em.cosine_batch(a.tolist(), b.tolist()), want)


# ---------------------------------------------------------------------------- workers


@pytest.fixture(scope="module")
def text_workload() -> tuple[list[str], list[str]]:
    exp, act = workload.text_pairs(3000, seed=13)
    return [*exp, "", "\U0001f600 x", "a" * 5000], [*act, "x", "", "b" * 4000]


@pytest.mark.parametrize("name", list(TEXT_BATCHES))
def test_workers_invariance_text(name: str, text_workload: tuple[list[str], list[str]]) -> None:
    exp, act = text_workload
    batch = TEXT_BATCHES[name]
    serial = batch(exp, act, workers=1)
    for workers in WORKERS:
        assert same_bits(batch(exp, act, workers=workers), serial), workers
    assert same_bits(batch(exp, act), serial)


@given(st.lists(st.tuples(text, text), max_size=300), st.sampled_from([2, 3, 7, -1]))
def test_workers_invariance_any_batch(pairs: list[tuple[str, str]], workers: int) -> None:
    exp = [e for e, _ in pairs]
    act = [a for _, a in pairs]
    for name, batch in TEXT_BATCHES.items():
        assert same_bits(batch(exp, act, workers=workers), batch(exp, act, workers=1)), name


@pytest.mark.parametrize("numbers", ["value", "strict"])
def test_workers_invariance_json(numbers: str) -> None:
    exp, act = json_texts(3000, seed=2)
    serial = em.json_match_batch(exp, act, numbers=numbers, workers=1)
    for workers in WORKERS:
        assert same_bits(em.json_match_batch(exp, act, numbers=numbers, workers=workers), serial)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_workers_invariance_cosine(dtype: type) -> None:
    a, b = workload.vectors(3000, 384, seed=1)
    a, b = a.astype(dtype), b.astype(dtype)
    serial = em.cosine_batch(a, b, workers=1)
    mat = em.cosine_matrix(a[:64], b, workers=1)
    for workers in WORKERS:
        assert same_bits(em.cosine_batch(a, b, workers=workers), serial), workers
        assert same_bits(em.cosine_matrix(a[:64], b, workers=workers), mat), workers


@pytest.mark.parametrize("env", ["1", "2", "-1"])
def test_workers_from_environment(
    env: str, monkeypatch: pytest.MonkeyPatch, text_workload: tuple[list[str], list[str]]
) -> None:
    exp, act = text_workload
    serial = em.rouge_l_batch(exp, act, workers=1)
    monkeypatch.setenv("EVALMARK_WORKERS", env)
    assert same_bits(em.rouge_l_batch(exp, act), serial)
    assert same_bits(em.token_f1_batch(exp, act), em.token_f1_batch(exp, act, workers=1))


def test_repeated_runs_identical(text_workload: tuple[list[str], list[str]]) -> None:
    exp, act = text_workload
    first = em.token_f1_batch(exp, act)
    for _ in range(3):
        assert same_bits(em.token_f1_batch(exp, act), first)


# ---------------------------------------------------------------------------- TextColumn


def manual_column(strings: Sequence[str]) -> Any:
    encoded = [s.encode("utf-8") for s in strings]
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return em.TextColumn(data, offsets)


@given(pairs_of_text)
def test_text_column_equals_list(pairs: list[tuple[str, str]]) -> None:
    exp = [e for e, _ in pairs]
    act = [a for _, a in pairs]
    exp_col, act_col = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
    exp_man, act_man = manual_column(exp), manual_column(act)
    for name, batch in TEXT_BATCHES.items():
        want = batch(exp, act)
        assert same_bits(batch(exp_col, act_col), want), name
        assert same_bits(batch(exp_man, act_man), want), name
        assert same_bits(batch(exp_col, act), want), name
        assert same_bits(batch(exp, act_man), want), name


def test_text_column_json() -> None:
    exp, act = json_texts(300, seed=3)
    for numbers in ("value", "strict"):
        want = em.json_match_batch(exp, act, numbers=numbers)
        got = em.json_match_batch(
            em.TextColumn.from_strings(exp), manual_column(act), numbers=numbers
        )
        assert same_bits(got, want)


def test_text_column_workload(text_workload: tuple[list[str], list[str]]) -> None:
    exp, act = text_workload
    exp_col, act_col = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
    for name, batch in TEXT_BATCHES.items():
        for workers in (1, -1):
            got = batch(exp_col, act_col, workers=workers)
            assert same_bits(got, batch(exp, act, workers=1)), name


def test_text_column_rows_are_slices_of_one_buffer() -> None:
    # row i is data[offsets[i]:offsets[i + 1]]: offsets need not start at 0 nor reach the end
    data = np.frombuffer(b"xxthe cat sat|a cat|yy", dtype=np.uint8)
    exp = em.TextColumn(data, np.array([2, 13], dtype=np.int64))
    act = em.TextColumn(data, np.array([14, 19], dtype=np.int64))
    assert em.token_f1_batch(exp, act).tolist() == [em.token_f1("the cat sat", "a cat")]
    assert em.levenshtein_distance_batch(exp, act).tolist() == [
        em.levenshtein_distance("the cat sat", "a cat")
    ]


# ---------------------------------------------------------------------------- memory

_MEMORY_CHILD = r"""
import random, resource, sys
import evalmark.metrics as em

def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

# evalmark.metrics loads its functions (numpy, the extension) on first use: load them now,
# so that the measured peak is the calls' own.
em.rouge_l("a", "a"), em.token_f1("a", "a"), em.levenshtein_similarity("a", "a")
rng = random.Random(1)
vocab = [f"w{i}" for i in range(5000)]
exp = " ".join(rng.choice(vocab) for _ in range(100_000))
act = " ".join(rng.choice(vocab) for _ in range(100_000))
# Cap the address space 1.5 GB above today's: a quadratic table (10**10 cells) fails at once
# instead of taking the machine's memory.
cap = status_kb("VmSize") * 1024 + 1_500_000_000
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    before = status_kb("VmRSS")
except OSError:
    before = status_kb("VmHWM")
results = [em.rouge_l(exp, act, tokenizer=t, measure="recall") for t in ("rouge", "unicode")]
results.append(em.token_f1(exp, act))
results.append(em.levenshtein_similarity(exp[:100_000], act[:100_000]))
print(status_kb("VmHWM") - before, len(exp.encode()) + len(act.encode()), *results)
"""


def test_long_answers_use_linear_memory() -> None:
    """Two 100,000-word answers: the call's peak memory stays a small multiple of the input."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    extra_kb, input_bytes, *scores = proc.stdout.split()
    assert int(extra_kb) * 1024 < 20 * int(input_bytes), proc.stdout
    assert all(0.0 < float(s) < 1.0 for s in scores), scores
