"""The alignment as RapidFuzz's opcodes, and the edit distances over sequences of hashable items
(token lists), equal to RapidFuzz on generated and adversarial inputs."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Indel, Levenshtein

from evalmark import metrics
from evalmark.errors import MetricInputError

Seq = Sequence[Hashable]


def texts(seed: int, count: int, alphabet: str, most: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, most))) for _ in range(count)
    ]


def adversarial() -> list[tuple[str, str]]:
    """Pairs where many alignments are optimal, or the kernel's block and prefix boundaries."""
    rng = random.Random(9)
    long = "".join(rng.choice("ab") for _ in range(200))
    return [
        ("", ""),
        ("", "abc"),
        ("abc", ""),
        ("abc", "abc"),
        ("aaaa", "aa"),
        ("aa", "aaaa"),
        ("abab", "baba"),
        ("abcabc", "cbacba"),
        ("a" * 70, "b" * 65),
        ("x" + "a" * 130 + "y", "a" * 128),
        (long, long[5:] + "ab"),
        (long, long[::-1]),
        ("😀a😀b", "a😀😀"),
        ("kitten", "sitting"),
        ("ab" * 40, "ba" * 41),
    ]


def pairs() -> list[tuple[str, str]]:
    left = texts(1, 400, "ab", 12) + texts(3, 300, "abcdé東", 40) + texts(5, 30, "ab c", 300)
    right = texts(2, 400, "ab", 12) + texts(4, 300, "abcdé東", 40) + texts(6, 30, "ab c", 300)
    return list(zip(left, right, strict=True)) + adversarial()


def test_opcodes_are_rapidfuzzs() -> None:
    for a, b in pairs():
        got = metrics.levenshtein_editops(a, b, form="opcodes")
        assert got == Levenshtein.opcodes(a, b).as_list(), (a, b)
        # The default form is unchanged: the edits themselves.
        assert metrics.levenshtein_editops(a, b) == Levenshtein.editops(a, b).as_list()


def test_opcodes_cover_both_texts_and_rebuild_actual() -> None:
    for a, b in pairs()[:200]:
        blocks = metrics.levenshtein_editops(a, b, form="opcodes")
        rebuilt = "".join(
            a[s0:s1] if tag == "equal" else b[d0:d1] for tag, s0, s1, d0, d1 in blocks
        )
        assert rebuilt == b
        if a or b:
            assert blocks[0][1] == blocks[0][3] == 0
            assert (blocks[-1][2], blocks[-1][4]) == (len(a), len(b))


ITEMS: list[Hashable] = ["the", "cat", "a", "b", 1, -1, -2, 97, (1, 2), None, 1.5, "sat"]


def token_lists(seed: int, count: int, most: int = 12) -> list[list[Hashable]]:
    rng = random.Random(seed)
    return [[rng.choice(ITEMS) for _ in range(rng.randint(0, most))] for _ in range(count)]


def sequence_pairs() -> list[tuple[Seq, Seq]]:
    left, right = token_lists(11, 500), token_lists(12, 500)
    out: list[tuple[Seq, Seq]] = list(zip(left, right, strict=True))
    # Tuples, a text against a list (its characters against the items), and long lists.
    out += [(tuple(a), b) for a, b in out[:50]]
    out += [("abc", ["a", 97, "bc", "c"]), (["x", "y"], "xy"), ([], "ab"), ((), ())]
    out += list(zip(token_lists(13, 20, 200), token_lists(14, 20, 200), strict=True))
    return out


def test_sequences_of_items_are_compared_as_rapidfuzz_does() -> None:
    for a, b in sequence_pairs():
        assert metrics.levenshtein_distance(a, b) == Levenshtein.distance(a, b)
        assert metrics.levenshtein_distance(a, b, weights=(1, 2, 3)) == Levenshtein.distance(
            a, b, weights=(1, 2, 3)
        )
        assert metrics.levenshtein_distance(a, b, score_cutoff=2) == Levenshtein.distance(
            a, b, score_cutoff=2
        )
        assert metrics.levenshtein_normalized_distance(a, b) == (
            Levenshtein.normalized_distance(a, b)
        )
        assert metrics.indel_distance(a, b) == Indel.distance(a, b)
        assert metrics.indel_normalized_distance(a, b) == Indel.normalized_distance(a, b)
        assert metrics.levenshtein_similarity(a, b) == Levenshtein.normalized_similarity(a, b)
        assert metrics.levenshtein_editops(a, b) == Levenshtein.editops(a, b).as_list()
        assert metrics.levenshtein_editops(a, b, form="opcodes") == (
            Levenshtein.opcodes(a, b).as_list()
        )


def test_items_are_equal_where_rapidfuzz_makes_them_equal() -> None:
    # A one-character string is its code point; -1 and -2 differ although hash(-1) == -2.
    assert metrics.levenshtein_distance(["a"], [97]) == Levenshtein.distance(["a"], [97]) == 0
    assert metrics.levenshtein_distance([-1], [-2]) == Levenshtein.distance([-1], [-2]) == 1
    assert metrics.levenshtein_distance(["ab"], "ab") == Levenshtein.distance(["ab"], "ab") == 2


def test_lone_surrogates_are_items_like_any_other() -> None:
    cases: list[tuple[Seq, Seq]] = [
        (["\ud800", "a"], "\ud800b"),
        ("\udc00x", ["\udc00", "x", "yy"]),
        (["\ud800x", 1], ("\ud800x", 2)),
    ]
    for a, b in cases:
        assert metrics.levenshtein_distance(a, b) == Levenshtein.distance(a, b)
        assert metrics.levenshtein_editops(a, b) == Levenshtein.editops(a, b).as_list()


def test_batches_of_sequences_are_row_by_row() -> None:
    seq = sequence_pairs()
    left, right = [a for a, _ in seq], [b for _, b in seq]
    want = [Levenshtein.distance(a, b) for a, b in seq]
    assert metrics.levenshtein_distance_batch(left, right).tolist() == want
    assert metrics.indel_distance_batch(left, right).tolist() == [
        Indel.distance(a, b) for a, b in seq
    ]
    assert metrics.levenshtein_normalized_distance_batch(left, right).tolist() == [
        Levenshtein.normalized_distance(a, b) for a, b in seq
    ]
    assert metrics.indel_normalized_distance_batch(left, right).tolist() == [
        Indel.normalized_distance(a, b) for a, b in seq
    ]
    assert metrics.levenshtein_similarity_batch(left, right).tolist() == [
        Levenshtein.normalized_similarity(a, b) for a, b in seq
    ]


def test_cdist_and_extract_over_sequences_are_rapidfuzzs() -> None:
    queries, choices = token_lists(21, 40), [tuple(t) for t in token_lists(22, 60)]
    want = process.cdist(queries, choices, scorer=Levenshtein.distance)
    got = metrics.levenshtein_cdist(queries, choices, workers=1)
    assert got.dtype == np.int64 and got.tolist() == want.tolist()
    for query in queries[:15]:
        got_x = metrics.levenshtein_extract(query, choices, limit=5)
        assert got_x == process.extract(query, choices, scorer=Levenshtein.distance, limit=5)


def test_extract_with_limit_one_is_extract_one() -> None:
    queries, choices = texts(31, 60, "abc", 8), texts(32, 50, "abc", 8)
    for query in queries:
        want = process.extractOne(query, choices, scorer=Levenshtein.distance)
        assert metrics.levenshtein_extract(query, choices, limit=1) == [want]
        cut = process.extractOne(query, choices, scorer=Levenshtein.distance, score_cutoff=1)
        got = metrics.levenshtein_extract(query, choices, limit=1, score_cutoff=1)
        assert got == ([] if cut is None else [cut])


def test_many_distinct_items_skip_the_surrogates() -> None:
    # More distinct items than there are code points below the surrogates (0xD800).
    left = list(range(60_000))
    right = [*left[1:30_000], -5, *left[30_000:], "end"]
    assert metrics.levenshtein_distance(left, right) == Levenshtein.distance(left, right) == 3
    assert metrics.indel_distance(left, right) == Indel.distance(left, right) == 3


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: metrics.levenshtein_distance([["x"]], ["x"]), TypeError, "must be hashable"),
        (lambda: metrics.levenshtein_distance(5, "x"), TypeError, "expected must be a str"),
        (lambda: metrics.indel_distance("x", {"x"}), TypeError, "actual must be a str"),
        (lambda: metrics.levenshtein_editops("a", "b", form="blocks"), MetricInputError, "form"),
        (
            lambda: metrics.levenshtein_distance_batch([["a"], ["b"]], [["a"]]),
            MetricInputError,
            "equal length",
        ),
        (
            lambda: metrics.levenshtein_distance_batch([["a"], None], ["a", "b"]),
            TypeError,
            "row 1 of expected must be a str",
        ),
        (
            lambda: metrics.levenshtein_cdist(["a"], [["a"], 3]),
            TypeError,
            "row 1 of choices must be a str",
        ),
    ],
)
def test_bad_sequences_are_typed_errors(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]
