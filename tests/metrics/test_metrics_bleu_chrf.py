"""BLEU and chrF against sacrebleu, sentence and corpus, single and multi-reference.

evalmark returns scores in [0, 1]; sacrebleu reports 0-100. Each comparison is
``abs(ours * 100 - sacrebleu) <= 1e-9``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF

import evalmark
import evalmark.metrics as em
import oracles
from evalmark.errors import MetricInputError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import workload

TOL = 1e-9
WORKLOAD_N = 5000
CORPUS_N = 1000
TOKENIZERS = ("13a", "intl", "none", "char", "zh")
SMOOTHS: tuple[tuple[str, float | None], ...] = (
    ("exp", None),
    ("floor", None),
    ("floor", 0.3),
    ("add-k", None),
    ("add-k", 0.5),
    ("none", None),
)

# Pieces that exercise every rule of the 13a and intl tokenizers.
MT_PIECES = (
    "the",
    "The",
    "cat",
    "sat",
    "on",
    "mat",
    "a",
    "dog",
    "Hello",
    "world",
    "don't",
    "it's",
    "U.S.",
    "e.g.",
    "3,000.50",
    "1990-2000",
    "re-use",
    "co-",
    "-",
    "--",
    "...",
    ".",
    ",",
    "!",
    "?",
    ";",
    ":",
    "(a)",
    "[b]",
    "{c}",
    '"q"',
    "'s",
    "$5",
    "5%",
    "a+b",
    "x/y",
    "&amp;",
    "&quot;",
    "&lt;",
    "&gt;",
    "&amp;lt;",
    "<skipped>",
    "<b>",
    "@home",
    "#tag",
    "~",
    "`",
    "^",
    "|",
    "\\",
    "_",
    "caf\u00e9",
    "na\u00efve",
    "\u00abok\u00bb",
    "\u201cquote\u201d",
    "\u2014",
    "\u20ac12",
    "\u00a3",
    "\u00bd",
    "\u0663\u0664",
    "\u4e1c\u4eac\u3002",
    "\u3001",
    "\u00bf",
    "\u00a1",
    "\u2026",
    "\U0001f600",
    "\u0391\u03a3",
    "\u03a3.",
    "1.",
    "2,",
    ".5",
    ",7",
    "a.b",
    "a,b",
    "9.",
    "x.",
    "\u0130",
    "K",
    "\u212a",
    "\u2000\u2001\u2a6d\u2a6e",
    "\u2f80x\u2f81\u2fa1\u2fa2",
    "\uff01\ufe10\u2600\u3300",
    "\u4e2d\u6587ok",
)
MT_SEPARATORS = (" ", " ", " ", "", "\n", "-\n", "\t", "  ", "\u3000", "\xa0", "\x85", "\x1c")

mt_text = st.lists(
    st.tuples(st.sampled_from(MT_PIECES), st.sampled_from(MT_SEPARATORS)), max_size=25
).map(lambda parts: "".join(p + s for p, s in parts))
text = oracles.text_strategy()
any_text = st.one_of(mt_text, text)
refs_strategy = st.lists(any_text, min_size=1, max_size=4)


def close(ours: float, theirs: float) -> bool:
    return abs(ours * 100 - theirs) <= TOL


def streams(rows: Sequence[str | Sequence[str]]) -> list[list[str | None]]:
    """Per-segment references as sacrebleu's reference streams (None where a row has fewer)."""
    lists = [[r] if isinstance(r, str) else list(r) for r in rows]
    k = max((len(x) for x in lists), default=1)
    return [[x[j] if j < len(x) else None for x in lists] for j in range(k)]


def ref_bleu(refs: Sequence[str], hyp: str, **kw: Any) -> float:
    tokenize = kw.pop("tokenize", "13a")
    lowercase = kw.pop("lowercase", False)
    smooth = kw.pop("smooth_method", "exp")
    smooth_value = kw.pop("smooth_value", None)
    effective = kw.pop("effective_order", True)
    assert not kw
    metric = BLEU(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth_method=smooth,
        smooth_value=smooth_value,
        effective_order=effective,
    )
    return float(metric.sentence_score(hyp, list(refs)).score)


def ref_chrf(refs: Sequence[str], hyp: str, **kw: Any) -> float:
    return float(CHRF(**kw).sentence_score(hyp, list(refs)).score)


# ---------------------------------------------------------------------------- sentence BLEU


@given(refs_strategy, any_text, st.sampled_from(TOKENIZERS))
def test_sentence_bleu_equals_sacrebleu(refs: list[str], hyp: str, tokenizer: str) -> None:
    want = sacrebleu.sentence_bleu(hyp, refs, tokenize=tokenizer).score
    assert close(em.bleu(refs, hyp, tokenize=tokenizer), want)  # type: ignore[arg-type]
    if len(refs) == 1:
        assert em.bleu(refs[0], hyp, tokenize=tokenizer) == em.bleu(refs, hyp, tokenize=tokenizer)  # type: ignore[arg-type]


@given(
    refs_strategy,
    any_text,
    st.sampled_from(SMOOTHS),
    st.booleans(),
    st.booleans(),
    st.sampled_from(TOKENIZERS),
)
def test_every_option_equals_sacrebleu(
    refs: list[str],
    hyp: str,
    smooth: tuple[str, float | None],
    lowercase: bool,
    effective: bool,
    tokenizer: str,
) -> None:
    kw: dict[str, Any] = {
        "tokenize": tokenizer,
        "lowercase": lowercase,
        "smooth_method": smooth[0],
        "smooth_value": smooth[1],
        "effective_order": effective,
    }
    assert close(em.bleu(refs, hyp, **kw), ref_bleu(refs, hyp, **kw))


@given(
    st.lists(oracles.text_strategy(surrogates=True), min_size=1, max_size=3),
    oracles.text_strategy(surrogates=True),
)
def test_lone_surrogates(refs: list[str], hyp: str) -> None:
    for tokenizer in ("13a", "none"):
        want = sacrebleu.sentence_bleu(hyp, refs, tokenize=tokenizer).score
        assert close(em.bleu(refs, hyp, tokenize=tokenizer), want)  # type: ignore[arg-type]
    assert close(em.chrf(refs, hyp), sacrebleu.sentence_chrf(hyp, refs).score)


@pytest.mark.parametrize(
    ("refs", "hyp"),
    [
        ([""], ""),
        ([""], "a"),
        (["a"], ""),
        (["   "], " \n "),
        (["a b c d"], "a b c d"),
        (["a"], "a"),
        (["The cat sat on the mat."], "The cat sat on the mat."),
        (["a b", "a b c d e f"], "a b c d"),
        (["x y z", ""], "x y"),
        (["&amp;lt;skipped&gt;"], "<skipped>"),
        (["1,000.5 -3"], "1,000.5 - 3"),
    ],
)
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_edge_cases_equal_sacrebleu(refs: list[str], hyp: str, tokenizer: str) -> None:
    for smooth, value in SMOOTHS:
        for effective in (True, False):
            kw: dict[str, Any] = {
                "tokenize": tokenizer,
                "smooth_method": smooth,
                "smooth_value": value,
                "effective_order": effective,
            }
            assert close(em.bleu(refs, hyp, **kw), ref_bleu(refs, hyp, **kw)), kw


# ---------------------------------------------------------------------------- chrF


@given(
    refs_strategy,
    any_text,
    st.sampled_from([0, 1, 2]),
    st.sampled_from([(6, 2), (1, 1), (3, 3), (6, 0)]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_chrf_equals_sacrebleu(
    refs: list[str],
    hyp: str,
    word_order: int,
    char_order_beta: tuple[int, int],
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> None:
    char_order, beta = char_order_beta
    kw: dict[str, Any] = {
        "char_order": char_order,
        "word_order": word_order,
        "beta": beta,
        "whitespace": whitespace,
        "eps_smoothing": eps_smoothing,
        "lowercase": lowercase,
    }
    assert close(em.chrf(refs, hyp, **kw), ref_chrf(refs, hyp, **kw)), kw


@given(refs_strategy, any_text)
def test_chrf_defaults_equal_sentence_chrf(refs: list[str], hyp: str) -> None:
    assert close(em.chrf(refs, hyp), sacrebleu.sentence_chrf(hyp, refs).score)
    assert close(
        em.chrf(refs, hyp, word_order=2), sacrebleu.sentence_chrf(hyp, refs, word_order=2).score
    )


@pytest.mark.parametrize(
    ("refs", "hyp"),
    [
        ([""], ""),
        ([""], "a"),
        (["a"], ""),
        (["a"], "a"),
        (["ab", "abc"], "abc"),
        (["a ."], "a."),
        (["(hi)"], "( hi )"),
        ([" "], " "),
    ],
)
def test_chrf_edge_cases(refs: list[str], hyp: str) -> None:
    for word_order in (0, 2):
        for eps in (False, True):
            kw = {"word_order": word_order, "eps_smoothing": eps}
            assert close(em.chrf(refs, hyp, **kw), ref_chrf(refs, hyp, **kw)), kw  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- corpus and bulk


@pytest.fixture(scope="module")
def pairs() -> tuple[list[str], list[str]]:
    return workload.text_pairs(WORKLOAD_N, seed=13)


def multi_refs(exp: list[str], act: list[str]) -> list[list[str]]:
    """Up to three references per row: the expected answer and other rows' answers."""
    n = len(exp)
    return [[exp[i], *(exp[(i * 7 + j) % n] for j in range(i % 3))] for i in range(n)]


def test_workload_sentence_scores_equal_sacrebleu(pairs: tuple[list[str], list[str]]) -> None:
    exp, act = pairs
    bleu = em.bleu_batch(exp, act)
    chrf = em.chrf_batch(exp, act)
    chrfpp = em.chrf_batch(exp, act, word_order=2)
    for i, (e, a) in enumerate(zip(exp, act, strict=True)):
        assert close(bleu[i], sacrebleu.sentence_bleu(a, [e]).score), i
        assert close(chrf[i], sacrebleu.sentence_chrf(a, [e]).score), i
        assert close(chrfpp[i], sacrebleu.sentence_chrf(a, [e], word_order=2).score), i


def test_workload_multi_reference_equals_sacrebleu(pairs: tuple[list[str], list[str]]) -> None:
    exp, act = pairs
    refs = multi_refs(exp, act)[:2000]
    act = act[:2000]
    bleu = em.bleu_batch(refs, act, tokenize="intl")
    chrf = em.chrf_batch(refs, act, word_order=2)
    for i, (r, a) in enumerate(zip(refs, act, strict=True)):
        assert close(bleu[i], sacrebleu.sentence_bleu(a, r, tokenize="intl").score), i
        assert close(chrf[i], sacrebleu.sentence_chrf(a, r, word_order=2).score), i


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_corpus_bleu_equals_sacrebleu(pairs: tuple[list[str], list[str]], tokenizer: str) -> None:
    exp, act = pairs
    want = sacrebleu.corpus_bleu(act, [exp], tokenize=tokenizer).score
    assert close(em.corpus_bleu(exp, act, tokenize=tokenizer), want)  # type: ignore[arg-type]
    refs = multi_refs(exp, act)
    want = sacrebleu.corpus_bleu(act, streams(refs), tokenize=tokenizer).score
    assert close(em.corpus_bleu(refs, act, tokenize=tokenizer), want)  # type: ignore[arg-type]


def test_corpus_bleu_options_equal_sacrebleu(pairs: tuple[list[str], list[str]]) -> None:
    exp, act = pairs[0][:300], pairs[1][:300]
    for smooth, value in SMOOTHS:
        for effective in (True, False):
            for lowercase in (True, False):
                want = sacrebleu.corpus_bleu(
                    act,
                    [exp],
                    smooth_method=smooth,
                    smooth_value=value,
                    lowercase=lowercase,
                    use_effective_order=effective,
                ).score
                got = em.corpus_bleu(
                    exp,
                    act,
                    smooth_method=smooth,  # type: ignore[arg-type]
                    smooth_value=value,
                    lowercase=lowercase,
                    effective_order=effective,
                )
                assert close(got, want), (smooth, value, effective, lowercase)


@pytest.mark.parametrize("word_order", [0, 2])
def test_corpus_chrf_equals_sacrebleu(pairs: tuple[list[str], list[str]], word_order: int) -> None:
    # One corpus score over the first CORPUS_N pairs: every statistic of the corpus path is
    # summed over many rows already (sacrebleu's chrF takes seconds per thousand rows).
    exp, act = pairs[0][:CORPUS_N], pairs[1][:CORPUS_N]
    want = sacrebleu.corpus_chrf(act, [exp], word_order=word_order).score
    assert close(em.corpus_chrf(exp, act, word_order=word_order), want)
    refs = multi_refs(exp, act)
    want = sacrebleu.corpus_chrf(act, streams(refs), word_order=word_order).score
    assert close(em.corpus_chrf(refs, act, word_order=word_order), want)
    want = (
        CHRF(word_order=word_order, eps_smoothing=True, lowercase=True)
        .corpus_score(act, [exp])
        .score
    )
    assert close(
        em.corpus_chrf(exp, act, word_order=word_order, eps_smoothing=True, lowercase=True), want
    )


@given(st.lists(st.tuples(refs_strategy, any_text), min_size=1, max_size=8))
def test_corpus_of_random_segments_equals_sacrebleu(rows: list[tuple[list[str], str]]) -> None:
    refs = [r for r, _ in rows]
    hyps = [h for _, h in rows]
    assert close(em.corpus_bleu(refs, hyps), sacrebleu.corpus_bleu(hyps, streams(refs)).score)
    assert close(em.corpus_chrf(refs, hyps), sacrebleu.corpus_chrf(hyps, streams(refs)).score)


# ---------------------------------------------------------------------------- long and repetitive


def test_very_long_texts() -> None:
    rng = random.Random(9)
    vocab = [*MT_PIECES[:40], *(f"w{i}" for i in range(500))]
    e = " ".join(rng.choice(vocab) for _ in range(30_000))
    a = " ".join(rng.choice(vocab) for _ in range(25_000))
    assert len(e) > 100_000
    assert close(em.bleu(e, a), sacrebleu.sentence_bleu(a, [e]).score)
    assert close(em.chrf(e, a, word_order=2), sacrebleu.sentence_chrf(a, [e], word_order=2).score)


@pytest.mark.parametrize(
    ("ref", "hyp"),
    [
        ("the " * 5000, "the " * 3000),
        ("a b " * 2000, "b a " * 2100),
        ("x" * 20_000, "x" * 19_999),
        ("ab" * 10_000, "ba" * 10_000),
        ("..." * 3000, ". " * 4000),
    ],
)
def test_pathological_repetition(ref: str, hyp: str) -> None:
    for tokenizer in TOKENIZERS:
        want = sacrebleu.sentence_bleu(hyp, [ref], tokenize=tokenizer).score
        assert close(em.bleu(ref, hyp, tokenize=tokenizer), want)  # type: ignore[arg-type]
    for word_order in (0, 2):
        want = sacrebleu.sentence_chrf(hyp, [ref], word_order=word_order).score
        assert close(em.chrf(ref, hyp, word_order=word_order), want)


# ---------------------------------------------------------------------------- properties

BATCHES: dict[str, Callable[..., np.ndarray]] = {
    "bleu": lambda e, a, **kw: em.bleu_batch(e, a, **kw),
    "bleu_intl_floor": lambda e, a, **kw: em.bleu_batch(
        e, a, tokenize="intl", smooth_method="floor", **kw
    ),
    "chrf": lambda e, a, **kw: em.chrf_batch(e, a, **kw),
    "chrf++": lambda e, a, **kw: em.chrf_batch(e, a, word_order=2, **kw),
}
SCALARS: dict[str, Callable[[Any, str], float]] = {
    "bleu": lambda e, a: em.bleu(e, a),
    "bleu_intl_floor": lambda e, a: em.bleu(e, a, tokenize="intl", smooth_method="floor"),
    "chrf": lambda e, a: em.chrf(e, a),
    "chrf++": lambda e, a: em.chrf(e, a, word_order=2),
}


@pytest.mark.parametrize("name", BATCHES)
@given(rows=st.lists(st.tuples(st.one_of(any_text, refs_strategy), any_text), max_size=10))
def test_batch_equals_scalar_and_stays_in_bounds(
    name: str, rows: list[tuple[str | list[str], str]]
) -> None:
    exp, act = [e for e, _ in rows], [a for _, a in rows]
    got = BATCHES[name](exp, act)
    assert got.dtype == np.float64 and got.shape == (len(rows),)
    assert got.tolist() == [SCALARS[name](e, a) for e, a in rows]
    assert ((got >= 0.0) & (got <= 1.0)).all()


@pytest.mark.parametrize("name", BATCHES)
def test_identity_and_empty(name: str) -> None:
    assert SCALARS[name]("The cat sat on the mat.", "The cat sat on the mat.") == 1.0
    assert SCALARS[name]("", "") == 0.0
    assert SCALARS[name](["a b", "c d"], "") == 0.0
    out = BATCHES[name]([], [])
    assert out.shape == (0,) and out.dtype == np.float64


def test_corpus_of_one_segment_is_the_sentence_score() -> None:
    exp, act = workload.text_pairs(50, seed=2)
    for e, a in zip(exp, act, strict=True):
        assert em.corpus_bleu([e], [a], effective_order=True) == em.bleu(e, a)
        assert em.corpus_chrf([e], [a]) == em.chrf(e, a)


def test_corpus_of_nothing_is_zero() -> None:
    assert em.corpus_bleu([], []) == 0.0
    assert em.corpus_chrf([], []) == 0.0


@pytest.mark.parametrize(
    "fn",
    [
        lambda e, a, w: em.bleu_batch(e, a, workers=w),
        lambda e, a, w: em.chrf_batch(e, a, word_order=2, workers=w),
        lambda e, a, w: np.array([em.corpus_bleu(e, a, workers=w)]),
        lambda e, a, w: np.array([em.corpus_chrf(e, a, workers=w)]),
    ],
)
def test_workers_give_identical_bits(fn: Callable[[Any, Any, int | None], np.ndarray]) -> None:
    exp, act = workload.text_pairs(3000, seed=4)
    refs = multi_refs(exp, act)
    for e in (exp, refs):
        serial = fn(e, act, 1).tobytes()
        for w in (2, 3, -1, None):
            assert fn(e, act, w).tobytes() == serial, w


def test_text_columns_equal_lists() -> None:
    exp, act = workload.text_pairs(300, seed=6)
    ce, ca = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
    for name, fn in BATCHES.items():
        assert fn(ce, ca).tobytes() == fn(exp, act).tobytes(), name
    assert em.corpus_bleu(ce, ca) == em.corpus_bleu(exp, act)
    assert em.corpus_chrf(ce, ca) == em.corpus_chrf(exp, act)


def test_threads_equal_serial() -> None:
    exp, act = workload.text_pairs(400, seed=8)
    refs = multi_refs(exp, act)
    jobs = [(name, k) for k in range(6) for name in BATCHES]
    serial = {(n, k): BATCHES[n](refs[k * 30 :], act[k * 30 :], workers=1) for n, k in jobs}
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(
            pool.map(lambda job: BATCHES[job[0]](refs[job[1] * 30 :], act[job[1] * 30 :]), jobs)
        )
    for job, got in zip(jobs, results, strict=True):
        assert got.tobytes() == serial[job].tobytes(), job


def test_references_may_be_any_sequence() -> None:
    assert em.bleu(("a b c", "d e f"), "a b c") == em.bleu(["a b c", "d e f"], "a b c")
    rows: list[Any] = [("a b c",), ["x", "a b c"], "a b c"]
    assert em.bleu_batch(rows, ["a b c"] * 3).tolist() == [1.0, 1.0, 1.0]


def test_exported_from_the_metrics_face_only() -> None:
    for name in ("bleu", "bleu_batch", "corpus_bleu", "chrf", "chrf_batch", "corpus_chrf"):
        assert name in em.__all__
        assert name not in evalmark.__all__


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: em.bleu("a", 1), TypeError, "actual must be str, got int"),  # type: ignore[arg-type]
        (lambda: em.bleu(1, "a"), TypeError, "expected must be a str or a sequence of str"),  # type: ignore[arg-type]
        (lambda: em.bleu([], "a"), MetricInputError, "at least one reference"),
        (lambda: em.bleu(["a", 2], "a"), TypeError, r"reference 1 .*int"),  # type: ignore[list-item]
        (lambda: em.chrf([["a"]], "a"), TypeError, "reference 0"),  # type: ignore[list-item]
        (lambda: em.bleu_batch(["a"], ["a", "b"]), MetricInputError, "got 1 and 2"),
        (lambda: em.bleu_batch(["a", 5], ["a", "b"]), TypeError, "row 1 of expected"),  # type: ignore[list-item]
        (
            lambda: em.bleu_batch(["a", []], ["a", "b"]),
            MetricInputError,
            "row 1 of expected has no reference",
        ),
        (lambda: em.chrf_batch([["a", None]], ["a"]), TypeError, "row 0 of expected"),  # type: ignore[list-item]
        (lambda: em.chrf_batch(["a"], [None]), TypeError, "row 0 of actual"),  # type: ignore[list-item]
        (lambda: em.bleu_batch("ab", ["a", "b"]), TypeError, "single str"),  # type: ignore[arg-type]
        (
            lambda: em.corpus_bleu([["a", "b", "c"]], ["a", "b", "c"]),
            MetricInputError,
            "reference streams",
        ),
        (lambda: em.corpus_chrf(["a"], ["a", "b"]), MetricInputError, "got 1 and 2"),
        (lambda: em.bleu("a", "a", tokenize="ja-mecab"), MetricInputError, "ja-mecab"),  # type: ignore[arg-type]
        (lambda: em.bleu("a", "a", smooth_method="add-one"), MetricInputError, "smooth"),  # type: ignore[arg-type]
        (
            lambda: em.bleu("a", "a", smooth_method="floor", smooth_value=-1.0),
            MetricInputError,
            "smooth_value",
        ),
        (
            lambda: em.bleu("a", "a", smooth_method="exp", smooth_value=0.5),
            MetricInputError,
            "smooth_value",
        ),
        (lambda: em.chrf("a", "a", char_order=0, word_order=0), MetricInputError, "order"),
        (lambda: em.chrf("a", "a", char_order=-1), MetricInputError, "char_order"),
        (lambda: em.chrf("a", "a", beta=-1), MetricInputError, "beta"),
        (lambda: em.chrf("a", "a", word_order=1.5), TypeError, "word_order must be an int"),  # type: ignore[arg-type]
        (lambda: em.chrf("a", "a", lowercase="yes"), TypeError, "lowercase must be a bool"),  # type: ignore[arg-type]
        (lambda: em.bleu_batch(["a"], ["b"], workers=0), MetricInputError, "workers"),
    ],
)
def test_bad_input_gets_a_clear_error(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()
