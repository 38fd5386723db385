"""SQuAD v1.1 mode of token_f1 and squad_exact_match against a transcription of the v1.1
official script (evaluate-v1.1.py): the same normalize_answer as v2.0, but f1_score is 0 when
either side has no token, and every gold answer counts in the max (v2.0 drops answers that
normalize to nothing unless all do)."""

from __future__ import annotations

import re
import string
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.metrics import squad_exact_match, squad_exact_match_batch, token_f1, token_f1_batch


def _normalize(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def v11_f1(prediction: str, truth: str) -> float:
    pred, gold = _normalize(prediction).split(), _normalize(truth).split()
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred)
    recall = 1.0 * same / len(gold)
    return (2 * precision * recall) / (precision + recall)


def v11_exact(prediction: str, truth: str) -> bool:
    return _normalize(prediction) == _normalize(truth)


def v11_best(metric: object, prediction: str, truths: list[str]) -> float:
    return max(metric(prediction, t) for t in truths)  # type: ignore[operator]


ANSWERS = st.text(alphabet="ab the.,!  Théa", max_size=12)


def test_the_cases_where_the_versions_differ() -> None:
    # Both sides empty after normalization: v2.0 gives F1 1, v1.1 gives 0.
    assert token_f1("the", "a", version="v2") == 1.0
    assert token_f1("the", "a", version="v1.1") == 0.0
    # A gold answer that normalizes to nothing: v2.0 drops it when another gold has tokens.
    assert squad_exact_match(["The", "Paris"], "a", version="v2") is False
    assert squad_exact_match(["The", "Paris"], "a", version="v1.1") is True
    assert token_f1(["The", "Paris"], "Paris", version="v1.1") == 1.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(ANSWERS, min_size=1, max_size=3), ANSWERS), max_size=8))
def test_v11_equals_the_v11_script(rows: list[tuple[list[str], str]]) -> None:
    golds = [g for g, _ in rows]
    preds = [p for _, p in rows]
    f1 = token_f1_batch(golds, preds, version="v1.1").tolist()
    em = squad_exact_match_batch(golds, preds, version="v1.1").tolist()
    assert f1 == [float(v11_best(v11_f1, p, g)) for g, p in rows]
    assert em == [bool(v11_best(v11_exact, p, g)) for g, p in rows]
    for (g, p), f, e in zip(rows, f1, em, strict=True):
        assert token_f1(g, p, version="v1.1") == f
        assert token_f1(g[0], p, version="v1.1") == v11_f1(p, g[0])
        assert squad_exact_match(g, p, version="v1.1") is e
