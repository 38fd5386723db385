"""Scoring a judge against human labels: :func:`calibrate`.

Each labelled item is judged once by an :class:`~evalmark.strategies._llm_judge.LLMJudge` with
the item's prompt (inside ``call_context(sample=<item id>, check=<prompt>)``, so cassettes and
``NoisyJudge`` work as in an evaluation). A reply that cannot be read, or a failed call,
counts as a fail, as a gate would see it (``errors="exclude"`` leaves such items out).

The result holds the confusion matrix (rows the label, columns the judge), accuracy, Cohen's
kappa, the true-pass rate (of the items people passed, the share the judge passed) and the
true-fail rate, each with a Wilson interval, and the judge's false-pass and false-fail counts,
which :meth:`CalibrationResult.judge_rates` gives as :class:`evalmark.noise.JudgeRates`, the
rates file that ``evalmark tune`` reads (:func:`evalmark.noise.write_rates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalmark._tracing._direct import engine_run
from evalmark.calibration._agreement import Agreement, Rate, agreement, rate
from evalmark.calibration._labels import CalibrationSet, LabelledItem
from evalmark.models._context import call_context
from evalmark.models._protocols import model_id_of
from evalmark.noise._rates import RATES_FILE, JudgeRates, RateCounts
from evalmark.strategies._llm_judge import LLMJudge

__all__ = [
    "RATES_FILE",
    "CalibrationResult",
    "ItemOutcome",
    "calibrate",
]

ErrorPolicy = Literal["fail", "exclude"]


@dataclass(frozen=True, slots=True)
class ItemOutcome:
    """One item judged: its id, prompt, the human label, the judge's verdict (None when the
    call or its reply failed), the judge's reasoning, and the error message if any."""

    id: str
    prompt: str
    label: bool
    verdict: bool | None
    reasoning: str = ""
    error: str = ""

    @property
    def agrees(self) -> bool:
        """True when the judge gave the label's verdict."""
        return self.verdict is not None and self.verdict == self.label


@dataclass(frozen=True, slots=True)
class CalibrationResult:
    """A judge measured against labels; see the module docstring."""

    judge: str
    source: str
    items: tuple[ItemOutcome, ...]
    agreement: Agreement
    true_pass: Rate
    true_fail: Rate
    errors: int
    error_policy: str

    @property
    def counted(self) -> tuple[ItemOutcome, ...]:
        """The items in the figures (all, unless errors are excluded)."""
        if self.error_policy == "exclude":
            return tuple(i for i in self.items if i.verdict is not None)
        return self.items

    @property
    def false_pass(self) -> tuple[int, int]:
        """(items people failed and the judge passed, items people failed)."""
        return self.true_fail.trials - self.true_fail.hits, self.true_fail.trials

    @property
    def false_fail(self) -> tuple[int, int]:
        """(items people passed and the judge failed, items people passed)."""
        return self.true_pass.trials - self.true_pass.hits, self.true_pass.trials

    def disagreements(self) -> list[ItemOutcome]:
        """The items where the judge did not give the label's verdict, in file order."""
        return [i for i in self.counted if not i.agrees]

    def judge_rates(self) -> JudgeRates:
        """The false-pass and false-fail counts as the rates ``evalmark tune`` uses."""
        return JudgeRates(
            false_pass=RateCounts(*self.false_pass),
            false_fail=RateCounts(*self.false_fail),
            source=(
                f"evalmark judge calibrate {self.source} (judge {self.judge}, "
                f"{len(self.counted)} labelled items)"
            ),
        )

    def rates_document(self) -> dict[str, Any]:
        """The rates file's document (:meth:`JudgeRates.to_dict`)."""
        return self.judge_rates().to_dict()

    def to_dict(self) -> dict[str, Any]:
        """Everything measured, JSON-ready."""
        a = self.agreement

        def shown(r: Rate) -> dict[str, Any]:
            return {
                "hits": r.hits,
                "trials": r.trials,
                "rate": r.value,
                "low": r.low,
                "high": r.high,
            }

        return {
            "judge": self.judge,
            "source": self.source,
            "items": len(self.items),
            "counted": len(self.counted),
            "errors": self.errors,
            "error_policy": self.error_policy,
            "accuracy": a.accuracy,
            "kappa": a.kappa,
            "confusion": {
                "labels": ["pass" if v else "fail" for v in a.labels],
                "matrix": [list(row) for row in a.matrix],
            },
            "true_pass_rate": shown(self.true_pass),
            "true_fail_rate": shown(self.true_fail),
            "rates": self.rates_document(),
            "disagreements": [
                {
                    "id": i.id,
                    "prompt": i.prompt,
                    "label": "pass" if i.label else "fail",
                    "judge": None if i.verdict is None else ("pass" if i.verdict else "fail"),
                    "reasoning": i.reasoning,
                    "error": i.error,
                }
                for i in self.disagreements()
            ],
        }


def _judge_one(judge: LLMJudge, item: LabelledItem) -> ItemOutcome:
    # a calibration measures the judge against labels: its calls are not evaluations to record
    with call_context(run_index=0, sample=item.id, check=item.prompt, repeat=0), engine_run():
        try:
            outcome = judge.grade(**item.values)
        except Exception as exc:  # an unreadable reply or a failed call: recorded, not raised
            return ItemOutcome(
                item.id, item.prompt, item.label, None, "", f"{type(exc).__name__}: {exc}"
            )
    return ItemOutcome(item.id, item.prompt, item.label, outcome.passed, outcome.reasoning)


def calibrate(
    labels: CalibrationSet | Sequence[LabelledItem],
    model: Any,
    *,
    score: str | None = None,
    choices: Sequence[float] | None = None,
    reasoning: bool = True,
    mode: str = "auto",
    threshold: float = 0.5,
    errors: ErrorPolicy = "fail",
    few_shot: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    confidence: float = 0.95,
) -> CalibrationResult:
    """Judge every labelled item with ``model`` and measure the agreement (see the module
    docstring). The judge options are those of ``LLMJudge``; ``few_shot`` maps a prompt name
    to its worked examples."""
    if errors not in ("fail", "exclude"):
        raise ValueError(f"errors must be 'fail' or 'exclude', got {errors!r}")
    items = tuple(labels)
    if not items:
        raise ValueError("the calibration set has no items")
    judges: dict[str, LLMJudge] = {}
    outcomes: list[ItemOutcome] = []
    for item in items:
        judge = judges.get(item.prompt)
        if judge is None:
            judge = LLMJudge(
                item.prompt,
                model,
                score=score,
                choices=choices,
                reasoning=reasoning,
                mode=mode,  # type: ignore[arg-type]
                threshold=threshold,
                few_shot=(few_shot or {}).get(item.prompt, ()),
            )
            judges[item.prompt] = judge
        outcomes.append(_judge_one(judge, item))
    failed = sum(o.verdict is None for o in outcomes)
    if failed == len(outcomes):
        raise ValueError(
            "every judge call failed, nothing to measure; the first: "
            + outcomes[0].error.split("\n", 1)[0]
        )
    counted = [o for o in outcomes if o.verdict is not None] if errors == "exclude" else outcomes
    truth = [o.label for o in counted]
    verdicts = [bool(o.verdict) for o in counted]
    measured = agreement(truth, verdicts, labels=(True, False))
    passed_by_people = [v for t, v in zip(truth, verdicts, strict=True) if t]
    failed_by_people = [v for t, v in zip(truth, verdicts, strict=True) if not t]
    source = labels.source if isinstance(labels, CalibrationSet) else ""
    return CalibrationResult(
        judge=model_id_of(model),
        source=source,
        items=tuple(outcomes),
        agreement=measured,
        true_pass=rate(sum(passed_by_people), len(passed_by_people), confidence),
        true_fail=rate(
            len(failed_by_people) - sum(failed_by_people), len(failed_by_people), confidence
        ),
        errors=failed,
        error_policy=errors,
    )
