"""The suite model: cases made of deterministic and judged checks, each with a known true verdict.

A deterministic check always reports its true verdict. A judged check reports its true verdict
except that, with its flip probability, the judge reports the opposite. A case passes when every
one of its checks is reported passing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from evalmark.noise._rates import check_probability


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a case: its true verdict, whether a judge decides it, and its own flip rate.

    ``flip_rate`` overrides the noise level given to the analysis for this check only; leave it
    ``None`` to use the level being studied. Deterministic checks ignore it.
    """

    name: str
    passes: bool
    judged: bool = False
    flip_rate: float | None = None

    def __post_init__(self) -> None:
        if self.flip_rate is not None:
            object.__setattr__(
                self,
                "flip_rate",
                check_probability(self.flip_rate, f"flip_rate of check {self.name!r}"),
            )


@dataclass(frozen=True, slots=True)
class Case:
    """A case of the suite: it passes when every check is reported passing."""

    name: str
    checks: tuple[Check, ...]


@dataclass(frozen=True, slots=True)
class BuildTruth:
    """A suite of cases, as the truth of one build (what a noise-free judge would report)."""

    cases: tuple[Case, ...]

    def __post_init__(self) -> None:
        if not self.cases:
            raise ValueError("a suite needs at least one case, got none")

    def __len__(self) -> int:
        return len(self.cases)

    @property
    def judged_checks(self) -> int:
        """The number of judged checks over all cases."""
        return sum(check.judged for case in self.cases for check in case.checks)

    @property
    def truly_failing_cases(self) -> int:
        """The number of cases with at least one check whose true verdict is a failure."""
        return sum(not all(check.passes for check in case.checks) for case in self.cases)

    @classmethod
    def from_verdicts(cls, rows: Iterable[tuple[str, str, bool, bool]]) -> BuildTruth:
        """Build a suite from ``(case name, check name, passed, judged)`` rows of a noise-free run.

        Cases keep the order of their first row; checks keep their order within a case.
        """
        grouped: dict[str, list[Check]] = {}
        for case_name, check_name, passed, judged in rows:
            grouped.setdefault(case_name, []).append(
                Check(name=check_name, passes=bool(passed), judged=bool(judged))
            )
        return cls(tuple(Case(name, tuple(checks)) for name, checks in grouped.items()))

    @classmethod
    def from_mapping(cls, truth: Mapping[str, Mapping[str, tuple[bool, bool]]]) -> BuildTruth:
        """Build a suite from ``{case: {check: (passed, judged)}}`` in the mapping's order."""
        return cls.from_verdicts(
            (case, check, passed, judged)
            for case, checks in truth.items()
            for check, (passed, judged) in checks.items()
        )


def builds_from_counts(
    cases: int, judged_checks: int, failing: int = 0, deterministic_checks: int = 0
) -> tuple[BuildTruth, BuildTruth]:
    """A healthy build and a regressed build of a suite described by counts.

    Every case has ``judged_checks`` judged and ``deterministic_checks`` deterministic checks. In
    the healthy build every check truly passes; in the regressed build ``failing`` cases (spread
    evenly over the suite) truly fail one check: a judged one when the case has any, otherwise a
    deterministic one.
    """
    _check_count(cases, "cases", minimum=1)
    _check_count(judged_checks, "judged_checks", minimum=0)
    _check_count(deterministic_checks, "deterministic_checks", minimum=0)
    _check_count(failing, "failing", minimum=0)
    if judged_checks + deterministic_checks == 0:
        raise ValueError(
            "each case needs at least one check: judged_checks and deterministic_checks are both 0"
        )
    if failing > cases:
        raise ValueError(f"failing must be at most cases ({cases}), got {failing}")
    broken = {math.floor((i + 0.5) * cases / failing) for i in range(failing)} if failing else set()

    def case(index: int, regressed: bool) -> Case:
        checks = [Check(f"judged-{j + 1}", True, judged=True) for j in range(judged_checks)]
        checks += [Check(f"check-{j + 1}", True) for j in range(deterministic_checks)]
        if regressed and index in broken:
            first = checks[0]
            checks[0] = Check(first.name, False, judged=first.judged)
        return Case(f"case-{index + 1}", tuple(checks))

    healthy = BuildTruth(tuple(case(i, regressed=False) for i in range(cases)))
    regressed = BuildTruth(tuple(case(i, regressed=True) for i in range(cases)))
    return healthy, regressed


def _check_count(value: int, name: str, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
