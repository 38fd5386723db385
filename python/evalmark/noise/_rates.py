"""How a judge errs: false-pass and false-fail rates, their correlation over a case, and counts.

A judge errs in two ways: it *passes* a check that truly fails (false pass) or *fails* one that
truly passes (false fail). The flip model is the special case of equal rates. Real judges also
err on the same hard cases again and again: each case has its own error probability, drawn
from a Beta distribution with the mean rate and an ``overdispersion`` ρ — the correlation
between two calls' errors on the same case (0: independent calls; 1: a case is always or never
got wrong). Rates measured by counting (errors out of trials) carry their uncertainty: each is a
Beta posterior (Jeffreys prior, Beta(errors + ½, trials − errors + ½)).

The rates file (``write_rates`` / ``read_rates``; ``evalmark tune`` looks for it at
``<suite dir>/.evalmark/judge-rates.json``) holds counts, so that risks come with their
intervals; see docs/noise.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark.errors import DataFileError, Problem
from evalmark.noise._special import betaincinv

__all__ = [
    "DEFAULT_JUDGE_RATES",
    "RATES_FILE",
    "RATES_FORMAT",
    "ErrorRates",
    "JudgeRates",
    "OverdispersionEstimate",
    "RateCounts",
    "as_error_rates",
    "estimate_overdispersion",
    "rates_path",
    "read_rates",
    "write_rates",
]

RATES_FORMAT = "evalmark-judge-rates"
RATES_VERSION = 1
RATES_FILE = Path(".evalmark") / "judge-rates.json"


def check_probability(value: float, name: str) -> float:
    """``value`` as a float if it is a probability, else a ``ValueError`` naming ``name``."""
    message = f"{name} must be a probability between 0 and 1, got {value!r}"
    if isinstance(value, bool | str | bytes):
        raise ValueError(message)
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise ValueError(message) from None
    if not 0.0 <= rate <= 1.0:
        raise ValueError(message)
    return rate


@dataclass(frozen=True, slots=True)
class ErrorRates:
    """A judge's error rates on one call, and how strongly its errors cling to a case.

    ``false_pass``: the probability of passing a check that truly fails. ``false_fail``: of
    failing one that truly passes. ``overdispersion`` (ρ in [0, 1]): the correlation between
    the errors of two calls on the same case; 0 is the independent model.
    """

    false_pass: float
    false_fail: float
    overdispersion: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "false_pass", check_probability(self.false_pass, "false_pass"))
        object.__setattr__(self, "false_fail", check_probability(self.false_fail, "false_fail"))
        object.__setattr__(
            self, "overdispersion", check_probability(self.overdispersion, "overdispersion")
        )

    @classmethod
    def flip(cls, rate: float, overdispersion: float = 0.0) -> ErrorRates:
        """The flip model: either error with the same probability ``rate``."""
        rate = check_probability(rate, "flip rate")
        return cls(rate, rate, overdispersion)

    @property
    def is_flip(self) -> bool:
        """True when both rates are equal (the flip model)."""
        return self.false_pass == self.false_fail

    @property
    def independent(self) -> ErrorRates:
        """The same rates with independent errors (overdispersion 0)."""
        return ErrorRates(self.false_pass, self.false_fail, 0.0)

    def rate_for(self, passes: bool) -> float:
        """The error rate of a check whose true verdict is ``passes``."""
        return self.false_fail if passes else self.false_pass

    @property
    def label(self) -> str:
        """A short human description, e.g. "flip rate 0.03" or "false pass 0.1, false fail 0.03"."""
        text = (
            f"flip rate {self.false_pass:g}"
            if self.is_flip
            else f"false pass {self.false_pass:g}, false fail {self.false_fail:g}"
        )
        if self.overdispersion:
            text += f", overdispersion {self.overdispersion:g}"
        return text


def as_error_rates(value: ErrorRates | JudgeRates | float, name: str = "rates") -> ErrorRates:
    """An ``ErrorRates`` from rates, measured counts (their posterior means) or a flip rate."""
    if isinstance(value, ErrorRates):
        return value
    if isinstance(value, JudgeRates):
        return value.rates
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(
            f"{name} must be ErrorRates, JudgeRates or a flip rate between 0 and 1, got {value!r}"
        )
    return ErrorRates.flip(check_probability(value, f"{name} (a flip rate)"))


@dataclass(frozen=True, slots=True)
class RateCounts:
    """A rate measured by counting: ``errors`` out of ``trials``, with its Beta posterior."""

    errors: int
    trials: int

    def __post_init__(self) -> None:
        for name, value in (("errors", self.errors), ("trials", self.trials)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number ≥ 0, got {value!r}")
        if self.errors > self.trials:
            raise ValueError(
                f"errors ({self.errors}) cannot exceed trials ({self.trials}): count the "
                "judge's wrong verdicts among the checks it judged"
            )

    @property
    def alpha(self) -> float:
        """The first parameter of the posterior Beta(errors + ½, trials − errors + ½)."""
        return self.errors + 0.5

    @property
    def beta(self) -> float:
        """The second parameter of the posterior."""
        return self.trials - self.errors + 0.5

    @property
    def mean(self) -> float:
        """The posterior mean (errors + ½) / (trials + 1): the rate used as a point value."""
        return self.alpha / (self.alpha + self.beta)

    def quantile(self, p: float) -> float:
        """The ``p``-quantile of the posterior."""
        return betaincinv(self.alpha, self.beta, p)

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The central posterior interval holding ``confidence`` of the probability."""
        tail = (1.0 - confidence) / 2.0
        return self.quantile(tail), self.quantile(1.0 - tail)

    @property
    def label(self) -> str:
        """E.g. "3/120"."""
        return f"{self.errors}/{self.trials}"


@dataclass(frozen=True, slots=True)
class JudgeRates:
    """Measured judge rates, as in a rates file: counts for both errors, ρ, and their origin.

    ``source`` says where the counts come from (the command and the data that measured them);
    ``path`` is the file they were read from, if any.
    """

    false_pass: RateCounts
    false_fail: RateCounts
    overdispersion: float | None = None
    source: str = ""
    path: str | None = None

    def __post_init__(self) -> None:
        if self.overdispersion is not None:
            check_probability(self.overdispersion, "overdispersion")

    @property
    def rates(self) -> ErrorRates:
        """The point rates: posterior means, with the overdispersion (0 when not measured)."""
        return ErrorRates(self.false_pass.mean, self.false_fail.mean, self.overdispersion or 0.0)

    @property
    def origin(self) -> str:
        """Where the rates came from, for a report line."""
        where = f" ({self.path})" if self.path else ""
        return f"{self.source or 'unnamed source'}{where}"

    def to_dict(self) -> dict[str, Any]:
        """The rates-file document."""
        return {
            "format": RATES_FORMAT,
            "version": RATES_VERSION,
            "source": self.source,
            "false_pass": {"errors": self.false_pass.errors, "trials": self.false_pass.trials},
            "false_fail": {"errors": self.false_fail.errors, "trials": self.false_fail.trials},
            "overdispersion": self.overdispersion,
        }


# Used when neither the command line nor a rates file gives the judge's rates: a cautious guess
# for an LLM judge that passes weak answers more readily than it fails good ones, held with
# little confidence (worth 100 judged checks of each kind), with errors that cling to cases.
DEFAULT_JUDGE_RATES = JudgeRates(
    false_pass=RateCounts(10, 100),
    false_fail=RateCounts(3, 100),
    overdispersion=0.3,
    source="evalmark's default judge noise (a cautious guess, not a measurement)",
)


def rates_path(suite_dir: str | os.PathLike[str]) -> Path:
    """Where ``evalmark tune`` looks for a suite's rates: ``.evalmark/judge-rates.json`` there."""
    return Path(suite_dir) / RATES_FILE


def write_rates(path: str | os.PathLike[str], rates: JudgeRates) -> Path:
    """Write ``rates`` as a rates file (atomically: a reader sees the old file or the new)."""
    target = Path(path)
    text = json.dumps(rates.to_dict(), indent=2, ensure_ascii=False) + "\n"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, text.encode("utf-8"))
    return target


def read_rates(path: str | os.PathLike[str]) -> JudgeRates:
    """Read a rates file; a ``DataFileError`` names the file, the field and what to write."""
    source = Path(path)
    where = str(source)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError([Problem("no such rates file", path=where)]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError([Problem(f"cannot read the rates file: {exc}", path=where)]) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(
            [Problem(f"not JSON: {exc.msg}", path=where, line=exc.lineno, column=exc.colno)]
        ) from None
    except (RecursionError, ValueError) as exc:  # nesting too deep, or an over-long integer
        raise DataFileError(
            [Problem(f"not a rates file: {exc}; write the document rates files hold", path=where)]
        ) from None
    return rates_from_dict(document, where)


def rates_from_dict(document: object, where: str | None = None) -> JudgeRates:
    """A ``JudgeRates`` from a parsed rates document, every problem named by its field."""
    problems: list[Problem] = []

    def problem(field: str | None, message: str) -> None:
        problems.append(Problem(message, path=where, record=field))

    if not isinstance(document, Mapping):
        problem(None, f'expected a JSON object with "format": "{RATES_FORMAT}"')
        raise DataFileError(problems)
    if document.get("format") != RATES_FORMAT:
        problem("format", f'expected "{RATES_FORMAT}", got {document.get("format")!r}')
    if document.get("version", RATES_VERSION) != RATES_VERSION:
        problem("version", f"version {document.get('version')!r} is not supported; use 1")
    known = {"format", "version", "source", "false_pass", "false_fail", "overdispersion"}
    for key in sorted(set(document) - known, key=str):
        problem(str(key), f"unknown field; the fields are {', '.join(sorted(known))}")
    source = document.get("source", "")
    if not isinstance(source, str):
        problem("source", f"expected a string saying where the rates come from, got {source!r}")
        source = ""
    counts: dict[str, RateCounts] = {}
    for field in ("false_pass", "false_fail"):
        value = document.get(field)
        parsed = _counts(value, field, problem)
        if parsed is not None:
            counts[field] = parsed
    overdispersion = document.get("overdispersion")
    if overdispersion is not None and (
        isinstance(overdispersion, bool)
        or not isinstance(overdispersion, int | float)
        or not 0.0 <= overdispersion <= 1.0
    ):
        problem(
            "overdispersion", f"expected a number between 0 and 1 or null, got {overdispersion!r}"
        )
        overdispersion = None
    if problems:
        raise DataFileError(problems)
    return JudgeRates(
        false_pass=counts["false_pass"],
        false_fail=counts["false_fail"],
        overdispersion=None if overdispersion is None else float(overdispersion),
        source=source,
        path=where,
    )


def _counts(value: object, field: str, problem: Any) -> RateCounts | None:
    example = f'"{field}": {{"errors": 3, "trials": 120}}'
    if value is None:
        problem(field, f"missing; write {example}")
        return None
    if not isinstance(value, Mapping) or set(value) != {"errors", "trials"}:
        problem(field, f"expected errors and trials, e.g. {example}; got {value!r}")
        return None
    errors, trials = value["errors"], value["trials"]
    try:
        return RateCounts(errors, trials)
    except ValueError as exc:
        problem(field, str(exc))
        return None


@dataclass(frozen=True, slots=True)
class OverdispersionEstimate:
    """The mean error rate and overdispersion of a judge, from per-case error counts."""

    mean: float
    overdispersion: float
    cases: int
    trials: int


def estimate_overdispersion(counts: Iterable[tuple[int, int]]) -> OverdispersionEstimate:
    """Estimate ρ from ``(errors, calls)`` per case: the judge's wrong verdicts among repeated
    calls on cases whose true verdict is known.

    The analysis-of-variance estimator of the intraclass correlation for binary data (between-
    and within-case mean squares), clipped to [0, 1]. Cases with fewer than two calls carry no
    information on ρ and are skipped.
    """
    rows = []
    for errors, calls in counts:
        RateCounts(errors, calls)  # checks both counts
        if calls >= 2:
            rows.append((errors, calls))
    if len(rows) < 2:
        raise ValueError(
            "estimating overdispersion needs at least two cases with two or more calls each"
        )
    groups = len(rows)
    total = sum(n for _, n in rows)
    mean = sum(e for e, _ in rows) / total
    between = sum(n * (e / n - mean) ** 2 for e, n in rows) / (groups - 1)
    within = sum(e * (n - e) / n for e, n in rows) / (total - groups)
    size = (total - sum(n * n for _, n in rows) / total) / (groups - 1)
    denominator = between + (size - 1.0) * within
    rho = 0.0 if denominator <= 0.0 else (between - within) / denominator
    return OverdispersionEstimate(
        mean=mean, overdispersion=min(max(rho, 0.0), 1.0), cases=groups, trials=total
    )
