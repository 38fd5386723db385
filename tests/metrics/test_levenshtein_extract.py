"""`levenshtein_extract`, whose cut-off tightens as the best matches fill up, and the weighted
`levenshtein_cdist` over texts decoded once, against RapidFuzz: many ties (choices that are
copies of the query with a few edits), limits below, at and past the number of choices,
cut-offs, weights that are unit costs or Indel costs times a factor and any others, queries
past a vector lane (64 code points), several shares of choices, one and two workers."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from evalmark import metrics

ALPHABETS = ["abc ", "aé東京x", "\U0001f600q\U0010ffffé", "ab\u00e9\u4e00\U0001f300"]
LENGTHS = [0, 1, 5, 16, 40, 63, 64, 65, 130]
WEIGHTS = [(1, 1, 1), (3, 3, 3), (2, 2, 4), (2, 2, 7), (1, 2, 3), (3, 1, 1), (0, 0, 1), (1, 1, 0)]


def edited(rng: random.Random, text: list[str], alphabet: str, edits: int) -> list[str]:
    """``text`` with ``edits`` random substitutions, insertions and deletions."""
    out = list(text)
    for _ in range(edits):
        k = rng.randrange(len(out) + 1)
        op = rng.random()
        if op < 0.4 and k < len(out):
            out[k] = rng.choice(alphabet)
        elif op < 0.7 or k == len(out):
            out.insert(k, rng.choice(alphabet))
        else:
            del out[k]
    return out


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """A query and choices: about half are copies of it with up to three edits (ties), the
    others unrelated texts of any length."""
    alphabet = draw(st.sampled_from(ALPHABETS))
    rng = random.Random(draw(st.integers(0, 2**32)))
    query = [rng.choice(alphabet) for _ in range(draw(st.sampled_from(LENGTHS)))]
    choices = []
    for _ in range(draw(st.sampled_from([0, 1, 7, 300, 700]))):
        if rng.random() < 0.5:
            choices.append(edited(rng, query, alphabet, rng.randint(0, 3)))
        else:
            size = rng.choice(LENGTHS) + rng.randint(0, 3)
            choices.append([rng.choice(alphabet) for _ in range(size)])
    return query, choices


@settings(max_examples=60, deadline=None)
@given(
    cases(),
    st.sampled_from([None, 0, 1, 3, 5, 50, 1000]),
    st.sampled_from(WEIGHTS),
    st.sampled_from([None, 0, 2, 6, 40]),
    st.sampled_from([1, 2]),
)
def test_extract_equals_rapidfuzz(
    case: tuple[list[str], list[list[str]]],
    limit: int | None,
    weights: tuple[int, int, int],
    cutoff: int | None,
    workers: int,
) -> None:
    query, choices = "".join(case[0]), ["".join(c) for c in case[1]]
    want = process.extract(
        query,
        choices,
        scorer=Levenshtein.distance,
        scorer_kwargs={"weights": weights},
        limit=limit,
        score_cutoff=cutoff,
    )
    got = metrics.levenshtein_extract(
        query, choices, limit=limit, weights=weights, score_cutoff=cutoff, workers=workers
    )
    assert got == [tuple(x) for x in want][: len(choices) if limit is None else limit]
    # Sequences of items: the choices given back are the caller's objects.
    tokens = [tuple(c) for c in case[1]]
    got = metrics.levenshtein_extract(case[0], tokens, limit=limit, score_cutoff=cutoff)
    want = process.extract(
        case[0], tokens, scorer=Levenshtein.distance, limit=limit, score_cutoff=cutoff
    )
    assert got == [tuple(x) for x in want][: len(tokens) if limit is None else limit]
    assert all(c is tokens[j] for c, _, j in got)


def test_extract_skips_the_choices_its_cutoff_rules_out() -> None:
    # The query itself comes first: with limit=1 nothing after it can be nearer, so the long
    # choices behind it are never scored (before, every choice was).
    rng = random.Random(5)
    query = "".join(rng.choice("abcd") for _ in range(500))
    choices = [query] + ["".join(rng.choice("abcd") for _ in range(500)) for _ in range(200)]
    before = metrics.work_done()
    matrix = metrics.levenshtein_cdist([query], choices, workers=1)
    full = metrics.work_done() - before
    before = metrics.work_done()
    got = metrics.levenshtein_extract(query, choices, limit=1, workers=1)
    assert got == [(query, 0, 0)] and matrix[0, 0] == 0
    assert metrics.work_done() - before < full // 20
    # A cut-off from the best so far: choices whose lengths differ by more are not scored.
    far = [query[: 100 + k] for k in range(200)]
    before = metrics.work_done()
    got = metrics.levenshtein_extract(query, [query[:-1], *far], limit=1, workers=1)
    assert got == [(query[:-1], 1, 0)]
    assert metrics.work_done() - before < full // 20


@st.composite
def matrices(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    alphabet = draw(st.sampled_from(ALPHABETS))
    rng = random.Random(draw(st.integers(0, 2**32)))
    base = [rng.choice(alphabet) for _ in range(draw(st.sampled_from(LENGTHS)))]

    def some(count: int) -> list[str]:
        return [
            "".join(
                edited(rng, base, alphabet, rng.randint(0, 4))
                if rng.random() < 0.5
                else [rng.choice(alphabet) for _ in range(rng.choice(LENGTHS))]
            )
            for _ in range(count)
        ]

    return some(draw(st.integers(0, 12))), some(draw(st.integers(0, 30)))


@settings(max_examples=80, deadline=None)
@given(
    matrices(),
    st.sampled_from(WEIGHTS),
    st.sampled_from([None, 0, 3, 20]),
    st.sampled_from([1, 2]),
)
def test_weighted_cdist_equals_rapidfuzz(
    sides: tuple[list[str], list[str]],
    weights: tuple[int, int, int],
    cutoff: int | None,
    workers: int,
) -> None:
    queries, choices = sides
    want = np.asarray(
        process.cdist(
            queries,
            choices,
            scorer=Levenshtein.distance,
            scorer_kwargs={"weights": weights},
            score_cutoff=cutoff,
            dtype=np.int64,
        )
    ).reshape(len(queries), len(choices))
    got = metrics.levenshtein_cdist(
        queries, choices, weights=weights, score_cutoff=cutoff, workers=workers
    )
    np.testing.assert_array_equal(got, want)


def test_a_limit_or_cutoff_past_a_machine_word_changes_nothing() -> None:
    choices = ["abc", "a", "abd", ""]
    want = metrics.levenshtein_extract("ab", choices, limit=None)
    assert want == [("abc", 1, 0), ("a", 1, 1), ("abd", 1, 2), ("", 2, 3)]
    huge = 10**30
    assert metrics.levenshtein_extract("ab", choices, limit=huge, score_cutoff=huge) == want
