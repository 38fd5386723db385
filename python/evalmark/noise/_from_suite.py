"""The noise model of a suite file, from plain data about its two recorded builds.

The command line runs the suite (replaying each build with a noise-free judge) and hands over,
for each build, one ``(case, check, passed, judged)`` row per check of every case; here those
rows become the two ``BuildTruth`` values ``tune`` compares, after checking that they describe the
same cases and checks. Nothing here reads files or knows the suite format.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evalmark.noise._gates import min_passing
from evalmark.noise._suite import BuildTruth

__all__ = ["SuiteBuilds", "VerdictRow", "builds_from_rows", "pick_builds"]

VerdictRow = tuple[str, str, bool, bool]  # (case, check, true verdict passed, judged)


@dataclass(frozen=True, slots=True)
class SuiteBuilds:
    """The truth of a suite's healthy and regressed build, with what the report says of them."""

    healthy: BuildTruth
    regressed: BuildTruth
    healthy_name: str
    regressed_name: str
    gate: float | None  # the suite's pass-rate threshold, if it has one

    @property
    def gate_min_passing(self) -> int | None:
        """The number of passing cases the suite's own gate demands (the one k-of-n rule)."""
        return None if self.gate is None else min_passing(self.gate, len(self.healthy))


def pick_builds(
    names: Sequence[str], healthy: str | None = None, regressed: str | None = None
) -> tuple[str, str]:
    """The healthy and the regressed build among a suite's recorded ``names``.

    Asked-for names must exist; otherwise ``healthy`` / ``regressed`` when the suite records
    builds of those names, else the first and the second build.
    """

    def pick(wanted: str | None, usual: str, position: int) -> str:
        if wanted is not None:
            if wanted not in names:
                raise ValueError(
                    f"no build named {wanted!r}; the suite records: {', '.join(names) or 'none'}"
                )
            return wanted
        if usual in names:
            return usual
        if len(names) <= position:
            raise ValueError(
                "the suite needs two recorded builds (a healthy and a regressed one) to tune; "
                f"it records {', '.join(names) or 'none'}"
            )
        return names[position]

    chosen = pick(healthy, "healthy", 0), pick(regressed, "regressed", 1)
    if chosen[0] == chosen[1]:
        raise ValueError(
            f"the healthy and the regressed build are both {chosen[0]!r}: name two different "
            "builds with --healthy and --regressed"
        )
    return chosen


def builds_from_rows(
    healthy_rows: Iterable[VerdictRow],
    regressed_rows: Iterable[VerdictRow],
    *,
    healthy_name: str = "healthy",
    regressed_name: str = "regressed",
    gate: float | None = None,
) -> SuiteBuilds:
    """The two builds as ``BuildTruth`` values; they must have the same cases and checks."""
    healthy_list, regressed_list = list(healthy_rows), list(regressed_rows)
    for name, rows in ((healthy_name, healthy_list), (regressed_name, regressed_list)):
        if not rows:
            raise ValueError(f"build {name!r} has no cases to tune on")
    shape_h = [(case, check, judged) for case, check, _, judged in healthy_list]
    shape_r = [(case, check, judged) for case, check, _, judged in regressed_list]
    if shape_h != shape_r:
        missing = sorted({c for c, _, _ in shape_h} ^ {c for c, _, _ in shape_r})
        detail = f" (cases in only one: {', '.join(missing[:5])})" if missing else ""
        raise ValueError(
            f"builds {healthy_name!r} and {regressed_name!r} do not have the same cases and "
            f"checks{detail}: tune compares two builds of one suite"
        )
    return SuiteBuilds(
        healthy=BuildTruth.from_verdicts(healthy_list),
        regressed=BuildTruth.from_verdicts(regressed_list),
        healthy_name=healthy_name,
        regressed_name=regressed_name,
        gate=gate,
    )
