"""Levenshtein with a cut-off on long pairs against rapidfuzz, drawn by Hypothesis: pairs of 65
to 1,500 symbols a few edits around the cut-off apart, or unrelated, over ASCII and over mixed
alphabets (lone surrogates included), as lists of str and as text columns (whose lengths are
counted rather than read from the objects). Covers the short edit sequences (cut-offs up to 3),
the bounded runs that fill the match table as they go, and the length check before either."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em

ALPHABETS = ("ab", "abcdefghijklmnopqrstuvwxyz ", "a\u00e9\u6771 z\U0001f600\ud800", "\u00e9x")
CUTOFFS = (0, 1, 2, 3, 4, 5, 64, 100, 129, 300, 5000)


@st.composite
def long_pair(draw: st.DrawFn) -> tuple[str, str]:
    """A pair of long texts: the second some edits of the first (a count near a cut-off,
    sometimes bunched at one end), or unrelated."""
    alphabet = draw(st.sampled_from(ALPHABETS))
    n = draw(st.integers(65, 1500))
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    a = [rng.choice(alphabet) for _ in range(n)]
    if draw(st.booleans()) and draw(st.booleans()):
        m = draw(st.integers(max(0, n - 200), n + 200))
        return "".join(a), "".join(rng.choice(alphabet) for _ in range(m))
    edits = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 63, 64, 65, 99, 100, 101, 128, 130, 400]))
    span = draw(st.sampled_from([n, n // 8 + 1]))
    b = a[:span]
    for _ in range(edits):
        k, op = rng.randrange(len(b) + 1), rng.random()
        if op < 0.4 and k < len(b):
            b[k] = rng.choice(alphabet)
        elif op < 0.7 or k == len(b):
            b.insert(k, rng.choice(alphabet))
        else:
            del b[k]
    return "".join(a), "".join(b + a[span:])


@settings(max_examples=60, deadline=None)
@given(st.lists(long_pair(), min_size=1, max_size=12), st.sampled_from(CUTOFFS))
def test_long_pairs_under_a_cutoff_match_rapidfuzz(
    pairs: list[tuple[str, str]], cutoff: int
) -> None:
    exp, act = [e for e, _ in pairs], [a for _, a in pairs]
    want = [Levenshtein.distance(e, a, score_cutoff=cutoff) for e, a in pairs]
    assert em.levenshtein_distance_batch(exp, act, score_cutoff=cutoff).tolist() == want
    assert em.levenshtein_distance_batch(act, exp, score_cutoff=cutoff).tolist() == want
    if not any("\ud800" in t for t in exp + act):  # a column holds UTF-8 only
        columns = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
        assert em.levenshtein_distance_batch(*columns, score_cutoff=cutoff).tolist() == want
    assert [em.levenshtein_distance(e, a, score_cutoff=cutoff) for e, a in pairs] == want
    # Weights the lanes take as a multiple of the unit distance or of the Indel distance: only
    # the unit kind may take the short edit sequences.
    for weights in ((2, 2, 2), (1, 1, 2), (3, 3, 7)):
        want = [Levenshtein.distance(e, a, weights=weights, score_cutoff=cutoff) for e, a in pairs]
        got = em.levenshtein_distance_batch(exp, act, weights=weights, score_cutoff=cutoff)
        assert got.tolist() == want, weights
    # Without a cut-off, the same pairs in full.
    want = [Levenshtein.distance(e, a) for e, a in pairs]
    assert em.levenshtein_distance_batch(exp, act).tolist() == want


def test_lengths_in_code_points_decide_the_length_check() -> None:
    # Equal in bytes, far apart in code points (and the reverse): the check before the
    # kernel must count code points, lone surrogates as one each.
    exp = ["\U0001f600" * 100, "a" * 400, "\ud800" * 90 + "b", "é" * 70]
    act = ["a" * 400, "\U0001f600" * 100, "b" * 271, "e" * 140]
    pairs = list(zip(exp, act, strict=True))
    for cutoff in (0, 3, 50, 299, 300, 301):
        want = [Levenshtein.distance(e, a, score_cutoff=cutoff) for e, a in pairs]
        assert em.levenshtein_distance_batch(exp, act, score_cutoff=cutoff).tolist() == want
