"""Pairs of texts for the edit-distance tests: an edited copy of a text (a few substitutions
and insertions), or another text, over a chosen alphabet and at chosen lengths (lane and block
boundaries)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import strategies as st


@st.composite
def edited_pairs(
    draw: st.DrawFn, alphabets: Sequence[str], sides: Sequence[int], max_edits: int = 12
) -> tuple[str, str]:
    """A text of one of ``sides`` characters from one of ``alphabets``, and either a copy of it
    with up to ``max_edits`` substitutions or insertions, or another such text."""
    alphabet = draw(st.sampled_from(alphabets))
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = rng.choices(alphabet, k=draw(st.sampled_from(sides)))
    if draw(st.booleans()):
        b = rng.choices(alphabet, k=draw(st.sampled_from(sides)))
    else:
        b = list(a)
        for _ in range(draw(st.integers(0, max_edits))):
            k = rng.randrange(len(b) + 1)
            if k < len(b) and rng.random() < 0.5:
                b[k] = rng.choice(alphabet)
            else:
                b.insert(k, rng.choice(alphabet))
    return "".join(a), "".join(b)
