"""Properties of a calibration over generated labelled items and an offline rule judge: a
``CalibrationSet`` calibrates as the tuple of its items does, naming its source; the
``CalibrationResult`` keeps every item in order with its label; its true-pass and true-fail
rates count the items labelled pass and fail; and its disagreements are exactly its false
passes and false fails."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.calibration import CalibrationResult, CalibrationSet, LabelledItem, calibrate
from evalmark.models import RuleJudge

OUTPUTS = st.sampled_from(
    ["Thanks!", "You idiot.", "Get lost, loser.", "Glad to help.", "", "é \u202e 名"]
)
ITEMS = st.lists(st.tuples(OUTPUTS, st.booleans()), min_size=1, max_size=12).map(
    lambda pairs: tuple(
        LabelledItem(f"i{n}", "toxicity", {"outputs": output}, label)
        for n, (output, label) in enumerate(pairs)
    )
)


@settings(max_examples=examples(60), deadline=None)
@given(ITEMS)
def test_a_calibration_counts_every_item_once_by_its_label(items: tuple[LabelledItem, ...]) -> None:
    labelled = CalibrationSet(items, source="generated")
    result = calibrate(labelled, RuleJudge())
    assert isinstance(result, CalibrationResult)
    assert result.source == "generated"
    assert replace(result, source="") == calibrate(items, RuleJudge())
    assert len(labelled) == len(items) and tuple(labelled) == items
    assert [(o.id, o.label) for o in result.items] == [(i.id, i.label) for i in items]
    assert result.errors == 0 and result.counted == result.items
    passing = sum(i.label for i in items)
    assert result.true_pass.trials == passing and result.true_fail.trials == len(items) - passing
    assert result.true_pass.hits == sum(o.label and o.verdict is True for o in result.items)
    assert result.true_fail.hits == sum(not o.label and o.verdict is False for o in result.items)
    wrong = result.disagreements()
    assert len(wrong) == result.false_pass[0] + result.false_fail[0]
    assert [o.id for o in wrong] == [o.id for o in result.items if o.verdict != o.label]
