"""Pass-rate gates: a gate "pass rate ≥ t" on n cases is the same as "at least k cases pass".

Several thresholds can name the same gate (with 12 cases, 0.85 and 0.90 both need 11 cases);
the analysis works on distinct gates and says which thresholds coincide.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Gate:
    """A threshold on the pass rate, with the number of passing cases it demands."""

    threshold: float
    min_passing: int
    cases: int
    same_gate_as: tuple[float, ...] = ()

    @property
    def label(self) -> str:
        """A short human name: "every case" or "pass rate≥0.90"."""
        if self.min_passing == self.cases:
            return "every case" if self.threshold >= 1.0 else f"pass rate≥{_fmt(self.threshold)}"
        return f"pass rate≥{_fmt(self.threshold)}"


def min_passing(threshold: float, cases: int) -> int:
    """The smallest number k of passing cases with ``k / cases >= threshold``.

    This is the one k-of-n rule of evalmark: every pass-rate gate (suite gates, per-tag gates,
    ``require_pass_rate``, ``assert_that``, pytest's ``min_pass_rate``, the command line, the noise
    tools) counts passes against it. ``k / cases`` is the float quotient (correctly rounded),
    so a threshold written as the rate itself holds at that rate: 9 of 10 meets 0.9, 1 of 3
    meets ``1 / 3``, and a threshold one float above ``k / cases`` needs ``k + 1``. With no
    cases the answer is 0.
    """
    t = _check_threshold(threshold)
    if isinstance(cases, bool) or not isinstance(cases, int) or cases < 0:
        raise ValueError(f"the number of cases must be a whole number >= 0, got {cases!r}")
    if cases == 0:
        return 0
    # ceil(t * cases) is within one of the answer; the quotient k / cases decides exactly.
    k = min(max(math.ceil(t * cases), 0), cases)
    while k > 0 and (k - 1) / cases >= t:
        k -= 1
    while k < cases and k / cases < t:
        k += 1
    return k


def passes(passed: int, total: int, threshold: float) -> bool:
    """True when ``passed`` of ``total`` meets the pass-rate ``threshold`` (see
    :func:`min_passing`). A group with no cases never passes: there is nothing to show."""
    if isinstance(passed, bool) or not isinstance(passed, int) or not 0 <= passed <= total:
        raise ValueError(f"passed must be a whole number between 0 and {total}, got {passed!r}")
    return total > 0 and passed >= min_passing(threshold, total)


def make_gates(cases: int, thresholds: Sequence[float] | None = None) -> tuple[Gate, ...]:
    """Gates for ``thresholds`` (default: every distinct gate, from "every case" down to 1 case).

    Thresholds keep the given order; each gate lists the other thresholds that demand the same
    number of passing cases.
    """
    if thresholds is None:
        thresholds = [k / cases for k in range(cases, 0, -1)]
    values = [_check_threshold(t) for t in thresholds]
    if not values:
        raise ValueError("thresholds must name at least one threshold, got none")
    needs = [min_passing(t, cases) for t in values]
    by_need: dict[int, list[float]] = {}
    for t, k in zip(values, needs, strict=True):
        by_need.setdefault(k, []).append(t)
    return tuple(
        Gate(t, k, cases, tuple(u for u in by_need[k] if u != t) if len(by_need[k]) > 1 else ())
        for t, k in zip(values, needs, strict=True)
    )


def parse_threshold(text: str) -> float:
    """Read a threshold: a number in [0, 1], a percentage such as "90%", or "every"/"all"."""
    cleaned = text.strip().lower()
    if cleaned in ("every", "all", "every-case", "every case"):
        return 1.0
    try:
        value = float(cleaned[:-1]) / 100 if cleaned.endswith("%") else float(cleaned)
    except ValueError:
        raise ValueError(
            f"threshold {text!r} is not a number: give a pass rate such as 0.9, 90% or 'every'"
        ) from None
    return _check_threshold(value)


def _check_threshold(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"a threshold must be a pass rate between 0 and 1, got {value!r}")
    t = float(value)
    if not 0.0 <= t <= 1.0:  # also refuses NaN
        raise ValueError(f"a threshold must be a pass rate between 0 and 1, got {value!r}")
    return t


def _fmt(threshold: float) -> str:
    text = f"{threshold:.2f}"
    return text if float(text) == threshold else f"{threshold:.4g}"
