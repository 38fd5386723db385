"""sacrebleu's option names on BLEU: the char and zh tokenizers and None references."""

from __future__ import annotations

import random

import pytest

import evalmark.metrics as em
from evalmark.errors import MetricInputError

sacrebleu = pytest.importorskip("sacrebleu")

PIECES = [
    "\u4e2d\u6587",
    "\u4e1c\u4eac\u3002",
    "ok",
    "Cat",
    "3,5",
    "a-b",
    "\u2001",
    "&quot;",
    "<skipped>",
    "\uff01",
    "\u2f81",
    "x.",
    "\u00e9t\u00e9",
]


def _rows(seed: int, n: int) -> tuple[list[list[str | None]], list[str]]:
    rng = random.Random(seed)

    def text() -> str:
        return "".join(
            rng.choice(PIECES) + rng.choice([" ", "", "  "]) for _ in range(rng.randint(0, 8))
        )

    refs = [[text() for _ in range(rng.randint(1, 3))] for _ in range(n)]
    for row in refs:
        if len(row) > 1 and rng.random() < 0.5:
            row[rng.randrange(len(row))] = None  # type: ignore[call-overload]
    return refs, [text() for _ in range(n)]  # type: ignore[return-value]


def _streams(refs: list[list[str | None]]) -> list[list[str | None]]:
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


@pytest.mark.parametrize("tokenize", ["char", "zh", "13a"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_tokenizers_and_none_references_equal_sacrebleu(tokenize: str, lowercase: bool) -> None:
    refs, hyps = _rows(7, 120)
    for row, hyp in zip(refs, hyps, strict=True):
        want = sacrebleu.sentence_bleu(
            hyp, [r for r in row if r is not None], tokenize=tokenize, lowercase=lowercase
        ).score
        assert em.bleu(row, hyp, tokenize=tokenize, lowercase=lowercase) == pytest.approx(  # type: ignore[arg-type]
            want / 100, abs=1e-12
        )
    want = sacrebleu.corpus_bleu(hyps, _streams(refs), tokenize=tokenize, lowercase=lowercase)
    got = em.corpus_bleu(refs, hyps, tokenize=tokenize, lowercase=lowercase)  # type: ignore[arg-type]
    assert got == pytest.approx(want.score / 100, abs=1e-12)
    batch = em.bleu_batch(refs, hyps, tokenize=tokenize, lowercase=lowercase)  # type: ignore[arg-type]
    assert batch.tolist() == [
        em.bleu(r, h, tokenize=tokenize, lowercase=lowercase)  # type: ignore[arg-type]
        for r, h in zip(refs, hyps, strict=True)
    ]


def test_text_column_with_a_pre_tokenizer() -> None:
    refs = ["\u4e2d\u6587 ok", "a b"]
    hyps = ["\u4e2d\u6587ok", "a b"]
    column = em.TextColumn.from_strings(refs)
    assert em.corpus_bleu(column, em.TextColumn.from_strings(hyps), tokenize="zh") == (
        em.corpus_bleu(refs, hyps, tokenize="zh")
    )


def test_a_row_of_only_none_references_is_refused() -> None:
    with pytest.raises(MetricInputError, match="row 1 of expected: every reference is None"):
        em.bleu_batch([["a"], [None]], ["a", "b"])  # type: ignore[list-item]


@pytest.mark.parametrize("tokenize", ["ja-mecab", "ko-mecab", "spm", "flores101", "flores200"])
def test_tokenizers_that_need_downloads_are_refused(tokenize: str) -> None:
    with pytest.raises(MetricInputError, match="native"):
        em.bleu("a", "a", tokenize=tokenize)  # type: ignore[arg-type]
