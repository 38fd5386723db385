"""Guardrail rates with ACCEPT as the positive class (the seed's definition) and the option to
name REJECT instead, pinned on one worked five-case example."""

from __future__ import annotations

import pytest

from evalmark.engine._scorer import Scorer
from evalmark.report import render_report
from evalmark.report._model import Report
from evalmark.samples._samples import Sample
from evalmark.strategies._guardrail import Guardrail

EXPECTED = ["ACCEPT", "ACCEPT", "ACCEPT", "REJECT", "REJECT"]
SAID = ["ACCEPT", "ACCEPT", "REJECT", "ACCEPT", "REJECT"]


def _report(strategy: Guardrail) -> Report:
    samples = [
        Sample(name=f"g{i}", parameters=[i], expected_output=e) for i, e in enumerate(EXPECTED)
    ]
    return Scorer().evaluate(samples, lambda i: SAID[i], strategy)


def test_accept_is_the_positive_class_by_default() -> None:
    # By hand, ACCEPT positive: g0, g1 are TP; g2 (ACCEPT said REJECT) is FN;
    # g3 (REJECT said ACCEPT) is FP; g4 is TN.
    tp, fn, fp, tn = 2, 1, 1, 1
    g = _report(Guardrail()).guardrails()["Guardrail"]
    assert g.positive == "ACCEPT"
    counts = (g.true_positive, g.false_negative, g.false_positive, g.true_negative)
    assert counts == (tp, fn, fp, tn)
    assert g.accuracy == pytest.approx((tp + tn) / 5) == pytest.approx(0.6)
    assert g.precision == pytest.approx(tp / (tp + fp)) == pytest.approx(2 / 3)
    assert g.recall == pytest.approx(tp / (tp + fn)) == pytest.approx(2 / 3)
    assert g.false_positive_rate == pytest.approx(fp / (fp + tn)) == pytest.approx(0.5)
    assert g.false_negative_rate == pytest.approx(fn / (fn + tp)) == pytest.approx(1 / 3)


def test_reject_as_positive_gives_the_old_numbers() -> None:
    # REJECT positive: g4 TP; g3 (REJECT said ACCEPT) FN; g2 (ACCEPT said REJECT) FP; g0, g1 TN.
    g = _report(Guardrail(positive="REJECT")).guardrails()["Guardrail"]
    assert (g.true_positive, g.false_negative, g.false_positive, g.true_negative) == (1, 1, 1, 2)
    assert g.false_positive_rate == pytest.approx(1 / 3)
    assert g.false_negative_rate == pytest.approx(1 / 2)
    assert g.precision == pytest.approx(1 / 2) and g.recall == pytest.approx(1 / 2)
    assert g.accuracy == pytest.approx(0.6)


def test_report_can_override_the_recorded_positive_class() -> None:
    report = _report(Guardrail())
    g = report.guardrails(positive="REJECT")["Guardrail"]
    assert g.positive == "REJECT" and g.false_positive_rate == pytest.approx(1 / 3)
    assert report.guardrails()["Guardrail"].to_dict()["positive"] == "ACCEPT"
    with pytest.raises(ValueError, match="positive must be"):
        report.guardrails(positive="accept")


def test_bad_positive_class_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="positive must be 'ACCEPT' or 'REJECT'"):
        Guardrail(positive="YES")  # type: ignore[arg-type]


def test_the_markdown_report_names_the_positive_class_in_use() -> None:
    from evalmark import Scorer
    from evalmark.samples._samples import Sample
    from evalmark.strategies import Guardrail

    samples = [Sample(name="a", parameters=["x"], expected_output="ACCEPT")]
    accept = render_report(Scorer().evaluate(samples, lambda x: "ACCEPT", Guardrail()), "markdown")
    assert "ACCEPT is the positive class." in accept
    reject = Scorer().evaluate(samples, lambda x: "ACCEPT", Guardrail(positive="REJECT"))
    assert "REJECT is the positive class." in render_report(reject, "markdown")
