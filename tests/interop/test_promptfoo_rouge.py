"""promptfoo's ``rouge-n`` and ``not-rouge-n``: imported (config asserts, CSV ``__expected``,
results files) and re-scored with js-rouge's ROUGE-N, as promptfoo 0.123 scores them
(``n(output, value, {})``, threshold default 0.75, ``not-`` inverts the verdict and scores
1 - score)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.interop import read
from evalmark.strategies._js_rouge import js_rouge_n
from evalmark.strategies._promptfoo import PromptfooAsserts, promptfoo_assert_score

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"
REF = "The cat sat on the mat."


def test_rouge_n_scores_js_rouges_rouge_1_with_promptfoos_threshold() -> None:
    # tokens: The cat sat on the mat . (7) against The cat sat on . (5): 5 matches
    assert js_rouge_n("The cat sat on.", REF) == pytest.approx(2 * (5 / 5) * (5 / 7) / (1 + 5 / 7))
    ok, score = promptfoo_assert_score("rouge-n", "The cat sat on.", REF, None)
    assert ok and score == pytest.approx(5 / 6)  # 0.83 >= 0.75
    assert promptfoo_assert_score("rouge-n", "The cat sat on.", REF, 0.9) == (False, score)
    assert promptfoo_assert_score("rouge-n", "the CAT", REF, None)[0] is False  # case counts
    ok, inverted = promptfoo_assert_score("not-rouge-n", "The cat sat on.", REF, None)
    assert not ok and inverted == pytest.approx(1 - 5 / 6)
    # A dog . against 7 tokens: "." matches, P = 1/3, R = 1/7, F1 = 0.2; a threshold of 0 holds
    assert promptfoo_assert_score("rouge-n", "A dog.", REF, 0.0) == (True, pytest.approx(0.2))
    assert promptfoo_assert_score("not-rouge-n", "A dog.", REF, 0.0) == (False, pytest.approx(0.8))


@pytest.mark.parametrize(
    ("output", "value"), [("", REF), ("  ", REF), ("The cat", ""), ("The cat", ["The cat"])]
)
def test_what_promptfoo_errors_on_fails_the_assertion(output: str, value: object) -> None:
    assert promptfoo_assert_score("rouge-n", output, value, None) == (False, 0.0)


_WORD = st.sampled_from(["the", "The", "cat", "sat", "mat", "Dr.", "e.g.", "U.S.", "can't"])
_PUNCT = st.sampled_from([" ", " ", ". ", "! ", ", ", '"', "\n", "... ", " (", ") "])
_TEXT = st.lists(st.tuples(_WORD, _PUNCT), min_size=1, max_size=12).map(
    lambda pairs: "".join(w + p for w, p in pairs)
)


@given(_TEXT, _TEXT)
def test_rouge_n_invariants(candidate: str, reference: str) -> None:
    """A score in [0, 1]; symmetric (F1 of swapped precision and recall); 1 for a text against
    itself; the same with doubled spaces; an inverted assertion's
    score and verdict are the complement."""
    score = js_rouge_n(candidate, reference)
    assert 0.0 <= score <= 1.0
    assert score == pytest.approx(js_rouge_n(reference, candidate), abs=1e-12)
    assert js_rouge_n(candidate, candidate) == 1.0
    assert js_rouge_n(candidate.replace(" ", "  "), reference) == score
    ok, plain = promptfoo_assert_score("rouge-n", candidate, reference, 0.5)
    not_ok, inverted = promptfoo_assert_score("not-rouge-n", candidate, reference, 0.5)
    assert ok != not_ok and plain + inverted == pytest.approx(1.0)


def test_a_config_imports_rouge_n_asserts_and_csv_shorthand(tmp_path: Path) -> None:
    (tmp_path / "tests.csv").write_text(
        "animal,__expected\ncat,rouge-n: The cat sat on the mat.\ndog,not-rouge-n: A cat.\n",
        encoding="utf-8",
    )
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['Describe {{ animal }}']\n"
        "providers: [echo]\n"
        "tests:\n"
        "  - vars: {animal: cat}\n"
        "    assert:\n"
        "      - {type: rouge-n, value: The cat sat on the mat., threshold: 0.8}\n"
        "      - {type: not-rouge-n, value: A dog barked.}\n"
        "  - file://tests.csv\n",
        encoding="utf-8",
    )
    imported = read("promptfoo", config)
    first, csv_cat, csv_dog = imported.samples
    assert first.metadata["promptfoo-assert"] == [
        {"type": "rouge-n", "value": "The cat sat on the mat.", "threshold": 0.8},
        {"type": "not-rouge-n", "value": "A dog barked."},
    ]
    assert csv_cat.metadata["promptfoo-assert"] == [
        {"type": "rouge-n", "value": "The cat sat on the mat."}
    ]
    assert csv_dog.metadata["promptfoo-assert"] == [{"type": "not-rouge-n", "value": "A cat."}]
    assert imported.lost == ()
    result = PromptfooAsserts().evaluate(first, "The cat sat on.")
    assert result.passed and result.score == pytest.approx((5 / 6 + 1 - 2 / 9) / 2)  # "." matches
    failing = PromptfooAsserts().evaluate(first, "A dog.")
    assert not failing.passed and failing.metadata["failed"] == ["rouge-n", "not-rouge-n"]


def test_a_results_file_with_rouge_n_imports_and_rescores(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "results.json").read_text(encoding="utf-8"))
    for row in document["results"]["results"]:
        row["testCase"] = {**row["testCase"], "assert": [{"type": "rouge-n", "value": REF}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    imported = read("promptfoo", path)
    assert imported.lost == ()
    sample = imported.samples[0]
    assert sample.metadata["promptfoo-assert"] == [{"type": "rouge-n", "value": REF}]
    build = next(iter(imported.outputs))
    answer = imported.outputs[build][sample.name]
    result = PromptfooAsserts().evaluate(sample, answer)
    assert result.score == pytest.approx(js_rouge_n(answer, REF))
