"""Holm and Benjamini–Hochberg adjusted p-values, against statsmodels' multipletests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from budget import examples
from evalmark.noise._multiple import adjust_p_values


@settings(max_examples=examples(60))
@given(p=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_matches_statsmodels(p: list[float]) -> None:
    for ours, theirs in (("holm", "holm"), ("bh", "fdr_bh")):
        expected = multipletests(p, method=theirs)[1]
        assert adjust_p_values(p, ours) == pytest.approx(list(expected), abs=1e-12)  # type: ignore[arg-type]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="holm, bh"):
        adjust_p_values([0.1], "bonferroni")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="between 0 and 1"):
        adjust_p_values([1.5], "holm")
