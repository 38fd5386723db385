"""The bulk escaping of many texts, ASCII texts and others joined apart, equals the one-text
rules: whatever separators the texts hold, wherever their spaces and controls are."""

from __future__ import annotations

import random

import pytest

from evalmark.report._render.common import cell, cells, html_text, html_texts

_ASCII = list("ab  \t\n\x0b\x00\x1f\x7f|&<>\"'`^~#@%")
_OTHER = [*_ASCII, "é", "\u2e3b", "\u3000", "\x85", "\x9f", "🙂", "\udcff", "日"]


def _texts(rng: random.Random, alphabet: list[str], count: int, sizes: list[int]) -> list[str]:
    weights = [8, 8, 4] + [1] * (len(alphabet) - 3)
    return ["".join(rng.choices(alphabet, weights, k=rng.choice(sizes))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(30))
def test_many_mixed_texts_escape_as_one_text_each(seed: int) -> None:
    rng = random.Random(seed)
    sizes = [0, 1, 3, 10, 40] if seed % 2 else [5, 12]
    plain = _texts(rng, _ASCII, rng.choice([63, 64, 200]), sizes)
    other = [
        t + rng.choice(_OTHER[-8:]) for t in _texts(rng, _OTHER, rng.choice([63, 64, 200]), sizes)
    ]
    if seed % 5 == 0:  # every ASCII separator taken: the ASCII texts go with the shared one
        plain[:5] = ["`", "^", "~", "#", "@"]
    if seed % 3 == 0:  # free of separators and controls: the joined passes alone
        plain = [t.translate({ord(c): "a" for c in "`\t\n\x0b\x00\x1f\x7f"}) for t in plain]
        other = [t.replace("\u2e3b", "b") for t in other]
    texts = plain + other
    rng.shuffle(texts)
    for limit in (300, 8, 1):
        assert cells(texts, limit) == [cell(t, limit) for t in texts]
    assert html_texts(texts) == [html_text(t) for t in texts]
    assert cells(plain) == [cell(t) for t in plain]
    assert html_texts(plain) == [html_text(t) for t in plain]
