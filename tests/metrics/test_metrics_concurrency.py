"""Every batch entry point called from many Python threads at once equals its serial result."""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import evalmark.metrics as em
from evalmark.errors import MetricInputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import workload

THREADS = 8
CALLS = 48

TEXT, ACTUAL = workload.text_pairs(600, seed=21)
JSON_EXP, JSON_ACT = workload.json_pairs(600, seed=22)
VEC_A, VEC_B = workload.vectors(600, 96, seed=23)

# name -> function of (row slice, workers) returning the batch result for those rows
ENTRY_POINTS: dict[str, Callable[[slice, int], np.ndarray]] = {
    "token_f1_batch": lambda s, w: em.token_f1_batch(TEXT[s], ACTUAL[s], workers=w),
    "token_f1_batch_none": lambda s, w: em.token_f1_batch(
        TEXT[s], ACTUAL[s], normalizer="none", workers=w
    ),
    "rouge_l_batch": lambda s, w: em.rouge_l_batch(TEXT[s], ACTUAL[s], workers=w),
    "rouge_l_batch_unicode_recall": lambda s, w: em.rouge_l_batch(
        TEXT[s], ACTUAL[s], tokenizer="unicode", measure="recall", workers=w
    ),
    "levenshtein_distance_batch": lambda s, w: em.levenshtein_distance_batch(
        TEXT[s], ACTUAL[s], workers=w
    ),
    "levenshtein_similarity_batch": lambda s, w: em.levenshtein_similarity_batch(
        TEXT[s], ACTUAL[s], workers=w
    ),
    "levenshtein_text_column": lambda s, w: em.levenshtein_similarity_batch(
        em.TextColumn.from_strings(TEXT[s]), em.TextColumn.from_strings(ACTUAL[s]), workers=w
    ),
    "json_match_batch": lambda s, w: em.json_match_batch(JSON_EXP[s], JSON_ACT[s], workers=w),
    "json_match_batch_strict": lambda s, w: em.json_match_batch(
        JSON_EXP[s], JSON_ACT[s], numbers="strict", workers=w
    ),
    "cosine_batch": lambda s, w: em.cosine_batch(VEC_A[s], VEC_B[s], workers=w),
    "cosine_matrix": lambda s, w: em.cosine_matrix(VEC_A[s][:20], VEC_B[s], workers=w),
}


def job(k: int) -> tuple[slice, int]:
    """The k-th call's rows and workers: overlapping slices of varied sizes, varied workers."""
    start = (k * 37) % 500
    return slice(start, start + 20 + (k * 53) % 80), (1, 2, -1, 3)[k % 4]


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def run_concurrently(calls: list[Callable[[], Any]]) -> list[Any]:
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        return list(pool.map(lambda call: call(), calls))


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_thread_pool_equals_serial(name: str) -> None:
    fn = ENTRY_POINTS[name]
    jobs = [job(k) for k in range(CALLS)]
    serial = [fn(rows, 1) for rows, _ in jobs]
    threaded = run_concurrently([lambda rows=rows, w=w: fn(rows, w) for rows, w in jobs])
    for k, (got, want) in enumerate(zip(threaded, serial, strict=True)):
        assert same_bits(got, want), (name, k)


def test_all_entry_points_at_once() -> None:
    names = sorted(ENTRY_POINTS)
    calls = [(names[k % len(names)], *job(k)) for k in range(CALLS * 2)]
    serial = [ENTRY_POINTS[name](rows, 1) for name, rows, _ in calls]
    threaded = run_concurrently(
        [lambda n=name, r=rows, w=w: ENTRY_POINTS[n](r, w) for name, rows, w in calls]
    )
    for (name, _, _), got, want in zip(calls, threaded, serial, strict=True):
        assert same_bits(got, want), name


def test_errors_under_concurrency_stay_in_their_thread() -> None:
    # Calls that fail (invalid expected JSON) run among calls that succeed; each gets its own.
    good = em.json_match_batch(JSON_EXP[:50], JSON_ACT[:50], workers=1)
    bad_exp = [*JSON_EXP[:49], "{"]

    def call(k: int) -> object:
        try:
            if k % 2:
                return em.json_match_batch(bad_exp, JSON_ACT[:50], workers=(1, -1)[k % 3 % 2])
            return em.json_match_batch(JSON_EXP[:50], JSON_ACT[:50], workers=-1)
        except BaseException as exc:
            return exc

    results = run_concurrently([lambda k=k: call(k) for k in range(CALLS)])
    for k, out in enumerate(results):
        if k % 2:
            assert isinstance(out, MetricInputError), out
        else:
            assert isinstance(out, np.ndarray)
            assert same_bits(out, good)


def _long_texts(n: int, size: int) -> list[str]:
    """``n`` different texts of ``size`` characters: windows, 7 characters apart, of one random
    sequence of words (drawing every text's words one by one took seconds)."""
    rng = random.Random(n + size)
    words = ["alpha", "beta", "gamma", "delta", "the", "a", "zeta", "eta"]
    base = " ".join(rng.choices(words, k=(size + 7 * n) // 4 + 1))
    return [base[7 * i : 7 * i + size] for i in range(n)]


GIL_WORK = ("levenshtein", "rouge_l", "token_f1", "json_match", "cosine_matrix")


def gil_work(name: str) -> Callable[[], object]:
    """A serial batch call of about a second on this kind of machine."""
    if name == "levenshtein":
        e, a = _long_texts(20, 20_000), _long_texts(20, 20_001)
        return partial(em.levenshtein_distance_batch, e, a, workers=1)
    if name == "rouge_l":
        e, a = _long_texts(120, 60_000), _long_texts(120, 60_001)
        return partial(em.rouge_l_batch, e, a, workers=1)
    if name == "token_f1":
        e, a = _long_texts(4000, 20_000), _long_texts(4000, 20_001)
        return partial(em.token_f1_batch, e, a, workers=1)
    if name == "json_match":
        return partial(em.json_match_batch, JSON_EXP * 900, JSON_ACT * 900, workers=1)
    q = np.ones((2500, 384), np.float32)
    return partial(em.cosine_matrix, q, q, workers=1)


def max_pause_beside(work: Callable[[], object]) -> tuple[float, float]:
    """Run ``work`` in a thread while this one spins; (longest pause of the spinning thread,
    duration of the call)."""
    started = threading.Event()
    span: list[float] = []

    def worker() -> None:
        started.set()
        t0 = time.perf_counter()
        work()
        span.append(time.perf_counter() - t0)

    thread = threading.Thread(target=worker)
    last = time.perf_counter()  # before the start: a call holding the GIL also stalls wait()
    thread.start()
    assert started.wait(timeout=60), "the worker thread did not start"
    longest = 0.0
    deadline = last + 300
    while thread.is_alive() and last < deadline:
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    thread.join(timeout=60)
    assert span, "the batch call did not return"
    return longest, span[0]


def test_the_gil_check_can_fail() -> None:
    # The builtin sum over a range runs one C loop that holds the GIL throughout.
    pause, call = max_pause_beside(lambda: sum(range(30_000_000)))
    assert pause > 0.5 * call


@pytest.mark.parametrize("name", GIL_WORK)
def test_batch_calls_release_the_gil(name: str) -> None:
    """While a batch call runs in one thread, another thread keeps running Python code: its
    longest pause is a small part of the call (holding the GIL, it would be all of it)."""
    pause, call = max_pause_beside(gil_work(name))
    assert pause < 0.5 * call, f"{pause:.3f} s pause during a {call:.3f} s call"


class Tagged(str):
    """A str subclass, as some libraries hand out."""


@pytest.mark.parametrize(
    "shape",
    [list, tuple, iter, lambda rows: (row for row in rows), lambda rows: map(Tagged, rows)],
    ids=["list", "tuple", "iterator", "generator", "str-subclass"],
)
def test_any_iterable_of_str_gives_the_list_result(shape: Callable[[list[str]], Any]) -> None:
    exp, act = TEXT[:200], ACTUAL[:200]
    want = em.token_f1_batch(exp, act, workers=1)
    assert same_bits(em.token_f1_batch(shape(exp), shape(act), workers=2), want)
    want_json = em.json_match_batch(JSON_EXP[:200], JSON_ACT[:200], workers=1)
    got_json = em.json_match_batch(shape(JSON_EXP[:200]), shape(JSON_ACT[:200]), workers=2)
    assert same_bits(got_json, want_json)


def test_changing_the_callers_list_during_a_call_changes_nothing() -> None:
    """A batch call works on a snapshot of its inputs: another thread that replaces the list's
    items (dropping the only reference to each old text) while the GIL is released changes
    neither the result nor the memory being read."""
    exp = _long_texts(300, 4_000)
    act = _long_texts(300, 4_001)
    want = em.levenshtein_distance_batch(exp, act, workers=1)
    victim_e = [text.encode().decode() for text in exp]  # copies: the lists own them alone
    victim_a = [text.encode().decode() for text in act]
    go, stop = threading.Event(), threading.Event()
    replaced = []

    def vandal() -> None:
        go.wait(timeout=60)
        # Running means the call has released the GIL: let the call take it back promptly.
        sys.setswitchinterval(interval)
        k = 0
        while not stop.is_set():
            victim_e[k % len(victim_e)] = "x" * (k % 7)
            victim_a[k % len(victim_a)] = ""
            k += 1
        replaced.append(k)

    interval = sys.getswitchinterval()
    thread = threading.Thread(target=vandal)
    thread.start()
    sys.setswitchinterval(10.0)  # this thread keeps the GIL until the call releases it
    try:
        go.set()
        got = em.levenshtein_distance_batch(victim_e, victim_a, workers=2)
    finally:
        stop.set()
        sys.setswitchinterval(interval)
        thread.join(timeout=60)
    assert replaced and replaced[0] > 0, "the other thread never ran during the call"
    assert same_bits(got, want)
