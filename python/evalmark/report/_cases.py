"""The pass rate, evalmark's one definition of it: the share of **cases** that passed.

A case is one sample of one report. It passes when every one of its checks (strategies)
passed; it is an error when any check ended in an error, and an error never passes. So a
report of 4 samples under 2 checks has 4 cases, and a sample failing either check is a failed
case. Every gate (``require_pass_rate``, pytest's ``min_pass_rate``, the suite file's ``gate:``),
every baseline comparison and every written report uses this rate, a fraction in [0, 1],
printed as ``pass rate (cases): 75.0%``. The counts of single checks (evaluations: sample ×
check) are still given, as counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["DEFINITION", "CaseTally", "case_tally", "pass_rate_label"]

DEFINITION = "cases"  # what a pass rate counts, named in every output


def pass_rate_label(rate: float) -> str:
    """``pass rate (cases): 75.0%``: a rate printed with what it counts."""
    return f"pass rate ({DEFINITION}): {rate:.1%}"


@dataclass(frozen=True, slots=True)
class CaseTally:
    """Counts of a group of cases (all, one tag or one check) and their pass rate."""

    cases: int
    passed: int
    failed: int
    errors: int

    @property
    def pass_rate(self) -> float:
        """Passed cases / cases, in [0, 1] (0.0 for no cases)."""
        return self.passed / self.cases if self.cases else 0.0

    def __add__(self, other: CaseTally) -> CaseTally:
        return CaseTally(
            self.cases + other.cases,
            self.passed + other.passed,
            self.failed + other.failed,
            self.errors + other.errors,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "cases": self.cases,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "pass_rate": self.pass_rate,
        }


def case_tally(
    passed: Sequence[npt.NDArray[np.bool_]],
    errored: Sequence[npt.NDArray[np.bool_]],
    size: int,
    mask: npt.NDArray[np.bool_] | None = None,
) -> CaseTally:
    """The case counts of ``size`` samples given one ``passed`` and one ``errored`` array per
    check, over the samples ``mask`` selects (default: all). With no check, a case passes
    (nothing was asked of it), as a row's verdict says."""
    any_error = np.zeros(size, dtype=np.bool_)
    all_passed = np.ones(size, dtype=np.bool_)
    for ok, bad in zip(passed, errored, strict=True):
        any_error |= bad
        all_passed &= ok
    if mask is not None:
        any_error, all_passed = any_error[mask], all_passed[mask]
    n_errors = int(any_error.sum())
    n_passed = int((all_passed & ~any_error).sum())
    total = int(any_error.size)
    return CaseTally(total, n_passed, total - n_passed - n_errors, n_errors)
