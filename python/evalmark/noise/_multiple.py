"""Many comparisons at once: p-values adjusted for the family they belong to.

* Holm's step-down method controls the family-wise error rate (the chance of *any* false
  finding) at α: sort the m p-values, multiply the i-th smallest (from 0) by m − i, make the
  sequence non-decreasing, cap at 1.
* Benjamini–Hochberg controls the false discovery rate (the expected share of false findings
  among the findings) at α, for independent or positively dependent tests: multiply the i-th
  smallest (from 1) by m / i, make the sequence non-increasing from the largest down, cap at 1.

A comparison is a finding when its adjusted p-value is at most α. Adjusted values come back in
the order given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["ADJUSTMENTS", "adjust_p_values"]

Adjustment = Literal["holm", "bh"]
ADJUSTMENTS: dict[str, str] = {
    "holm": "Holm's step-down method (controls the family-wise error rate)",
    "bh": "Benjamini–Hochberg (controls the false discovery rate)",
}


def adjust_p_values(p_values: Sequence[float], method: Adjustment) -> list[float]:
    """The p-values adjusted by ``method`` (``holm`` or ``bh``), in the order given."""
    if method not in ADJUSTMENTS:
        raise ValueError(f"method must be one of {', '.join(ADJUSTMENTS)}, got {method!r}")
    for p in p_values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a p-value must be between 0 and 1, got {p!r}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    if method == "holm":
        running = 0.0
        for rank, index in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p_values[index]))
            adjusted[index] = running
    else:
        running = 1.0
        for rank in range(m - 1, -1, -1):
            index = order[rank]
            running = min(running, m * p_values[index] / (rank + 1))
            # m / (rank + 1) >= 1: rounding must not take a p-value below itself
            adjusted[index] = min(max(running, p_values[index]), 1.0)
    return adjusted
