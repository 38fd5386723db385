"""A bias battery for a pairwise judge: position swap, length-controlled pairs and
self-preference, each a paired difference with Newcombe's interval and a verdict.

Items are pairs of answers to one request (YAML, JSON or JSON Lines)::

    {"id": "refund", "inputs": "How long is the refund window?",
     "answer_a": "30 days.", "answer_b": "Refunds are possible.",
     "reference_outputs": "30 days from purchase.",        # optional
     "model_a": "gpt-4o-mini", "model_b": "claude-3-haiku", # optional, for self-preference
     "label": "A"}                                          # optional: the person's choice

The judge answers the catalog's ``pairwise`` prompt (``winner``: A, B or tie) three times per
item: as given, with the answers swapped, and with answer A padded by a restatement of itself
(same content, about twice the length). Every call is made inside
``call_context(sample=<id>, check=<test>)``, so a cassette recorded once replays the battery.

* **position**: x wins when shown first, against x wins when shown second (x is answer A);
  a judge without position bias gives a difference of 0. Flipped: items whose verdict is not
  mirrored by the swap (a tie that stays a tie is mirrored).
* **length**: padded x wins, against plain x wins (same order); flipped: the verdict changed.
* **self-preference**: on items where exactly one answer comes from the judge's family, the
  judge picks that answer, against the person picks it (needs ``label``); flipped: the two
  disagree.

A figure passes when its whole interval lies within the limit (for length and self-preference
only a preference for the longer or the own answer counts, for position both directions),
fails when its whole interval lies beyond it, and is inconclusive otherwise. An unreadable
reply leaves its item out of that test (counted in ``excluded``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evalmark._files.read import read_records, require_format
from evalmark._files.source import read_bytes
from evalmark.errors import CalibrationError, JudgeParseError, Problem
from evalmark.models._context import call_context
from evalmark.models._protocols import model_id_of
from evalmark.noise._paired import PairedDifference, newcombe_paired, paired_counts

__all__ = [
    "BiasFigure",
    "BiasItem",
    "BiasReport",
    "family_of",
    "load_bias_items",
    "padded",
    "run_bias_battery",
]

Winner = Literal["A", "B", "tie"]
Verdict = Literal["pass", "fail", "inconclusive", "not measured"]
_WINNERS = ("A", "B", "tie")
_MIRROR: Mapping[str, str] = {"A": "B", "B": "A", "tie": "tie"}
_OWN_KEYS = ("id", "inputs", "answer_a", "answer_b", "reference_outputs", "model_a", "model_b")
_PAD = "To restate the answer above in full:"
TESTS = ("position", "length", "self-preference")


@dataclass(frozen=True, slots=True)
class BiasItem:
    """One pair of answers to a request, with where they came from and a person's choice."""

    id: str
    inputs: str
    answer_a: str
    answer_b: str
    reference_outputs: str | None = None
    model_a: str | None = None
    model_b: str | None = None
    label: Winner | None = None


@dataclass(frozen=True, slots=True)
class BiasFigure:
    """One test of the battery: the paired difference, its limit and verdict, the items that
    flipped and those left out."""

    test: str
    difference: PairedDifference | None
    limit: float
    verdict: Verdict
    flipped: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The figure as JSON data."""
        return {
            "test": self.test,
            "difference": self.difference.to_dict() if self.difference else None,
            "limit": self.limit,
            "verdict": self.verdict,
            "flipped": list(self.flipped),
            "excluded": list(self.excluded),
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class BiasReport:
    """The battery's figures for one judge, and its verdicts as asked (by item and test)."""

    judge: str
    family: str
    figures: tuple[BiasFigure, ...]
    verdicts: Mapping[str, Mapping[str, Winner | None]] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """True when a figure's interval lies beyond its limit."""
        return any(f.verdict == "fail" for f in self.figures)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data."""
        return {
            "judge": self.judge,
            "family": self.family,
            "figures": [f.to_dict() for f in self.figures],
            "verdicts": {k: dict(v) for k, v in self.verdicts.items()},
        }


def family_of(model_id: str) -> str:
    """A model's family: the leading letters of its id after any provider prefix
    (``openai/gpt-4o-mini`` and ``gpt-4.1`` are both ``gpt``)."""
    name = model_id.rsplit("/", 1)[-1].strip().casefold()
    match = re.match(r"[a-z]+", name)
    return match.group(0) if match else name


def padded(text: str) -> str:
    """``text`` padded with a restatement of itself: the same content, about twice as long."""
    return f"{text}\n\n{_PAD} {text}"


# --------------------------------------------------------------------------- reading items


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def load_bias_items(path: str | Path) -> list[BiasItem]:
    """The pairs of a file (see the module docstring); :class:`CalibrationError` naming the
    file, line, item and field of every problem."""
    source = Path(path)
    fmt = require_format(source, CalibrationError)
    records = read_records(read_bytes(source, CalibrationError), str(source), fmt, CalibrationError)
    problems: list[Problem] = []
    items: list[BiasItem] = []
    seen: set[str] = set()
    for record in records:
        value = record.value
        ident = value.get("id") if isinstance(value, dict) else None
        where = f"item {record.index + 1}" + (f" ({ident!r})" if isinstance(ident, str) else "")

        def problem(
            message: str, key: str | None = None, _r: Any = record, _w: str = where
        ) -> None:
            line = _r.position((key,))[0] if key else _r.line
            problems.append(
                Problem(
                    message, path=str(source), line=line, record=_w + (f".{key}" if key else "")
                )
            )

        if not isinstance(value, dict):
            problem("each item is a mapping: id, inputs, answer_a, answer_b")
            continue
        missing = [
            k for k in ("id", "inputs", "answer_a", "answer_b") if _text(value.get(k)) is None
        ]
        for key in missing:
            problem("expected non-empty text", key)
        unknown = [k for k in value if k not in (*_OWN_KEYS, "label", "note")]
        for key in unknown:
            problem(f"unknown field; the fields are {', '.join(_OWN_KEYS)}, label, note", key)
        label = value.get("label")
        if label is not None and label not in _WINNERS:
            problem(f"expected A, B or tie, got {label!r}", "label")
        if isinstance(ident, str) and ident in seen:
            problem("the id appears twice", "id")
        if missing or unknown or (label is not None and label not in _WINNERS):
            continue
        seen.add(str(ident))
        items.append(
            BiasItem(
                str(ident),
                value["inputs"],
                value["answer_a"],
                value["answer_b"],
                _text(value.get("reference_outputs")),
                _text(value.get("model_a")),
                _text(value.get("model_b")),
                label,
            )
        )
    if problems:
        raise CalibrationError(problems)
    if not items:
        raise CalibrationError([Problem("holds no pairs", path=str(source))])
    return items


# --------------------------------------------------------------------------- running


def _verdict(difference: PairedDifference, limit: float, both_ways: bool) -> Verdict:
    low, high = difference.low, difference.high
    if both_ways:
        if -limit <= low and high <= limit:
            return "pass"
        return "fail" if low > limit or high < -limit else "inconclusive"
    if high <= limit:
        return "pass"
    return "fail" if low > limit else "inconclusive"


def _figure(
    test: str,
    outcomes: Sequence[tuple[str, bool, bool, bool]],
    excluded: Sequence[str],
    limit: float,
    confidence: float,
    *,
    both_ways: bool,
    note: str = "",
) -> BiasFigure:
    """A figure from ``(id, first, second, flipped)`` outcomes."""
    if not outcomes:
        why = note or "no item could be measured"
        return BiasFigure(test, None, limit, "not measured", (), tuple(excluded), why)
    counts = paired_counts((first, second) for _, first, second, _ in outcomes)
    difference = newcombe_paired(*counts, confidence=confidence)
    flipped = tuple(ident for ident, _, _, changed in outcomes if changed)
    verdict = _verdict(difference, limit, both_ways)
    return BiasFigure(test, difference, limit, verdict, flipped, tuple(excluded), note)


def run_bias_battery(
    items: Sequence[BiasItem],
    model: Any,
    *,
    limits: Mapping[str, float] | None = None,
    confidence: float = 0.95,
    judge_family: str | None = None,
    mode: str = "auto",
    params: Mapping[str, Any] | None = None,
) -> BiasReport:
    """Ask the judge ``model`` the pairwise prompt for every item (as given, swapped, padded)
    and measure the battery (see the module docstring). ``limits`` by test (default 0.1)."""
    from evalmark.strategies._llm_judge import LLMJudge

    judge = LLMJudge("pairwise", model, mode=mode, params=params)  # type: ignore[arg-type]
    chosen = {name: 0.1 for name in TESTS} | dict(limits or {})

    def ask(item: BiasItem, check: str, first: str, second: str) -> Winner | None:
        values = {"inputs": item.inputs, "answer_a": first, "answer_b": second}
        if item.reference_outputs is not None:
            values["reference_outputs"] = item.reference_outputs
        with call_context(sample=item.id, check=check):
            try:
                winner = judge.grade(**values).reply.get("winner")
            except JudgeParseError:
                return None
        return winner if winner in _WINNERS else None

    verdicts: dict[str, dict[str, Winner | None]] = {}
    for item in items:
        verdicts[item.id] = {
            "given": ask(item, "bias:given", item.answer_a, item.answer_b),
            "swapped": ask(item, "bias:swapped", item.answer_b, item.answer_a),
            "padded": ask(item, "bias:padded", padded(item.answer_a), item.answer_b),
        }
    judge_id = model_id_of(model)
    family = judge_family or family_of(judge_id)
    figures = (
        _position(items, verdicts, chosen["position"], confidence),
        _length(items, verdicts, chosen["length"], confidence),
        _self(items, verdicts, family, chosen["self-preference"], confidence),
    )
    return BiasReport(judge_id, family, figures, verdicts)


Verdicts = Mapping[str, Mapping[str, Winner | None]]


def _split(
    items: Sequence[BiasItem],
    verdicts: Verdicts,
    keys: tuple[str, str],
    outcome: Callable[[BiasItem, Winner, Winner], tuple[bool, bool, bool] | None],
) -> tuple[list[tuple[str, bool, bool, bool]], list[str]]:
    measured: list[tuple[str, bool, bool, bool]] = []
    excluded: list[str] = []
    for item in items:
        one, two = (verdicts[item.id][k] for k in keys)
        if one is None or two is None:
            excluded.append(item.id)
            continue
        found = outcome(item, one, two)
        if found is not None:
            measured.append((item.id, *found))
    return measured, excluded


def _position(
    items: Sequence[BiasItem], verdicts: Verdicts, limit: float, conf: float
) -> BiasFigure:
    measured, excluded = _split(
        items,
        verdicts,
        ("given", "swapped"),
        lambda _, given, swapped: (given == "A", swapped == "B", _MIRROR[swapped] != given),
    )
    return _figure("position", measured, excluded, limit, conf, both_ways=True)


def _length(items: Sequence[BiasItem], verdicts: Verdicts, limit: float, conf: float) -> BiasFigure:
    measured, excluded = _split(
        items,
        verdicts,
        ("padded", "given"),
        lambda _, pad, given: (pad == "A", given == "A", pad != given),
    )
    return _figure("length", measured, excluded, limit, conf, both_ways=False)


def _own_side(item: BiasItem, family: str) -> Winner | None:
    """The side of the judge's family when exactly one answer is of it."""
    if item.model_a is None or item.model_b is None:
        return None
    own_a, own_b = family_of(item.model_a) == family, family_of(item.model_b) == family
    if own_a == own_b:
        return None
    return "A" if own_a else "B"


def _self(
    items: Sequence[BiasItem], verdicts: Verdicts, family: str, limit: float, conf: float
) -> BiasFigure:
    eligible = [i for i in items if _own_side(i, family) is not None and i.label is not None]

    def outcome(item: BiasItem, given: Winner, _: Winner) -> tuple[bool, bool, bool]:
        own = _own_side(item, family)
        return given == own, item.label == own, (given == own) != (item.label == own)

    measured, excluded = _split(eligible, verdicts, ("given", "given"), outcome)
    note = (
        ""
        if eligible
        else (
            f"no item pairs an answer of the judge's family ({family}) with another family's and "
            "carries a person's label"
        )
    )
    return _figure("self-preference", measured, excluded, limit, conf, both_ways=False, note=note)
